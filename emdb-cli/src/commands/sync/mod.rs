//! `emdb sync --to URL`: copy a database into Redis (one server or a Redis
//! Cluster), then follow the writer (docs/CLI.md, "sync"; docs/SCALING.md).
//!
//! The sync reads the log beside the writer through the engine's change
//! feed (`emdb_core::changes`): read-only, no lock, durable units only. The
//! full copy is the replay of the current file from its first record (a
//! compacted file holds only live records); following is the same replay
//! going on.
//!
//! The copy is pipelined (`pipeline`): a reader thread decodes units and
//! encodes them as RESP into batches, one buffer per target node (routed by
//! cluster slot); this thread writes the batches to one connection per
//! node without waiting, keeping up to [`WINDOW`] batches unacknowledged;
//! a reply reader per connection counts the replies. Once every command of
//! a batch and of those before it has been acknowledged, the cursor
//! (database id, generation, offset) is saved, in the target or a local
//! state file: a restart resends at most the unacknowledged window. Any
//! failure drops the connections, and the sync starts again (with backoff)
//! from the last acknowledged cursor.

mod cursor;
mod keymap;
mod lease;
mod pipeline;
mod resp;
mod source;
mod target;

pub(crate) use cursor::is_cursor_key;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Args;
use emdb_core::changes::{ChangeFeed, Cursor, Start};
use emdb_core::Emdb;
use indicatif::ProgressBar;
use serde::Serialize;

use crate::database::{refuse_database_files, Session};
use crate::error::{CliError, CliResult, Kind};
use crate::output::Ui;
use crate::progress;
use cursor::CursorStore;
use keymap::{prefix_pattern, KeyMap, DEFAULT_NS_PREFIX};
use lease::Lease;
use pipeline::{Ack, Item, Shared, Stream};
use resp::{Encoder, Layout};
use source::Source;
use target::{Op, Target, CONNECT_TIMEOUT, REPLY_TIMEOUT};

/// Arguments of `sync`.
#[derive(Debug, Clone, Args)]
pub struct SyncArgs {
    /// Target: redis://[[user]:password@]HOST:PORT[/DB]; with --cluster, a
    /// seed node of the cluster (repeat --to for more seeds).
    #[arg(long = "to", value_name = "URL", required = true)]
    pub to: Vec<String>,

    /// The target is a Redis Cluster (keys are routed by slot).
    #[arg(long)]
    pub cluster: bool,

    /// After the full copy, keep following the writer until stopped.
    #[arg(long)]
    pub follow: bool,

    /// Redis key prefix of a named namespace: %n is the name, %% a percent
    /// sign ('{%n}:' keeps a namespace in one cluster slot). The default
    /// namespace maps to the bare key.
    #[arg(long, value_name = "FORMAT", default_value = DEFAULT_NS_PREFIX)]
    pub ns_prefix: String,

    /// Keep the cursor in this local file instead of in the target.
    #[arg(long, value_name = "FILE")]
    pub state_file: Option<PathBuf>,

    /// Ignore a saved cursor: clear the target's keys and copy again.
    #[arg(long)]
    pub reset: bool,

    /// Sync into a target that evicts keys when full (a maxmemory with a
    /// maxmemory-policy other than noeviction): the keys it evicts are lost
    /// from the copy without notice. Refused (exit 2) without this flag.
    #[arg(long)]
    pub allow_eviction: bool,

    /// How long to retry a failing target (with backoff) before giving up
    /// with exit 9.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = crate::cli::parse_duration)]
    pub retry_for: Duration,

    /// How often a status line (or a JSON tick with --json) is printed.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = crate::cli::parse_duration)]
    pub interval: Duration,
}

/// Most target operations per pipeline of the control connection (deletes
/// of a cleared namespace, of a target before a resend).
const BATCH_OPS: usize = 20_000;
/// Most batches written and not yet acknowledged.
const WINDOW: usize = 16;
/// Batches the log reader may encode ahead of the writer.
const QUEUE: usize = 8;

/// One status tick (`--json`), and the final report.
#[derive(Serialize)]
struct Tick<'a> {
    event: &'a str,
    generation: u64,
    position: u64,
    durable_end: u64,
    lag_bytes: u64,
    lag_ms: u64,
    ops_per_s: u64,
    applied_ops: u64,
    units: u64,
    errors: u64,
    resends: u64,
}

/// Counters of one run.
#[derive(Default)]
struct Counters {
    applied_ops: u64,
    units: u64,
    errors: u64,
    resends: u64,
}

/// Run `emdb sync`.
pub fn run(args: &SyncArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    if let Some(ns) = s.namespace() {
        // Not silently ignored: a `-n users sync` that copied everything
        // (or nothing, for a mistyped name) would look like it worked.
        return Err(CliError::usage(format!(
            "sync copies every namespace; -n {} would not limit it",
            crate::encoding::escape_text(ns.as_bytes(), crate::encoding::Layout::Field)
        ))
        .hint("leave out -n; --ns-prefix sets how namespaces map to Redis keys"));
    }
    let keymap = KeyMap::parse(&args.ns_prefix)?;
    if !args.cluster && args.to.len() > 1 {
        return Err(CliError::usage(
            "more than one --to needs --cluster (they are seed nodes)",
        ));
    }
    if args.cluster {
        if let Some(url) = args.to.iter().find(|u| {
            redis::IntoConnectionInfo::into_connection_info(u.as_str())
                .is_ok_and(|i| i.redis_settings().db() != 0)
        }) {
            return Err(CliError::usage(format!(
                "--to {}: a Redis Cluster has only database 0",
                without_password(url)
            ))
            .hint("leave the /DB part out of the URL"));
        }
    }
    if let Some(f) = &args.state_file {
        let path = s.path()?;
        refuse_database_files(&path, f, "sync --state-file")?;
        refuse_database_files(&path, &CursorStore::temp_path(f), "sync --state-file")?;
    }
    let db = s.reader()?;
    // What a resend checks first: the file opens with this secret.
    let source = Source::new(s.path()?, s.secret()?);
    let mut target = Target::new(&args.to, args.cluster)
        .map_err(|e| CliError::usage(format!("--to: {e}")).hint("use redis://HOST:PORT[/DB]"))?;
    // Messages and logs never carry a password given in the URL.
    let shown = args
        .to
        .iter()
        .map(|u| without_password(u))
        .collect::<Vec<_>>()
        .join(", ");
    // A target that cannot be reached at all (refused, unknown host, no
    // answer) fails at once; one that took the connection and dropped it
    // (a restart, `CLIENT KILL`) is retried like any later error.
    let mut start_errors = 0;
    if let Err(e) = target.check() {
        if !e.is_connection_dropped() || e.is_connection_refusal() {
            return Err(target_down(&shown, &e));
        }
        start_errors += 1;
        retrying(args, &mut target, &shown, &mut start_errors, |t| t.check())?;
    }
    let mut info_denied = false;
    refuse_eviction(
        args,
        &mut target,
        &shown,
        &mut start_errors,
        &mut info_denied,
    )?;

    // Where to start: the saved cursor, mapped across a compaction if need be.
    let (probe, _) = ChangeFeed::open(&db, None)?;
    let mut store = CursorStore::new(
        args.state_file.clone(),
        probe.cursor().db_id,
        &args.to,
        &args.ns_prefix,
    );
    drop(probe);
    // One sync per database and target: two undo each other's work.
    let lease_target = Target::new(&args.to, args.cluster)
        .map_err(|e| CliError::usage(format!("--to: {e}")))?
        .with_reply_timeout(LEASE_REPLY_TIMEOUT);
    let mut lease = Lease::new(lease_target, store.key());
    take_lease(args, &mut target, &shown, &mut start_errors, &mut lease)?;
    // Loading also notes what the target's cursor holds (a reset forgets
    // it): a target that later loses it is found at the next save or
    // reconnection.
    let saved = if args.reset {
        None
    } else {
        retrying(args, &mut target, &shown, &mut start_errors, |t| {
            store.load(t)
        })?
    };
    // A cursor is a position in what the target received under one key
    // mapping: resuming under another would leave the keys sent so far
    // under the old prefix and never send the older keys under the new one.
    if let Some(old) = saved.as_ref().and_then(|s| s.map.as_deref()) {
        if old != args.ns_prefix {
            return Err(CliError::usage(format!(
                "the sync cursor of this target ({}) was saved with --ns-prefix {old:?}, not \
                 {:?}: resuming would leave the keys sent so far under the old prefix and never \
                 copy the older keys under the new one",
                store.describe(),
                args.ns_prefix
            ))
            .hint(format!(
                "pass --reset to delete the target's keys and copy everything under the new \
                 prefix, or run with --ns-prefix {old:?}"
            )));
        }
    }
    let (saved, saved_check) = match saved {
        Some(s) => (Some(s.cursor), s.check),
        None => (None, None),
    };
    // A plain copy restored over the database has its id and generation
    // too: the bytes before the cursor tell (asked first: the cursor may
    // fall inside one of the copy's records, which the feed would read as
    // damage).
    let mut restored = None;
    if let (Some(c), Some(want), Some(path)) = (saved, saved_check, db.path()) {
        if emdb_core::changes::history_check(&path, &c)?.is_some_and(|got| got != want) {
            restored = Some(format!(
                "the log before the cursor (offset {}) is not what it was when the cursor was \
                 saved: the file was restored from a copy",
                c.position
            ));
        }
    }
    let (mut feed, mut start) = ChangeFeed::open(&db, saved.filter(|_| restored.is_none()))?;
    if let Some(reason) = restored {
        start = Start::Resend { reason };
    }
    if matches!(start, Start::Fresh) && !args.reset {
        let others = retrying(args, &mut target, &shown, &mut start_errors, |t| {
            store.others(t)
        })?;
        if let Some(other) = others.first() {
            // A plain copy over another database's keys would leave every
            // key that database had and this one has not.
            return Err(CliError::usage(format!(
                "the target holds another database's sync cursor ({}) and none of this one's",
                String::from_utf8_lossy(other)
            ))
            .hint(
                "it was synced from another database, or from this one before encrypt, decrypt, \
                 rotate-key or a restored backup gave it a new id: pass --reset to copy this \
                 database over it, or sync into another target",
            ));
        }
    }
    let n = Counters {
        errors: start_errors,
        ..Counters::default()
    };
    let again = match &start {
        Start::Fresh if args.reset => Some("--reset"),
        Start::Fresh | Start::Continue | Start::Mapped { .. } => None,
        Start::OtherDatabase => {
            return Err(CliError::usage(format!(
                "the cursor saved for this target belongs to another database ({})",
                store.describe()
            ))
            .hint("sync each database into its own target, or pass --reset to start over"));
        }
        Start::Resend { reason } => Some(reason.as_str()),
    };
    let mut run = Run {
        args,
        db,
        source,
        shown,
        store,
        keymap,
        n,
        acked: feed.cursor(),
        durable_end: 0,
        copy_from: 0,
        copy_end: 0,
        copying: true,
        bar: ProgressBar::hidden(),
        began: Instant::now(),
        last_tick: Instant::now(),
        ops_at_tick: 0,
        behind_since: None,
        backoff: Backoff::new(),
        checked: Instant::now(),
        info_denied,
        lease,
    };
    if let Some(why) = again {
        run.clear(&mut target, why, ui)?;
    }
    let c = feed.cursor();
    ui.note(&format!(
        "emdb sync: {} at generation {} offset {} ({})",
        match start {
            Start::Fresh => "starting",
            Start::Mapped { .. } => "resuming after a compaction",
            _ => "resuming",
        },
        c.generation,
        c.position,
        run.shown
    ));

    // The full copy: up to the durable end seen now, with a progress bar.
    let first = feed.poll(0)?;
    if let Some(reason) = &first.resend {
        run.clear(&mut target, reason, ui)?;
    }
    let c = feed.cursor();
    run.acked = c;
    run.copy_from = c.position;
    run.copy_end = feed.durable_end();
    run.durable_end = feed.durable_end();
    run.bar = progress::bar(
        run.copy_end.saturating_sub(c.position),
        true,
        "copying",
        ui.quiet,
    );
    let layout = retrying(args, &mut target, &run.shown, &mut run.n.errors, |t| {
        t.layout()
    })?;
    run.began = Instant::now();
    run.last_tick = Instant::now();
    run.go(&mut target, feed, layout, ui)?;
    let secs = run.began.elapsed().as_secs_f64().max(1e-3);
    let done = run.tick("done", None, run.n.applied_ops as f64 / secs);
    if ui.json {
        ui.json_line(&done)?;
    } else if !ui.quiet {
        ui.line(&format!(
            "synced to generation {} offset {}: {} units, {} operations in {:.2}s, {} resends, {} errors",
            done.generation, done.position, done.units, done.applied_ops, secs, done.resends, done.errors
        ))?;
    }
    Ok(())
}

/// How often a caught-up, idle sync checks that the target still holds
/// its cursor.
const IDLE_CHECK: Duration = Duration::from_secs(2);

/// First pause after a failure; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
/// Longest pause between attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Why a session of the bulk path ended early.
enum Stop {
    /// The target failed: reconnect and go on from the acknowledged cursor.
    Target(redis::RedisError),
    /// The target's cursor is not the one last saved (why): it lost what
    /// was sent; copy everything again.
    Lost(String),
    /// Anything else (the log, the cursor store, `--retry-for` used up).
    Fatal(CliError),
}

impl From<CliError> for Stop {
    fn from(e: CliError) -> Stop {
        Stop::Fatal(e)
    }
}

/// A batch written and not yet acknowledged.
struct Flight {
    /// Replies each node must have sent (counted since its connection
    /// opened) for the batch to be acknowledged.
    need: Vec<u64>,
    end: Option<Cursor>,
    ops: u64,
    units: u64,
}

/// The connections of one session and what they have carried.
struct Conns {
    streams: Vec<Stream>,
    acks: Receiver<Ack>,
    sent: Vec<u64>,
    replied: Vec<u64>,
    inflight: VecDeque<Flight>,
    last_reply: Instant,
}

/// The state of a sync across sessions.
struct Run<'a> {
    args: &'a SyncArgs,
    /// The sync's handle of the database.
    db: Emdb,
    /// How to check the source before a resend.
    source: Source,
    shown: String,
    store: CursorStore,
    keymap: KeyMap,
    n: Counters,
    /// The cursor after the last acknowledged unit (saved after each
    /// acknowledgement).
    acked: Cursor,
    durable_end: u64,
    copy_from: u64,
    copy_end: u64,
    copying: bool,
    bar: ProgressBar,
    began: Instant,
    last_tick: Instant,
    ops_at_tick: u64,
    behind_since: Option<Instant>,
    /// The current run of target failures (none while progress is made).
    backoff: Backoff,
    /// When the target's cursor was last checked while idle.
    checked: Instant,
    /// The target refused `INFO` (said once on stderr).
    info_denied: bool,
    /// This sync's lease in the target, renewed while it runs.
    lease: Lease,
}

impl Run<'_> {
    /// Sessions until the copy is done (or, with `--follow`, forever): after
    /// a target failure, back off, reconnect, check that the target still
    /// holds the cursor last saved (else copy everything again), reopen the
    /// feed at the acknowledged cursor and go on; after `--retry-for` of
    /// failures, exit 9.
    fn go(
        &mut self,
        target: &mut Target,
        feed: ChangeFeed,
        mut layout: Layout,
        ui: &mut Ui,
    ) -> CliResult {
        let mut feed = Some(feed);
        let mut reconnected = false;
        loop {
            if reconnected {
                // A restarted or failed-over server may come back with
                // another policy.
                refuse_eviction(
                    self.args,
                    target,
                    &self.shown,
                    &mut self.n.errors,
                    &mut self.info_denied,
                )?;
                take_lease(
                    self.args,
                    target,
                    &self.shown,
                    &mut self.n.errors,
                    &mut self.lease,
                )?;
                match self.store.check(target) {
                    Ok(None) => {}
                    Ok(Some(why)) => feed = Some(self.copy_again(target, &why, ui)?),
                    Err(e) => {
                        self.back_off(target, &e, Instant::now())?;
                        continue;
                    }
                }
                reconnected = false;
            }
            let f = match feed.take() {
                Some(f) => f,
                None => self.reopen(target, ui)?,
            };
            let began = Instant::now();
            let e = match self.session(target, &layout, f, ui) {
                Ok(()) => return Ok(()),
                Err(Stop::Fatal(e)) => return Err(e),
                Err(Stop::Lost(why)) => {
                    feed = Some(self.copy_again(target, &why, ui)?);
                    continue;
                }
                Err(Stop::Target(e)) => e,
            };
            self.back_off(target, &e, began)?;
            layout = retrying(self.args, target, &self.shown, &mut self.n.errors, |t| {
                t.layout()
            })?;
            reconnected = true;
        }
    }

    /// After a failure `e` of a session that began at `began`: as
    /// [`Backoff::pause`], but a session that worked for a while (say,
    /// following an idle writer) ends the run of failures as progress does.
    fn back_off(
        &mut self,
        target: &mut Target,
        e: &redis::RedisError,
        began: Instant,
    ) -> CliResult {
        if began.elapsed() >= MAX_BACKOFF {
            self.backoff = Backoff::new();
        }
        let paused = self
            .backoff
            .pause(self.args, &self.shown, target, &mut self.n.errors, e);
        if paused.is_err() {
            self.bar.abandon();
        }
        paused
    }

    /// Before a resend (`why`): check that the source opens and reads
    /// (else stop with its error, the target untouched); then say so, count
    /// it, and delete every key of the target but sync cursors, and this
    /// database's cursor.
    fn clear(&mut self, target: &mut Target, why: &str, ui: &mut Ui) -> CliResult {
        self.source.verify(&self.db)?;
        ui.note(&format!("emdb sync: copying everything again: {why}"));
        self.n.resends += 1;
        let (args, shown) = (self.args, self.shown.as_str());
        let keys = retrying(args, target, shown, &mut self.n.errors, |t| t.scan(b"*"))?;
        let ops: Vec<Op> = keys
            .into_iter()
            .filter(|k| !cursor::is_cursor_key(k))
            .map(Op::Del)
            .collect();
        let mut n2 = Counters::default();
        for chunk in ops.chunks(BATCH_OPS) {
            let mut c = chunk.to_vec();
            send(args, target, shown, &mut c, &mut n2)?;
        }
        self.n.errors += n2.errors;
        let store = &mut self.store;
        retrying(args, target, shown, &mut self.n.errors, |t| store.forget(t))
    }

    /// The target lost what was sent (`why`): clear it (once the source is
    /// known to read) and start a feed at the first record.
    fn copy_again(&mut self, target: &mut Target, why: &str, ui: &mut Ui) -> CliResult<ChangeFeed> {
        self.clear(target, why, ui)?;
        let (feed, _) = ChangeFeed::open(&self.db, None)?;
        self.acked = feed.cursor();
        Ok(feed)
    }

    /// The feed again, at the acknowledged cursor.
    fn reopen(&mut self, target: &mut Target, ui: &mut Ui) -> CliResult<ChangeFeed> {
        let (feed, start) = ChangeFeed::open(&self.db, Some(self.acked))?;
        match start {
            Start::Continue | Start::Mapped { .. } => {}
            Start::Resend { reason } => {
                self.clear(target, &reason, ui)?;
                self.acked = feed.cursor();
            }
            Start::Fresh | Start::OtherDatabase => {
                return Err(CliError::new(
                    Kind::Corrupt,
                    "the database's id changed while emdb sync was running",
                ))
            }
        }
        Ok(feed)
    }

    /// One session: connect to every node, start the log reader and the
    /// reply readers, write batches until the copy is done or something
    /// fails; then stop the threads.
    fn session(
        &mut self,
        target: &mut Target,
        layout: &Layout,
        feed: ChangeFeed,
        ui: &mut Ui,
    ) -> Result<(), Stop> {
        let (ack_tx, acks) = mpsc::channel();
        let mut conns = Conns {
            streams: Vec::new(),
            acks,
            sent: vec![0; layout.nodes.len()],
            replied: vec![0; layout.nodes.len()],
            inflight: VecDeque::new(),
            last_reply: Instant::now(),
        };
        let mut repliers = Vec::new();
        let mut opened = Ok(());
        for (node, info) in layout.nodes.iter().enumerate() {
            let stream = match pipeline::connect(info, CONNECT_TIMEOUT)
                .and_then(|s| Ok((s.try_clone()?, s)))
            {
                Ok(s) => s,
                Err(e) => {
                    opened = Err(Stop::Target(target::no_reply_for(e, CONNECT_TIMEOUT)));
                    break;
                }
            };
            let tx = ack_tx.clone();
            let reader = stream.0;
            repliers.push(std::thread::spawn(move || {
                pipeline::read_replies(reader, node, tx)
            }));
            conns.streams.push(stream.1);
        }
        drop(ack_tx);
        let shared = Arc::new(Shared::default());
        shared
            .durable_end
            .store(feed.durable_end(), Ordering::Relaxed);
        let (item_tx, items) = mpsc::sync_channel(QUEUE);
        let enc = Encoder::new(self.keymap.clone(), Arc::new(layout.clone()));
        let (follow, copy_end) = (self.args.follow, self.copy_end);
        let reader_shared = shared.clone();
        let reader = std::thread::spawn(move || {
            pipeline::read_log(feed, enc, item_tx, reader_shared, follow, copy_end)
        });
        let result = match opened {
            Ok(()) => self.pump(target, &mut conns, &items, &shared, ui),
            Err(e) => Err(e),
        };
        shared.stop.store(true, Ordering::Relaxed);
        drop(items);
        for s in &conns.streams {
            s.shutdown();
        }
        let reader_panicked = reader.join().is_err();
        for r in repliers {
            let _ = r.join();
        }
        if reader_panicked && result.is_ok() {
            return Err(Stop::Fatal(CliError::new(
                Kind::Io,
                "emdb sync: the log reader thread panicked",
            )));
        }
        result
    }

    /// Write what the log reader sends, take acknowledgements, save the
    /// cursor, print ticks.
    fn pump(
        &mut self,
        target: &mut Target,
        conns: &mut Conns,
        items: &Receiver<Item>,
        shared: &Shared,
        ui: &mut Ui,
    ) -> Result<(), Stop> {
        loop {
            while let Ok(ack) = conns.acks.try_recv() {
                conns.take(ack)?;
            }
            if self.lease.due() {
                match self.lease.take() {
                    Ok(Ok(())) => {}
                    Ok(Err(holder)) => return Err(Stop::Fatal(lease_held(&self.shown, &holder))),
                    Err(e) => return Err(Stop::Target(e)),
                }
            }
            self.settle(target, conns)?;
            if conns.inflight.len() >= WINDOW {
                self.wait_ack(target, conns)?;
                continue;
            }
            let wait = if conns.inflight.is_empty() {
                Duration::from_millis(20)
            } else {
                Duration::from_millis(1)
            };
            self.durable_end = shared.durable_end.load(Ordering::Relaxed);
            match items.recv_timeout(wait) {
                Ok(Item::Batch(b)) => {
                    self.behind_since.get_or_insert_with(Instant::now);
                    if conns.inflight.is_empty() {
                        // Nothing was awaited: the wait for a reply starts now.
                        conns.last_reply = Instant::now();
                    }
                    for (node, part) in b.parts.iter().enumerate() {
                        if part.is_empty() {
                            continue;
                        }
                        std::io::Write::write_all(&mut conns.streams[node], part).map_err(|e| {
                            Stop::Target(target::no_reply_for(e.into(), REPLY_TIMEOUT))
                        })?;
                        conns.sent[node] += b.cmds[node];
                    }
                    conns.inflight.push_back(Flight {
                        need: conns.sent.clone(),
                        end: b.end,
                        ops: b.ops,
                        units: b.units,
                    });
                }
                Ok(Item::DeleteNamespace { namespace, live }) => {
                    self.drain(target, conns)?;
                    let mut ops = Vec::new();
                    delete_namespace(
                        self.args,
                        target,
                        &self.shown,
                        &self.keymap,
                        &namespace,
                        &live,
                        &mut ops,
                        &mut self.n,
                    )?;
                }
                Ok(Item::Resend(reason)) => {
                    self.drain(target, conns)?;
                    self.clear(target, &reason, ui)?;
                }
                Ok(Item::End) => {
                    self.drain(target, conns)?;
                    self.durable_end = shared.durable_end.load(Ordering::Relaxed);
                    self.end_copy();
                    return Ok(());
                }
                Ok(Item::Failed(e)) => return Err(Stop::Fatal(e.into())),
                Err(RecvTimeoutError::Timeout) => {
                    if conns.inflight.is_empty() && shared.idle.load(Ordering::Relaxed) {
                        self.behind_since = None;
                        self.end_copy();
                        // Caught up and idle: a target that lost what it
                        // was sent (a restart, FLUSHALL) is found now, not
                        // at the writer's next write.
                        if self.checked.elapsed() >= IDLE_CHECK {
                            self.checked = Instant::now();
                            match self.store.check(target) {
                                Ok(None) => {}
                                Ok(Some(why)) => return Err(Stop::Lost(why)),
                                Err(e) => return Err(Stop::Target(e)),
                            }
                        }
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Stop::Fatal(CliError::new(
                        Kind::Io,
                        "emdb sync: the log reader stopped",
                    )))
                }
            }
            if !conns.inflight.is_empty() && conns.last_reply.elapsed() >= REPLY_TIMEOUT {
                // A target that stopped answering without closing the
                // connection (a stopped process, a partition): a failure.
                return Err(Stop::Target(no_reply()));
            }
            if self.copying && self.acked.position >= self.copy_end {
                self.end_copy();
            }
            // While copying, the bar says it on a terminal; JSON ticks go on.
            let show = ui.json || !self.copying || self.bar.is_hidden();
            if show && self.last_tick.elapsed() >= self.args.interval {
                let secs = self.last_tick.elapsed().as_secs_f64().max(1e-3);
                let rate = (self.n.applied_ops - self.ops_at_tick) as f64 / secs;
                let tick = self.tick(
                    if self.copying { "copy" } else { "status" },
                    self.behind_since,
                    rate,
                );
                print_tick(ui, &tick)?;
                self.last_tick = Instant::now();
                self.ops_at_tick = self.n.applied_ops;
            }
        }
    }

    fn end_copy(&mut self) {
        if self.copying {
            self.copying = false;
            self.bar.finish_and_clear();
        }
    }

    /// Wait for the next acknowledgement (at most [`REPLY_TIMEOUT`] since the
    /// last reply) and settle what it covers.
    fn wait_ack(&mut self, target: &mut Target, conns: &mut Conns) -> Result<(), Stop> {
        let left = REPLY_TIMEOUT.saturating_sub(conns.last_reply.elapsed());
        match conns.acks.recv_timeout(left) {
            Ok(ack) => conns.take(ack)?,
            Err(RecvTimeoutError::Timeout) => return Err(Stop::Target(no_reply())),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Stop::Target(redis::RedisError::from((
                    redis::ErrorKind::Io,
                    "the target closed the connection",
                ))))
            }
        }
        self.settle(target, conns)
    }

    /// Wait until every batch written is acknowledged.
    fn drain(&mut self, target: &mut Target, conns: &mut Conns) -> Result<(), Stop> {
        self.settle(target, conns)?;
        while !conns.inflight.is_empty() {
            self.wait_ack(target, conns)?;
        }
        Ok(())
    }

    /// Retire the acknowledged batches at the front of the window; when the
    /// cursor moved, save it.
    fn settle(&mut self, target: &mut Target, conns: &mut Conns) -> Result<(), Stop> {
        let mut moved = false;
        while let Some(f) = conns.inflight.front() {
            if f.need
                .iter()
                .zip(&conns.replied)
                .any(|(need, got)| got < need)
            {
                break;
            }
            self.n.applied_ops += f.ops;
            self.n.units += f.units;
            if let Some(c) = f.end {
                self.acked = c;
                moved = true;
            }
            conns.inflight.pop_front();
        }
        if !moved {
            return Ok(());
        }
        self.backoff = Backoff::new();
        let cur = self.acked;
        // Not knowing it (the file compacted since) only costs the check
        // at the next resume.
        let check = self
            .db
            .path()
            .and_then(|p| emdb_core::changes::history_check(&p, &cur).ok().flatten());
        let store = &mut self.store;
        let lost = retrying(self.args, target, &self.shown, &mut self.n.errors, |t| {
            store.save(t, &cur, check)
        })?;
        if let Some(why) = lost {
            return Err(Stop::Lost(why));
        }
        if self.copying {
            self.bar.set_position(
                cur.position
                    .saturating_sub(self.copy_from)
                    .min(self.bar.length().unwrap_or(0)),
            );
        }
        Ok(())
    }

    fn tick(
        &self,
        event: &'static str,
        behind_since: Option<Instant>,
        ops_per_s: f64,
    ) -> Tick<'static> {
        let c = self.acked;
        Tick {
            event,
            generation: c.generation,
            position: c.position,
            durable_end: self.durable_end,
            lag_bytes: self.durable_end.saturating_sub(c.position),
            lag_ms: behind_since.map_or(0, |t| t.elapsed().as_millis() as u64),
            ops_per_s: ops_per_s as u64,
            applied_ops: self.n.applied_ops,
            units: self.n.units,
            errors: self.n.errors,
            resends: self.n.resends,
        }
    }
}

impl Conns {
    /// Record one report of a reply reader.
    fn take(&mut self, ack: Ack) -> Result<(), Stop> {
        match ack {
            Ack::Replies { node, total } => {
                self.replied[node] = total;
                self.last_reply = Instant::now();
                Ok(())
            }
            Ack::Failed(e) => Err(Stop::Target(e)),
        }
    }
}

/// The failure of a target that sent no reply for [`REPLY_TIMEOUT`] while
/// commands waited for one.
fn no_reply() -> redis::RedisError {
    redis::RedisError::from((
        redis::ErrorKind::Io,
        "no reply from the target",
        format!("for {} s", REPLY_TIMEOUT.as_secs()),
    ))
}

fn print_tick(ui: &mut Ui, t: &Tick<'_>) -> CliResult {
    if ui.json {
        ui.json_line(t)?;
        return ui.out.flush().map_err(CliError::stdout);
    }
    if !ui.quiet {
        ui.note(&format!(
            "emdb sync: gen {} at {} lag {} B / {} ms, {} ops/s, {} ops, {} errors, {} resends",
            t.generation,
            t.position,
            t.lag_bytes,
            t.lag_ms,
            t.ops_per_s,
            t.applied_ops,
            t.errors,
            t.resends
        ));
    }
    Ok(())
}

/// Send and empty `ops` through the control connection, retrying the whole
/// pipeline on failure.
fn send(
    args: &SyncArgs,
    target: &mut Target,
    shown: &str,
    ops: &mut Vec<Op>,
    n: &mut Counters,
) -> CliResult {
    if ops.is_empty() {
        return Ok(());
    }
    retrying(args, target, shown, &mut n.errors, |t| t.apply(ops))?;
    n.applied_ops += ops.len() as u64;
    ops.clear();
    Ok(())
}

/// Delete the Redis keys of a namespace: every key under its prefix but
/// those under a longer prefix of another live namespace (for the default
/// namespace, whose prefix is empty: every key not under a live named
/// namespace's prefix) and sync cursors.
#[allow(clippy::too_many_arguments)]
fn delete_namespace(
    args: &SyncArgs,
    target: &mut Target,
    shown: &str,
    keymap: &KeyMap,
    namespace: &str,
    live: &[String],
    ops: &mut Vec<Op>,
    n: &mut Counters,
) -> CliResult {
    let prefix = keymap.prefix(namespace);
    let keys = retrying(args, target, shown, &mut n.errors, |t| {
        t.scan(&prefix_pattern(&prefix))
    })?;
    let others: Vec<Vec<u8>> = live
        .iter()
        .filter(|l| l.as_str() != namespace)
        .map(|l| keymap.prefix(l))
        .filter(|p| p.len() > prefix.len() && p.starts_with(&prefix))
        .collect();
    for k in keys {
        if cursor::is_cursor_key(&k) || others.iter().any(|p| k.starts_with(p)) {
            continue;
        }
        ops.push(Op::Del(k));
        if ops.len() >= BATCH_OPS {
            send(args, target, shown, ops, n)?;
        }
    }
    send(args, target, shown, ops, n)
}

/// How long the lease's connection waits for a reply: its release runs as
/// the sync ends, perhaps because the target hangs.
const LEASE_REPLY_TIMEOUT: Duration = Duration::from_secs(5);

/// Take (or take again, after a reconnection) the sync's lease; exit 2
/// when another process holds it.
fn take_lease(
    args: &SyncArgs,
    target: &mut Target,
    shown: &str,
    errors: &mut u64,
    lease: &mut Lease,
) -> CliResult {
    // The lease has its own connection (which resets itself on a failure);
    // `target` is only reconnected along. An error reply (a full target's
    // `-OOM`) is the target refusing a command, as on the bulk path.
    retrying(args, target, shown, errors, |_| {
        lease.take().map_err(|e| match e.code() {
            Some(_) => redis::RedisError::from((e.kind(), REFUSED, e.to_string())),
            None => e,
        })
    })?
    .map_err(|holder| lease_held(shown, &holder))
}

/// Exit 2: another sync (`holder`, as its lease names it) runs into the
/// same target for the same database.
fn lease_held(shown: &str, holder: &str) -> CliError {
    CliError::usage(format!(
        "another emdb sync ({holder}: host, pid, random) is syncing this database into target \
         {shown}: two syncs into one target undo each other's work, each copying everything again"
    ))
    .hint(format!(
        "stop that sync first, or wait for it to end; a sync that was killed leaves a lease that \
         expires within {} s",
        lease::TTL.as_secs()
    ))
}

/// Stop with exit 2 when a server of the target evicts keys when full (a
/// `maxmemory` and a `maxmemory-policy` other than `noeviction`): the keys
/// it evicts would be missing from the copy and the sync would not know
/// (unless `--allow-eviction`). A user that may not run `INFO` is said once
/// on stderr (`denied`), and the sync goes on.
fn refuse_eviction(
    args: &SyncArgs,
    target: &mut Target,
    shown: &str,
    errors: &mut u64,
    denied: &mut bool,
) -> CliResult {
    if args.allow_eviction {
        return Ok(());
    }
    let found = retrying(args, target, shown, errors, |t| match t.eviction() {
        Err(e) if e.to_string().to_ascii_uppercase().contains("NOPERM") => Ok(Err(e)),
        r => r.map(Ok),
    })?;
    let servers = match found {
        Ok(servers) => servers,
        Err(e) => {
            if !*denied {
                *denied = true;
                eprintln!(
                    "emdb sync: cannot read the maxmemory-policy of target {shown} ({}): if it \
                     evicts keys, they are lost from the copy without notice",
                    brief(&e)
                );
            }
            return Ok(());
        }
    };
    match servers.iter().find(|s| s.evicts()) {
        None => Ok(()),
        Some(s) => Err(CliError::usage(format!(
            "target {shown}: Redis at {} evicts keys when full (maxmemory {} bytes, \
             maxmemory-policy {}): the keys it evicts would be missing from the copy without \
             notice",
            s.node, s.maxmemory, s.policy
        ))
        .hint(
            "set maxmemory-policy noeviction on the target (CONFIG SET maxmemory-policy \
             noeviction, and in its configuration file), or pass --allow-eviction to sync anyway \
             and lose evicted keys silently",
        )),
    }
}

/// Run `f` until it succeeds, reconnecting with exponential backoff, for at
/// most `--retry-for`; then exit 9. A retried step is repeated whole, so no
/// change is ever skipped.
fn retrying<T>(
    args: &SyncArgs,
    target: &mut Target,
    shown: &str,
    errors: &mut u64,
    mut f: impl FnMut(&mut Target) -> redis::RedisResult<T>,
) -> CliResult<T> {
    let mut backoff = Backoff::new();
    loop {
        match f(target) {
            Ok(v) => return Ok(v),
            Err(e) => backoff.pause(args, shown, target, errors, &e)?,
        }
    }
}

/// A run of target failures: when the first came, and the next pause.
struct Backoff {
    since: Option<Instant>,
    wait: Duration,
}

impl Backoff {
    /// No failure yet; the first pause will be [`FIRST_BACKOFF`].
    const fn new() -> Self {
        Self {
            since: None,
            wait: FIRST_BACKOFF,
        }
    }

    /// After failure `e`: count it in `errors` and drop the connection;
    /// stop at once when no retry can fix it, or with exit 9 once the run
    /// has lasted `--retry-for`; else pause (doubling each time up to
    /// [`MAX_BACKOFF`], never past what is left of the budget).
    fn pause(
        &mut self,
        args: &SyncArgs,
        shown: &str,
        target: &mut Target,
        errors: &mut u64,
        e: &redis::RedisError,
    ) -> CliResult {
        *errors += 1;
        target.reset();
        if let Some(fatal) = unfixable(args, shown, e) {
            return Err(fatal);
        }
        let since = *self.since.get_or_insert_with(Instant::now);
        let left = args.retry_for.saturating_sub(since.elapsed());
        if left.is_zero() {
            return Err(gave_up(shown, e, since.elapsed()));
        }
        let pause = self.wait.min(left);
        eprintln!(
            "emdb sync: target error ({}); retrying in {} ms",
            brief(e),
            pause.as_millis()
        );
        std::thread::sleep(pause);
        self.wait = (self.wait * 2).min(MAX_BACKOFF);
        Ok(())
    }
}

/// A target error no retry can fix, as the error to stop with at once:
/// a cluster node's redirection without `--cluster`, or a command the
/// target's user may not run. (Retried, each cost all of `--retry-for`,
/// and a full copy per attempt, then exit 9 with a hint to check that
/// Redis runs.)
fn unfixable(args: &SyncArgs, shown: &str, e: &redis::RedisError) -> Option<CliError> {
    let text = e.to_string();
    if e.kind() == redis::ErrorKind::InvalidClientConfig && text.contains(cursor::STATE_FILE) {
        let text = e.detail().unwrap_or_default();
        return Some(match text.strip_prefix("I/O: ") {
            Some(io) => CliError::new(Kind::Io, format!("sync --state-file {io}")),
            None => CliError::usage(format!("sync --state-file {text}")),
        });
    }
    let upper = text.to_ascii_uppercase();
    // The cursor key holds something that is not a cursor (a string that
    // does not parse, or another type): no retry changes it.
    if text.contains(cursor::UNREADABLE) || upper.contains("WRONGTYPE") {
        return Some(
            CliError::usage(format!(
                "target {shown}: a key emdb sync keeps for itself (its cursor, \
                 emdb-sync-cursor:<db id>, or its lease) does not hold what the sync wrote: {text}"
            ))
            .hint("delete it, or pass --reset (which copies everything again)"),
        );
    }
    if let Some(command) = unknown_command(&text) {
        return Some(
            CliError::new(
                Kind::TargetDown,
                format!(
                    "target {shown} does not know the command {command} (renamed or disabled), \
                     which emdb sync needs: {text}"
                ),
            )
            .hint(
                "emdb sync needs SET, DEL, GET, SCAN, EVAL and PING (and CLUSTER NODES with \
                 --cluster): restore it in the server's configuration (rename-command)",
            ),
        );
    }
    if is_auth_failure(e) {
        return Some(
            CliError::new(
                Kind::TargetDown,
                format!("target {shown} refused to authenticate: {text}"),
            )
            .hint(AUTH_HINT),
        );
    }
    if !args.cluster && upper.contains("MOVED") {
        return Some(
            CliError::usage(format!(
                "target {shown} is a node of a Redis Cluster: {text}"
            ))
            .hint("pass --cluster (each --to is then a seed node)"),
        );
    }
    if upper.contains("NOPERM") {
        return Some(
            CliError::new(
                Kind::TargetDown,
                format!(
                    "target {shown} does not let this user run a command emdb sync needs: {text}"
                ),
            )
            .hint(
                "grant the user SET, DEL, GET, SCAN, EVAL and PING (and CLUSTER NODES with \
                 --cluster), or sync as another user",
            ),
        );
    }
    None
}

/// What to check when the target refuses the user or password.
const AUTH_HINT: &str = "check the user name and password in the URL \
    (redis://USER:PASSWORD@HOST:PORT, or redis://:PASSWORD@HOST:PORT for the default user) and \
    the server's requirepass or ACL users";

/// True for an error no retry fixes: the server wants a password
/// (`NOAUTH`), or refused the user or password (`WRONGPASS`, ...).
fn is_auth_failure(e: &redis::RedisError) -> bool {
    let upper = e.to_string().to_ascii_uppercase();
    e.kind() == redis::ErrorKind::AuthenticationFailed
        || [
            "NOAUTH",
            "WRONGPASS",
            "INVALID PASSWORD",
            "INVALID USERNAME-PASSWORD",
        ]
        .iter()
        .any(|w| upper.contains(w))
}

/// The command an "unknown command 'X'" error names.
fn unknown_command(text: &str) -> Option<&str> {
    let at = text.to_ascii_lowercase().find("unknown command")?;
    let rest = &text[at + "unknown command".len()..];
    let start = rest.find(['\'', '`'])? + 1;
    let len = rest[start..].find(['\'', '`'])?;
    Some(&rest[start..start + len])
}

/// Longest error text a message quotes whole.
const BRIEF: usize = 600;

/// `e` as text, cut to [`BRIEF`] characters: a failed cluster pipeline
/// lists the error of each of its commands (thousands), and each retry
/// printed it all.
fn brief(e: &redis::RedisError) -> String {
    let text = e.to_string();
    match text.char_indices().nth(BRIEF) {
        Some((cut, _)) => format!(
            "{} ... ({} more characters)",
            &text[..cut],
            text.len() - cut
        ),
        None => text,
    }
}

/// What a target's error reply to a command sent is called.
pub(crate) const REFUSED: &str = "the target refused a command";

/// Exit 9 after `--retry-for` of failures, ending with `e`.
fn gave_up(shown: &str, e: &redis::RedisError, retried: Duration) -> CliError {
    CliError::new(
        Kind::TargetDown,
        format!(
            "target {shown} is not usable: {} (gave up after retrying for {:.1} s)",
            brief(e),
            retried.as_secs_f64()
        ),
    )
    .hint(target_hint(e))
}

/// What to check: a target that answers but refuses (its reply says why:
/// a memory limit, a read-only replica, ...) is running and reachable.
fn target_hint(e: &redis::RedisError) -> &'static str {
    if is_auth_failure(e) {
        AUTH_HINT
    } else if e.to_string().contains(REFUSED) {
        "Redis answered with an error (its reply is above: a memory limit, a read-only replica, \
         a disabled command, ...); fix that on the Redis side, then run the sync again: it \
         resumes from its saved cursor"
    } else {
        "check that Redis is running and reachable; a restarted sync resumes from its saved cursor"
    }
}

/// Exit 8: the target cannot be reached or keeps failing.
fn target_down(shown: &str, e: &redis::RedisError) -> CliError {
    CliError::new(
        Kind::TargetDown,
        format!("target {shown} is not usable: {}", brief(e)),
    )
    .hint(target_hint(e))
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `info` with the password in `REDISCLI_AUTH` when its URL gave none, as
/// redis-cli (and `emdb bench --redis`) take it.
pub(crate) fn with_env_password(info: redis::ConnectionInfo) -> redis::ConnectionInfo {
    if info.redis_settings().password().is_some() {
        return info;
    }
    match std::env::var("REDISCLI_AUTH")
        .ok()
        .filter(|p| !p.is_empty())
    {
        Some(password) => {
            let settings = info.redis_settings().clone().set_password(password);
            info.set_redis_settings(settings)
        }
        None => info,
    }
}

/// `url` without the user information of its authority
/// (`redis://user:secret@host:6379/0` -> `redis://host:6379/0`), for messages.
pub(crate) fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rfind('@') {
        Some(at) => format!("{scheme}://{}{path}", &authority[at + 1..]),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod url_tests {
    use super::without_password;

    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(
            without_password("redis://user:s3cret@10.0.0.1:6379/2"),
            "redis://10.0.0.1:6379/2"
        );
        assert_eq!(without_password("redis://:s3cret@host:1"), "redis://host:1");
        assert_eq!(without_password("redis://host:1/0"), "redis://host:1/0");
        assert_eq!(without_password("not a url"), "not a url");
    }
}
