//! The defects found trying round 1 (issue 17), each driven through the
//! real input handling and drawn on a TestBackend: TTL 0, invented rates,
//! counts with expired keys, Ctrl-C with staged edits, a namespace or key
//! the writer removed, prompt errors, and staged keys in the list.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use crossterm::event::KeyCode;
use emdb_core::{Emdb, ManualClock, Stats, Ttl};
use emdb_tui::action::Action;
use emdb_tui::app::{App, Mode, PromptKind};
use emdb_tui::worker::Response;

fn writable() -> (tempfile::TempDir, Emdb, App) {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let app = app_for(&db, true);
    shot(&app);
    (dir, db, app)
}

fn select(app: &mut App, k: &str) {
    press(app, KeyCode::Char('/'));
    ctrl(app, 'u');
    keys(app, &format!("^{k}"));
    press(app, KeyCode::Enter);
}

/// The last screen row (the status bar).
fn status_row(screen: &str) -> String {
    screen.lines().last().unwrap_or("").to_string()
}

#[test]
fn a_ttl_of_zero_is_refused_where_it_can_be_seen() {
    let (_dir, db, mut app) = writable();
    select(&mut app, "readme");
    keys(&mut app, "areadme");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "new text");
    press(&mut app, KeyCode::Enter);
    for zero in ["0", "0s", "0ms"] {
        ctrl(&mut app, 'u');
        keys(&mut app, zero);
        press(&mut app, KeyCode::Enter);
        assert!(
            matches!(&app.mode, Mode::Prompt(PromptKind::NewTtl { .. }, _)),
            "{zero}: the prompt stays open"
        );
        assert!(app.staged.is_empty(), "{zero} was staged");
        // The error shows on the status row: the prompt has the message row.
        let s = shot(&app);
        assert!(
            status_row(&s).contains("would expire the key at once"),
            "{zero}: {s}"
        );
        assert!(s.contains("Time to live"), "{s}");
    }
    ctrl(&mut app, 'u');
    keys(&mut app, "1h");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 1);
    keys(&mut app, "wy");
    assert_eq!(db.get("readme").unwrap(), Some(b"new text".to_vec()));
}

#[test]
fn a_kept_ttl_that_ran_out_is_flagged_in_the_review() {
    let (_dir, _db, mut app) = writable();
    // session:0 expires 30 s after T0; edit it with its ttl kept, a minute on.
    select(&mut app, "session:0");
    keys(&mut app, "e");
    keys(&mut app, "-edited");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 1);
    keys(&mut app, "w");
    assert!(!shot(&app).contains("ran out"));
    app.now_ms = T0 + 60_000;
    let s = shot(&app);
    assert!(
        s.contains("the kept ttl ran out 30s ago: written without a ttl"),
        "{s}"
    );
}

#[test]
fn ctrl_c_asks_when_edits_are_staged() {
    let (_dir, _db, mut app) = writable();
    select(&mut app, "readme");
    keys(&mut app, "dy");
    assert_eq!(app.staged.len(), 1);
    ctrl(&mut app, 'c');
    assert!(!app.quit, "staged edits were dropped without asking");
    assert!(shot(&app).contains("Quit and discard the staged changes?"));
    keys(&mut app, "n");
    assert!(!app.quit);
    // Asked again, Ctrl-C a second time quits.
    ctrl(&mut app, 'c');
    ctrl(&mut app, 'c');
    assert!(app.quit);
}

#[test]
fn an_edit_that_changes_nothing_is_not_staged() {
    let (_dir, _db, mut app) = writable();
    select(&mut app, "readme");
    keys(&mut app, "e");
    press(&mut app, KeyCode::Enter);
    assert!(app.staged.is_empty());
    assert!(app.message.as_ref().unwrap().text.contains("no change"));
    // Changed, then changed back: unstaged again.
    keys(&mut app, "e");
    keys(&mut app, "!");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 1);
    keys(&mut app, "e");
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Enter);
    assert!(app.staged.is_empty());
}

#[test]
fn staged_new_keys_show_in_the_list() {
    let (_dir, _db, mut app) = writable();
    keys(&mut app, "abrand:new");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "v");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.keys.list.set().len(), 41);
    select(&mut app, "brand:");
    let s = shot(&app);
    assert!(s.contains(">+brand:new"), "{s}");
    // Unstaged: gone from the list again.
    keys(&mut app, "u");
    assert_eq!(app.keys.list.set().len(), 40);
    // Staged again, it survives a reload of the list.
    keys(&mut app, "abrand:new");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "v");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "r");
    assert!(app.keys.list.set().find(b"brand:new").is_some());
}

#[test]
fn long_keys_end_in_an_ellipsis_and_show_whole_in_the_value_pane() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let long = format!("long:{}:end", "x".repeat(70));
    db.insert(&long, "v").unwrap();
    let mut app = app_for(&db, false);
    shot(&app);
    select(&mut app, "long:");
    let s = shot(&app);
    assert!(s.contains("> long:xxxxxxxx"), "{s}");
    assert!(s.contains("x…"), "the cut key has no ellipsis: {s}");
    // The value pane holds the key over two lines, its end included.
    assert!(s.contains("xx:end"), "{s}");
}

fn stats_at(published_ms: u64, writes: u64) -> Stats {
    let mut s = Stats::default();
    s.namespaces = vec![(String::new(), 40)];
    s.live_records = 40;
    s.writes = writes;
    s.flushes = writes / 10;
    s.writer_pid = Some(4242);
    s.published_unix_ms = Some(published_ms);
    s
}

fn stats(app: &mut App, now_ms: u64, s: Stats, alive: bool) {
    app.now_ms = now_ms;
    act(
        app,
        Action::Worker(Box::new(Response::Stats {
            stats: Box::new(s),
            compact_written: None,
            writer_alive: Some(alive),
            live_counts: None,
            follow_failed: None,
            namespace_ids: Vec::new(),
        })),
    );
}

fn writes_line(screen: &str) -> String {
    screen
        .lines()
        .find(|l| l.contains("writes/s"))
        .unwrap_or("")
        .to_string()
}

#[test]
fn the_dashboard_does_not_invent_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = app_for(&db, false);
    keys(&mut app, "2");
    let start = T0 - 10_000;
    for sec in 0..=5u64 {
        stats(
            &mut app,
            start + sec * 1000 + 100,
            stats_at(start + sec * 1000, sec * 96),
            true,
        );
    }
    assert!(writes_line(&screen(&app, 120, 36)).contains("writes/s 96/s"));
    // The writer goes idle: nothing published for 3 s, the rate is 0.
    let last = start + 5000;
    stats(&mut app, last + 3000, stats_at(last, 5 * 96), true);
    let s = screen(&app, 120, 36);
    assert!(writes_line(&s).contains("writes/s 0/s"), "{s}");
    // The writer dies: no rate at all.
    stats(&mut app, last + 4000, stats_at(last, 5 * 96), false);
    let s = screen(&app, 120, 36);
    assert!(
        writes_line(&s).contains("writes/s — (the writer is gone)"),
        "{s}"
    );
    assert!(s.contains("no longer running"), "{s}");
}

#[test]
fn counts_leave_expired_keys_out() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(T0));
    let db = Emdb::builder()
        .path(dir.path().join("ttl.emdb"))
        .clock(clock.clone())
        .build()
        .unwrap();
    for i in 0..10 {
        db.insert(format!("keep:{i}"), "v").unwrap();
        db.insert_with_ttl(format!("gone:{i}"), "v", Ttl::After(Duration::from_secs(5)))
            .unwrap();
    }
    let ns = db.namespace("other").unwrap();
    ns.insert_with_ttl("soon", "v", Ttl::After(Duration::from_secs(5)))
        .unwrap();
    ns.insert("stays", "v").unwrap();
    clock.advance(Duration::from_secs(60));
    // The engine still counts the expired keys until they are swept.
    assert_eq!(db.stats().unwrap().live_records, 22);
    let mut app = app_for(&db, false);
    let counts: Vec<u64> = app.namespaces.iter().map(|n| n.count).collect();
    assert_eq!(counts, [10, 1]);
    keys(&mut app, "2");
    let s = screen(&app, 120, 36);
    assert!(s.contains("live keys      11"), "{s}");
    assert!(s.contains("expired keys   11"), "{s}");
}

/// A read-only app over `path`, as emdb-tui opens it, next to a writer.
fn follower(path: &std::path::Path) -> App {
    let reader = Emdb::builder().path(path).read_only(true).build().unwrap();
    let mut app = App::new(
        emdb_tui::app::Config::new(SHOWN_PATH),
        emdb_tui::worker::Worker::inline(reader),
        t0(),
    );
    app.start();
    emdb_tui::drain(&mut app);
    shot(&app);
    app
}

#[test]
fn a_namespace_the_writer_drops_is_said_and_not_recreated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.emdb");
    let writer = Emdb::open(&path).unwrap();
    writer.insert("a", "1").unwrap();
    writer
        .namespace("metrics")
        .unwrap()
        .insert("cpu", "7")
        .unwrap();
    writer.flush().unwrap();
    let mut app = follower(&path);
    keys(&mut app, "hjl");
    assert_eq!(app.shown_ns(), Some("metrics".into()));
    assert_eq!(app.selected_key(), Some(&b"cpu"[..]));
    writer.drop_namespace("metrics").unwrap();
    writer.flush().unwrap();
    keys(&mut app, "r");
    let msg = app.message.clone().unwrap();
    assert_eq!(
        msg.text,
        "namespace metrics dropped by the writer; showing (default)"
    );
    assert!(msg.error);
    assert_eq!(app.shown_ns(), None);
    assert_eq!(app.selected_key(), Some(&b"a"[..]));
    let s = shot(&app);
    assert!(s.contains("namespace metrics dropped by the writer"), "{s}");
    assert!(
        !s.contains("reopen it without read_only"),
        "a write was tried: {s}"
    );
    assert!(writer.list_namespaces().unwrap().is_empty());
}

#[test]
fn a_key_the_writer_deletes_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.emdb");
    let writer = Emdb::open(&path).unwrap();
    writer.insert("a", "1").unwrap();
    writer.insert("b", "2").unwrap();
    writer.flush().unwrap();
    let mut app = follower(&path);
    assert_eq!(app.selected_key(), Some(&b"a"[..]));
    writer.remove("a").unwrap();
    writer.flush().unwrap();
    // Stats first: the value is re-read before the list is reloaded.
    act(
        &mut app,
        Action::Command(emdb_tui::action::Command::Refresh),
    );
    let msg = app.message.clone().unwrap();
    assert_eq!(msg.text, "a deleted by the writer");
}

/// Another process encrypts the file a read-only view follows (`emdb
/// encrypt` renames a new file over it): the next stats say the view is
/// stale and what to do, on the message line (in full at 160 columns) and
/// the status bar, and reading the keys again says the same.
#[test]
fn a_file_encrypted_under_a_read_only_view_makes_it_stale_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.emdb");
    {
        let writer = Emdb::open(&path).unwrap();
        for i in 0..10 {
            writer.insert(format!("a{i}"), "v").unwrap();
        }
        writer.flush().unwrap();
    }
    let mut app = follower(&path);
    assert_eq!(app.keys.list.row_count(), 10);
    Emdb::enable_encryption(&path, emdb_core::EncryptionInput::Key([7u8; 32])).unwrap();
    act(&mut app, Action::Tick(t0()));
    let stale = app.stale.clone().expect("the view is marked stale");
    assert!(
        stale.text.contains("replaced by an encrypted one"),
        "{}",
        stale.text
    );
    assert!(stale.text.contains("EMDB_PASSPHRASE"), "{}", stale.text);
    let s = screen(&app, 160, 45);
    let lines: Vec<&str> = s.lines().collect();
    let status = lines[lines.len() - 1];
    let message = lines[lines.len() - 2];
    assert!(status.contains("STALE"), "{status}");
    assert!(!status.contains("refreshed"), "{status}");
    assert!(!status.contains("not encrypted"), "{status}");
    assert!(
        message.contains("--passphrase-file or --key-file"),
        "cut or missing: {message}"
    );
    // `r` reads the keys again: the same words, not the API's.
    keys(&mut app, "r");
    let text = app.message.clone().unwrap().text;
    assert_eq!(text, stale.text);
    assert!(!text.contains("encryption_passphrase"), "{text}");
    // Decrypted again (by the key's owner): followed again, read again.
    std::fs::remove_file(dir.path().join("live.emdb.encbak")).unwrap();
    Emdb::disable_encryption(&path, emdb_core::EncryptionInput::Key([7u8; 32])).unwrap();
    act(&mut app, Action::Tick(t0()));
    act(&mut app, Action::Tick(t0()));
    assert!(app.stale.is_none());
    assert!(!screen(&app, 160, 45).contains("STALE"));
    assert_eq!(app.keys.list.row_count(), 10);
}

/// Decrypting and rotating the key say what to do as well.
#[test]
fn stale_texts_name_the_cli_ways_to_give_the_secret() {
    use emdb_tui::update::stale_text;
    use emdb_tui::worker::JobError;
    let wrong = stale_text(&JobError::Db(emdb_core::Error::EncryptionKeyMismatch {
        reason: "x".into(),
    }));
    assert!(
        wrong.contains("rotate-key") && wrong.contains("new passphrase"),
        "{wrong}"
    );
    let plain = stale_text(&JobError::Db(emdb_core::Error::NotEncrypted {
        path: "/x".into(),
    }));
    assert!(
        plain.contains("decrypt") && plain.contains("without"),
        "{plain}"
    );
    // A read's error says the same as the refresh's, by its cause.
    let read = stale_text(&JobError::Db(emdb_core::Error::Stale {
        path: Some("/x".into()),
        cause: Box::new(emdb_core::Error::EncryptionRequired { path: "/x".into() }),
    }));
    assert!(
        read.contains("encrypted one") && read.contains("EMDB_PASSPHRASE"),
        "{read}"
    );
    for t in [wrong, plain, read] {
        assert!(t.chars().count() < 150, "{t}");
    }
}
