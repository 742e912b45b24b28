//! A checkpoint's index image, mapped private (copy-on-write) so the index
//! uses its slots where they lie in the file (docs/FORMAT.md, "Checkpoint
//! file"). Writes to the slots (the writer updating its index, a follower
//! applying new records) copy the touched page into private memory; the
//! file never changes. The mapping is entered in the SIGBUS registry like
//! the log's, so another process cutting the file short becomes an error
//! (the index checks [`ImageMap::cut_at`]) instead of the end of the process.

#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::sync::atomic::{compiler_fence, AtomicU64, AtomicUsize, Ordering};

use memmap2::{MmapMut, MmapOptions};

use super::sigbus::{self, Registration, NOT_CUT};

/// A private, writable mapping of a whole checkpoint file.
pub(crate) struct ImageMap {
    map: MmapMut,
    /// Entry in the SIGBUS registry; released before `map` is unmapped
    /// (fields drop in declaration order would unmap first, so `Drop` below
    /// releases it explicitly).
    registration: Registration,
    cut: &'static AtomicUsize,
}

impl ImageMap {
    /// Map `len` bytes of `file` privately (reads see the file's pages until
    /// a write copies one).
    pub(crate) fn map(file: &File, len: usize) -> io::Result<ImageMap> {
        // SAFETY: a private mapping of a file the engine never writes in place
        // (checkpoints are replaced by rename, so this inode keeps its bytes).
        // Another process changing the file under us is outside what emdb
        // controls: a change shows as a failed page CRC (each slot page is
        // checked before first use) and a cut as SIGBUS, which the registry
        // below turns into `cut_at`. The slots are only ever accessed as
        // atomics through `slots`, never as `&mut [u8]`.
        let mut map = unsafe { MmapOptions::new().len(len).map_copy(file)? };
        // Reads probe a slot or a sorted entry here and there: no readahead,
        // and no huge mapping of a large page-cache folio for one probe.
        let _ = map.advise(memmap2::Advice::Random);
        let _ = map.advise(memmap2::Advice::NoHugePage);
        let registration = sigbus::register(map.as_mut_ptr(), len, true);
        Ok(ImageMap {
            cut: registration.cut_word(),
            registration,
            map,
        })
    }

    /// Bytes mapped.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// The bytes `[at, at + len)`, for checking a page against its CRC;
    /// `None` when out of bounds.
    ///
    /// Only read pages that no writer has touched yet (the index verifies a
    /// page before any write to it, under its verification lock).
    pub(crate) fn bytes(&self, at: usize, len: usize) -> Option<&[u8]> {
        self.map.get(at..at.checked_add(len)?)
    }

    /// `n` slots starting at byte `at` (a multiple of 8); `None` when out of
    /// bounds or misaligned.
    pub(crate) fn slots(&self, at: usize, n: usize) -> Option<&[AtomicU64]> {
        let end = at.checked_add(n.checked_mul(8)?)?;
        if end > self.map.len() || !(self.map.as_ptr() as usize + at).is_multiple_of(8) {
            return None;
        }
        // SAFETY: `[at, end)` lies inside the mapping (checked above) and its
        // start is 8-byte aligned, so it holds `n` properly aligned u64s; any
        // bit pattern is a valid `AtomicU64`. The mapping lives as long as
        // `self`, which the returned slice borrows. All access to slot bytes
        // goes through atomics (`bytes` reads only pages no one has written,
        // see there), so no `&mut` aliasing arises.
        Some(unsafe {
            std::slice::from_raw_parts(self.map.as_ptr().add(at).cast::<AtomicU64>(), n)
        })
    }

    /// Offset of the first access that found the file cut short by another
    /// process, or `None` while it is intact (one relaxed load; see
    /// `Region::cut_at` for why the compiler fence suffices).
    #[inline]
    pub(crate) fn cut_at(&self) -> Option<u64> {
        compiler_fence(Ordering::SeqCst);
        match self.cut.load(Ordering::Relaxed) {
            NOT_CUT => None,
            off => Some(off as u64),
        }
    }
}

impl Drop for ImageMap {
    fn drop(&mut self) {
        // Leave the registry before the mapping goes away (then `map` drops).
        self.registration.release();
    }
}

impl std::fmt::Debug for ImageMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageMap")
            .field("len", &self.len())
            .finish()
    }
}
