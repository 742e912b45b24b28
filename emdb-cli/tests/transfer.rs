//! import / export round trips in every format and encoding, and their errors.

// Test helpers: a failure here should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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
            let file = src.file(&format!("dump-{format}-{}.out", enc.join("_")));
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
            "*2\r\n$4\r\nECHO\r\n$53\r\n{\"emdb_export\":1,\"namespaces\":[\"\"],\"encrypted\":false}\r\n\
             *3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n",
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
            "emdb: line 11: not valid JSON: EOF while parsing an object",
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
            "10000 records in 1 earlier batch were imported",
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

/// A database with namespaces (one of them empty) and expiring keys.
fn with_namespaces_and_ttls() -> TestDb {
    let db = TestDb::new();
    let mut lines = String::new();
    for i in 0..50 {
        lines.push_str(&format!("put plain:{i} v{i}\n"));
        lines.push_str(&format!("put exp:{i} e{i} --ttl 1h\n"));
        lines.push_str(&format!("-n users put u:{i} name{i}\n"));
        lines.push_str(&format!("-n sessions put s:{i} tok{i} --ttl 2h\n"));
    }
    // A default-namespace key that looks like a prefixed one in RESP.
    lines.push_str("put users:u:1 not-in-users\n");
    lines.push_str("-n 'with space' put k v --ttl 30m\n");
    lines.push_str("-n empty put gone x\n-n empty del gone\n");
    db.cmd(["shell"]).write_stdin(lines).assert().success();
    db
}

/// Every key of every namespace with its value and expiry (ms, or -1).
fn dump(db: &TestDb) -> Vec<(String, String, String, i64)> {
    let out = db.stdout(["--hex", "export", "--format", "jsonl"]);
    text(&out)
        .lines()
        .skip(1)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["ns"].as_str().unwrap_or("").to_string(),
                v["key"].as_str().unwrap().to_string(),
                v["value"].as_str().unwrap().to_string(),
                v["expires_at_ms"].as_i64().unwrap_or(-1),
            )
        })
        .collect()
}

fn same_within(a: &[(String, String, String, i64)], b: &[(String, String, String, i64)]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!((&x.0, &x.1, &x.2), (&y.0, &y.1, &y.2));
        // The engine takes a duration, so an expiry is restored to within
        // the few milliseconds the import took.
        assert!((x.3 == -1) == (y.3 == -1), "{x:?} {y:?}");
        assert!((x.3 - y.3).abs() <= 2_000, "{x:?} {y:?}");
    }
}

#[test]
fn namespaces_and_ttls_round_trip_in_every_format() {
    let src = with_namespaces_and_ttls();
    let reference = dump(&src);
    assert_eq!(reference.len(), 202);
    assert!(reference.iter().any(|r| r.0 == "with space" && r.3 > 0));
    let header = text(&src.stdout(["export"]));
    assert!(
        header.starts_with(
            "{\"emdb_export\":1,\"namespaces\":[\"\",\"empty\",\"sessions\",\"users\",\"with space\"],\"encrypted\":false}\n"
        ),
        "{header}"
    );
    for format in ["jsonl", "csv", "resp"] {
        for enc in [&[][..], &["--hex"][..], &["--base64"][..]] {
            let file = src.file(&format!("ns-{format}-{}.out", enc.join("_")));
            src.cmd(enc)
                .args(["export", "--format", format])
                .arg(&file)
                .assert()
                .success();
            let dst = TestDb::new();
            dst.cmd(enc)
                .args(["import", "--format", format])
                .arg(&file)
                .assert()
                .success()
                .stdout(predicate::str::starts_with("imported 202 records"));
            same_within(&dump(&dst), &reference);
            let namespaces = text(&dst.stdout(["ns", "list"]));
            // CSV has no header list, so only JSON Lines and RESP bring
            // back a namespace without keys.
            let expected = if format == "csv" {
                "sessions\t50\nusers\t50\nwith space\t1\n"
            } else {
                "empty\t0\nsessions\t50\nusers\t50\nwith space\t1\n"
            };
            assert_eq!(namespaces, expected, "{format} {enc:?}");
        }
    }
}

#[test]
fn export_and_import_of_one_namespace() {
    let src = with_namespaces_and_ttls();
    let out = src.stdout(["-n", "users", "export", "--format", "csv"]);
    assert!(text(&out).starts_with("key,value,ns\r\nu:0,name0,users\r\n"));
    let dst = TestDb::new();
    dst.cmd(["import", "-", "--format", "csv"])
        .write_stdin(out)
        .assert()
        .success();
    dst.cmd(["-n", "users", "count"])
        .assert()
        .success()
        .stdout("50\n");
    // Records that name no namespace go to -n's.
    dst.cmd(["-n", "into", "import", "-"])
        .write_stdin(
            "{\"key\":\"a\",\"value\":\"1\"}\n{\"ns\":\"other\",\"key\":\"b\",\"value\":\"2\"}\n",
        )
        .assert()
        .success();
    dst.cmd(["-n", "into", "get", "a"])
        .assert()
        .success()
        .stdout("1\n");
    dst.cmd(["-n", "other", "get", "b"])
        .assert()
        .success()
        .stdout("2\n");
}

#[test]
fn export_of_one_prefix_keeps_only_its_keys_in_every_namespace() {
    let src = with_namespaces_and_ttls();
    let all = dump(&src);
    // Keys under `u:1` in any namespace ("u:1", "u:10".."u:19"), and the
    // default namespace's `users:u:1` is not one of them.
    let want: Vec<_> = all
        .iter()
        .filter(|r| r.1.starts_with(&hex(b"u:1")))
        .cloned()
        .collect();
    assert_eq!(want.len(), 11);
    let out = src.stdout([
        "--hex",
        "export",
        "--prefix",
        &hex(b"u:1"),
        "--format",
        "jsonl",
    ]);
    let dst = TestDb::new();
    dst.cmd(["--hex", "import", "-"])
        .write_stdin(out)
        .assert()
        .success()
        .stdout(predicate::str::starts_with("imported 11 records"));
    same_within(&dump(&dst), &want);
    // A prefix as text, to a file, with expiries (sessions' keys) kept.
    let file = src.file("sessions.csv");
    src.cmd(["-n", "sessions", "export", "--prefix", "s:4"])
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::starts_with("exported 11 records to"));
    let csv = std::fs::read_to_string(&file).unwrap();
    assert!(
        csv.starts_with("key,value,ns,expires_at_ms\r\ns:4,tok4,sessions,"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 12, "{csv}");
    // A prefix no key has: a valid, empty export.
    src.cmd(["export", "--prefix", "nothing:"])
        .assert()
        .success()
        .stderr(predicate::str::contains("exported 0 records"));
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn expired_records_are_skipped_on_import() {
    let db = TestDb::new();
    db.cmd(["import", "-"])
        .write_stdin(
            "{\"key\":\"old\",\"value\":\"1\",\"expires_at_ms\":1000}\n\
             {\"ns\":\"n\",\"key\":\"old\",\"value\":\"1\",\"expires_at_ms\":1000}\n\
             {\"key\":\"new\",\"value\":\"2\",\"expires_at_ms\":99999999999999}\n",
        )
        .assert()
        .success()
        .stdout(predicate::str::contains("imported 1 records"))
        .stdout(predicate::str::contains(
            "skipped 2 that had expired already",
        ));
    db.cmd(["get", "old"]).assert().code(1);
    db.cmd(["get", "new"]).assert().success().stdout("2\n");
    db.cmd(["import", "-", "--format", "resp"])
        .write_stdin("*5\r\n$3\r\nSET\r\n$1\r\nx\r\n$1\r\n1\r\n$2\r\nPX\r\n$5\r\n60000\r\n")
        .assert()
        .success();
    let ttl = text(&db.stdout(["ttl", "x"]));
    assert!(ttl.starts_with("59.") || ttl.starts_with("60."), "{ttl}");
}

#[test]
fn encrypted_source_is_noted_in_the_header() {
    let db = TestDb::new();
    db.put("a", "1");
    db.cmd(["encrypt", "--yes", "--remove-backup"])
        .env("EMDB_PASSPHRASE", "pw")
        .assert()
        .success();
    let out = db
        .cmd(["export"])
        .env("EMDB_PASSPHRASE", "pw")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(
        text(&out).starts_with("{\"emdb_export\":1,\"namespaces\":[\"\"],\"encrypted\":true}\n")
    );
    let dst = TestDb::new();
    dst.cmd(["import", "-"])
        .write_stdin(out)
        .assert()
        .success()
        .stderr(predicate::str::contains("comes from an encrypted database"));
}

#[test]
fn export_while_another_process_writes_is_a_snapshot() {
    let db = TestDb::new();
    db.put("a", "1");
    let writer = emdb_core::Emdb::open(&db.path).unwrap();
    writer.insert("b", "2").unwrap();
    writer.flush().unwrap();
    let out = text(&db.stdout(["export", "--format", "csv"]));
    assert_eq!(out, "key,value\r\na,1\r\nb,2\r\n");
    drop(writer);
    // The snapshot copy is gone.
    let left: Vec<_> = std::fs::read_dir(db.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".emdb-export-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// 100k records with namespaces and TTLs through every format.
#[test]
fn round_trip_100k_records_per_format() {
    let n = 100_000;
    let src = TestDb::new();
    let mut jsonl = String::with_capacity(n * 80);
    jsonl.push_str("{\"emdb_export\":1,\"namespaces\":[\"\",\"big\"],\"encrypted\":false}\n");
    for i in 0..n {
        let ns = if i % 2 == 0 { "" } else { "\"ns\":\"big\"," };
        let exp = if i % 3 == 0 {
            ",\"expires_at_ms\":99999999999999"
        } else {
            ""
        };
        jsonl.push_str(&format!(
            "{{{ns}\"key\":\"key:{i:07}\",\"value\":\"value {i} {}\"{exp}}}\n",
            "x".repeat(i % 50)
        ));
    }
    src.cmd(["import", "-"])
        .write_stdin(jsonl)
        .assert()
        .success()
        .stdout(predicate::str::starts_with(format!("imported {n} records")));
    let reference = dump(&src);
    assert_eq!(reference.len(), n);
    for format in ["jsonl", "csv", "resp"] {
        let file = src.file(&format!("big.{format}"));
        src.cmd(["export", "--format", format])
            .arg(&file)
            .assert()
            .success();
        let dst = TestDb::new();
        dst.cmd(["import", "--format", format])
            .arg(&file)
            .assert()
            .success();
        same_within(&dump(&dst), &reference);
    }
}

#[test]
fn export_refuses_to_overwrite_without_force() {
    let db = TestDb::new();
    db.put("a", "1");
    let out = db.file("dump.jsonl");
    std::fs::write(&out, "precious\n").unwrap();
    db.cmd(["export"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "exists; export does not overwrite it",
        ))
        .stderr(predicate::str::contains("--force"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious\n");
    db.cmd(["export", "--force"]).arg(&out).assert().success();
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("\"key\":\"a\""));
}

/// Exports to one new FILE at once, without `--force`: exactly one writes
/// it, the others exit 2 as an export onto an existing file does and
/// leave no temp file. Before, every one passed the "exists" check before
/// any had finished, each renamed its file over the last, and all exited
/// 0 with the file holding only one of them.
#[test]
fn concurrent_exports_to_one_new_file_never_overwrite() {
    let db = TestDb::new();
    db.cmd(["-q", "import", "-"])
        .write_stdin(common::records(100_000, 50))
        .assert()
        .success();
    common::race_to_one_new_file(
        &db,
        "export",
        &db.file("dump.jsonl"),
        "exists; export does not overwrite it",
        // One header and every record.
        |out| {
            assert_eq!(
                std::fs::read_to_string(out).unwrap().lines().count(),
                100_001
            )
        },
    );
}

/// `export --force`, `backup` and `sync --state-file` never write over the
/// database or a file beside it, however its path is spelled.
#[test]
fn outputs_onto_the_database_or_its_files_are_refused() {
    let db = TestDb::new();
    db.put("a", "1");
    db.cmd(["-n", "other", "put", "b", "2"]).assert().success();
    let before = std::fs::read(&db.path).unwrap();
    std::fs::create_dir(db.file("sub")).unwrap();
    std::os::unix::fs::symlink(&db.path, db.file("link.emdb")).unwrap();
    std::fs::hard_link(&db.path, db.file("hard.emdb")).unwrap();
    let spellings = [
        db.path.clone(),
        db.file("sub/../test.emdb"),
        db.file("link.emdb"),
        db.file("hard.emdb"),
        db.file("test.emdb.ckpt"),
        db.file("test.emdb.lock"),
        db.file("test.emdb.stats"),
        db.file("test.emdb.tail"),
        db.file("sub/../test.emdb.encbak"),
    ];
    for target in &spellings {
        db.cmd(["-n", "other", "export", "--force"])
            .arg(target)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("export never writes over it"));
        db.cmd(["backup"])
            .arg(target)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("the database"));
    }
    // Through a symlinked --db, the files beside the real database count.
    common::bare(db.dir.path())
        .arg("--db")
        .arg(db.file("link.emdb"))
        .args(["export", "--force"])
        .arg(db.file("test.emdb.stats"))
        .assert()
        .code(2);
    common::bare(db.dir.path())
        .arg("--db")
        .arg(&db.path)
        .args(["sync", "--to", "redis://127.0.0.1:1", "--state-file"])
        .arg(db.file("sub/../test.emdb"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "sync --state-file never writes over it",
        ));
    assert_eq!(std::fs::read(&db.path).unwrap(), before);
    db.cmd(["-n", "other", "get", "b"])
        .assert()
        .success()
        .stdout("2\n");
    // A name that only starts like the database's is an ordinary file.
    db.cmd(["export"])
        .arg(db.file("test.emdb.jsonl"))
        .assert()
        .success();
}
