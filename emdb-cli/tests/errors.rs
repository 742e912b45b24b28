//! Error paths: locked, corrupt, foreign files, missing input; exit codes.

mod common;

use std::time::{Duration, Instant};

use common::TestDb;
use emdb_core::Emdb;
use predicates::prelude::*;

#[test]
fn locked_database_exits_3_naming_the_holder() {
    let db = TestDb::new();
    db.put("k", "v");
    let holder = Emdb::open(&db.path).unwrap();
    let pid = format!("pid {}", std::process::id());
    // A lock timeout of 0 fails at once (the default waits 10s).
    db.cmd(["--lock-timeout", "0", "put", "k", "w"])
        .assert()
        .code(3)
        .stderr(predicate::str::starts_with("emdb: "))
        .stderr(predicate::str::contains("is locked by another writer"))
        .stderr(predicate::str::contains(pid.as_str()))
        .stderr(predicate::str::contains("--lock-timeout"));
    // Reading still works: a read-only snapshot needs no lock.
    db.cmd(["get", "k"]).assert().success().stdout("v\n");
    db.cmd(["lock", "status"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("locked by {pid}")));
    let status = db.stdout(["lock", "status", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&status).unwrap();
    assert_eq!(status["locked"], true);
    assert_eq!(status["holder"]["pid"], std::process::id());
    assert_eq!(status["holder"]["running"], true);
    // A live holder: break refuses.
    db.cmd(["lock", "break"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("--force"));
    // Waiting gives up after the timeout, with the locked exit code.
    let start = Instant::now();
    db.cmd(["--lock-timeout", "300ms", "put", "k", "w"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("gave up after waiting 300ms"));
    assert!(start.elapsed() >= Duration::from_millis(300));
    drop(holder);
}

/// A writer that waits for the lock says so once on stderr, naming the
/// holder, so it does not look hung (it printed nothing until it gave up
/// or wrote); `-q` keeps it quiet, and a free lock or `--lock-timeout 0`
/// says nothing.
#[test]
fn a_wait_for_the_writer_lock_is_said_when_it_starts() {
    let db = TestDb::new();
    db.put("k", "v");
    let holder = Emdb::open(&db.path).unwrap();
    let waiting = format!(
        "emdb: waiting up to 1.5s for the writer lock of {}, held by pid {}",
        db.path.display(),
        std::process::id()
    );
    let out = db
        .cmd(["--lock-timeout", "1.5s", "put", "k", "w"])
        .assert()
        .code(3)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with(&waiting), "{err}");
    assert_eq!(err.matches("waiting up to").count(), 1, "{err}");
    assert!(err.contains("gave up after waiting 1.5s"), "{err}");
    // A wait shorter than a second is not said (writers taking turns).
    db.cmd(["--lock-timeout", "300ms", "put", "k", "w"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("waiting up to").not())
        .stderr(predicate::str::contains("gave up"));
    // Quiet: the error only.
    db.cmd(["-q", "--lock-timeout", "1.5s", "put", "k", "w"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("waiting up to").not())
        .stderr(predicate::str::contains("gave up"));
    // No wait, nothing said about one.
    db.cmd(["--lock-timeout", "0", "put", "k", "w"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("waiting up to").not());
    // A wait that ends with the lock taken says it once, then writes.
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1400));
        drop(holder);
    });
    let out = db
        .cmd(["--lock-timeout", "20s", "put", "k", "w"])
        .assert()
        .success()
        .get_output()
        .clone();
    release.join().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("emdb: waiting up to 20.0s for the writer lock of"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // A free lock: nothing on stderr.
    db.cmd(["--lock-timeout", "20s", "put", "k", "x"])
        .assert()
        .success()
        .stderr("");
}

#[test]
fn lock_timeout_waits_for_the_holder_to_leave() {
    let db = TestDb::new();
    db.put("k", "v");
    let holder = Emdb::open(&db.path).unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(400));
        drop(holder);
    });
    db.cmd(["--lock-timeout", "20s", "put", "k", "w"])
        .assert()
        .success();
    release.join().unwrap();
    db.cmd(["get", "k"]).assert().success().stdout("w\n");
}

#[test]
fn lock_status_and_break_when_unlocked() {
    let db = TestDb::new();
    // No database yet: said as reading commands say it (exit 6).
    db.cmd(["lock", "status"])
        .assert()
        .code(6)
        .stderr(predicate::str::contains("no database at"));
    db.put("k", "v");
    db.cmd(["lock", "status"])
        .assert()
        .success()
        .stdout(predicate::str::contains("not locked (last held by pid"));
    db.cmd(["lock", "break"])
        .assert()
        .success()
        .stdout(predicate::str::contains("removed the lock file"));
    db.cmd(["lock", "break", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"removed\":false"));
    db.cmd(["get", "k"]).assert().success().stdout("v\n");
}

#[test]
fn lock_break_force_removes_a_held_lock_file() {
    let db = TestDb::new();
    db.put("k", "v");
    let holder = Emdb::open(&db.path).unwrap();
    // Without --yes (and no terminal to ask on), --force refuses.
    db.cmd(["lock", "break", "--force"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--yes"));
    assert!(Emdb::lock_holder(&db.path).unwrap().unwrap().alive);
    let pid = format!("held by pid {}", std::process::id());
    db.cmd(["lock", "break", "--force", "--yes"])
        .assert()
        .success()
        .stderr(predicate::str::contains("warning"))
        .stdout(predicate::str::contains("removed the lock file"))
        .stdout(predicate::str::contains(pid.as_str()))
        .stdout(predicate::str::contains("no process held it").not());
    // The next writer gets in; the old holder then refuses to write over it.
    db.cmd(["put", "k2", "from the cli"]).assert().success();
    assert!(matches!(
        holder.insert("k3", "late"),
        Err(emdb_core::Error::Poisoned(_))
    ));
    drop(holder);
    db.cmd(["get", "k2"])
        .assert()
        .success()
        .stdout("from the cli\n");
    db.cmd(["check"]).assert().success();
}

#[test]
fn corrupt_record_exits_4() {
    let db = TestDb::new();
    for i in 0..3 {
        db.put(&format!("key{i}"), "value");
    }
    // Without the checkpoint, open replays the log and meets the damage.
    let mut ckpt = db.path.clone().into_os_string();
    ckpt.push(".ckpt");
    let _ = std::fs::remove_file(ckpt);
    let mut bytes = std::fs::read(&db.path).unwrap();
    bytes[4096 + 12] ^= 0xff;
    std::fs::write(&db.path, bytes).unwrap();
    db.cmd(["get", "key2"])
        .assert()
        .code(4)
        .stderr(predicate::str::starts_with("emdb: corruption in"))
        .stderr(predicate::str::contains("offset"))
        // Advice the CLI can follow, not the engine's builder option.
        .stderr(predicate::str::contains("salvage to skip").not())
        .stderr(predicate::str::contains("emdb check --repair"));
    db.cmd(["put", "k", "v"]).assert().code(4);
}

#[test]
fn foreign_file_exits_4_and_is_left_alone() {
    let db = TestDb::new();
    let text = b"this is a text file, not a database, and must stay as it is\n".repeat(100);
    std::fs::write(&db.path, &text).unwrap();
    db.cmd(["get", "k"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("is not an emdb database"));
    db.cmd(["put", "k", "v"]).assert().code(4);
    assert_eq!(std::fs::read(&db.path).unwrap(), text);
}

/// Every command alike: `check`, `check --repair` and `export --salvage`
/// said "read header failed ...: Is a directory" with exit 6.
#[test]
fn a_directory_as_database_is_a_usage_error() {
    let db = TestDb::new();
    for args in [
        &["put", "k", "v"][..],
        &["get", "k"],
        &["check"],
        &["check", "--repair", "--yes"],
        &["export", "--salvage"],
        &["lock", "status"],
        &["lock", "break"],
    ] {
        common::bare(db.dir.path())
            .arg("--db")
            .arg(db.dir.path())
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is a directory"));
    }
}

#[test]
fn import_of_a_missing_file_exits_6() {
    let db = TestDb::new();
    db.cmd(["import", "/nonexistent/dump.jsonl"])
        .assert()
        .code(6)
        .stderr(predicate::str::starts_with(
            "emdb: opening /nonexistent/dump.jsonl failed",
        ));
}

#[test]
fn too_large_key_exits_7() {
    let db = TestDb::new();
    let key = "k".repeat(emdb_core::MAX_KEY_LEN + 1);
    db.cmd(["put", &key, "v"])
        .assert()
        .code(7)
        .stderr(predicate::str::contains("the limit is 65536 bytes"));
}

/// A long key is shortened in messages: its first 64 bytes, and its size.
#[test]
fn long_keys_are_shortened_in_messages() {
    let db = TestDb::new();
    db.put("short", "v");
    let key = format!(
        "{}{}",
        "k".repeat(70),
        "z".repeat(emdb_core::MAX_KEY_LEN - 69)
    );
    let shown = format!(
        "emdb: key \"{}\"... (65537 bytes) not found\n",
        "k".repeat(64)
    );
    for args in [
        vec!["get", &key],
        vec!["ttl", &key],
        vec!["expire", &key, "1h"],
        vec!["persist", &key],
    ] {
        db.cmd(&args).assert().code(1).stderr(shown.clone());
    }
    // (`del` refuses a key over the limit, exit 7, before it looks.)
    db.cmd(["del", "short", &key[..1000], "gone"])
        .assert()
        .code(1)
        .stderr(format!(
            "emdb: not found: \"{}\"... (1000 bytes), \"gone\"\n",
            "k".repeat(64)
        ));
    // Cut at a character, not inside one; short keys are shown whole.
    let wide = format!("a{}", "é".repeat(40));
    db.cmd(["get", &wide]).assert().code(1).stderr(format!(
        "emdb: key \"a{}\"... (81 bytes) not found\n",
        "é".repeat(31)
    ));
    let edge = "k".repeat(64);
    db.cmd(["get", &edge])
        .assert()
        .code(1)
        .stderr(format!("emdb: key \"{edge}\" not found\n"));
    // Hex keys are cut at 64 bytes too (128 digits).
    db.cmd(["--hex", "get", &"ab".repeat(100)])
        .assert()
        .code(1)
        .stderr(format!(
            "emdb: key \"{}\"... (100 bytes) not found\n",
            "ab".repeat(64)
        ));
    // A value that --null cannot print is named shortened too.
    db.cmd(["put", "nul", "-"])
        .write_stdin(format!("\0{}", "v".repeat(1000)))
        .assert()
        .success();
    db.cmd(["scan", "-0"])
        .assert()
        .code(7)
        .stderr(predicate::str::starts_with(format!(
            "emdb: \"\\x00{}\"... (1001 bytes) holds a NUL byte",
            "v".repeat(63)
        )));
}

/// A mounted tmpfs (CI runs as root), unmounted when dropped.
struct TmpfsMount(tempfile::TempDir);

impl TmpfsMount {
    fn new(size: &str) -> Result<TmpfsMount, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(TmpfsMount(dir))
    }
}

impl Drop for TmpfsMount {
    fn drop(&mut self) {
        for _ in 0..40 {
            let done = std::process::Command::new("umount")
                .arg(self.0.path())
                .stderr(std::process::Stdio::null())
                .status();
            if done.is_ok_and(|s| s.success()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.0.path())
            .status();
    }
}

#[test]
fn put_on_a_full_disk_exits_6_with_the_reason() {
    let mount = match TmpfsMount::new("1m") {
        Ok(m) => m,
        Err(why) => {
            println!("SKIPPED put on a real full disk: {why}");
            return;
        }
    };
    let home = TestDb::new();
    let db = TestDb {
        path: mount.0.path().join("full.emdb"),
        dir: home.dir,
    };
    db.put("before", "1");
    // Fill every free byte.
    let mut filler = std::fs::File::create(mount.0.path().join("filler")).unwrap();
    let block = vec![0u8; 4096];
    while std::io::Write::write(&mut filler, &block).is_ok_and(|n| n > 0) {}
    drop(filler);
    // A value larger than what is left of the log's last page.
    let value = db.file("value.bin");
    std::fs::write(&value, vec![b'v'; 20_000]).unwrap();
    db.cmd(["put", "k", "--file"])
        .arg(&value)
        .assert()
        .code(6)
        .stderr(predicate::str::starts_with("emdb: "))
        .stderr(predicate::str::contains("No space left on device"))
        .stderr(predicate::str::contains("hint: free some space"));
    // Nothing lost; with space back, writing works again.
    std::fs::remove_file(mount.0.path().join("filler")).unwrap();
    db.cmd(["get", "before"]).assert().success().stdout("1\n");
    db.cmd(["put", "k", "--file"])
        .arg(&value)
        .assert()
        .success();
    let got = db.stdout(["get", "k"]);
    assert_eq!(got.len(), 20_001, "the value and a newline");
    drop(db);
}

#[test]
fn an_empty_file_is_refused_by_every_command_alike() {
    let db = TestDb::new();
    std::fs::write(&db.path, b"").unwrap();
    for args in [
        &["get", "k"][..],
        &["put", "k", "v"],
        &["count"],
        &["incr", "n"],
    ] {
        db.cmd(args)
            .assert()
            .code(4)
            .stderr(predicate::str::contains(
                "is an empty file, not an emdb database",
            ));
    }
    assert_eq!(std::fs::read(&db.path).unwrap(), b"");
}

#[cfg(unix)]
#[test]
fn a_directory_without_permission_says_so() {
    use std::os::unix::fs::PermissionsExt;
    let db = TestDb::new();
    let locked = db.file("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::write(locked.join("app.emdb"), b"x").unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let target = locked.join("app.emdb");
    // Root reads through any permission bits: run emdb as `nobody` then
    // (util-linux setpriv), or skip saying why.
    let blocked = std::fs::metadata(&target).is_err();
    let mut cmd = if blocked {
        common::bare(db.dir.path())
    } else {
        match as_nobody(db.dir.path()) {
            Some(c) => c,
            None => {
                eprintln!(
                    "skipped: running as root, where permission bits are not enforced, \
                     and `setpriv` cannot run emdb as nobody"
                );
                std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
                return;
            }
        }
    };
    cmd.arg("--db")
        .arg(&target)
        .args(["get", "k"])
        .assert()
        .code(6)
        .stderr(predicate::str::contains("permission denied"))
        .stderr(predicate::str::contains("no database").not());
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `emdb` run as the unprivileged user `nobody` through util-linux
/// `setpriv` (root only), with `home` opened up so that nobody can reach
/// what the test made in it; `None` when that does not work here.
#[cfg(unix)]
fn as_nobody(home: &std::path::Path) -> Option<assert_cmd::Command> {
    use std::os::unix::fs::PermissionsExt;
    let drop_to_nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"];
    let works = std::process::Command::new("setpriv")
        .args(drop_to_nobody)
        .arg("true")
        .status()
        .is_ok_and(|s| s.success());
    if !works {
        return None;
    }
    std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o755)).ok()?;
    let mut c = assert_cmd::Command::new("setpriv");
    c.args(drop_to_nobody)
        .arg(assert_cmd::cargo::cargo_bin("emdb"))
        .env_remove("EMDB_PATH")
        .env_remove("EMDB_PASSPHRASE")
        .env_remove("EMDB_KEY_FILE")
        .env_remove("EMDB_LOCK_TIMEOUT")
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .timeout(std::time::Duration::from_secs(60));
    Some(c)
}

#[test]
fn an_import_that_fills_the_disk_says_how_much_it_imported() {
    let mount = match TmpfsMount::new("4m") {
        Ok(m) => m,
        Err(why) => {
            println!("SKIPPED import on a real full disk: {why}");
            return;
        }
    };
    let home = TestDb::new();
    let db = TestDb {
        path: mount.0.path().join("full.emdb"),
        dir: home.dir,
    };
    let input = db.file("in.jsonl");
    let mut lines = String::new();
    for i in 0..100_000 {
        lines.push_str(&format!(
            "{{\"key\":\"key{i:07}\",\"value\":\"{}\"}}\n",
            "v".repeat(40)
        ));
    }
    std::fs::write(&input, lines).unwrap();
    let out = db
        .cmd(["import"])
        .arg(&input)
        .assert()
        .code(6)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("No space left on device"), "{err}");
    // "N records in M earlier batches were imported", and N is what is there.
    let said: u64 = err
        .split(" records in ")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of what was imported in: {err}"));
    assert!(said > 0 && said < 100_000, "{err}");
    assert!(
        err.contains("earlier batches were imported")
            || err.contains("earlier batch were imported"),
        "{err}"
    );
    assert_eq!(
        db.stdout(["count"]),
        format!("{said}\n").into_bytes(),
        "{err}"
    );
    drop(db);
}

/// `lock status` of a database that does not exist says so, as reading
/// commands do (exit 6), instead of "not locked".
#[test]
fn lock_status_of_a_missing_database_exits_6() {
    let db = TestDb::new();
    let get = db
        .cmd(["get", "k"])
        .assert()
        .code(6)
        .get_output()
        .stderr
        .clone();
    let status = db
        .cmd(["lock", "status"])
        .assert()
        .code(6)
        .stdout("")
        .get_output()
        .stderr
        .clone();
    assert_eq!(status, get);
    db.cmd(["lock", "status", "--json"]).assert().code(6);
    db.put("k", "v");
    db.cmd(["lock", "status"])
        .assert()
        .success()
        .stdout(predicate::str::contains("not locked"));
}

/// The lock file's name is the database path plus `.lock`, so a mistyped
/// `--db` names another program's file: `--db Cargo` is `Cargo.lock`.
/// `lock break` removed it (exit 0); now it is left byte for byte, and a
/// path that is no emdb database is refused as every command refuses it.
#[test]
fn lock_break_never_removes_another_programs_lock_file() {
    let db = TestDb::new();
    let cargo = db.file("Cargo");
    let cargo_lock = db.file("Cargo.lock");
    std::fs::write(&cargo_lock, "version = 3\n").unwrap();
    for args in [
        &["lock", "break"][..],
        &["lock", "break", "--force", "--yes"],
    ] {
        common::bare(db.dir.path())
            .arg("--db")
            .arg(&cargo)
            .args(args)
            .assert()
            .code(4)
            .stderr(predicate::str::contains("not an emdb lock file"));
    }
    assert_eq!(std::fs::read(&cargo_lock).unwrap(), b"version = 3\n");
    // A file that is not a database, beside its own `.lock`.
    let gem = db.file("Gemfile");
    std::fs::write(&gem, "source 'x'\n").unwrap();
    std::fs::write(db.file("Gemfile.lock"), "GEM\n").unwrap();
    for args in [&["lock", "break"][..], &["lock", "status"]] {
        common::bare(db.dir.path())
            .arg("--db")
            .arg(&gem)
            .args(args)
            .assert()
            .code(4)
            .stderr(predicate::str::contains("not an emdb database"));
    }
    assert_eq!(std::fs::read(db.file("Gemfile.lock")).unwrap(), b"GEM\n");
    // A directory is a usage error, as for every other command.
    let dir = db.file("d");
    std::fs::create_dir(&dir).unwrap();
    for args in [&["lock", "break"][..], &["lock", "status"]] {
        common::bare(db.dir.path())
            .arg("--db")
            .arg(&dir)
            .args(args)
            .assert()
            .code(2);
    }
    // A FIFO is refused at once, not opened (which waits for a writer).
    let fifo = db.file("ff");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for args in [
        &["get", "k"][..],
        &["put", "k", "v"],
        &["lock", "status"],
        &["check"],
        &["check", "--repair", "--yes"],
        &["export", "--salvage"],
    ] {
        common::bare(db.dir.path())
            .arg("--db")
            .arg(&fifo)
            .args(args)
            .timeout(std::time::Duration::from_secs(20))
            .assert()
            .code(4);
    }
    // An emdb database's own stale lock file is still removed.
    db.put("k", "v");
    db.cmd(["lock", "break"])
        .assert()
        .success()
        .stdout(predicate::str::contains("removed the lock file"));
}

/// An empty EMDB_PATH (`export EMDB_PATH=$UNSET`) is named as such; clap
/// blamed `--db`, which was not given.
#[test]
fn an_empty_emdb_path_is_named() {
    let db = TestDb::new();
    common::bare(db.dir.path())
        .env("EMDB_PATH", "")
        .args(["put", "k", "v"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("EMDB_PATH is set but empty"))
        .stderr(predicate::str::contains("--db").not());
}

/// Under a file size limit (`ulimit -f`, systemd's LimitFSIZE=) a write
/// past it is an error naming the file (exit 6) with no temp file left,
/// and a write that fits under it works. SIGXFSZ used to kill the
/// process (exit 153, no message, the export's plaintext temp file left),
/// and a 1 MB database under a 2 MB limit refused every write, since the
/// log grows by whole steps.
#[test]
fn a_file_size_limit_is_an_error_not_a_kill() {
    let db = TestDb::new();
    let val = db.file("val");
    std::fs::write(&val, vec![b'x'; 200_000]).unwrap();
    db.put("a", "1");
    for i in 0..4 {
        db.cmd(["put", &format!("k{i}"), "--file"])
            .arg(&val)
            .assert()
            .success();
    }
    let bin = assert_cmd::cargo::cargo_bin("emdb");
    let limited = |blocks: u32, args: &str| {
        // ulimit -f counts 1024-byte blocks in bash.
        let script = format!("ulimit -f {blocks}; exec \"$0\" --db \"$1\" {args}",);
        std::process::Command::new("bash")
            .arg("-c")
            .arg(script)
            .arg(&bin)
            .arg(&db.path)
            .current_dir(db.dir.path())
            .env("HOME", db.dir.path())
            .output()
            .unwrap()
    };
    let out = limited(2000, "put big --file val");
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let out = limited(500, "export out.jsonl");
    let err = common::text(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{err}");
    assert!(err.contains("too large"), "{err}");
    let out = limited(1000, "put big2 --file val");
    let err = common::text(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{err}");
    assert!(err.contains("hint: the process's file size limit"), "{err}");
    let out = limited(500, "backup bk.emdb");
    let err = common::text(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{err}");
    assert!(err.contains("bk.emdb"), "{err}");
    let mut names: Vec<String> = std::fs::read_dir(db.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["test.emdb", "test.emdb.ckpt", "test.emdb.lock", "val"],
        "temp files left"
    );
    db.cmd(["get", "big"]).assert().success();
}

/// `lock status` and `lock break` refuse an empty file as every command
/// does (exit 4, the file left alone); they said "not locked" and "no lock
/// file; nothing to do" with exit 0 (QA).
#[test]
fn lock_commands_refuse_an_empty_file() {
    let db = TestDb::new();
    let empty = db.file("empty.emdb");
    std::fs::write(&empty, b"").unwrap();
    for args in [["lock", "status"], ["lock", "break"]] {
        common::bare(db.dir.path())
            .arg("--db")
            .arg(&empty)
            .args(args)
            .assert()
            .code(4)
            .stderr(predicate::str::contains("is an empty file"));
    }
    assert_eq!(std::fs::read(&empty).unwrap(), b"");
    assert!(!db.file("empty.emdb.lock").exists());
}

/// A database path holding terminal commands or a newline: the messages and
/// the path lines of `check`, `stats` and `lock status` show it escaped,
/// every error stays one line (and its hint one more), and no ESC or BEL
/// reaches the terminal (QA: a title change and a red screen).
#[test]
fn a_hostile_database_path_is_printed_escaped() {
    let db = common::TestDb::new();
    let path = db.dir.path().join("p\x1b]0;PWN\x07\x1b[31m.emdb");
    let shown = format!(
        "{}/p\\x1b]0;PWN\\x07\\x1b[31m.emdb",
        db.dir.path().display()
    );
    let emdb = |args: &[&str], p: &std::path::Path| {
        let mut c = common::bare(db.dir.path());
        c.arg("--db").arg(p).args(args);
        c
    };
    emdb(&["put", "k", "v"], &path).assert().success();
    let raw = |bytes: &[u8]| bytes.iter().any(|&b| b == 0x1b || b == 0x07);
    let out = emdb(&["check"], &path)
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(!raw(&out.stdout), "{:?}", out.stdout);
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(out.starts_with(&format!("{shown}: 1 records")), "{out}");
    for args in [&["stats"][..], &["lock", "status"]] {
        let out = emdb(args, &path).assert().success().get_output().clone();
        assert!(!raw(&out.stdout), "{args:?}: {:?}", out.stdout);
        let out = String::from_utf8(out.stdout).unwrap();
        assert!(out.contains(&shown), "{args:?}: {out}");
    }
    // A missing file: the error names the path escaped, on one line.
    let missing = db.dir.path().join("p\x1b]0;PWN\x07\x1b[31m.emdbx");
    let out = emdb(&["get", "k"], &missing)
        .assert()
        .code(6)
        .get_output()
        .clone();
    assert!(!raw(&out.stderr), "{:?}", out.stderr);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(&format!("emdb: no database at {shown}x ")),
        "{err}"
    );
    // A newline in the path does not start a line of its own.
    let newline = db.dir.path().join("two\nlines.emdb");
    let out = emdb(&["get", "k"], &newline)
        .assert()
        .code(6)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(err.contains("two\\nlines.emdb"), "{err}");
    assert!(err.lines().nth(1).unwrap().starts_with("  hint: "), "{err}");
    // A backup onto an existing file with such a name: the usage error too.
    let dest = db.dir.path().join("d\x1b[2J.emdb");
    std::fs::write(&dest, b"x").unwrap();
    let mut c = emdb(&["backup"], &path);
    let out = c.arg(&dest).assert().code(2).get_output().clone();
    assert!(!raw(&out.stderr), "{:?}", out.stderr);
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("d\\x1b[2J.emdb already exists"),);
}

/// A new database's name leaves room for the files emdb makes beside it
/// (exit 2 past 233 bytes, nothing created): one of 238-244 bytes was
/// created and written, and then every `compact` failed with "File name
/// too long" (QA). The longest name allowed compacts and encrypts.
#[test]
fn a_new_database_name_leaves_room_for_its_own_files() {
    let db = TestDb::new();
    let long = db.file(&"x".repeat(234));
    common::bare(db.dir.path())
        .arg("--db")
        .arg(&long)
        .args(["put", "k", "v"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("233 bytes at most"));
    assert!(std::fs::read_dir(db.dir.path())
        .unwrap()
        .all(|e| e.unwrap().file_name().len() < 200));
    let path = db.file(&"y".repeat(233));
    let at = |args: &[&str]| {
        let mut c = common::bare(db.dir.path());
        c.arg("--db").arg(&path).args(args);
        c
    };
    for i in 0..50 {
        at(&["put", &format!("k{i}"), "v"]).assert().success();
    }
    at(&["del", "k1"]).assert().success();
    at(&["compact"]).assert().success();
    let key = db.file("raw.key");
    std::fs::write(&key, (100..132u8).collect::<Vec<u8>>()).unwrap();
    at(&["encrypt", "--yes", "--remove-backup", "--key-file"])
        .arg(&key)
        .assert()
        .success();
    at(&["--key-file"])
        .arg(&key)
        .args(["get", "k2"])
        .assert()
        .success()
        .stdout("v\n");
}
