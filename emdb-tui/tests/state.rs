//! State tests: navigation, filtering, tree and namespace switching driven
//! through the real input handling; a million-key filter (timed, not
//! asserted); a read-only follower watching a writer through the threaded
//! worker; and the main loop on a TestBackend.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::VecDeque;
use std::time::{Duration, Instant, SystemTime};

use common::*;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use emdb_tui::action::Action;
use emdb_tui::app::{App, Config, Mode, Pane, Tab};
use emdb_tui::event_loop::{run, Host};
use emdb_tui::keylist::{KeyList, KeySet, ListView};
use emdb_tui::worker::Worker;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn setup() -> (tempfile::TempDir, emdb_core::Emdb, App) {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let app = app_for(&db, false);
    shot(&app);
    (dir, db, app)
}

fn selected(app: &App) -> String {
    String::from_utf8_lossy(app.selected_key().unwrap_or(b"<none>")).into_owned()
}

#[test]
fn starts_on_the_first_key_with_its_value() {
    let (_dir, _db, app) = setup();
    assert_eq!(app.focus, Pane::Keys);
    assert_eq!(app.keys.list.set().len(), 40);
    assert_eq!(selected(&app), "blob:logo");
    let loaded = app.value.loaded.as_ref().unwrap();
    assert_eq!(loaded.key, b"blob:logo");
    assert_eq!(loaded.value.as_ref().unwrap().len(), 100);
    let names: Vec<_> = app.namespaces.iter().map(|n| n.name.clone()).collect();
    assert_eq!(names, [None, Some("empty".into()), Some("metrics".into())]);
    assert_eq!(app.namespaces[0].count, 40);
}

#[test]
fn vim_keys_arrows_and_pages() {
    let (_dir, _db, mut app) = setup();
    keys(&mut app, "jj");
    assert_eq!(selected(&app), "config.app.port");
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Up);
    keys(&mut app, "k");
    assert_eq!(selected(&app), "config.app.name");
    keys(&mut app, "G");
    assert_eq!(selected(&app), "user:029");
    keys(&mut app, "j");
    assert_eq!(selected(&app), "user:029", "stays on the last key");
    keys(&mut app, "g");
    assert_eq!(selected(&app), "blob:logo");
    keys(&mut app, "k");
    assert_eq!(selected(&app), "blob:logo", "stays on the first key");
    // A page is the visible rows less one (the 120x32 screen shows 26 keys).
    press(&mut app, KeyCode::PageDown);
    assert_eq!(app.keys.nav.selected, 25);
    ctrl(&mut app, 'u');
    assert_eq!(app.keys.nav.selected, 0);
    ctrl(&mut app, 'd');
    press(&mut app, KeyCode::End);
    assert_eq!(app.keys.nav.selected, 39);
    // The list scrolled so the selection is visible.
    assert!(app.keys.nav.offset > 0 && app.keys.nav.offset <= 39);
    // Every selection change loaded the selected value.
    assert_eq!(app.value.loaded.as_ref().unwrap().key, b"user:029");
}

#[test]
fn the_last_row_follows_new_keys() {
    let (_dir, db, mut app) = setup();
    keys(&mut app, "G");
    assert_eq!(selected(&app), "user:029");
    db.insert("user:030", "new").unwrap();
    keys(&mut app, "r");
    assert_eq!(selected(&app), "user:030");
    // Elsewhere in the list the selection stays on its key.
    keys(&mut app, "k");
    db.insert("user:031", "new").unwrap();
    keys(&mut app, "r");
    assert_eq!(selected(&app), "user:029");
}

#[test]
fn focus_moves_between_panes() {
    let (_dir, _db, mut app) = setup();
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Value);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Namespaces);
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Value);
    keys(&mut app, "h");
    assert_eq!(app.focus, Pane::Keys);
    keys(&mut app, "h");
    assert_eq!(app.focus, Pane::Namespaces);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Keys);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Value);
    // In the value pane j/k scroll the value, not the key list.
    keys(&mut app, "jjj");
    assert_eq!(selected(&app), "blob:logo");
    assert_eq!(
        app.value.scroll, 0,
        "the whole hex dump fits: nothing to scroll"
    );
}

#[test]
fn filter_narrows_as_you_type_and_esc_clears() {
    let (_dir, _db, mut app) = setup();
    keys(&mut app, "/");
    assert!(matches!(app.mode, Mode::Filter(_)));
    keys(&mut app, "ses");
    assert_eq!(app.keys.list.match_count(), 5);
    assert_eq!(selected(&app), "session:0");
    keys(&mut app, "sion:3");
    assert_eq!(app.keys.list.match_count(), 1);
    assert_eq!(selected(&app), "session:3");
    // Widening the filter keeps the selected key.
    press(&mut app, KeyCode::Backspace);
    assert_eq!(app.keys.list.match_count(), 5);
    assert_eq!(selected(&app), "session:3");
    // Arrows move the selection while typing.
    press(&mut app, KeyCode::Up);
    assert_eq!(selected(&app), "session:2");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.mode, Mode::Normal);
    assert_eq!(app.keys.list.filter(), "session:");
    // j/k work on the filtered list; Esc clears the filter and keeps the key.
    keys(&mut app, "j");
    assert_eq!(selected(&app), "session:3");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.keys.list.filter(), "");
    assert_eq!(app.keys.list.match_count(), 40);
    assert_eq!(selected(&app), "session:3");
    // Esc while typing drops the filter.
    keys(&mut app, "/^user:02");
    assert_eq!(app.keys.list.match_count(), 10);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.keys.list.match_count(), 40);
    assert_eq!(app.mode, Mode::Normal);
}

#[test]
fn filter_text_editing_keys() {
    let (_dir, _db, mut app) = setup();
    keys(&mut app, "/user 01");
    ctrl(&mut app, 'w');
    assert!(matches!(&app.mode, Mode::Filter(i) if i.text() == "user "));
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Delete);
    assert!(matches!(&app.mode, Mode::Filter(i) if i.text() == "ser "));
    ctrl(&mut app, 'e');
    ctrl(&mut app, 'u');
    assert!(matches!(&app.mode, Mode::Filter(i) if i.text().is_empty()));
}

#[test]
fn tree_open_close_and_parent() {
    let (_dir, _db, mut app) = setup();
    keys(&mut app, "t");
    assert_eq!(app.keys.list.view(), ListView::Tree);
    // blob:logo, config.app.name, config.app.port, config.db.pool, readme,
    // session: (5), user: (30)
    assert_eq!(app.keys.list.row_count(), 7);
    keys(&mut app, "G");
    press(&mut app, KeyCode::Right);
    assert_eq!(app.keys.list.row_count(), 37);
    keys(&mut app, "l");
    assert_eq!(selected(&app), "user:000");
    keys(&mut app, "jj");
    assert_eq!(selected(&app), "user:002");
    // h on a key goes to its group, h on an open group closes it.
    keys(&mut app, "h");
    assert_eq!(app.keys.nav.selected, 6);
    keys(&mut app, "h");
    assert_eq!(app.keys.list.row_count(), 7);
    keys(&mut app, "h");
    assert_eq!(app.focus, Pane::Namespaces);
    // Back to the flat list, the selection stays near.
    keys(&mut app, "lt");
    assert_eq!(app.keys.list.view(), ListView::Flat);
}

#[test]
fn expiring_view_lists_ttl_keys_soonest_first() {
    let (_dir, _db, mut app) = setup();
    keys(&mut app, "x");
    assert_eq!(app.keys.list.view(), ListView::Expiring);
    assert_eq!(app.keys.list.match_count(), 5);
    assert_eq!(selected(&app), "session:0");
    keys(&mut app, "G");
    assert_eq!(selected(&app), "session:4");
    keys(&mut app, "x");
    assert_eq!(app.keys.list.view(), ListView::Flat);
    assert_eq!(selected(&app), "session:4");
}

#[test]
fn switching_namespaces_loads_their_keys() {
    let (_dir, _db, mut app) = setup();
    keys(&mut app, "h");
    keys(&mut app, "j");
    assert_eq!(app.keys.ns, Some(Some("empty".into())));
    assert_eq!(app.keys.list.set().len(), 0);
    assert!(app.selected_key().is_none());
    keys(&mut app, "j");
    assert_eq!(app.keys.ns, Some(Some("metrics".into())));
    assert_eq!(app.keys.list.set().len(), 12);
    keys(&mut app, "l");
    assert_eq!(selected(&app), "cpu.00");
    assert_eq!(
        app.value.loaded.as_ref().unwrap().value.as_deref(),
        Some(&b"0"[..])
    );
}

#[test]
fn mouse_wheel_and_click() {
    let (_dir, _db, mut app) = setup();
    let areas = app.areas;
    let wheel = |kind, column, row| {
        Event::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    event(
        &mut app,
        wheel(
            MouseEventKind::ScrollDown,
            areas.keys.x + 3,
            areas.keys.y + 5,
        ),
    );
    assert_eq!(app.keys.nav.selected, 3);
    // Clicking the fifth key row (border and header above it).
    event(
        &mut app,
        wheel(
            MouseEventKind::Down(crossterm::event::MouseButton::Left),
            areas.keys.x + 3,
            areas.keys.y + 2 + 4,
        ),
    );
    assert_eq!(app.keys.nav.selected, 4);
    event(
        &mut app,
        wheel(
            MouseEventKind::Down(crossterm::event::MouseButton::Left),
            areas.namespaces.x + 2,
            areas.namespaces.y + 3,
        ),
    );
    assert_eq!(app.focus, Pane::Namespaces);
    assert_eq!(app.keys.ns, Some(Some("metrics".into())));
}

#[test]
fn tabs_help_and_quit() {
    let (_dir, _db, mut app) = setup();
    keys(&mut app, "2");
    assert_eq!(app.tab, Tab::Dashboard);
    keys(&mut app, "j");
    assert_eq!(
        app.keys.nav.selected, 0,
        "browse keys do nothing on the dashboard"
    );
    keys(&mut app, "1?");
    assert_eq!(app.mode, Mode::Help(0));
    keys(&mut app, "j");
    assert_eq!(app.mode, Mode::Help(1));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.mode, Mode::Normal);
    keys(&mut app, "q");
    assert!(app.quit);
}

#[test]
fn ctrl_c_quits_from_any_mode() {
    let (_dir, _db, mut app) = setup();
    keys(&mut app, "/abc");
    ctrl(&mut app, 'c');
    assert!(app.quit);
}

#[test]
fn edits_are_staged_then_written_after_review() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = app_for(&db, true);
    shot(&app);
    // Delete readme (asks), edit user:001 inline, put a new key with a TTL.
    keys(&mut app, "/^readme");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "d");
    assert!(matches!(app.mode, Mode::Confirm(_)));
    keys(&mut app, "y");
    keys(&mut app, "/");
    ctrl(&mut app, 'u');
    keys(&mut app, "^user:001");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "e");
    ctrl(&mut app, 'u');
    keys(&mut app, "replaced\\tvalue");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "anew\\x00key");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "v");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "2h");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 3);
    // Nothing is written yet.
    assert!(db.get("readme").unwrap().is_some());
    assert!(db.get(b"new\0key").unwrap().is_none());
    // Esc leaves the review without writing; y writes.
    keys(&mut app, "w");
    assert_eq!(app.mode, Mode::Review(0));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.staged.len(), 3);
    keys(&mut app, "w");
    keys(&mut app, "y");
    assert!(app.staged.is_empty());
    assert_eq!(db.get("readme").unwrap(), None);
    assert_eq!(
        db.get("user:001").unwrap(),
        Some(b"replaced\tvalue".to_vec())
    );
    assert_eq!(db.get(b"new\0key").unwrap(), Some(b"v".to_vec()));
    assert_eq!(
        db.ttl(b"new\0key").unwrap(),
        Some(Duration::from_secs(7200))
    );
    // The list was reloaded.
    assert!(app.keys.list.set().find(b"new\0key").is_some());
    assert!(app.keys.list.set().find(b"readme").is_none());
}

#[test]
fn edits_in_a_named_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = app_for(&db, true);
    shot(&app);
    keys(&mut app, "hjjl");
    assert_eq!(app.shown_ns(), Some("metrics".into()));
    keys(&mut app, "e");
    ctrl(&mut app, 'u');
    keys(&mut app, "99");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "jdy");
    keys(&mut app, "wy");
    let metrics = db.namespace("metrics").unwrap();
    assert_eq!(metrics.get("cpu.00").unwrap(), Some(b"99".to_vec()));
    assert_eq!(metrics.get("cpu.01").unwrap(), None);
    // The default namespace was not touched.
    assert_eq!(db.get("cpu.00").unwrap(), None);
    assert_eq!(app.keys.list.set().len(), 11);
}

#[test]
fn edits_keep_the_ttl_and_can_be_unstaged_or_discarded() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = app_for(&db, true);
    shot(&app);
    keys(&mut app, "/^session:1");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "e");
    keys(&mut app, "-more");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 1);
    keys(&mut app, "u");
    assert!(app.staged.is_empty());
    keys(&mut app, "e");
    keys(&mut app, "-more");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "wy");
    assert_eq!(db.get("session:1").unwrap(), Some(b"token-1-more".to_vec()));
    assert_eq!(db.ttl("session:1").unwrap(), Some(Duration::from_secs(630)));
    // Staged, then discarded from the review with X.
    keys(&mut app, "d");
    keys(&mut app, "y");
    keys(&mut app, "w");
    keys(&mut app, "X");
    assert!(app.staged.is_empty());
    assert!(db.get("session:1").unwrap().is_some());
    // Quitting with staged changes asks.
    keys(&mut app, "dy");
    keys(&mut app, "q");
    assert!(!app.quit);
    keys(&mut app, "n");
    assert!(!app.quit);
    keys(&mut app, "q");
    keys(&mut app, "y");
    assert!(app.quit);
}

#[test]
fn external_editor_result_is_staged() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = app_for(&db, true);
    shot(&app);
    keys(&mut app, "/^readme");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "E");
    let job = app.editor.take().unwrap();
    assert_eq!(job.key, b"readme");
    let mut edited = job.initial.clone();
    edited.extend_from_slice(b"\nLine three.");
    // The editor's final newline is dropped: the value had none.
    let mut saved = edited.clone();
    saved.push(b'\n');
    act(
        &mut app,
        Action::Edited {
            job,
            result: Ok(saved),
        },
    );
    assert_eq!(app.staged.len(), 1);
    assert_eq!(app.staged[0].change.value.as_deref(), Some(&edited[..]));
    let s = shot(&app);
    assert!(s.contains("+ Line three."), "{s}");
}

#[test]
fn flush_and_compact_report_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    for i in 0..100 {
        db.insert("churn", format!("{i}")).unwrap();
    }
    let mut app = app_for(&db, true);
    keys(&mut app, "F");
    assert!(app.message.as_ref().unwrap().text.starts_with("flushed in"));
    let dead_before = db.stats().unwrap().dead_bytes;
    assert!(dead_before > 0);
    keys(&mut app, "C");
    assert!(
        app.compaction.is_none(),
        "the inline worker finishes at once"
    );
    let msg = &app.message.as_ref().unwrap().text;
    assert!(msg.starts_with("compacted in"), "{msg}");
    assert!(db.stats().unwrap().dead_bytes < dead_before);
}

#[test]
fn million_keys_filter_stays_fast() {
    // The key list model alone (no database): a million keys as an app
    // would hold them. Timings are printed, not asserted (shared machines).
    let start = Instant::now();
    let mut set = KeySet::new();
    for i in 0..1_000_000u32 {
        let key = match i % 4 {
            0 => format!("user:{i:07}:profile"),
            1 => format!("session:{:08x}", i.wrapping_mul(2_654_435_761)),
            2 => format!("order.{}.{i}", i % 997),
            _ => format!("cache/{}/{i}", i % 13),
        };
        set.push(key.as_bytes(), 100, 0);
    }
    set.sort();
    let built = start.elapsed();
    let mut list = KeyList::new(set, b':');
    let mut typed = String::new();
    let mut per_key = Vec::new();
    for c in "user:00042".chars() {
        typed.push(c);
        let t = Instant::now();
        list.set_filter(&typed);
        per_key.push((c, t.elapsed(), list.match_count()));
    }
    // user:00042NN:profile for the multiples of 4 among 4200..4300.
    assert_eq!(list.match_count(), 25);
    let t = Instant::now();
    list.set_filter("user:0004");
    let back = t.elapsed();
    let t = Instant::now();
    list.set_filter("^order.5");
    let prefix = t.elapsed();
    let t = Instant::now();
    list.set_filter("");
    list.set_view(ListView::Tree);
    let tree = t.elapsed();
    eprintln!("1M keys: build+sort {built:?}");
    for (c, d, n) in per_key {
        eprintln!("  typed {c:?}: {d:?} ({n} matches)");
    }
    eprintln!("  backspace (cached): {back:?}; prefix ^order.5: {prefix:?}; tree rows: {tree:?}");
    // Two groups (user:, session:) and the keys without a ':'.
    assert_eq!(list.row_count(), 500_002);
}

#[test]
fn follows_a_writer_through_the_threaded_worker() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.emdb");
    let writer = emdb_core::Emdb::open(&path).unwrap();
    writer.insert("a", "1").unwrap();
    writer.flush().unwrap();
    let reader = emdb_core::Emdb::builder()
        .path(&path)
        .read_only(true)
        .build()
        .unwrap();
    let mut config = Config::new(SHOWN_PATH);
    config.tick = Duration::from_millis(50);
    let mut app = App::new(config, Worker::spawn(reader), SystemTime::now());
    app.start();
    let wait_for = |app: &mut App, what: &str, f: &dyn Fn(&App) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !f(app) {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            emdb_tui::update::update(app, Action::Tick(SystemTime::now()));
            emdb_tui::drain(app);
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_for(&mut app, "the first keys", &|a| {
        a.keys.list.set().len() == 1
    });
    for i in 0..500 {
        writer.insert(format!("k{i:03}"), "x").unwrap();
    }
    writer.flush().unwrap();
    wait_for(&mut app, "the namespace count", &|a| {
        a.namespaces.first().is_some_and(|n| n.count == 501)
    });
    wait_for(&mut app, "the reloaded keys", &|a| {
        a.keys.list.set().len() == 501
    });
    writer.remove("a").unwrap();
    writer.flush().unwrap();
    wait_for(&mut app, "the deletion", &|a| {
        a.keys.list.set().len() == 500
    });
    assert_eq!(selected(&app), "k000");
}

/// Scripted input for the main loop, one event per poll with an idle poll
/// between (so each gets a frame); quits when the script runs out.
struct Script(VecDeque<Event>, bool);

impl Host for Script {
    fn next_event(&mut self, _timeout: Duration) -> std::io::Result<Option<Event>> {
        self.1 = !self.1;
        if self.1 {
            return Ok(None);
        }
        let quit = Event::Key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE));
        Ok(Some(self.0.pop_front().unwrap_or(quit)))
    }

    fn edit(&mut self, initial: &[u8]) -> Result<Vec<u8>, String> {
        Ok(initial.to_vec())
    }
}

#[test]
fn main_loop_on_a_test_backend() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = App::new(
        Config::new(SHOWN_PATH),
        Worker::inline(db),
        SystemTime::now(),
    );
    let key = |c| Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    let script = ["/", "s", "e", "s"]
        .iter()
        .map(|s| key(s.chars().next().unwrap()))
        .chain([
            Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
            key('j'),
            Event::Resize(80, 24),
        ])
        .collect();
    let mut terminal = Terminal::new(TestBackend::new(120, 30)).unwrap();
    run(&mut terminal, &mut app, &mut Script(script, false)).unwrap();
    assert!(app.quit);
    let text = buffer_text(terminal.backend().buffer());
    assert!(text.contains("Keys 5 of 40 /ses "), "{text}");
    assert!(text.contains("> session:1"), "{text}");
}

#[test]
fn idle_screens_are_not_redrawn() {
    let dir = tempfile::tempdir().unwrap();
    let db = emdb_core::Emdb::builder()
        .path(dir.path().join("idle.emdb"))
        .clock(std::sync::Arc::new(emdb_core::ManualClock::new(T0)))
        .build()
        .unwrap();
    db.insert("plain", "v").unwrap();
    let mut app = app_for(&db, false);
    shot(&app);
    let tick = |app: &mut App, ms: u64| {
        app.redraw = false;
        act(
            app,
            Action::Tick(std::time::UNIX_EPOCH + Duration::from_millis(ms)),
        );
        app.redraw
    };
    // A tick samples stats; the same stats again change nothing on screen,
    // nor does the clock while no countdown shows.
    assert!(!tick(&mut app, T0 + 250));
    assert!(!tick(&mut app, T0 + 1250), "a new second with no countdown");
    // A key with a time to live on screen: once a second, not per tick.
    db.insert_with_ttl("temp", "v", emdb_core::Ttl::After(Duration::from_secs(90)))
        .unwrap();
    keys(&mut app, "r");
    app.now_ms = T0 + 1300;
    assert!(!tick(&mut app, T0 + 1500));
    assert!(tick(&mut app, T0 + 2000));
    assert!(!tick(&mut app, T0 + 2250));
    // Input always redraws.
    app.redraw = false;
    keys(&mut app, "j");
    assert!(app.redraw);
}

#[test]
fn a_followed_writer_updates_the_list_without_reloading_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.emdb");
    let writer = emdb_core::Emdb::open(&path).unwrap();
    for i in 0..100 {
        writer.insert(format!("k{i:03}"), "x").unwrap();
    }
    writer.flush().unwrap();
    let reader = emdb_core::Emdb::builder()
        .path(&path)
        .read_only(true)
        .build()
        .unwrap();
    let mut app = App::new(Config::new(SHOWN_PATH), Worker::inline(reader), t0());
    app.start();
    emdb_tui::drain(&mut app);
    shot(&app);
    keys(&mut app, "G");
    assert_eq!(selected(&app), "k099");
    let generation = app.keys.generation;
    writer.insert("k100", "new").unwrap();
    writer.insert("k050", "longer value").unwrap();
    writer.remove("k010").unwrap();
    writer.flush().unwrap();
    // The read-only handle catches up by itself about every 50 ms.
    std::thread::sleep(Duration::from_millis(400));
    let mut now = T0;
    for _ in 0..4 {
        now += 300;
        act(
            &mut app,
            Action::Tick(std::time::UNIX_EPOCH + Duration::from_millis(now)),
        );
    }
    let set = app.keys.list.set();
    assert_eq!(set.len(), 100);
    assert!(set.find(b"k100").is_some());
    assert!(set.find(b"k010").is_none());
    assert_eq!(set.entry(set.find(b"k050").unwrap()).unwrap().size, 12);
    assert_eq!(app.keys.generation, generation, "the list was read again");
    // On the last row, the selection follows the new key.
    assert_eq!(selected(&app), "k100");
}

/// The same on an encrypted database, whose records hold no key in clear:
/// the list used to keep deleted keys and never show new ones.
#[test]
fn a_followed_encrypted_writer_updates_the_list_too() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sealed.emdb");
    let open = |read_only: bool| {
        emdb_core::Emdb::builder()
            .path(&path)
            .encryption_key([9u8; 32])
            .read_only(read_only)
            .build()
            .unwrap()
    };
    let writer = open(false);
    for i in 0..100 {
        writer.insert(format!("k{i:03}"), "x").unwrap();
    }
    writer.flush().unwrap();
    let mut app = App::new(Config::new(SHOWN_PATH), Worker::inline(open(true)), t0());
    app.start();
    emdb_tui::drain(&mut app);
    let generation = app.keys.generation;
    writer.insert("k100", "new").unwrap();
    writer.insert("k050", "longer value").unwrap();
    writer.remove("k010").unwrap();
    writer.flush().unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let mut now = T0;
    for _ in 0..4 {
        now += 300;
        act(
            &mut app,
            Action::Tick(std::time::UNIX_EPOCH + Duration::from_millis(now)),
        );
    }
    let set = app.keys.list.set();
    assert!(set.find(b"k100").is_some());
    assert!(set.find(b"k010").is_none());
    assert!(set.find(b"").is_none());
    assert_eq!(set.len(), 100);
    assert_eq!(set.entry(set.find(b"k050").unwrap()).unwrap().size, 12);
    assert_eq!(app.keys.generation, generation, "the list was read again");
}

/// A follow that fails (`keys_touched_since` errs on a record that does
/// not open, a file cut under the read, a handle that could not catch up)
/// leaves the list able to follow the writer or read its keys again. It
/// used to stay marked as following for good: the list never changed again.
#[test]
fn a_failed_follow_does_not_freeze_the_list() {
    use emdb_tui::worker::{Job, JobError, Response};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.emdb");
    let writer = emdb_core::Emdb::open(&path).unwrap();
    for i in 0..100 {
        writer.insert(format!("k{i:03}"), "x").unwrap();
    }
    writer.flush().unwrap();
    let reader = emdb_core::Emdb::builder()
        .path(&path)
        .read_only(true)
        .build()
        .unwrap();
    let mut app = App::new(Config::new(SHOWN_PATH), Worker::inline(reader), t0());
    app.start();
    emdb_tui::drain(&mut app);
    writer.insert("k100", "new").unwrap();
    writer.flush().unwrap();
    std::thread::sleep(Duration::from_millis(400));
    // The follow of that record fails.
    let mut now = T0 + 300;
    emdb_tui::update::update(
        &mut app,
        Action::Tick(std::time::UNIX_EPOCH + Duration::from_millis(now)),
    );
    let mut failed = false;
    while let Some(r) = app.poll_worker() {
        let r = match r {
            Response::KeysTouched { .. } if !failed => {
                failed = true;
                Response::Failed {
                    job: Job::LoadKeys,
                    error: JobError::Os(std::io::Error::other("a follow that failed")),
                }
            }
            r => r,
        };
        emdb_tui::update::update(&mut app, Action::Worker(Box::new(r)));
    }
    assert!(failed, "no follow was asked for");
    writer.insert("k101", "new").unwrap();
    writer.flush().unwrap();
    std::thread::sleep(Duration::from_millis(400));
    for _ in 0..10 {
        now += 1000;
        act(
            &mut app,
            Action::Tick(std::time::UNIX_EPOCH + Duration::from_millis(now)),
        );
    }
    let set = app.keys.list.set();
    assert!(set.find(b"k100").is_some(), "the list froze");
    assert!(set.find(b"k101").is_some(), "the list froze");
    assert_eq!(set.len(), 102);
}

/// Wait (ticking and draining, as the main loop does) until `f` holds.
fn wait_until(app: &mut App, what: &str, f: &dyn Fn(&App) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !f(app) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        emdb_tui::update::update(app, Action::Tick(SystemTime::now()));
        emdb_tui::drain(app);
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn the_first_page_shows_before_the_worker_has_the_database_open() {
    use emdb_tui::database::{self, OpenRequest};
    use emdb_tui::pages::CHUNK;
    use emdb_tui::worker::Paging;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.emdb");
    {
        let db = emdb_core::Emdb::open(&path).unwrap();
        db.insert_many((0..3000u32).rev().map(|i| (format!("k{i:04}"), "v")))
            .unwrap();
    }
    let set = database::first_page(&path, &OpenRequest::default(), None, None, CHUNK)
        .expect("a first page");
    assert_eq!(set.len(), CHUNK);
    // The worker's open waits until the test lets it go (or gives up on
    // it, so a failing assertion does not leave the worker waiting).
    let (go, wait) = std::sync::mpsc::channel::<()>();
    let opened = path.clone();
    let worker = Worker::spawn_opening(
        move || {
            let _ = wait.recv_timeout(Duration::from_secs(20));
            database::open_read_only(&opened, None)
        },
        Paging::default(),
    );
    let mut config = Config::new(SHOWN_PATH);
    config.tick = Duration::from_millis(50);
    let mut app = App::new(config, worker, SystemTime::now()).with_first_page(None, set);
    app.start();
    emdb_tui::drain(&mut app);
    assert_eq!(app.keys.list.row_count(), CHUNK, "the first page, at once");
    assert_eq!(selected(&app), "k0000");
    assert!(app.keys.loading.is_some(), "and still loading the rest");
    press(&mut app, KeyCode::Down);
    assert_eq!(selected(&app), "k0001");
    go.send(()).unwrap();
    wait_until(&mut app, "the whole list", &|a| {
        a.keys.loading.is_none() && a.keys.list.row_count() == 3000
    });
    assert_eq!(
        selected(&app),
        "k0001",
        "the cursor stays where it was moved"
    );
    assert!(app.open_failed.is_none() && !app.quit);
}

#[test]
fn a_failed_open_behind_the_first_page_ends_the_ui_with_its_error() {
    use emdb_tui::worker::Paging;
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone.emdb");
    let worker = Worker::spawn_opening(
        move || emdb_tui::database::open_read_only(&gone, None),
        Paging::default(),
    );
    let mut set = KeySet::new();
    set.push(b"a", 1, 0);
    let mut app =
        App::new(Config::new(SHOWN_PATH), worker, SystemTime::now()).with_first_page(None, set);
    app.start();
    wait_until(&mut app, "the UI to end", &|a| a.quit);
    let e = app
        .open_failed
        .take()
        .expect("why it ended")
        .into_tool_error();
    assert_eq!(e.kind.exit_code(), 6, "{e:?}");
}
