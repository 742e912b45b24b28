//! Read-only followers across processes, the stats sidecar, and backups.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use emdb_core::{Emdb, Error};

const BATCHES: u32 = 400;
const PER_BATCH: u32 = 10;

/// The writer side of `reader_follows_a_writer_process`, run in a child process.
#[test]
#[ignore = "child process of reader_follows_a_writer_process"]
fn child_writer() {
    let Ok(path) = std::env::var("EMDB_FOLLOW_CHILD") else {
        return;
    };
    let db = Emdb::open(&path).unwrap();
    for i in 0..BATCHES {
        db.insert_many((0..PER_BATCH).map(|j| (format!("b{i:05}:{j}"), format!("v{i}"))))
            .unwrap();
        if i % 20 == 19 {
            db.flush().unwrap();
            println!("flushed {i}");
        }
        if i == BATCHES / 2 {
            db.compact().unwrap();
            println!("compacted");
        }
        if i % 50 == 0 {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    db.flush().unwrap();
    println!("done");
}

fn wait_until(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    f()
}

/// Every batch visible to the reader is whole.
fn check_batches_whole(db: &Emdb) -> u32 {
    let mut per_batch: HashMap<String, u32> = HashMap::new();
    for k in db.keys().unwrap() {
        let k = String::from_utf8(k.unwrap()).unwrap();
        let batch = k.split(':').next().unwrap().to_string();
        *per_batch.entry(batch).or_default() += 1;
    }
    for (b, n) in &per_batch {
        assert_eq!(
            *n, PER_BATCH,
            "batch {b} is half visible ({n} of {PER_BATCH})"
        );
    }
    per_batch.len() as u32
}

#[test]
fn reader_follows_a_writer_process() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("follow.emdb");
    // Create the file so the reader can open it at once.
    drop(Emdb::open(&path).unwrap());
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_writer",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("EMDB_FOLLOW_CHILD", &path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let reader = Emdb::builder().path(&path).read_only(true).build().unwrap();
    assert!(matches!(reader.insert("x", "y"), Err(Error::ReadOnly)));
    let out = BufReader::new(child.stdout.take().unwrap());
    let mut saw_compaction = false;
    let mut lines = out.lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(i) = line.strip_prefix("flushed ") {
            let i: u32 = i.parse().unwrap();
            let last_key = format!("b{i:05}:{}", PER_BATCH - 1);
            // Caught up by itself, without refresh(), well within a second.
            assert!(
                wait_until(Duration::from_secs(2), || reader
                    .get(&last_key)
                    .unwrap()
                    .is_some()),
                "reader did not catch up with batch {i}"
            );
            // Units are applied whole and in order: once the last key of
            // batch i is visible, every key of every batch up to i is. (A
            // scan here would race the reader's own background refresh,
            // which applies newer units while the scan walks the shards;
            // scans are checked whole at the end, with the writer gone.)
            for b in 0..=i {
                for j in 0..PER_BATCH {
                    assert_eq!(
                        reader.get(format!("b{b:05}:{j}")).unwrap(),
                        Some(format!("v{b}").into_bytes()),
                        "flushed batch {b} is half visible after flush {i} (key {j} missing)"
                    );
                }
            }
        } else if line == "compacted" {
            saw_compaction = true;
        } else if line == "done" {
            break;
        }
    }
    // Drain the child's remaining output (its test harness still prints a
    // summary): closing the pipe early fails the child with EPIPE.
    for line in lines {
        line.unwrap();
    }
    assert!(child.wait().unwrap().success());
    assert!(saw_compaction);
    reader.refresh().unwrap();
    assert_eq!(reader.len().unwrap(), (BATCHES * PER_BATCH) as usize);
    assert_eq!(check_batches_whole(&reader), BATCHES);
    // The writer's counters are visible to the reader through the sidecar.
    let s = reader.stats().unwrap();
    assert!(
        s.writes >= u64::from(BATCHES),
        "sidecar writes = {}",
        s.writes
    );
    assert!(s.compactions >= 1);
    assert_eq!(s.writer_pid, Some(child.id()));
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn read_only_opens_never_modify_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ro.emdb");
    {
        let db = Emdb::builder()
            .path(&path)
            .checkpoint_on_close(false)
            .build()
            .unwrap();
        db.insert_many((0..100u32).map(|i| (i.to_le_bytes(), "v")))
            .unwrap();
        db.insert("unflushed-tail", "x").unwrap();
    }
    let before = snapshot(dir.path());
    {
        let ro = Emdb::builder().path(&path).read_only(true).build().unwrap();
        assert_eq!(ro.len().unwrap(), 101);
        ro.refresh().unwrap();
        assert!(matches!(ro.checkpoint(), Err(Error::ReadOnly)));
        assert!(matches!(ro.compact(), Err(Error::ReadOnly)));
        assert!(matches!(ro.remove("x"), Err(Error::ReadOnly)));
        std::thread::sleep(Duration::from_millis(120));
    }
    assert_eq!(snapshot(dir.path()), before);
    // A read-only open of a missing file is an error, and creates nothing.
    let missing = dir.path().join("missing.emdb");
    assert!(Emdb::builder()
        .path(&missing)
        .read_only(true)
        .build()
        .is_err());
    assert!(!missing.exists());
}

#[test]
fn in_process_follower_sees_writes_and_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inproc.emdb");
    let w = Emdb::open(&path).unwrap();
    w.insert("a", "1").unwrap();
    let r = Emdb::builder().path(&path).read_only(true).build().unwrap();
    assert_eq!(r.get("a").unwrap(), Some(b"1".to_vec()));
    w.insert("b", "2").unwrap();
    w.remove("a").unwrap();
    assert_eq!(r.refresh().unwrap(), 2);
    assert_eq!(r.get("a").unwrap(), None);
    assert_eq!(r.get("b").unwrap(), Some(b"2".to_vec()));
    let ns = w.namespace("n").unwrap();
    ns.insert("k", "v").unwrap();
    w.compact().unwrap();
    w.insert("c", "3").unwrap();
    r.refresh().unwrap();
    r.refresh().unwrap();
    assert_eq!(r.get("c").unwrap(), Some(b"3".to_vec()));
    assert_eq!(
        r.namespace("n").unwrap().get("k").unwrap(),
        Some(b"v".to_vec())
    );
    assert!(matches!(r.namespace("new"), Err(Error::ReadOnly)));
    assert_eq!(r.list_namespaces().unwrap(), vec!["n"]);
}

/// A refresh reads 64 KiB first and grows its reads while whole buffers
/// decode: units bigger than the first read (and than the 4 MiB largest
/// read), and megabytes of small units in one refresh, all arrive.
#[test]
fn a_follower_catches_up_with_units_bigger_than_its_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.emdb");
    let w = Emdb::open(&path).unwrap();
    w.insert("first", "1").unwrap();
    w.flush().unwrap();
    let r = Emdb::builder().path(&path).read_only(true).build().unwrap();
    let mut want: Vec<(String, Vec<u8>)> = Vec::new();
    for (i, len) in [100usize << 10, 10, 1 << 20, 5 << 20, 70 << 10]
        .into_iter()
        .enumerate()
    {
        let key = format!("big{i}");
        let value: Vec<u8> = (0..len).map(|j| (j * 31 + i) as u8).collect();
        w.insert(&key, &value).unwrap();
        want.push((key, value));
    }
    // 6 MiB of small records after them.
    for i in 0..60_000u32 {
        let key = format!("small{i:05}");
        let value = vec![(i % 251) as u8; 100];
        w.insert(&key, &value).unwrap();
        want.push((key, value));
    }
    w.flush().unwrap();
    // (The handle's own follower thread may have applied part already.)
    r.refresh().unwrap();
    for (key, value) in &want {
        assert_eq!(r.get(key).unwrap().as_deref(), Some(&value[..]), "{key}");
    }
    assert_eq!(r.len().unwrap(), want.len() + 1);
}

/// A follower's sorted reads agree with its hash reads as it catches up:
/// new keys, deletes, a checkpoint with a sorted block, a compaction.
#[test]
fn a_follower_reads_in_key_order_as_it_catches_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sorted.emdb");
    let w = Emdb::open(&path).unwrap();
    let keys =
        |db: &Emdb| -> Vec<Vec<u8>> { db.range_iter(..).unwrap().map(|r| r.unwrap().0).collect() };
    let name = |i: u32| format!("k{i:04}").into_bytes();
    w.insert_many((0..300u32).rev().map(|i| (name(i), b"v".to_vec())))
        .unwrap();
    w.checkpoint().unwrap();
    let r = Emdb::builder().path(&path).read_only(true).build().unwrap();
    let mut want: Vec<Vec<u8>> = (0..300).map(name).collect();
    assert_eq!(keys(&r), want);
    for i in (0..300u32).step_by(7) {
        w.remove(name(i)).unwrap();
    }
    w.insert_many((300..340u32).map(|i| (name(i), b"w".to_vec())))
        .unwrap();
    w.flush().unwrap();
    r.refresh().unwrap();
    want.retain(|k| !(0..300u32).step_by(7).any(|i| name(i) == *k));
    want.extend((300..340).map(name));
    assert_eq!(keys(&r), want);
    w.compact().unwrap();
    w.remove(name(1)).unwrap();
    w.flush().unwrap();
    r.refresh().unwrap();
    r.refresh().unwrap();
    want.retain(|k| *k != name(1));
    assert_eq!(keys(&r), want);
    let prefix: Vec<_> = r
        .range_prefix("k030")
        .unwrap()
        .into_iter()
        .map(|p| p.0)
        .collect();
    let want_prefix: Vec<_> = want
        .iter()
        .filter(|k| k.starts_with(b"k030"))
        .cloned()
        .collect();
    assert_eq!(prefix, want_prefix);
}

#[test]
fn backup_under_concurrent_writes_is_a_consistent_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("src.emdb");
    let db = Emdb::open(&path).unwrap();
    db.insert_many((0..5_000u32).map(|i| (format!("k{i:07}"), format!("{i}"))))
        .unwrap();
    let writer = {
        let db = db.clone();
        std::thread::spawn(move || {
            for i in 5_000..60_000u32 {
                db.insert(format!("k{i:07}"), format!("{i}")).unwrap();
            }
        })
    };
    std::thread::sleep(Duration::from_millis(5));
    let target = dir.path().join("backup.emdb");
    db.backup_to(&target).unwrap();
    writer.join().unwrap();
    assert!(matches!(
        db.backup_to(&path),
        Err(Error::BackupTarget { reason, .. }) if reason.contains("database itself")
    ));
    assert!(matches!(
        db.backup_to(&target),
        Err(Error::BackupTarget { reason, .. }) if reason.contains("already exists")
    ));
    // Nor a file where the copy's checkpoint goes (an encrypted copy's
    // rewrite renamed its checkpoint over it).
    let other = dir.path().join("other.emdb");
    std::fs::write(dir.path().join("other.emdb.ckpt"), "IMPORTANT").unwrap();
    assert!(matches!(
        db.backup_to(&other),
        Err(Error::BackupTarget { reason, .. }) if reason.contains(".ckpt")
    ));
    assert!(!other.exists());
    assert_eq!(
        std::fs::read(dir.path().join("other.emdb.ckpt")).unwrap(),
        b"IMPORTANT"
    );
    let copy = Emdb::open(&target).unwrap();
    let n = copy.len().unwrap() as u32;
    assert!(n >= 5_000);
    // Sequential inserts: a consistent snapshot holds exactly k0..k(n-1).
    for i in (0..n).step_by(97).chain([n - 1]) {
        assert_eq!(
            copy.get(format!("k{i:07}")).unwrap(),
            Some(format!("{i}").into_bytes())
        );
    }
    assert_eq!(copy.get(format!("k{n:07}")).unwrap(), None);
    assert!(copy.recovery_report().truncated_tail_at.is_none());
}

/// Issue 15, item 5: a follower whose refresh fails (here: the file was
/// re-encrypted, so the new file at the path needs a key this handle does
/// not have) used to keep answering from its old index forever, the error
/// kept in a field nothing read. Reads must return the error.
#[test]
fn a_follower_whose_refresh_fails_returns_the_error_never_stale_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rotated.emdb");
    {
        let w = Emdb::open(&path).unwrap();
        w.insert("k", "v1").unwrap();
    }
    let follower = Emdb::builder().path(&path).read_only(true).build().unwrap();
    assert_eq!(follower.get("k").unwrap(), Some(b"v1".to_vec()));
    emdb_core::Emdb::enable_encryption(&path, emdb_core::EncryptionInput::Key([7u8; 32])).unwrap();
    // The background refresh (every 50 ms) finds the new file and fails.
    assert!(
        wait_until(Duration::from_secs(10), || follower.get("k").is_err()),
        "the follower kept answering from the replaced file"
    );
    assert!(matches!(
        follower.refresh(),
        Err(emdb_core::Error::EncryptionRequired { .. })
    ));
    // Reads say the handle is stale, and why, in a form a caller matches.
    match follower.get("k") {
        Err(emdb_core::Error::Stale { path, cause }) => {
            assert_eq!(path, follower.path());
            assert!(
                matches!(*cause, emdb_core::Error::EncryptionRequired { .. }),
                "{cause:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(follower.contains_key("k").is_err());
    assert!(follower.len().is_err());
    assert!(follower
        .iter()
        .and_then(|mut i| i.next().transpose())
        .is_err());
    assert!(follower.backup_to(dir.path().join("copy.emdb")).is_err());
    // Nor may a miss, which reads no record, say "absent" from the old
    // view (a key written after the change would be reported missing).
    assert!(follower.get("written-later").is_err());
    assert!(follower.contains_key("written-later").is_err());
    assert!(follower.range_iter(b"zz".to_vec()..).is_err());
    // Nor the namespace table, an empty namespace's walk, or its counts.
    assert!(follower.list_namespaces().is_err());
    assert!(follower.namespace_if_exists("created-later").is_err());
    assert!(follower
        .keys_touched_since(Some("created-later"), 0)
        .is_err());
    assert!(follower.keys_touched_since(None, 0).is_err());
    assert!(follower.expiring_len().is_err());
}

/// An iterator made before its handle went stale does not end quietly
/// where the old view ended.
#[test]
fn an_iterator_made_before_the_handle_went_stale_reports_it_at_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("iter.emdb");
    {
        let w = Emdb::open(&path).unwrap();
        w.insert("k", "v1").unwrap();
        w.namespace("empty").unwrap();
    }
    let follower = Emdb::builder()
        .path(&path)
        .read_only(true)
        .follow(false)
        .build()
        .unwrap();
    let empty = follower.namespace_if_exists("empty").unwrap().unwrap();
    // Empty in the old view: the walk reads no record that could fail.
    let mut it = empty.iter().unwrap();
    emdb_core::Emdb::enable_encryption(&path, emdb_core::EncryptionInput::Key([7u8; 32])).unwrap();
    assert!(follower.refresh().is_err());
    assert!(matches!(it.next(), Some(Err(_))));
    assert!(it.next().is_none());
}

/// A file put at the target while a backup copies (another process's
/// backup to the same path that finished first) stays as it is: the
/// backup fails as a backup onto an existing file does, and leaves no
/// temp file. Before, its final rename replaced that file, and its temp
/// names (`DEST.tmp`, `DEST.fork.tmp`) were shared by every backup to
/// DEST, so concurrent backups removed and renamed each other's files.
#[test]
fn a_backup_never_replaces_a_file_put_at_its_target_meanwhile() {
    use emdb_core::progress::{observe, Phase};
    for encrypted in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("src.emdb");
        let mut b = Emdb::builder().path(&path);
        if encrypted {
            b = b.encryption_key([7u8; 32]);
        }
        let db = b.build().unwrap();
        db.insert_many((0..2_000u32).map(|i| (format!("k{i:07}"), vec![1u8; 100])))
            .unwrap();
        let target = dir.path().join("copy.emdb");
        let planted = target.clone();
        let r = observe(
            move |p| {
                if p.phase == Phase::Copying && p.done > 0 && !planted.exists() {
                    std::fs::write(&planted, "the other backup's").unwrap();
                }
            },
            || db.backup_to(&target),
        );
        assert!(
            matches!(
                &r,
                Err(Error::BackupTarget { reason, .. }) if reason.contains("already exists")
            ),
            "encrypted: {encrypted}: {r:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "the other backup's"
        );
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("copy.emdb"))
            .collect();
        left.sort();
        assert_eq!(left, ["copy.emdb"], "encrypted: {encrypted}");
    }
}

/// Threads of one process backing up to one path at once: one copy is
/// made, the others fail as onto an existing file (their temp names are
/// the same, the process's; they take turns).
#[test]
fn threads_backing_up_to_one_path_make_one_copy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("src.emdb");
    let db = Emdb::open(&path).unwrap();
    db.insert_many((0..20_000u32).map(|i| (format!("k{i:07}"), vec![1u8; 100])))
        .unwrap();
    let target = dir.path().join("copy.emdb");
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4).map(|_| s.spawn(|| db.backup_to(&target))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        results.iter().filter(|r| r.is_ok()).count(),
        1,
        "{results:?}"
    );
    for r in results.iter().filter(|r| r.is_err()) {
        assert!(
            matches!(r, Err(Error::BackupTarget { reason, .. }) if reason.contains("already exists")),
            "{r:?}"
        );
    }
    assert_eq!(Emdb::open(&target).unwrap().len().unwrap(), 20_000);
}

/// What a backup killed by SIGKILL left (its temp names carry its host and
/// pid, so no later backup writes over them) is removed by the next backup
/// to the same path once its process is gone; a live process's, another
/// machine's and a directory stay.
#[test]
fn a_backup_removes_only_what_dead_backups_of_this_machine_left() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("src.emdb");
    let db = Emdb::open(&path).unwrap();
    db.insert("k", "v").unwrap();
    let host: String = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap_or_default()
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'))
        .collect();
    let host = if host.is_empty() { "host".into() } else { host };
    let mut gone = Command::new("true").spawn().unwrap();
    let gone_pid = gone.id();
    gone.wait().unwrap();
    let name = |who: &str, pid: u32, rest: &str| {
        dir.path()
            .join(format!("copy.emdb.emdb-backup-{who}-{pid}{rest}"))
    };
    let dead = [
        name(&host, gone_pid, ".tmp"),
        name(&host, gone_pid, ".fork"),
        name(&host, gone_pid, ".fork.enc.tmp"),
    ];
    let kept = [
        // pid 1 runs as long as the machine (or container) does.
        name(&host, 1, ".tmp"),
        name("elsewhere", gone_pid, ".tmp"),
    ];
    for f in dead.iter().chain(&kept) {
        std::fs::write(f, "left").unwrap();
    }
    let a_dir = name(&host, gone_pid, ".fork.ckpt");
    std::fs::create_dir(&a_dir).unwrap();
    db.backup_to(dir.path().join("copy.emdb")).unwrap();
    for f in &dead {
        assert!(!f.exists(), "{f:?}");
    }
    for f in kept.iter().chain([&a_dir]) {
        assert!(f.exists(), "{f:?}");
    }
}

/// A file rewritten in place with an older copy of itself (`cp` keeps the
/// inode) lost records a writer had acknowledged: a follower that read
/// them reports the cut, and does not take the copy's own header (whose
/// durable end the shorter file passes) as leave to start over (a review
/// found it following the older copy silently, `len()` 200 -> 100).
#[test]
fn a_follower_reports_an_older_copy_written_over_its_file() {
    // The copy taken from a closed database (trimmed: shorter than what
    // the follower read) and from an open one (room allocated ahead: as
    // long, with other bytes where the follower's last record was).
    for closed in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cp.emdb");
        let older = dir.path().join("older.emdb");
        let db = Emdb::open(&path).unwrap();
        db.insert_many((0..100).map(|i| (format!("a{i:03}"), "v")))
            .unwrap();
        db.flush().unwrap();
        let db = if closed {
            drop(db);
            std::fs::copy(&path, &older).unwrap();
            Emdb::open(&path).unwrap()
        } else {
            std::fs::copy(&path, &older).unwrap();
            db
        };
        db.insert_many((0..100).map(|i| (format!("b{i:03}"), "v")))
            .unwrap();
        db.flush().unwrap();
        drop(db);
        let follower = Emdb::builder()
            .path(&path)
            .read_only(true)
            .follow(false)
            .build()
            .unwrap();
        assert_eq!(follower.len().unwrap(), 200);
        std::fs::copy(&older, &path).unwrap();
        let refreshed = follower.refresh();
        assert!(
            matches!(refreshed, Err(Error::Corruption { .. })),
            "closed {closed}: {refreshed:?}"
        );
        // Reads fail too, until the handle is opened again.
        assert!(follower.get("b000").is_err(), "closed {closed}");
        assert!(follower.refresh().is_err(), "closed {closed}");
    }
}
