//! Process-kill crash tests.
//!
//! The test binary re-executes itself as a writer (`child_writer`, selected
//! with `--exact --ignored` and the `EMDB_CRASH_CHILD` variable). The writer
//! runs a deterministic stream of operations, op number `n` being a pure
//! function of `n`: single inserts, removes, `insert_many` batches and
//! transactions over groups of keys (a group is always written whole, so a
//! partial batch shows up as a group with mixed op numbers), aborted
//! transactions, rare clears, checkpoints and compactions. After each `flush`
//! returns it prints `ACK n`. The parent kills it with SIGKILL at a random
//! moment, reopens the database and checks:
//!
//! - open succeeds and reports no damaged (skipped) ranges;
//! - the contents equal the state after exactly ops `start..=p` for some
//!   `p >= ` the last acknowledged op: nothing acknowledged is lost, nothing
//!   is half applied, nothing appears that was never written;
//! - every batch group is all-or-nothing;
//! - no `compact.tmp` survives the open.
//!
//! The next round continues on the same file from op `p + 1`. Some rounds run
//! compaction in a loop on a second thread (with several MB of ballast so it
//! takes a while) and are killed mid-compaction; some rounds kill a second
//! child while it is still recovering the crashed file.
//!
//! `EMDB_CRASH_ROUNDS=500 cargo test -p emdb-core --test crash -- --nocapture`
//! for a longer run; `EMDB_SOAK_SECS=600` keeps starting rounds until that
//! many seconds have passed (a bounded soak, whatever the round count);
//! `EMDB_CRASH_SEED` repeats one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{ckpt_path, compact_tmp_path, contents, diff, env_usize, mix, Contents, Rng};
use emdb_core::{Emdb, Error, FlushPolicy};

const CHILD_DB: &str = "EMDB_CRASH_CHILD";
const CHILD_START: &str = "EMDB_CRASH_START";
const CHILD_MODE: &str = "EMDB_CRASH_MODE";
const CHILD_POLICY: &str = "EMDB_CRASH_POLICY";

/// Single keys `k/0..SINGLE_KEYS`.
const SINGLE_KEYS: u64 = 97;
/// Batch groups `b/g/i` and transaction groups `t/g/i`.
const GROUPS: u64 = 24;
/// Big batch groups `B/g/i`, `BIG_GROUP_SIZE` keys each.
const BIG_GROUPS: u64 = 3;
const BIG_GROUP_SIZE: u64 = 150;
/// Ballast keys written by the parent before compaction rounds.
const BALLAST_KEYS: usize = 3000;
const BALLAST_LEN: usize = 2000;
/// A flush happens at least every this many ops.
const MAX_FLUSH_GAP: u64 = 16;

// ---- the deterministic operation stream ------------------------------------

#[derive(Debug)]
enum Op {
    Put(Vec<u8>, Vec<u8>),
    Remove(Vec<u8>),
    /// `insert_many`: a whole batch group plus one single key. Some are
    /// large (a big group), so a kill sometimes lands while one is encoded.
    Batch(Vec<(Vec<u8>, Vec<u8>)>),
    /// A committed transaction: a whole transaction group, then a remove.
    Tx(Vec<(Vec<u8>, Vec<u8>)>, Vec<u8>),
    /// A transaction that stages writes and then fails: no effect.
    TxAbort(Vec<(Vec<u8>, Vec<u8>)>),
    Clear,
}

fn single_key(r: u64) -> Vec<u8> {
    format!("k/{}", r % SINGLE_KEYS).into_bytes()
}

fn batch_group_size(g: u64) -> u64 {
    g % 6 + 2
}

fn tx_group_size(g: u64) -> u64 {
    g % 5 + 2
}

/// A value that names the op that wrote it: bytes 0..8 are `n`, 8..16 the
/// slot, then a pattern. Values shorter than 16 bytes carry a prefix of that.
fn value(n: u64, slot: u64, len: usize) -> Vec<u8> {
    let mut head = n.to_le_bytes().to_vec();
    head.extend_from_slice(&slot.to_le_bytes());
    (0..len)
        .map(|i| match head.get(i) {
            Some(&b) => b,
            None => (n as u8).wrapping_mul(7).wrapping_add(i as u8),
        })
        .collect()
}

fn single_len(r: u64) -> usize {
    match r % 20 {
        0 => 0,
        1..=14 => ((r >> 8) % 64) as usize,
        _ => 64 + ((r >> 8) % 3000) as usize,
    }
}

fn group_items(prefix: &str, n: u64, g: u64, size: u64, r: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..size)
        .map(|i| {
            let len = 16 + (mix(r ^ i) % 300) as usize;
            (format!("{prefix}/{g}/{i}").into_bytes(), value(n, i, len))
        })
        .collect()
}

fn op_at(n: u64) -> Op {
    let r = mix(n ^ 0x0123_4567_89ab_cdef);
    let r2 = mix(r);
    if mix(n ^ 0xc1ea2).is_multiple_of(400) {
        return Op::Clear;
    }
    match r % 100 {
        0..=39 => Op::Put(single_key(r2), value(n, 0, single_len(r2 >> 7))),
        40..=51 => Op::Remove(single_key(r2)),
        52..=67 => {
            let g = r2 % GROUPS;
            let mut items = group_items("b", n, g, batch_group_size(g), r2);
            // Also overwrite a single key, so the batch races with single puts.
            items.push((single_key(r2 >> 20), value(n, 99, single_len(r2 >> 9))));
            Op::Batch(items)
        }
        68..=81 => {
            let g = r2 % GROUPS;
            let items = group_items("t", n, g, tx_group_size(g), r2);
            Op::Tx(items, single_key(r2 >> 24))
        }
        86..=87 => {
            let g = r2 % BIG_GROUPS;
            Op::Batch(
                (0..BIG_GROUP_SIZE)
                    .map(|i| (format!("B/{g}/{i}").into_bytes(), value(n, i, 600)))
                    .collect(),
            )
        }
        82..=85 => {
            let g = r2 % GROUPS;
            Op::TxAbort(group_items("t", n, g, tx_group_size(g), r2))
        }
        _ => Op::Put(single_key(r2 >> 3), value(n, 1, single_len(r2 >> 5))),
    }
}

/// The writer flushes (and acknowledges) after these ops.
fn flush_after(n: u64) -> bool {
    n.is_multiple_of(MAX_FLUSH_GAP) || mix(n ^ 0xf1u64).is_multiple_of(6)
}

fn apply(model: &mut Contents, op: &Op) {
    match op {
        Op::Put(k, v) => {
            model.insert(k.clone(), v.clone());
        }
        Op::Remove(k) => {
            model.remove(k);
        }
        Op::Batch(items) => {
            for (k, v) in items {
                model.insert(k.clone(), v.clone());
            }
        }
        Op::Tx(items, rm) => {
            for (k, v) in items {
                model.insert(k.clone(), v.clone());
            }
            model.remove(rm);
        }
        Op::TxAbort(_) => {}
        Op::Clear => model.clear(),
    }
}

fn execute(db: &Emdb, n: u64, op: &Op) {
    match op {
        Op::Put(k, v) => db.insert(k, v).unwrap(),
        Op::Remove(k) => {
            db.remove(k).unwrap();
        }
        // Every other batch goes through a `WriteBatch` (encoded before
        // the writer lock), so a kill lands in both kinds of commit.
        Op::Batch(items) if n % 2 == 1 => {
            let mut batch = db.write_batch();
            for (k, v) in items {
                batch.put(k, v).unwrap();
            }
            batch.commit().unwrap();
        }
        Op::Batch(items) => db.insert_many(items.iter().map(|(k, v)| (k, v))).unwrap(),
        Op::Tx(items, rm) => db
            .transaction(|tx| {
                for (k, v) in items {
                    tx.insert(k, v)?;
                }
                let (k, v) = &items[0];
                assert_eq!(tx.get(k)?.as_ref(), Some(v), "op {n}: tx reads its write");
                tx.remove(rm)?;
                assert_eq!(tx.get(rm)?, None);
                Ok(())
            })
            .unwrap(),
        Op::TxAbort(items) => {
            let r = db.transaction(|tx| {
                for (k, v) in items {
                    tx.insert(k, v)?;
                }
                Err::<(), _>(Error::TransactionAborted("crash test abort"))
            });
            assert!(matches!(r, Err(Error::TransactionAborted(_))), "{r:?}");
        }
        Op::Clear => db.clear().unwrap(),
    }
}

fn policy(i: u64) -> FlushPolicy {
    match i % 3 {
        0 => FlushPolicy::OnEachFlush,
        1 => FlushPolicy::Group {
            max_wait: Duration::from_millis(1),
            max_batch: 8,
        },
        _ => FlushPolicy::WriteThrough,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Ops with inline checkpoints and compactions.
    Ops,
    /// Ops on one thread, compaction in a loop on another.
    Compact,
    /// Open (recover) and idle: killed to crash during recovery.
    OpenOnly,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Ops => "ops",
            Mode::Compact => "compact",
            Mode::OpenOnly => "open-only",
        }
    }
}

/// Print a message for the parent. Messages start with `@@` because the test
/// harness may print on the same line first ("test child_writer ... ").
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "@@{line}").unwrap();
    out.flush().unwrap();
}

/// The writer process. Does nothing unless started by a crash test.
#[test]
#[ignore = "child process of the crash tests; they run it"]
fn child_writer() {
    let Some(path) = std::env::var_os(CHILD_DB) else {
        return;
    };
    let start: u64 = std::env::var(CHILD_START).unwrap().parse().unwrap();
    let mode = std::env::var(CHILD_MODE).unwrap();
    let policy_index: u64 = std::env::var(CHILD_POLICY).unwrap().parse().unwrap();
    let db = Emdb::builder()
        .path(PathBuf::from(path))
        .flush_policy(policy(policy_index))
        .build()
        .unwrap_or_else(|e| panic!("child open: {e}"));
    say("READY");
    if mode == Mode::OpenOnly.name() {
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
    if mode == Mode::Compact.name() {
        let db = db.clone();
        std::thread::spawn(move || loop {
            if let Err(e) = db.compact() {
                eprintln!("child: compaction failed: {e}");
                std::process::exit(3);
            }
            std::thread::sleep(Duration::from_millis(1));
        });
    }
    for n in start.. {
        execute(&db, n, &op_at(n));
        if mode == Mode::Ops.name() {
            if n.is_multiple_of(173) {
                db.compact().unwrap();
            } else if n.is_multiple_of(61) {
                db.checkpoint().unwrap();
            }
        }
        if flush_after(n) {
            db.flush().unwrap();
            say(&format!("ACK {n}"));
        }
    }
}

// ---- the parent ----------------------------------------------------------

struct Outcome {
    /// Highest op whose flush was acknowledged.
    acked: Option<u64>,
    ready: bool,
    /// `compact.tmp` existed right after the kill.
    killed_mid_compaction: bool,
}

/// Run a child in `mode` and SIGKILL it `delay` after it is ready (or after
/// spawning, when `wait_ready` is false).
fn run_child(
    path: &Path,
    start: u64,
    mode: Mode,
    policy_index: u64,
    wait_ready: bool,
    delay: Duration,
) -> Outcome {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_writer",
            "--nocapture",
            "--ignored",
            "--test-threads=1",
        ])
        .env(CHILD_DB, path)
        .env(CHILD_START, start.to_string())
        .env(CHILD_MODE, mode.name())
        .env(CHILD_POLICY, policy_index.to_string())
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn child");
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    let out_reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Some(at) = line.find("@@") else { continue };
            if tx.send(line[at + 2..].to_string()).is_err() {
                break;
            }
        }
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });

    let mut lines = Vec::new();
    let mut ready = false;
    if wait_ready {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !ready {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(l) => {
                    ready |= l == "READY";
                    lines.push(l);
                }
                Err(_) => break,
            }
        }
    }
    std::thread::sleep(delay);
    child.kill().expect("kill child");
    let status = child.wait().expect("wait child");
    let killed_mid_compaction = compact_tmp_path(path).exists();
    out_reader.join().unwrap();
    lines.extend(rx.try_iter());
    let stderr = err_reader.join().unwrap();
    assert_eq!(
        status.signal(),
        Some(SIGKILL),
        "the {} child ended by itself ({status}) instead of being killed; stderr:\n{stderr}",
        mode.name()
    );
    if wait_ready {
        assert!(ready, "child never became ready; stderr:\n{stderr}");
    }
    ready |= lines.iter().any(|l| l == "READY");
    let acked = lines
        .iter()
        .filter_map(|l| l.strip_prefix("ACK "))
        .map(|n| n.parse::<u64>().unwrap())
        .max();
    Outcome {
        acked,
        ready,
        killed_mid_compaction,
    }
}

/// The signal number of SIGKILL.
const SIGKILL: i32 = 9;

/// Batch and transaction groups are written whole: each group is absent or
/// complete with every key from the same op.
fn check_groups(actual: &Contents, round: usize) {
    for (prefix, size_of) in [
        ("b", batch_group_size as fn(u64) -> u64),
        ("t", tx_group_size),
    ] {
        for g in 0..GROUPS {
            let ops: Vec<Option<u64>> = (0..size_of(g))
                .map(|i| {
                    let k = format!("{prefix}/{g}/{i}").into_bytes();
                    actual.get(&k).map(|v| {
                        let mut n = [0u8; 8];
                        n.copy_from_slice(&v[..8]);
                        u64::from_le_bytes(n)
                    })
                })
                .collect();
            let all_absent = ops.iter().all(Option::is_none);
            let first = ops[0];
            let all_same = first.is_some() && ops.iter().all(|o| *o == first);
            assert!(
                all_absent || all_same,
                "round {round}: group {prefix}/{g} is partially applied (op per key: {ops:?})"
            );
        }
    }
}

/// The ops one writer child ran: from `start`, acknowledged up to `acked`.
#[derive(Clone, Copy, Debug)]
struct Segment {
    start: u64,
    acked: Option<u64>,
}

/// How far past its last acknowledged op a killed writer can have got: the
/// next flush (at most `MAX_FLUSH_GAP` ops) may have returned without its
/// `ACK` reaching us, and the ops after it may have reached the log.
const PAST_ACK: u64 = 3 * MAX_FLUSH_GAP;

/// Find, for each segment in order, the op `p >= acked + 1` it reached, such
/// that `base` followed by ops `start..p` of every segment equals `actual`.
/// Returns the `p` of the last segment.
fn find_prefixes(model: &Contents, segments: &[Segment], actual: &Contents) -> Option<u64> {
    let (seg, rest) = segments.split_first()?;
    let mut model = model.clone();
    let first = seg.acked.map_or(seg.start, |a| a + 1);
    for n in seg.start..first {
        apply(&mut model, &op_at(n));
    }
    let mut p = first; // ops start..p applied
    loop {
        if rest.is_empty() {
            if &model == actual {
                return Some(p);
            }
        } else if let Some(last) = find_prefixes(&model, rest, actual) {
            return Some(last);
        }
        if p > first + PAST_ACK {
            return None;
        }
        apply(&mut model, &op_at(p));
        p += 1;
    }
}

fn ballast(i: usize) -> (Vec<u8>, Vec<u8>) {
    let k = format!("z/{i}").into_bytes();
    let v = (0..BALLAST_LEN).map(|j| (i + j) as u8).collect();
    (k, v)
}

#[test]
fn sigkilled_writer_loses_no_acknowledged_write_and_no_batch_is_half_visible() {
    let rounds = env_usize("EMDB_CRASH_ROUNDS", 30);
    let mut rng = Rng::from_env("EMDB_CRASH_SEED");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.emdb");
    // The parent creates the database: the base state of round 0 is empty.
    drop(Emdb::open(&path).unwrap());
    let mut base = Contents::new();
    let mut start = 1u64;
    let (mut acked_total, mut torn, mut mid_compaction, mut recovery_kills) = (0u64, 0, 0, 0);
    let mut double_crashes = 0;
    let mut extra_compact_rounds = 0;
    let mut round = 0;
    let began = Instant::now();
    // Soak: rounds until the deadline (the usual rounds run at least).
    let soak = std::env::var("EMDB_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map(|secs| began + Duration::from_secs(secs));
    let more = |round: usize| round < rounds || soak.is_some_and(|end| Instant::now() < end);
    while more(round) || (mid_compaction == 0 && extra_compact_rounds < 10) {
        let extra = !more(round);
        let compact = round % 3 == 1 || extra;
        if extra {
            extra_compact_rounds += 1;
        }
        let mode = if compact { Mode::Compact } else { Mode::Ops };
        if compact && !base.contains_key(&ballast(0).0) {
            // Ballast, so a compaction takes long enough to be interrupted.
            let db = Emdb::open(&path).unwrap();
            let items: Vec<_> = (0..BALLAST_KEYS).map(ballast).collect();
            db.insert_many(items.iter().map(|(k, v)| (k, v))).unwrap();
            for (k, v) in items {
                base.insert(k, v);
            }
        }
        let policy_index = rng.below(3);
        let wait_ready = round % 6 != 5;
        let delay = if wait_ready {
            Duration::from_millis(rng.below(if compact { 600 } else { 250 }))
        } else {
            Duration::from_millis(rng.below(30))
        };
        let out = run_child(&path, start, mode, policy_index, wait_ready, delay);
        mid_compaction += usize::from(out.killed_mid_compaction && compact);
        let mut segments = vec![Segment {
            start,
            acked: out.acked,
        }];
        if round % 3 == 2 {
            // Crash twice before looking: a second writer recovers the
            // crashed file itself, appends after what it recovered, and is
            // killed too. Its ops get fresh numbers, after anything the
            // first writer can have reached.
            let start2 = out.acked.unwrap_or(start) + PAST_ACK + 2;
            let delay = Duration::from_millis(rng.below(150));
            let out2 = run_child(&path, start2, mode, rng.below(3), true, delay);
            mid_compaction += usize::from(out2.killed_mid_compaction && compact);
            segments.push(Segment {
                start: start2,
                acked: out2.acked,
            });
            double_crashes += 1;
        }

        if round % 4 == 1 {
            // Crash the next open while it recovers the crashed file.
            let d = Duration::from_micros(rng.below(8000));
            let o = run_child(&path, 0, Mode::OpenOnly, 0, false, d);
            recovery_kills += usize::from(!o.ready);
        }

        let db = Emdb::builder()
            .path(&path)
            .checkpoint_on_close(rng.below(2) == 0)
            .build()
            .unwrap_or_else(|e| panic!("round {round}: reopen after SIGKILL failed: {e}"));
        let rep = db.recovery_report().clone();
        assert!(
            rep.skipped.is_empty() && rep.orphaned_records == 0,
            "round {round}: recovery found damage after a kill: {rep:?}"
        );
        torn += usize::from(rep.truncated_tail_at.is_some());
        assert!(
            !compact_tmp_path(&path).exists(),
            "round {round}: open left compact.tmp behind"
        );
        let actual = contents(&db);
        assert_eq!(db.len().unwrap(), actual.len());
        check_groups(&actual, round);
        let Some(p) = find_prefixes(&base, &segments, &actual) else {
            let mut at_ack = base.clone();
            for seg in &segments {
                for n in seg.start..=seg.acked.unwrap_or(seg.start - 1) {
                    apply(&mut at_ack, &op_at(n));
                }
            }
            panic!(
                "round {round} ({mode:?}, policy {policy_index}, writers {segments:?}): \
                 the database matches no prefix of the ops at or after the acknowledged ones.\n\
                 Differences from the acknowledged state:\n{}\nreport: {rep:?}",
                diff(&actual, &at_ack)
            );
        };
        for seg in &segments {
            if let Some(a) = seg.acked {
                acked_total += a + 1 - seg.start;
            }
        }
        base = actual;
        start = p;
        drop(db);
        round += 1;
    }
    eprintln!(
        "crash: {round} rounds in {:.1?}, {acked_total} ops acknowledged, {torn} torn tails cut, \
         {mid_compaction} kills mid-compaction, {recovery_kills} kills before a recovering open \
         finished, {double_crashes} rounds with a second writer on the crashed file",
        began.elapsed()
    );
    assert!(
        mid_compaction > 0,
        "no round managed to kill the writer during a compaction"
    );
}

// ---- crash images taken at chosen moments ---------------------------------------

/// A crash while `insert_many` is encoding leaves the batch's frames in the
/// file without their header. Recovery sees zeros where the header belongs
/// and stops there, but those frames are complete, CRC-valid records: they
/// must never become visible, whatever is appended after recovery.
///
/// The crash image is a copy of the file taken from inside the batch's item
/// iterator, when some frames are already in the log but the header is not.
#[test]
fn frames_of_a_batch_interrupted_by_a_crash_never_become_visible() {
    for with_checkpoint in [false, true] {
        interrupted_batch(with_checkpoint);
    }
}

fn interrupted_batch(with_checkpoint: bool) {
    let what = format!("with_checkpoint {with_checkpoint}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("interrupted.emdb");
    let (image, ckpt) = {
        let db = Emdb::builder()
            .path(&path)
            .checkpoint_on_close(false)
            .build()
            .unwrap();
        db.insert("before", "1").unwrap();
        db.flush().unwrap();
        if with_checkpoint {
            db.checkpoint().unwrap();
        }
        let mut image = None;
        // Each item frame is 4 + 1 + 1 + 1 + 7 + 9 = 23 bytes, the size of
        // a batch header frame.
        let items = (0..4).map(|i| {
            if i == 3 {
                image = Some(std::fs::read(&path).unwrap());
            }
            (format!("batch-{i}"), [b'v'; 9])
        });
        db.insert_many(items).unwrap();
        (image.unwrap(), std::fs::read(ckpt_path(&path)).ok())
    };
    let crashed = dir.path().join("crashed.emdb");
    std::fs::write(&crashed, &image).unwrap();
    if let Some(c) = &ckpt {
        std::fs::write(ckpt_path(&crashed), c).unwrap();
    }
    let keys = |db: &Emdb| -> Vec<String> {
        contents(db)
            .into_keys()
            .map(|k| String::from_utf8_lossy(&k).into_owned())
            .collect()
    };
    {
        let ro = Emdb::builder()
            .path(&crashed)
            .read_only(true)
            .build()
            .unwrap();
        assert_eq!(keys(&ro), ["before"], "{what}: read-only open");
    }
    let image2 = {
        let db = Emdb::builder()
            .path(&crashed)
            .checkpoint_on_close(false)
            .build()
            .unwrap();
        assert_eq!(
            keys(&db),
            ["before"],
            "{what}: the uncommitted batch is visible"
        );
        // 23 bytes, so the next record would start where the stale frame of
        // batch-0 starts.
        db.insert("after-1", "123456789").unwrap();
        db.flush().unwrap();
        // Crash again: the file as it is now.
        std::fs::read(&crashed).unwrap()
    };
    std::fs::write(&crashed, &image2).unwrap();
    let db = Emdb::open(&crashed).unwrap();
    assert_eq!(
        db.recovery_report().used_checkpoint,
        with_checkpoint,
        "{what}"
    );
    assert_eq!(
        keys(&db),
        ["after-1", "before"],
        "{what}: frames of a batch that never committed came back: {:?}",
        db.recovery_report()
    );
}
