//! `emdb stats`: sizes and counters as text, JSON or OpenMetrics.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

use emdb_core::Emdb;

use crate::cli::{StatsArgs, StatsFormat};
use crate::database::Session;
use crate::encoding::{escape_text, Layout};
use crate::error::{CliError, CliResult};
use crate::output::{NamespaceReport, StatsReport, Ui};

/// Print the statistics once, or every `--watch` seconds.
pub fn run(args: &StatsArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let format = match args.format {
        Some(f) => f,
        None if ui.json => StatsFormat::Json,
        None => StatsFormat::Text,
    };
    let Some(secs) = args.watch else {
        // Shown as an open handle shows it: symlinks resolved.
        let path = s.path()?;
        let path = path.canonicalize().unwrap_or(path);
        let (st, rec, read_only) = s.read_stats()?;
        super::note_encryption_backup(ui, &path);
        return print(&report_of(&st, &rec, read_only, &path), format, ui);
    };
    let interval = Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            CliError::usage(format!("--watch {secs}: give a positive number of seconds"))
        })?;
    let on_terminal = std::io::stdout().is_terminal();
    let redraw = on_terminal && format == StatsFormat::Text;
    // Off a terminal a redrawn table makes no sense: a log or a pipe gets
    // one timestamped JSON line per tick instead.
    let format = if !on_terminal && format == StatsFormat::Text {
        StatsFormat::Json
    } else {
        format
    };
    // A read-only handle follows the writer by itself; refresh() makes sure
    // each report includes everything written before it.
    let db = s.reader()?;
    let mut shown = 0u64;
    loop {
        db.refresh()?;
        let mut r = report(&db)?;
        r.timestamp_ms = Some(crate::space::now_ms());
        if redraw {
            // Home the cursor and clear the screen, then draw.
            ui.bytes(b"\x1b[H\x1b[2J")?;
        }
        print(&r, format, ui)?;
        ui.out.flush().map_err(CliError::stdout)?;
        shown += 1;
        if args.count.is_some_and(|n| shown >= n) {
            return Ok(());
        }
        std::thread::sleep(interval);
    }
}

fn report(db: &Emdb) -> CliResult<StatsReport> {
    let path = db.path().unwrap_or_default();
    Ok(report_of(
        &db.stats()?,
        db.recovery_report(),
        db.is_read_only(),
        &path,
    ))
}

/// The report of `st`; `path` is the database's own (not a display form
/// of it), since whether its writer runs is asked of its lock file.
fn report_of(
    st: &emdb_core::Stats,
    rec: &emdb_core::RecoveryReport,
    read_only: bool,
    path: &Path,
) -> StatsReport {
    StatsReport {
        timestamp_ms: None,
        read_only,
        path: path.display().to_string(),
        live_records: st.live_records,
        expiring_records: st.expiring_records,
        namespaces: sorted(&st.namespaces),
        index_entries: st.index_entries,
        index_memory_bytes: st.index_memory_bytes,
        log_logical_bytes: st.log_logical_bytes,
        file_bytes: st.file_bytes,
        live_bytes: st.live_bytes,
        dead_bytes: st.dead_bytes,
        writes: st.writes,
        flushes: st.flushes,
        fsyncs: st.fsyncs,
        fsync_p50_us: micros(st.fsync_p50),
        fsync_p99_us: micros(st.fsync_p99),
        compactions: st.compactions,
        last_compaction_unix_ms: st.last_compaction_unix_ms,
        writer_pid: st.writer_pid,
        writer_running: st
            .writer_pid
            .map(|pid| emdb_tools::database::writer_running(path, pid)),
        published_unix_ms: st.published_unix_ms,
        encrypted: st.encrypted,
        encryptions: st.encryptions,
        nonce_budget_warning: st.nonce_budget_warning,
        recovery_records_replayed: rec.records_replayed,
        recovery_used_checkpoint: rec.used_checkpoint,
        recovery_used_tail_index: rec.used_tail_index,
    }
}

/// The namespaces by name (the default one, `""`, first): the engine lists
/// them in no stable order, and reports should compare line by line.
fn sorted(namespaces: &[(String, u64)]) -> Vec<NamespaceReport> {
    let mut list: Vec<NamespaceReport> = namespaces
        .iter()
        .map(|(name, keys)| NamespaceReport {
            name: name.clone(),
            keys: *keys,
        })
        .collect();
    list.sort_by(|a, b| a.name.cmp(&b.name));
    list
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

fn print(r: &StatsReport, format: StatsFormat, ui: &mut Ui) -> CliResult {
    match format {
        StatsFormat::Json => ui.json_line(r),
        StatsFormat::Text => ui.bytes(text(r).as_bytes()),
        StatsFormat::Prometheus => ui.bytes(openmetrics(r).as_bytes()),
    }
}

/// The key count, and what it includes when some keys can expire.
fn live_records(r: &StatsReport) -> String {
    if r.expiring_records == 0 {
        return r.live_records.to_string();
    }
    format!(
        "{} ({} with an expiry: expired ones count here until swept or compacted; \
         `emdb count` leaves them out)",
        r.live_records, r.expiring_records
    )
}

fn text(r: &StatsReport) -> String {
    let mut t = String::new();
    let dead_pct = if r.log_logical_bytes > 0 {
        100.0 * r.dead_bytes as f64 / r.log_logical_bytes as f64
    } else {
        0.0
    };
    let rows: Vec<(&str, String)> = vec![
        ("path", escape_text(r.path.as_bytes(), Layout::Field).into_owned()),
        ("live records", live_records(r)),
        ("file size", bytes(r.file_bytes)),
        ("log in use", bytes(r.log_logical_bytes)),
        ("live data", bytes(r.live_bytes)),
        (
            "dead data",
            format!(
                "{} ({dead_pct:.1}% of the log, reclaimable by `emdb compact`)",
                bytes(r.dead_bytes)
            ),
        ),
        ("index memory", bytes(r.index_memory_bytes)),
        (
            "opened from",
            if r.recovery_used_checkpoint {
                format!(
                    "checkpoint{} + {} replayed records",
                    if r.recovery_used_tail_index {
                        " + tail index"
                    } else {
                        ""
                    },
                    r.recovery_records_replayed
                )
            } else {
                format!("full replay of {} records", r.recovery_records_replayed)
            },
        ),
        (
            "activity",
            match (r.writer_pid, r.published_unix_ms) {
                (Some(pid), Some(ms)) => format!(
                    "{} writes, {} flushes, {} fsyncs (p50 {} us, p99 {} us) by writer pid {pid} ({}), published {:.1}s ago",
                    r.writes,
                    r.flushes,
                    r.fsyncs,
                    r.fsync_p50_us,
                    r.fsync_p99_us,
                    if r.writer_running == Some(true) {
                        "running"
                    } else {
                        "exited"
                    },
                    crate::space::now_ms().saturating_sub(ms) as f64 / 1000.0
                ),
                _ if r.read_only => "no writer has published counters".into(),
                _ => format!(
                    "{} writes, {} flushes, {} fsyncs (p50 {} us, p99 {} us) by this process",
                    r.writes, r.flushes, r.fsyncs, r.fsync_p50_us, r.fsync_p99_us
                ),
            },
        ),
        (
            "encryption",
            if r.encrypted {
                let mut t = format!("encrypted; {} records sealed under the current key", r.encryptions);
                if r.nonce_budget_warning {
                    t.push_str(" - rotate the key soon (`emdb rotate-key`)");
                }
                t
            } else {
                "not encrypted".into()
            },
        ),
        (
            "last compaction",
            r.last_compaction_unix_ms.map_or_else(
                || "none recorded".into(),
                |ms| {
                    let age = crate::space::now_ms().saturating_sub(ms) / 1000;
                    format!("{} ago ({ms} ms since the Unix epoch)", age_text(age))
                },
            ),
        ),
    ];
    for (name, value) in rows {
        let _ = writeln!(t, "{name:<16} {value}");
    }
    if r.namespaces.len() > 1 {
        for ns in &r.namespaces {
            // Escaped as keys are, so a name cannot break the line.
            let name = if ns.name.is_empty() {
                "(default)".into()
            } else {
                escape_text(ns.name.as_bytes(), Layout::Field)
            };
            let _ = writeln!(t, "  namespace {name}: {} keys", ns.keys);
        }
    }
    t
}

fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {} ({n} bytes)", UNITS[unit])
    }
}

/// OpenMetrics text exposition (also read by Prometheus).
fn openmetrics(r: &StatsReport) -> String {
    let mut t = String::new();
    let mut metric = |name: &str, kind: &str, unit: &str, help: &str, value: String| {
        let _ = writeln!(t, "# TYPE {name} {kind}");
        if !unit.is_empty() {
            let _ = writeln!(t, "# UNIT {name} {unit}");
        }
        let _ = writeln!(t, "# HELP {name} {help}");
        let sample = if kind == "counter" {
            format!("{name}_total")
        } else {
            name.to_string()
        };
        let _ = writeln!(t, "{sample} {value}");
    };
    metric(
        "emdb_live_records",
        "gauge",
        "",
        "Live keys across all namespaces.",
        r.live_records.to_string(),
    );
    metric(
        "emdb_index_memory_bytes",
        "gauge",
        "bytes",
        "Heap bytes of the hash indexes.",
        r.index_memory_bytes.to_string(),
    );
    metric(
        "emdb_log_logical_bytes",
        "gauge",
        "bytes",
        "Bytes of the log in use.",
        r.log_logical_bytes.to_string(),
    );
    metric(
        "emdb_file_bytes",
        "gauge",
        "bytes",
        "Size of the database file, including preallocated room.",
        r.file_bytes.to_string(),
    );
    metric(
        "emdb_live_bytes",
        "gauge",
        "bytes",
        "Bytes of current records.",
        r.live_bytes.to_string(),
    );
    metric(
        "emdb_dead_bytes",
        "gauge",
        "bytes",
        "Bytes of superseded or deleted records, reclaimable by compaction.",
        r.dead_bytes.to_string(),
    );
    metric(
        "emdb_writes",
        "counter",
        "",
        "Records written by the writer since it opened the database.",
        r.writes.to_string(),
    );
    metric(
        "emdb_fsyncs",
        "counter",
        "",
        "fdatasync calls by the writer since it opened the database.",
        r.fsyncs.to_string(),
    );
    metric(
        "emdb_encrypted",
        "gauge",
        "",
        "1 when records are encrypted.",
        u8::from(r.encrypted).to_string(),
    );
    metric(
        "emdb_encryptions",
        "counter",
        "",
        "Records sealed under the current key.",
        r.encryptions.to_string(),
    );
    metric(
        "emdb_compactions",
        "counter",
        "",
        "Compactions by the writer since it opened the database.",
        r.compactions.to_string(),
    );
    let _ = writeln!(t, "# TYPE emdb_namespace_keys gauge");
    let _ = writeln!(t, "# HELP emdb_namespace_keys Live keys per namespace.");
    for ns in &r.namespaces {
        let _ = writeln!(
            t,
            "emdb_namespace_keys{{namespace=\"{}\"}} {}",
            label(&escape_text(ns.name.as_bytes(), Layout::Field)),
            ns.keys
        );
    }
    let _ = writeln!(t, "# EOF");
    t
}

/// Escape a label value as OpenMetrics requires. Namespace names are given
/// in their escaped text form (as `ns list` shows them) first, so that no
/// control character reaches the exposition, or a terminal showing it.
fn label(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A duration in whole seconds as its largest unit or two: `45s`, `3m 20s`,
/// `5h 2m`, `2d 4h`.
fn age_text(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, _) => format!("{m}m {s}s"),
        (0, _, _) => format!("{h}h {m}m"),
        _ => format!("{d}d {h}h"),
    }
}

#[cfg(test)]
mod age_tests {
    use super::age_text;

    #[test]
    fn ages_read_in_their_largest_units() {
        assert_eq!(age_text(0), "0s");
        assert_eq!(age_text(45), "45s");
        assert_eq!(age_text(200), "3m 20s");
        assert_eq!(age_text(5 * 3600 + 120 + 7), "5h 2m");
        assert_eq!(age_text(2 * 86_400 + 4 * 3600 + 59), "2d 4h");
    }
}
