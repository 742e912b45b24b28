//! Where records land in the log: a batch in the caller's order, and a
//! plain database's compaction rewrites the log in key order; an encrypted
//! database's compaction keeps the log's order, so record positions never
//! show how the sealed keys sort.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use emdb_core::Emdb;

/// Keys in a scrambled order (a fixed permutation of 0..n).
fn scrambled(n: u64) -> Vec<String> {
    (0..n)
        .map(|i| format!("key:{:06}", (i * 7919) % n))
        .collect()
}

fn offsets(db: &Emdb, keys: &[String]) -> Vec<u64> {
    keys.iter()
        .map(|k| db.record_offset(k).unwrap().unwrap())
        .collect()
}

fn is_ascending(v: &[u64]) -> bool {
    v.windows(2).all(|w| w[0] < w[1])
}

#[test]
fn a_plain_compaction_writes_key_order_and_the_last_duplicate_wins() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::open(dir.path().join("plain.emdb")).unwrap();
    let keys = scrambled(1000);
    let mut items: Vec<(String, String)> =
        keys.iter().map(|k| (k.clone(), "first".into())).collect();
    // Duplicates inside the batch, later in the caller's order: they win.
    items.push((keys[10].clone(), "second".into()));
    items.push((keys[10].clone(), "third".into()));
    db.insert_many(items).unwrap();
    assert_eq!(db.get(&keys[10]).unwrap(), Some(b"third".to_vec()));
    assert_eq!(db.len().unwrap(), 1000);
    // A batch lands in the caller's order ...
    let mut firsts = keys.clone();
    firsts.retain(|k| k != &keys[10]);
    assert!(is_ascending(&offsets(&db, &firsts)));
    // ... and compaction rewrites the log in key order.
    db.compact().unwrap();
    let mut sorted = keys.clone();
    sorted.sort();
    assert!(
        is_ascending(&offsets(&db, &sorted)),
        "compaction did not write key order"
    );
    assert_eq!(db.get(&keys[10]).unwrap(), Some(b"third".to_vec()));
    let listed: Vec<Vec<u8>> = db.range(..).unwrap().into_iter().map(|(k, _)| k).collect();
    assert_eq!(listed.len(), 1000);
    assert!(listed.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn an_encrypted_database_keeps_the_callers_order_also_through_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sealed.emdb");
    let db = Emdb::builder()
        .path(&path)
        .encryption_key([7; 32])
        .build()
        .unwrap();
    // Descending keys: key order and the caller's order disagree everywhere.
    let mut keys: Vec<String> = (0..500).map(|i| format!("key:{i:06}")).collect();
    keys.reverse();
    db.insert_many(keys.iter().map(|k| (k.clone(), "v".to_string())))
        .unwrap();
    assert!(
        is_ascending(&offsets(&db, &keys)),
        "the batch was reordered"
    );
    // Another batch, then a compaction: the records keep their log order.
    db.insert_many([("key:999999", "late"), ("key:000000", "again")])
        .unwrap();
    let mut log_order: Vec<String> = keys
        .iter()
        .filter(|k| *k != "key:000000")
        .cloned()
        .collect();
    log_order.push("key:999999".into());
    log_order.push("key:000000".into());
    db.compact().unwrap();
    assert!(
        is_ascending(&offsets(&db, &log_order)),
        "compaction wrote key order"
    );
    // And the order is still right for readers.
    let listed: Vec<Vec<u8>> = db.range(..).unwrap().into_iter().map(|(k, _)| k).collect();
    assert_eq!(listed.len(), 501);
    assert!(listed.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(db.get("key:000000").unwrap(), Some(b"again".to_vec()));
    drop(db);
    let db = Emdb::builder()
        .path(&path)
        .encryption_key([7; 32])
        .build()
        .unwrap();
    assert!(is_ascending(&offsets(&db, &log_order)));
}
