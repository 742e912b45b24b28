//! `emdb backup DEST`: a consistent copy while writers go on.

use std::time::Instant;

use crate::cli::BackupArgs;
use crate::database::{refuse_database_files, sibling, Session};
use crate::error::{CliError, CliResult};
use crate::output::{BackupReport, Ui};
use crate::progress;

/// Copy the database to a new file. The copy holds the log up to one
/// instant (what a read-only follower had seen when the copy started); an
/// encrypted database stays encrypted under the same secret.
pub fn run(args: &BackupArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let dest = &args.dest;
    refuse_database_files(&s.path()?, dest, "backup")?;
    if dest.exists() {
        return Err(exists(dest));
    }
    let start = Instant::now();
    let db = s.reader()?;
    let encrypted = db.stats()?.encrypted;
    // The copy is written under temp names beside DEST, away from the
    // database (whose next open would remove its own), carrying this
    // process's host and pid (`Emdb::backup_temp_base`): `BASE.tmp`, or,
    // for an encrypted one, a database `BASE.fork` with its own files,
    // written through `BASE.fork.tmp` and resealed through
    // `BASE.fork.enc.tmp`. Only the names of the backup that runs, and
    // only those no file has yet.
    let base = emdb_core::Emdb::backup_temp_base(dest);
    let temps = if encrypted {
        let fork = sibling(&base, ".fork");
        let reseal = sibling(&fork, ".enc.tmp");
        [&fork, &reseal]
            .iter()
            .flat_map(|base| {
                crate::database::DATABASE_FILES
                    .iter()
                    .chain(&[".tmp"])
                    .map(|suffix| sibling(base, suffix))
            })
            .collect()
    } else {
        vec![sibling(&base, ".tmp")]
    };
    let interrupt = crate::temps::remove_on_interrupt(temps, Vec::new());
    match progress::engine("backing up", ui.quiet, || db.backup_to(dest)) {
        // Another backup (or anything) put a file at DEST meanwhile: the
        // same refusal as when it was there before.
        Err(emdb_core::Error::BackupTarget { .. }) if dest.exists() => {
            return Err(exists(dest));
        }
        r => r?,
    }
    drop(interrupt);
    let bytes = std::fs::metadata(dest)
        .map_err(|e| CliError::io("reading the size of", Some(dest), e))?
        .len();
    let seconds = start.elapsed().as_secs_f64();
    let report = BackupReport {
        path: s.path()?.display().to_string(),
        dest: dest.display().to_string(),
        bytes,
        encrypted,
        seconds,
    };
    let mut text = format!(
        "backed up {} to {} ({bytes} bytes, {seconds:.2}s)",
        report.path, report.dest
    );
    if encrypted {
        text.push_str("; the copy is encrypted with the same key or passphrase");
    }
    ui.report(&text, &report)
}

/// The refusal of a backup onto an existing file (exit 2).
fn exists(dest: &std::path::Path) -> CliError {
    CliError::usage(format!(
        "{} already exists; a backup never overwrites a file",
        dest.display()
    ))
    .hint("remove it or choose another DEST")
}
