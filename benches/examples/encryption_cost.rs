//! Throughput of plain vs encrypted inserts and gets (issue: "the cost is
//! measured"). `N` records of 24-byte keys and 150-byte values.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use emdb_benches::getloop::key;
use emdb_core::{Cipher, Emdb, EmdbBuilder};

fn run(name: &str, b: EmdbBuilder, n: u64) {
    let db = b.build().unwrap();
    let v = [5u8; 150];
    let t = Instant::now();
    for i in 0..n {
        db.insert(key(i), v).unwrap();
    }
    db.flush().unwrap();
    let ins = t.elapsed();
    let t = Instant::now();
    let mut x = 7u64;
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        assert!(db.get(key(x % n)).unwrap().is_some());
    }
    let get = t.elapsed();
    let t = Instant::now();
    db.insert_many((0..n).map(|i| (key(i + n), v))).unwrap();
    let bulk = t.elapsed();
    println!(
        "{name:<22} insert {:>8.0} ops/s   get {:>9.0} ops/s   insert_many {:>9.0} ops/s",
        n as f64 / ins.as_secs_f64(),
        n as f64 / get.as_secs_f64(),
        n as f64 / bulk.as_secs_f64()
    );
}

fn main() {
    let n: u64 = std::env::var("N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let dir = tempfile::tempdir().unwrap();
    let p = |s: &str| dir.path().join(s);
    run("plain", Emdb::builder().path(p("plain.emdb")), n);
    run(
        "AES-256-GCM",
        Emdb::builder()
            .path(p("aes.emdb"))
            .encryption_key([1; 32])
            .cipher(Cipher::Aes256Gcm),
        n,
    );
    run(
        "ChaCha20-Poly1305",
        Emdb::builder()
            .path(p("chacha.emdb"))
            .encryption_key([1; 32])
            .cipher(Cipher::ChaCha20Poly1305),
        n,
    );
    // Reopen after a clean close (checkpoint), plain vs encrypted (raw key).
    for (name, enc) in [("plain", false), ("AES-256-GCM", true)] {
        let path = p(if enc { "aes.emdb" } else { "plain.emdb" });
        let t = Instant::now();
        let b = Emdb::builder().path(&path);
        let db = if enc { b.encryption_key([1; 32]) } else { b }
            .build()
            .unwrap();
        println!(
            "reopen {name:<15} {:>6.1} ms (checkpoint used: {}, {} keys)",
            t.elapsed().as_secs_f64() * 1e3,
            db.recovery_report().used_checkpoint,
            db.len().unwrap()
        );
    }
    let _ = Emdb::open_in_memory;
}
