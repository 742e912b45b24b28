//! The single-writer lock on `<db>.lock`.
//!
//! The writer takes two advisory locks on the lock file: a `flock` (what
//! older versions take, so they and this one exclude each other) and an
//! open-file-description (OFD) record lock over the whole file. The OS drops
//! both when the holder exits, even by SIGKILL, so a dead holder never
//! blocks the next open. Whether the lock is held is asked with
//! `F_OFD_GETLK`, which tests without taking anything: no parsing of
//! `/proc/locks` (whose device numbers do not match `stat` on btrfs), and no
//! probe that could make a writer starting at that instant fail.
//!
//! The lock file's name can be removed (`emdb lock break`, or by hand), so
//! a lock is only a lock while the name still refers to the locked file:
//! [`WriterLock::acquire`] checks that after locking (and starts over when a
//! breaker removed the name meanwhile), [`break_lock`] removes the name only
//! while it holds the lock itself, and the engine checks
//! [`WriterLock::still_held`] before it acknowledges anything.
//!
//! The lock file records the holder's pid, process start time and host, so a
//! busy error can name the holder.

#![allow(unsafe_code)]

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::fault::{write_all_at, Faults, WriteSite};
use crate::fs::{file_id, file_id_at, open_lock_file, open_nofollow, sibling};

/// Who holds (or last held) a database's writer lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockHolder {
    /// Process id recorded in the lock file.
    pub pid: u32,
    /// The process's start time (clock ticks since boot, from `/proc`), used
    /// to tell a reused pid apart.
    pub start_time: Option<u64>,
    /// Host name recorded in the lock file.
    pub hostname: Option<String>,
    /// True when the lock is held right now.
    pub alive: bool,
}

impl LockHolder {
    /// True when the holder is this process, on this host, and holds the
    /// lock now: another handle of this process.
    pub fn is_this_process(&self) -> bool {
        self.alive
            && self.pid == std::process::id()
            && self
                .hostname
                .as_deref()
                .is_none_or(|h| hostname().as_deref() == Some(h))
    }
}

/// Path of the lock file for a database path.
pub(crate) fn lock_path(db: &Path) -> PathBuf {
    sibling(db, ".lock")
}

/// How many times [`WriterLock::acquire`] starts over when the lock file it
/// locked was removed from its name meanwhile (each retry means a breaker
/// ran in between). After the first few, each waits a little longer
/// ([`relock_pause`]), so a breaker in a tight loop cannot keep hitting
/// the same window: 256 attempts span at most about 0.25 s. (64, about
/// 0.13 s, still lost every attempt now and then on a loaded two-core
/// machine: `writers.rs`, a breaker in a loop beside three writers.)
const RELOCK_ATTEMPTS: usize = 256;

/// The pause before relock attempt `attempt`: none for the first four,
/// then 4 to 64 µs more per attempt, at most 1 ms, varied by the clock
/// so two processes in step fall out of it.
fn relock_pause(attempt: usize) -> std::time::Duration {
    if attempt < 4 {
        return std::time::Duration::ZERO;
    }
    let jitter = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::from(d.subsec_nanos()) % 16);
    std::time::Duration::from_micros((attempt as u64 * 4 * (1 + jitter)).min(1000))
}

/// Length the lock record is padded to (with newlines).
const LOCK_RECORD_LEN: usize = 128;

/// A held writer lock; released when dropped (the OS releases it on exit too).
#[derive(Debug)]
pub(crate) struct WriterLock {
    _file: File,
    path: PathBuf,
    id: (u64, u64),
}

impl WriterLock {
    /// Take the writer lock for `db`, or fail with `LockBusy` naming the holder.
    pub(crate) fn acquire(db: &Path, faults: Option<&Faults>) -> Result<WriterLock> {
        let path = lock_path(db);
        for attempt in 0..RELOCK_ATTEMPTS {
            std::thread::sleep(relock_pause(attempt));
            let file = open_lock_file(&path)?;
            if !take(&file, &path)? {
                return Err(Error::LockBusy {
                    path: db.to_path_buf(),
                    holder: read_holder(&path).map(|mut h| {
                        h.alive = true;
                        h
                    }),
                });
            }
            // Locked, but a lock on a file no longer at the name excludes
            // nobody: the next writer creates a new one. Start over.
            let id = file_id(&file, &path)?;
            if file_id_at(&path)? != Some(id) {
                continue;
            }
            let me = std::process::id();
            let mut record = format!(
                "emdb-lock 1\npid={me}\nstart={}\nhost={}\n",
                process_start_time(me).unwrap_or(0),
                hostname().unwrap_or_default()
            );
            // Padded with newlines to a fixed length, so the record is
            // written over the last one in place: cutting the file to zero
            // first would free and reallocate its block on every open.
            let padded = record.len().max(LOCK_RECORD_LEN);
            record.extend(std::iter::repeat_n('\n', padded - record.len()));
            write_all_at(faults, WriteSite::LockFile, &file, record.as_bytes(), 0)
                .and_then(|()| match file.metadata()?.len() {
                    n if n == record.len() as u64 => Ok(()),
                    _ => file.set_len(record.len() as u64),
                })
                .map_err(|e| Error::io("write lock file", Some(&path), e))?;
            return Ok(WriterLock {
                _file: file,
                path,
                id,
            });
        }
        Err(Error::io(
            "lock",
            Some(&path),
            std::io::Error::other("the lock file kept being removed while it was being locked"),
        ))
    }

    /// `Err(reason)` when the lock file this handle locked is no longer the
    /// one at its name (removed or replaced): another writer can then take
    /// the lock and write at the same time.
    pub(crate) fn still_held(&self) -> std::result::Result<(), String> {
        match file_id_at(&self.path) {
            Ok(Some(id)) if id == self.id => Ok(()),
            Ok(_) => Err(format!(
                "the lock file {} this handle holds was removed or replaced \
                 (emdb lock break --force?), so another writer may be writing",
                self.path.display()
            )),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// How long to wait for a lock that no writer seems to hold.
const SETTLE_WAIT: Duration = Duration::from_millis(200);

/// Try to lock `file`; false when someone else holds it.
///
/// When the lock is busy but the lock file names this process or a
/// process that is not running, the holder is most likely no writer: a
/// child process between its fork and exec still holding a copy of this
/// process's released descriptor (exec closes it), `lock break` holding
/// the lock for the instant it takes to check and remove it, or a writer
/// that has not written its record yet. Wait a little for those rather
/// than report a holder that is not one.
fn take(file: &File, path: &Path) -> Result<bool> {
    let deadline = Instant::now() + SETTLE_WAIT;
    let mut settling = None;
    loop {
        if try_lock(file, path)? {
            return Ok(true);
        }
        let wait = *settling.get_or_insert_with(|| {
            read_holder(path)
                .is_none_or(|h| h.pid == std::process::id() || !pid_alive(h.pid, h.start_time))
        });
        if !wait || Instant::now() >= deadline {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Take both locks without waiting; false when either is held elsewhere.
fn try_lock(file: &File, path: &Path) -> Result<bool> {
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(false),
        Err(std::fs::TryLockError::Error(e)) => return Err(Error::io("lock", Some(path), e)),
    }
    match ofd_lock(file, libc::F_OFD_SETLK, libc::F_WRLCK as libc::c_short) {
        Ok(_) => Ok(true),
        Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::EACCES)) => {
            let _ = file.unlock();
            Ok(false)
        }
        // No OFD locks here (not Linux, or an odd filesystem): the flock
        // alone excludes other writers.
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok(true),
        Err(e) => {
            let _ = file.unlock();
            Err(Error::io("lock", Some(path), e))
        }
    }
}

/// `fcntl(cmd)` with a whole-file OFD lock request of type `kind`; returns
/// the request as the kernel left it (for `F_OFD_GETLK`: the conflicting
/// lock, or `F_UNLCK`).
fn ofd_lock(file: &File, cmd: libc::c_int, kind: libc::c_short) -> std::io::Result<libc::flock> {
    use std::os::fd::AsRawFd;
    // SAFETY: an all-zero `flock` is a valid value of this plain C struct.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = kind;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    fl.l_start = 0;
    fl.l_len = 0; // to the end of the file, however long
    fl.l_pid = 0; // required for OFD requests
                  // SAFETY: fcntl with an OFD lock command reads and writes only the
                  // `flock` struct passed by pointer, which lives for the whole call, on a
                  // descriptor this `File` owns.
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), cmd, &mut fl as *mut libc::flock) };
    if rc == -1 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(fl)
}

/// Whether a writer holds the lock on `file`, asked without taking it
/// (`F_OFD_GETLK`). Where OFD locks are unsupported, a shared `flock`
/// probe answers instead.
fn is_held(file: &File, path: &Path) -> Result<bool> {
    match ofd_lock(file, libc::F_OFD_GETLK, libc::F_WRLCK as libc::c_short) {
        Ok(fl) => Ok(fl.l_type != libc::F_UNLCK as libc::c_short),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                Ok(false)
            }
            Err(std::fs::TryLockError::WouldBlock) => Ok(true),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::io("lock", Some(path), e)),
        },
        Err(e) => Err(Error::io("lock", Some(path), e)),
    }
}

/// Who holds the lock of `db`, if anyone; a lock file left by a process that
/// is gone is reported with `alive: false`.
pub(crate) fn holder(db: &Path) -> Result<Option<LockHolder>> {
    check_beside_database(db)?;
    let path = lock_path(db);
    let file = match open_nofollow(&path, false) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("open lock file", Some(&path), e)),
    };
    let held = is_held(&file, &path)?;
    Ok(read_holder(&path).map(|mut h| {
        h.alive = held;
        h
    }))
}

/// Remove a lock file nobody holds. Refuses while a live process holds it.
///
/// The check and the removal are one step: this takes the lock itself
/// (failing with `LockBusy` when a writer has it) and removes the name only
/// while holding it, and only if the name still refers to the file it
/// locked. A writer that opened the file just before the removal finds,
/// once it gets the lock, that the name is gone, and starts over on a new
/// file, so two writers never hold "the" lock at once.
pub(crate) fn break_lock(db: &Path) -> Result<bool> {
    check_beside_database(db)?;
    let path = lock_path(db);
    let file = match open_nofollow(&path, true) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(Error::io("open lock file", Some(&path), e)),
    };
    // Its name is the path plus `.lock`, so a mistyped path (`Cargo`) names
    // another program's file (`Cargo.lock`): only an emdb lock record, or
    // the empty file a writer locks before writing one (beside a database
    // file: an empty file of another program's with no database proves
    // nothing), is removed.
    let mut text = String::new();
    let ours = (&file).read_to_string(&mut text).is_ok()
        && ((text.is_empty() && db.exists()) || parse_holder(&text).is_some());
    if !ours {
        return Err(Error::NotADatabase {
            path: path.clone(),
            reason: "it holds no emdb lock record (pid=...), so it is not an emdb lock file".into(),
        });
    }
    if !try_lock(&file, &path)? {
        return Err(Error::LockBusy {
            path: db.to_path_buf(),
            holder: read_holder(&path).map(|mut h| {
                h.alive = true;
                h
            }),
        });
    }
    if file_id_at(&path)? != Some(file_id(&file, &path)?) {
        // Someone else removed or replaced it meanwhile.
        return Ok(false);
    }
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io("remove lock file", Some(&path), e)),
    }
}

/// Refuse a `db` that is a directory or a file other than an emdb
/// database: its `<db>.lock` is then none of emdb's business. A path with
/// no file yet passes (a writer creating it holds the lock first).
fn check_beside_database(db: &Path) -> Result<()> {
    if db.is_dir() {
        return Err(Error::InvalidPath {
            reason: format!(
                "{} is a directory; give the path of a database file",
                db.display()
            ),
        });
    }
    crate::engine::refuse_foreign(db)
}

fn read_holder(path: &Path) -> Option<LockHolder> {
    let mut text = String::new();
    open_nofollow(path, false)
        .ok()?
        .read_to_string(&mut text)
        .ok()?;
    parse_holder(&text)
}

fn parse_holder(text: &str) -> Option<LockHolder> {
    let mut pid = None;
    let mut start_time = None;
    let mut hostname = None;
    for line in text.lines() {
        match line.split_once('=') {
            Some(("pid", v)) => pid = v.trim().parse().ok(),
            Some(("start", v)) => start_time = v.trim().parse().ok().filter(|&t| t != 0),
            Some(("host", v)) if !v.trim().is_empty() => hostname = Some(v.trim().to_string()),
            _ => {}
        }
    }
    Some(LockHolder {
        pid: pid?,
        start_time,
        hostname,
        alive: false,
    })
}

/// Start time of a process in clock ticks since boot (Linux `/proc`).
pub(crate) fn process_start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Field 22; the command name (field 2) may contain spaces, so skip past ')'.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

/// True when a process with this pid exists (and, when given, started at
/// `start_time`, so a reused pid does not count).
pub fn pid_alive(pid: u32, start_time: Option<u64>) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    if raw <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 only checks for existence and permission; it
    // has no memory-safety preconditions.
    let rc = unsafe { libc::kill(raw, 0) };
    let exists = rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    match (exists, start_time) {
        (false, _) => false,
        (true, Some(t)) => process_start_time(pid).is_none_or(|now| now == t),
        (true, None) => true,
    }
}

fn hostname() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_writer_is_refused_with_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.emdb");
        let held = WriterLock::acquire(&db, None).unwrap();
        match WriterLock::acquire(&db, None) {
            Err(Error::LockBusy {
                holder: Some(h), ..
            }) => {
                assert_eq!(h.pid, std::process::id());
                assert!(h.alive);
            }
            other => panic!("expected LockBusy, got {other:?}"),
        }
        assert!(holder(&db).unwrap().unwrap().alive);
        assert!(break_lock(&db).is_err());
        drop(held);
        // Another test of this process forking a child (between its fork
        // and exec) holds the released lock's descriptor for a moment: the
        // lock then still reads as alive (as `acquire` allows for).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while holder(&db).unwrap().unwrap().alive && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let h = holder(&db).unwrap().unwrap();
        assert!(!h.alive);
        assert!(break_lock(&db).unwrap());
        assert_eq!(holder(&db).unwrap(), None);
        WriterLock::acquire(&db, None).unwrap();
    }

    #[test]
    fn garbage_lock_files_do_not_break_anything() {
        assert_eq!(parse_holder("nonsense"), None);
        assert_eq!(parse_holder("pid=12\n").unwrap().pid, 12);
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.emdb");
        std::fs::write(lock_path(&db), b"\xff\x00garbage").unwrap();
        assert_eq!(holder(&db).unwrap(), None);
        WriterLock::acquire(&db, None).unwrap();
    }

    #[test]
    fn own_process_is_alive_and_start_time_is_checked() {
        let me = std::process::id();
        let t = process_start_time(me);
        assert!(t.is_some());
        assert!(pid_alive(me, t));
        assert!(!pid_alive(me, t.map(|t| t + 1)));
        assert!(!pid_alive(0, None));
    }
}
