//! Quick sanity measurement of emdb-core alone (not the phase bench).
use std::time::Instant;

use emdb_core::Emdb;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("q.emdb");
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let items: Vec<([u8; 24], [u8; 150])> = (0..n)
        .map(|_| {
            let mut k = [0u8; 24];
            for c in k.chunks_mut(8) {
                c.copy_from_slice(&rnd().to_le_bytes());
            }
            let mut v = [0u8; 150];
            for c in v.chunks_mut(8) {
                let r = rnd().to_le_bytes();
                c.copy_from_slice(&r[..c.len()]);
            }
            (k, v)
        })
        .collect();
    let db = Emdb::open(&path)?;
    let t = Instant::now();
    db.insert_many(items.iter().map(|(k, v)| (k, v)))?;
    db.flush()?;
    println!("bulk load {n}: {:?}", t.elapsed());
    let t = Instant::now();
    let mut found = 0;
    for i in 0..n {
        let idx = (i * 7919) % n;
        if db.get(items[idx].0)?.is_some() {
            found += 1;
        }
    }
    let el = t.elapsed();
    println!(
        "random get x{n}: {:?} ({:.0} ns/get) found {found}",
        el,
        el.as_nanos() as f64 / n as f64
    );
    let t = Instant::now();
    for i in 0..n {
        let idx = (i * 7919) % n;
        let v = db.get_zerocopy(items[idx].0)?;
        std::hint::black_box(v);
    }
    let el = t.elapsed();
    println!(
        "random get_zerocopy: {:.0} ns/get",
        el.as_nanos() as f64 / n as f64
    );
    let s = db.stats()?;
    println!(
        "index memory: {} bytes = {:.1} B/key; logical {} file {}",
        s.index_memory_bytes,
        s.index_memory_bytes as f64 / n as f64,
        s.log_logical_bytes,
        s.file_bytes
    );
    let t = Instant::now();
    for (k, v) in items.iter().take(50_000) {
        db.insert(k, v)?;
    }
    println!("nosync single inserts x50000: {:?}", t.elapsed());
    let t = Instant::now();
    drop(db);
    println!("close (sync+checkpoint): {:?}", t.elapsed());
    let t = Instant::now();
    let db = Emdb::open(&path)?;
    println!(
        "reopen: {:?} used_checkpoint={} len={}",
        t.elapsed(),
        db.recovery_report().used_checkpoint,
        db.len()?
    );
    drop(db);
    std::fs::remove_file(dir.path().join("q.emdb.ckpt"))?;
    let t = Instant::now();
    let db = Emdb::open(&path)?;
    println!(
        "reopen w/o checkpoint (replay): {:?} len={}",
        t.elapsed(),
        db.len()?
    );
    let t = Instant::now();
    db.compact()?;
    println!(
        "compact: {:?}; file {}",
        t.elapsed(),
        db.stats()?.file_bytes
    );
    Ok(())
}
