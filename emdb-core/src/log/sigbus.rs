//! Surviving a log file that another process cuts short while it is mapped.
//!
//! Touching a page of a shared file mapping that lies past the end of the
//! file raises SIGBUS, whose default action kills the process. Nothing in
//! emdb shrinks a file below what a mapping may read (docs/ARCHITECTURE.md,
//! "Unsafe code"; the one exception is the cut of records whose fdatasync
//! failed, when the writer's last handle closes), but another program can (`truncate`, `>` in a shell, a
//! `cp` over the file). So every file mapping of the engine is recorded in a
//! registry, and a process-wide SIGBUS handler (Linux) turns a fault inside
//! a recorded mapping into an error the engine reports:
//!
//! 1. it lowers the mapping's *cut* word (in its registry slot) to the offset
//!    that faulted; [`Region`](super::Region) checks that word after reads
//!    and writes;
//! 2. it maps anonymous zero pages over the mapping from the faulting page to
//!    its end (`mmap` with `MAP_FIXED`, which is async-signal-safe), so the
//!    faulting instruction completes when the handler returns. Every page it
//!    covers lies past the new end of the file, so no file data is hidden.
//!
//! Reads then see zeros (a zero tag byte is no record kind, and zeros inside
//! a frame fail its CRC), and the engine turns the cut word into
//! `Error::Corruption` naming the truncation. Only faults the kernel reports
//! as `BUS_ADRERR` (an address past the end of the file) are considered. A
//! fault outside every recorded mapping, a hardware memory error, or a
//! SIGBUS sent by `kill` goes to the handler that was installed before ours,
//! or, if there was none, ends the process as SIGBUS always did.
//!
//! The registry is a linked list of fixed arrays of atomics: the handler may
//! only read memory that can never be freed or locked, so slots are never
//! freed (a chunk is leaked when a process has more live mappings than the
//! chunks before it hold) and each slot carries a change counter that lets
//! the handler detect a slot being reused while it reads it (a seqlock).

#![allow(unsafe_code)]

use std::sync::atomic::{fence, AtomicBool, AtomicPtr, AtomicUsize, Ordering};

/// Value of a cut word while the mapping is intact.
pub(crate) const NOT_CUT: usize = usize::MAX;

/// Slots per registry chunk.
const SLOTS_PER_CHUNK: usize = 64;

/// Slot states (the low two bits of `Slot::state`; the rest counts changes).
const FREE: usize = 0;
const BUSY: usize = 1;
const LIVE: usize = 2;
const TAG_MASK: usize = 3;
/// Added to `Slot::state` by every state change.
const STEP: usize = 4;

/// One recorded mapping: `[start, end)` in the address space.
struct Slot {
    state: AtomicUsize,
    start: AtomicUsize,
    end: AtomicUsize,
    /// Whether the zero pages replacing a cut part may be written.
    writable: AtomicBool,
    /// Lowest offset (from `start`) that faulted past the end of the file,
    /// or [`NOT_CUT`].
    cut: AtomicUsize,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            state: AtomicUsize::new(FREE),
            start: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            writable: AtomicBool::new(false),
            cut: AtomicUsize::new(NOT_CUT),
        }
    }

    /// Take this slot for `[start, end)` if it is free.
    fn claim(&self, start: usize, end: usize, writable: bool) -> bool {
        let s = self.state.load(Ordering::Relaxed);
        if s & TAG_MASK != FREE {
            return false;
        }
        let base = s & !TAG_MASK;
        if self
            .state
            .compare_exchange(s, base + STEP + BUSY, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        // Seqlock writer: the state change above is ordered before the field
        // stores below for any reader that sees one of them.
        fence(Ordering::Release);
        self.start.store(start, Ordering::Relaxed);
        self.end.store(end, Ordering::Relaxed);
        self.writable.store(writable, Ordering::Relaxed);
        self.cut.store(NOT_CUT, Ordering::Relaxed);
        self.state.store(base + 2 * STEP + LIVE, Ordering::Release);
        true
    }

    /// The slot's range, if it holds a live mapping and did not change while
    /// it was read. Only atomic loads: callable from the signal handler.
    fn live_range(&self) -> Option<(usize, usize, bool)> {
        let s1 = self.state.load(Ordering::Acquire);
        if s1 & TAG_MASK != LIVE {
            return None;
        }
        let start = self.start.load(Ordering::Relaxed);
        let end = self.end.load(Ordering::Relaxed);
        let writable = self.writable.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        (self.state.load(Ordering::Relaxed) == s1).then_some((start, end, writable))
    }
}

struct Chunk {
    slots: [Slot; SLOTS_PER_CHUNK],
    next: AtomicPtr<Chunk>,
}

impl Chunk {
    const fn new() -> Chunk {
        Chunk {
            slots: [const { Slot::new() }; SLOTS_PER_CHUNK],
            next: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    fn next(&self) -> Option<&'static Chunk> {
        let p = self.next.load(Ordering::Acquire);
        // SAFETY: `next` is either null or a pointer obtained from
        // `Box::leak` (see `register`), published with release ordering after
        // the chunk was fully built, and never freed: it is valid for
        // `'static` and only ever accessed through atomics.
        unsafe { p.as_ref() }
    }
}

/// The first chunk; further ones are leaked boxes linked from it.
static FIRST: Chunk = Chunk::new();

/// The cut word of mappings that are not registered (never set).
static NEVER_CUT: AtomicUsize = AtomicUsize::new(NOT_CUT);

/// Every chunk of the registry, first to last.
fn chunks() -> impl Iterator<Item = &'static Chunk> {
    std::iter::successors(Some(&FIRST), |c| c.next())
}

/// The live slot whose range holds `addr`, with its range.
fn find(addr: usize) -> Option<(&'static Slot, usize, usize, bool)> {
    for chunk in chunks() {
        for slot in &chunk.slots {
            if let Some((start, end, writable)) = slot.live_range() {
                if (start..end).contains(&addr) {
                    return Some((slot, start, end, writable));
                }
            }
        }
    }
    None
}

/// A mapping's place in the registry; removed from it on drop.
pub(crate) struct Registration {
    slot: Option<&'static Slot>,
}

impl Registration {
    /// Not registered: the cut word never changes.
    pub(crate) const fn none() -> Registration {
        Registration { slot: None }
    }

    /// The word the handler sets when this mapping is found cut.
    pub(crate) fn cut_word(&self) -> &'static AtomicUsize {
        self.slot.map_or(&NEVER_CUT, |s| &s.cut)
    }

    /// Leave the registry. Call before the mapping is unmapped: after this
    /// the address range may be reused by anything.
    pub(crate) fn release(&mut self) {
        if let Some(slot) = self.slot.take() {
            let s = slot.state.load(Ordering::Relaxed);
            slot.state
                .store((s & !TAG_MASK) + STEP + FREE, Ordering::Release);
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.release();
    }
}

/// Record the mapping `[start, start + len)` (rounded up to whole pages) so a
/// SIGBUS inside it becomes a recorded cut instead of the end of the process.
///
/// Without the handler (not Linux, or it could not be installed) nothing is
/// recorded and the mapping behaves as any other.
pub(crate) fn register(start: *const u8, len: usize, writable: bool) -> Registration {
    if !handler::install() {
        return Registration::none();
    }
    let page = handler::page_size();
    let start = start as usize;
    let Some(end) = start
        .checked_add(len)
        .and_then(|e| e.checked_next_multiple_of(page))
    else {
        return Registration::none();
    };
    register_range(start, end, writable)
}

/// [`register`] without the handler or page rounding (also used by tests).
fn register_range(start: usize, end: usize, writable: bool) -> Registration {
    let mut chunk: &'static Chunk = &FIRST;
    loop {
        if let Some(slot) = chunk.slots.iter().find(|s| s.claim(start, end, writable)) {
            return Registration { slot: Some(slot) };
        }
        chunk = match chunk.next() {
            Some(next) => next,
            None => append_chunk(chunk),
        };
    }
}

/// Link a new chunk after the last one (starting the walk at `from`);
/// returns the chunk that follows `from` afterwards.
fn append_chunk(from: &'static Chunk) -> &'static Chunk {
    let fresh: &'static Chunk = Box::leak(Box::new(Chunk::new()));
    let fresh_ptr = std::ptr::from_ref(fresh).cast_mut();
    let mut tail = from;
    loop {
        match tail.next.compare_exchange(
            std::ptr::null_mut(),
            fresh_ptr,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => break,
            // Another thread linked one first: append ours further down, so
            // no chunk is ever lost (the handler walks all of them).
            Err(_) => {
                tail = match tail.next() {
                    Some(t) => t,
                    None => continue,
                }
            }
        }
    }
    from.next().unwrap_or(fresh)
}

/// Handle a fault at `addr`: true when it was inside a registered mapping,
/// now recorded as cut and backed by zero pages from the faulting page on.
/// Only atomics and one `mmap`: callable from the signal handler.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn absorb(addr: usize) -> bool {
    let Some((slot, start, end, writable)) = find(addr) else {
        return false;
    };
    slot.cut.fetch_min(addr - start, Ordering::Release);
    let page = handler::page_size();
    let from = addr & !(page - 1);
    handler::map_zeros(from, end - from, writable)
}

/// How many faults the handler absorbed in this process (tests, diagnostics).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
static ABSORBED: AtomicUsize = AtomicUsize::new(0);

/// Faults absorbed so far in this process.
#[cfg(test)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn absorbed() -> usize {
    ABSORBED.load(Ordering::Relaxed)
}

#[cfg(target_os = "linux")]
mod handler {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Once, OnceLock};

    use libc::{c_int, c_void, siginfo_t};

    static INSTALL: Once = Once::new();
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    static PAGE: AtomicUsize = AtomicUsize::new(4096);
    /// The SIGBUS disposition before ours, for faults that are not ours.
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

    pub(super) fn page_size() -> usize {
        PAGE.load(Ordering::Relaxed)
    }

    /// Install the handler once per process; true when it is in place.
    pub(super) fn install() -> bool {
        INSTALL.call_once(|| {
            // SAFETY: sysconf only reads its argument.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            if let Ok(p) = usize::try_from(page) {
                if p.is_power_of_two() {
                    PAGE.store(p, Ordering::Relaxed);
                }
            }
            // SAFETY: an all-zero `sigaction` is a valid value of this plain
            // C struct (SIG_DFL, empty flags and mask).
            let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: a null new action only queries; `old` is a valid,
            // writable `sigaction`.
            if unsafe { libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) } != 0 {
                return;
            }
            // Stored before our handler can run, so it always finds it.
            let _ = PREVIOUS.set(old);
            // SAFETY: as above, all-zero is a valid `sigaction`.
            let mut new: libc::sigaction = unsafe { std::mem::zeroed() };
            let handler: extern "C" fn(c_int, *mut siginfo_t, *mut c_void) = on_sigbus;
            new.sa_sigaction = handler as libc::sighandler_t;
            // SA_ONSTACK: run on the thread's alternate stack when it has one,
            // like the standard library's handler we may chain to.
            new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            // SAFETY: `new.sa_mask` is a valid sigset_t to initialise.
            unsafe { libc::sigemptyset(&mut new.sa_mask) };
            // SAFETY: `new` is fully initialised and `on_sigbus` has the
            // signature SA_SIGINFO requires; the old action was saved above.
            if unsafe { libc::sigaction(libc::SIGBUS, &new, std::ptr::null_mut()) } == 0 {
                INSTALLED.store(true, Ordering::Release);
            }
        });
        INSTALLED.load(Ordering::Acquire)
    }

    /// Replace `[from, from + len)` of a registered mapping with anonymous
    /// zero pages. Async-signal-safe (one syscall).
    pub(super) fn map_zeros(from: usize, len: usize, writable: bool) -> bool {
        let prot = if writable {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        // SAFETY: `[from, from + len)` is page-aligned and lies inside a
        // mapping that is registered, hence still mapped and owned by a live
        // `Region` (a region leaves the registry before it is unmapped, and a
        // thread can only fault in a region it holds). Its pages past the
        // end of the file hold no data; replacing them cannot affect any
        // other mapping or any Rust object's memory.
        let p = unsafe {
            libc::mmap(
                from as *mut c_void,
                len,
                prot,
                libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        p != libc::MAP_FAILED
    }

    /// The SIGBUS handler.
    extern "C" fn on_sigbus(sig: c_int, info: *mut siginfo_t, ctx: *mut c_void) {
        // SAFETY: errno is thread-local; libc gives this thread's location.
        let errno = unsafe { *libc::__errno_location() };
        // SAFETY: with SA_SIGINFO the kernel passes a valid siginfo_t (null
        // is checked anyway); `si_addr` is the faulting address for the
        // BUS_ADRERR code checked first.
        let fault = unsafe { info.as_ref() }
            .filter(|i| i.si_code == libc::BUS_ADRERR)
            .map(|i| unsafe { i.si_addr() } as usize);
        if fault.is_some_and(super::absorb) {
            super::ABSORBED.fetch_add(1, Ordering::Relaxed);
        } else {
            chain(sig, info, ctx);
        }
        // SAFETY: as above; restores the interrupted code's errno.
        unsafe { *libc::__errno_location() = errno };
    }

    /// Hand a fault that is not ours to whoever handled SIGBUS before us.
    fn chain(sig: c_int, info: *mut siginfo_t, ctx: *mut c_void) {
        let prev = PREVIOUS.get();
        let action = prev.map_or(libc::SIG_DFL, |p| p.sa_sigaction);
        // SAFETY: as in `on_sigbus`: valid or null.
        let sent = unsafe { info.as_ref() }.is_none_or(|i| i.si_code <= 0);
        match (action, prev) {
            (libc::SIG_IGN, _) if sent => {}
            (libc::SIG_DFL | libc::SIG_IGN, _) | (_, None) => {
                // SAFETY: all-zero is a valid `sigaction` (SIG_DFL); sigaction
                // is async-signal-safe.
                unsafe {
                    let dfl: libc::sigaction = std::mem::zeroed();
                    libc::sigaction(libc::SIGBUS, &dfl, std::ptr::null_mut());
                }
                if sent {
                    // Sent by kill/raise: deliver it again once we return
                    // (SIGBUS is blocked while its handler runs).
                    // SAFETY: raise is async-signal-safe.
                    unsafe { libc::raise(libc::SIGBUS) };
                }
                // A real fault: returning re-runs the faulting instruction,
                // which faults again and the default action ends the process.
            }
            (handler, Some(p)) if p.sa_flags & libc::SA_SIGINFO != 0 => {
                // SAFETY: the previous action was installed with SA_SIGINFO,
                // so its handler has this signature; we pass it the kernel's
                // own arguments.
                let f: extern "C" fn(c_int, *mut siginfo_t, *mut c_void) =
                    unsafe { std::mem::transmute::<libc::sighandler_t, _>(handler) };
                f(sig, info, ctx);
            }
            (handler, Some(_)) => {
                // SAFETY: a handler installed without SA_SIGINFO takes only
                // the signal number.
                let f: extern "C" fn(c_int) =
                    unsafe { std::mem::transmute::<libc::sighandler_t, _>(handler) };
                f(sig);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod handler {
    //! No handler: mappings are not registered and a cut file raises SIGBUS
    //! as before.

    pub(super) fn page_size() -> usize {
        4096
    }

    pub(super) fn install() -> bool {
        false
    }

    #[allow(dead_code)]
    pub(super) fn map_zeros(_from: usize, _len: usize, _writable: bool) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Addresses no mapping can have (non-canonical on 64-bit), so these
    /// fake ranges never meet a real fault.
    const BASE: usize = (usize::MAX >> 1) + 1;

    #[test]
    fn registry_finds_live_ranges_and_forgets_released_ones() {
        let a = register_range(BASE, BASE + 0x3000, true);
        let mut b = register_range(BASE + 0x10000, BASE + 0x11000, false);
        let (slot, start, end, writable) = find(BASE + 0x2fff).unwrap();
        assert_eq!((start, end, writable), (BASE, BASE + 0x3000, true));
        assert!(std::ptr::eq(&slot.cut, a.cut_word()));
        assert!(find(BASE + 0x3000).is_none());
        assert!(find(BASE - 1).is_none());
        let (_, start, _, writable) = find(BASE + 0x10000).unwrap();
        assert_eq!((start, writable), (BASE + 0x10000, false));
        b.release();
        assert!(find(BASE + 0x10000).is_none());
        assert!(std::ptr::eq(b.cut_word(), &NEVER_CUT));
        drop(a);
        assert!(find(BASE).is_none());
    }

    #[test]
    fn a_slot_is_claimed_once_and_reused_uncut() {
        static SLOT: Slot = Slot::new();
        assert!(SLOT.claim(BASE + 0x20000, BASE + 0x21000, true));
        assert!(!SLOT.claim(BASE, BASE + 0x1000, true), "claimed twice");
        let first = SLOT.state.load(Ordering::Relaxed);
        let mut r = Registration { slot: Some(&SLOT) };
        r.cut_word().store(12, Ordering::Relaxed);
        r.release();
        assert!(SLOT.live_range().is_none());
        assert!(SLOT.claim(BASE + 0x30000, BASE + 0x31000, false));
        assert_eq!(SLOT.cut.load(Ordering::Relaxed), NOT_CUT);
        assert_eq!(
            SLOT.live_range(),
            Some((BASE + 0x30000, BASE + 0x31000, false))
        );
        // Every change moves the counter: a reader that straddles a reuse
        // sees a different state word and discards what it read.
        assert_ne!(SLOT.state.load(Ordering::Relaxed), first);
        drop(Registration { slot: Some(&SLOT) });
    }

    #[test]
    fn registry_grows_past_one_chunk_under_concurrent_registration() {
        let threads: Vec<_> = (0..4usize)
            .map(|t| {
                std::thread::spawn(move || {
                    let base = BASE + 0x1000_0000 * (t + 1);
                    let regs: Vec<_> = (0..3 * SLOTS_PER_CHUNK)
                        .map(|i| register_range(base + i * 0x1000, base + (i + 1) * 0x1000, true))
                        .collect();
                    for i in 0..3 * SLOTS_PER_CHUNK {
                        let (_, start, _, _) = find(base + i * 0x1000 + 5).unwrap();
                        assert_eq!(start, base + i * 0x1000);
                    }
                    drop(regs);
                    for i in 0..3 * SLOTS_PER_CHUNK {
                        assert!(find(base + i * 0x1000).is_none());
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(chunks().count() >= 3);
    }
}

/// The handler in real processes: each case runs in a child (this unit-test
/// binary re-executed), since a SIGBUS that is not absorbed kills it.
#[cfg(test)]
#[cfg(target_os = "linux")]
mod process_tests {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};

    use libc::{c_int, c_void, siginfo_t};

    use super::handler::page_size;
    use crate::log::Region;

    const CHILD: &str = "EMDB_SIGBUS_CHILD";
    /// Exit code of the handler installed before ours in the `chained` case.
    const PREVIOUS_RAN: i32 = 42;

    extern "C" fn previous_handler(_: c_int, _: *mut siginfo_t, _: *mut c_void) {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(PREVIOUS_RAN) };
    }

    /// Install `action` for SIGBUS (before emdb installs its handler).
    fn set_sigbus(action: libc::sighandler_t, siginfo: bool) {
        // SAFETY: all-zero is a valid `sigaction`; the fields are then set.
        let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
        sa.sa_sigaction = action;
        sa.sa_flags = if siginfo { libc::SA_SIGINFO } else { 0 };
        // SAFETY: `sa` is initialised; the handler (if any) has the
        // SA_SIGINFO signature.
        let rc = unsafe { libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut()) };
        assert_eq!(rc, 0);
    }

    /// A file of `pages` pages and a registered mapping of all of it.
    fn mapped(pages: usize) -> (std::fs::File, Region) {
        let f = tempfile::tempfile().unwrap();
        f.set_len((pages * page_size()) as u64).unwrap();
        let r = Region::map_file(&f, pages * page_size()).unwrap();
        (f, r)
    }

    /// Cut our own mapping's file and read past the cut: absorbed.
    fn absorb_one() {
        let page = page_size() as u64;
        let (f, r) = mapped(3);
        assert!(r.write(2 * page + 7, b"x"));
        f.set_len(page).unwrap();
        let before = super::absorbed();
        assert_eq!(r.slice(2 * page, 2 * page + 8).unwrap(), &[0u8; 8]);
        assert_eq!(r.cut_at(), Some(2 * page));
        // The zero pages are writable for a writable region.
        assert!(r.write(2 * page + 100, b"y"));
        // A lower page past the cut: another fault, the mark moves down.
        assert_eq!(r.slice(page + 1, page + 2).unwrap(), &[0u8]);
        assert_eq!(r.cut_at(), Some(page + 1));
        assert_eq!(super::absorbed(), before + 2);
        // Below the cut the file is still there.
        assert!(r.write(5, b"z"));
        assert_eq!(r.slice(5, 6).unwrap(), b"z");
        println!("@@absorbed");
    }

    /// Fault in a mapping emdb did not make (memmap2 directly, unregistered).
    fn foreign_fault() -> u8 {
        let f = tempfile::tempfile().unwrap();
        f.set_len(2 * page_size() as u64).unwrap();
        let raw = memmap2::MmapOptions::new()
            .len(2 * page_size())
            .map_raw(&f)
            .unwrap();
        f.set_len(0).unwrap();
        println!("@@faulting");
        // SAFETY: in bounds of a live mapping; the page lies past the end of
        // the file, which is the point: this must raise SIGBUS.
        unsafe { raw.as_ptr().add(page_size()).read_volatile() }
    }

    /// The cases, each in its own child process.
    #[test]
    #[ignore = "child process of the SIGBUS process tests"]
    fn sigbus_child() {
        let Ok(case) = std::env::var(CHILD) else {
            return;
        };
        match case.as_str() {
            "foreign-after-std" => {
                absorb_one();
                foreign_fault();
            }
            "foreign-after-default" => {
                set_sigbus(libc::SIG_DFL, false);
                absorb_one();
                foreign_fault();
            }
            "sent-after-default" => {
                set_sigbus(libc::SIG_DFL, false);
                absorb_one();
                println!("@@raising");
                // SAFETY: raise has no memory-safety preconditions.
                unsafe { libc::raise(libc::SIGBUS) };
            }
            "chained" => {
                let h: extern "C" fn(c_int, *mut siginfo_t, *mut c_void) = previous_handler;
                set_sigbus(h as libc::sighandler_t, true);
                absorb_one();
                foreign_fault();
            }
            other => panic!("unknown case {other}"),
        }
        println!("@@survived");
    }

    /// Run `case`; its stdout markers and exit status.
    fn run(case: &str) -> (Vec<String>, std::process::ExitStatus) {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "log::sigbus::process_tests::sigbus_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, case)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // A handler that returns without curing a fault makes the faulting
        // instruction fault forever: fail instead of hanging.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("{case}: the child hung (a fault repeating forever?)");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let out = child.wait_with_output().unwrap();
        let lines = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.find("@@").map(|at| l[at + 2..].to_string()))
            .collect();
        (lines, out.status)
    }

    #[track_caller]
    fn assert_killed_by_sigbus(case: &str, last: &str) {
        let (lines, status) = run(case);
        assert!(lines.contains(&"absorbed".to_string()), "{case}: {lines:?}");
        assert_eq!(
            lines.last().map(String::as_str),
            Some(last),
            "{case}: {lines:?}"
        );
        assert_eq!(status.signal(), Some(libc::SIGBUS), "{case}: {status}");
    }

    #[test]
    fn a_fault_outside_our_mappings_still_kills_the_process() {
        // The standard library's handler was there first (as in any Rust
        // program): it sees a fault that is not a stack overflow, restores
        // the default action, and the fault ends the process.
        assert_killed_by_sigbus("foreign-after-std", "faulting");
        // No handler before ours: we restore the default action ourselves.
        assert_killed_by_sigbus("foreign-after-default", "faulting");
    }

    #[test]
    fn a_sigbus_sent_by_kill_is_not_swallowed() {
        assert_killed_by_sigbus("sent-after-default", "raising");
    }

    #[test]
    fn a_fault_outside_our_mappings_reaches_the_previous_handler() {
        let (lines, status) = run("chained");
        assert_eq!(lines, ["absorbed", "faulting"], "{status}");
        assert_eq!(status.code(), Some(PREVIOUS_RAN), "{status}");
    }
}
