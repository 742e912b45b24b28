//! Defects QA found (round 4), each driven through the real input handling
//! and drawn on a TestBackend: a review that showed changed bytes as
//! unchanged, type-ahead after a refused command, export over the
//! database's own files, a rename losing a staged time to live, and
//! quitting while a compaction runs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use crossterm::event::KeyCode;
use emdb_core::Emdb;
use emdb_tui::action::Action;
use emdb_tui::app::App;

fn writable_with(extra: &[(&str, &[u8])]) -> (tempfile::TempDir, Emdb, App) {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    for (k, v) in extra {
        db.insert(*k, *v).unwrap();
    }
    db.flush().unwrap();
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

/// Stage `new` as the selected key's value through `E` (the editor's
/// answer given directly, as the main loop would).
fn edit_externally(app: &mut App, new: Vec<u8>) {
    keys(app, "E");
    let job = app.editor.take().expect("E asks for the editor");
    act(
        app,
        Action::Edited {
            job,
            result: Ok(new),
        },
    );
}

#[test]
fn the_review_shows_a_value_cut_short_past_its_first_mebibyte() {
    let doc = "word word word word\n".repeat(2_320_000 / 20).into_bytes();
    let (_dir, _db, mut app) = writable_with(&[("doc", &doc)]);
    select(&mut app, "doc");
    edit_externally(&mut app, doc[..1_500_000].to_vec());
    assert_eq!(app.staged.len(), 1);
    keys(&mut app, "w");
    let review = shot(&app);
    assert!(review.contains("2,320,000 B -> 1,500,000 B"), "{review}");
    assert!(
        review.contains("! bytes differ from byte 1,500,000 on, past the first 1 MiB"),
        "{review}"
    );
    assert!(review.contains("⟨end⟩"), "{review}");
}

#[test]
fn the_review_shows_json_that_changed_only_in_whitespace() {
    let (_dir, _db, mut app) = writable_with(&[("j", br#"{"a":1,"b":[1,2]}"#)]);
    select(&mut app, "j");
    keys(&mut app, "e");
    ctrl(&mut app, 'u');
    keys(&mut app, r#"{"a": 1, "b": [1, 2]}"#);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 1);
    keys(&mut app, "w");
    let review = shot(&app);
    assert!(review.contains("17 B -> 21 B"), "{review}");
    assert!(review.contains("only in JSON whitespace"), "{review}");
    assert!(
        review.contains(r#"+ byte 0: {"a": 1, "b": [1, 2]}"#),
        "{review}"
    );
}

#[test]
fn the_review_shows_where_a_long_line_changed() {
    let value = "word ".repeat(60) + "abc";
    assert_eq!(value.len(), 303);
    let (_dir, _db, mut app) = writable_with(&[("long", value.as_bytes())]);
    select(&mut app, "long");
    keys(&mut app, "e");
    for _ in 0..3 {
        press(&mut app, KeyCode::Backspace);
    }
    keys(&mut app, "xyz");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 1);
    keys(&mut app, "w");
    let review = shot(&app);
    let removed = review.lines().find(|l| l.contains("  - ")).unwrap();
    let added = review.lines().find(|l| l.contains("  + ")).unwrap();
    assert!(
        removed.contains("(from char") && removed.contains("abc"),
        "{review}"
    );
    assert!(
        added.contains("(from char") && added.contains("xyz"),
        "{review}"
    );
}
