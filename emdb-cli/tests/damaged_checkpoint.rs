//! A damaged checkpoint (`<db>.ckpt`, an index of the log) and a damaged
//! identity block: what `check` says, what reads say, and `check --repair`.

// Test helpers: a failure here should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::TestDb;
use predicates::prelude::*;

const KEYS: usize = 50_000;

/// A database of KEYS keys whose checkpoint has a damaged slot page.
fn with_a_damaged_checkpoint_page() -> TestDb {
    let db = TestDb::new();
    let mut lines = String::new();
    for i in 0..KEYS {
        lines.push_str(&format!("{{\"key\":\"k{i:07}\",\"value\":\"v{i}\"}}\n"));
    }
    db.cmd(["import", "-"])
        .write_stdin(lines)
        .assert()
        .success();
    let ckpt = ckpt(&db);
    let mut bytes = std::fs::read(&ckpt).unwrap();
    let at = bytes.len() * 9 / 10;
    bytes[at..at + 8].copy_from_slice(b"ZZZZZZZZ");
    std::fs::write(&ckpt, bytes).unwrap();
    db
}

fn ckpt(db: &TestDb) -> std::path::PathBuf {
    let mut name = db.path.as_os_str().to_owned();
    name.push(".ckpt");
    name.into()
}

#[test]
fn check_reports_a_damaged_checkpoint_and_repair_rebuilds_it() {
    let db = with_a_damaged_checkpoint_page();
    // A full scan reaches the damaged page; the hint says what it is.
    db.cmd(["scan", "--keys-only"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("index page checksum mismatch"))
        .stderr(predicate::str::contains(
            "the checkpoint holds only an index of the log, no data: `emdb check --repair` rebuilds it",
        ))
        .stderr(predicate::str::contains("open with salvage").not());
    // check found nothing wrong before: now it names the page, exit 4.
    db.cmd(["check"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains("damaged checkpoint: "))
        .stdout(predicate::str::contains(": DAMAGED"))
        .stderr(predicate::str::contains("its log is sound"));
    let json: serde_json::Value = serde_json::from_slice(
        &db.cmd(["check", "--json"])
            .assert()
            .code(4)
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(json["clean"], false);
    assert_eq!(json["damaged"].as_array().map(Vec::len), Some(0));
    assert!(json["checkpoint"]["offset"].as_u64().unwrap() > 0, "{json}");

    db.cmd(["check", "--repair", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "repaired: rebuilt the checkpoint from the log; {KEYS} keys"
        )));
    assert!(ckpt(&db).exists(), "the checkpoint was rebuilt");
    // No copy of the file: nothing of the log changed.
    let mut keep = db.path.as_os_str().to_owned();
    keep.push(".before-repair");
    assert!(!std::path::Path::new(&keep).exists());
    let keys = db
        .cmd(["scan", "--keys-only"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(keys.iter().filter(|&&b| b == b'\n').count(), KEYS);
    db.cmd(["check"])
        .assert()
        .success()
        .stdout(predicate::str::contains(": ok"));
}

/// `check --repair` changes nothing before it goes ahead: with a writer
/// holding the lock it gives up (exit 3) and the checkpoint is as it was;
/// with the log damaged too, refusing to repair without `--yes` off a
/// terminal leaves the checkpoint in place (it used to be removed first).
#[test]
fn a_repair_that_does_not_go_ahead_leaves_the_checkpoint() {
    let db = with_a_damaged_checkpoint_page();
    let before = std::fs::read(ckpt(&db)).unwrap();
    {
        let _writer = emdb_core::Emdb::open(&db.path).unwrap();
        db.cmd(["--lock-timeout", "0", "check", "--repair", "--yes"])
            .assert()
            .code(3);
        assert_eq!(std::fs::read(ckpt(&db)).unwrap(), before);
    }
    // A damaged record in the log as well.
    let mut log = std::fs::read(&db.path).unwrap();
    let at = log.len() / 2;
    log[at] ^= 0xff;
    std::fs::write(&db.path, log).unwrap();
    db.cmd(["check", "--repair"]).assert().code(2);
    assert_eq!(std::fs::read(ckpt(&db)).unwrap(), before);
    // With --yes the salvage repairs both.
    db.cmd(["check", "--repair", "--yes"]).assert().success();
    db.cmd(["check"]).assert().success();
}

#[test]
fn a_damaged_identity_block_is_not_sent_round_the_other_commands() {
    let db = TestDb::new();
    db.put("a", "1");
    let mut bytes = std::fs::read(&db.path).unwrap();
    bytes[16..24].copy_from_slice(b"QQQQQQQQ");
    std::fs::write(&db.path, bytes).unwrap();
    let out = db.file("salvaged.jsonl");
    let out = out.to_str().unwrap();
    for cmd in [
        &["get", "a"][..],
        &["check"][..],
        &["export", "--salvage", out][..],
    ] {
        db.cmd(cmd)
            .assert()
            .code(4)
            // The error names the user's file, not a temporary copy.
            .stderr(predicate::str::contains("emdb-salvage-").not())
            .stderr(predicate::str::contains("header checksum mismatch"))
            .stderr(predicate::str::contains(
                "no emdb command can open the file without it",
            ))
            .stderr(predicate::str::contains("check --repair").not());
    }
}
