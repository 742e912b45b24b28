//! A backup is a fork (issue 15, item 7): from the copy on, the two
//! databases diverge, and nothing of one may be taken for the other's. The
//! copy used to keep the database id, so a checkpoint of the copy was
//! accepted by the original when both ended on the same record (keys
//! vanished, `verify` said clean), and a sealed record of the copy spliced
//! into the original authenticated (a value the original never stored).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use emdb_core::{Emdb, EmdbBuilder};

const KEY: [u8; 32] = [0x42; 32];

fn ckpt(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_os_string();
    s.push(".ckpt");
    s.into()
}

#[test]
fn a_backups_checkpoint_is_never_taken_for_the_originals() {
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig.emdb");
    let copy = dir.path().join("copy.emdb");
    {
        let db = Emdb::open(&orig).unwrap();
        db.insert("a", "0").unwrap();
        db.backup_to(&copy).unwrap();
        // Diverge with records of the same sizes, ending on the same record.
        db.insert("b", "2").unwrap();
        db.insert("c", "1").unwrap();
    }
    {
        let db = Emdb::open(&copy).unwrap();
        db.insert("d", "4").unwrap();
        db.insert("c", "1").unwrap();
    }
    std::fs::copy(ckpt(&copy), ckpt(&orig)).unwrap();
    let db = Emdb::open(&orig).unwrap();
    assert!(
        !db.recovery_report().used_checkpoint,
        "the copy's checkpoint was used"
    );
    assert_eq!(db.get("b").unwrap(), Some(b"2".to_vec()), "a key vanished");
    assert_eq!(db.get("d").unwrap(), None);
    assert_eq!(db.len().unwrap(), 3);
}

fn keyed(p: &Path) -> EmdbBuilder {
    Emdb::builder().path(p).encryption_key(KEY)
}

#[test]
fn a_sealed_record_of_a_backup_never_authenticates_in_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig.emdb");
    let copy = dir.path().join("copy.emdb");
    {
        let db = keyed(&orig).build().unwrap();
        db.insert("a", "0").unwrap();
        db.backup_to(&copy).unwrap();
    }
    let orig_len = std::fs::metadata(&orig).unwrap().len();
    let copy_len = std::fs::metadata(&copy).unwrap().len();
    {
        let db = keyed(&copy).build().unwrap();
        assert_eq!(db.get("a").unwrap(), Some(b"0".to_vec()));
        db.insert("spliced", "never stored in the original")
            .unwrap();
    }
    // Append the copy's new record to the original, at the original's end.
    let copy_bytes = std::fs::read(&copy).unwrap();
    let record = &copy_bytes[copy_len as usize..];
    let mut orig_bytes = std::fs::read(&orig).unwrap();
    assert_eq!(orig_bytes.len() as u64, orig_len);
    orig_bytes.extend_from_slice(record);
    std::fs::write(&orig, &orig_bytes).unwrap();
    let _ = std::fs::remove_file(ckpt(&orig));
    // The spliced record must never read back as a value: it fails its
    // seal, at open (replay opens sealed records to learn their keys) or
    // on read.
    match keyed(&orig).read_only(true).build() {
        Err(emdb_core::Error::Corruption { .. }) => {}
        Err(e) => panic!("unexpected {e}"),
        Ok(db) => match db.get("spliced") {
            Ok(None) | Err(emdb_core::Error::Corruption { .. }) => {}
            other => panic!("a forked record authenticated: {other:?}"),
        },
    }
}
