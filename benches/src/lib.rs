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
pub use workload::{Key, Pair, Rng, Value, Workload, KEY_LEN, VALUE_LEN};
