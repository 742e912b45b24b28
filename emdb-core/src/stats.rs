//! Live counters and the [`Stats`] snapshot.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A point-in-time view of a database's size and activity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Live keys across all namespaces.
    pub live_records: u64,
    /// Live keys per namespace (the default namespace is named `""`).
    pub namespaces: Vec<(String, u64)>,
    /// Entries in the hash indexes (equal to `live_records`).
    pub index_entries: u64,
    /// Heap bytes the hash indexes use.
    pub index_memory_bytes: u64,
    /// Bytes of the log in use (header plus records).
    pub log_logical_bytes: u64,
    /// Size of the log file on disk, including preallocated room.
    pub file_bytes: u64,
    /// Bytes of records that are still current.
    pub live_bytes: u64,
    /// Bytes of superseded or deleted records, reclaimable by compaction.
    pub dead_bytes: u64,
    /// Records written since open.
    pub writes: u64,
    /// `flush` calls since open.
    pub flushes: u64,
    /// fdatasync calls since open.
    pub fsyncs: u64,
    /// Median fdatasync latency since open.
    pub fsync_p50: Duration,
    /// 99th-percentile fdatasync latency since open.
    pub fsync_p99: Duration,
    /// Compactions since open.
    pub compactions: u64,
    /// When the last compaction finished (ms since the Unix epoch), if any.
    pub last_compaction_unix_ms: Option<u64>,
}

/// Buckets of the latency histogram: bucket `i` counts samples in
/// `[2^i, 2^(i+1))` nanoseconds.
const BUCKETS: usize = 48;

/// Engine-wide counters, updated with relaxed atomics.
pub(crate) struct Counters {
    pub writes: AtomicU64,
    pub flushes: AtomicU64,
    pub fsyncs: AtomicU64,
    pub compactions: AtomicU64,
    pub last_compaction_ms: AtomicU64,
    fsync_hist: [AtomicU64; BUCKETS],
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            writes: AtomicU64::new(0),
            flushes: AtomicU64::new(0),
            fsyncs: AtomicU64::new(0),
            compactions: AtomicU64::new(0),
            last_compaction_ms: AtomicU64::new(0),
            fsync_hist: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

impl Counters {
    pub(crate) fn record_fsync(&self, took: Duration) {
        self.fsyncs.fetch_add(1, Ordering::Relaxed);
        let ns = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX).max(1);
        let bucket = (63 - ns.leading_zeros() as usize).min(BUCKETS - 1);
        self.fsync_hist[bucket].fetch_add(1, Ordering::Relaxed);
    }

    /// Approximate quantile `q` (0..1) of fsync latency: the geometric middle
    /// of the bucket holding it.
    pub(crate) fn fsync_quantile(&self, q: f64) -> Duration {
        let counts: Vec<u64> = self
            .fsync_hist
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect();
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return Duration::ZERO;
        }
        let rank = ((total as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, c) in counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let low = 1u64 << i;
                return Duration::from_nanos(low + low / 2);
            }
        }
        Duration::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_land_in_the_right_bucket() {
        let c = Counters::default();
        for _ in 0..98 {
            c.record_fsync(Duration::from_micros(100));
        }
        c.record_fsync(Duration::from_millis(50));
        c.record_fsync(Duration::from_millis(50));
        let p50 = c.fsync_quantile(0.5);
        assert!(p50 >= Duration::from_micros(64) && p50 <= Duration::from_micros(200));
        let p99 = c.fsync_quantile(0.99);
        assert!(p99 >= Duration::from_millis(30), "{p99:?}");
        assert_eq!(c.fsyncs.load(Ordering::Relaxed), 100);
    }
}
