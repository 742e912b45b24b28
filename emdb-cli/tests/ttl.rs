//! put --ttl, ttl, expire, persist.

// Test helpers: a failure here should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{text, TestDb};
use predicates::prelude::*;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn json(db: &TestDb, args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&db.stdout(args)).unwrap()
}

#[test]
fn put_with_ttl_expires() {
    let db = TestDb::new();
    db.cmd(["put", "short", "v", "--ttl", "700ms"])
        .assert()
        .success();
    db.put("long", "v");
    let left = text(&db.stdout(["ttl", "short"]));
    assert!(left.starts_with("0.") && left.ends_with("s\n"), "{left}");
    db.cmd(["ttl", "long"])
        .assert()
        .success()
        .stdout("no expiry\n");
    let j = json(&db, &["ttl", "short", "--json"]);
    assert_eq!(j["key"], "short");
    let ttl = j["ttl_ms"].as_u64().unwrap();
    assert!(ttl > 0 && ttl <= 700, "{j}");
    let at = j["expires_at_ms"].as_u64().unwrap();
    assert!(at > now_ms() && at <= now_ms() + 700, "{j}");
    assert_eq!(
        json(&db, &["ttl", "long", "--json"])["ttl_ms"],
        serde_json::Value::Null
    );
    std::thread::sleep(Duration::from_millis(900));
    // Expired keys are invisible everywhere.
    db.cmd(["get", "short"]).assert().code(1);
    db.cmd(["exists", "short"]).assert().code(1);
    db.cmd(["ttl", "short"]).assert().code(1);
    db.cmd(["count"]).assert().success().stdout("1\n");
    db.cmd(["scan", "--keys-only"])
        .assert()
        .success()
        .stdout("long\n");
}

#[test]
fn expire_and_persist() {
    let db = TestDb::new();
    db.put("a", "1");
    db.put("b", "2");
    db.cmd(["expire", "a", "600ms"])
        .assert()
        .success()
        .stdout("key \"a\" expires in 0.600s\n");
    db.cmd(["expire", "b", "600ms", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"changed\":true"));
    db.cmd(["persist", "b"])
        .assert()
        .success()
        .stdout("key \"b\" no longer expires\n");
    db.cmd(["persist", "b"])
        .assert()
        .success()
        .stdout("key \"b\" had no expiry; nothing changed\n");
    std::thread::sleep(Duration::from_millis(800));
    db.cmd(["get", "a"]).assert().code(1);
    db.cmd(["get", "b"]).assert().success().stdout("2\n");
    // A put without --ttl removes an expiry.
    db.cmd(["put", "c", "1", "--ttl", "1h"]).assert().success();
    db.put("c", "2");
    db.cmd(["ttl", "c"])
        .assert()
        .success()
        .stdout("no expiry\n");
}

#[test]
fn ttl_errors() {
    let db = TestDb::new();
    db.put("a", "1");
    for args in [
        vec!["ttl", "missing"],
        vec!["expire", "missing", "5s"],
        vec!["persist", "missing"],
    ] {
        db.cmd(&args)
            .assert()
            .code(1)
            .stderr("emdb: key \"missing\" not found\n");
    }
    db.cmd(["put", "z", "v", "--ttl", "0"]).assert().code(2);
    db.cmd(["put", "z", "v", "--ttl", "soon"]).assert().code(2);
    db.cmd(["expire", "a", "0ms"]).assert().code(2);
    db.cmd(["-q", "expire", "a", "1h"])
        .assert()
        .success()
        .stdout("");
    // In a namespace, and from the shell.
    db.cmd(["shell"])
        .write_stdin("-n s put k v --ttl 1h\n-n s ttl k --json\n")
        .assert()
        .success()
        .stdout(predicate::str::is_match(r#""ttl_ms":(3599\d{3}|3600000),"#).unwrap());
}

/// Durations longer than 100 years are usage errors that say the maximum,
/// not saturated or refused with an internal message.
#[test]
fn durations_over_100_years_are_usage_errors() {
    let db = TestDb::new();
    db.put("k", "v");
    for long in ["100000000000000000", "99999999999999999999999", "876601h"] {
        db.cmd(["expire", "k", long])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("at most 100 years"));
        db.cmd(["put", "k", "v", "--ttl", long])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("at most 100 years"));
        db.cmd(["--lock-timeout", long, "put", "k", "v"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("at most 100 years"));
    }
    db.cmd(["ttl", "k"])
        .assert()
        .success()
        .stdout("no expiry\n");
    // 100 years itself is fine.
    db.cmd(["expire", "k", "3155760000"]).assert().success();
}
