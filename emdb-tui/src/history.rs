//! Activity over time for the dashboard: per-second rates computed from the
//! counters of successive stats samples, and the fsync latencies.
//!
//! A read-only handle sees the writer's counters as the writer published
//! them (about once a second), so a rate is only computed when the published
//! time moves, over the published interval. Counters that go backwards (the
//! writer restarted) start a new series instead of giving a negative rate.

use std::collections::VecDeque;

use emdb_core::Stats;

/// How much history is kept.
pub const KEEP_MS: u64 = 15 * 60 * 1000;

/// The dashboard's time window.
pub const WINDOW_MS: u64 = 5 * 60 * 1000;

/// Rates over the interval ending at `at_ms`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// End of the interval (ms since the Unix epoch).
    pub at_ms: u64,
    /// Records written per second.
    pub writes_per_s: f64,
    /// Flushes per second.
    pub flushes_per_s: f64,
    /// Median fsync latency so far, in microseconds.
    pub fsync_p50_us: u64,
    /// 99th-percentile fsync latency so far, in microseconds.
    pub fsync_p99_us: u64,
}

#[derive(Clone, Copy, Debug)]
struct Counters {
    at_ms: u64,
    writes: u64,
    flushes: u64,
    pid: Option<u32>,
}

/// Rate points of the last minutes.
#[derive(Debug, Default)]
pub struct History {
    last: Option<Counters>,
    points: VecDeque<Point>,
}

impl History {
    /// Record a stats sample taken at `now_ms`. Returns true when it added a
    /// point.
    pub fn record(&mut self, s: &Stats, now_ms: u64) -> bool {
        let at_ms = s.published_unix_ms.unwrap_or(now_ms);
        let cur = Counters {
            at_ms,
            writes: s.writes,
            flushes: s.flushes,
            pid: s.writer_pid,
        };
        let Some(prev) = self.last else {
            self.last = Some(cur);
            return false;
        };
        // Another writer, a restart (counters went back) or a clock that
        // went back: start a new series.
        if cur.pid != prev.pid
            || at_ms < prev.at_ms
            || cur.writes < prev.writes
            || cur.flushes < prev.flushes
        {
            self.last = Some(cur);
            return false;
        }
        // The same publication seen again; own counters (writable handle)
        // are sampled at most about once a second.
        let min_gap = if s.published_unix_ms.is_some() {
            1
        } else {
            900
        };
        if at_ms < prev.at_ms + min_gap {
            return false;
        }
        self.last = Some(cur);
        let secs = (at_ms - prev.at_ms) as f64 / 1000.0;
        self.points.push_back(Point {
            at_ms,
            writes_per_s: (cur.writes - prev.writes) as f64 / secs,
            flushes_per_s: (cur.flushes - prev.flushes) as f64 / secs,
            fsync_p50_us: u64::try_from(s.fsync_p50.as_micros()).unwrap_or(u64::MAX),
            fsync_p99_us: u64::try_from(s.fsync_p99.as_micros()).unwrap_or(u64::MAX),
        });
        while self
            .points
            .front()
            .is_some_and(|p| p.at_ms + KEEP_MS < at_ms)
        {
            self.points.pop_front();
        }
        true
    }

    /// The newest point.
    pub fn latest(&self) -> Option<&Point> {
        self.points.back()
    }

    /// All points, oldest first.
    pub fn points(&self) -> impl Iterator<Item = &Point> {
        self.points.iter()
    }

    /// `f` of the points bucketed into `columns` equal slices of the
    /// `window_ms` ending at `now_ms` (the mean of the points in a slice;
    /// `None` for slices before the first point; a slice without points
    /// after that repeats the previous value, since rates hold between
    /// samples).
    pub fn columns(
        &self,
        now_ms: u64,
        window_ms: u64,
        columns: usize,
        f: impl Fn(&Point) -> f64,
    ) -> Vec<Option<f64>> {
        let mut sums = vec![(0.0f64, 0u32); columns];
        if columns == 0 {
            return Vec::new();
        }
        let start = now_ms.saturating_sub(window_ms);
        let mut before: Option<f64> = None;
        for p in &self.points {
            if p.at_ms <= start {
                before = Some(f(p));
                continue;
            }
            if p.at_ms > now_ms {
                continue;
            }
            let col = ((p.at_ms - start) as u128 * columns as u128 / window_ms.max(1) as u128)
                .min(columns as u128 - 1) as usize;
            sums[col].0 += f(p);
            sums[col].1 += 1;
        }
        let mut out = Vec::with_capacity(columns);
        let mut carry = before;
        for (sum, n) in sums {
            if n > 0 {
                carry = Some(sum / f64::from(n));
            }
            out.push(carry);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn stats(writes: u64, flushes: u64, published: u64) -> Stats {
        let mut s = Stats::default();
        s.writes = writes;
        s.flushes = flushes;
        s.published_unix_ms = Some(published);
        s.writer_pid = Some(7);
        s.fsync_p99 = Duration::from_micros(300);
        s
    }

    #[test]
    fn rates_follow_the_published_interval() {
        let mut h = History::default();
        assert!(!h.record(&stats(0, 0, 10_000), 10_100));
        // Same publication sampled again: nothing new.
        assert!(!h.record(&stats(0, 0, 10_000), 10_350));
        assert!(h.record(&stats(500, 2, 11_000), 11_100));
        let p = h.latest().unwrap();
        assert_eq!(p.writes_per_s, 500.0);
        assert_eq!(p.flushes_per_s, 2.0);
        assert_eq!(p.fsync_p99_us, 300);
        // The writer restarted: counters went back, no point.
        assert!(!h.record(&stats(10, 0, 12_000), 12_100));
        // A clock that went back starts over too.
        assert!(!h.record(&stats(10, 0, 11_500), 12_200));
        assert!(h.record(&stats(15, 0, 12_000), 12_300));
        assert!(h.record(&stats(25, 0, 14_000), 14_100));
        assert_eq!(h.latest().unwrap().writes_per_s, 5.0);
    }

    #[test]
    fn columns_bucket_and_carry() {
        let mut h = History::default();
        h.record(&stats(0, 0, 1_000), 0);
        h.record(&stats(100, 0, 2_000), 0);
        h.record(&stats(400, 0, 3_000), 0);
        let cols = h.columns(5_000, 4_000, 4, |p| p.writes_per_s);
        assert_eq!(cols, vec![None, Some(100.0), Some(300.0), Some(300.0)]);
    }
}
