//! A process that keeps writing to a database, for watching with emdb-tui
//! (the end-to-end test in tests/e2e_tmux.sh uses it).
//!
//! ```text
//! cargo run -p emdb-tui --example live_writer -- /tmp/live.emdb --rate 200
//! ```
//!
//! It first fills the database with sample data (users as JSON, sessions
//! with a time to live, dotted config keys, a binary blob, a `metrics`
//! namespace), then appends `event:<n>` keys at `--rate` per second,
//! updates users, deletes old events and flushes every 100 ms, until
//! `--seconds` pass or it is killed.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use emdb_core::{Emdb, Ttl};

/// Keep writing to an emdb database.
#[derive(Parser)]
struct Args {
    /// Database file (created if missing).
    path: PathBuf,
    /// Keys written per second after the initial fill.
    #[arg(long, default_value_t = 200)]
    rate: u64,
    /// Users in the initial fill.
    #[arg(long, default_value_t = 500)]
    users: u64,
    /// Stop after this many seconds (0: run until killed).
    #[arg(long, default_value_t = 0)]
    seconds: u64,
    /// Only fill, then exit.
    #[arg(long)]
    fill_only: bool,
    /// Drop the `metrics` namespace once this file exists (the end-to-end
    /// test uses it to drop a namespace a viewer is showing).
    #[arg(long, value_name = "FILE")]
    drop_metrics_on: Option<PathBuf>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let db = Emdb::open(&args.path)?;
    fill(&db, args.users)?;
    db.flush()?;
    println!("filled {} keys", db.len()?);
    if args.fill_only {
        return Ok(());
    }
    let start = Instant::now();
    let tick = Duration::from_millis(100);
    let per_tick = (args.rate / 10).max(1);
    let mut seq = 0u64;
    loop {
        let tick_start = Instant::now();
        for _ in 0..per_tick {
            seq += 1;
            db.insert(
                format!("event:{seq:08}"),
                format!(
                    r#"{{"seq":{seq},"kind":"click","at_ms":{}}}"#,
                    start.elapsed().as_millis()
                ),
            )?;
            if seq.is_multiple_of(7) {
                let user = seq % args.users.max(1);
                db.insert(
                    format!("user:{user:05}"),
                    format!(r#"{{"id":{user},"name":"user {user}","visits":{seq}}}"#),
                )?;
            }
            if seq > 2000 && seq.is_multiple_of(3) {
                db.remove(format!("event:{:08}", seq - 2000))?;
            }
        }
        if let Some(trigger) = &args.drop_metrics_on {
            if trigger.exists() && db.drop_namespace("metrics")? {
                println!("dropped metrics");
            }
        }
        db.flush()?;
        if seq.is_multiple_of(per_tick * 10) {
            println!("wrote {seq} events, {} keys", db.len()?);
        }
        if args.seconds > 0 && start.elapsed() >= Duration::from_secs(args.seconds) {
            return Ok(());
        }
        if let Some(rest) = tick.checked_sub(tick_start.elapsed()) {
            std::thread::sleep(rest);
        }
    }
}

fn fill(db: &Emdb, users: u64) -> emdb_core::Result<()> {
    db.insert_many((0..users).map(|i| {
        (
            format!("user:{i:05}"),
            format!(r#"{{"id":{i},"name":"user {i}","tags":["a","b"],"active":true}}"#),
        )
    }))?;
    for i in 0..20u64 {
        db.insert_with_ttl(
            format!("session:{i:03}"),
            format!("token-{i}-{}", i * 7919),
            Ttl::After(Duration::from_secs(60 + i * 97)),
        )?;
    }
    for (k, v) in [
        ("config.app.name", "demo"),
        ("config.app.port", "8080"),
        ("config.db.pool", "16"),
        ("readme", "A sample database.\nLine two.\n\tindented line"),
    ] {
        db.insert(k, v)?;
    }
    db.insert(
        "blob:logo",
        (0u8..=255).cycle().take(600).collect::<Vec<u8>>(),
    )?;
    let metrics = db.namespace("metrics")?;
    for i in 0..50u64 {
        metrics.insert(format!("cpu.{i:02}"), format!("{}", i * 3 % 100))?;
    }
    db.namespace("empty")?;
    Ok(())
}
