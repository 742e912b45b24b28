//! Decrypted keys do not outlive their use in freed memory: a global
//! allocator looks through every buffer freed during an encrypted
//! database's checkpoint (whose sort decrypts every key, or places the
//! keys written since) for a marker that every key holds.
#![cfg(feature = "encrypt")]
#![allow(clippy::unwrap_used, unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use emdb_core::Emdb;

const MARK: &[u8] = b"ZQXJ7Q1W";
static ARMED: AtomicBool = AtomicBool::new(false);
static HITS: AtomicUsize = AtomicUsize::new(0);
/// One armed test at a time: the allocator's count is global.
static SERIAL: Mutex<()> = Mutex::new(());

/// The system allocator, counting freed buffers that hold [`MARK`].
struct Watch;

// SAFETY: every call is passed on to `System` unchanged; `dealloc` only
// reads the `l.size()` bytes of the block it is given before freeing it.
unsafe impl GlobalAlloc for Watch {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(l) }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if ARMED.load(Ordering::Relaxed) && l.size() >= MARK.len() {
            // SAFETY: `p` is a live block of `l.size()` bytes allocated
            // by `alloc` above (the caller's contract), freed only below.
            let s = unsafe { std::slice::from_raw_parts(p, l.size()) };
            if s.windows(MARK.len()).any(|w| w == MARK) {
                HITS.fetch_add(1, Ordering::Relaxed);
            }
        }
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static WATCH: Watch = Watch;

/// An encrypted database in `dir` with no background thread (whose frees
/// would count) and no checkpoint at close.
fn sealed(dir: &tempfile::TempDir, key: u8) -> Emdb {
    Emdb::builder()
        .path(dir.path().join("zeroized.emdb"))
        .encryption_key([key; 32])
        .background(false)
        .checkpoint_on_close(false)
        .build()
        .unwrap()
}

/// A key holding [`MARK`], then `id`.
fn marked(id: usize) -> Vec<u8> {
    let mut k = MARK.to_vec();
    k.extend_from_slice(format!("{id:07}").as_bytes());
    k
}

/// Buffers freed holding [`MARK`] while `f` runs.
fn freed_during(f: impl FnOnce()) -> usize {
    HITS.store(0, Ordering::SeqCst);
    ARMED.store(true, Ordering::SeqCst);
    f();
    ARMED.store(false, Ordering::SeqCst);
    HITS.load(Ordering::SeqCst)
}

/// Buffers freed holding a key during a checkpoint of `n` keys (longer
/// ones later in the log, in a scrambled order or ascending), then during
/// a second one after a few more writes (placed into the first's order).
fn freed_with_a_key(n: usize, scrambled: bool) -> (usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let db = sealed(&dir, 3);
    let key = |i: usize, id: usize| {
        let mut k = marked(id);
        k.resize(k.len() + i * 200 / n, b'x');
        k
    };
    for i in 0..n {
        let id = if scrambled { (i * 7919) % n } else { i };
        db.insert(key(i, id), b"v").unwrap();
    }
    let checkpoint = || freed_during(|| db.checkpoint().unwrap());
    let sorted = checkpoint();
    for i in 0..20 {
        db.insert(key(n, n + i * 13), b"w").unwrap();
    }
    let placed = checkpoint();
    (sorted, placed)
}

#[test]
fn a_checkpoints_sort_leaves_no_decrypted_key_in_freed_memory() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for (n, scrambled) in [(5000, true), (5000, false), (70_000, true)] {
        let hits = freed_with_a_key(n, scrambled);
        assert_eq!(hits, (0, 0), "{n} keys, scrambled {scrambled}");
    }
}

/// Buffers freed holding a key while an encrypted batch of `n` keys (every
/// 500th of them 40,000 bytes long, so the writer's kept keys fill more
/// than one of its chunks) is written and indexed; the batch's keys must
/// then all read back.
fn freed_during_a_batch(n: usize) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let db = sealed(&dir, 4);
    let keys: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let mut k = marked(i);
            if i % 500 == 7 {
                k.resize(40_000, b'y');
            }
            k
        })
        .collect();
    let hits = freed_during(|| {
        db.insert_many(keys.iter().map(|k| (k.as_slice(), b"v".as_slice())))
            .unwrap()
    });
    for k in &keys {
        assert_eq!(db.get(k).unwrap().as_deref(), Some(&b"v"[..]));
    }
    assert_eq!(db.len().unwrap(), n);
    hits
}

#[test]
fn an_encrypted_batch_leaves_no_key_in_freed_memory() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    assert_eq!(freed_during_a_batch(20_000), 0);
}

/// Buffers freed holding a key while a `WriteBatch` of an encrypted
/// database (which keeps plaintext keys and values until it commits) is
/// filled, committed and dropped.
fn freed_during_a_write_batch(n: usize) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let db = sealed(&dir, 5);
    let keys: Vec<Vec<u8>> = (0..n).map(marked).collect();
    let hits = freed_during(|| {
        let mut batch = db.write_batch();
        for (i, k) in keys.iter().enumerate() {
            batch.put(k, b"v").unwrap();
            // Two commits: the buffer is reused, then dropped.
            if i == n / 2 {
                batch.commit().unwrap();
            }
        }
        batch.commit().unwrap();
    });
    assert_eq!(db.len().unwrap(), n);
    hits
}

#[test]
fn an_encrypted_write_batch_leaves_no_key_in_freed_memory() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    assert_eq!(freed_during_a_write_batch(20_000), 0);
}
