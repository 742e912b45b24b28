//! Smaller usability defects QA found (round 6), each driven through the
//! real input handling and drawn on a TestBackend: the review saying
//! `ttl kept` of a new key, which has no time to live to keep.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use crossterm::event::KeyCode;

fn writable() -> (tempfile::TempDir, emdb_core::Emdb, emdb_tui::app::App) {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let app = app_for(&db, true);
    (dir, db, app)
}

#[test]
fn the_review_says_no_ttl_of_a_new_key_put_with_an_empty_ttl() {
    let (_dir, _db, mut app) = writable();
    keys(&mut app, "a");
    keys(&mut app, "brand:new");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "v");
    press(&mut app, KeyCode::Enter);
    // An empty time to live: keep the key's, and a new key has none.
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 1, "{:?}", app.staged);
    keys(&mut app, "w");
    let s = shot(&app);
    assert!(s.contains("new brand:new  in (default), no ttl"), "{s}");
    assert!(!s.contains("ttl kept"), "{s}");
}

#[test]
fn the_review_still_says_ttl_kept_of_an_existing_key() {
    let (_dir, _db, mut app) = writable();
    keys(&mut app, "a");
    keys(&mut app, "user:001");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "v");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "w");
    let s = shot(&app);
    assert!(s.contains("put user:001  in (default), ttl kept"), "{s}");
}
