//! The machine's floor, measured in the same run as the engines: what one
//! durable append costs, how fast the disk writes sequentially, and what a
//! dependent random memory access costs over a buffer the size of the data.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::workload::Rng;
use crate::Result;

/// Median of `samples` (sorts them).
pub fn median(samples: &mut [Duration]) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    samples.sort_unstable();
    samples[samples.len() / 2]
}

/// Median latency of `count` appends of `bytes` bytes to a new file in `dir`,
/// each followed by `fdatasync` (the file grows, so each sync also commits
/// the new size: what a log append costs).
pub fn fdatasync_append(dir: &Path, bytes: usize, count: usize) -> Result<Duration> {
    let path = dir.join("floor-append");
    let mut f = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&path)?;
    let buf = vec![0xA5u8; bytes];
    let mut samples = Vec::with_capacity(count);
    for _ in 0..count {
        let t = Instant::now();
        f.write_all(&buf)?;
        f.sync_data()?;
        samples.push(t.elapsed());
    }
    drop(f);
    std::fs::remove_file(&path)?;
    Ok(median(&mut samples))
}

/// Median latency of `count` writes of `bytes` bytes into a file whose blocks
/// were written and synced beforehand, each followed by `fdatasync` (no size
/// or allocation change to commit: the cheapest durable write there is).
pub fn fdatasync_overwrite(dir: &Path, bytes: usize, count: usize) -> Result<Duration> {
    let path = dir.join("floor-overwrite");
    let mut f = OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&path)?;
    f.write_all(&vec![0u8; bytes * count])?;
    f.sync_all()?;
    let buf = vec![0x5Au8; bytes];
    let mut samples = Vec::with_capacity(count);
    for i in 0..count {
        f.seek(SeekFrom::Start((i * bytes) as u64))?;
        let t = Instant::now();
        f.write_all(&buf)?;
        f.sync_data()?;
        samples.push(t.elapsed());
    }
    drop(f);
    std::fs::remove_file(&path)?;
    Ok(median(&mut samples))
}

/// Sequential write speed in MiB/s: `mib` MiB in 1 MiB writes to a new file,
/// then one `fdatasync`, timed together.
pub fn sequential_write(dir: &Path, mib: usize) -> Result<f64> {
    let path = dir.join("floor-seq");
    let mut f = File::create(&path)?;
    let mut rng = Rng::new(42);
    let mut buf = vec![0u8; 1 << 20];
    rng.fill(&mut buf);
    let t = Instant::now();
    for _ in 0..mib {
        f.write_all(&buf)?;
    }
    f.sync_data()?;
    let secs = t.elapsed().as_secs_f64();
    drop(f);
    std::fs::remove_file(&path)?;
    Ok(mib as f64 / secs)
}

/// Nanoseconds per step of a pointer chase through a random cycle over a
/// `bytes`-sized buffer, one 64-byte line per node: each load depends on the
/// previous one, so this is the latency of a cache/TLB miss at that size.
pub fn pointer_chase(bytes: usize, steps: usize) -> f64 {
    const WORDS_PER_LINE: usize = 8;
    let lines = (bytes / 64).max(2);
    // Sattolo's algorithm: a random permutation that is one single cycle.
    let mut order: Vec<usize> = (0..lines).collect();
    let mut rng = Rng::new(7);
    for i in (1..lines).rev() {
        order.swap(i, rng.below(i));
    }
    let mut next = vec![0u64; lines * WORDS_PER_LINE];
    for (from, &to) in order.iter().enumerate() {
        next[from * WORDS_PER_LINE] = (to * WORDS_PER_LINE) as u64;
    }
    // Warm up (page faults, TLB), then time.
    let mut at = 0usize;
    for _ in 0..lines.min(steps) {
        at = next[at] as usize;
    }
    let t = Instant::now();
    for _ in 0..steps {
        at = next[at] as usize;
    }
    let el = t.elapsed();
    std::hint::black_box(at);
    el.as_nanos() as f64 / steps as f64
}

/// Everything [`measure`] found.
#[derive(Clone, Debug)]
pub struct Floor {
    /// Median append + fdatasync of 200 bytes.
    pub append_fdatasync: Duration,
    /// Median overwrite + fdatasync of 200 bytes in an allocated file.
    pub overwrite_fdatasync: Duration,
    /// Sequential write MiB/s (with one final fdatasync).
    pub seq_write_mib_s: f64,
    /// Size of the pointer-chase buffer.
    pub chase_bytes: usize,
    /// ns per dependent access over `chase_bytes`.
    pub chase_ns: f64,
}

/// Measure the floor in `dir` (same file system as the engines);
/// `data_bytes` sizes the pointer chase.
pub fn measure(dir: &Path, data_bytes: usize, seq_mib: usize) -> Result<Floor> {
    Ok(Floor {
        append_fdatasync: fdatasync_append(dir, 200, 200)?,
        overwrite_fdatasync: fdatasync_overwrite(dir, 200, 200)?,
        seq_write_mib_s: sequential_write(dir, seq_mib)?,
        chase_bytes: data_bytes,
        chase_ns: pointer_chase(data_bytes, 5_000_000),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even() {
        let ms = Duration::from_millis;
        assert_eq!(median(&mut [ms(3), ms(1), ms(2)]), ms(2));
        assert_eq!(median(&mut [ms(4), ms(1), ms(2), ms(3)]), ms(3));
        assert_eq!(median(&mut []), Duration::ZERO);
    }

    #[test]
    fn chase_visits_a_single_cycle() {
        // A tiny buffer: the chase must terminate and give a finite figure.
        let ns = pointer_chase(64 * 16, 1000);
        assert!(ns.is_finite());
    }
}
