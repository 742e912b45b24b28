//! The paged key list (see src/pages.rs) on a small scale: the worker pages
//! any namespace over 50 keys in chunks of 8, so 1,000 keys exercise what
//! a million does. Every check compares the rows with a model (a sorted
//! vector of the keys in the database).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use common::*;
use crossterm::event::KeyCode;
use emdb_core::Emdb;
use emdb_tui::action::Action;
use emdb_tui::app::App;
use emdb_tui::keylist::ListView;
use emdb_tui::worker::{Paging, Worker};

const PAGING: Paging = Paging {
    whole_limit: 50,
    chunk: 8,
};

fn db_with(dir: &tempfile::TempDir, n: usize) -> (Emdb, BTreeMap<String, usize>) {
    let db = Emdb::builder()
        .path(dir.path().join("paged.emdb"))
        .build()
        .unwrap();
    let mut model = BTreeMap::new();
    for i in 0..n {
        let key = format!("k{i:04}");
        let value = "v".repeat(i % 7 + 1);
        db.insert(&key, &value).unwrap();
        model.insert(key, value.len());
    }
    db.flush().unwrap();
    (db, model)
}

fn paged_app(db: &Emdb, writable: bool) -> App {
    app_with(Worker::inline_with(db.clone(), PAGING), writable)
}

fn selected(app: &App) -> String {
    String::from_utf8_lossy(app.selected_key().unwrap_or(b"<none>")).into_owned()
}

/// Every shown row's key against the model, and no more than a few chunks
/// held.
fn check_screen(app: &App, model: &[String]) {
    let list = &app.keys.list;
    assert!(list.is_paged());
    assert_eq!(list.row_count(), model.len());
    let nav = app.keys.nav;
    for (i, want) in model.iter().enumerate().skip(nav.offset).take(20) {
        let got = list
            .key_at(i)
            .map(|k| String::from_utf8_lossy(k).into_owned());
        assert_eq!(got.as_deref(), Some(want.as_str()), "row {i}");
    }
    // The screen and 64 rows each side (8-key chunks), and a few kept
    // around the cursor: far fewer than the 125 chunks of 1,000 keys.
    let held = list.pages().unwrap().held();
    assert!(held <= 32, "{held} chunks held");
}

#[test]
fn a_big_namespace_is_paged_and_moving_reads_the_right_keys() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = db_with(&dir, 1000);
    let keys: Vec<String> = model.keys().cloned().collect();
    let mut app = paged_app(&db, false);
    check_screen(&app, &keys);
    assert_eq!(selected(&app), "k0000");
    assert_eq!(
        app.keys.list.total_bytes(),
        model.values().map(|&v| v as u64).sum::<u64>()
    );
    let screen = shot(&app);
    assert!(screen.contains("Keys 1,000"), "{screen}");
    press(&mut app, KeyCode::End);
    assert_eq!(selected(&app), "k0999");
    check_screen(&app, &keys);
    press(&mut app, KeyCode::Home);
    assert_eq!(selected(&app), "k0000");
    for _ in 0..5 {
        press(&mut app, KeyCode::PageDown);
    }
    let at = app.keys.nav.selected;
    assert!(at > 50, "{at}");
    assert_eq!(selected(&app), keys[at]);
    check_screen(&app, &keys);
    keys_typed(&mut app, "k");
    assert_eq!(selected(&app), keys[at - 1]);
    // Far rows drawn, the first chunk too.
    let screen = shot(&app);
    assert!(screen.contains(&keys[at]), "{screen}");
}

fn keys_typed(app: &mut App, s: &str) {
    keys(app, s);
}

#[test]
fn filters_on_a_paged_list_scan_the_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = db_with(&dir, 1000);
    let mut app = paged_app(&db, false);
    // A prefix with more matches than are held whole stays paged.
    keys(&mut app, "/^k01");
    press(&mut app, KeyCode::Enter);
    let want: Vec<String> = model
        .keys()
        .filter(|k| k.starts_with("k01"))
        .cloned()
        .collect();
    assert_eq!(want.len(), 100);
    check_screen(&app, &want);
    press(&mut app, KeyCode::End);
    assert_eq!(selected(&app), "k0199");
    // A substring with few matches is held whole.
    keys(&mut app, "/");
    ctrl(&mut app, 'u');
    keys(&mut app, "99");
    press(&mut app, KeyCode::Enter);
    let want: Vec<String> = model.keys().filter(|k| k.contains("99")).cloned().collect();
    assert!(!app.keys.list.is_paged());
    assert_eq!(app.keys.list.row_count(), want.len());
    let shown: Vec<String> = (0..want.len())
        .map(|i| String::from_utf8_lossy(app.keys.list.key_at(i).unwrap()).into_owned())
        .collect();
    assert_eq!(shown, want);
    let screen = shot(&app);
    assert!(
        screen.contains(&format!("Keys {} of 1,000", want.len())),
        "{screen}"
    );
    // Narrowing it is answered from the held matches; clearing it pages
    // every key again.
    keys(&mut app, "/");
    ctrl(&mut app, 'u');
    keys(&mut app, "299");
    press(&mut app, KeyCode::Enter);
    assert!(!app.keys.list.is_paged());
    assert_eq!(app.keys.list.row_count(), 1);
    assert_eq!(selected(&app), "k0299");
    press(&mut app, KeyCode::Esc);
    let all: Vec<String> = model.keys().cloned().collect();
    check_screen(&app, &all);
}

#[test]
fn a_filter_held_whole_gets_the_tree_of_held_keys() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = db_with(&dir, 1000);
    let mut app = paged_app(&db, false);
    keys(&mut app, "t");
    assert!(app.keys.list.level().is_some());
    // Filtered down to a list held whole: the tree of held keys.
    keys(&mut app, "/^k000");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.keys.list.view(), ListView::Tree);
    assert!(app.keys.list.level().is_none() && !app.keys.list.is_paged());
    assert_eq!(app.keys.list.total(), 10);
}

#[test]
fn followed_writes_change_the_pages_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let (db, mut model) = db_with(&dir, 1000);
    let mut app = paged_app(&db, false);
    // Stand in the middle of the list.
    for _ in 0..4 {
        press(&mut app, KeyCode::PageDown);
    }
    let before = selected(&app);
    let mut seed = 7u64;
    for round in 0..20 {
        for _ in 0..15 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let i = (seed >> 33) % 400;
            let key = format!("k{i:04}");
            if key == before {
                continue;
            }
            if (seed >> 20).is_multiple_of(3) {
                db.remove(&key).unwrap();
                model.remove(&key);
            } else {
                db.insert(&key, "xy").unwrap();
                model.insert(key, 2);
            }
        }
        // Keys before the first anchor and past the last one too.
        db.insert(format!("a{round:02}"), "z").unwrap();
        model.insert(format!("a{round:02}"), 1);
        db.insert(format!("z{round:02}"), "z").unwrap();
        model.insert(format!("z{round:02}"), 1);
        db.flush().unwrap();
        act(&mut app, Action::Tick(t0()));
        let keys: Vec<String> = model.keys().cloned().collect();
        check_screen(&app, &keys);
        // The selection stays on its key.
        assert_eq!(selected(&app), before, "round {round}");
    }
    // The whole list agrees with the model, read page by page.
    press(&mut app, KeyCode::Home);
    let keys: Vec<String> = model.keys().cloned().collect();
    let mut seen = Vec::new();
    for i in 0..keys.len() {
        if i > 0 {
            press(&mut app, KeyCode::Down);
        }
        seen.push(selected(&app));
    }
    assert_eq!(seen, keys);
    assert_eq!(
        app.keys.list.total_bytes(),
        model.values().map(|&v| v as u64).sum::<u64>()
    );
}

#[test]
fn staged_new_keys_show_in_a_paged_list() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = db_with(&dir, 1000);
    let mut app = paged_app(&db, true);
    keys(&mut app, "a");
    keys(&mut app, "k0000x");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "val");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.staged.len(), 1);
    assert_eq!(app.keys.list.row_count(), 1001);
    assert_eq!(app.keys.list.row_of(b"k0000x"), Some(1));
    assert!(db.get("k0000x").unwrap().is_none());
}

#[test]
fn found_keys_in_chunks_not_held_are_jumped_to() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = db_with(&dir, 1000);
    db.insert("k0900", "a needle here").unwrap();
    db.insert("k0950", "another needle").unwrap();
    db.flush().unwrap();
    let mut app = paged_app(&db, false);
    assert!(app.keys.list.row_of(b"k0900").is_none(), "not held yet");
    keys(&mut app, "f");
    keys(&mut app, "needle");
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected(&app), "k0900");
    assert_eq!(app.keys.nav.selected, 900);
    keys(&mut app, "n");
    assert_eq!(selected(&app), "k0950");
    keys(&mut app, "n");
    assert_eq!(selected(&app), "k0900");
}

#[test]
fn a_reload_of_a_paged_list_keeps_the_selected_key() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = db_with(&dir, 1000);
    let mut app = paged_app(&db, false);
    for _ in 0..10 {
        press(&mut app, KeyCode::PageDown);
    }
    let before = selected(&app);
    assert!(app.keys.nav.selected > 200);
    // `r` reads every key again (as after a compaction): the new pages
    // hold only their first chunk when they arrive.
    keys(&mut app, "r");
    assert_eq!(selected(&app), before);
    db.compact().unwrap();
    act(&mut app, Action::Tick(t0()));
    act(&mut app, Action::Tick(t0()));
    assert_eq!(selected(&app), before);
}

/// 1,000 keys of varied sizes, a third with a time to live: the model
/// holds (size, expiry in ms or 0) per key.
fn db_with_ttls(dir: &tempfile::TempDir) -> (Emdb, BTreeMap<String, (usize, u64)>) {
    let db = Emdb::builder()
        .path(dir.path().join("top.emdb"))
        .build()
        .unwrap();
    for i in 0..1000usize {
        let key = format!("k{i:04}");
        let value = "v".repeat((i * 37) % 101 + 1);
        if i % 3 == 0 {
            let ttl = std::time::Duration::from_secs(10_000 - i as u64);
            db.insert_with_ttl(&key, &value, emdb_core::Ttl::After(ttl))
                .unwrap();
        } else {
            db.insert(&key, &value).unwrap();
        }
    }
    db.flush().unwrap();
    let mut model = BTreeMap::new();
    for i in 0..1000usize {
        let key = format!("k{i:04}");
        let exp = db.expires_at(&key).unwrap().map_or(0, |t| {
            t.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
        });
        model.insert(key, ((i * 37) % 101 + 1, exp));
    }
    (db, model)
}

/// The rows of a held list, in order.
fn rows(app: &App) -> Vec<String> {
    let list = &app.keys.list;
    (0..list.row_count())
        .map(|i| String::from_utf8_lossy(list.key_at(i).unwrap()).into_owned())
        .collect()
}

/// The first `n` keys of the model passing `keep`, ranked by `rank`.
fn first_by<R: Ord>(
    model: &BTreeMap<String, (usize, u64)>,
    n: usize,
    keep: impl Fn(&str) -> bool,
    rank: impl Fn(&(usize, u64)) -> R,
) -> Vec<String> {
    let mut all: Vec<(R, String)> = model
        .iter()
        .filter(|(k, _)| keep(k))
        .map(|(k, v)| (rank(v), k.clone()))
        .collect();
    all.sort();
    all.into_iter().take(n).map(|(_, k)| k).collect()
}

#[test]
fn sorts_and_the_expiring_view_of_a_paged_list_show_its_first_keys() {
    use emdb_tui::keylist::SortBy;
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = db_with_ttls(&dir);
    let all: Vec<String> = model.keys().cloned().collect();
    let mut app = paged_app(&db, false);
    check_screen(&app, &all);
    let biggest = first_by(&model, 50, |_| true, |&(size, _)| std::cmp::Reverse(size));
    let soonest = first_by(
        &model,
        50,
        |_| true,
        |&(_, exp)| if exp == 0 { u64::MAX } else { exp },
    );

    // s: the 50 biggest (the holding limit) of 1,000, biggest first.
    keys(&mut app, "s");
    let list = &app.keys.list;
    assert!(!list.is_paged());
    assert_eq!(list.sort(), SortBy::Size);
    assert_eq!(list.top().map(|t| t.matched), Some(1000));
    assert_eq!(list.set().len(), 50);
    assert_eq!(rows(&app), biggest);
    assert_eq!(selected(&app), biggest[0]);
    let screen = shot(&app);
    assert!(screen.contains("Keys 50 largest of 1,000"), "{screen}");
    // s again: the 50 soonest to expire.
    keys(&mut app, "s");
    assert_eq!(app.keys.list.sort(), SortBy::Ttl);
    assert_eq!(rows(&app), soonest);
    assert!(shot(&app).contains("Keys 50 soonest to expire of 1,000"));
    // s again: back to every key, paged, by key.
    keys(&mut app, "s");
    assert_eq!(app.keys.list.sort(), SortBy::Key);
    assert!(app.keys.list.top().is_none());
    check_screen(&app, &all);

    // x: the soonest to expire, only keys with an expiry.
    keys(&mut app, "x");
    assert_eq!(app.keys.list.view(), ListView::Expiring);
    assert_eq!(rows(&app), soonest);
    assert!(app.keys.list.set().len() <= 50);
    // x again: back to the pages.
    keys(&mut app, "x");
    assert_eq!(app.keys.list.view(), ListView::Flat);
    check_screen(&app, &all);

    // With a filter that still pages, the first of its matches only.
    keys(&mut app, "/^k01");
    press(&mut app, KeyCode::Enter);
    assert!(app.keys.list.is_paged());
    keys(&mut app, "s");
    let want = first_by(
        &model,
        50,
        |k| k.starts_with("k01"),
        |&(size, _)| std::cmp::Reverse(size),
    );
    assert_eq!(app.keys.list.top().map(|t| t.matched), Some(100));
    assert_eq!(rows(&app), want);
    // Clearing the filter scans the whole namespace again, in the same order.
    keys(&mut app, "/");
    ctrl(&mut app, 'u');
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.keys.list.top().map(|t| t.matched), Some(1000));
    assert_eq!(rows(&app), biggest);
    // A filter with few matches holds them whole, still biggest first.
    keys(&mut app, "/");
    keys(&mut app, "99");
    press(&mut app, KeyCode::Enter);
    assert!(app.keys.list.top().is_none() && !app.keys.list.is_paged());
    let want = first_by(
        &model,
        1000,
        |k| k.contains("99"),
        |&(size, _)| std::cmp::Reverse(size),
    );
    assert_eq!(rows(&app), want);
}

#[test]
fn followed_writes_change_the_first_keys_they_hold() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = db_with_ttls(&dir);
    let mut app = paged_app(&db, false);
    keys(&mut app, "s");
    let before = rows(&app);
    // A held key deleted goes; a new key (not known to rank) does not come.
    db.remove(&before[3]).unwrap();
    db.insert("new", "x".repeat(500)).unwrap();
    db.flush().unwrap();
    act(&mut app, Action::Tick(t0()));
    let mut want = before.clone();
    want.remove(3);
    assert_eq!(rows(&app), want);
    assert_eq!(model.len(), 1000);
}

/// The file's keys with their value sizes and expiries (0 for none).
fn exported(path: &std::path::Path) -> Vec<(String, usize, u64)> {
    read_export(path)
        .into_iter()
        .map(|e| {
            (
                String::from_utf8(e.key).unwrap(),
                e.value.len(),
                e.expires_at_ms.unwrap_or(0),
            )
        })
        .collect()
}

fn export_to(app: &mut App, path: &std::path::Path) -> String {
    keys(app, "O");
    keys(app, path.to_str().unwrap());
    press(app, KeyCode::Enter);
    shot(app)
}

#[test]
fn export_streams_a_paged_list_from_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = db_with_ttls(&dir);
    let want = |keep: &dyn Fn(&str) -> bool| -> Vec<(String, usize, u64)> {
        model
            .iter()
            .filter(|(k, _)| keep(k))
            .map(|(k, &(size, exp))| (k.clone(), size, exp))
            .collect()
    };
    let mut app = paged_app(&db, false);
    keys(&mut app, "O");
    assert!(shot(&app).contains("Export 1,000 listed keys"));
    press(&mut app, KeyCode::Esc);
    // Every key, in key order, with its value and expiry.
    let all = dir.path().join("all.jsonl");
    let s = export_to(&mut app, &all);
    assert!(s.contains("exported 1,000 keys to"), "{s}");
    assert_eq!(exported(&all), want(&|_| true));
    // A prefix filter's matches (still paged: 100 > 50), as CSV.
    keys(&mut app, "/^k01");
    press(&mut app, KeyCode::Enter);
    assert!(app.keys.list.is_paged());
    let csv = dir.path().join("k01.csv");
    export_to(&mut app, &csv);
    assert_eq!(exported(&csv), want(&|k| k.starts_with("k01")));
    // A regex filter's matches (every key read, 100 kept).
    keys(&mut app, "/");
    ctrl(&mut app, 'u');
    keys(&mut app, "~5$");
    press(&mut app, KeyCode::Enter);
    assert!(app.keys.list.is_paged());
    let ends5 = dir.path().join("ends5.jsonl");
    export_to(&mut app, &ends5);
    assert_eq!(exported(&ends5), want(&|k| k.ends_with('5')));
    // An existing file is not overwritten.
    let before = std::fs::read(&ends5).unwrap();
    let s = export_to(&mut app, &ends5);
    assert!(s.contains("exists already"), "{s}");
    assert_eq!(std::fs::read(&ends5).unwrap(), before);
    // The biggest keys' view exports the keys it holds.
    keys(&mut app, "/");
    ctrl(&mut app, 'u');
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "s");
    let big = dir.path().join("big.jsonl");
    export_to(&mut app, &big);
    let mut biggest = first_by(&model, 50, |_| true, |&(size, _)| std::cmp::Reverse(size));
    biggest.sort();
    let got: Vec<String> = exported(&big).into_iter().map(|e| e.0).collect();
    assert_eq!(got, biggest);
}

/// Groups (prefix, keys, bytes) and keys (key, 1, size) under `prefix`, in
/// key order, as a tree level shows them (a group of one is its key).
fn level_model(
    model: &BTreeMap<String, usize>,
    prefix: &str,
    keep: impl Fn(&str) -> bool,
) -> Vec<(String, usize, u64, bool)> {
    let mut out: Vec<(String, usize, u64, bool)> = Vec::new();
    let mut firsts: Vec<(String, usize)> = Vec::new();
    for (k, &size) in model
        .iter()
        .filter(|(k, _)| k.starts_with(prefix) && keep(k))
    {
        let rest = &k[prefix.len()..];
        match rest.find(':') {
            Some(p) => {
                let g = k[..prefix.len() + p + 1].to_string();
                match out.last_mut() {
                    Some(last) if last.3 && last.0 == g => {
                        last.1 += 1;
                        last.2 += size as u64;
                    }
                    _ => {
                        out.push((g, 1, size as u64, true));
                        firsts.push((k.clone(), size));
                    }
                }
            }
            None => out.push((k.clone(), 1, size as u64, false)),
        }
    }
    // Groups of one are their key.
    let mut f = firsts.into_iter();
    for row in &mut out {
        if row.3 {
            let (k, size) = f.next().unwrap();
            if row.1 == 1 {
                *row = (k, 1, size as u64, false);
            }
        }
    }
    out
}

fn level_rows(app: &App) -> Vec<(String, usize, u64, bool)> {
    use emdb_tui::keylist::Row;
    let list = &app.keys.list;
    (0..list.row_count())
        .map(|i| {
            let row = list.row(i).unwrap();
            let bytes = String::from_utf8_lossy(list.row_bytes(row)).into_owned();
            match row {
                Row::Group {
                    count, bytes: b, ..
                } => (bytes, count as usize, b, true),
                Row::Key { .. } => {
                    let size = list.row_entry(row).unwrap().size;
                    (bytes, 1, u64::from(size), false)
                }
            }
        })
        .collect()
}

#[test]
fn the_tree_of_a_paged_list_counts_one_level_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("tree.emdb"))
        .build()
        .unwrap();
    let mut model = BTreeMap::new();
    let mut put = |k: String, size: usize| {
        db.insert(&k, "v".repeat(size)).unwrap();
        model.insert(k, size);
    };
    for i in 0..300 {
        put(format!("user:{i}:name"), i % 5 + 1);
        put(format!("user:{i}:mail"), i % 3 + 2);
    }
    for j in 0..100 {
        put(format!("order:{j:03}"), 4);
    }
    put("cfg:a".into(), 1);
    put("cfg:b".into(), 2);
    put("one:x".into(), 3);
    put("solo".into(), 5);
    db.flush().unwrap();
    let all: Vec<String> = model.keys().cloned().collect();
    let mut app = paged_app(&db, false);
    check_screen(&app, &all);

    // t: the top level, counted by one scan.
    keys(&mut app, "t");
    assert!(!app.keys.list.is_paged());
    assert_eq!(app.keys.list.view(), ListView::Tree);
    assert_eq!(level_rows(&app), level_model(&model, "", |_| true));
    assert_eq!(app.keys.list.total(), model.len());
    let screen = shot(&app);
    assert!(
        screen.contains(&format!("Keys {} ", model.len())),
        "{screen}"
    );
    // Into user: — 300 groups, more than the 50 listed at most here.
    let user = level_rows(&app)
        .iter()
        .position(|r| r.0 == "user:")
        .unwrap();
    for _ in 0..user {
        press(&mut app, KeyCode::Down);
    }
    press(&mut app, KeyCode::Enter);
    let want = level_model(&model, "user:", |_| true);
    assert_eq!(want.len(), 300);
    assert_eq!(level_rows(&app), want[..50]);
    let m = app.message.as_ref().expect("a message");
    assert!(m.text.contains("only the first 50"), "{}", m.text);
    assert!(shot(&app).contains("Keys 600 under user:"));
    // Into user:1: (its keys), then back up twice, standing on the group
    // left each time.
    press(&mut app, KeyCode::Down);
    let group = level_rows(&app)[1].0.clone();
    press(&mut app, KeyCode::Right);
    assert_eq!(level_rows(&app), level_model(&model, &group, |_| true));
    assert_eq!(level_rows(&app).len(), 2);
    press(&mut app, KeyCode::Left);
    assert_eq!(app.keys.list.level().unwrap().prefix, b"user:");
    assert_eq!(app.keys.nav.selected, 1);
    press(&mut app, KeyCode::Left);
    assert!(app.keys.list.level().unwrap().prefix.is_empty());
    assert_eq!(app.keys.nav.selected, user);
    // A filter scans the level again with it (still too many: 300 > 50).
    keys(&mut app, "/mail");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.keys.list.view(), ListView::Tree);
    assert_eq!(
        level_rows(&app),
        level_model(&model, "", |k| k.contains("mail"))
    );
    keys(&mut app, "/");
    ctrl(&mut app, 'u');
    press(&mut app, KeyCode::Enter);
    assert_eq!(level_rows(&app), level_model(&model, "", |_| true));
    // t again: every key, paged.
    keys(&mut app, "t");
    assert_eq!(app.keys.list.view(), ListView::Flat);
    check_screen(&app, &all);
}

/// A level still being counted shows what is counted so far (the title
/// saying it is loading), and the whole answer keeps the row the cursor
/// was moved to meanwhile.
#[test]
fn a_tree_level_shows_while_it_is_counted() {
    use crossterm::event::{Event, KeyEvent, KeyModifiers};
    use emdb_tui::worker::Response;
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("so-far.emdb"))
        .build()
        .unwrap();
    let mut model = BTreeMap::new();
    // Groups a: .. e: of 40 keys each: the count stops every 50 keys.
    for g in ["a", "b", "c", "d", "e"] {
        for i in 0..40 {
            let key = format!("{g}:{i:02}");
            db.insert(&key, "vv").unwrap();
            model.insert(key, 2usize);
        }
    }
    db.flush().unwrap();
    let mut app = paged_app(&db, false);
    let ev = Event::Key(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::NONE));
    let action = emdb_tui::event::to_action(&ev, &app).unwrap();
    emdb_tui::update::update(&mut app, action);
    // The inline worker answered at once: take its answers one by one.
    let mut answers = Vec::new();
    while let Some(r) = app.poll_worker() {
        answers.push(r);
    }
    let so_far = answers
        .iter()
        .filter(|r| matches!(r, Response::LevelSoFar { .. }))
        .count();
    assert_eq!(so_far, 3, "after 50, 100 and 150 of 200 keys");
    let mut answers = answers.into_iter();
    let mut next = |app: &mut App, want_so_far: bool| loop {
        let r = answers.next().expect("more answers");
        let is_so_far = matches!(r, Response::LevelSoFar { .. });
        let is_level = matches!(r, Response::Level { .. });
        emdb_tui::update::update(app, Action::Worker(Box::new(r)));
        if (is_so_far && want_so_far) || (is_level && !want_so_far) {
            return;
        }
    };
    // After 50 keys: a: whole, b: as far as it was counted.
    next(&mut app, true);
    assert_eq!(
        level_rows(&app),
        vec![("a:".into(), 40, 80, true), ("b:".into(), 10, 20, true)]
    );
    assert!(app.keys.loading.is_some());
    let screen = shot(&app);
    assert!(
        screen.contains("Keys 50 ") && screen.contains("loading…"),
        "{screen}"
    );
    // The cursor moved while the count goes on stays on its group.
    press(&mut app, KeyCode::Down);
    next(&mut app, true);
    assert_eq!(level_rows(&app)[1], ("b:".into(), 40, 80, true));
    assert_eq!(level_rows(&app).len(), 3);
    assert_eq!(app.keys.nav.selected, 1);
    next(&mut app, false);
    assert_eq!(level_rows(&app), level_model(&model, "", |_| true));
    assert!(app.keys.loading.is_none());
    assert_eq!(app.keys.nav.selected, 1);
    assert!(!shot(&app).contains("loading…"));
    // An answer so far of a load already replaced is dropped: Enter on b:
    // then an old level answer for the top.
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.keys.list.level().unwrap().prefix, b"b:");
    let stale = Response::LevelSoFar {
        generation: app.keys.generation - 1,
        ns: None,
        filter: String::new(),
        prefix: Vec::new(),
        level: Default::default(),
    };
    emdb_tui::update::update(&mut app, Action::Worker(Box::new(stale)));
    assert_eq!(app.keys.list.level().unwrap().prefix, b"b:");
}

/// Started in the tree view (`--tree`) on a namespace too big to hold,
/// the top level is counted as soon as the load finds the list will be
/// paged: the load is not read to its end first.
#[test]
fn a_tree_start_on_a_big_list_counts_its_level_without_the_whole_load() {
    use emdb_tui::app::Config;
    use emdb_tui::worker::Response;
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = db_with(&dir, 200);
    let mut config = Config::new(SHOWN_PATH);
    config.tree = true;
    config.delimiter = b'0';
    let mut app = App::new(config, Worker::inline_with(db.clone(), PAGING), t0());
    app.start();
    let mut answers = Vec::new();
    while let Some(r) = app.poll_worker() {
        let paged = matches!(r, Response::KeysPaged { .. });
        answers.push(r);
        if paged {
            break;
        }
    }
    // The load's first chunk, then word that it will be paged.
    assert!(matches!(answers.last(), Some(Response::KeysPaged { .. })));
    for r in answers {
        emdb_tui::update::update(&mut app, Action::Worker(Box::new(r)));
    }
    // That started the level: the load's own answer no longer lands.
    let level_generation = app.keys.generation;
    let mut rest = Vec::new();
    while let Some(r) = app.poll_worker() {
        rest.push(r);
    }
    let kinds: Vec<&str> = rest
        .iter()
        .map(|r| match r {
            Response::Keys { generation, .. } if *generation < level_generation => "old keys",
            Response::LevelSoFar { .. } => "so far",
            Response::Level { .. } => "level",
            _ => "other",
        })
        .filter(|k| *k != "other")
        .collect();
    assert_eq!(kinds, ["old keys", "so far", "so far", "so far", "level"]);
    for r in rest {
        emdb_tui::update::update(&mut app, Action::Worker(Box::new(r)));
    }
    // Keys k0000..k0199 grouped on '0': "k0" holds every one.
    assert_eq!(app.keys.list.view(), ListView::Tree);
    let bytes = model.values().map(|&v| v as u64).sum();
    assert_eq!(level_rows(&app), vec![("k0".into(), 200, bytes, true)]);
    assert!(app.keys.loading.is_none());
}

#[test]
fn keys_pressed_while_a_scan_runs_act_on_the_view_asked_for() {
    use crossterm::event::{Event, KeyEvent, KeyModifiers};
    use emdb_tui::keylist::SortBy;
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = db_with_ttls(&dir);
    let mut app = paged_app(&db, false);
    // Two presses before the worker's answers are read (the inline worker
    // queues them): s s asks for the order by expiry, not size twice.
    let press_only = |app: &mut App, c: char| {
        let ev = Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        let action = emdb_tui::event::to_action(&ev, app).unwrap();
        emdb_tui::update::update(app, action);
    };
    press_only(&mut app, 's');
    press_only(&mut app, 's');
    emdb_tui::drain(&mut app);
    assert_eq!(app.keys.list.sort(), SortBy::Ttl);
    assert!(app.keys.list.top().is_some());
    // x x while the scan runs: back where it was.
    press_only(&mut app, 'x');
    press_only(&mut app, 'x');
    emdb_tui::drain(&mut app);
    assert_eq!(app.keys.list.view(), ListView::Flat);
    assert_eq!(app.keys.list.sort(), SortBy::Ttl);
    // t t: the tree asked for, then left again, to every key paged.
    keys(&mut app, "s");
    assert!(app.keys.list.is_paged());
    press_only(&mut app, 't');
    press_only(&mut app, 't');
    emdb_tui::drain(&mut app);
    assert!(app.keys.list.is_paged());
    assert_eq!(app.keys.list.view(), ListView::Flat);
}

/// A reload (after a compaction) while counts of the old list's changed
/// chunks are still going out: their answers cover the old list's chunk
/// ranges and must not land on the new list's chunks of the same anchor.
#[test]
fn a_count_for_the_old_pages_does_not_land_on_a_reloads_pages() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("paged.emdb"))
        .build()
        .unwrap();
    // 3,600 chunks of 8: more than three rounds of counts.
    let n = 28_800usize;
    for i in 0..n {
        db.insert(format!("k{i:05}"), "v").unwrap();
    }
    db.flush().unwrap();
    let mut app = paged_app(&db, false);
    assert_eq!(app.keys.list.total(), n);
    let at = |ms: u64| Action::Tick(t0() + std::time::Duration::from_millis(ms));
    // Every chunk changes; the last one grows to 9 keys.
    for c in 1..n / 8 - 1 {
        db.insert(format!("k{:05}", c * 8), "w").unwrap();
    }
    db.insert(format!("k{:05}a", n - 1), "v").unwrap();
    db.flush().unwrap();
    act(&mut app, at(250));
    db.compact().unwrap();
    act(&mut app, at(500));
    act(&mut app, at(750));
    // The reload, and a round of the old list's counts in the same update.
    act(&mut app, at(1000));
    for t in 5..12 {
        act(&mut app, at(250 * t));
    }
    assert!(app.keys.loading.is_none());
    assert_eq!(db.len().unwrap(), n + 1);
    assert_eq!(app.keys.list.total(), n + 1, "the list's count");
}

/// A chunk whose read fails (a damaged record in it) is reported, and the
/// list goes on: the rows before it still read, and the chunk is not asked
/// for again on every update.
#[test]
fn a_chunk_that_fails_to_read_is_reported_and_the_list_goes_on() {
    use std::os::unix::fs::FileExt;
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = db_with(&dir, 1000);
    let keys: Vec<String> = model.keys().cloned().collect();
    let mut app = paged_app(&db, false);
    check_screen(&app, &keys);
    // Damage the value of a key far below the screen, in the file.
    let off = db.record_offset("k0700").unwrap().unwrap();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(dir.path().join("paged.emdb"))
        .unwrap();
    let mut byte = [0u8; 1];
    file.read_exact_at(&mut byte, off + 12).unwrap();
    file.write_all_at(&[byte[0] ^ 0x55], off + 12).unwrap();
    // Walk down to it: its chunk's read fails.
    for _ in 0..700 {
        press(&mut app, KeyCode::Down);
    }
    let message = app
        .message
        .as_ref()
        .map(|m| m.text.clone())
        .unwrap_or_default();
    assert!(message.contains("read keys failed"), "{message:?}");
    assert!(app.keys.loading.is_none());
    // Moving on past it reads the keys after it.
    for _ in 0..100 {
        press(&mut app, KeyCode::Down);
    }
    assert_eq!(selected(&app), keys[800]);
    // Mended, and a key written into that chunk: it is read again.
    file.write_all_at(&byte, off + 12).unwrap();
    db.insert("k0700a", "v").unwrap();
    db.flush().unwrap();
    act(&mut app, Action::Tick(t0()));
    // (The selection stayed on k0800, one row further down now.)
    for _ in 0..100 {
        press(&mut app, KeyCode::Up);
    }
    assert_eq!(selected(&app), "k0700a");
    press(&mut app, KeyCode::Up);
    assert_eq!(selected(&app), "k0700");
}

fn message(app: &App) -> String {
    app.message
        .as_ref()
        .map_or(String::new(), |m| m.text.clone())
}

/// More matches than are held at a time (the worker holds as many as a
/// whole list, 50 here): the first in key order is selected, and `n` / `N`
/// visit every one in order, the next window searched for past either
/// end.
#[test]
fn find_steps_through_every_match_when_more_match_than_are_held() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("found.emdb"))
        .build()
        .unwrap();
    let want: Vec<String> = (0..130).map(|i| format!("k{i:04}")).collect();
    for (i, k) in want.iter().enumerate() {
        db.insert(k, format!("needle{i}")).unwrap();
    }
    db.insert("other", "hay").unwrap();
    db.flush().unwrap();
    let mut app = paged_app(&db, false);
    // The cursor somewhere in the middle, as after a jump.
    for _ in 0..4 {
        press(&mut app, KeyCode::PageDown);
    }
    keys(&mut app, "f");
    keys(&mut app, "needle");
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected(&app), "k0000");
    let m = message(&app);
    assert!(
        m.contains("\"needle\" is in 130 of 131 values (50 at a time in key order)"),
        "{m}"
    );
    for k in want.iter().skip(1) {
        keys(&mut app, "n");
        assert_eq!(&selected(&app), k, "{}", message(&app));
    }
    keys(&mut app, "n");
    assert_eq!(selected(&app), "k0000");
    assert_eq!(message(&app), "found 1 of 130 (wrapped)");
    keys(&mut app, "N");
    assert_eq!(selected(&app), "k0129");
    assert_eq!(message(&app), "found 130 of 130 (wrapped)");
    for k in want.iter().rev().skip(1) {
        keys(&mut app, "N");
        assert_eq!(&selected(&app), k, "{}", message(&app));
    }
    assert!(shot(&app).contains("find \"needle\" 1/130"));
    // From a key past the held window, `n` goes on from there.
    keys(&mut app, "G");
    keys(&mut app, "k");
    keys(&mut app, "k");
    let from = selected(&app);
    keys(&mut app, "n");
    let next = selected(&app);
    assert!(next > from && want.contains(&next), "{from} -> {next}");
    // From a key past the last match, `n` wraps to the first and `N`
    // comes back to the last.
    keys(&mut app, "G");
    assert_eq!(selected(&app), "other");
    keys(&mut app, "n");
    assert_eq!(selected(&app), "k0000");
    assert_eq!(message(&app), "found 1 of 130 (wrapped)");
    keys(&mut app, "G");
    keys(&mut app, "N");
    assert_eq!(selected(&app), "k0129");
    keys(&mut app, "gg");
    keys(&mut app, "N");
    assert_eq!(selected(&app), "k0129");
    assert!(shot(&app).contains("find \"needle\" 130/130"));
}

/// The default limits: over 100,000 matches, the first in key order is
/// selected and `n` steps through the next ones without a gap.
#[test]
fn find_over_100_000_matches_selects_the_first_and_skips_none() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("big.emdb"))
        .build()
        .unwrap();
    let n = emdb_tui::worker::WHOLE_LIMIT + 20;
    db.insert_many((0..n).map(|i| (format!("key{i:07}"), format!("needle{i}"))))
        .unwrap();
    db.flush().unwrap();
    let mut app = app_for(&db, false);
    keys(&mut app, "f");
    keys(&mut app, "needle");
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected(&app), "key0000000");
    let m = message(&app);
    assert!(m.contains("is in 100,020 of 100,020 values"), "{m}");
    for i in 1..12 {
        keys(&mut app, "n");
        assert_eq!(selected(&app), format!("key{i:07}"));
    }
    // Backwards from the first wraps to the very last match.
    keys(&mut app, "gg");
    keys(&mut app, "N");
    assert_eq!(selected(&app), format!("key{:07}", n - 1));
}

/// A key that leaves the list because a filter hides it (or because the
/// list was read again in pages) was not deleted: nothing says so.
#[test]
fn a_filter_hiding_the_selected_key_of_a_paged_list_is_no_deletion() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = db_with(&dir, 1000);
    for i in 0..100 {
        db.insert(format!("zz:{i:03}"), "v").unwrap();
    }
    db.flush().unwrap();
    let mut app = paged_app(&db, false);
    keys(&mut app, "G");
    assert_eq!(selected(&app), "zz:099");
    keys(&mut app, "/^k05");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.keys.list.row_count(), 100);
    assert!(!message(&app).contains("deleted"), "{}", message(&app));
    keys(&mut app, "G");
    assert_eq!(selected(&app), "k0599");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.keys.list.row_count(), 1100);
    assert!(!message(&app).contains("deleted"), "{}", message(&app));
    assert!(!shot(&app).contains("deleted by the writer"));
}
