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
    let mut buf = vec![0u8; (bytes / 64).max(2) * 64];
    chase_in(&mut buf, steps)
}

/// [`pointer_chase`] over memory advised for 2 MiB pages (`MADV_HUGEPAGE`,
/// Linux), the way emdb-core's index slots are held: what is left is the
/// memory latency without most of the page walk. Falls back to ordinary
/// pages where the advice is refused.
pub fn pointer_chase_huge(bytes: usize, steps: usize) -> Result<f64> {
    const HUGE: usize = 2 << 20;
    let len = (bytes / 64).max(2) * 64;
    let mut map = memmap2::MmapOptions::new().len(len + HUGE).map_anon()?;
    let skip = (HUGE - map.as_ptr() as usize % HUGE) % HUGE;
    #[cfg(target_os = "linux")]
    {
        let _ = map.advise_range(memmap2::Advice::HugePage, skip, len);
    }
    Ok(chase_in(&mut map[skip..skip + len], steps))
}

const LINE: usize = 64;

/// Link the 64-byte lines of `buf` into one random cycle: each line's first
/// 8 bytes hold the byte offset of the next.
fn link_cycle(buf: &mut [u8]) {
    let lines = buf.len() / LINE;
    // Sattolo's algorithm: a random permutation that is one single cycle.
    let mut order: Vec<usize> = (0..lines).collect();
    let mut rng = Rng::new(7);
    for i in (1..lines).rev() {
        order.swap(i, rng.below(i));
    }
    for (from, &to) in order.iter().enumerate() {
        buf[from * LINE..from * LINE + 8].copy_from_slice(&((to * LINE) as u64).to_le_bytes());
    }
}

fn chase_in(buf: &mut [u8], steps: usize) -> f64 {
    link_cycle(buf);
    let lines = buf.len() / LINE;
    let step = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&buf[at..at + 8]);
        u64::from_le_bytes(w) as usize
    };
    // Warm up (page faults, TLB), then time.
    let mut at = 0usize;
    for _ in 0..lines.min(steps) {
        at = step(at);
    }
    let t = Instant::now();
    for _ in 0..steps {
        at = step(at);
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
    /// The same over memory advised for 2 MiB pages.
    pub chase_huge_ns: f64,
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
        chase_huge_ns: pointer_chase_huge(data_bytes, 5_000_000)?,
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
        let mut buf = vec![0u8; 64 * 37];
        link_cycle(&mut buf);
        let mut seen = [false; 37];
        let mut at = 0usize;
        for _ in 0..37 {
            assert!(!seen[at / 64], "line {} visited twice", at / 64);
            seen[at / 64] = true;
            let mut w = [0u8; 8];
            w.copy_from_slice(&buf[at..at + 8]);
            at = u64::from_le_bytes(w) as usize;
        }
        assert_eq!(at, 0, "back at the start after every line");
        assert!(pointer_chase(64 * 16, 1000) > 0.0);
        assert!(pointer_chase_huge(64 * 16, 1000).unwrap() > 0.0);
    }
}
