//! The random-get loop shared by `examples/getloop` (emdb-core) and
//! `examples/getloop_pub` (the published emdb crate), so both engines run
//! exactly the same keys, threads and timing; `examples/encryption_cost`
//! uses its keys too.

use std::time::Instant;

use crate::env;

/// The `i`-th of the loop's 24-byte keys (regenerated, never stored, so the
/// loop adds no key-array cache misses of its own).
pub fn key(i: u64) -> [u8; 24] {
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

/// Three rounds of `n` random gets split over `threads` threads; `get`
/// returns the value's length (0 when absent). Prints ns per get.
pub fn run(n: u64, threads: u64, label: &str, get: impl Fn(&[u8; 24]) -> u64 + Sync) {
    for round in 0..3u64 {
        let t = Instant::now();
        let hits: u64 = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|th| {
                    let get = &get;
                    s.spawn(move || {
                        let mut x = 1 + round * 100 + th;
                        let mut hits = 0u64;
                        for _ in 0..n / threads {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            hits += get(&key(x % n));
                        }
                        hits
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
        });
        println!(
            "{threads} thread(s), {label}: {:.0} ns per get aggregate ({hits})",
            t.elapsed().as_nanos() as f64 / n as f64
        );
    }
    if env("SMAPS", 0) == 1 {
        let rollup = std::fs::read_to_string("/proc/self/smaps_rollup").unwrap_or_default();
        for line in rollup
            .lines()
            .filter(|l| l.contains("Huge") || l.contains("Pmd") || l.starts_with("Rss"))
        {
            println!("{line}");
        }
    }
}
