//! Defects QA found (round 4), each driven through the real input handling
//! and drawn on a TestBackend: a review that showed changed bytes as
//! unchanged, type-ahead after a refused command, export over the
//! database's own files, a rename losing a staged time to live, and
//! quitting while a compaction runs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use crossterm::event::{KeyCode, KeyModifiers};
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

/// Input in bursts: `None` is a pause (no input waiting), as between two
/// bursts of typing; once the script is done, Ctrl-C until the loop ends
/// (twice quits with changes staged).
struct Bursts {
    steps: std::collections::VecDeque<Option<crossterm::event::Event>>,
}

impl Bursts {
    fn new(bursts: &[&str]) -> Bursts {
        let mut steps = std::collections::VecDeque::new();
        for burst in bursts {
            for c in burst.chars() {
                let code = if c == '\n' {
                    KeyCode::Enter
                } else {
                    KeyCode::Char(c)
                };
                steps.push_back(Some(key_press(code, KeyModifiers::NONE)));
            }
            steps.push_back(None);
        }
        Bursts { steps }
    }
}

fn key_press(code: KeyCode, mods: KeyModifiers) -> crossterm::event::Event {
    crossterm::event::Event::Key(crossterm::event::KeyEvent::new(code, mods))
}

impl emdb_tui::event_loop::Host for Bursts {
    fn next_event(
        &mut self,
        _timeout: std::time::Duration,
    ) -> std::io::Result<Option<crossterm::event::Event>> {
        Ok(match self.steps.pop_front() {
            Some(step) => step,
            None => Some(key_press(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        })
    }

    fn edit(&mut self, _initial: &[u8]) -> Result<Vec<u8>, String> {
        Err("no editor".into())
    }
}

/// A writable app on keys a, b, c, d (values 1 to 4), the main loop run
/// over `bursts`; the app when it ended.
fn run_bursts(bursts: &[&str]) -> (tempfile::TempDir, App) {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::open(dir.path().join("abcd.emdb")).unwrap();
    for (k, v) in [("a", "1"), ("b", "2"), ("c", "3"), ("d", "4")] {
        db.insert(k, v).unwrap();
    }
    db.flush().unwrap();
    let mut config = emdb_tui::app::Config::new(SHOWN_PATH);
    config.writable = true;
    let mut app = App::new(config, emdb_tui::worker::Worker::inline(db), t0());
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 32)).unwrap();
    emdb_tui::event_loop::run(&mut terminal, &mut app, &mut Bursts::new(bursts)).unwrap();
    (dir, app)
}

/// The staged changes as `key=value` (`key-` for a delete) and ttls.
fn staged(app: &App) -> Vec<(String, emdb_tui::worker::NewTtl)> {
    app.staged
        .iter()
        .map(|s| {
            let key = String::from_utf8_lossy(&s.change.key);
            let what = match &s.change.value {
                Some(v) => format!("{key}={}", String::from_utf8_lossy(v)),
                None => format!("{key}-"),
            };
            (what, s.change.ttl)
        })
        .collect()
}

#[test]
fn typing_ahead_of_an_edit_goes_into_its_prompt() {
    use emdb_tui::worker::NewTtl;
    // `j` asks for b's value; the keys after it come before the answer.
    let (_dir, app) = run_bursts(&["", "jR", "newname\n"]);
    assert_eq!(
        staged(&app),
        [
            ("bnewname=2".to_string(), NewTtl::Never),
            ("b-".to_string(), NewTtl::Keep)
        ]
    );
    let (_dir, app) = run_bursts(&["", "jewx\n"]);
    assert_eq!(staged(&app), [("b=2wx".to_string(), NewTtl::Keep)]);
    let (_dir, app) = run_bursts(&["", "jL1h\n"]);
    assert_eq!(
        staged(&app),
        [(
            "b=2".to_string(),
            NewTtl::After(std::time::Duration::from_secs(3600))
        )]
    );
}

#[test]
fn keys_typed_after_a_refused_one_are_dropped() {
    // b is staged for deletion, so `e` on it is refused: the `j` typed
    // right after it must not move on to c; after a pause keys act again.
    let (_dir, app) = run_bursts(&["", "j", "d", "y", "ej"]);
    assert_eq!(app.selected_key(), Some(&b"b"[..]));
    let (_dir, app) = run_bursts(&["", "j", "d", "y", "ej", "j"]);
    assert_eq!(app.selected_key(), Some(&b"c"[..]));
}

#[test]
fn export_refuses_the_databases_own_files_as_emdb_export_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(&dir);
    let mut app = app_for(&db, false);
    let base = dir.path().join("app.emdb");
    for suffix in [".encbak", ".before-repair", ".tail", ".compact.tmp", ""] {
        let mut name = base.clone().into_os_string();
        name.push(suffix);
        let target = std::path::PathBuf::from(name);
        let existed = target.exists();
        keys(&mut app, "O");
        keys(&mut app, target.to_str().unwrap());
        press(&mut app, KeyCode::Enter);
        // Wide enough for the temporary directory's long path.
        let s = screen(&app, 400, 32);
        assert!(s.contains("export never writes over it"), "{suffix}: {s}");
        assert_eq!(target.exists(), existed, "{suffix}");
    }
    // Through another name for the same directory, too.
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let odd = sub.join("../app.emdb.ckpt.tmp");
    keys(&mut app, "O");
    keys(&mut app, odd.to_str().unwrap());
    press(&mut app, KeyCode::Enter);
    assert!(screen(&app, 400, 32).contains("own .ckpt.tmp file"));
    assert!(!dir.path().join("app.emdb.ckpt.tmp").exists());
}

#[test]
fn a_rename_keeps_a_staged_time_to_live() {
    let (_dir, db, mut app) = writable_with(&[]);
    select(&mut app, "readme");
    keys(&mut app, "e");
    keys(&mut app, "!");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "L");
    keys(&mut app, "1h");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "R");
    ctrl(&mut app, 'u');
    keys(&mut app, "readme2");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "w");
    let review = shot(&app);
    assert!(
        review.contains("new readme2  in (default), ttl 1h"),
        "{review}"
    );
    keys(&mut app, "y");
    let left = db
        .ttl("readme2")
        .unwrap()
        .expect("the staged ttl moved along");
    assert!(left > std::time::Duration::from_secs(3500), "{left:?}");
    assert!(db
        .get("readme2")
        .unwrap()
        .unwrap()
        .ends_with(b"indented line!"));
    assert_eq!(db.get("readme").unwrap(), None);
}

/// A compaction abandoned on the way out (a second Ctrl-C, SIGTERM)
/// leaves no `<db>.compact.tmp`; one that is not running leaves whatever
/// is there alone, and so does a read-only UI.
#[test]
fn an_abandoned_compaction_leaves_no_new_file() {
    let (_dir, db, mut app) = writable_with(&[]);
    let path = db.path().unwrap();
    let tmp = path.with_file_name(format!(
        "{}.compact.tmp",
        path.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&tmp, b"records").unwrap();
    app.abandon_compaction(&path);
    assert!(
        tmp.exists(),
        "no compaction runs: the file is not this UI's"
    );
    app.compaction = Some(emdb_tui::app::Compaction {
        started_ms: T0,
        expected: 1 << 20,
        written: None,
    });
    app.config.writable = false;
    app.abandon_compaction(&path);
    assert!(tmp.exists(), "a read-only UI removed a writer's file");
    app.config.writable = true;
    app.abandon_compaction(&path);
    assert!(
        !tmp.exists(),
        "the abandoned compaction's file is still there"
    );
}

#[test]
fn q_while_a_compaction_runs_waits_for_it() {
    use emdb_tui::worker::Response;
    let (_dir, _db, mut app) = writable_with(&[]);
    // A compaction under way (as `C` leaves it until the worker answers).
    app.compaction = Some(emdb_tui::app::Compaction {
        started_ms: T0,
        expected: 1 << 20,
        written: None,
    });
    keys(&mut app, "q");
    assert!(!app.quit, "q quit in the middle of a compaction");
    let s = shot(&app);
    assert!(s.contains("quitting when it ends (Ctrl-C: now)"), "{s}");
    act(
        &mut app,
        Action::Worker(Box::new(Response::Compacted {
            took: std::time::Duration::from_millis(5),
            reclaimed: 0,
        })),
    );
    assert!(app.quit, "quits once the compaction ended");

    // Ctrl-C while it waits quits at once.
    let (_dir, _db, mut app) = writable_with(&[]);
    app.compaction = Some(emdb_tui::app::Compaction {
        started_ms: T0,
        expected: 1 << 20,
        written: None,
    });
    ctrl(&mut app, 'c');
    assert!(!app.quit);
    ctrl(&mut app, 'c');
    assert!(app.quit);
}
