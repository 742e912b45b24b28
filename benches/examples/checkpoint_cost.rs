//! What a checkpoint costs, plain and encrypted: `N` pairs (`user:%08d`
//! keys in a scrambled order, 100-byte values) loaded with one
//! `insert_many`, then `ROUNDS` times: 1,000 more inserts and a timed
//! `checkpoint()` (reported as the first and the median of the others) (the explicit call; the writer's background policy and
//! a clean close past the bound run the same code). Then a read-only open
//! and the first ordered read (`range_iter` of ~100 keys from the middle),
//! timed together, which is what a one-shot `emdb scan` pays.
//!
//! ```sh
//! N=1000000 ROUNDS=5 cargo run --release -p emdb-benches --example checkpoint_cost
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use emdb_core::{Cipher, Emdb, EmdbBuilder};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn key(i: u64) -> String {
    format!("user:{i:08}")
}

fn run(name: &str, b: impl Fn() -> EmdbBuilder, n: u64, rounds: u64) {
    let value = [b'v'; 100];
    let db = b().build().unwrap();
    // A scrambled order: the sort has work to do.
    let step = 7_919u64;
    db.insert_many((0..n).map(|i| (key(i * step % n), value)))
        .unwrap();
    db.flush().unwrap();
    let mut took = Vec::new();
    for r in 0..rounds {
        for i in 0..1_000 {
            db.insert(key((r * 1_000 + i) * 13 % n), value).unwrap();
        }
        let t = Instant::now();
        db.checkpoint().unwrap();
        took.push(t.elapsed());
    }
    drop(db);
    let t = Instant::now();
    let ro = b().read_only(true).build().unwrap();
    let from = key(n / 2).into_bytes();
    let to = key(n / 2 + 100).into_bytes();
    let got = ro.range_iter(from..to).unwrap().count();
    let first = t.elapsed();
    assert_eq!(got, 100);
    // The first checkpoint of the handle, and the ones after it (which
    // may start from its order).
    let rest = took.split_off(1.min(took.len()));
    let ms = |d: &Duration| d.as_secs_f64() * 1e3;
    println!(
        "{name:<8} {n} keys: first checkpoint {:>8.1} ms; the next {} median {:>7.1} ms (min {:.1}, max {:.1}); \
         read-only open + first range of 100 {:>7.1} ms",
        took.first().map_or(0.0, ms),
        rest.len(),
        rest.get(rest.len() / 2).map_or(0.0, |_| ms(&median(rest.clone()))),
        rest.iter().min().map_or(0.0, ms),
        rest.iter().max().map_or(0.0, ms),
        ms(&first),
    );
}

fn main() {
    let n = env("N", 1_000_000);
    let rounds = env("ROUNDS", 5);
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.emdb");
    let sealed = dir.path().join("aes.emdb");
    if std::env::var("ONLY").as_deref() != Ok("encrypted") {
        run("plain", || Emdb::builder().path(&plain), n, rounds);
    }
    run(
        "AES-GCM",
        || {
            Emdb::builder()
                .path(&sealed)
                .encryption_key([1; 32])
                .cipher(Cipher::Aes256Gcm)
        },
        n,
        rounds,
    );
}
