//! Per-record expiry.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a record lives, given to `insert_with_ttl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ttl {
    /// The builder's `default_ttl`, or no expiry when none is set.
    #[default]
    Default,
    /// Expire this long after the write (rounded up to whole milliseconds).
    After(Duration),
    /// Never expire.
    Never,
    /// Expire at this moment (an absolute time, e.g. carried over by an
    /// import). A moment in the past makes the record invisible at once.
    At(SystemTime),
}

impl Ttl {
    /// The absolute expiry (ms since the epoch, 0 = never) for a write made
    /// now. The clock (`now`) is read only when the expiry depends on it: a
    /// bulk load without TTLs would spend a tenth of its time reading it.
    pub(crate) fn expires_at(self, now: impl FnOnce() -> u64, default: Option<Duration>) -> u64 {
        let d = match self {
            Ttl::Default => match default {
                Some(d) => d,
                None => return 0,
            },
            Ttl::After(d) => d,
            Ttl::Never => return 0,
            Ttl::At(t) => {
                // Rounded up, as `After`: a moment within the next
                // millisecond is not "now".
                let ms = t.duration_since(UNIX_EPOCH).map_or(0, ceil_ms);
                return ms.max(1);
            }
        };
        // Whole milliseconds, rounded up: a TTL under 1 ms truncated to 0
        // expired the record at once, which only a zero TTL means. A zero
        // TTL still expires "now", never "never": clamp to at least 1.
        now().saturating_add(ceil_ms(d)).max(1)
    }
}

/// `d` in whole milliseconds, rounded up (saturating at `u64::MAX`).
fn ceil_ms(d: Duration) -> u64 {
    d.as_nanos().div_ceil(1_000_000).min(u128::from(u64::MAX)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_against_the_default() {
        let d = Some(Duration::from_secs(10));
        assert_eq!(Ttl::Default.expires_at(|| 1000, None), 0);
        assert_eq!(Ttl::Default.expires_at(|| 1000, d), 11_000);
        assert_eq!(
            Ttl::After(Duration::from_millis(5)).expires_at(|| 1000, d),
            1005
        );
        assert_eq!(Ttl::Never.expires_at(|| 1000, d), 0);
        // Rounded up to whole milliseconds: under 1 ms is not "now".
        assert_eq!(
            Ttl::After(Duration::from_micros(999)).expires_at(|| 1000, d),
            1001
        );
        assert_eq!(
            Ttl::After(Duration::from_micros(1500)).expires_at(|| 1000, d),
            1002
        );
        assert_eq!(Ttl::After(Duration::ZERO).expires_at(|| 1000, d), 1000);
        assert_eq!(
            Ttl::After(Duration::MAX).expires_at(|| 1000, None),
            u64::MAX
        );
        let at = UNIX_EPOCH + Duration::from_millis(5_000);
        assert_eq!(Ttl::At(at).expires_at(|| 1000, d), 5_000);
        assert_eq!(Ttl::At(UNIX_EPOCH).expires_at(|| 1000, d), 1);
        let within = UNIX_EPOCH + Duration::from_micros(1_000_500);
        assert_eq!(Ttl::At(within).expires_at(|| 1000, d), 1001);
    }
}
