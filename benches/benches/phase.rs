//! The phase bench: every engine compiled in, through the same phases, in one
//! run, with the machine's floor measured alongside. See docs/BENCH.md.
//!
//! ```text
//! cargo bench -p emdb-benches --bench phase --features all-peers -- --json out.json
//! ```
//!
//! Options (flags after `--`, or the environment):
//! - `--records N` / `EMDB_BENCH_RECORDS` (default 1,000,000)
//! - `--json PATH` / `EMDB_BENCH_JSON`: also write the figures as JSON
//! - `--engines a,b` / `EMDB_BENCH_ENGINES`: a subset of the compiled engines
//! - `EMDB_BENCH_DIR`: where the databases go (default: the temp dir)
//! - `--runs R` / `EMDB_BENCH_RUNS` (default 1): run everything R times
//!   (engines interleaved) and report the median of each figure
//! - `EMDB_BENCH_SEQ_MIB`: size of the sequential-write floor (default 256)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Instant;

use emdb_benches::floor::{self, Floor};
use emdb_benches::peers;
use emdb_benches::phases::{self, Figures};
use emdb_benches::report::Results;
use emdb_benches::workload::{Workload, KEY_LEN, VALUE_LEN};

struct Config {
    records: usize,
    json: Option<PathBuf>,
    engines: Vec<String>,
    dir: PathBuf,
    seq_mib: usize,
    runs: usize,
}

fn config() -> Config {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let mut records = env("EMDB_BENCH_RECORDS").map(|v| parse_count(&v));
    let mut json = env("EMDB_BENCH_JSON").map(PathBuf::from);
    let mut engines = env("EMDB_BENCH_ENGINES");
    let mut runs = env("EMDB_BENCH_RUNS").map(|v| parse_count(&v));
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--json" => json = args.next().map(PathBuf::from),
            "--records" => records = args.next().map(|v| parse_count(&v)),
            "--engines" => engines = args.next(),
            "--runs" => runs = args.next().map(|v| parse_count(&v)),
            // cargo bench passes --bench; libtest-style filters are ignored.
            _ => {}
        }
    }
    let compiled = peers::compiled();
    let engines = match engines {
        Some(list) => list
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        None => compiled.iter().map(|s| s.to_string()).collect(),
    };
    Config {
        records: records.unwrap_or(1_000_000),
        json,
        engines,
        dir: env("EMDB_BENCH_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir),
        seq_mib: env("EMDB_BENCH_SEQ_MIB")
            .map(|v| parse_count(&v))
            .unwrap_or(256),
        runs: runs.unwrap_or(1).max(1),
    }
}

fn parse_count(s: &str) -> usize {
    s.replace(['_', ','], "")
        .parse()
        .unwrap_or_else(|_| panic!("not a count: {s:?}"))
}

fn print_floor(f: &Floor) {
    println!("machine floor (same run, same file system):");
    println!(
        "- fdatasync after a 200-byte append: {:.3} ms (median of 200)",
        f.append_fdatasync.as_secs_f64() * 1e3
    );
    println!(
        "- fdatasync after a 200-byte overwrite of allocated blocks: {:.3} ms (median of 200)",
        f.overwrite_fdatasync.as_secs_f64() * 1e3
    );
    println!(
        "- sequential write (1 MiB writes + one fdatasync): {:.0} MiB/s",
        f.seq_write_mib_s
    );
    println!(
        "- dependent random access over {:.0} MiB (pointer chase): {:.1} ns; two in a row: {:.0} ns",
        f.chase_bytes as f64 / 1_048_576.0,
        f.chase_ns,
        2.0 * f.chase_ns
    );
    println!(
        "- the same over 2 MiB pages (MADV_HUGEPAGE, as the index slots): {:.1} ns; slot + record: {:.0} ns",
        f.chase_huge_ns,
        f.chase_huge_ns + f.chase_ns
    );
}

fn main() {
    let cfg = config();
    std::fs::create_dir_all(&cfg.dir).expect("create the bench directory");
    eprintln!(
        "phase bench: {} records, engines {}, databases under {}",
        cfg.records,
        cfg.engines.join(","),
        cfg.dir.display()
    );
    let t = Instant::now();
    let w = Workload::generate(cfg.records, 0x5EED);
    eprintln!("workload generated in {:.1?}", t.elapsed());

    let mut floors = Vec::new();
    let mut runs: Vec<Vec<(&'static str, Figures)>> = Vec::new();
    let mut failed = Vec::new();
    for run in 0..cfg.runs {
        if cfg.runs > 1 {
            eprintln!("run {} of {}", run + 1, cfg.runs);
        }
        let floor_dir = tempfile::tempdir_in(&cfg.dir).expect("floor directory");
        floors.push(
            floor::measure(
                floor_dir.path(),
                cfg.records * (KEY_LEN + VALUE_LEN),
                cfg.seq_mib,
            )
            .expect("measure the machine floor"),
        );
        drop(floor_dir);
        let mut columns = Vec::new();
        for name in &cfg.engines {
            if failed.contains(name) {
                continue;
            }
            let dir = tempfile::tempdir_in(&cfg.dir).expect("engine directory");
            let t = Instant::now();
            let outcome = peers::create(name, dir.path().to_path_buf()).and_then(|mut store| {
                let column = store.name();
                let figures = phases::run(store.as_mut(), &w, &mut |line| eprintln!("  {line}"));
                drop(store);
                figures.map(|f| (column, f))
            });
            match outcome {
                Ok(col) => {
                    eprintln!("{name}: done in {:.1?}", t.elapsed());
                    columns.push(col);
                }
                Err(e) => {
                    eprintln!("{name}: FAILED: {e}");
                    failed.push(name.clone());
                }
            }
        }
        runs.push(columns);
    }
    let results = Results {
        records: cfg.records,
        engines: median_columns(&runs, &failed),
    };
    let floor = median_floor(&mut floors);

    println!();
    println!(
        "{} records, {KEY_LEN}-byte random keys, {VALUE_LEN}-byte random values{}",
        cfg.records,
        if cfg.runs > 1 {
            format!("; median of {} runs", cfg.runs)
        } else {
            String::new()
        }
    );
    println!();
    print!("{}", results.markdown());
    println!();
    let ratios = results.ratios();
    if !ratios.is_empty() {
        print!("{ratios}");
        println!();
    }
    print_floor(&floor);
    if let Some(path) = &cfg.json {
        std::fs::write(path, results.json(Some(&floor))).expect("write the JSON results");
        eprintln!("JSON written to {}", path.display());
    }
    if !failed.is_empty() {
        eprintln!("engines that failed: {}", failed.join(", "));
        std::process::exit(1);
    }
}

/// Per engine and phase, the median over the runs (engines that failed in
/// any run are left out).
fn median_columns(
    runs: &[Vec<(&'static str, Figures)>],
    failed: &[String],
) -> Vec<(&'static str, Figures)> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (engine, figures) in first {
        if failed.iter().any(|f| f == engine) {
            continue;
        }
        let merged = figures
            .iter()
            .map(|&(phase, _)| {
                let mut vals: Vec<f64> = runs
                    .iter()
                    .filter_map(|cols| cols.iter().find(|(e, _)| e == engine))
                    .filter_map(|(_, figs)| figs.iter().find(|(p, _)| *p == phase))
                    .filter_map(|&(_, v)| v)
                    .collect();
                vals.sort_by(f64::total_cmp);
                (phase, vals.get(vals.len() / 2).copied())
            })
            .collect();
        out.push((*engine, merged));
    }
    out
}

fn median_floor(floors: &mut [Floor]) -> Floor {
    let mid = floors.len() / 2;
    let pick = |floors: &mut [Floor], key: fn(&Floor) -> f64| {
        floors.sort_by(|a, b| key(a).total_cmp(&key(b)));
        floors[mid].clone()
    };
    Floor {
        append_fdatasync: pick(floors, |f| f.append_fdatasync.as_secs_f64()).append_fdatasync,
        overwrite_fdatasync: pick(floors, |f| f.overwrite_fdatasync.as_secs_f64())
            .overwrite_fdatasync,
        seq_write_mib_s: pick(floors, |f| f.seq_write_mib_s).seq_write_mib_s,
        chase_bytes: floors[mid].chase_bytes,
        chase_ns: pick(floors, |f| f.chase_ns).chase_ns,
        chase_huge_ns: pick(floors, |f| f.chase_huge_ns).chase_huge_ns,
    }
}
