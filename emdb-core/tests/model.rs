//! Model-based tests: random operation sequences run against emdb and against
//! a `BTreeMap`, which must agree after every step, across flushes,
//! checkpoints, compactions and reopens (with a checkpoint, without one, and
//! after deleting it).
//!
//! `PROPTEST_CASES=2000 cargo test -p emdb-core --test model` for a longer run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{ckpt_path, contents, diff, remove_if_exists, show, Contents};
use emdb_core::{Emdb, Error, FlushPolicy, ValueRef, MAX_KEY_LEN};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Keys come from a small alphabet (40 keys, the empty key included), so
/// overwrites, removals of present keys and batch collisions are frequent.
const ALPHABET: &[u8] = b"abc";
const MAX_KEY: usize = 3;

fn all_keys() -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    let mut last = vec![Vec::new()];
    for _ in 0..MAX_KEY {
        let mut next = Vec::new();
        for k in &last {
            for &c in ALPHABET {
                let mut k = k.clone();
                k.push(c);
                next.push(k);
            }
        }
        out.extend(next.iter().cloned());
        last = next;
    }
    out
}

#[derive(Clone, Debug)]
enum TxOp {
    Insert(Vec<u8>, Vec<u8>),
    Remove(Vec<u8>),
    Get(Vec<u8>),
}

#[derive(Clone, Copy, Debug)]
enum Abort {
    /// The closure returns an error of its own.
    Explicit,
    /// A staged insert fails its size check and the closure propagates it.
    OversizedKey,
}

#[derive(Clone, Copy, Debug)]
struct Reopen {
    /// `checkpoint_on_close` of the handle opened next.
    checkpoint_on_close: bool,
    /// Delete `<db>.ckpt` between close and open (forces a full replay).
    delete_checkpoint: bool,
    /// Open read-only once in between and compare.
    read_only_peek: bool,
}

#[derive(Clone, Debug)]
enum Op {
    Insert(Vec<u8>, Vec<u8>),
    Remove(Vec<u8>),
    InsertMany(Vec<(Vec<u8>, Vec<u8>)>),
    /// An `insert_many` whose last item has a key past the limit: the whole
    /// batch must be rejected and leave no trace, also after a reopen.
    InsertManyRejected(Vec<(Vec<u8>, Vec<u8>)>),
    TxCommit(Vec<TxOp>),
    TxAbort(Vec<TxOp>, Abort),
    /// A `WriteBatch` filled on another thread, then committed (its gets
    /// are skipped).
    WriteBatch(Vec<TxOp>),
    Clear,
    Get(Vec<u8>),
    /// Get zero-copy and keep the `ValueRef` to check its bytes later.
    GetZerocopy(Vec<u8>),
    ContainsKey(Vec<u8>),
    Len,
    Iter,
    Keys,
    /// Sorted reads over `[a, b)`, from `a`, after `a`, and under prefix `a`.
    Range(Vec<u8>, Vec<u8>),
    Flush,
    Checkpoint,
    Compact,
    Reopen(Reopen),
    /// Kill-like restart: the files exactly as they are now (every returned
    /// write is in the page cache, nothing torn), then open them again
    /// without the clean close (no final sync, trim or checkpoint).
    Crash {
        /// Keep the (possibly stale) checkpoint file, or lose it.
        keep_checkpoint: bool,
    },
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    vec(prop::sample::select(ALPHABET.to_vec()), 0..=MAX_KEY)
}

fn value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        2 => Just(Vec::new()),
        6 => vec(any::<u8>(), 1..24),
        1 => (1000usize..5000, any::<u8>()).prop_map(|(n, s)| {
            (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(s)).collect()
        }),
    ]
}

fn pairs(max: usize) -> impl Strategy<Value = Vec<(Vec<u8>, Vec<u8>)>> {
    vec((key(), value()), 0..max)
}

fn tx_op() -> impl Strategy<Value = TxOp> {
    prop_oneof![
        3 => (key(), value()).prop_map(|(k, v)| TxOp::Insert(k, v)),
        2 => key().prop_map(TxOp::Remove),
        1 => key().prop_map(TxOp::Get),
    ]
}

fn op(file_backed: bool) -> impl Strategy<Value = Op> {
    // In memory, a reopen only compares everything with the model.
    let reopen_weight = if file_backed { 3 } else { 1 };
    prop_oneof![
        12 => (key(), value()).prop_map(|(k, v)| Op::Insert(k, v)),
        5 => key().prop_map(Op::Remove),
        3 => pairs(8).prop_map(Op::InsertMany),
        1 => pairs(4).prop_map(Op::InsertManyRejected),
        3 => vec(tx_op(), 0..8).prop_map(Op::TxCommit),
        2 => vec(tx_op(), 0..8).prop_map(Op::WriteBatch),
        1 => (vec(tx_op(), 0..6), prop_oneof![Just(Abort::Explicit), Just(Abort::OversizedKey)])
            .prop_map(|(ops, a)| Op::TxAbort(ops, a)),
        1 => Just(Op::Clear),
        3 => key().prop_map(Op::Get),
        1 => key().prop_map(Op::GetZerocopy),
        2 => key().prop_map(Op::ContainsKey),
        1 => Just(Op::Len),
        1 => Just(Op::Iter),
        1 => Just(Op::Keys),
        3 => (key(), key()).prop_map(|(a, b)| Op::Range(a, b)),
        2 => Just(Op::Flush),
        1 => Just(Op::Checkpoint),
        1 => Just(Op::Compact),
        reopen_weight => any::<bool>().prop_map(|keep_checkpoint| Op::Crash { keep_checkpoint }),
        reopen_weight => (any::<bool>(), any::<bool>(), prop::bool::weighted(0.2)).prop_map(
            |(checkpoint_on_close, delete_checkpoint, read_only_peek)| {
                Op::Reopen(Reopen {
                    checkpoint_on_close,
                    delete_checkpoint,
                    read_only_peek,
                })
            }
        ),
    ]
}

fn policy(i: usize) -> FlushPolicy {
    match i {
        0 => FlushPolicy::OnEachFlush,
        1 => FlushPolicy::Group {
            max_wait: Duration::from_micros(200),
            max_batch: 4,
        },
        _ => FlushPolicy::WriteThrough,
    }
}

fn open(path: &Path, policy: FlushPolicy, checkpoint_on_close: bool) -> Emdb {
    Emdb::builder()
        .path(path)
        .flush_policy(policy)
        .checkpoint_on_close(checkpoint_on_close)
        .build()
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
}

/// The database under test, its model, and what the test holds on to.
struct Harness {
    _dir: Option<tempfile::TempDir>,
    path: Option<PathBuf>,
    policy: FlushPolicy,
    db: Option<Emdb>,
    checkpoint_on_close: bool,
    model: Contents,
    /// Zero-copy values taken earlier, with the bytes they had.
    held: Vec<(ValueRef, Vec<u8>)>,
    keys: Vec<Vec<u8>>,
}

type TestResult = Result<(), TestCaseError>;

impl Harness {
    fn new(file_backed: bool, policy: FlushPolicy) -> Harness {
        let (dir, path, db) = if file_backed {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("model.emdb");
            let db = open(&path, policy, true);
            (Some(dir), Some(path), db)
        } else {
            (None, None, Emdb::open_in_memory())
        };
        Harness {
            _dir: dir,
            path,
            policy,
            db: Some(db),
            checkpoint_on_close: true,
            model: Contents::new(),
            held: Vec::new(),
            keys: all_keys(),
        }
    }

    fn db(&self) -> &Emdb {
        self.db.as_ref().unwrap()
    }

    /// Every observable agrees with the model.
    fn check_full(&self, db: &Emdb, when: &str) -> TestResult {
        let got = contents(db);
        prop_assert!(
            got == self.model,
            "{when}: contents differ from the model:\n{}",
            diff(&got, &self.model)
        );
        let keys: BTreeSet<Vec<u8>> = db.keys().unwrap().map(|k| k.unwrap()).collect();
        let want: BTreeSet<Vec<u8>> = self.model.keys().cloned().collect();
        prop_assert_eq!(keys, want, "{}: keys() differs", when);
        // The sorted order: every pair, in byte order.
        let ordered = db.range(..).unwrap();
        let want: Vec<(Vec<u8>, Vec<u8>)> = self
            .model
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        prop_assert!(
            ordered == want,
            "{}: range(..) differs from the model",
            when
        );
        // The same from a key on, read without copies (`next_map`).
        if let Some(from) = self.keys.get(self.keys.len() / 2) {
            let mut it = db.range_iter(from.clone()..).unwrap();
            let mut borrowed = Vec::new();
            while let Some(pair) = it.next_map(|k, v| (k.to_vec(), v.to_vec())) {
                borrowed.push(pair.unwrap());
            }
            let want: Vec<(Vec<u8>, Vec<u8>)> = self
                .model
                .range(from.clone()..)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            prop_assert!(borrowed == want, "{}: next_map from a key differs", when);
        }
        prop_assert_eq!(db.len().unwrap(), self.model.len(), "{}: len", when);
        prop_assert_eq!(db.is_empty().unwrap(), self.model.is_empty(), "{}", when);
        for k in &self.keys {
            let got = db.get(k).unwrap();
            prop_assert_eq!(got.as_ref(), self.model.get(k), "{}: get {}", when, show(k));
            prop_assert_eq!(db.contains_key(k).unwrap(), self.model.contains_key(k));
        }
        prop_assert_eq!(db.stats().unwrap().live_records as usize, self.model.len());
        self.check_held(when)
    }

    fn check_held(&self, when: &str) -> TestResult {
        for (i, (r, want)) in self.held.iter().enumerate() {
            prop_assert!(
                &r[..] == want.as_slice(),
                "{}: held ValueRef #{} changed: now {}, was {}",
                when,
                i,
                show(r),
                show(want)
            );
        }
        Ok(())
    }

    fn run(&mut self, op: &Op) -> TestResult {
        match op {
            Op::Insert(k, v) => {
                self.db().insert(k, v).unwrap();
                self.model.insert(k.clone(), v.clone());
            }
            Op::Remove(k) => {
                let got = self.db().remove(k).unwrap();
                prop_assert_eq!(got, self.model.remove(k), "remove {}", show(k));
            }
            Op::InsertMany(items) => {
                self.db()
                    .insert_many(items.iter().map(|(k, v)| (k, v)))
                    .unwrap();
                for (k, v) in items {
                    self.model.insert(k.clone(), v.clone());
                }
            }
            Op::InsertManyRejected(items) => {
                let big = vec![b'k'; MAX_KEY_LEN + 1];
                let r = self.db().insert_many(
                    items
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .chain([(big, b"x".to_vec())]),
                );
                prop_assert!(
                    matches!(r, Err(Error::KeyTooLarge { .. })),
                    "oversized batch: {:?}",
                    r
                );
            }
            Op::TxCommit(ops) => self.transaction(ops, None)?,
            Op::WriteBatch(ops) => {
                let mut batch = self.db().write_batch();
                let filled = std::thread::scope(|s| {
                    s.spawn(|| {
                        for op in ops {
                            match op {
                                TxOp::Insert(k, v) => batch.put(k, v).unwrap(),
                                TxOp::Remove(k) => batch.remove(k).unwrap(),
                                TxOp::Get(_) => {}
                            }
                        }
                        batch
                    })
                    .join()
                    .unwrap()
                });
                let mut batch = filled;
                batch.commit().unwrap();
                prop_assert!(batch.is_empty());
                for op in ops {
                    match op {
                        TxOp::Insert(k, v) => {
                            self.model.insert(k.clone(), v.clone());
                        }
                        TxOp::Remove(k) => {
                            self.model.remove(k);
                        }
                        TxOp::Get(_) => {}
                    }
                }
            }
            Op::TxAbort(ops, abort) => self.transaction(ops, Some(*abort))?,
            Op::Clear => {
                self.db().clear().unwrap();
                self.model.clear();
            }
            Op::Get(k) => {
                let got = self.db().get(k).unwrap();
                prop_assert_eq!(got.as_ref(), self.model.get(k));
            }
            Op::GetZerocopy(k) => {
                let got = self.db().get_zerocopy(k).unwrap();
                prop_assert_eq!(got.as_deref(), self.model.get(k).map(Vec::as_slice));
                if let Some(r) = got {
                    if self.held.len() >= 8 {
                        self.held.remove(0);
                    }
                    let bytes = r.to_vec();
                    self.held.push((r, bytes));
                }
            }
            Op::ContainsKey(k) => {
                prop_assert_eq!(
                    self.db().contains_key(k).unwrap(),
                    self.model.contains_key(k)
                );
            }
            Op::Len => {
                prop_assert_eq!(self.db().len().unwrap(), self.model.len());
                prop_assert_eq!(self.db().is_empty().unwrap(), self.model.is_empty());
            }
            Op::Iter => {
                let got = contents(self.db());
                prop_assert!(got == self.model, "iter:\n{}", diff(&got, &self.model));
            }
            Op::Keys => {
                let mut keys: Vec<Vec<u8>> =
                    self.db().keys().unwrap().map(|k| k.unwrap()).collect();
                keys.sort();
                let want: Vec<Vec<u8>> = self.model.keys().cloned().collect();
                prop_assert_eq!(keys, want);
            }
            Op::Range(a, b) => {
                let db = self.db();
                let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
                let pairs = |r: Vec<(&Vec<u8>, &Vec<u8>)>| -> Vec<(Vec<u8>, Vec<u8>)> {
                    r.into_iter().map(|(k, v)| (k.clone(), v.clone())).collect()
                };
                let got = db.range(lo.clone()..hi.clone()).unwrap();
                prop_assert_eq!(
                    got,
                    pairs(self.model.range(lo.clone()..hi.clone()).collect())
                );
                let got: Vec<_> = db.iter_from(a).unwrap().map(|r| r.unwrap()).collect();
                prop_assert_eq!(got, pairs(self.model.range(a.clone()..).collect()));
                let after = (
                    std::ops::Bound::Excluded(a.clone()),
                    std::ops::Bound::Unbounded,
                );
                let got: Vec<_> = db.iter_after(a).unwrap().map(|r| r.unwrap()).collect();
                prop_assert_eq!(got, pairs(self.model.range(after).collect()));
                let got = db.range_prefix(a).unwrap();
                let want = self
                    .model
                    .iter()
                    .filter(|(k, _)| k.starts_with(a))
                    .collect();
                prop_assert_eq!(got, pairs(want));
            }
            Op::Flush => self.db().flush().unwrap(),
            Op::Checkpoint => self.db().checkpoint().unwrap(),
            Op::Compact => {
                let before = self.db().stats().unwrap();
                self.db().compact().unwrap();
                let after = self.db().stats().unwrap();
                // Compaction copies live frames verbatim, so the incrementally
                // maintained live-bytes figure must equal the recomputed one.
                prop_assert_eq!(
                    before.live_bytes,
                    after.live_bytes,
                    "live_bytes drifted from the log"
                );
                prop_assert_eq!(after.dead_bytes, 0);
                self.check_full(self.db(), "after compact")?;
            }
            Op::Reopen(r) => self.reopen(*r)?,
            Op::Crash { keep_checkpoint } => self.crash(*keep_checkpoint)?,
        }
        prop_assert_eq!(
            self.db().len().unwrap(),
            self.model.len(),
            "len after {:?}",
            op
        );
        Ok(())
    }

    fn transaction(&mut self, ops: &[TxOp], abort: Option<Abort>) -> TestResult {
        let mut overlay = self.model.clone();
        let mut problems = Vec::new();
        let r = self.db().transaction(|tx| {
            for op in ops {
                match op {
                    TxOp::Insert(k, v) => {
                        tx.insert(k, v)?;
                        overlay.insert(k.clone(), v.clone());
                    }
                    TxOp::Remove(k) => {
                        let got = tx.remove(k)?;
                        let want = overlay.remove(k);
                        if got != want {
                            problems.push(format!(
                                "tx.remove {}: {:?} != {:?}",
                                show(k),
                                got,
                                want
                            ));
                        }
                    }
                    TxOp::Get(k) => {
                        let got = tx.get(k)?;
                        if got.as_ref() != overlay.get(k) {
                            problems.push(format!("tx.get {}: {:?}", show(k), got));
                        }
                        if tx.contains_key(k)? != overlay.contains_key(k) {
                            problems.push(format!("tx.contains_key {}", show(k)));
                        }
                    }
                }
            }
            match abort {
                None => Ok(()),
                Some(Abort::Explicit) => Err(Error::TransactionAborted("model abort")),
                Some(Abort::OversizedKey) => {
                    tx.insert(vec![b'x'; MAX_KEY_LEN + 1], b"v")?;
                    Ok(())
                }
            }
        });
        prop_assert!(
            problems.is_empty(),
            "inside the transaction: {:?}",
            problems
        );
        match abort {
            None => {
                prop_assert!(r.is_ok(), "commit failed: {:?}", r);
                self.model = overlay;
            }
            Some(Abort::Explicit) => {
                prop_assert!(matches!(r, Err(Error::TransactionAborted(_))), "{:?}", r)
            }
            Some(Abort::OversizedKey) => {
                prop_assert!(matches!(r, Err(Error::KeyTooLarge { .. })), "{:?}", r)
            }
        }
        Ok(())
    }

    fn reopen(&mut self, r: Reopen) -> TestResult {
        let Some(path) = self.path.clone() else {
            return self.check_full(self.db(), "in-memory checkpoint");
        };
        let live_bytes = self.db().stats().unwrap().live_bytes;
        let had_checkpoint_on_close = self.checkpoint_on_close;
        drop(self.db.take());
        self.check_held("after close")?;
        if r.delete_checkpoint {
            remove_if_exists(&ckpt_path(&path));
        }
        if r.read_only_peek {
            let ro = Emdb::builder().path(&path).read_only(true).build().unwrap();
            self.check_full(&ro, "read-only reopen")?;
            prop_assert!(matches!(ro.insert("x", "y"), Err(Error::ReadOnly)));
        }
        let db = open(&path, self.policy, r.checkpoint_on_close);
        let rep = db.recovery_report().clone();
        prop_assert_eq!(
            &rep.checkpoint_rejected,
            &None,
            "a clean close left a bad checkpoint"
        );
        prop_assert_eq!(
            rep.truncated_tail_at,
            None,
            "a clean close left a torn tail"
        );
        prop_assert!(
            rep.skipped.is_empty(),
            "a clean close left damage: {:?}",
            rep.skipped
        );
        if r.delete_checkpoint {
            prop_assert!(!rep.used_checkpoint);
        } else if had_checkpoint_on_close {
            prop_assert!(
                rep.used_checkpoint,
                "close did not leave a usable checkpoint"
            );
            // A clean close leaves at most a small tail (under 64 KiB) for
            // the next open rather than rewrite the whole index image.
            prop_assert!(
                rep.replayed_bytes < 64 << 10,
                "close left a tail of {} bytes",
                rep.replayed_bytes
            );
        }
        self.db = Some(db);
        self.checkpoint_on_close = r.checkpoint_on_close;
        self.check_full(self.db(), &format!("after reopen {r:?}"))?;
        prop_assert_eq!(
            self.db().stats().unwrap().live_bytes,
            live_bytes,
            "live_bytes differs after reopen {:?} (report {:?})",
            r,
            rep
        );
        Ok(())
    }
}

impl Harness {
    fn crash(&mut self, keep_checkpoint: bool) -> TestResult {
        let Some(path) = self.path.clone() else {
            return self.check_full(self.db(), "in-memory crash");
        };
        let live_bytes = self.db().stats().unwrap().live_bytes;
        let log = std::fs::read(&path).unwrap();
        let ckpt = std::fs::read(ckpt_path(&path)).ok();
        drop(self.db.take());
        // Put the image back as a new file, so mappings of the old one (held
        // zero-copy values) are not disturbed.
        let tmp = path.with_extension("crash-image");
        std::fs::write(&tmp, &log).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        match (keep_checkpoint, ckpt) {
            (true, Some(c)) => std::fs::write(ckpt_path(&path), c).unwrap(),
            _ => remove_if_exists(&ckpt_path(&path)),
        }
        let db = open(&path, self.policy, self.checkpoint_on_close);
        let rep = db.recovery_report().clone();
        prop_assert_eq!(&rep.checkpoint_rejected, &None, "after a crash");
        prop_assert_eq!(rep.truncated_tail_at, None, "nothing was torn");
        prop_assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
        self.db = Some(db);
        self.check_full(self.db(), &format!("after a crash (report {rep:?})"))?;
        prop_assert_eq!(
            self.db().stats().unwrap().live_bytes,
            live_bytes,
            "after a crash"
        );
        Ok(())
    }
}

fn run_sequence(file_backed: bool, policy_index: usize, ops: &[Op]) -> TestResult {
    let mut h = Harness::new(file_backed, policy(policy_index));
    for (i, op) in ops.iter().enumerate() {
        h.run(op)
            .map_err(|e| TestCaseError::fail(format!("step {i} {op:?}: {e}")))?;
    }
    h.check_full(h.db(), "end of sequence")?;
    if file_backed {
        // One last reopen of each kind.
        h.reopen(Reopen {
            checkpoint_on_close: false,
            delete_checkpoint: false,
            read_only_peek: false,
        })?;
        h.reopen(Reopen {
            checkpoint_on_close: true,
            delete_checkpoint: true,
            read_only_peek: false,
        })?;
    }
    Ok(())
}

/// Cases per run: `PROPTEST_CASES` when set, otherwise `default`.
fn config(default: u32) -> ProptestConfig {
    let mut c = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = default;
    }
    c
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn file_backed_database_matches_a_btreemap(
        policy_index in 0..3usize,
        ops in vec(op(true), 1..60),
    ) {
        run_sequence(true, policy_index, &ops)?;
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn in_memory_database_matches_a_btreemap(ops in vec(op(false), 1..60)) {
        run_sequence(false, 0, &ops)?;
    }
}

/// A fixed sequence that exercises every operation at least once, so a
/// broken operation fails here with a readable name even if the random
/// cases happen to miss it.
#[test]
fn every_operation_once_against_the_model() {
    let k = |s: &str| s.as_bytes().to_vec();
    let v = |n: usize| vec![7u8; n];
    let reopen = |cp: bool, del: bool, ro: bool| {
        Op::Reopen(Reopen {
            checkpoint_on_close: cp,
            delete_checkpoint: del,
            read_only_peek: ro,
        })
    };
    let ops = vec![
        Op::Insert(k("a"), v(3)),
        Op::Crash {
            keep_checkpoint: true,
        },
        Op::Insert(k(""), v(0)),
        Op::GetZerocopy(k("a")),
        Op::InsertMany(vec![(k("b"), v(4000)), (k("c"), v(1)), (k("b"), v(2))]),
        Op::InsertManyRejected(vec![(k("x"), v(5))]),
        Op::TxCommit(vec![
            TxOp::Insert(k("ab"), v(9)),
            TxOp::Remove(k("a")),
            TxOp::Get(k("a")),
            TxOp::Get(k("ab")),
        ]),
        Op::WriteBatch(vec![
            TxOp::Insert(k("wb"), v(2)),
            TxOp::Remove(k("ab")),
            TxOp::Insert(k("wb"), v(3000)),
            TxOp::Insert(k("wc"), v(0)),
        ]),
        Op::Crash {
            keep_checkpoint: false,
        },
        Op::TxAbort(vec![TxOp::Insert(k("zz"), v(1))], Abort::Explicit),
        Op::TxAbort(vec![TxOp::Remove(k("b"))], Abort::OversizedKey),
        Op::Flush,
        reopen(false, false, true),
        Op::Remove(k("c")),
        Op::Checkpoint,
        Op::Insert(k("c"), v(1500)),
        reopen(true, true, false),
        Op::Compact,
        Op::GetZerocopy(k("c")),
        reopen(true, false, false),
        Op::Clear,
        Op::Insert(k("abc"), v(10)),
        Op::ContainsKey(k("abc")),
        Op::Get(k("a")),
        Op::Len,
        Op::Iter,
        Op::Keys,
        Op::Range(k("a"), k("b")),
        reopen(false, false, false),
        Op::Range(k(""), k("c")),
        Op::Checkpoint,
        Op::Insert(k("ccc"), v(100)),
        Op::Crash {
            keep_checkpoint: true,
        },
        Op::Remove(k("ccc")),
        Op::Crash {
            keep_checkpoint: false,
        },
        reopen(true, false, true),
    ];
    for policy_index in 0..3 {
        run_sequence(true, policy_index, &ops).unwrap();
    }
    run_sequence(false, 0, &ops).unwrap();
}
