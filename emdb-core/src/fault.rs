//! Injected I/O faults, for tests of the error paths (feature
//! `fault-injection` exposes them on the builder; without it they are never
//! set), and a report of the operations that make files durable, from which
//! power-loss tests rebuild the states a crash could leave.

// Without the feature nothing can arm a fault or set an observer.
#![cfg_attr(not(feature = "fault-injection"), allow(dead_code))]

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

/// Faults to inject into a database's I/O. Set a flag and the next
/// matching operation fails like the real system call would.
#[derive(Default)]
pub struct Faults {
    /// fdatasync / fsync of the log (or of compaction's new log) fails with EIO.
    pub fail_sync: AtomicBool,
    /// Growing the log fails with ENOSPC (a full disk).
    pub fail_grow: AtomicBool,
    /// A write of the log (staged appends, sync slots, write-through writes)
    /// fails with EIO after writing nothing.
    pub fail_write: AtomicBool,
    /// fsync of a directory (after a create, rename or link) fails with EIO.
    pub fail_dir_sync: AtomicBool,
    /// Opening the extra `O_DSYNC` descriptor that `FlushPolicy::WriteThrough`
    /// writes through fails with EMFILE (out of descriptors).
    pub fail_open: AtomicBool,
    short_writes: Mutex<Vec<(WriteSite, ShortWrite)>>,
    observer: Mutex<Option<Observer>>,
}

type Observer = Box<dyn FnMut(&FsEvent) + Send>;

impl fmt::Debug for Faults {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Faults")
            .field("fail_sync", &self.fail_sync)
            .field("fail_grow", &self.fail_grow)
            .field("fail_write", &self.fail_write)
            .field("fail_dir_sync", &self.fail_dir_sync)
            .field("fail_open", &self.fail_open)
            .field("short_writes", &*self.short_writes.lock())
            .field("observed", &self.observer.lock().is_some())
            .finish()
    }
}

/// A place where the engine writes a file with `pwrite`/`write`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriteSite {
    /// The writer's appends (staged frames written with `pwrite` on the
    /// log's main descriptor) and its sync slots.
    Log,
    /// A write-through append (`pwrite` on the log's `O_DSYNC` descriptor),
    /// or the zeros that wipe a failed one.
    WriteThrough,
    /// The header page of a new database file (also of the temp file an
    /// encryption change writes).
    Header,
    /// The temp file a checkpoint is written to before its rename.
    Checkpoint,
    /// The holder record in the lock file.
    LockFile,
    /// The temp file of `backup_to`.
    Backup,
}

/// How an armed write fault behaves (see [`Faults::short_write`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShortWrite {
    /// `written` bytes land (a short count is returned), then the next
    /// `pwrite` fails with `errno`: what a disk filling up mid-write does.
    Fail {
        /// Bytes that land before the failure.
        written: usize,
        /// The error of the failing call (`libc::ENOSPC`, `libc::EIO`, ...).
        errno: i32,
    },
    /// `written` bytes land, then `pwrite` returns 0 without an error.
    Zero {
        /// Bytes that land first.
        written: usize,
    },
    /// Every `pwrite` writes at most `chunk` bytes and returns that count:
    /// legal, and the write must still complete.
    Chunked {
        /// Largest count one call writes.
        chunk: usize,
    },
}

/// An operation that changes what survives a power cut, reported to the
/// observer (see [`Faults::observe`]) right after it succeeded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FsEvent {
    /// fsync / fdatasync of a file: its content as of now is durable.
    Synced(PathBuf),
    /// fsync of a directory: every name change in it so far is durable.
    DirSynced(PathBuf),
    /// A rename (durable once the directory is synced).
    Renamed {
        /// Old name.
        from: PathBuf,
        /// New name.
        to: PathBuf,
    },
    /// A hard link (durable once the directory is synced).
    Linked {
        /// Existing name.
        from: PathBuf,
        /// New name.
        to: PathBuf,
    },
    /// A name removed on purpose (durable once the directory is synced).
    Removed(PathBuf),
}

impl Faults {
    pub(crate) fn check(flag: Option<&AtomicBool>, errno: i32) -> std::io::Result<()> {
        match flag {
            Some(f) if f.load(Ordering::SeqCst) => Err(std::io::Error::from_raw_os_error(errno)),
            _ => Ok(()),
        }
    }

    /// Arm a fault for the next write at `site` (one write each; several
    /// armed faults apply to successive writes in order).
    pub fn short_write(&self, site: WriteSite, how: ShortWrite) {
        self.short_writes.lock().push((site, how));
    }

    /// Faults still armed (not yet consumed by a write).
    pub fn armed_short_writes(&self) -> usize {
        self.short_writes.lock().len()
    }

    /// Call `f` after every operation that changes what survives a power
    /// cut (fsyncs, renames, links, removals), on the thread that made it.
    pub fn observe(&self, f: impl FnMut(&FsEvent) + Send + 'static) {
        *self.observer.lock() = Some(Box::new(f));
    }

    /// Stop calling the observer.
    pub fn stop_observing(&self) {
        *self.observer.lock() = None;
    }

    fn take_short_write(&self, site: WriteSite) -> Option<ShortWrite> {
        let mut armed = self.short_writes.lock();
        let i = armed.iter().position(|(s, _)| *s == site)?;
        Some(armed.remove(i).1)
    }
}

/// Report `event` to the observer, if there is one.
pub(crate) fn note(faults: Option<&Faults>, event: impl FnOnce() -> FsEvent) {
    if let Some(f) = faults {
        if let Some(obs) = f.observer.lock().as_mut() {
            obs(&event());
        }
    }
}

/// `pwrite` all of `buf` at `at`, retrying short counts; an armed
/// [`ShortWrite`] for `site` shapes the calls.
pub(crate) fn write_all_at(
    faults: Option<&Faults>,
    site: WriteSite,
    file: &std::fs::File,
    mut buf: &[u8],
    mut at: u64,
) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let plan = faults.and_then(|f| f.take_short_write(site));
    let mut written = 0usize;
    while !buf.is_empty() {
        let r = match plan {
            None => file.write_at(buf, at),
            Some(ShortWrite::Chunked { chunk }) => {
                file.write_at(&buf[..buf.len().min(chunk.max(1))], at)
            }
            Some(ShortWrite::Fail {
                written: limit,
                errno,
            }) if written >= limit => Err(std::io::Error::from_raw_os_error(errno)),
            Some(ShortWrite::Zero { written: limit }) if written >= limit => Ok(0),
            Some(ShortWrite::Fail { written: limit, .. } | ShortWrite::Zero { written: limit }) => {
                file.write_at(&buf[..buf.len().min(limit - written)], at)
            }
        };
        match r {
            Ok(0) => return Err(std::io::Error::from(std::io::ErrorKind::WriteZero)),
            Ok(n) => {
                buf = &buf[n..];
                at += n as u64;
                written += n;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Remove `path` when it exists, reporting the removal.
pub(crate) fn remove(faults: Option<&Faults>, path: &Path) {
    if std::fs::remove_file(path).is_ok() {
        note(faults, || FsEvent::Removed(path.to_path_buf()));
    }
}
