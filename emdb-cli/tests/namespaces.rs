//! -n/--namespace on every data command, `ns list`, `ns drop`.

// Test helpers: a failure here should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{text, TestDb};
use predicates::prelude::*;

#[test]
fn data_commands_work_in_the_chosen_namespace() {
    let db = TestDb::new();
    db.put("k", "default");
    db.cmd(["-n", "users", "put", "k", "in users"])
        .assert()
        .success();
    db.cmd(["--namespace", "users", "put", "u:2", "x"])
        .assert()
        .success();
    db.cmd(["get", "k"]).assert().success().stdout("default\n");
    db.cmd(["-n", "users", "get", "k"])
        .assert()
        .success()
        .stdout("in users\n");
    // The option may come after the command too.
    db.cmd(["get", "k", "-n", "users"])
        .assert()
        .success()
        .stdout("in users\n");
    db.cmd(["count"]).assert().success().stdout("1\n");
    db.cmd(["-n", "users", "count"])
        .assert()
        .success()
        .stdout("2\n");
    db.cmd(["-n", "users", "exists", "u:2"]).assert().success();
    db.cmd(["exists", "u:2"]).assert().code(1);
    db.cmd(["-n", "users", "scan"])
        .assert()
        .success()
        .stdout("k\tin users\nu:2\tx\n");
    db.cmd(["-n", "users", "scan", "--limit", "1", "--keys-only"])
        .assert()
        .success()
        .stdout("k\n");
    db.cmd(["-n", "users", "del", "k"]).assert().success();
    db.cmd(["get", "k"]).assert().success().stdout("default\n");
    db.cmd(["-n", "users", "del", "--prefix", "u:", "--yes"])
        .assert()
        .success()
        .stdout("deleted 1 key with prefix \"u:\"\n");
    db.cmd(["-n", "users", "count"])
        .assert()
        .success()
        .stdout("0\n");
    // `-n ''` is the default namespace.
    db.cmd(["-n", "", "get", "k"])
        .assert()
        .success()
        .stdout("default\n");
}

#[test]
fn unknown_namespace_is_not_found_for_reads_and_removals() {
    let db = TestDb::new();
    db.put("k", "v");
    for args in [
        vec!["get", "k"],
        vec!["exists", "k"],
        vec!["count"],
        vec!["scan"],
        vec!["ttl", "k"],
        vec!["del", "k"],
        vec!["expire", "k", "10s"],
        vec!["persist", "k"],
        vec!["export"],
    ] {
        db.cmd(["-n", "nope"])
            .args(&args)
            .assert()
            .code(1)
            .stderr(predicate::str::starts_with(
                "emdb: namespace \"nope\" does not exist\n",
            ))
            .stderr(predicate::str::contains("emdb ns list"));
    }
    // Nothing above created it.
    db.cmd(["ns", "list"]).assert().success().stdout("");
    // A name over the limit is a usage error.
    let long = "n".repeat(emdb_core::MAX_NAMESPACE_NAME_LEN + 1);
    db.cmd(["-n", &long, "put", "k", "v"]).assert().code(2);
}

#[test]
fn ns_list_and_drop() {
    let db = TestDb::new();
    db.put("k", "v");
    db.cmd(["-n", "b", "put", "1", "x"]).assert().success();
    db.cmd(["-n", "b", "put", "2", "x"]).assert().success();
    db.cmd(["-n", "a", "put", "1", "x"]).assert().success();
    db.cmd(["ns", "list"])
        .assert()
        .success()
        .stdout("a\t1\nb\t2\n");
    db.cmd(["ns", "list", "--json"])
        .assert()
        .success()
        .stdout("{\"name\":\"a\",\"keys\":1}\n{\"name\":\"b\",\"keys\":2}\n");
    // Not on a terminal: refuses without --yes.
    db.cmd(["ns", "drop", "b"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "refusing to drop namespace \"b\" with 2 keys without confirmation",
        ));
    db.cmd(["ns", "drop", "b", "--yes"])
        .assert()
        .success()
        .stdout("dropped namespace \"b\" with 2 keys\n");
    db.cmd(["ns", "list"]).assert().success().stdout("a\t1\n");
    db.cmd(["-n", "b", "get", "1"]).assert().code(1);
    db.cmd(["ns", "drop", "b", "--yes"]).assert().code(1);
    db.cmd(["ns", "drop", "", "--yes"]).assert().code(2);
    db.cmd(["get", "k"]).assert().success().stdout("v\n");
    let stats: serde_json::Value = serde_json::from_slice(&db.stdout(["stats", "--json"])).unwrap();
    assert_eq!(stats["namespaces"][1]["name"], "a");
}

/// Names are escaped in text output as keys are (one record per line, no
/// control byte on the terminal), and `stats` lists them sorted by name.
#[test]
fn namespace_names_are_escaped_in_text_and_sorted() {
    let db = TestDb::new();
    for name in ["new\nline", "a\tb", "\x01c", "back\\slash"] {
        db.cmd(["-n", name, "put", "k", "v"]).assert().success();
    }
    db.cmd(["ns", "list"])
        .assert()
        .success()
        .stdout("\\x01c\t1\na\\tb\t1\nback\\\\slash\t1\nnew\\nline\t1\n");
    let stats = text(&db.stdout(["stats"]));
    let listed: Vec<&str> = stats
        .lines()
        .filter(|l| l.starts_with("  namespace "))
        .collect();
    assert_eq!(
        listed,
        [
            "  namespace (default): 0 keys",
            "  namespace \\x01c: 1 keys",
            "  namespace a\\tb: 1 keys",
            "  namespace back\\\\slash: 1 keys",
            "  namespace new\\nline: 1 keys",
        ],
        "{stats}"
    );
    // JSON keeps the exact names (JSON escapes them), in the same order.
    let json: serde_json::Value = serde_json::from_slice(&db.stdout(["stats", "--json"])).unwrap();
    let names: Vec<&str> = json["namespaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["", "\x01c", "a\tb", "back\\slash", "new\nline"]);
    // Label values: the names as `ns list` shows them, then escaped for
    // the exposition format (each backslash doubled).
    let prometheus = text(&db.stdout(["stats", "--format", "prometheus"]));
    let a = prometheus.find(r#"namespace="a\\tb""#).unwrap();
    let n = prometheus.find("namespace=\"new\\\\nline\"").unwrap();
    assert!(a < n, "{prometheus}");
    assert!(
        prometheus.contains("namespace=\"back\\\\\\\\slash\""),
        "{prometheus}"
    );
    assert!(
        prometheus.contains("namespace=\"\\\\x01c\""),
        "{prometheus}"
    );
}

/// A namespace name holding terminal commands reaches no terminal through
/// `stats --format prometheus` (QA: the label value was written raw).
#[test]
fn prometheus_labels_escape_terminal_commands_in_names() {
    let db = TestDb::new();
    db.cmd(["-n", "x\x1b]0;PWNED\x07\x1b[2J", "put", "k", "v"])
        .assert()
        .success();
    db.cmd(["-n", "q\"uote\u{202e}", "put", "k", "v"])
        .assert()
        .success();
    let prometheus = text(&db.stdout(["stats", "--format", "prometheus"]));
    assert!(
        !prometheus.contains(|c: char| c.is_control() && c != '\n'),
        "{prometheus:?}"
    );
    assert!(
        prometheus
            .contains("emdb_namespace_keys{namespace=\"x\\\\x1b]0;PWNED\\\\x07\\\\x1b[2J\"} 1\n"),
        "{prometheus}"
    );
    assert!(
        prometheus.contains("emdb_namespace_keys{namespace=\"q\\\"uote\\\\u{202e}\"} 1\n"),
        "{prometheus}"
    );
}

/// A namespace that does not exist is named as `ns list` would show it,
/// not in Rust's debug form (QA: `"y\u{1b}[2J"`).
#[test]
fn a_missing_namespace_is_named_escaped_as_in_listings() {
    let db = TestDb::new();
    db.put("k", "v");
    db.cmd(["-n", "y\x1b[2J", "get", "k"])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with(
            "emdb: namespace \"y\\x1b[2J\" does not exist\n",
        ));
    db.cmd(["ns", "drop", "--yes", "b\\s\u{200d}"])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with(
            "emdb: namespace \"b\\\\s\\u{200d}\" does not exist\n",
        ));
    // ns drop names it the same way when it asks.
    db.cmd(["-n", "t\x1b[1m", "put", "k", "v"])
        .assert()
        .success();
    db.cmd(["ns", "drop", "t\x1b[1m"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "refusing to drop namespace \"t\\x1b[1m\" with 1 key",
        ));
}

/// `-q` hides only a missing key: a namespace that does not exist is an
/// error of the invocation, so it prints even then (a typo never reads as
/// empty).
#[test]
fn quiet_still_reports_a_namespace_that_does_not_exist() {
    let db = TestDb::new();
    db.put("k", "v");
    for args in [
        vec!["get", "k"],
        vec!["exists", "k"],
        vec!["count"],
        vec!["scan"],
        vec!["ttl", "k"],
        vec!["del", "k"],
        vec!["expire", "k", "10s"],
        vec!["persist", "k"],
        vec!["ns", "drop", "sesions", "--yes"],
    ] {
        db.cmd(["-q", "-n", "sesions"])
            .args(&args)
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::starts_with(
                "emdb: namespace \"sesions\" does not exist\n",
            ));
    }
    // The same in the shell, where `-q` may be the shell's or the line's.
    db.cmd(["-q", "shell"])
        .write_stdin("-n sesions count\n-n sesions -q get k\nget nope\n")
        .assert()
        .code(1)
        .stderr(
            "emdb: line 1: namespace \"sesions\" does not exist\n  \
             hint: `emdb ns list` shows the namespaces; writing commands such as `put` create one\n\
             emdb: line 2: namespace \"sesions\" does not exist\n  \
             hint: `emdb ns list` shows the namespaces; writing commands such as `put` create one\n",
        );
    // A missing key stays silent under -q.
    db.cmd(["-q", "get", "nope"]).assert().code(1).stderr("");
}

#[test]
fn ns_drop_asks_on_a_terminal() {
    let db = TestDb::new();
    db.cmd(["-n", "s", "put", "1", "x"]).assert().success();
    let Some((code, screen)) = common::on_terminal(&db, "ns drop s", "n\n") else {
        return;
    };
    assert_eq!(code, 2, "{screen}");
    assert!(
        screen.contains("drop namespace \"s\" with 1 key? [y/N]"),
        "{screen}"
    );
    db.cmd(["ns", "list"]).assert().success().stdout("s\t1\n");
    let Some((code, _)) = common::on_terminal(&db, "ns drop s", "y\n") else {
        return;
    };
    assert_eq!(code, 0);
    db.cmd(["ns", "list"]).assert().success().stdout("");
}

#[test]
fn shell_lines_take_their_own_namespace() {
    let db = TestDb::new();
    let out = db
        .cmd(["-n", "top", "shell"])
        .write_stdin("put a 1\n-n other put a 2\nget a\nget a -n other\ncount -n ''\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(text(&out), "1\n2\n0\n");
    db.cmd(["-n", "top", "get", "a"])
        .assert()
        .success()
        .stdout("1\n");
}
