//! Parallel scripts: atomic counters, conditional puts, and writers that
//! wait for the writer lock by default instead of failing.

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
