//! The version-2 checkpoint: open maps the index image instead of loading
//! it, each slot page is checked on first use, a small tail is left for the
//! next open to replay, the writer checkpoints by itself, and a version-1
//! database (checked-in fixture written by emdb before version 2) opens and
//! is upgraded.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::ckpt_path;
use emdb_core::{Emdb, Error};

fn key(i: u64) -> String {
    format!("user:{i:08}")
}

fn value(i: u64) -> String {
    format!("value-{i}-{}", "x".repeat((i % 7) as usize))
}

/// Version and a u64 field of a checkpoint header.
fn header_u64(path: &Path, at: u64) -> u64 {
    let f = std::fs::File::open(path).unwrap();
    let mut b = [0u8; 8];
    f.read_exact_at(&mut b, at).unwrap();
    u64::from_le_bytes(b)
}

fn version(path: &Path) -> u32 {
    (header_u64(path, 8) & 0xffff_ffff) as u32
}

/// `covered_end` of the checkpoint.
fn covered_end(path: &Path) -> u64 {
    header_u64(path, 40)
}

fn fill(path: &Path, n: u64) {
    let db = Emdb::open(path).unwrap();
    let pairs: Vec<(String, String)> = (0..n).map(|i| (key(i), value(i))).collect();
    for chunk in pairs.chunks(10_000) {
        db.insert_many(chunk.iter().map(|(k, v)| (k, v))).unwrap();
    }
    let ns = db.namespace("side").unwrap();
    for i in 0..100 {
        ns.insert(key(i), "side").unwrap();
    }
    db.checkpoint().unwrap();
}

#[test]
fn reopen_uses_the_mapped_image_and_sees_everything() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.emdb");
    let n = 300_000; // shards share arenas (2 MiB and more)
    fill(&path, n);
    let ckpt = ckpt_path(&path);
    assert_eq!(version(&ckpt), 2, "close writes a version-2 checkpoint");

    for read_only in [false, true] {
        let db = Emdb::builder()
            .path(&path)
            .read_only(read_only)
            .build()
            .unwrap();
        let r = db.recovery_report();
        assert!(r.used_checkpoint, "{r:?}");
        assert_eq!(r.records_replayed, 0);
        assert_eq!(db.len().unwrap(), n as usize);
        for i in (0..n).step_by(97) {
            assert_eq!(db.get(key(i)).unwrap(), Some(value(i).into_bytes()), "{i}");
        }
        assert_eq!(db.get("user:nope").unwrap(), None);
        let side = db.namespace("side").unwrap();
        assert_eq!(side.len().unwrap(), 100);
        assert_eq!(side.get(key(5)).unwrap(), Some(b"side".to_vec()));
    }

    // The writer changes its copy of the image; the file stays as written.
    let before = std::fs::read(&ckpt).unwrap();
    {
        let db = Emdb::builder()
            .path(&path)
            .checkpoint_on_close(false)
            .build()
            .unwrap();
        for i in 0..2_000 {
            db.insert(key(i), "new").unwrap();
        }
        for i in 2_000..3_000 {
            db.remove(key(i)).unwrap();
        }
        db.insert("fresh", "1").unwrap();
        assert_eq!(
            std::fs::read(&ckpt).unwrap(),
            before,
            "mapped copy-on-write"
        );
        assert_eq!(db.len().unwrap(), n as usize - 1_000 + 1);
    }
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.recovery_report().records_replayed, 3_001);
    assert_eq!(db.get(key(1)).unwrap(), Some(b"new".to_vec()));
    assert_eq!(db.get(key(2_500)).unwrap(), None);
    assert_eq!(db.get(key(3_500)).unwrap(), Some(value(3_500).into_bytes()));
    assert_eq!(db.get("fresh").unwrap(), Some(b"1".to_vec()));
    assert_eq!(db.len().unwrap(), n as usize - 1_000 + 1);
    let mut seen = 0;
    for item in db.iter().unwrap() {
        let (k, _) = item.unwrap();
        assert!(k.starts_with(b"user:") || k == b"fresh");
        seen += 1;
    }
    assert_eq!(seen, n as usize - 1_000 + 1);
    // Compaction over a mapped image, then a reopen of its checkpoint.
    db.compact().unwrap();
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert!(db.recovery_report().used_checkpoint);
    assert_eq!(db.len().unwrap(), n as usize - 1_000 + 1);
    assert_eq!(db.get(key(1)).unwrap(), Some(b"new".to_vec()));
}

#[test]
fn growing_shards_move_out_of_the_image() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.emdb");
    fill(&path, 1_000);
    // Small private tables in the image; grow them well past their size.
    let db = Emdb::open(&path).unwrap();
    assert!(db.recovery_report().used_checkpoint);
    for i in 1_000..400_000 {
        db.insert(key(i), value(i)).unwrap();
    }
    for i in (0..400_000).step_by(101) {
        assert_eq!(db.get(key(i)).unwrap(), Some(value(i).into_bytes()), "{i}");
    }
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.len().unwrap(), 400_000);
    assert_eq!(
        db.get(key(399_999)).unwrap(),
        Some(value(399_999).into_bytes())
    );
}

#[test]
fn a_damaged_slot_page_is_an_error_never_a_missing_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.emdb");
    let n = 300_000;
    fill(&path, n);
    let ckpt = ckpt_path(&path);
    let pages_at = header_u64(&ckpt, 72);
    let page_count = header_u64(&ckpt, 80);
    assert!(page_count > 8);
    // Flip one byte in a slot page in the middle.
    let at = pages_at + (page_count / 2) * 4096 + 1234;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .read(true)
        .open(&ckpt)
        .unwrap();
    let mut b = [0u8; 1];
    f.read_exact_at(&mut b, at).unwrap();
    f.write_all_at(&[b[0] ^ 0x40], at).unwrap();
    drop(f);

    let db = Emdb::builder().path(&path).read_only(true).build().unwrap();
    assert!(
        db.recovery_report().used_checkpoint,
        "open does not read slot pages"
    );
    let (mut ok, mut damaged) = (0, 0);
    for i in 0..n {
        match db.get(key(i)) {
            Ok(Some(v)) => {
                assert_eq!(v, value(i).into_bytes());
                ok += 1;
            }
            Ok(None) => panic!("key {i} silently missing"),
            Err(Error::Corruption { path, reason, .. }) => {
                assert_eq!(path.as_deref(), Some(ckpt.as_path()));
                assert!(reason.contains("remove this checkpoint"), "{reason}");
                damaged += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(damaged > 0 && ok > damaged, "{ok} ok, {damaged} damaged");
    drop(db);
    // The remedy the error names works.
    std::fs::remove_file(&ckpt).unwrap();
    let db = Emdb::open(&path).unwrap();
    assert!(!db.recovery_report().used_checkpoint);
    assert_eq!(db.len().unwrap(), n as usize);
}

#[test]
fn a_checkpoint_cut_by_another_process_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.emdb");
    fill(&path, 300_000);
    let ckpt = ckpt_path(&path);
    let pages_at = header_u64(&ckpt, 72);
    let db = Emdb::builder().path(&path).read_only(true).build().unwrap();
    assert!(db.recovery_report().used_checkpoint);
    // Another program cuts the file under the mapping.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&ckpt)
        .unwrap()
        .set_len(pages_at)
        .unwrap();
    let mut errors = 0;
    for i in (0..300_000).step_by(1_000) {
        match db.get(key(i)) {
            Ok(Some(v)) => assert_eq!(v, value(i).into_bytes()),
            Ok(None) => panic!("key {i} silently missing"),
            Err(Error::Corruption { .. }) => errors += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(errors > 0);
}

#[test]
fn a_small_tail_is_left_for_the_next_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.emdb");
    fill(&path, 20_000);
    let ckpt = ckpt_path(&path);
    let image = std::fs::read(&ckpt).unwrap();
    for round in 0..5u64 {
        let db = Emdb::open(&path).unwrap();
        assert_eq!(db.recovery_report().records_replayed, round);
        db.insert(format!("one-shot-{round}"), "v").unwrap();
        db.flush().unwrap();
    }
    assert_eq!(
        std::fs::read(&ckpt).unwrap(),
        image,
        "small tails: no rewrite"
    );
    let db = Emdb::open(&path).unwrap();
    for round in 0..5u64 {
        assert_eq!(
            db.get(format!("one-shot-{round}")).unwrap(),
            Some(b"v".to_vec())
        );
    }
    // Past the close bound, close checkpoints.
    let big = "y".repeat(1_000);
    for i in 0..100 {
        db.insert(format!("big-{i}"), &big).unwrap();
    }
    drop(db);
    let db = Emdb::open(&path).unwrap();
    assert_eq!(db.recovery_report().records_replayed, 0);
    assert_eq!(db.len().unwrap(), 20_000 + 5 + 100);
}

#[test]
fn the_writer_checkpoints_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.emdb");
    let db = Emdb::builder()
        .path(&path)
        .checkpoint_tail(Some(256 << 10))
        .build()
        .unwrap();
    let ckpt = ckpt_path(&path);
    assert!(!ckpt.exists());
    let v = "z".repeat(200);
    let mut i = 0u64;
    let deadline = Instant::now() + Duration::from_secs(60);
    // Keep writing until a checkpoint shows up on its own.
    while !ckpt.exists() {
        assert!(Instant::now() < deadline, "no automatic checkpoint");
        for _ in 0..2_000 {
            db.insert(key(i), &v).unwrap();
            i += 1;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let covered = covered_end(&ckpt);
    assert!(covered > 4096);
    // A crash now (another open, without this one closing) replays only
    // what came after the automatic checkpoint.
    db.flush().unwrap();
    let reader = Emdb::builder().path(&path).read_only(true).build().unwrap();
    let r = reader.recovery_report();
    assert!(r.used_checkpoint, "{r:?}");
    assert!(r.records_replayed < i, "{} of {i}", r.records_replayed);
    assert_eq!(reader.len().unwrap(), i as usize);
    // Turned off: nothing written by itself.
    drop((reader, db));
    std::fs::remove_file(&ckpt).unwrap();
    let db = Emdb::builder()
        .path(&path)
        .checkpoint_tail(None)
        .checkpoint_on_close(false)
        .build()
        .unwrap();
    for j in 0..5_000 {
        db.insert(key(i + j), &v).unwrap();
    }
    std::thread::sleep(Duration::from_millis(2_500));
    assert!(!ckpt.exists());
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Copy a fixture database (log and checkpoint) into `dir`.
fn copy_fixture(name: &str, dir: &Path) -> PathBuf {
    let path = dir.join("db.emdb");
    std::fs::copy(fixture(&format!("{name}.emdb")), &path).unwrap();
    std::fs::copy(fixture(&format!("{name}.emdb.ckpt")), ckpt_path(&path)).unwrap();
    path
}

/// What `tests/fixtures/make_v1.sh` stored.
fn check_v1_content(db: &Emdb) {
    assert_eq!(db.len().unwrap(), 1_000);
    for i in 0..1_000u64 {
        let want = if i % 10 == 0 {
            format!("updated-{i}")
        } else {
            format!("v{i}")
        };
        assert_eq!(
            db.get(format!("k{i:04}")).unwrap(),
            Some(want.into_bytes()),
            "{i}"
        );
    }
    let ns = db.namespace("users").unwrap();
    assert_eq!(ns.len().unwrap(), 3);
    assert_eq!(ns.get("alice").unwrap(), Some(b"admin".to_vec()));
    assert_eq!(ns.get("bob").unwrap(), None);
}

#[test]
fn a_version_1_database_opens_and_is_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_fixture("v1", dir.path());
    let ckpt = ckpt_path(&path);
    assert_eq!(version(&ckpt), 1);
    {
        let db = Emdb::builder().path(&path).read_only(true).build().unwrap();
        let r = db.recovery_report();
        assert!(
            r.used_checkpoint && r.checkpoint_rejected.is_none(),
            "{r:?}"
        );
        check_v1_content(&db);
    }
    let db = Emdb::open(&path).unwrap();
    assert!(db.recovery_report().used_checkpoint);
    check_v1_content(&db);
    db.compact().unwrap();
    assert_eq!(version(&ckpt), 2, "compaction writes version 2");
    drop(db);
    let db = Emdb::open(&path).unwrap();
    let r = db.recovery_report();
    assert!(r.used_checkpoint && r.records_replayed == 0, "{r:?}");
    check_v1_content(&db);
}
