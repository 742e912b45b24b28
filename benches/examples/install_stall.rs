//! How long single writes wait while the writer's background checkpoint
//! is installed after a bulk load: `N` pairs (default 1,000,000) loaded
//! with one `insert_many` and no ordered read (so the sorted order is
//! dropped), then unsynced single inserts for `SECS` seconds (default 6),
//! each timed. The checkpointer's first look, a second after open, finds
//! the load's tail and checkpoints it while the inserts run; its install
//! takes the dropped order up again with the records written since (later
//! checkpoints find it kept).
//! Prints the slowest inserts and how many took over 1, 5 and 20 ms.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use emdb_benches::env;
use emdb_benches::workload::Rng;
use emdb_core::Emdb;

fn main() {
    let n = env("N", 1_000_000) as usize;
    let secs = env("SECS", 6);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.emdb");
    let db = Emdb::open(&path).unwrap();
    let mut rng = Rng::new(7);
    let pairs: Vec<_> = (0..n).map(|_| rng.pair()).collect();
    db.insert_many(pairs.iter().map(|p| (&p.key, &p.value)))
        .unwrap();
    drop(pairs);
    let ckpt = path.with_extension("emdb.ckpt");
    let modified = || std::fs::metadata(&ckpt).and_then(|m| m.modified()).ok();
    let before = modified();
    let mut slow: Vec<(Duration, Duration)> = Vec::new();
    let mut count = 0u64;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(secs) {
        let p = rng.pair();
        let t = Instant::now();
        db.insert(p.key, p.value).unwrap();
        let took = t.elapsed();
        count += 1;
        if took >= Duration::from_millis(1) {
            slow.push((took, t - start));
        }
    }
    slow.sort_unstable_by_key(|s| std::cmp::Reverse(s.0));
    let over = |ms: u64| {
        slow.iter()
            .filter(|s| s.0 >= Duration::from_millis(ms))
            .count()
    };
    println!(
        "{count} inserts in {secs} s; over 1 ms: {}, over 5 ms: {}, over 20 ms: {}; checkpoint written: {}",
        over(1),
        over(5),
        over(20),
        modified() != before
    );
    for (took, at) in slow.iter().take(5) {
        println!("  {took:?} at {at:?}");
    }
}
