//! Imports you can trust: all-or-nothing, dry runs, byte order marks,
//! Ctrl-C, and nothing created when nothing was imported.

mod common;

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use common::{text, TestDb};
use predicates::prelude::*;

fn jsonl(n: usize) -> String {
    (0..n)
        .map(|i| format!("{{\"key\":\"k{i}\",\"value\":\"v{i}\"}}\n"))
        .collect()
}

#[test]
fn atomic_imports_all_or_nothing() {
    let db = TestDb::new();
    db.put("old", "1");
    // 25,000 good records, then a bad one: with --atomic nothing lands.
    let mut input = jsonl(25_000);
    input.push_str("{\"key\":1}\n");
    db.cmd(["import", "--atomic", "-"])
        .write_stdin(input)
        .assert()
        .code(7)
        .stderr(predicate::str::contains("line 25001"))
        .stderr(predicate::str::contains("nothing was imported"));
    db.cmd(["count"]).assert().success().stdout("1\n");
    // Without the bad line: one unit.
    db.cmd(["import", "--atomic", "-"])
        .write_stdin(jsonl(25_000))
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "imported 25000 records in 1 atomic batch",
        ));
    db.cmd(["count"]).assert().success().stdout("25001\n");
}

#[test]
fn dry_run_validates_counts_and_creates_nothing() {
    let db = TestDb::new();
    db.cmd(["import", "--dry-run", "-"])
        .write_stdin(jsonl(3))
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "dry run: 3 records in stdin would be imported",
        ));
    assert!(!db.path.exists());
    let mut bad = jsonl(2);
    bad.push_str("{bad\n");
    db.cmd(["import", "--dry-run", "-"])
        .write_stdin(bad)
        .assert()
        .code(7)
        .stderr(predicate::str::contains("line 3: not valid JSON"));
    assert!(!db.path.exists());
    // Also on an existing database: nothing written.
    db.put("a", "1");
    db.cmd(["import", "--dry-run", "-"])
        .write_stdin(jsonl(3))
        .assert()
        .success();
    db.cmd(["count"]).assert().success().stdout("1\n");
}

#[test]
fn a_byte_order_mark_is_not_data() {
    let db = TestDb::new();
    db.cmd(["import", "-"])
        .write_stdin(format!("\u{feff}{}", jsonl(2)))
        .assert()
        .success();
    db.cmd(["get", "k0"]).assert().success().stdout("v0\n");
    let csv = db.file("bom.csv");
    std::fs::write(&csv, "\u{feff}key,value\r\nc,3\r\n").unwrap();
    db.cmd(["import"]).arg(&csv).assert().success();
    db.cmd(["get", "c"]).assert().success().stdout("3\n");
    db.cmd(["import", "-", "--format", "resp"])
        .write_stdin("\u{feff}*3\r\n$3\r\nSET\r\n$1\r\nr\r\n$1\r\n9\r\n")
        .assert()
        .success();
    db.cmd(["get", "r"]).assert().success().stdout("9\n");
}

#[test]
fn a_failed_or_empty_import_creates_no_database() {
    let db = TestDb::new();
    db.cmd(["import", "-"])
        .write_stdin("{\"key\":\"broken\"\n")
        .assert()
        .code(7);
    assert!(!db.path.exists(), "a failed import left a database behind");
    db.cmd(["import", "-"])
        .write_stdin("")
        .assert()
        .success()
        .stdout(predicate::str::contains("no database was created"));
    assert!(!db.path.exists());
}

#[test]
fn ctrl_c_keeps_and_syncs_the_committed_batches_and_says_so() {
    let db = TestDb::new();
    let mut child = common::child(&db, ["import", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Three full batches, then a partial one, and the input stays open.
    stdin.write_all(jsonl(35_000).as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Wait for the three batches to be written, then interrupt.
    common::wait_for_count(&db, 30, "no three batches", |n| n == 30_000);
    // kill(1) sends SIGINT to that one pid.
    common::signal(child.id(), "INT");
    // The input stays open and silent (a stalled producer): the import
    // must end by itself. Before, it waited in its read for more input.
    common::wait_until(20, "Ctrl-C to end an import waiting for input", || {
        child.try_wait().unwrap().is_some()
    });
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted: imported 30000 records in 3 atomic batches"),
        "{err}"
    );
    db.cmd(["count"]).assert().success().stdout("30000\n");
    // The committed batches were synced: `check` sees them all as durable.
    db.cmd(["check"]).assert().success();
}

#[test]
fn redis_cli_style_resp_imports_in_order() {
    let db = TestDb::new();
    let script = "\
SET plain 1
SET counter 10 EX 3600
SET counter 11 KEEPTTL
SET once first NX
SET once second NX
MSET a 1 b 2 c 3
DEL b
PEXPIRE c 3600000
EXPIRE a 0
SELECT 2
SET \"with space\" 'quoted value'
SELECT 0
SET tail end
";
    db.cmd(["import", "-", "--format", "resp"])
        .write_stdin(script)
        .assert()
        .success();
    db.cmd(["get", "plain"]).assert().success().stdout("1\n");
    db.cmd(["get", "counter"]).assert().success().stdout("11\n");
    // KEEPTTL kept the hour, PEXPIRE set one.
    for key in ["counter", "c"] {
        let ttl = text(&db.stdout(["ttl", key]));
        assert!(
            ttl.trim().ends_with('s') && ttl.trim() != "-1",
            "{key}: {ttl}"
        );
    }
    db.cmd(["get", "once"]).assert().success().stdout("first\n");
    db.cmd(["exists", "b"]).assert().code(1);
    // EXPIRE with 0 deletes, as in Redis.
    db.cmd(["exists", "a"]).assert().code(1);
    db.cmd(["-n", "db2", "get", "with space"])
        .assert()
        .success()
        .stdout("quoted value\n");
    db.cmd(["get", "tail"]).assert().success().stdout("end\n");
    // Other commands are refused, naming the line and what can be imported.
    db.cmd(["import", "-", "--format", "resp"])
        .write_stdin("SET x 1\nHSET h f v\n")
        .assert()
        .code(7)
        .stderr(predicate::str::contains(
            "line 2: \"HSET\" cannot be imported",
        ));
}

/// A CSV header naming a column twice imports nothing (exit 7), naming it.
#[test]
fn a_csv_header_naming_a_column_twice_is_refused() {
    let db = TestDb::new();
    let csv = db.file("d.csv");
    std::fs::write(&csv, "key,value,key\r\na,b,c\r\n").unwrap();
    db.cmd(["import"])
        .arg(&csv)
        .assert()
        .code(7)
        .stderr(predicate::str::contains("names the column key twice"));
    assert!(!db.path.exists());
    std::fs::write(&csv, "key,value,colour\r\na,b,c\r\n").unwrap();
    db.cmd(["import"])
        .arg(&csv)
        .assert()
        .code(7)
        .stderr(predicate::str::contains("\"colour\""));
}

/// A Ctrl-C that also ended the producer (as a terminal's does, to the
/// whole pipeline): the input's end that follows is not the input's end,
/// so the batch being read is dropped and the exit is 130. Before, the
/// import committed it and exited 0.
#[test]
fn ctrl_c_then_the_end_of_input_drops_the_batch_being_read() {
    let db = TestDb::new();
    let mut child = common::child(&db, ["import", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(jsonl(15_000).as_bytes()).unwrap();
    stdin.flush().unwrap();
    common::wait_for_count(&db, 30, "no batch landed", |n| n == 10_000);
    common::signal(child.id(), "INT");
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("the batch being read was dropped"), "{err}");
    db.cmd(["count"]).assert().success().stdout("10000\n");
}

/// Records apply in order: a write whose expiry has passed leaves the key
/// absent, deleting the value an earlier record gave it, as Redis does
/// with `SET k v PXAT <past>`. Before, it was skipped and the old value
/// stayed. A `SET ... NX` of a present key still changes nothing.
#[test]
fn an_expired_write_deletes_the_value_it_replaces() {
    let db = TestDb::new();
    db.put("kept", "old");
    let script = "SET k v1\r\nSET k v2 PXAT 1000\r\nSET h v1 EX 100\r\nSET h v2 PXAT 1000\r\n\
                  SET kept new PXAT 1000 NX\r\nSET fresh v PXAT 1000\r\n";
    db.cmd(["import", "--format", "resp", "-"])
        .write_stdin(script)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "skipped 4 that had expired already",
        ));
    db.cmd(["scan"]).assert().success().stdout("kept\told\n");
    // JSON Lines: the same key twice, the later copy expired.
    db.cmd(["import", "-"])
        .write_stdin(
            "{\"key\":\"j\",\"value\":\"1\"}\n{\"key\":\"j\",\"value\":\"2\",\"expires_at_ms\":1000}\n",
        )
        .assert()
        .success();
    db.cmd(["exists", "j"]).assert().code(1);
    // Expiries Redis refuses stop the import at their line.
    db.cmd(["import", "--format", "resp", "-"])
        .write_stdin("SET a 1\r\nSET b 2 EX 99999999999999999\r\n")
        .assert()
        .code(7)
        .stderr(predicate::str::contains("line 2"))
        .stderr(predicate::str::contains("invalid expire time"));
    db.cmd(["exists", "a"]).assert().code(1);
}

/// Ctrl-C before the first byte of input arrives is an interruption (exit
/// 130), not "reading the import failed" (exit 6), and creates nothing.
#[test]
fn ctrl_c_before_any_input_is_an_interruption() {
    let db = TestDb::new();
    let mut child = common::child(&db, ["import", "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    // Time to start and install its Ctrl-C handler (it then waits in its read).
    std::thread::sleep(Duration::from_millis(1500));
    common::signal(child.id(), "INT");
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(!db.path.exists());
}

/// SIGTERM ends an import (by the signal) even while it handles Ctrl-C
/// itself; the batches written before it are kept. Before, the import's
/// Ctrl-C handling caught SIGTERM too and dropped it: `kill` did nothing,
/// and an import waiting on a stalled producer ran on.
#[test]
fn sigterm_ends_an_import_that_handles_ctrl_c() {
    use std::os::unix::process::ExitStatusExt;
    let db = TestDb::new();
    let mut child = common::child(&db, ["import", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(jsonl(15_000).as_bytes()).unwrap();
    stdin.flush().unwrap();
    common::wait_for_count(&db, 30, "no batch landed", |n| n == 10_000);
    common::signal(child.id(), "TERM");
    // The input stays open: only the signal can end it.
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("SIGTERM did not end the import");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(stdin);
    assert_eq!(status.signal(), Some(15), "{status:?}");
    db.cmd(["count"]).assert().success().stdout("10000\n");
}
