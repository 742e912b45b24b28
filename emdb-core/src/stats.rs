//! Live counters and the [`Stats`] snapshot.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;

use crate::clock::now_ms;
use crate::error::Error;
use crate::format::header::HEADER_SIZE;
use crate::fs::sibling;
use crate::generation::Generation;

/// A point-in-time view of a database's size and activity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Keys in the index across all namespaces. A key whose expiry has
    /// passed counts until [`Emdb::sweep_expired`](crate::Emdb::sweep_expired)
    /// or a compaction removes it (`len()` leaves it out; counting that
    /// way reads every expiring record, this is O(namespaces)).
    pub live_records: u64,
    /// Keys per namespace (the default namespace is named `""`), counted
    /// as `live_records` is.
    pub namespaces: Vec<(String, u64)>,
    /// Entries in the hash indexes (equal to `live_records`).
    pub index_entries: u64,
    /// Live records that carry an expiry (some may have expired already).
    pub expiring_records: u64,
    /// Heap bytes the hash indexes and the sorted orders use (mapped checkpoint pages not counted).
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
    /// True when records are encrypted.
    pub encrypted: bool,
    /// Records sealed under the current key so far (random 96-bit nonces:
    /// rotate the key well before 2^32; see `nonce_budget_warning`).
    pub encryptions: u64,
    /// Set once `encryptions` passes 2^28, a sixteenth of the 2^32 budget of
    /// random nonces per key: rotate the key.
    pub nonce_budget_warning: bool,
    /// On a read-only handle: pid of the writer whose counters these are.
    pub writer_pid: Option<u32>,
    /// On a read-only handle: when the writer last published its counters
    /// (ms since the Unix epoch). `None` when no writer ever published.
    pub published_unix_ms: Option<u64>,
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
    /// Catch-ups of a read-only handle.
    pub refreshes: AtomicU64,
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
            refreshes: AtomicU64::new(0),
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

/// Path of the stats sidecar a writer publishes for other processes.
pub(crate) fn sidecar_path(db: &Path) -> PathBuf {
    sibling(db, ".stats")
}

/// The temp file the sidecar is written to before its rename.
pub(crate) fn sidecar_tmp_path(db: &Path) -> PathBuf {
    sibling(&sidecar_path(db), ".tmp")
}

/// Write the sidecar (temp file + rename; no fsync: it is advisory).
pub(crate) fn publish_sidecar(db: &Path, s: &Stats) {
    let text = format!(
        "emdb-stats 1\npid={}\npublished_ms={}\nwrites={}\nflushes={}\nfsyncs={}\nfsync_p50_ns={}\nfsync_p99_ns={}\ncompactions={}\nlast_compaction_ms={}\nlive_records={}\nlog_logical_bytes={}\n",
        std::process::id(),
        now_ms(),
        s.writes,
        s.flushes,
        s.fsyncs,
        s.fsync_p50.as_nanos(),
        s.fsync_p99.as_nanos(),
        s.compactions,
        s.last_compaction_unix_ms.unwrap_or(0),
        s.live_records,
        s.log_logical_bytes,
    );
    let path = sidecar_path(db);
    let tmp = sidecar_tmp_path(db);
    let written = crate::fs::create_fresh(&tmp).and_then(|mut f| {
        std::io::Write::write_all(&mut f, text.as_bytes())
            .map_err(|e| Error::io("write", Some(&tmp), e))
    });
    if written.is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    } else {
        // A full disk: do not keep a half-written file holding space.
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Fill the activity counters of `s` from the writer's sidecar, if any.
pub(crate) fn merge_sidecar(s: &mut Stats, db: &Path) {
    let Ok(text) = std::fs::read_to_string(sidecar_path(db)) else {
        return;
    };
    if !text.starts_with("emdb-stats 1\n") {
        return;
    }
    let get = |name: &str| -> Option<u64> {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.trim().parse().ok())
    };
    s.writer_pid = get("pid").and_then(|p| u32::try_from(p).ok());
    s.published_unix_ms = get("published_ms");
    s.writes = get("writes").unwrap_or(0);
    s.flushes = get("flushes").unwrap_or(0);
    s.fsyncs = get("fsyncs").unwrap_or(0);
    s.fsync_p50 = Duration::from_nanos(get("fsync_p50_ns").unwrap_or(0));
    s.fsync_p99 = Duration::from_nanos(get("fsync_p99_ns").unwrap_or(0));
    s.compactions = get("compactions").unwrap_or(0);
    s.last_compaction_unix_ms = get("last_compaction_ms").filter(|&t| t != 0);
}

/// How often the publisher looks for new activity.
const PUBLISH_TICK: Duration = Duration::from_millis(250);

/// Publish a writer's stats to its sidecar while it is active: within a
/// second of any write, flush or compaction, and every 10 s regardless.
pub(crate) fn spawn_publisher(
    db: PathBuf,
    gen: Arc<ArcSwap<Generation>>,
    counters: Arc<Counters>,
    stop: Arc<crate::engine::Stop>,
) -> Option<std::thread::JoinHandle<()>> {
    // Without the thread the engine works; only the sidecar goes stale.
    std::thread::Builder::new()
        .name("emdb-stats".into())
        .spawn(move || {
            let mut last_sig = u64::MAX;
            let mut last_at = Instant::now();
            while !stop.sleep(PUBLISH_TICK) {
                let sig = counters.writes.load(Ordering::Relaxed)
                    ^ counters.flushes.load(Ordering::Relaxed).rotate_left(21)
                    ^ counters.compactions.load(Ordering::Relaxed).rotate_left(42);
                if sig != last_sig || last_at.elapsed() >= Duration::from_secs(10) {
                    publish_sidecar(&db, &collect_stats(&gen.load_full(), &counters));
                    last_sig = sig;
                    last_at = Instant::now();
                }
            }
        })
        .ok()
}

/// Sizes from a generation, counters from `counters`.
pub(crate) fn collect_stats(gen: &Generation, counters: &Counters) -> Stats {
    let all = gen.ns_table().all();
    let mut s = Stats::default();
    for n in &all {
        let live = n.keydir.len();
        s.live_records += live;
        s.live_bytes += n.keydir.live_bytes();
        s.expiring_records += n.keydir.expiring();
        s.index_memory_bytes += (n.keydir.memory_bytes() + n.sorted.memory_bytes()) as u64;
        s.namespaces
            .push((String::from_utf8_lossy(&n.name).into_owned(), live));
    }
    s.index_entries = s.live_records;
    s.log_logical_bytes = gen.log().published_end();
    s.file_bytes = match gen.log().path() {
        Some(p) => std::fs::metadata(p).map_or(gen.log().capacity(), |m| m.len()),
        None => gen.log().capacity(),
    };
    s.dead_bytes = s
        .log_logical_bytes
        .saturating_sub(HEADER_SIZE as u64)
        .saturating_sub(s.live_bytes);
    s.writes = counters.writes.load(Ordering::Relaxed);
    s.flushes = counters.flushes.load(Ordering::Relaxed);
    s.fsyncs = counters.fsyncs.load(Ordering::Relaxed);
    s.fsync_p50 = counters.fsync_quantile(0.50);
    s.fsync_p99 = counters.fsync_quantile(0.99);
    s.compactions = counters.compactions.load(Ordering::Relaxed);
    s.last_compaction_unix_ms = match counters.last_compaction_ms.load(Ordering::Relaxed) {
        0 => None,
        t => Some(t),
    };
    s
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
