//! Temporary files a command writes away from the database, removed when
//! Ctrl-C or SIGTERM ends it.
//!
//! The temp files beside a database (`<db>.compact.tmp`, `<db>.enc.tmp`,
//! ...) are removed by its next writer's open. These are not beside it, so
//! nothing else would remove them: an export's `FILE.emdb-export-<pid>.tmp`
//! (plaintext, even of an encrypted database), a backup's `DEST.tmp` and
//! `DEST.fork.tmp`, and `export --salvage`'s copy of the whole database in
//! `TMPDIR`. While a [`Guard`] is alive, the signal is caught: a watcher
//! thread removes what is registered and exits 130 (SIGINT) or 143
//! (SIGTERM). Without one, the signals do what they do by default. (A
//! SIGKILL cannot be caught; an export's name carries its pid, so a retry
//! does not meet it either.)

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use signal_hook::consts::{SIGINT, SIGTERM};

/// How often the watcher looks for a caught signal.
const TICK: Duration = Duration::from_millis(20);

struct State {
    /// What is removed when a signal ends the process.
    paths: Mutex<Vec<PathBuf>>,
    /// Whether a signal does its default (no guard alive).
    default: Arc<AtomicBool>,
}

/// Paths removed if the process is interrupted before this is dropped.
pub struct Guard {
    paths: Vec<PathBuf>,
}

/// Remove `paths` (files, or directories with all they hold) if Ctrl-C
/// or SIGTERM ends the process before the returned guard is dropped.
/// Paths that do not exist then are skipped.
pub fn remove_on_interrupt(paths: Vec<PathBuf>) -> Guard {
    if let Some(state) = state() {
        if let Ok(mut list) = state.paths.lock() {
            list.extend(paths.iter().cloned());
            state.default.store(false, Ordering::SeqCst);
        }
    }
    Guard { paths }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let Some(state) = STATE.get().and_then(Option::as_ref) else {
            return;
        };
        if let Ok(mut list) = state.paths.lock() {
            for p in &self.paths {
                if let Some(i) = list.iter().position(|q| q == p) {
                    list.swap_remove(i);
                }
            }
            if list.is_empty() {
                state.default.store(true, Ordering::SeqCst);
            }
        }
    }
}

static STATE: OnceLock<Option<State>> = OnceLock::new();

/// The handlers and the watcher, installed once (`None` when they could
/// not be: the signals then keep their default, as before).
fn state() -> Option<&'static State> {
    STATE
        .get_or_init(|| {
            let caught = Arc::new(AtomicUsize::new(0));
            let default = Arc::new(AtomicBool::new(true));
            for sig in [SIGINT, SIGTERM] {
                // The default action first, when no guard is alive; then
                // the note of which signal came.
                signal_hook::flag::register_conditional_default(sig, Arc::clone(&default)).ok()?;
                signal_hook::flag::register_usize(sig, Arc::clone(&caught), sig as usize).ok()?;
            }
            std::thread::Builder::new()
                .name("emdb-interrupt".into())
                .spawn(move || watch(&caught))
                .ok()?;
            Some(State {
                paths: Mutex::new(Vec::new()),
                default,
            })
        })
        .as_ref()
}

/// Wait for a caught signal, then remove what is registered and exit as a
/// shell reports a process ended by it.
fn watch(caught: &AtomicUsize) {
    loop {
        std::thread::sleep(TICK);
        let sig = caught.load(Ordering::SeqCst);
        if sig == 0 {
            continue;
        }
        let Some(state) = STATE.get().and_then(Option::as_ref) else {
            continue;
        };
        if let Ok(list) = state.paths.lock() {
            for p in list.iter() {
                let _ = match std::fs::symlink_metadata(p) {
                    Ok(m) if m.is_dir() => std::fs::remove_dir_all(p),
                    Ok(_) => std::fs::remove_file(p),
                    Err(_) => Ok(()),
                };
            }
        }
        eprintln!("emdb: interrupted; its temporary files were removed");
        std::process::exit(128 + sig as i32);
    }
}
