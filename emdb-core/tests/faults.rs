//! Injected I/O faults surface as errors, never as success; a failed fsync
//! poisons the handle; the database reopens with everything flushed before.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::Ordering;
use std::sync::Arc;

use emdb_core::{Emdb, Error, Faults, FlushPolicy};

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
    assert!(matches!(db.compact(), Ok(()) | Err(Error::Io { .. })));
    // Space comes back: writing works again, nothing was lost.
    faults.fail_grow.store(false, Ordering::SeqCst);
    db.insert("big", &big).unwrap();
    db.flush().unwrap();
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.get("small").unwrap(), Some(b"1".to_vec()));
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
