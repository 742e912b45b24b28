//! A second writer, and a file replaced under the writer (issue 15, item 1).
//!
//! The writer lock keeps a second writer out, but its file can be removed
//! (`emdb lock break --force`, `rm`), and the database file can be renamed
//! over by another program. The engine must then notice before it
//! acknowledges anything, and refuse to write over the other writer's
//! records, instead of losing acknowledged writes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use emdb_core::{Emdb, Error, FlushPolicy};

fn lock_of(db: &Path) -> std::path::PathBuf {
    let mut s = db.as_os_str().to_os_string();
    s.push(".lock");
    s.into()
}

fn writer(path: &Path, policy: FlushPolicy) -> Emdb {
    Emdb::builder()
        .path(path)
        .flush_policy(policy)
        .build()
        .unwrap()
}

fn is_poisoned<T: std::fmt::Debug>(r: &emdb_core::Result<T>) -> bool {
    matches!(r, Err(Error::Poisoned(_)))
}

/// The lock file is removed under a live writer (as `lock break --force`
/// does) and a second writer opens and writes. The first must refuse its
/// next write instead of writing over the second's records; both writers'
/// acknowledged writes survive.
#[test]
fn a_writer_whose_lock_was_broken_stops_before_writing_over_the_next_one() {
    for policy in [FlushPolicy::OnEachFlush, FlushPolicy::WriteThrough] {
        for second_closes in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("two.emdb");
            let first = writer(&path, policy);
            first.insert("a", "from the first").unwrap();
            first.flush().unwrap();
            std::fs::remove_file(lock_of(&path)).unwrap();
            let second = writer(&path, policy);
            second.insert("b", "from the second").unwrap();
            second.flush().unwrap();
            let still_open = if second_closes {
                drop(second);
                None
            } else {
                Some(second)
            };
            let late = first.insert("c", "from the first, late");
            assert!(
                is_poisoned(&late),
                "{policy:?}/{second_closes}: the first writer wrote after another took over: {late:?}"
            );
            assert!(is_poisoned(&first.flush()));
            assert!(is_poisoned(&first.compact()));
            assert!(is_poisoned(&first.checkpoint()));
            // Reads still work.
            assert_eq!(first.get("a").unwrap(), Some(b"from the first".to_vec()));
            drop(first);
            drop(still_open);
            let db = Emdb::builder().path(&path).read_only(true).build().unwrap();
            assert_eq!(db.get("a").unwrap(), Some(b"from the first".to_vec()));
            assert_eq!(
                db.get("b").unwrap(),
                Some(b"from the second".to_vec()),
                "{policy:?}/{second_closes}: the second writer's acknowledged write was lost"
            );
        }
    }
}

/// Another program renames a file over the database while a writer has it
/// open: the writer's later writes go to the old, unlinked file, so its
/// flush must fail rather than acknowledge them.
#[test]
fn a_database_file_replaced_under_the_writer_fails_its_next_flush() {
    for policy in [FlushPolicy::OnEachFlush, FlushPolicy::WriteThrough] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("moved.emdb");
        let other = dir.path().join("other.emdb");
        {
            let o = Emdb::open(&other).unwrap();
            o.insert("x", "other").unwrap();
        }
        let db = writer(&path, policy);
        db.insert("a", "1").unwrap();
        db.flush().unwrap();
        std::fs::rename(&other, &path).unwrap();
        let wrote = db.insert("b", "2").and_then(|()| db.flush());
        assert!(
            is_poisoned(&wrote),
            "{policy:?}: a write to the replaced file was acknowledged: {wrote:?}"
        );
        // Compaction must not rename its copy of the old file over the new one.
        assert!(db.compact().is_err());
        drop(db);
        let now = Emdb::open(&path).unwrap();
        assert_eq!(now.get("x").unwrap(), Some(b"other".to_vec()));
    }
}

/// `break_lock` racing writers that open, write, flush and close in a loop:
/// the lock must never be removed while held, so no two writers ever write
/// at once, every acknowledged write is there and the file always opens.
/// (Before: `break_lock` checked the lock, then removed the file; a writer
/// locking in between kept a lock on a removed file while the next writer
/// made a new one.)
#[test]
fn breaking_the_lock_in_a_loop_never_lets_two_writers_in() {
    let dir = tempfile::tempdir().unwrap();
    let path = Arc::new(dir.path().join("race.emdb"));
    Emdb::open(&*path).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let inside = Arc::new(AtomicUsize::new(0));
    let overlaps = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..3)
        .map(|t| {
            let (path, stop, inside, overlaps) = (
                Arc::clone(&path),
                Arc::clone(&stop),
                Arc::clone(&inside),
                Arc::clone(&overlaps),
            );
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                let mut i = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    let db = match Emdb::open(&*path) {
                        Ok(db) => db,
                        Err(Error::LockBusy { .. }) => continue,
                        Err(e) => panic!("open failed: {e}"),
                    };
                    if inside.fetch_add(1, Ordering::SeqCst) != 0 {
                        overlaps.fetch_add(1, Ordering::SeqCst);
                    }
                    let key = format!("t{t}-{i}");
                    let ok = db.insert(&key, "v").and_then(|()| db.flush()).is_ok();
                    inside.fetch_sub(1, Ordering::SeqCst);
                    drop(db);
                    if ok {
                        acked.push(key);
                    }
                    i += 1;
                }
                acked
            })
        })
        .collect();
    let breaker = {
        let (path, stop) = (Arc::clone(&path), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut removed = 0usize;
            while !stop.load(Ordering::Relaxed) {
                if let Ok(true) = Emdb::break_lock(&*path) {
                    removed += 1;
                }
            }
            removed
        })
    };
    let ms = std::env::var("EMDB_LOCK_RACE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    std::thread::sleep(std::time::Duration::from_millis(ms));
    stop.store(true, Ordering::Relaxed);
    let acked: Vec<String> = writers
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let removed = breaker.join().unwrap();
    eprintln!(
        "{} acknowledged writes, {removed} lock files removed",
        acked.len()
    );
    assert_eq!(
        overlaps.load(Ordering::SeqCst),
        0,
        "two writers held the lock at once"
    );
    assert!(!acked.is_empty());
    let db = Emdb::open(&*path).unwrap();
    for k in &acked {
        assert_eq!(db.get(k).unwrap(), Some(b"v".to_vec()), "{k} lost");
    }
}

/// A hard link is another name, with its own writer lock: two one-shot
/// writers, one through each name, each appended, synced and acknowledged
/// over the other's records (QA: 1-4 of ~150 acknowledged puts lost, and
/// once a damaged log). A writer now refuses a file with another name;
/// readers still open it through either. An interrupted encryption
/// change's `<db>.encbak` link is the one other name a writer accepts.
#[test]
fn a_writer_refuses_a_file_with_a_second_name() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.emdb");
    let db = Emdb::open(&a).unwrap();
    db.insert("k", "v").unwrap();
    db.close().unwrap();
    let b = dir.path().join("b.emdb");
    std::fs::hard_link(&a, &b).unwrap();
    for name in [&a, &b] {
        match Emdb::open(name) {
            Err(Error::InvalidPath { reason }) => {
                assert!(reason.contains("has 2 names"), "{reason}");
            }
            other => panic!("{}: expected InvalidPath, got {other:?}", name.display()),
        }
        let r = Emdb::builder().path(name).read_only(true).build().unwrap();
        assert_eq!(r.get("k").unwrap(), Some(b"v".to_vec()));
    }
    std::fs::remove_file(&b).unwrap();
    let db = Emdb::open(&a).unwrap();
    db.insert("k2", "v2").unwrap();
    db.close().unwrap();
    // The link an interrupted encryption change leaves.
    let mut encbak = a.as_os_str().to_os_string();
    encbak.push(".encbak");
    std::fs::hard_link(&a, &encbak).unwrap();
    let db = Emdb::open(&a).unwrap();
    assert_eq!(db.get("k2").unwrap(), Some(b"v2".to_vec()));
}
