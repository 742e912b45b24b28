//! Smaller usability defects QA found (round 6), each driven through the
//! real input handling and drawn on a TestBackend: a message longer than
//! the window that could never be read whole (it was cut at the window's
//! width), the review saying `ttl kept` of a new key, which has no
//! time to live to keep, regex filters refusing the Unicode classes
//! `\p{L}` and `\p{Greek}`, and a prompt whose label filled a narrow
//! window (or whose typed text ran past a wide one), so what was typed
//! could not be seen.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use crossterm::event::KeyCode;
use emdb_tui::action::Action;
use emdb_tui::app::Mode;

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

/// The message of a write refused after another writer took over: far
/// wider than any window, with what to do at its very end.
const LONG: &str = "write failed: an earlier failure (another process opened \
/data/app.emdb for writing while this handle held its writer lock (its lock \
file was removed, e.g. by emdb lock break --force, or the file was renamed and \
opened under its new name) and wrote sync slot 7; this handle writes nothing \
more, so as not to overwrite that writer's records) left the handle unsure \
what is durable; it refuses further writes, reopen the database";

/// The text inside the popup whose top border holds `title`, its lines
/// joined with spaces (each line's trailing spaces dropped).
fn popup_text(screen: &str, title: &str) -> String {
    let rows: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let top = rows
        .iter()
        .position(|r| r.iter().collect::<String>().contains(title))
        .unwrap_or_else(|| panic!("no popup {title:?} in\n{screen}"));
    let left = rows[top].iter().position(|&c| c == '╭').unwrap();
    let right = left + rows[top][left..].iter().position(|&c| c == '╮').unwrap();
    let mut out = Vec::new();
    for r in &rows[top + 1..] {
        if r.get(left) == Some(&'╰') {
            break;
        }
        let inner: String = r[left + 1..right].iter().collect();
        out.push(inner.trim_end().to_string());
    }
    out.join(" ")
}

#[test]
fn a_long_message_is_cut_with_a_hint_and_m_shows_it_whole() {
    let (_dir, _db, mut app) = writable();
    app.complain(LONG);
    let s = shot(&app);
    let line = s.lines().nth(30).unwrap();
    assert!(line.starts_with("write failed: an earlier failure"), "{s}");
    assert!(line.ends_with("… m: all"), "{line}");
    assert_eq!(line.chars().count(), 120, "{line}");

    keys(&mut app, "m");
    assert_ne!(app.mode, Mode::Normal, "m opens nothing");
    let s = shot(&app);
    assert_eq!(popup_text(&s, "Error, just now"), LONG, "{s}");
    // The message line still says it (cut); m, Esc, q or Enter close it.
    keys(&mut app, "m");
    assert_eq!(app.mode, Mode::Normal);
    keys(&mut app, "m");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.mode, Mode::Normal);
    keys(&mut app, "mq");
    assert_eq!(app.mode, Mode::Normal);
    assert!(!app.quit);
}

#[test]
fn the_last_message_shows_after_it_left_the_message_line() {
    let (_dir, _db, mut app) = writable();
    app.complain(LONG);
    act(
        &mut app,
        Action::Tick(t0() + std::time::Duration::from_secs(30)),
    );
    assert!(!shot(&app).contains("write failed"));
    keys(&mut app, "m");
    let s = shot(&app);
    assert_eq!(popup_text(&s, "Error, 30s ago"), LONG, "{s}");
}

#[test]
fn the_whole_message_scrolls_in_a_small_window() {
    let (_dir, _db, mut app) = writable();
    act(
        &mut app,
        Action::Resize {
            width: 40,
            height: 10,
        },
    );
    app.complain(LONG);
    keys(&mut app, "m");
    let s = screen(&app, 40, 10);
    assert!(s.contains("↓ more"), "{s}");
    assert!(!s.contains("reopen the database"), "{s}");
    keys(&mut app, "G");
    let s = screen(&app, 40, 10);
    assert!(s.contains("↑ more"), "{s}");
    assert!(
        popup_text(&s, "Error").ends_with("reopen the database"),
        "{s}"
    );
    // Scrolling stops at the end.
    let at_end = app.mode.clone();
    keys(&mut app, "jjj");
    assert_eq!(app.mode, at_end);
    // Tiny windows draw without a panic.
    for (w, h) in [(20, 5), (3, 2), (1, 1)] {
        act(
            &mut app,
            Action::Resize {
                width: w,
                height: h,
            },
        );
        screen(&app, w, h);
    }
}

#[test]
fn m_without_any_message_says_so() {
    let (_dir, _db, mut app) = writable();
    app.message = None;
    keys(&mut app, "m");
    assert_eq!(app.mode, Mode::Normal);
    assert_eq!(app.message.as_ref().unwrap().text, "no message yet");
}

#[test]
fn regex_filters_know_unicode_categories_and_scripts() {
    use emdb_tui::keylist::Pattern;
    let greek = Pattern::parse(r"~\p{Greek}");
    assert!(greek.matches("λόγος".as_bytes()) && !greek.matches(b"logos"));
    let letters = Pattern::parse(r"~^\p{L}+$");
    assert!(letters.matches("Größe".as_bytes()) && !letters.matches(b"user:1"));
    let upper = Pattern::parse(r"~^\p{Lu}");
    assert!(upper.matches("Ωmega".as_bytes()) && !upper.matches("ωmega".as_bytes()));
    assert!(Pattern::parse(r"~\p{sc=Cyrillic}").matches("ключ".as_bytes()));

    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    db.insert("λόγος", "word").unwrap();
    db.flush().unwrap();
    let mut app = app_for(&db, false);
    press(&mut app, KeyCode::Char('/'));
    keys(&mut app, r"~\p{Greek}");
    let s = shot(&app);
    assert!(!s.contains("not a regular expression"), "{s}");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.keys.list.match_count(), 1, "{}", shot(&app));
    assert_eq!(app.selected_key(), Some("λόγος".as_bytes()));
}

/// The message line (above the status bar) of a `screen`.
fn message_row(screen: &str) -> &str {
    let rows: Vec<&str> = screen.lines().collect();
    rows[rows.len() - 2]
}

#[test]
fn a_prompt_in_a_narrow_window_cuts_its_label_so_the_text_shows() {
    let (_dir, _db, mut app) = writable();
    act(
        &mut app,
        Action::Resize {
            width: 20,
            height: 5,
        },
    );
    keys(&mut app, "G");
    assert_eq!(app.selected_key(), Some(&b"user:029"[..]));
    keys(&mut app, "e");
    ctrl(&mut app, 'u');
    keys(&mut app, "abc");
    // Five rows leave none for the status bar: the prompt is the last.
    let s = screen(&app, 20, 5);
    let line = s.lines().last().unwrap();
    assert!(line.starts_with("New val…: abc"), "{s}");
    // The label is never cut where it fits.
    act(
        &mut app,
        Action::Resize {
            width: 120,
            height: 32,
        },
    );
    assert!(message_row(&shot(&app)).starts_with("New value for user:029: abc"));
}

#[test]
fn typed_text_longer_than_the_line_shows_around_the_cursor() {
    let (_dir, _db, mut app) = writable();
    keys(&mut app, "G");
    keys(&mut app, "e");
    ctrl(&mut app, 'u');
    let long = format!("{}END", "x".repeat(200));
    keys(&mut app, &long);
    let s = shot(&app);
    let line = message_row(&s);
    assert!(line.starts_with("New value for user:029: xxx"), "{s}");
    assert!(line.ends_with("END"), "{line}");
    assert_eq!(line.chars().count(), 119, "the cursor's column stays free");
    // Home: the start shows again.
    press(&mut app, KeyCode::Home);
    let s = shot(&app);
    assert!(!message_row(&s).contains("END"), "{s}");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 1);
}
