//! `emdb export` leaks nothing (issue 15, items 9 and 10): the export file is
//! owner-only, and an export beside a live writer takes its snapshot
//! without writing a copy of the database next to it, so a killed export
//! leaves no copy behind. Nor does it need the writer's lock file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use common::TestDb;

#[test]
fn an_export_file_is_owner_only() {
    let db = TestDb::new();
    db.put("secret", "plaintext");
    let out = db.file("dump.jsonl");
    db.cmd(["export"]).arg(&out).assert().success();
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "export file mode {mode:o}");
}

fn leftovers(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".emdb-export-"))
        .collect()
}

#[test]
fn a_killed_export_beside_a_live_writer_leaves_no_copy_of_the_database() {
    let db = TestDb::new();
    let writer = emdb_core::Emdb::open(&db.path).unwrap();
    let value = vec![b'v'; 200];
    for i in 0..60_000u32 {
        writer.insert(format!("key{i:06}"), &value).unwrap();
    }
    writer.flush().unwrap();
    let out = db.file("dump.jsonl");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("emdb"))
        .env("HOME", db.dir.path())
        .env("XDG_DATA_HOME", db.dir.path())
        .arg("--db")
        .arg(&db.path)
        .arg("export")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it while it runs: as soon as a snapshot copy shows up (what it
    // used to make), or after a while.
    let deadline = Instant::now() + Duration::from_secs(5);
    common::wait_until(10, "the export to run", || {
        Instant::now() >= deadline
            || child.try_wait().unwrap().is_some()
            || !leftovers(db.dir.path()).is_empty()
    });
    let _ = child.kill();
    child.wait().unwrap();
    let left = leftovers(db.dir.path());
    assert!(left.is_empty(), "a killed export left {left:?}");
    // The writer was never disturbed.
    writer.insert("after", "1").unwrap();
    writer.flush().unwrap();
}

/// Ctrl-C (or SIGTERM) during an export to a file, or during `export
/// --salvage`, removes its temporary file (plaintext, even of an encrypted
/// database) or its copy of the database, and then ends by the signal (so
/// a shell loop around it stops). Before, the signal ended the process
/// where it stood, and nothing removed them: they are not beside the
/// database, and an export's name carries its pid.
#[test]
fn an_interrupted_export_leaves_no_temporary_file() {
    let db = TestDb::new();
    let records = common::records(100_000, 100);
    db.cmd(["-q", "import", "-"])
        .write_stdin(records)
        .assert()
        .success();
    let tmpdir = db.file("tmp");
    std::fs::create_dir(&tmpdir).unwrap();
    let entries = |dir: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    use std::os::unix::process::ExitStatusExt;
    for (signal, number, salvage) in [("INT", 2, false), ("TERM", 15, false), ("INT", 2, true)] {
        let out = db.file("dump.jsonl");
        let mut cmd = common::child(&db, ["-q", "export"]);
        if salvage {
            cmd.arg("--salvage");
        }
        let mut child = cmd.arg(&out).env("TMPDIR", &tmpdir).spawn().unwrap();
        // Interrupt once its temporary file (or copy) is there.
        let start = Instant::now();
        loop {
            let written = if salvage {
                !entries(&tmpdir).is_empty()
            } else {
                entries(db.dir.path())
                    .iter()
                    .any(|n| n.contains(".emdb-export-"))
            };
            if written {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no temporary file"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        common::signal(child.id(), signal);
        let status = child.wait().unwrap();
        assert_eq!(
            status.signal(),
            Some(number),
            "{signal}, salvage {salvage}: {status:?}"
        );
        assert!(!out.exists());
        let left: Vec<String> = entries(db.dir.path())
            .into_iter()
            .filter(|n| n.contains(".emdb-export-"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        assert!(entries(&tmpdir).is_empty(), "{:?}", entries(&tmpdir));
    }
}

/// A command started with SIGINT ignored (a background job of a script,
/// `nohup`) keeps ignoring it: the terminal's Ctrl-C, which reaches the
/// whole process group, must not stop an export it never stopped before.
#[test]
fn an_export_started_with_sigint_ignored_ignores_it() {
    let db = TestDb::new();
    let records = common::records(100_000, 100);
    db.cmd(["-q", "import", "-"])
        .write_stdin(records)
        .assert()
        .success();
    let out = db.file("dump.jsonl");
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg("trap '' INT; exec \"$0\" \"$@\"")
        .arg(assert_cmd::cargo::cargo_bin("emdb"))
        .arg("--db")
        .arg(&db.path)
        .args(["-q", "export"])
        .arg(&out)
        .env("HOME", db.dir.path())
        .env("XDG_DATA_HOME", db.dir.path().join("data"))
        .env_remove("EMDB_PATH")
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !std::fs::read_dir(db.dir.path()).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .contains(".emdb-export-")
    }) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    common::signal(child.id(), "INT");
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().lines().count(),
        100_001
    );
}

/// What an export killed by SIGKILL left (`FILE.emdb-export-<host>-<pid>.tmp`,
/// plaintext, named after a process that is gone) is removed by the next
/// export to FILE; a file of a process that still runs is left alone.
/// Before, each such file stayed for good: no later export meets its name.
#[test]
fn an_export_removes_what_killed_exports_to_its_file_left() {
    let db = TestDb::new();
    db.put("k", "v");
    let out = db.file("dump.jsonl");
    // A pid that is surely gone: a child that has exited.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let gone_pid = gone.id();
    gone.wait().unwrap();
    let host: String = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'))
        .collect();
    let dead = db.file(&format!("dump.jsonl.emdb-export-{host}-{gone_pid}.tmp"));
    std::fs::write(&dead, "plaintext of a killed export").unwrap();
    let live = db.file(&format!(
        "dump.jsonl.emdb-export-{host}-{}.tmp",
        std::process::id()
    ));
    std::fs::write(&live, "an export still running").unwrap();
    let other = db.file(&format!("other.jsonl.emdb-export-{host}-{gone_pid}.tmp"));
    std::fs::write(&other, "another file's").unwrap();
    // Another machine's (a shared volume): its pid means nothing here.
    let remote = db.file(&format!("dump.jsonl.emdb-export-elsewhere-{gone_pid}.tmp"));
    std::fs::write(&remote, "another machine's export").unwrap();
    db.cmd(["export"]).arg(&out).assert().success();
    assert!(!dead.exists(), "the killed export's file stayed");
    assert!(live.exists(), "a running export's file was removed");
    assert!(other.exists(), "another file's leftover was removed");
    assert!(remote.exists(), "another machine's export was removed");
}

/// Export, a reading command, works for a user who can read the database
/// but not its lock file (0600, the writer's): the lock file only tells
/// whether a writer runs, and one that cannot be read says "maybe", so the
/// export reads its pinned snapshot. Before, it failed with `open lock
/// file failed ... Permission denied` (exit 6) while `scan` worked. Run as
/// another user through util-linux `setpriv` where the tests run as root;
/// skipped (with a note) where that cannot be done.
#[test]
fn export_works_without_access_to_the_lock_file() {
    let db = TestDb::new();
    db.put("k", "v");
    let unprivileged = |args: &[&str]| {
        std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(assert_cmd::cargo::cargo_bin("emdb"))
            .arg("--db")
            .arg(&db.path)
            .args(args)
            .env_remove("EMDB_PATH")
            .env("HOME", db.dir.path())
            .env("XDG_DATA_HOME", db.dir.path().join("data"))
            .output()
    };
    std::fs::set_permissions(db.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&db.path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let runs = unprivileged(&["count"]).is_ok_and(|o| o.status.success());
    if !runs {
        eprintln!(
            "skipped: cannot run emdb as uid 65534 through setpriv here (not root, no \
             setpriv, or the binary's directory is not searchable by that user)"
        );
        return;
    }
    // The test is only meaningful if that user cannot open the lock file.
    assert!(unprivileged(&["lock", "status"]).is_ok_and(|o| !o.status.success()));
    let out = unprivileged(&["export", "-"]).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"key\":\"k\""));
}

/// The same decision when the lock file cannot be opened by anyone: emdb
/// never opens it through a symlink planted at its name. Export reads on;
/// nothing is written through the link.
#[test]
fn export_works_when_the_lock_file_cannot_be_opened() {
    let db = TestDb::new();
    db.put("k", "v");
    let lock = db.file("test.emdb.lock");
    let elsewhere = db.file("elsewhere");
    std::fs::rename(&lock, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &lock).unwrap();
    let before = std::fs::read(&elsewhere).unwrap();
    let out = db.stdout(["export", "-"]);
    assert!(String::from_utf8_lossy(&out).contains("\"key\":\"k\""));
    assert_eq!(std::fs::read(&elsewhere).unwrap(), before);
}
