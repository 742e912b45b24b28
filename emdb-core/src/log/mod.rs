//! The log: one append-only file (or anonymous memory), mapped for reads and
//! written by a single writer.
//!
//! The writer copies frames straight into the shared mapping (no syscall per
//! record); `flush` is one fdatasync, which on Linux also writes back pages
//! dirtied through the mapping. Under `FlushPolicy::WriteThrough` frames are
//! instead written with `pwrite` on an `O_DSYNC` descriptor, which the mapping
//! sees through the shared page cache. The file grows in preallocated chunks;
//! each growth maps a new, larger [`Region`], and older regions stay valid for
//! readers still holding them.
//!
//! Another process may still cut the file short under a mapping (nothing in
//! emdb does). `sigbus.rs` turns the resulting fault into a mark on the
//! region; [`Log::vouch`] turns the mark into an error after reads, the
//! write methods refuse to go on, and [`Log::check_intact`] compares the
//! file's size with the published end where a syscall is affordable.

#![allow(unsafe_code)]

pub(crate) mod region;
mod sigbus;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;

use crate::error::{Error, Result};
use crate::format::header::{Identity, SyncSlot, HEADER_SIZE, SYNC_SLOT_LEN};
use crate::limits::MAX_LOG_SIZE;
pub(crate) use region::Region;

/// Smallest growth step of the log file.
const MIN_GROWTH: u64 = 1 << 20;
/// Largest growth step of the log file.
const MAX_GROWTH: u64 = 256 << 20;

/// The file behind a file-backed log.
pub(crate) struct LogFile {
    pub path: PathBuf,
    pub file: File,
    /// A second descriptor opened with `O_DSYNC`, for write-through writes.
    pub dsync: Option<File>,
}

/// One generation of the log: a file (or memory) and its mapping.
pub(crate) struct Log {
    pub identity: Identity,
    pub file: Option<LogFile>,
    region: ArcSwap<Region>,
    /// End of the bytes readers may look at.
    published_end: AtomicU64,
    /// Current size of the file / mapping.
    capacity: AtomicU64,
    /// Lowest offset at which the file was found cut short by another
    /// process (`u64::MAX` while it was not). Once set, writes are refused.
    cut: AtomicU64,
    /// Injected faults (tests only; always `None` otherwise).
    pub faults: Option<Arc<crate::fault::Faults>>,
}

impl Log {
    /// Wrap an opened log whose mapping covers `capacity` bytes.
    pub(crate) fn new(identity: Identity, file: Option<LogFile>, region: Region, end: u64) -> Log {
        let capacity = region.len() as u64;
        Log {
            identity,
            file,
            region: ArcSwap::from_pointee(region),
            published_end: AtomicU64::new(end),
            capacity: AtomicU64::new(capacity),
            cut: AtomicU64::new(u64::MAX),
            faults: None,
        }
    }

    /// A fresh in-memory log.
    pub(crate) fn in_memory(identity: Identity) -> Log {
        let region = Region::anon(HEADER_SIZE);
        region.write(0, &identity.page());
        Log::new(identity, None, region, HEADER_SIZE as u64)
    }

    /// Path of the file, if file-backed.
    pub(crate) fn path(&self) -> Option<&Path> {
        self.file.as_ref().map(|f| f.path.as_path())
    }

    /// The current mapping (cheap; no reference-count traffic).
    #[inline]
    pub(crate) fn region(&self) -> arc_swap::Guard<Arc<Region>> {
        self.region.load()
    }

    /// The current mapping as an owned handle.
    pub(crate) fn region_arc(&self) -> Arc<Region> {
        self.region.load_full()
    }

    /// End of the published bytes.
    #[inline]
    pub(crate) fn published_end(&self) -> u64 {
        self.published_end.load(Ordering::Acquire)
    }

    /// Make bytes up to `end` visible to readers. Writer only.
    pub(crate) fn publish(&self, end: u64) {
        self.published_end.store(end, Ordering::Release);
    }

    /// Where the file was found cut short by another process, if it was.
    #[inline]
    pub(crate) fn cut(&self) -> Option<u64> {
        match self.cut.load(Ordering::Relaxed) {
            u64::MAX => None,
            at => Some(at),
        }
    }

    /// `r`, unless bytes read through `region` (a mapping of this log) were
    /// lost to another process cutting the file short: then the error that
    /// says so, whatever `r` was (zeros read in place of the lost bytes make
    /// decoding fail with a misleading reason, or, inside a value that held
    /// zeros anyway, not at all). One relaxed load on the intact path.
    #[inline]
    pub(crate) fn vouch<T>(&self, region: &Region, r: Result<T>) -> Result<T> {
        match region.cut_at() {
            None => r,
            Some(at) => Err(self.cut_found(at)),
        }
    }

    /// Record that the file was found cut short at `at` and build the error.
    #[cold]
    pub(crate) fn cut_found(&self, at: u64) -> Error {
        self.cut.fetch_min(at, Ordering::Relaxed);
        let file = self.file.as_ref();
        cut_error(
            file.map(|f| f.path.as_path()),
            file.map(|f| &f.file),
            at,
            self.published_end(),
        )
    }

    /// Fail if the file was cut short by another process: found so by an
    /// earlier access, or now shorter than the published log (one `fstat`).
    pub(crate) fn check_intact(&self) -> Result<()> {
        if let Some(at) = self.cut().or_else(|| self.region().cut_at()) {
            return Err(self.cut_found(at));
        }
        let Some(f) = &self.file else {
            return Ok(());
        };
        let len = f
            .file
            .metadata()
            .map_err(|e| Error::io("stat", Some(&f.path), e))?
            .len();
        if len < self.published_end() {
            return Err(self.cut_found(len));
        }
        Ok(())
    }

    /// Fail when the file is shorter than `needed` bytes the writer relies
    /// on (it is never shorter unless another process cut it). One `fstat`.
    fn check_len(&self, f: &LogFile, needed: u64) -> Result<()> {
        let len = f
            .file
            .metadata()
            .map_err(|e| Error::io("stat", Some(&f.path), e))?
            .len();
        if len < needed {
            return Err(self.cut_found(len));
        }
        Ok(())
    }

    /// Swap in a larger mapping of the same file (read-only followers).
    pub(crate) fn replace_region(&self, region: Region) {
        self.capacity.store(region.len() as u64, Ordering::Relaxed);
        self.region.store(Arc::new(region));
    }

    /// Size of the file / mapping.
    pub(crate) fn capacity(&self) -> u64 {
        self.capacity.load(Ordering::Relaxed)
    }

    /// Make room for bytes up to `needed_end`. Writer only. `used` is how many
    /// bytes are in use (copied when an anonymous region grows).
    pub(crate) fn ensure_capacity(&self, used: u64, needed_end: u64) -> Result<()> {
        let cap = self.capacity();
        if needed_end <= cap {
            return Ok(());
        }
        if needed_end > MAX_LOG_SIZE {
            return Err(Error::DatabaseFull {
                requested: needed_end,
                max: MAX_LOG_SIZE,
            });
        }
        let step = cap.clamp(MIN_GROWTH, MAX_GROWTH);
        let new_cap = needed_end
            .max(cap + step)
            .next_multiple_of(MIN_GROWTH)
            .min(MAX_LOG_SIZE);
        let new_len = usize::try_from(new_cap).map_err(|_| Error::DatabaseFull {
            requested: new_cap,
            max: MAX_LOG_SIZE,
        })?;
        if let Some(at) = self.cut() {
            return Err(self.cut_found(at));
        }
        let region = match &self.file {
            Some(f) => {
                // Growing a file someone cut short would turn the lost bytes
                // into a hole of zeros that later writes never touch.
                self.check_len(f, cap)?;
                crate::fault::Faults::check(
                    self.faults.as_ref().map(|x| &x.fail_grow),
                    libc::ENOSPC,
                )
                .and_then(|()| allocate(&f.file, cap, new_cap))
                .map_err(|e| Error::io("grow", Some(&f.path), e))?;
                let r = Region::map_file(&f.file, new_len)
                    .map_err(|e| Error::io("mmap", Some(&f.path), e))?;
                // Appends land from `used` on: keep them out of large folios.
                r.advise_random_from(usize::try_from(used).unwrap_or(new_len));
                r
            }
            None => {
                let r = Region::anon(new_len);
                let old = self.region.load();
                r.copy_prefix_from(&old, used.min(cap) as usize);
                r
            }
        };
        self.region.store(Arc::new(region));
        self.capacity.store(new_cap, Ordering::Relaxed);
        Ok(())
    }

    /// Encode `len` bytes at `at` through `fill`. Writer only; `at` is at or
    /// past the published end and capacity was ensured.
    pub(crate) fn fill(
        &self,
        at: u64,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> Result<()>,
    ) -> Result<()> {
        if let Some(cut) = self.cut() {
            return Err(self.cut_found(cut));
        }
        let region = self.region.load();
        let mut out = Ok(());
        if !region.fill(at, len, |d| out = fill(d)) {
            return Err(Error::corruption(at, "write outside the mapped log"));
        }
        // A cut file: the bytes went to zero pages, not to the file.
        self.vouch(&region, out)
    }

    /// Write bytes with `O_DSYNC` (durable when this returns).
    pub(crate) fn write_through(&self, at: u64, data: &[u8]) -> Result<()> {
        use std::os::unix::fs::FileExt;
        let Some(f) = &self.file else {
            return self.fill(at, data.len(), |d| {
                d.copy_from_slice(data);
                Ok(())
            });
        };
        // pwrite past a cut would extend the file over a hole of zeros.
        if let Some(cut) = self.cut() {
            return Err(self.cut_found(cut));
        }
        self.check_len(f, at + data.len() as u64)?;
        let fd = f.dsync.as_ref().unwrap_or(&f.file);
        crate::fault::Faults::check(self.faults.as_ref().map(|x| &x.fail_write), libc::EIO)
            .and_then(|()| fd.write_all_at(data, at))
            .map_err(|e| Error::io("write", Some(&f.path), e))
    }

    /// Zero `[from, to)` (discarding an aborted batch). Writer only.
    pub(crate) fn zero(&self, from: u64, to: u64) -> Result<()> {
        if to <= from {
            return Ok(());
        }
        let len = usize::try_from(to - from).map_err(|_| Error::corruption(from, "zero range"))?;
        self.fill(from, len, |d| {
            d.fill(0);
            Ok(())
        })
    }

    /// fdatasync the file (no-op in memory).
    pub(crate) fn sync_data(&self) -> Result<()> {
        match &self.file {
            Some(f) => {
                crate::fault::Faults::check(self.faults.as_ref().map(|x| &x.fail_sync), libc::EIO)
                    .and_then(|()| f.file.sync_data())
                    .map_err(|e| Error::io("fdatasync", Some(&f.path), e))
            }
            None => Ok(()),
        }
    }

    /// Record a sync slot in the header page (made durable by the next sync).
    pub(crate) fn write_slot(&self, slot: SyncSlot) {
        let bytes: [u8; SYNC_SLOT_LEN] = slot.encode();
        self.region
            .load()
            .write(SyncSlot::offset(slot.seq) as u64, &bytes);
    }

    /// Cut the file back to `len` bytes (clean close, torn-tail removal). Writer only,
    /// with nothing published past `len`.
    pub(crate) fn truncate(&self, len: u64) -> Result<()> {
        let Some(f) = &self.file else {
            return Ok(());
        };
        let len = len.max(HEADER_SIZE as u64);
        let new_len = usize::try_from(len).map_err(|_| Error::corruption(len, "length"))?;
        // Map the shorter length first so no live mapping extends past EOF
        // (older regions held by readers still cover at most the published end).
        let region =
            Region::map_file(&f.file, new_len).map_err(|e| Error::io("mmap", Some(&f.path), e))?;
        self.region.store(Arc::new(region));
        f.file
            .set_len(len)
            .map_err(|e| Error::io("truncate", Some(&f.path), e))?;
        self.capacity.store(len, Ordering::Relaxed);
        Ok(())
    }
}

/// What an access through a mapping of a file cut short by another process
/// reports (the message of the `Error::Corruption` it becomes).
pub(crate) const CUT_REASON: &str =
    "the file was truncated by another process while this process had it mapped";

/// The error for an access at `at` through a mapping of `file` (the log up
/// to `end`) that found the file cut short by another process. The offset
/// reported is where the file ends now, when that is lower.
#[cold]
pub(crate) fn cut_error(path: Option<&Path>, file: Option<&File>, at: u64, end: u64) -> Error {
    let file_len = file.and_then(|f| f.metadata().ok()).map(|m| m.len());
    Error::Corruption {
        path: path.map(Path::to_path_buf),
        offset: file_len.map_or(at, |l| l.min(at)),
        reason: match file_len {
            Some(len) => {
                format!("{CUT_REASON} (the file now holds {len} bytes, the log reaches byte {end})")
            }
            None => CUT_REASON.to_string(),
        },
    }
}

/// Extend `file` from `from` to `to` bytes with allocated, zeroed blocks, so a
/// full disk surfaces here as an error rather than as SIGBUS on a mapped write.
fn allocate(file: &File, from: u64, to: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let (Ok(off), Ok(len)) = (i64::try_from(from), i64::try_from(to - from)) else {
        return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
    };
    // SAFETY: posix_fallocate only reads its integer arguments and operates on
    // a descriptor this `File` owns for the duration of the call.
    let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), off, len) };
    match rc {
        0 => Ok(()),
        // Filesystems without fallocate: a plain size change (sparse).
        libc::EOPNOTSUPP | libc::EINVAL => file.set_len(to),
        err => Err(std::io::Error::from_raw_os_error(err)),
    }
}
