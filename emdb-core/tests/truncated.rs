//! A database file cut short by another process while this process has it
//! mapped: every operation returns an error, none crashes the process.
//!
//! Touching a mapped page past the end of a file raises SIGBUS, which kills
//! a process by default, so each scenario runs in a child process (this test
//! binary re-executed with `--exact child --ignored` and `EMDB_CUT_CHILD`
//! naming the scenario). The parent requires the child to exit normally:
//! without the engine's SIGBUS handling the child dies by signal 7 and the
//! test fails. The child checks every result itself: an operation on data
//! the cut removed must return an error whose message says the file was
//! truncated by another process, and no operation may return wrong data.
//!
//! Scenarios that need a second process (followers) are driven over the
//! child's stdin: the child prints `@@ready`, the parent changes the file,
//! then writes a line to let the child go on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use emdb_core::{Emdb, Error, FlushPolicy};

const CHILD: &str = "EMDB_CUT_CHILD";
const CHILD_DB: &str = "EMDB_CUT_DB";

/// Records written before the cut (about 2 MB: many pages past the cut).
const RECORDS: usize = 3000;
/// Where the file is cut: the header page and one page of records.
const CUT_TO: u64 = 8192;
/// Longest a scenario may take before it counts as hung.
const CHILD_TIMEOUT: Duration = Duration::from_secs(120);
/// What the engine says when it found the file cut under a mapping.
const CUT_MESSAGE: &str = "truncated by another process";

fn key(i: usize) -> String {
    format!("key-{i:05}")
}

fn value(i: usize) -> Vec<u8> {
    format!("value-{i:05}-").repeat(50).into_bytes()
}

/// A database at `path` holding `RECORDS` flushed records.
fn filled(path: &Path, policy: FlushPolicy) -> Emdb {
    let db = Emdb::builder()
        .path(path)
        .flush_policy(policy)
        .build()
        .unwrap();
    for chunk in (0..RECORDS).collect::<Vec<_>>().chunks(100) {
        db.insert_many(chunk.iter().map(|&i| (key(i), value(i))))
            .unwrap();
    }
    db.flush().unwrap();
    db
}

/// Cut the file as another program would (`truncate -s`).
fn cut(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

/// `r` must be an error that names the truncation.
#[track_caller]
fn expect_cut<T: std::fmt::Debug>(what: &str, r: emdb_core::Result<T>) {
    match r {
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains(CUT_MESSAGE),
                "{what}: error does not name the truncation: {msg}"
            );
            println!("@@{what}: {msg}");
        }
        Ok(v) => panic!("{what}: returned Ok({v:?}) from a truncated file"),
    }
}

/// `r` must be an error (any reason: a poisoned handle says why it refuses).
#[track_caller]
fn expect_err<T: std::fmt::Debug>(what: &str, r: emdb_core::Result<T>) {
    match r {
        Err(e) => println!("@@{what}: {e}"),
        Ok(v) => panic!("{what}: returned Ok({v:?}) from a truncated file"),
    }
}

/// Every point read and every iterated item is either right or an error,
/// and the records past the cut are errors naming it.
fn check_reads(db: &Emdb) {
    let mut errors = 0;
    for i in 0..RECORDS {
        match db.get(key(i)) {
            Ok(Some(v)) => assert_eq!(v, value(i), "wrong value for {}", key(i)),
            Ok(None) => panic!("{} vanished without an error", key(i)),
            Err(_) => errors += 1,
        }
    }
    assert!(errors > RECORDS / 2, "only {errors} reads failed");
    expect_cut("get", db.get(key(RECORDS - 1)));
    expect_cut("get_zerocopy", db.get_zerocopy(key(RECORDS - 2)));
    expect_cut("contains_key", db.contains_key(key(RECORDS - 3)));
    let mut iter_errors = 0;
    for item in db.iter().unwrap() {
        match item {
            Ok((k, v)) => {
                let i: usize = std::str::from_utf8(&k).unwrap()[4..].parse().unwrap();
                assert_eq!(v, value(i), "iteration returned a wrong value");
            }
            Err(e) => {
                assert!(e.to_string().contains(CUT_MESSAGE), "iteration: {e}");
                iter_errors += 1;
            }
        }
    }
    assert!(
        iter_errors > 0,
        "iteration over a truncated file saw no error"
    );
    println!("@@reads: {errors} gets and {iter_errors} iterated items failed");
}

// ---- the child ---------------------------------------------------------------

/// The scenarios, run in a child process. Does nothing unless started by a test.
#[test]
#[ignore = "child process of the truncation tests; they run it"]
fn child() {
    let Ok(scenario) = std::env::var(CHILD) else {
        return;
    };
    let path = PathBuf::from(std::env::var_os(CHILD_DB).unwrap());
    match scenario.as_str() {
        "reader" => reader(&path),
        "writer" => writer(&path, FlushPolicy::OnEachFlush),
        "writer-write-through" => writer(&path, FlushPolicy::WriteThrough),
        "writer-group" => writer(
            &path,
            FlushPolicy::Group {
                max_wait: Duration::from_millis(1),
                max_batch: 4,
            },
        ),
        "unflushed" => unflushed(&path),
        "maintenance" => maintenance(&path),
        "encrypted" => encrypted(&path),
        "concurrent" => concurrent(&path),
        "follower-cut" => follower_cut(&path),
        "follower-rewritten" => follower_rewritten(&path),
        other => panic!("unknown scenario {other}"),
    }
    println!("@@done");
}

/// Wait for the parent to change the file.
fn handshake() {
    println!("@@ready");
    std::io::stdout().flush().unwrap();
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
}

fn reader(path: &Path) {
    let db = filled(path, FlushPolicy::OnEachFlush);
    cut(path, CUT_TO);
    check_reads(&db);
    // Readers found the cut: the writer refuses from now on.
    expect_err("insert after reads", db.insert("new", "value"));
    expect_err("flush after reads", db.flush());
}

fn writer(path: &Path, policy: FlushPolicy) {
    let db = filled(path, policy);
    cut(path, CUT_TO);
    // No read first. A write-through write finds the cut itself. Other
    // appends are `pwrite`s, which extend a cut file over a hole instead
    // of failing, so the insert may return (it is not durable yet); the
    // flush that would make it durable must find the cut.
    let first = db.insert("new", "value");
    if policy == FlushPolicy::WriteThrough {
        expect_cut("insert", first);
        expect_err("flush", db.flush());
    } else {
        println!("@@insert before the flush: {first:?}");
        expect_cut("flush", db.flush());
    }
    expect_err("second insert", db.insert("newer", "value"));
    expect_err("insert_many", db.insert_many([("a", "1"), ("b", "2")]));
    expect_err("transaction", db.transaction(|tx| tx.insert("t", "1")));
    expect_err("second flush", db.flush());
    let len_before_close = std::fs::metadata(path).unwrap().len();
    drop(db);
    // Closing must neither trim nor grow the file (no checkpoint, no cut).
    assert_eq!(std::fs::metadata(path).unwrap().len(), len_before_close);
    match Emdb::open(path) {
        Err(Error::Corruption { .. }) => {}
        other => panic!("reopening a truncated log: {other:?}"),
    }
}

/// Readers, an iterator and a writer running while the file is cut: each
/// thread's results are right until they are errors, and the writer never
/// succeeds again after its first error.
fn concurrent(path: &Path) {
    let db = filled(path, FlushPolicy::OnEachFlush);
    // Room for everything the writer thread appends: the file must not
    // grow during the test (a growth's size check can race the cut).
    let room = |db: &Emdb| {
        let s = db.stats().unwrap();
        s.file_bytes - s.log_logical_bytes
    };
    while room(&db) < 256 << 10 {
        db.insert("padding", vec![0u8; 64 << 10]).unwrap();
    }
    let stop = AtomicBool::new(false);
    let cut_done = AtomicBool::new(false);
    let (read_errors, write_errors) = std::thread::scope(|s| {
        let readers: Vec<_> = (0..2)
            .map(|t| {
                let (db, stop) = (&db, &stop);
                s.spawn(move || {
                    let mut errors = 0;
                    let mut i = t;
                    while !stop.load(Ordering::Relaxed) {
                        i = (i * 7919 + 13) % RECORDS;
                        match db.get(key(i)) {
                            Ok(v) => assert_eq!(v, Some(value(i)), "wrong value for {}", key(i)),
                            Err(_) => errors += 1,
                        }
                    }
                    // However the threads were scheduled, one read after the cut.
                    assert!(db.get(key(RECORDS - 1 - t)).is_err());
                    errors + 1
                })
            })
            .collect();
        let iterator = s.spawn(|| {
            let mut errors = 0;
            while !stop.load(Ordering::Relaxed) {
                for item in db.iter().unwrap() {
                    match item {
                        Ok((k, v)) if k.starts_with(b"key-") => {
                            let i: usize = std::str::from_utf8(&k).unwrap()[4..].parse().unwrap();
                            assert_eq!(v, value(i), "iteration returned a wrong value");
                        }
                        Ok(_) => {}
                        Err(_) => errors += 1,
                    }
                }
            }
            errors
        });
        let writer = s.spawn(|| {
            let mut errors = 0;
            let mut n = 0;
            let mut write = |n: usize| match db.insert(format!("w{n}"), "0123456789".repeat(10)) {
                Ok(()) => assert_eq!(errors, 0, "a write succeeded after a failed one"),
                Err(_) => errors += 1,
            };
            while !stop.load(Ordering::Relaxed) {
                // At most ~170 KiB before the cut, within the room made above.
                if n < 1500 || cut_done.load(Ordering::Relaxed) {
                    write(n);
                    n += 1;
                }
                std::thread::sleep(Duration::from_micros(200));
            }
            // However the threads were scheduled, one write after the cut.
            write(n);
            errors
        });
        std::thread::sleep(Duration::from_millis(30));
        cut(path, CUT_TO);
        cut_done.store(true, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(300));
        stop.store(true, Ordering::Relaxed);
        let reads: usize = readers.into_iter().map(|r| r.join().unwrap()).sum();
        (reads + iterator.join().unwrap(), writer.join().unwrap())
    });
    assert!(read_errors > 0, "no read failed after the cut");
    assert!(write_errors > 0, "no write failed after the cut");
    expect_cut("get after the threads", db.get(key(RECORDS - 1)));
    expect_err("flush after the threads", db.flush());
    println!("@@concurrent: {read_errors} reads and {write_errors} writes failed");
}

fn unflushed(path: &Path) {
    let db = filled(path, FlushPolicy::OnEachFlush);
    for i in 0..50 {
        db.insert(format!("late-{i}"), value(i)).unwrap();
    }
    let len = std::fs::metadata(path).unwrap().len();
    // Cut below the published end: what was written is gone, so the flush
    // must not claim it is durable (nothing is read or written through the
    // mapping in between; only the flush can notice).
    cut(path, CUT_TO.max(len / 2));
    expect_cut("flush", db.flush());
    expect_err("insert", db.insert("new", "value"));
}

fn maintenance(path: &Path) {
    let db = filled(path, FlushPolicy::OnEachFlush);
    cut(path, CUT_TO);
    let backup = path.with_extension("backup");
    expect_cut("backup_to", db.backup_to(&backup));
    assert!(!backup.exists(), "a backup of a truncated file was written");
    expect_err("compact", db.compact());
    expect_err("checkpoint", db.checkpoint());
}

fn encrypted(path: &Path) {
    let db = Emdb::builder()
        .path(path)
        .encryption_key([7u8; 32])
        .build()
        .unwrap();
    db.insert_many((0..RECORDS).map(|i| (key(i), value(i))))
        .unwrap();
    db.flush().unwrap();
    cut(path, CUT_TO);
    check_reads(&db);
}

fn follower_cut(path: &Path) {
    let db = Emdb::builder().path(path).read_only(true).build().unwrap();
    assert_eq!(db.get(key(RECORDS - 1)).unwrap(), Some(value(RECORDS - 1)));
    handshake();
    check_reads(&db);
    expect_cut("refresh", db.refresh());
}

fn follower_rewritten(path: &Path) {
    let db = Emdb::builder().path(path).read_only(true).build().unwrap();
    assert_eq!(db.get(key(0)).unwrap(), Some(value(0)));
    handshake();
    // Same inode, new content: the follower starts over on the new database.
    db.refresh().unwrap();
    assert_eq!(db.get("other-0").unwrap(), Some(b"other".to_vec()));
    assert_eq!(db.get(key(0)).unwrap(), None);
}

// ---- the parent --------------------------------------------------------------

/// Run `scenario` in a child on `path`; `between` runs after the child says
/// `@@ready`. Panics unless the child exits normally.
fn run(scenario: &str, path: &Path, between: impl FnOnce()) -> Vec<String> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, scenario)
        .env(CHILD_DB, path)
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    // A fault the handler returns from without curing repeats forever:
    // fail the test instead of hanging it.
    let child = Arc::new(Mutex::new(child));
    let finished = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (child, finished) = (Arc::clone(&child), Arc::clone(&finished));
        std::thread::spawn(move || {
            let deadline = Instant::now() + CHILD_TIMEOUT;
            while !finished.load(Ordering::Acquire) {
                if Instant::now() > deadline {
                    let _ = child.lock().unwrap().kill();
                    return true;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            false
        })
    };
    let mut between = Some(between);
    let mut lines = Vec::new();
    for line in stdout.lines() {
        let line = line.unwrap();
        let Some(at) = line.find("@@") else { continue };
        let msg = line[at + 2..].to_string();
        if msg == "ready" {
            if let Some(f) = between.take() {
                f();
            }
            writeln!(stdin, "go").unwrap();
        }
        lines.push(msg);
    }
    let status = loop {
        if let Some(status) = child.lock().unwrap().try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    finished.store(true, Ordering::Release);
    let hung = watchdog.join().unwrap();
    let stderr = stderr.join().unwrap();
    assert!(
        !hung,
        "scenario {scenario}: the child hung: {lines:#?}\n{stderr}"
    );
    if let Some(sig) = status.signal() {
        panic!(
            "scenario {scenario}: the child was killed by signal {sig}{}\nits output: {lines:#?}\n{stderr}",
            if sig == libc::SIGBUS { " (SIGBUS)" } else { "" }
        );
    }
    assert!(
        status.success(),
        "scenario {scenario}: child failed ({status})\nits output: {lines:#?}\n{stderr}"
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("done"),
        "scenario {scenario}: the child did not finish: {lines:#?}"
    );
    lines
}

fn scenario(name: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    run(name, &dir.path().join("cut.emdb"), || {})
}

#[test]
fn reads_of_a_truncated_file_are_errors_not_crashes() {
    let out = scenario("reader");
    assert!(out.iter().any(|l| l.starts_with("get:")), "{out:#?}");
}

#[test]
fn a_writer_never_acknowledges_writes_into_a_truncated_file() {
    scenario("writer");
    scenario("writer-write-through");
    scenario("writer-group");
}

#[test]
fn readers_and_a_writer_racing_a_truncation_get_right_values_or_errors() {
    scenario("concurrent");
}

#[test]
fn a_flush_after_the_file_was_truncated_is_an_error() {
    scenario("unflushed");
}

#[test]
fn backup_compaction_and_checkpoint_of_a_truncated_file_fail() {
    scenario("maintenance");
}

#[test]
fn reads_of_a_truncated_encrypted_file_are_errors() {
    scenario("encrypted");
}

#[test]
fn a_follower_reports_its_file_truncated_by_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.emdb");
    drop(filled(&path, FlushPolicy::OnEachFlush));
    run("follower-cut", &path, || cut(&path, CUT_TO));
}

#[test]
fn a_follower_starts_over_when_its_file_is_rewritten_in_place() {
    // Rewritten with a shorter database (the follower sees its file shrink)
    // and with a longer one (it sees it grow, under another identity).
    for (ours, theirs) in [(RECORDS, 10), (10, RECORDS)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.emdb");
        let other = dir.path().join("b.emdb");
        for (p, n, name) in [(&path, ours, "key"), (&other, theirs, "other")] {
            let db = Emdb::open(p).unwrap();
            db.insert_many((0..n).map(|i| {
                let k = if name == "key" {
                    key(i)
                } else {
                    format!("other-{i}")
                };
                let v = if name == "key" {
                    value(i)
                } else {
                    b"other".to_vec()
                };
                (k, v)
            }))
            .unwrap();
        }
        let bytes = std::fs::read(&other).unwrap();
        // `std::fs::write` truncates and rewrites the same inode (as `cp` does).
        run("follower-rewritten", &path, || {
            std::fs::write(&path, &bytes).unwrap()
        });
    }
}

/// A follower whose mapping outgrew the file (the writer maps room ahead
/// of its log and trims it at close) reads the last record as it is, even
/// one whose last byte is zero, which makes a read look past it for a cut:
/// the file trimmed to the log's end is not cut.
#[test]
fn a_follower_reads_the_last_record_after_the_writer_trims_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trimmed.emdb");
    let db = Emdb::open(&path).unwrap();
    db.insert("a", "x").unwrap();
    db.flush().unwrap();
    let f = Emdb::builder()
        .path(&path)
        .read_only(true)
        .follow(false)
        .build()
        .unwrap();
    let last = b"ends in a zero\0".to_vec();
    db.insert("last", last.clone()).unwrap();
    db.flush().unwrap();
    f.refresh().unwrap();
    let mapped = std::fs::metadata(&path).unwrap().len();
    db.close().unwrap();
    let trimmed = std::fs::metadata(&path).unwrap().len();
    assert!(trimmed < mapped, "the writer trimmed {mapped} to {trimmed}");
    f.refresh().unwrap();
    assert_eq!(f.get("last").unwrap(), Some(last));
    assert_eq!(f.get("a").unwrap(), Some(b"x".to_vec()));
}
