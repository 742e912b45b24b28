//! Random range reads (seek to an existing key, read `LEN` pairs, default
//! 10): for profiling the `random range reads` phase. `N` records (default
//! 1,000,000); `COMPACT=1` compacts first (the log is then in key order);
//! `ROUNDS` timed passes (default 3); `ZEROCOPY=1` reads each pair through
//! `RangeIter::next_map` instead of copying it; `WRITES=K` inserts `K` new
//! pairs before each range read (timed with it), so every read first sorts
//! what was written since the last one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use emdb_benches::workload::Rng;
use emdb_benches::{env, read_range};
use emdb_core::Emdb;

fn main() {
    let n = env("N", 1_000_000) as usize;
    // Pairs per range read (10 in the phase bench); LEN=1 times the seeks.
    let len = env("LEN", 10) as usize;
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("r.emdb"))
        .enable_range_scans(true)
        .build()
        .unwrap();
    let mut rng = Rng::new(1);
    let pairs: Vec<_> = (0..n).map(|_| rng.pair()).collect();
    db.insert_many(pairs.iter().map(|p| (&p.key, &p.value)))
        .unwrap();
    // COMPACT=1: compact first, so the log is in key order.
    if std::env::var("COMPACT").is_ok_and(|v| v == "1") {
        let t = Instant::now();
        db.compact().unwrap();
        println!("compaction: {:?}", t.elapsed());
    }
    let starts: Vec<[u8; 24]> = (0..n / 10).map(|_| pairs[rng.below(n)].key).collect();
    // ZEROCOPY=1: read through `RangeIter::next_map` (no copies).
    let zerocopy = std::env::var("ZEROCOPY").is_ok_and(|v| v == "1");
    // ROUNDS: timed passes over the starts (default 3).
    let rounds = env("ROUNDS", 3) as usize;
    // WRITES=K: K new pairs before each range read.
    let writes = env("WRITES", 0) as usize;
    let fresh: Vec<_> = (0..rounds * starts.len() * writes)
        .map(|_| rng.pair())
        .collect();
    let mut fresh = fresh.iter();
    for _ in 0..rounds {
        let t = Instant::now();
        let mut found = 0usize;
        for s in &starts {
            for p in fresh.by_ref().take(writes) {
                db.insert(p.key, p.value).unwrap();
            }
            found += read_range(&db, s, len, zerocopy).unwrap();
        }
        let el = t.elapsed();
        println!(
            "{} range reads of {len}: {el:?} ({:.0} ns per pair, {found})",
            starts.len(),
            el.as_nanos() as f64 / (starts.len() * len) as f64
        );
    }
}
