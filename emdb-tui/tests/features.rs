//! What people reach for (issue 17, round 2), driven through the real
//! input handling and drawn on a TestBackend: sorting (biggest keys first,
//! soonest expiry first), glob and regular-expression filters, bytes per
//! tree group, copying a key or value (OSC 52), editing a time to live
//! alone, and the one-line key bar.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use crossterm::event::{Event, KeyCode};
use emdb_core::Emdb;
use emdb_tui::app::{App, Mode};
use emdb_tui::event_loop::{self, Host};
use emdb_tui::keylist::{KeyList, KeySet, Pattern};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn setup(writable: bool) -> (tempfile::TempDir, Emdb, App) {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let app = app_for(&db, writable);
    shot(&app);
    (dir, db, app)
}

/// The key rows of the key pane, in screen order.
fn listed_keys(app: &App) -> Vec<String> {
    (0..app.keys.list.row_count())
        .filter_map(|i| app.keys.list.key_at(i))
        .map(|k| String::from_utf8_lossy(k).into_owned())
        .collect()
}

fn filter(app: &mut App, text: &str) {
    press(app, KeyCode::Char('/'));
    ctrl(app, 'u');
    keys(app, text);
    press(app, KeyCode::Enter);
}

#[test]
fn s_sorts_by_size_then_by_expiry_then_by_key_again() {
    let (_dir, _db, mut app) = setup(false);
    let by_key = listed_keys(&app);
    keys(&mut app, "s");
    let biggest = listed_keys(&app);
    // blob:logo is the biggest value (100 B), then the 5x-byte users.
    assert_eq!(biggest[0], "blob:logo");
    let sizes: Vec<u32> = (0..app.keys.list.row_count())
        .map(|i| match app.keys.list.row(i).unwrap() {
            emdb_tui::keylist::Row::Key { entry, .. } => {
                app.keys.list.set().entry(entry as usize).unwrap().size
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
    let s = shot(&app);
    assert!(s.contains("[biggest first]"), "{s}");
    assert!(s.contains("keys sorted biggest first"), "{s}");

    keys(&mut app, "s");
    let soonest = listed_keys(&app);
    // session:0 expires first (30 s), session:4 last; keys without one after.
    assert_eq!(
        &soonest[..5],
        [
            "session:0",
            "session:1",
            "session:2",
            "session:3",
            "session:4"
        ]
    );
    assert!(shot(&app).contains("[soonest expiry first]"));

    keys(&mut app, "s");
    assert_eq!(listed_keys(&app), by_key);
    assert!(!shot(&app).contains("first]"));
}

#[test]
fn a_sorted_list_keeps_the_selection_and_follows_changes() {
    let mut set = KeySet::new();
    set.push(b"a", 1, 0);
    set.push(b"b", 30, 0);
    set.push(b"c", 20, 0);
    set.sort();
    let mut list = KeyList::new(set, b':');
    list.set_sort(emdb_tui::keylist::SortBy::Size);
    let keys = |l: &KeyList| -> Vec<Vec<u8>> {
        (0..l.row_count())
            .map(|i| l.key_at(i).unwrap().to_vec())
            .collect()
    };
    assert_eq!(keys(&list), [b"b".to_vec(), b"c".to_vec(), b"a".to_vec()]);
    assert_eq!(list.row_of(b"a"), Some(2));
    // A size change alone re-sorts; so does a new key.
    list.apply(vec![emdb_tui::keylist::KeyChange::Upsert {
        key: b"a".to_vec(),
        size: 99,
        expires_ms: 0,
    }]);
    assert_eq!(keys(&list)[0], b"a");
    list.apply(vec![emdb_tui::keylist::KeyChange::Upsert {
        key: b"d".to_vec(),
        size: 25,
        expires_ms: 0,
    }]);
    assert_eq!(
        keys(&list),
        [b"a".to_vec(), b"b".to_vec(), b"d".to_vec(), b"c".to_vec()]
    );
}

#[test]
fn tree_groups_show_the_bytes_of_their_values() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "t");
    let s = shot(&app);
    // The group's size is the sum of the 30 user values' sizes.
    let total: u64 = (0..30u32)
        .map(|i| {
            format!(r#"{{"id":{i},"name":"user {i}","tags":["a","b"],"active":true}}"#).len() as u64
        })
        .sum();
    let line = s
        .lines()
        .find(|l| l.contains("▸ user: (30)"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        line.contains(&emdb_tui::units::bytes(total)),
        "{line} lacks {total} B"
    );
}

#[test]
fn glob_and_regex_filters() {
    let glob = Pattern::parse("user:0?5");
    assert!(glob.matches(b"user:005") && glob.matches(b"USER:015"));
    assert!(!glob.matches(b"user:0050"), "a glob matches the whole key");
    let star = Pattern::parse("*:0*9");
    assert!(star.matches(b"user:009") && star.matches(b"a:0x9") && !star.matches(b"a:19"));
    assert!(Pattern::parse("a*b*c").matches(b"axxbyybzc"));
    assert!(!Pattern::parse("a*b*c").matches(b"axxbyyb"));
    let re = Pattern::parse(r"~^session:[0-2]$");
    assert!(re.matches(b"session:1") && !re.matches(b"session:3"));
    assert!(
        Pattern::parse("~SESSION").matches(b"SESSION")
            && !Pattern::parse("~SESSION").matches(b"session")
    );

    let (_dir, _db, mut app) = setup(false);
    filter(&mut app, "user:00?");
    assert_eq!(listed_keys(&app).len(), 10);
    filter(&mut app, r"~^(session|config)\.?[a-z]*:?[0-9]?$");
    assert_eq!(
        listed_keys(&app),
        [
            "session:0",
            "session:1",
            "session:2",
            "session:3",
            "session:4"
        ]
    );
    // A regular expression that does not parse says why and matches nothing.
    press(&mut app, KeyCode::Char('/'));
    ctrl(&mut app, 'u');
    keys(&mut app, "~user:(");
    let s = shot(&app);
    let status = s.lines().last().unwrap();
    assert!(status.contains("not a regular expression"), "{s}");
    assert_eq!(app.keys.list.match_count(), 0);
    keys(&mut app, ")");
    assert!(!shot(&app).lines().last().unwrap().contains("✗"));
    assert_eq!(app.keys.list.match_count(), 30);
}

/// A host that records what it was asked to copy.
struct Recorder {
    events: Vec<Event>,
    copied: Vec<Vec<u8>>,
}

impl Host for Recorder {
    fn next_event(&mut self, _timeout: Duration) -> std::io::Result<Option<Event>> {
        Ok(if self.events.is_empty() {
            None
        } else {
            Some(self.events.remove(0))
        })
    }

    fn edit(&mut self, _initial: &[u8]) -> Result<Vec<u8>, String> {
        Err("no editor".into())
    }

    fn copy(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.copied.push(bytes.to_vec());
        Ok(())
    }
}

fn key_event(c: char) -> Event {
    Event::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char(c),
        crossterm::event::KeyModifiers::NONE,
    ))
}

#[test]
fn y_and_shift_y_copy_the_key_and_the_value_through_the_host() {
    let (_dir, _db, mut app) = setup(false);
    filter(&mut app, "^readme");
    let mut host = Recorder {
        events: vec![key_event('y'), key_event('Y'), key_event('q')],
        copied: Vec::new(),
    };
    let mut terminal = Terminal::new(TestBackend::new(120, 32)).unwrap();
    event_loop::run(&mut terminal, &mut app, &mut host).unwrap();
    assert_eq!(
        host.copied,
        [
            b"readme".to_vec(),
            b"A sample database.\nLine two.\n\tindented line".to_vec()
        ]
    );
    assert_eq!(
        emdb_tui::terminal::osc52(b"readme"),
        "\x1b]52;c;cmVhZG1l\x07"
    );
}

#[test]
fn l_stages_a_new_time_to_live_alone_and_never_removes_it() {
    let (_dir, db, mut app) = setup(true);
    filter(&mut app, "^readme");
    keys(&mut app, "L");
    assert!(matches!(app.mode, Mode::Prompt(..)));
    assert!(shot(&app).contains("Time to live for readme"));
    // Empty is not a choice here; 0 is refused as everywhere.
    press(&mut app, KeyCode::Enter);
    assert!(app.staged.is_empty());
    keys(&mut app, "0");
    press(&mut app, KeyCode::Enter);
    assert!(app.staged.is_empty());
    ctrl(&mut app, 'u');
    keys(&mut app, "2h");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 1);
    keys(&mut app, "w");
    let review = shot(&app);
    assert!(review.contains("ttl 2h"), "{review}");
    keys(&mut app, "y");
    let left = db.ttl("readme").unwrap().expect("now expires");
    assert!(left > Duration::from_secs(7000) && left <= Duration::from_secs(7200));
    assert_eq!(
        db.get("readme").unwrap().unwrap(),
        b"A sample database.\nLine two.\n\tindented line"
    );

    // `never` on a key with a lifetime removes it; on one without, no change.
    filter(&mut app, "^session:0");
    keys(&mut app, "L");
    keys(&mut app, "never");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "w");
    keys(&mut app, "y");
    assert_eq!(db.ttl("session:0").unwrap(), None);
    assert!(db.get("session:0").unwrap().is_some());
    filter(&mut app, "^config.db.pool");
    keys(&mut app, "L");
    keys(&mut app, "never");
    press(&mut app, KeyCode::Enter);
    assert!(app.staged.is_empty(), "persisting a key without a ttl");
}

#[test]
fn the_key_bar_shows_the_keys_of_the_place_and_mode() {
    let (_dir, _db, mut app) = setup(true);
    let bar = |app: &App| {
        let s = shot(app);
        s.lines().rev().nth(1).unwrap().to_string()
    };
    let keys_bar = bar(&app);
    assert!(
        keys_bar.contains("/ filter") && keys_bar.contains("s sort"),
        "{keys_bar}"
    );
    assert!(
        keys_bar.contains("a put") && keys_bar.contains("L ttl"),
        "{keys_bar}"
    );
    assert!(keys_bar.trim_end().ends_with("? more"), "{keys_bar}");
    press(&mut app, KeyCode::BackTab);
    assert!(bar(&app).contains("Enter open"));
    keys(&mut app, "2");
    assert!(bar(&app).contains("1 browse"));
    // A message takes the line while it is fresh.
    keys(&mut app, "1");
    keys(&mut app, "s");
    assert!(bar(&app).contains("keys sorted"));
    // Narrow: what fits, and always "? more".
    let narrow = screen(&app, 40, 20);
    let line = narrow.lines().rev().nth(1).unwrap();
    assert!(line.chars().count() <= 40);
}

#[test]
fn f_finds_text_inside_values_and_n_steps_through_the_keys() {
    let (_dir, _db, mut app) = setup(false);
    keys(&mut app, "f");
    keys(&mut app, "user 1");
    press(&mut app, KeyCode::Enter);
    // "user 1" is in the values of user:001 and user:010..019 (11 keys).
    let found = app.found.clone().unwrap();
    assert!(!found.running);
    assert_eq!(found.keys.len(), 11, "{:?}", found.keys);
    assert_eq!(app.selected_key(), Some(&b"user:001"[..]));
    let s = shot(&app);
    assert!(s.contains("find \"user 1\" 1/11"), "{s}");
    assert!(s.contains("is in 11 of 40 values: n next"), "{s}");
    keys(&mut app, "n");
    assert_eq!(app.selected_key(), Some(&b"user:010"[..]));
    keys(&mut app, "N");
    keys(&mut app, "N");
    // Backwards from the first hit wraps to the last.
    assert_eq!(app.selected_key(), Some(&b"user:019"[..]));
    assert!(shot(&app).contains("found 11 of 11 (wrapped)"));
    // Smart case: an upper-case letter makes the search exact.
    keys(&mut app, "f");
    ctrl(&mut app, 'u');
    keys(&mut app, "Line two");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.found.as_ref().unwrap().keys, [b"readme".to_vec()]);
    keys(&mut app, "f");
    ctrl(&mut app, 'u');
    keys(&mut app, "LINE TWO");
    press(&mut app, KeyCode::Enter);
    assert!(app.found.as_ref().unwrap().keys.is_empty());
    assert!(shot(&app).contains("is in none of 40 values"));
    // Bytes by escape: the blob holds 0x00 0x01.
    keys(&mut app, "f");
    ctrl(&mut app, 'u');
    keys(&mut app, "\\x00\\x01");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.found.as_ref().unwrap().keys, [b"blob:logo".to_vec()]);
}

#[test]
fn r_renames_a_key_keeping_value_and_time_to_live() {
    let (_dir, db, mut app) = setup(true);
    filter(&mut app, "^session:1");
    let before = db.ttl("session:1").unwrap().unwrap();
    keys(&mut app, "R");
    assert!(shot(&app).contains("Rename session:1 to: session:1"));
    // A name that is taken is refused; the prompt stays.
    ctrl(&mut app, 'u');
    keys(&mut app, "session:2");
    press(&mut app, KeyCode::Enter);
    assert!(matches!(app.mode, Mode::Prompt(..)));
    assert!(shot(&app)
        .lines()
        .last()
        .unwrap()
        .contains("exists already"));
    ctrl(&mut app, 'u');
    keys(&mut app, "login:1");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 2);
    assert!(shot(&app).contains("staged renaming session:1 to login:1"));
    keys(&mut app, "w");
    let review = shot(&app);
    assert!(
        review.contains("new login:1") && review.contains("delete session:1"),
        "{review}"
    );
    keys(&mut app, "y");
    assert_eq!(db.get("session:1").unwrap(), None);
    assert_eq!(db.get("login:1").unwrap().unwrap(), b"token-1");
    let after = db
        .ttl("login:1")
        .unwrap()
        .expect("the lifetime moved along");
    assert!(after <= before && after + Duration::from_secs(5) > before);
}

#[test]
fn namespaces_are_created_and_dropped_after_asking() {
    let (_dir, db, mut app) = setup(true);
    keys(&mut app, "A");
    keys(&mut app, "orders");
    press(&mut app, KeyCode::Enter);
    assert!(db
        .list_namespaces()
        .unwrap()
        .contains(&"orders".to_string()));
    let s = shot(&app);
    assert!(s.contains("created namespace orders"), "{s}");
    assert!(s.lines().any(|l| l.contains(" orders ")), "{s}");
    // The default namespace cannot be dropped.
    keys(&mut app, "D");
    assert!(shot(&app).contains("the default namespace cannot be dropped"));
    // Select metrics in the namespace pane, drop it: asked, then gone.
    press(&mut app, KeyCode::BackTab);
    let metrics = app
        .namespaces
        .iter()
        .position(|n| n.name.as_deref() == Some("metrics"))
        .unwrap();
    for _ in 0..metrics {
        keys(&mut app, "j");
    }
    keys(&mut app, "D");
    let s = shot(&app);
    assert!(s.contains("Drop namespace metrics and its 12 keys?"), "{s}");
    keys(&mut app, "n");
    assert!(db
        .list_namespaces()
        .unwrap()
        .contains(&"metrics".to_string()));
    keys(&mut app, "D");
    keys(&mut app, "y");
    assert!(!db
        .list_namespaces()
        .unwrap()
        .contains(&"metrics".to_string()));
    let s = shot(&app);
    assert!(s.contains("dropped namespace metrics"), "{s}");
}

#[test]
fn o_exports_the_listed_keys_in_the_formats_of_emdb_export() {
    let (dir, _db, mut app) = setup(false);
    filter(&mut app, "session:");
    let out = dir.path().join("sessions.jsonl");
    keys(&mut app, "O");
    assert!(shot(&app).contains("Export 5 listed keys to the new file"));
    keys(&mut app, out.to_str().unwrap());
    press(&mut app, KeyCode::Enter);
    let s = shot(&app);
    assert!(s.contains("exported 5 keys to"), "{s}");
    let records = read_export(&out);
    let keys_out: Vec<&[u8]> = records.iter().map(|e| e.key.as_slice()).collect();
    assert_eq!(
        keys_out,
        [
            &b"session:0"[..],
            b"session:1",
            b"session:2",
            b"session:3",
            b"session:4"
        ]
    );
    assert_eq!(records[2].value, b"token-2");
    assert_eq!(records[0].expires_at_ms, Some(T0 + 30_000));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&out).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // CSV by extension; the expiring view exports only keys with an expiry.
    filter(&mut app, "");
    keys(&mut app, "x");
    let csv = dir.path().join("expiring.csv");
    keys(&mut app, "O");
    keys(&mut app, csv.to_str().unwrap());
    press(&mut app, KeyCode::Enter);
    assert_eq!(read_export(&csv).len(), 5);

    // An existing file is never overwritten.
    let before = std::fs::read(&out).unwrap();
    keys(&mut app, "O");
    keys(&mut app, out.to_str().unwrap());
    press(&mut app, KeyCode::Enter);
    let s = shot(&app);
    assert!(s.contains("exists already"), "{s}");
    assert_eq!(std::fs::read(&out).unwrap(), before);
}

#[test]
fn layout_and_value_lines_come_from_update_not_from_drawing() {
    // Nothing is ever drawn here: paging and scrolling limits must come
    // from the size `Resize` gave and the value formatted in `update`.
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    db.insert(
        "long",
        (0..200).map(|i| format!("line {i}\n")).collect::<String>(),
    )
    .unwrap();
    let mut app = app_for(&db, false);
    assert_eq!(
        app.areas,
        emdb_tui::ui::layout(ratatui::layout::Rect::new(0, 0, 120, 32))
    );
    let rows = usize::from(app.areas.key_rows);
    assert!(rows > 5);
    press(&mut app, KeyCode::PageDown);
    assert_eq!(app.keys.nav.selected, rows - 1);
    filter(&mut app, "^long");
    press(&mut app, KeyCode::Tab);
    assert_eq!(
        app.value.lines, 201,
        "200 lines and the empty one after the last newline"
    );
    for _ in 0..50 {
        press(&mut app, KeyCode::PageDown);
    }
    let visible = usize::from(app.areas.value_rows);
    assert_eq!(app.value.scroll, 201 - visible);
    // A smaller terminal: new limits at once.
    act(
        &mut app,
        emdb_tui::action::Action::Resize {
            width: 80,
            height: 20,
        },
    );
    assert!(app.areas.value_rows < visible as u16);
    assert_eq!(
        app.value.formatted.as_ref().unwrap().width,
        app.areas.value.width - 2
    );
}
