//! Random `get`s on 1, 2 and 4 threads sharing one emdb-core handle.
//! Throughput is aggregate gets per second. `EMDB_BENCH_RECORDS` (default
//! 1,000,000) sizes the database.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::Barrier;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use emdb_benches::fixtures;
use emdb_core::FlushPolicy;

fn concurrent_reads(c: &mut Criterion) {
    let n = fixtures::records(1_000_000);
    let dir = tempfile::tempdir().unwrap();
    let keys = fixtures::keys(n, 1);
    let db = fixtures::filled(dir.path(), FlushPolicy::OnEachFlush, &keys).unwrap();
    // Each thread walks its own shuffled copy front to back: random records,
    // but the key fetch itself streams (no extra cache miss per get).
    let orders: Vec<Vec<[u8; 24]>> = (0..4).map(|t| fixtures::shuffled(&keys, t + 20)).collect();

    let mut g = c.benchmark_group("concurrent_reads");
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(5));
    for threads in [1usize, 2, 4] {
        for zerocopy in [false, true] {
            let name = if zerocopy { "get_zerocopy" } else { "get" };
            g.bench_function(BenchmarkId::new(name, threads), |b| {
                b.iter_custom(|iters| {
                    let per_thread = iters.div_ceil(threads as u64);
                    let start = Barrier::new(threads + 1);
                    std::thread::scope(|s| {
                        for order in orders.iter().take(threads) {
                            let (db, start) = (&db, &start);
                            s.spawn(move || {
                                start.wait();
                                for i in 0..per_thread as usize {
                                    let k = &order[i % order.len()];
                                    if zerocopy {
                                        std::hint::black_box(db.get_zerocopy(k).unwrap());
                                    } else {
                                        std::hint::black_box(db.get(k).unwrap());
                                    }
                                }
                            });
                        }
                        start.wait();
                        let t = Instant::now();
                        // Leaving the scope joins every reader.
                        t
                    })
                    .elapsed()
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, concurrent_reads);
criterion_main!(benches);
