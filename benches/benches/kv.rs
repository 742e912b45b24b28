//! emdb-core hot paths, one thread, default options: insert (new key and
//! overwrite), insert_many, get (copying and zero-copy, hit and miss),
//! remove. `EMDB_BENCH_RECORDS` (default 1,000,000) sizes the database.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use emdb_benches::fixtures;
use emdb_benches::workload::Rng;
use emdb_core::FlushPolicy;

fn kv(c: &mut Criterion) {
    let n = fixtures::records(1_000_000);
    let dir = tempfile::tempdir().unwrap();
    let keys = fixtures::keys(n, 1);
    let db = fixtures::filled(dir.path(), FlushPolicy::OnEachFlush, &keys).unwrap();
    let mut rng = Rng::new(2);
    // Walked in order: each get hits a random record, the key fetch does not miss.
    let order = fixtures::shuffled(&keys, 6);
    let mut at = 0usize;
    let mut next_key = move || {
        at = if at + 1 == order.len() { 0 } else { at + 1 };
        order[at]
    };

    let mut g = c.benchmark_group("kv");
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(5));

    g.bench_function("get", |b| b.iter(|| db.get(next_key()).unwrap()));
    g.bench_function("get_zerocopy", |b| {
        b.iter(|| db.get_zerocopy(next_key()).unwrap())
    });
    let absent = fixtures::keys(4096, 3);
    g.bench_function("get_miss", |b| {
        b.iter(|| db.get(absent[rng.below(absent.len())]).unwrap())
    });

    let value = fixtures::value(&mut rng);
    g.bench_function("insert_overwrite", |b| {
        b.iter(|| db.insert(next_key(), value).unwrap())
    });
    let mut fresh = Rng::new(4);
    g.bench_function("insert_new", |b| {
        b.iter_batched(
            || {
                let mut k = [0u8; 24];
                fresh.fill(&mut k);
                k
            },
            |k| db.insert(k, value).unwrap(),
            BatchSize::SmallInput,
        )
    });
    // Remove keys inserted just before (not timed), so every remove hits.
    let mut doomed = Rng::new(5);
    g.bench_function("remove", |b| {
        b.iter_custom(|iters| {
            let ks: Vec<[u8; 24]> = (0..iters)
                .map(|_| {
                    let mut k = [0u8; 24];
                    doomed.fill(&mut k);
                    k
                })
                .collect();
            db.insert_many(ks.iter().map(|k| (k, value))).unwrap();
            let t = Instant::now();
            for k in &ks {
                db.remove(k).unwrap();
            }
            t.elapsed()
        })
    });

    let batch: Vec<([u8; 24], [u8; 150])> = (0..1000)
        .map(|i| (keys[i % n], fixtures::value(&mut rng)))
        .collect();
    g.throughput(Throughput::Elements(batch.len() as u64));
    g.bench_function("insert_many_1000", |b| {
        b.iter(|| db.insert_many(batch.iter().map(|(k, v)| (k, v))).unwrap())
    });
    g.finish();
}

criterion_group!(benches, kv);
criterion_main!(benches);
