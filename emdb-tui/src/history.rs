//! Activity over time for the dashboard: per-second rates computed from the
//! counters of successive stats samples, and the fsync latencies.
//!
//! A read-only handle sees the writer's counters as the writer published
//! them (about once a second), so a rate is only computed when the published
//! time moves, over the published interval. Counters that go backwards (the
//! writer restarted) start a new series instead of giving a negative rate.
//!
//! Rates are never invented: when no new publication arrived for
//! [`QUIET_MS`] the writer wrote nothing, so the rate is 0 (a writer
//! publishes within a second of any write, see emdb-core's stats
//! publisher); when the writer's process is gone the series ends and the
//! rate is unknown, not the last one seen.

use std::collections::VecDeque;

use emdb_core::Stats;

/// How much history is kept.
pub const KEEP_MS: u64 = 15 * 60 * 1000;

/// The dashboard's time window.
pub const WINDOW_MS: u64 = 5 * 60 * 1000;

/// A publication older than this (while the writer runs) means it wrote
/// nothing since: its rates are 0.
pub const QUIET_MS: u64 = 2500;

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
    /// When the writer was seen gone (its series ended there).
    ended_ms: Option<u64>,
}

impl History {
    /// Record a stats sample taken at `now_ms`; `writer_alive` says whether
    /// the process that published it still runs (`None`: unknown or this
    /// process). Returns true when it added a point.
    pub fn record(&mut self, s: &Stats, now_ms: u64, writer_alive: Option<bool>) -> bool {
        if writer_alive == Some(false) {
            // No rate after this: the sparkline stops, the figure reads "—".
            self.ended_ms.get_or_insert(now_ms);
            return false;
        }
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
            self.ended_ms = None;
            return false;
        }
        if self.ended_ms.is_some() && cur.pid == prev.pid && at_ms == prev.at_ms {
            // Still the dead writer's last publication.
            return false;
        }
        self.ended_ms = None;
        // The same publication seen again; own counters (writable handle)
        // are sampled at most about once a second.
        let min_gap = if s.published_unix_ms.is_some() {
            1
        } else {
            900
        };
        if at_ms < prev.at_ms + min_gap {
            // Nothing published for a while: the writer is idle, its rate 0
            // (one point a second at most).
            let quiet = s.published_unix_ms.is_some() && now_ms >= prev.at_ms + QUIET_MS;
            let due = self.points.back().is_none_or(|p| now_ms >= p.at_ms + 1000);
            if quiet && due {
                self.push(Point {
                    at_ms: now_ms,
                    writes_per_s: 0.0,
                    flushes_per_s: 0.0,
                    fsync_p50_us: micros(s.fsync_p50),
                    fsync_p99_us: micros(s.fsync_p99),
                });
                return true;
            }
            return false;
        }
        self.last = Some(cur);
        let secs = (at_ms - prev.at_ms) as f64 / 1000.0;
        // Zero points of an idle spell may stand later than the writer's
        // clock: keep the series in order.
        let at_ms = self.points.back().map_or(at_ms, |p| at_ms.max(p.at_ms));
        self.push(Point {
            at_ms,
            writes_per_s: (cur.writes - prev.writes) as f64 / secs,
            flushes_per_s: (cur.flushes - prev.flushes) as f64 / secs,
            fsync_p50_us: micros(s.fsync_p50),
            fsync_p99_us: micros(s.fsync_p99),
        });
        true
    }

    fn push(&mut self, point: Point) {
        let at_ms = point.at_ms;
        self.points.push_back(point);
        while self
            .points
            .front()
            .is_some_and(|p| p.at_ms + KEEP_MS < at_ms)
        {
            self.points.pop_front();
        }
    }

    /// The newest point, unless the writer is gone (its rate is unknown
    /// then, not the last one seen).
    pub fn latest(&self) -> Option<&Point> {
        if self.ended_ms.is_some() {
            return None;
        }
        self.points.back()
    }

    /// True when the writer's process was seen gone.
    pub fn writer_gone(&self) -> bool {
        self.ended_ms.is_some()
    }

    /// All points, oldest first.
    pub fn points(&self) -> impl Iterator<Item = &Point> {
        self.points.iter()
    }

    /// `f` of the points bucketed into `columns` equal slices of the
    /// `window_ms` ending at `now_ms` (the mean of the points in a slice;
    /// `None` for slices before the first point and after the writer was
    /// seen gone; a slice without points after that repeats the previous
    /// value, since a rate holds until the next point, and idle spells
    /// have zero points).
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
        for (col, (sum, n)) in sums.into_iter().enumerate() {
            if n > 0 {
                carry = Some(sum / f64::from(n));
            }
            let col_start = start + (col as u64 * window_ms) / columns as u64;
            if self.ended_ms.is_some_and(|end| col_start >= end) {
                carry = None;
            }
            out.push(carry);
        }
        out
    }
}

fn micros(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
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
        assert!(!h.record(&stats(0, 0, 10_000), 10_100, Some(true)));
        // Same publication sampled again: nothing new.
        assert!(!h.record(&stats(0, 0, 10_000), 10_350, Some(true)));
        assert!(h.record(&stats(500, 2, 11_000), 11_100, Some(true)));
        let p = h.latest().unwrap();
        assert_eq!(p.writes_per_s, 500.0);
        assert_eq!(p.flushes_per_s, 2.0);
        assert_eq!(p.fsync_p99_us, 300);
        // The writer restarted: counters went back, no point.
        assert!(!h.record(&stats(10, 0, 12_000), 12_100, Some(true)));
        // A clock that went back starts over too.
        assert!(!h.record(&stats(10, 0, 11_500), 12_200, Some(true)));
        assert!(h.record(&stats(15, 0, 12_000), 12_300, Some(true)));
        assert!(h.record(&stats(25, 0, 14_000), 14_100, Some(true)));
        assert_eq!(h.latest().unwrap().writes_per_s, 5.0);
    }

    #[test]
    fn columns_bucket_and_carry() {
        let mut h = History::default();
        h.record(&stats(0, 0, 1_000), 0, None);
        h.record(&stats(100, 0, 2_000), 0, None);
        h.record(&stats(400, 0, 3_000), 0, None);
        let cols = h.columns(5_000, 4_000, 4, |p| p.writes_per_s);
        assert_eq!(cols, vec![None, Some(100.0), Some(300.0), Some(300.0)]);
    }

    #[test]
    fn an_idle_writer_falls_to_zero() {
        let mut h = History::default();
        h.record(&stats(0, 0, 10_000), 10_100, Some(true));
        assert!(h.record(&stats(96, 1, 11_000), 11_100, Some(true)));
        assert_eq!(h.latest().unwrap().writes_per_s, 96.0);
        // Published a second ago: the rate still holds.
        assert!(!h.record(&stats(96, 1, 11_000), 12_000, Some(true)));
        assert_eq!(h.latest().unwrap().writes_per_s, 96.0);
        // Nothing published for QUIET_MS: the writer wrote nothing.
        assert!(h.record(&stats(96, 1, 11_000), 13_600, Some(true)));
        assert_eq!(h.latest().unwrap().writes_per_s, 0.0);
        let cols = h.columns(14_000, 4_000, 4, |p| p.writes_per_s);
        assert_eq!(cols, vec![None, Some(96.0), Some(96.0), Some(0.0)]);
        // Its 10 s heartbeat publication, with the same counters: still 0.
        assert!(h.record(&stats(96, 1, 21_000), 21_100, Some(true)));
        assert_eq!(h.latest().unwrap().writes_per_s, 0.0);
    }

    #[test]
    fn a_dead_writer_has_no_rate() {
        let mut h = History::default();
        h.record(&stats(0, 0, 10_000), 10_100, Some(true));
        assert!(h.record(&stats(96, 1, 11_000), 11_100, Some(true)));
        assert!(!h.record(&stats(96, 1, 11_000), 11_300, Some(false)));
        assert!(h.writer_gone());
        assert!(h.latest().is_none());
        let cols = h.columns(15_000, 4_000, 4, |p| p.writes_per_s);
        assert_eq!(cols, vec![Some(96.0), None, None, None]);
        // Its last publication seen again from a sample that cannot tell.
        assert!(!h.record(&stats(96, 1, 11_000), 16_000, None));
        assert!(h.latest().is_none());
        // A new writer starts a new series.
        let mut next = stats(0, 0, 20_000);
        next.writer_pid = Some(8);
        assert!(!h.record(&next, 20_100, Some(true)));
        assert!(!h.writer_gone());
    }
}
