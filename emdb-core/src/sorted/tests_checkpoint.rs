//! Plain checkpoints that start from the last checkpoint's order
//! (`sort_from`), checked against a model and read back by read-only opens.
#![allow(clippy::unwrap_used)]
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::tests::Rng;
use crate::{Emdb, ManualClock, Ttl};

const SPACES: [Option<&str>; 3] = [None, Some("a"), Some("b")];
/// Key -> (value, expires_at ms; 0 = never), per space.
type Model = BTreeMap<Option<&'static str>, BTreeMap<Vec<u8>, (Vec<u8>, u64)>>;

fn key(r: &mut Rng) -> Vec<u8> {
    let n = r.below(4000);
    match r.below(4) {
        0 | 1 => format!("k{n:05}").into_bytes(),
        2 => format!("user:{:03}:{}", n % 97, n).into_bytes(),
        _ => vec![b'z'; (n % 9) as usize],
    }
}

fn space(db: &Emdb, s: Option<&str>) -> crate::Namespace {
    s.map_or_else(|| db.default_namespace(), |n| db.namespace(n).unwrap())
}

fn want(model: &Model, s: Option<&'static str>, now: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    model
        .get(&s)
        .map(|m| {
            m.iter()
                .filter(|(_, (_, at))| !crate::engine::expired(*at, now))
                .map(|(k, (v, _))| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn got(db: &Emdb, s: Option<&str>) -> Vec<(Vec<u8>, Vec<u8>)> {
    let ns = match s {
        None => Some(db.default_namespace()),
        Some(n) => db.namespace_if_exists(n).unwrap(),
    };
    ns.map(|ns| ns.range_iter(..).unwrap().map(|p| p.unwrap()).collect())
        .unwrap_or_default()
}

fn check(db: &Emdb, model: &Model, now: u64, what: &str) {
    for s in SPACES {
        let (g, w) = (got(db, s), want(model, s, now));
        if g != w {
            let first = g.iter().zip(&w).position(|(a, b)| a != b);
            panic!(
                "{what}: space {s:?}: {} pairs read, {} in the model; first difference at {first:?}",
                g.len(),
                w.len()
            );
        }
    }
}

/// A read-only open's ordered reads (from the mapped sorted block the
/// last checkpoint wrote, and the tail replayed past it).
fn check_read_only(path: &Path, clock: &Arc<ManualClock>, model: &Model, now: u64, what: &str) {
    let ro = Emdb::builder()
        .path(path)
        .clock(clock.clone())
        .read_only(true)
        .build()
        .unwrap();
    check(&ro, model, now, what);
}

/// One random plain workload; returns the checkpoints that started
/// from the last one's order.
pub(super) fn run(seed: u64, steps: usize, background: bool) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.emdb");
    let start = 1_700_000_000_000u64;
    let clock = Arc::new(ManualClock::new(start));
    let mut now = start;
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let open = |r: &mut Rng| {
        let mut b = Emdb::builder()
            .path(&path)
            .clock(clock.clone())
            .background(background)
            .checkpoint_on_close(r.below(3) != 0);
        if background {
            b = b.checkpoint_tail(Some(4096 + r.below(64 << 10)));
        }
        b.build().unwrap()
    };
    let before = crate::checkpoint::FROM_PREV.with(|c| c.get());
    let mut model: Model = SPACES.iter().map(|s| (*s, BTreeMap::new())).collect();
    let mut db = open(&mut r);
    // A base several thousand keys long in each space, so that a few
    // hundred writes since are placed into it rather than sorted.
    for (i, s) in SPACES.into_iter().enumerate() {
        let items: Vec<(Vec<u8>, Vec<u8>)> = (0..3000u32)
            .map(|j| {
                (
                    format!("k{:05}", (j * 7919 + i as u32) % 4000).into_bytes(),
                    j.to_le_bytes().to_vec(),
                )
            })
            .collect();
        space(&db, s).insert_many(items.clone()).unwrap();
        let m = model.entry(s).or_default();
        for (k, v) in items {
            m.insert(k, (v, 0));
        }
    }
    db.checkpoint().unwrap();
    for step in 0..steps {
        let s = SPACES[r.below(3) as usize];
        let what = format!("seed {seed} step {step}");
        match r.below(100) {
            0..=44 => {
                let (k, v) = (key(&mut r), r.next().to_le_bytes().to_vec());
                space(&db, s).insert(&k, &v).unwrap();
                model.entry(s).or_default().insert(k, (v, 0));
            }
            45..=52 => {
                let (k, v) = (key(&mut r), r.next().to_le_bytes().to_vec());
                let ttl = 1 + r.below(5000);
                space(&db, s)
                    .insert_with_ttl(&k, &v, Ttl::After(Duration::from_millis(ttl)))
                    .unwrap();
                model.entry(s).or_default().insert(k, (v, now + ttl));
            }
            53..=64 => {
                let k = key(&mut r);
                space(&db, s).remove(&k).unwrap();
                model.entry(s).or_default().remove(&k);
            }
            65..=67 => {
                let by = r.below(3000);
                clock.advance(Duration::from_millis(by));
                now += by;
            }
            68..=70 => check(&db, &model, now, &format!("{what}: writer")),
            71..=77 => {
                db.checkpoint().unwrap();
                check_read_only(
                    &path,
                    &clock,
                    &model,
                    now,
                    &format!("{what}: after a checkpoint"),
                );
            }
            78..=80 => {
                db.close().unwrap();
                check_read_only(
                    &path,
                    &clock,
                    &model,
                    now,
                    &format!("{what}: after a close"),
                );
                db = open(&mut r);
            }
            81 => {
                space(&db, s).clear().unwrap();
                model.entry(s).or_default().clear();
            }
            82 => {
                if let Some(name) = s {
                    db.drop_namespace(name).unwrap();
                    model.entry(s).or_default().clear();
                }
            }
            83 if r.below(4) == 0 => {
                db.compact().unwrap();
                // Compaction leaves expired records behind.
                for m in model.values_mut() {
                    m.retain(|_, (_, at)| !crate::engine::expired(*at, now));
                }
            }
            84..=87 => {
                // One-shot writes, large enough that their checkpoint
                // comes due (`write_keys`'s `checkpoint_before_close`).
                db.close().unwrap();
                for _ in 0..1 + r.below(3) {
                    let k = key(&mut r);
                    let v = vec![r.below(256) as u8; 4096 + r.below(20_000) as usize];
                    let mut b = Emdb::builder().path(&path).clock(clock.clone());
                    if background {
                        b = b.background(true);
                    }
                    b.write_keys(s, true, &[&k], |w| w.insert(&k, &v, Ttl::Never))
                        .unwrap();
                    model.entry(s).or_default().insert(k, (v, 0));
                }
                check_read_only(
                    &path,
                    &clock,
                    &model,
                    now,
                    &format!("{what}: after one-shot writes"),
                );
                db = open(&mut r);
            }
            88..=89 => {
                let items: Vec<(Vec<u8>, Vec<u8>)> = (0..r.below(400))
                    .map(|i| (key(&mut r), (i as u32).to_le_bytes().to_vec()))
                    .collect();
                space(&db, s).insert_many(items.clone()).unwrap();
                let m = model.entry(s).or_default();
                for (k, v) in items {
                    m.insert(k, (v, 0));
                }
            }
            90 => {
                let _ = space(&db, s).sweep_expired().unwrap();
            }
            _ => {
                let (k, v) = (key(&mut r), r.next().to_le_bytes().to_vec());
                space(&db, s).insert(&k, &v).unwrap();
                model.entry(s).or_default().insert(k, (v, 0));
            }
        }
    }
    db.checkpoint().unwrap();
    check_read_only(
        &path,
        &clock,
        &model,
        now,
        &format!("seed {seed}: at the end"),
    );
    check(&db, &model, now, &format!("seed {seed}: writer at the end"));
    drop(db);
    crate::checkpoint::FROM_PREV.with(|c| c.get()) - before
}

#[test]
fn plain_checkpoints_from_the_last_order_agree_with_a_btreemap() {
    let mut used = 0;
    for seed in 1..=3 {
        used += run(seed, 300, false);
    }
    assert!(
        used > 10,
        "only {used} checkpoints started from the last order"
    );
}

/// Every sorted block of the checkpoint next to `path`, read raw from
/// the file, against a sort of the offsets its own slots hold (so a
/// stale, missing, extra or misplaced entry is caught, which a range
/// read might hide). Returns the blocks checked.
fn verify_blocks(path: &Path, what: &str) -> usize {
    let ckpt = crate::fs::sibling(path, ".ckpt");
    let metas = match crate::checkpoint::open(&ckpt, crate::index::SHARDS, None) {
        Ok(Some(crate::checkpoint::Loaded::V2 { metas, .. })) => metas,
        _ => panic!("{what}: no version-2 checkpoint"),
    };
    let file = std::fs::read(&ckpt).unwrap();
    let log = std::fs::read(path).unwrap();
    let src = super::KeySource {
        bytes: &log,
        crypt: None,
    };
    let u64s = |at: u64, n: u64| -> Vec<u64> {
        file[at as usize..(at + n * 8) as usize]
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
            .collect()
    };
    let mut checked = 0;
    for m in &metas {
        let Some(p) = m.sorted else { continue };
        let block = u64s(p.at, p.len);
        let live: Vec<u64> = m
            .shards
            .iter()
            .filter(|s| s.cap > 0)
            .flat_map(|s| u64s(s.at, u64::from(s.cap)))
            .filter(|&e| e != 0)
            .map(crate::index::table::entry_offset)
            .collect();
        let want = super::sort_offsets(src, live).unwrap();
        if block != want {
            let first = block.iter().zip(&want).position(|(a, b)| a != b);
            panic!(
                "{what}: namespace {}: a block of {} offsets, {} live; first difference at {first:?}",
                m.id,
                block.len(),
                want.len()
            );
        }
        checked += 1;
    }
    checked
}

/// One random run of closes whose checkpoint is due (a handle's, a
/// clone's after another clone closed, one-shot writes'), with
/// overwrites, put-then-remove and remove-then-put of one key, TTLs,
/// sweeps, clears, drops, batches, mid-session checkpoints, folds and
/// compactions; every checkpoint's blocks checked raw and by reads.
/// Returns the patches written.
fn closes_with_patches(seed: u64, rounds: usize) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.emdb");
    let start = 1_700_000_000_000u64;
    let clock = Arc::new(ManualClock::new(start));
    let mut now = start;
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let open = || {
        Emdb::builder()
            .path(&path)
            .clock(clock.clone())
            .background(false)
            .build()
            .unwrap()
    };
    // Keys of a wider space than `key`'s, so that orders stay long.
    let key = |r: &mut Rng| -> Vec<u8> {
        let n = r.below(60_000);
        match r.below(8) {
            0..=4 => format!("k{n:06}").into_bytes(),
            5 | 6 => format!("user:{:03}:{}", n % 97, n).into_bytes(),
            _ => vec![b'z'; (n % 9) as usize],
        }
    };
    let patched = || crate::checkpoint::PATCHED.with(|c| c.get());
    let before = patched();
    let mut model: Model = SPACES.iter().map(|s| (*s, BTreeMap::new())).collect();
    {
        let db = open();
        for s in SPACES {
            let n = 3000 + r.below(12_000);
            let items: Vec<(Vec<u8>, Vec<u8>)> =
                (0..n).map(|_| (key(&mut r), b"first".to_vec())).collect();
            space(&db, s).insert_many(items.clone()).unwrap();
            model
                .entry(s)
                .or_default()
                .extend(items.into_iter().map(|(k, v)| (k, (v, 0))));
        }
        db.checkpoint().unwrap();
        db.close().unwrap();
    }
    // A key of space `s`: mostly one it holds.
    let pick = |r: &mut Rng, model: &Model, s: Option<&'static str>| -> Vec<u8> {
        let m = model.get(&s).unwrap();
        if m.is_empty() || r.below(3) == 0 {
            return key(r);
        }
        m.keys()
            .nth(r.below(m.len() as u64) as usize)
            .unwrap()
            .clone()
    };
    for round in 0..rounds {
        let what = format!("seed {seed} round {round}");
        if r.below(5) == 0 {
            // One-shot writes whose checkpoint comes due.
            for _ in 0..1 + r.below(3) {
                let s = SPACES[r.below(3) as usize];
                let k = pick(&mut r, &model, s);
                let del = r.below(3) == 0;
                let v = vec![r.below(256) as u8; 20_000 + r.below(20_000) as usize];
                Emdb::builder()
                    .path(&path)
                    .clock(clock.clone())
                    .write_keys(s, true, &[&k], |w| match del {
                        true => w.remove(&k).map(|_| ()),
                        false => w.insert(&k, &v, Ttl::Never),
                    })
                    .unwrap();
                let m = model.entry(s).or_default();
                match del {
                    true => m.remove(&k),
                    false => m.insert(k, (v, 0)),
                };
            }
        } else {
            let db = open();
            let mut clone = None;
            let ops = 40 + r.below(160);
            for op in 0..ops {
                let s = SPACES[r.below(3) as usize];
                let big = 500 + r.below(1500) as usize;
                let v = vec![r.below(256) as u8; big];
                let ks = space(&db, s);
                match r.below(100) {
                    0..=34 => {
                        let k = pick(&mut r, &model, s);
                        ks.insert(&k, &v).unwrap();
                        model.entry(s).or_default().insert(k, (v, 0));
                    }
                    35..=42 => {
                        let k = pick(&mut r, &model, s);
                        let ttl = 1 + r.below(5000);
                        ks.insert_with_ttl(&k, &v, Ttl::After(Duration::from_millis(ttl)))
                            .unwrap();
                        model.entry(s).or_default().insert(k, (v, now + ttl));
                    }
                    43..=57 => {
                        let k = pick(&mut r, &model, s);
                        ks.remove(&k).unwrap();
                        model.entry(s).or_default().remove(&k);
                    }
                    58..=63 => {
                        // Put then remove, or remove then put, of one key.
                        let k = pick(&mut r, &model, s);
                        let m = model.entry(s).or_default();
                        if r.below(2) == 0 {
                            ks.insert(&k, &v).unwrap();
                            ks.remove(&k).unwrap();
                            m.remove(&k);
                        } else {
                            ks.remove(&k).unwrap();
                            ks.insert(&k, &v).unwrap();
                            m.insert(k, (v, 0));
                        }
                    }
                    64..=67 => {
                        // Several writes of one key.
                        let k = pick(&mut r, &model, s);
                        for i in 0..2 + r.below(4) {
                            let v = vec![i as u8; 100];
                            ks.insert(&k, &v).unwrap();
                            model.entry(s).or_default().insert(k.clone(), (v, 0));
                        }
                    }
                    68..=71 => {
                        let by = r.below(3000);
                        clock.advance(Duration::from_millis(by));
                        now += by;
                    }
                    72..=73 => {
                        let _ = ks.sweep_expired().unwrap();
                    }
                    74..=77 => {
                        let items: Vec<(Vec<u8>, Vec<u8>)> = (0..r.below(200))
                            .map(|i| (pick(&mut r, &model, s), (i as u32).to_le_bytes().to_vec()))
                            .collect();
                        ks.insert_many(items.clone()).unwrap();
                        let m = model.entry(s).or_default();
                        for (k, v) in items {
                            m.insert(k, (v, 0));
                        }
                    }
                    78..=79 => check(&db, &model, now, &format!("{what} op {op}: writer")),
                    80 => {
                        db.checkpoint().unwrap();
                        verify_blocks(&path, &format!("{what} op {op}: a checkpoint"));
                    }
                    81 if r.below(12) == 0 => {
                        ks.clear().unwrap();
                        model.entry(s).or_default().clear();
                    }
                    82 if r.below(12) == 0 => {
                        if let Some(name) = s {
                            db.drop_namespace(name).unwrap();
                            model.entry(s).or_default().clear();
                        }
                    }
                    83 if r.below(8) == 0 => {
                        db.compact().unwrap();
                        for m in model.values_mut() {
                            m.retain(|_, (_, at)| !crate::engine::expired(*at, now));
                        }
                    }
                    84 if clone.is_none() && r.below(2) == 0 => {
                        clone = Some(db.clone());
                    }
                    _ => {
                        let k = key(&mut r);
                        ks.insert(&k, &v).unwrap();
                        model.entry(s).or_default().insert(k, (v, 0));
                    }
                }
            }
            db.close().unwrap();
            if let Some(db) = clone {
                // This clone's close comes after another's wrote a
                // checkpoint: its last order is an older one.
                verify_blocks(&path, &format!("{what}: first clone closed"));
                for _ in 0..40 + r.below(100) {
                    let s = SPACES[r.below(3) as usize];
                    let k = pick(&mut r, &model, s);
                    let v = vec![r.below(256) as u8; 500 + r.below(1500) as usize];
                    if r.below(4) == 0 {
                        space(&db, s).remove(&k).unwrap();
                        model.entry(s).or_default().remove(&k);
                    } else {
                        space(&db, s).insert(&k, &v).unwrap();
                        model.entry(s).or_default().insert(k, (v, 0));
                    }
                }
                db.close().unwrap();
            }
        }
        verify_blocks(&path, &format!("{what}: closed"));
        check_read_only(&path, &clock, &model, now, &format!("{what}: read-only"));
        if r.below(4) == 0 {
            let db = open();
            check(&db, &model, now, &format!("{what}: writer"));
            db.close().unwrap();
        }
    }
    patched() - before
}

#[test]
fn closes_with_patches_agree_with_a_btreemap_and_a_full_sort() {
    let mut patches = 0;
    for seed in 1..=2 {
        patches += closes_with_patches(seed, 20);
    }
    assert!(patches > 20, "only {patches} patches");
}

#[test]
#[ignore = "long: EMDB_SEEDS=a..b"]
fn closes_with_patches_many_seeds() {
    let spec = std::env::var("EMDB_SEEDS").unwrap_or_else(|_| "1..50".into());
    let (a, b) = spec.split_once("..").unwrap();
    let (a, b): (u64, u64) = (a.parse().unwrap(), b.parse().unwrap());
    let rounds = std::env::var("EMDB_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let mut patches = 0;
    for seed in a..b {
        patches += closes_with_patches(seed, rounds);
    }
    eprintln!("{patches} patches over seeds {a}..{b}");
}

/// An encrypted database's checkpoints at close patch its last order
/// too, and seal the block a chunk at a time: after overwrites, new
/// keys, removes and one-shot writes in every space, a read-only
/// open's ordered reads (the sealed block, mapped) agree with a
/// `BTreeMap`, and so do the writer's.
#[cfg(feature = "encrypt")]
#[test]
fn encrypted_checkpoints_at_close_patch_the_last_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.emdb");
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let now = 1_700_000_000_000u64;
    let builder = || {
        Emdb::builder()
            .path(&path)
            .clock(clock.clone())
            .encryption_key([7; 32])
    };
    let open = || builder().background(false).build().unwrap();
    let mut r = Rng(0xe7c_0001);
    let mut model: Model = SPACES.iter().map(|s| (*s, BTreeMap::new())).collect();
    {
        let db = open();
        for s in SPACES {
            // Over a chunk of 508 offsets, and not a whole number of them.
            let items: Vec<(Vec<u8>, Vec<u8>)> = (0..2500 + r.below(2000))
                .map(|_| (key(&mut r), b"first".to_vec()))
                .collect();
            space(&db, s).insert_many(items.clone()).unwrap();
            let m = model.entry(s).or_default();
            m.extend(items.into_iter().map(|(k, v)| (k, (v, 0))));
        }
        db.checkpoint().unwrap();
        db.close().unwrap();
    }
    let patched = || crate::checkpoint::PATCHED.with(|c| c.get());
    let before = patched();
    let check_all = |model: &Model, what: &str| {
        let ro = builder().read_only(true).build().unwrap();
        assert!(ro.recovery_report().used_checkpoint, "{what}");
        check(&ro, model, now, &format!("{what}: read-only"));
        drop(ro);
        let db = open();
        check(&db, model, now, &format!("{what}: writer"));
        db.close().unwrap();
    };
    for round in 0..8 {
        if round % 3 == 2 {
            for _ in 0..3 {
                let (s, k) = (SPACES[r.below(3) as usize], key(&mut r));
                let v = vec![r.below(256) as u8; 30_000];
                builder()
                    .write_keys(s, true, &[&k], |w| w.insert(&k, &v, Ttl::Never))
                    .unwrap();
                model.entry(s).or_default().insert(k, (v, 0));
            }
        } else {
            let db = open();
            for _ in 0..80 {
                let (s, k) = (SPACES[r.below(3) as usize], key(&mut r));
                let m = model.entry(s).or_default();
                if r.below(4) == 0 {
                    space(&db, s).remove(&k).unwrap();
                    m.remove(&k);
                } else {
                    let v = vec![r.below(256) as u8; 1000 + r.below(1000) as usize];
                    space(&db, s).insert(&k, &v).unwrap();
                    m.insert(k, (v, 0));
                }
            }
            db.close().unwrap();
        }
        check_all(&model, &format!("round {round}"));
    }
    let patches = patched() - before;
    assert!(patches >= 8, "only {patches} patches");
}

/// A plain writer whose mapped order (the block its open mapped) has a
/// page that fails its CRC: its next checkpoint sorts all instead of
/// failing or writing a wrong block.
#[test]
fn a_damaged_mapped_order_makes_a_plain_checkpoint_sort_all() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.emdb");
    let n = 5000u32;
    let key = |i: u32| format!("k{i:05}").into_bytes();
    let open = || {
        Emdb::builder()
            .path(&path)
            .background(false)
            .build()
            .unwrap()
    };
    {
        let db = open();
        db.insert_many((0..n).map(|i| (key(i * 7919 % n), b"v".to_vec())))
            .unwrap();
        db.checkpoint().unwrap();
        db.close().unwrap();
    }
    let ckpt = crate::fs::sibling(&path, ".ckpt");
    let place = match crate::checkpoint::open(&ckpt, crate::index::SHARDS, None) {
        Ok(Some(crate::checkpoint::Loaded::V2 { metas, .. })) => metas
            .iter()
            .find(|m| m.id == 0)
            .and_then(|m| m.sorted)
            .unwrap(),
        _ => panic!("no version-2 checkpoint"),
    };
    let mut bytes = std::fs::read(&ckpt).unwrap();
    let at = (place.at + place.len * 8 / 2) as usize;
    bytes[at] ^= 0x40;
    std::fs::write(&ckpt, bytes).unwrap();
    let db = open();
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = (0..n).map(|i| (key(i), b"v".to_vec())).collect();
    for i in 0..40u32 {
        db.insert(key(i * 3), b"new").unwrap();
        model.insert(key(i * 3), b"new".to_vec());
    }
    let before = crate::checkpoint::FROM_PREV.with(|c| c.get());
    db.checkpoint().unwrap();
    assert_eq!(
        crate::checkpoint::FROM_PREV.with(|c| c.get()),
        before,
        "sorted all"
    );
    let want: Vec<(Vec<u8>, Vec<u8>)> = model.into_iter().collect();
    assert!(db.range(..).unwrap() == want, "the writer's order");
    drop(db);
    let ro = Emdb::builder().path(&path).read_only(true).build().unwrap();
    assert!(ro.recovery_report().used_checkpoint);
    let got: Vec<(Vec<u8>, Vec<u8>)> = ro.range_iter(..).unwrap().map(|p| p.unwrap()).collect();
    assert!(got == want, "the checkpoint's order");
}

#[test]
#[ignore = "long: EMDB_SEEDS=a..b"]
fn plain_checkpoints_from_the_last_order_many_seeds() {
    let spec = std::env::var("EMDB_SEEDS").unwrap_or_else(|_| "1..200".into());
    let (a, b) = spec.split_once("..").unwrap();
    let (a, b): (u64, u64) = (a.parse().unwrap(), b.parse().unwrap());
    let steps = std::env::var("EMDB_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400);
    let bg = std::env::var("EMDB_BG").is_ok();
    let mut used = 0;
    for seed in a..b {
        used += run(seed, steps, bg);
    }
    eprintln!("seeds {a}..{b}: {used} checkpoints from the last order");
}
