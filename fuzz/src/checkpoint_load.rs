//! Target `checkpoint_load`: the whole checkpoint loader, through the public
//! API. `decode_checkpoint` stops at the byte layout; this target goes on to
//! what open does with a checkpoint that passes it: bind it to the log,
//! rebuild each namespace's index from its image, and answer reads from it.
//!
//! A template database is written once per process (a temporary directory):
//! keys in the default namespace and in a named one (some names shared, some
//! overwritten, some deleted, one batch), closed with a checkpoint. Each
//! input then replaces `<db>.ckpt` with a CRC-valid image and opens the
//! database read-only (which never writes). The image is either the real
//! checkpoint (converted to version 1) with fuzzer damage, re-sealed with a
//! correct CRC, the version-2 checkpoint as written with fuzzer damage and
//! every checksum redone (so the mapped image's slots are used), or one built
//! from the real binding with fuzzer-placed index entries whose tags are the
//! real keys' tags and whose offsets are real frame offsets, so that lookups
//! reach the engine's key confirmation with the wrong records.
//!
//! Checks: no panic; when open succeeds every read and every iterated pair
//! is `Ok(None)`, an error, or the key and value of a record of the log:
//! never garbage, never a key paired with another record's value. In strict
//! mode (see [`run_strict`]) the value must have been put under that key in
//! that namespace: not another namespace's, not a Delete's or BatchBegin's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use arbitrary::Unstructured;
use emdb_core::Emdb;

use crate::checkpoint::{seal, FIXED_LEN};
use crate::{apply_damage, parse_plain_frame, pick_damage, PlainFrame, HEADER_SIZE, SHARDS};

/// The template database and what was stored in it.
struct Template {
    _dir: tempfile::TempDir,
    path: PathBuf,
    ckpt_path: PathBuf,
    /// The checkpoint the engine wrote (version 2), converted to version 1,
    /// CRC included.
    ckpt: Vec<u8>,
    /// The checkpoint the engine wrote, as written (version 2).
    ckpt_v2: Vec<u8>,
    /// Offsets of every frame in the log.
    frames: Vec<u64>,
    /// Every frame of the log, as this crate reads it.
    records: Vec<PlainFrame>,
    /// Every value ever stored, by namespace name ("" is the default) and key.
    history: BTreeMap<(String, Vec<u8>), BTreeSet<Vec<u8>>>,
}

const NAMESPACE: &str = "alpha";

fn template() -> &'static Template {
    static T: OnceLock<Template> = OnceLock::new();
    T.get_or_init(|| build_template().unwrap_or_else(|e| panic!("template database: {e}")))
}

fn build_template() -> Result<Template, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("t.emdb");
    let mut history: BTreeMap<(String, Vec<u8>), BTreeSet<Vec<u8>>> = BTreeMap::new();
    let mut note = |ns: &str, k: &[u8], v: &[u8]| {
        history
            .entry((ns.to_string(), k.to_vec()))
            .or_default()
            .insert(v.to_vec());
    };
    {
        let db = Emdb::open(&path)?;
        for i in 0..12u8 {
            let (k, v) = (format!("k{i}"), format!("default-{i}"));
            db.insert(&k, &v)?;
            note("", k.as_bytes(), v.as_bytes());
        }
        let alpha = db.namespace(NAMESPACE)?;
        for i in 0..8u8 {
            let (k, v) = (format!("k{i}"), format!("alpha-{i}"));
            alpha.insert(&k, &v)?;
            note(NAMESPACE, k.as_bytes(), v.as_bytes());
        }
        for i in 0..4u8 {
            let (k, v) = (format!("k{i}"), format!("default-{i}-new"));
            db.insert(&k, &v)?;
            note("", k.as_bytes(), v.as_bytes());
        }
        for i in 8..12u8 {
            db.remove(format!("k{i}"))?;
        }
        alpha.remove("k7")?;
        let batch: Vec<(String, String)> = (20..24u8)
            .map(|i| (format!("k{i}"), format!("batch-{i}")))
            .collect();
        for (k, v) in &batch {
            note("", k.as_bytes(), v.as_bytes());
        }
        db.insert_many(batch)?;
        db.flush()?;
    }
    let ckpt_path = dir.path().join("t.emdb.ckpt");
    let ckpt_v2 = std::fs::read(&ckpt_path)?;
    let ckpt = emdb_core::fuzzing::checkpoint_v2_to_v1(&ckpt_v2)
        .ok_or("the template checkpoint does not convert to version 1")?;
    let log = std::fs::read(&path)?;
    let (mut frames, mut records) = (Vec::new(), Vec::new());
    let mut at = HEADER_SIZE;
    while let Some(len) = log.get(at..).and_then(emdb_core::fuzzing::decode_record) {
        let f = parse_plain_frame(&log[at..]).ok_or("template frame does not parse")?;
        if f.len != len {
            return Err("frame length differs from the engine's".into());
        }
        frames.push(at as u64);
        records.push(f);
        at += len;
    }
    Ok(Template {
        _dir: dir,
        path,
        ckpt_path,
        ckpt,
        ckpt_v2,
        frames,
        records,
        history,
    })
}

impl Template {
    fn assert_stored(&self, strict: bool, ns: &str, key: &[u8], value: &[u8], what: &str) {
        let ok = if strict {
            self.history
                .get(&(ns.to_string(), key.to_vec()))
                .is_some_and(|vals| vals.contains(value))
        } else {
            self.records
                .iter()
                .any(|r| r.key == key && r.value == value)
        };
        assert!(
            ok,
            "namespace {ns:?}: {what} {:?} = {:?}, never stored there",
            String::from_utf8_lossy(key),
            String::from_utf8_lossy(value)
        );
    }
}

/// The key's index tag and shard (docs/FORMAT.md, "Checkpoint file").
fn tag_and_shard(key: &[u8]) -> (u64, usize) {
    let h = xxhash_rust::xxh3::xxh3_64(key);
    ((h >> 32) & 0xff_ffff, (h >> 56) as usize)
}

/// Run one input, strict when `EMDB_FUZZ_STRICT=1`.
pub fn run(data: &[u8]) {
    run_mode(data, crate::strict_from_env());
}

/// Run one input in strict mode, which checks two open findings that the
/// default mode steps around:
/// - a read must return a value that a Put stored under that key *in that
///   namespace* (by default: the key and value of any record of the log,
///   since the engine does not check the kind and namespace of the record an
///   index entry points to);
/// - forged shard tables may be full (no empty slot), on which a lookup of a
///   key that is not there never ends.
pub fn run_strict(data: &[u8]) {
    run_mode(data, true);
}

fn run_mode(data: &[u8], strict: bool) {
    let t = template();
    let mut u = Unstructured::new(data);
    let image = match u.int_in_range(0u8..=2).unwrap_or(0) {
        0 => {
            let mut body = t.ckpt[..t.ckpt.len() - 4].to_vec();
            let damage = pick_damage(&mut u, 6);
            apply_damage(&mut body, FIXED_LEN, &damage);
            seal(body)
        }
        1 => forge(&mut u, t, strict),
        _ => {
            // The mapped image: damage anywhere past the binding (layout
            // fields, table, slot pages, page CRCs), every checksum redone.
            let mut file = t.ckpt_v2.clone();
            let damage = pick_damage(&mut u, 6);
            apply_damage(&mut file, FIXED_LEN, &damage);
            emdb_core::fuzzing::reseal_checkpoint_v2(&mut file);
            file
        }
    };
    if std::fs::write(&t.ckpt_path, &image).is_err() {
        return;
    }
    let Ok(db) = Emdb::builder().path(&t.path).read_only(true).build() else {
        return;
    };
    let ns = db.namespace(NAMESPACE).ok();
    for (name, key) in t.history.keys() {
        let got = if name.is_empty() {
            db.get(key)
        } else {
            match &ns {
                Some(ns) => ns.get(key),
                None => continue,
            }
        };
        if let Ok(Some(v)) = got {
            t.assert_stored(strict, name, key, &v, "read");
        }
    }
    if let Ok(iter) = db.iter() {
        for (k, v) in iter.flatten() {
            t.assert_stored(strict, "", &k, &v, "iteration yielded");
        }
    }
    if let Some(ns) = &ns {
        if let Ok(iter) = ns.iter() {
            for (k, v) in iter.flatten() {
                t.assert_stored(strict, NAMESPACE, &k, &v, "iteration yielded");
            }
        }
    }
    let _ = db.len();
    let _ = db.list_namespaces();
}

/// A checkpoint with the real binding and fuzzer-placed index entries.
fn forge(u: &mut Unstructured<'_>, t: &Template, strict: bool) -> Vec<u8> {
    let mut b = t.ckpt[..FIXED_LEN].to_vec();
    let names: [(u32, &[u8]); 2] = [(0, b""), (1, NAMESPACE.as_bytes())];
    let count = u.int_in_range(1u32..=2).unwrap_or(1);
    b[12..16].copy_from_slice(&count.to_le_bytes());
    let keys: Vec<&Vec<u8>> = t.history.keys().map(|(_, k)| k).collect();
    for &(id, name) in names.iter().take(count as usize) {
        b.extend_from_slice(&id.to_le_bytes());
        b.extend_from_slice(&(name.len() as u16).to_le_bytes());
        b.extend_from_slice(name);
        b.extend_from_slice(&u.arbitrary::<u64>().unwrap_or(0).to_le_bytes());
        b.extend_from_slice(&u.arbitrary::<u64>().unwrap_or(0).to_le_bytes());
        b.extend_from_slice(&(SHARDS as u32).to_le_bytes());
        // Entries: (key, record offset), each put in the key's shard.
        let mut shards: Vec<Vec<u64>> = vec![Vec::new(); SHARDS];
        let n = u.int_in_range(0u8..=12).unwrap_or(0);
        for _ in 0..n {
            let Ok(&key) = u.choose(&keys) else { break };
            let off = match u.int_in_range(0u8..=3).unwrap_or(0) {
                0..=2 => u.choose(&t.frames).copied().unwrap_or(0),
                _ => u.int_in_range(HEADER_SIZE as u64..=8192).unwrap_or(0),
            };
            let (tag, shard) = tag_and_shard(key);
            shards[shard].push(tag << 40 | off);
        }
        for entries in shards {
            if entries.is_empty() {
                b.extend_from_slice(&[0u8; 8]);
                continue;
            }
            // The engine grows a table at 80% load, so it always has an
            // empty slot; only strict mode forges full tables.
            let slack = if strict && u.arbitrary().unwrap_or(false) {
                1
            } else {
                2
            };
            let slots = (entries.len() * slack).next_power_of_two();
            let mut table = vec![0u64; slots];
            for e in &entries {
                // Linear probing from the home slot `tag & (slots - 1)`.
                let mut i = ((e >> 40) as usize) & (slots - 1);
                while table[i] != 0 {
                    i = (i + 1) & (slots - 1);
                }
                table[i] = *e;
            }
            b.extend_from_slice(&(slots as u32).to_le_bytes());
            b.extend_from_slice(&(entries.len() as u32).to_le_bytes());
            for e in table {
                b.extend_from_slice(&e.to_le_bytes());
            }
        }
    }
    seal(b)
}
