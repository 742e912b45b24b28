//! `emdb lock status` and `emdb lock break`.

use std::path::Path;

use emdb_core::{Emdb, LockHolder};

use crate::cli::{LockBreakArgs, LockCommand};
use crate::database::Session;
use crate::encoding::{escape_path, escape_text, Layout};
use crate::error::{CliError, CliResult};
use crate::output::{HolderReport, LockReport, Ui};

/// Show or break the writer lock. Neither opens the database; `status`
/// of a database file that does not exist (and that no writer is
/// creating) fails as reading commands do.
pub fn run(cmd: &LockCommand, s: &mut Session, ui: &mut Ui) -> CliResult {
    let path = s.path()?;
    // An empty file, a directory, a FIFO: refused as by every command
    // (a missing one is said below, after asking the lock).
    emdb_tools::database::check_file(&path, false)?;
    match cmd {
        LockCommand::Status => {
            let holder = Emdb::lock_holder(&path)?;
            // A writer creating the database holds the lock before the file
            // is there; without one, a missing file is a wrong path, said
            // the way reading commands say it (exit 6).
            let held = holder.as_ref().is_some_and(|h| h.alive);
            let missing = matches!(std::fs::metadata(&path),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound);
            if missing && !held {
                return Err(emdb_tools::database::no_database(&path));
            }
            let report = report(&path, holder.as_ref(), None);
            let text = format!("{}: {}", escape_path(&path), describe(holder.as_ref()));
            // The status is the answer asked for: printed even when quiet.
            if ui.json {
                ui.json_line(&report)
            } else {
                ui.line(&text)
            }
        }
        LockCommand::Break(args) => {
            let mut forced = None;
            let removed = match Emdb::break_lock(&path) {
                Ok(removed) => removed,
                Err(emdb_core::Error::LockBusy { holder, .. }) if args.force => {
                    let who = describe(holder.as_ref());
                    confirm_force(args, ui, &path, &who)?;
                    ui.note(&format!(
                        "emdb: warning: removing the lock file while it is {who}; that \
                         process refuses to write once another writer opens the database \
                         (restart it), and loses what it had not flushed"
                    ));
                    forced = holder;
                    force_remove(&path)?
                }
                Err(e @ emdb_core::Error::LockBusy { .. }) => {
                    return Err(CliError::from(e).hint(
                        "stop the holder first; the OS releases the lock when it exits \
                         (--force removes the file anyway and is dangerous, see --help)",
                    ));
                }
                Err(e) => return Err(e.into()),
            };
            let report = report(&path, None, Some(removed));
            let text = if let (true, Some(h)) = (removed, &forced) {
                format!(
                    "{}: removed the lock file held by {} (forced)",
                    path.display(),
                    who(h)
                )
            } else if removed {
                format!(
                    "{}: removed the lock file (no process held it)",
                    path.display()
                )
            } else {
                format!("{}: no lock file; nothing to do", path.display())
            };
            ui.report(&text, &report)
        }
    }
}

/// `--force` on a held lock: only with `--yes` or a "yes" on a terminal.
fn confirm_force(args: &LockBreakArgs, ui: &Ui, path: &Path, who: &str) -> CliResult {
    if args.yes {
        return Ok(());
    }
    if !ui.interactive {
        return Err(CliError::usage(format!(
            "refusing to remove the lock of {} while it is {who} without confirmation \
             (not a terminal)",
            path.display()
        ))
        .hint("pass --yes along with --force, once you are sure the holder is gone"));
    }
    if super::confirm(
        ui,
        &format!(
            "{} is {who}. Remove its lock file anyway? That writer stops writing once \
             another one opens the database.",
            path.display()
        ),
    )? {
        Ok(())
    } else {
        Err(CliError::usage(
            "cancelled; the lock file was left in place",
        ))
    }
}

fn describe(holder: Option<&LockHolder>) -> String {
    match holder {
        None => "not locked".into(),
        Some(h) if h.alive => format!("locked by {}", who(h)),
        Some(h) if running(h) => format!(
            "not locked (the lock file names {}, which runs but does not hold the lock)",
            who(h)
        ),
        Some(h) => format!("not locked (last held by {})", who(h)),
    }
}

/// The holder as messages name it; the host name is read from the lock
/// file, so it is escaped as a key is.
fn who(h: &LockHolder) -> String {
    match &h.hostname {
        Some(host) => format!(
            "pid {} on {}",
            h.pid,
            escape_text(host.as_bytes(), Layout::Field)
        ),
        None => format!("pid {}", h.pid),
    }
}

fn running(h: &LockHolder) -> bool {
    emdb_core::pid_alive(h.pid, h.start_time)
}

fn report(path: &Path, holder: Option<&LockHolder>, removed: Option<bool>) -> LockReport {
    LockReport {
        path: path.display().to_string(),
        locked: holder.is_some_and(|h| h.alive),
        holder: holder.map(|h| HolderReport {
            pid: h.pid,
            hostname: h.hostname.clone(),
            start_time: h.start_time,
            running: running(h),
        }),
        removed,
    }
}

/// Remove `<db>.lock` regardless of its holder. The engine's `break_lock`
/// refuses while the lock is held and offers no forced variant, so the lock
/// file's name (the database path plus `.lock`, docs/FORMAT.md) is used here.
fn force_remove(db: &Path) -> CliResult<bool> {
    let lock = crate::database::beside_real(db, ".lock");
    match std::fs::remove_file(&lock) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(CliError::io("removing", Some(&lock), e)),
    }
}
