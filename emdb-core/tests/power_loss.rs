//! Power-loss simulation: for crash points in a stream of operations, build
//! the file states a power cut could leave and check each one.
//!
//! Model of the media (docs/FORMAT.md, "Assumptions"): what the last sync
//! covered is on disk; every page written since may have landed, not landed,
//! or landed torn (half new / half old, or new with a garbage tail). The
//! engine writes through a shared mapping, so the harness sees writes as page
//! differences between the image at the last sync and the image now.
//!
//! Each crash state must open, hold every record whose write was synced,
//! show every batch all or nothing, open again with the same content (crash
//! during recovery), and accept new writes that survive the next crash.
//! `EMDB_POWER_ROUNDS` scales the number of operation streams.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use emdb_core::Emdb;

const PAGE: usize = 4096;

/// xorshift64*: deterministic streams.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One write the stream made, with the keys it set (value) or removed (None).
#[derive(Clone, Debug)]
struct Write {
    changes: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

/// What the files must show after a crash: the synced state plus a prefix
/// of the writes made since the last sync (the log is replayed in order and
/// recovery stops at the first incomplete unit), each write whole.
struct Expect {
    synced: BTreeMap<Vec<u8>, Vec<u8>>,
    unsynced: Vec<Write>,
}

impl Expect {
    /// Ok when `got` is the synced state plus some prefix of unsynced writes.
    fn check(&self, got: &BTreeMap<Vec<u8>, Vec<u8>>) -> Result<usize, String> {
        let mut state = self.synced.clone();
        if &state == got {
            return Ok(0);
        }
        for (i, w) in self.unsynced.iter().enumerate() {
            for (k, v) in &w.changes {
                match v {
                    Some(v) => state.insert(k.clone(), v.clone()),
                    None => state.remove(k),
                };
            }
            if &state == got {
                return Ok(i + 1);
            }
        }
        let missing: Vec<_> = self
            .synced
            .keys()
            .filter(|k| !got.contains_key(*k))
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .take(5)
            .collect();
        Err(format!(
            "state is not the synced data plus a prefix of the {} unsynced writes \
             ({} keys; synced keys missing: {missing:?})",
            self.unsynced.len(),
            got.len()
        ))
    }
}

fn contents(db: &Emdb) -> BTreeMap<Vec<u8>, Vec<u8>> {
    db.iter().unwrap().map(|kv| kv.unwrap()).collect()
}

/// Bytes the media writes atomically (or turns into garbage when torn).
const SECTOR: usize = 512;

/// Crash states between the synced image `old` (whose first `durable` bytes
/// are acknowledged) and the current image `new`: each sector that differs
/// is old, new, or garbage; garbage only where no acknowledged byte lives
/// (see FORMAT.md, "Assumptions about the media").
fn crash_states(old: &[u8], new: &[u8], durable: usize, rng: &mut Rng, max: usize) -> Vec<Vec<u8>> {
    let len = new.len().max(old.len());
    let sectors = len.div_ceil(SECTOR);
    let sector = |img: &[u8], i: usize| -> Vec<u8> {
        let mut p = vec![0u8; SECTOR];
        let (s, e) = (i * SECTOR, ((i + 1) * SECTOR).min(img.len()));
        if s < img.len() {
            p[..e - s].copy_from_slice(&img[s..e]);
        }
        p
    };
    let dirty: Vec<usize> = (0..sectors)
        .filter(|&i| sector(old, i) != sector(new, i))
        .collect();
    // A sector may become garbage unless it holds acknowledged record bytes.
    // Header sectors that differ hold only a sync slot, which is allowed to
    // tear (the other slot lives in another sector).
    let may_garble = |i: usize| i * SECTOR >= durable || (i + 1) * SECTOR <= PAGE;
    let variants = |i: usize| if may_garble(i) { 3 } else { 2 };
    let total: usize = dirty
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(variants(d)))
        .unwrap_or(usize::MAX);
    let choices: Vec<Vec<usize>> = if total <= max {
        (0..total)
            .map(|mut n| {
                dirty
                    .iter()
                    .map(|&d| {
                        let c = n % variants(d);
                        n /= variants(d);
                        c
                    })
                    .collect()
            })
            .collect()
    } else {
        let mut v: Vec<Vec<usize>> = vec![vec![0; dirty.len()], vec![1; dirty.len()]];
        v.extend((2..max).map(|_| {
            dirty
                .iter()
                .map(|&d| rng.below(variants(d) as u64) as usize)
                .collect()
        }));
        v
    };
    choices
        .into_iter()
        .map(|choice| {
            let mut img = vec![0u8; sectors * SECTOR];
            for i in 0..sectors {
                img[i * SECTOR..(i + 1) * SECTOR].copy_from_slice(&sector(old, i));
            }
            for (&d, &c) in dirty.iter().zip(&choice) {
                let p = match c {
                    0 => sector(old, d),
                    1 => sector(new, d),
                    _ => (0..SECTOR).map(|_| rng.next() as u8).collect(),
                };
                img[d * SECTOR..(d + 1) * SECTOR].copy_from_slice(&p);
            }
            img.truncate(len);
            img
        })
        .collect()
}

fn open(path: &Path) -> Emdb {
    Emdb::builder()
        .path(path)
        .checkpoint_on_close(false)
        .build()
        .unwrap_or_else(|e| panic!("crash state failed to open: {e}"))
}

/// Check one crash state: open, compare, crash during recovery, write more.
fn check_state(dir: &Path, image: &[u8], ckpt: Option<&[u8]>, expect: &Expect, what: &str) {
    let path = dir.join("state.emdb");
    let ckpt_path = dir.join("state.emdb.ckpt");
    std::fs::write(&path, image).unwrap();
    let _ = std::fs::remove_file(dir.join("state.emdb.lock"));
    match ckpt {
        Some(c) => std::fs::write(&ckpt_path, c).unwrap(),
        None => {
            let _ = std::fs::remove_file(&ckpt_path);
        }
    }
    let db = open(&path);
    let got = contents(&db);
    if let Err(e) = expect.check(&got) {
        panic!("{what}: {e}; report {:?}", db.recovery_report());
    }
    // Crash during (right after) recovery: the image as recovery left it.
    let recovered = std::fs::read(&path).unwrap();
    drop(db);
    std::fs::write(&path, &recovered).unwrap();
    let db = open(&path);
    assert_eq!(contents(&db), got, "{what}: recovery is not idempotent");
    // Keep writing, flush, crash again: nothing stale may reappear.
    db.insert("after-recovery", "1").unwrap();
    db.insert_many([("after-batch-a", "2"), ("after-batch-b", "3")])
        .unwrap();
    db.flush().unwrap();
    let again = std::fs::read(&path).unwrap();
    drop(db);
    std::fs::write(&path, &again).unwrap();
    let db = open(&path);
    let mut want = got;
    want.insert(b"after-recovery".to_vec(), b"1".to_vec());
    want.insert(b"after-batch-a".to_vec(), b"2".to_vec());
    want.insert(b"after-batch-b".to_vec(), b"3".to_vec());
    assert_eq!(contents(&db), want, "{what}: writes after recovery");
}

#[test]
fn every_crash_state_recovers_with_synced_data_and_whole_batches() {
    let rounds: u64 = std::env::var("EMDB_POWER_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let dir = tempfile::tempdir().unwrap();
    let mut states = 0usize;
    for round in 0..rounds {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (round + 1));
        let path = dir.path().join(format!("live-{round}.emdb"));
        let ckpt_path = dir.path().join(format!("live-{round}.emdb.ckpt"));
        let db = Emdb::builder()
            .path(&path)
            .checkpoint_on_close(false)
            .build()
            .unwrap();
        let mut synced: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut unsynced: Vec<Write> = Vec::new();
        let mut synced_image = std::fs::read(&path).unwrap();
        let mut durable = db.stats().unwrap().log_logical_bytes as usize;
        let mut synced_ckpt: Option<Vec<u8>> = None;
        let mut live: BTreeSet<Vec<u8>> = BTreeSet::new();
        for op in 0..40u64 {
            let val = |i: u64| {
                format!("v{round}-{op}-{i}-{}", "x".repeat((i % 5) as usize * 40)).into_bytes()
            };
            match rng.below(10) {
                0..=3 => {
                    let k = format!("s{op}").into_bytes();
                    db.insert(&k, val(0)).unwrap();
                    unsynced.push(Write {
                        changes: vec![(k.clone(), Some(val(0)))],
                    });
                    live.insert(k);
                }
                4..=5 => {
                    let n = 2 + rng.below(6);
                    let changes: Vec<_> = (0..n)
                        .map(|i| (format!("b{op}-{i}").into_bytes(), Some(val(i))))
                        .collect();
                    db.insert_many(
                        changes
                            .iter()
                            .map(|(k, v)| (k.clone(), v.clone().unwrap_or_default())),
                    )
                    .unwrap();
                    live.extend(changes.iter().map(|(k, _)| k.clone()));
                    unsynced.push(Write { changes });
                }
                6 => {
                    // A transaction: a fresh key and the removal of a live one.
                    let k = format!("t{op}").into_bytes();
                    let victim = live.iter().next().cloned();
                    db.transaction(|tx| {
                        tx.insert(&k, val(1))?;
                        if let Some(v) = &victim {
                            tx.remove(v)?;
                        }
                        Ok(())
                    })
                    .unwrap();
                    let mut changes = vec![(k.clone(), Some(val(1)))];
                    if let Some(v) = victim {
                        live.remove(&v);
                        changes.push((v, None));
                    }
                    live.insert(k);
                    unsynced.push(Write { changes });
                }
                7 => {
                    if let Some(v) = live
                        .iter()
                        .nth(rng.below(live.len().max(1) as u64) as usize)
                        .cloned()
                    {
                        db.remove(&v).unwrap();
                        live.remove(&v);
                        unsynced.push(Write {
                            changes: vec![(v, None)],
                        });
                    }
                }
                8 => {
                    db.flush().unwrap();
                    for w in unsynced.drain(..) {
                        for (k, v) in w.changes {
                            match v {
                                Some(v) => synced.insert(k, v),
                                None => synced.remove(&k),
                            };
                        }
                    }
                    synced_image = std::fs::read(&path).unwrap();
                    durable = db.stats().unwrap().log_logical_bytes as usize;
                    if rng.below(3) == 0 {
                        db.checkpoint().unwrap();
                        synced_ckpt = std::fs::read(&ckpt_path).ok();
                        synced_image = std::fs::read(&path).unwrap();
                    }
                    if rng.below(4) == 0 {
                        db.compact().unwrap();
                        synced_ckpt = std::fs::read(&ckpt_path).ok();
                        synced_image = std::fs::read(&path).unwrap();
                        durable = db.stats().unwrap().log_logical_bytes as usize;
                    }
                }
                _ => {}
            }
            // A power cut now.
            let now = std::fs::read(&path).unwrap();
            let expect = Expect {
                synced: synced.clone(),
                unsynced: unsynced.clone(),
            };
            for (i, image) in crash_states(&synced_image, &now, durable, &mut rng, 12)
                .into_iter()
                .enumerate()
            {
                let what = format!("round {round} op {op} state {i}");
                check_state(dir.path(), &image, synced_ckpt.as_deref(), &expect, &what);
                states += 1;
                // The checkpoint file is optional: losing it loses nothing.
                if i == 0 && synced_ckpt.is_some() {
                    check_state(
                        dir.path(),
                        &image,
                        None,
                        &expect,
                        &format!("{what} without checkpoint"),
                    );
                    states += 1;
                }
            }
        }
    }
    println!("power-loss simulation: {states} crash states checked");
    assert!(states > 100);
}
