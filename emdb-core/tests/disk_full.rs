//! A real full disk: a 4 MiB tmpfs is mounted (CI runs as root), filled
//! through emdb, and every operation on it must fail with a clear error
//! (never a panic, never SIGBUS from a mapped write), keep what was flushed,
//! leave the old files intact, and work again once space is freed.
//!
//! Without permission to mount, the test says so and returns; the injected
//! ENOSPC tests in `faults.rs` still run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use common::mount::Mount;
use emdb_core::{Emdb, Error};

fn is_enospc(e: &Error) -> bool {
    match e {
        Error::Io { source, .. } => source.raw_os_error() == Some(libc::ENOSPC),
        _ => false,
    }
}

/// Write `path` until the filesystem is full; returns the bytes written.
fn fill(path: &Path) -> u64 {
    let mut f = std::fs::File::create(path).unwrap();
    let chunk = vec![0xEEu8; 4096];
    let mut n = 0u64;
    loop {
        match f.write(&chunk) {
            Ok(0) => break,
            Ok(k) => n += k as u64,
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
            Err(e) => panic!("filling {}: {e}", path.display()),
        }
    }
    // Whatever the page cache held is on tmpfs already; nothing to sync.
    n
}

/// Files in `dir`, without the stats sidecar's temp file (written by a
/// background thread at any moment).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".stats.tmp"))
        .collect();
    v.sort();
    v
}

fn check_all(db: &Emdb, flushed: &BTreeMap<String, Vec<u8>>, what: &str) {
    for (k, v) in flushed {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v), "{what}: {k}");
    }
}

#[test]
fn a_real_full_disk_is_a_clear_error_and_loses_nothing() {
    let mount = match Mount::tmpfs("4m") {
        Ok(m) => m,
        Err(why) => {
            println!("SKIPPED the real full-disk test: {why}");
            println!("(the injected ENOSPC tests in faults.rs still cover the error paths)");
            return;
        }
    };
    let dir = mount.path().to_path_buf();
    let path = dir.join("full.emdb");
    let spare = dir.join("spare");
    let rest = dir.join("rest");
    // Room to give back later.
    std::fs::write(&spare, vec![1u8; 1536 << 10]).unwrap();

    // No automatic checkpointer: a tail index it writes in the background
    // would take space (and a temp file name) at moments the assertions
    // below cannot predict.
    let db = Emdb::builder()
        .path(&path)
        .checkpoint_tail(None)
        .build()
        .unwrap();
    let mut flushed: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut pending: Vec<(String, Vec<u8>)> = Vec::new();
    db.insert("first", "1").unwrap();
    db.checkpoint().unwrap();
    flushed.insert("first".into(), b"1".to_vec());
    let ckpt = dir.join("full.emdb.ckpt");
    let old_ckpt = std::fs::read(&ckpt).unwrap();

    // Insert until the disk is full.
    let mut i = 0u32;
    let err = loop {
        let (k, v) = (format!("k{i:05}"), vec![(i % 251) as u8; 3000]);
        match db.insert(&k, &v) {
            Ok(()) => pending.push((k, v)),
            Err(e) => break e,
        }
        if i.is_multiple_of(16) {
            db.flush().unwrap();
            flushed.extend(pending.drain(..));
        }
        i += 1;
        assert!(i < 10_000, "a 4 MiB filesystem never filled up");
    };
    assert!(is_enospc(&err), "expected ENOSPC, got {err:?}");
    let text = err.to_string();
    assert!(text.contains("full.emdb"), "error names the file: {text}");
    println!("disk full after {i} inserts: {text}");
    // Flushing what was written needs no space.
    db.flush().unwrap();
    flushed.extend(pending.drain(..));
    // Take the last free bytes too: now nothing at all can be allocated.
    fill(&rest);

    // A batch fails whole.
    let batch = (0..50u32).map(|j| (format!("b{j}"), vec![2u8; 4000]));
    let e = db.insert_many(batch).unwrap_err();
    assert!(is_enospc(&e), "batch: {e:?}");
    assert_eq!(db.get("b0").unwrap(), None);
    // Checkpoint and compaction need new files: they fail cleanly and
    // leave the old files as they were.
    let log_before = std::fs::read(&path).unwrap();
    let files_before = names(&dir);
    let e = db.checkpoint().unwrap_err();
    assert!(is_enospc(&e), "checkpoint: {e:?}");
    assert_eq!(
        std::fs::read(&ckpt).unwrap(),
        old_ckpt,
        "old checkpoint changed"
    );
    let e = db.compact().unwrap_err();
    assert!(is_enospc(&e), "compaction: {e:?}");
    assert_eq!(std::fs::read(&path).unwrap(), log_before, "log changed");
    assert_eq!(names(&dir), files_before, "temp files left on a full disk");
    // Nothing is poisoned: reads work, writes that fit in the log's
    // preallocated room may still succeed, everything flushed is there.
    check_all(&db, &flushed, "full");

    // A reader can always open it; a writer gets a working handle or a
    // clear ENOSPC (it rewrites its lock file), never a damaged database.
    let ro = Emdb::builder().path(&path).read_only(true).build().unwrap();
    check_all(&ro, &flushed, "read-only open on a full disk");
    drop(ro);

    // Some space comes back, less than a growth step of the log: writes
    // work again (the log grows by just what they need).
    std::fs::remove_file(&spare).unwrap();
    db.insert("after", vec![9u8; 100_000]).unwrap();
    db.flush().unwrap();
    flushed.insert("after".into(), vec![9u8; 100_000]);
    db.checkpoint().unwrap();
    // More space, most keys removed: compaction fits and works.
    std::fs::remove_file(&rest).unwrap();
    let removed: Vec<String> = flushed
        .keys()
        .filter(|k| k.starts_with('k'))
        .skip(100)
        .cloned()
        .collect();
    for k in &removed {
        db.remove(k).unwrap();
        flushed.remove(k);
    }
    db.flush().unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    db.compact().unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() < size / 2);
    check_all(&db, &flushed, "after freeing space");
    drop(db);

    // Full again, then reopened: whatever the writer can do, the data holds.
    fill(&rest);
    match Emdb::open(&path) {
        Ok(db) => {
            check_all(&db, &flushed, "reopen on a full disk");
            assert_eq!(db.len().unwrap(), flushed.len());
            println!("a writer reopened it on a full disk");
        }
        Err(e) => {
            assert!(is_enospc(&e), "reopen on a full disk: {e:?}");
            println!("a writer could not reopen it on a full disk: {e}");
        }
    }
    std::fs::remove_file(&rest).unwrap();
    let db = Emdb::open(&path).unwrap();
    check_all(&db, &flushed, "reopen");
    assert_eq!(db.len().unwrap(), flushed.len());
    for k in &removed {
        assert_eq!(db.get(k).unwrap(), None);
    }
    drop(db);
}

/// A compaction whose new file runs out of room part way names that file
/// (`<db>.compact.tmp`) in its error, removes it, and leaves the database
/// as it was. Before, the error named the database itself, as if the log
/// in use had failed to grow.
#[test]
fn a_compaction_that_runs_out_of_room_names_its_new_file() {
    let mount = match Mount::tmpfs("8m") {
        Ok(m) => m,
        Err(why) => {
            println!("SKIPPED: {why}");
            return;
        }
    };
    let dir = mount.path().to_path_buf();
    let path = dir.join("c.emdb");
    let db = Emdb::builder()
        .path(&path)
        .checkpoint_tail(None)
        .build()
        .unwrap();
    let mut flushed = BTreeMap::new();
    for i in 0..1000u32 {
        let (k, v) = (format!("k{i:05}"), vec![(i % 251) as u8; 3000]);
        db.insert(&k, &v).unwrap();
        flushed.insert(k, v);
    }
    db.flush().unwrap();
    db.checkpoint().unwrap();
    // About 1 MiB free: the new file's first page fits, its 3 MB do not.
    let spare = dir.join("spare");
    std::fs::write(&spare, vec![1u8; 1 << 20]).unwrap();
    fill(&dir.join("rest"));
    std::fs::remove_file(&spare).unwrap();
    let files_before = names(&dir);
    let e = db.compact().unwrap_err();
    assert!(is_enospc(&e), "compaction: {e:?}");
    let Error::Io {
        path: Some(named), ..
    } = &e
    else {
        panic!("no path in {e:?}");
    };
    assert_eq!(named, &dir.join("c.emdb.compact.tmp"), "{e}");
    assert_eq!(names(&dir), files_before, "temp files left");
    check_all(&db, &flushed, "after the failed compaction");
    drop(db);
    let db = Emdb::open(&path).unwrap();
    check_all(&db, &flushed, "reopened");
}
