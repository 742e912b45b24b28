//! Wall-clock time for TTLs, swappable so tests can control it.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A source of the current time, in ms since the Unix epoch.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Now, in ms since the Unix epoch.
    fn now_unix_ms(&self) -> u64;
}

/// The system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_unix_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    }
}

/// A clock that only moves when told to (for tests of expiry).
#[derive(Debug, Clone)]
pub struct ManualClock {
    now: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock standing at `start_unix_ms`.
    pub fn new(start_unix_ms: u64) -> ManualClock {
        ManualClock {
            now: Arc::new(AtomicU64::new(start_unix_ms)),
        }
    }

    /// Move the clock forward.
    pub fn advance(&self, by: Duration) {
        self.now.fetch_add(by.as_millis() as u64, Ordering::SeqCst);
    }

    /// Set the clock.
    pub fn set(&self, unix_ms: u64) {
        self.now.store(unix_ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_unix_ms(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }
}

/// Current system time in ms since the Unix epoch (file creation stamps,
/// compaction time; TTLs use the engine's clock instead).
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
