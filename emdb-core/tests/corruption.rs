//! Corruption tests: damage the bytes of a database on purpose and check that
//! emdb reports it (never a panic, never wrong data), that salvage keeps
//! everything undamaged, and that torn unflushed tails are cut silently.
//!
//! Offsets of records come from `stats().log_logical_bytes` before and after
//! each write; the header layout (magic, identity block, sync slots) is the
//! one docs/FORMAT.md specifies.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use common::{ckpt_path, compact_tmp_path, contents, diff, remove_if_exists, show, Contents, Rng};
use emdb_core::{Emdb, Error};

/// Size of the header page (docs/FORMAT.md).
const HEADER: usize = 4096;
/// The identity block: magic (0..8), then fields and their CRC up to 52.
const MAGIC_LEN: usize = 8;
const IDENTITY_END: usize = 52;
/// The two sync slots.
const SLOTS: std::ops::Range<usize> = 512..576;

// ---- a database with known record offsets ----------------------------------

#[derive(Clone, Debug)]
enum Write {
    Put(Vec<u8>, Vec<u8>),
    Remove(Vec<u8>),
    Batch(Vec<(Vec<u8>, Vec<u8>)>),
    /// A transaction: inserts (`Some`) and removes (`None`).
    Tx(Vec<(Vec<u8>, Option<Vec<u8>>)>),
}

impl Write {
    fn run(&self, db: &Emdb) {
        match self {
            Write::Put(k, v) => db.insert(k, v).unwrap(),
            Write::Remove(k) => assert!(db.remove(k).unwrap().is_some()),
            Write::Batch(items) => db.insert_many(items.iter().map(|(k, v)| (k, v))).unwrap(),
            Write::Tx(ops) => db
                .transaction(|tx| {
                    for (k, v) in ops {
                        match v {
                            Some(v) => tx.insert(k, v)?,
                            None => {
                                tx.remove(k)?;
                            }
                        }
                    }
                    Ok(())
                })
                .unwrap(),
        }
    }

    fn apply(&self, m: &mut Contents) {
        match self {
            Write::Put(k, v) => {
                m.insert(k.clone(), v.clone());
            }
            Write::Remove(k) => {
                m.remove(k);
            }
            Write::Batch(items) => {
                for (k, v) in items {
                    m.insert(k.clone(), v.clone());
                }
            }
            Write::Tx(ops) => {
                for (k, v) in ops {
                    match v {
                        Some(v) => m.insert(k.clone(), v.clone()),
                        None => m.remove(k),
                    };
                }
            }
        }
    }

    fn keys(&self) -> Vec<Vec<u8>> {
        match self {
            Write::Put(k, _) | Write::Remove(k) => vec![k.clone()],
            Write::Batch(items) => items.iter().map(|(k, _)| k.clone()).collect(),
            Write::Tx(ops) => ops.iter().map(|(k, _)| k.clone()).collect(),
        }
    }

    /// True for a unit made of one Put frame (every byte belongs to the
    /// record the index points at).
    fn is_single_put(&self) -> bool {
        matches!(self, Write::Put(..))
    }
}

/// One unit of the log (a record, or a whole batch) and where it lies.
#[derive(Clone, Debug)]
struct Unit {
    start: u64,
    end: u64,
    write: Write,
}

impl Unit {
    fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(13).wrapping_add(seed) | 1)
        .collect()
}

fn key(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

/// Twenty plain records, then the tail whose every byte the tests damage.
fn writes() -> (Vec<Write>, Vec<Write>) {
    let head = (0..20)
        .map(|i| Write::Put(key(&format!("key-{i:02}")), pattern(10 + i, i as u8)))
        .collect();
    let tail = vec![
        Write::Put(key("tail-a"), pattern(40, 1)),
        Write::Remove(key("key-03")),
        Write::Batch(vec![
            (key("batch-x"), pattern(24, 2)),
            (key("batch-y"), Vec::new()),
            (key("key-07"), pattern(9, 3)),
        ]),
        Write::Tx(vec![
            (key("tx-1"), Some(pattern(16, 4))),
            (key("key-05"), None),
        ]),
        Write::Put(Vec::new(), pattern(5, 5)),
        Write::Put(key("tail-c"), pattern(60, 6)),
    ];
    (head, tail)
}

/// Run `writes`, returning the unit of each with its offsets.
fn run_writes(db: &Emdb, writes: &[Write]) -> Vec<Unit> {
    writes
        .iter()
        .map(|w| {
            let start = db.stats().unwrap().log_logical_bytes;
            w.run(db);
            let end = db.stats().unwrap().log_logical_bytes;
            assert!(end > start, "{w:?} wrote nothing");
            Unit {
                start,
                end,
                write: w.clone(),
            }
        })
        .collect()
}

/// A cleanly closed database: its files' bytes and the tail's units.
struct Pristine {
    log: Vec<u8>,
    ckpt: Vec<u8>,
    tail: Vec<Unit>,
    head: Vec<Write>,
}

impl Pristine {
    fn build(dir: &Path) -> Pristine {
        let path = dir.join("pristine.emdb");
        let (head, tail) = writes();
        let units = {
            let db = Emdb::open(&path).unwrap();
            run_writes(&db, &head);
            db.flush().unwrap();
            run_writes(&db, &tail)
        };
        let log = std::fs::read(&path).unwrap();
        assert_eq!(
            log.len() as u64,
            units.last().unwrap().end,
            "a clean close trims the log to its end"
        );
        Pristine {
            log,
            ckpt: std::fs::read(ckpt_path(&path)).unwrap(),
            tail: units,
            head,
        }
    }

    /// The contents with every write applied, except tail unit `skip`.
    fn model(&self, skip: Option<usize>) -> Contents {
        let mut m = Contents::new();
        for w in &self.head {
            w.apply(&mut m);
        }
        for (i, u) in self.tail.iter().enumerate() {
            if Some(i) != skip {
                u.write.apply(&mut m);
            }
        }
        m
    }
}

/// Put `log` (and `ckpt`, when given) at a scratch path; remove the rest.
fn stage(dir: &Path, log: &[u8], ckpt: Option<&[u8]>) -> PathBuf {
    let path = dir.join("scratch.emdb");
    std::fs::write(&path, log).unwrap();
    remove_if_exists(&compact_tmp_path(&path));
    match ckpt {
        Some(c) => std::fs::write(ckpt_path(&path), c).unwrap(),
        None => remove_if_exists(&ckpt_path(&path)),
    }
    path
}

/// Open without writing a checkpoint at close (fewer fsyncs per attempt).
fn open_no_checkpoint(path: &Path) -> emdb_core::Result<Emdb> {
    Emdb::builder()
        .path(path)
        .checkpoint_on_close(false)
        .build()
}

fn open_salvage(path: &Path) -> emdb_core::Result<Emdb> {
    Emdb::builder().path(path).salvage(true).build()
}

/// Every key of `expected` reads back, with `get` and `iter`.
fn assert_contents(db: &Emdb, expected: &Contents, what: &str) {
    let got = contents(db);
    assert!(got == *expected, "{what}:\n{}", diff(&got, expected));
    assert_eq!(db.len().unwrap(), expected.len(), "{what}: len");
    for (k, v) in expected {
        assert_eq!(
            db.get(k).unwrap().as_ref(),
            Some(v),
            "{what}: get {}",
            show(k)
        );
    }
}

// ---- (a) flipped bytes, replay path -----------------------------------------

#[test]
fn flipped_byte_in_a_durable_record_fails_open_with_its_offset() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let mut checked = 0;
    for unit in &p.tail {
        for pos in unit.range() {
            for mask in [0xffu8, 0x01, 0x80] {
                let mut bytes = p.log.clone();
                bytes[pos] ^= mask;
                let path = stage(dir.path(), &bytes, None);
                match Emdb::open(&path) {
                    Err(Error::Corruption { offset, .. }) => assert!(
                        unit.start <= offset && offset <= pos as u64,
                        "flip at {pos} in {unit:?}: corruption reported at {offset}"
                    ),
                    Err(e) => panic!("flip at {pos} (mask {mask:#x}) in {unit:?}: {e}"),
                    Ok(db) => panic!(
                        "flip at {pos} (mask {mask:#x}) in {unit:?} opened: {:?}",
                        db.recovery_report()
                    ),
                }
                assert_eq!(
                    std::fs::read(&path).unwrap(),
                    bytes,
                    "a failed open modified the file"
                );
                checked += 1;
            }
        }
    }
    eprintln!("{checked} damaged files rejected");
}

// ---- (b) salvage ------------------------------------------------------------

#[test]
fn salvage_skips_exactly_the_damaged_unit_and_keeps_every_other_record() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let full = p.model(None);
    for (i, unit) in p.tail.iter().enumerate() {
        let without = p.model(Some(i));
        let touched = unit.write.keys();
        for pos in unit.range() {
            let mut bytes = p.log.clone();
            bytes[pos] ^= 0xff;
            let what = format!("flip at {pos} in unit {i} {unit:?}");
            let path = stage(dir.path(), &bytes, None);
            let db = open_salvage(&path).unwrap_or_else(|e| panic!("{what}: salvage open: {e}"));
            let rep = db.recovery_report().clone();
            // Skipping starts where the damaged unit starts and never
            // reaches into another unit. (Salvage resynchronises on the
            // next valid frame, which may be a frame inside a damaged
            // batch: a batch's undamaged frames are kept, each reported
            // range lies inside the unit.)
            assert!(!rep.skipped.is_empty(), "{what}: nothing skipped: {rep:?}");
            assert_eq!(rep.skipped[0].offset, unit.start, "{what}: {rep:?}");
            for s in &rep.skipped {
                assert!(
                    unit.start <= s.offset && s.offset + s.len <= unit.end,
                    "{what}: skipped {s:?} reaches outside the unit"
                );
            }
            assert!(
                rep.skipped.iter().any(|s| s.offset <= pos as u64),
                "{what}: {rep:?}"
            );
            let got = contents(&db);
            for (k, v) in &full {
                if !touched.contains(k) {
                    assert_eq!(got.get(k), Some(v), "{what}: undamaged {} lost", show(k));
                }
            }
            for (k, v) in &got {
                if touched.contains(k) {
                    // Either the damaged write is gone for this key or it was
                    // kept intact; never anything else.
                    assert!(
                        full.get(k) == Some(v) || without.get(k) == Some(v),
                        "{what}: {} reads {}",
                        show(k),
                        show(v)
                    );
                } else {
                    assert_eq!(full.get(k), Some(v), "{what}: {} appeared", show(k));
                }
            }
            for k in &touched {
                if !got.contains_key(k) {
                    assert!(
                        !full.contains_key(k) || !without.contains_key(k),
                        "{what}: {} vanished though it existed with or without the write",
                        show(k)
                    );
                }
            }
            drop(db);
            // The salvage rewrote the file: a plain open is clean now.
            remove_if_exists(&ckpt_path(&path));
            let db = open_no_checkpoint(&path).unwrap_or_else(|e| panic!("{what}: reopen: {e}"));
            assert!(db.recovery_report().skipped.is_empty());
            assert_contents(&db, &got, &format!("{what}: reopen after salvage"));
        }
    }
}

/// A read-only open never modifies a file, so it is the way to look at a
/// damaged database before repairing it: with salvage it must skip and
/// report the damage (without rewriting anything) instead of failing.
#[test]

fn read_only_salvage_reports_damage_and_leaves_the_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let (i, unit) = (2, &p.tail[2]); // the batch
    let mut bytes = p.log.clone();
    bytes[unit.start as usize + 30] ^= 0xff;
    let path = stage(dir.path(), &bytes, None);
    let db = Emdb::builder()
        .path(&path)
        .salvage(true)
        .read_only(true)
        .build()
        .unwrap_or_else(|e| panic!("read-only salvage open: {e}"));
    let rep = db.recovery_report().clone();
    assert_eq!(
        rep.skipped.first().map(|s| s.offset),
        Some(unit.start),
        "{rep:?}"
    );
    let got = contents(&db);
    let full = p.model(None);
    let without = p.model(Some(i));
    for (k, v) in &full {
        if !unit.write.keys().contains(k) {
            assert_eq!(got.get(k), Some(v), "undamaged {} lost", show(k));
        }
    }
    for (k, v) in &got {
        assert!(
            full.get(k) == Some(v) || without.get(k) == Some(v),
            "{}",
            show(k)
        );
    }
    drop(db);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "a read-only open changed the file"
    );
}

/// What salvage reports is what was lost: each damaged byte in one range,
/// ranges in order and never overlapping.
#[test]
fn salvage_reports_each_lost_byte_once() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    for unit in &p.tail {
        for pos in [unit.start as usize, unit.end as usize - 1] {
            let mut bytes = p.log.clone();
            bytes[pos] ^= 0xff;
            let path = stage(dir.path(), &bytes, None);
            let db = open_salvage(&path).unwrap();
            let skipped = db.recovery_report().skipped.clone();
            for w in skipped.windows(2) {
                assert!(
                    w[0].offset + w[0].len <= w[1].offset,
                    "flip at {pos} in {unit:?}: overlapping skipped ranges {skipped:?}"
                );
            }
        }
    }
}

// ---- (a') flipped bytes under a checkpoint ------------------------------------

#[test]
fn with_a_checkpoint_a_damaged_record_is_an_error_on_read_never_wrong_data() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let full = p.model(None);
    let last = p.tail.len() - 1;
    for (i, unit) in p.tail.iter().enumerate() {
        for pos in unit.range() {
            let mut bytes = p.log.clone();
            bytes[pos] ^= 0xff;
            let what = format!("flip at {pos} in unit {i} {unit:?}");
            let path = stage(dir.path(), &bytes, Some(&p.ckpt));
            if i == last {
                // The checkpoint is bound to its last record: damage there
                // rejects the checkpoint, and the replay finds the damage.
                match Emdb::open(&path) {
                    Err(Error::Corruption { offset, .. }) => assert_eq!(offset, unit.start),
                    other => panic!("{what}: expected corruption, got {other:?}"),
                }
                continue;
            }
            let db = Emdb::open(&path).unwrap_or_else(|e| panic!("{what}: open: {e}"));
            assert!(db.recovery_report().used_checkpoint, "{what}");
            let touched = unit.write.keys();
            let mut errors = 0;
            for (k, v) in &full {
                match db.get(k) {
                    Ok(got) => assert_eq!(got.as_ref(), Some(v), "{what}: get {}", show(k)),
                    Err(Error::Corruption { .. }) if touched.contains(k) => errors += 1,
                    Err(e) => panic!("{what}: get {}: {e}", show(k)),
                }
            }
            for k in &touched {
                if !full.contains_key(k) {
                    assert!(matches!(db.get(k), Ok(None)), "{what}: removed {}", show(k));
                }
            }
            if unit.write.is_single_put() {
                assert_eq!(errors, 1, "{what}: the damaged record read without error");
            }
            // Iteration: good pairs are right, the damaged one is an error.
            let mut iter_errors = 0;
            for item in db.iter().unwrap() {
                match item {
                    Ok((k, v)) => assert_eq!(full.get(&k), Some(&v), "{what}: iter {}", show(&k)),
                    Err(Error::Corruption { .. }) => iter_errors += 1,
                    Err(e) => panic!("{what}: iter: {e}"),
                }
            }
            assert_eq!(iter_errors, errors, "{what}: iter and get disagree");
            // In key order too: the pairs a range scan returns are right,
            // and a damaged value it meets is an error.
            let mut range_errors = 0;
            for item in db.range_iter(..).unwrap() {
                match item {
                    Ok((k, v)) => assert_eq!(full.get(&k), Some(&v), "{what}: range {}", show(&k)),
                    Err(Error::Corruption { .. }) => range_errors += 1,
                    Err(e) => panic!("{what}: range: {e}"),
                }
            }
            assert!(
                errors == 0 || range_errors > 0,
                "{what}: a range scan read the damaged record without error"
            );
            assert_eq!(db.len().unwrap(), full.len());
            if errors > 0 {
                // Compaction must not silently drop the damaged record.
                assert!(db.compact().is_err(), "{what}: compaction dropped damage");
                assert_eq!(
                    db.get(key("key-00")).unwrap(),
                    full.get(&key("key-00")).cloned()
                );
            }
        }
    }
}

/// Records written after the last checkpoint are replayed at open, so damage
/// there fails the open even though a checkpoint is used for the rest.
#[test]
fn damage_after_the_checkpointed_range_fails_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("after-ckpt.emdb");
    let (head, tail) = writes();
    let units = {
        let db = Emdb::builder()
            .path(&path)
            .checkpoint_on_close(false)
            .build()
            .unwrap();
        run_writes(&db, &head);
        db.checkpoint().unwrap();
        let units = run_writes(&db, &tail);
        db.flush().unwrap();
        units
    };
    let log = std::fs::read(&path).unwrap();
    let ckpt = std::fs::read(ckpt_path(&path)).unwrap();
    {
        let path = stage(dir.path(), &log, Some(&ckpt));
        let db = Emdb::open(&path).unwrap();
        assert!(db.recovery_report().used_checkpoint);
        assert!(db.recovery_report().records_replayed > 0);
    }
    for unit in &units {
        for pos in unit.range() {
            let mut bytes = log.clone();
            bytes[pos] ^= 0x55;
            let path = stage(dir.path(), &bytes, Some(&ckpt));
            match Emdb::open(&path) {
                Err(Error::Corruption { offset, .. }) => {
                    assert!(unit.start <= offset && offset <= pos as u64)
                }
                other => panic!("flip at {pos} in {unit:?}: {other:?}"),
            }
        }
    }
}

/// A key whose record is damaged under a checkpoint cannot be read, so the
/// user must be able to get rid of the damage: salvage must find and skip
/// it (or a plain overwrite must work).
#[test]
fn damage_under_a_checkpoint_can_be_salvaged_or_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let unit = &p.tail[0]; // Put tail-a
    let mut bytes = p.log.clone();
    bytes[unit.end as usize - 1] ^= 0xff;
    let path = stage(dir.path(), &bytes, Some(&p.ckpt));
    {
        let db = Emdb::open(&path).unwrap();
        assert!(matches!(db.get("tail-a"), Err(Error::Corruption { .. })));
        let overwrite = db.insert("tail-a", "new value");
        let remove = db.remove("tail-a");
        if overwrite.is_ok() {
            assert_eq!(db.get("tail-a").unwrap(), Some(b"new value".to_vec()));
            return;
        }
        eprintln!("overwrite: {overwrite:?}; remove: {remove:?}");
    }
    let db = open_salvage(&path).unwrap();
    let rep = db.recovery_report().clone();
    assert!(
        !rep.skipped.is_empty(),
        "salvage reported nothing: {rep:?}; get(tail-a) = {:?}",
        db.get("tail-a")
    );
    assert!(db.get("tail-a").is_ok());
}

// ---- (c) truncation ----------------------------------------------------------

fn is_boundary(units: &[Unit], at: u64) -> bool {
    units.iter().any(|u| u.start == at || u.end == at)
}

#[test]
fn truncation_inside_a_durable_record_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let first = p.tail[0].start;
    for cut in first..p.log.len() as u64 {
        if is_boundary(&p.tail, cut) {
            continue;
        }
        let unit = p
            .tail
            .iter()
            .find(|u| u.start < cut && cut < u.end)
            .unwrap();
        for ckpt in [None, Some(p.ckpt.as_slice())] {
            let path = stage(dir.path(), &p.log[..cut as usize], ckpt);
            match Emdb::open(&path) {
                Err(Error::Corruption { offset, .. }) => assert!(
                    unit.start <= offset && offset <= cut,
                    "cut at {cut} in {unit:?}: offset {offset}"
                ),
                Err(e) => panic!("cut at {cut} in {unit:?}: {e}"),
                Ok(db) => panic!(
                    "cut at {cut} in {unit:?} (checkpoint: {}) opened: {:?}, {} keys",
                    ckpt.is_some(),
                    db.recovery_report(),
                    db.len().unwrap()
                ),
            }
        }
    }
}

/// The sync slot says the log was durable up to its end; a file that stops
/// short of that, even exactly between two records, lost acknowledged data.
#[test]
fn truncation_at_a_record_boundary_inside_durable_data_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    for unit in &p.tail {
        let cut = unit.start;
        let path = stage(dir.path(), &p.log[..cut as usize], None);
        match Emdb::open(&path) {
            Err(Error::Corruption { .. }) => {}
            Err(e) => panic!("cut at {cut}: {e}"),
            Ok(db) => panic!(
                "cut at {cut} (durable data ends at {}) opened with {} of {} keys: {:?}",
                p.log.len(),
                db.len().unwrap(),
                p.model(None).len(),
                db.recovery_report()
            ),
        }
        // Issue 15, item 4: a read-only open (every CLI reading command)
        // and `verify` (`emdb check`) apply the same rule; they used to
        // answer "not found" and "ok".
        match Emdb::builder().path(&path).read_only(true).build() {
            Err(Error::Corruption { .. }) => {}
            Err(e) => panic!("read-only, cut at {cut}: {e}"),
            Ok(db) => panic!(
                "read-only, cut at {cut} (durable data ends at {}) opened with {} of {} keys",
                p.log.len(),
                db.len().unwrap(),
                p.model(None).len(),
            ),
        }
        let report = Emdb::verify(&path, None).unwrap();
        assert!(
            !report.is_clean(),
            "verify of a log cut at {cut} below its durable end said clean: {report:?}"
        );
        // Salvaging read-only reports the lost range instead.
        let salvaged = Emdb::builder()
            .path(&path)
            .read_only(true)
            .salvage(true)
            .build()
            .unwrap();
        assert!(salvaged.recovery_report().lost_anything());
    }
}

/// Issue 15, item 4: the last durable record zeroed (the file keeps its
/// length) is damage below the durable end for every open and for
/// `verify`, not the "never written" zeros of a preallocated tail.
#[test]
fn a_zeroed_last_durable_record_is_corruption_for_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let last = p.tail.last().unwrap();
    let mut log = p.log.clone();
    log[last.start as usize..last.end as usize].fill(0);
    let path = stage(dir.path(), &log, None);
    assert!(matches!(Emdb::open(&path), Err(Error::Corruption { .. })));
    assert!(matches!(
        Emdb::builder().path(&path).read_only(true).build(),
        Err(Error::Corruption { .. })
    ));
    let report = Emdb::verify(&path, None).unwrap();
    assert!(!report.is_clean(), "verify said clean: {report:?}");
    assert_eq!(report.damaged[0].offset, last.start);
}

/// Writes that were never flushed and then torn by a crash are cut off
/// silently: open succeeds with every flushed record and every whole
/// unflushed unit before the tear, and reports where it cut.
#[test]
fn torn_unflushed_tail_is_truncated_at_every_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("torn.emdb");
    let (head, tail) = writes();
    let db = Emdb::builder()
        .path(&path)
        .checkpoint_on_close(false)
        .build()
        .unwrap();
    run_writes(&db, &head);
    db.flush().unwrap();
    let durable = db.stats().unwrap().log_logical_bytes;
    let units = run_writes(&db, &tail);
    // The crash image: what the file holds right now, before any close.
    let image = std::fs::read(&path).unwrap();
    drop(db);
    let tail_end = units.last().unwrap().end;
    assert!(image.len() as u64 > tail_end, "the log is preallocated");

    let mut base = Contents::new();
    for w in &head {
        w.apply(&mut base);
    }
    let expected_at = |cut: u64| {
        let mut m = base.clone();
        for u in units.iter().filter(|u| u.end <= cut) {
            u.write.apply(&mut m);
        }
        m
    };
    let mut cuts: Vec<u64> = (durable..=tail_end).collect();
    cuts.push(image.len() as u64); // not torn at all: zeros after the end
    for cut in cuts {
        let what = format!("cut at {cut}");
        let path = stage(dir.path(), &image[..cut as usize], None);
        let expected = expected_at(cut);
        let db = open_no_checkpoint(&path).unwrap_or_else(|e| panic!("{what}: {e}"));
        let rep = db.recovery_report().clone();
        assert!(rep.skipped.is_empty(), "{what}: {rep:?}");
        match units.iter().find(|u| u.start < cut && cut < u.end) {
            Some(u) => {
                let written = &image[u.start as usize..cut as usize];
                if written.iter().any(|&b| b != 0) {
                    assert_eq!(rep.truncated_tail_at, Some(u.start), "{what}: {rep:?}");
                }
            }
            None => assert_eq!(rep.truncated_tail_at, None, "{what}: {rep:?}"),
        }
        assert_contents(&db, &expected, &what);
        // Appends after recovery never land behind the cut-off garbage.
        db.insert("after-recovery", cut.to_le_bytes()).unwrap();
        db.flush().unwrap();
        drop(db);
        let db = open_no_checkpoint(&path).unwrap_or_else(|e| panic!("{what}: reopen: {e}"));
        let rep = db.recovery_report();
        assert!(!rep.used_checkpoint);
        assert!(!rep.lost_anything(), "{what}: second open: {rep:?}");
        let mut expected = expected;
        expected.insert(key("after-recovery"), cut.to_le_bytes().to_vec());
        assert_contents(&db, &expected, &format!("{what}, reopened"));
    }
}

/// A record whose `flush` returned is acknowledged, also when it is the
/// first flush after a reopen: damage to it is corruption, not a torn tail
/// to cut off silently. (The sync slots of the previous session must not
/// outrank the new session's first slot.)
#[test]
fn damage_in_the_first_flush_after_a_reopen_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reopened.emdb");
    let open = || {
        Emdb::builder()
            .path(&path)
            .checkpoint_on_close(false)
            .build()
            .unwrap()
    };
    {
        let db = open();
        for i in 0..3 {
            db.insert(format!("session-1-{i}"), pattern(20, i)).unwrap();
            db.flush().unwrap();
        }
    }
    let (image, unit) = {
        let db = open();
        let units = run_writes(&db, &[Write::Put(key("acknowledged"), pattern(30, 7))]);
        db.flush().unwrap();
        // Not flushed: only here so the damaged record is not the last.
        db.insert("unflushed", "x").unwrap();
        (std::fs::read(&path).unwrap(), units[0].clone())
    };
    for pos in [unit.start as usize, unit.end as usize - 1] {
        let mut bytes = image.clone();
        bytes[pos] ^= 0xff;
        let staged = stage(dir.path(), &bytes, None);
        match Emdb::open(&staged) {
            Err(Error::Corruption { offset, .. }) => assert_eq!(offset, unit.start),
            Err(e) => panic!("flip at {pos}: {e}"),
            Ok(db) => panic!(
                "flip at {pos}: the acknowledged record was dropped silently: {:?}, \
                 acknowledged = {:?}",
                db.recovery_report(),
                db.get("acknowledged").unwrap()
            ),
        }
    }
}

/// Garbage (not zeros) past the durable end is a torn tail too.
#[test]
fn garbage_after_the_durable_end_is_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("garbage.emdb");
    let (head, tail) = writes();
    let db = Emdb::builder()
        .path(&path)
        .checkpoint_on_close(false)
        .build()
        .unwrap();
    run_writes(&db, &head);
    db.flush().unwrap();
    let units = run_writes(&db, &tail);
    let image = std::fs::read(&path).unwrap();
    drop(db);
    let mut base = Contents::new();
    for w in &head {
        w.apply(&mut base);
    }
    let mut rng = Rng::new(7);
    for (i, u) in units.iter().enumerate() {
        for at in [u.start, u.start + 1, (u.start + u.end) / 2, u.end - 1] {
            let mut bytes = image.clone();
            for b in &mut bytes[at as usize..at as usize + 200] {
                *b = rng.next_u64() as u8 | 0x40;
            }
            let path = stage(dir.path(), &bytes, None);
            let db = Emdb::open(&path).unwrap_or_else(|e| panic!("garbage at {at}: {e}"));
            assert_eq!(
                db.recovery_report().truncated_tail_at,
                Some(u.start),
                "garbage at {at}"
            );
            let mut expected = base.clone();
            for w in units[..i].iter() {
                w.write.apply(&mut expected);
            }
            assert_contents(&db, &expected, &format!("garbage at {at}"));
        }
    }
}

// ---- bad files ------------------------------------------------------------------

#[test]
fn random_bytes_are_not_a_database_and_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let mut rng = Rng::from_env("EMDB_CORRUPTION_SEED");
    for round in 0..300 {
        let len = 1 + rng.below(3 * HEADER as u64 + 500) as usize;
        let mut bytes = rng.bytes(len);
        let kind = round % 3;
        // Kind 1: our magic, then garbage. Kind 2: a valid identity block,
        // then garbage (sync slots included).
        let keep = match kind {
            1 => MAGIC_LEN,
            2 => IDENTITY_END,
            _ => 0,
        }
        .min(len);
        bytes[..keep].copy_from_slice(&p.log[..keep]);
        let path = stage(dir.path(), &bytes, None);
        for salvage in [false, true] {
            let r = Emdb::builder().path(&path).salvage(salvage).build();
            if r.is_err() {
                assert_eq!(
                    std::fs::read(&path).unwrap(),
                    bytes,
                    "round {round}: a failed open changed the file"
                );
            }
            match (kind, r) {
                (_, Err(Error::NotADatabase { .. })) if kind == 0 || len < MAGIC_LEN => {}
                (_, Err(Error::Corruption { .. })) if kind != 0 => {}
                // A valid identity with garbage after it: the slots do not
                // check out, so nothing was durable and the rest is a torn tail.
                (2, Ok(db)) if len >= HEADER => assert!(db.is_empty().unwrap()),
                (k, r) => panic!("round {round}: kind {k}, {len} bytes: {r:?}"),
            }
            if len >= HEADER && kind == 2 {
                // A writable open may have cut the tail: restore the garbage.
                std::fs::write(&path, &bytes).unwrap();
            }
        }
    }
}

#[test]
fn garbage_where_the_sync_slot_says_durable_data_is_corruption_at_the_first_record() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let mut rng = Rng::new(99);
    let mut bytes = p.log.clone();
    for b in &mut bytes[HEADER..] {
        *b = rng.next_u64() as u8;
    }
    let path = stage(dir.path(), &bytes, None);
    match Emdb::open(&path) {
        Err(Error::Corruption { offset, .. }) => assert_eq!(offset, HEADER as u64),
        other => panic!("{other:?}"),
    }
    let db = open_salvage(&path).unwrap();
    assert!(!db.recovery_report().skipped.is_empty());
    assert!(db.is_empty().unwrap());
}

#[test]
fn zero_length_file_opens_as_a_new_empty_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.emdb");
    std::fs::write(&path, b"").unwrap();
    {
        let db = Emdb::open(&path).unwrap();
        assert!(db.is_empty().unwrap());
        db.insert("k", "v").unwrap();
    }
    assert!(std::fs::metadata(&path).unwrap().len() >= HEADER as u64);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.get("k").unwrap(), Some(b"v".to_vec()));
}

#[test]
fn file_shorter_than_its_header_is_an_error_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    for len in 1..HEADER {
        let path = stage(dir.path(), &p.log[..len], None);
        for read_only in [false, true] {
            match Emdb::builder().path(&path).read_only(read_only).build() {
                Err(Error::NotADatabase { .. }) if len < MAGIC_LEN => {}
                Err(Error::Corruption { .. }) if len >= MAGIC_LEN => {}
                other => panic!("{len} bytes (read_only {read_only}): {other:?}"),
            }
        }
        assert_eq!(std::fs::read(&path).unwrap(), &p.log[..len], "{len} bytes");
    }
}

#[test]
fn damaged_identity_block_is_corruption_at_offset_zero() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    for pos in 0..IDENTITY_END {
        let mut bytes = p.log.clone();
        bytes[pos] ^= 0x20;
        let path = stage(dir.path(), &bytes, Some(&p.ckpt));
        match Emdb::open(&path) {
            Err(Error::NotADatabase { .. }) if pos < MAGIC_LEN => {}
            Err(Error::Corruption { offset: 0, .. }) if pos >= MAGIC_LEN => {}
            other => panic!("flip at {pos}: {other:?}"),
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "flip at {pos}: file modified"
        );
    }
}

/// A damaged sync slot falls back to the other slot (or to none): the
/// records themselves are intact, so everything is still there.
#[test]
fn damaged_sync_slot_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let full = p.model(None);
    for pos in SLOTS {
        for ckpt in [None, Some(p.ckpt.as_slice())] {
            let mut bytes = p.log.clone();
            bytes[pos] ^= 0x08;
            let path = stage(dir.path(), &bytes, ckpt);
            let db = Emdb::open(&path).unwrap_or_else(|e| panic!("flip at {pos}: {e}"));
            assert!(db.recovery_report().skipped.is_empty());
            assert_contents(&db, &full, &format!("slot flip at {pos}"));
        }
    }
}

/// Bytes of the header page that hold nothing yet: damage there must never
/// turn into wrong data (ignoring it or reporting it are both fine).
#[test]
fn damaged_reserved_header_bytes_never_give_wrong_data() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let full = p.model(None);
    let positions = (IDENTITY_END..SLOTS.start)
        .step_by(7)
        .chain((SLOTS.end..HEADER).step_by(61));
    for pos in positions {
        let mut bytes = p.log.clone();
        bytes[pos] ^= 0xff;
        let path = stage(dir.path(), &bytes, None);
        match Emdb::open(&path) {
            Ok(db) => assert_contents(&db, &full, &format!("reserved flip at {pos}")),
            Err(Error::Corruption { .. }) => {}
            Err(e) => panic!("flip at {pos}: {e}"),
        }
    }
}

/// A damaged or foreign checkpoint is never trusted: open replays the log.
#[test]
fn damaged_or_foreign_checkpoint_is_rejected_and_the_log_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let p = Pristine::build(dir.path());
    let full = p.model(None);
    let mut rng = Rng::new(5);
    let mut positions: Vec<usize> = (0..p.ckpt.len().min(80)).collect();
    positions.extend((0..150).map(|_| rng.below(p.ckpt.len() as u64) as usize));
    positions.push(p.ckpt.len() - 1);
    let check = |ckpt: &[u8], what: &str| {
        let path = stage(dir.path(), &p.log, Some(ckpt));
        let db = Emdb::open(&path).unwrap_or_else(|e| panic!("{what}: {e}"));
        let rep = db.recovery_report();
        assert!(!rep.used_checkpoint, "{what}: a bad checkpoint was used");
        assert!(rep.checkpoint_rejected.is_some(), "{what}");
        assert_contents(&db, &full, what);
    };
    // A version-2 checkpoint is mapped: open checks the header page, the
    // namespace table and their padding, and each slot page (or its CRC) is
    // checked when first used, so damage there is an error on use.
    let pages_at = u64::from_le_bytes(p.ckpt[72..80].try_into().unwrap()) as usize;
    let mut lazily = 0;
    for pos in positions {
        let mut c = p.ckpt.clone();
        c[pos] ^= 0x10;
        let what = format!("checkpoint flip at {pos}");
        if pos < pages_at {
            check(&c, &what);
            continue;
        }
        let path = stage(dir.path(), &p.log, Some(&c));
        let db = Emdb::open(&path).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(db.recovery_report().used_checkpoint, "{what}");
        for (k, v) in &full {
            match db.get(k) {
                Ok(got) => assert_eq!(got.as_ref(), Some(v), "{what}: get {}", show(k)),
                Err(Error::Corruption { .. }) => {}
                Err(e) => panic!("{what}: {e}"),
            }
        }
        // A pass over the hash index and one in key order (the sorted
        // block) touch every page between them.
        let iterated: Result<Vec<_>, _> = db.iter().unwrap().collect();
        let ordered = db
            .range_iter(..)
            .and_then(|r| r.collect::<Result<Vec<_>, _>>());
        assert!(
            matches!(iterated, Err(Error::Corruption { .. }))
                || matches!(ordered, Err(Error::Corruption { .. })),
            "{what}: a full pass touches every page"
        );
        for r in [iterated, ordered] {
            match r {
                Ok(pairs) => assert_eq!(pairs.len(), full.len(), "{what}"),
                Err(Error::Corruption { .. }) => {}
                Err(e) => panic!("{what}: {e}"),
            }
        }
        lazily += 1;
    }
    assert!(lazily > 0);
    for cut in [0, 1, 8, 63, 64, 100, p.ckpt.len() / 2, p.ckpt.len() - 1] {
        check(&p.ckpt[..cut], &format!("checkpoint cut at {cut}"));
    }
    // The checkpoint of another database with the same shape.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let q = Pristine::build(&other);
    check(&q.ckpt, "checkpoint of another database");
    // A checkpoint of this database from before a compaction.
    let path = stage(dir.path(), &p.log, Some(&p.ckpt));
    let old_ckpt = p.ckpt.clone();
    {
        let db = Emdb::open(&path).unwrap();
        db.insert("after", "compaction").unwrap();
        db.compact().unwrap();
    }
    std::fs::write(ckpt_path(&path), &old_ckpt).unwrap();
    let db = Emdb::open(&path).unwrap();
    assert!(!db.recovery_report().used_checkpoint);
    let mut expected = full.clone();
    expected.insert(key("after"), b"compaction".to_vec());
    assert_contents(&db, &expected, "stale checkpoint after compaction");
}

/// A `compact.tmp` left by a compaction that crashed is deleted at open and
/// never read, so keys deleted since cannot come back.
#[test]
fn stale_compact_tmp_is_removed_and_never_resurrects_deleted_keys() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stale.emdb");
    let mut model = Contents::new();
    let old_image = {
        let db = Emdb::open(&path).unwrap();
        for i in 0..50u32 {
            let (k, v) = (format!("key{i}").into_bytes(), pattern(30, i as u8));
            db.insert(&k, &v).unwrap();
            model.insert(k, v);
        }
        db.compact().unwrap();
        // What a compaction in progress would have written: a complete,
        // valid log holding every key.
        let image = std::fs::read(&path).unwrap();
        for i in (0..50u32).step_by(2) {
            db.remove(format!("key{i}")).unwrap();
            model.remove(format!("key{i}").as_bytes());
        }
        db.clear().unwrap();
        model.clear();
        db.insert("kept", "yes").unwrap();
        model.insert(key("kept"), b"yes".to_vec());
        image
    };
    let tmp = compact_tmp_path(&path);
    for delete_ckpt in [false, true] {
        std::fs::write(&tmp, &old_image).unwrap();
        if delete_ckpt {
            remove_if_exists(&ckpt_path(&path));
        }
        {
            // A read-only open never modifies any file, and ignores it too.
            let ro = Emdb::builder().path(&path).read_only(true).build().unwrap();
            assert_contents(&ro, &model, "read-only with compact.tmp");
            assert!(tmp.exists());
        }
        let db = Emdb::open(&path).unwrap();
        assert!(!tmp.exists(), "compact.tmp survived the open");
        assert_contents(&db, &model, "after a stale compact.tmp");
        db.compact().unwrap();
        assert_contents(&db, &model, "after compacting");
    }
}

/// Temp files only a writer writes (a checkpoint's, an automatic
/// checkpoint's, the tail index's, the stats sidecar's), left by a process
/// that ended while writing one, are removed by the next writer's open
/// (a one-shot write's too), never read, and left alone by readers. A
/// leftover automatic checkpoint is as big as the index image.
#[test]
fn writer_temp_files_left_by_a_dead_process_are_removed_at_the_next_writer_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("left.emdb");
    let mut model = Contents::new();
    {
        let db = Emdb::open(&path).unwrap();
        for i in 0..200u32 {
            let (k, v) = (format!("key{i}").into_bytes(), pattern(40, i as u8));
            db.insert(&k, &v).unwrap();
            model.insert(k, v);
        }
        db.checkpoint().unwrap();
    }
    let name = path.file_name().unwrap().to_str().unwrap().to_string();
    // The database's own, and those of a killed encryption change's new
    // file (`<db>.enc.tmp`).
    let left: Vec<_> = [
        ".ckpt.tmp",
        ".ckpt.auto.tmp",
        ".tail.tmp",
        ".stats.tmp",
        ".create.tmp",
        ".enc.tmp.ckpt.tmp",
        ".enc.tmp.ckpt.auto.tmp",
        ".enc.tmp.create.tmp",
        ".enc.tmp.stats.tmp",
        ".enc.tmp.tail.tmp",
        ".enc.tmp.compact.tmp",
    ]
    .iter()
    .map(|suffix| dir.path().join(format!("{name}{suffix}")))
    .collect();
    // A checkpoint's worth of bytes that is not this database's index.
    let plant = || {
        for f in &left {
            std::fs::write(f, pattern(8192, 7)).unwrap();
        }
    };
    plant();
    {
        let ro = Emdb::builder().path(&path).read_only(true).build().unwrap();
        assert_contents(&ro, &model, "read-only beside leftover temp files");
    }
    for f in &left {
        assert!(f.exists(), "a reader removed {}", f.display());
    }
    {
        let db = Emdb::open(&path).unwrap();
        assert_contents(&db, &model, "writer beside leftover temp files");
        for f in &left {
            assert!(!f.exists(), "{} survived the writer's open", f.display());
        }
        db.insert("more", "yes").unwrap();
        model.insert(key("more"), b"yes".to_vec());
    }
    // A one-shot write opens as a writer too.
    plant();
    Emdb::builder()
        .path(&path)
        .write_keys(None, true, &[b"one".as_slice()], |w| {
            w.insert(b"one", b"shot", emdb_core::Ttl::Never)
        })
        .unwrap();
    model.insert(key("one"), b"shot".to_vec());
    for f in &left {
        assert!(!f.exists(), "{} survived a one-shot write", f.display());
    }
    let db = Emdb::open(&path).unwrap();
    assert_contents(&db, &model, "after the one-shot write");
}

// ---- zero-copy values ---------------------------------------------------------------

/// A `ValueRef` keeps its bytes after the key is overwritten or removed,
/// after compaction and growth, and after the database is dropped.
#[test]
fn zerocopy_value_outlives_overwrite_compaction_and_drop() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zc.emdb");
    for file_backed in [true, false] {
        let db = if file_backed {
            Emdb::open(&path).unwrap()
        } else {
            Emdb::open_in_memory()
        };
        let v1 = pattern(3000, 9);
        db.insert("z", &v1).unwrap();
        db.insert("empty", b"").unwrap();
        let r = db.get_zerocopy("z").unwrap().unwrap();
        let e = db.get_zerocopy("empty").unwrap().unwrap();
        assert_eq!(&*r, v1.as_slice());
        assert!(e.is_empty());
        db.insert("z", "overwritten").unwrap();
        assert_eq!(&*r, v1.as_slice(), "after overwrite");
        db.compact().unwrap();
        assert_eq!(&*r, v1.as_slice(), "after compaction");
        let r2 = db.get_zerocopy("z").unwrap().unwrap();
        for i in 0..3000u32 {
            db.insert(i.to_le_bytes(), pattern(500, i as u8)).unwrap();
        }
        db.remove("z").unwrap();
        db.clear().unwrap();
        db.compact().unwrap();
        assert_eq!(&*r, v1.as_slice(), "after growth, clear and compaction");
        assert_eq!(&*r2, b"overwritten");
        let clone = r.clone();
        db.insert("it-1", "one").unwrap();
        db.insert("it-2", "two").unwrap();
        let iter = db.iter().unwrap();
        let keys = db.keys().unwrap();
        drop(db);
        // Iterators made before the drop still walk the data they saw.
        let pairs: Vec<_> = iter.map(|p| p.unwrap()).collect();
        assert_eq!(pairs.len(), 2, "iterator after drop: {pairs:?}");
        assert!(pairs.contains(&(b"it-1".to_vec(), b"one".to_vec())));
        let keys: Vec<Vec<u8>> = keys.map(|k| k.unwrap()).collect();
        assert_eq!(keys.len(), 2);
        assert_eq!(&*r, v1.as_slice(), "after the database was dropped");
        assert_eq!(&*clone, v1.as_slice());
        assert_eq!(&*r2, b"overwritten");
        assert!(e.is_empty());
        if file_backed {
            // Reopen, write and compact the same file while the old
            // mappings are still held.
            let db = Emdb::open(&path).unwrap();
            db.insert("z", "again").unwrap();
            db.compact().unwrap();
            drop(db);
            assert_eq!(&*r, v1.as_slice(), "after another handle compacted");
            assert_eq!(r.into_vec(), v1);
        }
    }
}

/// A damaged value under a checkpoint: an error on read by default; with
/// `verify_reads(false)` the read returns the bytes as they are, and a write
/// that copies the value (`persist`) still refuses them.
#[test]
fn verify_reads_off_skips_the_checksum_on_reads_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.emdb");
    let value = pattern(150, 7);
    let at = {
        let db = Emdb::open(&path).unwrap();
        for i in 0..10 {
            db.insert(key(&format!("k{i}")), &value).unwrap();
        }
        db.flush().unwrap();
        db.checkpoint().unwrap();
        db.record_offset(key("k3")).unwrap().unwrap()
    };
    let mut bytes = std::fs::read(&path).unwrap();
    // The value is the last 150 bytes of the frame; flip one in its middle.
    let frame_len = 4 + 1 + 1 + 1 + key("k3").len() + 1 + value.len();
    let pos = at as usize + frame_len - 75;
    assert_eq!(
        bytes[pos], value[75],
        "the flipped byte is inside the value"
    );
    bytes[pos] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();

    let db = Emdb::open(&path).unwrap();
    assert!(db.recovery_report().used_checkpoint);
    assert!(matches!(db.get(key("k3")), Err(Error::Corruption { .. })));
    assert!(db.iter().unwrap().any(|r| r.is_err()));
    drop(db);

    let db = Emdb::builder()
        .path(&path)
        .verify_reads(false)
        .build()
        .unwrap();
    let got = db.get(key("k3")).unwrap().unwrap();
    assert_ne!(got, value);
    assert_eq!(got.len(), value.len());
    assert_eq!(
        got.iter().zip(&value).filter(|(a, b)| a != b).count(),
        1,
        "returned as stored, one byte off"
    );
    assert_eq!(
        db.get_zerocopy(key("k3")).unwrap().unwrap().as_ref(),
        &got[..]
    );
    assert!(db.iter().unwrap().all(|r| r.is_ok()));
    assert_eq!(db.get(key("k4")).unwrap(), Some(value.clone()));
    assert!(
        matches!(db.persist(key("k3")), Err(Error::Corruption { .. })),
        "a rewrite must not give damaged bytes a fresh checksum"
    );
    assert!(db.persist(key("k4")).unwrap());
}

/// Damage inside the checkpoint's slot pages is found by `verify` (reads
/// that reach the page fail; open checks pages only when a read first
/// reaches them), and removing the checkpoint repairs it: the log is
/// sound, and the next open that writes rebuilds the checkpoint from it.
#[test]
fn verify_finds_a_damaged_checkpoint_page_and_removing_the_checkpoint_repairs_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ckpt_pages.emdb");
    let db = Emdb::open(&path).unwrap();
    db.insert_many((0..50_000u32).map(|i| (format!("k{i:06}"), format!("v{i}"))))
        .unwrap();
    db.close().unwrap();
    assert!(Emdb::verify(&path, None).unwrap().is_clean());
    let ckpt = ckpt_path(&path);
    let mut bytes = std::fs::read(&ckpt).unwrap();
    // A byte of a slot page near the end (before the page CRCs).
    let at = bytes.len() * 9 / 10;
    bytes[at] ^= 0x5a;
    std::fs::write(&ckpt, &bytes).unwrap();

    // Some read reaches the damaged page, and says so.
    let db = Emdb::open(&path).unwrap();
    let get_failed = (0..50_000u32).any(|i| db.get(format!("k{i:06}")).is_err());
    let scan_failed = match db.range_iter(..) {
        Err(_) => true,
        Ok(mut it) => it.any(|r| r.is_err()),
    };
    assert!(
        get_failed || scan_failed,
        "no read reached the damaged checkpoint page"
    );
    drop(db);

    let report = Emdb::verify(&path, None).unwrap();
    assert!(report.damaged.is_empty(), "{report:?}");
    let found = report
        .checkpoint
        .clone()
        .expect("the damaged page is reported");
    assert_eq!(found.path, ckpt);
    let page = (at / 4096 * 4096) as u64;
    assert_eq!(found.offset, page, "{found:?}");
    assert!(!report.is_clean());

    std::fs::remove_file(&ckpt).unwrap();
    let db = Emdb::open(&path).unwrap();
    for i in (0..50_000u32).step_by(97) {
        assert_eq!(
            db.get(format!("k{i:06}")).unwrap(),
            Some(format!("v{i}").into_bytes())
        );
    }
    assert_eq!(db.range_iter(..).unwrap().count(), 50_000);
    db.close().unwrap();
    assert!(ckpt.exists(), "the writer's close rebuilt the checkpoint");
    assert!(Emdb::verify(&path, None).unwrap().is_clean());
}
