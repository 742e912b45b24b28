//! The results: one markdown table (engines as columns), a ratio table, and
//! the same figures as JSON with fixed keys.

use std::fmt::Write as _;

use crate::floor::Floor;
use crate::phases::{unit_of, Figures, Unit, PHASES};

/// Figures of every engine that ran, in column order.
pub struct Results {
    /// Bulk-loaded records.
    pub records: usize,
    /// (engine, its figures).
    pub engines: Vec<(&'static str, Figures)>,
}

impl Results {
    fn value(&self, engine: usize, phase: &str) -> Option<f64> {
        self.engines[engine]
            .1
            .iter()
            .find(|(p, _)| *p == phase)
            .and_then(|&(_, v)| v)
    }

    /// The markdown table: one row per phase, one column per engine.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = write!(s, "| phase ({} records) |", thousands(self.records as u64));
        for (e, _) in &self.engines {
            let _ = write!(s, " {e} |");
        }
        s.push_str("\n|---|");
        for _ in &self.engines {
            s.push_str("---:|");
        }
        s.push('\n');
        for &(phase, unit) in PHASES {
            let _ = write!(s, "| {phase} |");
            for i in 0..self.engines.len() {
                let _ = write!(s, " {} |", format_value(self.value(i, phase), unit));
            }
            s.push('\n');
        }
        s
    }

    /// For each peer: peer figure / first engine's figure, per phase (above 1
    /// means the first engine is faster or smaller).
    pub fn ratios(&self) -> String {
        let mut s = String::new();
        let Some((base, _)) = self.engines.first() else {
            return s;
        };
        if self.engines.len() < 2 {
            return s;
        }
        let _ = write!(s, "| peer / {base} |");
        for (e, _) in &self.engines[1..] {
            let _ = write!(s, " {e} |");
        }
        s.push_str("\n|---|");
        for _ in &self.engines[1..] {
            s.push_str("---:|");
        }
        s.push('\n');
        for &(phase, _) in PHASES {
            let _ = write!(s, "| {phase} |");
            for i in 1..self.engines.len() {
                let cell = match (self.value(0, phase), self.value(i, phase)) {
                    (Some(b), Some(p)) if b > 0.0 => format!("{:.2}x", p / b),
                    _ => "n/a".to_string(),
                };
                let _ = write!(s, " {cell} |");
            }
            s.push('\n');
        }
        s
    }

    /// `{"records":N,"phases":{"<phase>":{"<engine>":value}},"machine":{..}}`;
    /// times in ms, sizes in bytes, index memory in bytes per key, `null`
    /// where an engine does not support a phase.
    pub fn json(&self, floor: Option<&Floor>) -> String {
        let mut s = String::new();
        let _ = write!(s, "{{\"records\":{},\"phases\":{{", self.records);
        for (pi, &(phase, _)) in PHASES.iter().enumerate() {
            if pi > 0 {
                s.push(',');
            }
            let _ = write!(s, "\"{}\":{{", json_escape(phase));
            for (ei, (engine, _)) in self.engines.iter().enumerate() {
                if ei > 0 {
                    s.push(',');
                }
                let v = match self.value(ei, phase) {
                    Some(v) if v.is_finite() => format!("{v:.6}"),
                    _ => "null".to_string(),
                };
                let _ = write!(s, "\"{}\":{v}", json_escape(engine));
            }
            s.push('}');
        }
        s.push('}');
        if let Some(f) = floor {
            let _ = write!(
                s,
                ",\"machine\":{{\"fdatasync_append_200b_ms\":{:.6},\
                 \"fdatasync_overwrite_200b_ms\":{:.6},\"seq_write_mib_s\":{:.1},\
                 \"pointer_chase_bytes\":{},\"pointer_chase_ns\":{:.1},\
                 \"pointer_chase_huge_ns\":{:.1}}}",
                f.append_fdatasync.as_secs_f64() * 1e3,
                f.overwrite_fdatasync.as_secs_f64() * 1e3,
                f.seq_write_mib_s,
                f.chase_bytes,
                f.chase_ns,
                f.chase_huge_ns
            );
        }
        s.push_str("}\n");
        s
    }
}

/// A figure as the table shows it.
pub fn format_value(v: Option<f64>, unit: Unit) -> String {
    let Some(v) = v else {
        return "n/a".to_string();
    };
    match unit {
        Unit::Millis if v >= 100.0 => format!("{v:.0} ms"),
        Unit::Millis if v >= 1.0 => format!("{v:.1} ms"),
        Unit::Millis => format!("{:.1} µs", v * 1e3),
        Unit::Bytes if v >= 1024.0 * 1_048_576.0 => {
            format!("{:.2} GiB", v / (1024.0 * 1_048_576.0))
        }
        Unit::Bytes => format!("{:.1} MiB", v / 1_048_576.0),
        Unit::BytesPerKey => format!("{v:.1} B"),
    }
}

/// The phase's figure for `engine` formatted with the phase's unit.
pub fn format_phase(phase: &str, v: Option<f64>) -> String {
    format_value(v, unit_of(phase))
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn json_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phases::{BULK_LOAD, COMPACTED_SIZE};

    #[test]
    fn table_and_json_have_every_phase_and_engine() {
        let r = Results {
            records: 1000,
            engines: vec![
                ("a", vec![(BULK_LOAD, Some(2.0)), (COMPACTED_SIZE, None)]),
                ("b", vec![(BULK_LOAD, Some(5.0))]),
            ],
        };
        let md = r.markdown();
        assert!(md.starts_with("| phase (1,000 records) | a | b |"));
        assert!(md.contains("| bulk load | 2.0 ms | 5.0 ms |"));
        assert!(r.ratios().contains("| bulk load | 2.50x |"));
        let js = r.json(None);
        assert!(js.starts_with(
            "{\"records\":1000,\"phases\":{\"bulk load\":{\"a\":2.000000,\"b\":5.000000}"
        ));
        assert!(js.contains("\"compacted size\":{\"a\":null,\"b\":null}"));
        let floor = crate::floor::Floor {
            append_fdatasync: std::time::Duration::from_micros(170),
            overwrite_fdatasync: std::time::Duration::from_micros(110),
            seq_write_mib_s: 1500.0,
            chase_bytes: 4096,
            chase_ns: 210.0,
            chase_huge_ns: 165.5,
        };
        let js = r.json(Some(&floor));
        assert!(js.contains("\"pointer_chase_ns\":210.0,\"pointer_chase_huge_ns\":165.5}"));
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(999), "999");
    }
}
