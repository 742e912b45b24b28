//! `Emdb::close`: what a clean close writes, in which order, and that it
//! reports what fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use common::{ckpt_path, sibling};
use emdb_core::{Emdb, Error, Faults, FsEvent, ShortWrite, WriteSite};

/// Every event that changes what survives a power cut, from now on.
fn record(faults: &Faults) -> Arc<Mutex<Vec<FsEvent>>> {
    let events: Arc<Mutex<Vec<FsEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    faults.observe(move |e| sink.lock().unwrap().push(e.clone()));
    events
}

fn open(path: &Path, faults: &Arc<Faults>) -> Emdb {
    Emdb::builder()
        .path(path)
        .faults(Arc::clone(faults))
        .build()
        .unwrap()
}

fn synced(events: &[FsEvent], path: &Path) -> Vec<usize> {
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, FsEvent::Synced(p) if p == path))
        .map(|(i, _)| i)
        .collect()
}

/// Insert `n` keys `{prefix}{i}` with `value`, one record each.
fn fill(db: &Emdb, prefix: &str, n: u32, value: &[u8]) {
    for i in 0..n {
        db.insert(format!("{prefix}{i:06}"), value).unwrap();
    }
}

#[test]
fn close_syncs_the_log_once_and_installs_the_checkpoint_only_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("close.emdb");
    let faults = Arc::new(Faults::default());
    let db = open(&path, &faults);
    fill(&db, "key:", 5000, &[7u8; 40]);
    let events = record(&faults);
    let other = db.clone();
    db.close().unwrap();
    let seen = events.lock().unwrap().clone();
    let log_syncs = synced(&seen, &path);
    assert_eq!(log_syncs.len(), 1, "one sync of the log: {seen:?}");
    let installed = seen
        .iter()
        .position(|e| matches!(e, FsEvent::Renamed { to, .. } if *to == ckpt_path(&path)))
        .unwrap_or_else(|| panic!("no checkpoint installed: {seen:?}"));
    assert!(
        log_syncs[0] < installed,
        "the checkpoint was renamed into place before the log was durable: {seen:?}"
    );
    // The clone still works; with nothing written since, its last drop
    // (a second close) changes nothing on disk.
    assert_eq!(other.len().unwrap(), 5000);
    events.lock().unwrap().clear();
    drop(other);
    assert!(
        events.lock().unwrap().is_empty(),
        "{:?}",
        events.lock().unwrap()
    );
    faults.stop_observing();
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.len().unwrap(), 5000);
    assert_eq!(db.get("key:004999").unwrap(), Some(vec![7u8; 40]));
    assert_eq!(db.recovery_report().records_replayed, 0);
}

#[test]
fn a_clone_writes_on_after_another_clone_closed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("after.emdb");
    let db = Emdb::open(&path).unwrap();
    for i in 0..3000u32 {
        db.insert(format!("a:{i:05}"), [3u8; 60]).unwrap();
    }
    let other = db.clone();
    // Trims the room allocated ahead and checkpoints.
    db.close().unwrap();
    // The file grows again under the handle that stays.
    for i in 0..20_000u32 {
        other.insert(format!("b:{i:05}"), [4u8; 100]).unwrap();
    }
    other.flush().unwrap();
    assert_eq!(other.get("a:00042").unwrap(), Some(vec![3u8; 60]));
    assert_eq!(other.get("b:19999").unwrap(), Some(vec![4u8; 100]));
    drop(other);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.len().unwrap(), 23_000);
    assert_eq!(db.get("b:00000").unwrap(), Some(vec![4u8; 100]));
    let next: Vec<Vec<u8>> = db
        .range_iter(b"a:02998".to_vec()..)
        .unwrap()
        .take(3)
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(next, [&b"a:02998"[..], b"a:02999", b"b:00000"]);
}

#[test]
fn a_close_after_a_flush_syncs_nothing_more() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("put.emdb");
    let faults = Arc::new(Faults::default());
    {
        let db = open(&path, &faults);
        fill(&db, "key:", 2000, &[1u8; 40]);
        db.close().unwrap();
    }
    // What `emdb put` does: one small write, flushed, then close.
    let db = open(&path, &faults);
    db.insert("one", "more").unwrap();
    db.flush().unwrap();
    let events = record(&faults);
    db.close().unwrap();
    let seen = events.lock().unwrap().clone();
    assert!(
        !seen.iter().any(|e| matches!(e, FsEvent::Synced(_))),
        "a flushed small write was synced again at close: {seen:?}"
    );
    faults.stop_observing();
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.get("one").unwrap(), Some(b"more".to_vec()));
    assert_eq!(db.len().unwrap(), 2001);
}

#[test]
fn close_reports_a_failed_sync_and_a_poisoned_handle() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fail.emdb");
    let faults = Arc::new(Faults::default());
    let db = open(&path, &faults);
    db.insert("durable", "1").unwrap();
    db.flush().unwrap();
    db.insert("maybe", "2").unwrap();
    faults.fail_sync.store(true, Ordering::SeqCst);
    let other = db.clone();
    assert!(matches!(db.close(), Err(Error::Io { .. })));
    faults.fail_sync.store(false, Ordering::SeqCst);
    // The failed sync poisoned the handle: closing again says so.
    assert!(matches!(other.close(), Err(Error::Poisoned(_))));
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.get("durable").unwrap(), Some(b"1".to_vec()));
}

#[test]
fn only_writers_with_background_threads_publish_the_stats_sidecar() {
    for background in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("side.emdb");
        let db = Emdb::builder()
            .path(&path)
            .background(background)
            .build()
            .unwrap();
        db.insert("k", "v").unwrap();
        db.close().unwrap();
        assert_eq!(
            sibling(&path, ".stats").exists(),
            background,
            "background({background})"
        );
    }
}

/// A database of 200 keys whose values end in a zero byte (little-endian
/// integers), which make a read look past its frame.
fn zero_ended(path: &Path) -> Emdb {
    let db = Emdb::open(path).unwrap();
    for i in 0..200u32 {
        db.insert(format!("k{i:05}"), u64::from(i).to_le_bytes())
            .unwrap();
    }
    db
}

/// An iterator made before a close (which trims the file's preallocated
/// room and swaps in a shorter mapping) reads on after it: its checks past
/// a frame go through the current mapping, not one past the file's end.
#[test]
fn an_iterator_reads_on_after_its_handle_closed() {
    let dir = tempfile::tempdir().unwrap();
    let db = zero_ended(&dir.path().join("db.emdb"));
    let it = db.range_iter(..).unwrap();
    db.close().unwrap();
    let mut n = 0;
    for r in it {
        r.unwrap();
        n += 1;
    }
    assert_eq!(n, 200);
}

/// A clone writes on after another clone closed while an iterator made
/// before the close read: the read did not mark the log as cut.
#[test]
fn a_clone_writes_on_after_an_old_iterator_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = zero_ended(&dir.path().join("db.emdb"));
    let other = db.clone();
    let it = db.range_iter(..).unwrap();
    db.close().unwrap();
    let errors = it.filter(|r| r.is_err()).count();
    let w = other.insert("more", "x");
    let f = other.flush();
    assert!(
        errors == 0 && w.is_ok() && f.is_ok(),
        "iterator errors {errors}, write {w:?}, flush {f:?}"
    );
}

/// 2,000 keys `base*` checkpointed, then `crashed` keys of 150 bytes
/// written by a writer that stopped without its close's checkpoint.
fn crashed_after_checkpoint(path: &Path, crashed: u32) {
    let db = Emdb::open(path).unwrap();
    fill(&db, "base", 2_000, b"v");
    drop(db);
    let db = Emdb::builder()
        .path(path)
        .checkpoint_on_close(false)
        .build()
        .unwrap();
    fill(&db, "crashed", crashed, &[7u8; 150]);
    drop(db);
}

/// A writer opened for a short call (`background(false)`; the CLI's
/// one-shot writes use `write_keys`, below) leaves a short tail for the
/// next open to replay, but
/// checkpoints at close once the tail reaches its bound: over any number of
/// such handles the log written since the checkpoint stays bounded, and the
/// first one after a crashed writer pays for its long tail once.
#[test]
fn one_shot_writers_keep_the_tail_they_leave_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oneshot.emdb");
    crashed_after_checkpoint(&path, 2_000);
    let one_shot = || {
        Emdb::builder()
            .path(&path)
            .background(false)
            .build()
            .unwrap()
    };
    let db = one_shot();
    assert!(db.recovery_report().replayed_bytes > 300 << 10);
    db.insert("first", "after the crash").unwrap();
    drop(db);
    let mut most = 0;
    let mut checkpoints = 0;
    let mut last = u64::MAX;
    for i in 0..400u32 {
        let db = one_shot();
        let replayed = db.recovery_report().replayed_bytes;
        most = most.max(replayed);
        if replayed < last {
            checkpoints += 1;
        }
        last = replayed;
        db.insert(format!("call{i:04}"), [i as u8; 400]).unwrap();
        drop(db);
    }
    // Each call writes ~420 bytes; the bound on this small image is 64 KiB.
    assert!(
        most < (64 << 10) + 1024,
        "a one-shot open replayed {most} bytes"
    );
    // The first loop open found the crash's tail checkpointed; about 150
    // calls fill the bound, so it was reached twice more.
    assert!(checkpoints >= 3, "{checkpoints} checkpoints in 400 calls");
    let db = one_shot();
    assert_eq!(
        db.get("first").unwrap().as_deref(),
        Some(&b"after the crash"[..])
    );
    assert_eq!(db.len().unwrap(), 4_401);
}

/// One-shot writes through `EmdbBuilder::write_keys` (the CLI's `put`,
/// `del KEY`, `incr`) index only their keys of the log written since the
/// checkpoint and close without a checkpoint; once that tail reaches its
/// bound, a full writer checkpoints after the close. Over many calls the
/// tail stays bounded, a call after a crashed writer's long tail has it
/// checkpointed, and each call's write is synced before it returns.
#[test]
fn keys_writes_keep_the_tail_bounded_and_sync_what_they_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.emdb");
    crashed_after_checkpoint(&path, 3_000);
    // What the next full open would replay: a read-only open replays it all.
    let tail = || {
        let r = Emdb::builder().path(&path).read_only(true).build().unwrap();
        r.recovery_report().replayed_bytes
    };
    assert!(tail() > 400 << 10);
    let faults = Arc::new(Faults::default());
    let events = record(&faults);
    let put = |key: &str, value: &[u8], faults: Option<&Arc<Faults>>| {
        let b = Emdb::builder().path(&path);
        let b = match faults {
            Some(f) => b.faults(Arc::clone(f)),
            None => b,
        };
        b.write_keys(None, true, &[key.as_bytes()], |w| {
            w.insert(key.as_bytes(), value, emdb_core::Ttl::Never)
        })
        .unwrap()
        .unwrap();
    };
    put("first", b"after the crash", None);
    assert_eq!(tail(), 0, "the crashed writer's tail was not checkpointed");
    let (mut most, mut checkpoints, mut last) = (0, 0, 0);
    for i in 0..400u32 {
        // The first call leaves the checkpoint to a later one: the sync
        // seen is its close's.
        put(
            &format!("call{i:04}"),
            &[i as u8; 400],
            (i == 0).then_some(&faults),
        );
        if i == 0 {
            assert_eq!(
                synced(&events.lock().unwrap(), &path).len(),
                1,
                "the write was not synced once"
            );
        }
        let now = tail();
        most = most.max(now);
        checkpoints += usize::from(now < last);
        last = now;
    }
    // Each call writes ~420 bytes; the bound on this small image is 64 KiB.
    assert!(most < (64 << 10) + 1024, "the tail reached {most} bytes");
    assert!(checkpoints >= 2, "{checkpoints} checkpoints in 400 calls");
    let db = Emdb::open(&path).unwrap();
    assert_eq!(
        db.get("first").unwrap().as_deref(),
        Some(&b"after the crash"[..])
    );
    assert_eq!(db.get("call0399").unwrap(), Some(vec![143u8; 400]));
    assert_eq!(db.len().unwrap(), 5_401);
    // While a writer holds the lock, a one-shot write waits for nobody.
    let held = emdb_core::Emdb::builder()
        .path(&path)
        .write_keys(None, true, &[&b"k"[..]], |w| {
            w.insert(b"k", b"v", emdb_core::Ttl::Never)
        });
    assert!(matches!(held, Err(Error::LockBusy { .. })), "{held:?}");
}

/// A close writes its checkpoint from the index's own slots, holding the
/// writer lock until the file is written: a clone writing meanwhile waits,
/// loses nothing, and the checkpoint on disk is the index as of the close
/// (a read-only open that uses it finds every key, each with its value).
#[test]
fn a_clone_writing_while_another_closes_waits_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("busy.emdb");
    let db = Emdb::builder()
        .path(&path)
        .background(false)
        .build()
        .unwrap();
    fill(&db, "base:", 20_000, &[1u8; 40]);
    db.checkpoint().unwrap();
    // A tail past the close bound, so the close checkpoints.
    fill(&db, "tail:", 3000, &[2u8; 100]);
    let other = db.clone();
    let writer = std::thread::spawn(move || {
        for i in 0..3000u32 {
            other
                .insert(format!("base:{:06}", i * 7 % 20_000), format!("new{i}"))
                .unwrap();
            other.insert(format!("more:{i:06}"), [3u8; 20]).unwrap();
        }
        other
    });
    db.close().unwrap();
    let other = writer.join().unwrap();
    drop(other);
    let ro = Emdb::builder().path(&path).read_only(true).build().unwrap();
    assert!(ro.recovery_report().used_checkpoint);
    assert_eq!(ro.len().unwrap(), 20_000 + 3000 + 3000);
    for i in 0..3000u32 {
        let k = format!("base:{:06}", i * 7 % 20_000);
        // The newest write of each key: later i overwrite earlier ones.
        let last = (0..3000u32)
            .rev()
            .find(|j| j * 7 % 20_000 == i * 7 % 20_000)
            .unwrap();
        assert_eq!(
            ro.get(&k).unwrap().unwrap(),
            format!("new{last}").into_bytes()
        );
        assert!(ro.contains_key(format!("more:{i:06}")).unwrap());
        assert!(ro.contains_key(format!("tail:{i:06}")).unwrap());
    }
    let got: Vec<Vec<u8>> = ro.range_iter(..).unwrap().map(|p| p.unwrap().0).collect();
    let mut want = got.clone();
    want.sort();
    assert!(got == want && got.len() == 26_000, "ordered reads");
}

/// Run `f` on a thread; panic if it does not return within 20 s (a
/// writer lock left held).
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("{what}: no answer in 20 s (writer lock held?)"))
}

/// A close whose checkpoint write fails (written from the live index,
/// under the writer lock) reports it, leaves no temp file, and lets a
/// clone write and close.
#[test]
fn a_close_whose_checkpoint_write_fails_releases_writers_and_leaves_no_temp() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fail.emdb");
    let faults = Arc::new(Faults::default());
    let db = Emdb::builder()
        .path(&path)
        .background(false)
        .faults(Arc::clone(&faults))
        .build()
        .unwrap();
    for i in 0..5000u32 {
        db.insert(format!("k{i:06}"), [1u8; 40]).unwrap();
    }
    let other = db.clone();
    faults.short_write(
        WriteSite::Checkpoint,
        ShortWrite::Fail {
            written: 4096,
            errno: libc::ENOSPC,
        },
    );
    // Reported as what it is: the writes are durable, only the index
    // was not written.
    let closed = db.close();
    assert!(
        matches!(&closed, Err(Error::CheckpointNotWritten(e)) if matches!(**e, Error::Io { .. })),
        "{closed:?}"
    );
    assert!(!sibling(&ckpt_path(&path), ".tmp").exists(), "temp left");
    // The writer lock was released: the clone writes and closes.
    let other = within("write after a failed close", move || {
        other.insert("after", "1").unwrap();
        other
    });
    other.close().unwrap();
    let db = Emdb::open(&path).unwrap();
    assert!(db.recovery_report().used_checkpoint);
    assert_eq!(db.len().unwrap(), 5001);
}

/// A close whose log sync fails installs no checkpoint and leaves no
/// writer lock held: a poisoned clone's write answers with an error.
#[test]
fn a_close_whose_log_sync_fails_releases_writers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sync.emdb");
    let faults = Arc::new(Faults::default());
    let db = Emdb::builder()
        .path(&path)
        .background(false)
        .faults(Arc::clone(&faults))
        .build()
        .unwrap();
    for i in 0..5000u32 {
        db.insert(format!("k{i:06}"), [1u8; 40]).unwrap();
    }
    let other = db.clone();
    faults.fail_sync.store(true, Ordering::SeqCst);
    assert!(db.close().is_err());
    assert!(!sibling(&ckpt_path(&path), ".tmp").exists(), "temp left");
    assert!(
        !ckpt_path(&path).exists(),
        "no checkpoint over an unsynced log"
    );
    // Poisoned, but answering: no writer lock left held.
    let r = within("write after a failed sync", move || other.insert("x", "1"));
    assert!(r.is_err());
}

/// Clones closing again and again beside two writers and the background
/// threads: every close returns, nothing is lost.
#[test]
fn a_clone_closing_beside_background_threads_and_writers_does_not_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bg.emdb");
    let db = Emdb::builder()
        .path(&path)
        .checkpoint_tail(Some(64 << 10))
        .build()
        .unwrap();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut writers = Vec::new();
    for t in 0..2u32 {
        let (db, stop) = (db.clone(), Arc::clone(&stop));
        writers.push(std::thread::spawn(move || {
            let mut i = 0u32;
            while !stop.load(Ordering::Relaxed) {
                db.insert(format!("t{t}:{:05}", i % 20_000), [t as u8; 60])
                    .unwrap();
                i += 1;
            }
        }));
    }
    for _ in 0..20 {
        std::thread::sleep(Duration::from_millis(30));
        let c = db.clone();
        within("close beside writers", move || c.close()).unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    let n = db.len().unwrap();
    within("last drop", move || drop(db));
    let ro = Emdb::builder().path(&path).read_only(true).build().unwrap();
    assert_eq!(ro.len().unwrap(), n);
}
