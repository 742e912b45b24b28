//! `emdb export [FILE|-]`: every record (or those under `--prefix`) with
//! its namespace and expiry, grouped by namespace and sorted by key, from
//! a consistent snapshot.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::time::Instant;

use emdb_core::{Emdb, RecoveryReport};
use tempfile::TempDir;

use crate::cli::ExportArgs;
use crate::database::{refuse_database_files, unknown_namespace, Session};
use crate::encoding::Codec;
use crate::error::{CliError, CliResult};
use crate::output::{DamageReport, SalvageReport, TransferReport, Ui};
use crate::progress;
use crate::space::Space;
use crate::transfer::TransferFormat;
use crate::transfer::{self, format_name, Plan};

/// One namespace to export and its live key count (for the progress bar).
struct Listing {
    space: Space,
    count: usize,
}

/// Export the database: every namespace, or only the one `-n` names.
///
/// A read-only handle follows a live writer, so when a process holds the
/// writer lock the export reads a second read-only handle pinned at the
/// database as it was when the export began (`follow(false)`): a
/// consistent snapshot that writes no file, needs no write access beside
/// the database, and leaves nothing behind when killed. Records are
/// streamed in key order from the engine's sorted order, one namespace
/// after another: memory does not grow with the database.
pub fn run(args: &ExportArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let start = Instant::now();
    let prefix = args
        .prefix
        .as_deref()
        .map(|p| ui.codec.key_arg(p))
        .transpose()?;
    let file = args.file.as_deref().filter(|p| p.as_os_str() != "-");
    let format = transfer::resolve_format(args.format.map(Into::into), file);
    let path = s.path()?;
    if let Some(f) = file {
        refuse_database_files(&path, f, "export")?;
    }
    if let Some(f) = file.filter(|f| !args.force && f.symlink_metadata().is_ok()) {
        return Err(exists(f));
    }
    // The salvaged copy lives in `_salvage_dir` until the export is done.
    let (live, salvaged, _salvage_dir) = if args.salvage {
        let (db, dir) = salvage_copy(&path, s, ui.quiet)?;
        let report = db.recovery_report().clone();
        (db, Some(report), Some(dir))
    } else {
        (s.reader()?, None, None)
    };
    // Another process can only write while this one reads read-only.
    let writer_alive = live.is_read_only() && writer_may_run(&path);
    let db = if writer_alive {
        snapshot(&path, s)?
    } else {
        live.clone()
    };
    let log_end = db.stats()?.log_logical_bytes;
    let names: Vec<String> = match s.namespace() {
        Some(name) => {
            if !db.list_namespaces()?.iter().any(|n| n == name) {
                return Err(unknown_namespace(name));
            }
            vec![name.to_string()]
        }
        None => std::iter::once(String::new())
            .chain(db.list_namespaces()?)
            .collect(),
    };
    let mut listings = Vec::with_capacity(names.len());
    let mut any_expiry = false;
    for name in &names {
        let space = if name.is_empty() {
            Space::Default(db.clone())
        } else {
            Space::Named(db.namespace(name)?)
        };
        let count = space.len()?;
        any_expiry |= space.expiring_len()? > 0;
        listings.push(Listing { space, count });
    }
    let stats = db.stats()?;
    let plan = Plan {
        namespaces: names,
        encrypted: stats.encrypted,
        // Decides the CSV expiry column before the first record.
        any_expiry,
    };
    let keys = Keys::new(prefix);
    let records = match file {
        None => write_all(&listings, &keys, &plan, format, ui.codec, ui.quiet, ui.out)?,
        Some(path) => to_file(&listings, &keys, &plan, format, ui, path, args.force)?,
    };
    if live.is_read_only() && !writer_alive && db.stats()?.log_logical_bytes != log_end {
        ui.note(
            "emdb: warning: a writer started during the export, which may mix records \
             from before and after its writes; run the export again for a consistent snapshot",
        );
    }
    let seconds = start.elapsed().as_secs_f64();
    let report = TransferReport {
        records,
        batches: None,
        expired: None,
        format: format_name(format),
        seconds,
        other_types: None,
        gone: None,
        sync_keys: None,
        salvage: salvaged.as_ref().map(salvage_report),
    };
    let target = file.map_or("stdout".into(), |p| p.display().to_string());
    let mut text = format!(
        "exported {records} records to {target} ({}, {seconds:.2}s)",
        format_name(format)
    );
    if let Some(r) = &report.salvage {
        text.push_str(&salvage_text(r));
    }
    if file.is_some() {
        return ui.report(&text, &report);
    }
    // Stdout carries the data: the report goes to stderr.
    if !ui.quiet {
        let line = if ui.json {
            serde_json::to_string(&report).unwrap_or_default()
        } else {
            text
        };
        ui.note(&line);
    }
    Ok(())
}

/// `--salvage`: copy the database file into a private temporary directory
/// and open the copy with salvage, which skips damaged ranges (and, being
/// writable, compacts the copy). The database itself is only read: no lock,
/// checkpoint or stats file is made beside it, and its bytes stay as they
/// are. The returned directory holds the copy; dropping it deletes it (and
/// so does Ctrl-C until then).
fn salvage_copy(
    path: &Path,
    s: &mut Session,
    quiet: bool,
) -> CliResult<(Emdb, (TempDir, crate::temps::Guard))> {
    emdb_tools::database::check_file(path, true)?;
    let dir = tempfile::Builder::new()
        .prefix("emdb-salvage-")
        .tempdir()
        .map_err(|e| CliError::io("creating a temporary directory for", Some(path), e))?;
    let copy = dir.path().join("salvage.emdb");
    // A whole copy of the database: removed on Ctrl-C as when dropped.
    let interrupt = crate::temps::remove_on_interrupt(Vec::new(), vec![dir.path().to_path_buf()]);
    let pb = progress::spinner("salvaging", quiet);
    let opened = std::fs::copy(path, &copy)
        .map_err(|e| {
            CliError::io("copying", Some(path), e)
                .hint("--salvage needs room for about twice the database in TMPDIR")
        })
        .and_then(|_| {
            s.with_secret(path, |secret| {
                let mut b = Emdb::builder()
                    .path(&copy)
                    .salvage(true)
                    .checkpoint_on_close(false);
                if let Some(secret) = secret {
                    b = b.encryption(secret);
                }
                b.build()
            })
        })
        .map_err(|mut e| {
            // The copy's path means nothing to the user: name the file.
            let copy = copy.display().to_string();
            e.message = e.message.replace(&copy, &path.display().to_string());
            e
        });
    pb.finish_and_clear();
    Ok((opened?, (dir, interrupt)))
}

fn salvage_report(r: &RecoveryReport) -> SalvageReport {
    SalvageReport {
        skipped: r
            .skipped
            .iter()
            .map(|d| DamageReport {
                offset: d.offset,
                len: d.len,
                reason: None,
                durable: true,
            })
            .collect(),
        skipped_bytes: r.skipped.iter().map(|d| d.len).sum(),
        orphaned_records: r.orphaned_records,
        truncated_tail_at: r.truncated_tail_at,
    }
}

/// `; salvaged: skipped 1 damaged range (77 bytes at offset 4096) ...`.
fn salvage_text(r: &SalvageReport) -> String {
    if r.skipped.is_empty() && r.orphaned_records == 0 && r.truncated_tail_at.is_none() {
        return "; salvage found no damage".into();
    }
    let mut text = String::from("; salvaged: ");
    if r.skipped.is_empty() {
        text.push_str("no damaged range");
    } else {
        let at: Vec<String> = r.skipped.iter().map(|d| d.offset.to_string()).collect();
        text.push_str(&format!(
            "skipped {} damaged {} ({} bytes, at {} {})",
            r.skipped.len(),
            if r.skipped.len() == 1 {
                "range"
            } else {
                "ranges"
            },
            r.skipped_bytes,
            if at.len() == 1 { "offset" } else { "offsets" },
            at.join(", ")
        ));
    }
    if r.orphaned_records > 0 {
        text.push_str(&format!(
            ", {} records whose namespace was lost",
            r.orphaned_records
        ));
    }
    if let Some(at) = r.truncated_tail_at {
        text.push_str(&format!(", an unsynced tail cut at offset {at}"));
    }
    text.push_str("; the database file was not changed");
    text
}

/// Whether a writer may hold the lock of the database at `path`, which
/// decides only how the export reads it: pinned at a snapshot when one
/// may, through the handle it has otherwise. A lock file this user cannot
/// open (a reader without write access beside the database: it is 0600)
/// says nothing, so a writer may run: the snapshot is consistent either
/// way, and export, a reading command, takes no lock and needs none.
fn writer_may_run(path: &Path) -> bool {
    Emdb::lock_holder(path).map_or(true, |h| h.is_some_and(|h| h.alive))
}

/// A read-only handle on a database that a writer is changing, pinned at
/// the state its open found (it never follows the writer).
fn snapshot(path: &Path, s: &mut Session) -> CliResult<Emdb> {
    let mut b = Emdb::builder().path(path).read_only(true).follow(false);
    if let Some(secret) = s.secret()? {
        b = b.encryption(secret);
    }
    Ok(b.build()?)
}

/// "FILE exists; export does not overwrite it" (exit 2).
fn exists(path: &Path) -> CliError {
    CliError::usage(format!(
        "{} exists; export does not overwrite it",
        path.display()
    ))
    .hint("pass --force to replace it, or choose another file name")
}

/// Write to a temporary file beside `path`, then rename it into place, so a
/// failed export never leaves a truncated file under the real name. The
/// file is created owner-only (0600: it holds the plaintext of an
/// encrypted database) and never through a symlink planted at its name.
/// Without `force`, the rename never replaces a file at `path`, not even
/// one another export put there while this one wrote.
fn to_file(
    listings: &[Listing],
    keys: &Keys,
    plan: &Plan,
    format: TransferFormat,
    ui: &Ui,
    path: &Path,
    force: bool,
) -> CliResult<u64> {
    let mut tmp_name = emdb_core::process_temp_base(path, "export").into_os_string();
    tmp_name.push(".tmp");
    let tmp = PathBuf::from(tmp_name);
    emdb_core::remove_dead_process_temps(path, "export");
    // Plaintext, and away from the database: nothing else would remove it.
    let _interrupt = crate::temps::remove_on_interrupt(vec![tmp.clone()], Vec::new());
    let result = (|| {
        let file = create_private(&tmp).map_err(|e| CliError::io("creating", Some(&tmp), e))?;
        let mut out = BufWriter::with_capacity(256 << 10, file);
        let n = write_all(listings, keys, plan, format, ui.codec, ui.quiet, &mut out)?;
        let file = out
            .into_inner()
            .map_err(|e| CliError::io("writing", Some(&tmp), e.into_error()))?;
        file.sync_all()
            .map_err(|e| CliError::io("syncing", Some(&tmp), e))?;
        let placed = if force {
            std::fs::rename(&tmp, path)
        } else {
            emdb_core::rename_noreplace(&tmp, path)
        };
        placed.map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => exists(path),
            _ => CliError::io("renaming to", Some(path), e),
        })?;
        Ok(n)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Create `path` anew, mode 0600. `create_new` (`O_CREAT | O_EXCL`) never
/// follows a symlink at the name: one planted after the removal fails it.
fn create_private(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

/// The keys an export writes: all, or the range one prefix spans.
struct Keys {
    start: Bound<Vec<u8>>,
    end: Bound<Vec<u8>>,
}

impl Keys {
    fn new(prefix: Option<Vec<u8>>) -> Keys {
        match prefix {
            None => Keys {
                start: Bound::Unbounded,
                end: Bound::Unbounded,
            },
            Some(p) => Keys {
                end: emdb_core::prefix_end(&p),
                start: Bound::Included(p),
            },
        }
    }

    /// True when only part of each namespace is exported (the namespace
    /// counts are then no total for a progress bar).
    fn partial(&self) -> bool {
        !matches!(self.start, Bound::Unbounded)
    }
}

fn write_all(
    listings: &[Listing],
    keys: &Keys,
    plan: &Plan,
    format: TransferFormat,
    codec: Codec,
    quiet: bool,
    out: &mut dyn Write,
) -> CliResult<u64> {
    let pb = if keys.partial() {
        progress::counter("exporting", quiet)
    } else {
        let total: usize = listings.iter().map(|l| l.count).sum();
        progress::bar(total as u64, false, "exporting", quiet)
    };
    let mut w = transfer::writer(format, out, codec, plan)?;
    let mut n = 0u64;
    for listing in listings {
        let ns = listing.space.name();
        let mut range = listing.space.range(keys.start.clone(), keys.end.clone())?;
        while let Some(item) = range.next_with_expiry() {
            let (key, value, exp) = item?;
            let exp = exp.map(|t| {
                t.duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as u64)
            });
            w.record(ns, &key, &value, exp)?;
            n += 1;
            if n.is_multiple_of(4096) {
                pb.set_position(n);
                // Ctrl-C in the interactive shell; `to_file` removes its file.
                crate::interrupt::check()?;
            }
        }
    }
    w.finish()?;
    pb.finish_and_clear();
    Ok(n)
}
