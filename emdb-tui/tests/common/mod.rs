//! Shared helpers: a sample database on a fixed clock, an app over it with
//! the inline worker, key presses, and the screen as text.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use emdb_core::{Emdb, ManualClock, Ttl};
use emdb_tui::action::Action;
use emdb_tui::app::{App, Config};
use emdb_tui::worker::Worker;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// The fixed "now" of every test (2023-11-14 22:13:20 UTC).
pub const T0: u64 = 1_700_000_000_000;

/// The path shown in the status bar (the real one is a temp dir).
pub const SHOWN_PATH: &str = "/data/app.emdb";

pub fn t0() -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(T0)
}

/// A database with users (JSON), sessions with TTLs, dotted config keys,
/// text, a binary blob and two named namespaces, on a clock stopped at T0.
pub fn sample_db(dir: &tempfile::TempDir) -> Emdb {
    let db = Emdb::builder()
        .path(dir.path().join("app.emdb"))
        .clock(Arc::new(ManualClock::new(T0)))
        .build()
        .unwrap();
    for i in 0..30u32 {
        db.insert(
            format!("user:{i:03}"),
            format!(r#"{{"id":{i},"name":"user {i}","tags":["a","b"],"active":true}}"#),
        )
        .unwrap();
    }
    for i in 0..5u64 {
        db.insert_with_ttl(
            format!("session:{i}"),
            format!("token-{i}"),
            Ttl::After(Duration::from_secs(30 + i * 600)),
        )
        .unwrap();
    }
    for (k, v) in [
        ("config.app.name", "demo"),
        ("config.app.port", "8080"),
        ("config.db.pool", "16"),
        ("readme", "A sample database.\nLine two.\n\tindented line"),
    ] {
        db.insert(k, v).unwrap();
    }
    db.insert(
        "blob:logo",
        (0u8..=255).cycle().take(100).collect::<Vec<u8>>(),
    )
    .unwrap();
    let metrics = db.namespace("metrics").unwrap();
    for i in 0..12u32 {
        metrics
            .insert(format!("cpu.{i:02}"), format!("{}", i * 7))
            .unwrap();
    }
    db.namespace("empty").unwrap();
    db.flush().unwrap();
    db
}

/// An app over `db` (inline worker), started and caught up.
pub fn app_for(db: &Emdb, writable: bool) -> App {
    app_with(Worker::inline(db.clone()), writable)
}

/// An app on `worker`, started and caught up.
pub fn app_with(worker: Worker, writable: bool) -> App {
    let mut config = Config::new(SHOWN_PATH);
    config.writable = writable;
    let mut app = App::new(config, worker, t0());
    app.start();
    emdb_tui::drain(&mut app);
    // The terminal of the snapshots (the real loop sends its size first).
    act(
        &mut app,
        Action::Resize {
            width: 120,
            height: 32,
        },
    );
    app
}

/// Feed one terminal event through input handling and update.
pub fn event(app: &mut App, ev: Event) {
    if let Some(action) = emdb_tui::event::to_action(&ev, app) {
        emdb_tui::update::update(app, action);
    }
    emdb_tui::drain(app);
}

pub fn press(app: &mut App, code: KeyCode) {
    event(app, Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

pub fn ctrl(app: &mut App, c: char) {
    event(
        app,
        Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)),
    );
}

/// Type each character of `keys` as a key press.
pub fn keys(app: &mut App, keys: &str) {
    for c in keys.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// Apply an action directly.
pub fn act(app: &mut App, action: Action) {
    emdb_tui::update::update(app, action);
    emdb_tui::drain(app);
}

/// Draw the app on a `width` x `height` test terminal and return the
/// screen as text, one line per row, trailing spaces trimmed.
pub fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| emdb_tui::ui::draw(f, app)).unwrap();
    buffer_text(terminal.backend().buffer())
}

pub fn buffer_text(buf: &ratatui::buffer::Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        for x in 0..area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The standard screen size of the snapshots (the size [`app_for`] gives
/// the app).
pub fn shot(app: &App) -> String {
    screen(app, 120, 32)
}

/// The records of an exported file, in its format (by extension).
pub fn read_export(path: &std::path::Path) -> Vec<emdb_tools::transfer::Entry> {
    use emdb_tools::transfer::{self, Item};
    let format = transfer::resolve_format(None, Some(path));
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    transfer::reader(format, Box::new(file), emdb_tools::Codec::default())
        .filter_map(|item| match item.unwrap() {
            Item::Record(e) => Some(e),
            _ => None,
        })
        .collect()
}
