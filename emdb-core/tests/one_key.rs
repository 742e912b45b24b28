//! `EmdbBuilder::read_one_key` against a pinned read-only handle: the same
//! answer for every key of every namespace, whatever the log written after
//! the checkpoint holds (overwrites, deletes, batches, clears, namespace
//! drops and re-creations, expiries), with the writer still open.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::time::Duration;

use common::{ckpt_path, Rng};
use emdb_core::{Emdb, EncryptionInput, OneKey, Ttl};

const KEYS: u64 = 120;
const SPACES: [Option<&str>; 3] = [None, Some("a"), Some("b")];

fn key(i: u64) -> Vec<u8> {
    format!("k{i:03}").into_bytes()
}

/// Random writes through `db`: single puts (some expiring at once, some in
/// an hour), deletes, batches, transactions, clears and drops of the named
/// namespaces, and a checkpoint now and then.
fn workload(db: &Emdb, rng: &mut Rng, ops: usize) {
    for step in 0..ops {
        let space = SPACES[rng.below(3) as usize];
        let k = key(rng.below(KEYS));
        let value = format!("v{step}-{}", rng.below(1000)).into_bytes();
        match rng.below(100) {
            0..=44 => match space {
                None => db.insert(&k, &value).unwrap(),
                Some(n) => db.namespace(n).unwrap().insert(&k, &value).unwrap(),
            },
            45..=51 => {
                let ttl = if rng.below(2) == 0 {
                    Ttl::After(Duration::from_millis(1))
                } else {
                    Ttl::After(Duration::from_secs(3600))
                };
                match space {
                    None => db.insert_with_ttl(&k, &value, ttl).unwrap(),
                    Some(n) => db
                        .namespace(n)
                        .unwrap()
                        .insert_with_ttl(&k, &value, ttl)
                        .unwrap(),
                }
            }
            52..=69 => match space {
                None => {
                    db.remove(&k).unwrap();
                }
                Some(n) => {
                    db.namespace(n).unwrap().remove(&k).unwrap();
                }
            },
            70..=81 => {
                let mut batch = db.write_batch();
                for _ in 0..1 + rng.below(6) {
                    let k = key(rng.below(KEYS));
                    if rng.below(4) == 0 {
                        batch.remove(&k).unwrap();
                    } else {
                        batch.put(&k, &value).unwrap();
                    }
                }
                batch.commit().unwrap();
            }
            82..=88 => {
                let a = db.namespace("a").unwrap();
                db.transaction(|tx| {
                    for _ in 0..1 + rng.below(5) {
                        tx.namespace(&a).insert(key(rng.below(KEYS)), &value)?;
                    }
                    tx.remove(key(rng.below(KEYS)))?;
                    Ok(())
                })
                .unwrap();
            }
            89..=91 => {
                if let Some(n) = space {
                    db.namespace(n).unwrap().clear().unwrap();
                }
            }
            92..=93 => {
                if let Some(n) = space {
                    db.drop_namespace(n).unwrap();
                }
            }
            94..=95 => db.checkpoint().unwrap(),
            _ => db.flush().unwrap(),
        }
    }
}

/// Every (namespace, key) answered by `read_one_key` and by a pinned
/// read-only handle opened right after it; the two must agree.
fn agree(path: &Path, secret: Option<&EncryptionInput>) -> usize {
    let builder = || {
        let b = Emdb::builder().path(path);
        match secret {
            Some(s) => b.encryption(s.clone()),
            None => b,
        }
    };
    let pinned = builder().read_only(true).follow(false).build().unwrap();
    let names = pinned.list_namespaces().unwrap();
    let mut found = 0;
    for space in SPACES {
        for i in 0..KEYS + 2 {
            let k = key(i);
            let one = builder().read_one_key(space, &k).unwrap();
            let expected = match space {
                Some(n) if !names.iter().any(|m| m == n) => OneKey::NoNamespace,
                Some(n) => pinned
                    .namespace(n)
                    .unwrap()
                    .get(&k)
                    .unwrap()
                    .map_or(OneKey::Missing, OneKey::Found),
                None => pinned
                    .get(&k)
                    .unwrap()
                    .map_or(OneKey::Missing, OneKey::Found),
            };
            assert_eq!(one, expected, "namespace {space:?}, key {i}");
            found += usize::from(matches!(one, OneKey::Found(_)));
        }
    }
    found
}

#[test]
fn one_key_reads_agree_with_a_pinned_handle() {
    for seed in 1..=6u64 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("one.emdb");
        let mut rng = Rng::new(seed);
        let db = Emdb::builder()
            .path(&path)
            .checkpoint_tail(None)
            .build()
            .unwrap();
        workload(&db, &mut rng, 400);
        db.checkpoint().unwrap();
        // The tail after the checkpoint, written but not flushed.
        workload(&db, &mut rng, 700);
        std::thread::sleep(Duration::from_millis(5));
        let found = agree(&path, None);
        assert!(found > 20, "seed {seed}: only {found} keys found");
        drop(db);
        // After the close (and its checkpoint) as well.
        agree(&path, None);
    }
}

#[test]
fn one_key_reads_without_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plain.emdb");
    let db = Emdb::builder()
        .path(&path)
        .checkpoint_tail(None)
        .checkpoint_on_close(false)
        .build()
        .unwrap();
    let mut rng = Rng::new(77);
    workload(&db, &mut rng, 600);
    std::fs::remove_file(ckpt_path(&path)).ok();
    std::thread::sleep(Duration::from_millis(5));
    assert!(agree(&path, None) > 20);
}

#[test]
fn one_key_reads_of_an_encrypted_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sealed.emdb");
    let secret = EncryptionInput::Key([7u8; 32]);
    let db = Emdb::builder()
        .path(&path)
        .encryption(secret.clone())
        .checkpoint_tail(None)
        .build()
        .unwrap();
    let mut rng = Rng::new(5);
    workload(&db, &mut rng, 300);
    db.checkpoint().unwrap();
    workload(&db, &mut rng, 300);
    std::thread::sleep(Duration::from_millis(5));
    assert!(agree(&path, Some(&secret)) > 20);
    // The wrong key is refused, as by any open.
    let wrong = Emdb::builder()
        .path(&path)
        .encryption(EncryptionInput::Key([8u8; 32]))
        .read_one_key(None, b"k001");
    assert!(wrong.is_err(), "{wrong:?}");
}

#[test]
fn one_key_read_of_a_missing_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let r = Emdb::builder()
        .path(dir.path().join("none.emdb"))
        .read_one_key(None, b"k");
    assert!(r.is_err(), "{r:?}");
    assert!(!dir.path().join("none.emdb").exists());
}
