//! The phase bench's random range reads in the state the phase reads them
//! in, repeated: a bulk load of `N` pairs (default 1,000,000), the
//! individual, batch and unsynced writes, one pass of random reads, a
//! pause of `SLEEP` seconds (default 3) for the writer's background
//! checkpoint to sort the order, then `ROUNDS` timed passes (default 4) of
//! the phase's range reads. `ZEROCOPY=1` reads each pair through
//! `RangeIter::next_map`, as the phase bench's emdb-core peer does;
//! otherwise through the iterator (two copies per pair). Each round also
//! prints the time of its first 10,000 range reads.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use emdb_benches::workload::{Workload, RANGE_LEN};
use emdb_benches::{env, read_range};
use emdb_core::Emdb;

/// Range reads whose time each round also prints apart: the first of a
/// handle's seeks can run before its base's fences are there.
const FIRST: usize = 10_000;

fn main() {
    let n = env("N", 1_000_000) as usize;
    let zerocopy = std::env::var("ZEROCOPY").is_ok_and(|v| v == "1");
    let w = Workload::generate(n, 0x5EED);
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::open(dir.path().join("r.emdb")).unwrap();
    let pairs =
        |p: &[emdb_benches::workload::Pair]| p.iter().map(|p| (p.key, p.value)).collect::<Vec<_>>();
    db.insert_many(pairs(&w.records)).unwrap();
    db.flush().unwrap();
    for p in &w.individual {
        db.insert(p.key, p.value).unwrap();
        db.flush().unwrap();
    }
    for c in w.batches.chunks(w.batch_size) {
        db.insert_many(pairs(c)).unwrap();
        db.flush().unwrap();
    }
    for p in &w.nosync {
        db.insert(p.key, p.value).unwrap();
    }
    let mut sum = 0usize;
    for k in &w.read_order {
        sum += db.get_zerocopy(k).unwrap().map_or(0, |v| v.len());
    }
    assert_eq!(sum, n * w.records[0].value.len());
    std::thread::sleep(Duration::from_secs(env("SLEEP", 3)));
    for round in 0..env("ROUNDS", 4) {
        let t = Instant::now();
        let mut found = 0usize;
        let mut first = Duration::ZERO;
        for (i, s) in w.range_starts.iter().enumerate() {
            if i == FIRST {
                first = t.elapsed();
            }
            found += read_range(&db, s, RANGE_LEN, zerocopy).unwrap();
        }
        println!(
            "round {round}: {} range reads of {RANGE_LEN}: {:?}, the first {FIRST} {first:?} \
             ({found} value bytes)",
            w.range_starts.len(),
            t.elapsed()
        );
    }
}
