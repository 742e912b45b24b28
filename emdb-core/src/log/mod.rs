//! The log: one append-only file (or anonymous memory), mapped for reads and
//! written by a single writer.
//!
//! The writer encodes frames into a staging buffer and writes them to the file
//! with `pwrite` when it publishes them (or in runs aligned to [`STAGE_ALIGN`]
//! inside a large batch); readers see them through the shared mapping, which shares
//! the page cache. Writing through the mapping instead would make every first
//! store to a page cache folio dirty the whole folio (large folios, up to
//! megabytes, are what readahead creates), and each `fdatasync` would write
//! all of it back; `pwrite` dirties only the blocks it touches. Frames of
//! [`STAGE_LIMIT`] bytes or more are encoded straight into the mapping.
//! `flush` is one fdatasync. Under `FlushPolicy::WriteThrough` single frames
//! are written with `pwrite` on an `O_DSYNC` descriptor. The file grows in preallocated chunks;
//! each growth maps a new, larger [`Region`], and older regions stay valid for
//! readers still holding them.
//!
//! Another process may still cut the file short under a mapping (nothing in
//! emdb does). `sigbus.rs` turns the resulting fault into a mark on the
//! region; [`Log::vouch`] turns the mark into an error after reads, the
//! write methods refuse to go on, and [`Log::check_intact`] compares the
//! file's size with the published end where a syscall is affordable.

#![allow(unsafe_code)]

pub(crate) mod image;
pub(crate) mod region;
mod sigbus;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;
use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::fault::WriteSite;
use crate::format::header::{Identity, SyncSlot, HEADER_SIZE, SYNC_SLOT_LEN};
use crate::limits::MAX_LOG_SIZE;
pub(crate) use region::Region;

/// Ask the CPU to start loading the cache line holding `bytes[at]`, so a
/// read of it soon after does not wait for memory (nothing when `at` is past
/// the end, or off x86_64). Only a hint: a line whose page is not mapped is
/// skipped, never faulted in.
#[inline]
pub(crate) fn prefetch(bytes: &[u8], at: usize) {
    if let Some(b) = bytes.get(at) {
        prefetch_line(b);
    }
}

/// Ask the CPU to start loading the cache line holding `*p` (nothing off
/// x86_64).
#[inline]
fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` only hints the cache: it reads nothing
    // architecturally and never faults, whatever the address (callers pass
    // addresses inside a live slice anyway); SSE is part of the x86_64
    // baseline.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Start loading every cache line of `items` at once (a block that a
/// search is about to read a few lines of, one after another).
#[inline]
pub(crate) fn prefetch_all<T>(items: &[T]) {
    let bytes = std::mem::size_of_val(items);
    let start = items.as_ptr().cast::<u8>();
    // The first line, every 64 bytes on, and the last byte's line.
    for at in (0..bytes).step_by(64).chain(bytes.checked_sub(1)) {
        prefetch_line(start.wrapping_add(at));
    }
}

/// Start loading every cache line of `bytes[off..off + len]` (the head,
/// key and value of a record, say), wherever in its line `off` falls.
#[inline]
pub(crate) fn prefetch_span(bytes: &[u8], off: u64, len: usize) {
    let off = usize::try_from(off).unwrap_or(usize::MAX);
    for line in ((off & !63)..off.saturating_add(len)).step_by(64) {
        prefetch(bytes, line.max(off));
    }
}

/// Smallest growth step of the log file.
const MIN_GROWTH: u64 = 1 << 20;
/// Largest growth step of the log file.
const MAX_GROWTH: u64 = 256 << 20;
/// Growth granularity when a whole step does not fit on the disk.
const PAGE: u64 = 4096;
/// Frames this large skip the stage and are encoded straight into the mapping.
pub(crate) const STAGE_LIMIT: usize = 1 << 20;
/// Staged bytes are written out in runs that end on a multiple of this, so
/// the page cache holds the log in folios of at most this size (a `pwrite`
/// covering a whole aligned run of a fresh part of the file gets one
/// folio). Small, because a reader maps the whole folio around each page it
/// touches: with 1 MiB folios a one-shot `emdb scan` that reads a few
/// records mapped (and counted in its RSS) megabytes; with 64 KiB runs the
/// phase bench's bulk load, reads and compaction measured no slower.
/// Large folios buy nothing here: only 2 MiB folios get huge-page mappings,
/// and on the benchmark machine (a VM that hands freed memory back to its
/// host) each fresh 2 MiB folio costs ~2.4 ms to fault in, which made a
/// 1M-record bulk load 2.3x slower (docs/BENCH.md).
pub(crate) const STAGE_ALIGN: u64 = 64 << 10;

/// Bytes the writer has encoded but not yet written to the file: one
/// contiguous run starting at `at`.
#[derive(Default)]
struct Stage {
    at: u64,
    buf: Vec<u8>,
}

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
    /// Bytes this handle has grown the file by: growth steps double with
    /// it, not with the file's size, so one small write to a large
    /// database allocates 1 MiB, not another file's worth.
    grown: AtomicU64,
    /// Lowest offset at which the file was found cut short by another
    /// process (`u64::MAX` while it was not). Once set, writes are refused.
    cut: AtomicU64,
    /// Injected faults (tests only; always `None` otherwise).
    pub faults: Option<Arc<crate::fault::Faults>>,
    /// Encoded, unwritten bytes (file-backed logs; writer only).
    stage: Mutex<Stage>,
    /// Why this (read-only) log can no longer be followed, when its last
    /// refresh failed: reads fail with it rather than answer from an index
    /// that no longer matches the file. `stale` is the flag reads check.
    stale: AtomicBool,
    stale_reason: Mutex<Option<Error>>,
    /// The file at the path that this (read-only) log's follower last
    /// failed to open in its place, and when: it is not opened again
    /// (a key derivation each time) until it changes or a while passed.
    failed_reopen: Mutex<Option<(FileStamp, std::time::Instant, Option<Error>)>>,
    /// Sequence number of the newest sync slot this handle wrote (or
    /// claimed at open). A newer one in the header was written by another
    /// process: a second writer.
    own_seq: AtomicU64,
    /// Holes below the published end (`[start, end)`) over which every
    /// frame was found intact (zeros the log holds, made holes by a sparse
    /// copy, not bytes a cut lost), with the offset of the frame holding
    /// each one's end ([`Log::check_intact`]).
    vouched_holes: Mutex<std::collections::HashMap<(u64, u64), u64>>,
    /// End of the bytes known to be on disk (writer only): all below it
    /// were covered by an fdatasync or a write-through write that
    /// succeeded, or were there, and synced, when the file was opened or
    /// written whole by a compaction. Raised by [`Log::note_synced`] and by
    /// every sync slot this handle writes; a handle poisoned by a failed
    /// sync cuts the file back to it when it closes ([`Log::cut_unsynced`]).
    synced_end: AtomicU64,
    /// Held across an fdatasync and the noting of what it made durable, so
    /// a sync that fails and one that succeeds are never interleaved.
    sync_lock: Mutex<()>,
    /// An fdatasync of this log failed: its unsynced bytes are cut at close.
    sync_failed: AtomicBool,
    /// Offset and stored CRC of the last frame a follower (a read-only
    /// handle) applied, if any ([`Log::followed_changed`]).
    followed: Mutex<Option<(u64, u32)>>,
    /// The highest durable end a follower read in the header's sync slots:
    /// no writer cuts below it on its own ([`Log::followed_durable`]).
    followed_durable: AtomicU64,
}

/// What tells one version of a file from another without reading it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct FileStamp {
    /// Device and inode: which file.
    file: (u64, u64),
    /// Size, modification and change times: which version of it.
    version: (u64, i64, i64, i64, i64),
}

/// The stamp of `m`.
pub(crate) fn file_stamp(m: &std::fs::Metadata) -> FileStamp {
    use std::os::unix::fs::MetadataExt;
    FileStamp {
        file: (m.dev(), m.ino()),
        version: (
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        ),
    }
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
            grown: AtomicU64::new(0),
            cut: AtomicU64::new(u64::MAX),
            faults: None,
            stage: Mutex::new(Stage::default()),
            own_seq: AtomicU64::new(0),
            stale: AtomicBool::new(false),
            stale_reason: Mutex::new(None),
            failed_reopen: Mutex::new(None),
            vouched_holes: Mutex::new(std::collections::HashMap::new()),
            synced_end: AtomicU64::new(end),
            sync_lock: Mutex::new(()),
            sync_failed: AtomicBool::new(false),
            followed: Mutex::new(None),
            followed_durable: AtomicU64::new(0),
        }
    }

    /// A follower read `end` as the durable end in a sync slot.
    pub(crate) fn note_followed_durable(&self, end: u64) {
        self.followed_durable.fetch_max(end, Ordering::AcqRel);
    }

    /// The highest durable end this follower read: a file cut shorter than
    /// that lost records a writer acknowledged, while one cut no shorter
    /// lost only records no sync covered (what a writer whose fdatasync
    /// failed cuts as it closes).
    pub(crate) fn followed_durable(&self) -> u64 {
        self.followed_durable.load(Ordering::Acquire)
    }

    /// A follower applied the frames up to the one at `at`, read through
    /// `region` (which maps it, below the published end): remember its
    /// stored CRC for [`Log::followed_changed`].
    pub(crate) fn note_followed(&self, region: &Region, at: u64) {
        let crc = region
            .slice(at, at.saturating_add(4))
            .and_then(|b| crate::format::read_u32(b, 0));
        *self.followed.lock() = crc.map(|crc| (at, crc));
    }

    /// For a follower: `Some(offset)` of the last frame it applied when
    /// the file no longer holds it there (one `pread` of the frame's CRC;
    /// `None` when it does, or when it applied none). It does not when a
    /// writer whose fdatasync failed cut its unsynced records back
    /// (records a follower may have read already) and another wrote new
    /// ones over them: replaying on from the follower's end would start
    /// inside those and miss some.
    pub(crate) fn followed_changed(&self) -> Result<Option<u64>> {
        let (Some(f), Some((at, crc))) = (&self.file, *self.followed.lock()) else {
            return Ok(None);
        };
        let mut b = [0u8; 4];
        match std::os::unix::fs::FileExt::read_exact_at(&f.file, &mut b, at) {
            Ok(()) => Ok((u32::from_le_bytes(b) != crc).then_some(at)),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(Some(at)),
            Err(e) => Err(Error::io("read", Some(&f.path), e)),
        }
    }

    /// Taken around an fdatasync (or a write-through write) and the
    /// [`Log::note_synced`] that follows it, and by the check for a failure
    /// before anything is acknowledged (see `Engine::sync`).
    pub(crate) fn sync_lock(&self) -> parking_lot::MutexGuard<'_, ()> {
        self.sync_lock.lock()
    }

    /// Everything below `end` is on disk (an fdatasync covering it
    /// succeeded). Writer only.
    pub(crate) fn note_synced(&self, end: u64) {
        self.synced_end.fetch_max(end, Ordering::AcqRel);
    }

    /// For a handle poisoned by a failed fdatasync (nothing else: other
    /// failures leave the file as it is), as it closes (no write is
    /// coming): cut the file back to the end of what is known to be on
    /// disk. The kernel may have dropped the unsynced bytes while keeping
    /// their pages in its cache as if written, and it reports the error
    /// only to the process that saw it: a writer opening the file next
    /// would take them up from the cache, append behind them, and have its
    /// own syncs succeed, and once the cache is gone (a reboot) the log
    /// reads as damaged from there on, every write acknowledged since lost
    /// with it. Nothing past this end was acknowledged as durable. The
    /// caller holds the writer lock and has checked that the file is still
    /// this handle's.
    pub(crate) fn cut_unsynced(&self) -> Result<()> {
        let Some(f) = &self.file else {
            return Ok(());
        };
        if self.cut().is_some() || !self.sync_failed.load(Ordering::Acquire) {
            return Ok(());
        }
        let _s = self.sync_lock();
        let to = self
            .synced_end
            .load(Ordering::Acquire)
            .max(HEADER_SIZE as u64);
        let len = f
            .file
            .metadata()
            .map_err(|e| Error::io("stat", Some(&f.path), e))?
            .len();
        if to >= len {
            return Ok(());
        }
        // Staged bytes lie past it (a sync writes them out first): dropped.
        self.stage.lock().buf.clear();
        self.published_end.fetch_min(to, Ordering::AcqRel);
        self.truncate(to)
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

    /// Make bytes up to `end` visible to readers (followers, whose bytes are
    /// in the file already).
    pub(crate) fn publish(&self, end: u64) {
        self.published_end.store(end, Ordering::Release);
    }

    /// Write out the staged bytes, then make bytes up to `end` visible to
    /// readers. Writer only. On an error nothing new is published.
    pub(crate) fn publish_written(&self, end: u64) -> Result<()> {
        self.write_stage()?;
        self.publish(end);
        Ok(())
    }

    /// Write the staged bytes to the file (no sync).
    pub(crate) fn write_stage(&self) -> Result<()> {
        let mut st = self.stage.lock();
        self.write_stage_locked(&mut st)
    }

    fn write_stage_locked(&self, st: &mut Stage) -> Result<()> {
        if st.buf.is_empty() {
            return Ok(());
        }
        let r = self.pwrite(st.at, &st.buf);
        st.buf.clear();
        if st.buf.capacity() > 2 * STAGE_ALIGN as usize {
            st.buf = Vec::new();
        }
        r
    }

    /// Write the staged bytes below the last [`STAGE_ALIGN`] boundary they
    /// cross, keeping the rest staged (nothing if they cross none).
    fn write_stage_aligned(&self, st: &mut Stage) -> Result<()> {
        let end = st.at + st.buf.len() as u64;
        let cut = end - end % STAGE_ALIGN;
        if cut <= st.at {
            return Ok(());
        }
        let head = (cut - st.at) as usize;
        let r = self.pwrite(st.at, &st.buf[..head]);
        if r.is_err() {
            st.buf.clear();
            return r;
        }
        st.buf.drain(..head);
        st.at = cut;
        Ok(())
    }

    /// `pwrite` all of `data` at `at` on the main descriptor.
    fn pwrite(&self, at: u64, data: &[u8]) -> Result<()> {
        match &self.file {
            Some(f) => self.write_all(f, &f.file, WriteSite::Log, data, at),
            None => Ok(()),
        }
    }

    /// `pwrite` all of `data` at `at` through `fd` (one of `f`'s descriptors),
    /// subject to the faults injected at `site`.
    fn write_all(
        &self,
        f: &LogFile,
        fd: &File,
        site: WriteSite,
        data: &[u8],
        at: u64,
    ) -> Result<()> {
        let faults = self.faults.as_deref();
        crate::fault::Faults::check(faults.map(|x| &x.fail_write), libc::EIO)
            .and_then(|()| crate::fault::write_all_at(faults, site, fd, data, at))
            .map_err(|e| Error::io("write", Some(&f.path), e))
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
    ///
    /// Also fails, whatever `r` was, while the log is marked stale (a
    /// follower whose refresh failed): its index may no longer describe
    /// the file, so nothing read through it is vouched for.
    #[inline]
    pub(crate) fn vouch<T>(&self, region: &Region, r: Result<T>) -> Result<T> {
        self.vouch_cut(region, self.vouch_stale(r))
    }

    /// [`Log::vouch`] for a read of the frame at `off` of `bytes` (the
    /// published log through `region`).
    ///
    /// A file cut short inside a page raises no fault for that page: the
    /// rest of it reads as zeros, so a frame running past the cut reads with
    /// a zeroed end and no mark is set. When that can be the case (the read
    /// failed, e.g. its CRC; or the frame's last byte is zero, which with
    /// `verify_reads(false)` would otherwise pass as value bytes), look past
    /// the frame: touch the first byte of the next page (a fault marks the
    /// cut), or, when the mapping ends first, compare the file's size. One
    /// byte compare on the common path.
    #[inline]
    pub(crate) fn vouch_frame<T>(
        &self,
        region: &Region,
        bytes: &[u8],
        off: u64,
        r: Result<T>,
    ) -> Result<T> {
        let len = usize::try_from(off)
            .ok()
            .and_then(|o| bytes.get(o..))
            .and_then(crate::format::record::frame_head)
            .map(|(len, _)| len);
        self.vouch_span(region, bytes, off, len, r)
    }

    /// [`Log::vouch`] for a read that may have decoded records anywhere
    /// in the log (a sorted walk, the sort of a tail): when it failed on
    /// the record at some offset of the log, look past that record as
    /// [`Log::vouch_frame`] does, so zeros left by a cut inside a page are
    /// reported as the cut and not as the damage they look like.
    pub(crate) fn vouch_read<T>(&self, region: &Region, bytes: &[u8], r: Result<T>) -> Result<T> {
        match &r {
            // Log records' errors carry no path (a checkpoint's do).
            Err(Error::Corruption {
                path: None, offset, ..
            }) => {
                let off = *offset;
                self.vouch_span(region, bytes, off, None, r)
            }
            _ => self.vouch(region, r),
        }
    }

    /// [`Log::vouch_read`] for a read over every live record that judges
    /// some of them by their heads alone (a count of the unexpired keys,
    /// the expired keys a sweep removes, the records compaction copies).
    /// Zeros left by a cut inside a page can still decode as a head (an
    /// expiry cut short reads as an earlier moment) and make such a read
    /// succeed with a wrong answer, so one that succeeded also checks that
    /// the file still holds the whole published log ([`Log::check_intact`]:
    /// an `fstat` and an `lseek`, little next to reading every record).
    pub(crate) fn vouch_scan<T>(&self, region: &Region, bytes: &[u8], r: Result<T>) -> Result<T> {
        let r = self.vouch_read(region, bytes, r)?;
        self.check_intact()?;
        Ok(r)
    }

    /// [`Log::vouch_frame`] for a frame whose encoded length the caller
    /// read already (`None`: it does not decode).
    #[inline(always)]
    pub(crate) fn vouch_span<T>(
        &self,
        region: &Region,
        bytes: &[u8],
        off: u64,
        len: Option<usize>,
        r: Result<T>,
    ) -> Result<T> {
        let end = len.map(|len| off + len as u64);
        let suspicious = r.is_err()
            || end
                .and_then(|e| usize::try_from(e).ok())
                .and_then(|e| e.checked_sub(1))
                .and_then(|last| bytes.get(last))
                .is_none_or(|&b| b == 0);
        if suspicious {
            self.probe_past(region, end.unwrap_or(off + 1))?;
            if matches!(r, Err(Error::Corruption { path: None, .. })) {
                self.check_after_damage()?;
            }
        }
        self.vouch(region, r)
    }

    /// After a log record failed to decode and [`Log::probe_past`] found
    /// nothing: fail if the file was cut short all the same. Once the
    /// writer has appended past a cut (a staged append is a `pwrite`, which
    /// extends the file), the lost bytes read as zeros without a fault and
    /// the file's size passes; only the hole the append left below the
    /// published end tells ([`Log::check_intact`]).
    #[cold]
    fn check_after_damage(&self) -> Result<()> {
        match self.check_intact() {
            // Only a cut replaces the damage the read reported (a failed
            // `fstat` does not).
            Err(e) if self.cut().is_some() => Err(e),
            _ => Ok(()),
        }
    }

    /// Fail when the file was cut before `end` inside a page (see
    /// [`Log::vouch_frame`]).
    #[cold]
    fn probe_past(&self, region: &Region, end: u64) -> Result<()> {
        let Some(f) = &self.file else {
            return Ok(());
        };
        let next = end.next_multiple_of(PAGE);
        // Only inside the published log: past it the mapping may outgrow
        // the file without a cut (a follower's, mapped while the writer
        // had room reserved ahead of its log, which it trims at close).
        if next < region.len() as u64 && next < self.published_end() {
            region.touch(next);
            return Ok(());
        }
        let len = f
            .file
            .metadata()
            .map_err(|e| Error::io("stat", Some(&f.path), e))?
            .len();
        if len < end {
            return Err(self.cut_found(len));
        }
        Ok(())
    }

    /// [`Log::vouch`] without the stale check (a follower's own refresh,
    /// which is what clears it).
    #[inline]
    pub(crate) fn vouch_cut<T>(&self, region: &Region, r: Result<T>) -> Result<T> {
        match region.cut_at() {
            None => r,
            Some(at) => Err(self.cut_found(at)),
        }
    }

    /// `Err` while the log is marked stale (reads that touch no record).
    #[inline]
    pub(crate) fn fresh(&self) -> Result<()> {
        self.vouch_stale(Ok(()))
    }

    #[inline]
    fn vouch_stale<T>(&self, r: Result<T>) -> Result<T> {
        if self.stale.load(Ordering::Relaxed) {
            return Err(self.stale_error());
        }
        r
    }

    /// Mark the log stale (`Some`: the refresh error) or fresh again (`None`).
    pub(crate) fn set_stale(&self, reason: Option<&Error>) {
        let stale = reason.is_some();
        *self.stale_reason.lock() = reason.map(Error::copied_lossy);
        self.stale.store(stale, Ordering::Release);
    }

    /// `Some` when the file stamped `now` failed to open in this log's
    /// place less than `retry` ago and has not changed since: with a copy
    /// of that error when it can be copied.
    pub(crate) fn reopen_failed_recently(
        &self,
        now: FileStamp,
        retry: std::time::Duration,
    ) -> Option<Option<Error>> {
        match &*self.failed_reopen.lock() {
            Some((stamp, at, e)) if at.elapsed() < retry => {
                // A secret that does not fit stays so while the file is
                // the same one, however much its writer appends (its
                // identity block is written once); other failures may
                // pass when the file changes.
                let keyed = matches!(
                    e,
                    Some(
                        Error::EncryptionKeyMismatch { .. }
                            | Error::EncryptionRequired { .. }
                            | Error::NotEncrypted { .. }
                    )
                );
                let same = match keyed {
                    true => stamp.file == now.file,
                    false => *stamp == now,
                };
                same.then(|| e.as_ref().and_then(Error::copied))
            }
            _ => None,
        }
    }

    /// Forget a failed reopen (a refresh succeeded since).
    pub(crate) fn clear_failed_reopen(&self) {
        *self.failed_reopen.lock() = None;
    }

    /// Note that the file stamped `stamp` failed to open in this log's
    /// place with `e`.
    pub(crate) fn note_failed_reopen(&self, stamp: FileStamp, e: &Error) {
        *self.failed_reopen.lock() = Some((stamp, std::time::Instant::now(), e.copied()));
    }

    #[cold]
    fn stale_error(&self) -> Error {
        let cause = match &*self.stale_reason.lock() {
            Some(e) => e.copied_lossy(),
            // A refresh that succeeded since this read saw the flag.
            None => Error::io(
                "follow the writer",
                self.path(),
                std::io::Error::other("the file changed under this read; read again"),
            ),
        };
        Error::Stale {
            path: self.path().map(Path::to_path_buf),
            cause: Box::new(cause),
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
        let end = self.published_end();
        self.check_len(f, end)?;
        // Appends are `pwrite`s, which extend a file cut short instead of
        // failing: the lost bytes then read as a hole, plus zeros in the
        // blocks around it (from the cut to the hole's start, and from the
        // data block the append starts to where it writes). Below the
        // published end every byte was written, so a hole there is either
        // such a loss or zeros the log holds (a value's, in a sparse copy
        // of the file): the frames around it tell which.
        let mut holes = Vec::new();
        let mut at = 0;
        while let Some(hole) = seek(&f.file, at, libc::SEEK_HOLE).filter(|&h| h < end) {
            let data = seek(&f.file, hole, libc::SEEK_DATA).unwrap_or(end).min(end);
            if data <= hole {
                break;
            }
            // The header is never zeros.
            if hole < HEADER_SIZE as u64 {
                return Err(self.cut_found(hole));
            }
            holes.push((hole, data));
            at = data;
        }
        if holes.is_empty() {
            return Ok(());
        }
        let block = f.file.metadata().map_or(PAGE, |m| {
            std::os::unix::fs::MetadataExt::blksize(&m).max(PAGE)
        });
        let mut vouched = self.vouched_holes.lock();
        let mut new = Vec::new();
        for &(hole, data) in &holes {
            match vouched.get(&(hole, data)) {
                // Known: only the block the data after it starts with can
                // have changed since (a cut inside the hole, re-extended
                // by an append there, leaves the same hole).
                Some(&anchor) => {
                    let after = [(data, data.saturating_add(block))];
                    if self.frames_intact(anchor, &after, &[]).is_none() {
                        return Err(self.cut_found(hole));
                    }
                }
                None => new.push((hole, data)),
            }
        }
        if let Some(&(first, _)) = new.first() {
            let windows: Vec<(u64, u64)> = new
                .iter()
                .map(|&(h, d)| (h.saturating_sub(block), d.saturating_add(block)))
                .collect();
            let Some(anchors) = self.frames_intact(HEADER_SIZE as u64, &windows, &new) else {
                return Err(self.cut_found(first));
            };
            vouched.extend(new.into_iter().zip(anchors));
        }
        Ok(())
    }

    /// When every frame from `start` (a frame's start) with bytes in one
    /// of `windows` (`[from, to)` ranges below the published end,
    /// ascending) decodes with its CRC: the offset of the frame holding the
    /// end of each of `holes` (ascending; where a later check of the block
    /// after it starts). One walk of the frames' lengths, checking those
    /// that overlap. A cut re-extended by an append leaves zeros there,
    /// which no frame decodes from.
    #[cold]
    fn frames_intact(
        &self,
        start: u64,
        windows: &[(u64, u64)],
        holes: &[(u64, u64)],
    ) -> Option<Vec<u64>> {
        let region = self.region();
        let end = self.published_end();
        let bytes = region.slice(0, end)?;
        let mut anchors = Vec::with_capacity(holes.len());
        let mut ends = holes.iter().map(|&(_, d)| d).peekable();
        let mut windows = windows.iter().copied().peekable();
        let mut at = start;
        while at < end {
            // Windows behind: past the last, every hole's end is behind too.
            while windows.peek().is_some_and(|&(_, to)| to <= at) {
                windows.next();
            }
            let Some(&(from, _)) = windows.peek() else {
                break;
            };
            let next = next_frame(bytes, at, from)?;
            while ends.peek().is_some_and(|&d| d < next) {
                ends.next();
                anchors.push(at);
            }
            at = next;
        }
        // Holes running to the end have no frame after them.
        anchors.extend(ends.map(|_| end));
        region.cut_at().is_none().then_some(anchors)
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
        let step = self
            .grown
            .load(Ordering::Relaxed)
            .clamp(MIN_GROWTH, MAX_GROWTH);
        let mut new_cap = needed_end
            .max(cap + step)
            .next_multiple_of(MIN_GROWTH)
            .min(MAX_LOG_SIZE);
        if let Some(f) = &self.file {
            // Growing a file someone cut short would turn the lost bytes
            // into a hole of zeros that later writes never touch.
            self.check_len(f, cap)?;
            let grow = |to: u64| {
                crate::fault::Faults::check(
                    self.faults.as_ref().map(|x| &x.fail_grow),
                    libc::ENOSPC,
                )
                .and_then(|()| allocate(&f.file, cap, to))
            };
            // A whole step, or on a nearly full disk just the room this
            // write needs (a step can be 256 MiB: without this, a disk with
            // less free space than that would refuse every write).
            let just = needed_end.next_multiple_of(PAGE).min(new_cap);
            match grow(new_cap) {
                Ok(()) => {}
                // EFBIG: the process's file size limit (`ulimit -f`).
                Err(e)
                    if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EFBIG))
                        && just < new_cap =>
                {
                    grow(just).map_err(|e| Error::io("grow", Some(&f.path), e))?;
                    new_cap = just;
                }
                Err(e) => return Err(Error::io("grow", Some(&f.path), e)),
            }
        }
        let new_len = usize::try_from(new_cap).map_err(|_| Error::DatabaseFull {
            requested: new_cap,
            max: MAX_LOG_SIZE,
        })?;
        if let Some(at) = self.cut() {
            return Err(self.cut_found(at));
        }
        let region = match &self.file {
            Some(f) => Region::map_file(&f.file, new_len)
                .map_err(|e| Error::io("mmap", Some(&f.path), e))?,
            None => {
                let r = Region::anon(new_len);
                let old = self.region.load();
                r.copy_prefix_from(&old, used.min(cap) as usize);
                r
            }
        };
        self.region.store(Arc::new(region));
        self.capacity.store(new_cap, Ordering::Relaxed);
        self.grown.fetch_add(new_cap - cap, Ordering::Relaxed);
        Ok(())
    }

    /// Encode `len` bytes at `at` through `fill`. Writer only; `at` is at or
    /// past the published end and capacity was ensured. File-backed logs
    /// stage the bytes (see the module docs); they reach the file by
    /// [`Log::publish_written`], [`Log::write_stage`] or [`Log::sync_data`].
    pub(crate) fn fill(
        &self,
        at: u64,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> Result<()>,
    ) -> Result<()> {
        if let Some(cut) = self.cut() {
            return Err(self.cut_found(cut));
        }
        if self.file.is_none() {
            // In memory: nothing to stage.
            return self.fill_mapped(at, len, fill);
        }
        let in_bounds = at
            .checked_add(len as u64)
            .is_some_and(|end| end <= self.capacity());
        if len >= STAGE_LIMIT || !in_bounds {
            self.write_stage()?;
            return self.fill_mapped(at, len, fill);
        }
        let mut st = self.stage.lock();
        if !st.buf.is_empty() && st.at + st.buf.len() as u64 != at {
            self.write_stage_locked(&mut st)?;
        }
        if st.buf.is_empty() {
            st.at = at;
        }
        let old = st.buf.len();
        st.buf.resize(old + len, 0);
        if let Err(e) = fill(&mut st.buf[old..]) {
            st.buf.truncate(old);
            return Err(e);
        }
        self.write_stage_aligned(&mut st)
    }

    /// Encode straight into the mapping.
    fn fill_mapped(
        &self,
        at: u64,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> Result<()>,
    ) -> Result<()> {
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
        let Some(f) = &self.file else {
            return self.fill(at, data.len(), |d| {
                d.copy_from_slice(data);
                Ok(())
            });
        };
        self.write_stage()?;
        // pwrite past a cut would extend the file over a hole of zeros.
        if let Some(cut) = self.cut() {
            return Err(self.cut_found(cut));
        }
        self.check_len(f, at + data.len() as u64)?;
        let fd = f.dsync.as_ref().unwrap_or(&f.file);
        self.write_all(f, fd, WriteSite::WriteThrough, data, at)
    }

    /// Overwrite `[at, at + len)` with zeros the way [`Log::write_through`]
    /// writes (after a failed write-through write, whose bytes may have
    /// landed in part). Writer only; nothing there is published.
    pub(crate) fn wipe_through(&self, at: u64, len: usize) -> Result<()> {
        match &self.file {
            Some(f) => {
                let fd = f.dsync.as_ref().unwrap_or(&f.file);
                let zeros = vec![0u8; len];
                crate::fault::write_all_at(
                    self.faults.as_deref(),
                    WriteSite::WriteThrough,
                    fd,
                    &zeros,
                    at,
                )
                .map_err(|e| Error::io("write", Some(&f.path), e))
            }
            None => self.zero(at, at + len as u64),
        }
    }

    /// Zero `[from, to)` (discarding an aborted batch). Writer only.
    pub(crate) fn zero(&self, from: u64, to: u64) -> Result<()> {
        if to <= from {
            return Ok(());
        }
        {
            // Staged bytes of the range are dropped rather than written.
            let mut st = self.stage.lock();
            if !st.buf.is_empty() && st.at >= from {
                st.buf.clear();
            }
            self.write_stage_locked(&mut st)?;
        }
        let len = usize::try_from(to - from).map_err(|_| Error::corruption(from, "zero range"))?;
        self.fill(from, len, |d| {
            d.fill(0);
            Ok(())
        })
    }

    /// Write out staged bytes and fdatasync the file (no-op in memory). A
    /// failed fdatasync is remembered ([`Log::cut_unsynced`]).
    pub(crate) fn sync_data(&self) -> Result<()> {
        self.write_stage()?;
        match &self.file {
            Some(f) => {
                crate::fault::Faults::check(self.faults.as_ref().map(|x| &x.fail_sync), libc::EIO)
                    .and_then(|()| f.file.sync_data())
                    .map_err(|e| {
                        self.sync_failed.store(true, Ordering::Release);
                        Error::io("fdatasync", Some(&f.path), e)
                    })?;
                crate::fault::note(self.faults.as_deref(), || {
                    crate::fault::FsEvent::Synced(f.path.clone())
                });
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// fsync the whole file (data and metadata; no-op in memory).
    pub(crate) fn sync_all_file(&self) -> std::io::Result<()> {
        match &self.file {
            Some(f) => f.file.sync_all(),
            None => Ok(()),
        }
    }

    /// Record a sync slot in the header page (made durable by the next sync).
    /// Written with `pwrite` in a file, so only its block becomes dirty.
    pub(crate) fn write_slot(&self, slot: SyncSlot) -> Result<()> {
        // Before the write: a concurrent [`Log::foreign_slot`] must never
        // take this handle's own slot for another writer's.
        self.own_seq.fetch_max(slot.seq, Ordering::AcqRel);
        // A slot names an end that was synced before it was written.
        self.note_synced(slot.durable_end);
        let bytes: [u8; SYNC_SLOT_LEN] = slot.encode();
        let at = SyncSlot::offset(slot.seq) as u64;
        if self.file.is_some() {
            self.pwrite(at, &bytes)
        } else {
            self.region.load().write(at, &bytes);
            Ok(())
        }
    }

    /// Note that the newest sync slot in the file, `seq`, is this handle's
    /// (the one a writable open wrote to claim the file).
    pub(crate) fn claim_seq(&self, seq: u64) {
        self.own_seq.fetch_max(seq, Ordering::AcqRel);
    }

    /// The newest sync slot in the header when another process wrote it
    /// (its sequence number is past every slot this handle wrote): another
    /// writer has the file. Read through the mapping, which shares the page
    /// cache with every other process's writes: no syscall, a few
    /// nanoseconds, so every write can afford it.
    pub(crate) fn foreign_slot(&self) -> Option<SyncSlot> {
        self.file.as_ref()?;
        let region = self.region.load();
        let newest = SyncSlot::newest(region.slice(0, HEADER_SIZE as u64)?);
        (newest.seq > self.own_seq.load(Ordering::Acquire)).then_some(newest)
    }

    /// Cut the file back to `len` bytes (clean close, torn-tail removal). Writer only,
    /// with nothing published past `len`.
    pub(crate) fn truncate(&self, len: u64) -> Result<()> {
        let Some(f) = &self.file else {
            return Ok(());
        };
        self.write_stage()?;
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

/// The end of the frame at `at` of `bytes` (a log from offset 0), checking
/// its CRC when it ends past `from`; `None` when it does not decode.
fn next_frame(bytes: &[u8], at: u64, from: u64) -> Option<u64> {
    let buf = bytes.get(usize::try_from(at).ok()?..)?;
    let len = crate::format::record::frame_len(buf).filter(|&l| l > 0)?;
    let next = at.saturating_add(len as u64);
    if next > from && crate::format::record::decode(buf).is_err() {
        return None;
    }
    Some(next)
}

/// Where a reader of another process's log should stop replaying for now:
/// the end of the data written so far (the first hole from `durable_end`
/// on, `SEEK_HOLE`: the writer's room allocated ahead reads as a hole until
/// written), never below `durable_end` (synced bytes are written; holes
/// before it are zeros the log holds, in a sparse copy) and never past the
/// file's `size`. Without it a reader replays up to the file's size, and a writer
/// appending faster than the reader replays keeps it chasing the new
/// records: a one-shot open would replay far more than the tail it found,
/// or never finish.
pub(crate) fn written_end(file: &File, size: u64, durable_end: u64) -> u64 {
    seek(file, durable_end, libc::SEEK_HOLE).map_or(size, |hole| hole.max(durable_end).min(size))
}

/// Extend `file` from `from` to `to` bytes with allocated, zeroed blocks, so a
/// full disk surfaces here as an error rather than as SIGBUS on a mapped write.
pub(crate) fn allocate(file: &File, from: u64, to: u64) -> std::io::Result<()> {
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

/// True when `file` holds `[from, to)` and it is only zeros, as a preallocated
/// spare past a log's end does. The partial page at `from` is read; past
/// it, the file system is asked where data starts (`SEEK_DATA`: ranges
/// allocated but never written are not data), so a clean spare is not read
/// at all, and whatever it reports as data is read and checked.
///
/// The bytes are read with `pread`, not through a mapping, and once found
/// to be zeros the whole pages are dropped from the page cache: a zero page
/// read into the cache counts as data to `SEEK_DATA`, so without that one
/// check would make every later writer's open read the spare again (up to
/// 2 MiB, half the time of a one-shot `emdb put`).
pub(crate) fn zeros_between(file: &File, from: u64, to: u64) -> bool {
    use std::os::fd::AsRawFd;
    let page_end = from.next_multiple_of(4096).min(to);
    if !read_zeros(file, from, page_end) {
        return false;
    }
    if page_end >= to {
        return true;
    }
    let Ok(start) = libc::off_t::try_from(page_end) else {
        return false;
    };
    // Read only what the file system reports as data (pages read ahead into
    // the cache past the log's end count as data too), one run at a time.
    let mut at = page_end;
    while at < to {
        let Some(data) = seek(file, at, libc::SEEK_DATA) else {
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::ENXIO) {
                break;
            }
            if !read_zeros(file, at, to) {
                return false;
            }
            break;
        };
        if data >= to {
            break;
        }
        let run_end = seek(file, data, libc::SEEK_HOLE).map_or(to, |h| h.clamp(data + 1, to));
        if !read_zeros(file, data.max(at), run_end) {
            return false;
        }
        at = run_end;
    }
    // Past its end a file reads as no data: a file cut short is no spare.
    if file.metadata().map_or(true, |m| m.len() < to) {
        return false;
    }
    let len = libc::off_t::try_from(to - page_end).unwrap_or(0);
    // SAFETY: posix_fadvise only reads its integer arguments; dropping
    // clean cached pages changes no byte of the file (pages that are
    // dirty or mapped somewhere are left alone by the kernel).
    unsafe { libc::posix_fadvise(file.as_raw_fd(), start, len, libc::POSIX_FADV_DONTNEED) };
    true
}

/// `lseek(file, at, whence)`: the offset it lands on, or `None` when it
/// fails (`errno` says why).
fn seek(file: &File, at: u64, whence: libc::c_int) -> Option<u64> {
    use std::os::fd::AsRawFd;
    let at = libc::off_t::try_from(at).ok()?;
    // SAFETY: lseek only reads its integer arguments and moves the offset of
    // a descriptor this `File` owns (the log is read and written with
    // positioned calls, which ignore that offset).
    let to = unsafe { libc::lseek(file.as_raw_fd(), at, whence) };
    u64::try_from(to).ok()
}

/// True when `file` holds `[from, to)` and every byte of it is zero.
fn read_zeros(file: &File, from: u64, to: u64) -> bool {
    use std::os::unix::fs::FileExt;
    const CHUNK: usize = 64 << 10;
    let mut buf = vec![0u8; CHUNK.min(usize::try_from(to.saturating_sub(from)).unwrap_or(CHUNK))];
    let mut at = from;
    while at < to {
        let n = usize::try_from(to - at).map_or(buf.len(), |left| left.min(buf.len()));
        let Some(chunk) = buf.get_mut(..n) else {
            return false;
        };
        if file.read_exact_at(chunk, at).is_err() {
            return false;
        }
        // OR-folding fixed blocks vectorizes; an early-exit byte loop
        // does not.
        if !chunk
            .chunks(64)
            .all(|c| c.iter().fold(0u8, |a, &b| a | b) == 0)
        {
            return false;
        }
        at += n as u64;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offset of the first hole of `file` (its size when it has none).
    fn first_hole(file: &File) -> Option<u64> {
        seek(file, 0, libc::SEEK_HOLE)
    }

    /// A new empty file `name` in `dir`, open for reading and writing.
    fn scratch_file(dir: &tempfile::TempDir, name: &str) -> File {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(dir.path().join(name))
            .unwrap()
    }

    #[test]
    fn written_end_stops_at_the_room_allocated_ahead_never_below_the_durable_end() {
        use std::os::unix::fs::FileExt;
        let dir = tempfile::tempdir().unwrap();
        let f = scratch_file(&dir, "ahead");
        let size = 4 << 20;
        allocate(&f, 0, size).unwrap();
        f.write_all_at(&[7u8; 10_000], 0).unwrap();
        let end = written_end(&f, size, 0);
        // Everything written is before it; on a file system that reports
        // allocated-but-unwritten room as a hole (ext4, xfs) it stops at the
        // page after the data, elsewhere at the file's size.
        assert!((10_000..=size).contains(&end), "{end}");
        if first_hole(&f).is_some_and(|h| h < size) {
            assert_eq!(end, 12_288);
        }
        // Never below what the writer said is durable, never past the size.
        let durable = 2 << 20;
        assert!((durable..=size).contains(&written_end(&f, size, durable)));
        assert_eq!(written_end(&f, 8192, 0), 8192);
        // A hole below the durable end (zeros made a hole by a sparse copy)
        // does not stop it: the written bytes past it count.
        if first_hole(&f).is_some_and(|h| h < size) {
            f.write_all_at(&[7u8; 4096], 1 << 20).unwrap();
            assert_eq!(written_end(&f, size, (1 << 20) + 100), (1 << 20) + 4096);
        }
    }

    #[test]
    fn zeros_between_sees_written_bytes_and_preallocated_zeros() {
        let dir = tempfile::tempdir().unwrap();
        let f = scratch_file(&dir, "spare");
        // Allocated but never written, as a log's growth leaves it.
        allocate(&f, 0, 3 << 20).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&f, b"frame", 100).unwrap();
        assert!(zeros_between(&f, 105, 3 << 20));
        assert!(!zeros_between(&f, 104, 3 << 20));
        // A stray byte far past the first page is found too.
        std::os::unix::fs::FileExt::write_all_at(&f, b"x", (2 << 20) + 7).unwrap();
        assert!(!zeros_between(&f, 105, 3 << 20));
        assert!(zeros_between(&f, 105, 2 << 20));
        assert!(zeros_between(&f, (2 << 20) + 8, 3 << 20));
        // Read once and found zero, a spare is not read again: its pages
        // left the cache, so the file system reports no data there.
        assert!(zeros_between(&f, (2 << 20) + 8, 3 << 20));
        // SAFETY: lseek on a descriptor this test owns.
        let data = unsafe {
            libc::lseek(
                std::os::fd::AsRawFd::as_raw_fd(&f),
                (2 << 20) + 4096,
                libc::SEEK_DATA,
            )
        };
        assert!(
            !(0..3 << 20).contains(&data),
            "spare still reported as data at {data}"
        );
        // A file cut short is not a spare of zeros.
        assert!(!zeros_between(&f, (2 << 20) + 8, 4 << 20));
    }
}
