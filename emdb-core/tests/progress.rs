//! `progress::observe` around the long operations: each reports its phase
//! from 0 to its total in order, the total is the size it works through,
//! and without an observer nothing changes (the fault tests cover that path).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use emdb_core::progress::{self, Phase, Progress};
use emdb_core::{Emdb, EncryptionInput};

/// Run `op` observed; return what it reported.
fn reports<R>(op: impl FnOnce() -> R) -> (R, Vec<Progress>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let r = progress::observe(move |p| sink.lock().unwrap().push(p), op);
    let seen = seen.lock().unwrap().clone();
    (r, seen)
}

/// Every report of `phase`: starts at 0, never goes back, ends at the total.
fn check_phase(seen: &[Progress], phase: Phase) -> u64 {
    let of: Vec<&Progress> = seen.iter().filter(|p| p.phase == phase).collect();
    assert!(of.len() >= 3, "{phase:?}: {seen:?}");
    let total = of[0].total;
    assert_eq!(of[0].done, 0);
    assert!(of.iter().all(|p| p.total == total && p.done <= total));
    assert!(of.windows(2).all(|w| w[0].done <= w[1].done), "{of:?}");
    assert_eq!(of.last().unwrap().done, total);
    total
}

/// A database of 4,000 records of 1 KiB, half of them overwritten.
fn filled(path: &std::path::Path) -> Emdb {
    let db = Emdb::open(path).unwrap();
    let value = vec![7u8; 1024];
    db.insert_many((0..4000u32).map(|i| (format!("k{i:05}"), value.clone())))
        .unwrap();
    db.insert_many((0..2000u32).map(|i| (format!("k{i:05}"), value.clone())))
        .unwrap();
    db.flush().unwrap();
    db
}

#[test]
fn compaction_verify_and_backup_report_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.emdb");
    let db = filled(&path);
    let live = db.stats().unwrap().log_logical_bytes - db.stats().unwrap().dead_bytes;

    let (r, seen) = reports(|| db.compact());
    r.unwrap();
    let total = check_phase(&seen, Phase::Compacting);
    // The live records' bytes: about 4,000 KiB, well under the 6,000 KiB written.
    assert!(total >= 4000 * 1024 && total <= live, "{total} {live}");

    let (r, seen) = reports(|| db.backup_to(dir.path().join("b.emdb")));
    r.unwrap();
    let total = check_phase(&seen, Phase::Copying);
    assert_eq!(
        total,
        std::fs::metadata(dir.path().join("b.emdb")).unwrap().len()
    );
    assert_eq!(
        Emdb::open(dir.path().join("b.emdb"))
            .unwrap()
            .len()
            .unwrap(),
        4000
    );
    drop(db);

    let (r, seen) = reports(|| Emdb::verify(&path, None));
    let found = r.unwrap();
    assert!(found.is_clean());
    let total = check_phase(&seen, Phase::Verifying);
    assert_eq!(total + 4096, std::fs::metadata(&path).unwrap().len());

    // Unobserved, the same operations report nothing (and still work).
    let db = Emdb::open(&path).unwrap();
    db.compact().unwrap();
    assert_eq!(db.len().unwrap(), 4000);
}

#[test]
fn encryption_changes_report_the_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.emdb");
    drop(filled(&path));
    let key = || EncryptionInput::Key([9u8; 32]);
    let (r, seen) = reports(|| Emdb::enable_encryption(&path, key()));
    r.unwrap();
    let total = check_phase(&seen, Phase::Rewriting);
    assert!(total >= 4000 * 1024, "{total}");
    std::fs::remove_file(dir.path().join("e.emdb.encbak")).unwrap();
    let (r, seen) = reports(|| Emdb::disable_encryption(&path, key()));
    r.unwrap();
    check_phase(&seen, Phase::Rewriting);
    assert_eq!(Emdb::open(&path).unwrap().len().unwrap(), 4000);
}
