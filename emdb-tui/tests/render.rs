//! Rendering tests: every pane and mode drawn on ratatui's TestBackend and
//! compared with the snapshots in tests/snapshots (review changes with
//! `cargo insta review`, or delete the .snap file and rerun with
//! INSTA_UPDATE=always). The clock is fixed and the path shown is fixed,
//! so nothing needs filtering.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use crossterm::event::KeyCode;
use emdb_core::Stats;
use emdb_tui::action::Action;
use emdb_tui::app::Compaction;
use emdb_tui::worker::Response;
use insta::assert_snapshot;

fn setup(writable: bool) -> (tempfile::TempDir, emdb_core::Emdb, emdb_tui::app::App) {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = app_for(&db, writable);
    shot(&app);
    emdb_tui::drain(&mut app);
    (dir, db, app)
}

/// Select the key `k` by filtering for it and leaving the filter.
fn select(app: &mut emdb_tui::app::App, k: &str) {
    press(app, KeyCode::Char('/'));
    ctrl(app, 'u');
    keys(app, &format!("^{k}"));
    press(app, KeyCode::Enter);
}

#[test]
fn browse_pretty_json() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "G");
    assert_snapshot!(shot(&app));
}

#[test]
fn browse_first_screen() {
    let (_dir, _db, app) = setup(false);
    assert_snapshot!(shot(&app));
}

#[test]
fn filter_while_typing() {
    let (_dir, _db, mut app) = setup(false);
    press(&mut app, KeyCode::Char('/'));
    keys(&mut app, "er:01");
    assert_snapshot!(shot(&app));
}

#[test]
fn prefix_filter_kept() {
    let (_dir, _db, mut app) = setup(false);
    press(&mut app, KeyCode::Char('/'));
    keys(&mut app, "^config");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "j");
    assert_snapshot!(shot(&app));
}

#[test]
fn tree_view() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "t");
    // config. is not a group on ':'; switch to '.', then open config. and
    // config.app. inside it.
    keys(&mut app, "T");
    keys(&mut app, "gjl");
    keys(&mut app, "jl");
    assert_snapshot!(shot(&app));
}

#[test]
fn tree_view_on_colon() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "t");
    keys(&mut app, "G");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "jj");
    assert_snapshot!(shot(&app));
}

#[test]
fn expiring_soon_view() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "x");
    assert_snapshot!(shot(&app));
}

#[test]
fn value_views_cycle() {
    let (_dir, _db, mut app) = setup(false);
    select(&mut app, "blob:logo");
    let auto = shot(&app);
    assert_snapshot!("value_auto_hex", auto);
    select(&mut app, "readme");
    assert_snapshot!("value_text", shot(&app));
    select(&mut app, "user:002");
    keys(&mut app, "v");
    assert_snapshot!("value_json_as_text", shot(&app));
    keys(&mut app, "vv");
    assert_snapshot!("value_json_as_hex", shot(&app));
    keys(&mut app, "v");
    assert!(shot(&app).contains("[auto]"));
}

#[test]
fn namespaces_pane() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "h");
    keys(&mut app, "jj");
    assert_snapshot!(shot(&app));
}

#[test]
fn help_overlay() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "?");
    assert_snapshot!(shot(&app));
    press(&mut app, KeyCode::Esc);
    assert!(!shot(&app).contains("q or ? closes"));
}

#[test]
fn read_only_refuses_edits() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "d");
    let s = shot(&app);
    assert!(
        s.contains("read-only: start emdb-tui with --write to edit"),
        "{s}"
    );
}

fn stats_at(published_ms: u64, writes: u64, flushes: u64) -> Stats {
    let mut s = Stats::default();
    s.live_records = 1_000_000;
    s.namespaces = vec![(String::new(), 999_000), ("metrics".into(), 1_000)];
    s.index_entries = 1_000_000;
    s.index_memory_bytes = 9 << 20;
    s.log_logical_bytes = 300 << 20;
    s.file_bytes = 320 << 20;
    s.live_bytes = 200 << 20;
    s.dead_bytes = (100 << 20) - 4096;
    s.writes = writes;
    s.flushes = flushes;
    s.fsyncs = flushes;
    s.fsync_p50 = Duration::from_micros(400);
    s.fsync_p99 = Duration::from_micros(2500 + writes % 7 * 100);
    s.compactions = 2;
    s.last_compaction_unix_ms = Some(T0 - 125_000);
    s.writer_pid = Some(4242);
    s.published_unix_ms = Some(published_ms);
    s
}

#[test]
fn dashboard() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "2");
    // Two minutes of a writer speeding up, published once a second.
    let start = T0 - 120_000;
    let (mut writes, mut flushes) = (0u64, 0u64);
    for sec in 0..=120u64 {
        writes += sec * 10;
        flushes += 1 + sec / 30;
        app.now_ms = start + sec * 1000 + 200;
        act(
            &mut app,
            Action::Worker(Box::new(Response::Stats {
                stats: Box::new(stats_at(start + sec * 1000, writes, flushes)),
                compact_written: None,
                writer_alive: Some(true),
                live_counts: None,
                follow_failed: None,
                namespace_ids: Vec::new(),
            })),
        );
    }
    assert_snapshot!(screen(&app, 120, 36));
}

/// Real fsync latencies vary from run to run: blank the numbers.
fn without_latencies(screen: &str) -> String {
    screen
        .lines()
        .map(|l| match l.find("fsync p99") {
            Some(i) => format!("{}fsync p99 [latencies filtered]", &l[..i]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn dashboard_before_any_writer() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "2");
    // The real sample of the test database: only what the engine cannot
    // vary (counts) is compared; sizes and latencies are its business.
    let live = screen(&app, 100, 30);
    assert!(live.contains("live keys      52"), "{live}");
    assert!(live.contains("no writer has published stats"), "{live}");
    // A read-only view of a database whose writer never published.
    let mut s = stats_at(0, 0, 0);
    s.published_unix_ms = None;
    s.writer_pid = None;
    s.fsync_p50 = Duration::ZERO;
    s.fsync_p99 = Duration::ZERO;
    s.dead_bytes = 0;
    s.last_compaction_unix_ms = None;
    s.compactions = 0;
    act(
        &mut app,
        Action::Worker(Box::new(Response::Stats {
            stats: Box::new(s),
            compact_written: None,
            writer_alive: None,
            live_counts: None,
            follow_failed: None,
            namespace_ids: Vec::new(),
        })),
    );
    assert_snapshot!(without_latencies(&screen(&app, 100, 30)));
}

#[test]
fn encrypted_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = emdb_core::Emdb::builder()
        .path(dir.path().join("secret.emdb"))
        .encryption_key([9u8; 32])
        .build()
        .unwrap();
    db.insert("card:1", "4111 1111 1111 1111").unwrap();
    let mut app = app_for(&db, false);
    let s = shot(&app);
    assert!(s.contains("│ encrypted │"), "{s}");
    assert!(s.contains("4111 1111 1111 1111"), "{s}");
    keys(&mut app, "2");
    let s = screen(&app, 120, 36);
    assert!(
        s.contains("encrypted, 1 record sealed under the current key"),
        "{s}"
    );
}

// ---- --write ----

#[test]
fn put_prompts_and_review() {
    let (_dir, _db, mut app) = setup(true);
    keys(&mut app, "a");
    keys(&mut app, "user:999");
    assert_snapshot!("put_key_prompt", shot(&app));
    press(&mut app, KeyCode::Enter);
    keys(&mut app, r#"{"id":999}"#);
    press(&mut app, KeyCode::Enter);
    assert_snapshot!("put_ttl_prompt", shot(&app));
    keys(&mut app, "15m");
    press(&mut app, KeyCode::Enter);
    // Edit an existing key inline: its JSON gets a new field.
    select(&mut app, "user:001");
    keys(&mut app, "e");
    press(&mut app, KeyCode::End);
    for _ in 0..2 {
        press(&mut app, KeyCode::Backspace);
    }
    keys(&mut app, r#"e,"admin":true}"#);
    press(&mut app, KeyCode::Enter);
    assert_snapshot!("staged_edit_in_value_pane", shot(&app));
    keys(&mut app, "w");
    assert_snapshot!("review_diff", shot(&app));
}

#[test]
fn delete_asks_first() {
    let (_dir, _db, mut app) = setup(true);
    select(&mut app, "readme");
    keys(&mut app, "d");
    assert_snapshot!(shot(&app));
}

#[test]
fn compaction_gauge() {
    let (_dir, _db, mut app) = setup(true);
    app.compaction = Some(Compaction {
        started_ms: T0 - 3_000,
        expected: 40 << 20,
        written: Some(14 << 20),
    });
    let s = shot(&app);
    let status: Vec<&str> = s.lines().rev().take(2).collect();
    assert_snapshot!(status.join("\n"));
}

#[test]
fn every_size_draws() {
    let (_dir, _db, mut app) = setup(true);
    for (w, h) in [
        (1, 1),
        (10, 5),
        (40, 12),
        (59, 20),
        (60, 20),
        (80, 24),
        (200, 60),
    ] {
        for tab in ["1", "2"] {
            keys(&mut app, tab);
            screen(&app, w, h);
            keys(&mut app, "?");
            screen(&app, w, h);
            press(&mut app, KeyCode::Esc);
        }
    }
    keys(&mut app, "1");
    assert_snapshot!(screen(&app, 60, 20));
}

#[test]
fn help_says_when_there_is_more() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "?");
    assert!(
        !screen(&app, 120, 40).contains("more:"),
        "it fits at 120x40"
    );
    let s = screen(&app, 120, 20);
    assert!(s.contains("↓ more: j, PgDn"), "{s}");
    keys(&mut app, "j");
    assert!(screen(&app, 120, 20).contains("↑↓ more: k/j"));
    for _ in 0..30 {
        keys(&mut app, "j");
    }
    assert!(screen(&app, 120, 20).contains("↑ more: k, g"));
}
