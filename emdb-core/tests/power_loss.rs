//! Power-loss simulation: for crash points in a stream of operations, build
//! the file states a power cut could leave and check each one.
//!
//! Model of the media (docs/FORMAT.md, "Assumptions"): what the last sync
//! covered is on disk; every page written since may have landed, not landed,
//! or landed torn (half new / half old, or new with a garbage tail). The
//! engine writes with `pwrite` (and large frames through its shared mapping),
//! and the harness sees every write, whichever way it went, as page
//! differences between the image at the last sync and the image now.
//!
//! Each crash state must open, hold every record whose write was synced,
//! show every batch all or nothing, open again with the same content (crash
//! during recovery), and accept new writes that survive the next crash.
//! The stream writes to the default namespace and to named ones, and
//! creates, clears and drops namespaces; the model checks namespaces too.
//! Checkpoints, compactions and encryption changes run with every fsync,
//! rename, link and removal reported by the fault hooks, and every
//! directory state a power cut could leave at each of them is checked
//! (temp files torn before their fsync, renames not yet durable). A second
//! stream writes frames of 1 MiB and more (encoded through the writer's
//! mapping, not `pwrite`), plain and encrypted, and damages the installed
//! checkpoint beyond the model (right data or an error naming it).
//! `EMDB_POWER_ROUNDS` scales the number of operation streams.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use emdb_core::{Emdb, EncryptionInput, Error, Faults, FsEvent};

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
        // All old, all new, then the shapes random mixes almost never make
        // when many sectors are dirty (a large frame): the sectors landed in
        // order up to a cut, and all landed but one (left old, or garbage
        // where allowed); then random mixes.
        let n = dirty.len();
        let mut v: Vec<Vec<usize>> = vec![vec![0; n], vec![1; n]];
        let cut = 1 + rng.below(n as u64) as usize;
        v.push((0..n).map(|i| usize::from(i < cut)).collect());
        let mut all_but_one = vec![1; n];
        all_but_one[rng.below(n as u64) as usize] = 0;
        v.push(all_but_one);
        let garblable: Vec<usize> = (0..n).filter(|&i| may_garble(dirty[i])).collect();
        if !garblable.is_empty() {
            let mut one_garbled = vec![1; n];
            one_garbled[garblable[rng.below(garblable.len() as u64) as usize]] = 2;
            v.push(one_garbled);
        }
        v.truncate(max.max(2));
        v.extend((v.len()..max).map(|_| {
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

/// Open a crash state, with `key` when the database is encrypted.
fn open_with(path: &Path, key: Option<[u8; 32]>) -> Emdb {
    builder_with(path, key)
        .build()
        .unwrap_or_else(|e| panic!("crash state failed to open: {e}"))
}

/// Check one crash state: open, compare, crash during recovery, write more.
fn check_state(dir: &Path, image: &[u8], ckpt: Option<&[u8]>, expect: &Expect, what: &str) {
    check_state_with(dir, image, ckpt, None, expect, what);
}

/// [`check_state`] of a database opened with `key`.
fn check_state_with(
    dir: &Path,
    image: &[u8],
    ckpt: Option<&[u8]>,
    key: Option<[u8; 32]>,
    expect: &Expect,
    what: &str,
) {
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
    let db = open_with(&path, key);
    let got = contents(&db);
    if let Err(e) = expect.check(&got) {
        panic!("{what}: {e}; report {:?}", db.recovery_report());
    }
    // Crash during (right after) recovery: the image as recovery left it.
    let recovered = std::fs::read(&path).unwrap();
    drop(db);
    std::fs::write(&path, &recovered).unwrap();
    let db = open_with(&path, key);
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
    let db = open_with(&path, key);
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
    let compact_scratch = dir.path().join("compaction-states");
    std::fs::create_dir(&compact_scratch).unwrap();
    let mut states = 0usize;
    let mut compaction_states = 0usize;
    let mut checkpoint_states = 0usize;
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for round in 0..rounds {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (round + 1));
        let live = dir.path().join(format!("round-{round}"));
        std::fs::create_dir(&live).unwrap();
        let path = live.join("db.emdb");
        let ckpt_path = live.join("db.emdb.ckpt");
        let faults = Arc::new(Faults::default());
        let db = builder_with(&path, None)
            .faults(Arc::clone(&faults))
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
                        // Every state a power cut while writing the
                        // checkpoint could leave: temp file written (torn),
                        // synced, renamed over the old one, directory synced.
                        let recorder = Recorder::start(&faults, &live);
                        db.checkpoint().unwrap();
                        let label = format!("round {round} op {op} checkpoint");
                        let (n, steps) =
                            recorder.replay(&faults, &mut rng, 2, &label, |files, what| {
                                check_compaction_state(&compact_scratch, files, &synced, what);
                            });
                        assert_checkpoint_steps(&steps, &label);
                        checkpoint_states += n;
                        synced_ckpt = std::fs::read(&ckpt_path).ok();
                        synced_image = std::fs::read(&path).unwrap();
                    }
                    if rng.below(4) == 0 {
                        // Every directory state a power cut during the
                        // compaction could leave (temp file written, synced,
                        // renamed, directory synced, new checkpoint).
                        let recorder = Recorder::start(&faults, &live);
                        db.compact().unwrap();
                        let label = format!("round {round} op {op} compaction");
                        let (n, steps) =
                            recorder.replay(&faults, &mut rng, 3, &label, |files, what| {
                                check_compaction_state(&compact_scratch, files, &synced, what);
                            });
                        assert!(
                            steps.contains_key("renamed to db.emdb"),
                            "{label}: {steps:?}"
                        );
                        assert_checkpoint_steps(&steps, &label);
                        compaction_states += n;
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
    println!(
        "power-loss simulation: {states} crash states checked, {compaction_states} during \
         compactions, {checkpoint_states} during checkpoints"
    );
    assert!(states > 100);
    assert!(compaction_states > 10);
    assert!(checkpoint_states > 10);
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

// ---- encryption changes: rewrite, fsync, link, rename -------------------

/// A file of the directory as seen at one event: inode and content.
type Snapshot = BTreeMap<String, (u64, Vec<u8>)>;

/// Lock files (only their `flock` matters) and the advisory stats sidecar
/// are left out of the model.
fn modelled(name: &str) -> bool {
    !(name.ends_with(".lock") || name.ends_with(".stats") || name.ends_with(".stats.tmp"))
}

fn snapshot(dir: &Path) -> Snapshot {
    use std::os::unix::fs::MetadataExt;
    let mut s = Snapshot::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if !modelled(&name) {
            continue;
        }
        // A file removed between listing and reading is simply not there.
        let (Ok(meta), Ok(bytes)) = (std::fs::metadata(e.path()), std::fs::read(e.path())) else {
            continue;
        };
        s.insert(name, (meta.ino(), bytes));
    }
    s
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// A name change in the directory, not yet durable.
#[derive(Clone, Debug)]
enum DirOp {
    /// The name now refers to file `id` (create, link, replace).
    Set(String, usize),
    Remove(String),
    Rename(String, String),
}

fn apply_dir(names: &mut BTreeMap<String, usize>, op: &DirOp) {
    match op {
        DirOp::Set(n, id) => {
            names.insert(n.clone(), *id);
        }
        DirOp::Remove(n) => {
            names.remove(n);
        }
        DirOp::Rename(a, b) => {
            if let Some(id) = names.remove(a) {
                names.insert(b.clone(), id);
            }
        }
    }
}

/// What a power cut can leave of one directory: names as of the last
/// directory fsync plus a prefix of the later name changes (a journalled
/// filesystem commits them in order; a rename is atomic), and each file's
/// content as of its last fsync with later sectors old, new or garbage.
#[derive(Default)]
struct DirModel {
    durable: BTreeMap<String, usize>,
    pending: Vec<DirOp>,
    current: BTreeMap<String, usize>,
    ino: BTreeMap<usize, u64>,
    durable_content: BTreeMap<usize, Vec<u8>>,
    seen: BTreeMap<usize, Vec<u8>>,
    next_id: usize,
}

impl DirModel {
    /// Everything in `snap` is durable (a closed database).
    fn new(snap: &Snapshot) -> DirModel {
        let mut m = DirModel::default();
        for (name, (ino, bytes)) in snap {
            let id = m.fresh(*ino);
            m.durable.insert(name.clone(), id);
            m.durable_content.insert(id, bytes.clone());
            m.seen.insert(id, bytes.clone());
        }
        m.current = m.durable.clone();
        m
    }

    fn fresh(&mut self, ino: u64) -> usize {
        self.next_id += 1;
        self.ino.insert(self.next_id, ino);
        self.next_id
    }

    fn push(&mut self, op: DirOp) {
        apply_dir(&mut self.current, &op);
        self.pending.push(op);
    }

    /// Take in the name change `event` made and whatever else `snap` shows
    /// (files created, or removed without a report, before it).
    fn observe(&mut self, event: &FsEvent, snap: &Snapshot) {
        let (op, touched): (Option<DirOp>, Vec<String>) = match event {
            FsEvent::Renamed { from, to } => {
                let (a, b) = (file_name(from), file_name(to));
                let op = self
                    .current
                    .contains_key(&a)
                    .then(|| DirOp::Rename(a.clone(), b.clone()));
                (op, vec![a, b])
            }
            FsEvent::Linked { from, to } => {
                let (a, b) = (file_name(from), file_name(to));
                let op = self.current.get(&a).map(|&id| DirOp::Set(b.clone(), id));
                (op, vec![a, b])
            }
            FsEvent::Removed(p) => {
                let n = file_name(p);
                let op = self
                    .current
                    .contains_key(&n)
                    .then(|| DirOp::Remove(n.clone()));
                (op, vec![n])
            }
            _ => (None, Vec::new()),
        };
        let gone: Vec<String> = self
            .current
            .keys()
            .filter(|n| !touched.contains(n) && !snap.contains_key(*n))
            .cloned()
            .collect();
        for n in gone {
            self.push(DirOp::Remove(n));
        }
        for (n, (ino, _)) in snap {
            if touched.contains(n) {
                continue;
            }
            let known = self.current.get(n).map(|id| self.ino[id]);
            if known != Some(*ino) {
                let id = self.fresh(*ino);
                self.push(DirOp::Set(n.clone(), id));
            }
        }
        if let Some(op) = op {
            self.push(op);
        }
        // Names the event touched that the model could not follow (a file
        // created and renamed between two reports) are taken as created.
        for n in &touched {
            match (snap.get(n), self.current.get(n).map(|id| self.ino[id])) {
                (Some((ino, _)), known) if known != Some(*ino) => {
                    let id = self.fresh(*ino);
                    self.push(DirOp::Set(n.clone(), id));
                }
                (None, Some(_)) => self.push(DirOp::Remove(n.clone())),
                _ => {}
            }
        }
        for (n, (_, bytes)) in snap {
            self.seen.insert(self.current[n], bytes.clone());
        }
        let now: BTreeMap<&String, u64> = self
            .current
            .iter()
            .map(|(n, id)| (n, self.ino[id]))
            .collect();
        let want: BTreeMap<&String, u64> = snap.iter().map(|(n, (ino, _))| (n, *ino)).collect();
        assert_eq!(now, want, "directory model lost track at {event:?}");
    }

    /// The durability `event` gives.
    fn settle(&mut self, event: &FsEvent) {
        match event {
            FsEvent::Synced(p) => {
                if let Some(id) = self.current.get(&file_name(p)) {
                    self.durable_content.insert(*id, self.seen[id].clone());
                }
            }
            FsEvent::DirSynced(_) => {
                self.durable = self.current.clone();
                self.pending.clear();
            }
            _ => {}
        }
    }

    /// Directory states a power cut now could leave (name -> content).
    fn crash_states(&self, rng: &mut Rng, per_prefix: usize) -> Vec<BTreeMap<String, Vec<u8>>> {
        let mut out = Vec::new();
        for k in 0..=self.pending.len() {
            let mut names = self.durable.clone();
            for op in &self.pending[..k] {
                apply_dir(&mut names, op);
            }
            // Content variants of each file written since its last fsync.
            let mut variants: BTreeMap<usize, Vec<Vec<u8>>> = BTreeMap::new();
            for id in names.values() {
                let old = self.durable_content.get(id).cloned().unwrap_or_default();
                let new = self.seen.get(id).cloned().unwrap_or_default();
                let v = if old == new {
                    vec![old]
                } else {
                    let mut v = crash_states(&old, &new, old.len(), rng, per_prefix);
                    // And each whole, at its own size.
                    v.push(new);
                    v.push(old);
                    v
                };
                variants.insert(*id, v);
            }
            let combos = variants
                .values()
                .map(Vec::len)
                .max()
                .unwrap_or(1)
                .min(per_prefix + 2);
            for c in 0..combos {
                out.push(
                    names
                        .iter()
                        .map(|(n, id)| {
                            let v = &variants[id];
                            let pick = if c == 0 {
                                0
                            } else {
                                (c + rng.below(v.len() as u64) as usize) % v.len()
                            };
                            (n.clone(), v[pick].clone())
                        })
                        .collect(),
                );
            }
        }
        out
    }
}

const KEY_A: [u8; 32] = [0xA5; 32];
const KEY_B: [u8; 32] = [0x5A; 32];

fn builder_with(path: &Path, key: Option<[u8; 32]>) -> emdb_core::EmdbBuilder {
    // No automatic checkpointer: its syncs (before each tail index or
    // checkpoint) would make bytes durable behind the model's back, which
    // tracks only the flushes and checkpoints the test makes.
    let b = Emdb::builder()
        .path(path)
        .checkpoint_on_close(false)
        .checkpoint_tail(None);
    match key {
        Some(k) => b.encryption_key(k),
        None => b,
    }
}

fn input(key: Option<[u8; 32]>) -> Option<EncryptionInput> {
    key.map(EncryptionInput::Key)
}

/// True for the errors a wrong key (or a key for a plain file, or none for
/// an encrypted one) gives at open.
fn key_error(e: &Error) -> bool {
    matches!(
        e,
        Error::EncryptionKeyMismatch { .. }
            | Error::NotEncrypted { .. }
            | Error::EncryptionRequired { .. }
    )
}

/// Check one directory state left by a crash during a change `from` -> `to`.
fn check_change_state(
    dir: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    from: Option<[u8; 32]>,
    to: Option<[u8; 32]>,
    want: &State,
    what: &str,
) {
    for e in std::fs::read_dir(dir).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let path = dir.join("db.emdb");
    let backup = dir.join("db.emdb.encbak");
    // Exactly one of the two keys opens it (read-only: this changes nothing).
    let ro = |key| builder_with(&path, key).read_only(true).build();
    let (old, new) = (ro(from), ro(to));
    let key = match (&old, &new) {
        (Ok(_), Err(e)) if key_error(e) => from,
        (Err(e), Ok(_)) if key_error(e) => to,
        (a, b) => panic!(
            "{what}: unusable state: old key {:?}, new key {:?}; files {:?}",
            a.as_ref().map(|_| "opens").map_err(ToString::to_string),
            b.as_ref().map(|_| "opens").map_err(ToString::to_string),
            files.keys().collect::<Vec<_>>()
        ),
    };
    drop((old, new));
    let db = builder_with(&path, key)
        .build()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(&contents(&db), want, "{what}: data");
    drop(db);
    if files.contains_key("db.emdb.encbak") {
        let b = builder_with(&backup, from).read_only(true).build();
        let b = b.unwrap_or_else(|e| panic!("{what}: backup: {e}"));
        assert_eq!(&contents(&b), want, "{what}: backup data");
    }
    if key == from && from != to {
        // Not done: a retry must finish the job (after the operator looked
        // at and removed a backup, which makes any retry refuse).
        if backup.exists() {
            let r = Emdb::change_encryption_with_faults(
                &path,
                input(from),
                input(to),
                Arc::new(Faults::default()),
            );
            assert!(
                matches!(r, Err(Error::EncryptionBackupLeft { .. })),
                "{what}: retry with a backup: {r:?}"
            );
            std::fs::remove_file(&backup).unwrap();
        }
        Emdb::change_encryption_with_faults(
            &path,
            input(from),
            input(to),
            Arc::new(Faults::default()),
        )
        .unwrap_or_else(|e| panic!("{what}: retry: {e}"));
        let db = builder_with(&path, to)
            .build()
            .unwrap_or_else(|e| panic!("{what}: after retry: {e}"));
        assert_eq!(&contents(&db), want, "{what}: data after retry");
    }
}

/// File operations of `dir` recorded while `faults` is observed.
struct Recorder {
    dir: std::path::PathBuf,
    start: Snapshot,
    trace: Arc<Mutex<Vec<(FsEvent, Snapshot)>>>,
}

impl Recorder {
    /// Start recording; everything in `dir` now counts as durable.
    fn start(faults: &Faults, dir: &Path) -> Recorder {
        let trace: Arc<Mutex<Vec<(FsEvent, Snapshot)>>> = Arc::default();
        {
            let trace = Arc::clone(&trace);
            let dir = dir.to_path_buf();
            faults.observe(move |ev| {
                let snap = snapshot(&dir);
                trace.lock().unwrap().push((ev.clone(), snap));
            });
        }
        Recorder {
            dir: dir.to_path_buf(),
            start: snapshot(dir),
            trace,
        }
    }

    /// Stop recording; call `check` on every directory state a power cut
    /// at any point of the recorded operations could leave. Returns how
    /// many states were checked and how often each step was seen.
    fn replay(
        self,
        faults: &Faults,
        rng: &mut Rng,
        per_prefix: usize,
        label: &str,
        mut check: impl FnMut(&BTreeMap<String, Vec<u8>>, &str),
    ) -> (usize, BTreeMap<String, usize>) {
        faults.stop_observing();
        let trace = std::mem::take(&mut *self.trace.lock().unwrap());
        let mut model = DirModel::new(&self.start);
        let mut states = 0;
        let mut steps = BTreeMap::<String, usize>::new();
        for (i, (event, snap)) in trace.iter().enumerate() {
            model.observe(event, snap);
            let step = match event {
                FsEvent::Synced(p) => format!("synced {}", file_name(p)),
                FsEvent::DirSynced(_) => "directory synced".to_string(),
                FsEvent::Renamed { to, .. } => format!("renamed to {}", file_name(to)),
                FsEvent::Linked { to, .. } => format!("linked {}", file_name(to)),
                FsEvent::Removed(p) => format!("removed {}", file_name(p)),
                other => format!("{other:?}"),
            };
            *steps.entry(step.clone()).or_default() += 1;
            if std::env::var("EMDB_POWER_TRACE").is_ok() {
                println!(
                    "{label} in {}: event {i} {step}: {} pending name changes {:?}",
                    self.dir.display(),
                    model.pending.len(),
                    model.current.keys().collect::<Vec<_>>()
                );
            }
            for (j, files) in model.crash_states(rng, per_prefix).into_iter().enumerate() {
                check(&files, &format!("{label}: event {i} ({step}) state {j}"));
                states += 1;
            }
            model.settle(event);
        }
        (states, steps)
    }
}

/// Run one encryption change in `live` with every file operation observed,
/// and check every directory state a power cut at each step could leave.
fn crash_during_change(
    live: &Path,
    scratch: &Path,
    from: Option<[u8; 32]>,
    to: Option<[u8; 32]>,
    want: &State,
    rng: &mut Rng,
    per_prefix: usize,
) -> usize {
    let faults = Arc::new(Faults::default());
    let recorder = Recorder::start(&faults, live);
    let path = live.join("db.emdb");
    Emdb::change_encryption_with_faults(&path, input(from), input(to), Arc::clone(&faults))
        .unwrap();
    let label = format!("{:?} -> {:?}", from.map(|k| k[0]), to.map(|k| k[0]));
    let (states, steps) = recorder.replay(&faults, rng, per_prefix, &label, |files, what| {
        check_change_state(scratch, files, from, to, want, what);
    });
    // Each step of the sequence was seen.
    for step in [
        "synced db.emdb.enc.tmp",
        "linked db.emdb.encbak",
        "renamed to db.emdb",
        "directory synced",
    ] {
        assert!(
            steps.contains_key(step),
            "{label}: no '{step}' in {steps:?}"
        );
    }
    // Finished: the new key opens it, the backup is the old file.
    let db = builder_with(&path, to).build().unwrap();
    assert_eq!(&contents(&db), want, "{label}: after the change");
    drop(db);
    states
}

/// The steps of writing a checkpoint were all seen (and so a crash at each).
fn assert_checkpoint_steps(steps: &BTreeMap<String, usize>, label: &str) {
    for step in [
        "synced db.emdb.ckpt.tmp",
        "renamed to db.emdb.ckpt",
        "directory synced",
    ] {
        assert!(
            steps.contains_key(step),
            "{label}: no '{step}' in {steps:?}"
        );
    }
}

/// Check one directory state left by a crash during a compaction: the
/// database opens with exactly `want`, twice (crash during recovery).
fn check_compaction_state(dir: &Path, files: &BTreeMap<String, Vec<u8>>, want: &State, what: &str) {
    check_dir_state(dir, files, None, want, what);
}

/// [`check_compaction_state`] of a database opened with `key`: any
/// directory state of a compaction or a checkpoint.
fn check_dir_state(
    dir: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    key: Option<[u8; 32]>,
    want: &State,
    what: &str,
) {
    for e in std::fs::read_dir(dir).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let path = dir.join("db.emdb");
    for pass in ["open", "reopen"] {
        let db = open_with(&path, key);
        assert_eq!(&contents(&db), want, "{what}: {pass}");
    }
    assert!(
        !dir.join("db.emdb.compact.tmp").exists(),
        "{what}: a stale compaction temp file survived a writable open"
    );
}

#[test]
fn every_crash_state_of_an_encryption_change_opens_with_one_key_and_all_data() {
    let rounds: usize = std::env::var("EMDB_POWER_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let per_prefix = 2 + rounds;
    let live = scratch_dir();
    let scratch = scratch_dir();
    let path = live.path().join("db.emdb");
    let mut want = empty_state();
    {
        let db = Emdb::open(&path).unwrap();
        for i in 0..150u32 {
            let (k, v) = (
                format!("k{i:04}"),
                format!("value {i} {}", "y".repeat((i % 7) as usize * 20)),
            );
            db.insert(&k, &v).unwrap();
            want.get_mut("")
                .unwrap()
                .insert(k.into_bytes(), v.into_bytes());
        }
        for name in ["alpha", "beta"] {
            let ns = db.namespace(name).unwrap();
            let pairs: Vec<(String, String)> = (0..40u32)
                .map(|i| (format!("{name}{i}"), format!("v{i}")))
                .collect();
            ns.insert_many(pairs.iter().cloned()).unwrap();
            want.insert(
                name.to_string(),
                pairs
                    .into_iter()
                    .map(|(k, v)| (k.into_bytes(), v.into_bytes()))
                    .collect(),
            );
        }
        db.remove("k0003").unwrap();
        want.get_mut("").unwrap().remove(b"k0003".as_slice());
        db.drop_namespace("beta").unwrap();
        want.remove("beta");
        db.namespace("empty").unwrap();
        want.insert("empty".into(), BTreeMap::new());
    }
    let mut rng = Rng(0x5EED_0FC0_FFEE);
    let mut states = 0;
    let cycles = rounds.div_ceil(2).max(1);
    for cycle in 0..cycles {
        if cycle > 0 {
            // More data, other sizes: other layouts of the temp file.
            let db = Emdb::open(&path).unwrap();
            for i in 0..50 * cycle {
                let k = format!("c{cycle}-{i}");
                let v = vec![(i % 256) as u8; 1 + (i * 37) % 900];
                db.insert(&k, &v).unwrap();
                want.get_mut("").unwrap().insert(k.into_bytes(), v);
            }
        }
        for (from, to) in [
            (None, Some(KEY_A)),
            (Some(KEY_A), Some(KEY_B)),
            (Some(KEY_B), None),
        ] {
            states += crash_during_change(
                live.path(),
                scratch.path(),
                from,
                to,
                &want,
                &mut rng,
                per_prefix,
            );
            // The operator checked the database and removes the backup.
            std::fs::remove_file(live.path().join("db.emdb.encbak")).unwrap();
        }
    }
    println!(
        "encryption changes ({cycles} x enable, rotate, disable): {states} crash states checked"
    );
    assert!(states > 50);
}

// ---- frames of 1 MiB and more, checkpoints, compaction ------------------

/// Values that make frames of about 1 MiB and more: the writer encodes
/// frames of `STAGE_LIMIT` (1 MiB) bytes or more straight into its shared
/// mapping instead of staging them for `pwrite`, and the harness sees those
/// stores as it sees every write, as page differences of the file.
const LARGE_SIZES: [usize; 6] = [
    (1 << 20) - 64,
    1 << 20,
    (1 << 20) + 4095,
    (3 << 19) + 17,
    (5 << 19) + 1,
    3 << 20,
];

/// A large value of `len` bytes whose content depends on `seed` (so a stale
/// sector of an older value never matches).
fn large_value(seed: u64, len: usize) -> Vec<u8> {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut v = Vec::with_capacity(len + 8);
    while v.len() < len {
        v.extend_from_slice(&r.next().to_le_bytes());
    }
    v.truncate(len);
    v
}

/// What a database read back as, or the error a read gave.
fn try_contents(db: &Emdb) -> Result<State, Error> {
    let mut s = State::new();
    s.insert(String::new(), db.iter()?.collect::<Result<_, _>>()?);
    for name in db.list_namespaces()? {
        let ns = db.namespace(&name)?;
        s.insert(name, ns.iter()?.collect::<Result<_, _>>()?);
    }
    Ok(s)
}

/// A checkpoint damaged beyond the media model (sectors of the installed
/// file torn or zeroed, as if an fsync had lied): the database must open
/// with exactly `want`, or an open or a read must fail naming the
/// checkpoint file; never other data. Returns whether it failed.
fn check_damaged_checkpoint(
    dir: &Path,
    image: &[u8],
    ckpt: &[u8],
    key: Option<[u8; 32]>,
    want: &State,
    what: &str,
) -> bool {
    let path = dir.join("state.emdb");
    std::fs::write(&path, image).unwrap();
    std::fs::write(dir.join("state.emdb.ckpt"), ckpt).unwrap();
    let _ = std::fs::remove_file(dir.join("state.emdb.lock"));
    let got = builder_with(&path, key)
        .read_only(true)
        .build()
        .and_then(|db| try_contents(&db));
    match got {
        Ok(got) => {
            assert_eq!(&got, want, "{what}: a damaged checkpoint gave other data");
            false
        }
        Err(e) => {
            assert!(
                e.to_string().contains(".ckpt"),
                "{what}: error does not name the checkpoint: {e}"
            );
            true
        }
    }
}

/// One stream of large and small writes, flushes, a checkpoint and a
/// compaction, with a power cut checked after every step.
/// Returns the crash states of the log, of the directory, the damaged
/// checkpoints checked and how many of those were refused with an error.
fn large_frame_stream(
    key: Option<[u8; 32]>,
    seed: u64,
    scratch: &Path,
) -> (usize, usize, usize, usize) {
    let live = scratch.join(format!("large-{seed}-{}", key.is_some()));
    let dir_states = scratch.join(format!("large-dir-{seed}-{}", key.is_some()));
    let state_dir = scratch.join(format!("large-state-{seed}-{}", key.is_some()));
    for d in [&live, &dir_states, &state_dir] {
        std::fs::create_dir(d).unwrap();
    }
    let path = live.join("db.emdb");
    let ckpt_path = live.join("db.emdb.ckpt");
    let faults = Arc::new(Faults::default());
    let db = builder_with(&path, key)
        .faults(Arc::clone(&faults))
        .build()
        .unwrap();
    let mut rng = Rng(seed);
    let mut synced = empty_state();
    let mut current = empty_state();
    let mut unsynced: Vec<Write> = Vec::new();
    let mut synced_image = std::fs::read(&path).unwrap();
    let mut durable = db.stats().unwrap().log_logical_bytes as usize;
    let mut synced_ckpt: Option<Vec<u8>> = None;
    let (mut states, mut dir_count, mut damaged, mut refused) = (0usize, 0usize, 0usize, 0usize);
    let label = |step: usize| {
        format!(
            "large frames, key {}, seed {seed}, step {step}",
            key.is_some()
        )
    };
    let size = |rng: &mut Rng| LARGE_SIZES[rng.below(LARGE_SIZES.len() as u64) as usize];
    for step in 0..14usize {
        let mut write: Write = Vec::new();
        match step {
            // A lone large put, into the default or a named namespace.
            0 | 2 | 9 | 12 => {
                let ns = if step % 3 == 0 { "" } else { "big" };
                if !ns.is_empty() && !current.contains_key(ns) {
                    // Creating a namespace is a write of its own.
                    db.namespace(ns).unwrap();
                    let create = Change::CreateNs(ns.to_string());
                    apply(&mut current, &create);
                    unsynced.push(vec![create]);
                }
                let k = format!("large{step}").into_bytes();
                let v = large_value(seed ^ step as u64, size(&mut rng));
                insert_in(&db, ns, &k, &v);
                write.push(Change::Put(ns.to_string(), k, v));
            }
            // Small writes around them, so large frames sit between staged ones.
            1 | 7 | 11 => {
                for i in 0..3 {
                    let k = format!("small{step}-{i}").into_bytes();
                    db.insert(&k, b"s").unwrap();
                    unsynced.push(vec![Change::Put(String::new(), k, b"s".to_vec())]);
                    apply(&mut current, unsynced.last().unwrap().first().unwrap());
                }
            }
            // A batch with a large frame between small ones: all or nothing.
            3 | 10 => {
                let pairs = vec![
                    (format!("batch{step}-a").into_bytes(), b"a".to_vec()),
                    (
                        format!("batch{step}-big").into_bytes(),
                        large_value(seed ^ 0xB0 ^ step as u64, size(&mut rng)),
                    ),
                    (format!("batch{step}-z").into_bytes(), b"z".to_vec()),
                ];
                db.insert_many(pairs.iter().cloned()).unwrap();
                write.extend(
                    pairs
                        .into_iter()
                        .map(|(k, v)| Change::Put(String::new(), k, v)),
                );
            }
            // Replace a large value by another, remove one.
            5 => {
                let v = large_value(seed ^ 0x55, size(&mut rng));
                db.insert("large0", &v).unwrap();
                write.push(Change::Put(String::new(), b"large0".to_vec(), v));
                db.namespace("big").unwrap().remove("large2").unwrap();
                write.push(Change::Del("big".into(), b"large2".to_vec()));
            }
            // Flush, then a checkpoint with every state of its writing.
            4 | 8 | 13 => {
                db.flush().unwrap();
                for w in unsynced.drain(..) {
                    for c in &w {
                        apply(&mut synced, c);
                    }
                }
                let recorder = Recorder::start(&faults, &live);
                if step == 8 {
                    // A compaction: new file (large frames copied through
                    // its mapping), rename, directory fsync, new checkpoint.
                    db.compact().unwrap();
                } else {
                    db.checkpoint().unwrap();
                }
                let (n, steps) =
                    recorder.replay(&faults, &mut rng, 3, &label(step), |files, what| {
                        check_dir_state(&dir_states, files, key, &synced, what);
                    });
                assert_checkpoint_steps(&steps, &label(step));
                dir_count += n;
                synced_ckpt = std::fs::read(&ckpt_path).ok();
                synced_image = std::fs::read(&path).unwrap();
                durable = db.stats().unwrap().log_logical_bytes as usize;
                assert_eq!(synced, current);
                // The installed checkpoint damaged beyond the model.
                let ckpt = synced_ckpt.clone().unwrap();
                for i in 0..4 {
                    let mut bad = ckpt.clone();
                    match i {
                        // Its last sector (page CRCs) zeroed.
                        0 => {
                            let n = bad.len();
                            bad[n - SECTOR.min(n)..].fill(0);
                        }
                        // Cut short.
                        1 => bad.truncate(bad.len() / 2),
                        // A random sector inside garbage, or zeroed.
                        _ => {
                            let s = rng.below(bad.len().div_ceil(SECTOR) as u64) as usize;
                            let end = ((s + 1) * SECTOR).min(bad.len());
                            for b in &mut bad[s * SECTOR..end] {
                                *b = if i == 2 { rng.next() as u8 } else { 0 };
                            }
                        }
                    }
                    if bad == ckpt {
                        continue;
                    }
                    let failed = check_damaged_checkpoint(
                        &state_dir,
                        &synced_image,
                        &bad,
                        key,
                        &synced,
                        &format!("{}: damaged checkpoint {i}", label(step)),
                    );
                    damaged += 1;
                    refused += usize::from(failed);
                }
            }
            // Remove a key written by the batch, then crash with it pending.
            6 => {
                db.remove("batch3-big").unwrap();
                write.push(Change::Del(String::new(), b"batch3-big".to_vec()));
            }
            _ => unreachable!(),
        }
        if !write.is_empty() {
            for c in &write {
                apply(&mut current, c);
            }
            unsynced.push(write);
        }
        assert_eq!(contents(&db), current, "{}: live handle", label(step));
        let now = std::fs::read(&path).unwrap();
        let expect = Expect {
            synced: synced.clone(),
            unsynced: unsynced.clone(),
        };
        for (i, image) in crash_states(&synced_image, &now, durable, &mut rng, 8)
            .into_iter()
            .enumerate()
        {
            let what = format!("{} state {i}", label(step));
            check_state_with(
                &state_dir,
                &image,
                synced_ckpt.as_deref(),
                key,
                &expect,
                &what,
            );
            states += 1;
        }
    }
    (states, dir_count, damaged, refused)
}

#[test]
fn large_frames_checkpoints_and_compaction_survive_every_crash_state() {
    let rounds: u64 = std::env::var("EMDB_POWER_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let scratch = scratch_dir();
    let (mut states, mut dir_states, mut damaged, mut refused) = (0, 0, 0, 0);
    for round in 0..rounds.div_ceil(2) {
        for key in [None, Some(KEY_A)] {
            let (s, d, b, r) = large_frame_stream(key, 0x1A26E ^ (round + 1), scratch.path());
            states += s;
            dir_states += d;
            damaged += b;
            refused += r;
        }
    }
    println!(
        "large frames: {states} crash states of the log, {dir_states} of checkpoints and \
         compactions, {damaged} damaged installed checkpoints ({refused} refused with an \
         error naming the checkpoint, the others read right)"
    );
    assert!(states > 100);
    assert!(dir_states > 20);
    assert!(damaged > 10);
}
