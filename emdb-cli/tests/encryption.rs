//! encrypt, decrypt, rotate-key; secrets from files, the environment and a
//! hidden prompt; exit 5 for a wrong or missing secret.

// Test helpers: a failure here should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::TestDb;
use predicates::prelude::*;

const PASS: &str = "correct horse battery staple";

fn with_data() -> TestDb {
    let db = TestDb::new();
    db.put("a", "1");
    db.put("marker", "plaintext-marker-9f3a");
    db.cmd(["-n", "s", "put", "b", "2", "--ttl", "1h"])
        .assert()
        .success();
    db
}

fn write(db: &TestDb, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = db.file(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn backup_of(db: &TestDb) -> std::path::PathBuf {
    let mut name = db.path.clone().into_os_string();
    name.push(".encbak");
    name.into()
}

#[test]
fn encrypt_decrypt_round_trip_with_a_passphrase_file() {
    let db = with_data();
    let pass = write(&db, "pass.txt", format!("{PASS}\n").as_bytes());
    let plain = std::fs::read(&db.path).unwrap();
    // Off a terminal a rewrite needs --yes.
    db.cmd(["encrypt", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("pass --yes"));
    db.cmd(["encrypt", "--yes", "--keep-backup", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success()
        .stdout(predicate::str::contains("with AES-256-GCM"))
        .stdout(predicate::str::contains(".encbak"));
    assert_eq!(std::fs::read(backup_of(&db)).unwrap(), plain);
    // A plaintext copy beside the encrypted database: `stats` and `check`
    // say so (before, only the next encryption change did, with exit 8).
    for cmd in ["stats", "check"] {
        db.cmd(["--passphrase-file"])
            .arg(&pass)
            .arg(cmd)
            .assert()
            .success()
            .stderr(predicate::str::contains(".encbak exists"));
    }
    let sealed = std::fs::read(&db.path).unwrap();
    assert!(plain.windows(21).any(|w| w == b"plaintext-marker-9f3a"));
    assert!(
        !sealed.windows(21).any(|w| w == b"plaintext-marker-9f3a"),
        "plain data left in the encrypted file"
    );
    // Without the secret: exit 5 with a hint, never a prompt off a terminal.
    db.cmd(["get", "a"])
        .assert()
        .code(5)
        .stderr(predicate::str::contains(
            "is encrypted and no key or passphrase was given",
        ))
        .stderr(predicate::str::contains("--passphrase-file"));
    db.cmd(["--passphrase-file"])
        .arg(&pass)
        .args(["get", "a"])
        .assert()
        .success()
        .stdout("1\n");
    db.cmd(["-n", "s", "ttl", "b", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success()
        .stdout(predicate::str::starts_with("359"));
    // Writing and checking work with it too.
    db.cmd(["put", "c", "3", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success();
    db.cmd(["check", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success();
    let stats: serde_json::Value = serde_json::from_slice(
        &db.cmd(["stats", "--json", "--passphrase-file"])
            .arg(&pass)
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(stats["encrypted"], true);
    // A second encryption change waits until the kept backup is dealt
    // with: its own exit code, not a usage error.
    db.cmd(["decrypt", "--yes", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .code(8)
        .stderr(predicate::str::contains(".encbak exists"));
    std::fs::remove_file(backup_of(&db)).unwrap();
    db.cmd(["decrypt", "--yes", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success()
        .stdout(predicate::str::contains("the old file was removed"));
    assert!(!backup_of(&db).exists());
    db.cmd(["get", "c"]).assert().success().stdout("3\n");
    db.cmd(["decrypt", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not encrypted"));
    // A secret for a plain database is refused rather than ignored.
    db.cmd(["get", "a", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .code(5)
        .stderr(predicate::str::contains("is not encrypted"));
}

#[test]
fn key_files_raw_and_hex_and_rotation_to_a_passphrase() {
    let db = with_data();
    let raw: Vec<u8> = (100..132).collect();
    let raw_key = write(&db, "raw.key", &raw);
    let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let hex_key = write(&db, "hex.key", format!("{hex}\n").as_bytes());
    db.cmd([
        "encrypt",
        "--yes",
        "--remove-backup",
        "--cipher",
        "chacha",
        "--key-file",
    ])
    .arg(&raw_key)
    .assert()
    .success()
    .stdout(predicate::str::contains("ChaCha20-Poly1305"));
    // The same key, written as hex.
    db.cmd(["--key-file"])
        .arg(&hex_key)
        .args(["get", "a"])
        .assert()
        .success()
        .stdout("1\n");
    // EMDB_KEY_FILE.
    db.cmd(["get", "a"])
        .env("EMDB_KEY_FILE", &raw_key)
        .assert()
        .success()
        .stdout("1\n");
    // A wrong key: exit 5.
    let wrong = write(&db, "wrong.key", &[7u8; 32]);
    db.cmd(["--key-file"])
        .arg(&wrong)
        .args(["get", "a"])
        .assert()
        .code(5)
        .stderr(predicate::str::starts_with("emdb: wrong encryption key"));
    // A bad key file: exit 7, naming the file but not its contents.
    let bad = write(&db, "bad.key", b"0011deadbeef");
    db.cmd(["--key-file"])
        .arg(&bad)
        .args(["get", "a"])
        .assert()
        .code(7)
        .stderr(predicate::str::contains("bad.key is not a key file"))
        .stderr(predicate::str::contains("deadbeef").not());
    // Rotate from the key to a passphrase.
    let new_pass = write(&db, "new.txt", PASS.as_bytes());
    db.cmd(["rotate-key", "--yes", "--key-file"])
        .arg(&wrong)
        .arg("--new-passphrase-file")
        .arg(&new_pass)
        .assert()
        .code(5);
    db.cmd(["rotate-key", "--yes", "--keep-backup", "--key-file"])
        .arg(&raw_key)
        .arg("--new-passphrase-file")
        .arg(&new_pass)
        .assert()
        .success()
        .stdout(predicate::str::starts_with("re-encrypted "));
    db.cmd(["--key-file"])
        .arg(&raw_key)
        .args(["get", "a"])
        .assert()
        .code(5);
    db.cmd(["-n", "s", "get", "b"])
        .env("EMDB_PASSPHRASE", PASS)
        .assert()
        .success()
        .stdout("2\n");
    // The backup still opens with the old key.
    let mut old = common::bare(db.dir.path());
    old.arg("--db")
        .arg(backup_of(&db))
        .arg("--key-file")
        .arg(&raw_key)
        .args(["get", "a"]);
    old.assert().success().stdout("1\n");
    // rotate-key without a new secret, off a terminal.
    std::fs::remove_file(backup_of(&db)).unwrap();
    db.cmd(["rotate-key", "--yes"])
        .env("EMDB_PASSPHRASE", PASS)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no new key or passphrase"));
}

#[test]
fn wrong_passphrase_exits_5_and_secrets_never_print() {
    let db = with_data();
    let pass = write(&db, "pass.txt", PASS.as_bytes());
    db.cmd(["encrypt", "--yes", "--remove-backup", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success();
    for args in [
        vec!["get", "a"],
        vec!["put", "a", "2"],
        vec!["check"],
        vec!["export"],
        vec!["decrypt", "--yes"],
    ] {
        let out = db
            .cmd(&args)
            .env("EMDB_PASSPHRASE", "not the passphrase")
            .assert()
            .code(5)
            .get_output()
            .clone();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(all.contains("wrong encryption key"), "{args:?}: {all}");
        assert!(!all.contains("not the passphrase"), "{args:?}: {all}");
    }
    // Both environment variables at once: refused, not guessed.
    db.cmd(["get", "a"])
        .env("EMDB_PASSPHRASE", PASS)
        .env("EMDB_KEY_FILE", &pass)
        .assert()
        .code(2);
    db.cmd(["encrypt", "--yes"])
        .env("EMDB_PASSPHRASE", PASS)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already encrypted"));
}

#[test]
fn encrypt_needs_a_secret_off_a_terminal() {
    let db = with_data();
    db.cmd(["encrypt", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("needs the new key or passphrase"));
    db.cmd(["--read-only", "encrypt", "--yes"])
        .env("EMDB_PASSPHRASE", PASS)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--read-only"));
    assert!(!backup_of(&db).exists());
}

#[test]
fn hidden_prompts_on_a_terminal() {
    let db = with_data();
    // encrypt: the new passphrase twice, then the confirmation.
    let Some((code, screen)) = common::on_terminal_with(
        &db,
        "encrypt",
        &[&format!("{PASS}\n"), &format!("{PASS}\n"), "y\n"],
    ) else {
        return;
    };
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("New passphrase for"), "{screen}");
    assert!(screen.contains("Repeat the new passphrase"), "{screen}");
    assert!(
        !screen.contains(PASS),
        "the passphrase was echoed: {screen}"
    );
    assert!(screen.contains("encrypted "), "{screen}");
    // get: asks for the passphrase once.
    let Some((code, screen)) = common::on_terminal_with(&db, "get a", &[&format!("{PASS}\n")])
    else {
        return;
    };
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("Passphrase for"), "{screen}");
    assert!(!screen.contains(PASS), "{screen}");
    assert!(screen.trim_end().ends_with('1'), "{screen}");
    // A wrong one typed: exit 5.
    let Some((code, screen)) = common::on_terminal_with(&db, "get a", &["nope\n"]) else {
        return;
    };
    assert_eq!(code, 5, "{screen}");
    // Mismatched new passphrases change nothing. (The backup of the
    // encryption above was deleted once the new file was verified.)
    assert!(!backup_of(&db).exists());
    let Some((code, screen)) = common::on_terminal_with(
        &db,
        &format!(
            "rotate-key --passphrase-file {}",
            write(&db, "p", PASS.as_bytes()).display()
        ),
        &["one\n", "two\n"],
    ) else {
        return;
    };
    assert_eq!(code, 2, "{screen}");
    assert!(screen.contains("the two passphrases differ"), "{screen}");
}

#[test]
fn rewriting_while_locked_exits_3() {
    let db = with_data();
    let holder = emdb_core::Emdb::open(&db.path).unwrap();
    db.cmd(["encrypt", "--yes"])
        .env("EMDB_PASSPHRASE", PASS)
        .env("EMDB_LOCK_TIMEOUT", "0")
        .assert()
        .code(3);
    drop(holder);
    assert!(!backup_of(&db).exists());
}

#[test]
fn encrypt_then_rotate_twice_needs_no_cleanup_and_leaves_no_backup() {
    let db = with_data();
    let first = write(&db, "first.txt", b"first passphrase\n");
    let second = write(&db, "second.key", &[7u8; 32]);
    let third = write(&db, "third.txt", b"third passphrase\n");
    db.cmd(["encrypt", "--yes", "--passphrase-file"])
        .arg(&first)
        .assert()
        .success()
        .stdout(predicate::str::contains("the old file was removed"));
    // The plaintext backup is gone right away.
    assert!(!backup_of(&db).exists());
    db.cmd(["rotate-key", "--yes", "--passphrase-file"])
        .arg(&first)
        .arg("--new-key-file")
        .arg(&second)
        .assert()
        .success();
    assert!(!backup_of(&db).exists());
    db.cmd(["rotate-key", "--yes", "--key-file"])
        .arg(&second)
        .arg("--new-passphrase-file")
        .arg(&third)
        .assert()
        .success();
    assert!(!backup_of(&db).exists());
    db.cmd(["get", "a", "--passphrase-file"])
        .arg(&third)
        .assert()
        .success()
        .stdout("1\n");
    db.cmd(["get", "a", "--passphrase-file"])
        .arg(&first)
        .assert()
        .code(5);
}

#[test]
fn the_readme_encrypt_example_works_off_a_terminal() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.contains(" encrypt --key-file "))
        .expect("the README shows `encrypt --key-file`");
    let command = line.split('#').next().unwrap();
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let db = with_data();
    std::fs::write(db.dir.path().join("key.bin"), [9u8; 32]).unwrap();
    std::fs::copy(&db.path, db.dir.path().join("app.emdb")).unwrap();
    common::bare(db.dir.path())
        .current_dir(db.dir.path())
        .args(&args)
        .assert()
        .success();
    common::bare(db.dir.path())
        .current_dir(db.dir.path())
        .args(["--db", "./app.emdb", "--key-file", "./key.bin", "get", "a"])
        .assert()
        .success()
        .stdout("1\n");
}

/// The help says what the backup options do: the old file is deleted once
/// the new one is verified, `--keep-backup` keeps it, and the deprecated
/// `--remove-backup` is not offered (it changes nothing).
#[test]
fn help_describes_the_backup_as_deleted_unless_kept() {
    let db = TestDb::new();
    // Words as clap wraps them, joined by single spaces.
    let help = |args: &[&str]| -> String {
        let out = common::text(&db.cmd(args).assert().success().get_output().stdout);
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let top = help(&["--help"]);
    assert!(!top.contains("kept as `<db>.encbak`"), "{top}");
    for cmd in ["encrypt", "decrypt", "rotate-key"] {
        let text = help(&[cmd, "--help"]);
        assert!(!text.contains("--remove-backup"), "{cmd}: {text}");
        assert!(!text.contains("until you remove it"), "{cmd}: {text}");
        assert!(text.contains("--keep-backup keeps it"), "{cmd}: {text}");
        assert!(
            text.contains("--keep-backup Keep the old file"),
            "{cmd}: {text}"
        );
    }
}

/// `--remove-backup` (deprecated, the default now) does not remove a
/// leftover `.encbak`: that still stops the rewrite with exit 8.
#[test]
fn remove_backup_leaves_a_leftover_backup_alone() {
    let db = with_data();
    let pass = write(&db, "pass.txt", PASS.as_bytes());
    db.cmd(["encrypt", "--yes", "--keep-backup", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success();
    let backup = db.file("test.emdb.encbak");
    assert!(backup.exists());
    db.cmd(["decrypt", "--yes", "--remove-backup", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .code(8);
    assert!(backup.exists());
}

/// A read-only shell whose database another process encrypts under it
/// says why its reads fail from then on: the file is encrypted, and it has
/// no secret for it (not the engine's advice to pass `encryption_key`),
/// with the hint to start again.
#[test]
fn a_read_only_shell_whose_database_is_encrypted_under_it_says_why() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let db = TestDb::new();
    db.put("a", "1");
    let mut child = common::child(&db, ["--read-only", "shell"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let _ = tx.send(line.unwrap());
        }
    });
    stdin.write_all(b"get a\n").unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "1\n");
    let secret = write(&db, "secret.txt", b"pw\n");
    db.cmd(["encrypt", "--yes", "--passphrase-file"])
        .arg(&secret)
        .assert()
        .success();
    // The shell's follower notices the new file within 50 ms or so; ask
    // until a read fails.
    let start = Instant::now();
    let mut said = Vec::new();
    while !said.iter().any(|l: &String| l.contains("hint:")) {
        assert!(start.elapsed() < Duration::from_secs(30), "{said:?}");
        stdin.write_all(b"get a\n").unwrap();
        stdin.flush().unwrap();
        said.extend(rx.recv_timeout(Duration::from_millis(200)));
    }
    drop(stdin);
    let status = child.wait().unwrap();
    errors.join().unwrap();
    said.extend(rx.try_iter());
    let said = said.join("\n");
    assert!(!status.success(), "{said}");
    assert!(
        said.contains("is encrypted, and this process has no key or passphrase for it"),
        "{said}"
    );
    assert!(said.contains("start the command again"), "{said}");
    assert!(!said.contains("encryption_key"), "{said}");
}

/// What a killed compaction of the plain database left beside it (its new
/// log: every live record in plaintext) does not outlive `encrypt`, which
/// removes it under the writer lock as a writer's open would. Before, it
/// stayed through `encrypt` and `rotate-key`, and `check` said nothing. A
/// plaintext copy a repair kept is named when the encryption is done.
#[test]
fn encrypt_removes_a_killed_compactions_plaintext_and_names_a_repair_copy() {
    let db = with_data();
    let pass = write(&db, "pass.txt", format!("{PASS}\n").as_bytes());
    let left = db.file("test.emdb.compact.tmp");
    std::fs::write(&left, "plaintext-marker-9f3a").unwrap();
    let repair_copy = db.file("test.emdb.before-repair");
    std::fs::write(&repair_copy, "plaintext-marker-9f3a").unwrap();
    db.cmd(["encrypt", "--yes", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success()
        .stderr(predicate::str::contains("before-repair"))
        .stderr(predicate::str::contains("was not re-encrypted"));
    assert!(!left.exists(), "the compaction's leftover survived encrypt");
    assert!(
        repair_copy.exists(),
        "the repair's copy is the user's to delete"
    );
}

/// A second encryption change that finds `<db>.encbak` while the writer
/// lock is held (the first change is still verifying its new file, before
/// it deletes the backup) is told the lock is busy (exit 3), not that an
/// earlier change was interrupted (exit 8) and to delete the backup.
#[test]
fn a_backup_beside_a_held_lock_is_a_busy_lock_not_a_leftover() {
    let db = with_data();
    let pass = write(&db, "pass.txt", format!("{PASS}\n").as_bytes());
    std::fs::write(backup_of(&db), "a backup being verified").unwrap();
    let writer = emdb_core::Emdb::open(&db.path).unwrap();
    db.cmd(["encrypt", "--yes", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("locked by another writer"))
        .stderr(predicate::str::contains("interrupted").not());
    drop(writer);
    db.cmd(["encrypt", "--yes", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .code(8)
        .stderr(predicate::str::contains("interrupted"));
}

/// Ctrl-C (or SIGTERM) during `decrypt` removes the new, plaintext file it
/// was writing (`<db>.enc.tmp` and its siblings) and ends the process by
/// the signal; the database stays encrypted and whole. Before, the
/// plaintext copy stayed beside the encrypted database until a writer
/// opened it, and reading commands said nothing.
#[test]
fn an_interrupted_decrypt_leaves_no_plaintext_copy() {
    use std::os::unix::process::ExitStatusExt;
    let db = TestDb::new();
    let pass = write(&db, "pass.txt", format!("{PASS}\n").as_bytes());
    db.cmd(["-q", "--passphrase-file"])
        .arg(&pass)
        .args(["import", "-"])
        .write_stdin(common::records(200_000, 100))
        .assert()
        .success();
    for signal in ["INT", "TERM"] {
        // What a decrypt killed with -9 left: the retry's Ctrl-C removes
        // what it finds at those names once it holds the lock.
        std::fs::write(db.file("test.emdb.enc.tmp.lock"), "").unwrap();
        let mut child = common::child(&db, ["-q", "--passphrase-file"])
            .arg(&pass)
            .args(["decrypt", "--yes"])
            .spawn()
            .unwrap();
        let tmp = db.file("test.emdb.enc.tmp");
        common::wait_until(30, "the new file", || tmp.exists());
        std::thread::sleep(std::time::Duration::from_millis(50));
        common::signal(child.id(), signal);
        let status = child.wait().unwrap();
        if status.success() {
            // The decrypt won the race: nothing to check this time.
            println!("decrypt finished before SIG{signal}");
            return;
        }
        assert!(status.signal().is_some(), "{status:?}");
        let left: Vec<String> = std::fs::read_dir(db.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".enc.tmp"))
            .collect();
        assert!(left.is_empty(), "left after SIG{signal}: {left:?}");
        db.cmd(["--passphrase-file"])
            .arg(&pass)
            .args(["count"])
            .assert()
            .success()
            .stdout("200000\n");
        db.cmd(["count"]).assert().code(5);
    }
}

/// `stats` and `check` name the new file a killed `decrypt` (or `encrypt`,
/// `rotate-key`, `compact`) left beside the database, as they name
/// `<db>.encbak`: after a decrypt it is a plaintext copy. Before, nothing
/// but the next writer's open noticed it. While a writer holds the lock
/// (the file may be in the making) they say nothing.
#[test]
fn stats_and_check_name_the_files_a_killed_rewrite_left() {
    let db = with_data();
    std::fs::write(db.file("test.emdb.enc.tmp"), "x").unwrap();
    std::fs::write(db.file("test.emdb.compact.tmp"), "x").unwrap();
    for cmd in ["stats", "check"] {
        db.cmd([cmd])
            .assert()
            .success()
            .stderr(predicate::str::contains(
                "test.emdb.enc.tmp is the new file",
            ))
            .stderr(predicate::str::contains(
                "test.emdb.compact.tmp is the new file",
            ));
    }
    let writer = emdb_core::Emdb::open(&db.path).unwrap();
    // (Its open removed them; these stand for files it writes now.)
    std::fs::write(db.file("test.emdb.compact.tmp"), "x").unwrap();
    db.cmd(["stats"])
        .assert()
        .success()
        .stderr(predicate::str::contains(".tmp").not());
    drop(writer);
}

/// A directory at `<db>.compact.tmp` is named as what it is: no writer
/// removes it, and every compaction fails on it. `stats` said the next
/// writer would remove it (QA).
#[test]
fn a_directory_where_a_temp_file_goes_is_named_as_one() {
    let db = with_data();
    std::fs::create_dir(db.file("test.emdb.compact.tmp")).unwrap();
    db.cmd(["stats"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "test.emdb.compact.tmp is a directory where emdb writes a temporary file",
        ))
        .stderr(predicate::str::contains("removes it").not());
}

/// A damaged encryption block (the header's bytes 1024..1124) cannot be
/// salvaged or repaired around: the error's hint says to restore a backup.
/// Before, it sent the user to `export --salvage` and `check --repair`,
/// which fail the same way.
#[test]
fn a_damaged_encryption_block_is_told_to_restore_a_backup() {
    let db = with_data();
    let pass = write(&db, "pass.txt", format!("{PASS}\n").as_bytes());
    db.cmd(["encrypt", "--yes", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success();
    let mut bytes = std::fs::read(&db.path).unwrap();
    bytes[1060] ^= 0xff;
    std::fs::write(&db.path, bytes).unwrap();
    for args in [&["get", "a"][..], &["check", "--repair", "--yes"][..]] {
        db.cmd(["--passphrase-file"])
            .arg(&pass)
            .args(args)
            .assert()
            .code(4)
            .stderr(predicate::str::contains("encryption block"))
            .stderr(predicate::str::contains("restore a backup"))
            .stderr(predicate::str::contains("--salvage").not());
    }
}

/// An encryption change still waiting for the writer lock (`--lock-timeout`)
/// when Ctrl-C or SIGTERM comes removes nothing: the `<db>.enc.tmp` there
/// is another process's. Before, its Ctrl-C handling deleted whatever
/// appeared at that name while it waited.
#[test]
fn an_encryption_change_waiting_for_the_lock_removes_nothing_when_stopped() {
    let db = with_data();
    let pass = write(&db, "pass.txt", format!("{PASS}\n").as_bytes());
    let writer = emdb_core::Emdb::open(&db.path).unwrap();
    let mut child = common::child(&db, ["--lock-timeout", "60s", "--passphrase-file"])
        .arg(&pass)
        .args(["encrypt", "--yes"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let theirs = db.file("test.emdb.enc.tmp");
    std::fs::write(&theirs, "another change's file").unwrap();
    common::signal(child.id(), "TERM");
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert!(theirs.exists(), "a file it never wrote was removed");
    drop(writer);
}

/// A second encryption change started with `--lock-timeout` while the
/// first one runs (here stood for by a writer holding the lock beside the
/// backup it will delete, as the first does while it verifies) waits for
/// it, then runs. Before, it exited 8 at once ("an earlier encryption
/// change was interrupted ... delete the backup"), or 3 without waiting.
#[test]
fn a_second_encryption_change_waits_for_the_first() {
    let db = with_data();
    let pass = write(&db, "pass.txt", format!("{PASS}\n").as_bytes());
    let first = emdb_core::Emdb::open(&db.path).unwrap();
    std::fs::write(backup_of(&db), "the first change's backup").unwrap();
    let second = common::child(&db, ["-q", "--lock-timeout", "30s", "--passphrase-file"])
        .arg(&pass)
        .args(["encrypt", "--yes"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    // The first change ends: its backup is deleted, then its lock let go.
    std::fs::remove_file(backup_of(&db)).unwrap();
    drop(first);
    let out = second.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    db.cmd(["--passphrase-file"])
        .arg(&pass)
        .args(["get", "marker"])
        .assert()
        .success()
        .stdout("plaintext-marker-9f3a\n");
}
