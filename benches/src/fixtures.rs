//! Databases filled for the criterion benches.

use std::path::Path;

use emdb_core::{Emdb, FlushPolicy};

use crate::workload::{Key, Rng, KEY_LEN, VALUE_LEN};
use crate::Result;

/// Record count of the criterion benches: `EMDB_BENCH_RECORDS`, else `default`.
pub fn records(default: usize) -> usize {
    std::env::var("EMDB_BENCH_RECORDS")
        .ok()
        .and_then(|v| v.replace(['_', ','], "").parse().ok())
        .unwrap_or(default)
}

/// `n` random keys from `seed`.
pub fn keys(n: usize, seed: u64) -> Vec<Key> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let mut k = [0u8; KEY_LEN];
            rng.fill(&mut k);
            k
        })
        .collect()
}

/// `keys` in a random order, to be walked front to back: reads then hit
/// random records while the key array itself streams through the cache.
pub fn shuffled(keys: &[Key], seed: u64) -> Vec<Key> {
    let mut v = keys.to_vec();
    Rng::new(seed).shuffle(&mut v);
    v
}

/// A random value of the phase-bench size.
pub fn value(rng: &mut Rng) -> [u8; VALUE_LEN] {
    let mut v = [0u8; VALUE_LEN];
    rng.fill(&mut v);
    v
}

/// Open `dir/bench.emdb` with `policy` and load one random value per key
/// (in batches of 10,000), durable.
pub fn filled(dir: &Path, policy: FlushPolicy, keys: &[Key]) -> Result<Emdb> {
    let db = Emdb::builder()
        .path(dir.join("bench.emdb"))
        .flush_policy(policy)
        .build()?;
    let mut rng = Rng::new(0xF111);
    for chunk in keys.chunks(10_000) {
        let values: Vec<[u8; VALUE_LEN]> = chunk.iter().map(|_| value(&mut rng)).collect();
        db.insert_many(chunk.iter().zip(values.iter()))?;
    }
    db.flush()?;
    Ok(db)
}
