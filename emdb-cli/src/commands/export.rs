//! `emdb export [FILE|-]`: every record, sorted by key, from a consistent
//! snapshot.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use emdb_core::Emdb;

use crate::cli::{ExportArgs, TransferFormat};
use crate::database::Session;
use crate::encoding::Codec;
use crate::error::{CliError, CliResult};
use crate::output::{TransferReport, Ui};
use crate::progress;
use crate::transfer::{self, format_name};

/// Export the database. The read-only open is a snapshot, so writes made by
/// another process meanwhile are not mixed in. Records are written in key
/// order: keys are collected and sorted first (the engine has no ordered
/// scan), then values are read one by one from the memory map.
pub fn run(args: &ExportArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let start = Instant::now();
    let file = args.file.as_deref().filter(|p| p.as_os_str() != "-");
    let format = transfer::resolve_format(args.format, file);
    let db = s.reader()?;
    let mut keys = Vec::new();
    for key in db.keys()? {
        keys.push(key?);
    }
    keys.sort_unstable();
    let records = match file {
        None => write_all(&db, &keys, format, ui.codec, ui.quiet, ui.out)?,
        Some(path) => to_file(&db, &keys, format, ui, path)?,
    };
    let seconds = start.elapsed().as_secs_f64();
    let report = TransferReport {
        records,
        batches: None,
        format: format_name(format),
        seconds,
    };
    let target = file.map_or("stdout".into(), |p| p.display().to_string());
    let text = format!(
        "exported {records} records to {target} ({}, {seconds:.2}s)",
        format_name(format)
    );
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
        eprintln_safe(&line);
    }
    Ok(())
}

/// Write to a temporary file beside `path`, then rename it into place, so a
/// failed export never leaves a truncated file under the real name.
fn to_file(
    db: &Emdb,
    keys: &[Vec<u8>],
    format: TransferFormat,
    ui: &Ui,
    path: &Path,
) -> CliResult<u64> {
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(format!(".emdb-export-{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp_name);
    let result = (|| {
        let file = File::create(&tmp).map_err(|e| CliError::io("creating", Some(&tmp), e))?;
        let mut out = BufWriter::with_capacity(256 << 10, file);
        let n = write_all(db, keys, format, ui.codec, ui.quiet, &mut out)?;
        let file = out
            .into_inner()
            .map_err(|e| CliError::io("writing", Some(&tmp), e.into_error()))?;
        file.sync_all()
            .map_err(|e| CliError::io("syncing", Some(&tmp), e))?;
        std::fs::rename(&tmp, path).map_err(|e| CliError::io("renaming to", Some(path), e))?;
        Ok(n)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_all(
    db: &Emdb,
    keys: &[Vec<u8>],
    format: TransferFormat,
    codec: Codec,
    quiet: bool,
    out: &mut dyn Write,
) -> CliResult<u64> {
    let pb = progress::bar(keys.len() as u64, false, "exporting", quiet);
    let mut w = transfer::writer(format, out, codec)?;
    let mut n = 0u64;
    for key in keys {
        // A read-only snapshot keeps every key it listed.
        if let Some(value) = db.get_zerocopy(key)? {
            w.record(key, &value)?;
            n += 1;
        }
        if n.is_multiple_of(4096) {
            pb.set_position(n);
        }
    }
    w.finish()?;
    pb.finish_and_clear();
    Ok(n)
}

fn eprintln_safe(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
