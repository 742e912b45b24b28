//! Parallel scripts: atomic counters, conditional puts, writers that wait
//! for the writer lock by default instead of failing, and one-shot reads
//! beside a live writer.

mod common;

use std::time::{Duration, Instant};

use common::{text, TestDb};
use emdb_core::Emdb;
use predicates::prelude::*;

#[test]
fn parallel_incr_loops_lose_nothing() {
    let db = TestDb::new();
    db.put("seed", "x");
    let loops: Vec<_> = (0..8)
        .map(|_| {
            let path = db.path.clone();
            let home = db.dir.path().to_path_buf();
            std::thread::spawn(move || {
                let mut codes = Vec::new();
                for _ in 0..100 {
                    let out = common::bare(&home)
                        .arg("--db")
                        .arg(&path)
                        .args(["incr", "hits"])
                        .output()
                        .unwrap();
                    codes.push(out.status.code());
                }
                codes
            })
        })
        .collect();
    for l in loops {
        let codes = l.join().unwrap();
        let failed: Vec<_> = codes.iter().filter(|c| **c != Some(0)).collect();
        assert!(failed.is_empty(), "failed exits: {failed:?}");
    }
    assert_eq!(text(&db.stdout(["get", "hits"])), "800\n");
}

#[test]
fn incr_and_decr_count_keep_the_expiry_and_refuse_non_integers() {
    let db = TestDb::new();
    db.cmd(["incr", "n"]).assert().success().stdout("1\n");
    db.cmd(["incr", "n", "--by", "41"])
        .assert()
        .success()
        .stdout("42\n");
    db.cmd(["decr", "n", "--by", "50"])
        .assert()
        .success()
        .stdout("-8\n");
    db.cmd(["decr", "n"]).assert().success().stdout("-9\n");
    db.cmd(["-n", "counters", "incr", "c", "--by", "-2"])
        .assert()
        .success()
        .stdout("-2\n");
    // The expiry of the counter is kept.
    db.cmd(["put", "t", "5", "--ttl", "1h"]).assert().success();
    db.cmd(["incr", "t"]).assert().success().stdout("6\n");
    let ttl = text(&db.stdout(["ttl", "t"]));
    assert!(ttl.trim().ends_with('s'), "{ttl}");
    assert_ne!(ttl.trim(), "-1", "expiry lost");
    // Not an integer, or out of range: exit 7, value untouched.
    db.put("word", "ten");
    db.cmd(["incr", "word"])
        .assert()
        .code(7)
        .stderr(predicate::str::contains("not a decimal integer"));
    db.cmd(["get", "word"]).assert().success().stdout("ten\n");
    db.put("big", &i64::MAX.to_string());
    db.cmd(["incr", "big"])
        .assert()
        .code(7)
        .stderr(predicate::str::contains("64-bit integer range"));
    db.cmd(["get", "big"])
        .assert()
        .success()
        .stdout(format!("{}\n", i64::MAX));
}

#[test]
fn conditional_puts() {
    let db = TestDb::new();
    db.cmd(["put", "k", "one", "--if-absent"])
        .assert()
        .success();
    db.cmd(["put", "k", "two", "--if-absent"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("exists already"));
    db.cmd(["get", "k"]).assert().success().stdout("one\n");
    db.cmd(["put", "k", "three", "--if-value", "nope"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nothing was written"));
    db.cmd(["get", "k"]).assert().success().stdout("one\n");
    db.cmd(["put", "k", "three", "--if-value", "one"])
        .assert()
        .success();
    db.cmd(["get", "k"]).assert().success().stdout("three\n");
    // In hex, OLD is hex too; a missing key never matches.
    db.cmd(["--hex", "put", "6b", "34", "--if-value", "7468726565"])
        .assert()
        .success();
    db.cmd(["get", "k"]).assert().success().stdout("4\n");
    db.cmd(["put", "absent", "x", "--if-value", "x"])
        .assert()
        .code(1);
    db.cmd(["exists", "absent"]).assert().code(1);
    db.cmd(["put", "k", "x", "--if-absent", "--if-value", "4"])
        .assert()
        .code(2);
}

#[test]
fn writers_wait_for_the_lock_by_default_and_0_fails_at_once() {
    let db = TestDb::new();
    db.put("k", "v");
    let holder = Emdb::open(&db.path).unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        drop(holder);
    });
    // No option: waits (default 10s) and then writes.
    db.cmd(["put", "k", "w"]).assert().success();
    release.join().unwrap();
    db.cmd(["get", "k"]).assert().success().stdout("w\n");

    let holder = Emdb::open(&db.path).unwrap();
    let start = Instant::now();
    db.cmd(["put", "k", "x"])
        .env("EMDB_LOCK_TIMEOUT", "0")
        .assert()
        .code(3);
    assert!(start.elapsed() < Duration::from_secs(5));
    db.cmd(["put", "k", "x"])
        .env("EMDB_LOCK_TIMEOUT", "200ms")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("gave up after waiting 200ms"));
    drop(holder);
}

#[test]
fn get_and_exists_beside_a_writer_see_its_tail() {
    // A writer keeps the database open with records written after its
    // checkpoint (overwrites, deletes, a batch, a namespace clear): the
    // one-shot `get` and `exists` index only their key's records of that
    // tail, and must answer as a full read of it does.
    let db = TestDb::new();
    let w = Emdb::builder()
        .path(&db.path)
        .checkpoint_tail(None)
        .build()
        .unwrap();
    let ns = w.namespace("s").unwrap();
    for i in 0..200 {
        w.insert(format!("k{i}"), format!("old{i}")).unwrap();
        ns.insert(format!("k{i}"), format!("s{i}")).unwrap();
    }
    w.checkpoint().unwrap();
    for i in (0..200).step_by(3) {
        w.insert(format!("k{i}"), format!("new{i}")).unwrap();
    }
    for i in (1..200).step_by(7) {
        w.remove(format!("k{i}")).unwrap();
    }
    let mut batch = w.write_batch();
    batch.put("k5", "batched").unwrap();
    batch.put("fresh", "1").unwrap();
    batch.commit().unwrap();
    ns.clear().unwrap();
    ns.insert("k9", "after-clear").unwrap();
    w.flush().unwrap();

    let get = |args: &[&str]| db.cmd(args).assert().get_output().clone();
    for i in 0..200 {
        let k = format!("k{i}");
        let want = if i == 5 {
            Some("batched".to_string())
        } else if i % 7 == 1 {
            None
        } else if i % 3 == 0 {
            Some(format!("new{i}"))
        } else {
            Some(format!("old{i}"))
        };
        let out = get(&["get", &k]);
        match &want {
            Some(v) => assert_eq!(text(&out.stdout), format!("{v}\n"), "{k}"),
            None => assert_eq!(out.status.code(), Some(1), "{k}"),
        }
        let code = get(&["exists", &k]).status.code();
        assert_eq!(code, Some(if want.is_some() { 0 } else { 1 }), "exists {k}");
    }
    db.cmd(["get", "fresh"]).assert().success().stdout("1\n");
    db.cmd(["-n", "s", "get", "k9"])
        .assert()
        .success()
        .stdout("after-clear\n");
    db.cmd(["-n", "s", "get", "k8"]).assert().code(1);
    db.cmd(["-n", "nope", "get", "k8"]).assert().code(1);

    // One-shot scans index only their range's records of that tail: each
    // prints what a full read of the tail holds for the range.
    let full = emdb_core::Emdb::builder()
        .path(&db.path)
        .read_only(true)
        .follow(false)
        .build()
        .unwrap();
    let listing = |pairs: Vec<(Vec<u8>, Vec<u8>)>| -> String {
        pairs
            .into_iter()
            .map(|(k, v)| format!("{}\t{}\n", text(&k), text(&v)))
            .collect()
    };
    for (args, space, start, end) in [
        (vec!["scan", "--prefix", "k1"], None, "k1", Some("k2")),
        (
            vec!["scan", "--from", "k15", "--to", "k5"],
            None,
            "k15",
            Some("k5"),
        ),
        (vec!["scan", "--prefix", "f"], None, "f", Some("g")),
        (
            vec!["-n", "s", "scan", "--prefix", "k"],
            Some("s"),
            "k",
            Some("l"),
        ),
        (vec!["scan", "--from", "k9"], None, "k9", None),
    ] {
        let range = (
            std::ops::Bound::Included(start.as_bytes().to_vec()),
            end.map_or(std::ops::Bound::Unbounded, |e| {
                std::ops::Bound::Excluded(e.as_bytes().to_vec())
            }),
        );
        let want = match space {
            None => full.range(range).unwrap(),
            Some(n) => full.namespace(n).unwrap().range(range).unwrap(),
        };
        assert!(!want.is_empty() || space.is_some(), "{args:?}");
        let out = db.cmd(&args).assert().success().get_output().clone();
        assert_eq!(text(&out.stdout), listing(want), "{args:?}");
    }
    db.cmd(["-n", "nope", "scan", "--prefix", "k"])
        .assert()
        .code(1);
    // A limit reads only the first pairs: as far as the checkpoint's order
    // puts them, or (the namespace was cleared since) the whole range.
    db.cmd(["-n", "s", "scan", "--limit", "2"])
        .assert()
        .success()
        .stdout("k9\tafter-clear\n");
    let first: Vec<_> = full
        .range((
            std::ops::Bound::<Vec<u8>>::Unbounded,
            std::ops::Bound::Unbounded,
        ))
        .unwrap()
        .into_iter()
        .take(4)
        .collect();
    db.cmd(["scan", "--limit", "4"])
        .assert()
        .success()
        .stdout(listing(first));
    drop(w);
}

#[test]
fn count_and_ns_list_beside_a_writer_start_from_its_tail_index() {
    // A writer with a small automatic-checkpoint minimum writes tail
    // indexes beside its checkpoint; the one-shot `count` and `ns list`
    // take the counts from the newest and move them by the keys written
    // past it, and must answer as a full read of the tail does.
    let db = TestDb::new();
    let w = Emdb::builder()
        .path(&db.path)
        .checkpoint_tail(Some(8 << 10))
        .build()
        .unwrap();
    let ns = w.namespace("s").unwrap();
    for i in 0..2000 {
        w.insert(format!("k{i}"), format!("old{i}")).unwrap();
        ns.insert(format!("k{i}"), format!("s{i}")).unwrap();
    }
    w.checkpoint().unwrap();
    let tail = db.path.with_extension("emdb.tail");
    let start = Instant::now();
    let mut round = 0;
    while !tail.exists() {
        assert!(start.elapsed() < Duration::from_secs(20), "no tail index");
        for i in (round..2000).step_by(37) {
            w.insert(format!("k{i}"), format!("new{round}")).unwrap();
            ns.remove(format!("k{i}")).unwrap();
        }
        w.insert(format!("added{round}"), "x").unwrap();
        w.flush().unwrap();
        round += 1;
        std::thread::sleep(Duration::from_millis(20));
    }
    // Past the index: new keys, removes of old ones, overwrites.
    for i in 0..30 {
        w.insert(format!("late{i}"), "y").unwrap();
        w.remove(format!("k{}", 1000 + i)).unwrap();
        ns.insert(format!("k{}", 1 + i * 37), "back").unwrap();
    }
    w.flush().unwrap();
    let version = std::fs::read(&tail).unwrap()[8];
    assert_eq!(version, 2, "tail index version");

    // The reference is the writer itself, flushed: a full read-only open
    // would take the same tail index's counts (a layered open).
    let full = &w;
    let (all, in_s) = (
        full.len().unwrap(),
        full.namespace("s").unwrap().len().unwrap(),
    );
    assert!(all > 2000 && in_s < 2000, "{all} {in_s}");
    db.cmd(["count"])
        .assert()
        .success()
        .stdout(format!("{all}\n"));
    db.cmd(["-n", "s", "count"])
        .assert()
        .success()
        .stdout(format!("{in_s}\n"));
    db.cmd(["ns", "list"])
        .assert()
        .success()
        .stdout(format!("s\t{in_s}\n"));
    db.cmd(["-n", "nope", "count"]).assert().code(1);
    // `stats` reads its sizes and counts the same way: as a full read.
    let out = db
        .cmd(["stats", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let st = full.stats().unwrap();
    assert_eq!(got["recovery_used_tail_index"], true);
    assert_eq!(got["live_records"], st.live_records);
    assert_eq!(got["live_bytes"], st.live_bytes);
    assert_eq!(got["dead_bytes"], st.dead_bytes);
    assert_eq!(got["log_logical_bytes"], st.log_logical_bytes);
    assert_eq!(got["namespaces"][1]["name"], "s");
    assert_eq!(got["namespaces"][1]["keys"], in_s as u64);
    // And a scan with a limit reads only as far as its first keys lie.
    for (args, space, from) in [
        (vec!["scan", "--limit", "5", "--keys-only"], None, None),
        (
            vec!["scan", "--from", "k1000", "--limit", "7", "--keys-only"],
            None,
            Some("k1000"),
        ),
        (
            vec![
                "-n",
                "s",
                "scan",
                "--from",
                "k1",
                "--limit",
                "3",
                "--keys-only",
            ],
            Some("s"),
            Some("k1"),
        ),
    ] {
        let range = (
            from.map_or(std::ops::Bound::Unbounded, |f: &str| {
                std::ops::Bound::Included(f.as_bytes().to_vec())
            }),
            std::ops::Bound::Unbounded,
        );
        let want = match space {
            None => full.range(range).unwrap(),
            Some(n) => full.namespace(n).unwrap().range(range).unwrap(),
        };
        let n: usize = args[args.len() - 2].parse().unwrap();
        let keys: String = want
            .into_iter()
            .take(n)
            .map(|(k, _)| format!("{}\n", text(&k)))
            .collect();
        db.cmd(&args).assert().success().stdout(keys);
    }
    drop(w);
}
