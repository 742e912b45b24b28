//! Injected I/O faults surface as errors, never as success; a failed fsync
//! poisons the handle; the database reopens with everything flushed before.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use emdb_core::{Emdb, EncryptionInput, Error, Faults, FlushPolicy, ShortWrite, WriteSite};

fn open(path: &std::path::Path, faults: &Arc<Faults>, policy: FlushPolicy) -> Emdb {
    Emdb::builder()
        .path(path)
        .flush_policy(policy)
        .faults(Arc::clone(faults))
        .build()
        .unwrap()
}

#[test]
fn a_failed_fsync_is_an_error_and_poisons_the_handle() {
    for policy in [
        FlushPolicy::OnEachFlush,
        FlushPolicy::Group {
            max_wait: std::time::Duration::from_millis(1),
            max_batch: 4,
        },
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fsync.emdb");
        let faults = Arc::new(Faults::default());
        let db = open(&path, &faults, policy);
        db.insert("durable", "1").unwrap();
        db.flush().unwrap();
        db.insert("maybe", "2").unwrap();
        faults.fail_sync.store(true, Ordering::SeqCst);
        assert!(matches!(db.flush(), Err(Error::Io { .. })), "{policy:?}");
        faults.fail_sync.store(false, Ordering::SeqCst);
        // The engine no longer knows what is durable: it refuses to go on.
        assert!(matches!(db.insert("x", "y"), Err(Error::Poisoned(_))));
        assert!(matches!(db.flush(), Err(Error::Poisoned(_))));
        assert!(matches!(db.checkpoint(), Err(Error::Poisoned(_))));
        assert!(matches!(db.compact(), Err(Error::Poisoned(_))));
        // Reads still work.
        assert_eq!(db.get("durable").unwrap(), Some(b"1".to_vec()));
        drop(db);
        let db = Emdb::open(&path).unwrap();
        assert_eq!(db.get("durable").unwrap(), Some(b"1".to_vec()));
        db.insert("after", "3").unwrap();
        db.flush().unwrap();
    }
}

/// After a failed fsync the kernel may keep the unsynced records in its
/// cache, their pages marked clean though they never reached the disk, and
/// it reports the error only to the process that saw it. The next writer
/// took them up, appended behind them, and its own syncs succeeded: after
/// a remount the log read as damaged from there on, and every write
/// acknowledged since was lost (QA, a thin-provisioned disk that ran
/// full). The poisoned handle now cuts the file back to its last durable
/// end as it closes, so the next writer appends there. A compaction's new
/// file counts as durable whole (a review found the first version cut it
/// to its header).
#[test]
fn a_failed_fsync_cuts_what_it_did_not_make_durable() {
    for (policy, compact) in [
        (FlushPolicy::OnEachFlush, false),
        (FlushPolicy::OnEachFlush, true),
        (FlushPolicy::WriteThrough, true),
        (
            FlushPolicy::Group {
                max_wait: std::time::Duration::from_millis(1),
                max_batch: 4,
            },
            false,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.emdb");
        let faults = Arc::new(Faults::default());
        let db = open(&path, &faults, policy);
        for i in 0..100u32 {
            db.insert(format!("durable{i}"), "1").unwrap();
        }
        db.flush().unwrap();
        if compact {
            db.compact().unwrap();
        }
        faults.fail_sync.store(true, Ordering::SeqCst);
        let failed = if compact {
            db.insert_many([("maybe", vec![2u8; 5000]), ("too", vec![3u8; 10])])
                .and_then(|()| db.flush())
        } else {
            db.insert("maybe", vec![2u8; 5000]).unwrap();
            db.flush()
        };
        assert!(
            matches!(failed, Err(Error::Io { .. })),
            "{policy:?}: {failed:?}"
        );
        faults.fail_sync.store(false, Ordering::SeqCst);
        // Reads of the handle go on until it closes.
        assert_eq!(db.get("durable7").unwrap(), Some(b"1".to_vec()));
        drop(db);
        let db = Emdb::open(&path).unwrap();
        let back = db.get("maybe").unwrap().map(|v| v.len());
        assert_eq!(
            back, None,
            "{policy:?}: the write whose sync failed came back"
        );
        assert_eq!(db.len().unwrap(), 100, "{policy:?}: durable records lost");
        db.insert("after", "3").unwrap();
        db.flush().unwrap();
        drop(db);
        let report = Emdb::verify(&path, None).unwrap();
        assert!(report.damaged.is_empty(), "{policy:?}: {report:?}");
        let db = Emdb::open(&path).unwrap();
        assert_eq!(db.get("after").unwrap(), Some(b"3".to_vec()));
        assert_eq!(db.len().unwrap(), 101);
    }
}

/// The same when the sync that fails is the close's own (the last handle
/// dropped without a flush): a review found the first version checking for
/// the failure before the close, so this case cut nothing.
#[test]
fn a_failed_sync_at_close_cuts_too() {
    for explicit in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("close.emdb");
        let faults = Arc::new(Faults::default());
        let db = open(&path, &faults, FlushPolicy::OnEachFlush);
        for i in 0..100u32 {
            db.insert(format!("durable{i}"), "1").unwrap();
        }
        db.flush().unwrap();
        db.insert("maybe", vec![2u8; 5000]).unwrap();
        faults.fail_sync.store(true, Ordering::SeqCst);
        if explicit {
            assert!(db.close().is_err());
        } else {
            drop(db);
        }
        faults.fail_sync.store(false, Ordering::SeqCst);
        let db = Emdb::open(&path).unwrap();
        let back = db.get("maybe").unwrap().map(|v| v.len());
        assert_eq!(
            back, None,
            "explicit close {explicit}: the unsynced write came back"
        );
        assert_eq!(db.len().unwrap(), 100);
    }
}

/// Two flushes on two threads: the first one's fdatasync succeeds, and
/// the second one's, started while the first is between its fdatasync and
/// acknowledging it, fails. The first is acknowledged, and the cut the
/// handle makes at its close keeps what it acknowledged. (A review found
/// the first version of the cut, made by the failing sync itself, cutting
/// below what the other had just acknowledged: the database then did not
/// open.)
#[test]
fn a_failed_sync_never_cuts_what_another_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("race.emdb");
    let faults = Arc::new(Faults::default());
    let db = open(&path, &faults, FlushPolicy::OnEachFlush);
    db.insert("durable", "1").unwrap();
    db.flush().unwrap();
    db.insert("acked", vec![7u8; 3000]).unwrap();
    let other = Arc::new(parking_lot::Mutex::new(None));
    {
        let (db2, faults2, other) = (db.clone(), Arc::clone(&faults), Arc::clone(&other));
        let armed = std::sync::atomic::AtomicBool::new(true);
        faults.observe(move |ev| {
            if matches!(ev, emdb_core::FsEvent::Synced(_)) && armed.swap(false, Ordering::SeqCst) {
                faults2.fail_sync.store(true, Ordering::SeqCst);
                db2.insert("later", "x").unwrap();
                let db3 = db2.clone();
                *other.lock() = Some(std::thread::spawn(move || db3.flush()));
                // Give it time to reach its sync while this one holds its own.
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        });
    }
    db.flush().unwrap();
    let second = other.lock().take().unwrap().join().unwrap();
    faults.stop_observing();
    faults.fail_sync.store(false, Ordering::SeqCst);
    assert!(matches!(second, Err(Error::Io { .. })), "{second:?}");
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.get("acked").unwrap().map(|v| v.len()), Some(3000));
    assert_eq!(db.get("later").unwrap(), None);
}

/// A follower that had applied records whose sync failed, refreshing
/// after the poisoned writer cut them back and another writer wrote new
/// records over the same bytes, replayed on from its old end: from inside
/// the new records, so it missed some and kept the cut ones. It now finds
/// its last frame rewritten and reads the file again. With one new record
/// the file ends where the follower's log did (the refresh saw nothing
/// new); with three it is longer. A refresh between the cut and the new
/// writer found the file shorter and reported a cut for good (a review);
/// it reads the file again too, since nothing the writer made durable
/// was lost.
#[test]
fn a_follower_reads_again_a_cut_written_over() {
    for (extra, between) in [(0usize, false), (2, false), (2, true)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("follow.emdb");
        let faults = Arc::new(Faults::default());
        let db = open(&path, &faults, FlushPolicy::OnEachFlush);
        for i in 0..100u32 {
            db.insert(format!("durable{i}"), "1").unwrap();
        }
        db.flush().unwrap();
        // Refreshed by hand only, at the moments this test picks.
        let follower = Emdb::builder()
            .path(&path)
            .read_only(true)
            .follow(false)
            .build()
            .unwrap();
        db.insert("maybe", vec![2u8; 5000]).unwrap();
        faults.fail_sync.store(true, Ordering::SeqCst);
        assert!(matches!(db.flush(), Err(Error::Io { .. })));
        faults.fail_sync.store(false, Ordering::SeqCst);
        follower.refresh().unwrap();
        assert_eq!(follower.get("maybe").unwrap().map(|v| v.len()), Some(5000));
        drop(db);
        let case = format!("extra {extra}, refreshed between: {between}");
        if between {
            follower.refresh().unwrap();
            assert_eq!(follower.get("maybe").unwrap(), None, "{case}");
            assert_eq!(follower.len().unwrap(), 100, "{case}");
        }
        // The same frame length as "maybe"'s, at the same offset.
        let db = Emdb::open(&path).unwrap();
        db.insert("other", vec![3u8; 5000]).unwrap();
        for i in 0..extra {
            db.insert(format!("more{i}"), "m").unwrap();
        }
        db.flush().unwrap();
        drop(db);
        follower.refresh().unwrap();
        assert_eq!(follower.get("maybe").unwrap(), None, "{case}");
        assert_eq!(
            follower.get("other").unwrap().map(|v| v.len()),
            Some(5000),
            "{case}"
        );
        assert_eq!(follower.len().unwrap(), 101 + extra, "{case}");
    }
}

#[test]
fn a_full_disk_is_an_error_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("full.emdb");
    let faults = Arc::new(Faults::default());
    let db = open(&path, &faults, FlushPolicy::OnEachFlush);
    db.insert("small", "1").unwrap();
    db.flush().unwrap();
    faults.fail_grow.store(true, Ordering::SeqCst);
    let big = vec![7u8; 4 << 20];
    match db.insert("big", &big) {
        Err(Error::Io { source, .. }) => assert_eq!(source.raw_os_error(), Some(28)),
        other => panic!("expected ENOSPC, got {other:?}"),
    }
    let batch = (0..10u32).map(|i| (format!("b{i}"), vec![1u8; 1 << 20]));
    assert!(matches!(db.insert_many(batch), Err(Error::Io { .. })));
    assert_eq!(db.get("big").unwrap(), None);
    assert_eq!(db.get("b0").unwrap(), None, "a failed batch leaves nothing");
    // The same for a write batch, which keeps its writes for another try.
    let mut wb = db.write_batch();
    for i in 0..10u32 {
        wb.put(format!("w{i}"), vec![2u8; 1 << 20]).unwrap();
    }
    assert!(matches!(wb.commit(), Err(Error::Io { .. })));
    assert_eq!(wb.len(), 10);
    assert_eq!(
        db.get("w0").unwrap(),
        None,
        "a failed write batch leaves nothing"
    );
    assert!(matches!(db.compact(), Ok(()) | Err(Error::Io { .. })));
    // Space comes back: writing works again, nothing was lost.
    faults.fail_grow.store(false, Ordering::SeqCst);
    db.insert("big", &big).unwrap();
    wb.commit().unwrap();
    assert!(wb.is_empty());
    db.flush().unwrap();
    // A batch keeps the database open, as a clone of the handle does.
    drop(wb);
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.get("small").unwrap(), Some(b"1".to_vec()));
    assert_eq!(db.get("w9").unwrap().map(|v| v.len()), Some(1 << 20));
    assert_eq!(db.get("big").unwrap().map(|v| v.len()), Some(big.len()));
    assert_eq!(db.get("b0").unwrap(), None);
}

#[test]
fn a_failed_write_through_write_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wt.emdb");
    let faults = Arc::new(Faults::default());
    let db = open(&path, &faults, FlushPolicy::WriteThrough);
    db.insert("ok", "1").unwrap();
    faults.fail_write.store(true, Ordering::SeqCst);
    assert!(matches!(db.insert("lost", "2"), Err(Error::Io { .. })));
    assert_eq!(db.get("lost").unwrap(), None);
    faults.fail_write.store(false, Ordering::SeqCst);
    db.insert("after", "3").unwrap();
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.get("ok").unwrap(), Some(b"1".to_vec()));
    assert_eq!(db.get("lost").unwrap(), None);
    assert_eq!(db.get("after").unwrap(), Some(b"3".to_vec()));
}

// ---- short and failing writes at every pwrite site ----------------------

fn faulty(path: &Path, faults: &Arc<Faults>) -> emdb_core::EmdbBuilder {
    Emdb::builder().path(path).faults(Arc::clone(faults))
}

/// Bytes the log holds after its header once `write` ran on a fresh database
/// (closed without a checkpoint, so the file is trimmed to its records).
fn frames_of(dir: &Path, name: &str, write: impl FnOnce(&Emdb)) -> Vec<u8> {
    let path = dir.join(name);
    {
        let db = Emdb::builder()
            .path(&path)
            .checkpoint_on_close(false)
            .build()
            .unwrap();
        write(&db);
    }
    std::fs::read(&path).unwrap()[4096..].to_vec()
}

/// The database as a power cut right now would leave it if every write so
/// far had landed (no clean close trims anything), opened from a copy.
fn crash_copy(path: &Path, name: &str) -> Emdb {
    let copy = path.with_file_name(name);
    std::fs::write(&copy, std::fs::read(path).unwrap()).unwrap();
    Emdb::builder()
        .path(&copy)
        .checkpoint_on_close(false)
        .build()
        .unwrap_or_else(|e| panic!("crash copy {name} does not open: {e}"))
}

fn is_io(r: &emdb_core::Result<()>) -> bool {
    matches!(r, Err(Error::Io { .. }))
}

#[test]
fn a_short_write_through_write_is_an_error_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    // A value that carries a complete, valid frame ("phantom"), placed so
    // that it starts right where a later small frame ("after") would end if
    // written over the start of this one.
    let phantom = frames_of(dir.path(), "p.emdb", |db| {
        db.insert("phantom", "boo").unwrap()
    });
    let after_len = frames_of(dir.path(), "a.emdb", |db| db.insert("after", "3").unwrap()).len();
    let mut value = vec![b'x'; 400];
    let probe = frames_of(dir.path(), "b.emdb", |db| db.insert("big", &value).unwrap());
    let value_at = probe.len() - value.len();
    assert!(after_len > value_at);
    let at = after_len - value_at;
    value[at..at + phantom.len()].copy_from_slice(&phantom);
    let big_len = probe.len();
    let plans = [
        ShortWrite::Fail {
            written: 0,
            errno: libc::ENOSPC,
        },
        ShortWrite::Fail {
            written: 1,
            errno: libc::EIO,
        },
        ShortWrite::Fail {
            written: after_len + phantom.len(),
            errno: libc::ENOSPC,
        },
        ShortWrite::Fail {
            written: big_len - 1,
            errno: libc::EIO,
        },
        ShortWrite::Zero {
            written: after_len + phantom.len() + 5,
        },
    ];
    for (i, plan) in plans.into_iter().enumerate() {
        let path = dir.path().join(format!("wt-{i}.emdb"));
        let faults = Arc::new(Faults::default());
        let db = open(&path, &faults, FlushPolicy::WriteThrough);
        db.insert("ok", "1").unwrap();
        faults.short_write(WriteSite::WriteThrough, plan);
        assert!(is_io(&db.insert("big", &value)), "{plan:?}");
        assert_eq!(faults.armed_short_writes(), 0);
        assert_eq!(db.get("big").unwrap(), None, "{plan:?}");
        // The next write lands where the failed one started, and nothing
        // of the failed one may follow it.
        db.insert("after", "3").unwrap();
        db.flush().unwrap();
        let copy = crash_copy(&path, &format!("wt-{i}-crash.emdb"));
        assert_eq!(
            copy.get("phantom").unwrap(),
            None,
            "{plan:?}: remains of a failed write replayed"
        );
        assert_eq!(copy.get("big").unwrap(), None, "{plan:?}");
        assert_eq!(copy.get("ok").unwrap(), Some(b"1".to_vec()), "{plan:?}");
        assert_eq!(copy.get("after").unwrap(), Some(b"3".to_vec()), "{plan:?}");
        drop(copy);
        drop(db);
        let db = Emdb::open(&path).unwrap();
        assert_eq!(db.get("phantom").unwrap(), None);
        assert_eq!(db.get("after").unwrap(), Some(b"3".to_vec()));
    }
}

#[test]
fn a_write_through_write_whose_wipe_also_fails_poisons_the_handle() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wipe.emdb");
    let faults = Arc::new(Faults::default());
    let db = open(&path, &faults, FlushPolicy::WriteThrough);
    db.insert("ok", "1").unwrap();
    faults.short_write(
        WriteSite::WriteThrough,
        ShortWrite::Fail {
            written: 9,
            errno: libc::EIO,
        },
    );
    faults.short_write(
        WriteSite::WriteThrough,
        ShortWrite::Fail {
            written: 2,
            errno: libc::EIO,
        },
    );
    assert!(is_io(&db.insert("lost", vec![5u8; 300])));
    // What the file holds past its end is unknown now: no more writes.
    assert!(matches!(db.insert("x", "y"), Err(Error::Poisoned(_))));
    assert_eq!(db.get("ok").unwrap(), Some(b"1".to_vec()));
    let copy = crash_copy(&path, "wipe-crash.emdb");
    assert_eq!(copy.get("ok").unwrap(), Some(b"1".to_vec()));
    assert_eq!(copy.get("lost").unwrap(), None);
    drop(copy);
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.get("ok").unwrap(), Some(b"1".to_vec()));
    db.insert("again", "2").unwrap();
}

#[test]
fn short_counts_are_retried_at_every_site() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chunks.emdb");
    let faults = Arc::new(Faults::default());
    let chunk = ShortWrite::Chunked { chunk: 7 };
    for site in [
        WriteSite::Header,
        WriteSite::LockFile,
        WriteSite::WriteThrough,
        WriteSite::Checkpoint,
        WriteSite::Backup,
    ] {
        faults.short_write(site, chunk);
    }
    let db = faulty(&path, &faults)
        .flush_policy(FlushPolicy::WriteThrough)
        .build()
        .unwrap();
    db.insert("k", vec![3u8; 500]).unwrap();
    db.checkpoint().unwrap();
    db.backup_to(dir.path().join("copy.emdb")).unwrap();
    assert_eq!(faults.armed_short_writes(), 0, "every site wrote");
    assert_eq!(
        Emdb::lock_holder(&path).unwrap().map(|h| h.pid),
        Some(std::process::id())
    );
    drop(db);
    for p in [path, dir.path().join("copy.emdb")] {
        let db = Emdb::open(&p).unwrap();
        assert_eq!(db.get("k").unwrap(), Some(vec![3u8; 500]));
    }
}

#[test]
fn a_failed_header_write_leaves_no_half_database() {
    let dir = tempfile::tempdir().unwrap();
    for plan in [
        ShortWrite::Fail {
            written: 100,
            errno: libc::ENOSPC,
        },
        ShortWrite::Zero { written: 10 },
    ] {
        // A new file: created under a temp name, renamed only when whole.
        let path = dir.path().join("new.emdb");
        let faults = Arc::new(Faults::default());
        faults.short_write(WriteSite::Header, plan);
        assert!(matches!(
            faulty(&path, &faults).build(),
            Err(Error::Io { .. })
        ));
        assert!(
            !path.exists(),
            "{plan:?}: a half-written database at the path"
        );
        assert!(
            !dir.path().join("new.emdb.create.tmp").exists(),
            "{plan:?}: temp file left behind"
        );
        Emdb::open(&path).unwrap().insert("a", "1").unwrap();
        std::fs::remove_file(&path).unwrap();

        // An empty file (mktemp) is filled in place: a failure leaves it empty.
        let empty = dir.path().join("empty.emdb");
        std::fs::write(&empty, b"").unwrap();
        faults.short_write(WriteSite::Header, plan);
        assert!(matches!(
            faulty(&empty, &faults).build(),
            Err(Error::Io { .. })
        ));
        assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0, "{plan:?}");
        let db = Emdb::open(&empty).unwrap_or_else(|e| panic!("{plan:?}: {e}"));
        db.insert("a", "1").unwrap();
        drop(db);
        assert_eq!(
            Emdb::open(&empty).unwrap().get("a").unwrap(),
            Some(b"1".to_vec())
        );
        std::fs::remove_file(&empty).unwrap();
    }
}

#[test]
fn a_failed_checkpoint_write_keeps_the_old_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ck.emdb");
    let ckpt = dir.path().join("ck.emdb.ckpt");
    let faults = Arc::new(Faults::default());
    let db = faulty(&path, &faults)
        .checkpoint_on_close(false)
        .build()
        .unwrap();
    db.insert("a", "1").unwrap();
    db.checkpoint().unwrap();
    let old = std::fs::read(&ckpt).unwrap();
    db.insert("b", "2").unwrap();
    let plans = [
        ShortWrite::Fail {
            written: 40,
            errno: libc::ENOSPC,
        },
        ShortWrite::Zero { written: 0 },
    ];
    for plan in plans {
        faults.short_write(WriteSite::Checkpoint, plan);
        assert!(is_io(&db.checkpoint()), "{plan:?}");
        assert_eq!(
            std::fs::read(&ckpt).unwrap(),
            old,
            "{plan:?}: old checkpoint changed"
        );
        assert!(
            !dir.path().join("ck.emdb.ckpt.tmp").exists(),
            "{plan:?}: temp file left behind (on a full disk it holds the space)"
        );
    }
    faults.fail_dir_sync.store(true, Ordering::SeqCst);
    assert!(is_io(&db.checkpoint()));
    faults.fail_dir_sync.store(false, Ordering::SeqCst);
    // A checkpoint is only a shortcut: its failure poisons nothing.
    db.insert("c", "3").unwrap();
    db.flush().unwrap();
    let copy = crash_copy(&path, "ck-crash.emdb");
    for (k, v) in [("a", "1"), ("b", "2"), ("c", "3")] {
        assert_eq!(copy.get(k).unwrap(), Some(v.as_bytes().to_vec()));
    }
    drop(copy);
    db.checkpoint().unwrap();
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert!(db.recovery_report().used_checkpoint);
    assert_eq!(db.get("c").unwrap(), Some(b"3".to_vec()));
}

#[test]
fn a_failed_lock_file_write_fails_the_open_and_the_next_open_works() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lock.emdb");
    Emdb::open(&path).unwrap().insert("a", "1").unwrap();
    let faults = Arc::new(Faults::default());
    for plan in [
        ShortWrite::Fail {
            written: 5,
            errno: libc::ENOSPC,
        },
        ShortWrite::Zero { written: 0 },
    ] {
        faults.short_write(WriteSite::LockFile, plan);
        assert!(
            matches!(faulty(&path, &faults).build(), Err(Error::Io { .. })),
            "{plan:?}"
        );
        // The failed open released the lock.
        let db = Emdb::open(&path).unwrap();
        assert_eq!(db.get("a").unwrap(), Some(b"1".to_vec()));
        assert_eq!(
            Emdb::lock_holder(&path).unwrap().map(|h| (h.pid, h.alive)),
            Some((std::process::id(), true))
        );
    }
}

#[test]
fn a_failed_backup_write_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("src.emdb");
    let target = dir.path().join("copy.emdb");
    let faults = Arc::new(Faults::default());
    let db = faulty(&path, &faults).build().unwrap();
    db.insert_many((0..100u32).map(|i| (format!("k{i}"), vec![1u8; 100])))
        .unwrap();
    for plan in [
        ShortWrite::Fail {
            written: 4096 + 10,
            errno: libc::ENOSPC,
        },
        ShortWrite::Zero { written: 3 },
    ] {
        // Two writes: the header page, then the records.
        faults.short_write(WriteSite::Backup, ShortWrite::Chunked { chunk: 4096 });
        faults.short_write(WriteSite::Backup, plan);
        assert!(is_io(&db.backup_to(&target)), "{plan:?}");
        assert!(!target.exists());
        // No temp file, whatever its name (`copy.emdb.emdb-backup-...`).
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().starts_with("copy.emdb"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
    faults.fail_dir_sync.store(true, Ordering::SeqCst);
    assert!(is_io(&db.backup_to(&target)));
    faults.fail_dir_sync.store(false, Ordering::SeqCst);
    std::fs::remove_file(&target).unwrap();
    db.backup_to(&target).unwrap();
    assert_eq!(Emdb::open(&target).unwrap().len().unwrap(), 100);
}

#[test]
fn compaction_failures_leave_the_old_file_and_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cmp.emdb");
    let faults = Arc::new(Faults::default());
    let db = faulty(&path, &faults).build().unwrap();
    for i in 0..200u32 {
        db.insert(format!("k{i}"), vec![i as u8; 200]).unwrap();
    }
    for i in 0..100u32 {
        db.remove(format!("k{i}")).unwrap();
    }
    db.flush().unwrap();
    let before = std::fs::read(&path).unwrap();
    let tmp = dir.path().join("cmp.emdb.compact.tmp");
    // Before the rename: the old file stays, untouched, and the handle works.
    for flag in [&faults.fail_grow, &faults.fail_sync] {
        flag.store(true, Ordering::SeqCst);
        assert!(is_io(&db.compact()));
        flag.store(false, Ordering::SeqCst);
        assert!(!tmp.exists(), "compaction temp file left behind");
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
    db.insert("late", "1").unwrap();
    db.flush().unwrap();
    // After the rename, before the directory fsync: the handle can no
    // longer know which file a crash would leave. A write after the error
    // is refused, or it must survive.
    faults.fail_dir_sync.store(true, Ordering::SeqCst);
    assert!(is_io(&db.compact()));
    faults.fail_dir_sync.store(false, Ordering::SeqCst);
    let later = db.insert("later", "2").and_then(|()| db.flush());
    match &later {
        Ok(()) => {}
        Err(Error::Poisoned(_)) => {}
        Err(e) => panic!("unexpected {e}"),
    }
    assert_eq!(db.get("k150").unwrap(), Some(vec![150u8; 200]));
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.len().unwrap(), 101);
    assert_eq!(db.get("late").unwrap(), Some(b"1".to_vec()));
    if later.is_ok() {
        assert_eq!(
            db.get("later").unwrap(),
            Some(b"2".to_vec()),
            "a write acknowledged after a failed compaction was lost"
        );
    }
}

#[test]
fn a_failed_encryption_change_leaves_the_old_database_usable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("enc.emdb");
    {
        let db = Emdb::open(&path).unwrap();
        db.insert_many((0..300u32).map(|i| (format!("k{i}"), vec![7u8; 300])))
            .unwrap();
    }
    let key = [9u8; 32];
    type Arm = fn(&Faults);
    let arms: [(&str, Arm); 5] = [
        ("temp header write", |f| {
            f.short_write(
                WriteSite::Header,
                ShortWrite::Fail {
                    written: 30,
                    errno: libc::ENOSPC,
                },
            )
        }),
        ("temp file growth", |f| {
            f.fail_grow.store(true, Ordering::SeqCst)
        }),
        ("temp file fsync", |f| {
            f.fail_sync.store(true, Ordering::SeqCst)
        }),
        ("temp checkpoint", |f| {
            f.short_write(
                WriteSite::Checkpoint,
                ShortWrite::Fail {
                    written: 30,
                    errno: libc::ENOSPC,
                },
            )
        }),
        ("directory fsync", |f| {
            f.fail_dir_sync.store(true, Ordering::SeqCst)
        }),
    ];
    for (what, arm) in arms {
        let faults = Arc::new(Faults::default());
        arm(&faults);
        let r = Emdb::change_encryption_with_faults(
            &path,
            None,
            Some(EncryptionInput::Key(key)),
            faults,
        );
        assert!(matches!(r, Err(Error::Io { .. })), "{what}: {r:?}");
        // The old file is in place, plain, with all data; nothing is left
        // that blocks (a backup) or holds space (temp files).
        let db = Emdb::open(&path).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(db.len().unwrap(), 300, "{what}");
        drop(db);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".lock") && !n.ends_with(".stats"))
            .collect();
        left.sort();
        assert_eq!(left, ["enc.emdb", "enc.emdb.ckpt"], "{what}");
    }
    Emdb::enable_encryption(&path, EncryptionInput::Key(key)).unwrap();
    let db = Emdb::builder()
        .path(&path)
        .encryption_key(key)
        .build()
        .unwrap();
    assert_eq!(db.len().unwrap(), 300);
}

#[test]
fn a_short_log_write_is_an_error_poisons_the_handle_and_loses_nothing_flushed() {
    let dir = tempfile::tempdir().unwrap();
    let faults = Arc::new(Faults::default());
    let plans = [
        ShortWrite::Fail {
            written: 10,
            errno: ENOSPC,
        },
        ShortWrite::Zero { written: 0 },
    ];
    for (i, plan) in plans.into_iter().enumerate() {
        let path = dir.path().join(format!("log{i}.emdb"));
        let db = faulty(&path, &faults).build().unwrap();
        db.insert("kept", "1").unwrap();
        db.insert_many([("b1", "x"), ("b2", "y")]).unwrap();
        db.flush().unwrap();
        // Counts that come back short are retried, not taken as success.
        faults.short_write(WriteSite::Log, ShortWrite::Chunked { chunk: 5 });
        db.insert("chunked", "fine").unwrap();
        assert_eq!(db.get("chunked").unwrap(), Some(b"fine".to_vec()));
        faults.short_write(WriteSite::Log, plan);
        let r = if i == 0 {
            db.insert("lost", vec![9u8; 300])
        } else {
            db.insert_many([("lost", "a"), ("lost2", "b")])
        };
        assert!(is_io(&r), "{plan:?}: {r:?}");
        assert_eq!(faults.armed_short_writes(), 0);
        // The failed write is not visible, and the handle refuses to go on.
        assert_eq!(db.get("lost").unwrap(), None);
        let next = db.insert("next", "n");
        assert!(matches!(next, Err(Error::Poisoned(_))), "{next:?}");
        assert!(matches!(db.flush(), Err(Error::Poisoned(_))));
        // A power cut now, and a clean reopen: what was flushed is there,
        // the half-written frame is cut as a torn tail.
        let crashed = crash_copy(&path, &format!("crash{i}.emdb"));
        assert_eq!(crashed.get("kept").unwrap(), Some(b"1".to_vec()));
        assert_eq!(crashed.get("b2").unwrap(), Some(b"y".to_vec()));
        assert_eq!(crashed.get("lost").unwrap(), None);
        drop(crashed);
        drop(db);
        let db = Emdb::open(&path).unwrap();
        assert_eq!(db.get("kept").unwrap(), Some(b"1".to_vec()));
        assert_eq!(db.get("lost").unwrap(), None);
        db.insert("after", "ok").unwrap();
        db.flush().unwrap();
        drop(db);
        let db = Emdb::open(&path).unwrap();
        assert_eq!(db.get("after").unwrap(), Some(b"ok".to_vec()));
        assert_eq!(db.get("chunked").unwrap(), Some(b"fine".to_vec()));
    }
}

/// ENOSPC on Linux.
const ENOSPC: i32 = 28;

/// Issue 15, item 3: a write-through compaction that cannot open its
/// `O_DSYNC` descriptor on the new file (out of descriptors) used to fail
/// after its rename and keep writing to the old, unlinked file, so a
/// write-through insert acknowledged afterwards was gone after a reopen.
#[test]
fn a_write_through_compaction_that_cannot_open_its_descriptor_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wt.emdb");
    let faults = Arc::new(Faults::default());
    let db = open(&path, &faults, FlushPolicy::WriteThrough);
    for i in 0..60u32 {
        db.insert(format!("k{i}"), vec![i as u8; 64]).unwrap();
    }
    for i in 0..30u32 {
        db.remove(format!("k{i}")).unwrap();
    }
    faults.fail_open.store(true, Ordering::SeqCst);
    let compacted = db.compact();
    faults.fail_open.store(false, Ordering::SeqCst);
    assert!(
        compacted.is_err(),
        "the injected EMFILE must fail the compaction"
    );
    // Write-through: acknowledged on return. Refused is fine; lost is not.
    let late = db.insert("late", "1");
    match &late {
        Ok(()) | Err(Error::Poisoned(_)) => {}
        Err(e) => panic!("unexpected {e}"),
    }
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.get("k45").unwrap(), Some(vec![45u8; 64]));
    if late.is_ok() {
        assert_eq!(
            db.get("late").unwrap(),
            Some(b"1".to_vec()),
            "a write-through insert acknowledged after a failed compaction was lost"
        );
    }
    assert!(!dir.path().join("wt.emdb.compact.tmp").exists());
}

/// A compaction whose final checkpoint cannot be written (a full disk)
/// still compacted: it says so (`CheckpointNotWritten`: every write is
/// durable) instead of a bare I/O error that reads as a failed compaction.
#[test]
fn a_compaction_whose_checkpoint_fails_reports_the_compaction_done() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.emdb");
    let faults = Arc::new(Faults::default());
    let db = open(&path, &faults, FlushPolicy::OnEachFlush);
    for i in 0..2000u32 {
        db.insert(format!("k{i:05}"), [1u8; 100]).unwrap();
    }
    for i in 0..1000u32 {
        db.remove(format!("k{i:05}")).unwrap();
    }
    db.flush().unwrap();
    let dead = db.stats().unwrap().dead_bytes;
    assert!(dead > 0);
    faults.short_write(
        WriteSite::Checkpoint,
        ShortWrite::Fail {
            written: 4096,
            errno: libc::ENOSPC,
        },
    );
    let e = db.compact().unwrap_err();
    assert!(
        matches!(&e, Error::CheckpointNotWritten(inner) if matches!(**inner, Error::Io { .. })),
        "{e:?}"
    );
    assert_eq!(db.stats().unwrap().dead_bytes, 0, "not compacted");
    assert_eq!(db.len().unwrap(), 1000);
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.len().unwrap(), 1000);
    assert_eq!(db.get("k01999").unwrap(), Some(vec![1u8; 100]));
}

/// A salvage open (what `emdb check --repair` runs) whose compaction fails,
/// as on a full disk, leaves the damage for the next repair to find: it
/// writes no checkpoint of the index it salvaged. Before, its close
/// checkpointed that index over the still-damaged log, and every later
/// open answered the damaged key with its older value, with no error.
#[test]
fn a_salvage_whose_compaction_fails_leaves_the_damage_visible() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.emdb");
    let db = Emdb::open(&path).unwrap();
    for i in 0..100u32 {
        db.insert(format!("k{i:03}"), "old").unwrap();
    }
    db.flush().unwrap();
    db.checkpoint().unwrap();
    db.insert("k007", "the newest value").unwrap();
    db.flush().unwrap();
    let end = db.stats().unwrap().log_logical_bytes;
    db.insert("z", "1").unwrap();
    db.flush().unwrap();
    drop(db);
    // Damage a byte of k007's newest value (its record ends at `end`).
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[end as usize - 3] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    let faults = Arc::new(Faults::default());
    faults.fail_grow.store(true, Ordering::SeqCst);
    let e = Emdb::builder()
        .path(&path)
        .salvage(true)
        .faults(Arc::clone(&faults))
        .build()
        .unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e:?}");
    match Emdb::open(&path) {
        Err(Error::Corruption { .. }) => {}
        Err(e) => panic!("open after a failed repair: {e:?}"),
        Ok(db) => panic!(
            "the damage is hidden: k007 reads {:?}",
            db.get("k007").map(|v| v.map(String::from_utf8))
        ),
    }
    // The repair, retried with room, drops the damaged record.
    let db = Emdb::builder().path(&path).salvage(true).build().unwrap();
    assert_eq!(db.get("k007").unwrap(), Some(b"old".to_vec()));
    assert_eq!(db.len().unwrap(), 101);
}
