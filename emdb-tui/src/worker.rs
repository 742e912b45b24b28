//! All database I/O, off the UI thread.
//!
//! The UI sends [`Request`]s and polls for [`Response`]s; it never waits.
//! A threaded worker serves reads and writes on one thread (coalescing
//! requests that a newer one makes pointless), loads key lists on their own
//! threads (a new load cancels the one in flight) and compacts on its own
//! thread so stats keep coming during a compaction. The inline worker does
//! the same work synchronously, for tests.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use emdb_core::{Emdb, Stats, Ttl};
use emdb_tools::Space;

use crate::keylist::{KeyChange, KeySet, ListView, Pattern, SortBy};
use crate::pages::{scan_bounds, Pages, CHUNK};

/// When a key list is paged rather than held whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paging {
    /// A namespace (or a filter's matches) with more keys than this is
    /// paged: only chunks around the cursor are held.
    pub whole_limit: usize,
    /// Keys per chunk.
    pub chunk: usize,
}

impl Default for Paging {
    /// Up to 100,000 keys whole (a few MB), chunks of [`CHUNK`] keys.
    fn default() -> Paging {
        Paging {
            whole_limit: WHOLE_LIMIT,
            chunk: CHUNK,
        }
    }
}

/// Keys held whole at most (see [`Paging`]).
pub const WHOLE_LIMIT: usize = 100_000;

/// A namespace: `None` is the default (unnamed) one.
pub type NsName = Option<String>;

/// The lifetime a staged put gets when it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewTtl {
    /// Keep the key's current time to live (none for a new key).
    Keep,
    /// Never expire.
    Never,
    /// Expire this long after the write.
    After(Duration),
}

/// One staged change, ready to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// Its namespace.
    pub ns: NsName,
    /// The key.
    pub key: Vec<u8>,
    /// The new value, or `None` to delete the key.
    pub value: Option<Vec<u8>>,
    /// The lifetime of a put.
    pub ttl: NewTtl,
}

/// Why a value is being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValuePurpose {
    /// For the value pane.
    Show,
    /// The old value of a staged change, for its diff.
    Staging,
    /// Whether the new name of a rename (`R`) is taken: the key list may
    /// not hold it (a paged list holds chunks of keys, a filtered one only
    /// its matches), so the database answers.
    RenameTarget,
}

/// Work for the worker.
#[derive(Clone, Debug)]
pub enum Request {
    /// Sizes and counters (plus compaction progress while compacting).
    Stats,
    /// Catch up with the writer now (read-only handles).
    Refresh,
    /// The keys of a namespace matching a filter, with sizes and
    /// expiries, in key order: all of them when there are at most
    /// [`Paging::whole_limit`], else the first chunk and the chunk index of
    /// a paged list (see [`crate::pages`]).
    LoadKeys {
        /// The namespace.
        ns: NsName,
        /// Echoed in the response so stale loads can be ignored.
        generation: u64,
        /// The filter text (empty: every key).
        filter: String,
    },
    /// The first `limit` keys of `ns` matching `filter` in the order of
    /// `sort` (biggest values, or soonest expiry): one scan that holds at
    /// most `limit` keys, for the sorts and the expiring view of a list too
    /// big to hold. Shares the key loads' cancelling and progress.
    TopKeys {
        /// The namespace.
        ns: NsName,
        /// The load's generation, echoed.
        generation: u64,
        /// The filter text (empty: every key).
        filter: String,
        /// The view asked for, echoed ([`ListView::Expiring`] ranks by
        /// expiry whatever `sort` is).
        view: ListView,
        /// The order asked for, echoed.
        sort: SortBy,
        /// Keys kept at most.
        limit: usize,
    },
    /// One level of the tree of a list too big to hold: the keys of `ns`
    /// matching `filter` under `prefix`, grouped on `delimiter` after it
    /// (counts and bytes per group, the keys with no delimiter after it as
    /// keys), at most `limit` groups and keys. One scan of the prefix's
    /// range; shares the key loads' cancelling and progress. Every
    /// `partial_every` keys counted (0: never) it also sends the level so
    /// far ([`Response::LevelSoFar`]), so a level of a million keys shows
    /// before they are all counted.
    TreeLevel {
        /// The namespace.
        ns: NsName,
        /// The load's generation, echoed.
        generation: u64,
        /// The filter text (empty: every key).
        filter: String,
        /// The level's prefix (empty: the top), ending with the delimiter.
        prefix: Vec<u8>,
        /// The tree delimiter.
        delimiter: u8,
        /// Groups and keys kept at most.
        limit: usize,
        /// Keys counted between two answers so far (0: none).
        partial_every: usize,
    },
    /// One chunk of a paged list: the keys matching `filter` in
    /// `[lo, hi)`, or only their count and bytes.
    LoadChunk {
        /// The namespace.
        ns: NsName,
        /// The list's generation, echoed.
        generation: u64,
        /// The chunk's index, echoed.
        chunk: usize,
        /// Its first key (`None`: from the start of the filter's keys).
        lo: Option<Vec<u8>>,
        /// The next chunk's first key, excluded (`None`: to the end).
        hi: Option<Vec<u8>>,
        /// The list's filter text.
        filter: String,
        /// Count only, do not send the keys.
        count_only: bool,
    },
    /// The keys of `ns` that records since log offset `since` touched,
    /// with their current size and expiry (or gone): the key list follows
    /// the writer with these instead of reading every key again.
    FollowKeys {
        /// The namespace.
        ns: NsName,
        /// Echoed in the response so answers for an older list are ignored.
        generation: u64,
        /// Log offset the list is current up to.
        since: u64,
    },
    /// One value.
    LoadValue {
        /// The namespace.
        ns: NsName,
        /// The key.
        key: Vec<u8>,
        /// What it is for.
        purpose: ValuePurpose,
    },
    /// The keys of `ns` whose value contains `needle`.
    FindInValues {
        /// The namespace.
        ns: NsName,
        /// The bytes to look for.
        needle: Vec<u8>,
        /// Ignore ASCII case.
        ignore_case: bool,
        /// Which of the matches to list.
        window: FindWindow,
    },
    /// Write staged changes in one atomic transaction, then flush.
    Apply(Vec<Change>),
    /// Make every write durable.
    Flush,
    /// Write `keys` of `ns` with their values and expiries to a new file.
    Export {
        /// The namespace.
        ns: NsName,
        /// The keys, in the order to write them.
        keys: Vec<Vec<u8>>,
        /// The file; it must not exist yet.
        path: PathBuf,
    },
    /// Write every key of `ns` matching `filter` (a paged list's keys) with
    /// its value and expiry to a new file, streamed from the engine's
    /// sorted order: the keys are never held.
    ExportRange {
        /// The namespace.
        ns: NsName,
        /// The list's filter text (empty: every key).
        filter: String,
        /// The file; it must not exist yet.
        path: PathBuf,
    },
    /// Create a namespace (written and flushed at once).
    CreateNamespace(String),
    /// Drop a namespace and its keys (written and flushed at once).
    DropNamespace(String),
    /// Rewrite the log with only live records.
    Compact,
}

/// Results from the worker.
#[derive(Debug)]
pub enum Response {
    /// A stats sample.
    Stats {
        /// The sample.
        stats: Box<Stats>,
        /// Bytes written to the compaction's new file so far, while one runs.
        compact_written: Option<u64>,
        /// Whether the process that published the counters still runs.
        writer_alive: Option<bool>,
        /// Unexpired keys per namespace (`""` the default one), taken with
        /// this sample when due (see [`LIVE_COUNT_EVERY`]); `stats` counts
        /// expired keys not yet swept too.
        live_counts: Option<Vec<(String, u64)>>,
        /// Why a read-only handle could not catch up with the file (e.g.
        /// it was replaced by one it cannot open): the sample is of the
        /// file as it was.
        follow_failed: Option<JobError>,
        /// The id of each named namespace of `stats` (a namespace dropped
        /// and created again has a new one), as far as they were read.
        namespace_ids: Vec<(String, u32)>,
    },
    /// A refresh applied this many records.
    Refreshed(usize),
    /// A key load made progress.
    KeysProgress {
        /// The load's generation.
        generation: u64,
        /// Keys read so far.
        loaded: usize,
    },
    /// The first chunk of a key load still running, to show at once.
    KeysFirst {
        /// The load's generation.
        generation: u64,
        /// The namespace.
        ns: NsName,
        /// The filter text scanned for.
        filter: String,
        /// The first keys, sorted.
        set: KeySet,
    },
    /// A key load still running has passed [`Paging::whole_limit`] keys:
    /// the list will be paged (a tree of it is counted a level at a time,
    /// which need not wait for the load).
    KeysPaged {
        /// The load's generation.
        generation: u64,
        /// The namespace.
        ns: NsName,
        /// The filter text scanned for.
        filter: String,
    },
    /// A key load finished.
    Keys {
        /// The load's generation.
        generation: u64,
        /// The namespace.
        ns: NsName,
        /// The filter text scanned for (empty: every key).
        filter: String,
        /// The keys, sorted (empty when `pages` is given).
        set: KeySet,
        /// The keys as pages, when there were more than
        /// [`Paging::whole_limit`].
        pages: Option<Pages>,
        /// Log size just before the keys were read: a later size means the
        /// list may be stale.
        log_end: u64,
        /// How long it took.
        took: Duration,
    },
    /// The answer to [`Request::TopKeys`].
    Top {
        /// The load's generation.
        generation: u64,
        /// The namespace.
        ns: NsName,
        /// The filter text scanned for.
        filter: String,
        /// The view asked for.
        view: ListView,
        /// The order asked for.
        sort: SortBy,
        /// The kept keys, sorted by key.
        set: KeySet,
        /// Keys matching the filter, kept or not.
        matched: usize,
        /// Log size just before the scan.
        log_end: u64,
        /// How long it took.
        took: Duration,
    },
    /// A [`Request::TreeLevel`] still counting: the groups and keys so
    /// far, the last group's count and bytes as far as it was counted.
    LevelSoFar {
        /// The load's generation.
        generation: u64,
        /// The namespace.
        ns: NsName,
        /// The filter text scanned for.
        filter: String,
        /// The level's prefix.
        prefix: Vec<u8>,
        /// Its groups and keys so far, in key order.
        level: Level,
    },
    /// The answer to [`Request::TreeLevel`].
    Level {
        /// The load's generation.
        generation: u64,
        /// The namespace.
        ns: NsName,
        /// The filter text scanned for.
        filter: String,
        /// The level's prefix.
        prefix: Vec<u8>,
        /// Its groups and keys in key order.
        level: Level,
        /// Log size just before the scan.
        log_end: u64,
        /// How long it took.
        took: Duration,
    },
    /// The answer to [`Request::LoadChunk`].
    Chunk {
        /// The list's generation.
        generation: u64,
        /// The chunk's index.
        chunk: usize,
        /// Its first key as asked.
        lo: Option<Vec<u8>>,
        /// Keys in it.
        count: usize,
        /// Bytes of their values.
        bytes: u64,
        /// The keys, unless only counted.
        keys: Option<KeySet>,
    },
    /// The answer to [`Request::FollowKeys`].
    KeysTouched {
        /// The list's generation.
        generation: u64,
        /// The namespace.
        ns: NsName,
        /// Changes to apply, or `None` when the log cannot tell (it was
        /// compacted since): read every key again.
        changes: Option<Vec<KeyChange>>,
        /// Log offset the changes are current up to.
        log_end: u64,
    },
    /// A value was read.
    Value {
        /// The namespace.
        ns: NsName,
        /// The key.
        key: Vec<u8>,
        /// Its value, or `None` when the key does not exist.
        value: Option<Vec<u8>>,
        /// Its expiry (ms since the Unix epoch), if it has one.
        expires_ms: Option<u64>,
        /// Offset of its record in the log.
        offset: Option<u64>,
        /// Why it was read.
        purpose: ValuePurpose,
    },
    /// The answer to [`Request::FindInValues`].
    Found {
        /// The namespace.
        ns: NsName,
        /// What was looked for.
        needle: Vec<u8>,
        /// The window asked for.
        window: FindWindow,
        /// What was found.
        found: FoundWindow,
    },
    /// Staged changes were written and flushed.
    Applied(usize),
    /// A flush finished.
    Flushed(Duration),
    /// An export finished.
    Exported {
        /// The file.
        path: PathBuf,
        /// Its format's name.
        format: &'static str,
        /// Records written.
        written: usize,
        /// Keys gone since they were listed.
        skipped: usize,
    },
    /// A streamed export ([`Request::ExportRange`]) wrote this many records
    /// so far.
    Exporting {
        /// The file.
        path: PathBuf,
        /// Records written so far.
        written: usize,
    },
    /// A namespace was created (false: it existed already).
    NamespaceCreated(String, bool),
    /// A namespace was dropped (false: it did not exist).
    NamespaceDropped(String, bool),
    /// A compaction finished.
    Compacted {
        /// How long it took.
        took: Duration,
        /// Dead bytes before it started.
        reclaimed: u64,
    },
    /// Something failed.
    Failed {
        /// What was being done.
        job: Job,
        /// Why.
        error: JobError,
    },
    /// A [`Request::LoadChunk`] failed: the list releases that chunk
    /// (and does not ask again until it changes).
    ChunkFailed {
        /// The list's generation.
        generation: u64,
        /// The chunk's index.
        chunk: usize,
        /// Its first key as asked.
        lo: Option<Vec<u8>>,
        /// Why.
        error: JobError,
    },
}

/// The kinds of work a failure can come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// Starting the worker's own threads.
    StartThread,
    /// Opening the database (the UI cannot go on without it).
    Open,
    /// Sampling stats.
    Stats,
    /// Catching up with the writer.
    Refresh,
    /// Loading a namespace's keys.
    LoadKeys,
    /// Reading one chunk of a paged key list.
    LoadChunk,
    /// Reading a value.
    LoadValue(ValuePurpose),
    /// Looking for bytes in values.
    FindInValues,
    /// Writing staged changes.
    Apply,
    /// Flushing.
    Flush,
    /// Creating or dropping a namespace.
    Namespace,
    /// Exporting keys to a file.
    Export,
    /// Compacting.
    Compact,
}

impl Job {
    /// What was being done, for messages.
    pub fn what(self) -> &'static str {
        match self {
            Job::StartThread => "start a worker thread",
            Job::Open => "open the database",
            Job::Stats => "read stats",
            Job::Refresh => "refresh",
            Job::LoadKeys => "load keys",
            Job::LoadChunk => "read keys",
            Job::LoadValue(_) => "read value",
            Job::FindInValues => "find in values",
            Job::Apply => "write",
            Job::Flush => "flush",
            Job::Namespace => "change namespaces",
            Job::Export => "export",
            Job::Compact => "compact",
        }
    }
}

/// Why a job failed.
#[derive(Debug)]
pub enum JobError {
    /// The named namespace does not exist (any more): the writer dropped it.
    /// Reads never create namespaces.
    NamespaceGone(String),
    /// The database said no.
    Db(emdb_core::Error),
    /// The operating system said no (a thread could not start).
    Os(std::io::Error),
    /// A file or format step failed (as `emdb` reports it).
    Tool(emdb_tools::ToolError),
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::NamespaceGone(name) => write!(
                f,
                "namespace {} does not exist",
                crate::escape::escape_str(name)
            ),
            JobError::Db(e) => write!(f, "{e}"),
            JobError::Os(e) => write!(f, "{e}"),
            JobError::Tool(e) => write!(f, "{e}"),
        }
    }
}

impl JobError {
    /// The failure as the command line reports it (exit code, message,
    /// hint), for one that ends the UI.
    pub fn into_tool_error(self) -> emdb_tools::ToolError {
        match self {
            JobError::NamespaceGone(name) => emdb_tools::database::unknown_namespace(&name),
            JobError::Db(e) => e.into(),
            JobError::Os(e) => emdb_tools::ToolError::io("starting a thread", None, e),
            JobError::Tool(e) => e,
        }
    }

    /// True when the failure means the namespace is gone.
    pub fn namespace_gone(&self) -> bool {
        matches!(
            self,
            JobError::NamespaceGone(_) | JobError::Db(emdb_core::Error::NamespaceDropped)
        )
    }
}

impl From<emdb_core::Error> for JobError {
    fn from(e: emdb_core::Error) -> JobError {
        JobError::Db(e)
    }
}

/// A value as read: bytes, expiry (ms since the epoch), record offset.
type ValueRead = (Option<Vec<u8>>, Option<u64>, Option<u64>);

/// The space to write `ns` into (a named one is created if needed).
fn space_for_write(db: &Emdb, ns: &NsName) -> emdb_core::Result<Space> {
    Space::open(db, ns.as_deref())
}

/// The space to read `ns` from: never creates it (a read-only handle
/// could not, and a namespace the writer dropped must stay dropped).
fn space_for_read(db: &Emdb, ns: &NsName) -> Result<Space, JobError> {
    Space::existing(db, ns.as_deref())?
        .ok_or_else(|| JobError::NamespaceGone(ns.clone().unwrap_or_default()))
}

/// Size and expiry (ms since the epoch, 0 for none) of `key`.
fn len_and_expiry(space: &Space, key: &[u8]) -> emdb_core::Result<Option<(u64, u64)>> {
    let Some(value) = space.get(key)? else {
        return Ok(None);
    };
    Ok(Some((
        value.len() as u64,
        space.expires_at_ms(key)?.unwrap_or(0),
    )))
}

/// Value, expiry (ms since the epoch) and record offset of `key`.
fn read_value(space: &Space, key: &[u8]) -> emdb_core::Result<ValueRead> {
    Ok((
        space.get_owned(key)?,
        space.expires_at_ms(key)?,
        space.record_offset(key)?,
    ))
}

/// Milliseconds since the Unix epoch.
pub use emdb_tools::space::unix_ms;

/// How often the threaded worker counts unexpired keys: a namespace holding
/// keys with a time to live is counted by reading every key's expiry.
pub const LIVE_COUNT_EVERY: Duration = Duration::from_secs(2);

/// When unexpired keys were last counted.
struct LiveCounts {
    min_every: Duration,
    every: Duration,
    last: Option<Instant>,
}

/// A count takes at most this share of the worker's time: the next one
/// waits this many times as long as the last one took.
const LIVE_COUNT_SPACING: u32 = 100;

impl LiveCounts {
    fn due(&self) -> bool {
        self.last.is_none_or(|t| t.elapsed() >= self.every)
    }

    /// Count now: the next count waits [`LIVE_COUNT_EVERY`], or longer when
    /// counting is slow (a million keys with expiries to read).
    fn count(&mut self, db: &Emdb, stats: &Stats) -> Option<Vec<(String, u64)>> {
        let start = Instant::now();
        let counts = count_live(db, stats).ok();
        // (The inline worker of tests counts every time: min_every zero.)
        if !self.min_every.is_zero() {
            self.every = (start.elapsed() * LIVE_COUNT_SPACING).max(self.min_every);
        }
        self.last = Some(Instant::now());
        counts
    }
}

/// Unexpired keys of every namespace.
fn count_live(db: &Emdb, stats: &Stats) -> emdb_core::Result<Vec<(String, u64)>> {
    let mut out = Vec::with_capacity(stats.namespaces.len());
    for (name, _) in &stats.namespaces {
        let n = if name.is_empty() {
            db.len()?
        } else {
            match db.namespace_if_exists(name)? {
                Some(ns) => ns.len()?,
                None => continue,
            }
        };
        out.push((name.clone(), n as u64));
    }
    Ok(out)
}

/// The id of each named namespace of `stats` that still exists.
fn namespace_ids(db: &Emdb, stats: &Stats) -> Vec<(String, u32)> {
    stats
        .namespaces
        .iter()
        .filter(|(name, _)| !name.is_empty())
        .filter_map(|(name, _)| {
            let id = db.namespace_id(name).ok().flatten()?;
            Some((name.clone(), id))
        })
        .collect()
}

/// Send progress every this many keys.
const PROGRESS_EVERY: usize = 100_000;

/// The list filter as a scan applies it (`None`: every key).
fn parse_filter(filter: &str) -> Option<Pattern> {
    (!filter.is_empty() && filter != "^").then(|| Pattern::parse(filter))
}

/// Walk `range` on the worker: every key `pattern` matches goes to `each`
/// as (key, value size, expiry ms), with `out` for responses of its own;
/// [`Response::KeysProgress`] goes out every [`PROGRESS_EVERY`] keys read.
/// `Ok(false)` when `cancel` was set.
fn scan_matching(
    mut range: emdb_core::RangeIter,
    pattern: Option<&Pattern>,
    generation: u64,
    cancel: &AtomicBool,
    out: &mut dyn FnMut(Response),
    mut each: impl FnMut(Vec<u8>, u64, u64, &mut dyn FnMut(Response)) -> Result<(), JobError>,
) -> Result<bool, JobError> {
    let mut scanned = 0usize;
    while let Some(item) = range.next_key_info() {
        let (key, size, expires_ms) = item?;
        scanned += 1;
        if scanned.is_multiple_of(4096) && cancel.load(Ordering::Relaxed) {
            return Ok(false);
        }
        if scanned.is_multiple_of(PROGRESS_EVERY) {
            out(Response::KeysProgress {
                generation,
                loaded: scanned,
            });
        }
        if pattern.is_some_and(|p| !p.matches(&key)) {
            continue;
        }
        each(key, size as u64, expires_ms, out)?;
    }
    Ok(true)
}

/// What a key scan found: every match, or the first chunk and the index
/// of a paged list.
struct Scanned {
    set: KeySet,
    pages: Option<Pages>,
}

/// Read the keys of `ns` matching `filter` with their value sizes and
/// expiries, in key order from the engine's sorted order (one record read
/// per key, no sort of our own), holding at most `paging.whole_limit` of
/// them: past that only the first chunk is kept, and every chunk's first
/// key, count and bytes. Sends the first chunk as soon as it is read.
/// Returns `None` when cancelled.
fn load_keys(
    db: &Emdb,
    ns: &NsName,
    generation: u64,
    filter: &str,
    paging: Paging,
    cancel: &AtomicBool,
    out: &mut dyn FnMut(Response),
) -> Result<Option<Scanned>, JobError> {
    let space = space_for_read(db, ns)?;
    let pattern = parse_filter(filter);
    let mut set = KeySet::new();
    if pattern.as_ref().is_some_and(|p| p.error.is_some()) {
        return Ok(Some(Scanned { set, pages: None }));
    }
    let (lo, hi) = scan_bounds(pattern.as_ref(), None, None);
    let range = space.range(lo, hi)?;
    let chunk = paging.chunk.max(1);
    let mut index: Vec<(Option<Vec<u8>>, usize, u64)> = vec![(None, 0, 0)];
    let mut n = 0usize;
    let mut paged = false;
    let done = scan_matching(
        range,
        pattern.as_ref(),
        generation,
        cancel,
        out,
        |key, size, expires_ms, out| {
            if n > 0 && n.is_multiple_of(chunk) {
                index.push((Some(key.clone()), 0, 0));
            }
            if let Some(last) = index.last_mut() {
                last.1 += 1;
                last.2 += size;
            }
            n += 1;
            if !paged {
                set.push(&key, size, expires_ms);
                if n == chunk {
                    out(Response::KeysFirst {
                        generation,
                        ns: ns.clone(),
                        filter: filter.to_string(),
                        set: set.clone(),
                    });
                }
                if n > paging.whole_limit {
                    paged = true;
                    set.truncate(chunk);
                    out(Response::KeysPaged {
                        generation,
                        ns: ns.clone(),
                        filter: filter.to_string(),
                    });
                }
            }
            Ok(())
        },
    )?;
    if !done {
        return Ok(None);
    }
    // Already in key order: this only checks it (and keeps KeySet's rule
    // that a loaded set is sorted whatever the source).
    set.sort();
    if paged {
        let pages = Pages::new(index, set, chunk);
        return Ok(Some(Scanned {
            set: KeySet::new(),
            pages: Some(pages),
        }));
    }
    Ok(Some(Scanned { set, pages: None }))
}

/// Which keys a top scan keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopBy {
    /// The biggest values (ties by key).
    Size,
    /// The soonest expiries, keys without one after every key with one
    /// (ties by key).
    Expiry,
}

impl TopBy {
    /// The ranking a view and an order ask for: `None` for the order by key.
    pub fn of(view: ListView, sort: SortBy) -> Option<TopBy> {
        match (view, sort) {
            (ListView::Expiring, _) | (_, SortBy::Ttl) => Some(TopBy::Expiry),
            (_, SortBy::Size) => Some(TopBy::Size),
            (_, SortBy::Key) => None,
        }
    }

    /// Rank of a key (lower first).
    fn rank(self, size: u64, expires_ms: u64) -> u64 {
        match self {
            TopBy::Size => u64::MAX - size,
            TopBy::Expiry if expires_ms == 0 => u64::MAX,
            TopBy::Expiry => expires_ms,
        }
    }
}

/// The first `limit` keys of `ns` matching `filter` as `by` ranks them,
/// and how many matched: a bounded heap, so at most `limit` keys are held
/// however many there are. Returns `None` when cancelled.
#[allow(clippy::too_many_arguments)]
fn top_keys(
    db: &Emdb,
    ns: &NsName,
    generation: u64,
    filter: &str,
    by: TopBy,
    limit: usize,
    cancel: &AtomicBool,
    out: &mut dyn FnMut(Response),
) -> Result<Option<(KeySet, usize)>, JobError> {
    use std::collections::BinaryHeap;
    let space = space_for_read(db, ns)?;
    let pattern = parse_filter(filter);
    if pattern.as_ref().is_some_and(|p| p.error.is_some()) {
        return Ok(Some((KeySet::new(), 0)));
    }
    let (lo, hi) = scan_bounds(pattern.as_ref(), None, None);
    let range = space.range(lo, hi)?;
    // A max-heap of (rank, key): the top is the worst kept, replaced by
    // anything better once `limit` are kept.
    let mut heap: BinaryHeap<(u64, Vec<u8>, u64, u64)> = BinaryHeap::new();
    let mut matched = 0usize;
    let done = scan_matching(
        range,
        pattern.as_ref(),
        generation,
        cancel,
        out,
        |key, size, expires_ms, _| {
            matched += 1;
            if limit == 0 {
                return Ok(());
            }
            let rank = by.rank(size, expires_ms);
            if heap.len() == limit {
                let better = heap
                    .peek()
                    .is_some_and(|w| (rank, key.as_slice()) < (w.0, w.1.as_slice()));
                if !better {
                    return Ok(());
                }
                heap.pop();
            }
            heap.push((rank, key, size, expires_ms));
            Ok(())
        },
    )?;
    if !done {
        return Ok(None);
    }
    let mut set = KeySet::new();
    for (_, key, size, expires_ms) in heap.into_vec() {
        set.push(&key, size, expires_ms);
    }
    set.sort();
    Ok(Some((set, matched)))
}

/// One level of a tree read by a scan ([`Request::TreeLevel`]).
#[derive(Clone, Debug, Default)]
pub struct Level {
    /// The groups: full prefix (delimiter included), key count, bytes.
    pub groups: Vec<(Vec<u8>, usize, u64)>,
    /// The keys with no delimiter after the level's prefix (and groups of
    /// one key), sorted.
    pub keys: KeySet,
    /// Keys under the prefix matching the filter, in groups or not.
    pub matched: usize,
    /// Bytes of their values.
    pub bytes: u64,
    /// More groups and keys than the limit: the rest are not listed
    /// (`matched` and `bytes` still count them).
    pub truncated: bool,
}

/// A group being counted: prefix, count, bytes, and its first key (key,
/// size, expiry) for a group of one.
type OpenGroup = (Vec<u8>, usize, u64, (Vec<u8>, u64, u64));

/// The groups and keys of one tree level (see [`Request::TreeLevel`]).
#[allow(clippy::too_many_arguments)]
fn tree_level(
    db: &Emdb,
    ns: &NsName,
    generation: u64,
    filter: &str,
    prefix: &[u8],
    delimiter: u8,
    limit: usize,
    partial_every: usize,
    cancel: &AtomicBool,
    out: &mut dyn FnMut(Response),
) -> Result<Option<Level>, JobError> {
    let space = space_for_read(db, ns)?;
    let pattern = parse_filter(filter);
    let mut level = Level::default();
    if pattern.as_ref().is_some_and(|p| p.error.is_some()) {
        return Ok(Some(level));
    }
    let (lo, hi) = if prefix.is_empty() {
        scan_bounds(pattern.as_ref(), None, None)
    } else {
        (
            std::ops::Bound::Included(prefix.to_vec()),
            emdb_core::prefix_end(prefix),
        )
    };
    let range = space.range(lo, hi)?;
    // The group being counted: prefix, count, bytes, its first key.
    let mut open: Option<OpenGroup> = None;
    let mut items = 0usize;
    // Close the open group: a group of one is listed as its key.
    let close = |level: &mut Level, g: OpenGroup| {
        let (p, count, bytes, (key, size, exp)) = g;
        if count == 1 {
            level.keys.push(&key, size, exp);
        } else {
            level.groups.push((p, count, bytes));
        }
    };
    let done = scan_matching(
        range,
        pattern.as_ref(),
        generation,
        cancel,
        out,
        |key, size, expires_ms, out| {
            if !key.starts_with(prefix) {
                return Ok(());
            }
            if partial_every > 0 && level.matched > 0 && level.matched % partial_every == 0 {
                let mut so_far = level.clone();
                if let Some(g) = &open {
                    close(&mut so_far, g.clone());
                }
                so_far.keys.sort();
                out(Response::LevelSoFar {
                    generation,
                    ns: ns.clone(),
                    filter: filter.to_string(),
                    prefix: prefix.to_vec(),
                    level: so_far,
                });
            }
            level.matched += 1;
            level.bytes += size;
            let group = key[prefix.len()..]
                .iter()
                .position(|&b| b == delimiter)
                .map(|p| key[..prefix.len() + p + 1].to_vec());
            if let (Some(g), Some(o)) = (&group, &mut open) {
                if *g == o.0 {
                    o.1 += 1;
                    o.2 += size;
                    return Ok(());
                }
            }
            if let Some(g) = open.take() {
                close(&mut level, g);
            }
            if items == limit {
                level.truncated = true;
                return Ok(());
            }
            items += 1;
            match group {
                Some(g) => open = Some((g, 1, size, (key, size, expires_ms))),
                None => level.keys.push(&key, size, expires_ms),
            }
            Ok(())
        },
    )?;
    if !done {
        return Ok(None);
    }
    if let Some(g) = open.take() {
        close(&mut level, g);
    }
    level.keys.sort();
    Ok(Some(level))
}

/// The keys matching `filter` in `[lo, hi)` (a chunk of a paged list),
/// with their count and bytes; only counted when `count_only`.
fn load_chunk(
    db: &Emdb,
    ns: &NsName,
    lo: Option<&[u8]>,
    hi: Option<&[u8]>,
    filter: &str,
    count_only: bool,
) -> Result<(usize, u64, Option<KeySet>), JobError> {
    let space = space_for_read(db, ns)?;
    let pattern = parse_filter(filter);
    let (lo, hi) = scan_bounds(pattern.as_ref(), lo, hi);
    let mut range = space.range(lo, hi)?;
    let mut set = KeySet::new();
    let (mut count, mut bytes) = (0usize, 0u64);
    while let Some(item) = range.next_key_info() {
        let (key, size, expires_ms) = item?;
        if pattern.as_ref().is_some_and(|p| !p.matches(&key)) {
            continue;
        }
        count += 1;
        bytes += size as u64;
        if !count_only {
            set.push(&key, size as u64, expires_ms);
        }
    }
    set.sort();
    Ok((count, bytes, (!count_only).then_some(set)))
}

/// The keys of `ns` touched since `since`, each with its state now.
fn follow_keys(
    db: &Emdb,
    ns: &NsName,
    since: u64,
) -> Result<(Option<Vec<KeyChange>>, u64), JobError> {
    let space = space_for_read(db, ns)?;
    let Some((mut keys, end)) = db.keys_touched_since(ns.as_deref(), since)? else {
        return Ok((None, since));
    };
    keys.sort_unstable();
    keys.dedup();
    let mut changes = Vec::with_capacity(keys.len());
    for key in keys {
        changes.push(match len_and_expiry(&space, &key)? {
            Some((size, expires_ms)) => KeyChange::Upsert {
                key,
                size,
                expires_ms,
            },
            None => KeyChange::Remove(key),
        });
    }
    Ok((Some(changes), end))
}

/// Write `keys` of `ns` to `path` (created new, mode 0600, as `emdb
/// export` creates its files) in the format its extension names: `.csv`,
/// `.resp`, else JSON Lines, with the formats of `emdb export`.
fn export(
    db: &Emdb,
    ns: &NsName,
    keys: &[Vec<u8>],
    path: &std::path::Path,
    exports: &Exports,
) -> Result<(&'static str, usize, usize), JobError> {
    let space = space_for_read(db, ns)?;
    export_with(db, ns, path, exports, |record| {
        let mut skipped = 0;
        for key in keys {
            let Some(value) = space.get(key)? else {
                skipped += 1;
                continue;
            };
            let expires = space.expires_at_ms(key)?;
            record(key, &value, expires)?;
        }
        Ok(skipped)
    })
}

/// Records a streamed export reports progress after, each time.
const EXPORT_PROGRESS_EVERY: usize = 100_000;

/// Write every key of `ns` matching `filter` to `path` as [`export`] does,
/// reading key, value and expiry from one range read in key order (a
/// `^prefix` filter reads only its range): nothing but the record being
/// written is held. Sends [`Response::Exporting`] as it goes.
fn export_range(
    db: &Emdb,
    ns: &NsName,
    filter: &str,
    path: &std::path::Path,
    exports: &Exports,
    out: &mut dyn FnMut(Response),
) -> Result<(&'static str, usize, usize), JobError> {
    let space = space_for_read(db, ns)?;
    let pattern = parse_filter(filter);
    if let Some(e) = pattern.as_ref().and_then(|p| p.error.clone()) {
        return Err(JobError::Tool(emdb_tools::ToolError::usage(format!(
            "the filter does not parse: {e}"
        ))));
    }
    let (lo, hi) = scan_bounds(pattern.as_ref(), None, None);
    let mut range = space.range(lo, hi)?;
    export_with(db, ns, path, exports, |record| {
        let mut written = 0usize;
        while let Some(item) = range.next_with_expiry() {
            let (key, value, expires) = item?;
            if pattern.as_ref().is_some_and(|p| !p.matches(&key)) {
                continue;
            }
            let expires = expires.map(|t| {
                t.duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            });
            record(&key, &value, expires)?;
            written += 1;
            if written.is_multiple_of(EXPORT_PROGRESS_EVERY) {
                out(Response::Exporting {
                    path: path.to_path_buf(),
                    written,
                });
            }
        }
        Ok(0)
    })
}

/// A record sink: key, value, expiry (ms since the epoch).
type RecordFn<'a> = dyn FnMut(&[u8], &[u8], Option<u64>) -> Result<(), JobError> + 'a;

/// The temporary files of the exports under way: an export writes beside
/// its target and renames the file into place only once it is complete,
/// so the UI ending in the middle of one (a signal, Ctrl-C twice) removes
/// its file ([`Exports::abandon`], when the worker is dropped) and leaves
/// nothing under the name asked for.
#[derive(Debug, Default)]
pub struct Exports {
    /// Set once the UI is gone: exports stop, and none starts.
    abandoned: AtomicBool,
    /// The temporary files being written.
    files: std::sync::Mutex<Vec<PathBuf>>,
}

/// Records an export writes between two looks at [`Exports::abandoned`].
const EXPORT_CANCEL_EVERY: usize = 4096;

/// Tells apart the temporary files of two exports of this process to one
/// target.
static EXPORT_SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Exports {
    fn files(&self) -> std::sync::MutexGuard<'_, Vec<PathBuf>> {
        self.files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Stop every export under way and remove its temporary file; exports
    /// asked for later do not start.
    pub fn abandon(&self) {
        self.abandoned.store(true, Ordering::SeqCst);
        for tmp in self.files().drain(..) {
            let _ = std::fs::remove_file(tmp);
        }
    }

    fn is_abandoned(&self) -> bool {
        self.abandoned.load(Ordering::SeqCst)
    }

    /// Create `tmp` (new, mode 0600) and note it, unless the exports were
    /// abandoned (under the lock [`Exports::abandon`] takes, so it is
    /// either removed there or never made).
    fn create(&self, tmp: &std::path::Path) -> Result<std::fs::File, JobError> {
        use std::os::unix::fs::OpenOptionsExt;
        let mut files = self.files();
        if self.is_abandoned() {
            return Err(abandoned());
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(tmp)
            .map_err(|e| JobError::Tool(emdb_tools::ToolError::io("creating", Some(tmp), e)))?;
        files.push(tmp.to_path_buf());
        Ok(file)
    }

    /// Rename the complete `tmp` to `path` (never over a file there), and
    /// forget it; unless the exports were abandoned meanwhile.
    fn place(&self, tmp: &std::path::Path, path: &std::path::Path) -> Result<(), JobError> {
        let mut files = self.files();
        if self.is_abandoned() {
            return Err(abandoned());
        }
        emdb_core::rename_noreplace(tmp, path).map_err(|e| exists_or(path, "renaming to", e))?;
        files.retain(|f| f != tmp);
        Ok(())
    }

    /// Remove `tmp`, an export's file that will not be placed.
    fn discard(&self, tmp: &std::path::Path) {
        let mut files = self.files();
        let _ = std::fs::remove_file(tmp);
        files.retain(|f| f != tmp);
    }
}

/// The error of an export the UI abandoned (nobody sees it).
fn abandoned() -> JobError {
    JobError::Tool(emdb_tools::ToolError::usage(
        "the export was abandoned: the UI ended",
    ))
}

/// The error of `what` on `path`, said as "it exists already" when it
/// does.
fn exists_or(path: &std::path::Path, what: &str, e: std::io::Error) -> JobError {
    let what = if e.kind() == std::io::ErrorKind::AlreadyExists {
        "creating (it exists already; pick another name)"
    } else {
        what
    };
    JobError::Tool(emdb_tools::ToolError::io(what, Some(path), e))
}

/// Write the records `feed` passes to its sink to `path`, a new file
/// (mode 0600, as `emdb export` creates its files), in the format the
/// extension names; `feed` returns how many keys it skipped. The records
/// go to a temporary file beside `path`, renamed to it once complete (as
/// `emdb export` does): a failed or abandoned export leaves nothing under
/// the name. Returns the format's name, records written, skipped.
fn export_with(
    db: &Emdb,
    ns: &NsName,
    path: &std::path::Path,
    exports: &Exports,
    feed: impl FnOnce(&mut RecordFn<'_>) -> Result<usize, JobError>,
) -> Result<(&'static str, usize, usize), JobError> {
    use emdb_tools::transfer;
    let format = transfer::resolve_format(None, Some(path));
    let tool = |e: emdb_tools::ToolError| JobError::Tool(e);
    // Never the database or a file beside it (`<db>.encbak`,
    // `<db>.compact.tmp`, ...), which the engine would delete or trip on:
    // refused as `emdb export` refuses them.
    if let Some(db_path) = db.path() {
        emdb_tools::database::refuse_database_files(&db_path, path, "export").map_err(tool)?;
    }
    // Said now rather than after writing every record (the rename checks
    // again: a file put there meanwhile is not replaced either).
    if std::fs::symlink_metadata(path).is_ok() {
        let e = std::io::Error::from(std::io::ErrorKind::AlreadyExists);
        return Err(exists_or(path, "creating", e));
    }
    let mut tmp = emdb_core::process_temp_base(path, "export").into_os_string();
    tmp.push(format!(
        ".{}.tmp",
        EXPORT_SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp = PathBuf::from(tmp);
    // What exports of this machine's processes killed outright left.
    emdb_core::remove_dead_process_temps(path, "export");
    let file = exports.create(&tmp)?;
    let written = write_export(db, ns, &tmp, file, format, exports, feed)
        .and_then(|done| exports.place(&tmp, path).map(|()| done));
    match written {
        Ok((written, skipped)) => Ok((transfer::format_name(format), written, skipped)),
        Err(e) => {
            exports.discard(&tmp);
            Err(e)
        }
    }
}

/// Write the records of [`export_with`] to `file` (at `tmp`) and sync it:
/// records written and skipped.
fn write_export(
    db: &Emdb,
    ns: &NsName,
    tmp: &std::path::Path,
    file: std::fs::File,
    format: emdb_tools::transfer::TransferFormat,
    exports: &Exports,
    feed: impl FnOnce(&mut RecordFn<'_>) -> Result<usize, JobError>,
) -> Result<(usize, usize), JobError> {
    use emdb_tools::transfer::{self, Plan};
    let tool = |e: emdb_tools::ToolError| JobError::Tool(e);
    let io = |what: &str, e: std::io::Error| tool(emdb_tools::ToolError::io(what, Some(tmp), e));
    let mut out = std::io::BufWriter::new(file);
    let plan = Plan {
        namespaces: vec![ns.clone().unwrap_or_default()],
        encrypted: db.stats()?.encrypted,
        any_expiry: true,
    };
    let name = ns.as_deref().unwrap_or("");
    let mut written = 0;
    let skipped;
    {
        let mut w = transfer::writer(format, &mut out, emdb_tools::Codec::default(), &plan)
            .map_err(tool)?;
        skipped = feed(&mut |key: &[u8], value: &[u8], expires: Option<u64>| {
            if written % EXPORT_CANCEL_EVERY == 0 && exports.is_abandoned() {
                return Err(abandoned());
            }
            w.record(name, key, value, expires).map_err(tool)?;
            written += 1;
            Ok(())
        })?;
        w.finish().map_err(tool)?;
    }
    let file = out
        .into_inner()
        .map_err(|e| io("writing", e.into_error()))?;
    file.sync_all().map_err(|e| io("syncing", e))?;
    Ok((written, skipped))
}

/// Which matches of a search in values are listed, in key order: at most
/// [`Paging::whole_limit`] at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FindWindow {
    /// The first ones after this key (`None`: from the first key on).
    After(Option<Vec<u8>>),
    /// The last ones before this key (`None`: up to the last key).
    Before(Option<Vec<u8>>),
}

impl Default for FindWindow {
    /// From the first key on.
    fn default() -> FindWindow {
        FindWindow::After(None)
    }
}

impl FindWindow {
    /// True when `key` is on the window's side of its bound.
    fn admits(&self, key: &[u8]) -> bool {
        match self {
            FindWindow::After(None) | FindWindow::Before(None) => true,
            FindWindow::After(Some(k)) => key > k.as_slice(),
            FindWindow::Before(Some(k)) => key < k.as_slice(),
        }
    }

    /// Sort `keys` and keep the `cap` of them nearest the bound.
    fn keep(&self, keys: &mut Vec<Vec<u8>>, cap: usize) {
        keys.sort_unstable();
        if keys.len() > cap {
            match self {
                FindWindow::After(_) => keys.truncate(cap),
                FindWindow::Before(_) => {
                    keys.drain(..keys.len() - cap);
                }
            }
        }
    }
}

/// One window of the keys whose value holds what was looked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FoundWindow {
    /// The keys of the window, sorted.
    pub keys: Vec<Vec<u8>>,
    /// Values read (every value of the namespace).
    pub scanned: usize,
    /// Values that hold it, in the whole namespace.
    pub matched: usize,
    /// Matches before `keys` in key order (not listed).
    pub skipped: usize,
}

/// Keys of `ns` whose value contains `needle`, the `cap` of `window`, in
/// key order: every value is read (from the mapped log, not copied) and
/// every match counted.
fn find_in_values(
    db: &Emdb,
    ns: &NsName,
    needle: &[u8],
    ignore_case: bool,
    window: &FindWindow,
    cap: usize,
) -> Result<FoundWindow, JobError> {
    let cap = cap.max(1);
    let space = space_for_read(db, ns)?;
    let mut found = FoundWindow::default();
    // Matches on the window's side of its bound (the keys walk in no
    // order, so the nearest `cap` are kept as they come).
    let mut inside = 0;
    for key in space.keys()? {
        let key = key?;
        // A key deleted since the walk saw it is simply left out.
        let Some(value) = space.get(&key)? else {
            continue;
        };
        found.scanned += 1;
        if !crate::keylist::contains(&value, needle, ignore_case) {
            continue;
        }
        found.matched += 1;
        if window.admits(&key) {
            inside += 1;
            found.keys.push(key.to_vec());
            if found.keys.len() >= 2 * cap {
                window.keep(&mut found.keys, cap);
            }
        }
    }
    window.keep(&mut found.keys, cap);
    found.skipped = match window {
        FindWindow::After(_) => found.matched - inside,
        FindWindow::Before(_) => inside - found.keys.len(),
    };
    Ok(found)
}

fn apply(db: &Emdb, changes: &[Change]) -> emdb_core::Result<usize> {
    let mut spaces: Vec<(NsName, Space)> = Vec::new();
    for c in changes {
        if !spaces.iter().any(|(n, _)| *n == c.ns) {
            spaces.push((c.ns.clone(), space_for_write(db, &c.ns)?));
        }
    }
    let space_of = |ns: &NsName| spaces.iter().find(|(n, _)| n == ns).map(|(_, s)| s);
    // Each put's lifetime, decided before the transaction so the values
    // and their expiries commit together.
    let mut ttls = Vec::with_capacity(changes.len());
    for c in changes {
        ttls.push(match c.ttl {
            NewTtl::Keep => match space_of(&c.ns).map(|s| s.ttl(&c.key)).transpose()? {
                Some(Some(left)) => Ttl::After(left.max(Duration::from_millis(1))),
                _ => Ttl::Never,
            },
            NewTtl::Never => Ttl::Never,
            NewTtl::After(d) => Ttl::After(d),
        });
    }
    db.transaction(|tx| {
        for (c, ttl) in changes.iter().zip(&ttls) {
            let Some(space) = space_of(&c.ns) else {
                continue;
            };
            match &c.value {
                Some(v) => space.tx_insert(tx, &c.key, v, *ttl)?,
                None => {
                    space.tx_remove(tx, &c.key)?;
                }
            }
        }
        Ok(())
    })?;
    db.flush()?;
    Ok(changes.len())
}

/// Serve one request that is not a key load or a compaction.
fn serve(
    db: &Emdb,
    req: Request,
    compacting: bool,
    paging: Paging,
    live: &mut LiveCounts,
    exports: &Exports,
    out: &mut dyn FnMut(Response),
) {
    let fail = |job: Job, e: JobError| Response::Failed { job, error: e };
    match req {
        Request::Stats => match db.stats() {
            Ok(stats) => out(Response::Stats {
                // Read before the refresh below, as `stats` was.
                namespace_ids: namespace_ids(db, &stats),
                // A read-only handle catches up by itself too, but only
                // a refresh says why it cannot (a no-op on a writable one).
                follow_failed: db.refresh().err().map(JobError::from),
                // A failed count leaves the previous one standing.
                live_counts: if live.due() {
                    live.count(db, &stats)
                } else {
                    None
                },
                writer_alive: stats.writer_pid.map(|pid| match db.path() {
                    Some(p) => emdb_tools::database::writer_running(&p, pid),
                    None => emdb_core::pid_alive(pid, None),
                }),
                stats: Box::new(stats),
                compact_written: if compacting {
                    compaction_tmp_len(db)
                } else {
                    None
                },
            }),
            Err(e) => out(fail(Job::Stats, e.into())),
        },
        Request::Refresh => match db.refresh() {
            Ok(n) => out(Response::Refreshed(n)),
            Err(e) => out(fail(Job::Refresh, e.into())),
        },
        Request::FollowKeys {
            ns,
            generation,
            since,
        } => match follow_keys(db, &ns, since) {
            Ok((changes, log_end)) => out(Response::KeysTouched {
                generation,
                ns,
                changes,
                log_end,
            }),
            Err(e) => out(fail(Job::LoadKeys, e)),
        },
        Request::LoadValue { ns, key, purpose } => {
            let read = space_for_read(db, &ns).and_then(|s| Ok(read_value(&s, &key)?));
            match read {
                Ok((value, expires_ms, offset)) => out(Response::Value {
                    ns,
                    key,
                    value,
                    expires_ms,
                    offset,
                    purpose,
                }),
                Err(e) => out(fail(Job::LoadValue(purpose), e)),
            }
        }
        Request::FindInValues {
            ns,
            needle,
            ignore_case,
            window,
        } => match find_in_values(db, &ns, &needle, ignore_case, &window, paging.whole_limit) {
            Ok(found) => out(Response::Found {
                ns,
                needle,
                window,
                found,
            }),
            Err(e) => out(fail(Job::FindInValues, e)),
        },
        Request::Apply(changes) => match apply(db, &changes) {
            Ok(n) => out(Response::Applied(n)),
            Err(e) => out(fail(Job::Apply, e.into())),
        },
        Request::Flush => {
            let start = Instant::now();
            match db.flush() {
                Ok(()) => out(Response::Flushed(start.elapsed())),
                Err(e) => out(fail(Job::Flush, e.into())),
            }
        }
        Request::Export { ns, keys, path } => match export(db, &ns, &keys, &path, exports) {
            Ok((format, written, skipped)) => out(Response::Exported {
                path,
                format,
                written,
                skipped,
            }),
            Err(e) => out(fail(Job::Export, e)),
        },
        Request::ExportRange { ns, filter, path } => {
            match export_range(db, &ns, &filter, &path, exports, out) {
                Ok((format, written, skipped)) => out(Response::Exported {
                    path,
                    format,
                    written,
                    skipped,
                }),
                Err(e) => out(fail(Job::Export, e)),
            }
        }
        Request::CreateNamespace(name) => {
            let created = db
                .list_namespaces()
                .map(|names| !names.contains(&name))
                .and_then(|new| {
                    db.namespace(&name)?;
                    db.flush()?;
                    Ok(new)
                });
            match created {
                Ok(new) => out(Response::NamespaceCreated(name, new)),
                Err(e) => out(fail(Job::Namespace, e.into())),
            }
        }
        Request::DropNamespace(name) => match db.drop_namespace(&name).and_then(|dropped| {
            db.flush()?;
            Ok(dropped)
        }) {
            Ok(dropped) => out(Response::NamespaceDropped(name, dropped)),
            Err(e) => out(fail(Job::Namespace, e.into())),
        },
        Request::Compact => compact(db, out),
        Request::LoadKeys {
            ns,
            generation,
            filter,
        } => {
            let cancel = AtomicBool::new(false);
            keys_response(db, ns, generation, filter, paging, &cancel, out);
        }
        Request::TopKeys {
            ns,
            generation,
            filter,
            view,
            sort,
            limit,
        } => {
            let cancel = AtomicBool::new(false);
            top_response(db, ns, generation, filter, view, sort, limit, &cancel, out);
        }
        req @ Request::TreeLevel { .. } => {
            let cancel = AtomicBool::new(false);
            level_response(db, req, &cancel, out);
        }
        Request::LoadChunk {
            ns,
            generation,
            chunk,
            lo,
            hi,
            filter,
            count_only,
        } => match load_chunk(db, &ns, lo.as_deref(), hi.as_deref(), &filter, count_only) {
            Ok((count, bytes, keys)) => out(Response::Chunk {
                generation,
                chunk,
                lo,
                count,
                bytes,
                keys,
            }),
            Err(error) => out(Response::ChunkFailed {
                generation,
                chunk,
                lo,
                error,
            }),
        },
    }
}

fn keys_response(
    db: &Emdb,
    ns: NsName,
    generation: u64,
    filter: String,
    paging: Paging,
    cancel: &AtomicBool,
    out: &mut dyn FnMut(Response),
) {
    let start = Instant::now();
    let log_end = db.stats().map_or(0, |s| s.log_logical_bytes);
    match load_keys(db, &ns, generation, &filter, paging, cancel, out) {
        Ok(Some(Scanned { set, pages })) => out(Response::Keys {
            generation,
            ns,
            filter,
            set,
            pages,
            log_end,
            took: start.elapsed(),
        }),
        Ok(None) => {}
        Err(e) => out(Response::Failed {
            job: Job::LoadKeys,
            error: e,
        }),
    }
}

#[allow(clippy::too_many_arguments)]
fn top_response(
    db: &Emdb,
    ns: NsName,
    generation: u64,
    filter: String,
    view: ListView,
    sort: SortBy,
    limit: usize,
    cancel: &AtomicBool,
    out: &mut dyn FnMut(Response),
) {
    let start = Instant::now();
    let log_end = db.stats().map_or(0, |s| s.log_logical_bytes);
    let by = TopBy::of(view, sort).unwrap_or(TopBy::Size);
    match top_keys(db, &ns, generation, &filter, by, limit, cancel, out) {
        Ok(Some((set, matched))) => out(Response::Top {
            generation,
            ns,
            filter,
            view,
            sort,
            set,
            matched,
            log_end,
            took: start.elapsed(),
        }),
        Ok(None) => {}
        Err(e) => out(Response::Failed {
            job: Job::LoadKeys,
            error: e,
        }),
    }
}

fn level_response(db: &Emdb, req: Request, cancel: &AtomicBool, out: &mut dyn FnMut(Response)) {
    let Request::TreeLevel {
        ns,
        generation,
        filter,
        prefix,
        delimiter,
        limit,
        partial_every,
    } = req
    else {
        return;
    };
    let start = Instant::now();
    let log_end = db.stats().map_or(0, |s| s.log_logical_bytes);
    match tree_level(
        db,
        &ns,
        generation,
        &filter,
        &prefix,
        delimiter,
        limit,
        partial_every,
        cancel,
        out,
    ) {
        Ok(Some(level)) => out(Response::Level {
            generation,
            ns,
            filter,
            prefix,
            level,
            log_end,
            took: start.elapsed(),
        }),
        Ok(None) => {}
        Err(e) => out(Response::Failed {
            job: Job::LoadKeys,
            error: e,
        }),
    }
}

fn compact(db: &Emdb, out: &mut dyn FnMut(Response)) {
    let start = Instant::now();
    let dead = db.stats().map(|s| s.dead_bytes).unwrap_or(0);
    match db.compact() {
        Ok(()) => out(Response::Compacted {
            took: start.elapsed(),
            reclaimed: dead,
        }),
        Err(e) => out(Response::Failed {
            job: Job::Compact,
            error: e.into(),
        }),
    }
}

/// Size of the file a running compaction writes (`<db>.compact.tmp`, see
/// docs/FORMAT.md): the engine reports no progress, so the gauge estimates it
/// from this file against the live bytes.
fn compaction_tmp_len(db: &Emdb) -> Option<u64> {
    let path = db.path()?;
    let mut name = path.file_name()?.to_os_string();
    name.push(".compact.tmp");
    let tmp: PathBuf = path.with_file_name(name);
    std::fs::metadata(tmp).ok().map(|m| m.len())
}

/// The UI's handle on the worker.
pub struct Worker {
    inner: Inner,
    paging: Paging,
    exports: Arc<Exports>,
}

enum Inner {
    Threaded {
        requests: Option<Sender<Request>>,
        responses: Receiver<Response>,
        thread: Option<std::thread::JoinHandle<()>>,
    },
    Inline {
        db: Emdb,
        queue: VecDeque<Response>,
        live: LiveCounts,
        paging: Paging,
    },
}

impl Worker {
    /// A worker with its own threads.
    pub fn spawn(db: Emdb) -> Worker {
        Worker::spawn_with(db, Paging::default())
    }

    /// A worker with its own threads, paging key lists as `paging` says.
    pub fn spawn_with(db: Emdb, paging: Paging) -> Worker {
        Worker::spawn_opening(move || Ok(db), paging)
    }

    /// A worker whose thread opens the database with `open` first, so the
    /// UI can show a first page (read by a one-shot read) meanwhile.
    /// Requests sent before the open is done wait for it. If it fails, the
    /// only answer is a [`Response::Failed`] of [`Job::Open`], and every
    /// later request goes unanswered.
    pub fn spawn_opening<F>(open: F, paging: Paging) -> Worker
    where
        F: FnOnce() -> Result<Emdb, emdb_tools::ToolError> + Send + 'static,
    {
        let (req_tx, req_rx) = mpsc::channel();
        let (resp_tx, resp_rx) = mpsc::channel();
        let exports = Arc::new(Exports::default());
        let exports2 = Arc::clone(&exports);
        let spawned = std::thread::Builder::new()
            .name("emdb-tui-io".into())
            .spawn(move || match open() {
                Ok(db) => io_thread(db, paging, &exports2, req_rx, resp_tx),
                Err(e) => {
                    let _ = resp_tx.send(Response::Failed {
                        job: Job::Open,
                        error: JobError::Tool(e),
                    });
                }
            });
        match spawned {
            Ok(thread) => Worker {
                paging,
                exports,
                inner: Inner::Threaded {
                    requests: Some(req_tx),
                    responses: resp_rx,
                    thread: Some(thread),
                },
            },
            Err(e) => {
                // Without the thread every request goes unanswered; say why.
                let (tx, rx) = mpsc::channel();
                let _ = tx.send(Response::Failed {
                    job: Job::StartThread,
                    error: JobError::Os(e),
                });
                Worker {
                    paging,
                    exports,
                    inner: Inner::Threaded {
                        requests: None,
                        responses: rx,
                        thread: None,
                    },
                }
            }
        }
    }

    /// A worker that does each request at once on the calling thread
    /// (deterministic, for tests).
    pub fn inline(db: Emdb) -> Worker {
        Worker::inline_with(db, Paging::default())
    }

    /// An inline worker paging key lists as `paging` says (tests page
    /// small namespaces with it).
    pub fn inline_with(db: Emdb, paging: Paging) -> Worker {
        Worker {
            paging,
            exports: Arc::new(Exports::default()),
            inner: Inner::Inline {
                db,
                paging,
                queue: VecDeque::new(),
                live: LiveCounts {
                    min_every: Duration::ZERO,
                    every: Duration::ZERO,
                    last: None,
                },
            },
        }
    }

    /// How key lists are paged.
    pub fn paging(&self) -> Paging {
        self.paging
    }

    /// Queue a request.
    pub fn send(&mut self, req: Request) {
        match &mut self.inner {
            Inner::Threaded { requests, .. } => {
                if let Some(r) = requests {
                    let _ = r.send(req);
                }
            }
            Inner::Inline {
                db,
                queue,
                live,
                paging,
            } => serve(db, req, false, *paging, live, &self.exports, &mut |r| {
                queue.push_back(r)
            }),
        }
    }

    /// The next response, if one is ready.
    pub fn try_recv(&mut self) -> Option<Response> {
        match &mut self.inner {
            Inner::Threaded { responses, .. } => responses.try_recv().ok(),
            Inner::Inline { queue, .. } => queue.pop_front(),
        }
    }
}

impl Drop for Worker {
    /// Stop the I/O thread and wait for it (and its key loads). A running
    /// compaction is not waited for: the engine survives being stopped at
    /// any point. An export still running is abandoned: it stops, and its
    /// temporary file is removed (nothing is left under its name).
    fn drop(&mut self) {
        self.exports.abandon();
        if let Inner::Threaded {
            requests, thread, ..
        } = &mut self.inner
        {
            requests.take();
            if let Some(t) = thread.take() {
                let _ = t.join();
            }
        }
    }
}

fn io_thread(
    db: Emdb,
    paging: Paging,
    exports: &Arc<Exports>,
    requests: Receiver<Request>,
    out: Sender<Response>,
) {
    let mut load_cancel: Option<Arc<AtomicBool>> = None;
    let mut loaders: Vec<std::thread::JoinHandle<()>> = Vec::new();
    let compacting = Arc::new(AtomicBool::new(false));
    let mut live = LiveCounts {
        min_every: LIVE_COUNT_EVERY,
        every: LIVE_COUNT_EVERY,
        last: None,
    };
    while let Ok(first) = requests.recv() {
        // Take everything queued; only the newest stats and value requests
        // of a burst are worth serving.
        let mut batch = vec![first];
        batch.extend(requests.try_iter());
        let last_stats = batch.iter().rposition(|r| matches!(r, Request::Stats));
        let last_show = batch.iter().rposition(|r| {
            matches!(
                r,
                Request::LoadValue {
                    purpose: ValuePurpose::Show,
                    ..
                }
            )
        });
        for (i, req) in batch.into_iter().enumerate() {
            match req {
                Request::Stats if Some(i) != last_stats => {}
                Request::LoadValue {
                    purpose: ValuePurpose::Show,
                    ..
                } if Some(i) != last_show => {}
                req @ (Request::LoadKeys { .. }
                | Request::TopKeys { .. }
                | Request::TreeLevel { .. }) => {
                    if let Some(c) = load_cancel.take() {
                        c.store(true, Ordering::Relaxed);
                    }
                    let cancel = Arc::new(AtomicBool::new(false));
                    load_cancel = Some(Arc::clone(&cancel));
                    let (db2, out2) = (db.clone(), out.clone());
                    let spawned = std::thread::Builder::new()
                        .name("emdb-tui-keys".into())
                        .spawn(move || {
                            let mut send = |r| {
                                let _ = out2.send(r);
                            };
                            match req {
                                Request::TopKeys {
                                    ns,
                                    generation,
                                    filter,
                                    view,
                                    sort,
                                    limit,
                                } => top_response(
                                    &db2, ns, generation, filter, view, sort, limit, &cancel,
                                    &mut send,
                                ),
                                Request::LoadKeys {
                                    ns,
                                    generation,
                                    filter,
                                } => keys_response(
                                    &db2, ns, generation, filter, paging, &cancel, &mut send,
                                ),
                                req => level_response(&db2, req, &cancel, &mut send),
                            }
                        });
                    match spawned {
                        Ok(handle) => loaders.push(handle),
                        Err(e) => {
                            let _ = out.send(Response::Failed {
                                job: Job::LoadKeys,
                                error: JobError::Os(e),
                            });
                        }
                    }
                    loaders.retain(|h| !h.is_finished());
                }
                req @ Request::ExportRange { .. } => {
                    // A streamed export may take a while: its own thread,
                    // so stats and values keep coming.
                    let (db2, out2) = (db.clone(), out.clone());
                    let exports2 = Arc::clone(exports);
                    let spawned = std::thread::Builder::new()
                        .name("emdb-tui-export".into())
                        .spawn(move || {
                            let mut live = LiveCounts {
                                min_every: LIVE_COUNT_EVERY,
                                every: LIVE_COUNT_EVERY,
                                last: None,
                            };
                            serve(&db2, req, false, paging, &mut live, &exports2, &mut |r| {
                                let _ = out2.send(r);
                            })
                        });
                    if let Err(e) = spawned {
                        let _ = out.send(Response::Failed {
                            job: Job::Export,
                            error: JobError::Os(e),
                        });
                    }
                }
                Request::Compact => {
                    if compacting.swap(true, Ordering::AcqRel) {
                        continue;
                    }
                    let (db2, out2, flag) = (db.clone(), out.clone(), Arc::clone(&compacting));
                    let spawned = std::thread::Builder::new()
                        .name("emdb-tui-compact".into())
                        .spawn(move || {
                            compact(&db2, &mut |r| {
                                let _ = out2.send(r);
                            });
                            flag.store(false, Ordering::Release);
                        });
                    if let Err(e) = spawned {
                        compacting.store(false, Ordering::Release);
                        let _ = out.send(Response::Failed {
                            job: Job::Compact,
                            error: JobError::Os(e),
                        });
                    }
                }
                req => serve(
                    &db,
                    req,
                    compacting.load(Ordering::Acquire),
                    paging,
                    &mut live,
                    exports,
                    &mut |r| {
                        let _ = out.send(r);
                    },
                ),
            }
        }
    }
    // The UI is gone: stop loads and wait for them, so the database handle
    // is really closed when the worker is dropped.
    if let Some(c) = load_cancel {
        c.store(true, Ordering::Relaxed);
    }
    for h in loaders {
        let _ = h.join();
    }
}
