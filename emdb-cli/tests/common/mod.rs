//! Shared helpers: every test gets its own temporary database and never
//! touches the real default database.

#![allow(dead_code)]
// Test helpers: a failure here should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// A temporary directory with a database path in it.
pub struct TestDb {
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
}

impl TestDb {
    pub fn new() -> TestDb {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("test.emdb");
        TestDb { dir, path }
    }

    /// `emdb --db <path> ARGS...`, with HOME and XDG_DATA_HOME pointing into
    /// the temporary directory.
    pub fn cmd<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut c = bare(self.dir.path());
        c.arg("--db").arg(&self.path).args(args);
        c
    }

    /// Store `key` = `value` through the CLI.
    pub fn put(&self, key: &str, value: &str) {
        self.cmd(["put", key, value]).assert().success();
    }

    /// A file path inside the temporary directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Stdout of a successful command.
    pub fn stdout<I, S>(&self, args: I) -> Vec<u8>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.cmd(args)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    }
}

/// `emdb` with a clean environment rooted at `home`: no EMDB_PATH, no
/// secrets in the environment, and the platform data directory inside `home`.
pub fn bare(home: &Path) -> Command {
    let mut c = Command::cargo_bin("emdb").unwrap();
    c.env_remove("EMDB_PATH")
        .env_remove("EMDB_PASSPHRASE")
        .env_remove("EMDB_KEY_FILE")
        .env_remove("EMDB_LOCK_TIMEOUT")
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .timeout(std::time::Duration::from_secs(60));
    c
}

/// `emdb --db <db> ARGS...` as a child process, for tests that feed it
/// over time or signal it: the clean environment of [`bare`].
pub fn child<I, S>(db: &TestDb, args: I) -> std::process::Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("emdb"));
    c.arg("--db")
        .arg(&db.path)
        .args(args)
        .env_remove("EMDB_PATH")
        .env_remove("EMDB_PASSPHRASE")
        .env_remove("EMDB_KEY_FILE")
        .env_remove("EMDB_LOCK_TIMEOUT")
        .env("HOME", db.dir.path())
        .env("XDG_DATA_HOME", db.dir.path().join("data"));
    c
}

/// `n` JSON Lines records, keys `k0000000` upwards, each value
/// `value_len` letters `v`: the input of tests that need a big import.
pub fn records(n: usize, value_len: usize) -> String {
    let value = "v".repeat(value_len);
    (0..n)
        .map(|i| format!("{{\"key\":\"k{i:07}\",\"value\":\"{value}\"}}\n"))
        .collect()
}

/// Poll `emdb count` (a read-only process beside whatever writes) until
/// `done` holds for the count it prints; fail the test after `secs`
/// seconds, naming `what` was awaited.
pub fn wait_for_count(db: &TestDb, secs: u64, what: &str, done: impl Fn(u64) -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        let out = bare(db.dir.path())
            .arg("--db")
            .arg(&db.path)
            .arg("count")
            .output()
            .unwrap();
        let count = String::from_utf8_lossy(&out.stdout).trim().parse::<u64>();
        if out.status.success() && count.is_ok_and(&done) {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Poll `done` every 2 ms until it holds; fail the test after `secs`
/// seconds, naming `what` was awaited.
pub fn wait_until(secs: u64, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "waited {secs} s for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Three rounds of three `emdb -q COMMAND DEST` started at once, `DEST`
/// absent at each start: exactly one succeeds, the others exit 2 saying
/// `refusal`, nothing named `DEST...` but `DEST` is left, and `check(DEST)`
/// holds after each round.
pub fn race_to_one_new_file(
    db: &TestDb,
    command: &str,
    dest: &Path,
    refusal: &str,
    check: impl Fn(&Path),
) {
    let name = dest.file_name().unwrap().to_string_lossy().into_owned();
    for round in 0..3 {
        let _ = std::fs::remove_file(dest);
        let children: Vec<_> = (0..3)
            .map(|_| {
                child(db, ["-q", command])
                    .arg(dest)
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outcomes: Vec<(Option<i32>, String)> = children
            .into_iter()
            .map(|c| {
                let out = c.wait_with_output().unwrap();
                (out.status.code(), text(&out.stderr))
            })
            .collect();
        let won = outcomes.iter().filter(|(code, _)| *code == Some(0)).count();
        assert_eq!(won, 1, "round {round}: {outcomes:?}");
        for (code, err) in outcomes.iter().filter(|(code, _)| *code != Some(0)) {
            assert_eq!(*code, Some(2), "round {round}: {err}");
            assert!(err.contains(refusal), "round {round}: {err}");
        }
        let left: Vec<String> = std::fs::read_dir(dest.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&name) && *n != name)
            .collect();
        assert!(left.is_empty(), "round {round}: {left:?}");
        check(dest);
    }
}

/// Send signal `sig` (`"INT"`, `"TERM"`, ...) to process `pid` with
/// kill(1), and fail the test if it could not be sent.
pub fn signal(pid: u32, sig: &str) {
    let sent = std::process::Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{sig} {pid}");
}

/// Stdout as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// Runs `emdb ARGS` on a pseudo-terminal through util-linux `script`, with
/// `input` typed in. `None` when `script` is not installed.
pub fn on_terminal(db: &TestDb, args: &str, input: &str) -> Option<(i32, String)> {
    on_terminal_with(db, args, &[input])
}

/// [`on_terminal`] typing each of `inputs` after a pause, for programs that
/// read the terminal more than once (hidden prompts flush pending input).
pub fn on_terminal_with(db: &TestDb, args: &str, inputs: &[&str]) -> Option<(i32, String)> {
    let found = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: util-linux `script` is not installed");
        return None;
    }
    let line = format!(
        "'{}' --db '{}' {args}",
        assert_cmd::cargo::cargo_bin("emdb").display(),
        db.path.display()
    );
    // `timeout` ends a run that waits for input it will never get.
    let mut child = std::process::Command::new("timeout")
        .args(["30", "script", "-qec", &line, "/dev/null"])
        .env("HOME", db.dir.path())
        .env("XDG_DATA_HOME", db.dir.path().join("data"))
        .env_remove("EMDB_PASSPHRASE")
        .env_remove("EMDB_KEY_FILE")
        .env_remove("EMDB_LOCK_TIMEOUT")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        for input in inputs {
            std::thread::sleep(std::time::Duration::from_millis(300));
            stdin.write_all(input.as_bytes()).unwrap();
            stdin.flush().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    let out = child.wait_with_output().unwrap();
    Some((out.status.code().unwrap_or(-1), text(&out.stdout)))
}

/// `emdb --db <db> ARGS` on a pseudo-terminal (util-linux `script`),
/// driven while it runs: type into it, and wait until the screen shows
/// something. For what must appear before the next line is typed.
pub struct Terminal {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    screen: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl Terminal {
    /// Start it; `None` when `script` is not installed.
    pub fn start(db: &TestDb, args: &str) -> Option<Terminal> {
        Terminal::start_with(db, args, &[])
    }

    /// [`Terminal::start`] with more environment variables.
    pub fn start_with(db: &TestDb, args: &str, env: &[(&str, &Path)]) -> Option<Terminal> {
        use std::io::Read;
        let found = std::process::Command::new("script")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            eprintln!("skipped: util-linux `script` is not installed");
            return None;
        }
        let line = format!(
            "exec '{}' --db '{}' {args}",
            assert_cmd::cargo::cargo_bin("emdb").display(),
            db.path.display()
        );
        let mut cmd = std::process::Command::new("timeout");
        cmd.args(["60", "script", "-qec", &line, "/dev/null"])
            .env("HOME", db.dir.path())
            .env("XDG_DATA_HOME", db.dir.path().join("data"))
            .env_remove("EMDB_PATH")
            .env_remove("EMDB_PASSPHRASE")
            .env_remove("EMDB_KEY_FILE")
            .env_remove("EMDB_LOCK_TIMEOUT")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let mut out = child.stdout.take().unwrap();
        let screen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let shown = std::sync::Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 1 << 16];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                shown.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let stdin = child.stdin.take();
        Some(Terminal {
            child,
            stdin,
            screen,
        })
    }

    /// Type `text` (`\r` is Enter, `\x03` Ctrl-C).
    pub fn type_text(&mut self, text: &str) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// How much the screen shows so far: a mark for [`Terminal::wait_for`].
    pub fn mark(&self) -> usize {
        self.screen.lock().unwrap().len()
    }

    /// Everything shown so far.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).into_owned()
    }

    /// Wait up to `secs` seconds for `text` to show after `mark`; whether
    /// it did.
    pub fn wait_for(&self, mark: usize, text: &str, secs: u64) -> bool {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        // Where the search starts: what was searched before is not again.
        let mut from = mark;
        loop {
            {
                let screen = self.screen.lock().unwrap();
                let after = screen.get(from..).unwrap_or_default();
                if after.windows(text.len()).any(|w| w == text.as_bytes()) {
                    return true;
                }
                from = screen.len().saturating_sub(text.len()).max(mark);
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Close the input, wait for the end; the exit code and the screen.
    pub fn finish(mut self) -> (i32, String) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        // The reader thread ends with the pipe.
        std::thread::sleep(std::time::Duration::from_millis(100));
        (status.code().unwrap_or(-1), self.screen())
    }
}
