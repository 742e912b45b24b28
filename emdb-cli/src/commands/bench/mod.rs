//! `emdb bench`: the seed workloads (sequential set, get, mixed 50% get /
//! 40% set / 10% delete), their latency percentiles, and reopen / replay
//! time, on a throwaway database and optionally on a Redis server.

mod redis;

use std::path::Path;
use std::time::{Duration, Instant};

use emdb_core::Emdb;
use indicatif::ProgressBar;

use crate::cli::{BenchArgs, GlobalArgs};
use crate::database::{sibling, Session};
use crate::error::{CliError, CliResult};
use crate::output::{BenchReport, BenchResult, ReopenReport, Ui};
use crate::progress;

/// One connection (or database handle) a benchmark thread works through.
pub trait Conn {
    /// Store `value` under `key`.
    fn set(&mut self, key: &[u8], value: &[u8]) -> CliResult;
    /// Read `key`; true when it exists.
    fn get(&mut self, key: &[u8]) -> CliResult<bool>;
    /// Delete `key`.
    fn del(&mut self, key: &[u8]) -> CliResult;
}

/// An emdb handle (clones share one engine).
struct EmdbConn(Emdb);

impl Conn for EmdbConn {
    fn set(&mut self, key: &[u8], value: &[u8]) -> CliResult {
        Ok(self.0.insert(key, value)?)
    }

    fn get(&mut self, key: &[u8]) -> CliResult<bool> {
        Ok(self.0.get_zerocopy(key)?.is_some())
    }

    fn del(&mut self, key: &[u8]) -> CliResult {
        self.0.remove(key)?;
        Ok(())
    }
}

/// What a workload is made of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Workload {
    /// Key 0, 1, 2, ... once each.
    Set,
    /// Random existing keys.
    Get,
    /// 50% get, 40% set, 10% delete of random keys.
    Mixed,
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Workload::Set => "set",
            Workload::Get => "get",
            Workload::Mixed => "mixed",
        }
    }
}

/// The benchmark's parameters.
struct Params {
    records: u64,
    threads: u64,
    value: Vec<u8>,
    quiet: bool,
}

/// Keys are `emdb-bench:` and 12 digits: 23 bytes, as the phase bench's
/// 24-byte keys.
fn key(i: u64) -> Vec<u8> {
    format!("emdb-bench:{i:012}").into_bytes()
}

/// Run the benchmark and print one table (or one JSON document).
pub fn run(args: &BenchArgs, global: &GlobalArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let params = Params {
        records: args.records,
        threads: args.threads,
        value: (0..args.value_size)
            .map(|i| b'a' + (i % 26) as u8)
            .collect(),
        quiet: ui.quiet,
    };
    let redis = args
        .redis
        .as_ref()
        .map(|url| redis::Target::parse(&url.0))
        .transpose()?;
    let secret = s.secret()?;
    // Only a --db typed on this command line is used: EMDB_PATH or the
    // default database could hold real data.
    let (_tmp, path) = match (&global.db, global.db_on_command_line) {
        (Some(p), true) => {
            if p.exists() {
                return Err(CliError::usage(format!(
                    "{} exists; bench writes and deletes records, so it needs a new file",
                    p.display()
                ))
                .hint("give a path that does not exist yet, or leave out --db"));
            }
            (None, p.clone())
        }
        _ => {
            let dir = tempfile::Builder::new()
                .prefix("emdb-bench-")
                .tempdir()
                .map_err(|e| CliError::io("creating a temporary directory", None, e))?;
            let p = dir.path().join("bench.emdb");
            (Some(dir), p)
        }
    };
    // Ctrl-C or SIGTERM removes what the cleanup below would (tens of MB
    // per interrupted run otherwise, in TMPDIR or at --db).
    let _interrupt = match &_tmp {
        Some(dir) => crate::temps::remove_on_interrupt(Vec::new(), vec![dir.path().to_path_buf()]),
        None if args.keep => crate::temps::remove_on_interrupt(Vec::new(), Vec::new()),
        None => crate::temps::remove_on_interrupt(
            [
                "",
                ".ckpt",
                ".tail",
                ".lock",
                ".stats",
                ".ckpt.tmp",
                ".ckpt.auto.tmp",
                ".stats.tmp",
                ".tail.tmp",
                ".compact.tmp",
                ".create.tmp",
            ]
            .iter()
            .map(|x| sibling(&path, x))
            .collect(),
            Vec::new(),
        ),
    };
    let cleanup = |path: &Path| {
        if args.keep && global.db_on_command_line {
            return;
        }
        for suffix in ["", ".ckpt", ".tail", ".lock", ".stats"] {
            let _ = std::fs::remove_file(sibling(path, suffix));
        }
    };
    let outcome = run_emdb(&params, &path, secret.clone());
    cleanup(&path);
    let (mut results, reopen) = outcome?;
    if let Some(target) = &redis {
        let connect = || -> CliResult<Box<dyn Conn + Send>> { Ok(Box::new(target.connect()?)) };
        let ran = run_all("redis", &params, &connect, || Ok(()));
        let cleaned = delete_redis_keys(target, params.records);
        results.extend(ran?);
        cleaned?;
    }
    let report = BenchReport {
        records: params.records,
        value_size: args.value_size,
        threads: params.threads,
        path: path.display().to_string(),
        encrypted: secret.is_some(),
        redis: redis.map(|t| t.addr),
        results,
        reopen,
    };
    if ui.json {
        ui.json_line(&report)
    } else {
        print(&report, ui)
    }
}

/// The emdb workloads, then close, reopen from the checkpoint, and replay.
fn run_emdb(
    params: &Params,
    path: &Path,
    secret: Option<emdb_core::EncryptionInput>,
) -> CliResult<(Vec<BenchResult>, ReopenReport)> {
    let open = || -> CliResult<Emdb> {
        let mut b = Emdb::builder().path(path);
        if let Some(s) = secret.clone() {
            b = b.encryption(s);
        }
        Ok(b.build()?)
    };
    let db = open()?;
    let connect = || -> CliResult<Box<dyn Conn + Send>> { Ok(Box::new(EmdbConn(db.clone()))) };
    let results = run_all("emdb", params, &connect, || Ok(db.flush()?))?;
    let start = Instant::now();
    drop(db); // the last handle: syncs and writes the index checkpoint
    let close = start.elapsed();
    let file_bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let start = Instant::now();
    let db = open()?;
    let reopen = start.elapsed();
    let keys = db.len()? as u64;
    let used_checkpoint = db.recovery_report().used_checkpoint;
    drop(db);
    let _ = std::fs::remove_file(sibling(path, ".ckpt"));
    let start = Instant::now();
    let db = open()?;
    let replay = start.elapsed();
    let replayed = db.recovery_report().records_replayed;
    drop(db);
    Ok((
        results,
        ReopenReport {
            keys,
            file_bytes,
            close_ms: ms(close),
            reopen_ms: ms(reopen),
            reopen_used_checkpoint: used_checkpoint,
            replay_ms: ms(replay),
            records_replayed: replayed,
        },
    ))
}

/// Set, get and mixed, in that order; `sync` ends each writing workload
/// (and is timed with it).
fn run_all(
    engine: &'static str,
    params: &Params,
    connect: &(dyn Fn() -> CliResult<Box<dyn Conn + Send>> + Sync),
    sync: impl Fn() -> CliResult,
) -> CliResult<Vec<BenchResult>> {
    let mut results = Vec::new();
    for w in [Workload::Set, Workload::Get, Workload::Mixed] {
        let label = format!("{engine} {}", w.name());
        let pb = progress::bar(params.records, false, &label, params.quiet);
        let start = Instant::now();
        let mut lat = run_threads(w, params, connect, &pb)?;
        if w != Workload::Get {
            sync()?;
        }
        let seconds = start.elapsed().as_secs_f64();
        pb.finish_and_clear();
        lat.sort_unstable();
        results.push(BenchResult {
            engine,
            workload: w.name(),
            ops: params.records,
            seconds,
            ops_per_sec: params.records as f64 / seconds.max(1e-9),
            p50_us: percentile(&lat, 0.50),
            p95_us: percentile(&lat, 0.95),
            p99_us: percentile(&lat, 0.99),
        });
    }
    Ok(results)
}

/// Run `records` operations of `w` split over the threads; returns every
/// operation's latency in nanoseconds.
fn run_threads(
    w: Workload,
    params: &Params,
    connect: &(dyn Fn() -> CliResult<Box<dyn Conn + Send>> + Sync),
    pb: &ProgressBar,
) -> CliResult<Vec<u64>> {
    let n = params.records;
    let t = params.threads;
    let outcomes: Vec<CliResult<Vec<u64>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..t)
            .map(|i| {
                let range = (n * i / t)..(n * (i + 1) / t);
                scope.spawn(move || -> CliResult<Vec<u64>> {
                    let mut conn = connect()?;
                    thread_ops(w, range, i, params, conn.as_mut(), pb)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(CliError::new(
                        crate::error::Kind::Io,
                        "a benchmark thread panicked",
                    ))
                })
            })
            .collect()
    });
    let mut all = Vec::with_capacity(n as usize);
    for lat in outcomes {
        all.extend(lat?);
    }
    Ok(all)
}

fn thread_ops(
    w: Workload,
    range: std::ops::Range<u64>,
    thread: u64,
    params: &Params,
    conn: &mut dyn Conn,
    pb: &ProgressBar,
) -> CliResult<Vec<u64>> {
    let mut lat = Vec::with_capacity((range.end - range.start) as usize);
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15 ^ (thread + 1) ^ ((w as u64) << 32));
    let mut done = 0u64;
    for i in range {
        let (op, k) = match w {
            Workload::Set => (0, i),
            Workload::Get => (1, rng.below(params.records)),
            Workload::Mixed => {
                let r = rng.below(100);
                let op = if r < 50 {
                    1
                } else if r < 90 {
                    0
                } else {
                    2
                };
                (op, rng.below(params.records))
            }
        };
        let key = key(k);
        let start = Instant::now();
        match op {
            0 => conn.set(&key, &params.value)?,
            1 => {
                let found = conn.get(&key)?;
                if w == Workload::Get && !found {
                    return Err(CliError::new(
                        crate::error::Kind::Io,
                        format!("bench: key {k} written by the set workload is missing"),
                    ));
                }
            }
            _ => conn.del(&key)?,
        }
        lat.push(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX));
        done += 1;
        if done.is_multiple_of(1024) {
            pb.inc(1024);
        }
    }
    pb.inc(done % 1024);
    Ok(lat)
}

/// Remove the benchmark's keys from Redis, 512 per `DEL`.
fn delete_redis_keys(target: &redis::Target, records: u64) -> CliResult {
    let mut conn = target.connect()?;
    let mut i = 0;
    while i < records {
        let keys: Vec<Vec<u8>> = (i..records.min(i + 512)).map(key).collect();
        let mut parts: Vec<&[u8]> = vec![b"DEL"];
        parts.extend(keys.iter().map(Vec::as_slice));
        conn.call(&parts)?;
        i += 512;
    }
    Ok(())
}

/// xorshift64*: a fast, deterministic generator for key choice.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}

/// Quantile `q` of sorted nanosecond latencies, in microseconds.
fn percentile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() as f64) * q).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1] as f64 / 1000.0
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn print(r: &BenchReport, ui: &mut Ui) -> CliResult {
    let threads = if r.threads == 1 { "thread" } else { "threads" };
    ui.line(&format!(
        "{} records, {}-byte values, {} {threads}{}; database {}",
        r.records,
        r.value_size,
        r.threads,
        if r.encrypted { ", encrypted" } else { "" },
        r.path
    ))?;
    ui.line(&format!(
        "{:<7} {:<8} {:>12} {:>10} {:>10} {:>10} {:>10}",
        "engine", "workload", "ops/s", "total", "p50", "p95", "p99"
    ))?;
    for x in &r.results {
        ui.line(&format!(
            "{:<7} {:<8} {:>12.0} {:>8.1}ms {:>8.2}us {:>8.2}us {:>8.2}us",
            x.engine,
            x.workload,
            x.ops_per_sec,
            x.seconds * 1000.0,
            x.p50_us,
            x.p95_us,
            x.p99_us
        ))?;
    }
    let o = &r.reopen;
    ui.line(&format!(
        "emdb close (sync + checkpoint) {:.1}ms; reopen {:.1}ms ({}); full replay {:.1}ms ({} records); {} keys, {} bytes on disk",
        o.close_ms,
        o.reopen_ms,
        if o.reopen_used_checkpoint { "from the checkpoint" } else { "no checkpoint" },
        o.replay_ms,
        o.records_replayed,
        o.keys,
        o.file_bytes
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        let lat: Vec<u64> = (1..=100).map(|i| i * 1000).collect();
        assert_eq!(percentile(&lat, 0.5), 50.0);
        assert_eq!(percentile(&lat, 0.99), 99.0);
        assert_eq!(percentile(&[7000], 0.95), 7.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }

    #[test]
    fn rng_stays_in_range() {
        let mut r = Rng::new(1);
        assert!((0..1000).all(|_| r.below(10) < 10));
    }
}
