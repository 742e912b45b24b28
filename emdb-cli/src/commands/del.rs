//! `emdb del KEY...` and `emdb del --prefix P`.

use std::ffi::OsStr;

use super::confirm;
use crate::cli::DelArgs;
use crate::database::Session;
use crate::error::{CliError, CliResult, Kind};
use crate::output::{DelReport, Ui};
use crate::progress;
use crate::space::Space;

/// Keys removed per atomic batch by `--prefix`.
const BATCH: usize = 10_000;

/// Delete keys; exit 1 when any of the named keys was missing.
pub fn run(args: &DelArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    if let Some(prefix) = &args.prefix {
        return by_prefix(args, prefix, s, ui);
    }
    let mut keys: Vec<Vec<u8>> = Vec::with_capacity(args.keys.len());
    for arg in &args.keys {
        let key = ui.codec.key_arg(arg)?;
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let wanted: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let missing = s.write_keys("del", false, &wanted, |w| {
        w.transaction(|tx| {
            let mut missing = Vec::new();
            for key in &keys {
                if !tx.remove(key)? {
                    missing.push(key.clone());
                }
            }
            Ok(missing)
        })
    })?;
    let deleted = (keys.len() - missing.len()) as u64;
    let report = DelReport {
        deleted,
        not_found: missing.len() as u64,
        matched: None,
        dry_run: false,
    };
    ui.report(&format!("deleted {deleted} {}", plural(deleted)), &report)?;
    if missing.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = missing.iter().map(|k| ui.quoted_key(k)).collect();
    Err(CliError::not_found(format!(
        "not found: {}",
        names.join(", ")
    )))
}

fn by_prefix(args: &DelArgs, prefix: &OsStr, s: &mut Session, ui: &mut Ui) -> CliResult {
    let prefix = ui.codec.key_arg(prefix)?;
    let shown = ui.quoted_key(&prefix);
    // Take the writer lock before counting, so the count is what gets deleted.
    let space = if args.dry_run {
        s.space_reader()?
    } else {
        s.space_writer("del", false)?
    };
    let keys = matching_keys(&space, &prefix)?;
    let matched = keys.len() as u64;
    let mut report = DelReport {
        deleted: 0,
        not_found: 0,
        matched: Some(matched),
        dry_run: args.dry_run,
    };
    if args.dry_run {
        let text = format!(
            "would delete {matched} {} with prefix {shown}",
            plural(matched)
        );
        return ui.report(&text, &report);
    }
    if matched == 0 {
        return ui.report(&format!("no keys with prefix {shown}"), &report);
    }
    if !args.yes {
        let what = format!("{matched} {} with prefix {shown}", plural(matched));
        if !ui.interactive {
            return Err(CliError::usage(format!(
                "refusing to delete {what} without confirmation (not a terminal)"
            ))
            .hint("pass --yes to delete them, or --dry-run to only count them"));
        }
        if !confirm(ui, &format!("delete {what}?"))? {
            return Err(CliError::usage("cancelled; nothing was deleted"));
        }
    }
    let db = s.writer("del")?;
    let pb = progress::bar(matched, false, "deleting", ui.quiet);
    let mut deleted = 0u64;
    for chunk in keys.chunks(BATCH) {
        // Ctrl-C in the interactive shell stops between two batches.
        if crate::interrupt::requested() {
            pb.finish_and_clear();
            s.wrote()?;
            return Err(CliError::new(
                Kind::Interrupted,
                format!(
                    "interrupted by Ctrl-C after deleting {deleted} of {matched} {} with \
                     prefix {shown}, in whole batches",
                    plural(matched)
                ),
            ));
        }
        deleted += db.transaction(|tx| {
            let mut n = 0u64;
            for key in chunk {
                if space.tx_remove(tx, key)? {
                    n += 1;
                }
            }
            Ok(n)
        })?;
        pb.inc(chunk.len() as u64);
    }
    pb.finish_and_clear();
    s.wrote()?;
    report.deleted = deleted;
    let text = format!("deleted {deleted} {} with prefix {shown}", plural(deleted));
    ui.report(&text, &report)
}

/// Every key starting with `prefix`. Walks the whole index: a range scan
/// would need a sorted index built at open, which costs more (see scan.rs).
fn matching_keys(space: &Space, prefix: &[u8]) -> CliResult<Vec<Vec<u8>>> {
    let mut keys = Vec::new();
    for key in space.keys()? {
        let key = key?;
        crate::interrupt::check()?;
        if key.starts_with(prefix) {
            keys.push(key);
        }
    }
    Ok(keys)
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        "key"
    } else {
        "keys"
    }
}
