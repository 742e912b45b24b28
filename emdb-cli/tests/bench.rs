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

/// Ctrl-C or SIGTERM during `bench` removes its database, in TMPDIR or at
/// `--db`, and ends the process by the signal. Before, each interrupted run
/// left tens of MB behind, and a retry with the same `--db` was refused
/// (the file exists).
#[test]
fn an_interrupted_bench_leaves_no_database() {
    use std::os::unix::process::ExitStatusExt;
    let db = TestDb::new();
    let tmpdir = db.file("tmp");
    std::fs::create_dir(&tmpdir).unwrap();
    let at = db.file("b.emdb");
    for (signal, own) in [("INT", false), ("TERM", true)] {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("emdb"));
        cmd.env("TMPDIR", &tmpdir)
            .env_remove("EMDB_PATH")
            .env("HOME", db.dir.path())
            .env("XDG_DATA_HOME", db.dir.path().join("data"));
        if own {
            cmd.arg("--db").arg(&at);
        }
        let mut child = cmd
            .args(["-q", "bench", "--records", "2000000"])
            .spawn()
            .unwrap();
        // Interrupt once its database is there.
        common::wait_until(30, "the bench's database", || {
            if own {
                at.exists()
            } else {
                std::fs::read_dir(&tmpdir).unwrap().next().is_some()
            }
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
        common::signal(child.id(), signal);
        let status = child.wait().unwrap();
        assert!(status.signal().is_some(), "{status:?}");
        let mut left: Vec<_> = std::fs::read_dir(&tmpdir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.extend(
            std::fs::read_dir(db.dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .filter(|n| n.to_string_lossy().starts_with("b.emdb")),
        );
        assert!(left.is_empty(), "left after SIG{signal}: {left:?}");
    }
}

/// `bench --db X --keep` keeps its file, and SIGTERM still ends it at
/// once. Before, the guard it held with nothing to remove switched the
/// signal's default action off, and the run went on to its end.
#[test]
fn a_kept_bench_still_ends_on_sigterm() {
    use std::os::unix::process::ExitStatusExt;
    let db = TestDb::new();
    let at = db.file("k.emdb");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("emdb"))
        .env_remove("EMDB_PATH")
        .env("HOME", db.dir.path())
        .env("XDG_DATA_HOME", db.dir.path().join("data"))
        .arg("--db")
        .arg(&at)
        .args(["-q", "bench", "--keep", "--records", "5000000"])
        .spawn()
        .unwrap();
    common::wait_until(30, "the bench's database", || at.exists());
    std::thread::sleep(std::time::Duration::from_millis(300));
    common::signal(child.id(), "TERM");
    let signalled = std::time::Instant::now();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(15), "{status:?}");
    assert!(
        signalled.elapsed().as_secs() < 3,
        "ended {:?} after SIGTERM",
        signalled.elapsed()
    );
    assert!(at.exists(), "--keep");
}
