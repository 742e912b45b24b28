//! Random-get loop for profiling: keys regenerated from a seeded RNG, not stored.
use std::time::Instant;

use emdb_core::Emdb;

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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: u64 = std::env::var("N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let dir = tempfile::tempdir()?;
    let db = Emdb::open(dir.path().join("g.emdb"))?;
    db.insert_many((0..n).map(|i| (key(i), [7u8; 150])))?;
    for round in 0..3 {
        let t = Instant::now();
        let mut x = 1u64 + round;
        let mut hits = 0u64;
        for _ in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if let Some(v) = db.get(key(x % n))? {
                hits += v.len() as u64;
            }
        }
        let el = t.elapsed();
        println!("get: {:.0} ns/op ({hits})", el.as_nanos() as f64 / n as f64);
        let t = Instant::now();
        for _ in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            std::hint::black_box(key(x % n));
        }
        println!(
            "  key generation alone: {:.0} ns/op",
            t.elapsed().as_nanos() as f64 / n as f64
        );
    }
    Ok(())
}
