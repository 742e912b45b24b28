//! `encrypt --remove-backup` with `--db` given through a symlink (issue 15,
//! item 9): the engine names the backup after the real file, the command
//! used to remove `<symlink>.encbak`, failed, and left the plaintext backup.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::TestDb;

#[test]
fn remove_backup_through_a_symlinked_db_removes_the_plaintext_backup() {
    let db = TestDb::new();
    db.put("marker", "plaintext-marker-77c1");
    let link = db.file("link.emdb");
    std::os::unix::fs::symlink(&db.path, &link).unwrap();
    let pass = db.file("pass.txt");
    std::fs::write(&pass, "correct horse battery staple\n").unwrap();
    common::bare(db.dir.path())
        .arg("--db")
        .arg(&link)
        .args(["encrypt", "--yes", "--remove-backup", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success();
    for name in ["test.emdb.encbak", "link.emdb.encbak"] {
        assert!(
            !db.file(name).exists(),
            "{name} (plaintext) outlived encrypt --remove-backup"
        );
    }
    let sealed = std::fs::read(&db.path).unwrap();
    assert!(!sealed.windows(21).any(|w| w == b"plaintext-marker-77c1"));
}
