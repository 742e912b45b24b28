//! What the writer's automatic checkpoints cost and what they bound: a
//! database of `N` keys (default 1,000,000; `user:%08d`, 100-byte values)
//! is loaded and closed, then a writer overwrites random keys one `insert`
//! at a time (no flush) for `SECS` seconds (default 20) while
//!
//! - a watcher thread times each automatic checkpoint (from its temp file
//!   appearing to the rename that installs it, polled every millisecond),
//! - every half second, on another thread, a read-only handle is opened
//!   (pinned, no follower) and one key read, which grows with the log
//!   written since the last checkpoint; then the same key is read with
//!   `EmdbBuilder::read_one_key`, which a one-shot `emdb get` runs (the
//!   tail is scanned, and only that key's records indexed), a range of
//!   about 100 keys with `range_once` (a one-shot `emdb scan --prefix`),
//!   the first 10 keys with `range_once_first` (a one-shot `emdb scan
//!   --limit 10`), and every key counted with `read_counts` (a one-shot
//!   `emdb count`), which must find all `N` keys,
//! - every insert is timed (a checkpoint copies the index under the writer
//!   lock: the longest insert shows that stall).
//!
//! `cargo run --release -p emdb-benches --example tail_bound`
//! (`N=10000000 SECS=60` for the 10M figure in docs/BENCH.md; `RATE=W`
//! caps the writer at W inserts a second, default as fast as it goes;
//! `LEAVE=DIR` only writes SECS seconds of overwrites, flushes and exits
//! without closing, leaving `DIR/tail.emdb` with that tail to replay;
//! with `INDEXED=1` that writer runs its automatic checkpointer, capped at
//! RATE, so the tail it leaves has the tail indexes a running writer's
//! has). `ENCRYPT=1` encrypts the database (a fixed raw key) and every
//! handle opens it with that key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use emdb_benches::env;
use emdb_benches::workload::Rng;
use emdb_core::{Emdb, EmdbBuilder};

/// One probe of the reader thread: the tail a read-only open replayed,
/// and the times of that open, `read_one_key`, `range_once`,
/// `read_counts` and `range_once_first`.
type Probe = (u64, Duration, Duration, Duration, Duration, Duration);

/// Which time of a [`Probe`] a summary line reports.
type ProbeTime = fn(&Probe) -> Duration;

/// A builder for `path`, with the example's key when `ENCRYPT=1`.
fn builder(path: &std::path::Path) -> EmdbBuilder {
    let b = Emdb::builder().path(path);
    if env("ENCRYPT", 0) != 0 {
        b.encryption_key([0x42; 32])
    } else {
        b
    }
}

fn key(i: u64) -> String {
    format!("user:{i:08}")
}

fn main() {
    let n = env("N", 1_000_000);
    let secs = env("SECS", 20);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tail.emdb");
    {
        let db = builder(&path).build().unwrap();
        let value = [b'v'; 100];
        let mut i = 0;
        while i < n {
            let end = (i + 100_000).min(n);
            db.insert_many((i..end).map(|j| (key(j), value))).unwrap();
            i = end;
        }
        db.close().unwrap();
    }
    let ckpt = path.with_extension("emdb.ckpt");
    let image = std::fs::metadata(&ckpt).unwrap().len();
    println!(
        "{n} keys loaded; checkpoint {:.1} MiB",
        image as f64 / 1048576.0
    );

    let stop = Arc::new(AtomicBool::new(false));
    // How long each automatic checkpoint's (and tail index's) temp file
    // existed: from its creation to its rename.
    let watch = |suffix: &str| {
        let stop = Arc::clone(&stop);
        let tmp = path.with_extension(suffix);
        let start = Instant::now();
        std::thread::spawn(move || {
            let mut seen: Option<Instant> = None;
            let mut out = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                match (tmp.exists(), seen) {
                    (true, None) => seen = Some(Instant::now()),
                    (false, Some(t)) => {
                        out.push((t - start, t.elapsed()));
                        seen = None;
                    }
                    _ => {}
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            out
        })
    };
    let watcher = watch("emdb.ckpt.auto.tmp");
    let tail_watcher = watch("emdb.tail.tmp");

    // LEAVE=DIR: write SECS seconds of overwrites with no automatic
    // checkpoint, flush, and exit without closing (as a crash would), into
    // DIR/tail.emdb: a tail to profile a reader's open on.
    if let Ok(keep) = std::env::var("LEAVE") {
        let kept = std::path::Path::new(&keep).join("tail.emdb");
        std::fs::create_dir_all(&keep).unwrap();
        for suffix in ["", ".ckpt"] {
            let mut from = path.as_os_str().to_owned();
            from.push(suffix);
            let mut to = kept.as_os_str().to_owned();
            to.push(suffix);
            std::fs::copy(&from, &to).unwrap();
        }
        let indexed = env("INDEXED", 0) != 0;
        let rate = if indexed { env("RATE", 0) } else { 0 };
        let db = builder(&kept)
            .checkpoint_tail(if indexed { Some(8 << 20) } else { None })
            .build()
            .unwrap();
        let mut rng = Rng::new(7);
        let start = Instant::now();
        let value = [b'x'; 100];
        let mut written = 0u64;
        while start.elapsed() < Duration::from_secs(secs) {
            db.insert(key(rng.below(n as usize) as u64), value).unwrap();
            written += 1;
            if rate > 0 {
                let due = Duration::from_secs_f64(written as f64 / rate as f64);
                if let Some(wait) = due.checked_sub(start.elapsed()) {
                    std::thread::sleep(wait);
                }
            }
        }
        db.flush().unwrap();
        println!("left {} with a tail", kept.display());
        std::process::exit(0);
    }
    let db = builder(&path).build().unwrap();
    println!(
        "writer's index memory: {:.1} MiB",
        db.stats().unwrap().index_memory_bytes as f64 / 1048576.0
    );
    // The readers, on their own thread: a read-only open and one get every
    // half second.
    let prober = {
        let stop = Arc::clone(&stop);
        let path = path.clone();
        let start = Instant::now();
        std::thread::spawn(move || {
            let mut probes = Vec::new();
            let mut rng = Rng::new(11);
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(500));
                let log = std::fs::metadata(&path).unwrap().len();
                let k = key(rng.below(n as usize) as u64);
                let t = Instant::now();
                let ro = builder(&path)
                    .read_only(true)
                    .follow(false)
                    .build()
                    .unwrap();
                let got = ro.get(&k).unwrap();
                let open = t.elapsed();
                assert!(got.is_some(), "the reader lost {k}");
                let report = ro.recovery_report();
                if std::env::var("VERBOSE").is_ok() {
                    println!(
                        "  probe at {:.1} s: log {} MiB, checkpoint used: {}, replayed {:.1} MiB, {:.1} ms",
                        start.elapsed().as_secs_f64(),
                        log >> 20,
                        report.used_checkpoint,
                        report.replayed_bytes as f64 / 1048576.0,
                        open.as_secs_f64() * 1e3
                    );
                }
                let replayed = report.replayed_bytes;
                drop(ro);
                // What `emdb get` does: the same read with only this key's
                // records of the tail indexed.
                let t = Instant::now();
                let one = builder(&path).read_one_key(None, k.as_bytes());
                let one_key = t.elapsed();
                assert!(
                    matches!(one, Ok(emdb_core::OneKey::Found(_))),
                    "the one-key read lost {k}: {one:?}"
                );
                let (one_range, first_ten, count) = {
                    // What a one-shot `emdb scan --prefix` does: about 100 keys
                    // (the key's first 11 bytes), through `range_once`.
                    let prefix = &k.as_bytes()[..11];
                    let end = emdb_core::prefix_end(prefix);
                    let t = Instant::now();
                    let pairs = builder(&path)
                        .range_once(
                            None,
                            std::ops::Bound::Included(prefix),
                            end.as_ref().map(Vec::as_slice),
                        )
                        .unwrap()
                        .unwrap()
                        .count();
                    let one_range = t.elapsed();
                    assert!(pairs >= 10, "the range read found {pairs} pairs");
                    // What a one-shot `emdb scan --limit 10` does.
                    let t = Instant::now();
                    let first: Vec<Vec<u8>> = builder(&path)
                        .range_once_first(
                            None,
                            std::ops::Bound::Unbounded,
                            std::ops::Bound::Unbounded,
                            10,
                        )
                        .unwrap()
                        .unwrap()
                        .take(10)
                        .map(|p| p.unwrap().0)
                        .collect();
                    let first_ten = t.elapsed();
                    assert_eq!(
                        first,
                        (0..10).map(|i| key(i).into_bytes()).collect::<Vec<_>>()
                    );
                    // What a one-shot `emdb count` does (only overwrites are
                    // written: every key is there).
                    let t = Instant::now();
                    let counts = builder(&path).read_counts().unwrap();
                    let count = t.elapsed();
                    assert_eq!(counts.default, n, "the count");
                    (one_range, first_ten, count)
                };
                probes.push((replayed, open, one_key, one_range, count, first_ten));
            }
            probes
        })
    };
    let rate = env("RATE", 0);
    let mut rng = Rng::new(7);
    let start = Instant::now();
    let mut lat: Vec<Duration> = Vec::new();
    let mut value = [b'w'; 100];
    while start.elapsed() < Duration::from_secs(secs) {
        let k = key(rng.below(n as usize) as u64);
        value[0] = value[0].wrapping_add(1);
        let t = Instant::now();
        db.insert(&k, value).unwrap();
        lat.push(t.elapsed());
        if rate > 0 {
            // RATE writes a second at most.
            let due = Duration::from_secs_f64(lat.len() as f64 / rate as f64);
            if let Some(wait) = due.checked_sub(start.elapsed()) {
                std::thread::sleep(wait);
            }
        }
    }
    println!(
        "writer's index memory at the end: {:.1} MiB",
        db.stats().unwrap().index_memory_bytes as f64 / 1048576.0
    );
    stop.store(true, Ordering::Relaxed);
    let checkpoints = watcher.join().unwrap();
    let mut tail_indexes: Vec<Duration> = tail_watcher
        .join()
        .unwrap()
        .into_iter()
        .map(|t| t.1)
        .collect();
    tail_indexes.sort_unstable();
    let probes = prober.join().unwrap();
    let writes = lat.len();
    lat.sort_unstable();
    let pct = |p: f64| lat[((writes as f64 * p) as usize).min(writes - 1)];
    println!(
        "{writes} inserts in {secs} s: p50 {:?}, p99 {:?}, p99.99 {:?}, max {:?}",
        pct(0.5),
        pct(0.99),
        pct(0.9999),
        lat[writes - 1]
    );
    println!("automatic checkpoints (start, duration):");
    for (at, d) in &checkpoints {
        println!(
            "  at {:>6.1} s: {:>7.1} ms",
            at.as_secs_f64(),
            d.as_secs_f64() * 1e3
        );
    }
    if !tail_indexes.is_empty() {
        println!(
            "tail indexes written: {}, median {:.1} ms, max {:.1} ms each (scan, write, fsync)",
            tail_indexes.len(),
            tail_indexes[tail_indexes.len() / 2].as_secs_f64() * 1e3,
            tail_indexes[tail_indexes.len() - 1].as_secs_f64() * 1e3
        );
    }
    let mut opens: Vec<Duration> = probes.iter().map(|p| p.1).collect();
    opens.sort_unstable();
    let worst = probes.iter().max_by_key(|p| p.1).unwrap();
    println!(
        "read-only open + one get beside the writer, {} probes: median {:.2} ms, max {:.2} ms \
         (replayed {:.1} MiB of tail then)",
        opens.len(),
        opens[opens.len() / 2].as_secs_f64() * 1e3,
        worst.1.as_secs_f64() * 1e3,
        worst.0 as f64 / 1048576.0
    );
    let timed: [(&str, ProbeTime); 4] = [
        ("one-key read (read_one_key, what `emdb get` runs)", |p| p.2),
        (
            "one-range read (range_once of ~100 keys, what `emdb scan --prefix` runs)",
            |p| p.3,
        ),
        ("count (read_counts, what `emdb count` runs)", |p| p.4),
        (
            "first 10 keys (range_once_first, what `emdb scan --limit 10` runs)",
            |p| p.5,
        ),
    ];
    for &(what, time) in &timed {
        let mut times: Vec<Duration> = probes.iter().map(time).collect();
        times.sort_unstable();
        println!(
            "{what} beside the writer: median {:.2} ms, max {:.2} ms",
            times[times.len() / 2].as_secs_f64() * 1e3,
            times[times.len() - 1].as_secs_f64() * 1e3
        );
    }
    let most = probes.iter().map(|p| p.0).max().unwrap_or(0);
    println!(
        "largest tail a reader replayed: {:.1} MiB ({:.2}x the checkpoint image)",
        most as f64 / 1048576.0,
        most as f64 / image as f64
    );
}
