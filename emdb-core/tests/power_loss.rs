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
//! The stream writes to the default namespace and to named ones, and
//! creates, clears and drops namespaces; the model checks namespaces too.
//! `EMDB_POWER_ROUNDS` scales the number of operation streams.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
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

/// A temporary directory on tmpfs when there is one: the crash states are
/// built by the harness, so the real media's fsync only costs time here.
fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::tempdir_in(shm) {
            return d;
        }
    }
    tempfile::tempdir().unwrap()
}

/// Every namespace ("" is the default one, always present) with its pairs.
type State = BTreeMap<String, BTreeMap<Vec<u8>, Vec<u8>>>;

fn empty_state() -> State {
    State::from([(String::new(), BTreeMap::new())])
}

/// One change to the model.
#[derive(Clone, Debug)]
enum Change {
    Put(String, Vec<u8>, Vec<u8>),
    Del(String, Vec<u8>),
    CreateNs(String),
    DropNs(String),
    ClearNs(String),
}

fn apply(state: &mut State, c: &Change) {
    match c {
        Change::Put(ns, k, v) => {
            state
                .get_mut(ns)
                .expect("write into a live namespace")
                .insert(k.clone(), v.clone());
        }
        Change::Del(ns, k) => {
            state
                .get_mut(ns)
                .expect("removal from a live namespace")
                .remove(k);
        }
        Change::CreateNs(ns) => {
            state.entry(ns.clone()).or_default();
        }
        Change::DropNs(ns) => {
            state.remove(ns);
        }
        Change::ClearNs(ns) => state.get_mut(ns).expect("clear a live namespace").clear(),
    }
}

/// One write the stream made: its changes, all or nothing.
type Write = Vec<Change>;

/// What the files must show after a crash: the synced state plus a prefix
/// of the writes made since the last sync (the log is replayed in order and
/// recovery stops at the first incomplete unit), each write whole.
struct Expect {
    synced: State,
    unsynced: Vec<Write>,
}

impl Expect {
    /// Ok when `got` is the synced state plus some prefix of unsynced writes.
    fn check(&self, got: &State) -> Result<usize, String> {
        let mut state = self.synced.clone();
        if &state == got {
            return Ok(0);
        }
        for (i, w) in self.unsynced.iter().enumerate() {
            for c in w {
                apply(&mut state, c);
            }
            if &state == got {
                return Ok(i + 1);
            }
        }
        let missing: Vec<_> = self
            .synced
            .iter()
            .flat_map(|(ns, m)| m.keys().map(move |k| (ns, k)))
            .filter(|(ns, k)| !got.get(*ns).is_some_and(|m| m.contains_key(*k)))
            .map(|(ns, k)| format!("{ns}/{}", String::from_utf8_lossy(k)))
            .take(5)
            .collect();
        Err(format!(
            "state is not the synced data plus a prefix of the {} unsynced writes \
             (namespaces {:?}, {} keys; synced keys missing: {missing:?})",
            self.unsynced.len(),
            got.keys().collect::<Vec<_>>(),
            got.values().map(BTreeMap::len).sum::<usize>()
        ))
    }
}

fn contents(db: &Emdb) -> State {
    let mut s = State::new();
    s.insert(
        String::new(),
        db.iter().unwrap().map(|kv| kv.unwrap()).collect(),
    );
    for name in db.list_namespaces().unwrap() {
        let ns = db.namespace(&name).unwrap();
        s.insert(name, ns.iter().unwrap().map(|kv| kv.unwrap()).collect());
    }
    s
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
    db.namespace("after-ns").unwrap().insert("k", "4").unwrap();
    db.flush().unwrap();
    let again = std::fs::read(&path).unwrap();
    drop(db);
    std::fs::write(&path, &again).unwrap();
    let db = open(&path);
    let mut want = got;
    let default = want.get_mut("").unwrap();
    default.insert(b"after-recovery".to_vec(), b"1".to_vec());
    default.insert(b"after-batch-a".to_vec(), b"2".to_vec());
    default.insert(b"after-batch-b".to_vec(), b"3".to_vec());
    want.entry("after-ns".into())
        .or_default()
        .insert(b"k".to_vec(), b"4".to_vec());
    assert_eq!(contents(&db), want, "{what}: writes after recovery");
}

/// A random live (namespace, key) of `state`.
fn pick_live(state: &State, rng: &mut Rng) -> Option<(String, Vec<u8>)> {
    let all: Vec<(&String, &Vec<u8>)> = state
        .iter()
        .flat_map(|(ns, m)| m.keys().map(move |k| (ns, k)))
        .collect();
    if all.is_empty() {
        return None;
    }
    let (ns, k) = all[rng.below(all.len() as u64) as usize];
    Some((ns.clone(), k.clone()))
}

/// A random namespace of `state` ("" included unless `named_only`).
fn pick_ns(state: &State, rng: &mut Rng, named_only: bool) -> Option<String> {
    let names: Vec<&String> = state
        .keys()
        .filter(|n| !named_only || !n.is_empty())
        .collect();
    if names.is_empty() {
        return None;
    }
    Some(names[rng.below(names.len() as u64) as usize].clone())
}

/// Insert `k = v` into namespace `ns` ("" is the default one).
fn insert_in(db: &Emdb, ns: &str, k: &[u8], v: &[u8]) {
    if ns.is_empty() {
        db.insert(k, v).unwrap();
    } else {
        db.namespace(ns).unwrap().insert(k, v).unwrap();
    }
}

#[test]
fn every_crash_state_recovers_with_synced_data_and_whole_batches() {
    let rounds: u64 = std::env::var("EMDB_POWER_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let dir = scratch_dir();
    let mut states = 0usize;
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for round in 0..rounds {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (round + 1));
        let path = dir.path().join(format!("live-{round}.emdb"));
        let ckpt_path = dir.path().join(format!("live-{round}.emdb.ckpt"));
        let db = Emdb::builder()
            .path(&path)
            .checkpoint_on_close(false)
            .build()
            .unwrap();
        let mut synced = empty_state();
        // The synced state plus every unsynced write: what the handle shows.
        let mut current = empty_state();
        let mut unsynced: Vec<Write> = Vec::new();
        let mut synced_image = std::fs::read(&path).unwrap();
        let mut durable = db.stats().unwrap().log_logical_bytes as usize;
        let mut synced_ckpt: Option<Vec<u8>> = None;
        for op in 0..60u64 {
            let val = |i: u64| {
                format!("v{round}-{op}-{i}-{}", "x".repeat((i % 5) as usize * 40)).into_bytes()
            };
            let mut write: Write = Vec::new();
            match rng.below(18) {
                0..=2 => {
                    let k = format!("s{op}").into_bytes();
                    db.insert(&k, val(0)).unwrap();
                    write.push(Change::Put(String::new(), k, val(0)));
                }
                3..=5 => {
                    if let Some(ns) = pick_ns(&current, &mut rng, true) {
                        let k = format!("n{op}").into_bytes();
                        insert_in(&db, &ns, &k, &val(2));
                        write.push(Change::Put(ns, k, val(2)));
                    }
                }
                6..=7 => {
                    let ns = pick_ns(&current, &mut rng, false).unwrap();
                    let n = 2 + rng.below(6);
                    let pairs: Vec<_> = (0..n)
                        .map(|i| (format!("b{op}-{i}").into_bytes(), val(i)))
                        .collect();
                    if ns.is_empty() {
                        db.insert_many(pairs.iter().cloned()).unwrap();
                    } else {
                        db.namespace(&ns)
                            .unwrap()
                            .insert_many(pairs.iter().cloned())
                            .unwrap();
                    }
                    write.extend(
                        pairs
                            .into_iter()
                            .map(|(k, v)| Change::Put(ns.clone(), k, v)),
                    );
                }
                8 => {
                    // A transaction across namespaces: a fresh key in the
                    // default one, one in a named one, and a removal.
                    let k = format!("t{op}").into_bytes();
                    let named = pick_ns(&current, &mut rng, true);
                    let handle = named.as_ref().map(|n| db.namespace(n).unwrap());
                    let victim = pick_live(&current, &mut rng);
                    let victim_handle = victim
                        .as_ref()
                        .filter(|(ns, _)| !ns.is_empty())
                        .map(|(ns, _)| db.namespace(ns).unwrap());
                    db.transaction(|tx| {
                        tx.insert(&k, val(1))?;
                        if let Some(h) = &handle {
                            tx.namespace(h).insert(&k, val(3))?;
                        }
                        match (&victim, &victim_handle) {
                            (Some((_, v)), Some(h)) => {
                                tx.namespace(h).remove(v)?;
                            }
                            (Some((_, v)), None) => {
                                tx.remove(v)?;
                            }
                            _ => {}
                        }
                        Ok(())
                    })
                    .unwrap();
                    write.push(Change::Put(String::new(), k.clone(), val(1)));
                    if let Some(n) = named {
                        write.push(Change::Put(n, k, val(3)));
                    }
                    if let Some((ns, v)) = victim {
                        write.push(Change::Del(ns, v));
                    }
                }
                9 => {
                    if let Some((ns, k)) = pick_live(&current, &mut rng) {
                        if ns.is_empty() {
                            db.remove(&k).unwrap();
                        } else {
                            db.namespace(&ns).unwrap().remove(&k).unwrap();
                        }
                        write.push(Change::Del(ns, k));
                    }
                }
                10..=11 => {
                    // Names come from a small pool, so dropped names come back.
                    let name = format!("ns{}", rng.below(4));
                    let existed = current.contains_key(&name);
                    db.namespace(&name).unwrap();
                    if !existed {
                        write.push(Change::CreateNs(name));
                    }
                }
                12 => {
                    if let Some(ns) = pick_ns(&current, &mut rng, true) {
                        assert!(db.drop_namespace(&ns).unwrap());
                        write.push(Change::DropNs(ns));
                    }
                }
                13 => {
                    let ns = pick_ns(&current, &mut rng, false).unwrap();
                    if ns.is_empty() {
                        db.clear().unwrap();
                    } else {
                        db.namespace(&ns).unwrap().clear().unwrap();
                    }
                    write.push(Change::ClearNs(ns));
                }
                14..=15 => {
                    db.flush().unwrap();
                    for w in unsynced.drain(..) {
                        for c in &w {
                            apply(&mut synced, c);
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
                    assert_eq!(synced, current);
                }
                _ => {}
            }
            for c in &write {
                *kinds
                    .entry(match c {
                        Change::Put(ns, ..) if ns.is_empty() => "put",
                        Change::Put(..) => "put in a named namespace",
                        Change::Del(..) => "remove",
                        Change::CreateNs(_) => "create namespace",
                        Change::DropNs(_) => "drop namespace",
                        Change::ClearNs(_) => "clear",
                    })
                    .or_insert(0usize) += 1;
            }
            if !write.is_empty() {
                for c in &write {
                    apply(&mut current, c);
                }
                unsynced.push(write);
            }
            assert_eq!(contents(&db), current, "round {round} op {op}: live handle");
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
        println!(
            "round {round}: {} named namespaces at the end",
            current.len() - 1
        );
    }
    println!("changes made: {kinds:?}");
    println!("power-loss simulation: {states} crash states checked");
    assert!(states > 100);
    // The stream really exercised namespaces.
    for kind in [
        "put in a named namespace",
        "create namespace",
        "drop namespace",
    ] {
        assert!(
            kinds.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} in the stream"
        );
    }
}
