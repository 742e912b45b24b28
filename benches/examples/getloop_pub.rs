//! Random-get loop for profiling: keys regenerated from a seeded RNG, not
//! stored (no key-array cache miss). `N` records (default 1,000,000),
//! `THREADS` readers (default 1), `ZEROCOPY=1` for `get_zerocopy`, `REOPEN=1`
//! to close and reopen the database before reading.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use emdb_published::Emdb;

fn key(i: u64) -> [u8; 24] {
    let mut k = [0u8; 24];
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xDEAD_BEEF;
    for c in k.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        c.copy_from_slice(&x.to_le_bytes());
    }
    k
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let n = env("N", 1_000_000);
    let threads = env("THREADS", 1);
    let zerocopy = env("ZEROCOPY", 0) == 1;
    let dir = tempfile::tempdir().unwrap();
    let mut db = Emdb::open(dir.path().join("g.emdb")).unwrap();
    db.insert_many((0..n).map(|i| (key(i).to_vec(), vec![7u8; 150])))
        .unwrap();
    if env("REOPEN", 0) == 1 {
        // Close and reopen first (what the phase bench does before its reads).
        drop(db);
        db = Emdb::open(dir.path().join("g.emdb")).unwrap();
    }
    for round in 0..3u64 {
        let t = Instant::now();
        let hits: u64 = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|th| {
                    let db = &db;
                    s.spawn(move || {
                        let mut x = 1 + round * 100 + th;
                        let mut hits = 0u64;
                        for _ in 0..n / threads {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            let k = key(x % n);
                            hits += if zerocopy {
                                db.get_zerocopy(&k[..])
                                    .unwrap()
                                    .map_or(0, |v| v.len() as u64)
                            } else {
                                db.get(&k[..]).unwrap().map_or(0, |v| v.len() as u64)
                            };
                        }
                        hits
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        let el = t.elapsed();
        println!(
            "{threads} thread(s), {}: {:.0} ns per get aggregate ({hits})",
            if zerocopy { "get_zerocopy" } else { "get" },
            el.as_nanos() as f64 / n as f64
        );
    }
}
