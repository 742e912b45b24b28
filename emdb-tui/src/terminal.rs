//! The real terminal: raw mode and the alternate screen on the way in,
//! everything undone on the way out (on a panic too), input from crossterm
//! and editing in `$EDITOR`.

use std::io::{self, Stdout, Write};
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, Once};
use std::time::Duration;

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, execute};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use crate::event_loop::Host;

/// The terminal type of a real session.
pub type Tui = Terminal<CrosstermBackend<Stdout>>;

/// Put the terminal in raw mode on the alternate screen with mouse capture,
/// after installing the panic hook that undoes it.
pub fn setup() -> io::Result<Tui> {
    install_panic_hook();
    enter()?;
    Terminal::new(CrosstermBackend::new(io::stdout()))
}

fn enter() -> io::Result<()> {
    enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)
}

/// Give the terminal back as it was: cooked mode, main screen, no mouse
/// capture, visible cursor. Safe to call more than once.
pub fn restore() -> io::Result<()> {
    let raw = disable_raw_mode();
    let screen = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        cursor::Show
    );
    raw.and(screen)
}

/// A panic on another thread, kept for the UI to show (see
/// [`take_thread_panic`]).
static THREAD_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Restore the terminal before the default panic message is printed, so
/// the message is readable and the shell usable. A panic on another thread
/// (a worker) leaves the screen alone and is kept for the UI to report
/// instead: printing it would scribble over the screen.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() == Some("main") {
                let _ = restore();
                previous(info);
            } else if let Ok(mut slot) = THREAD_PANIC.lock() {
                let thread = std::thread::current()
                    .name()
                    .unwrap_or("a thread")
                    .to_string();
                slot.get_or_insert_with(|| format!("{thread} panicked: {info}"));
            }
        }));
    });
}

/// The message of a panic on a thread other than the main one, once.
pub fn take_thread_panic() -> Option<String> {
    THREAD_PANIC.lock().ok()?.take()
}

/// Restores the terminal when dropped, so every way out of `main` (early
/// return, error, unwinding panic) leaves it clean.
pub struct RestoreGuard;

impl Drop for RestoreGuard {
    fn drop(&mut self) {
        let _ = restore();
    }
}

/// Input from the real terminal; `$EDITOR` with the screen handed over.
pub struct CrosstermHost;

impl Host for CrosstermHost {
    fn next_event(&mut self, timeout: Duration) -> io::Result<Option<Event>> {
        if event::poll(timeout)? {
            event::read().map(Some)
        } else {
            Ok(None)
        }
    }

    fn edit(&mut self, initial: &[u8]) -> Result<Vec<u8>, String> {
        let path = temp_path();
        let result = edit_file(&path, initial);
        let _ = std::fs::remove_file(&path);
        // Take the screen back whatever happened.
        enter().map_err(|e| format!("could not restore the screen: {e}"))?;
        result
    }
}

fn temp_path() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    std::env::temp_dir().join(format!("emdb-tui-{}-{nanos}.txt", std::process::id()))
}

fn edit_file(path: &PathBuf, initial: &[u8]) -> Result<Vec<u8>, String> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("create {}: {e}", path.display()))?;
    file.write_all(initial)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("write {}: {e}", path.display()))?;
    drop(file);
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    restore().map_err(|e| format!("could not release the screen: {e}"))?;
    // Through the shell, so EDITOR="code --wait" works.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(path)
        .status()
        .map_err(|e| format!("run {editor}: {e}"))?;
    if !status.success() {
        return Err(format!("{editor} exited with {status}; nothing staged"));
    }
    std::fs::read(path).map_err(|e| format!("read {}: {e}", path.display()))
}
