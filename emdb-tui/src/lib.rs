//! # emdb-tui
//!
//! A terminal UI for emdb databases: browse namespaces, keys and values,
//! watch a live dashboard, and (with `--write`) stage, review and write
//! edits.
//!
//! The shape follows the Elm architecture: [`app::App`] is the state,
//! [`event`] turns terminal input into [`action::Action`]s,
//! [`update::update`] applies them, and the [`ui`] modules draw the state
//! without doing I/O. Database work happens on [`worker`] threads that
//! answer over a channel, so drawing never waits for the disk.
//! [`event_loop::run`] is generic over the ratatui backend, so tests drive
//! the whole UI with `TestBackend`:
//!
//! ```
//! use emdb_tui::app::{App, Config};
//! use emdb_tui::worker::Worker;
//! use ratatui::{backend::TestBackend, Terminal};
//!
//! let db = emdb_core::Emdb::open_in_memory();
//! db.insert("user:1", r#"{"name":"james"}"#)?;
//! let mut app = App::new(Config::new("memory"), Worker::inline(db), std::time::SystemTime::now());
//! app.start();
//! emdb_tui::drain(&mut app);
//! let mut terminal = Terminal::new(TestBackend::new(100, 20))?;
//! terminal.draw(|f| emdb_tui::ui::draw(f, &app))?;
//! assert!(format!("{:?}", terminal.backend().buffer()).contains("user:1"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod action;
pub mod app;
pub mod cli;
pub mod database;
pub mod diff;
pub mod escape;
pub mod event;
pub mod event_loop;
pub mod history;
pub mod input;
pub mod keylist;
pub mod keymap;
pub mod pages;
pub mod terminal;
pub mod ui;
pub mod units;
pub mod update;
pub mod value_format;
pub mod worker;

/// Apply every worker response that is ready (tests and examples use it
/// with the inline worker, which answers at once).
pub fn drain(app: &mut app::App) {
    while let Some(resp) = app.poll_worker() {
        update::update(app, action::Action::Worker(Box::new(resp)));
    }
}
