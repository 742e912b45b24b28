//! Numbers, sizes, durations and times as people read them.

use std::time::Duration;

/// `1234567` as `1,234,567`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A byte count with a binary unit: `512 B`, `1.5 KiB`, `12.3 MiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if v >= 100.0 {
        format!("{v:.0} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// A span of time in at most two units and eight characters (the width
/// of the key list's ttl column): `850ms`, `42s`, `5m 3s`, `2h 5m`,
/// `3d 4h`, `2y 45d` (years of 365 days), `150y`, `>9999y`.
pub fn span(d: Duration) -> String {
    let s = d.as_secs();
    if s == 0 {
        return format!("{}ms", d.subsec_millis());
    }
    let (days, hours, mins, secs) = (s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60);
    let two = |a: u64, ua: &str, b: u64, ub: &str| {
        if b == 0 {
            format!("{a}{ua}")
        } else {
            format!("{a}{ua} {b}{ub}")
        }
    };
    let years = days / 365;
    if years >= 10_000 {
        ">9999y".into()
    } else if years >= 100 {
        format!("{years}y")
    } else if years > 0 {
        two(years, "y", days % 365, "d")
    } else if days > 0 {
        two(days, "d", hours, "h")
    } else if hours > 0 {
        two(hours, "h", mins, "m")
    } else if mins > 0 {
        two(mins, "m", secs, "s")
    } else {
        format!("{secs}s")
    }
}

/// `n` and a noun, plural unless `n` is 1: `1 line`, `3 lines`.
pub fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", count(n))
    }
}

/// Time left before an expiry at `expires_ms`, seen at `now_ms`.
pub fn ttl_left(expires_ms: u64, now_ms: u64) -> String {
    if expires_ms <= now_ms {
        "expired".into()
    } else {
        span(Duration::from_millis(expires_ms - now_ms))
    }
}

/// How long ago `then_ms` was at `now_ms`, with one decimal under a minute.
pub fn ago(then_ms: u64, now_ms: u64) -> String {
    // Whole seconds: the screen is redrawn once a second while nothing
    // else changes, so finer figures would stand still between redraws.
    let d = now_ms.saturating_sub(then_ms);
    if d < 1000 {
        "just now".into()
    } else if d < 60_000 {
        format!("{}s ago", d / 1000)
    } else {
        format!("{} ago", span(Duration::from_millis(d)))
    }
}

/// A per-second rate: `0/s`, `2.5/s`, `12/s`, `1,234/s` (one decimal
/// below ten only).
pub fn rate(per_s: f64) -> String {
    let tenths = (per_s * 10.0).round();
    if per_s < 9.95 && tenths % 10.0 != 0.0 {
        format!("{:.1}/s", tenths / 10.0)
    } else {
        format!("{}/s", count(per_s.round() as u64))
    }
}

/// A latency: `0`, `850ns`, `12µs`, `1.3ms`, `2.0s`.
pub fn latency(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns == 0 {
        "0".into()
    } else if ns < 1_000 {
        format!("{ns}ns")
    } else if ns < 1_000_000 {
        format!("{}µs", ns / 1_000)
    } else if ns < 1_000_000_000 {
        format!("{:.1}ms", ns as f64 / 1e6)
    } else {
        format!("{:.1}s", ns as f64 / 1e9)
    }
}

/// Wall-clock time of day in UTC for ms since the Unix epoch: `14:03:27 UTC`.
pub fn utc_time(ms: u64) -> String {
    let s = ms / 1000;
    format!("{:02}:{:02}:{:02} UTC", s / 3600 % 24, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_get_separators() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(1_234_567), "1,234,567");
    }

    #[test]
    fn byte_sizes() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(200 << 20), "200 MiB");
    }

    #[test]
    fn spans_use_two_units() {
        assert_eq!(span(Duration::from_millis(850)), "850ms");
        assert_eq!(span(Duration::from_secs(42)), "42s");
        assert_eq!(span(Duration::from_secs(303)), "5m 3s");
        assert_eq!(span(Duration::from_secs(7500)), "2h 5m");
        assert_eq!(span(Duration::from_secs(273_600)), "3d 4h");
        assert_eq!(span(Duration::from_secs(7 * 86_400)), "7d");
        assert_eq!(span(Duration::from_secs(400 * 86_400)), "1y 35d");
        assert_eq!(
            span(Duration::from_secs(99 * 365 * 86_400 + 364 * 86_400)),
            "99y 364d"
        );
        assert_eq!(span(Duration::from_secs(150 * 365 * 86_400)), "150y");
        // The longest expiry an import takes: 2^63-1 ms.
        assert_eq!(span(Duration::from_millis(i64::MAX as u64)), ">9999y");
        assert_eq!(span(Duration::from_millis(u64::MAX)), ">9999y");
        assert_eq!(span(Duration::from_secs(300)), "5m");
        assert_eq!(plural(1, "line"), "1 line");
        assert_eq!(plural(1200, "key"), "1,200 keys");
        assert_eq!(ttl_left(1000, 2000), "expired");
        assert_eq!(ago(1000, 3500), "2s ago");
        assert_eq!(ago(1000, 1999), "just now");
    }

    #[test]
    fn rates_and_latencies() {
        assert_eq!(rate(0.0), "0/s");
        assert_eq!(rate(2.5), "2.5/s");
        assert_eq!(rate(2.0), "2/s");
        assert_eq!(rate(11.96), "12/s");
        assert_eq!(rate(12.5), "13/s");
        assert_eq!(rate(1234.4), "1,234/s");
        assert_eq!(latency(Duration::from_micros(12)), "12µs");
        assert_eq!(latency(Duration::from_micros(1300)), "1.3ms");
        assert_eq!(utc_time(3_723_000), "01:02:03 UTC");
    }
}
