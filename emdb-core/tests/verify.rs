//! `Emdb::verify`: every record checked, every damaged range listed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use emdb_core::Emdb;
#[cfg(feature = "encrypt")]
use emdb_core::{EncryptionInput, Error};

#[test]
fn verify_lists_damage_and_leaves_the_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.emdb");
    {
        let db = Emdb::open(&path).unwrap();
        for i in 0..100u32 {
            db.insert(format!("key{i:03}"), format!("value{i:03}"))
                .unwrap();
        }
        db.insert_many((0..10u32).map(|i| (format!("b{i}"), "x")))
            .unwrap();
    }
    let clean = Emdb::verify(&path, None).unwrap();
    assert!(clean.is_clean());
    assert_eq!(clean.records, 110);
    assert_eq!(clean.units, 101);
    assert!(clean.damaged.is_empty());

    let mut bytes = std::fs::read(&path).unwrap();
    let at = 4096 + 10 * 21 + 7; // inside the 11th record (21 bytes each)
    bytes[at] ^= 0x55;
    let at2 = 4096 + 60 * 21 + 3;
    bytes[at2] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let rep = Emdb::verify(&path, None).unwrap();
    assert!(!rep.is_clean());
    assert_eq!(rep.damaged.len(), 2, "{rep:?}");
    assert_eq!(rep.damaged[0].offset, 4096 + 10 * 21);
    assert_eq!(rep.damaged[0].len, 21);
    assert!(rep.damaged[0].durable);
    assert_eq!(rep.damaged[1].offset, 4096 + 60 * 21);
    assert_eq!(rep.records, 108);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "verify must not write"
    );
    // Repair: a salvage open drops exactly the damaged records.
    drop(std::fs::remove_file(dir.path().join("v.emdb.ckpt")));
    let db = Emdb::builder().path(&path).salvage(true).build().unwrap();
    assert_eq!(db.len().unwrap(), 108);
    drop(db);
    assert!(Emdb::verify(&path, None).unwrap().is_clean());
}

#[test]
#[cfg(feature = "encrypt")]
fn verify_checks_seals_with_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.emdb");
    {
        let db = Emdb::builder()
            .path(&path)
            .encryption_key([3; 32])
            .build()
            .unwrap();
        db.insert("a", "b").unwrap();
    }
    assert!(matches!(
        Emdb::verify(&path, None),
        Err(Error::EncryptionRequired { .. })
    ));
    assert!(matches!(
        Emdb::verify(&path, Some(EncryptionInput::Key([4; 32]))),
        Err(Error::EncryptionKeyMismatch { .. })
    ));
    let rep = Emdb::verify(&path, Some(EncryptionInput::Key([3; 32]))).unwrap();
    assert_eq!(rep.records, 1);
    assert!(rep.is_clean());
}
