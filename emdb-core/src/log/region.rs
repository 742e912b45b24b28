//! A mapped byte region: the log file through a shared mapping, or anonymous
//! memory for in-memory databases. The engine's mmap `unsafe` lives here and
//! in `sigbus.rs` (a file cut short by another process); the invariants are
//! listed in docs/ARCHITECTURE.md ("Unsafe code").

#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::sync::atomic::{compiler_fence, AtomicUsize, Ordering};

use super::sigbus::{self, Registration, NOT_CUT};

use memmap2::{MmapOptions, MmapRaw};

/// What owns the memory; held only so it is released when the region drops.
enum Backing {
    /// `MAP_SHARED` mapping of the log file, read-write.
    File(#[allow(dead_code)] MmapRaw),
    /// Heap memory (in-memory databases). Never touched through the `Vec`
    /// after construction, only through `ptr`; kept to free it on drop.
    Heap(#[allow(dead_code)] Vec<u8>),
}

/// A fixed-size mapping. The log grows by creating a new, larger region;
/// old regions stay valid for as long as anything holds them.
pub(crate) struct Region {
    _backing: Backing,
    ptr: *mut u8,
    len: usize,
    /// False for read-only mappings: every write is refused.
    writable: bool,
    /// The mapping's entry in the SIGBUS registry (file mappings only).
    registration: Registration,
    /// Lowered by the SIGBUS handler to the lowest offset whose access found
    /// the file cut short by another process (`NOT_CUT` until then).
    cut: &'static AtomicUsize,
}

// SAFETY: `Region` is a pointer into a mapping it owns. Readers only form
// shared slices of bytes the writer has published (below the log's published
// end, with a release store after the bytes were written); the single writer
// only writes bytes past the published end, which no reader slices. So shared
// access from many threads never races, and the mapping lives as long as the
// `Region`.
unsafe impl Send for Region {}
// SAFETY: see the `Send` impl; all shared access goes through `slice`, which
// callers bound by the published end.
unsafe impl Sync for Region {}

impl Region {
    /// Map `len` bytes of `file` (opened read-write) shared.
    ///
    /// The caller guarantees the file is at least `len` bytes long for the
    /// lifetime of the region (the engine only ever grows its log file, and
    /// compaction replaces it by rename, leaving this inode intact). Another
    /// process cutting it anyway is caught by `sigbus.rs` and shows in
    /// [`Region::cut_at`].
    pub(crate) fn map_file(file: &File, len: usize) -> io::Result<Region> {
        let raw = MmapOptions::new().len(len).map_raw(file)?;
        Ok(Region::registered(raw, len, true))
    }

    /// Wrap a fresh file mapping and enter it in the SIGBUS registry, so a
    /// cut file becomes an error instead of the end of the process.
    fn registered(raw: MmapRaw, len: usize, writable: bool) -> Region {
        let ptr = raw.as_mut_ptr();
        let registration = sigbus::register(ptr, len, writable);
        Region {
            _backing: Backing::File(raw),
            ptr,
            len,
            writable,
            cut: registration.cut_word(),
            registration,
        }
    }

    /// Map `len` bytes of `file` shared and read-only (read-only handles).
    /// Writing to such a region fails the bounds check of every write method.
    pub(crate) fn map_file_read_only(file: &File, len: usize) -> io::Result<Region> {
        let raw = MmapOptions::new().len(len).map_raw_read_only(file)?;
        Ok(Region::registered(raw, len, false))
    }

    /// Tell the kernel how this mapping will be read (its read-ahead on a
    /// page fault); heap regions ignore it. With `Random` a fault reads
    /// only its page from disk, not the read-around window
    /// (`read_ahead_kb`, often megabytes).
    pub(crate) fn advise(&self, advice: memmap2::Advice) -> std::io::Result<()> {
        match &self._backing {
            Backing::File(raw) => raw.advise(advice),
            Backing::Heap(_) => Ok(()),
        }
    }

    /// Zeroed heap memory of `len` bytes.
    pub(crate) fn anon(len: usize) -> Region {
        let mut mem = vec![0u8; len];
        let ptr = mem.as_mut_ptr();
        let registration = Registration::none();
        Region {
            _backing: Backing::Heap(mem),
            ptr,
            len,
            writable: true,
            cut: registration.cut_word(),
            registration,
        }
    }

    /// Size of the mapping.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Offset of the first access that found the file cut short by another
    /// process (those bytes and everything after them now read as zeros),
    /// or `None` while the mapping is intact.
    ///
    /// Call after reading or writing mapped bytes: one relaxed load, no
    /// syscall. The handler runs on the faulting thread itself, so the
    /// compiler fence (no instruction) is all it takes for an access made
    /// before this call to be seen by it.
    #[inline]
    pub(crate) fn cut_at(&self) -> Option<u64> {
        compiler_fence(Ordering::SeqCst);
        match self.cut.load(Ordering::Relaxed) {
            NOT_CUT => None,
            off => Some(off as u64),
        }
    }

    /// Read the byte at `at` (when inside the mapping) for its side effect
    /// only: a page the file no longer has faults, which marks the cut.
    #[inline]
    pub(crate) fn touch(&self, at: u64) {
        let Ok(at) = usize::try_from(at) else {
            return;
        };
        if at < self.len {
            // SAFETY: `at` lies inside the mapping, alive for `&self`; a
            // volatile read of one byte has no other effect than the load
            // (a fault past the end of the file is absorbed by `sigbus.rs`,
            // which marks this region cut and maps a zero page there).
            let _ = unsafe { std::ptr::read_volatile(self.ptr.add(at)) };
        }
    }

    /// Shared view of `[start, end)`; `None` when out of bounds.
    ///
    /// Callers keep `end` at or below the published end of the log (bytes the
    /// writer has finished), or otherwise know no write is in progress there.
    #[inline]
    pub(crate) fn slice(&self, start: u64, end: u64) -> Option<&[u8]> {
        let (start, end) = (usize::try_from(start).ok()?, usize::try_from(end).ok()?);
        if start > end || end > self.len {
            return None;
        }
        // SAFETY: `[start, end)` lies inside the mapping (checked above), the
        // mapping is alive for `&self`, and by the caller's contract no write
        // touches these bytes while the slice lives.
        Some(unsafe { std::slice::from_raw_parts(self.ptr.add(start), end - start) })
    }

    /// Copy `data` into the region at `at`. Returns false when out of bounds.
    ///
    /// Only the writer calls this, and only on bytes at or past the published
    /// end of the log (or on a sync slot of the header page, which readers do
    /// not slice), so no shared slice overlaps the destination.
    pub(crate) fn write(&self, at: u64, data: &[u8]) -> bool {
        let Ok(at) = usize::try_from(at) else {
            return false;
        };
        if !self.writable {
            return false;
        }
        match at.checked_add(data.len()) {
            Some(end) if end <= self.len => {}
            _ => return false,
        }
        // SAFETY: the destination is inside the mapping (checked above) and,
        // by the writer-only contract, not aliased by any live slice; `data`
        // cannot overlap it since it is not part of the unpublished region.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(at), data.len()) };
        true
    }

    /// Run `fill` on `[at, at + len)` as a mutable slice; false when out of bounds.
    ///
    /// Same contract as [`Region::write`]: writer only, unpublished bytes only.
    pub(crate) fn fill(&self, at: u64, len: usize, fill: impl FnOnce(&mut [u8])) -> bool {
        let Ok(at) = usize::try_from(at) else {
            return false;
        };
        if !self.writable {
            return false;
        }
        match at.checked_add(len) {
            Some(end) if end <= self.len => {}
            _ => return false,
        }
        // SAFETY: in bounds (checked above); unpublished bytes are touched by
        // the single writer only, so this is the one live reference to them.
        let dst = unsafe { std::slice::from_raw_parts_mut(self.ptr.add(at), len) };
        fill(dst);
        true
    }

    /// Copy the first `len` bytes of `other` into this region (growing an
    /// anonymous region). Only the writer calls this, before publishing `self`.
    pub(crate) fn copy_prefix_from(&self, other: &Region, len: usize) -> bool {
        if !self.writable || len > self.len || len > other.len {
            return false;
        }
        // SAFETY: both ranges are in bounds; `self` is not yet shared with any
        // reader, and `other`'s prefix is only read.
        unsafe { std::ptr::copy_nonoverlapping(other.ptr, self.ptr, len) };
        true
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // Leave the registry while the mapping still exists (`_backing`
        // unmaps it after this body): once unmapped, the addresses may be
        // reused by a mapping the handler must not touch.
        self.registration.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anon_region_reads_back_writes_and_checks_bounds() {
        let r = Region::anon(8192);
        assert!(r.write(100, b"hello"));
        assert_eq!(r.slice(100, 105).unwrap(), b"hello");
        assert!(!r.write(8190, b"hello"));
        assert!(r.slice(8000, 9000).is_none());
        assert!(r.slice(10, 5).is_none());
        let bigger = Region::anon(16384);
        assert!(bigger.copy_prefix_from(&r, 8192));
        assert_eq!(bigger.slice(100, 105).unwrap(), b"hello");
    }

    #[test]
    fn file_region_is_shared_with_the_file() {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = tempfile::tempfile().unwrap();
        f.set_len(4096).unwrap();
        let r = Region::map_file(&f, 4096).unwrap();
        assert!(r.write(10, b"abc"));
        let mut buf = [0u8; 3];
        f.seek(SeekFrom::Start(10)).unwrap();
        f.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"abc");
    }
}
