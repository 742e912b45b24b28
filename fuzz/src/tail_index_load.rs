//! Target `tail_index_load`: the tail index reader, through the public API
//! (`EmdbBuilder::read_one_key` and `range_once`, which are what read it).
//!
//! A template database is written once per process: keys in the default
//! namespace and in a named one, checkpointed, then overwrites, deletes and
//! a batch written by a writer with a small automatic-checkpoint minimum,
//! until its checkpointer has written a tail index (`<db>.tail`); the
//! writer then closes without a checkpoint, so the tail index stays bound
//! to the checkpoint on disk. Each input replaces `<db>.tail` with the real
//! file damaged by the fuzzer and every checksum redone, or with one forged
//! from the real header and fuzzer-chosen entries (real keys' hashes or any,
//! real frame offsets or any) and sorted offsets in a fuzzer-chosen order,
//! with a fuzzer-chosen count section, then reads every key and a few
//! ranges of both namespaces, and counts them (`EmdbBuilder::read_counts`);
//! then opens a full read-only handle, which layers the index's entries
//! over the checkpoint, and reads the keys and every pair through it.
//!
//! Checks: no panic; every value read and every pair a range yields is the
//! key and value a put stored under that key in that namespace at some
//! point (a forged index may point at an older record of a key: that is
//! what its CRC-valid bytes say, as with a forged checkpoint), never
//! garbage and never another key's or namespace's value. Counts are what
//! a forged index says (no check but that reading them does not panic).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use emdb_core::{Emdb, OneKey};

use crate::{apply_damage, parse_plain_frame, pick_damage, HEADER_SIZE};

struct Template {
    _dir: tempfile::TempDir,
    path: PathBuf,
    tail_path: PathBuf,
    /// The tail index the writer wrote.
    tail: Vec<u8>,
    /// Offsets of every frame in the log (batch frames included).
    frames: Vec<u64>,
    /// Every value ever put, by namespace name ("" is the default) and key.
    history: BTreeMap<(String, Vec<u8>), BTreeSet<Vec<u8>>>,
}

const NAMESPACE: &str = "alpha";

fn template() -> &'static Template {
    static T: OnceLock<Template> = OnceLock::new();
    T.get_or_init(|| build_template().unwrap_or_else(|e| panic!("template database: {e}")))
}

fn key(i: u32) -> String {
    format!("k{i:04}")
}

fn build_template() -> Result<Template, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("t.emdb");
    let tail_path = dir.path().join("t.emdb.tail");
    let mut history: BTreeMap<(String, Vec<u8>), BTreeSet<Vec<u8>>> = BTreeMap::new();
    let mut note = |ns: &str, k: &str, v: &str| {
        history
            .entry((ns.to_string(), k.as_bytes().to_vec()))
            .or_default()
            .insert(v.as_bytes().to_vec());
    };
    let db = Emdb::builder()
        .path(&path)
        .checkpoint_tail(Some(1 << 10))
        .checkpoint_on_close(false)
        .build()?;
    let alpha = db.namespace(NAMESPACE)?;
    for i in 0..400u32 {
        let v = format!("base-{i}");
        db.insert(key(i), &v)?;
        alpha.insert(key(i), &v)?;
        note("", &key(i), &v);
        note(NAMESPACE, &key(i), &v);
    }
    db.checkpoint()?;
    // The tail: until the checkpointer writes a tail index.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut round = 0u32;
    while !tail_path.exists() {
        if Instant::now() > deadline {
            return Err("no tail index within 30 s".into());
        }
        for i in (round % 7..60).step_by(7) {
            let v = format!("new-{round}-{i}");
            db.insert(key(i), &v)?;
            note("", &key(i), &v);
            let w = format!("alpha-{round}-{i}");
            alpha.insert(key(i + 1), &w)?;
            note(NAMESPACE, &key(i + 1), &w);
        }
        db.remove(key(100 + round % 50))?;
        alpha.remove(key(200 + round % 50))?;
        let batch: Vec<(String, String)> = (300..303u32)
            .map(|i| (key(i), format!("batch-{round}-{i}")))
            .collect();
        for (k, v) in &batch {
            note("", k, v);
        }
        db.insert_many(batch)?;
        db.flush()?;
        round += 1;
        std::thread::sleep(Duration::from_millis(20));
    }
    // Closed without a checkpoint: the tail index stays bound to it.
    drop(alpha);
    db.close()?;
    let tail = std::fs::read(&tail_path)?;
    let log = std::fs::read(&path)?;
    let mut frames = Vec::new();
    let mut at = HEADER_SIZE;
    while let Some(len) = log.get(at..).and_then(emdb_core::fuzzing::decode_record) {
        let f = parse_plain_frame(&log[at..]).ok_or("template frame does not parse")?;
        frames.push(at as u64);
        // A batch header's frames follow it (inside its body).
        at += len.min(f.len);
    }
    Ok(Template {
        _dir: dir,
        path,
        tail_path,
        tail,
        frames,
        history,
    })
}

impl Template {
    fn assert_stored(&self, ns: &str, key: &[u8], value: &[u8], what: &str) {
        assert!(
            self.history
                .get(&(ns.to_string(), key.to_vec()))
                .is_some_and(|vals| vals.contains(value)),
            "namespace {ns:?}: {what} {:?} = {:?}, never put there",
            String::from_utf8_lossy(key),
            String::from_utf8_lossy(value)
        );
    }
}

/// Run one input.
pub fn run(data: &[u8]) {
    let t = template();
    let mut u = Unstructured::new(data);
    // Keys to read: those the forged entries were made for, and more the
    // fuzzer picks.
    let mut reads: Vec<(String, Vec<u8>)> = Vec::new();
    let file = if u.arbitrary().unwrap_or(false) {
        let mut file = t.tail.clone();
        let damage = pick_damage(&mut u, 6);
        // Past the magic and version: the rest, checksums redone.
        apply_damage(&mut file, 12, &damage);
        emdb_core::fuzzing::reseal_tail_index(&mut file);
        Some(file)
    } else {
        forge(&mut u, t, &mut reads)
    };
    let Some(file) = file else { return };
    if std::fs::write(&t.tail_path, &file).is_err() {
        return;
    }
    let builder = || Emdb::builder().path(&t.path);
    let all: Vec<&(String, Vec<u8>)> = t.history.keys().collect();
    for _ in 0..u.int_in_range(1u8..=8).unwrap_or(1) {
        if let Ok(&k) = u.choose(&all) {
            reads.push(k.clone());
        }
    }
    for (name, k) in &reads {
        let ns = (!name.is_empty()).then_some(name.as_str());
        if let Ok(OneKey::Found(v)) = builder().read_one_key(ns, k) {
            t.assert_stored(name, k, &v, "read");
        }
    }
    for _ in 0..u.int_in_range(1u8..=3).unwrap_or(1) {
        let a = key(u.int_in_range(0u32..=420).unwrap_or(0)).into_bytes();
        let b = key(u.int_in_range(0u32..=420).unwrap_or(0)).into_bytes();
        let ns = if u.arbitrary().unwrap_or(false) {
            Some(NAMESPACE)
        } else {
            None
        };
        let Ok(Some(it)) = builder().range_once(ns, Bound::Included(&a), Bound::Excluded(&b))
        else {
            continue;
        };
        for (k, v) in it.flatten() {
            t.assert_stored(ns.unwrap_or(""), &k, &v, "range yielded");
        }
    }
    // A full read-only open layers the index's entries over the
    // checkpoint (or replays the tail when it cannot use them).
    if let Ok(db) = builder().read_only(true).follow(false).build() {
        for (name, k) in &reads {
            let got = if name.is_empty() {
                db.get(k)
            } else {
                db.namespace(name).and_then(|n| n.get(k))
            };
            if let Ok(Some(v)) = got {
                t.assert_stored(name, k, &v, "read (full open)");
            }
        }
        let every = (Bound::<Vec<u8>>::Unbounded, Bound::<Vec<u8>>::Unbounded);
        if let (Ok(iter), Ok(range)) = (db.iter(), db.range(every.clone())) {
            for (k, v) in iter.flatten().chain(range) {
                t.assert_stored("", &k, &v, "listed (full open)");
            }
        }
        if let Ok(alpha) = db.namespace(NAMESPACE) {
            if let (Ok(iter), Ok(range)) = (alpha.iter(), alpha.range(every)) {
                for (k, v) in iter.flatten().chain(range) {
                    t.assert_stored(NAMESPACE, &k, &v, "listed (full open)");
                }
            }
        }
    }
    if let Ok(counts) = builder().read_counts() {
        assert!(counts.namespaces.iter().all(|(n, _)| n == NAMESPACE));
    }
    let _ = builder().read_count(Some(NAMESPACE));
}

/// A tail index with the real header and fuzzer-placed entries.
fn forge(
    u: &mut Unstructured<'_>,
    t: &Template,
    reads: &mut Vec<(String, Vec<u8>)>,
) -> Option<Vec<u8>> {
    let keys: Vec<&(String, Vec<u8>)> = t.history.keys().collect();
    let n = u.int_in_range(0u16..=40).unwrap_or(0);
    let mut entries = Vec::with_capacity(usize::from(n));
    for _ in 0..n {
        let hash = match u.int_in_range(0u8..=3).unwrap_or(0) {
            0..=2 => {
                let k = u.choose(&keys).ok()?;
                if reads.len() < 8 {
                    reads.push((*k).clone());
                }
                xxhash_rust::xxh3::xxh3_64(&k.1)
            }
            _ => u.arbitrary().unwrap_or(1),
        };
        let off = match u.int_in_range(0u8..=3).unwrap_or(0) {
            0..=2 => u.choose(&t.frames).copied().unwrap_or(HEADER_SIZE as u64),
            _ => u.arbitrary::<u64>().unwrap_or(1).max(1),
        };
        entries.push((hash, off));
    }
    // The sorted section: the same offsets, in an order the fuzzer picks
    // (sorted by key, or shuffled).
    let mut sorted: Vec<u64> = entries.iter().map(|e| e.1).collect();
    if u.arbitrary().unwrap_or(false) {
        let log = std::fs::read(&t.path).ok()?;
        sorted.sort_by_key(|&off| {
            usize::try_from(off)
                .ok()
                .and_then(|o| log.get(o..))
                .and_then(parse_plain_frame)
                .map(|f| f.key)
        });
    } else {
        for i in (1..sorted.len()).rev() {
            let j = u.int_in_range(0..=i).unwrap_or(0);
            sorted.swap(i, j);
        }
    }
    // Counts for namespaces 0 and 1 (the two the template has) or any.
    let mut counts = Vec::new();
    for _ in 0..u.int_in_range(0u8..=3).unwrap_or(0) {
        let ns = match u.int_in_range(0u8..=3).unwrap_or(0) {
            0..=2 => counts.len() as u32,
            _ => u.arbitrary().unwrap_or(0),
        };
        let live: u64 = u.int_in_range(0..=1000).unwrap_or(0);
        counts.push((ns, live, live * 20, u.int_in_range(0..=live).unwrap_or(0)));
    }
    emdb_core::fuzzing::forge_tail_index(&t.tail, &entries, &sorted, &counts)
}
