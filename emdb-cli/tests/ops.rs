//! stats, compact.

mod common;

use common::{text, TestDb};
use predicates::prelude::*;

fn with_dead_bytes() -> TestDb {
    let db = TestDb::new();
    let mut lines = String::new();
    for round in 0..3 {
        for i in 0..200 {
            lines.push_str(&format!("put key{i} value-{round}-{i}\n"));
        }
    }
    db.cmd(["shell"]).write_stdin(lines).assert().success();
    db
}

#[test]
fn stats_text_json_and_prometheus() {
    let db = with_dead_bytes();
    db.cmd(["stats"])
        .assert()
        .success()
        .stdout(predicate::str::contains("live records     200"))
        .stdout(predicate::str::contains("dead data"));
    let json: serde_json::Value = serde_json::from_slice(&db.stdout(["stats", "--json"])).unwrap();
    assert_eq!(json["live_records"], 200);
    assert!(json["dead_bytes"].as_u64().unwrap() > 0);
    assert_eq!(json["namespaces"][0]["name"], "");
    assert_eq!(
        db.stdout(["stats", "--format", "json"]),
        db.stdout(["stats", "--json"])
    );
    let prom = text(&db.stdout(["stats", "--format", "prometheus"]));
    assert!(prom.contains("# TYPE emdb_live_records gauge\n"), "{prom}");
    assert!(prom.contains("\nemdb_live_records 200\n"), "{prom}");
    assert!(prom.contains("\nemdb_writes_total "), "{prom}");
    assert!(
        prom.contains("emdb_namespace_keys{namespace=\"\"} 200\n"),
        "{prom}"
    );
    assert!(prom.ends_with("# EOF\n"), "{prom}");
}

/// `stats` counts the keys in the index, expired ones until they are
/// swept; it says so when some keys carry an expiry, which `count` (which
/// leaves expired ones out) would otherwise seem to contradict.
#[test]
fn stats_says_its_count_includes_keys_that_expired() {
    let db = TestDb::new();
    db.put("keep", "1");
    db.cmd(["put", "tmp", "1", "--ttl", "100ms"])
        .assert()
        .success();
    std::thread::sleep(std::time::Duration::from_millis(300));
    db.cmd(["count"]).assert().success().stdout("1\n");
    db.cmd(["stats"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
        "live records     2 (1 with an expiry: expired ones count here until swept or compacted; \
         `emdb count` leaves them out)",
    ));
    let json: serde_json::Value = serde_json::from_slice(&db.stdout(["stats", "--json"])).unwrap();
    assert_eq!(
        (
            json["live_records"].as_u64(),
            json["expiring_records"].as_u64()
        ),
        (Some(2), Some(1))
    );
    // Without expiring keys the line is the bare count.
    db.cmd(["compact"]).assert().success();
    db.cmd(["stats"])
        .assert()
        .success()
        .stdout(predicate::str::contains("live records     1\n"));
}

#[test]
fn stats_watch_refreshes() {
    let db = with_dead_bytes();
    let out = text(&db.stdout(["stats", "--json", "--watch", "0.05", "--count", "3"]));
    assert_eq!(out.lines().count(), 3);
    db.cmd(["stats", "--watch", "0"]).assert().code(2);
}

#[test]
fn compact_dry_run_then_compact() {
    let db = with_dead_bytes();
    let stats: serde_json::Value = serde_json::from_slice(&db.stdout(["stats", "--json"])).unwrap();
    let dead = stats["dead_bytes"].as_u64().unwrap();
    db.cmd(["compact", "--dry-run"])
        .assert()
        .success()
        .stdout(format!(
            "compaction would reclaim about {dead} bytes of {} (dry run; nothing changed)\n",
            stats["log_logical_bytes"]
        ));
    let report: serde_json::Value =
        serde_json::from_slice(&db.stdout(["compact", "--json"])).unwrap();
    assert_eq!(report["dry_run"], false);
    assert_eq!(report["dead_bytes_before"], dead);
    assert!(report["reclaimed_bytes"].as_u64().unwrap() > 0);
    let after: serde_json::Value = serde_json::from_slice(&db.stdout(["stats", "--json"])).unwrap();
    assert_eq!(after["dead_bytes"], 0);
    assert_eq!(after["live_records"], 200);
    db.cmd(["get", "key7"])
        .assert()
        .success()
        .stdout("value-2-7\n");
    db.cmd(["compact"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("reclaimed 0 bytes"));
}

#[test]
fn stats_of_a_read_only_handle_shows_the_writers_counters() {
    let db = TestDb::new();
    db.put("k", "v");
    let writer = emdb_core::Emdb::open(&db.path).unwrap();
    for i in 0..10 {
        writer.insert(format!("w{i}"), "x").unwrap();
    }
    writer.flush().unwrap();
    // The writer publishes its counters within about a second.
    let start = std::time::Instant::now();
    let json = loop {
        let json: serde_json::Value =
            serde_json::from_slice(&db.stdout(["stats", "--json"])).unwrap();
        if json["writes"].as_u64().unwrap_or(0) >= 10 || start.elapsed().as_secs() >= 10 {
            break json;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(json["read_only"], true);
    assert_eq!(json["writer_pid"], std::process::id());
    assert!(json["writes"].as_u64().unwrap() >= 10, "{json}");
    assert!(json["fsyncs"].as_u64().unwrap() >= 1, "{json}");
    assert_eq!(json["live_records"], 11);
    db.cmd(["stats"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "by writer pid {} (running)",
            std::process::id()
        )));
    drop(writer);
    // Its pid still runs (this test), but it is no longer the writer: it
    // let go of the lock. (A live pid used to be taken for a running writer.)
    // Another test's child process between its fork and its exec holds a
    // copy of the lock's descriptor for a moment: ask again until then.
    let exited = format!("by writer pid {} (exited)", std::process::id());
    let start = std::time::Instant::now();
    loop {
        let out = text(&db.stdout(["stats"]));
        if out.contains(&exited) {
            break;
        }
        assert!(start.elapsed().as_secs() < 10, "{out}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A writer whose path is not UTF-8 is still seen running: `stats` asks
/// the lock file beside the path itself, not beside its display form
/// (which replaced the bad bytes, so the writer showed as `exited`).
#[test]
fn stats_sees_a_running_writer_under_a_non_utf8_path() {
    use std::os::unix::ffi::OsStrExt;
    let db = TestDb::new();
    let dir = db
        .dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"data-\xff"));
    std::fs::create_dir(&dir).unwrap();
    let path = dir.join("w.emdb");
    let writer = emdb_core::Emdb::open(&path).unwrap();
    writer.insert("k", "v").unwrap();
    writer.flush().unwrap();
    let start = std::time::Instant::now();
    let json = loop {
        let out = common::bare(db.dir.path())
            .arg("--db")
            .arg(&path)
            .args(["stats", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        if !json["writer_pid"].is_null() || start.elapsed().as_secs() >= 10 {
            break json;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(json["writer_pid"], std::process::id(), "{json}");
    assert_eq!(json["writer_running"], true, "{json}");
    common::bare(db.dir.path())
        .arg("--db")
        .arg(&path)
        .arg("stats")
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "by writer pid {} (running)",
            std::process::id()
        )));
    drop(writer);
    // (Asked again while another test's forked child may hold the lock.)
    let start = std::time::Instant::now();
    loop {
        let json: serde_json::Value = serde_json::from_slice(
            &common::bare(db.dir.path())
                .arg("--db")
                .arg(&path)
                .args(["stats", "--json"])
                .assert()
                .success()
                .get_output()
                .stdout
                .clone(),
        )
        .unwrap();
        if json["writer_running"] == false {
            break;
        }
        assert!(start.elapsed().as_secs() < 10, "{json}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// `emdb put` after a writer that stopped without its close's checkpoint
/// (a crash) pays for the long tail it left once: its close checkpoints,
/// and the next open replays only what was written since. (It used to
/// leave every checkpoint to long-lived writers, so each later `put`,
/// `del KEY` and `incr` replayed the whole tail again, and a script's
/// puts grew slower with every put.)
#[test]
fn a_put_after_a_crashed_writer_leaves_the_next_open_a_short_tail() {
    let db = TestDb::new();
    let w = emdb_core::Emdb::open(&db.path).unwrap();
    w.insert("checkpointed", "yes").unwrap();
    drop(w);
    let w = emdb_core::Emdb::builder()
        .path(&db.path)
        .checkpoint_on_close(false)
        .build()
        .unwrap();
    for i in 0..3_000 {
        w.insert(format!("tail{i:05}"), [b'v'; 150]).unwrap();
    }
    drop(w);
    db.put("after", "the crash");
    db.cmd(["incr", "n"]).assert().success();
    let r = emdb_core::Emdb::builder()
        .path(&db.path)
        .background(false)
        .checkpoint_on_close(false)
        .build()
        .unwrap();
    let replayed = r.recovery_report().replayed_bytes;
    assert!(
        replayed < 1024,
        "the open after two puts replayed {replayed} bytes"
    );
    assert_eq!(r.len().unwrap(), 3_003);
    assert_eq!(r.get("after").unwrap().as_deref(), Some(&b"the crash"[..]));
}
