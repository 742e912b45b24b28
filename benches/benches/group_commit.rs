//! Eight threads, each writing one record and then calling `flush` (durable
//! per record): `FlushPolicy::OnEachFlush` (one fdatasync per flush) against
//! `FlushPolicy::Group` (concurrent flushes share one fdatasync). Throughput
//! is aggregate durable writes per second.
//!
//! `EMDB_BENCH_GC_THREADS` (default 8), `EMDB_BENCH_GC_MAX_WAIT_US`
//! (default 200) and `EMDB_BENCH_GC_MAX_BATCH` (default: the thread count).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::Barrier;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use emdb_benches::fixtures;
use emdb_benches::workload::Rng;
use emdb_core::{Emdb, FlushPolicy};

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn group_commit(c: &mut Criterion) {
    let threads = env_or("EMDB_BENCH_GC_THREADS", 8) as usize;
    let max_wait = Duration::from_micros(env_or("EMDB_BENCH_GC_MAX_WAIT_US", 200));
    let max_batch = env_or("EMDB_BENCH_GC_MAX_BATCH", threads as u64) as usize;
    let policies = [
        ("OnEachFlush", FlushPolicy::OnEachFlush),
        (
            "Group",
            FlushPolicy::Group {
                max_wait,
                max_batch,
            },
        ),
    ];

    let mut g = c.benchmark_group(format!("group_commit_{threads}_threads"));
    g.throughput(Throughput::Elements(1));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(5));
    for (name, policy) in policies {
        let dir = tempfile::tempdir().unwrap();
        let db = Emdb::builder()
            .path(dir.path().join("gc.emdb"))
            .flush_policy(policy)
            .build()
            .unwrap();
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let per_thread = iters.div_ceil(threads as u64);
                let start = Barrier::new(threads + 1);
                std::thread::scope(|s| {
                    for t in 0..threads {
                        let (db, start) = (&db, &start);
                        s.spawn(move || {
                            let mut rng = Rng::new(t as u64 + 100);
                            let value = fixtures::value(&mut rng);
                            start.wait();
                            for _ in 0..per_thread {
                                let mut k = [0u8; 24];
                                rng.fill(&mut k);
                                db.insert(k, value).unwrap();
                                db.flush().unwrap();
                            }
                        });
                    }
                    start.wait();
                    Instant::now()
                })
                .elapsed()
            })
        });
        let s = db.stats().unwrap();
        eprintln!(
            "{name}: {} flushes, {} fdatasyncs ({:.2} flushes per sync), fsync p50 {:?}",
            s.flushes,
            s.fsyncs,
            s.flushes as f64 / s.fsyncs.max(1) as f64,
            s.fsync_p50
        );
    }
    g.finish();
}

criterion_group!(benches, group_commit);
criterion_main!(benches);
