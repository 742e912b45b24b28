//! The real `emdb-tui` binary's failures before the UI starts: each one has
//! the exit code, message and hint of the shared toolkit (emdb-tools), the
//! same the `emdb` command prints for the same failure (round 1 exited 2
//! with a library-call hint for a key given to a plain database, where
//! `emdb` exits 5 and names `emdb encrypt`).
//!
//! Standard output is a pipe here, so a run that gets past opening the
//! database stops at "needs a terminal" (exit 2): failures to open are
//! reported first, as `emdb` would report them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use emdb_core::{Emdb, EncryptionInput};
use emdb_tools::ToolError;

fn tui(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_emdb-tui"));
    cmd.args(args)
        .env_remove("EMDB_PATH")
        .env_remove("EMDB_KEY_FILE")
        .env_remove("EMDB_PASSPHRASE");
    cmd
}

fn run(cmd: &mut Command) -> (u8, String) {
    let Output { status, stderr, .. } = cmd.output().unwrap();
    let code = u8::try_from(status.code().expect("ended by a signal")).unwrap();
    (code, String::from_utf8(stderr).unwrap())
}

/// What the binary prints for `e`: the CLI's format with our name.
fn printed(e: &ToolError) -> String {
    let mut s = format!("emdb-tui: {}\n", e.message);
    if let Some(h) = &e.hint {
        s.push_str(&format!("  hint: {h}\n"));
    }
    s
}

fn plain_db(dir: &Path) -> PathBuf {
    let path = dir.join("plain.emdb");
    let db = Emdb::open(&path).unwrap();
    db.insert("k", "v").unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_key_for_a_plain_database_is_exit_5_naming_emdb_encrypt() {
    let dir = tempfile::tempdir().unwrap();
    let path = plain_db(dir.path());
    let key = dir.path().join("db.key");
    std::fs::write(&key, [7u8; 32]).unwrap();
    let (code, err) = run(&mut tui(&[s(&path), "--key-file", s(&key)]));
    assert_eq!(code, 5, "{err}");
    let expected = ToolError::from(emdb_core::Error::NotEncrypted { path: path.clone() });
    assert_eq!(err, printed(&expected));
    assert!(err.contains("is not encrypted, but a key or passphrase was given"));
    assert!(err.contains("`emdb encrypt`"), "{err}");
    // The same from the environment, and for --write.
    let (code, _) = run(tui(&["--write", s(&path)]).env("EMDB_PASSPHRASE", "hunter2"));
    assert_eq!(code, 5);
}

#[test]
fn a_held_lock_says_how_long_it_waited() {
    let dir = tempfile::tempdir().unwrap();
    let path = plain_db(dir.path());
    let _holder = Emdb::open(&path).unwrap();
    let (code, err) = run(&mut tui(&["--write", "--lock-timeout", "300ms", s(&path)]));
    assert_eq!(code, 3, "{err}");
    // After the line that said it waits (see below).
    assert!(
        err.lines()
            .any(|l| l.starts_with("emdb-tui: gave up after waiting 300ms: ")),
        "{err}"
    );
    assert!(err.contains("is locked by another writer (pid"), "{err}");
    assert!(err.contains("--lock-timeout"), "{err}");
    // Without a timeout: at once, the shared hint plus the UI's own way out.
    let start = std::time::Instant::now();
    let (code, err) = run(&mut tui(&["--write", s(&path)]));
    assert_eq!(code, 3, "{err}");
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(!err.contains("gave up"), "{err}");
    assert!(err.contains("`emdb lock status` shows the holder"), "{err}");
    assert!(err.contains("without --write to browse read-only"), "{err}");
}

/// `--write --lock-timeout` says on standard error, once, that it waits
/// for the lock and who holds it, so it does not look hung (it printed
/// nothing until it gave up). A lock that is free says nothing.
#[test]
fn a_wait_for_the_writer_lock_is_said_when_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let path = plain_db(dir.path());
    let holder = Emdb::open(&path).unwrap();
    let (code, err) = run(&mut tui(&["--write", "--lock-timeout", "1.2s", s(&path)]));
    assert_eq!(code, 3, "{err}");
    let first = err.lines().next().unwrap();
    let waiting = format!(
        "emdb-tui: waiting up to 1.2s for the writer lock of {}, held by pid {}",
        path.display(),
        std::process::id()
    );
    assert!(first.starts_with(&waiting), "{err}");
    assert_eq!(err.matches("waiting up to").count(), 1, "{err}");
    // Free: straight to "needs a terminal" (standard output is a pipe).
    drop(holder);
    let (code, err) = run(&mut tui(&["--write", "--lock-timeout", "300ms", s(&path)]));
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("waiting"), "{err}");
}

#[test]
fn encrypted_databases_wrong_or_missing_secrets_are_exit_5() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secret.emdb");
    let db = Emdb::builder()
        .path(&path)
        .encryption(EncryptionInput::Key([3u8; 32]))
        .build()
        .unwrap();
    db.insert("k", "v").unwrap();
    drop(db);
    // No secret, no terminal to ask on.
    let (code, err) = run(&mut tui(&[s(&path)]));
    assert_eq!(code, 5, "{err}");
    assert_eq!(err, printed(&emdb_tools::secret::missing(&path)));
    // A wrong key.
    let wrong = dir.path().join("wrong.key");
    std::fs::write(&wrong, "04".repeat(32)).unwrap();
    let (code, err) = run(&mut tui(&[s(&path), "--key-file", s(&wrong)]));
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("--passphrase-file / --key-file"), "{err}");
    // The right key (hex, as emdb-tools reads it) gets past the open.
    let right = dir.path().join("right.key");
    std::fs::write(&right, format!("{}\n", "03".repeat(32))).unwrap();
    let (code, err) = run(&mut tui(&[s(&path), "--key-file", s(&right)]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
}

#[test]
fn bad_secrets_missing_files_and_namespaces() {
    let dir = tempfile::tempdir().unwrap();
    let path = plain_db(dir.path());
    // A key file that is not one: exit 7, the key-file hint.
    let bad = dir.path().join("bad.key");
    std::fs::write(&bad, "short").unwrap();
    let (code, err) = run(&mut tui(&[s(&path), "--key-file", s(&bad)]));
    assert_eq!(code, 7, "{err}");
    assert!(err.contains("is not a key file"), "{err}");
    // Both variables set: ambiguous, exit 2.
    let (code, err) = run(tui(&[s(&path)])
        .env("EMDB_PASSPHRASE", "x")
        .env("EMDB_KEY_FILE", &bad));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("will not guess"), "{err}");
    // No database: exit 6, nothing created, with or without --write.
    let missing = dir.path().join("nope.emdb");
    let (code, err) = run(&mut tui(&[s(&missing)]));
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("no database at"), "{err}");
    let (code, err) = run(&mut tui(&["--write", s(&missing)]));
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("--create"), "{err}");
    assert!(!missing.exists());
    // An empty file is refused as every emdb command refuses it.
    let empty = dir.path().join("empty.emdb");
    std::fs::write(&empty, b"").unwrap();
    let (code, err) = run(&mut tui(&["--write", s(&empty)]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("is an empty file"), "{err}");
    // A namespace that does not exist: exit 1, as `emdb -n x get` says it.
    let (code, err) = run(&mut tui(&[s(&path), "-n", "nosuch"]));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("emdb-tui: namespace \"nosuch\" does not exist\n"),
        "{err}"
    );
}
