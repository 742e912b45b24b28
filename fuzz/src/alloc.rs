//! A counting global allocator, so that the import targets can check that a
//! parser's memory stays proportional to its input: a declared length (a
//! RESP `$999999999999`) must not make it allocate what the input does not
//! hold.
//!
//! Counts are per thread (the parsers are single-threaded, and the stable
//! test runs targets on several threads at once). Memory freed on another
//! thread than the one that allocated it makes a thread's count drift, which
//! is why [`peak_during`] measures relative to the count at its start.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The allocator: the system one, counting bytes per thread.
pub struct Counting;

#[global_allocator]
static GLOBAL: Counting = Counting;

thread_local! {
    // `const` and without destructors: reading them never allocates, so the
    // allocator can use them.
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn grew(n: usize) {
    let live = LIVE.with(|l| {
        let v = l.get().saturating_add(n);
        l.set(v);
        v
    });
    PEAK.with(|p| {
        if live > p.get() {
            p.set(live);
        }
    });
}

fn shrank(n: usize) {
    LIVE.with(|l| l.set(l.get().saturating_sub(n)));
}

// SAFETY: every call goes to `System` with the caller's arguments unchanged;
// the counters are plain thread-local cells and never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `alloc_zeroed`'s contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        // SAFETY: forwarded as is; `ptr` came from this allocator (System).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `realloc`'s contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        p
    }
}

/// Run `f` and return its result with the most bytes this thread held at
/// once while it ran, beyond what it held before.
pub fn peak_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    let peak = PEAK.with(Cell::get);
    (r, peak.saturating_sub(base))
}
