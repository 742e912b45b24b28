//! One module per command; [`run`] dispatches.

mod backup;
mod bench;
mod check;
mod compact;
mod completions;
mod count;
mod crypt;
mod del;
mod exists;
mod export;
mod get;
mod import;
mod incr;
mod lock;
mod ns;
mod put;
mod scan;
mod shell;
mod stats;
mod sync;
mod ttl;

pub use incr::parse_strict;
pub use sync::SyncArgs;

use std::io::{BufRead, Write};

use crate::cli::{Command, GlobalArgs, NsCommand};
use crate::database::Session;
use crate::encoding::escape_line;
use crate::error::{CliError, CliResult, Kind};
use crate::output::Ui;

/// Run one command.
pub fn run(cmd: &Command, global: &GlobalArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let result = dispatch(cmd, global, s, ui);
    match result {
        // Nothing is printed before a namespace is found missing, so this
        // `null` is the whole document (docs/CLI.md, "JSON output").
        Err(e) if e.kind == Kind::NoNamespace && ui.json && prints_one_document(cmd) => {
            ui.line("null")?;
            Err(e)
        }
        other => other,
    }
}

/// True for the commands whose `--json` output is one document, which
/// they print even when they fail for a missing key or namespace, so that
/// `emdb get --json k | jq` always reads one.
fn prints_one_document(cmd: &Command) -> bool {
    match cmd {
        Command::Get(a) => !a.raw,
        Command::Exists(_)
        | Command::Count
        | Command::Del(_)
        | Command::Ttl(_)
        | Command::Expire(_)
        | Command::Persist(_)
        | Command::Ns(NsCommand::Drop(_)) => true,
        _ => false,
    }
}

fn dispatch(cmd: &Command, global: &GlobalArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    match cmd {
        Command::Put(a) => put::run(a, s, ui),
        Command::Incr(a) => incr::run(a, 1, s, ui),
        Command::Decr(a) => incr::run(a, -1, s, ui),
        Command::Get(a) => get::run(a, s, ui),
        Command::Del(a) => del::run(a, s, ui),
        Command::Exists(a) => exists::run(a, s, ui),
        Command::Count => count::run(s, ui),
        Command::Scan(a) => scan::run(a, s, ui),
        Command::Stats(a) => stats::run(a, s, ui),
        Command::Compact(a) => compact::run(a, s, ui),
        Command::Lock(a) => lock::run(a, s, ui),
        Command::Import(a) => import::run(a, s, ui),
        Command::Export(a) => export::run(a, s, ui),
        Command::Ttl(a) => ttl::ttl(a, s, ui),
        Command::Expire(a) => ttl::expire(a, s, ui),
        Command::Persist(a) => ttl::persist(a, s, ui),
        Command::Ns(a) => ns::run(a, s, ui),
        Command::Backup(a) => backup::run(a, s, ui),
        Command::Check(a) => check::run(a, s, ui),
        Command::Encrypt(a) => crypt::encrypt(a, s, ui),
        Command::Decrypt(a) => crypt::decrypt(a, s, ui),
        Command::RotateKey(a) => crypt::rotate_key(a, s, ui),
        Command::Bench(a) => bench::run(a, global, s, ui),
        Command::Shell => shell::run(global, s, ui),
        Command::Sync(a) => sync::run(a, s, ui),
        Command::Completions(a) => completions::run(a, ui),
    }
}

/// Say on stderr which whole copies of the database's records lie beside
/// it: `<db>.encbak`, which an encryption change kept (asked to, or
/// interrupted): plaintext after `encrypt`, under the old secret after
/// `rotate-key`; and the new files a killed `encrypt`, `decrypt`,
/// `rotate-key` or `compact` was writing (plaintext after a `decrypt`, or
/// of a plain database). Only the next encryption change (exit 8) or
/// writer (which removes the temporary ones) would notice them otherwise.
fn note_encryption_backup(ui: &Ui, db: &std::path::Path) {
    let db = db.canonicalize().unwrap_or_else(|_| db.to_path_buf());
    let backup = crate::database::sibling(&db, ".encbak");
    if backup.exists() {
        ui.note(&format!(
            "emdb: note: {} exists: a copy of the database an encryption change kept or was \
             interrupted with (plaintext after encrypt, under the old secret after rotate-key); \
             once the database opens with the secret you expect, delete it",
            backup.display()
        ));
    }
    // With the writer lock held, they may be in the making: ask the lock
    // only when one is there.
    let mut writing = None;
    for (suffix, what) in [
        (
            ".enc.tmp",
            "the new file of an encrypt, decrypt or rotate-key that was killed (plaintext after \
             a decrypt)",
        ),
        (
            ".compact.tmp",
            "the new file of a compaction or repair that was killed (its records as they are, \
             plaintext for a plain database)",
        ),
    ] {
        let left = crate::database::sibling(&db, suffix);
        if left.is_dir() {
            ui.note(&format!(
                "emdb: note: {} is a directory where emdb writes a temporary file: `compact`, \
                 `check --repair` and encryption changes fail until it is removed",
                left.display()
            ));
            continue;
        }
        if !left.exists() {
            continue;
        }
        let writing = *writing.get_or_insert_with(|| {
            emdb_core::Emdb::lock_holder(&db).is_ok_and(|h| h.is_some_and(|h| h.alive))
        });
        if !writing {
            ui.note(&format!(
                "emdb: note: {} is {what}; the next command that writes removes it, or delete it",
                left.display()
            ));
        }
    }
}

/// Ask `question` on stderr and read a yes/no answer from stdin.
fn confirm(ui: &Ui, question: &str) -> CliResult<bool> {
    if !ui.interactive {
        return Ok(false);
    }
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{} [y/N] ", escape_line(question));
    let _ = err.flush();
    drop(err);
    // Ctrl-C in the interactive shell does not end the process: it stops
    // the wait for an answer instead.
    if let Err(e) = crate::interrupt::wait_for_stdin() {
        eprintln!();
        return Err(e);
    }
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::io("reading the answer from stdin", None, e))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes"))
}
