//! When written data is made durable.

use std::time::Duration;

/// How `flush` (and writes) reach stable storage.
///
/// Whatever the policy, a `flush` that returned `Ok` means every write that
/// returned before it survives power loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FlushPolicy {
    /// Each `flush` issues one fdatasync (skipped when nothing was written
    /// since the last one). Writes themselves never sync.
    #[default]
    OnEachFlush,
    /// Concurrent `flush` calls share fdatasyncs: one runs at a time, and
    /// the next one covers every flusher that queued while it ran. A flusher
    /// that finds nobody else flushing waits up to `max_wait` for up to
    /// `max_batch - 1` others before it syncs (`max_wait` zero: never waits;
    /// `Duration::MAX`: waits for the whole group, so a lone flusher waits
    /// until others come).
    Group {
        /// Longest a leader waits for followers.
        max_wait: Duration,
        /// Flushers that complete a group (set near the number of writer threads).
        max_batch: usize,
    },
    /// Every write is durable when it returns (`O_DSYNC` writes; a batch ends
    /// with one fdatasync).
    WriteThrough,
}
