//! put, get, del, exists, count, scan, and the global options.

mod common;

use common::{bare, text, TestDb};
use predicates::prelude::*;

#[test]
fn put_get_round_trip_and_missing_key() {
    let db = TestDb::new();
    db.put("user:1", "james");
    db.cmd(["get", "user:1"])
        .assert()
        .success()
        .stdout("james\n");
    db.cmd(["get", "user:2"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("emdb: key \"user:2\" not found\n");
    db.cmd(["--quiet", "get", "user:2"])
        .assert()
        .code(1)
        .stderr("");
}

#[test]
fn get_json_and_raw() {
    let db = TestDb::new();
    db.put("k", "v w");
    db.cmd(["get", "k", "--json"])
        .assert()
        .success()
        .stdout("{\"key\":\"k\",\"value\":\"v w\"}\n");
    db.cmd(["get", "k", "--raw"])
        .assert()
        .success()
        .stdout("v w");
}

#[test]
fn value_from_stdin_and_file_keeps_bytes_exactly() {
    let db = TestDb::new();
    let bytes: Vec<u8> = (0..=255).collect();
    db.cmd(["put", "bin", "-"])
        .write_stdin(bytes.clone())
        .assert()
        .success();
    let out = db.stdout(["get", "bin", "--raw"]);
    assert_eq!(out, bytes);
    let file = db.file("value.bin");
    std::fs::write(&file, b"line\n").unwrap();
    db.cmd(["put", "f", "--file"]).arg(&file).assert().success();
    db.cmd(["get", "f", "--raw"])
        .assert()
        .success()
        .stdout("line\n");
    db.cmd(["put", "f", "--file", "/nonexistent/file"])
        .assert()
        .code(6)
        .stderr(predicate::str::starts_with(
            "emdb: reading /nonexistent/file failed",
        ));
}

#[test]
fn binary_output_is_escaped_unless_raw() {
    let db = TestDb::new();
    db.cmd(["put", "esc", "-"])
        .write_stdin(&b"\x1b[31mred\x00\xff"[..])
        .assert()
        .success();
    db.cmd(["get", "esc"])
        .assert()
        .success()
        .stdout("\\x1b[31mred\\x00\\xff\n");
    db.cmd(["--hex", "get", "657363"])
        .assert()
        .success()
        .stdout("1b5b33316d72656400ff\n");
    db.cmd(["get", "esc", "--json"])
        .assert()
        .success()
        .stdout("{\"key\":\"esc\",\"value\":\"G1szMW1yZWQA/w==\",\"value_encoding\":\"base64\"}\n");
}

#[test]
fn every_encoding_combination_round_trips_through_arguments_and_stdin() {
    let db = TestDb::new();
    let key: Vec<u8> = b"k\x00\xff\n".to_vec();
    let value: Vec<u8> = (0..=255).rev().collect();
    let forms = |bytes: &[u8]| {
        use base64::Engine as _;
        [
            ("hex", hex(bytes)),
            (
                "base64",
                base64::engine::general_purpose::STANDARD.encode(bytes),
            ),
        ]
    };
    for (kf, k) in forms(&key) {
        for (vf, v) in forms(&value) {
            let fmt = ["--key-format", kf, "--value-format", vf];
            db.cmd(fmt).args(["put", &k, &v]).assert().success();
            db.cmd(fmt)
                .args(["get", &k])
                .assert()
                .success()
                .stdout(format!("{v}\n"));
            // Value from stdin in the same encoding, with echo's newline.
            db.cmd(fmt)
                .args(["put", &k, "-"])
                .write_stdin(format!("{v}\n"))
                .assert()
                .success();
            db.cmd(fmt)
                .args(["get", &k])
                .assert()
                .success()
                .stdout(format!("{v}\n"));
            let raw = db
                .cmd(fmt)
                .args(["get", &k, "--raw"])
                .output()
                .unwrap()
                .stdout;
            assert_eq!(raw, value, "{kf} {vf}");
        }
        // Text values with an encoded key.
        db.cmd(["--key-format", kf, "put", &k, "plain"])
            .assert()
            .success();
        db.cmd(["--key-format", kf, "get", &k])
            .assert()
            .success()
            .stdout("plain\n");
    }
    // Shorthands set both sides.
    db.cmd(["--hex", "put", "6869", "6869"]).assert().success();
    db.cmd(["get", "hi"]).assert().success().stdout("hi\n");
    db.cmd(["--base64", "get", "aGk="])
        .assert()
        .success()
        .stdout("aGk=\n");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn bad_hex_and_base64_exit_7() {
    let db = TestDb::new();
    db.cmd(["--hex", "put", "zz", "00"])
        .assert()
        .code(7)
        .stderr(predicate::str::contains("KEY: not valid hex"));
    db.cmd(["--value-format", "hex", "put", "k", "abc"])
        .assert()
        .code(7)
        .stderr(predicate::str::contains("VALUE: not valid hex: odd number"));
    db.cmd(["--base64", "put", "a", "!!!"])
        .assert()
        .code(7)
        .stderr(predicate::str::contains("not valid base64"));
    db.cmd(["--value-format", "base64", "put", "k", "-"])
        .write_stdin("@@@@")
        .assert()
        .code(7);
}

#[test]
fn del_keys_exit_1_when_one_is_missing() {
    let db = TestDb::new();
    db.put("a", "1");
    db.put("b", "2");
    db.cmd(["del", "a"])
        .assert()
        .success()
        .stdout("deleted 1 key\n");
    db.cmd(["del", "b", "nope"])
        .assert()
        .code(1)
        .stdout("deleted 1 key\n")
        .stderr("emdb: not found: \"nope\"\n");
    db.cmd(["count"]).assert().success().stdout("0\n");
    db.cmd(["del", "gone", "--json"])
        .assert()
        .code(1)
        .stdout("{\"deleted\":0,\"not_found\":1,\"dry_run\":false}\n");
}

#[test]
fn del_prefix_previews_and_needs_yes_off_a_terminal() {
    let db = TestDb::new();
    for i in 0..5 {
        db.put(&format!("tmp:{i}"), "x");
    }
    db.put("keep", "x");
    db.cmd(["del", "--prefix", "tmp:", "--dry-run"])
        .assert()
        .success()
        .stdout("would delete 5 keys with prefix \"tmp:\"\n");
    db.cmd(["del", "--prefix", "tmp:"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("refusing to delete 5 keys"))
        .stderr(predicate::str::contains("--yes"));
    db.cmd(["count"]).assert().success().stdout("6\n");
    db.cmd(["del", "--prefix", "tmp:", "--yes"])
        .assert()
        .success()
        .stdout("deleted 5 keys with prefix \"tmp:\"\n");
    db.cmd(["scan", "--keys-only"])
        .assert()
        .success()
        .stdout("keep\n");
    db.cmd(["del", "--prefix", "tmp:", "--yes", "--json"])
        .assert()
        .success()
        .stdout("{\"deleted\":0,\"not_found\":0,\"matched\":0,\"dry_run\":false}\n");
}

#[test]
fn exists_and_count() {
    let db = TestDb::new();
    db.put("a", "1");
    db.cmd(["exists", "a"])
        .assert()
        .success()
        .stdout("")
        .stderr("");
    db.cmd(["exists", "b"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("");
    db.cmd(["exists", "b", "--json"])
        .assert()
        .code(1)
        .stdout("{\"key\":\"b\",\"exists\":false}\n");
    db.cmd(["count", "--json"])
        .assert()
        .success()
        .stdout("{\"count\":1}\n");
}

#[test]
fn scan_is_sorted_and_filtered() {
    let db = TestDb::new();
    let lines: String = [
        "user:2\tb",
        "user:10\tc",
        "user:1\ta",
        "item:1\tz",
        "zeta\tq",
    ]
    .iter()
    .map(|l| {
        let (k, v) = l.split_once('\t').unwrap();
        format!("put {k} {v}\n")
    })
    .collect();
    db.cmd(["shell"]).write_stdin(lines).assert().success();
    db.cmd(["scan"])
        .assert()
        .success()
        .stdout("item:1\tz\nuser:1\ta\nuser:10\tc\nuser:2\tb\nzeta\tq\n");
    db.cmd(["scan", "--prefix", "user:", "--keys-only"])
        .assert()
        .success()
        .stdout("user:1\nuser:10\nuser:2\n");
    db.cmd(["scan", "--from", "user:10", "--to", "zeta", "--keys-only"])
        .assert()
        .success()
        .stdout("user:10\nuser:2\n");
    db.cmd(["scan", "--glob", "*:1*", "--keys-only", "--limit", "2"])
        .assert()
        .success()
        .stdout("item:1\nuser:1\n");
    db.cmd(["scan", "--glob", "user:?", "--json"])
        .assert()
        .success()
        .stdout("{\"key\":\"user:1\",\"value\":\"a\"}\n{\"key\":\"user:2\",\"value\":\"b\"}\n");
    db.cmd(["scan", "--glob", "[bad"]).assert().code(7);
}

/// A glob is text matched against the key's bytes; with keys in hex or
/// base64 it is refused (exit 2) rather than silently matching nothing.
#[test]
fn scan_glob_needs_text_keys() {
    let db = TestDb::new();
    db.cmd(["--hex", "put", "696e76ff", "00"])
        .assert()
        .success();
    db.put("inv", "x");
    for options in [
        vec!["--hex"],
        vec!["--base64"],
        vec!["--key-format", "hex"],
        vec!["--key-format", "base64"],
    ] {
        db.cmd(&options)
            .args(["scan", "--glob", "696e*"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains("--glob"))
            .stderr(predicate::str::contains("text"));
    }
    // Values in another encoding are fine: the glob is about keys.
    db.cmd(["--value-format", "hex", "scan", "--glob", "in*"])
        .assert()
        .success()
        .stdout("inv\t78\ninv\\xff\t00\n");
    db.cmd([
        "--key-format",
        "text",
        "--hex",
        "scan",
        "--glob",
        "inv",
        "--keys-only",
    ])
    .assert()
    .success()
    .stdout("inv\n");
    db.cmd(["shell"])
        .write_stdin("--hex scan --glob 'in*'\n")
        .assert()
        .code(2);
}

#[test]
fn scan_escapes_line_breaks_in_text() {
    let db = TestDb::new();
    db.put("multi", "one\ntwo\tthree");
    db.cmd(["scan"])
        .assert()
        .success()
        .stdout("multi\tone\\ntwo\\tthree\n");
    db.cmd(["get", "multi"])
        .assert()
        .success()
        .stdout("one\ntwo\tthree\n");
}

#[test]
fn emdb_path_env_and_default_database() {
    let db = TestDb::new();
    let env_db = db.file("from-env.emdb");
    bare(db.dir.path())
        .env("EMDB_PATH", &env_db)
        .args(["put", "k", "env"])
        .assert()
        .success();
    assert!(env_db.exists());
    // No --db, no EMDB_PATH: the platform default under XDG_DATA_HOME.
    bare(db.dir.path())
        .args(["put", "k", "default"])
        .assert()
        .success();
    let default = db.dir.path().join("data/emdb/emdb-default.emdb");
    assert!(default.exists(), "{}", default.display());
    bare(db.dir.path())
        .args(["get", "k"])
        .assert()
        .success()
        .stdout("default\n");
    // --db wins over EMDB_PATH.
    db.put("k", "flag");
    bare(db.dir.path())
        .env("EMDB_PATH", &env_db)
        .arg("--db")
        .arg(&db.path)
        .args(["get", "k"])
        .assert()
        .success()
        .stdout("flag\n");
}

#[test]
fn reading_a_missing_database_is_an_io_error() {
    let db = TestDb::new();
    db.cmd(["get", "k"])
        .assert()
        .code(6)
        .stderr(predicate::str::contains("no database at"));
    assert!(!db.path.exists(), "reading must not create the database");
}

#[test]
fn read_only_refuses_writes() {
    let db = TestDb::new();
    db.put("a", "1");
    db.cmd(["--read-only", "put", "a", "2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--read-only"));
    db.cmd(["--read-only", "get", "a"])
        .assert()
        .success()
        .stdout("1\n");
}

#[test]
fn usage_errors_exit_2_and_help_and_version_exit_0() {
    let db = TestDb::new();
    db.cmd(["frobnicate"]).assert().code(2);
    db.cmd(["put", "only-key"]).assert().code(2);
    db.cmd(["--lock-timeout", "soon", "count"]).assert().code(2);
    db.cmd(["--hex", "--base64", "count"]).assert().code(2);
    let help = db.stdout(["--help"]);
    assert!(text(&help).contains("Examples:"));
    assert!(text(&help).contains("Exit codes:"));
    // Every documented code, the last ones included.
    let summary = text(&help);
    let summary = summary.split("Exit codes:").nth(1).unwrap();
    let summary = summary.split_whitespace().collect::<Vec<_>>().join(" ");
    for code in [
        "0 ok",
        "1 not found",
        "2 usage",
        "3 locked",
        "4 corrupt",
        "5 wrong key",
        "6 I/O",
        "7 bad input",
        "8 leftover backup",
        "9 sync target down",
        "130 interrupted",
    ] {
        assert!(summary.contains(code), "{code:?} missing from: {summary}");
    }
    db.cmd(["--version"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("emdb "));
}

#[test]
fn broken_pipe_exits_quietly() {
    let db = TestDb::new();
    let lines: String = (0..20_000)
        .map(|i| format!("put key{i:05} value\n"))
        .collect();
    db.cmd(["shell"]).write_stdin(lines).assert().success();
    // `emdb scan | head -1`: the shell closes the pipe early.
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' --db '{}' scan | head -n 1; echo \"rc=${{PIPESTATUS[0]}}\"",
            assert_cmd::cargo::cargo_bin("emdb").display(),
            db.path.display()
        ))
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "key00000\tvalue\nrc=0\n");
    assert_eq!(text(&out.stderr), "", "no error or panic on a broken pipe");
}

#[test]
fn del_prefix_asks_for_confirmation_on_a_terminal() {
    let db = TestDb::new();
    db.put("tmp:1", "x");
    db.put("tmp:2", "x");
    let Some((code, screen)) = common::on_terminal(&db, "del --prefix tmp:", "n\n") else {
        return;
    };
    assert_eq!(code, 2, "{screen}");
    assert!(
        screen.contains("delete 2 keys with prefix \"tmp:\"? [y/N]"),
        "{screen}"
    );
    db.cmd(["count"]).assert().success().stdout("2\n");
    let Some((code, screen)) = common::on_terminal(&db, "del --prefix tmp:", "y\n") else {
        return;
    };
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("deleted 2 keys"), "{screen}");
    db.cmd(["count"]).assert().success().stdout("0\n");
}

/// Negative numbers are values: `put n -5`, `--if-value -5`; `--` still
/// ends the options.
#[test]
fn negative_numbers_are_values() {
    let db = TestDb::new();
    db.cmd(["put", "n", "-5"]).assert().success();
    db.cmd(["get", "n"]).assert().success().stdout("-5\n");
    db.cmd(["put", "n", "-4", "--if-value", "-5"])
        .assert()
        .success();
    db.cmd(["get", "n"]).assert().success().stdout("-4\n");
    db.cmd(["put", "n", "7", "--if-value", "-x"])
        .assert()
        .code(1);
    db.cmd(["put", "--", "-k", "-x"]).assert().success();
    db.cmd(["get", "--", "-k"])
        .assert()
        .success()
        .stdout("-x\n");
    db.cmd(["incr", "n", "--by", "-6"])
        .assert()
        .success()
        .stdout("-10\n");
    // Other words starting with `-` are still options.
    db.cmd(["put", "n", "-q"]).assert().code(2);
    db.cmd(["shell"])
        .write_stdin("put m -3\nget m\n")
        .assert()
        .success()
        .stdout("-3\n");
}

/// `incr` and `decr` take only what Redis's INCR takes: an optional `-`
/// and digits, without leading zeros (`0` itself aside), `-0`, `+` or
/// spaces; anything else is exit 7 and the value is left alone. `--by`
/// is read the same way (a bad one is a usage error).
#[test]
fn incr_takes_only_canonical_integers() {
    let db = TestDb::new();
    for stored in [
        "+5", "05", "-0", "00", "-05", " 5", "5 ", "5\n", "", "-", "1e3", "0x10", "1_000", "٣",
    ] {
        db.cmd(["put", "q", "-"])
            .write_stdin(stored)
            .assert()
            .success();
        for cmd in ["incr", "decr"] {
            db.cmd([cmd, "q"])
                .assert()
                .code(7)
                .stdout("")
                .stderr(predicate::str::contains("not a decimal integer"));
        }
        db.cmd(["get", "q", "--raw"])
            .assert()
            .success()
            .stdout(stored);
    }
    for (stored, next) in [
        ("0", "1"),
        ("-1", "0"),
        ("9", "10"),
        ("-9223372036854775808", "-9223372036854775807"),
    ] {
        db.put("q", stored);
        db.cmd(["incr", "q"])
            .assert()
            .success()
            .stdout(format!("{next}\n"));
    }
    for by in ["+5", "05", "-0", " 5", "5x", ""] {
        db.cmd(["incr", "q", "--by", by]).assert().code(2);
    }
    db.put("q", "0");
    db.cmd(["incr", "q", "--by", "-10"])
        .assert()
        .success()
        .stdout("-10\n");
    db.cmd(["decr", "q", "--by", "0"])
        .assert()
        .success()
        .stdout("-10\n");
}

/// `put --file` of a file over the value limit is refused from its size,
/// without reading it (a sparse file: reading it would take 300 MB).
#[test]
fn put_file_over_the_value_limit_is_refused_before_reading_it() {
    let db = TestDb::new();
    let big = db.file("big");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(300 << 20).unwrap();
    drop(f);
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "maxrss_kb=%M"])
        .arg(assert_cmd::cargo::cargo_bin("emdb"))
        .arg("--db")
        .arg(&db.path)
        .args(["put", "k", "--file"])
        .arg(&big)
        .env("HOME", db.dir.path())
        .env("XDG_DATA_HOME", db.dir.path().join("data"))
        .env_remove("EMDB_PATH")
        .output();
    let out = match out {
        Ok(out) => out,
        Err(_) => {
            eprintln!("skipped the memory check: /usr/bin/time is not installed");
            db.cmd(["put", "k", "--file"])
                .arg(&big)
                .assert()
                .code(7)
                .stderr(predicate::str::contains("too long for a value"));
            return;
        }
    };
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("314572800 bytes: too long for a value"),
        "{stderr}"
    );
    let rss: u64 = stderr
        .split("maxrss_kb=")
        .nth(1)
        .and_then(|s| s.trim().parse().ok())
        .unwrap();
    assert!(rss < 100_000, "{rss} KB resident: the file was read");
    // From a pipe (no size to look at), reading stops past the limit.
    db.cmd(["put", "k", "--file", "/dev/zero"])
        .assert()
        .code(7)
        .stderr(predicate::str::contains("holds more than 268435456 bytes"));
    assert!(!db.path.exists());
}

/// `incr` whose answer cannot be printed (stdout on a full device) has
/// changed the value already: the error says so, and that running it again
/// would change it again. It said only that writing to stdout failed, and
/// a script that retried counted twice (QA).
#[test]
fn an_incr_that_cannot_print_says_the_value_changed() {
    let db = TestDb::new();
    db.put("n", "41");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = common::child(&db, ["incr", "n"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the value was changed to 42"), "{err}");
    db.cmd(["get", "n"]).assert().success().stdout("42\n");
}
