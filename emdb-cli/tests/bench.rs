//! `emdb bench` on a temporary file or a new --db file.

// Test helpers: a failure here should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{text, TestDb};
use predicates::prelude::*;

#[test]
fn bench_prints_every_workload() {
    let db = TestDb::new();
    let out = text(&db.stdout(["bench", "--records", "2000", "--value-size", "16"]));
    for w in ["emdb    set", "emdb    get", "emdb    mixed", "full replay"] {
        assert!(out.contains(w), "{out}");
    }
    // The --db of TestDb::cmd was typed on the command line: used, then removed.
    assert!(!db.path.exists());
}

#[test]
fn bench_json_threads_and_keep() {
    let db = TestDb::new();
    let out = db.stdout([
        "bench",
        "--records",
        "3000",
        "--threads",
        "3",
        "--json",
        "--keep",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(r["records"], 3000);
    assert_eq!(r["threads"], 3);
    assert_eq!(r["results"].as_array().unwrap().len(), 3);
    for x in r["results"].as_array().unwrap() {
        assert_eq!(x["ops"], 3000);
        assert!(x["p50_us"].as_f64().unwrap() <= x["p99_us"].as_f64().unwrap());
    }
    assert!(r["reopen"]["reopen_used_checkpoint"].as_bool().unwrap());
    assert!(r["reopen"]["records_replayed"].as_u64().unwrap() >= 3000);
    assert!(db.path.exists(), "--keep keeps the file");
    // An existing file is never benchmarked over.
    db.cmd(["bench", "--records", "10"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("needs a new file"));
}

#[test]
fn bench_ignores_emdb_path() {
    let db = TestDb::new();
    db.put("precious", "data");
    common::bare(db.dir.path())
        .env("EMDB_PATH", &db.path)
        .args(["bench", "--records", "100"])
        .assert()
        .success()
        .stdout(predicate::str::contains("emdb-bench-"));
    db.cmd(["count"]).assert().success().stdout("1\n");
}
