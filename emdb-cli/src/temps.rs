//! Temporary files a command writes away from the database, removed when
//! Ctrl-C or SIGTERM ends it.
//!
//! The temp files beside a database (`<db>.compact.tmp`, `<db>.enc.tmp`,
//! ...) are removed by its next writer's open. These are not beside it, so
//! nothing else would remove them: an export's `FILE.emdb-export-<host>-<pid>.tmp`
//! (plaintext, even of an encrypted database), a backup's
//! `DEST.emdb-backup-<host>-<pid>.tmp` or `.fork` and its files, and
//! `export --salvage`'s copy of the whole
//! database in `TMPDIR`. While a [`Guard`] holding paths is alive, the
//! signal is caught: a watcher thread removes them and ends the process by
//! the signal, as it would have ended (so a shell loop around the command
//! stops too). A command that handles Ctrl-C itself (`import`, the
//! interactive shell) holds a [`Guard`] without paths: the watcher leaves
//! SIGINT to it, and SIGTERM still ends the process. With no
//! guard alive, the signals do what they do by default, and a signal the
//! process was started with ignored stays ignored. (A SIGKILL cannot
//! be caught; an export's or a backup's name carries its pid, so a retry
//! does not meet it either, and removes it once that process is gone.)

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use signal_hook::consts::{SIGINT, SIGTERM};

/// How often the watcher looks for a caught signal.
const TICK: Duration = Duration::from_millis(20);

/// A path to remove: whether it is a directory of the command's own (a
/// `TempDir`, the only kind removed with what it holds), and the database
/// whose writer lock this process must hold for it to be removed (a temp
/// file beside a database, which is its writer's alone).
type Entry = (PathBuf, bool, Option<PathBuf>);

struct State {
    /// What is removed when a signal ends the process, and how many guards
    /// that handle the signal themselves are alive.
    registry: Mutex<(Vec<Entry>, usize)>,
    /// Whether a signal does its default (no guard alive).
    default: Arc<AtomicBool>,
    /// The signal caught (0: none).
    caught: Arc<AtomicUsize>,
}

/// Paths removed if the process is interrupted before this is dropped (or
/// none: the signal is the command's own to handle meanwhile).
pub struct Guard {
    entries: Vec<Entry>,
    handles_signal: bool,
}

/// Remove the files `files` and the directories `dirs` (with all they
/// hold) if Ctrl-C or SIGTERM ends the process before the returned guard
/// is dropped. A file that exists already is not the command's to remove,
/// and is left out.
pub fn remove_on_interrupt(files: Vec<PathBuf>, dirs: Vec<PathBuf>) -> Guard {
    let entries: Vec<Entry> = files
        .into_iter()
        .filter(|p| std::fs::symlink_metadata(p).is_err())
        .map(|p| (p, false, None))
        .chain(dirs.into_iter().map(|p| (p, true, None)))
        .collect();
    register(Guard {
        entries,
        handles_signal: false,
    })
}

/// Remove the temp files `files` of the database `db` if Ctrl-C or SIGTERM
/// ends the process before the returned guard is dropped, and this
/// process then holds `db`'s writer lock: they are the writer's, and
/// whatever is at those names then is this process's to remove (its own,
/// or one a killed writer left, which the writer's open removes anyway).
/// While it waits for the lock, they are another writer's, and stay.
pub fn remove_while_locked(files: Vec<PathBuf>, db: &std::path::Path) -> Guard {
    let entries = files
        .into_iter()
        .map(|p| (p, false, Some(db.to_path_buf())))
        .collect();
    register(Guard {
        entries,
        handles_signal: false,
    })
}

/// While the returned guard is alive, the command handles Ctrl-C itself
/// (through its own `signal_hook` flag): the signal neither ends the
/// process by default nor is acted on by the watcher.
pub fn handled_by_caller() -> Guard {
    register(Guard {
        entries: Vec::new(),
        handles_signal: true,
    })
}

fn register(guard: Guard) -> Guard {
    if guard.entries.is_empty() && !guard.handles_signal {
        // Nothing to remove: the signals keep their default meanwhile.
        return guard;
    }
    if let Some(state) = state() {
        if let Ok(mut reg) = state.registry.lock() {
            reg.0.extend(guard.entries.iter().cloned());
            reg.1 += usize::from(guard.handles_signal);
            state.default.store(false, Ordering::SeqCst);
        }
    }
    guard
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.entries.is_empty() && !self.handles_signal {
            // Never registered (see `register`).
            return;
        }
        let Some(state) = STATE.get().and_then(Option::as_ref) else {
            return;
        };
        let Ok(mut reg) = state.registry.lock() else {
            return;
        };
        for e in &self.entries {
            if let Some(i) = reg.0.iter().position(|q| q == e) {
                reg.0.swap_remove(i);
            }
        }
        reg.1 -= usize::from(self.handles_signal);
        if reg.0.is_empty() && reg.1 == 0 {
            state.default.store(true, Ordering::SeqCst);
            // A signal caught while this guard was alive, which the
            // watcher has not acted on yet: the command is done, but the
            // user asked to stop.
            let sig = state.caught.swap(0, Ordering::SeqCst);
            if sig != 0 && (!self.handles_signal || sig == SIGTERM as usize) {
                drop(reg);
                end_by(sig);
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
            // A signal ignored from the start (a background job of a
            // script, `nohup`) stays ignored: catching it would let the
            // terminal's Ctrl-C stop a command it never reached before.
            for sig in [SIGINT, SIGTERM].into_iter().filter(|&s| !ignored(s)) {
                // The default action first, when no guard is alive; then
                // the note of which signal came.
                signal_hook::flag::register_conditional_default(sig, Arc::clone(&default)).ok()?;
                signal_hook::flag::register_usize(sig, Arc::clone(&caught), sig as usize).ok()?;
            }
            std::thread::Builder::new()
                .name("emdb-interrupt".into())
                .spawn(watch)
                .ok()?;
            Some(State {
                registry: Mutex::new((Vec::new(), 0)),
                default,
                caught,
            })
        })
        .as_ref()
}

/// Whether signal `sig` is ignored by this process (inherited `SIG_IGN`),
/// as `/proc/self/status` says (`SigIgn`, a mask with bit `sig - 1`);
/// false when that cannot be read.
fn ignored(sig: i32) -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .zip(u32::try_from(sig - 1).ok())
        .is_some_and(|(mask, bit)| mask.checked_shr(bit).is_some_and(|m| m & 1 == 1))
}

/// Wait for a caught signal, then remove what is registered and end the
/// process by it; a signal a command handles itself is left to it.
fn watch() {
    loop {
        std::thread::sleep(TICK);
        let Some(state) = STATE.get().and_then(Option::as_ref) else {
            continue;
        };
        if state.caught.load(Ordering::SeqCst) == 0 {
            continue;
        }
        let Ok(reg) = state.registry.lock() else {
            continue;
        };
        let sig = state.caught.load(Ordering::SeqCst);
        if reg.1 > 0 && sig == SIGINT as usize {
            // Ctrl-C is the command's own (import, the interactive shell).
            state.caught.store(0, Ordering::SeqCst);
            continue;
        }
        if reg.1 == 0 && reg.0.is_empty() {
            // A guard just dropped, whose drop acts on it.
            continue;
        }
        // SIGTERM ends the process even while a command handles Ctrl-C
        // itself: before, it was caught and dropped, and `kill` did nothing.
        for (p, dir, db) in reg.0.iter() {
            if let Some(db) = db {
                let held = emdb_core::Emdb::lock_holder(db)
                    .is_ok_and(|h| h.is_some_and(|h| h.alive && h.pid == std::process::id()));
                if !held {
                    continue;
                }
            }
            let _ = match std::fs::symlink_metadata(p) {
                Ok(m) if m.is_dir() && *dir => std::fs::remove_dir_all(p),
                Ok(m) if !m.is_dir() => std::fs::remove_file(p),
                _ => Ok(()),
            };
        }
        if !reg.0.is_empty() {
            eprintln!("emdb: interrupted; its temporary files were removed");
        }
        end_by(sig);
    }
}

/// End the process as signal `sig` would have: a shell then sees a command
/// killed by it (and a loop around it stops), not one that exited.
fn end_by(sig: usize) -> ! {
    let sig = i32::try_from(sig).unwrap_or(SIGINT);
    let _ = signal_hook::low_level::emulate_default_handler(sig);
    std::process::exit(128 + sig)
}
