//! import / export round trips in every format and encoding, and their errors.

mod common;

use common::{text, TestDb};
use predicates::prelude::*;

const RECORDS: usize = 2_000;

/// A database with RECORDS records, some of them binary.
fn filled() -> TestDb {
    let db = TestDb::new();
    let mut jsonl = String::from("{\"emdb_export\":1,\"namespaces\":[\"\"],\"encrypted\":false}\n");
    for i in 0..RECORDS {
        if i % 10 == 0 {
            // Binary key and value, base64-marked.
            use base64::Engine as _;
            let b64 = base64::engine::general_purpose::STANDARD;
            let key = [b"bin\x00\xff".as_slice(), &(i as u32).to_le_bytes()].concat();
            let value: Vec<u8> = (0..=255u8).map(|b| b.wrapping_add(i as u8)).collect();
            jsonl.push_str(&format!(
                "{{\"key\":\"{}\",\"key_encoding\":\"base64\",\"value\":\"{}\",\"value_encoding\":\"base64\"}}\n",
                b64.encode(key),
                b64.encode(value)
            ));
        } else {
            jsonl.push_str(&format!(
                "{{\"key\":\"key:{i:05}\",\"value\":\"value \\\"{i}\\\", with, commas\\nand lines\"}}\n"
            ));
        }
    }
    db.cmd(["import", "-"])
        .write_stdin(jsonl)
        .assert()
        .success()
        .stdout(predicate::str::starts_with(format!(
            "imported {RECORDS} records in 1 atomic batch from stdin (jsonl, "
        )));
    db
}

#[test]
fn round_trip_every_format_and_encoding() {
    let src = filled();
    let reference = src.stdout(["--hex", "scan"]);
    assert_eq!(text(&reference).lines().count(), RECORDS);
    let encodings: [&[&str]; 4] = [
        &[],
        &["--hex"],
        &["--base64"],
        &["--key-format", "hex", "--value-format", "base64"],
    ];
    for format in ["jsonl", "csv", "resp"] {
        for enc in encodings {
            let file = src.file(&format!("dump-{format}-{}.out", enc.len()));
            src.cmd(enc)
                .args(["export", "--format", format])
                .arg(&file)
                .assert()
                .success()
                .stdout(predicate::str::starts_with(format!(
                    "exported {RECORDS} records"
                )));
            let dst = TestDb::new();
            dst.cmd(enc)
                .args(["import", "--format", format])
                .arg(&file)
                .assert()
                .success();
            assert_eq!(dst.stdout(["--hex", "scan"]), reference, "{format} {enc:?}");
        }
    }
}

#[test]
fn export_to_stdout_and_import_from_stdin() {
    let src = filled();
    for format in ["jsonl", "csv", "resp"] {
        let out = src
            .cmd(["export", "--format", format])
            .assert()
            .success()
            .stderr(predicate::str::starts_with(format!(
                "exported {RECORDS} records to stdout"
            )))
            .get_output()
            .stdout
            .clone();
        let dst = TestDb::new();
        dst.cmd(["import", "-", "--format", format])
            .write_stdin(out)
            .assert()
            .success();
        assert_eq!(dst.stdout(["--hex", "scan"]), src.stdout(["--hex", "scan"]));
    }
}

#[test]
fn jsonl_export_starts_with_the_header_and_is_sorted() {
    let db = TestDb::new();
    db.put("b", "2");
    db.put("a", "1");
    db.cmd(["export"]).assert().success().stdout(
        "{\"emdb_export\":1,\"namespaces\":[\"\"],\"encrypted\":false}\n\
         {\"key\":\"a\",\"value\":\"1\"}\n{\"key\":\"b\",\"value\":\"2\"}\n",
    );
    db.cmd(["export", "--format", "csv"])
        .assert()
        .success()
        .stdout("key,value\r\na,1\r\nb,2\r\n");
    db.cmd(["--hex", "export", "--format", "csv"])
        .assert()
        .success()
        .stdout("key:hex,value:hex\r\n61,31\r\n62,32\r\n");
    db.cmd(["export", "--format", "resp"])
        .assert()
        .success()
        .stdout(
            "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n",
        );
}

#[test]
fn format_follows_the_file_extension() {
    let db = TestDb::new();
    db.put("a", "1");
    let csv = db.file("dump.csv");
    db.cmd(["export"]).arg(&csv).assert().success();
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "key,value\r\na,1\r\n"
    );
    let dst = TestDb::new();
    dst.cmd(["import"]).arg(&csv).assert().success();
    dst.cmd(["get", "a"]).assert().success().stdout("1\n");
}

#[test]
fn malformed_lines_report_their_number_and_exit_7() {
    let db = TestDb::new();
    let mut input = String::new();
    for i in 0..10 {
        input.push_str(&format!("{{\"key\":\"k{i}\",\"value\":\"v\"}}\n"));
    }
    input.push_str("{\"key\":\"broken\"\n");
    db.cmd(["import", "-"])
        .write_stdin(input)
        .assert()
        .code(7)
        .stderr(predicate::str::starts_with(
            "emdb: line 11: not a valid record",
        ))
        .stderr(predicate::str::contains("nothing was imported"));
    // The batch holding the bad line was not written.
    assert!(!db.path.exists() || text(&db.stdout(["count"])) == "0\n");

    db.cmd(["import", "-", "--format", "csv"])
        .write_stdin("key,value\na,1\nb,2,3\n")
        .assert()
        .code(7)
        .stderr(predicate::str::starts_with(
            "emdb: line 3: expected 2 fields",
        ));
    db.cmd(["import", "-", "--format", "csv"])
        .write_stdin("name,age\n")
        .assert()
        .code(7)
        .stderr(predicate::str::contains("header"));
    db.cmd(["import", "-", "--format", "resp"])
        .write_stdin("*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\nPING\r\n")
        .assert()
        .code(7)
        .stderr(predicate::str::starts_with("emdb: line 8:"));
    db.cmd(["import", "-"])
        .write_stdin("{\"key\":\"zz\",\"key_encoding\":\"hex\",\"value\":\"v\"}\n")
        .assert()
        .code(7)
        .stderr(predicate::str::starts_with(
            "emdb: line 1: key: not valid hex",
        ));
    db.cmd(["import", "-"])
        .write_stdin("{\"emdb_export\":2,\"namespaces\":[\"\"],\"encrypted\":false}\n")
        .assert()
        .code(7)
        .stderr(predicate::str::contains("version 2 is not supported"));
}

#[test]
fn earlier_batches_stay_imported_after_an_error() {
    let db = TestDb::new();
    let mut input = String::new();
    for i in 0..12_000 {
        input.push_str(&format!("{{\"key\":\"k{i}\",\"value\":\"v\"}}\n"));
    }
    input.push_str("not json\n");
    db.cmd(["import", "-"])
        .write_stdin(input)
        .assert()
        .code(7)
        .stderr(predicate::str::contains("line 12001"))
        .stderr(predicate::str::contains(
            "10000 records in 1 earlier batches",
        ));
    db.cmd(["count"]).assert().success().stdout("10000\n");
}

#[test]
fn json_reports() {
    let db = TestDb::new();
    let out = db
        .cmd(["import", "-", "--json"])
        .write_stdin("{\"key\":\"a\",\"value\":\"1\"}\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["records"], 1);
    assert_eq!(report["batches"], 1);
    assert_eq!(report["format"], "jsonl");
    db.cmd(["import", "-", "--quiet"])
        .write_stdin("{\"key\":\"b\",\"value\":\"2\"}\n")
        .assert()
        .success()
        .stdout("")
        .stderr("");
}
