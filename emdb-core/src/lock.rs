//! The single-writer lock: an OS advisory lock (`flock`) on `<db>.lock`.
//!
//! The lock file records the holder's pid, process start time and host, so a
//! busy error can name the holder. The OS drops the lock when the holder
//! exits, even by SIGKILL, so a dead holder never blocks the next open.

#![allow(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::fault::{write_all_at, Faults, WriteSite};
use crate::fs::{create_options, sibling};

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

/// Path of the lock file for a database path.
pub(crate) fn lock_path(db: &Path) -> PathBuf {
    sibling(db, ".lock")
}

/// A held writer lock; released when dropped (the OS releases it on exit too).
#[derive(Debug)]
pub(crate) struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Take the writer lock for `db`, or fail with `LockBusy` naming the holder.
    pub(crate) fn acquire(db: &Path, faults: Option<&Faults>) -> Result<WriterLock> {
        let path = lock_path(db);
        let file = create_options()
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io("open lock file", Some(&path), e))?;
        if !take(&file, &path)? {
            return Err(Error::LockBusy {
                path: db.to_path_buf(),
                holder: read_holder(&path).map(|mut h| {
                    h.alive = true;
                    h
                }),
            });
        }
        let me = std::process::id();
        let record = format!(
            "emdb-lock 1\npid={me}\nstart={}\nhost={}\n",
            process_start_time(me).unwrap_or(0),
            hostname().unwrap_or_default()
        );
        file.set_len(0)
            .and_then(|_| write_all_at(faults, WriteSite::LockFile, &file, record.as_bytes(), 0))
            .map_err(|e| Error::io("write lock file", Some(&path), e))?;
        Ok(WriterLock { _file: file })
    }
}

/// How long to wait for a lock the file says this process holds.
const OWN_RELEASE_WAIT: Duration = Duration::from_millis(200);

/// Try to lock `file`; false when someone else holds it.
///
/// When the lock file names this process, the lock was most likely released
/// a moment ago and is still held through a copy of the descriptor in a
/// child process between its fork and exec (exec closes it): wait a little
/// for that rather than report this process as the holder.
fn take(file: &File, path: &Path) -> Result<bool> {
    let deadline = Instant::now() + OWN_RELEASE_WAIT;
    let mut own = None;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(true),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io("lock", Some(path), e)),
        }
        let mine = *own
            .get_or_insert_with(|| read_holder(path).is_some_and(|h| h.pid == std::process::id()));
        if !mine || Instant::now() >= deadline {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Who holds the lock of `db`, if anyone; a lock file left by a process that
/// is gone is reported with `alive: false`.
pub(crate) fn holder(db: &Path) -> Result<Option<LockHolder>> {
    let path = lock_path(db);
    let file = match OpenOptions::new().read(true).open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("open lock file", Some(&path), e)),
    };
    // Ask the kernel's lock table first: probing with a shared lock could
    // make a writer that starts at that instant fail.
    let held = match held_per_proc_locks(&file) {
        Some(h) => h,
        None => match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                false
            }
            Err(std::fs::TryLockError::WouldBlock) => true,
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io("lock", Some(&path), e)),
        },
    };
    Ok(read_holder(&path).map(|mut h| {
        h.alive = held;
        h
    }))
}

/// Remove a lock file nobody holds. Refuses while a live process holds it.
pub(crate) fn break_lock(db: &Path) -> Result<bool> {
    match holder(db)? {
        Some(h) if h.alive => Err(Error::LockBusy {
            path: db.to_path_buf(),
            holder: Some(h),
        }),
        _ => {
            let path = lock_path(db);
            match std::fs::remove_file(&path) {
                Ok(()) => Ok(true),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
                Err(e) => Err(Error::io("remove lock file", Some(&path), e)),
            }
        }
    }
}

/// Whether an exclusive `flock` is held on this file, from `/proc/locks`
/// (Linux); `None` when that table cannot be read.
fn held_per_proc_locks(file: &File) -> Option<bool> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata().ok()?;
    let table = std::fs::read_to_string("/proc/locks").ok()?;
    let id = format!(
        "{:02x}:{:02x}:{}",
        libc::major(meta.dev()),
        libc::minor(meta.dev()),
        meta.ino()
    );
    Some(table.lines().any(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        // "N: FLOCK ADVISORY WRITE pid maj:min:ino start end"
        f.len() >= 6 && f[1] == "FLOCK" && f[3] == "WRITE" && f[5] == id
    }))
}

fn read_holder(path: &Path) -> Option<LockHolder> {
    let mut text = String::new();
    File::open(path).ok()?.read_to_string(&mut text).ok()?;
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
