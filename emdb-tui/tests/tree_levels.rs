//! Tree levels of a list too big to hold while they are counted: answers so
//! far, the namespace and value they show, keys pressed before the first
//! answer, and the scroll offset kept (emdb-tui in tree view, paged).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use crossterm::event::KeyCode;
use emdb_core::Emdb;
use emdb_tui::action::Action;
use emdb_tui::app::{App, Pane};
use emdb_tui::keylist::ListView;
use emdb_tui::worker::{Paging, Response, Worker};

const PAGING: Paging = Paging {
    whole_limit: 50,
    chunk: 8,
};

fn feed(app: &mut App, r: Response) {
    emdb_tui::update::update(app, Action::Worker(Box::new(r)));
}

fn answers(app: &mut App) -> Vec<Response> {
    let mut v = Vec::new();
    while let Some(r) = app.poll_worker() {
        v.push(r);
    }
    v
}

/// Feed `rest` to `app` up to and including the next answer so far after
/// which `done` holds.
fn feed_until_so_far(
    app: &mut App,
    rest: &mut impl Iterator<Item = Response>,
    done: impl Fn(&App) -> bool,
) {
    loop {
        let r = rest.next().expect("an answer so far");
        let so_far = matches!(r, Response::LevelSoFar { .. });
        feed(app, r);
        if so_far && done(app) {
            return;
        }
    }
}

/// An app over a new database in `dir` holding `keys` (each with value
/// `v`), whose key list is paged.
fn paged_app(dir: &std::path::Path, keys: impl IntoIterator<Item = String>) -> App {
    let db = Emdb::builder().path(dir.join("tree.emdb")).build().unwrap();
    for k in keys {
        db.insert(k, "v").unwrap();
    }
    db.flush().unwrap();
    app_with(Worker::inline_with(db, PAGING), false)
}

fn selected(app: &App) -> String {
    String::from_utf8_lossy(app.selected_key().unwrap_or(b"<none>")).into_owned()
}

/// Switching from a small namespace (tree view) to a big one: the big
/// one's level is installed straight from KeysPaged, without install_list
/// clearing the value pane. When the first row of the new level is a key
/// with the same bytes as the key selected before, the value shown is
/// the other namespace's.
#[test]
fn a_namespace_switched_to_in_the_tree_shows_its_own_value() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("ns.emdb"))
        .build()
        .unwrap();
    db.insert("a", "from the default namespace").unwrap();
    db.insert("b", "x").unwrap();
    let big = db.namespace("big").unwrap();
    big.insert("a", "from big").unwrap();
    for i in 0..200 {
        big.insert(format!("z:{i:03}"), "v").unwrap();
    }
    db.flush().unwrap();
    let mut app = app_with(Worker::inline_with(db.clone(), PAGING), false);
    keys(&mut app, "t");
    assert_eq!(app.keys.list.view(), ListView::Tree);
    assert_eq!(selected(&app), "a");
    assert_eq!(
        app.value.loaded.as_ref().and_then(|l| l.value.clone()),
        Some(b"from the default namespace".to_vec())
    );
    // To the namespace pane, down to "big".
    keys(&mut app, "h");
    assert_eq!(app.focus, Pane::Namespaces);
    press(&mut app, KeyCode::Down);
    assert_eq!(app.keys.ns, Some(Some("big".to_string())));
    assert!(app.keys.list.level().is_some(), "a level of big");
    assert_eq!(selected(&app), "a");
    let loaded = app.value.loaded.as_ref().unwrap();
    assert_eq!(
        (loaded.ns.clone(), loaded.value.clone()),
        (Some("big".to_string()), Some(b"from big".to_vec())),
        "the value pane shows the default namespace's 'a' under big's 'a'"
    );
}

/// Moving while a level is counted: an answer so far keeps the cursor's
/// row, but the scroll offset is reset and recomputed from 0, so the
/// screen jumps under the cursor at every answer so far.
#[test]
fn an_answer_so_far_keeps_the_scroll_offset() {
    let dir = tempfile::tempdir().unwrap();
    // 60 groups of 5 keys: an answer so far every 50 keys (10 groups).
    let keys = (0..60).flat_map(|g| (0..5).map(move |i| format!("g{g:02}:{i}")));
    let mut app = paged_app(dir.path(), keys);
    emdb_tui::update::update(
        &mut app,
        Action::Command(emdb_tui::action::Command::ToggleTree),
    );
    let mut rest = answers(&mut app).into_iter();
    // Feed answers until a level so far has 40 rows.
    feed_until_so_far(&mut app, &mut rest, |app| app.keys.list.row_count() >= 40);
    assert!(app.keys.loading.is_some());
    for _ in 0..35 {
        emdb_tui::update::update(&mut app, Action::Command(emdb_tui::action::Command::Down));
    }
    for _ in 0..10 {
        emdb_tui::update::update(&mut app, Action::Command(emdb_tui::action::Command::Up));
    }
    let before = app.keys.nav;
    assert_eq!(before.selected, 25);
    assert!(before.offset > 0, "scrolled: {before:?}");
    // The next answer so far.
    feed_until_so_far(&mut app, &mut rest, |_| true);
    assert_eq!(app.keys.nav.selected, 25);
    assert_eq!(
        app.keys.nav.offset, before.offset,
        "the screen scrolled by itself"
    );
}

/// `t` while a level is counted leaves the tree; its answers (so far
/// and whole) no longer land.
#[test]
fn leaving_the_tree_while_a_level_counts() {
    let dir = tempfile::tempdir().unwrap();
    let keys = (0..300).map(|i| format!("g{:02}:{i:03}", i % 7));
    let mut app = paged_app(dir.path(), keys);
    assert!(app.keys.list.is_paged());
    emdb_tui::update::update(
        &mut app,
        Action::Command(emdb_tui::action::Command::ToggleTree),
    );
    let mut rest = answers(&mut app).into_iter();
    feed_until_so_far(&mut app, &mut rest, |_| true);
    let counted = app.keys.list.level().unwrap().matched;
    assert!(counted < 300);
    // t: back to every key (a load of its own), then the level's rest.
    emdb_tui::update::update(
        &mut app,
        Action::Command(emdb_tui::action::Command::ToggleTree),
    );
    let load: Vec<Response> = answers(&mut app);
    for r in rest {
        feed(&mut app, r);
    }
    assert_eq!(
        app.keys.list.level().unwrap().matched,
        counted,
        "a stale level answer landed"
    );
    assert_eq!(app.keys.list.view(), ListView::Flat);
    for r in load {
        feed(&mut app, r);
    }
    emdb_tui::drain(&mut app);
    assert!(app.keys.list.is_paged());
    assert_eq!(app.keys.list.view(), ListView::Flat);
    assert!(app.keys.loading.is_none());
    assert!(app.keys.level_target.is_none());
}

/// A tree of groups `a:` to `e:` (40 keys each) in a paged list, opened at
/// `e:` and left with ←: the app, and the answers to that going up, not
/// yet fed.
fn gone_up_from_e(dir: &std::path::Path) -> (App, Vec<Response>) {
    let groups = ["a", "b", "c", "d", "e"];
    let names = groups
        .into_iter()
        .flat_map(|g| (0..40).map(move |i| format!("{g}:{i:02}")));
    let mut app = paged_app(dir, names);
    keys(&mut app, "t");
    press(&mut app, KeyCode::End);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.keys.list.level().unwrap().prefix, b"e:");
    emdb_tui::update::update(&mut app, Action::Command(emdb_tui::action::Command::Left));
    let rest = answers(&mut app);
    (app, rest)
}

/// Going up from a group the first answers so far do not reach yet: the
/// cursor lands on it once an answer holds it (not moved meanwhile), and
/// the target is cleared by the whole answer.
#[test]
fn going_up_lands_on_the_group_left_once_counted() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, rest) = gone_up_from_e(dir.path());
    let mut rest = rest.into_iter();
    let mut seen = Vec::new();
    for r in rest.by_ref() {
        let so_far = matches!(r, Response::LevelSoFar { .. });
        let whole = matches!(r, Response::Level { .. });
        feed(&mut app, r);
        if so_far || whole {
            let row = app
                .keys
                .list
                .row(app.keys.nav.selected)
                .map(|r| String::from_utf8_lossy(app.keys.list.row_bytes(r)).into_owned());
            seen.push((whole, row, app.keys.level_target.is_some()));
        }
    }
    let last = seen.last().unwrap();
    assert_eq!(last, &(true, Some("e:".to_string()), false));
}

/// Going up, the cursor moved down and back to the first row before the
/// group left is counted stays there: moving forgets the group (before,
/// a cursor on row 0 was taken for one never moved).
#[test]
fn a_cursor_moved_back_to_the_top_is_not_pulled_to_the_group_left() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, rest) = gone_up_from_e(dir.path());
    let mut rest = rest.into_iter();
    // The first answer so far with two rows or more, not yet holding e:.
    feed_until_so_far(&mut app, &mut rest, |app| app.keys.list.row_count() > 1);
    let row = |app: &App| {
        let r = app.keys.list.row(app.keys.nav.selected).unwrap();
        String::from_utf8_lossy(app.keys.list.row_bytes(r)).into_owned()
    };
    assert_ne!(row(&app), "e:", "the first answers should not hold e: yet");
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Up);
    assert_eq!(app.keys.nav.selected, 0);
    for r in rest {
        feed(&mut app, r);
    }
    assert_eq!(row(&app), "a:");
    assert!(app.keys.level_target.is_none());
}

/// `--tree` on a big namespace: `t` pressed after the load said it will
/// be paged (the top level now counting) but before the level's first
/// answer acts on the empty first list (not "big" yet), and the level
/// then lands in the tree anyway: the key press is lost. Before 98e7d84
/// the same press during the load made the whole answer install flat.
#[test]
fn t_pressed_before_the_first_level_answer_leaves_the_tree() {
    use emdb_tui::app::Config;
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("t.emdb"))
        .build()
        .unwrap();
    for i in 0..200 {
        db.insert(format!("g{}:{i:03}", i % 4), "v").unwrap();
    }
    db.flush().unwrap();
    let mut config = Config::new(SHOWN_PATH);
    config.tree = true;
    let mut app = App::new(config, Worker::inline_with(db.clone(), PAGING), t0());
    app.start();
    let mut first = Vec::new();
    while let Some(r) = app.poll_worker() {
        let paged = matches!(r, Response::KeysPaged { .. });
        first.push(r);
        if paged {
            break;
        }
    }
    for r in first {
        feed(&mut app, r);
    }
    // The level is counting; no answer of it landed yet.
    assert!(app.keys.loading.is_some());
    assert_eq!(app.keys.list.level().map_or(0, |l| l.matched), 0);
    let rest = answers(&mut app);
    emdb_tui::update::update(
        &mut app,
        Action::Command(emdb_tui::action::Command::ToggleTree),
    );
    for r in rest {
        feed(&mut app, r);
    }
    emdb_tui::drain(&mut app);
    assert!(app.keys.loading.is_none());
    assert_eq!(
        (app.keys.list.view(), app.keys.list.level().is_some()),
        (ListView::Flat, false),
        "t pressed while the top level counted was lost"
    );
}
