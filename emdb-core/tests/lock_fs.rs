//! The writer lock on the filesystems databases live on (issue 15, item 2):
//! whether a writer holds the lock must be right on ext4/overlay (the temp
//! directory), tmpfs and btrfs. btrfs gives its files a device number in
//! `stat` that differs from the one `/proc/locks` shows, so a liveness
//! check that compared the two called a live writer dead, and `lock break`
//! removed its lock file.
//!
//! tmpfs and btrfs are mounted (btrfs on a loop device, `mkfs.btrfs` from
//! btrfs-progs); without permission or the tools, those cases print why
//! they were skipped and the rest still runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use common::mount::Mount;
use emdb_core::{Emdb, Error};

fn lock_file(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_os_string();
    s.push(".lock");
    s.into()
}

/// A live writer is reported alive and its lock survives `break_lock`; once
/// it is gone the lock is reported dead and can be broken.
fn liveness_is_right_in(dir: &Path, what: &str) {
    let path = dir.join("lock.emdb");
    let db = Emdb::open(&path).unwrap();
    db.insert("k", "v").unwrap();
    let h = Emdb::lock_holder(&path).unwrap().expect("a lock file");
    assert!(h.alive, "{what}: a live writer was reported dead");
    assert_eq!(h.pid, std::process::id());
    match Emdb::break_lock(&path) {
        Err(Error::LockBusy { .. }) => {}
        other => panic!("{what}: breaking a held lock gave {other:?}"),
    }
    assert!(lock_file(&path).exists(), "{what}: a held lock was removed");
    // The writer still works, and a second writer is still refused.
    db.insert("k2", "v2").unwrap();
    db.flush().unwrap();
    assert!(matches!(Emdb::open(&path), Err(Error::LockBusy { .. })));
    drop(db);
    let h = Emdb::lock_holder(&path).unwrap().expect("a lock file");
    assert!(!h.alive, "{what}: a closed writer was reported alive");
    assert!(Emdb::break_lock(&path).unwrap());
    assert!(!lock_file(&path).exists());
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.get("k2").unwrap(), Some(b"v2".to_vec()));
}

#[test]
fn lock_liveness_is_right_on_the_temp_directory() {
    let dir = tempfile::tempdir().unwrap();
    liveness_is_right_in(dir.path(), "temp dir");
}

#[test]
fn lock_liveness_is_right_on_tmpfs() {
    match Mount::tmpfs("16m") {
        Ok(m) => liveness_is_right_in(m.path(), "tmpfs"),
        Err(why) => eprintln!("skipped: cannot mount a tmpfs: {why}"),
    }
}

#[test]
fn lock_liveness_is_right_on_btrfs() {
    match Mount::btrfs() {
        Ok(m) => liveness_is_right_in(m.path(), "btrfs"),
        Err(why) => eprintln!("skipped: cannot mount a loop btrfs: {why}"),
    }
}
