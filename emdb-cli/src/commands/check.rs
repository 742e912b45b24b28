//! `emdb check [--repair]`: verify every record, salvage on request.

use std::borrow::Cow;
use std::path::Path;

use emdb_core::{Emdb, VerifyReport};

use super::confirm;
use crate::cli::CheckArgs;
use crate::database::{gave_up, retry_locked, sibling, Session};
use crate::encoding::{escape_text, Layout};
use crate::error::{CliError, CliResult, Kind};
use crate::output::{CheckReport, CheckpointDamage, DamageReport, RepairReport, Ui};
use crate::progress;

/// Verify the database; exit 4 when its durable part is damaged (unless
/// `--repair` salvaged it).
pub fn run(args: &CheckArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let path = s.path()?;
    // Missing (exit 6), a directory (2) or empty (4), as for every command.
    emdb_tools::database::check_file(&path, true)?;
    super::note_encryption_backup(ui, &path);
    if args.repair {
        s.require_writable("check --repair")?;
    }
    let found = verify(s, &path, ui.quiet)?;
    let mut report = check_report(&path, &found);
    if args.repair && found.checkpoint.is_some() && found.damaged.iter().all(|d| !d.durable) {
        // Only the checkpoint, an index of the log: rebuilt without a copy
        // or a question. (With the log damaged too, the salvage below
        // rebuilds it.)
        print(&report, ui, true)?;
        return rebuild_checkpoint(s, &path, report, ui);
    }
    if !args.repair || found.is_clean() {
        print(&report, ui, false)?;
        if args.repair && !ui.json {
            ui.note("nothing to repair");
        }
        return damaged_error(&report);
    }
    print(&report, ui, true)?;
    let damaged: u64 = report
        .damaged
        .iter()
        .filter(|d| d.durable)
        .map(|d| d.len)
        .sum();
    // Beside the file the path resolves to, where `encrypt` looks for it.
    let keep = crate::database::beside_real(&path, ".before-repair");
    // A copy identical to the file is one an earlier repair kept before it
    // failed or was killed, having changed nothing: it is this repair's copy.
    if keep.exists() && !is_copy(&keep, &path) {
        return Err(CliError::usage(format!(
            "{} exists: an earlier repair kept it, and the database has changed since; \
             refusing to overwrite it",
            keep.display()
        ))
        .hint("move it away or delete it, then run the repair again"));
    }
    if !args.yes {
        let what = format!(
            "repair {}, dropping the damaged records ({damaged} bytes)",
            path.display()
        );
        if !ui.interactive {
            return Err(CliError::usage(format!(
                "refusing to {what} without confirmation (not a terminal)"
            ))
            .hint("pass --yes to repair; a copy of the damaged file is kept"));
        }
        if !confirm(ui, &format!("{what}? A copy of the damaged file is kept."))? {
            return Err(CliError::usage("cancelled; nothing was changed"));
        }
    }
    // Asked again after the question: a writer may have written meanwhile.
    let reuse = keep.exists() && is_copy(&keep, &path);
    if keep.exists() && !reuse {
        return Err(CliError::usage(format!(
            "{} exists and the database changed while the repair asked; refusing to overwrite it",
            keep.display()
        ))
        .hint("move it away or delete it, then run the repair again"));
    }
    if reuse {
        std::fs::File::open(&keep)
            .and_then(|f| f.sync_all())
            .map_err(|e| CliError::io("syncing", Some(&keep), e))?;
        ui.note(&format!(
            "emdb: note: {} (kept by a repair that did not finish) is a copy of the \
             database as it is; using it as this repair's copy",
            keep.display()
        ));
    } else {
        keep_copy(&path, &keep)?;
    }
    let repair = salvage(s, &path, &keep, ui.quiet).map_err(|e| not_repaired(e, &path, &keep))?;
    let after = verify(s, &path, ui.quiet)?;
    report.repair = Some(repair);
    report.clean_after_repair = Some(after.is_clean());
    if ui.json {
        ui.json_line(&report)?;
    } else if let Some(r) = &report.repair {
        let mut text = format!(
            "repaired: dropped {} damaged {} ({} bytes)",
            r.dropped.len(),
            if r.dropped.len() == 1 {
                "range"
            } else {
                "ranges"
            },
            r.dropped_bytes
        );
        if let Some(at) = r.truncated_tail_at {
            text.push_str(&format!(", cut an unsynced tail at offset {at}"));
        }
        if r.orphaned_records > 0 {
            text.push_str(&format!(
                ", {} records whose namespace was lost",
                r.orphaned_records
            ));
        }
        text.push_str(&format!(
            "; {} keys remain; the damaged file is kept as {}",
            r.live_records,
            shown(&r.kept_copy)
        ));
        if !ui.quiet {
            ui.line(&text)?;
            // Salvage keeps what verifies: a key whose newest record (an
            // overwrite, a delete) was damaged has its older one back.
            ui.note(
                "emdb: note: a key whose newest record (an overwrite or a delete) was in a \
                 damaged range now has its older value, or is back if it had been deleted; \
                 compare with the kept copy or a backup",
            );
        }
    }
    still_damaged(&path, &after)
}

/// `check --repair` of a sound log with a damaged checkpoint: a writer's
/// open that does not use the checkpoint (salvage reads every record), and
/// its close, which writes a new one over it. The open takes the writer
/// lock first: with another writer running, nothing is changed.
fn rebuild_checkpoint(
    s: &mut Session,
    path: &Path,
    mut report: CheckReport,
    ui: &mut Ui,
) -> CliResult {
    let timeout = s.lock_timeout();
    let pb = progress::spinner("rebuilding the checkpoint", ui.quiet);
    let rebuilt = s
        .with_secret(path, |secret| {
            retry_locked(timeout, || {
                let mut b = Emdb::builder().path(path).salvage(true);
                if let Some(secret) = secret.clone() {
                    b = b.encryption(secret);
                }
                let db = b.build()?;
                let keys = db.stats()?.live_records;
                db.close()?;
                Ok(keys)
            })
        })
        .map_err(|e| gave_up(e, timeout));
    pb.finish_and_clear();
    let keys = rebuilt?;
    let after = verify(s, path, ui.quiet)?;
    report.checkpoint_rebuilt = Some(true);
    report.clean_after_repair = Some(after.is_clean());
    if ui.json {
        ui.json_line(&report)?;
    } else if !ui.quiet {
        ui.line(&format!(
            "repaired: rebuilt the checkpoint from the log; {keys} keys, nothing was lost"
        ))?;
    }
    still_damaged(path, &after)
}

/// The end of a repair: an error when a check after it still finds damage.
fn still_damaged(path: &Path, after: &VerifyReport) -> CliResult {
    if after.is_clean() {
        return Ok(());
    }
    Err(CliError::new(
        Kind::Corrupt,
        format!("{} is still damaged after the repair", path.display()),
    )
    .hint("restore it from a backup"))
}

fn verify(s: &mut Session, path: &Path, quiet: bool) -> CliResult<VerifyReport> {
    progress::engine("checking", quiet, || {
        s.with_secret(path, |secret| Emdb::verify(path, secret))
    })
}

fn salvage(s: &mut Session, path: &Path, keep: &Path, quiet: bool) -> CliResult<RepairReport> {
    // The salvage compacts into this file: Ctrl-C removes it once the
    // salvage holds the lock (before, it may be another writer's).
    let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let _interrupt = crate::temps::remove_while_locked(vec![sibling(&real, ".compact.tmp")], &real);
    let timeout = s.lock_timeout();
    let pb = progress::spinner("repairing", quiet);
    let db = s
        .with_secret(path, |secret| {
            retry_locked(timeout, || {
                let mut b = Emdb::builder().path(path).salvage(true);
                if let Some(secret) = secret.clone() {
                    b = b.encryption(secret);
                }
                b.build()
            })
        })
        .map_err(|e| gave_up(e, timeout));
    pb.finish_and_clear();
    let db = db?;
    let rec = db.recovery_report().clone();
    let live_records = db.stats()?.live_records;
    db.flush()?;
    drop(db);
    Ok(RepairReport {
        dropped_bytes: rec.skipped.iter().map(|r| r.len).sum(),
        dropped: rec
            .skipped
            .iter()
            .map(|r| DamageReport {
                offset: r.offset,
                len: r.len,
                reason: None,
                durable: true,
            })
            .collect(),
        truncated_tail_at: rec.truncated_tail_at,
        orphaned_records: rec.orphaned_records,
        live_records,
        kept_copy: keep.display().to_string(),
    })
}

fn check_report(path: &Path, r: &VerifyReport) -> CheckReport {
    CheckReport {
        path: path.display().to_string(),
        records: r.records,
        units: r.units,
        bytes: r.bytes,
        durable_end: r.durable_end,
        clean: r.is_clean(),
        damaged: r
            .damaged
            .iter()
            .map(|d| DamageReport {
                offset: d.offset,
                len: d.len,
                reason: Some(d.reason.clone()),
                durable: d.durable,
            })
            .collect(),
        checkpoint: r.checkpoint.as_ref().map(|c| CheckpointDamage {
            path: c.path.display().to_string(),
            offset: c.offset,
            reason: c.reason.clone(),
        }),
        checkpoint_rebuilt: None,
        repair: None,
        clean_after_repair: None,
    }
}

/// Print the findings; in JSON mode before a repair nothing is printed
/// (the one document comes after it).
/// A path of the report as the text output shows it: escaped as keys are,
/// so that a path holding terminal commands or a newline cannot act on the
/// terminal or break the line.
fn shown(path: &str) -> Cow<'_, str> {
    escape_text(path.as_bytes(), Layout::Field)
}

fn print(r: &CheckReport, ui: &mut Ui, before_repair: bool) -> CliResult {
    if ui.json {
        return if before_repair {
            Ok(())
        } else {
            ui.json_line(r)
        };
    }
    for d in &r.damaged {
        let end = d.offset + d.len;
        let state = if d.durable {
            "damaged"
        } else {
            "unsynced tail (recovery cuts it; not damage)"
        };
        let reason = d.reason.as_deref().unwrap_or("");
        ui.line(&format!(
            "{state}: offset {} to {end} ({} bytes): {reason}",
            d.offset, d.len
        ))?;
    }
    if let Some(c) = &r.checkpoint {
        ui.line(&format!(
            "damaged checkpoint: {}, page at offset {}: {} (only an index of the log: \
             `emdb check --repair` rebuilds it)",
            shown(&c.path),
            c.offset,
            c.reason
                .split("; remove this checkpoint")
                .next()
                .unwrap_or(&c.reason)
        ))?;
    }
    let text = format!(
        "{}: {} records in {} units, {} bytes checked (durable up to offset {}): {}",
        shown(&r.path),
        r.records,
        r.units,
        r.bytes,
        r.durable_end,
        if r.clean { "ok" } else { "DAMAGED" }
    );
    if ui.quiet {
        Ok(())
    } else {
        ui.line(&text)
    }
}

fn damaged_error(r: &CheckReport) -> CliResult {
    if r.clean {
        return Ok(());
    }
    let ranges = r.damaged.iter().filter(|d| d.durable).count();
    let bytes: u64 = r.damaged.iter().filter(|d| d.durable).map(|d| d.len).sum();
    if let (0, Some(c)) = (ranges, &r.checkpoint) {
        return Err(CliError::new(
            Kind::Corrupt,
            format!(
                "the checkpoint of {} is damaged ({}); its log is sound",
                r.path, c.path
            ),
        )
        .hint(
            "the checkpoint holds only an index of the log, no data: `emdb check --repair` \
             rebuilds it (or remove it yourself)",
        ));
    }
    Err(CliError::new(
        Kind::Corrupt,
        format!(
            "{} is damaged: {ranges} {} ({bytes} bytes) in its durable log",
            r.path,
            if ranges == 1 { "range" } else { "ranges" }
        ),
    )
    .hint("`emdb export --salvage` saves what still verifies without changing the file; `emdb check --repair` salvages the file itself (keeping a copy of the damaged one); or restore a backup"))
}

/// Copy the damaged file to `keep` under a temporary name, sync it, and
/// only then rename it into place: a repair killed during the copy leaves
/// a `<keep>.tmp` (removed by the next repair), never a truncated copy
/// under the real name, which would block every later repair.
fn keep_copy(path: &Path, keep: &Path) -> CliResult {
    let tmp = sibling(keep, ".tmp");
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(CliError::io("removing the stale copy", Some(&tmp), e));
        }
        _ => {}
    }
    let copied = (|| {
        std::fs::copy(path, &tmp)
            .map_err(|e| CliError::io("copying the damaged file to", Some(&tmp), e))?;
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| CliError::io("syncing", Some(&tmp), e))?;
        std::fs::rename(&tmp, keep).map_err(|e| CliError::io("renaming to", Some(keep), e))?;
        // The rename is durable once the directory is synced.
        let dir = match keep.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| CliError::io("syncing the directory of", Some(keep), e))
    })();
    if copied.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    copied
}

/// A repair that failed: when the database is still byte for byte the
/// copy (nothing was changed), the copy is removed, so a retry does not
/// find it in the way; otherwise it stays, and the error says where.
fn not_repaired(e: CliError, path: &Path, keep: &Path) -> CliError {
    let said = if is_copy(keep, path) && std::fs::remove_file(keep).is_ok() {
        "the repair changed nothing (its copy was removed); run it again once that is fixed"
            .to_string()
    } else {
        format!(
            "the repair did not finish; the file as it was before is kept as {}",
            keep.display()
        )
    };
    let hint = match &e.hint {
        Some(own) => format!("{own}; {said}"),
        None => said,
    };
    e.hint(hint)
}

/// Whether `keep` is a copy of `db`: another file (not a hard link to it)
/// with the same bytes, apart from the sync slots, which the repair's
/// writer open claims right after the copy (so a repair killed or failed
/// after it leaves a copy that differs there, and only there).
fn is_copy(keep: &Path, db: &Path) -> bool {
    let id = crate::database::file_id(keep);
    id.is_some() && id != crate::database::file_id(db) && same_bytes(keep, db)
}

/// Whether two files hold the same bytes outside the sync slots (false
/// when either cannot be read).
fn same_bytes(a: &Path, b: &Path) -> bool {
    use std::io::Read;
    let (Ok(mut fa), Ok(mut fb)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    match (fa.metadata(), fb.metadata()) {
        (Ok(ma), Ok(mb)) if ma.len() == mb.len() => {}
        _ => return false,
    }
    let (mut ba, mut bb) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    let mut at = 0u64;
    loop {
        let n = match fa.read(&mut ba) {
            Ok(n) => n,
            Err(_) => return false,
        };
        if n == 0 {
            return fb.read(&mut bb[..1]).is_ok_and(|m| m == 0);
        }
        if fb.read_exact(&mut bb[..n]).is_err() {
            return false;
        }
        for slot in &emdb_core::SYNC_SLOT_BYTES {
            // The part of this slot inside the chunk just read, blanked in both.
            let from = slot.start.clamp(at, at + n as u64) - at;
            let to = slot.end.clamp(at, at + n as u64) - at;
            ba[from as usize..to as usize].fill(0);
            bb[from as usize..to as usize].fill(0);
        }
        if ba[..n] != bb[..n] {
            return false;
        }
        at += n as u64;
    }
}
