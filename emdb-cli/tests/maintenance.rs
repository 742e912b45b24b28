//! backup, check, check --repair, export --salvage.

// Test helpers: a failure here should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{text, TestDb};
use predicates::prelude::*;

/// A closed database of `n` single-record writes (each its own unit in the
/// log), with its checkpoint removed so an open replays every record.
fn written_one_by_one(n: usize) -> TestDb {
    let db = TestDb::new();
    let lines: String = (0..n)
        // Quoted, so that each put takes the shell's full parser and is
        // its own unit (plain `put K V` lines are grouped into one).
        .map(|i| format!("put 'key{i:04}' value-{i:04}-{}\n", "x".repeat(40)))
        .collect();
    db.cmd(["shell"]).write_stdin(lines).assert().success();
    let _ = std::fs::remove_file(sibling(&db.path, ".ckpt"));
    db
}

fn sibling(path: &std::path::Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// Flip one byte in the middle of the records.
fn damage(db: &TestDb) -> u64 {
    let stats: serde_json::Value = serde_json::from_slice(&db.stdout(["stats", "--json"])).unwrap();
    let end = stats["log_logical_bytes"].as_u64().unwrap();
    let _ = std::fs::remove_file(sibling(&db.path, ".ckpt"));
    let at = 4096 + (end - 4096) / 2;
    let mut bytes = std::fs::read(&db.path).unwrap();
    bytes[at as usize] ^= 0x5a;
    std::fs::write(&db.path, bytes).unwrap();
    at
}

#[test]
fn backup_makes_a_copy_that_opens() {
    let db = TestDb::new();
    db.put("a", "1");
    db.cmd(["-n", "s", "put", "b", "2", "--ttl", "1h"])
        .assert()
        .success();
    let copy = db.file("copy.emdb");
    db.cmd(["backup"])
        .arg(&copy)
        .assert()
        .success()
        .stdout(predicate::str::starts_with("backed up "));
    db.put("a", "changed after the backup");
    let c = |args: &[&str]| {
        let mut cmd = common::bare(db.dir.path());
        cmd.arg("--db").arg(&copy).args(args);
        cmd
    };
    c(&["get", "a"]).assert().success().stdout("1\n");
    c(&["-n", "s", "get", "b"]).assert().success().stdout("2\n");
    c(&["-n", "s", "ttl", "b"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("359"));
    c(&["check"]).assert().success();
    // Never overwrites, never onto the database itself.
    db.cmd(["backup"])
        .arg(&copy)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already exists"));
    db.cmd(["backup"]).arg(&db.path).assert().code(2);
    let report: serde_json::Value = serde_json::from_slice(
        &db.cmd(["backup", "--json"])
            .arg(db.file("copy2.emdb"))
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    assert!(report["bytes"].as_u64().unwrap() > 4096);
    assert_eq!(report["encrypted"], false);
}

#[test]
fn backup_while_another_process_writes() {
    let db = TestDb::new();
    db.put("a", "1");
    let writer = emdb_core::Emdb::open(&db.path).unwrap();
    writer.insert("b", "2").unwrap();
    writer.flush().unwrap();
    let copy = db.file("live.emdb");
    db.cmd(["backup"]).arg(&copy).assert().success();
    drop(writer);
    let mut c = common::bare(db.dir.path());
    c.arg("--db").arg(&copy).args(["get", "b"]);
    c.assert().success().stdout("2\n");
}

#[test]
fn check_a_clean_database() {
    let db = written_one_by_one(50);
    db.cmd(["check"]).assert().success().stdout(
        predicate::str::is_match(
            r"^.*: 50 records in 50 units, \d+ bytes checked \(durable up to offset \d+\): ok\n$",
        )
        .unwrap(),
    );
    let j: serde_json::Value = serde_json::from_slice(&db.stdout(["check", "--json"])).unwrap();
    assert_eq!(j["clean"], true);
    assert_eq!(j["records"], 50);
    assert_eq!(j["damaged"].as_array().unwrap().len(), 0);
    db.cmd(["check", "--repair"])
        .assert()
        .success()
        .stderr("nothing to repair\n");
    db.cmd(["-q", "check"]).assert().success().stdout("");
    db.cmd(["--read-only", "check", "--repair", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--read-only"));
}

#[test]
fn check_finds_damage_and_repair_salvages_the_rest() {
    let db = written_one_by_one(200);
    let before = std::fs::read(&db.path).unwrap();
    let at = damage(&db);
    db.cmd(["get", "key0001"]).assert().code(4);
    let out = db
        .cmd(["check"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("is damaged: 1 range ("))
        .stderr(predicate::str::contains("check --repair"))
        .get_output()
        .stdout
        .clone();
    let out = text(&out);
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("damaged: offset "), "{out}");
    let offset: u64 = first["damaged: offset ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(offset <= at && at < offset + 200, "{offset} {at}\n{out}");
    assert!(out.ends_with(": DAMAGED\n"), "{out}");
    let j: serde_json::Value = serde_json::from_slice(
        &db.cmd(["check", "--json"])
            .assert()
            .code(4)
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(j["clean"], false);
    assert_eq!(j["damaged"][0]["offset"], offset);
    assert_eq!(j["damaged"][0]["durable"], true);
    // Off a terminal, --repair needs --yes; check alone changed nothing.
    db.cmd(["check", "--repair"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("pass --yes"));
    let mut damaged = before.clone();
    damaged[at as usize] ^= 0x5a;
    assert_eq!(std::fs::read(&db.path).unwrap(), damaged);
    db.cmd(["check", "--repair", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "repaired: dropped 1 damaged range (",
        ))
        .stdout(predicate::str::contains("199 keys remain"));
    assert_eq!(
        std::fs::read(sibling(&db.path, ".before-repair")).unwrap(),
        damaged
    );
    db.cmd(["check"]).assert().success();
    db.cmd(["count"]).assert().success().stdout("199\n");
    db.cmd(["get", "key0000"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("value-0000-"));
    // A second repair would overwrite the kept copy: refused.
    damage(&db);
    db.cmd(["check", "--repair", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("before-repair exists"));
}

/// The names in the database's directory, sorted.
fn listing(db: &TestDb) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(db.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn export_salvage_saves_what_verifies_and_never_writes_the_file() {
    let db = written_one_by_one(200);
    let at = damage(&db);
    let damaged = std::fs::read(&db.path).unwrap();
    let names = listing(&db);
    // A plain export fails, and its hint names both ways out.
    db.cmd(["export"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("export --salvage"))
        .stderr(predicate::str::contains("check --repair"))
        .stderr(predicate::str::contains("open with salvage").not());
    // `check` names them too.
    db.cmd(["check"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("export --salvage"));

    let out = db.file("rescued.jsonl");
    db.cmd(["export", "--salvage"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("exported 199 records to "))
        .stdout(predicate::str::contains(
            "salvaged: skipped 1 damaged range (",
        ))
        .stdout(predicate::str::contains(
            "the database file was not changed",
        ));
    // Every record but the damaged one, each intact.
    let dump = std::fs::read_to_string(&out).unwrap();
    let records: Vec<serde_json::Value> = dump
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 199);
    let missing: Vec<usize> = (0..200)
        .filter(|i| {
            !records
                .iter()
                .any(|r| r["key"] == format!("key{i:04}").as_str())
        })
        .collect();
    assert_eq!(missing.len(), 1, "{missing:?}");
    for r in &records {
        let key = r["key"].as_str().unwrap();
        let value = r["value"].as_str().unwrap();
        assert_eq!(
            value,
            format!("value-{}-{}", &key[3..], "x".repeat(40)),
            "{r}"
        );
    }
    // The database: the same bytes, and no file made beside it.
    let mut after = listing(&db);
    after.retain(|n| n != "rescued.jsonl");
    assert_eq!(after, names);
    assert_eq!(std::fs::read(&db.path).unwrap(), damaged);

    // JSON: the skipped range, at the damaged byte.
    let j: serde_json::Value = serde_json::from_slice(
        &db.cmd(["--json", "export", "--salvage", "--force"])
            .arg(&out)
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(j["records"], 199);
    let skipped = &j["salvage"]["skipped"];
    assert_eq!(skipped.as_array().unwrap().len(), 1, "{j}");
    let (off, len) = (
        skipped[0]["offset"].as_u64().unwrap(),
        skipped[0]["len"].as_u64().unwrap(),
    );
    assert!(off <= at && at < off + len, "{off}+{len} {at}");
    assert_eq!(std::fs::read(&db.path).unwrap(), damaged);
}

#[test]
fn export_salvage_of_a_sound_database_says_so() {
    let db = TestDb::new();
    db.put("a", "1");
    db.cmd(["-n", "s", "put", "b", "2"]).assert().success();
    let out = db
        .cmd(["export", "--salvage"])
        .assert()
        .success()
        .stderr(predicate::str::contains("salvage found no damage"))
        .get_output()
        .stdout
        .clone();
    assert_eq!(text(&out).lines().count(), 3, "{}", text(&out));
    let missing = TestDb::new();
    missing.cmd(["export", "--salvage"]).assert().code(6);
}

/// A database of 16,000 records of 1 KiB (about 16 MiB), half overwritten.
fn sixteen_mib() -> TestDb {
    let db = TestDb::new();
    let mut jsonl = String::from("{\"emdb_export\":1,\"namespaces\":[\"\"],\"encrypted\":false}\n");
    for i in (0..16_000).chain(0..8_000) {
        jsonl.push_str(&format!(
            "{{\"key\":\"k{i:05}\",\"value\":\"{}\"}}\n",
            "v".repeat(1000)
        ));
    }
    db.cmd(["import", "-"])
        .write_stdin(jsonl)
        .assert()
        .success();
    db
}

#[test]
fn long_operations_show_the_engines_progress_on_a_terminal() {
    let db = sixteen_mib();
    let key = db.file("k.key");
    std::fs::write(&key, [7u8; 32]).unwrap();
    let new_key = db.file("k2.key");
    std::fs::write(&new_key, [8u8; 32]).unwrap();
    let backup = db.file("b.emdb");
    let key_arg = format!("--key-file '{}'", key.display());
    for (args, label) in [
        ("compact".to_string(), "compacting ["),
        ("check".to_string(), "checking ["),
        (format!("backup '{}'", backup.display()), "backing up ["),
        (format!("encrypt {key_arg} --yes"), "encrypting ["),
        (
            format!(
                "{key_arg} rotate-key --new-key-file '{}' --yes",
                new_key.display()
            ),
            "re-encrypting [",
        ),
    ] {
        let Some((code, screen)) = common::on_terminal(&db, &args, "") else {
            return;
        };
        assert_eq!(code, 0, "{args}: {screen}");
        // A bar of bytes against the engine's total (several MiB), not a
        // spinner counting nothing ("compacting 0").
        assert!(screen.contains(label), "{args}: {screen}");
        assert!(screen.contains(" MiB ("), "{args}: {screen}");
        assert!(!screen.contains("compacting 0"), "{args}: {screen}");
    }
}

#[test]
fn check_of_a_missing_database_exits_6() {
    let db = TestDb::new();
    db.cmd(["check"]).assert().code(6);
}

/// A repair whose copy of the damaged file fails halfway (here at the file
/// size limit) leaves no partial `<db>.before-repair`: the copy is made
/// under a temporary name and removed. One killed there (kill -9) leaves
/// that temporary name, and the next repair removes it and goes ahead.
#[test]
fn a_repair_killed_during_its_copy_does_not_block_the_next() {
    let db = written_one_by_one(200);
    damage(&db);
    let damaged = std::fs::read(&db.path).unwrap();
    let blocks = (damaged.len() / 4 / 1024).max(1);
    assert!(blocks * 1024 < damaged.len(), "{}", damaged.len());
    let killed = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -f {blocks} && exec \"$0\" \"$@\""))
        .arg(assert_cmd::cargo::cargo_bin("emdb"))
        .arg("--db")
        .arg(&db.path)
        .args(["check", "--repair", "--yes"])
        .env("HOME", db.dir.path())
        .env("XDG_DATA_HOME", db.dir.path().join("data"))
        .env_remove("EMDB_PATH")
        .env_remove("EMDB_LOCK_TIMEOUT")
        .output()
        .unwrap();
    // Past the file size limit the copy fails (EFBIG, exit 6; SIGXFSZ no
    // longer kills the process), and the partial copy is removed.
    assert_eq!(killed.status.code(), Some(6), "{killed:?}");
    assert!(
        !sibling(&db.path, ".before-repair").exists(),
        "a partial copy under the real name"
    );
    assert!(!sibling(&db.path, ".before-repair.tmp").exists());
    assert_eq!(std::fs::read(&db.path).unwrap(), damaged);
    // What a repair killed mid-copy (kill -9) leaves: a partial copy under
    // the temporary name.
    std::fs::write(
        sibling(&db.path, ".before-repair.tmp"),
        &damaged[..damaged.len() / 2],
    )
    .unwrap();
    db.cmd(["check", "--repair", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("199 keys remain"));
    assert_eq!(
        std::fs::read(sibling(&db.path, ".before-repair")).unwrap(),
        damaged
    );
    assert!(!sibling(&db.path, ".before-repair.tmp").exists());
}

/// A repair that fails after keeping its copy, having changed nothing
/// (here: another process holds the writer lock), removes the copy and
/// says so, so the next repair is not refused; a copy left by a repair
/// killed after its copy, identical to the file, is taken as the next
/// repair's own. Before, both left `<db>.before-repair` in the way (exit 2,
/// "from an earlier repair").
#[test]
fn a_repair_that_changed_nothing_leaves_nothing_in_the_way() {
    let db = written_one_by_one(200);
    damage(&db);
    let damaged = std::fs::read(&db.path).unwrap();
    let keep = sibling(&db.path, ".before-repair");
    // `-o`: the lock stays with flock, not the sleep, so killing it frees it.
    let mut holder = std::process::Command::new("flock")
        .args(["-o", "-x"])
        .arg(sibling(&db.path, ".lock"))
        .args(["sleep", "60"])
        .spawn()
        .unwrap();
    // flock(1) takes a BSD lock, which the writer's open meets.
    common::wait_until(20, "flock(1) to hold the lock", || {
        !std::process::Command::new("flock")
            .args(["-n", "-x"])
            .arg(sibling(&db.path, ".lock"))
            .arg("true")
            .status()
            .unwrap()
            .success()
    });
    db.cmd(["--lock-timeout", "0", "check", "--repair", "--yes"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("the repair changed nothing"));
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(!keep.exists());
    assert_eq!(std::fs::read(&db.path).unwrap(), damaged);
    // What a repair killed right after its copy leaves.
    std::fs::write(&keep, &damaged).unwrap();
    db.cmd(["check", "--repair", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("199 keys remain"))
        .stderr(predicate::str::contains("using it as this repair's copy"))
        .stderr(predicate::str::contains("older value"));
    assert_eq!(std::fs::read(&keep).unwrap(), damaged);
    // A copy that differs from the file is still never overwritten.
    db.cmd(["put", "more", "x"]).assert().success();
    damage(&db);
    db.cmd(["check", "--repair", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the database has changed since"));
    assert_eq!(std::fs::read(&keep).unwrap(), damaged);
}

/// A repair killed or failed after its writer open claimed the file (one
/// sync slot rewritten, nothing else) leaves a copy that differs from the
/// file in that slot only: the next repair takes it as its own. Before, it
/// refused (exit 2, "the database has changed since"), after a Ctrl-C
/// too. A difference anywhere else is still refused.
#[test]
fn a_copy_that_differs_only_in_a_sync_slot_is_the_next_repairs_own() {
    let db = written_one_by_one(200);
    damage(&db);
    let damaged = std::fs::read(&db.path).unwrap();
    let keep = sibling(&db.path, ".before-repair");
    let mut copy = damaged.clone();
    for b in &mut copy[2048..2080] {
        *b ^= 0x5a;
    }
    std::fs::write(&keep, &copy).unwrap();
    db.cmd(["check", "--repair", "--yes"])
        .assert()
        .success()
        .stderr(predicate::str::contains("using it as this repair's copy"));
    assert_eq!(std::fs::read(&keep).unwrap(), copy);
    std::fs::remove_file(&keep).unwrap();
    // One byte past the slot is a change.
    db.cmd(["put", "more", "x"]).assert().success();
    damage(&db);
    let mut other = std::fs::read(&db.path).unwrap();
    other[2080] ^= 1;
    std::fs::write(&keep, &other).unwrap();
    db.cmd(["check", "--repair", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the database has changed since"));
}

/// Ctrl-C during an encrypted backup removes the copy it was sealing
/// (`DEST.emdb-backup-<host>-<pid>.fork` and its files); before, they
/// stayed, and only a backup to the same DEST removed them. Nothing that
/// was there before is removed: a directory that happens to be named
/// `DEST.tmp` stays.
#[test]
fn an_interrupted_backup_leaves_no_temporary_files() {
    use std::os::unix::process::ExitStatusExt;
    let db = TestDb::new();
    let precious = db.file("bk.emdb.tmp");
    std::fs::create_dir(&precious).unwrap();
    std::fs::write(precious.join("notes.txt"), "precious").unwrap();
    let secret = db.file("pw.txt");
    std::fs::write(&secret, "pw\n").unwrap();
    let records = common::records(50_000, 100);
    db.cmd(["-q", "--passphrase-file"])
        .arg(&secret)
        .args(["import", "-"])
        .write_stdin(records)
        .assert()
        .success();
    let dest = db.file("bk.emdb");
    let mut child = common::child(&db, ["--passphrase-file"])
        .arg(&secret)
        .args(["-q", "backup"])
        .arg(&dest)
        .spawn()
        .unwrap();
    let fork = format!("-{}.fork", child.id());
    common::wait_until(30, "the backup's copy", || {
        std::fs::read_dir(db.dir.path()).unwrap().any(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.starts_with("bk.emdb.emdb-backup-") && name.ends_with(&fork)
        })
    });
    common::signal(child.id(), "INT");
    assert_eq!(child.wait().unwrap().signal(), Some(2));
    let left: Vec<String> = std::fs::read_dir(db.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("bk.emdb"))
        .collect();
    assert_eq!(left, ["bk.emdb.tmp"]);
    assert_eq!(
        std::fs::read_to_string(precious.join("notes.txt")).unwrap(),
        "precious"
    );
}

/// In `emdb shell`, an `import` after an `export` still handles Ctrl-C
/// itself: the batches before it are kept and the shell goes on. Before,
/// the export's Ctrl-C handling, left installed, ended the whole shell.
#[test]
fn ctrl_c_during_an_import_after_an_export_in_a_shell_stops_only_the_import() {
    let db = TestDb::new();
    db.put("seed", "1");
    let input = db.file("big.jsonl");
    let records = common::records(300_000, 40);
    std::fs::write(&input, records).unwrap();
    let script = format!(
        "export {}\nimport {}\nput after 1\n",
        db.file("e.jsonl").display(),
        input.display()
    );
    let mut child = common::child(&db, ["shell"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, script.as_bytes()).unwrap();
    drop(stdin);
    // Interrupt once the import has committed a batch.
    common::wait_for_count(&db, 60, "no batch", |n| n > 1);
    common::signal(child.id(), "INT");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted: imported"), "{err}");
    db.cmd(["get", "after"]).assert().success().stdout("1\n");
}

/// Ctrl-C (or SIGTERM) during `compact` removes the new log it was
/// writing, `<db>.compact.tmp` (every live record, in plaintext for a plain
/// database), and ends the process by the signal; the database is left
/// whole. Before, the file stayed until the next writer's open, through
/// `encrypt` and `rotate-key` too.
#[test]
fn an_interrupted_compact_leaves_no_new_log() {
    use std::os::unix::process::ExitStatusExt;
    let db = TestDb::new();
    db.cmd(["-q", "import", "-"])
        .write_stdin(common::records(300_000, 100))
        .assert()
        .success();
    let tmp = db.file("test.emdb.compact.tmp");
    for signal in ["INT", "TERM"] {
        let mut child = common::child(&db, ["-q", "compact"]).spawn().unwrap();
        common::wait_until(30, "the compaction's new file", || tmp.exists());
        common::signal(child.id(), signal);
        let status = child.wait().unwrap();
        if status.success() {
            println!("compact finished before SIG{signal}");
            return;
        }
        assert!(status.signal().is_some(), "{status:?}");
        assert!(!tmp.exists(), "left after SIG{signal}");
        db.cmd(["count"]).assert().success().stdout("300000\n");
    }
}

/// A repair run through a symlink keeps its copy beside the file the link
/// resolves to, where every other command (and `encrypt`'s note about a
/// plaintext copy) looks for it. Before, it was put beside the link.
#[test]
fn a_repair_through_a_symlink_keeps_its_copy_beside_the_real_file() {
    let db = written_one_by_one(200);
    damage(&db);
    let link = db.file("link.emdb");
    std::os::unix::fs::symlink(&db.path, &link).unwrap();
    common::bare(db.dir.path())
        .arg("--db")
        .arg(&link)
        .args(["check", "--repair", "--yes"])
        .assert()
        .success();
    assert!(sibling(&db.path, ".before-repair").exists());
    assert!(!db.file("link.emdb.before-repair").exists());
}

/// Backups to one DEST at once, in separate processes: exactly one
/// succeeds, the others exit 2 as a backup onto an existing file does, and
/// the copy is whole, with no temp file left. Before, they shared the temp
/// names `DEST.tmp` / `DEST.fork.tmp`, removed and renamed each other's
/// files, and failed with exit 6 (`rename failed in DEST: No such file or
/// directory`, `create failed in DEST.tmp: File exists`), all of them at
/// times, leaving no backup.
#[test]
fn concurrent_backups_to_one_dest_make_one_copy() {
    let db = TestDb::new();
    db.cmd(["-q", "import", "-"])
        .write_stdin(common::records(100_000, 50))
        .assert()
        .success();
    common::race_to_one_new_file(
        &db,
        "backup",
        &db.file("copy.emdb"),
        "already exists",
        |dest| {
            common::bare(db.dir.path())
                .arg("--db")
                .arg(dest)
                .arg("count")
                .assert()
                .success()
                .stdout("100000\n");
        },
    );
}
