//! Shared pieces of the emdb benchmarks: the phase workload, one adapter per
//! engine (peers behind cargo features), the machine floor, and the report.
//!
//! The phase bench (`benches/phase.rs`) drives every [`Store`] through the same
//! phases; see `docs/BENCH.md` for what each phase does and how to run it.

pub mod fixtures;
pub mod floor;
pub mod getloop;
pub mod peers;
pub mod phases;
pub mod report;
pub mod store;
pub mod workload;

/// Errors of the bench helpers: whatever an engine or the file system said.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

pub use store::Store;

/// An environment variable as a number, or `default` (the examples'
/// settings: `N`, `ROUNDS`, ...).
pub fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Read up to `len` pairs of `db` in key order from `start` on, for the
/// range-read examples; returns their values' bytes. `zerocopy`: through
/// `RangeIter::next_map` (no copies, as the phase bench's emdb-core peer
/// reads), otherwise through the iterator (two copies per pair).
pub fn read_range(db: &emdb_core::Emdb, start: &[u8], len: usize, zerocopy: bool) -> Result<usize> {
    let mut it = db.range_iter(start.to_vec()..)?;
    let mut bytes = 0;
    if zerocopy {
        for _ in 0..len {
            match it.next_map(|_, v| v.len()) {
                Some(n) => bytes += n?,
                None => break,
            }
        }
    } else {
        for item in it.take(len) {
            bytes += item?.1.len();
        }
    }
    Ok(bytes)
}
pub use workload::{Key, Pair, Rng, Value, Workload, KEY_LEN, VALUE_LEN};
