//! At-rest encryption: round trips, wrong keys, tampering, nonces, admin
//! rewrites and a crash in the middle of a key rotation.
#![cfg(feature = "encrypt")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::ops::Bound;
use std::path::Path;
use std::time::Duration;

use emdb_core::{Cipher, Emdb, EmdbBuilder, EncryptionInput, Error, KdfParams, Ttl};

const KEY: [u8; 32] = [7u8; 32];
const OTHER_KEY: [u8; 32] = [9u8; 32];
/// Cheap Argon2id costs so tests stay fast (the defaults are tested once).
const FAST_KDF: KdfParams = KdfParams {
    memory_kib: 1024,
    iterations: 1,
    parallelism: 1,
};

fn keyed(path: &Path, cipher: Cipher) -> EmdbBuilder {
    Emdb::builder()
        .path(path)
        .encryption_key(KEY)
        .cipher(cipher)
}

#[test]
fn round_trip_for_both_ciphers_and_both_key_kinds() {
    let dir = tempfile::tempdir().unwrap();
    for cipher in [Cipher::Aes256Gcm, Cipher::ChaCha20Poly1305] {
        for passphrase in [false, true] {
            let path = dir.path().join(format!("rt-{cipher:?}-{passphrase}.emdb"));
            let b = || {
                let b = Emdb::builder()
                    .path(&path)
                    .cipher(cipher)
                    .kdf_params(FAST_KDF);
                if passphrase {
                    b.encryption_passphrase("correct horse battery staple")
                } else {
                    b.encryption_key(KEY)
                }
            };
            {
                let db = b().build().unwrap();
                db.insert("k", "secret value").unwrap();
                db.insert_many((0..100u32).map(|i| (format!("m{i}"), format!("v{i}"))))
                    .unwrap();
                let ns = db.namespace("users").unwrap();
                ns.insert("alice", "1").unwrap();
                // A write batch is sealed at commit, like every record.
                let mut batch = ns.write_batch();
                batch.put("bob", "batch secret").unwrap();
                batch.put("carol", "2").unwrap();
                batch.remove("carol").unwrap();
                batch.commit().unwrap();
                assert_eq!(
                    ns.get("bob").unwrap().as_deref(),
                    Some(&b"batch secret"[..])
                );
                assert_eq!(ns.get("carol").unwrap(), None);
                assert_eq!(&*db.get_zerocopy("k").unwrap().unwrap(), b"secret value");
            }
            // The plaintext never reaches the file.
            let raw = std::fs::read(&path).unwrap();
            assert!(!raw.windows(12).any(|w| w == b"secret value"));
            assert!(!raw.windows(5).any(|w| w == b"alice"));
            assert!(!raw.windows(12).any(|w| w == b"batch secret"));
            for with_checkpoint in [true, false] {
                if !with_checkpoint {
                    let _ = std::fs::remove_file(
                        dir.path()
                            .join(format!("rt-{cipher:?}-{passphrase}.emdb.ckpt")),
                    );
                }
                let db = b().build().unwrap();
                assert_eq!(db.recovery_report().used_checkpoint, with_checkpoint);
                assert_eq!(db.get("k").unwrap(), Some(b"secret value".to_vec()));
                assert_eq!(db.get("m42").unwrap(), Some(b"v42".to_vec()));
                let users = db.namespace("users").unwrap();
                assert_eq!(users.get("alice").unwrap(), Some(b"1".to_vec()));
                assert_eq!(users.get("bob").unwrap(), Some(b"batch secret".to_vec()));
                assert_eq!(users.get("carol").unwrap(), None);
                assert_eq!(db.len().unwrap(), 101);
            }
        }
    }
}

#[test]
fn default_argon2_parameters_work() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("owasp.emdb");
    {
        let db = Emdb::builder()
            .path(&path)
            .encryption_passphrase("pw")
            .build()
            .unwrap();
        db.insert("a", "b").unwrap();
    }
    let db = Emdb::builder()
        .path(&path)
        .encryption_passphrase("pw")
        .build()
        .unwrap();
    assert_eq!(db.get("a").unwrap(), Some(b"b".to_vec()));
}

#[test]
fn wrong_or_missing_keys_fail_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wrong.emdb");
    drop(keyed(&path, Cipher::Aes256Gcm).build().unwrap());
    let before = std::fs::read(&path).unwrap();
    assert!(matches!(
        Emdb::builder()
            .path(&path)
            .encryption_key(OTHER_KEY)
            .build(),
        Err(Error::EncryptionKeyMismatch { .. })
    ));
    assert!(matches!(
        Emdb::builder()
            .path(&path)
            .encryption_passphrase("pw")
            .build(),
        Err(Error::EncryptionKeyMismatch { .. })
    ));
    assert!(matches!(
        Emdb::open(&path),
        Err(Error::EncryptionRequired { .. })
    ));
    let pw = dir.path().join("pw.emdb");
    drop(
        Emdb::builder()
            .path(&pw)
            .encryption_passphrase("right")
            .kdf_params(FAST_KDF)
            .build()
            .unwrap(),
    );
    assert!(matches!(
        Emdb::builder()
            .path(&pw)
            .encryption_passphrase("wrong")
            .build(),
        Err(Error::EncryptionKeyMismatch { .. })
    ));
    // A keyed open of a plain database fails and never marks it encrypted.
    let plain = dir.path().join("plain.emdb");
    {
        let db = Emdb::open(&plain).unwrap();
        db.insert("x", "y").unwrap();
    }
    let plain_before = std::fs::read(&plain).unwrap();
    assert!(matches!(
        Emdb::builder().path(&plain).encryption_key(KEY).build(),
        Err(Error::NotEncrypted { .. })
    ));
    assert_eq!(std::fs::read(&plain).unwrap(), plain_before);
    assert_eq!(
        Emdb::open(&plain).unwrap().get("x").unwrap(),
        Some(b"y".to_vec())
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // Secrets never show in Debug output.
    let shown = format!("{:?}", EncryptionInput::Passphrase("hunter2".into()));
    assert!(!shown.contains("hunter2"));
    let shown = format!("{:?}", Emdb::builder().encryption_passphrase("hunter2"));
    assert!(!shown.contains("hunter2"), "{shown}");
}

/// The frames of a database, as (offset, len), found by walking the log
/// with the public layout (docs/FORMAT.md): crc u32, tag, varints.
fn frames(bytes: &[u8], end: usize) -> Vec<(usize, usize)> {
    fn varint(b: &[u8], at: &mut usize) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let byte = b[*at];
            *at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return v;
            }
            shift += 7;
        }
    }
    let mut out = Vec::new();
    let mut at = 4096;
    while at < end {
        if bytes[at..(at + 5).min(end)].iter().all(|&b| b == 0) {
            break; // the zeros a clean close may leave past the log's end
        }
        let start = at;
        let tag = bytes[at + 4];
        let mut p = at + 5;
        if tag & 0x10 != 0 {
            varint(bytes, &mut p);
        }
        if tag & 0x20 != 0 {
            p += 8;
        }
        let len = if tag & 0x40 != 0 {
            varint(bytes, &mut p) as usize
        } else {
            let k = varint(bytes, &mut p) as usize;
            let v = varint(bytes, &mut p) as usize;
            k + v
        };
        at = p + len;
        out.push((start, at - start));
    }
    out
}

fn fix_crc(bytes: &mut [u8], (off, len): (usize, usize)) {
    let crc = crc32fast::hash(&bytes[off + 4..off + len]);
    bytes[off..off + 4].copy_from_slice(&crc.to_le_bytes());
}

fn write_db(path: &Path, records: &[(&str, &str)]) -> Vec<u8> {
    {
        let db = Emdb::builder()
            .path(path)
            .encryption_key(KEY)
            .build()
            .unwrap();
        for (k, v) in records {
            db.insert(k, v).unwrap();
        }
    }
    let _ = std::fs::remove_file(format!("{}.ckpt", path.display()));
    std::fs::read(path).unwrap()
}

fn open_fails_with_corruption(path: &Path, bytes: &[u8], what: &str) {
    std::fs::write(path, bytes).unwrap();
    let _ = std::fs::remove_file(format!("{}.ckpt", path.display()));
    match Emdb::builder().path(path).encryption_key(KEY).build() {
        Err(Error::Corruption { .. }) => {}
        Err(e) => panic!("{what}: expected corruption, got {e}"),
        Ok(db) => panic!(
            "{what}: opened with {:?}",
            db.iter().unwrap().collect::<Vec<_>>()
        ),
    }
}

#[test]
fn tampering_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.emdb");
    let good = write_db(&path, &[("key-a", "value-a"), ("key-b", "value-b")]);
    let fr = frames(&good, good.len());
    assert_eq!(fr.len(), 2);
    let victim = dir.path().join("victim.emdb");

    // A flipped ciphertext byte, with the CRC made valid again.
    let mut b = good.clone();
    b[fr[0].0 + fr[0].1 - 20] ^= 1;
    fix_crc(&mut b, fr[0]);
    open_fails_with_corruption(&victim, &b, "flipped value byte");

    // An insert turned into a remove (kind nibble), CRC fixed.
    let mut b = good.clone();
    b[fr[1].0 + 4] = (b[fr[1].0 + 4] & 0xf0) | 2;
    fix_crc(&mut b, fr[1]);
    open_fails_with_corruption(&victim, &b, "kind flipped");

    // Two records swapped (same length, both CRC-valid).
    assert_eq!(fr[0].1, fr[1].1);
    let mut b = good.clone();
    let (a, c) = (fr[0], fr[1]);
    let first = good[a.0..a.0 + a.1].to_vec();
    let second = good[c.0..c.0 + c.1].to_vec();
    b[a.0..a.0 + a.1].copy_from_slice(&second);
    b[c.0..c.0 + c.1].copy_from_slice(&first);
    open_fails_with_corruption(&victim, &b, "records swapped");

    // A record replayed: the first one copied over the second.
    let mut b = good.clone();
    b[c.0..c.0 + c.1].copy_from_slice(&first);
    open_fails_with_corruption(&victim, &b, "record replayed");

    // A record spliced in from another file encrypted with the same key.
    let other = dir.path().join("other.emdb");
    let foreign = write_db(&other, &[("key-x", "value-x"), ("key-b", "value-b")]);
    let ofr = frames(&foreign, foreign.len());
    let mut b = good.clone();
    b[c.0..c.0 + c.1].copy_from_slice(&foreign[ofr[1].0..ofr[1].0 + ofr[1].1]);
    open_fails_with_corruption(&victim, &b, "record from another file");

    // The encryption block of the header.
    let mut b = good.clone();
    b[1024 + 30] ^= 1;
    std::fs::write(&victim, &b).unwrap();
    assert!(matches!(
        Emdb::builder().path(&victim).encryption_key(KEY).build(),
        Err(Error::Corruption { .. }) | Err(Error::EncryptionKeyMismatch { .. })
    ));

    // With a checkpoint the damage is not seen at open, but a read of the
    // damaged record is an error, never garbage.
    {
        let db = Emdb::builder()
            .path(&path)
            .encryption_key(KEY)
            .build()
            .unwrap();
        db.checkpoint().unwrap();
    }
    let mut b = std::fs::read(&path).unwrap();
    let fr2 = frames(&b, fr[1].0 + fr[1].1);
    b[fr2[0].0 + fr2[0].1 - 20] ^= 1;
    fix_crc(&mut b, fr2[0]);
    std::fs::write(&path, &b).unwrap();
    let db = Emdb::builder()
        .path(&path)
        .encryption_key(KEY)
        .build()
        .unwrap();
    assert!(db.recovery_report().used_checkpoint);
    assert!(matches!(db.get("key-a"), Err(Error::Corruption { .. })));
    assert_eq!(db.get("key-b").unwrap(), Some(b"value-b".to_vec()));
}

#[test]
fn a_plaintext_record_inside_an_encrypted_database_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.emdb");
    {
        let db = Emdb::builder()
            .path(&plain)
            .checkpoint_on_close(false)
            .build()
            .unwrap();
        db.insert("evil", "plaintext").unwrap();
    }
    let p = std::fs::read(&plain).unwrap();
    let pf = frames(&p, p.len().min(4096 + 64));
    let plain_frame = &p[pf[0].0..pf[0].0 + pf[0].1];

    let path = dir.path().join("enc.emdb");
    let mut e = write_db(&path, &[("good", "value")]);
    e.extend_from_slice(plain_frame);
    std::fs::write(&path, &e).unwrap();
    match Emdb::builder().path(&path).encryption_key(KEY).build() {
        Err(Error::Corruption { reason, .. }) => assert!(reason.contains("plaintext"), "{reason}"),
        other => panic!("expected corruption, got {:?}", other.map(|d| d.len())),
    }
}

#[test]
fn nonces_never_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("n.emdb");
    let n = 20_000u32;
    {
        let db = keyed(&path, Cipher::Aes256Gcm).build().unwrap();
        for i in 0..n {
            db.insert(format!("{i:08}"), format!("{i:08}")).unwrap();
        }
        // Same content again: fresh nonces.
        for i in 0..n {
            db.insert(format!("{i:08}"), format!("{i:08}")).unwrap();
        }
    }
    let b = std::fs::read(&path).unwrap();
    let fr = frames(&b, b.len());
    assert_eq!(fr.len(), 2 * n as usize);
    let mut seen = HashSet::new();
    for (off, _) in fr {
        // crc, tag, 1-byte sealed length, then the nonce.
        let nonce = b[off + 6..off + 18].to_vec();
        assert!(seen.insert(nonce), "nonce repeated at {off}");
    }
    assert!(
        Emdb::builder()
            .path(&path)
            .encryption_key(KEY)
            .build()
            .unwrap()
            .stats()
            .unwrap()
            .encryptions
            >= 2 * u64::from(n)
    );
}

#[test]
fn every_feature_works_encrypted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.emdb");
    let db = keyed(&path, Cipher::ChaCha20Poly1305)
        .enable_range_scans(true)
        .build()
        .unwrap();
    let ns = db.namespace("n").unwrap();
    for i in 0..300u32 {
        db.insert(format!("k{i:04}"), format!("v{i}")).unwrap();
        ns.insert(format!("n{i:04}"), format!("w{i}")).unwrap();
    }
    db.insert_with_ttl("short", "x", Ttl::After(Duration::from_millis(1)))
        .unwrap();
    for i in 0..100u32 {
        db.remove(format!("k{i:04}")).unwrap();
    }
    db.transaction(|tx| {
        tx.insert("tx", "1")?;
        tx.namespace(&ns).insert("tx", "2")?;
        Ok(())
    })
    .unwrap();
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(db.range_prefix("k01").unwrap().len(), 100);
    db.compact().unwrap();
    assert_eq!(db.get("k0150").unwrap(), Some(b"v150".to_vec()));
    assert_eq!(db.get("short").unwrap(), None);
    let reader = Emdb::builder()
        .path(&path)
        .encryption_key(KEY)
        .read_only(true)
        .build()
        .unwrap();
    db.insert("late", "write").unwrap();
    reader.refresh().unwrap();
    assert_eq!(reader.get("late").unwrap(), Some(b"write".to_vec()));
    assert_eq!(
        reader.namespace("n").unwrap().get("tx").unwrap(),
        Some(b"2".to_vec())
    );
    drop(reader);
    drop(ns);
    drop(db);
    let db = Emdb::builder()
        .path(&path)
        .encryption_key(KEY)
        .build()
        .unwrap();
    assert!(db.recovery_report().used_checkpoint);
    assert_eq!(db.len().unwrap(), 202, "200 k-keys, \"tx\" and \"late\"");
    assert_eq!(db.namespace("n").unwrap().len().unwrap(), 301);
    // A backup opens with the same key.
    let backup = dir.path().join("backup.emdb");
    db.backup_to(&backup).unwrap();
    let copy = Emdb::builder()
        .path(&backup)
        .encryption_key(KEY)
        .build()
        .unwrap();
    assert_eq!(copy.get("tx").unwrap(), Some(b"1".to_vec()));
    // In memory too.
    let mem = Emdb::builder().encryption_key(KEY).build().unwrap();
    mem.insert("a", "b").unwrap();
    mem.compact().unwrap();
    assert_eq!(mem.get("a").unwrap(), Some(b"b".to_vec()));
}

const SORTED_KEYS: u32 = 5000;

/// `key{i:05}` for `i` below [`SORTED_KEYS`], in a scrambled order.
fn scrambled(i: u32) -> String {
    format!("key{:05}", (i * 7919) % SORTED_KEYS)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// The 8-byte words of the checkpoint's slot pages that equal the offset
/// of a record in the log: a sorted block in clear is made of them (hash
/// index entries carry a tag in their top bits).
fn offsets_in_clear(db_path: &Path) -> usize {
    let ckpt = std::fs::read(format!("{}.ckpt", db_path.display())).unwrap();
    assert_eq!(&ckpt[8..12], &2u32.to_le_bytes());
    let log = std::fs::read(db_path).unwrap();
    let records: HashSet<u64> = frames(&log, log.len())
        .into_iter()
        .map(|(off, _)| off as u64)
        .collect();
    let (pages_at, crcs_at) = (u64_at(&ckpt, 72) as usize, u64_at(&ckpt, 88) as usize);
    (pages_at..crcs_at)
        .step_by(8)
        .filter(|&at| records.contains(&u64_at(&ckpt, at)))
        .count()
}

fn all_keys(db: &Emdb) -> emdb_core::Result<Vec<Vec<u8>>> {
    db.range_iter(..)?.map(|r| r.map(|(k, _)| k)).collect()
}

fn sorted_names() -> Vec<Vec<u8>> {
    (0..SORTED_KEYS)
        .map(|i| format!("key{i:05}").into_bytes())
        .collect()
}

/// An encrypted database's checkpoint stores its sorted order sealed:
/// no record offset shows in clear (a plain database's checkpoint shows
/// one per key), and a read-only open reads ranges from it, opening a few
/// chunks, without decrypting and sorting every key.
#[test]
fn encrypted_sorted_order_is_stored_sealed_and_read_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sorted.emdb");
    {
        let db = keyed(&path, Cipher::Aes256Gcm).build().unwrap();
        db.insert_many((0..SORTED_KEYS).map(|i| (scrambled(i), i.to_string())))
            .unwrap();
        db.checkpoint().unwrap();
    }
    assert_eq!(offsets_in_clear(&path), 0, "a sorted block in clear");
    // The plain database of the same keys shows every key's offset.
    let plain = dir.path().join("plain.emdb");
    {
        let db = Emdb::open(&plain).unwrap();
        db.insert_many((0..SORTED_KEYS).map(|i| (scrambled(i), i.to_string())))
            .unwrap();
        db.checkpoint().unwrap();
    }
    assert!(offsets_in_clear(&plain) >= SORTED_KEYS as usize);

    let db = keyed(&path, Cipher::Aes256Gcm)
        .read_only(true)
        .build()
        .unwrap();
    assert!(db.recovery_report().used_checkpoint);
    let before = db.stats().unwrap().index_memory_bytes;
    let got: Vec<Vec<u8>> = db
        .range_iter(b"key02500".to_vec()..b"key02505".to_vec())
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(got, sorted_names()[2500..2505].to_vec());
    // An order sorted in memory holds 8 bytes per key; the chunks a seek
    // opened hold 8 bytes per offset in them (508 per chunk).
    let grew = db.stats().unwrap().index_memory_bytes - before;
    assert!(
        grew <= 4 * 508 * 8,
        "{grew} bytes for one seek: the order was rebuilt"
    );
    assert_eq!(all_keys(&db).unwrap(), sorted_names());
    // The writer reads the same order, and after more writes and a reopen.
    drop(db);
    let db = keyed(&path, Cipher::Aes256Gcm).build().unwrap();
    assert_eq!(all_keys(&db).unwrap(), sorted_names());
    db.remove("key00000").unwrap();
    db.insert("key99999", "new").unwrap();
    db.checkpoint().unwrap();
    drop(db);
    let db = keyed(&path, Cipher::Aes256Gcm).build().unwrap();
    let mut want = sorted_names();
    want.remove(0);
    want.push(b"key99999".to_vec());
    assert_eq!(all_keys(&db).unwrap(), want);
}

/// Every slot page of an encrypted checkpoint changed, with its page CRC
/// made to match: a range read over the sealed sorted block either gives
/// the right keys (the page was not the block's) or fails as corruption,
/// and the block's chunks all fail their authentication.
#[test]
fn a_tampered_sealed_sorted_chunk_is_corruption_never_a_wrong_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tamper.emdb");
    {
        let db = keyed(&path, Cipher::ChaCha20Poly1305).build().unwrap();
        db.insert_many((0..SORTED_KEYS).map(|i| (scrambled(i), i.to_string())))
            .unwrap();
        db.checkpoint().unwrap();
    }
    let ckpt_path = format!("{}.ckpt", path.display());
    let orig = std::fs::read(&ckpt_path).unwrap();
    let (pages_at, crcs_at) = (u64_at(&orig, 72) as usize, u64_at(&orig, 88) as usize);
    let mut failed = 0;
    for (i, page) in (pages_at..crcs_at).step_by(4096).enumerate() {
        let mut t = orig.clone();
        t[page + 100] ^= 0x04;
        let crc = crc32fast::hash(&t[page..page + 4096]);
        t[crcs_at + 4 * i..crcs_at + 4 * i + 4].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&ckpt_path, &t).unwrap();
        let db = keyed(&path, Cipher::ChaCha20Poly1305)
            .read_only(true)
            .build()
            .unwrap();
        assert!(db.recovery_report().used_checkpoint);
        match all_keys(&db) {
            Ok(keys) => assert_eq!(keys, sorted_names(), "page {page}"),
            Err(e) => {
                assert!(matches!(e, Error::Corruption { .. }), "page {page}: {e}");
                failed += 1;
            }
        }
    }
    assert_eq!(failed, (SORTED_KEYS as usize).div_ceil(508));
}

/// A database of [`SORTED_KEYS`] keys with a checkpoint; the file offset
/// of its sorted block's chunk `c` (the block ends the slot pages of a
/// database with one namespace).
fn sealed_block(path: &Path) -> impl Fn(&[u8], usize) -> usize {
    let db = keyed(path, Cipher::Aes256Gcm).build().unwrap();
    db.insert_many((0..SORTED_KEYS).map(|i| (scrambled(i), i.to_string())))
        .unwrap();
    db.checkpoint().unwrap();
    let chunks = (SORTED_KEYS as usize).div_ceil(508);
    move |ckpt: &[u8], c: usize| u64_at(ckpt, 88) as usize - (chunks - c) * 4096
}

/// Make the page CRC of the slot page at file offset `page` match.
fn redo_page_crc(ckpt: &mut [u8], page: usize) {
    let (pages_at, crcs_at) = (u64_at(ckpt, 72) as usize, u64_at(ckpt, 88) as usize);
    let i = (page - pages_at) / 4096;
    let crc = crc32fast::hash(&ckpt[page..page + 4096]);
    ckpt[crcs_at + 4 * i..crcs_at + 4 * i + 4].copy_from_slice(&crc.to_le_bytes());
}

/// Sealed chunks cannot be moved: two chunks of the block swapped, or a
/// chunk of an older checkpoint of the same layout put back (CRCs made to
/// match), fail their authentication, so a range read is corruption and
/// never an order of other keys.
#[test]
fn moved_sealed_chunks_fail_their_authentication() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("moved.emdb");
    let chunk = sealed_block(&path);
    let ckpt_path = format!("{}.ckpt", path.display());
    let orig = std::fs::read(&ckpt_path).unwrap();
    let read = |ckpt: &[u8]| {
        std::fs::write(&ckpt_path, ckpt).unwrap();
        let db = keyed(&path, Cipher::Aes256Gcm)
            .read_only(true)
            .build()
            .unwrap();
        assert!(db.recovery_report().used_checkpoint);
        all_keys(&db)
    };
    assert_eq!(read(&orig).unwrap(), sorted_names());
    let mut swapped = orig.clone();
    let (a, b) = (chunk(&orig, 0), chunk(&orig, 1));
    swapped[a..a + 4096].copy_from_slice(&orig[b..b + 4096]);
    swapped[b..b + 4096].copy_from_slice(&orig[a..a + 4096]);
    redo_page_crc(&mut swapped, a);
    redo_page_crc(&mut swapped, b);
    assert!(matches!(read(&swapped), Err(Error::Corruption { .. })));
    // A newer checkpoint of the same layout (one value rewritten).
    std::fs::write(&ckpt_path, &orig).unwrap();
    {
        let db = keyed(&path, Cipher::Aes256Gcm).build().unwrap();
        db.insert("key00003", "again").unwrap();
        db.checkpoint().unwrap();
    }
    let newer = std::fs::read(&ckpt_path).unwrap();
    assert_eq!(newer.len(), orig.len(), "the same layout");
    let mut mixed = newer.clone();
    let p = chunk(&newer, 0);
    mixed[p..p + 4096].copy_from_slice(&orig[p..p + 4096]);
    redo_page_crc(&mut mixed, p);
    assert!(matches!(read(&mixed), Err(Error::Corruption { .. })));
    assert_eq!(read(&newer).unwrap(), sorted_names());
}

/// A writer opened over a checkpoint whose sealed block is damaged (its
/// page CRC failing, or redone so only the seal fails) still checkpoints,
/// explicitly and at close past the close bound, from its index and log,
/// and so replaces the damaged file: its next checkpoint would otherwise
/// start from the damaged order.
#[test]
fn a_damaged_sealed_block_does_not_stop_the_writer_checkpointing() {
    for (redo_crc, at_close) in [(false, false), (true, false), (false, true), (true, true)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("damaged.emdb");
        let chunk = sealed_block(&path);
        let ckpt_path = format!("{}.ckpt", path.display());
        let mut t = std::fs::read(&ckpt_path).unwrap();
        let page = chunk(&t, 3);
        t[page + 100] ^= 1;
        if redo_crc {
            redo_page_crc(&mut t, page);
        }
        std::fs::write(&ckpt_path, &t).unwrap();
        let db = keyed(&path, Cipher::Aes256Gcm).build().unwrap();
        assert!(db.recovery_report().used_checkpoint);
        let mut want = sorted_names();
        if at_close {
            // Past the close bound (64 KiB), few enough to be placed.
            for i in 0..250u32 {
                db.insert(format!("new{i:04}"), [b'v'; 300]).unwrap();
                want.push(format!("new{i:04}").into_bytes());
            }
            db.close().unwrap();
        } else {
            db.insert("zzz", "1").unwrap();
            want.push(b"zzz".to_vec());
            db.checkpoint().unwrap();
            drop(db);
        }
        let db = keyed(&path, Cipher::Aes256Gcm)
            .read_only(true)
            .build()
            .unwrap();
        assert!(db.recovery_report().used_checkpoint);
        assert_eq!(
            all_keys(&db).unwrap(),
            want,
            "crc {redo_crc}, close {at_close}"
        );
    }
}

/// A one-shot read of a range's first pairs narrows through the sealed
/// block by reading records past the range; one of those damaged is no
/// reason to fail a read that does not need it: the whole range is read
/// instead, as `range_once` reads it.
#[test]
fn a_damaged_record_past_the_range_does_not_fail_its_first_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("narrow.emdb");
    let key = |i: usize| format!("k{i:03}").into_bytes();
    {
        let db = keyed(&path, Cipher::Aes256Gcm).build().unwrap();
        for i in 0..200 {
            db.insert(key(i), b"v").unwrap();
        }
        db.checkpoint().unwrap();
    }
    // The seal of k041's record (the 42nd frame) broken.
    let mut log = std::fs::read(&path).unwrap();
    let (at, len) = frames(&log, log.len())[41];
    log[at + len - 1] ^= 0x55;
    std::fs::write(&path, &log).unwrap();
    let ro = keyed(&path, Cipher::Aes256Gcm)
        .read_only(true)
        .build()
        .unwrap();
    assert!(ro.get(key(41)).is_err(), "k041 is damaged");
    assert_eq!(ro.get(key(11)).unwrap(), Some(b"v".to_vec()));
    let (s, e) = (key(10), key(12));
    let range = (Bound::Included(&s[..]), Bound::Included(&e[..]));
    let whole: Vec<Vec<u8>> = keyed(&path, Cipher::Aes256Gcm)
        .range_once(None, range.0, range.1)
        .unwrap()
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(whole, vec![key(10), key(11), key(12)]);
    let first: Vec<Vec<u8>> = keyed(&path, Cipher::Aes256Gcm)
        .range_once_first(None, range.0, range.1, 10)
        .unwrap()
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(first, whole);
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Entries with an expiry in the secret namespace: a count the namespace
/// table would hold in clear (its `expiring` field).
const SECRET_EXPIRING: u32 = 4321;

/// A database with two named namespaces and a checkpoint; the bytes of the
/// checkpoint file.
fn secret_namespaces(b: EmdbBuilder, path: &Path) -> Vec<u8> {
    let db = b.build().unwrap();
    let ns = db.namespace("secret-ns-name").unwrap();
    db.transaction(|tx| {
        let mut t = tx.namespace(&ns);
        for i in 0..SECRET_EXPIRING {
            t.insert_with_ttl(format!("k{i}"), "v", Ttl::After(Duration::from_secs(3600)))?;
        }
        Ok(())
    })
    .unwrap();
    db.namespace("another-hidden-ns")
        .unwrap()
        .insert("a", "b")
        .unwrap();
    db.checkpoint().unwrap();
    drop(db);
    std::fs::read(format!("{}.ckpt", path.display())).unwrap()
}

/// The namespace table of a version-2 checkpoint, as stored.
fn stored_table(ckpt: &[u8]) -> &[u8] {
    let len = u64::from_le_bytes(ckpt[64..72].try_into().unwrap()) as usize;
    &ckpt[4096..4096 + len]
}

fn assert_secret_namespaces_intact(db: &Emdb) {
    let mut names = db.list_namespaces().unwrap();
    names.sort();
    assert!(names.contains(&"secret-ns-name".to_string()), "{names:?}");
    assert!(
        names.contains(&"another-hidden-ns".to_string()),
        "{names:?}"
    );
    let ns = db.namespace("secret-ns-name").unwrap();
    assert_eq!(ns.len().unwrap(), SECRET_EXPIRING as usize);
    assert_eq!(ns.expiring_len().unwrap(), u64::from(SECRET_EXPIRING));
    assert_eq!(ns.get("k17").unwrap(), Some(b"v".to_vec()));
    assert_eq!(
        db.namespace("another-hidden-ns").unwrap().get("a").unwrap(),
        Some(b"b".to_vec())
    );
}

fn assert_no_secrets(ckpt: &[u8]) {
    assert!(!contains(ckpt, b"secret-ns-name"));
    assert!(!contains(ckpt, b"another-hidden-ns"));
    let count = u64::from(SECRET_EXPIRING).to_le_bytes();
    assert!(!contains(stored_table(ckpt), &count));
}

#[test]
fn an_encrypted_checkpoint_shows_no_namespace_names_or_counts() {
    let dir = tempfile::tempdir().unwrap();
    // The search works: a plain database's checkpoint shows both.
    let plain = dir.path().join("plain.emdb");
    let ckpt = secret_namespaces(Emdb::builder().path(&plain), &plain);
    assert!(contains(&ckpt, b"secret-ns-name"));
    let count = u64::from(SECRET_EXPIRING).to_le_bytes();
    assert!(contains(stored_table(&ckpt), &count));

    for cipher in [Cipher::Aes256Gcm, Cipher::ChaCha20Poly1305] {
        let path = dir.path().join(format!("secret-{cipher:?}.emdb"));
        let ckpt = secret_namespaces(keyed(&path, cipher), &path);
        assert_eq!(&ckpt[8..12], &2u32.to_le_bytes());
        assert_no_secrets(&ckpt);
        // Opens from the checkpoint, without a replay.
        let db = keyed(&path, cipher).build().unwrap();
        let r = db.recovery_report();
        assert!(r.used_checkpoint, "{:?}", r.checkpoint_rejected);
        assert_eq!(r.records_replayed, 0);
        assert_secret_namespaces_intact(&db);
        drop(db);
        // A wrong key is still refused.
        assert!(matches!(
            Emdb::builder()
                .path(&path)
                .encryption_key(OTHER_KEY)
                .build(),
            Err(Error::EncryptionKeyMismatch { .. })
        ));
    }
}

#[test]
fn a_sealed_checkpoint_table_is_bound_to_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bound.emdb");
    let ckpt_path = format!("{}.ckpt", path.display());
    let good = secret_namespaces(keyed(&path, Cipher::Aes256Gcm), &path);
    let reheader = |b: &mut [u8]| {
        let crc = crc32fast::hash(&b[..100]);
        b[100..104].copy_from_slice(&crc.to_le_bytes());
    };
    let retable = |b: &mut [u8]| {
        let crc = crc32fast::hash(stored_table(b));
        b[96..100].copy_from_slice(&crc.to_le_bytes());
        let crc = crc32fast::hash(&b[..100]);
        b[100..104].copy_from_slice(&crc.to_le_bytes());
    };
    // A header field changed (next namespace id), its CRC fixed; a byte of
    // the sealed table flipped, both CRCs fixed: each is refused and the
    // log replayed, with nothing lost.
    let mut other_header = good.clone();
    other_header[60] ^= 0x40;
    reheader(&mut other_header);
    let mut flipped = good.clone();
    flipped[4096 + 40] ^= 0x01;
    retable(&mut flipped);
    for (what, bytes) in [("header", other_header), ("table", flipped)] {
        std::fs::write(&ckpt_path, &bytes).unwrap();
        let db = keyed(&path, Cipher::Aes256Gcm).build().unwrap();
        let r = db.recovery_report();
        assert!(!r.used_checkpoint, "{what}");
        let why = r.checkpoint_rejected.clone().unwrap_or_default();
        assert!(why.contains("authentication"), "{what}: {why}");
        assert_secret_namespaces_intact(&db);
    }
}

#[test]
fn admin_rewrites_keep_checkpoint_names_sealed_only_when_encrypted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("admin-ns.emdb");
    let ckpt_path = format!("{}.ckpt", path.display());
    let backup = dir.path().join("admin-ns.emdb.encbak");
    let read_ckpt = || std::fs::read(&ckpt_path).unwrap();
    // Opens from the checkpoint with every namespace intact.
    let check_opens = |b: emdb_core::EmdbBuilder| {
        let db = b.path(&path).build().unwrap();
        assert!(db.recovery_report().used_checkpoint);
        assert_secret_namespaces_intact(&db);
    };
    let ckpt = secret_namespaces(Emdb::builder().path(&path), &path);
    assert!(contains(&ckpt, b"secret-ns-name"));
    Emdb::enable_encryption(&path, EncryptionInput::Key(KEY)).unwrap();
    std::fs::remove_file(&backup).unwrap();
    assert_no_secrets(&read_ckpt());
    check_opens(Emdb::builder().encryption_key(KEY));
    // Encrypting again says so (it said "open it with encryption_key").
    let again = Emdb::enable_encryption(&path, EncryptionInput::Key(OTHER_KEY));
    assert!(
        matches!(again, Err(emdb_core::Error::AlreadyEncrypted { .. })),
        "{again:?}"
    );
    assert!(!backup.exists());
    Emdb::rotate_encryption_key(
        &path,
        EncryptionInput::Key(KEY),
        EncryptionInput::Key(OTHER_KEY),
    )
    .unwrap();
    std::fs::remove_file(&backup).unwrap();
    assert_no_secrets(&read_ckpt());
    check_opens(Emdb::builder().encryption_key(OTHER_KEY));
    assert!(matches!(
        Emdb::builder().path(&path).encryption_key(KEY).build(),
        Err(Error::EncryptionKeyMismatch { .. })
    ));
    Emdb::disable_encryption(&path, EncryptionInput::Key(OTHER_KEY)).unwrap();
    std::fs::remove_file(&backup).unwrap();
    check_opens(Emdb::builder());
}

#[test]
fn enable_rotate_disable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("admin.emdb");
    let backup = dir.path().join("admin.emdb.encbak");
    {
        let db = Emdb::open(&path).unwrap();
        db.insert_many((0..1000u32).map(|i| (format!("k{i}"), format!("v{i}"))))
            .unwrap();
        db.namespace("ns").unwrap().insert("x", "y").unwrap();
        db.insert_with_ttl("ttl", "z", Ttl::After(Duration::from_secs(3600)))
            .unwrap();
    }
    Emdb::enable_encryption(&path, EncryptionInput::Key(KEY)).unwrap();
    assert!(backup.exists());
    assert!(matches!(
        Emdb::open(&path),
        Err(Error::EncryptionRequired { .. })
    ));
    // The backup is the old plain file.
    assert_eq!(Emdb::open(&backup).unwrap().len().unwrap(), 1001);
    std::fs::remove_file(format!("{}.lock", backup.display())).ok();
    // A retry refuses while the backup exists.
    assert!(matches!(
        Emdb::rotate_encryption_key(
            &path,
            EncryptionInput::Key(KEY),
            EncryptionInput::Key(OTHER_KEY)
        ),
        Err(Error::EncryptionBackupLeft { .. })
    ));
    std::fs::remove_file(&backup).unwrap();
    Emdb::rotate_encryption_key(
        &path,
        EncryptionInput::Key(KEY),
        EncryptionInput::Passphrase("new pass".into()),
    )
    .unwrap();
    std::fs::remove_file(&backup).unwrap();
    assert!(matches!(
        Emdb::builder().path(&path).encryption_key(KEY).build(),
        Err(Error::EncryptionKeyMismatch { .. })
    ));
    {
        let db = Emdb::builder()
            .path(&path)
            .encryption_passphrase("new pass")
            .build()
            .unwrap();
        assert!(db.recovery_report().used_checkpoint);
        assert_eq!(db.len().unwrap(), 1001);
        assert_eq!(
            db.namespace("ns").unwrap().get("x").unwrap(),
            Some(b"y".to_vec())
        );
        assert!(db.ttl("ttl").unwrap().unwrap() > Duration::from_secs(3000));
    }
    Emdb::disable_encryption(&path, EncryptionInput::Passphrase("new pass".into())).unwrap();
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.get("k999").unwrap(), Some(b"v999".to_vec()));
    assert_eq!(db.len().unwrap(), 1001);
}

/// The child side of `crash_during_rotation_leaves_a_usable_database`.
#[test]
#[ignore = "child process of crash_during_rotation_leaves_a_usable_database"]
fn rotation_child() {
    let Ok(path) = std::env::var("EMDB_ROTATE_CHILD") else {
        return;
    };
    let from: [u8; 32] = if std::env::var("EMDB_ROTATE_FROM").as_deref() == Ok("a") {
        KEY
    } else {
        OTHER_KEY
    };
    let to = if from == KEY { OTHER_KEY } else { KEY };
    Emdb::rotate_encryption_key(&path, EncryptionInput::Key(from), EncryptionInput::Key(to))
        .unwrap();
    println!("rotated");
}

#[test]
fn crash_during_rotation_leaves_a_usable_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rot.emdb");
    let n = 20_000u32;
    {
        let db = Emdb::builder()
            .path(&path)
            .encryption_key(KEY)
            .build()
            .unwrap();
        db.insert_many((0..n).map(|i| (format!("k{i:06}"), format!("value-{i}"))))
            .unwrap();
    }
    let rounds: u64 = std::env::var("EMDB_ROTATE_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8);
    let mut current = KEY;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..rounds {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "rotation_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("EMDB_ROTATE_CHILD", &path)
            .env("EMDB_ROTATE_FROM", if current == KEY { "a" } else { "b" })
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(seed % 400));
        let _ = child.kill();
        let _ = child.wait();
        // Either key opens it, with all data.
        let with_old = Emdb::builder().path(&path).encryption_key(current).build();
        let (db, key) = match with_old {
            Ok(db) => (db, current),
            Err(Error::EncryptionKeyMismatch { .. }) => {
                let other = if current == KEY { OTHER_KEY } else { KEY };
                (
                    Emdb::builder()
                        .path(&path)
                        .encryption_key(other)
                        .build()
                        .unwrap_or_else(|e| panic!("round {round}: {e}")),
                    other,
                )
            }
            Err(e) => panic!("round {round}: {e}"),
        };
        assert_eq!(db.len().unwrap(), n as usize, "round {round}");
        assert_eq!(
            db.get(format!("k{:06}", round % u64::from(n))).unwrap(),
            Some(format!("value-{}", round % u64::from(n)).into_bytes())
        );
        drop(db);
        current = key;
        // An operator, having checked the database, removes the backup.
        let _ = std::fs::remove_file(dir.path().join("rot.emdb.encbak"));
    }
}

/// Issue 15, item 9: a `decrypt` killed before its rename leaves
/// `<db>.enc.tmp` full of plaintext (and its checkpoint and lock file);
/// nothing removed it. The next writable open of the database (which holds
/// the writer lock, so no change is running) removes them.
#[test]
fn a_killed_decrypt_leaves_no_plaintext_behind_once_the_database_is_opened() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("enc.emdb");
    {
        let db = keyed(&path, Cipher::Aes256Gcm).build().unwrap();
        db.insert("secret", "plaintext").unwrap();
    }
    // What the killed decrypt had written: a plain database at the temp name.
    let tmp = dir.path().join("enc.emdb.enc.tmp");
    {
        let plain = Emdb::open(&tmp).unwrap();
        plain.insert("secret", "plaintext").unwrap();
        plain.checkpoint().unwrap();
    }
    // A read-only open modifies nothing, not even this.
    drop(
        keyed(&path, Cipher::Aes256Gcm)
            .read_only(true)
            .build()
            .unwrap(),
    );
    assert!(tmp.exists());
    let db = keyed(&path, Cipher::Aes256Gcm).build().unwrap();
    assert_eq!(db.get("secret").unwrap(), Some(b"plaintext".to_vec()));
    for left in ["enc.emdb.enc.tmp", "enc.emdb.enc.tmp.ckpt"] {
        assert!(
            !dir.path().join(left).exists(),
            "{left} outlived the killed decrypt"
        );
    }
}

/// Range scans of an encrypted database read each sealed record once and
/// take the pair from that read: the pairs must still be the right ones,
/// through overwrites (several records of a key in the delta), removals,
/// expiry, values of every size (the reused decryption buffers grow and
/// shrink), a compaction and a reopen.
#[test]
fn encrypted_range_scans_return_the_right_pairs() {
    use std::collections::BTreeMap;
    use std::ops::Bound;
    for cipher in [Cipher::Aes256Gcm, Cipher::ChaCha20Poly1305] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.emdb");
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let value = |i: u32, round: u32| -> Vec<u8> {
            let len = ((i * 37 + round * 101) % 700) as usize;
            (0..len).map(|j| (j as u32 ^ i ^ round) as u8).collect()
        };
        let check = |db: &Emdb, model: &BTreeMap<Vec<u8>, Vec<u8>>, what: &str| {
            let all: Vec<_> = db.range_iter(..).unwrap().map(|r| r.unwrap()).collect();
            let want: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            assert!(all == want, "{cipher:?} {what}: full scan differs");
            for (lo, hi) in [("k0100", "k0200"), ("k0333", "k0334"), ("j", "k0050")] {
                let (lo, hi) = (lo.as_bytes().to_vec(), hi.as_bytes().to_vec());
                let got: Vec<_> = db
                    .range_iter((Bound::Excluded(lo.clone()), Bound::Included(hi.clone())))
                    .unwrap()
                    .map(|r| r.unwrap())
                    .collect();
                let want: Vec<_> = model
                    .range((Bound::Excluded(lo), Bound::Included(hi)))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                assert!(got == want, "{cipher:?} {what}: bounded scan differs");
            }
            let mut it = db.iter_from("k0400").unwrap();
            let mut seen = 0;
            while let Some(r) = it.next_with_expiry() {
                let (k, v, exp) = r.unwrap();
                assert_eq!(model.get(&k), Some(&v), "{cipher:?} {what}");
                assert_eq!(exp.is_some(), k.ends_with(b"7"), "{cipher:?} {what}");
                seen += 1;
            }
            assert_eq!(seen, model.range(b"k0400".to_vec()..).count());
            // Without copies: slices of each decrypted record.
            let mut it = db.iter_from("k0250").unwrap();
            let mut borrowed = Vec::new();
            while let Some(r) = it.next_map(|k, v| (k.to_vec(), v.to_vec())) {
                borrowed.push(r.unwrap());
            }
            let want: Vec<_> = model
                .range(b"k0250".to_vec()..)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            assert!(borrowed == want, "{cipher:?} {what}: next_map differs");
        };
        let db = keyed(&path, cipher).build().unwrap();
        for round in 0..3u32 {
            for i in 0..500u32 {
                let k = format!("k{i:04}").into_bytes();
                if (i + round) % 5 == 0 {
                    db.remove(&k).unwrap();
                    model.remove(&k);
                } else if k.ends_with(b"7") {
                    // Long-lived TTL: listed with an expiry.
                    db.insert_with_ttl(&k, value(i, round), Ttl::After(Duration::from_secs(3600)))
                        .unwrap();
                    model.insert(k, value(i, round));
                } else {
                    db.insert(&k, value(i, round)).unwrap();
                    model.insert(k, value(i, round));
                }
            }
            db.insert_with_ttl("k9999", "gone", Ttl::After(Duration::from_millis(1)))
                .unwrap();
            std::thread::sleep(Duration::from_millis(5));
            check(&db, &model, &format!("round {round}"));
            if round == 1 {
                db.compact().unwrap();
                check(&db, &model, "after compaction");
            }
        }
        drop(db);
        let db = keyed(&path, cipher).build().unwrap();
        check(&db, &model, "after reopen");
    }
}

/// Every pair of a key space, sorted (`iter` walks the hash index).
fn pairs_of(
    it: impl Iterator<Item = emdb_core::Result<(Vec<u8>, Vec<u8>)>>,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut all: Vec<_> = it.collect::<emdb_core::Result<_>>().unwrap();
    all.sort();
    all
}

/// A batch of an encrypted database is indexed from the keys it sealed,
/// not by decrypting each frame again: overwrites, removals and re-puts
/// inside one transaction, two namespaces, an expiry and large values all
/// land as a replay of the log (a reopen without a checkpoint) finds them,
/// counters included.
#[test]
fn an_encrypted_batch_is_indexed_by_what_it_sealed() {
    use std::collections::BTreeMap;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("batch.emdb");
    let open = || {
        keyed(&path, Cipher::Aes256Gcm)
            .background(false)
            .checkpoint_on_close(false)
            .build()
            .unwrap()
    };
    let db = open();
    let users = db.namespace("users").unwrap();
    let mut want: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    let mut want_users: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    for i in 0..100 {
        db.insert(format!("k{i:03}"), b"old").unwrap();
        want.insert(format!("k{i:03}").into_bytes(), b"old".to_vec());
    }
    db.transaction(|tx| {
        for i in 0..300 {
            tx.insert(format!("k{i:03}"), format!("v{i}"))?;
        }
        for i in (0..300).step_by(7) {
            tx.remove(format!("k{i:03}"))?;
        }
        tx.insert_with_ttl("k007", "again", Ttl::After(Duration::from_secs(3600)))?;
        let mut u = tx.namespace(&users);
        for i in 0..50 {
            u.insert(format!("u{i:02}"), vec![b'x'; i * 1000])?;
        }
        u.remove("u03")?;
        Ok(())
    })
    .unwrap();
    for i in 0..300 {
        want.insert(
            format!("k{i:03}").into_bytes(),
            format!("v{i}").into_bytes(),
        );
    }
    for i in (0..300).step_by(7) {
        want.remove(format!("k{i:03}").as_bytes());
    }
    want.insert(b"k007".to_vec(), b"again".to_vec());
    for i in 0..50 {
        want_users.insert(format!("u{i:02}").into_bytes(), vec![b'x'; i * 1000]);
    }
    want_users.remove(b"u03".as_slice());
    let check = |db: &Emdb, when: &str| {
        let users = db.namespace("users").unwrap();
        assert_eq!(
            pairs_of(db.iter().unwrap()),
            want.clone().into_iter().collect::<Vec<_>>(),
            "{when}"
        );
        assert_eq!(
            pairs_of(users.iter().unwrap()),
            want_users.clone().into_iter().collect::<Vec<_>>(),
            "{when}"
        );
        for (k, v) in &want {
            assert_eq!(db.get(k).unwrap().as_ref(), Some(v), "{when}");
        }
        assert!(db.ttl("k007").unwrap().is_some(), "{when}");
        let s = db.stats().unwrap();
        assert_eq!(
            s.live_records as usize,
            want.len() + want_users.len(),
            "{when}"
        );
        assert_eq!(s.expiring_records, 1, "{when}");
        s
    };
    let indexed = check(&db, "as the batch indexed it");
    drop((users, db));
    let replayed = check(&open(), "as a replay of the log finds it");
    assert_eq!(indexed.live_bytes, replayed.live_bytes);
    assert_eq!(indexed.dead_bytes, replayed.dead_bytes);
}

/// Encryption options that would be ignored or fail later are refused by
/// `build` before any file is touched (QA): a cipher or Argon2id costs
/// without a key or passphrase created a plain database silently, and
/// Argon2id costs the derivation refuses left `<db>.lock` behind.
#[test]
fn encryption_options_that_cannot_apply_are_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opts.emdb");
    let refused = [
        Emdb::builder()
            .path(&path)
            .cipher(Cipher::ChaCha20Poly1305)
            .build(),
        Emdb::builder().path(&path).kdf_params(FAST_KDF).build(),
        Emdb::builder()
            .path(&path)
            .encryption_passphrase("pw")
            .kdf_params(KdfParams {
                memory_kib: 8,
                iterations: 1,
                parallelism: 4,
            })
            .build(),
    ];
    for r in refused {
        assert!(matches!(r, Err(Error::InvalidConfig(_))), "{r:?}");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Argon2id parameters past the limits are an error, never an abort on a
/// huge allocation or a derivation that runs for ever: from the builder,
/// and from a header whose parameters were edited (its CRC fixed up).
#[test]
fn argon2_parameters_past_the_limits_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kdf.emdb");
    let huge = KdfParams {
        memory_kib: u32::MAX,
        iterations: 1,
        parallelism: 1,
    };
    match Emdb::builder()
        .path(&path)
        .encryption_passphrase("pw")
        .kdf_params(huge)
        .build()
    {
        Err(Error::InvalidConfig(m)) => assert!(m.contains("past the limits"), "{m}"),
        other => panic!("{other:?}"),
    }
    {
        let db = Emdb::builder()
            .path(&path)
            .encryption_passphrase("pw")
            .kdf_params(FAST_KDF)
            .build()
            .unwrap();
        db.insert("k", "v").unwrap();
    }
    // The encryption block: at 1024, its parameters at +8, +12, +16, its
    // CRC after 96 bytes (docs/FORMAT.md).
    for (at, value) in [(8usize, u32::MAX), (12, u32::MAX), (16, 1 << 20)] {
        let mut bytes = std::fs::read(&path).unwrap();
        let block = 1024;
        let saved = bytes[block + at..block + at + 4].to_vec();
        bytes[block + at..block + at + 4].copy_from_slice(&value.to_le_bytes());
        let crc = crc32fast::hash(&bytes[block..block + 96]);
        bytes[block + 96..block + 100].copy_from_slice(&crc.to_le_bytes());
        let edited = dir.path().join(format!("edited-{at}.emdb"));
        std::fs::write(&edited, &bytes).unwrap();
        let opened = Emdb::builder()
            .path(&edited)
            .encryption_passphrase("pw")
            .read_only(true)
            .build();
        assert!(
            matches!(&opened, Err(Error::InvalidConfig(m)) if m.contains("past the limits")),
            "offset {at}: {opened:?}"
        );
        bytes[block + at..block + at + 4].copy_from_slice(&saved);
    }
}
