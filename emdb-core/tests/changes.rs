//! The change feed (`emdb_core::changes`): order, namespaces, durability,
//! and cursors across the writer's compactions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use emdb_core::changes::{Change, ChangeFeed, Cursor, Start};
use emdb_core::{Emdb, Ttl};

fn reader(path: &std::path::Path) -> Emdb {
    Emdb::builder().path(path).read_only(true).build().unwrap()
}

/// Every change the feed has up to its durable end.
fn drain(feed: &mut ChangeFeed) -> Vec<Change> {
    let mut out = Vec::new();
    loop {
        let p = feed.poll(1 << 16).unwrap();
        assert!(p.resend.is_none(), "{:?}", p.resend);
        if p.units.is_empty() {
            return out;
        }
        for u in p.units {
            out.extend(u.changes);
        }
    }
}

fn put(ns: &str, k: &str, v: &str) -> Change {
    Change::Put {
        namespace: ns.into(),
        key: k.as_bytes().to_vec(),
        value: v.as_bytes().to_vec(),
        expires_at_ms: None,
    }
}

#[test]
fn feed_reports_durable_changes_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.emdb");
    let db = Emdb::open(&path).unwrap();
    db.insert("a", "1").unwrap();
    let users = db.namespace("users").unwrap();
    users.insert("u1", "x").unwrap();
    db.insert_many([("b", "2"), ("c", "3")]).unwrap();
    db.flush().unwrap();
    db.insert("not-yet-durable", "z").unwrap();

    let r = reader(&path);
    let (mut feed, start) = ChangeFeed::open(&r, None).unwrap();
    assert_eq!(start, Start::Fresh);
    let got = drain(&mut feed);
    assert_eq!(
        got,
        vec![
            put("", "a", "1"),
            Change::CreateNamespace {
                namespace: "users".into()
            },
            put("users", "u1", "x"),
            put("", "b", "2"),
            put("", "c", "3"),
        ]
    );
    // The unflushed put shows up once it is durable.
    db.remove("a").unwrap();
    users
        .insert_with_ttl("t", "v", Ttl::After(Duration::from_secs(60)))
        .unwrap();
    users.clear().unwrap();
    db.drop_namespace("users").unwrap();
    db.flush().unwrap();
    let got = drain(&mut feed);
    assert_eq!(got[0], put("", "not-yet-durable", "z"));
    assert_eq!(
        got[1],
        Change::Delete {
            namespace: String::new(),
            key: b"a".to_vec()
        }
    );
    assert!(
        matches!(&got[2], Change::Put { namespace, expires_at_ms: Some(_), .. } if namespace == "users")
    );
    assert_eq!(
        got[3],
        Change::Clear {
            namespace: "users".into()
        }
    );
    assert_eq!(
        got[4],
        Change::DropNamespace {
            namespace: "users".into()
        }
    );
    assert_eq!(got.len(), 5);

    // A feed reopened at its cursor sees nothing again, and knows the names.
    let cursor = feed.cursor();
    let (mut again, start) = ChangeFeed::open(&r, Some(cursor)).unwrap();
    assert_eq!(start, Start::Continue);
    assert!(drain(&mut again).is_empty());
}

#[test]
fn a_caught_up_cursor_survives_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.emdb");
    let db = Emdb::open(&path).unwrap();
    let ns = db.namespace("n").unwrap();
    for i in 0..100 {
        db.insert(format!("k{i}"), "old").unwrap();
        ns.insert(format!("k{i}"), "old").unwrap();
    }
    db.flush().unwrap();
    let r = reader(&path);
    let (mut feed, _) = ChangeFeed::open(&r, None).unwrap();
    assert_eq!(drain(&mut feed).len(), 201);
    let caught_up: Cursor = feed.cursor();

    // A live feed drains the old file and continues in the new one.
    db.compact().unwrap();
    db.insert("after", "1").unwrap();
    ns.insert("after", "2").unwrap();
    db.flush().unwrap();
    let got = drain(&mut feed);
    assert_eq!(got, vec![put("", "after", "1"), put("n", "after", "2")]);
    assert_eq!(feed.cursor().generation, caught_up.generation + 1);

    // A stopped feed resumes from its old-generation cursor without a resend.
    let (mut resumed, start) = ChangeFeed::open(&r, Some(caught_up)).unwrap();
    assert_eq!(start, Start::Mapped { from: caught_up });
    assert_eq!(
        drain(&mut resumed),
        vec![put("", "after", "1"), put("n", "after", "2")]
    );

    // A cursor from before the compaction started must resend, and says why.
    let behind = Cursor {
        position: 4096,
        ..caught_up
    };
    let (_, start) = ChangeFeed::open(&r, Some(behind)).unwrap();
    assert!(
        matches!(start, Start::Resend { ref reason } if reason.contains("behind")),
        "{start:?}"
    );

    // Two compactions while stopped: no way between, a resend.
    db.compact().unwrap();
    let (mut feed2, start) = ChangeFeed::open(&r, Some(caught_up)).unwrap();
    assert!(matches!(start, Start::Resend { .. }), "{start:?}");
    // The resend replays the compacted file: live records only.
    let got = drain(&mut feed2);
    assert_eq!(
        got.iter()
            .filter(|c| matches!(c, Change::Put { .. }))
            .count(),
        202
    );

    // Another database's cursor is refused.
    let other = Cursor {
        db_id: [0xAB; 16],
        ..caught_up
    };
    assert_eq!(
        ChangeFeed::open(&r, Some(other)).unwrap().1,
        Start::OtherDatabase
    );
}

/// A feed whose file is replaced by one its keys cannot read (encrypted
/// under it, or re-keyed) fails with the error an open with those keys
/// gives, never with "corruption" (which sent `emdb sync` users to
/// `check --repair` on a sound database).
#[cfg(feature = "encrypt")]
#[test]
fn a_feed_whose_file_was_re_keyed_says_so_not_corruption() {
    use emdb_core::{EncryptionInput, Error};
    let poll_error = |feed: &mut ChangeFeed| loop {
        match feed.poll(1 << 16) {
            Ok(p) if p.units.is_empty() && p.resend.is_none() => {
                panic!("the replaced file was not noticed")
            }
            Ok(_) => continue,
            Err(e) => return e,
        }
    };
    let dir = tempfile::tempdir().unwrap();

    // Plain, then encrypted under the feed.
    let plain = dir.path().join("plain.emdb");
    Emdb::open(&plain).unwrap().insert("a", "1").unwrap();
    let r = reader(&plain);
    let (mut feed, _) = ChangeFeed::open(&r, None).unwrap();
    drain(&mut feed);
    Emdb::enable_encryption(&plain, EncryptionInput::Key([1; 32])).unwrap();
    let e = poll_error(&mut feed);
    assert!(matches!(e, Error::EncryptionRequired { .. }), "{e:?}");

    // Encrypted, then re-keyed under the feed.
    let sealed = dir.path().join("sealed.emdb");
    let w = Emdb::builder()
        .path(&sealed)
        .encryption_key([2; 32])
        .build()
        .unwrap();
    w.insert("a", "1").unwrap();
    drop(w);
    let r = Emdb::builder()
        .path(&sealed)
        .read_only(true)
        .encryption_key([2; 32])
        .build()
        .unwrap();
    let (mut feed, _) = ChangeFeed::open(&r, None).unwrap();
    drain(&mut feed);
    Emdb::rotate_encryption_key(
        &sealed,
        EncryptionInput::Key([2; 32]),
        EncryptionInput::Key([3; 32]),
    )
    .unwrap();
    let e = poll_error(&mut feed);
    assert!(matches!(e, Error::EncryptionKeyMismatch { .. }), "{e:?}");
}
