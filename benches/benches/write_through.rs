//! One thread, one durable record at a time: `insert` + `flush` under
//! `FlushPolicy::OnEachFlush` against `insert` alone under
//! `FlushPolicy::WriteThrough` (O_DSYNC writes: durable when `insert`
//! returns). Throughput is durable writes per second.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use emdb_benches::fixtures;
use emdb_benches::workload::Rng;
use emdb_core::{Emdb, FlushPolicy};

fn write_through(c: &mut Criterion) {
    let mut g = c.benchmark_group("write_through");
    g.throughput(Throughput::Elements(1));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(5));
    for (name, policy) in [
        ("OnEachFlush insert+flush", FlushPolicy::OnEachFlush),
        ("WriteThrough insert", FlushPolicy::WriteThrough),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let db = Emdb::builder()
            .path(dir.path().join("wt.emdb"))
            .flush_policy(policy)
            .build()
            .unwrap();
        let mut rng = Rng::new(9);
        let value = fixtures::value(&mut rng);
        let write_through = policy == FlushPolicy::WriteThrough;
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut k = [0u8; 24];
                rng.fill(&mut k);
                db.insert(k, value).unwrap();
                if !write_through {
                    db.flush().unwrap();
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, write_through);
criterion_main!(benches);
