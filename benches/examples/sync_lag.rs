//! Helpers of `benches/sync.sh` (the `emdb sync` targets, docs/BENCH.md).
//!
//! ```text
//! sync_lag fill DB N                 N records: 24-byte keys, 150-byte values
//! sync_lag lag DB REDIS_URL RATE SECS
//! ```
//! `lag` writes RATE records a second for SECS seconds, durable in groups
//! (one `flush` every 5 ms), while `emdb sync --follow` runs beside it. For
//! every flush, a second thread polls Redis for the last key of that group
//! and records the time from `flush` returning to the key being readable;
//! it prints p50, p99 and max of those lags.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use emdb_core::Emdb;

fn key(i: u64) -> String {
    format!("key:{i:020}")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("fill") => fill(&args[1], args[2].parse().unwrap_or(1_000_000)),
        Some("lag") => lag(
            &args[1],
            &args[2],
            args[3].parse().unwrap_or(10_000),
            args[4].parse().unwrap_or(10),
        ),
        _ => eprintln!("usage: sync_lag fill DB N | sync_lag lag DB REDIS_URL RATE SECS"),
    }
}

fn fill(path: &str, n: u64) {
    let db = Emdb::open(path).unwrap_or_else(|e| panic!("open {path}: {e}"));
    let value = vec![b'v'; 150];
    let mut i = 0;
    while i < n {
        let end = (i + 10_000).min(n);
        db.insert_many((i..end).map(|k| (key(k), value.clone())))
            .unwrap_or_else(|e| panic!("insert: {e}"));
        i = end;
    }
    db.flush().unwrap_or_else(|e| panic!("flush: {e}"));
}

fn lag(path: &str, url: &str, rate: u64, secs: u64) {
    let db = Emdb::open(path).unwrap_or_else(|e| panic!("open {path}: {e}"));
    let (tx, rx) = mpsc::channel::<(String, Instant)>();
    let url = url.to_string();
    let checker = std::thread::spawn(move || {
        let mut con = redis::Client::open(url.as_str())
            .and_then(|c| c.get_connection())
            .unwrap_or_else(|e| panic!("redis: {e}"));
        let mut lags = Vec::new();
        for (k, flushed) in rx {
            loop {
                let found: bool = redis::cmd("EXISTS")
                    .arg(&k)
                    .query(&mut con)
                    .unwrap_or_else(|e| panic!("EXISTS: {e}"));
                if found {
                    lags.push(flushed.elapsed());
                    break;
                }
                std::thread::sleep(Duration::from_micros(100));
            }
        }
        lags
    });
    let group = Duration::from_millis(5);
    let per_group = (rate * group.as_millis() as u64 / 1000).max(1);
    let value = vec![b'w'; 150];
    let start = Instant::now();
    let mut next = start;
    let mut i = 10_000_000_000u64;
    let mut written = 0u64;
    while start.elapsed() < Duration::from_secs(secs) {
        for _ in 0..per_group {
            db.insert(key(i), &value)
                .unwrap_or_else(|e| panic!("insert: {e}"));
            i += 1;
            written += 1;
        }
        db.flush().unwrap_or_else(|e| panic!("flush: {e}"));
        let _ = tx.send((key(i - 1), Instant::now()));
        next += group;
        if let Some(d) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(d);
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    drop(tx);
    let mut lags = checker.join().unwrap_or_default();
    lags.sort();
    let pct = |p: f64| {
        lags.get(((lags.len() as f64 - 1.0) * p) as usize)
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    println!(
        "writes/s {:.0} (durable, flush every {} ms) flushes {} lag_ms p50 {:.2} p99 {:.2} max {:.2}",
        written as f64 / elapsed,
        group.as_millis(),
        lags.len(),
        pct(0.5),
        pct(0.99),
        pct(1.0)
    );
}
