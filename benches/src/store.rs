//! [`Store`]: what the phase bench needs from an engine.

use std::path::Path;

use crate::workload::{Key, Pair};
use crate::Result;

/// Sum of [`read_digest`](crate::workload::read_digest) over what a read
/// phase found, and how many pairs it found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadSum {
    /// Pairs found.
    pub found: u64,
    /// Digest sum of their values.
    pub digest: u64,
}

impl ReadSum {
    /// Fold one value in.
    #[inline]
    pub fn add(&mut self, value: &[u8]) {
        self.found += 1;
        self.digest = self
            .digest
            .wrapping_add(crate::workload::read_digest(value));
    }

    /// Sum of two partial results.
    pub fn merge(self, other: ReadSum) -> ReadSum {
        ReadSum {
            found: self.found + other.found,
            digest: self.digest.wrapping_add(other.digest),
        }
    }
}

/// One engine, opened in a directory of its own, as the phases drive it.
///
/// Each method is one phase's worth of work in the engine's natural idiom
/// (one transaction or batch where the engine has them); the phase runner
/// times the call. "Durable" means: survives power loss when the call returns.
pub trait Store: Sync {
    /// Column name in the report (fixed: it is a JSON key).
    fn name(&self) -> &'static str;

    /// Write every pair, durable at the end (one batch where possible).
    fn bulk_load(&mut self, pairs: &[Pair]) -> Result<()>;

    /// Write each pair on its own, durable before the next one is written.
    fn individual_writes(&mut self, pairs: &[Pair]) -> Result<()>;

    /// Write `pairs` in chunks of `batch`, each chunk durable on its own.
    fn batch_writes(&mut self, pairs: &[Pair], batch: usize) -> Result<()>;

    /// Write each pair on its own without syncing.
    fn nosync_writes(&mut self, pairs: &[Pair]) -> Result<()>;

    /// Number of live keys (the `len()` phase).
    fn count(&self) -> Result<u64>;

    /// Look up every key (one read transaction where the engine has them).
    /// Called from several threads at once by the multi-thread phases.
    fn reads(&self, keys: &[Key]) -> Result<ReadSum>;

    /// Get ready for [`range_reads`](Store::range_reads) (not timed): an
    /// engine whose ordered index is opt-in reopens with it here.
    fn begin_range_reads(&mut self) -> Result<()> {
        Ok(())
    }

    /// Undo [`begin_range_reads`](Store::begin_range_reads) (not timed).
    fn end_range_reads(&mut self) -> Result<()> {
        Ok(())
    }

    /// From each start key, read `len` consecutive pairs in key order.
    /// `None` when the engine has no ordered reads.
    fn range_reads(&mut self, starts: &[Key], len: usize) -> Result<Option<ReadSum>>;

    /// Remove every key, durable at the end.
    fn removals(&mut self, keys: &[Key]) -> Result<()>;

    /// Reclaim the space of dead data; `false` when the engine has no such
    /// operation.
    fn compact(&mut self) -> Result<bool>;

    /// Bytes the engine's files take (the apparent size of its directory).
    fn disk_bytes(&self) -> Result<Option<u64>>;

    /// False when the engine cannot be closed and reopened from here (a
    /// server): the reopen phase is skipped.
    fn can_reopen(&self) -> bool {
        true
    }

    /// Close cleanly (not timed).
    fn close(&mut self) -> Result<()>;

    /// Open again after [`close`](Store::close) (timed as the reopen phase).
    fn open(&mut self) -> Result<()>;

    /// Heap bytes of the in-memory index, when the engine reports them.
    fn index_bytes(&self) -> Result<Option<u64>> {
        Ok(None)
    }
}

/// Sum of the apparent sizes of the regular files under `dir`.
pub fn dir_bytes(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        if meta.is_dir() {
            total += dir_bytes(&entry.path())?;
        } else {
            total += meta.len();
        }
    }
    Ok(total)
}

/// The error for a call made while the store is closed.
pub fn closed(name: &str) -> crate::Error {
    format!("{name}: store is closed").into()
}
