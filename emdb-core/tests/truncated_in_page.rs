//! A file cut short by another process inside a page (issue 15, item 6).
//! The page holding the cut raises no fault (the rest of it reads as
//! zeros), so no cut mark was set: with `verify_reads(false)` a read of a
//! record running past the cut returned zeros as value bytes, and with
//! verification on the error was a checksum mismatch instead of the
//! documented "truncated by another process". Both must name the cut.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use emdb_core::{Emdb, Error};

const PAGE: usize = 4096;
const VLEN: usize = 1000;

fn value(i: u32) -> Vec<u8> {
    (0..VLEN)
        .map(|j| (j as u32 * 7 + i * 13) as u8 | 1)
        .collect()
}

/// A database of 64 keys (`key000`..) with [`value`]s, closed; its path
/// and bytes.
fn written(dir: &std::path::Path) -> (std::path::PathBuf, Vec<u8>) {
    let path = dir.join("cut.emdb");
    {
        let db = Emdb::open(&path).unwrap();
        for i in 0..64u32 {
            db.insert(format!("key{i:03}"), value(i)).unwrap();
        }
    }
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
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
        // Records whose header (14 bytes before the value: CRC, tag, two
        // lengths, the 6-byte key) lies inside one page, with whole pages
        // after it.
        let headers: Vec<(u32, usize)> = (8..56u32)
            .filter_map(|i| {
                let p = value_at(&bytes, i)?;
                let start = p - 14;
                (start / PAGE == p / PAGE && p + 2 * PAGE < bytes.len()).then_some((i, start))
            })
            .collect();
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
