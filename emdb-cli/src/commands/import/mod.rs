//! `emdb import FILE|-`: load records in atomic batches.
//!
//! The database is opened (and created) only when the first batch is
//! written, so an import that fails before that, a `--dry-run`, or an input
//! without records leaves no file behind. Ctrl-C stops reading: the batches
//! committed so far are synced and counted, the one being collected is
//! dropped.
//!
//! `--from redis://...` feeds the same loop from a Redis server
//! ([`from_redis`]).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, UNIX_EPOCH};

use emdb_core::{Emdb, Ttl};
use indicatif::ProgressBar;

use crate::cli::ImportArgs;
use crate::database::Session;
use crate::error::{CliError, CliResult, Kind};
use crate::output::{TransferReport, Ui};
use crate::progress;
use crate::space::{now_ms, Space};
use crate::transfer::{self, format_name, Command, Entry, Item};

mod from_redis;

/// What the import reads: a file's records, or a Redis server's keys.
type Items<'a> = Box<dyn Iterator<Item = CliResult<Item>> + 'a>;

/// Records per atomic batch.
const BATCH_RECORDS: usize = 10_000;
/// Bytes per atomic batch, so huge values do not pile up in memory.
const BATCH_BYTES: usize = 64 << 20;
/// The most keys and values `--atomic` holds in memory for its one unit.
pub const ATOMIC_MAX_BYTES: usize = 1 << 30;

/// Import a file. Each batch of up to 10,000 records is written atomically
/// (see [`commit`] for the one exception), or the whole input as one unit
/// with `--atomic`; a malformed record stops the import (exit 7) before its
/// batch is written. Records go to the namespace they name, else to `-n`'s,
/// else to the default one; records that have expired already are not
/// written (a key one replaces is deleted, as in Redis) and are counted.
pub fn run(args: &ImportArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let start = Instant::now();
    let from_stdin = args.file.as_deref().is_some_and(|f| f.as_os_str() == "-");
    // Whether an expired record may have a value to delete (below).
    let existed = s.path()?.exists();
    let format = transfer::resolve_format(
        args.format.map(Into::into),
        args.file.as_deref().filter(|_| !from_stdin),
    );
    if !args.dry_run {
        s.require_writable("import")?;
    }
    let interrupted = Arc::new(AtomicBool::new(false));
    // Ctrl-C is this command's to handle (also in a shell where an export
    // set up the removal of its temp files on Ctrl-C).
    let _signal = crate::temps::handled_by_caller();
    // Without the handler Ctrl-C still ends the import, just without the count.
    let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&interrupted));
    let mut tally = None;
    let (items, pb, source, format_label): (Items, ProgressBar, String, &str) =
        match (&args.from, &args.file) {
            (Some(url), _) => {
                let pb = progress::bar(0, false, "importing", ui.quiet);
                let redis = from_redis::Source::connect(url, pb.clone())?;
                tally = Some(redis.tally());
                let shown = redis.shown().to_string();
                (Box::new(redis), pb, shown, "redis")
            }
            (None, _) if from_stdin => {
                if !ui.stdin_free {
                    return Err(CliError::usage(
                        "`import -` (stdin) is not available inside `emdb shell`",
                    ));
                }
                let pb = progress::counter("importing", ui.quiet);
                let mut input: Box<dyn BufRead> = Box::new(BufReader::with_capacity(
                    256 << 10,
                    Interruptible {
                        inner: std::io::stdin().lock(),
                        interrupted: Arc::clone(&interrupted),
                    },
                ));
                skip_bom(&mut input);
                let items = transfer::reader(format, input, ui.codec);
                (items, pb, "stdin".into(), format_name(format))
            }
            (None, Some(path)) => {
                let file = open(path)?;
                let len = file.metadata().map(|m| m.len()).unwrap_or(0);
                let pb = progress::bar(len, true, "importing", ui.quiet);
                let counted = Counted {
                    inner: file,
                    pb: pb.clone(),
                };
                let mut input: Box<dyn BufRead> =
                    Box::new(BufReader::with_capacity(256 << 10, counted));
                skip_bom(&mut input);
                let items = transfer::reader(format, input, ui.codec);
                let shown = path.display().to_string();
                (items, pb, shown, format_name(format))
            }
            (None, None) => return Err(CliError::usage("import needs FILE, `-` or --from URL")),
        };
    let target_encrypted = s.secret()?.is_some();
    let mut spaces = Spaces {
        db: None,
        default_ns: s.namespace().unwrap_or_default().to_string(),
        header: Vec::new(),
        names: Vec::new(),
        list: Vec::new(),
        by_name: HashMap::new(),
    };
    let mut batch: Vec<Pending> = Vec::with_capacity(BATCH_RECORDS);
    let mut batch_bytes = 0usize;
    let mut n = Counts::default();
    for item in items {
        if interrupted.load(Ordering::Relaxed) {
            n.interrupted = true;
            break;
        }
        // A read cut short by Ctrl-C (see `Interruptible`) is no error.
        if item.is_err() && interrupted.load(Ordering::Relaxed) {
            n.interrupted = true;
            break;
        }
        let entry = match item.map_err(|e| partial(e, &n))? {
            Item::Header(header) => {
                // Every namespace of the export is recreated, even empty
                // ones, once the database is opened.
                spaces.header = header.namespaces;
                if header.encrypted && !target_encrypted {
                    ui.note(
                        "emdb: note: the export comes from an encrypted database; \
                         this one is not encrypted",
                    );
                }
                continue;
            }
            Item::Record(entry) => (entry, Op::Put),
            Item::Command(Command::SetIfAbsent(entry)) => (entry, Op::PutIfAbsent),
            Item::Command(Command::SetKeepTtl(entry)) => (entry, Op::PutKeepTtl),
            Item::Command(Command::Delete { ns, key, line }) => {
                (entry_of(ns, key, None, line), Op::Delete)
            }
            Item::Command(Command::Expire {
                ns,
                key,
                expires_at_ms,
                line,
            }) => (entry_of(ns, key, Some(expires_at_ms), line), Op::Expire),
        };
        let (entry, op) = entry;
        check_limits(&entry).map_err(|e| partial(e, &n))?;
        // An expiry in the past leaves the key absent, as in Redis: an
        // EXPIRE deletes it, and so does a write (the value it replaced
        // must not come back), counted as expired by the commit. A
        // `SET ... NX` changes nothing either way.
        let past = entry.expires_at_ms.is_some_and(|at| at <= now_ms());
        let op = match op {
            Op::Expire if past => Op::Delete,
            // Nothing to delete in a database that is not there and gets
            // nothing before this record: then it is only skipped (and an
            // input of expired records creates no database).
            Op::Put
                if past
                    && !args.dry_run
                    && (existed || spaces.db.is_some() || !batch.is_empty()) =>
            {
                op
            }
            _ if past => {
                n.expired += 1;
                continue;
            }
            op => op,
        };
        n.read += 1;
        if args.dry_run {
            continue;
        }
        let space = spaces.index(entry.ns.as_deref());
        batch_bytes += entry.key.len() + entry.value.len();
        batch.push(Pending {
            op,
            space,
            key: entry.key,
            value: entry.value,
            expires_at_ms: entry.expires_at_ms,
        });
        if args.atomic {
            if batch_bytes > ATOMIC_MAX_BYTES {
                return Err(CliError::bad_input(format!(
                    "the input holds over {} MiB of keys and values, the limit of --atomic; nothing was imported",
                    ATOMIC_MAX_BYTES >> 20
                ))
                .hint("import without --atomic (atomic batches of 10,000 records), or split the file"));
            }
        } else if batch.len() >= BATCH_RECORDS || batch_bytes >= BATCH_BYTES {
            commit_batch(&mut spaces, s, &mut batch, &mut n).map_err(|e| partial(e, &n))?;
            batch_bytes = 0;
            if from_stdin {
                pb.set_position(n.records);
            }
        }
    }
    // The input may have ended because the same Ctrl-C ended its
    // producer: the batch being read is then not the input's end.
    if n.interrupted || interrupted.load(Ordering::Relaxed) {
        n.interrupted = true;
        batch.clear();
    }
    if !batch.is_empty() {
        commit_batch(&mut spaces, s, &mut batch, &mut n).map_err(|e| partial(e, &n))?;
    }
    if !args.dry_run && !spaces.header.is_empty() && spaces.db.is_none() && s.path()?.exists() {
        // No records, but the export's namespaces still belong in an
        // existing database.
        spaces.open(s)?;
    }
    if spaces.db.is_some() {
        s.wrote()?;
    }
    pb.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let report = TransferReport {
        records: if args.dry_run { n.read } else { n.records },
        batches: Some(n.batches),
        expired: Some(n.expired),
        format: format_label,
        seconds,
        other_types: tally.as_ref().map(|t| t.borrow().other.clone()),
        gone: tally.as_ref().map(|t| t.borrow().gone),
        sync_keys: tally.as_ref().map(|t| t.borrow().sync_keys),
        salvage: None,
    };
    let mut text = if args.dry_run {
        format!(
            "dry run: {} records in {source} would be imported ({}, {seconds:.2}s); nothing was written",
            n.read, format_label
        )
    } else {
        format!(
            "imported {} records in {} atomic {} from {source} ({}, {seconds:.2}s)",
            n.records,
            n.batches,
            if n.batches == 1 { "batch" } else { "batches" },
            format_label
        )
    };
    if n.expired > 0 {
        text.push_str(&format!("; skipped {} that had expired already", n.expired));
        if n.deleted > 0 {
            text.push_str(&format!(
                " ({} of them deleted the value an earlier record or the database held)",
                n.deleted
            ));
        }
    }
    if let Some(t) = &tally {
        let t = t.borrow();
        if t.other_total() > 0 {
            text.push_str(&format!(
                "; not copied: {} keys of other types ({})",
                t.other_total(),
                t.other_text()
            ));
        }
        if t.sync_keys > 0 {
            text.push_str(&format!(
                "; not copied: {} keys emdb sync keeps for itself (its cursors and leases)",
                t.sync_keys
            ));
        }
        if t.gone > 0 {
            text.push_str(&format!(
                "; {} keys expired or were deleted during the copy",
                t.gone
            ));
        }
    }
    if spaces.db.is_none() && !args.dry_run && !s.path()?.exists() {
        text.push_str("; no database was created");
    }
    if n.interrupted {
        // The exit code of a process ended by SIGINT, as shells report it.
        ui.note(&format!(
            "emdb: interrupted: {text}; the batch being read was dropped"
        ));
        return Err(CliError::silent(Kind::Interrupted));
    }
    ui.report(&text, &report)
}

/// How far an import got.
#[derive(Default)]
struct Counts {
    /// Valid, unexpired records read.
    read: u64,
    /// Records written.
    records: u64,
    /// Batches committed.
    batches: u64,
    /// Records skipped because they had expired.
    expired: u64,
    /// Of those, how many deleted the value they replaced.
    deleted: u64,
    /// Ctrl-C stopped the reading.
    interrupted: bool,
}

/// A UTF-8 byte order mark at the start is not data. A read that fails
/// here (Ctrl-C before the first byte, an I/O error) fails again for the
/// reader after it, which says which.
fn skip_bom(input: &mut Box<dyn BufRead>) {
    if input
        .fill_buf()
        .is_ok_and(|head| head.starts_with(b"\xef\xbb\xbf"))
    {
        input.consume(3);
    }
}

fn commit_batch(
    spaces: &mut Spaces,
    s: &mut Session,
    batch: &mut Vec<Pending>,
    n: &mut Counts,
) -> CliResult {
    spaces.open(s)?;
    let count = batch.len() as u64;
    let skipped = commit(spaces, batch)?;
    n.batches += 1;
    n.records += count - skipped.expired;
    n.expired += skipped.expired;
    n.deleted += skipped.deleted;
    Ok(())
}

/// Records of a batch that had expired by its commit (not written), and
/// how many of them deleted the value they replaced.
#[derive(Default)]
struct Expired {
    expired: u64,
    deleted: u64,
}

/// What a pending item does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Write the record (a plain `SET`, any JSON Lines or CSV record).
    Put,
    /// `SET ... NX`: write only when the key is absent.
    PutIfAbsent,
    /// `SET ... KEEPTTL`: write, keeping the key's current expiry.
    PutKeepTtl,
    /// `DEL`.
    Delete,
    /// `EXPIRE` and friends: a new expiry for a present key.
    Expire,
}

/// An entry for a command that names only a key.
fn entry_of(ns: Option<String>, key: Vec<u8>, expires_at_ms: Option<u64>, line: u64) -> Entry {
    Entry {
        ns,
        key,
        value: Vec::new(),
        expires_at_ms,
        line,
    }
}

/// A record waiting for its batch to be written.
struct Pending {
    op: Op,
    space: usize,
    key: Vec<u8>,
    value: Vec<u8>,
    expires_at_ms: Option<u64>,
}

/// The key spaces an import writes to, by name; the database and each
/// namespace are opened (and created) when the first batch is written.
struct Spaces {
    db: Option<Emdb>,
    /// Where records that name no namespace go (`-n`, else the default).
    default_ns: String,
    /// The namespaces the export header lists.
    header: Vec<String>,
    names: Vec<String>,
    list: Vec<Space>,
    by_name: HashMap<String, usize>,
}

impl Spaces {
    /// The index of namespace `name` (`None`: the import's default).
    fn index(&mut self, name: Option<&str>) -> usize {
        let name = name.unwrap_or(&self.default_ns);
        if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        self.names.push(name.to_string());
        self.by_name.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }

    /// Open the database for writing if not yet, create the header's
    /// namespaces, and open every namespace named so far.
    fn open(&mut self, s: &mut Session) -> CliResult {
        let db = match &self.db {
            Some(db) => db.clone(),
            None => {
                let db = s.writer("import")?;
                for name in std::mem::take(&mut self.header) {
                    if !name.is_empty() {
                        db.namespace(&name)?;
                    }
                }
                self.db = Some(db.clone());
                db
            }
        };
        while self.list.len() < self.names.len() {
            let name = &self.names[self.list.len()];
            self.list.push(Space::open(&db, Some(name))?);
        }
        Ok(())
    }
}

/// Write one batch atomically and empty it; returns how many of its
/// records had expired by now and were left out.
///
/// A batch of one namespace without expiries is one `insert_many`; any
/// other batch is one transaction, expiries carried as absolute times.
fn commit(spaces: &Spaces, batch: &mut Vec<Pending>) -> CliResult<Expired> {
    let first = batch[0].space;
    if batch
        .iter()
        .all(|p| p.space == first && p.op == Op::Put && p.expires_at_ms.is_none())
    {
        spaces.list[first].insert_many(batch.iter().map(|p| (&p.key[..], &p.value[..])))?;
        batch.clear();
        return Ok(Expired::default());
    }
    let now = now_ms();
    let at = |ms: u64| Ttl::At(UNIX_EPOCH + Duration::from_millis(ms));
    let mut expired = Expired::default();
    let Some(db) = &spaces.db else {
        return Err(CliError::new(Kind::Io, "the database is not open"));
    };
    db.transaction(|tx| {
        // Expiries this batch gave, so that KEEPTTL and EXPIRE see them.
        let mut set_here: HashMap<(usize, &[u8]), Option<u64>> = HashMap::new();
        for p in batch.iter() {
            let space = &spaces.list[p.space];
            let id = (p.space, &p.key[..]);
            let current_expiry =
                |set_here: &HashMap<(usize, &[u8]), Option<u64>>| match set_here.get(&id) {
                    Some(e) => Ok(*e),
                    None => space.expires_at_ms(&p.key),
                };
            match p.op {
                Op::Put | Op::PutIfAbsent => {
                    if p.op == Op::PutIfAbsent && space.tx_get(tx, &p.key)?.is_some() {
                        continue;
                    }
                    let ttl = match p.expires_at_ms {
                        None => Ttl::Never,
                        Some(ms) if ms > now => at(ms),
                        Some(_) => {
                            // Already expired: the key ends up absent
                            // (without a delete record when it was).
                            if p.op == Op::Put && space.tx_get(tx, &p.key)?.is_some() {
                                space.tx_remove(tx, &p.key)?;
                                expired.deleted += 1;
                            }
                            set_here.insert(id, None);
                            expired.expired += 1;
                            continue;
                        }
                    };
                    space.tx_insert(tx, &p.key, &p.value, ttl)?;
                    set_here.insert(id, p.expires_at_ms);
                }
                Op::PutKeepTtl => {
                    let keep = if space.tx_get(tx, &p.key)?.is_some() {
                        current_expiry(&set_here)?
                    } else {
                        None
                    };
                    space.tx_insert(tx, &p.key, &p.value, keep.map_or(Ttl::Never, at))?;
                    set_here.insert(id, keep);
                }
                Op::Delete => {
                    space.tx_remove(tx, &p.key)?;
                    set_here.insert(id, None);
                }
                Op::Expire => {
                    if let (Some(value), Some(ms)) = (space.tx_get(tx, &p.key)?, p.expires_at_ms) {
                        space.tx_insert(tx, &p.key, &value, at(ms))?;
                        set_here.insert(id, Some(ms));
                    }
                }
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

/// Say how much was imported before a failure (after the error's own
/// hint, if it has one).
fn partial(mut e: CliError, n: &Counts) -> CliError {
    let said = if n.records == 0 {
        "nothing was imported".to_string()
    } else {
        format!(
            "{} records in {} earlier {} imported; the failing batch was not",
            n.records,
            n.batches,
            if n.batches == 1 {
                "batch were"
            } else {
                "batches were"
            }
        )
    };
    let hint = match e.hint.take() {
        Some(own) => format!("{own}; {said}"),
        None => said,
    };
    e.hint(hint)
}

/// Stdin that gives up when Ctrl-C is pressed while it waits: the SIGINT
/// handler only sets a flag and the `read` it interrupted is restarted,
/// so a producer that stalls (or is slow) would keep the import waiting,
/// and the import would then commit what it had read as if the input had
/// ended. It waits in `poll` for a moment at a time and checks the flag.
struct Interruptible<R> {
    inner: R,
    interrupted: Arc<AtomicBool>,
}

impl<R: Read + std::os::fd::AsFd> Read for Interruptible<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use rustix::event::{poll, PollFd, PollFlags, Timespec};
        let tick = Timespec {
            tv_sec: 0,
            tv_nsec: 100_000_000,
        };
        loop {
            if self.interrupted.load(Ordering::Relaxed) {
                // Not `ErrorKind::Interrupted`, which readers retry.
                return Err(std::io::Error::other("interrupted by Ctrl-C"));
            }
            let mut fds = [PollFd::new(&self.inner, PollFlags::IN)];
            match poll(&mut fds, Some(&tick)) {
                Ok(0) => continue,
                Err(rustix::io::Errno::INTR) => continue,
                // Ready, or poll does not work on it: read as before.
                Ok(_) | Err(_) => return self.inner.read(buf),
            }
        }
    }
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
