//! emdb shell.

mod common;

use common::{text, TestDb};
use predicates::prelude::*;

#[test]
fn runs_many_commands_in_one_process() {
    let db = TestDb::new();
    let script = "\
# a comment, then a blank line

put a 1
put 'key with spaces' \"two words\"
--hex put 00ff 0102
get a
get 'key with spaces'
--json get a
count
scan --keys-only --prefix key
del a
exists a
quit
get never-reached
";
    db.cmd(["shell"])
        .write_stdin(script)
        .assert()
        .code(1) // `exists a` after deleting it
        .stdout(
            "1\ntwo words\n{\"key\":\"a\",\"value\":\"1\"}\n3\nkey with spaces\ndeleted 1 key\n",
        )
        .stderr("");
    db.cmd(["--hex", "get", "00ff"])
        .assert()
        .success()
        .stdout("0102\n");
}

#[test]
fn errors_do_not_stop_the_loop_and_set_the_exit_code() {
    let db = TestDb::new();
    db.cmd(["shell"])
        .write_stdin("put a 1\nbogus\nget missing\nput 'unbalanced\n--hex get zz\nget a\n")
        .assert()
        .code(2) // the first failure: an unknown command
        .stdout("1\n")
        .stderr(predicate::str::contains(
            "emdb: line 2: unrecognized subcommand 'bogus'",
        ))
        .stderr(predicate::str::contains(
            "emdb: line 3: key \"missing\" not found",
        ))
        .stderr(predicate::str::contains("emdb: line 4: unbalanced quotes"))
        .stderr(predicate::str::contains("emdb: line 5: KEY: not valid hex"));
}

#[test]
fn stdin_is_the_command_stream() {
    let db = TestDb::new();
    db.cmd(["shell"])
        .write_stdin("put a -\nimport -\nshell\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "line 1: VALUE `-` (stdin) is not available",
        ))
        .stderr(predicate::str::contains("line 2: `import -` (stdin)"))
        .stderr(predicate::str::contains(
            "line 3: `shell` cannot run inside",
        ));
}

#[test]
fn help_inside_the_shell_goes_to_stdout() {
    let db = TestDb::new();
    let out = db
        .cmd(["shell"])
        .write_stdin("help\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(text(&out).contains("Commands:"));
}

#[test]
fn read_only_shell_refuses_writes() {
    let db = TestDb::new();
    db.put("a", "1");
    db.cmd(["--read-only", "shell"])
        .write_stdin("get a\nput a 2\n")
        .assert()
        .code(2)
        .stdout("1\n")
        .stderr(predicate::str::contains("--read-only"));
}

#[test]
fn shell_writes_are_durable_after_exit() {
    let db = TestDb::new();
    let lines: String = (0..1000).map(|i| format!("put k{i} v{i}\n")).collect();
    db.cmd(["shell"]).write_stdin(lines).assert().success();
    db.cmd(["count"]).assert().success().stdout("1000\n");
    db.cmd(["get", "k999"]).assert().success().stdout("v999\n");
}
