//! emdb shell.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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
        .stderr("lines: 13, errors: 1\n");
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

#[test]
fn batch_mode_commits_in_units_reports_per_line_and_sums_up() {
    let db = TestDb::new();
    // 25,000 puts: several atomic units of 10,000, then reads that must see
    // every one of them, an error in the middle, and a flush line.
    let mut script: String = (0..25_000).map(|i| format!("put k{i} v{i}\n")).collect();
    script.push_str("get k0\nget k24999\nget nope\nflush\n--hex put zz 00\nput k1 again\nget k1\n");
    db.cmd(["shell"])
        .write_stdin(script)
        .assert()
        .code(1)
        .stdout("v0\nv24999\nagain\n")
        .stderr(predicate::str::contains(
            "emdb: line 25003: key \"nope\" not found",
        ))
        .stderr(predicate::str::contains(
            "emdb: line 25005: KEY: not valid hex",
        ))
        .stderr(predicate::str::ends_with("lines: 25007, errors: 2\n"));
    db.cmd(["count"]).assert().success().stdout("25000\n");
    db.cmd(["get", "k1"]).assert().success().stdout("again\n");
    // Quiet drops the summary; a line that puts into a namespace of its own
    // goes through the full parser and sees the earlier puts committed.
    db.cmd(["-q", "shell"])
        .write_stdin("put x 1\n-n other put y 2\n-n other get y\nget x\n")
        .assert()
        .success()
        .stdout("2\n1\n")
        .stderr("");
    db.cmd(["-n", "other", "get", "y"])
        .assert()
        .success()
        .stdout("2\n");
}

#[test]
fn batch_mode_in_a_namespace_and_in_hex() {
    let db = TestDb::new();
    db.cmd(["-n", "ns1", "--hex", "shell"])
        .write_stdin("put 6b 7631\nget 6b\nget 00\n")
        .assert()
        .code(1)
        .stdout("7631\n");
    db.cmd(["-n", "ns1", "get", "k"])
        .assert()
        .success()
        .stdout("v1\n");
    // A read of a namespace that does not exist does not create it.
    db.cmd(["-n", "ghost", "shell"])
        .write_stdin("get a\n")
        .assert()
        .code(1);
    db.cmd(["ns", "list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("ghost").not());
}

/// A batch `get` that fails because its namespace does not exist yet
/// leaves nothing queued: once a `put` creates the namespace, the next
/// `get` answers for its own key, not the failed line's.
#[test]
fn a_get_before_its_namespace_exists_does_not_shift_later_answers() {
    let db = TestDb::new();
    db.put("z", "0");
    db.cmd(["-n", "fresh", "shell"])
        .write_stdin("get x\nput y 1\nget y\n")
        .assert()
        .code(1)
        .stdout("1\n")
        .stderr(predicate::str::contains(
            "line 1: namespace \"fresh\" does not exist",
        ))
        .stderr(predicate::str::contains("line 3").not());
}

#[test]
fn interactive_shell_edits_lines_and_keeps_history() {
    let db = TestDb::new();
    db.put("a", "1");
    // Type a line, then recall it with the up arrow and run it again.
    let Some((code, screen)) =
        common::on_terminal_with(&db, "shell", &["get a\r", "\x1b[A\r", "quit\r"])
    else {
        return;
    };
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("emdb> "), "{screen}");
    assert!(screen.matches("1\r\n").count() >= 2, "{screen}");
    let history = db.dir.path().join("data/emdb/shell_history");
    let history = std::fs::read_to_string(&history).unwrap();
    assert!(history.contains("get a"), "{history}");
}

/// Gets are read ahead of their answers (to overlap their lookups): the
/// answers, the errors and the effects of puts still come in line order.
#[test]
fn read_ahead_gets_answer_in_line_order() {
    let db = TestDb::new();
    let mut script = String::new();
    let mut expected = String::new();
    for i in 0..40 {
        script.push_str(&format!("put k{i} v{i}\n"));
    }
    // Line 41 on: 40 gets, every seventh of a missing key, so errors fall
    // inside runs of queued gets.
    for i in 0..40 {
        let line = 41 + i;
        if i % 7 == 3 {
            script.push_str(&format!("get missing{i}\n"));
            expected.push_str(&format!(
                "emdb: line {line}: key \"missing{i}\" not found\n"
            ));
        } else {
            script.push_str(&format!("get k{i}\n"));
            expected.push_str(&format!("v{i}\n"));
        }
    }
    // A get queued before a put does not see it; one after does.
    script.push_str("get late\nput late 1\nget late\nput k0 changed\nget k0\ncount\n");
    expected.push_str("emdb: line 81: key \"late\" not found\n1\nchanged\n41\n");
    expected.push_str("lines: 86, errors: 7\n");

    // stdout and stderr into one file, to see their order.
    let out_path = db.file("out.txt");
    let out = std::fs::File::create(&out_path).unwrap();
    let status = std::process::Command::new(assert_cmd::cargo::cargo_bin("emdb"))
        .env("HOME", db.dir.path())
        .env("XDG_DATA_HOME", db.dir.path())
        .arg("--db")
        .arg(&db.path)
        .arg("shell")
        .stdin(std::process::Stdio::piped())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(script.as_bytes())?;
            child.wait()
        })
        .unwrap();
    assert_eq!(status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&out_path).unwrap(), expected);
}

/// `emdb --db DB shell` (through `sh -c PRELUDE; exec ...` when `prelude`
/// is given) with its three streams piped, and each output stream's lines
/// delivered on a channel as they come: a producer that talks to the shell
/// line by line, as a coprocess does.
struct Coprocess {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    out: std::sync::mpsc::Receiver<String>,
    err: std::sync::mpsc::Receiver<String>,
}

impl Coprocess {
    fn start(db: &TestDb, prelude: Option<&str>) -> Coprocess {
        use std::process::{Command, Stdio};
        let emdb = assert_cmd::cargo::cargo_bin("emdb");
        let mut cmd = match prelude {
            None => Command::new(&emdb),
            Some(p) => {
                let mut c = Command::new("sh");
                c.arg("-c")
                    .arg(format!("{p}; exec \"$0\" \"$@\""))
                    .arg(&emdb);
                c
            }
        };
        let mut child = cmd
            .arg("--db")
            .arg(&db.path)
            .arg("shell")
            .env_remove("EMDB_PATH")
            .env_remove("EMDB_PASSPHRASE")
            .env_remove("EMDB_KEY_FILE")
            .env("HOME", db.dir.path())
            .env("XDG_DATA_HOME", db.dir.path().join("data"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = lines(child.stdout.take().unwrap());
        let err = lines(child.stderr.take().unwrap());
        let stdin = child.stdin.take();
        Coprocess {
            child,
            stdin,
            out,
            err,
        }
    }

    /// Send `bytes` now (a write error is ignored: a test that cares
    /// looks at what the shell printed).
    fn send(&mut self, bytes: &[u8]) {
        use std::io::Write;
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin.write_all(bytes);
            let _ = stdin.flush();
        }
    }

    /// The next line of stdout, waiting at most 20 s.
    fn answer(&self, what: &str) -> String {
        next_line(&self.out, what)
    }

    /// The next line of stderr, waiting at most 20 s.
    fn error(&self, what: &str) -> String {
        next_line(&self.err, what)
    }

    /// Close stdin and wait for the exit; the rest of stderr.
    fn finish(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let rest: Vec<String> = self.err.iter().collect();
        (status, rest.join("\n"))
    }
}

fn lines(from: impl std::io::Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(from).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    rx
}

fn next_line(rx: &std::sync::mpsc::Receiver<String>, what: &str) -> String {
    rx.recv_timeout(std::time::Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("no {what} while the pipe is open"))
}

/// A producer that waits for each answer (a coprocess) gets it while its
/// pipe stays open, and its puts are visible to other processes before it
/// sends more: the shell answers and commits what it has read before it
/// waits for the next line. (It used to hold answers until 16 gets had
/// queued and puts until 10,000 had: a coprocess waited forever.)
#[test]
fn a_producer_that_waits_gets_its_answers_and_its_puts_land() {
    let db = TestDb::new();
    db.put("greeting", "hello");
    let mut shell = Coprocess::start(&db, None);
    shell.send(b"get greeting\n");
    assert_eq!(shell.answer("answer to get greeting"), "hello");
    shell.send(b"put k1 v1\nput k2 v2\n");
    // Another process sees both puts while the shell still holds the pipe.
    common::wait_until(20, "the puts to commit while the pipe is open", || {
        let out = db.cmd(["get", "k2"]).output().unwrap();
        out.status.success() && {
            assert_eq!(text(&out.stdout), "v2\n");
            true
        }
    });
    shell.send(b"get k1\n");
    assert_eq!(shell.answer("answer to get k1"), "v1");
    let (status, err) = shell.finish();
    assert!(status.success());
    assert_eq!(err, "lines: 4, errors: 0");
}

/// A unit of puts that fails to commit while the shell waits for the next
/// line of a pipe (here the file may not grow: `ulimit -f`, with SIGXFSZ
/// ignored so the write fails with EFBIG) is one failing line, as it is
/// from a file: reported with its line number and counted, and the lines
/// after it still run. It used to end the shell at once, without a line
/// number or the summary, and the rest of the pipe went unread.
#[test]
fn a_commit_that_fails_while_the_pipe_waits_is_reported_and_the_shell_goes_on() {
    let db = TestDb::new();
    db.put("greeting", "hello");
    let mut shell = Coprocess::start(&db, Some("trap '' XFSZ; ulimit -f 16"));
    // Far more than the file may grow by.
    let big = "v".repeat(1 << 20);
    shell.send(format!("put big {big}\n").as_bytes());
    let failed = shell.error("report of the failed commit");
    assert!(failed.starts_with("emdb: line 1: "), "{failed}");
    let hint = shell.error("the hint of the failed commit");
    assert!(
        hint.starts_with("  hint: the process's file size limit"),
        "{hint}"
    );
    shell.send(b"get greeting\n");
    assert_eq!(shell.answer("answer to the get after it"), "hello");
    let (status, err) = shell.finish();
    assert_eq!(err, "lines: 2, errors: 1");
    assert!(!status.success());
}

/// In one batch read at once, a `get` after puts that could not be
/// committed still answers (`null` with `--json`): the failure is
/// reported at the put's line. The `get` printed nothing and took the
/// failure as its own, so a reader of one answer per `get` fell out of
/// step.
#[test]
fn a_get_after_puts_that_failed_to_commit_still_answers() {
    let db = TestDb::new();
    db.put("greeting", "hello");
    let big = "v".repeat(1 << 20);
    let input = db.file("batch.txt");
    std::fs::write(
        &input,
        format!("put big {big}\nget --json big\nget --json greeting\n"),
    )
    .unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 16; exec \"$0\" --db \"$1\" shell < \"$2\"")
        .arg(assert_cmd::cargo::cargo_bin("emdb"))
        .arg(&db.path)
        .arg(&input)
        .env("HOME", db.dir.path())
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(
        text(&out.stdout),
        "null\n{\"key\":\"greeting\",\"value\":\"hello\"}\n",
        "{err}"
    );
    assert!(
        err.starts_with("emdb: line 1: committing the last 1 puts"),
        "{err}"
    );
    assert!(err.ends_with("lines: 3, errors: 2\n"), "{err}");
    assert_eq!(out.status.code(), Some(6));
}

/// A batch whose puts land but whose closing checkpoint cannot be written
/// (here past the file size limit) counts that failure in its summary,
/// which comes after it: the summary said `errors: 0` while the exit code
/// was 6 (QA).
#[test]
fn the_summary_counts_a_failed_closing_checkpoint() {
    let db = TestDb::new();
    let input = db.file("batch.txt");
    std::fs::write(&input, "put a 1\nput b 2\n").unwrap();
    let fresh = db.file("fresh.emdb");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg("ulimit -f 16; exec \"$0\" --db \"$1\" shell < \"$2\"")
        .arg(assert_cmd::cargo::cargo_bin("emdb"))
        .arg(&fresh)
        .arg(&input)
        .env("HOME", db.dir.path())
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{err}");
    assert!(err.contains("the checkpoint was not written"), "{err}");
    assert!(err.ends_with("lines: 2, errors: 1\n"), "{err}");
    let reopened = emdb_core::Emdb::open(&fresh).unwrap();
    assert_eq!(reopened.get("b").unwrap(), Some(b"2".to_vec()));
}

/// The same when what the shell has read ends inside a line: the answers
/// to the whole lines before it do not wait for the rest of that line (a
/// producer that writes a line in pieces, or whose write was split).
#[test]
fn answers_do_not_wait_for_the_rest_of_a_line_begun() {
    let db = TestDb::new();
    db.put("greeting", "hello");
    let mut shell = Coprocess::start(&db, None);
    // One write: the shell reads the whole line and the start of the next.
    shell.send(b"get greeting\nget gree");
    assert_eq!(
        shell.answer("answer while the next line was cut short"),
        "hello"
    );
    shell.send(b"ting\n");
    assert_eq!(shell.answer("answer to the completed line"), "hello");
    let (status, err) = shell.finish();
    assert!(status.success());
    assert_eq!(err, "lines: 2, errors: 0");
}

/// On a terminal each line's answer shows when the line runs, also for a
/// plain `get KEY` (the fast path): it used to wait in the output buffer
/// until a line of another kind, or `quit`.
#[test]
fn interactive_get_answers_at_once() {
    let db = TestDb::new();
    db.put("a2", "answer-of-a2");
    db.put("a3", "answer-of-a3");
    let Some(mut term) = common::Terminal::start(&db, "shell") else {
        return;
    };
    assert!(term.wait_for(0, "emdb> ", 20), "{}", term.screen());
    for key in ["a2", "a3"] {
        let mark = term.mark();
        term.type_text(&format!("get {key}\r"));
        assert!(
            term.wait_for(mark, &format!("answer-of-{key}"), 10),
            "no answer to `get {key}`: {}",
            term.screen()
        );
    }
    term.type_text("quit\r");
    let (code, screen) = term.finish();
    assert_eq!(code, 0, "{screen}");
}

/// The lines typed into the shell of an encrypted database name its keys
/// and values: the history stays in memory, off the disk. (It used to be
/// saved in plaintext in `shell_history`.)
#[test]
fn interactive_history_of_an_encrypted_database_stays_off_the_disk() {
    let db = TestDb::new();
    let key = db.file("k");
    std::fs::write(&key, "ab".repeat(32)).unwrap();
    let args = format!("--key-file '{}' shell", key.display());
    let Some((code, screen)) = common::on_terminal_with(
        &db,
        &args,
        &["put hk SECRETHISTVAL\r", "get hk\r", "quit\r"],
    ) else {
        return;
    };
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("SECRETHISTVAL\r\n"), "{screen}");
    let history = db.dir.path().join("data/emdb/shell_history");
    let kept = std::fs::read_to_string(&history).unwrap_or_default();
    assert!(!kept.contains("SECRETHISTVAL"), "{kept}");
    db.cmd(["--key-file"])
        .arg(&key)
        .args(["get", "hk"])
        .assert()
        .success()
        .stdout("SECRETHISTVAL\n");
}

/// Per-line `--quiet` (`-q`) hides a missing key as the one-shot command
/// does (the exit code still says it); a missing namespace still shows.
#[test]
fn per_line_quiet_hides_missing_keys() {
    let db = TestDb::new();
    db.put("a", "1");
    db.cmd(["shell"])
        .write_stdin(
            "get nope --quiet\n-q get nope\n--quiet del nope\n--quiet ttl nope\n\
             -q -n ghost get x\nget nope\n",
        )
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "emdb: line 5: namespace \"ghost\" does not exist\n",
        ))
        .stderr(predicate::str::ends_with(
            "emdb: line 6: key \"nope\" not found\nlines: 6, errors: 6\n",
        ))
        .stderr(predicate::str::contains("line 1").not())
        .stderr(predicate::str::contains("line 4").not());
}

/// Ctrl-C while a line runs on a terminal stops that command: its output
/// ends, the shell says so and prompts for the next line, which runs.
/// (The scan used to print to its end, and the Ctrl-C then cleared the
/// next line typed.)
#[test]
fn interactive_ctrl_c_stops_the_running_command() {
    let db = TestDb::new();
    let value = "v".repeat(100);
    let lines: String = (0..300_000)
        .map(|i| format!("put k{i:07} {value}\n"))
        .collect();
    db.cmd(["-q", "shell"])
        .write_stdin(lines)
        .assert()
        .success();
    let Some(mut term) = common::Terminal::start(&db, "shell") else {
        return;
    };
    assert!(term.wait_for(0, "emdb> ", 20), "{}", term.screen());
    let mark = term.mark();
    term.type_text("scan\r");
    assert!(
        term.wait_for(mark, "k0000100", 20),
        "the scan did not start"
    );
    term.type_text("\x03");
    let stopped = term.wait_for(mark, "interrupted by Ctrl-C", 20);
    let mark = term.mark();
    term.type_text("get k0000001\r");
    let answered = term.wait_for(mark, &value, 20);
    term.type_text("quit\r");
    let (code, screen) = term.finish();
    let tail = &screen[screen.len().saturating_sub(2000)..];
    assert!(stopped, "no note of the interruption: {tail}");
    assert!(answered, "the next line did not run: {tail}");
    assert!(!screen.contains("k0299999"), "the scan ran to its end");
    // The stopped line is the first failing one.
    assert_eq!(code, 130, "{tail}");
}

/// On a terminal, `ns drop` and `del --prefix` ask as the one-shot
/// commands do, and a "y" does it. (They used to refuse with "not a
/// terminal".) Piped, they still refuse without --yes.
#[test]
fn interactive_shell_asks_before_dropping_and_deleting() {
    let db = TestDb::new();
    db.cmd(["-n", "sess", "put", "s1", "x"]).assert().success();
    db.put("p1", "1");
    db.put("p2", "2");
    db.cmd(["shell"])
        .write_stdin("ns drop sess\ndel --prefix p\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "line 1: refusing to drop namespace \"sess\" with 1 key without confirmation \
             (not a terminal)",
        ))
        .stderr(predicate::str::contains(
            "line 2: refusing to delete 2 keys",
        ));
    let Some(mut term) = common::Terminal::start(&db, "shell") else {
        return;
    };
    assert!(term.wait_for(0, "emdb> ", 20), "{}", term.screen());
    let mark = term.mark();
    term.type_text("ns drop sess\r");
    assert!(term.wait_for(mark, "[y/N]", 10), "{}", term.screen());
    term.type_text("y\r");
    assert!(
        term.wait_for(mark, "dropped namespace", 10),
        "{}",
        term.screen()
    );
    let mark = term.mark();
    term.type_text("del --prefix p\r");
    assert!(term.wait_for(mark, "[y/N]", 10), "{}", term.screen());
    term.type_text("n\r");
    assert!(term.wait_for(mark, "cancelled", 10), "{}", term.screen());
    let mark = term.mark();
    term.type_text("del --prefix p\r");
    assert!(term.wait_for(mark, "[y/N]", 10), "{}", term.screen());
    term.type_text("y\r");
    assert!(
        term.wait_for(mark, "deleted 2 keys", 10),
        "{}",
        term.screen()
    );
    term.type_text("quit\r");
    let (_, screen) = term.finish();
    assert!(!screen.contains("not a terminal"), "{screen}");
    db.cmd(["ns", "list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("sess").not());
    db.cmd(["count"]).assert().success().stdout("0\n");
}

/// `#` starts a comment only as the first character of a line; inside a
/// line it is a character, on the fast path and through the parser alike.
/// (A line with options took `#v --ttl 1h` for a comment.)
#[test]
fn hash_inside_a_line_is_a_character() {
    let db = TestDb::new();
    db.cmd(["shell"])
        .write_stdin(
            "# a comment\n  # an indented one\nput k12 #v --ttl 1h\nput k14 #v\n\
             put 'k 15' a#b\nget k12\nget k14\nget 'k 15'\n",
        )
        .assert()
        .success()
        .stdout("#v\n#v\na#b\n")
        .stderr("lines: 8, errors: 0\n");
    let ttl = db.stdout(["ttl", "k12"]);
    assert_ne!(text(&ttl), "no expiry\n");
}

/// A UTF-8 byte order mark before the first line is not part of it (it
/// was: "unrecognized subcommand '\u{feff}put'"); later lines keep theirs.
#[test]
fn a_byte_order_mark_at_the_start_is_skipped() {
    let db = TestDb::new();
    db.cmd(["shell"])
        .write_stdin("\u{feff}put a 1\n\u{feff}put b 2\nget a\n")
        .assert()
        .code(2)
        .stdout("1\n")
        .stderr(predicate::str::contains("line 1").not())
        .stderr(predicate::str::contains("line 2: unrecognized subcommand"));
}
