//! `EmdbBuilder::write_keys` (the CLI's one-shot `put`, `del KEY`,
//! `incr`, `expire`, `persist`) against the same calls through a
//! `KeysWriter` over a full writer, on copies of one database: the same
//! answers, the same pairs, expiries, namespaces and counts after, on logs
//! whose tail holds puts, deletes, batches, expiring records, namespace
//! clears, drops and re-creations, with a tail index, a missing or damaged
//! checkpoint, a torn last record, plain and encrypted. And a log a full
//! writer refuses is refused by a one-shot write too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{ckpt_path, sibling, Rng};
use emdb_core::{Emdb, EmdbBuilder, KeysWriter, Ttl};

const KEYS: u64 = 40;
const SPACES: [Option<&str>; 3] = [None, Some("a"), Some("b")];
const KEY: [u8; 32] = [0x5a; 32];

fn key(i: u64) -> Vec<u8> {
    format!("k{i:03}").into_bytes()
}

fn builder(path: &Path, sealed: bool) -> EmdbBuilder {
    let b = Emdb::builder().path(path);
    if sealed {
        b.encryption_key(KEY)
    } else {
        b
    }
}

/// Puts (some expiring at once), deletes, batches; with `ns_ops` also
/// clears, drops and re-creations of the named namespaces.
fn workload(db: &Emdb, rng: &mut Rng, ops: usize, ns_ops: bool) {
    for step in 0..ops {
        let space = SPACES[rng.below(3) as usize];
        let k = key(rng.below(KEYS));
        let value = format!("v{step}-{}-{}", rng.below(1000), "x".repeat(40)).into_bytes();
        let ins = |k: &[u8], v: &[u8], ttl: Ttl| match space {
            None => db.insert_with_ttl(k, v, ttl).unwrap(),
            Some(n) => db.namespace(n).unwrap().insert_with_ttl(k, v, ttl).unwrap(),
        };
        match rng.below(100) {
            0..=49 => ins(&k, &value, Ttl::Never),
            50..=57 => ins(&k, &value, Ttl::After(Duration::from_millis(1))),
            58..=64 => ins(&k, &value, Ttl::After(Duration::from_secs(3600))),
            65..=84 => {
                match space {
                    None => db.remove(&k).unwrap(),
                    Some(n) => db.namespace(n).unwrap().remove(&k).unwrap(),
                };
            }
            85..=91 => {
                let mut batch = db.write_batch();
                for _ in 0..1 + rng.below(4) {
                    let k = key(rng.below(KEYS));
                    if rng.below(3) == 0 {
                        batch.remove(&k).unwrap();
                    } else {
                        batch.put(&k, &value).unwrap();
                    }
                }
                batch.commit().unwrap();
            }
            92..=95 if ns_ops => {
                if let Some(n) = space {
                    db.namespace(n).unwrap().clear().unwrap();
                }
            }
            96..=99 if ns_ops => {
                if let Some(n) = space {
                    db.drop_namespace(n).unwrap();
                }
            }
            _ => ins(&k, &value, Ttl::Never),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Shape {
    sealed: bool,
    tail_index: bool,
    checkpoint: u8, // 0 good, 1 missing, 2 damaged
    torn: bool,
}

/// A database at `dir/db.emdb` in the given shape; returns its path.
fn make(dir: &Path, seed: u64, s: Shape) -> Option<PathBuf> {
    let path = dir.join("db.emdb");
    let mut rng = Rng::new(seed);
    {
        let db = builder(&path, s.sealed)
            .checkpoint_tail(None)
            .build()
            .unwrap();
        workload(&db, &mut rng, 300, true);
        db.checkpoint().unwrap();
        workload(&db, &mut rng, 60, true);
        db.close().unwrap();
    }
    // Checkpoint now covers everything.
    {
        let db = builder(&path, s.sealed)
            .checkpoint_tail(None)
            .build()
            .unwrap();
        db.namespace("a").unwrap();
        db.namespace("b").unwrap();
        db.checkpoint().unwrap();
        db.close().unwrap();
    }
    let db = builder(&path, s.sealed)
        .checkpoint_tail(Some(64 << 10))
        .checkpoint_on_close(false)
        .build()
        .unwrap();
    if s.tail_index {
        // Puts and deletes only: a tail index covers them.
        workload(&db, &mut rng, 300, false);
        db.flush().unwrap();
        if !tail_index_written(&path, Duration::from_secs(4)) {
            return None;
        }
    }
    // Past it, namespace work too.
    workload(&db, &mut rng, 80, true);
    db.flush().unwrap();
    if s.torn {
        for i in 0..5 {
            db.insert(key(i), "unsynced-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
                .unwrap();
        }
        // The file as a kill now would leave it, torn in its last record.
        let mut bytes = std::fs::read(&path).unwrap();
        let end = bytes.iter().rposition(|&b| b != 0).unwrap() + 1;
        bytes.truncate(end - 7);
        let torn = dir.join("torn.emdb");
        std::fs::write(&torn, &bytes).unwrap();
        let _ = std::fs::copy(ckpt_path(&path), ckpt_path(&torn));
        let _ = std::fs::copy(sibling(&path, ".tail"), sibling(&torn, ".tail"));
        drop(db);
        std::fs::remove_file(&path).unwrap();
        let _ = std::fs::remove_file(ckpt_path(&path));
        let _ = std::fs::remove_file(sibling(&path, ".tail"));
        std::fs::rename(&torn, &path).unwrap();
        std::fs::rename(ckpt_path(&torn), ckpt_path(&path)).unwrap();
        let _ = std::fs::rename(sibling(&torn, ".tail"), sibling(&path, ".tail"));
    } else {
        drop(db);
    }
    if s.tail_index {
        assert!(sibling(&path, ".tail").exists(), "tail index gone at close");
        let (_, rep) = builder(&path, s.sealed).read_stats().unwrap();
        assert!(rep.used_tail_index, "tail index not usable");
    }
    match s.checkpoint {
        1 => std::fs::remove_file(ckpt_path(&path)).unwrap(),
        2 => {
            let b = std::fs::read(ckpt_path(&path)).unwrap();
            std::fs::write(ckpt_path(&path), &b[..b.len() / 2]).unwrap();
        }
        _ => {}
    }
    let r = builder(&path, s.sealed).read_only(true).build().unwrap();
    let rep = r.recovery_report();
    assert_eq!(
        rep.checkpoint_rejected.is_some(),
        s.checkpoint == 2,
        "{rep:?}"
    );
    assert_eq!(rep.used_checkpoint, s.checkpoint == 0, "{rep:?}");
    drop(r);
    {
        let d = tempfile::tempdir().unwrap();
        let c = copy_db(&path, d.path());
        let w = builder(&c, s.sealed)
            .checkpoint_on_close(false)
            .build()
            .unwrap();
        let rep = w.recovery_report();
        assert_eq!(rep.truncated_tail_at.is_some(), s.torn, "{rep:?}");
    }
    Some(path)
}

/// Whether the writer of `path` has written a tail index within `limit`.
fn tail_index_written(path: &Path, limit: Duration) -> bool {
    let t = std::time::Instant::now();
    while !sibling(path, ".tail").exists() && t.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(100));
    }
    sibling(path, ".tail").exists()
}

/// A full writer's open of a copy of `path` fails, and so does a one-shot
/// write of another key to `path` itself.
fn refused_by_both(path: &Path, sealed: bool) {
    let dir = tempfile::tempdir().unwrap();
    let copy = copy_db(path, dir.path());
    assert!(builder(&copy, sealed).build().is_err());
    let one_shot = builder(path, sealed).write_keys(None, true, &[b"new"], |w| {
        w.insert(b"new", b"2", Ttl::Never)
    });
    assert!(
        one_shot.is_err(),
        "write_keys wrote to a log a full open refuses"
    );
}

/// The bytes `write` appends to the log of `db` (flushed before and after).
fn appended(db: &Emdb, write: impl FnOnce(&Emdb)) -> (u64, u64) {
    db.flush().unwrap();
    let before = db.stats().unwrap().log_logical_bytes;
    write(db);
    db.flush().unwrap();
    (before, db.stats().unwrap().log_logical_bytes)
}

fn copy_db(from: &Path, to_dir: &Path) -> PathBuf {
    let to = to_dir.join("db.emdb");
    std::fs::copy(from, &to).unwrap();
    for s in [".ckpt", ".tail"] {
        if sibling(from, s).exists() {
            std::fs::copy(sibling(from, s), sibling(&to, s)).unwrap();
        }
    }
    to
}

/// Everything a full replay sees: namespaces, then (ns, key) -> (value, has expiry).
type State = (
    Vec<String>,
    std::collections::BTreeMap<(Option<String>, Vec<u8>), (Vec<u8>, bool)>,
    Vec<(Option<String>, usize)>,
);

fn state(path: &Path, sealed: bool) -> State {
    let d = tempfile::tempdir().unwrap();
    let copy = d.path().join("s.emdb");
    std::fs::copy(path, &copy).unwrap();
    let _ = std::fs::copy(ckpt_path(path), ckpt_path(&copy));
    let h = builder(&copy, sealed)
        .read_only(true)
        .follow(false)
        .build()
        .unwrap();
    let mut names = h.list_namespaces().unwrap();
    names.sort();
    let mut pairs = std::collections::BTreeMap::new();
    let mut lens = vec![(None, h.len().unwrap())];
    for item in h.iter().unwrap() {
        let (k, v) = item.unwrap();
        let e = h.expires_at(&k).unwrap().is_some();
        pairs.insert((None, k), (v, e));
    }
    for n in &names {
        let ns = h.namespace(n).unwrap();
        lens.push((Some(n.clone()), ns.len().unwrap()));
        for item in ns.iter().unwrap() {
            let (k, v) = item.unwrap();
            let e = ns.expires_at(&k).unwrap().is_some();
            pairs.insert((Some(n.clone()), k), (v, e));
        }
    }
    (names, pairs, lens)
}

/// One random call's writes on `w`, with what each step returned.
fn call(
    w: &KeysWriter<'_>,
    op: u64,
    k1: &[u8],
    k2: &[u8],
    v: &[u8],
) -> emdb_core::Result<Vec<String>> {
    let mut out = Vec::new();
    match op {
        0 => w.insert(k1, v, Ttl::Never)?,
        1 => out.push(format!("{:?}", w.remove(k1)?)),
        2 => {
            out.push(format!("{:?}", w.get(k1)?));
            out.push(format!("{:?}", w.contains(k2)?));
            out.push(format!("{:?}", w.expires_at(k1)?.is_some()));
        }
        3 => out.push(format!("{:?}", w.expire(k1, Duration::from_secs(7200))?)),
        4 => out.push(format!("{:?}", w.persist(k1)?)),
        5 => {
            let r = w.transaction(|tx| {
                let a = tx.get(k1)?;
                let b = tx.get(k2)?;
                if let Some(a) = &a {
                    tx.remove(k1)?;
                    tx.insert(k2, a, Ttl::Never)?;
                } else {
                    tx.insert(k1, v, Ttl::After(Duration::from_secs(3600)))?;
                }
                Ok(format!("{a:?} {b:?}"))
            })?;
            out.push(r);
        }
        6 => {
            let r = w.transaction(|tx| Ok(format!("{:?} {:?}", tx.remove(k1)?, tx.remove(k2)?)))?;
            out.push(r);
        }
        _ => w.insert(
            k1,
            v,
            Ttl::At(std::time::UNIX_EPOCH + Duration::from_secs(5)),
        )?,
    }
    out.push(format!("{:?}", w.get(k1)?));
    out.push(format!("{:?}", w.get(k2)?));
    Ok(out)
}

fn differential(s: Shape, seeds: std::ops::Range<u64>) {
    let extra: u64 = std::env::var("EXTRA_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for seed in seeds.start..seeds.end + extra {
        let base = tempfile::tempdir().unwrap();
        let Some(path) = make(base.path(), seed, s) else {
            continue;
        };
        let mut rng = Rng::new(seed * 977 + 1);
        for trial in 0..12 {
            let space = SPACES[rng.below(3) as usize];
            let (k1, k2) = (key(rng.below(KEYS + 2)), key(rng.below(KEYS + 2)));
            let op = rng.below(8);
            let create = rng.below(2) == 0;
            let v = format!("one-shot-{seed}-{trial}").into_bytes();
            let (da, db_) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            let a = copy_db(&path, da.path());
            let b = copy_db(&path, db_.path());
            let got_a = builder(&a, s.sealed)
                .write_keys(space, create, &[&k1, &k2], |w| call(w, op, &k1, &k2, &v))
                .map_err(|e| e.to_string());
            let got_b = {
                let h = builder(&b, s.sealed)
                    .checkpoint_on_close(false)
                    .build()
                    .unwrap();
                let r = KeysWriter::new(&h, space, create, &[&k1, &k2])
                    .and_then(|w| w.map(|w| call(&w, op, &k1, &k2, &v)).transpose())
                    .map_err(|e| e.to_string());
                h.close().unwrap();
                r
            };
            let ctx = format!(
                "{s:?} seed {seed} trial {trial}: space {space:?} create {create} op {op} keys {:?} {:?}",
                String::from_utf8_lossy(&k1),
                String::from_utf8_lossy(&k2)
            );
            assert_eq!(got_a, got_b, "returned values differ: {ctx}");
            let (sa, sb) = (state(&a, s.sealed), state(&b, s.sealed));
            assert_eq!(sa.0, sb.0, "namespaces differ: {ctx}");
            assert!(sa.1 == sb.1, "pairs differ: {ctx}");
            assert_eq!(sa.2, sb.2, "lens differ: {ctx}");
            // Reopened as a full writer: no corruption.
            builder(&a, s.sealed).build().unwrap().close().unwrap();
        }
    }
}

#[test]
fn plain_no_tail_index() {
    differential(
        Shape {
            sealed: false,
            tail_index: false,
            checkpoint: 0,
            torn: false,
        },
        1..5,
    );
}

#[test]
fn plain_tail_index() {
    differential(
        Shape {
            sealed: false,
            tail_index: true,
            checkpoint: 0,
            torn: false,
        },
        1..5,
    );
}

#[test]
fn plain_tail_index_torn() {
    differential(
        Shape {
            sealed: false,
            tail_index: true,
            checkpoint: 0,
            torn: true,
        },
        1..4,
    );
}

#[test]
fn plain_missing_checkpoint_torn() {
    differential(
        Shape {
            sealed: false,
            tail_index: false,
            checkpoint: 1,
            torn: true,
        },
        1..3,
    );
}

#[test]
fn plain_damaged_checkpoint() {
    differential(
        Shape {
            sealed: false,
            tail_index: true,
            checkpoint: 2,
            torn: false,
        },
        1..3,
    );
}

#[test]
fn sealed_tail_index() {
    differential(
        Shape {
            sealed: true,
            tail_index: true,
            checkpoint: 0,
            torn: false,
        },
        1..4,
    );
}

#[test]
fn sealed_tail_index_torn() {
    differential(
        Shape {
            sealed: true,
            tail_index: true,
            checkpoint: 0,
            torn: true,
        },
        1..3,
    );
}

/// A log a full writer refuses (a put naming a namespace dropped before
/// it, past the checkpoint) is refused by `write_keys` for another key
/// too: a record left out of its index is still checked as applying it
/// would check it.
#[test]
fn a_one_shot_write_refuses_a_record_of_a_dropped_namespace() {
    use std::os::unix::fs::FileExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.emdb");
    let frame = {
        let db = Emdb::open(&path).unwrap();
        let a = db.namespace("a").unwrap();
        let (before, after) = appended(&db, |_| a.insert("x", "1").unwrap());
        db.checkpoint().unwrap();
        let (_, end) = appended(&db, |db| {
            db.drop_namespace("a").unwrap();
        });
        db.close().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        (bytes[before as usize..after as usize].to_vec(), end)
    };
    // The put of "x" in the dropped namespace, again, after the drop.
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all_at(&frame.0, frame.1).unwrap();
    drop(f);
    refused_by_both(&path, false);
}

/// The same with a plaintext record spliced into an encrypted log.
#[test]
fn a_one_shot_write_refuses_a_plaintext_record_in_an_encrypted_log() {
    use std::os::unix::fs::FileExt;
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.emdb");
    let frame = {
        let db = Emdb::open(&plain).unwrap();
        let (before, after) = appended(&db, |db| db.insert("x", "1").unwrap());
        db.close().unwrap();
        std::fs::read(&plain).unwrap()[before as usize..after as usize].to_vec()
    };
    let path = dir.path().join("sealed.emdb");
    let end = {
        let db = builder(&path, true).build().unwrap();
        db.insert("k", "v").unwrap();
        db.checkpoint().unwrap();
        let (_, end) = appended(&db, |db| db.insert("k2", "v2").unwrap());
        drop(db);
        end
    };
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all_at(&frame, end).unwrap();
    drop(f);
    refused_by_both(&path, true);
}

/// Damage in the log a tail index covers: a full writer's open refuses it,
/// and so does `write_keys`, which reads the whole tail (a one-shot read
/// starts past the tail index).
#[test]
fn a_one_shot_write_checks_the_log_a_tail_index_covers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.emdb");
    {
        let db = Emdb::open(&path).unwrap();
        for i in 0..200 {
            db.insert(key(i), "base").unwrap();
        }
        db.checkpoint().unwrap();
        db.close().unwrap();
    }
    let db = Emdb::builder()
        .path(&path)
        .checkpoint_tail(Some(64 << 10))
        .checkpoint_on_close(false)
        .build()
        .unwrap();
    for i in 0..400 {
        db.insert(key(i % 200), format!("TAILINDEXED{i:04}{}", "y".repeat(40)))
            .unwrap();
    }
    db.flush().unwrap();
    tail_index_written(&path, Duration::from_secs(10));
    drop(db);
    assert!(sibling(&path, ".tail").exists());
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes
        .windows(15)
        .position(|w| w == b"TAILINDEXED0003")
        .unwrap();
    bytes[at + 12] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    refused_by_both(&path, false);
}
