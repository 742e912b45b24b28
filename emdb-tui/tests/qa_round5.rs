//! Defects QA found (round 5), each driven through the real input handling
//! and drawn on a TestBackend: a rename onto a key the list does not hold
//! (a paged or filtered list) overwriting it, a rename onto a key
//! staged for deletion refused as if it were not, an export that the
//! UI quitting in its middle left cut short under the name asked for, and
//! a follower listing the keys of a namespace dropped and created again,
//! a new time to live bringing back a key that expired, and an empty
//! `$EDITOR` run as a command.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use crossterm::event::KeyCode;
use emdb_core::Emdb;
use emdb_tui::app::App;
use emdb_tui::worker::{Paging, Worker};

/// Any namespace over 50 keys is paged, in chunks of 8 (as a million keys
/// are with the default paging).
const PAGING: Paging = Paging {
    whole_limit: 50,
    chunk: 8,
};

/// A database of keys `k0000`.. with values `v0`.., and a writable app
/// over it that pages its list.
fn paged(n: usize) -> (tempfile::TempDir, Emdb, App) {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::open(dir.path().join("paged.emdb")).unwrap();
    for i in 0..n {
        db.insert(format!("k{i:04}"), format!("v{i}")).unwrap();
    }
    db.flush().unwrap();
    let app = app_with(Worker::inline_with(db.clone(), PAGING), true);
    (dir, db, app)
}

fn select(app: &mut App, k: &str) {
    press(app, KeyCode::Char('/'));
    ctrl(app, 'u');
    keys(app, &format!("^{k}"));
    press(app, KeyCode::Enter);
}

/// `R` on the selected key, renaming it to `to`.
fn rename(app: &mut App, to: &str) {
    keys(app, "R");
    ctrl(app, 'u');
    keys(app, to);
    press(app, KeyCode::Enter);
}

#[test]
fn a_rename_onto_a_key_the_paged_list_does_not_hold_is_refused() {
    let (_dir, db, mut app) = paged(1000);
    assert!(app.keys.list.is_paged());
    assert_eq!(app.selected_key(), Some(&b"k0000"[..]));
    // k0900 is far from the chunks read around the screen.
    assert_eq!(app.keys.list.contains(b"k0900"), None);
    rename(&mut app, "k0900");
    assert!(app.staged.is_empty(), "staged over k0900: {:?}", app.staged);
    let s = shot(&app);
    assert!(s.contains("k0900 exists already"), "{s}");
    // The prompt stays open for another name; a free one is taken.
    ctrl(&mut app, 'u');
    keys(&mut app, "k9999");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 2, "{:?}", app.staged);
    keys(&mut app, "w");
    keys(&mut app, "y");
    assert_eq!(db.get("k0900").unwrap().as_deref(), Some(&b"v900"[..]));
    assert_eq!(db.get("k9999").unwrap().as_deref(), Some(&b"v0"[..]));
    assert_eq!(db.len().unwrap(), 1000);
}

#[test]
fn a_rename_onto_a_key_a_filter_hides_is_refused() {
    // The filter's ten matches are held whole; the rest of the namespace
    // is not in memory at all.
    let (_dir, db, mut app) = paged(1000);
    select(&mut app, "k000");
    assert!(!app.keys.list.is_paged());
    assert_eq!(app.keys.list.contains(b"k0500"), Some(false));
    rename(&mut app, "k0500");
    assert!(app.staged.is_empty(), "staged over k0500: {:?}", app.staged);
    assert!(shot(&app).contains("k0500 exists already"));
    assert_eq!(db.get("k0500").unwrap().as_deref(), Some(&b"v500"[..]));
}

#[test]
fn a_rename_onto_a_key_staged_for_deletion_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = app_for(&db, true);
    let was = db.get("user:000").unwrap().unwrap();
    select(&mut app, "user:001");
    keys(&mut app, "d");
    keys(&mut app, "y");
    select(&mut app, "user:000");
    rename(&mut app, "user:001");
    let s = shot(&app);
    assert_eq!(app.staged.len(), 2, "{s}");
    assert!(
        s.contains(
            "staged renaming user:000 to user:001 (replacing user:001, staged for deletion)"
        ),
        "{s}"
    );
    keys(&mut app, "w");
    let review = shot(&app);
    // The put of the new name shows the value it replaces.
    assert!(review.contains("put user:001"), "{review}");
    assert!(review.contains(r#"-   "id": 1,"#), "{review}");
    assert!(review.contains("delete user:000"), "{review}");
    keys(&mut app, "y");
    assert_eq!(db.get("user:001").unwrap().unwrap(), was);
    assert_eq!(db.get("user:000").unwrap(), None);
}

/// A read-only app over `n` keys with its own worker threads (the export
/// of a paged list runs on one), its list read.
fn threaded(n: usize) -> (tempfile::TempDir, App) {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::open(dir.path().join("big.emdb")).unwrap();
    let mut batch = db.write_batch();
    for i in 0..n {
        batch.put(format!("k{i:06}"), format!("value {i}")).unwrap();
    }
    batch.commit().unwrap();
    db.flush().unwrap();
    let mut app = app_with(Worker::spawn_with(db, PAGING), false);
    wait_for(&mut app, |app| {
        app.keys.loading.is_none() && app.keys.list.is_paged()
    });
    (dir, app)
}

/// Apply worker answers until `done` (at most a minute).
fn wait_for(app: &mut App, done: impl Fn(&App) -> bool) {
    let start = std::time::Instant::now();
    while !done(app) {
        assert!(start.elapsed().as_secs() < 60, "timed out");
        std::thread::sleep(std::time::Duration::from_millis(2));
        emdb_tui::drain(app);
    }
}

/// Files in `dir` other than the database's own.
fn strays(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("big.emdb"))
        .collect()
}

/// `O` to `path`.
fn export_to(app: &mut App, path: &std::path::Path) {
    keys(app, "O");
    keys(app, path.to_str().unwrap());
    press(app, KeyCode::Enter);
}

#[test]
fn q_while_an_export_runs_waits_for_it() {
    let (dir, mut app) = threaded(50_000);
    let out = dir.path().join("out.jsonl");
    export_to(&mut app, &out);
    keys(&mut app, "q");
    assert!(!app.quit, "q quit in the middle of an export");
    let s = shot(&app);
    assert!(
        s.contains("an export is running: quitting when it ends"),
        "{s}"
    );
    wait_for(&mut app, |app| app.quit);
    assert_eq!(read_export(&out).len(), 50_000);
    assert_eq!(strays(dir.path()), ["out.jsonl"]);
}

#[test]
fn an_export_the_ui_abandons_leaves_no_file() {
    // The UI ending in the middle of an export (a signal, Ctrl-C twice):
    // neither a file cut short under the name asked for nor the
    // temporary one stays.
    let (dir, mut app) = threaded(50_000);
    let out = dir.path().join("out.csv");
    export_to(&mut app, &out);
    assert!(!app.quit);
    drop(app);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(!out.exists(), "a partial export was left under its name");
    assert!(strays(dir.path()).is_empty(), "{:?}", strays(dir.path()));
}

#[test]
fn an_export_writes_its_file_whole_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = app_for(&db, false);
    let out = dir.path().join("all.jsonl");
    export_to(&mut app, &out);
    assert_eq!(read_export(&out).len(), 40);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("emdb-export"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
    // An existing file is never written over.
    export_to(&mut app, &out);
    assert!(screen(&app, 300, 32).contains("it exists already"));
    assert_eq!(read_export(&out).len(), 40);
    assert_eq!(app.exports, 0);
}

/// A read-only app over `path` (pages over 50 keys), showing namespace
/// `ns`.
fn follower_of(path: &std::path::Path, ns: &str) -> App {
    let reader = Emdb::builder().path(path).read_only(true).build().unwrap();
    let mut config = emdb_tui::app::Config::new(SHOWN_PATH);
    config.namespace = Some(ns.to_string());
    let mut app = App::new(config, Worker::inline_with(reader, PAGING), t0());
    app.start();
    emdb_tui::drain(&mut app);
    shot(&app);
    app
}

/// The keys the list shows, in order.
fn listed(app: &App) -> Vec<String> {
    (0..app.keys.list.row_count())
        .filter_map(|i| app.keys.list.key_at(i))
        .map(|k| String::from_utf8_lossy(k).into_owned())
        .collect()
}

/// Clock ticks, as the main loop sends them: stats, then a follow of the
/// records since.
fn ticks(app: &mut App, n: u64) {
    for i in 1..=n {
        let now = t0() + std::time::Duration::from_millis(250 * i);
        act(app, emdb_tui::action::Action::Tick(now));
    }
}

/// A namespace of `n` keys that the writer drops and creates again with
/// one key between two follows; the follower's list must be the new one.
fn recreated_under_a_follower(n: usize) -> App {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.emdb");
    let writer = Emdb::open(&path).unwrap();
    writer.insert("a", "1").unwrap();
    let sess = writer.namespace("sess").unwrap();
    for i in 0..n {
        sess.insert(format!("s{i:03}"), "old").unwrap();
    }
    writer.flush().unwrap();
    let mut app = follower_of(&path, "sess");
    ticks(&mut app, 2);
    assert_eq!(app.keys.list.total(), n);
    writer.drop_namespace("sess").unwrap();
    writer
        .namespace("sess")
        .unwrap()
        .insert("new1", "fresh")
        .unwrap();
    writer.flush().unwrap();
    ticks(&mut app, 3);
    let s = shot(&app);
    assert_eq!(listed(&app), ["new1"], "{s}");
    assert_eq!(app.keys.list.total(), 1, "{s}");
    assert!(s.contains("Keys 1 "), "{s}");
    assert!(
        s.contains("namespace sess dropped and created again by the writer"),
        "{s}"
    );
    assert_eq!(app.shown_ns(), Some("sess".into()));
    app
}

#[test]
fn a_namespace_dropped_and_created_again_is_read_again() {
    recreated_under_a_follower(20);
}

#[test]
fn a_paged_namespace_dropped_and_created_again_is_read_again() {
    let mut app = recreated_under_a_follower(300);
    // Nothing of the old namespace comes back from the chunks.
    keys(&mut app, "G");
    ticks(&mut app, 2);
    assert_eq!(listed(&app), ["new1"]);
}

#[test]
fn a_new_ttl_for_a_key_that_expired_since_is_flagged_in_the_review() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = app_for(&db, true);
    // session:0 expires 30 s after T0; `L` gives it 2 hours, and the
    // review comes a minute on.
    select(&mut app, "session:0");
    keys(&mut app, "L");
    keys(&mut app, "2h");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 1);
    keys(&mut app, "w");
    assert!(!shot(&app).contains("expired"));
    app.now_ms = T0 + 60_000;
    let s = shot(&app);
    assert!(
        s.contains("the key expired 30s ago: writing brings it back"),
        "{s}"
    );
}

#[test]
fn renaming_a_key_that_expired_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = app_for(&db, true);
    select(&mut app, "session:0");
    app.now_ms = T0 + 60_000;
    rename(&mut app, "session:x");
    assert!(app.staged.is_empty(), "{:?}", app.staged);
    let s = shot(&app);
    assert!(
        s.contains("session:0 expired 30s ago: nothing to rename"),
        "{s}"
    );
}

#[test]
fn an_empty_editor_variable_counts_as_unset() {
    use emdb_tui::terminal::editor_command;
    let s = |v: &str| Some(v.to_string());
    assert_eq!(editor_command(s(""), None), "vi");
    assert_eq!(editor_command(None, s("")), "vi");
    assert_eq!(editor_command(s(""), s("  ")), "vi");
    assert_eq!(editor_command(s(""), s("nano")), "nano");
    assert_eq!(editor_command(s("code --wait"), s("nano")), "code --wait");
    assert_eq!(editor_command(None, None), "vi");
}
