//! `emdb import FILE|-`: load records in atomic batches.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::time::{Duration, Instant, UNIX_EPOCH};

use emdb_core::{Emdb, Ttl};
use indicatif::ProgressBar;

use crate::cli::ImportArgs;
use crate::database::Session;
use crate::error::{CliError, CliResult};
use crate::output::{TransferReport, Ui};
use crate::progress;
use crate::space::{now_ms, Space};
use crate::transfer::{self, format_name, Item};

/// Records per atomic batch.
const BATCH_RECORDS: usize = 10_000;
/// Bytes per atomic batch, so huge values do not pile up in memory.
const BATCH_BYTES: usize = 64 << 20;

/// Import a file. Each batch of up to 10,000 records is written atomically
/// (see [`commit`] for the one exception); a malformed record stops the
/// import (exit 7) before its batch is written. Records go to the namespace
/// they name, else to `-n`'s, else to the default one; records that have
/// expired already are skipped and counted.
pub fn run(args: &ImportArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let start = Instant::now();
    let from_stdin = args.file.as_os_str() == "-";
    let format = transfer::resolve_format(
        args.format.map(Into::into),
        (!from_stdin).then_some(&*args.file),
    );
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
    let target_encrypted = s.secret()?.is_some();
    let mut spaces = Spaces {
        db: db.clone(),
        default_ns: s.namespace().unwrap_or_default().to_string(),
        list: Vec::new(),
        by_name: HashMap::new(),
    };
    let mut batch: Vec<Pending> = Vec::with_capacity(BATCH_RECORDS);
    let mut batch_bytes = 0usize;
    let (mut records, mut batches, mut expired) = (0u64, 0u64, 0u64);
    for item in transfer::reader(format, input, ui.codec) {
        let entry = match item.map_err(|e| partial(e, records, batches))? {
            Item::Header(header) => {
                // Recreate every namespace of the export, even empty ones.
                for name in &header.namespaces {
                    spaces.index(Some(name.as_str()))?;
                }
                if header.encrypted && !target_encrypted {
                    ui.note(
                        "emdb: note: the export comes from an encrypted database; \
                         this one is not encrypted",
                    );
                }
                continue;
            }
            Item::Record(entry) => entry,
        };
        check_limits(&entry).map_err(|e| partial(e, records, batches))?;
        if entry.expires_at_ms.is_some_and(|at| at <= now_ms()) {
            expired += 1;
            continue;
        }
        let space = spaces.index(entry.ns.as_deref())?;
        batch_bytes += entry.key.len() + entry.value.len();
        batch.push(Pending {
            space,
            key: entry.key,
            value: entry.value,
            expires_at_ms: entry.expires_at_ms,
        });
        if batch.len() >= BATCH_RECORDS || batch_bytes >= BATCH_BYTES {
            let n = batch.len() as u64;
            let skipped = commit(&spaces, &mut batch)?;
            batches += 1;
            records += n - skipped;
            expired += skipped;
            batch_bytes = 0;
            if from_stdin {
                pb.set_position(records);
            }
        }
    }
    if !batch.is_empty() {
        let n = batch.len() as u64;
        let skipped = commit(&spaces, &mut batch)?;
        batches += 1;
        records += n - skipped;
        expired += skipped;
    }
    s.wrote()?;
    pb.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let report = TransferReport {
        records,
        batches: Some(batches),
        expired: Some(expired),
        format: format_name(format),
        seconds,
    };
    let mut text = format!(
        "imported {records} records in {batches} atomic {} from {} ({}, {seconds:.2}s)",
        if batches == 1 { "batch" } else { "batches" },
        if from_stdin {
            "stdin".into()
        } else {
            args.file.display().to_string()
        },
        format_name(format)
    );
    if expired > 0 {
        text.push_str(&format!("; skipped {expired} that had expired already"));
    }
    ui.report(&text, &report)
}

/// A record waiting for its batch to be written.
struct Pending {
    space: usize,
    key: Vec<u8>,
    value: Vec<u8>,
    expires_at_ms: Option<u64>,
}

/// The key spaces an import writes to, opened (and created) on first use.
struct Spaces {
    db: Emdb,
    /// Where records that name no namespace go (`-n`, else the default).
    default_ns: String,
    list: Vec<Space>,
    by_name: HashMap<String, usize>,
}

impl Spaces {
    /// The index of namespace `name` (`None`: the import's default).
    fn index(&mut self, name: Option<&str>) -> CliResult<usize> {
        let name = name.unwrap_or(&self.default_ns);
        if let Some(&i) = self.by_name.get(name) {
            return Ok(i);
        }
        let space = if name.is_empty() {
            Space::Default(self.db.clone())
        } else {
            Space::Named(self.db.namespace(name)?)
        };
        self.list.push(space);
        self.by_name.insert(name.to_string(), self.list.len() - 1);
        Ok(self.list.len() - 1)
    }
}

/// Write one batch atomically and empty it; returns how many of its
/// records had expired by now and were left out.
///
/// A batch of one namespace without expiries is one `insert_many`; any
/// other batch is one transaction, expiries carried as absolute times.
fn commit(spaces: &Spaces, batch: &mut Vec<Pending>) -> CliResult<u64> {
    let first = batch[0].space;
    if batch
        .iter()
        .all(|p| p.space == first && p.expires_at_ms.is_none())
    {
        spaces.list[first].insert_many(batch.iter().map(|p| (&p.key[..], &p.value[..])))?;
        batch.clear();
        return Ok(0);
    }
    let now = now_ms();
    let ttl = |p: &Pending| match p.expires_at_ms {
        None => Some(Ttl::Never),
        Some(at) if at > now => Some(Ttl::At(UNIX_EPOCH + Duration::from_millis(at))),
        Some(_) => None,
    };
    let mut expired = 0u64;
    spaces.db.transaction(|tx| {
        for p in batch.iter() {
            let Some(t) = ttl(p) else {
                expired += 1;
                continue;
            };
            match &spaces.list[p.space] {
                Space::Default(_) => tx.insert_with_ttl(&p.key, &p.value, t)?,
                Space::Named(ns) => tx.namespace(ns).insert_with_ttl(&p.key, &p.value, t)?,
            }
        }
        Ok(())
    })?;
    batch.clear();
    Ok(expired)
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
