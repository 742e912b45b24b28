//! Individual durable writes against the fdatasync floor, in one process:
//! for profiling the `individual writes` phase.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use emdb_benches::floor;
use emdb_benches::workload::Rng;
use emdb_core::Emdb;

fn main() {
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let preload: usize = std::env::var("PRELOAD")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let dir =
        tempfile::tempdir_in(std::env::var("EMDB_BENCH_DIR").unwrap_or("/tmp".into())).unwrap();
    let db = Emdb::open(dir.path().join("d.emdb")).unwrap();
    let mut rng = Rng::new(1);
    if preload > 0 {
        let pairs: Vec<_> = (0..preload).map(|_| rng.pair()).collect();
        db.insert_many(pairs.iter().map(|p| (&p.key, &p.value)))
            .unwrap();
        db.flush().unwrap();
    }
    for round in 0..3 {
        let append = floor::fdatasync_append(dir.path(), 200, 200).unwrap();
        let over = floor::fdatasync_overwrite(dir.path(), 200, 200).unwrap();
        let mut samples: Vec<Duration> = Vec::with_capacity(n);
        let t = Instant::now();
        for _ in 0..n {
            let p = rng.pair();
            let s = Instant::now();
            db.insert(p.key, p.value).unwrap();
            db.flush().unwrap();
            samples.push(s.elapsed());
        }
        let total = t.elapsed();
        let med = floor::median(&mut samples);
        let pct = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
        println!(
            "  emdb p10 {:?} p50 {:?} p90 {:?} p99 {:?} max {:?}",
            pct(0.1),
            pct(0.5),
            pct(0.9),
            pct(0.99),
            samples[samples.len() - 1]
        );
        let st = db.stats().unwrap();
        println!(
            "round {round}: {n} insert+flush in {total:?} ({:.3} ms/op, median {:.3} ms); \
             floor append {:.3} ms, overwrite {:.3} ms; engine fsync p50 {:?}",
            total.as_secs_f64() * 1e3 / n as f64,
            med.as_secs_f64() * 1e3,
            append.as_secs_f64() * 1e3,
            over.as_secs_f64() * 1e3,
            st.fsync_p50,
        );
    }
}
