//! Unambiguous, machine-friendly output: every byte value survives a trip
//! through the text output and back; NUL-separated keys; JSON for jq.

// Test helpers: a failure here should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{text, TestDb};
use emdb_tools::encoding::{hex, unescape_text};
use predicates::prelude::*;

/// Every byte value, in a key and in a value, next to a literal `\n`.
fn all_bytes() -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..=255u8)
        .map(|b| (vec![b'k', b], vec![b, b'\\', b'n', b, b'\t']))
        .collect()
}

fn fill(db: &TestDb) {
    let mut script = String::new();
    for (k, v) in all_bytes() {
        script.push_str(&format!("put {} {}\n", hex(&k), hex(&v)));
    }
    db.cmd(["-q", "--hex", "shell"])
        .write_stdin(script)
        .assert()
        .success();
}

/// `scan` text output, decoded: (key, value) per line.
fn scanned(db: &TestDb) -> Vec<(Vec<u8>, Vec<u8>)> {
    let out = text(&db.stdout(["scan"]));
    out.lines()
        .map(|line| {
            let (k, v) = line.split_once('\t').expect("a tab between key and value");
            (unescape_text(k).unwrap(), unescape_text(v).unwrap())
        })
        .collect()
}

#[test]
fn every_byte_round_trips_through_scan_get_and_export() {
    let db = TestDb::new();
    fill(&db);
    let mut want = all_bytes();
    want.sort();
    // scan: one line per record, the tab and newline escaped.
    let got = scanned(&db);
    assert_eq!(got, want);
    // get: the value alone, newlines and tabs as they are, backslashes escaped.
    for (k, v) in &want {
        let out = db.stdout(["--key-format", "hex", "get", &hex(k)]);
        let out = text(&out);
        let shown = out.strip_suffix('\n').unwrap();
        assert_eq!(unescape_text(shown).unwrap(), *v, "{shown:?}");
    }
    // Back in through put: the decoded scan output, written to a new
    // database, reads the same.
    let copy = TestDb::new();
    let mut script = String::new();
    for (k, v) in &got {
        script.push_str(&format!("put {} {}\n", hex(k), hex(v)));
    }
    copy.cmd(["-q", "--hex", "shell"])
        .write_stdin(script)
        .assert()
        .success();
    assert_eq!(scanned(&copy), want);
    // export and import, in every format.
    for format in ["jsonl", "csv", "resp"] {
        let dump = db.file(&format!("dump.{format}"));
        db.cmd(["export", "--format", format])
            .arg(&dump)
            .assert()
            .success();
        let back = TestDb::new();
        back.cmd(["import", "--format", format])
            .arg(&dump)
            .assert()
            .success();
        assert_eq!(scanned(&back), want, "{format}");
    }
}

#[test]
fn a_literal_backslash_n_and_a_newline_print_differently() {
    let db = TestDb::new();
    db.put("a\\nb", "literal");
    db.put("a\nb", "newline");
    db.put("c:\\dir", "x");
    let out = text(&db.stdout(["scan"]));
    assert_eq!(out, "a\\nb\tnewline\na\\\\nb\tliteral\nc:\\\\dir\tx\n");
    db.cmd(["get", "c:\\dir"]).assert().success().stdout("x\n");
    db.put("path", "C:\\temp");
    db.cmd(["get", "path"])
        .assert()
        .success()
        .stdout("C:\\\\temp\n");
    db.cmd(["get", "path", "--raw"])
        .assert()
        .success()
        .stdout("C:\\temp");
}

#[test]
fn invisible_and_bidi_characters_are_escaped_in_listings() {
    let db = TestDb::new();
    db.put("zwx", "1");
    db.put("zw\u{200b}x", "2");
    db.put("rtl\u{202e}cba", "v\u{2028}w");
    db.cmd(["-n", "n\u{200d}s\u{feff}", "put", "k", "v"])
        .assert()
        .success();
    let out = text(&db.stdout(["scan"]));
    assert_eq!(
        out,
        "rtl\\u{202e}cba\tv\\u{2028}w\nzwx\t1\nzw\\u{200b}x\t2\n"
    );
    let out = text(&db.stdout(["scan", "--keys-only"]));
    assert_eq!(out, "rtl\\u{202e}cba\nzwx\nzw\\u{200b}x\n");
    let out = text(&db.stdout(["ns", "list"]));
    assert_eq!(out, "n\\u{200d}s\\u{feff}\t1\n");
    let out = text(&db.stdout(["stats"]));
    assert!(out.contains("n\\u{200d}s\\u{feff}"), "{out}");
    assert!(!out.contains('\u{200d}'), "{out}");
    // JSON: the same characters as \u escapes, which decode to the exact
    // strings.
    let out = text(&db.stdout(["scan", "--json"]));
    let first = out.lines().next().unwrap();
    assert_eq!(first, r#"{"key":"rtl\u202ecba","value":"v\u2028w"}"#);
    let record: serde_json::Value = serde_json::from_str(first).unwrap();
    assert_eq!(record["key"], "rtl\u{202e}cba");
    let out = text(&db.stdout(["ns", "list", "--json"]));
    assert_eq!(out, "{\"name\":\"n\\u200ds\\ufeff\",\"keys\":1}\n");
    db.put("tag\u{e0041}\u{85}", "x");
    let out = text(&db.stdout(["get", "--json", "tag\u{e0041}\u{85}"]));
    assert_eq!(
        out,
        "{\"key\":\"tag\\udb40\\udc41\\u0085\",\"value\":\"x\"}\n"
    );
    let record: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(record["key"], "tag\u{e0041}\u{85}");
    // get prints the value escaped as well (Block layout).
    db.cmd(["get", "rtl\u{202e}cba"])
        .assert()
        .success()
        .stdout("v\\u{2028}w\n");
}

#[test]
fn null_separated_keys() {
    let db = TestDb::new();
    db.put("one two", "1");
    db.put("line\nbreak", "2");
    db.cmd(["scan", "-0", "--keys-only"])
        .assert()
        .success()
        .stdout("line\nbreak\0one two\0");
    db.cmd(["scan", "--null"])
        .assert()
        .success()
        .stdout("line\nbreak\x002\0one two\x001\0");
    db.cmd(["--hex", "scan", "-0", "--keys-only"])
        .assert()
        .success()
        .stdout("6c696e650a627265616b\x006f6e652074776f\x00");
    // A NUL inside a text key cannot be told from the separator.
    db.cmd(["--hex", "put", "610062", "78"]).assert().success();
    db.cmd(["scan", "-0", "--keys-only"])
        .assert()
        .code(7)
        .stderr(predicate::str::contains("NUL byte"));
    db.cmd(["scan", "-0", "--json"]).assert().code(2);
}

#[test]
fn get_json_of_a_missing_key_prints_null_and_exits_1() {
    let db = TestDb::new();
    db.put("a", "1");
    db.cmd(["get", "--json", "nope"])
        .assert()
        .code(1)
        .stdout("null\n");
    db.cmd(["--json", "get", "a"])
        .assert()
        .success()
        .stdout("{\"key\":\"a\",\"value\":\"1\"}\n");
}

/// `scan -0` checks a whole record before it writes any of it: a record
/// it cannot print is not left half printed (exit 7 still says why).
#[test]
fn null_output_never_prints_half_a_record() {
    let db = TestDb::new();
    db.put("a", "1");
    db.cmd(["put", "b", "-"])
        .write_stdin("v\0z")
        .assert()
        .success();
    db.put("c", "3");
    db.cmd(["scan", "-0"])
        .assert()
        .code(7)
        .stdout("a\x001\x00")
        .stderr(predicate::str::contains("NUL byte"));
    // The key of a record whose value is fine is printed whole.
    db.cmd(["scan", "-0", "--keys-only"])
        .assert()
        .success()
        .stdout("a\0b\0c\0");
    db.cmd(["--value-format", "hex", "scan", "-0"])
        .assert()
        .success()
        .stdout("a\x0031\x00b\x0076007a\x00c\x0033\x00");
}

/// With `--json`, a command that prints one JSON document about a key
/// prints one even when the key or its namespace does not exist (exit 1
/// still says so, and the message goes to stderr), so `| jq` always gets
/// a document.
#[test]
fn json_answers_for_a_missing_key_or_namespace() {
    let db = TestDb::new();
    db.put("a", "1");
    for args in [
        vec!["get", "nope"],
        vec!["ttl", "nope"],
        vec!["expire", "nope", "10s"],
        vec!["persist", "nope"],
    ] {
        db.cmd(["--json"])
            .args(&args)
            .assert()
            .code(1)
            .stdout("null\n")
            .stderr("emdb: key \"nope\" not found\n");
    }
    // `exists` answers the question itself.
    db.cmd(["--json", "exists", "nope"])
        .assert()
        .code(1)
        .stdout("{\"key\":\"nope\",\"exists\":false}\n");
    for args in [
        vec!["get", "a"],
        vec!["exists", "a"],
        vec!["ttl", "a"],
        vec!["expire", "a", "10s"],
        vec!["persist", "a"],
        vec!["count"],
        vec!["del", "a"],
    ] {
        db.cmd(["--json", "-n", "nope"])
            .args(&args)
            .assert()
            .code(1)
            .stdout("null\n")
            .stderr(predicate::str::starts_with(
                "emdb: namespace \"nope\" does not exist\n",
            ));
    }
    db.cmd(["--json", "ns", "drop", "nope", "--yes"])
        .assert()
        .code(1)
        .stdout("null\n");
    // A stream prints no line for a namespace that does not exist.
    db.cmd(["--json", "-n", "nope", "scan"])
        .assert()
        .code(1)
        .stdout("");
    // Each line of the shell alike.
    db.cmd(["--json", "shell"])
        .write_stdin("ttl nope\n-n nope get a\nget nope\n")
        .assert()
        .code(1)
        .stdout("null\nnull\nnull\n");
    db.cmd(["--json", "-n", "nope", "shell"])
        .write_stdin("get a\n")
        .assert()
        .code(1)
        .stdout("null\n");
}

#[test]
fn stats_watch_off_a_terminal_prints_timestamped_json_lines() {
    let db = TestDb::new();
    db.put("a", "1");
    let out = text(&db.stdout(["stats", "--watch", "0.05", "--count", "3"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let mut last = 0;
    for line in lines {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let ts = v["timestamp_ms"].as_u64().unwrap();
        assert!(ts >= last);
        last = ts;
        assert_eq!(v["live_records"], 1);
    }
    // A single report has no timestamp field (it is not a series).
    let once: serde_json::Value = serde_json::from_slice(&db.stdout(["stats", "--json"])).unwrap();
    assert!(once.get("timestamp_ms").is_none());
}
