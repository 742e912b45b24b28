//! `emdb import FILE|-`: load records in atomic batches.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::time::Instant;

use indicatif::ProgressBar;

use crate::cli::ImportArgs;
use crate::database::Session;
use crate::error::{CliError, CliResult};
use crate::output::{TransferReport, Ui};
use crate::progress;
use crate::transfer::{self, format_name};

/// Records per atomic batch.
const BATCH_RECORDS: usize = 10_000;
/// Bytes per atomic batch, so huge values do not pile up in memory.
const BATCH_BYTES: usize = 64 << 20;

/// Import a file. Each batch of up to 10,000 records is written atomically;
/// a malformed record stops the import (exit 7) before its batch is written.
pub fn run(args: &ImportArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let start = Instant::now();
    let from_stdin = args.file.as_os_str() == "-";
    let format = transfer::resolve_format(args.format, (!from_stdin).then_some(&*args.file));
    let (input, pb): (Box<dyn BufRead>, ProgressBar) = if from_stdin {
        if !ui.stdin_free {
            return Err(CliError::usage(
                "`import -` (stdin) is not available inside `emdb shell`",
            ));
        }
        let pb = progress::spinner("importing", ui.quiet);
        (Box::new(std::io::stdin().lock()), pb)
    } else {
        let file = open(&args.file)?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let pb = progress::bar(len, true, "importing", ui.quiet);
        let counted = Counted {
            inner: file,
            pb: pb.clone(),
        };
        (Box::new(BufReader::with_capacity(256 << 10, counted)), pb)
    };
    let db = s.writer("import")?;
    let mut batch: Vec<(Vec<u8>, Vec<u8>)> = Vec::with_capacity(BATCH_RECORDS);
    let mut batch_bytes = 0usize;
    let (mut records, mut batches) = (0u64, 0u64);
    let commit = |batch: &mut Vec<(Vec<u8>, Vec<u8>)>, batches: &mut u64| -> CliResult {
        db.insert_many(batch.iter().map(|(k, v)| (k, v)))?;
        batch.clear();
        *batches += 1;
        Ok(())
    };
    for entry in transfer::reader(format, input, ui.codec) {
        let entry = entry.map_err(|e| partial(e, records, batches))?;
        check_limits(&entry).map_err(|e| partial(e, records, batches))?;
        batch_bytes += entry.key.len() + entry.value.len();
        batch.push((entry.key, entry.value));
        if batch.len() >= BATCH_RECORDS || batch_bytes >= BATCH_BYTES {
            let n = batch.len() as u64;
            commit(&mut batch, &mut batches)?;
            records += n;
            batch_bytes = 0;
            if from_stdin {
                pb.set_position(records);
            }
        }
    }
    if !batch.is_empty() {
        let n = batch.len() as u64;
        commit(&mut batch, &mut batches)?;
        records += n;
    }
    s.wrote(&db)?;
    pb.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let report = TransferReport {
        records,
        batches: Some(batches),
        format: format_name(format),
        seconds,
    };
    let text = format!(
        "imported {records} records in {batches} atomic {} from {} ({}, {seconds:.2}s)",
        if batches == 1 { "batch" } else { "batches" },
        if from_stdin {
            "stdin".into()
        } else {
            args.file.display().to_string()
        },
        format_name(format)
    );
    ui.report(&text, &report)
}

fn open(path: &Path) -> CliResult<File> {
    File::open(path).map_err(|e| {
        let missing = e.kind() == std::io::ErrorKind::NotFound;
        let err = CliError::io("opening", Some(path), e);
        if missing {
            err.hint("check the file name; `-` reads from stdin")
        } else {
            err
        }
    })
}

/// Check the engine's limits here, so the error can name the line.
fn check_limits(entry: &transfer::Entry) -> CliResult {
    let at = entry.line;
    if entry.key.len() > emdb_core::MAX_KEY_LEN {
        return Err(CliError::bad_input(format!(
            "line {at}: key is {} bytes, the limit is {}",
            entry.key.len(),
            emdb_core::MAX_KEY_LEN
        )));
    }
    if entry.value.len() > emdb_core::MAX_VALUE_LEN {
        return Err(CliError::bad_input(format!(
            "line {at}: value is {} bytes, the limit is {}",
            entry.value.len(),
            emdb_core::MAX_VALUE_LEN
        )));
    }
    Ok(())
}

/// Say how much was imported before a failure.
fn partial(e: CliError, records: u64, batches: u64) -> CliError {
    if records == 0 {
        return e.hint("nothing was imported");
    }
    e.hint(format!(
        "{records} records in {batches} earlier batches were imported; the failing batch was not"
    ))
}

/// A reader that advances a progress bar by the bytes read.
struct Counted<R> {
    inner: R,
    pb: ProgressBar,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pb.inc(n as u64);
        Ok(n)
    }
}
