//! Bounded concurrency stress: writers, readers, iterators, range scans,
//! compaction and checkpoints at once, checked against per-writer models.
//! `EMDB_STRESS_MS` sets the duration (default 1500 ms).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use emdb_core::Emdb;

const WRITERS: u64 = 3;
const KEYS_PER_WRITER: u64 = 300;

fn key(w: u64, k: u64) -> Vec<u8> {
    format!("w{w}:k{k:04}").into_bytes()
}

/// Values carry their writer, key and a version that only grows.
fn value(w: u64, k: u64, version: u64) -> Vec<u8> {
    format!(
        "w{w}:k{k:04}:v{version:010}:{}",
        "p".repeat((version % 7) as usize * 30)
    )
    .into_bytes()
}

fn version_of(v: &[u8]) -> u64 {
    let s = std::str::from_utf8(v).unwrap();
    s.split(':').nth(2).unwrap()[1..].parse().unwrap()
}

#[test]
fn mixed_workload_matches_the_writers_models() {
    let ms: u64 = std::env::var("EMDB_STRESS_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1500);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stress.emdb");
    let db = Emdb::builder()
        .path(&path)
        .enable_range_scans(true)
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    // Highest version each writer has *completed* per key (readers may see
    // anything up to the one in flight).
    let done: Arc<Vec<AtomicU64>> = Arc::new(
        (0..WRITERS * KEYS_PER_WRITER)
            .map(|_| AtomicU64::new(0))
            .collect(),
    );
    let ops = Arc::new(AtomicU64::new(0));
    let mut handles = Vec::new();
    for w in 0..WRITERS {
        let (db, stop, done, ops) = (db.clone(), stop.clone(), done.clone(), ops.clone());
        handles.push(std::thread::spawn(move || {
            let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
            let mut x = 0x1234_5678u64 + w;
            let mut version = 0u64;
            while !stop.load(Ordering::Relaxed) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                version += 1;
                let k = x % KEYS_PER_WRITER;
                match x % 10 {
                    0..=5 => {
                        db.insert(key(w, k), value(w, k, version)).unwrap();
                        model.insert(key(w, k), value(w, k, version));
                    }
                    6..=7 => {
                        let items: Vec<_> = (0..5).map(|i| (k + i) % KEYS_PER_WRITER).collect();
                        db.insert_many(items.iter().map(|&kk| (key(w, kk), value(w, kk, version))))
                            .unwrap();
                        for kk in items {
                            model.insert(key(w, kk), value(w, kk, version));
                        }
                    }
                    _ => {
                        db.remove(key(w, k)).unwrap();
                        model.remove(&key(w, k));
                    }
                }
                for kk in 0..KEYS_PER_WRITER {
                    if model
                        .get(&key(w, kk))
                        .is_some_and(|v| version_of(v) == version)
                    {
                        done[(w * KEYS_PER_WRITER + kk) as usize].store(version, Ordering::Release);
                    }
                }
                ops.fetch_add(1, Ordering::Relaxed);
            }
            model
        }));
    }
    let mut checkers = Vec::new();
    // Point readers: a value read is never older than one that completed
    // before the read started, and always well-formed for its key.
    for r in 0..2u64 {
        let (db, stop, done) = (db.clone(), stop.clone(), done.clone());
        checkers.push(std::thread::spawn(move || {
            let mut x = 99 + r;
            let mut reads = 0u64;
            while !stop.load(Ordering::Relaxed) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let (w, k) = (x % WRITERS, (x >> 8) % KEYS_PER_WRITER);
                let floor = done[(w * KEYS_PER_WRITER + k) as usize].load(Ordering::Acquire);
                if let Some(v) = db.get(key(w, k)).unwrap() {
                    assert!(v.starts_with(&key(w, k)), "value of another key");
                    // Absence is allowed (a remove may have run since); an
                    // older value than one already completed is not.
                    assert!(
                        version_of(&v) >= floor,
                        "stale read: {} < {floor}",
                        version_of(&v)
                    );
                    assert_eq!(v, value(w, k, version_of(&v)), "torn value");
                }
                reads += 1;
            }
            reads
        }));
    }
    // Scanners: iteration and range scans see well-formed, ordered data,
    // and a range never returns a value older than one whose write had
    // completed when the range read started.
    {
        let (db, stop, done) = (db.clone(), stop.clone(), done.clone());
        checkers.push(std::thread::spawn(move || {
            let mut scans = 0u64;
            while !stop.load(Ordering::Relaxed) {
                for kv in db.iter().unwrap() {
                    let (k, v) = kv.unwrap();
                    assert!(v.starts_with(&k));
                }
                let floors: BTreeMap<Vec<u8>, u64> = (0..KEYS_PER_WRITER)
                    .map(|k| {
                        let floor = done[(KEYS_PER_WRITER + k) as usize].load(Ordering::Acquire);
                        (key(1, k), floor)
                    })
                    .collect();
                let mut last: Option<Vec<u8>> = None;
                for kv in db.range_prefix_iter("w1:").unwrap() {
                    let (k, v) = kv.unwrap();
                    assert!(v.starts_with(&k));
                    if let Some(l) = &last {
                        assert!(k > *l, "range out of order");
                    }
                    let floor = floors[&k];
                    assert!(
                        version_of(&v) >= floor,
                        "stale range read: {} < {floor}",
                        version_of(&v)
                    );
                    last = Some(k);
                }
                scans += 1;
            }
            scans
        }));
    }
    // Maintenance: compaction, checkpoints and flushes meanwhile.
    {
        let (db, stop) = (db.clone(), stop.clone());
        checkers.push(std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                match n % 3 {
                    0 => db.compact().unwrap(),
                    1 => db.checkpoint().unwrap(),
                    _ => db.flush().unwrap(),
                }
                n += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            n
        }));
    }
    let t = Instant::now();
    while t.elapsed() < Duration::from_millis(ms) {
        std::thread::sleep(Duration::from_millis(10));
    }
    stop.store(true, Ordering::Relaxed);
    let mut expected: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    for h in handles {
        expected.extend(h.join().unwrap());
    }
    let counts: Vec<u64> = checkers.into_iter().map(|h| h.join().unwrap()).collect();
    let got: BTreeMap<Vec<u8>, Vec<u8>> = db.iter().unwrap().map(|kv| kv.unwrap()).collect();
    assert_eq!(
        got, expected,
        "final contents differ from the writers' models"
    );
    assert_eq!(db.len().unwrap(), expected.len());
    // The sorted order agrees with the hash index: no key missing, none
    // removed still listed, no older value.
    let sorted: Vec<(Vec<u8>, Vec<u8>)> = expected.clone().into_iter().collect();
    assert_eq!(db.range(..).unwrap(), sorted, "range over everything");
    drop(db);
    let reopened = Emdb::open(&path).unwrap();
    let again: BTreeMap<Vec<u8>, Vec<u8>> =
        reopened.iter().unwrap().map(|kv| kv.unwrap()).collect();
    assert_eq!(again, expected, "contents after reopen");
    assert_eq!(reopened.range(..).unwrap(), sorted, "range after reopen");
    println!(
        "stress: {} writes, reads {:?}, scans {}, maintenance ops {}",
        ops.load(Ordering::Relaxed),
        &counts[..2],
        counts[2],
        counts[3]
    );
    assert!(
        counts[3] >= 3,
        "maintenance must have run during the writes"
    );
}

/// The index grows while it is read: a writer adds enough keys for the
/// shards to move through several shared huge-page arenas (each growth moves
/// one shard, and the writes after it move the rest), while readers keep
/// reading keys already written. Every read must find its key's value.
#[test]
fn reads_stay_correct_while_the_index_grows_through_its_arenas() {
    const N: u64 = 400_000;
    let db = Emdb::open_in_memory();
    let written = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2u64)
        .map(|r| {
            let (db, written, stop) = (db.clone(), written.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut x = 7 + r;
                let mut reads = 0u64;
                while !stop.load(Ordering::Acquire) {
                    let upto = written.load(Ordering::Acquire);
                    if upto == 0 {
                        continue;
                    }
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let k = x % upto;
                    let got = db.get(key(9, k)).unwrap();
                    assert_eq!(got, Some(value(9, k, 1)), "key {k} of {upto}");
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    // With 1,024-slot shards the slots are one 2 MiB arena. The first shard
    // to pass 80% moves to a 4 MiB arena: 6 MiB in all, until the writes
    // after it have moved every other shard there too.
    let index_mib = || db.stats().unwrap().index_memory_bytes as f64 / (1 << 20) as f64;
    let mut k = 0;
    let mut both = None;
    while k < N {
        db.insert(key(9, k), value(9, k, 1)).unwrap();
        k += 1;
        written.store(k, Ordering::Release);
        if k % 64 == 0 && index_mib() > 5.9 {
            both = Some(k);
            break;
        }
    }
    let both = both.expect("the index grew from one shared arena to the next");
    for i in 0..300 {
        // Overwrites move shards too.
        db.insert(key(9, i), value(9, i, 1)).unwrap();
    }
    let settled = index_mib();
    assert!(
        (4.0..4.1).contains(&settled),
        "the 2 MiB arena is freed within 256 writes of the growth at key {both}: {settled} MiB"
    );
    while k < N {
        db.insert(key(9, k), value(9, k, 1)).unwrap();
        k += 1;
        written.store(k, Ordering::Release);
    }
    stop.store(true, Ordering::Release);
    let reads: u64 = readers.into_iter().map(|h| h.join().unwrap()).sum();
    assert!(reads > 1000, "readers ran alongside ({reads} reads)");
}
