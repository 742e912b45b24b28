//! A file cut short by another process inside a page (issue 15, item 6).
//! The page holding the cut raises no fault (the rest of it reads as
//! zeros), so no cut mark was set: with `verify_reads(false)` a read of a
//! record running past the cut returned zeros as value bytes, and with
//! verification on the error was a checksum mismatch instead of the
//! documented "truncated by another process". Both must name the cut.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use emdb_core::progress::{observe, Phase};
use emdb_core::{Emdb, EncryptionInput, Error, ManualClock, Result, Ttl};

const PAGE: usize = 4096;
const VLEN: usize = 1000;
/// Bytes before a value: CRC, tag, two lengths and the 6-byte key; an
/// expiring record has its 8-byte expiry after the tag.
const HEAD: usize = 14;
const HEAD_EXPIRING: usize = HEAD + 8;

fn value(i: u32) -> Vec<u8> {
    (0..VLEN)
        .map(|j| (j as u32 * 7 + i * 13) as u8 | 1)
        .collect()
}

/// A database of 64 keys (`key000`..) with [`value`]s, closed; its path
/// and bytes.
fn written(dir: &Path) -> (PathBuf, Vec<u8>) {
    let path = dir.join("cut.emdb");
    fill(&Emdb::open(&path).unwrap(), Ttl::Never);
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

/// Insert the 64 keys of [`written`] into `db`, expiring after `ttl`.
fn fill(db: &Emdb, ttl: Ttl) {
    for i in 0..64u32 {
        db.insert_with_ttl(format!("key{i:03}"), value(i), ttl)
            .unwrap();
    }
}

/// [`written`] with the writer left open (flushed): its file keeps the
/// room it grew by past the log, so a write needs no growth, which would
/// notice the cut first.
fn writing(dir: &Path) -> (Emdb, PathBuf, Vec<u8>) {
    let path = dir.join("cut.emdb");
    let db = Emdb::open(&path).unwrap();
    fill(&db, Ttl::Never);
    db.flush().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (db, path, bytes)
}

/// Keys and header starts of the records whose header lies inside one
/// page, with whole pages after it.
fn headers_in_a_page(bytes: &[u8]) -> Vec<(u32, usize)> {
    (8..56u32)
        .filter_map(|i| {
            let p = value_at(bytes, i)?;
            let start = p - HEAD;
            (start / PAGE == p / PAGE && p + 2 * PAGE < bytes.len()).then_some((i, start))
        })
        .collect()
}

/// How the bytes from some offset to the end of its page are lost.
#[derive(Clone, Copy, Debug)]
enum Loss {
    /// Another process cuts the file there.
    Cut,
    /// They are zeroed in place in a file that keeps its length: damage,
    /// not a cut, and reported as such.
    Zeroed,
}

impl Loss {
    fn apply(self, path: &Path, at: usize) {
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        match self {
            Loss::Cut => f.set_len(at as u64).unwrap(),
            Loss::Zeroed => {
                let len = f.metadata().unwrap().len() as usize;
                let zeros = vec![0u8; at.next_multiple_of(PAGE).min(len) - at];
                std::os::unix::fs::FileExt::write_all_at(&f, &zeros, at as u64).unwrap();
            }
        }
    }

    /// `r` failed as this loss must: naming the cut, or the damage.
    fn check<T: std::fmt::Debug>(self, what: &str, r: Result<T>) {
        let cut = match &r {
            Err(Error::Corruption { reason, .. }) => {
                reason.contains("truncated by another process")
            }
            _ => panic!("{what}, {self:?}: {r:?}"),
        };
        assert_eq!(cut, matches!(self, Loss::Cut), "{what}, {self:?}: {r:?}");
    }
}

/// Where `value(i)` starts in the file's `bytes`.
fn value_at(bytes: &[u8], i: u32) -> Option<usize> {
    let v = value(i);
    bytes.windows(VLEN).position(|w| w == v.as_slice())
}

#[test]
fn a_cut_inside_a_page_is_reported_as_a_cut_with_and_without_verification() {
    for verify in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (path, bytes) = written(dir.path());
        // A record whose value ends inside a page, followed by whole pages.
        let (i, at) = (8..56u32)
            .find_map(|i| {
                let p = value_at(&bytes, i)?;
                let (cut, end) = (p + VLEN - 10, p + VLEN);
                (cut / PAGE == (end - 1) / PAGE && end + 2 * PAGE < bytes.len()).then_some((i, cut))
            })
            .expect("a record ending inside a page");
        let db = Emdb::builder()
            .path(&path)
            .read_only(true)
            .verify_reads(verify)
            .build()
            .unwrap();
        // Another process cuts the file inside that record's last page.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(at as u64)
            .unwrap();
        match db.get(format!("key{i:03}")) {
            Err(Error::Corruption { reason, .. }) => assert!(
                reason.contains("truncated by another process"),
                "verify={verify}: {reason}"
            ),
            Ok(v) => panic!(
                "verify={verify}: read returned {:?} (zeros at the end: {})",
                v.as_ref().map(Vec::len),
                v.as_ref().is_some_and(|v| v.ends_with(&[0; 10]))
            ),
            Err(e) => panic!("verify={verify}: {e}"),
        }
        // From then on every read through that mapping says so too.
        assert!(db.get("key000").is_err());
    }
}

/// The same for a range read: a cut inside the header of the record a
/// walk reads next. The walk's decode fails on the zeros (or, for a
/// header that still decodes, the pair's checks do), and the error must
/// name the cut, as a point read's does.
#[test]
fn a_range_read_into_a_cut_header_reports_the_cut() {
    for verify in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (_, bytes) = written(dir.path());
        let headers = headers_in_a_page(&bytes);
        assert!(headers.len() >= 4, "{headers:?}");
        // Cut after the CRC's first byte, in the tag, in the lengths and in
        // the key, each on a fresh copy of the database, with the
        // iterator made before the cut (its next step reads the header)
        // and after it (its start, which sorts what it reads, does).
        for early in [false, true] {
            for (n, back) in [1usize, 4, 6, 9].into_iter().enumerate() {
                let (i, start) = headers[n];
                let copy = dir.path().join(format!("cut{n}.emdb"));
                std::fs::write(&copy, &bytes).unwrap();
                let db = Emdb::builder()
                    .path(&copy)
                    .read_only(true)
                    .verify_reads(verify)
                    .build()
                    .unwrap();
                let from = format!("key{:03}", i - 1).into_bytes();
                let made = early.then(|| {
                    // Past its seek and first pair, so the cut header is
                    // the next record its step decodes.
                    let mut it = db.range_iter(from.clone()..).unwrap();
                    assert_eq!(it.next().unwrap().unwrap().0, from);
                    it
                });
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&copy)
                    .unwrap()
                    .set_len((start + back) as u64)
                    .unwrap();
                let walked: Vec<_> = match made.map_or_else(|| db.range_iter(from..), Ok) {
                    Ok(it) => it.take(3).collect(),
                    Err(e) => vec![Err(e)],
                };
                let what = format!(
                    "verify={verify}, early={early}, key{i:03}, cut {back} bytes into its header"
                );
                match walked.iter().find_map(|r| r.as_ref().err()) {
                    Some(Error::Corruption { reason, .. }) => assert!(
                        reason.contains("truncated by another process"),
                        "{what}: {reason}"
                    ),
                    Some(e) => panic!("{what}: {e}"),
                    None => panic!("{what}: the walk read {walked:?} without an error"),
                }
            }
        }
    }
}

/// The writer's own reads of a record whose header the cut took: a remove
/// reads it before appending (the next page faults), an overwrite (one
/// put, or a batch) reads it to confirm the key after appending, and so
/// does a get after any write. An append is a `pwrite`, which extends the
/// cut file again: the lost bytes then read as zeros without a fault and
/// the file's size passes, and only the hole the append left below the
/// log's end tells of the cut. Zeros in place in an intact file stay
/// damage.
#[test]
fn a_writer_reading_a_cut_header_reports_the_cut() {
    for loss in [Loss::Cut, Loss::Zeroed] {
        for op in ["remove", "insert", "insert_many", "get after an insert"] {
            let dir = tempfile::tempdir().unwrap();
            let (db, path, bytes) = writing(dir.path());
            let (i, start) = headers_in_a_page(&bytes)[0];
            loss.apply(&path, start + 1);
            let k = format!("key{i:03}");
            let r = match op {
                "remove" => db.remove(&k).map(drop),
                "insert" => db.insert(&k, "new"),
                "insert_many" => db.insert_many([(&k, "new")]),
                _ => db
                    .insert("other", "new")
                    .and_then(|()| db.get(&k))
                    .map(drop),
            };
            loss.check(op, r);
        }
    }
}

/// A database whose 64 keys expire after a minute, closed, and a clock an
/// hour on; its path, the clock and where the last record's header starts
/// (no record lies past its page, so nothing read faults).
fn expired(dir: &Path) -> (PathBuf, Arc<ManualClock>, usize) {
    let path = dir.join("ttl.emdb");
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let db = Emdb::builder().path(&path).clock(clock.clone()).build();
    fill(&db.unwrap(), Ttl::After(Duration::from_secs(60)));
    clock.advance(Duration::from_secs(3600));
    let bytes = std::fs::read(&path).unwrap();
    let start = value_at(&bytes, 63).unwrap() - HEAD_EXPIRING;
    (path, clock, start)
}

/// Reads over every key that decide by the records' heads: zeros for a
/// head read as one without an expiry, so a count of the unexpired keys
/// counted a lost expired key as live and returned, a sweep skipped it,
/// and a sweep that read a lost value failed its checksum.
#[test]
fn counting_and_sweeping_expired_keys_over_a_cut_report_it() {
    for loss in [Loss::Cut, Loss::Zeroed] {
        // Into the CRC (the head reads as none), into the value.
        for (back, op) in [
            (1, "len"),
            (1, "sweep_expired"),
            (HEAD_EXPIRING + 10, "sweep_expired"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let (path, clock, start) = expired(dir.path());
            let db = Emdb::builder()
                .path(&path)
                .read_only(op == "len")
                .clock(clock)
                .build()
                .unwrap();
            loss.apply(&path, start + back);
            let what = format!("{op}, cut {back} bytes into the record");
            match (op, loss) {
                // A damaged head in an intact file counts as before.
                ("len", Loss::Zeroed) => assert_eq!(db.len().unwrap(), 1, "{what}"),
                ("len", _) => loss.check(&what, db.len()),
                (_, Loss::Zeroed) if back == 1 => assert_eq!(db.sweep_expired().unwrap(), 63),
                _ => loss.check(&what, db.sweep_expired()),
            }
        }
    }
}

/// Compaction chooses what to copy by the records' heads: a lost expiry
/// read as an earlier one, and the key was left out of the new file, which
/// then replaced the cut one; a lost header failed as unknown. Both name
/// the cut now, and the cut file stays where it was.
#[test]
fn a_compaction_over_a_cut_reports_it_and_keeps_the_file() {
    let into_crc = 1;
    let into_expiry = 7;
    for (back, loss) in [
        (into_crc, Loss::Cut),
        (into_expiry, Loss::Cut),
        (into_crc, Loss::Zeroed),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ttl.emdb");
        fill(
            &Emdb::open(&path).unwrap(),
            Ttl::After(Duration::from_secs(3600)),
        );
        let db = Emdb::open(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let at = value_at(&bytes, 63).unwrap() - HEAD_EXPIRING + back;
        loss.apply(&path, at);
        let what = format!("cut {back} bytes into the record");
        loss.check(&what, db.compact());
        // Not replaced by a compacted file.
        let kept = match loss {
            Loss::Cut => at,
            Loss::Zeroed => bytes.len(),
        };
        let len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(len, kept as u64, "{what}");
    }
}

/// The same for the records compaction's catch-up copies (written while
/// its first phase ran, here from its progress report), and for the
/// records an encryption change copies (cut as it starts). Zeros in place
/// stay damage.
#[test]
fn a_catch_up_and_an_encryption_rewrite_over_a_cut_report_it() {
    for loss in [Loss::Cut, Loss::Zeroed] {
        let dir = tempfile::tempdir().unwrap();
        let (db, path, _) = writing(dir.path());
        let db = Arc::new(db);
        let (writer, file) = (Arc::clone(&db), path.clone());
        let mut step = 0;
        let compacted = observe(
            move |p| {
                match step {
                    0 => {
                        writer.insert("key099", value(99)).unwrap();
                        writer.flush().unwrap();
                    }
                    1 if p.done == p.total => {
                        let bytes = std::fs::read(&file).unwrap();
                        loss.apply(&file, value_at(&bytes, 99).unwrap() - HEAD + 1);
                    }
                    _ => return,
                }
                step += 1;
            },
            || db.compact(),
        );
        loss.check("catch-up", compacted);

        let dir = tempfile::tempdir().unwrap();
        let (path, bytes) = written(dir.path());
        let at = value_at(&bytes, 63).unwrap() - HEAD + 1;
        let mut cut = Some(path.clone());
        let rewritten = observe(
            move |p| {
                if let (Phase::Rewriting, Some(path)) = (p.phase, cut.take()) {
                    loss.apply(&path, at);
                }
            },
            || Emdb::enable_encryption(&path, EncryptionInput::Key([7; 32])),
        );
        loss.check("encryption rewrite", rewritten);
    }
}

/// Turn every block of zeros of the file into a hole (`fallocate
/// --dig-holes`), as a sparse copy (`cp --sparse=always`, `rsync -S`)
/// leaves it: the same bytes, with holes. Returns the bytes in holes.
fn dig_holes(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let bytes = std::fs::read(path).unwrap();
    let before = std::fs::metadata(path).unwrap().blocks();
    let st = std::process::Command::new("fallocate")
        .arg("--dig-holes")
        .arg(path)
        .status()
        .unwrap();
    assert!(st.success(), "fallocate --dig-holes failed");
    assert_eq!(std::fs::read(path).unwrap(), bytes);
    (before - std::fs::metadata(path).unwrap().blocks()) * 512
}

/// A hole below the log's end is not a cut when every record is intact:
/// a value holding pages of zeros, copied sparsely, reads back the same.
/// Counting, sweeping, compacting and a writer's flush (what looks for
/// holes) work on such a file as on the original.
#[test]
fn holes_over_zeros_in_an_intact_file_are_not_a_cut() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sparse.emdb");
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    {
        let db = Emdb::builder()
            .path(&path)
            .clock(clock.clone())
            .build()
            .unwrap();
        db.insert("zeros", vec![0u8; 16 * PAGE]).unwrap();
        fill(&db, Ttl::After(Duration::from_secs(60)));
        db.insert("after", "v").unwrap();
    }
    clock.advance(Duration::from_secs(3600));
    assert!(
        dig_holes(&path) >= 14 * PAGE as u64,
        "the value's zeros are holes"
    );
    for op in ["len", "sweep_expired", "compact", "flush"] {
        let copy = dir.path().join(format!("{op}.emdb"));
        let _ = std::fs::remove_file(&copy);
        std::fs::copy(&path, &copy).unwrap();
        dig_holes(&copy);
        let db = Emdb::builder()
            .path(&copy)
            .read_only(op == "len")
            .clock(clock.clone())
            .build()
            .unwrap();
        match op {
            "len" => assert_eq!(db.len().unwrap(), 2, "{op}"),
            "sweep_expired" => assert_eq!(db.sweep_expired().unwrap(), 64, "{op}"),
            "compact" => db.compact().unwrap(),
            _ => {
                db.insert("new", "v").unwrap();
                db.flush().unwrap();
            }
        }
        assert_eq!(
            db.get("zeros").unwrap().unwrap(),
            vec![0u8; 16 * PAGE],
            "{op}"
        );
        assert_eq!(db.get("after").unwrap().as_deref(), Some(&b"v"[..]), "{op}");
    }
}

/// A 64 KiB value of zeros, then a small record `after` in the block
/// where the value ends, flushed: the writer (closed and its file sparsely
/// dug when `sparse`, else still open, keeping the room it grew by so an
/// append needs no growth), the path and the offset of the value's first
/// byte.
fn zeros_then_after(dir: &Path, sparse: bool) -> (Option<Emdb>, PathBuf, usize) {
    let path = dir.join("z.emdb");
    let db = Emdb::open(&path).unwrap();
    db.insert("zeros", vec![0u8; 16 * PAGE]).unwrap();
    db.insert("after", "lost-value").unwrap();
    db.flush().unwrap();
    let db = match sparse {
        true => {
            drop(db);
            assert!(dig_holes(&path) >= 14 * PAGE as u64);
            None
        }
        false => Some(db),
    };
    let bytes = std::fs::read(&path).unwrap();
    let at = |what: &[u8]| bytes.windows(what.len()).position(|w| w == what).unwrap();
    let value = at(b"zeros") + 5;
    assert_eq!(
        (value + 16 * PAGE) / PAGE,
        (at(b"after") + 20) / PAGE,
        "layout"
    );
    (db, path, value)
}

/// A cut through a value of zeros, re-extended by the writer's next
/// append, leaves a hole over bytes that were zeros anyway; what it lost
/// (the record after the value) lies in the block the append rewrote,
/// which is data, not hole. The flush reports the cut.
#[test]
fn a_cut_through_zeros_losing_the_records_after_them_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (db, path, value) = zeros_then_after(dir.path(), false);
    let db = db.unwrap();
    Loss::Cut.apply(&path, value + 2 * PAGE + 100);
    let r = db.insert("new", "v").and_then(|()| db.flush());
    Loss::Cut.check("flush after a cut through zeros", r);
}

/// The same cut inside a hole a sparse copy had and an earlier flush found
/// to be zeros: the hole is the same as before, and the record after it
/// is still checked.
#[test]
fn a_cut_inside_a_hole_found_intact_before_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (_, path, value) = zeros_then_after(dir.path(), true);
    let db = Emdb::open(&path).unwrap();
    db.insert("x", "v").unwrap();
    db.flush().unwrap();
    Loss::Cut.apply(&path, value + 2 * PAGE + 100);
    let r = db.insert("y", "v").and_then(|()| db.flush());
    Loss::Cut.check("flush after a cut inside a hole found intact", r);
}
