//! A one-range read of an encrypted database through its writer's sealed
//! tail index leaves no decrypted record in freed memory: the search and
//! the walk reuse one decryption buffer across records of every length
//! (a separate binary from `zeroized.rs`, whose watch is process-wide).
#![cfg(feature = "encrypt")]
#![allow(clippy::unwrap_used, unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ops::Bound;
use std::time::{Duration, Instant};

use emdb_core::Emdb;

const MARK: &[u8] = b"ZQXJ7Q1W";

thread_local! {
    /// Only the test thread's frees are looked at.
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static HITS: Cell<usize> = const { Cell::new(0) };
}

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
        if ARMED.try_with(Cell::get).unwrap_or(false) && l.size() >= MARK.len() {
            // SAFETY: `p` is a live block of `l.size()` bytes allocated
            // by `alloc` above (the caller's contract), freed only below.
            let s = unsafe { std::slice::from_raw_parts(p, l.size()) };
            if s.windows(MARK.len()).any(|w| w == MARK) {
                let _ = HITS.try_with(|h| h.set(h.get() + 1));
            }
        }
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static WATCH: Watch = Watch;

#[test]
fn a_range_read_through_a_sealed_tail_index_leaves_no_decrypted_record_in_freed_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (path, tail) = (dir.path().join("r.emdb"), dir.path().join("r.emdb.tail"));
    let builder = || Emdb::builder().path(&path).encryption_key([9; 32]);
    let db = builder()
        .checkpoint_tail(Some(64 << 10))
        .checkpoint_on_close(false)
        .build()
        .unwrap();
    for i in 0..500u32 {
        db.insert(format!("base:{i:05}"), b"b").unwrap();
    }
    db.checkpoint().unwrap();
    // Tail keys `k` MARK ... of scrambled lengths; the range's bounds
    // hold no MARK.
    let key = |i: usize| {
        let mut k = [
            &b"k"[..],
            MARK,
            format!("{:05}", (i * 7919) % 400).as_bytes(),
        ]
        .concat();
        k.resize(k.len() + (i * 37) % 180, b'x');
        k
    };
    // Written until a tail index covers the whole log, so the read
    // replays nothing past it.
    let indexed_end = || {
        let bytes = std::fs::read(&tail).ok()?;
        Some(u64::from_le_bytes(bytes.get(48..56)?.try_into().ok()?))
    };
    let (deadline, mut i) = (Instant::now() + Duration::from_secs(60), 0);
    'outer: loop {
        assert!(Instant::now() < deadline, "no tail index covering the log");
        for _ in 0..20 {
            db.insert(key(i), vec![b'v'; (i * 13) % 90]).unwrap();
            i += 1;
        }
        db.flush().unwrap();
        let (end, t) = (db.stats().unwrap().log_logical_bytes, Instant::now());
        while t.elapsed() < Duration::from_millis(1500) {
            if indexed_end() == Some(end) {
                break 'outer;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    ARMED.with(|a| a.set(true));
    let it = builder().range_once(None, Bound::Included(&b"k"[..]), Bound::Excluded(&b"l"[..]));
    ARMED.with(|a| a.set(false));
    let (hits, n) = (HITS.with(Cell::get), it.unwrap().unwrap().count());
    assert!(n > 20, "{n} pairs");
    assert_eq!(
        hits, 0,
        "{hits} freed buffers held a decrypted record ({n} pairs read)"
    );
}
