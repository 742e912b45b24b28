//! Injected I/O faults, for tests of the error paths (feature
//! `fault-injection` exposes them on the builder; without it they are never set).

use std::sync::atomic::{AtomicBool, Ordering};

/// Faults to inject into a database's log I/O. Set a flag and the next
/// matching operation fails like the real system call would.
#[derive(Debug, Default)]
pub struct Faults {
    /// fdatasync / fsync of the log fails with EIO.
    pub fail_sync: AtomicBool,
    /// Growing the log fails with ENOSPC (a full disk).
    pub fail_grow: AtomicBool,
    /// A write-through write fails with EIO after writing nothing.
    pub fail_write: AtomicBool,
}

impl Faults {
    pub(crate) fn check(flag: Option<&AtomicBool>, errno: i32) -> std::io::Result<()> {
        match flag {
            Some(f) if f.load(Ordering::SeqCst) => Err(std::io::Error::from_raw_os_error(errno)),
            _ => Ok(()),
        }
    }
}
