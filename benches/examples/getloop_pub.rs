//! `examples/getloop` on the published emdb crate (feature
//! `emdb-published`), for side-by-side profiling: the same keys, values,
//! threads and options (`N`, `THREADS`, `ZEROCOPY`, `REOPEN`, `SMAPS`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use emdb_benches::env;
use emdb_benches::getloop::{key, run};
use emdb_published::Emdb;

fn main() {
    let n = env("N", 1_000_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.emdb");
    let mut db = Emdb::open(&path).unwrap();
    db.insert_many((0..n).map(|i| (key(i).to_vec(), vec![7u8; 150])))
        .unwrap();
    if env("REOPEN", 0) == 1 {
        drop(db);
        db = Emdb::open(&path).unwrap();
    }
    if env("ZEROCOPY", 0) == 1 {
        run(n, env("THREADS", 1), "get_zerocopy", |k| {
            db.get_zerocopy(&k[..])
                .unwrap()
                .map_or(0, |v| v.len() as u64)
        });
    } else {
        run(n, env("THREADS", 1), "get", |k| {
            db.get(&k[..]).unwrap().map_or(0, |v| v.len() as u64)
        });
    }
}
