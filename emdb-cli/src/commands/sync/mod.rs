//! `emdb sync --to URL`: copy a database into Redis (one server or a Redis
//! Cluster), then follow the writer (docs/CLI.md, "sync"; docs/SCALING.md).
//!
//! The sync reads the log beside the writer through the engine's change
//! feed (`emdb_core::changes`): read-only, no lock, durable units only. The
//! full copy is the replay of the current file from its first record (a
//! compacted file holds only live records); following is the same replay
//! going on. Each batch of units goes out as one pipeline, then the cursor
//! (database id, generation, offset) is saved, in the target or a local
//! state file: a restart resends at most the batch in flight.

mod cursor;
mod keymap;
mod target;

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Args;
use emdb_core::changes::{Change, ChangeFeed, Start, Unit};
use serde::Serialize;

use crate::database::Session;
use crate::error::{CliError, CliResult, Kind};
use crate::output::Ui;
use crate::progress;
use cursor::CursorStore;
use keymap::{prefix_pattern, KeyMap, DEFAULT_NS_PREFIX};
use target::{Op, Target};

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

    /// How long to retry a failing target (with backoff) before giving up
    /// with exit 9.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = crate::cli::parse_duration)]
    pub retry_for: Duration,

    /// How often a status line (or a JSON tick with --json) is printed.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = crate::cli::parse_duration)]
    pub interval: Duration,
}

/// Largest stretch of log read per batch (one pipeline).
const BATCH_BYTES: usize = 4 << 20;
/// Most target operations per pipeline.
const BATCH_OPS: usize = 20_000;
/// Pause between looks at the log while caught up.
const POLL_IDLE: Duration = Duration::from_millis(2);

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
    let keymap = KeyMap::parse(&args.ns_prefix)?;
    if !args.cluster && args.to.len() > 1 {
        return Err(CliError::usage(
            "more than one --to needs --cluster (they are seed nodes)",
        ));
    }
    let db = s.reader()?;
    let mut target = Target::new(&args.to, args.cluster)
        .map_err(|e| CliError::usage(format!("--to: {e}")).hint("use redis://HOST:PORT[/DB]"))?;
    let shown = args.to.join(", ");
    target.check().map_err(|e| target_down(&shown, &e))?;

    // Where to start: the saved cursor, mapped across a compaction if need be.
    let (probe, _) = ChangeFeed::open(&db, None)?;
    let store = CursorStore::new(args.state_file.clone(), probe.cursor().db_id);
    drop(probe);
    let saved = if args.reset {
        None
    } else {
        retrying(args, &mut target, &shown, &mut 0, |t| store.load(t))?
    };
    let (mut feed, start) = ChangeFeed::open(&db, saved)?;
    let mut n = Counters::default();
    match &start {
        Start::Fresh if args.reset => {
            clear_target(args, &mut target, &shown, &store, &mut n)?;
        }
        Start::Fresh => {}
        Start::Continue | Start::Mapped { .. } => {}
        Start::OtherDatabase => {
            return Err(CliError::usage(format!(
                "the cursor saved for this target belongs to another database ({})",
                store.describe()
            ))
            .hint("sync each database into its own target, or pass --reset to start over"));
        }
        Start::Resend { reason } => {
            ui.note(&format!("emdb sync: copying everything again: {reason}"));
            n.resends += 1;
            clear_target(args, &mut target, &shown, &store, &mut n)?;
        }
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
        shown
    ));

    // The full copy: up to the durable end seen now, with a progress bar.
    let first = feed.poll(0)?;
    if let Some(reason) = &first.resend {
        ui.note(&format!("emdb sync: copying everything again: {reason}"));
        n.resends += 1;
        clear_target(args, &mut target, &shown, &store, &mut n)?;
    }
    let c = feed.cursor();
    let copy_end = feed.durable_end();
    let bar = progress::bar(
        copy_end.saturating_sub(c.position),
        true,
        "copying",
        ui.quiet,
    );
    let began = Instant::now();
    let mut last_tick = Instant::now();
    let mut ops_at_tick = 0u64;
    let mut behind_since: Option<Instant> = None;
    let mut ops = Vec::new();
    let mut copying = true;
    loop {
        let poll = feed.poll(BATCH_BYTES)?;
        if let Some(reason) = &poll.resend {
            apply_units(
                args,
                &mut target,
                &shown,
                &keymap,
                &feed,
                &poll.units,
                &mut ops,
                &mut n,
            )?;
            ui.note(&format!("emdb sync: copying everything again: {reason}"));
            n.resends += 1;
            clear_target(args, &mut target, &shown, &store, &mut n)?;
            continue;
        }
        let got = !poll.units.is_empty();
        if got {
            behind_since.get_or_insert_with(Instant::now);
            apply_units(
                args,
                &mut target,
                &shown,
                &keymap,
                &feed,
                &poll.units,
                &mut ops,
                &mut n,
            )?;
            let cur = feed.cursor();
            retrying(args, &mut target, &shown, &mut n.errors, |t| {
                store.save(t, &cur)
            })?;
            if copying {
                bar.set_position(
                    cur.position
                        .saturating_sub(c.position)
                        .min(bar.length().unwrap_or(0)),
                );
            }
        }
        let caught_up = feed.cursor().position >= feed.durable_end();
        if caught_up {
            behind_since = None;
        }
        if copying && (caught_up || feed.cursor().position >= copy_end) {
            copying = false;
            bar.finish_and_clear();
            if !args.follow {
                break;
            }
        }
        // While copying, the bar says it on a terminal; JSON ticks go on.
        let show = ui.json || !copying || bar.is_hidden();
        if show && last_tick.elapsed() >= args.interval {
            let secs = last_tick.elapsed().as_secs_f64().max(1e-3);
            let tick = tick(
                if copying { "copy" } else { "status" },
                &feed,
                &n,
                behind_since,
                (n.applied_ops - ops_at_tick) as f64 / secs,
            );
            print_tick(ui, &tick)?;
            last_tick = Instant::now();
            ops_at_tick = n.applied_ops;
        }
        if !got {
            std::thread::sleep(POLL_IDLE);
        }
    }
    let secs = began.elapsed().as_secs_f64().max(1e-3);
    let done = tick("done", &feed, &n, None, n.applied_ops as f64 / secs);
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

fn tick<'a>(
    event: &'a str,
    feed: &ChangeFeed,
    n: &Counters,
    behind_since: Option<Instant>,
    ops_per_s: f64,
) -> Tick<'a> {
    let c = feed.cursor();
    Tick {
        event,
        generation: c.generation,
        position: c.position,
        durable_end: feed.durable_end(),
        lag_bytes: feed.durable_end().saturating_sub(c.position),
        lag_ms: behind_since.map_or(0, |t| t.elapsed().as_millis() as u64),
        ops_per_s: ops_per_s as u64,
        applied_ops: n.applied_ops,
        units: n.units,
        errors: n.errors,
        resends: n.resends,
    }
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

/// Turn units into target operations and send them, in order. A clear or a
/// namespace drop first sends what came before it, then deletes the
/// namespace's keys.
#[allow(clippy::too_many_arguments)]
fn apply_units(
    args: &SyncArgs,
    target: &mut Target,
    shown: &str,
    keymap: &KeyMap,
    feed: &ChangeFeed,
    units: &[Unit],
    ops: &mut Vec<Op>,
    n: &mut Counters,
) -> CliResult {
    let now = now_ms();
    for unit in units {
        n.units += 1;
        for change in &unit.changes {
            match change {
                Change::Put {
                    namespace,
                    key,
                    value,
                    expires_at_ms,
                } => {
                    let k = keymap.key(namespace, key);
                    match expires_at_ms {
                        // Expired records are not sent; an older value goes.
                        Some(at) if *at <= now => ops.push(Op::Del(k)),
                        Some(at) => {
                            ops.push(Op::Set(k.clone(), value.clone()));
                            ops.push(Op::ExpireAt(k, *at));
                        }
                        None => ops.push(Op::Set(k, value.clone())),
                    }
                }
                Change::Delete { namespace, key } => ops.push(Op::Del(keymap.key(namespace, key))),
                Change::CreateNamespace { .. } => {}
                Change::Clear { namespace } | Change::DropNamespace { namespace } => {
                    send(args, target, shown, ops, n)?;
                    let live = feed.namespaces();
                    delete_namespace(args, target, shown, keymap, namespace, &live, ops, n)?;
                }
            }
        }
        if ops.len() >= BATCH_OPS {
            send(args, target, shown, ops, n)?;
        }
    }
    send(args, target, shown, ops, n)
}

/// Send and empty `ops`, retrying the whole pipeline on failure.
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

/// Before a resend: delete every key of the target but sync cursors.
fn clear_target(
    args: &SyncArgs,
    target: &mut Target,
    shown: &str,
    store: &CursorStore,
    n: &mut Counters,
) -> CliResult {
    let keys = retrying(args, target, shown, &mut n.errors, |t| t.scan(b"*"))?;
    let mut ops: Vec<Op> = keys
        .into_iter()
        .filter(|k| !cursor::is_cursor_key(k))
        .map(Op::Del)
        .collect();
    let mut n2 = Counters::default();
    for chunk in ops.chunks(BATCH_OPS) {
        let mut c = chunk.to_vec();
        send(args, target, shown, &mut c, &mut n2)?;
    }
    ops.clear();
    n.errors += n2.errors;
    retrying(args, target, shown, &mut n.errors, |t| store.forget(t))
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
    let first = Instant::now();
    let mut wait = Duration::from_millis(50);
    loop {
        match f(target) {
            Ok(v) => return Ok(v),
            Err(e) => {
                *errors += 1;
                target.reset();
                if first.elapsed() + wait > args.retry_for {
                    return Err(target_down(shown, &e));
                }
                eprintln!(
                    "emdb sync: target error ({e}); retrying in {} ms",
                    wait.as_millis()
                );
                std::thread::sleep(wait);
                wait = (wait * 2).min(Duration::from_secs(5));
            }
        }
    }
}

/// Exit 8: the target cannot be reached or keeps failing.
fn target_down(shown: &str, e: &redis::RedisError) -> CliError {
    CliError::new(
        Kind::TargetDown,
        format!("target {shown} is not usable: {e}"),
    )
    .hint(
        "check that Redis is running and reachable; a restarted sync resumes from its saved cursor",
    )
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
