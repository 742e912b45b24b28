//! Namespaces, TTL, range scans and nested groups, on file and in memory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use emdb_core::{Emdb, Error, ManualClock, Ttl};
use proptest::prelude::*;

fn file_db(dir: &tempfile::TempDir, name: &str) -> Emdb {
    Emdb::open(dir.path().join(name)).unwrap()
}

#[test]
fn namespaces_are_separate_and_persist_across_reopen_and_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ns.emdb");
    {
        let db = Emdb::open(&path).unwrap();
        let users = db.namespace("users").unwrap();
        let posts = db.namespace("posts").unwrap();
        db.insert("k", "default").unwrap();
        users.insert("k", "user").unwrap();
        posts.insert("k", "post").unwrap();
        assert_eq!(db.get("k").unwrap(), Some(b"default".to_vec()));
        assert_eq!(users.get("k").unwrap(), Some(b"user".to_vec()));
        assert_eq!(posts.len().unwrap(), 1);
        assert_eq!(db.list_namespaces().unwrap(), vec!["posts", "users"]);
        let stats = db.stats().unwrap();
        assert_eq!(stats.live_records, 3);
        assert_eq!(stats.namespaces.len(), 3);
        db.compact().unwrap();
        assert_eq!(users.get("k").unwrap(), Some(b"user".to_vec()));
    }
    for with_checkpoint in [true, false] {
        if !with_checkpoint {
            std::fs::remove_file(dir.path().join("ns.emdb.ckpt")).unwrap();
        }
        let db = Emdb::open(&path).unwrap();
        assert_eq!(db.list_namespaces().unwrap(), vec!["posts", "users"]);
        let users = db.namespace("users").unwrap();
        assert_eq!(users.get("k").unwrap(), Some(b"user".to_vec()));
        assert_eq!(db.get("k").unwrap(), Some(b"default".to_vec()));
    }
    let db = Emdb::open(&path).unwrap();
    assert!(db.drop_namespace("posts").unwrap());
    assert!(!db.drop_namespace("posts").unwrap());
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.list_namespaces().unwrap(), vec!["users"]);
    let posts = db.namespace("posts").unwrap();
    assert_eq!(
        posts.get("k").unwrap(),
        None,
        "a dropped namespace comes back empty"
    );
}

#[test]
fn namespace_if_exists_never_creates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lookup.emdb");
    let db = Emdb::open(&path).unwrap();
    assert!(db.namespace_if_exists("users").unwrap().is_none());
    assert!(
        db.list_namespaces().unwrap().is_empty(),
        "looking created it"
    );
    db.namespace("users").unwrap().insert("k", "v").unwrap();
    let users = db.namespace_if_exists("users").unwrap().unwrap();
    assert_eq!(users.get("k").unwrap(), Some(b"v".to_vec()));
    assert!(db.namespace_if_exists("").unwrap().is_none());
    db.flush().unwrap();
    // On a read-only handle, where `namespace` would have to write.
    let ro = Emdb::builder().path(&path).read_only(true).build().unwrap();
    assert!(ro.namespace_if_exists("users").unwrap().is_some());
    assert!(ro.namespace_if_exists("other").unwrap().is_none());
    db.drop_namespace("users").unwrap();
    assert!(db.namespace_if_exists("users").unwrap().is_none());
}

#[test]
fn a_namespace_created_again_has_a_new_id() {
    let db = Emdb::open_in_memory();
    assert_eq!(db.namespace_id("users").unwrap(), None);
    db.namespace("users").unwrap().insert("u", "x").unwrap();
    let first = db.namespace_id("users").unwrap().unwrap();
    assert!(db.namespace_if_exists("users").unwrap().is_some());
    assert!(db.drop_namespace("users").unwrap());
    assert_eq!(db.namespace_id("users").unwrap(), None);
    db.namespace("users").unwrap();
    let second = db.namespace_id("users").unwrap().unwrap();
    assert_ne!(first, second);
    db.compact().unwrap();
    assert_eq!(db.namespace_id("users").unwrap(), Some(second));
}

#[test]
fn keys_touched_since_an_offset() {
    let db = Emdb::open_in_memory();
    db.insert("a", "1").unwrap();
    let ns = db.namespace("users").unwrap();
    let (keys, start) = db.keys_touched_since(None, 0).unwrap().unwrap();
    assert_eq!(keys, [b"a".to_vec()]);
    db.insert("b", "2").unwrap();
    ns.insert("u", "x").unwrap();
    db.transaction(|tx| {
        tx.insert("c", "3")?;
        tx.remove("a")?;
        Ok(())
    })
    .unwrap();
    let (keys, end) = db.keys_touched_since(None, start).unwrap().unwrap();
    assert_eq!(keys, [b"b".to_vec(), b"c".to_vec(), b"a".to_vec()]);
    let (users, _) = db
        .keys_touched_since(Some("users"), start)
        .unwrap()
        .unwrap();
    assert_eq!(users, [b"u".to_vec()]);
    let (none, same) = db.keys_touched_since(None, end).unwrap().unwrap();
    assert!(none.is_empty());
    assert_eq!(same, end);
    assert!(db.keys_touched_since(None, end + 1).unwrap().is_none());
    assert!(db.keys_touched_since(None, start + 1).unwrap().is_none());
    assert!(db.keys_touched_since(Some("nope"), 0).unwrap().is_none());
}

/// A sealed frame holds no key in clear: the keys come from opening each
/// record (the TUI follows a writer with them; it used to get one empty key
/// per record of an encrypted database, so new keys never showed).
#[cfg(feature = "encrypt")]
#[test]
fn keys_touched_since_opens_an_encrypted_databases_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sealed.emdb");
    let open = |read_only: bool| {
        Emdb::builder()
            .path(&path)
            .encryption_key([7u8; 32])
            .read_only(read_only)
            .build()
            .unwrap()
    };
    let db = open(false);
    db.insert("a", "1").unwrap();
    let ns = db.namespace("users").unwrap();
    let (keys, start) = db.keys_touched_since(None, 0).unwrap().unwrap();
    assert_eq!(keys, [b"a".to_vec()]);
    db.insert("b", "2").unwrap();
    ns.insert("u", "x").unwrap();
    db.transaction(|tx| {
        tx.insert("c", "3")?;
        tx.remove("a")?;
        Ok(())
    })
    .unwrap();
    db.flush().unwrap();
    let want = [b"b".to_vec(), b"c".to_vec(), b"a".to_vec()];
    let (keys, end) = db.keys_touched_since(None, start).unwrap().unwrap();
    assert_eq!(keys, want);
    let (users, _) = db
        .keys_touched_since(Some("users"), start)
        .unwrap()
        .unwrap();
    assert_eq!(users, [b"u".to_vec()]);
    // A reader in another handle, as the TUI beside a running writer.
    let reader = open(true);
    let (keys, same) = reader.keys_touched_since(None, start).unwrap().unwrap();
    assert_eq!((keys, same), (want.to_vec(), end));
    drop(reader);
    db.checkpoint().unwrap();
    drop(ns);
    drop(db);

    // A record whose seal does not open, under a valid CRC, is damage, not
    // an empty key. The checkpoint covers it, so the open does not read it.
    // "b"'s frame at `start` (docs/FORMAT.md): CRC, tag (sealed, default
    // namespace, no expiry), payload length, payload (nonce first).
    let mut bytes = std::fs::read(&path).unwrap();
    let at = usize::try_from(start).unwrap();
    assert_eq!(
        bytes[at + 4] & 0x70,
        0x40,
        "a sealed put of the default namespace"
    );
    let len = 6 + usize::from(bytes[at + 5]);
    assert!(bytes[at + 5] < 0x80 && len > 12);
    bytes[at + 8] ^= 0x40;
    let crc = crc32fast::hash(&bytes[at + 4..at + len]);
    bytes[at..at + 4].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let reader = open(true);
    assert!(matches!(
        reader.keys_touched_since(None, start),
        Err(Error::Corruption { .. })
    ));
    // Past the damaged record, what follows still reads.
    let (keys, _) = reader
        .keys_touched_since(None, start + len as u64)
        .unwrap()
        .unwrap();
    assert_eq!(keys, [b"c".to_vec(), b"a".to_vec()]);
}

#[test]
fn dropped_namespace_handles_fail_clearly() {
    let db = Emdb::open_in_memory();
    let ns = db.namespace("tmp").unwrap();
    ns.insert("a", "1").unwrap();
    db.drop_namespace("tmp").unwrap();
    assert!(matches!(ns.get("a"), Err(Error::NamespaceDropped)));
    assert!(matches!(ns.insert("a", "1"), Err(Error::NamespaceDropped)));
    assert!(matches!(
        db.namespace(""),
        Err(Error::InvalidNamespaceName { .. })
    ));
    let long = "x".repeat(emdb_core::MAX_NAMESPACE_NAME_LEN + 1);
    assert!(matches!(
        db.namespace(&long),
        Err(Error::InvalidNamespaceName { .. })
    ));
}

#[test]
fn transaction_spans_namespaces_and_is_atomic_across_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tx.emdb");
    {
        let db = Emdb::builder()
            .path(&path)
            .checkpoint_on_close(false)
            .build()
            .unwrap();
        let a = db.namespace("a").unwrap();
        db.transaction(|tx| {
            tx.insert("root", "1")?;
            tx.namespace(&a).insert("inner", "2")?;
            assert_eq!(tx.namespace(&a).get("inner")?, Some(b"2".to_vec()));
            Ok(())
        })
        .unwrap();
        assert_eq!(a.get("inner").unwrap(), Some(b"2".to_vec()));
    }
    let db = Emdb::open(&path).unwrap();
    let a = db.namespace("a").unwrap();
    assert_eq!(db.get("root").unwrap(), Some(b"1".to_vec()));
    assert_eq!(a.get("inner").unwrap(), Some(b"2".to_vec()));
}

#[test]
fn ttl_with_a_controlled_clock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ttl.emdb");
    let clock = ManualClock::new(1_000_000);
    let open = |clock: &ManualClock| {
        Emdb::builder()
            .path(&path)
            .default_ttl(Duration::from_secs(60))
            .enable_range_scans(true)
            .clock(Arc::new(clock.clone()))
            .build()
            .unwrap()
    };
    {
        let db = open(&clock);
        db.insert("default", "x").unwrap(); // default ttl 60 s
        db.insert_with_ttl("short", "x", Ttl::After(Duration::from_secs(5)))
            .unwrap();
        db.insert_with_ttl("forever", "x", Ttl::Never).unwrap();
        assert_eq!(db.ttl("short").unwrap(), Some(Duration::from_secs(5)));
        assert_eq!(db.ttl("forever").unwrap(), None);
        assert_eq!(db.len().unwrap(), 3);
        clock.advance(Duration::from_secs(10));
        // Invisible to every read path at once.
        assert_eq!(db.get("short").unwrap(), None);
        assert!(!db.contains_key("short").unwrap());
        assert_eq!(db.len().unwrap(), 2);
        assert_eq!(db.keys().unwrap().count(), 2);
        assert_eq!(db.range(b"a".to_vec()..b"z".to_vec()).unwrap().len(), 2);
        assert_eq!(db.remove("short").unwrap(), None);
        // persist and expire
        assert!(db.persist("default").unwrap());
        assert_eq!(db.ttl("default").unwrap(), None);
        assert!(db.expire("forever", Duration::from_secs(1)).unwrap());
        assert!(!db.expire("missing", Duration::from_secs(1)).unwrap());
    }
    clock.advance(Duration::from_secs(2));
    let db = open(&clock);
    // Expired keys stay expired after reopen.
    assert_eq!(db.get("forever").unwrap(), None);
    assert_eq!(db.get("default").unwrap(), Some(b"x".to_vec()));
    assert_eq!(db.len().unwrap(), 1);
    db.insert_with_ttl("gone", "x", Ttl::After(Duration::from_millis(1)))
        .unwrap();
    clock.advance(Duration::from_secs(1));
    assert_eq!(
        db.sweep_expired().unwrap(),
        2,
        "\"forever\" and \"gone\" have expired"
    );
    db.compact().unwrap();
    assert_eq!(
        db.stats().unwrap().live_records,
        1,
        "compaction drops expired records"
    );
}

/// `sweep_expired` lists the expired keys without the writer lock, then
/// deletes them in one batch: keys written again (live, without a TTL)
/// in between were deleted too, 10,000-25,000 of 50,000 per run (QA).
/// Each is now checked again under the lock.
#[test]
fn a_sweep_keeps_keys_written_again_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000_000);
    let db = Emdb::builder()
        .path(dir.path().join("sweep.emdb"))
        .clock(Arc::new(clock.clone()))
        .build()
        .unwrap();
    let keys: Vec<String> = (0..50_000).map(|i| format!("session:{i:08}")).collect();
    db.insert_many(keys.iter().map(|k| (k.clone(), "old")))
        .unwrap();
    for k in &keys {
        db.expire(k, Duration::from_secs(1)).unwrap();
    }
    clock.advance(Duration::from_secs(2));
    let sweeper = {
        let db = db.clone();
        std::thread::spawn(move || db.sweep_expired().unwrap())
    };
    let mut written = Vec::new();
    for k in keys.iter().rev() {
        if sweeper.is_finished() {
            break;
        }
        db.insert(k, "fresh").unwrap();
        written.push(k);
    }
    let swept = sweeper.join().unwrap();
    let lost: Vec<_> = written
        .iter()
        .filter(|k| db.get(k).unwrap().is_none())
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {} keys written during the sweep lost",
        lost.len(),
        written.len()
    );
    // Every key not written again was swept.
    assert!(swept >= keys.len() - written.len(), "{swept}");
    assert_eq!(db.len().unwrap(), written.len());
}

/// Two sweeps at once: each listed every expired key before either
/// deleted one, and the second deleted them all again (50,000 needless
/// tombstones) and counted them (a review). A key is deleted, and
/// counted, only while its index entry is still the listed record.
#[test]
fn two_sweeps_at_once_delete_each_key_once() {
    let clock = ManualClock::new(1_000_000);
    let db = Emdb::builder()
        .clock(Arc::new(clock.clone()))
        .build()
        .unwrap();
    db.insert_many((0..50_000).map(|i| (format!("k{i:06}"), "v")))
        .unwrap();
    for i in 0..50_000 {
        db.expire(format!("k{i:06}"), Duration::from_secs(1))
            .unwrap();
    }
    clock.advance(Duration::from_secs(2));
    let sweeps: Vec<_> = (0..2)
        .map(|_| {
            let db = db.clone();
            std::thread::spawn(move || db.sweep_expired().unwrap())
        })
        .collect();
    let swept: usize = sweeps.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(swept, 50_000);
}

/// A TTL under 1 ms was truncated to 0 ms and expired the record at once
/// (QA); it is rounded up to whole milliseconds.
#[test]
fn a_ttl_under_a_millisecond_is_not_zero() {
    let clock = ManualClock::new(1_000_000);
    let db = Emdb::builder()
        .clock(Arc::new(clock.clone()))
        .build()
        .unwrap();
    db.insert_with_ttl("k", "v", Ttl::After(Duration::from_micros(999)))
        .unwrap();
    assert_eq!(db.get("k").unwrap(), Some(b"v".to_vec()));
    clock.advance(Duration::from_millis(1));
    assert_eq!(db.get("k").unwrap(), None);
}

#[test]
fn range_scans_work_without_the_option() {
    // `enable_range_scans` is a no-op kept for emdb 1.x code: every handle
    // reads in order, read-only ones included.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.emdb");
    {
        let db = Emdb::open(&path).unwrap();
        for k in ["b", "a2", "a1", "c"] {
            db.insert(k, k).unwrap();
        }
        db.remove("c").unwrap();
        let keys: Vec<Vec<u8>> = db
            .range_prefix("a")
            .unwrap()
            .into_iter()
            .map(|p| p.0)
            .collect();
        assert_eq!(keys, vec![b"a1".to_vec(), b"a2".to_vec()]);
        let after: Vec<Vec<u8>> = db.iter_after("a2").unwrap().map(|r| r.unwrap().0).collect();
        assert_eq!(after, vec![b"b".to_vec()]);
    }
    let ro = Emdb::builder().path(&path).read_only(true).build().unwrap();
    let keys: Vec<Vec<u8>> = ro.iter_from("").unwrap().map(|r| r.unwrap().0).collect();
    assert_eq!(keys, vec![b"a1".to_vec(), b"a2".to_vec(), b"b".to_vec()]);
}

#[test]
fn range_prefix_and_cursors() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("r.emdb"))
        .enable_range_scans(true)
        .build()
        .unwrap();
    db.insert("user:001", "alice").unwrap();
    db.insert("user:002", "bob").unwrap();
    db.insert("session:abc", "token").unwrap();
    db.insert([0xff, 0xff], "high").unwrap();
    let users = db.range(b"user:".to_vec()..b"user;".to_vec()).unwrap();
    assert_eq!(users.len(), 2);
    assert_eq!(users[0].0, b"user:001");
    assert_eq!(db.range_prefix("user:").unwrap(), users);
    assert_eq!(db.range_prefix([0xff]).unwrap().len(), 1);
    let after: Vec<_> = db
        .iter_after("user:001")
        .unwrap()
        .map(|kv| kv.unwrap().0)
        .collect();
    assert_eq!(after, vec![b"user:002".to_vec(), vec![0xff, 0xff]]);
    let from: Vec<_> = db
        .iter_from("user:001")
        .unwrap()
        .map(|kv| kv.unwrap().0)
        .collect();
    assert_eq!(from.len(), 3);
    // Streaming: taking the first few of many does not walk the rest.
    db.insert_many((0..50_000u32).map(|i| (format!("bulk:{i:08}"), "v")))
        .unwrap();
    let first: Vec<_> = db
        .range_prefix_iter("bulk:")
        .unwrap()
        .take(3)
        .map(|kv| kv.unwrap().0)
        .collect();
    assert_eq!(
        first,
        vec![
            b"bulk:00000000".to_vec(),
            b"bulk:00000001".to_vec(),
            b"bulk:00000002".to_vec()
        ]
    );
    // Namespaces have their own order.
    let ns = db.namespace("n").unwrap();
    ns.insert("b", "2").unwrap();
    ns.insert("a", "1").unwrap();
    let keys: Vec<_> = ns.iter_from("").unwrap().map(|kv| kv.unwrap().0).collect();
    assert_eq!(keys, vec![b"a".to_vec(), b"b".to_vec()]);
}

#[test]
fn range_iterator_reads_the_snapshot_it_started_on() {
    let db = Emdb::open_in_memory();
    let long = |c: char| format!("{c}{}", "x".repeat(40));
    for k in ["a", "c", "e", "g"] {
        db.insert(k, k.to_uppercase()).unwrap();
    }
    db.insert(long('d'), "D").unwrap();
    let mut it = db.range_iter(b"b".to_vec()..=b"g".to_vec()).unwrap();
    assert_eq!(it.next().unwrap().unwrap(), (b"c".to_vec(), b"C".to_vec()));
    // Changes after the iterator started are not seen: it reads the order
    // and the records as they were (docs/ARCHITECTURE.md, "Sorted order").
    db.remove("c").unwrap();
    db.insert("cc", "CC").unwrap();
    db.remove(long('d')).unwrap();
    db.insert("e", "E2").unwrap();
    db.insert("h", "H").unwrap();
    let rest: Vec<_> = it.by_ref().map(|r| r.unwrap()).collect();
    assert_eq!(
        rest,
        vec![
            (long('d').into_bytes(), b"D".to_vec()),
            (b"e".to_vec(), b"E".to_vec()),
            (b"g".to_vec(), b"G".to_vec())
        ]
    );
    assert!(it.next().is_none(), "an ended iterator stays ended");
    // A new iterator sees them all.
    let now: Vec<_> = db.range_iter(..).unwrap().map(|r| r.unwrap()).collect();
    let want: Vec<(Vec<u8>, Vec<u8>)> = [
        ("a", "A"),
        ("cc", "CC"),
        ("e", "E2"),
        ("g", "G"),
        ("h", "H"),
    ]
    .iter()
    .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
    .collect();
    assert_eq!(now, want);
    db.insert(long('d'), "D2").unwrap();
    let from_long: Vec<_> = db
        .range_iter(long('d').into_bytes()..)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(from_long[0], (long('d').into_bytes(), b"D2".to_vec()));
    assert_eq!(from_long.len(), 4);
}

/// An iterator keeps working across a compaction (it keeps the old log
/// generation it started on) and a concurrent writer.
#[test]
fn range_iterator_survives_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::open(dir.path().join("c.emdb")).unwrap();
    db.insert_many((0..5000u32).map(|i| (format!("k{i:05}"), format!("v{i}"))))
        .unwrap();
    for i in (0..5000u32).step_by(3) {
        db.remove(format!("k{i:05}")).unwrap();
    }
    let mut it = db.range_iter(..).unwrap();
    let first: Vec<_> = it.by_ref().take(100).map(|r| r.unwrap()).collect();
    db.compact().unwrap();
    db.insert("k00001x", "new").unwrap();
    let rest: Vec<_> = it.map(|r| r.unwrap()).collect();
    let got: Vec<_> = first.into_iter().chain(rest).collect();
    let want: Vec<(Vec<u8>, Vec<u8>)> = (0..5000u32)
        .filter(|i| i % 3 != 0)
        .map(|i| {
            (
                format!("k{i:05}").into_bytes(),
                format!("v{i}").into_bytes(),
            )
        })
        .collect();
    assert_eq!(got, want);
    // After the compaction the order comes from the new log, written in key order.
    let after: Vec<_> = db.range_prefix("k0000").unwrap();
    assert_eq!(after[0].0, b"k00001".to_vec());
    assert_eq!(after[1].0, b"k00001x".to_vec());
}

#[test]
fn concurrent_inserts_do_not_block_range_readers() {
    let db = Emdb::builder().enable_range_scans(true).build().unwrap();
    db.insert_many((0..10_000u32).map(|i| (format!("k{i:06}"), "v")))
        .unwrap();
    let writer = {
        let db = db.clone();
        std::thread::spawn(move || {
            for i in 10_000..30_000u32 {
                db.insert(format!("k{i:06}"), "v").unwrap();
            }
        })
    };
    let mut scans = 0;
    while !writer.is_finished() || scans == 0 {
        let mut last: Option<Vec<u8>> = None;
        let mut n = 0;
        for kv in db.range_prefix_iter("k").unwrap() {
            let (k, _) = kv.unwrap();
            if let Some(l) = &last {
                assert!(k > *l, "range output must be strictly increasing");
            }
            last = Some(k);
            n += 1;
        }
        assert!(n >= 10_000);
        scans += 1;
    }
    writer.join().unwrap();
    assert_eq!(db.range_prefix("k").unwrap().len(), 30_000);
}

#[test]
fn nested_groups() {
    let dir = tempfile::tempdir().unwrap();
    for db in [Emdb::open_in_memory(), file_db(&dir, "g.emdb")] {
        let product = db.focus("product");
        product.set("name", "phone").unwrap();
        product.set("price", "799").unwrap();
        product.focus("dims").set("w", "7").unwrap();
        db.insert("productivity", "not in the group").unwrap();
        assert_eq!(product.get("name").unwrap(), Some(b"phone".to_vec()));
        assert_eq!(db.get("product.name").unwrap(), Some(b"phone".to_vec()));
        assert_eq!(db.get("product.dims.w").unwrap(), Some(b"7".to_vec()));
        assert_eq!(db.group("product").unwrap().count(), 3);
        let mut rel: Vec<_> = product.iter().unwrap().map(|kv| kv.unwrap().0).collect();
        rel.sort();
        assert_eq!(
            rel,
            vec![b"dims.w".to_vec(), b"name".to_vec(), b"price".to_vec()]
        );
        assert_eq!(db.delete_group("product.dims").unwrap(), 1);
        assert_eq!(db.delete_group("product").unwrap(), 2);
        assert_eq!(db.len().unwrap(), 1);
        assert_eq!(product.remove("name").unwrap(), None);
    }
}

#[derive(Debug, Clone)]
enum Op {
    Put(u8, u8),
    Del(u8),
    Range(u8, u8),
    Prefix(u8),
}

fn key(k: u8) -> Vec<u8> {
    // Two-byte keys from a small alphabet: shared prefixes and ordering edges.
    vec![b'a' + (k % 4), k / 4]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn range_matches_a_btreemap(ops in proptest::collection::vec(
        prop_oneof![
            (any::<u8>(), any::<u8>()).prop_map(|(k, v)| Op::Put(k % 64, v)),
            any::<u8>().prop_map(|k| Op::Del(k % 64)),
            (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Op::Range(a % 64, b % 64)),
            any::<u8>().prop_map(|k| Op::Prefix(k % 4)),
        ], 1..200)) {
        let db = Emdb::builder().enable_range_scans(true).build().unwrap();
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Put(k, v) => { db.insert(key(k), [v]).unwrap(); model.insert(key(k), vec![v]); }
                Op::Del(k) => { prop_assert_eq!(db.remove(key(k)).unwrap(), model.remove(&key(k))); }
                Op::Range(a, b) => {
                    let (lo, hi) = (key(a).min(key(b)), key(a).max(key(b)));
                    let got = db.range(lo.clone()..hi.clone()).unwrap();
                    let want: Vec<_> = model.range(lo..hi).map(|(k, v)| (k.clone(), v.clone())).collect();
                    prop_assert_eq!(got, want);
                }
                Op::Prefix(p) => {
                    let pre = vec![b'a' + p];
                    let got = db.range_prefix(&pre).unwrap();
                    let want: Vec<_> = model.iter().filter(|(k, _)| k.starts_with(&pre)).map(|(k, v)| (k.clone(), v.clone())).collect();
                    prop_assert_eq!(got, want);
                }
            }
        }
    }
}

#[test]
fn absolute_expiry_and_ttls_inside_namespace_transactions() {
    use std::time::{SystemTime, UNIX_EPOCH};
    let clock = ManualClock::new(10_000);
    let db = Emdb::builder()
        .clock(Arc::new(clock.clone()))
        .build()
        .unwrap();
    let ns = db.namespace("n").unwrap();
    let at = UNIX_EPOCH + Duration::from_millis(15_000);
    db.transaction(|tx| {
        tx.insert_with_ttl("root", "1", Ttl::At(at))?;
        tx.namespace(&ns)
            .insert_with_ttl("inner", "2", Ttl::At(at))?;
        Ok(())
    })
    .unwrap();
    assert_eq!(db.expires_at("root").unwrap(), Some(at));
    assert_eq!(ns.ttl("inner").unwrap(), Some(Duration::from_secs(5)));
    db.insert_with_ttl("past", "x", Ttl::At(SystemTime::UNIX_EPOCH))
        .unwrap();
    assert_eq!(db.get("past").unwrap(), None);
    clock.advance(Duration::from_secs(6));
    assert_eq!(ns.get("inner").unwrap(), None);
    assert_eq!(db.get("root").unwrap(), None);
}

/// Sorted reads hide expired keys at once (also after a reopen and once
/// compaction drops them) and fail on a dropped namespace.
#[test]
fn sorted_reads_under_expiry_and_namespace_drops() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ttl.emdb");
    let clock = ManualClock::new(1_000_000);
    let open = || {
        Emdb::builder()
            .path(&path)
            .clock(Arc::new(clock.clone()))
            .build()
            .unwrap()
    };
    let keys =
        |db: &Emdb| -> Vec<Vec<u8>> { db.range_iter(..).unwrap().map(|r| r.unwrap().0).collect() };
    let db = open();
    let ns = db.namespace("n").unwrap();
    for i in 0..20u32 {
        let ttl = if i % 2 == 0 {
            Ttl::After(Duration::from_secs(10))
        } else {
            Ttl::Never
        };
        db.insert_with_ttl(format!("k{i:02}"), "v", ttl).unwrap();
        ns.insert(format!("n{i:02}"), "w").unwrap();
    }
    assert_eq!(keys(&db).len(), 20);
    clock.advance(Duration::from_secs(11));
    let odd: Vec<Vec<u8>> = (1..20u32)
        .step_by(2)
        .map(|i| format!("k{i:02}").into_bytes())
        .collect();
    assert_eq!(keys(&db), odd);
    db.checkpoint().unwrap();
    drop(ns);
    drop(db);
    let db = open();
    assert_eq!(keys(&db), odd, "after reopen");
    db.compact().unwrap();
    assert_eq!(keys(&db), odd, "after compaction");
    let ns = db.namespace("n").unwrap();
    assert_eq!(ns.range_prefix("n1").unwrap().len(), 10);
    let mut it = ns.range_iter(..).unwrap();
    assert!(db.drop_namespace("n").unwrap());
    // An iterator started before the drop reads its snapshot; new ones fail.
    assert_eq!(it.by_ref().count(), 20);
    assert!(matches!(ns.range_iter(..), Err(Error::NamespaceDropped)));
}
