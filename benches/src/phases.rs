//! The phases, in the order they run, and the runner that times one engine
//! through all of them.

use std::sync::Barrier;
use std::time::{Duration, Instant};

use crate::store::{ReadSum, Store};
use crate::workload::{Key, Workload, RANGE_LEN};
use crate::Result;

/// What a phase's figure measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Wall time in milliseconds.
    Millis,
    /// Bytes on disk.
    Bytes,
    /// Bytes per key.
    BytesPerKey,
}

/// Name (a fixed JSON key) and unit of every phase, in run order.
pub const PHASES: &[(&str, Unit)] = &[
    (BULK_LOAD, Unit::Millis),
    (INDIVIDUAL_WRITES, Unit::Millis),
    (BATCH_WRITES, Unit::Millis),
    (NOSYNC_WRITES, Unit::Millis),
    (LEN, Unit::Millis),
    (RANDOM_READS, Unit::Millis),
    (RANDOM_READS_AGAIN, Unit::Millis),
    (RANGE_READS, Unit::Millis),
    (READS_2T, Unit::Millis),
    (READS_4T, Unit::Millis),
    (REMOVALS, Unit::Millis),
    (UNCOMPACTED_SIZE, Unit::Bytes),
    (COMPACTION, Unit::Millis),
    (COMPACTED_SIZE, Unit::Bytes),
    (REOPEN, Unit::Millis),
    (INDEX_PER_KEY, Unit::BytesPerKey),
];

/// All records in one durable batch.
pub const BULK_LOAD: &str = "bulk load";
/// 1,000 writes, each durable before the next.
pub const INDIVIDUAL_WRITES: &str = "individual writes";
/// 100 batches of 1,000, each durable.
pub const BATCH_WRITES: &str = "batch writes";
/// 50,000 writes, none synced.
pub const NOSYNC_WRITES: &str = "nosync writes";
/// Counting the live keys.
pub const LEN: &str = "len()";
/// Every bulk-loaded key once, in random order, one thread.
pub const RANDOM_READS: &str = "random reads";
/// The same again (warm).
pub const RANDOM_READS_AGAIN: &str = "random reads (again)";
/// records/10 seeks to a random key, each reading 10 pairs in key order.
pub const RANGE_READS: &str = "random range reads";
/// The random reads split over 2 threads.
pub const READS_2T: &str = "random reads (2 threads)";
/// The random reads split over 4 threads.
pub const READS_4T: &str = "random reads (4 threads)";
/// Half of the bulk-loaded keys removed, durable at the end.
pub const REMOVALS: &str = "removals";
/// Apparent size of the engine's files after the removals.
pub const UNCOMPACTED_SIZE: &str = "uncompacted size";
/// Reclaiming the dead space.
pub const COMPACTION: &str = "compaction";
/// Apparent size after compaction.
pub const COMPACTED_SIZE: &str = "compacted size";
/// Clean close (not timed), then open and read one key.
pub const REOPEN: &str = "reopen";
/// Heap bytes of the in-memory index per key, right after the bulk load.
pub const INDEX_PER_KEY: &str = "index memory per key";

/// The unit of phase `name`.
pub fn unit_of(name: &str) -> Unit {
    PHASES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, u)| u)
        .unwrap_or(Unit::Millis)
}

/// One engine's figures, in [`PHASES`] order (`None`: not supported).
pub type Figures = Vec<(&'static str, Option<f64>)>;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, Duration)> {
    let t = Instant::now();
    let out = f()?;
    Ok((out, t.elapsed()))
}

fn check_reads(what: &str, got: ReadSum, w: &Workload) -> Result<()> {
    let want_found = w.read_order.len() as u64;
    let want_digest = w.expected_read_digest();
    if got.found != want_found || got.digest != want_digest {
        return Err(format!(
            "{what}: found {} of {want_found} keys, digest {} (want {want_digest})",
            got.found, got.digest
        )
        .into());
    }
    Ok(())
}

/// `w`'s random reads split over `threads` threads, each running `reads` on
/// its share; the time from the first reader's start to the last one's end.
fn parallel_reads(
    reads: &(dyn Fn(&[Key]) -> Result<ReadSum> + Sync),
    w: &Workload,
    threads: usize,
) -> Result<(ReadSum, Duration)> {
    let chunk = w.read_order.len().div_ceil(threads).max(1);
    let start = Barrier::new(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = w
            .read_order
            .chunks(chunk)
            .map(|keys| {
                let start = &start;
                s.spawn(move || {
                    start.wait();
                    let t0 = Instant::now();
                    let read = reads(keys);
                    (t0, Instant::now(), read)
                })
            })
            .collect();
        // Threads that got no chunk (tiny record counts) still meet the barrier.
        for _ in handles.len()..threads {
            s.spawn(|| start.wait());
        }
        // Timed from the first reader's start to the last one's end, in the
        // readers themselves: a clock read by this thread after the barrier
        // could start late (with more threads than cores it may not run again
        // until a reader is done).
        let mut sum = ReadSum::default();
        let mut span: Option<(Instant, Instant)> = None;
        for h in handles {
            let (t0, t1, part) = h.join().map_err(|_| "reader thread panicked")?;
            sum = sum.merge(part?);
            span = Some(span.map_or((t0, t1), |(a, b)| (a.min(t0), b.max(t1))));
        }
        Ok((sum, span.map_or(Duration::ZERO, |(a, b)| b - a)))
    })
}

/// Drive `store` through every phase; `log` gets one line per phase.
pub fn run(store: &mut dyn Store, w: &Workload, log: &mut dyn FnMut(&str)) -> Result<Figures> {
    let name = store.name();
    let mut out: Figures = Vec::new();
    let mut put = |phase: &'static str, v: Option<f64>, log: &mut dyn FnMut(&str)| {
        let shown = match (v, unit_of(phase)) {
            (None, _) => "n/a".to_string(),
            (Some(v), Unit::Millis) => format!("{v:.3} ms"),
            (Some(v), Unit::Bytes) => format!("{:.1} MiB", v / 1_048_576.0),
            (Some(v), Unit::BytesPerKey) => format!("{v:.1} B/key"),
        };
        log(&format!("{name}: {phase}: {shown}"));
        out.push((phase, v));
    };

    let n = w.records.len() as u64;
    let ((), d) = timed(|| store.bulk_load(&w.records))?;
    put(BULK_LOAD, Some(ms(d)), log);
    let index_after_load = store.index_bytes()?;

    let ((), d) = timed(|| store.individual_writes(&w.individual))?;
    put(INDIVIDUAL_WRITES, Some(ms(d)), log);
    let ((), d) = timed(|| store.batch_writes(&w.batches, w.batch_size))?;
    put(BATCH_WRITES, Some(ms(d)), log);
    let ((), d) = timed(|| store.nosync_writes(&w.nosync))?;
    put(NOSYNC_WRITES, Some(ms(d)), log);

    let (len, d) = timed(|| store.count())?;
    let want = n + (w.individual.len() + w.batches.len() + w.nosync.len()) as u64;
    if len != want {
        return Err(format!("{name}: len() = {len}, want {want}").into());
    }
    put(LEN, Some(ms(d)), log);

    for phase in [RANDOM_READS, RANDOM_READS_AGAIN] {
        let (sum, d) = timed(|| store.reads(&w.read_order))?;
        check_reads(phase, sum, w)?;
        put(phase, Some(ms(d)), log);
    }

    store.begin_range_reads()?;
    let (range, d) = timed(|| store.range_reads(&w.range_starts, RANGE_LEN))?;
    store.end_range_reads()?;
    // Engines with an opt-in ordered index were reopened around the range
    // phase; one untimed pass touches the fresh map again, so the thread
    // phases below measure steady-state reads for every engine alike.
    check_reads("warm-up reads", store.reads(&w.read_order)?, w)?;
    if let Some(sum) = range {
        // Starts near the end of the key space may see fewer than RANGE_LEN.
        let most = (w.range_starts.len() * RANGE_LEN) as u64;
        if sum.found > most || sum.found < most * 9 / 10 {
            return Err(format!("{name}: range reads found {} pairs of {most}", sum.found).into());
        }
    }
    put(RANGE_READS, range.map(|_| ms(d)), log);

    for (phase, threads) in [(READS_2T, 2), (READS_4T, 4)] {
        let (sum, d) = parallel_reads(&|keys| store.reads(keys), w, threads)?;
        check_reads(phase, sum, w)?;
        put(phase, Some(ms(d)), log);
    }

    let ((), d) = timed(|| store.removals(&w.removals))?;
    put(REMOVALS, Some(ms(d)), log);
    let live = want - w.removals.len() as u64;
    let len = store.count()?;
    if len != live {
        return Err(format!("{name}: len() after removals = {len}, want {live}").into());
    }

    put(UNCOMPACTED_SIZE, store.disk_bytes()?.map(|b| b as f64), log);
    let (did, d) = timed(|| store.compact())?;
    put(COMPACTION, did.then(|| ms(d)), log);
    let compacted = if did { store.disk_bytes()? } else { None };
    put(COMPACTED_SIZE, compacted.map(|b| b as f64), log);

    if store.can_reopen() {
        store.close()?;
        let probe = &w.read_order[w.read_order.len() - 1..];
        let (sum, d) = timed(|| {
            store.open()?;
            store.reads(probe)
        })?;
        let survived = !w.removals.contains(&probe[0]);
        if sum.found != u64::from(survived) {
            return Err(format!("{name}: the probe read after reopen found {}", sum.found).into());
        }
        put(REOPEN, Some(ms(d)), log);
        let len = store.count()?;
        if len != live {
            return Err(format!("{name}: len() after reopen = {len}, want {live}").into());
        }
        if let Some(b) = store.index_bytes()? {
            log(&format!(
                "{name}: index memory after reopen: {:.1} B/key ({live} keys)",
                b as f64 / live as f64
            ));
        }
    } else {
        put(REOPEN, None, log);
    }
    put(
        INDEX_PER_KEY,
        index_after_load.map(|b| b as f64 / n.max(1) as f64),
        log,
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_reads_are_timed_by_the_readers() {
        // Four readers that each take 30 ms of wall time on two cores: the
        // phase lasts at least that long, however late the caller runs.
        let w = Workload::generate(400, 5);
        let spin = Duration::from_millis(30);
        let reads = |keys: &[Key]| -> Result<ReadSum> {
            let t = Instant::now();
            while t.elapsed() < spin {
                std::hint::spin_loop();
            }
            let mut sum = ReadSum::default();
            for _ in keys {
                sum.add(b"v");
            }
            Ok(sum)
        };
        let (sum, d) = parallel_reads(&reads, &w, 4).unwrap();
        assert_eq!(sum.found, 400, "every key went to one reader");
        assert!(d >= spin, "{d:?}");
    }

    #[test]
    fn every_phase_runs_on_emdb_core_and_its_reads_check_out() {
        let dir = tempfile::tempdir().unwrap();
        let w = Workload::generate(2_000, 3);
        let path = dir.path().join("emdb-core");
        std::fs::create_dir(&path).unwrap();
        let mut store = crate::peers::create("emdb-core", path).unwrap();
        // `run` fails if any read phase finds a wrong or missing value.
        let figures = run(store.as_mut(), &w, &mut |_| {}).unwrap();
        let names: Vec<&str> = figures.iter().map(|(p, _)| *p).collect();
        let want: Vec<&str> = PHASES.iter().map(|(p, _)| *p).collect();
        assert_eq!(names, want);
        for (phase, v) in &figures {
            assert!(v.is_some_and(|v| v > 0.0), "{phase}: {v:?}");
        }
    }
}
