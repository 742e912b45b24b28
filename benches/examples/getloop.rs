//! Random-get loop for profiling emdb-core: keys regenerated from a seeded
//! RNG, not stored (no key-array cache miss). `N` records (default
//! 1,000,000), `THREADS` readers (default 1), `ZEROCOPY=1` for
//! `get_zerocopy`, `REOPEN=1` to close and reopen the database before
//! reading, `SMAPS=1` to print the huge-page lines of /proc/self/smaps_rollup
//! after the loop, `VERIFY=0` to open with `verify_reads(false)`, `LOADONLY=1`
//! to stop after the timed load.
//! `examples/getloop_pub` runs the same loop on the published
//! crate.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use emdb_benches::env;
use emdb_benches::getloop::{key, run};
use emdb_core::Emdb;

fn main() {
    let n = env("N", 1_000_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.emdb");
    let open = || {
        Emdb::builder()
            .path(&path)
            .verify_reads(env("VERIFY", 1) == 1)
            .build()
            .unwrap()
    };
    let mut db = open();
    let t = std::time::Instant::now();
    db.insert_many((0..n).map(|i| (key(i), [7u8; 150])))
        .unwrap();
    let loaded = t.elapsed();
    db.flush().unwrap();
    println!(
        "insert_many of {n}: {:.0} ms, then flush: {:.0} ms",
        loaded.as_secs_f64() * 1e3,
        (t.elapsed() - loaded).as_secs_f64() * 1e3
    );
    if env("LOADONLY", 0) == 1 {
        return;
    }
    if env("REOPEN", 0) == 1 {
        drop(db);
        db = open();
    }
    if env("ZEROCOPY", 0) == 1 {
        run(n, env("THREADS", 1), "get_zerocopy", |k| {
            db.get_zerocopy(k).unwrap().map_or(0, |v| v.len() as u64)
        });
    } else {
        run(n, env("THREADS", 1), "get", |k| {
            db.get(k).unwrap().map_or(0, |v| v.len() as u64)
        });
    }
}
