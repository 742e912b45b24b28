//! Unit tests of the sorted order: each part against a plain model (a
//! partition, a naive sort, the order's own slow way) and whole databases
//! against a `BTreeMap`, through folds, drops, rebuilds, checkpoints and
//! compactions.

use std::collections::BTreeMap;

use std::ops::Bound;

use super::sort::{parallel_parts, sort_u64};
use super::{gather_sorted, lower_bound, sort_base, sort_offsets, Fences, KeySource, HEADER_SIZE};
use crate::Emdb;

/// A small deterministic generator (xorshift64*).
pub(super) struct Rng(pub(super) u64);
impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `lower_bound` over sorted `keys` for `start`, checked against a
/// plain partition, from random sub-ranges that hold the answer;
/// returns the most keys one search read.
fn searches(keys: &[Vec<u8>], starts: &[Bound<Vec<u8>>], r: &mut Rng) -> usize {
    let mut most = 0;
    for start in starts {
        let before = |k: &Vec<u8>| match start {
            Bound::Included(s) => k < s,
            Bound::Excluded(s) => k <= s,
            Bound::Unbounded => false,
        };
        let want = keys.partition_point(before);
        // Any range the answer is in, as fences would give.
        let lo = if r.below(2) == 0 {
            0
        } else {
            r.below(want as u64 + 1) as usize
        };
        let hi = if r.below(2) == 0 {
            keys.len()
        } else {
            want + r.below((keys.len() - want) as u64 + 1) as usize
        };
        let mut reads = 0;
        let got = lower_bound(lo, hi, start.as_ref().map(Vec::as_slice), |i, k| {
            assert!((lo..hi).contains(&i), "read {i} outside {lo}..{hi}");
            reads += 1;
            k.clear();
            k.extend_from_slice(&keys[i]);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, want, "start {start:?} in {lo}..{hi}");
        most = most.max(reads);
    }
    most
}

fn random_starts(keys: &[Vec<u8>], r: &mut Rng, n: usize) -> Vec<Bound<Vec<u8>>> {
    (0..n)
        .map(|i| {
            let mut s = keys[r.below(keys.len() as u64) as usize].clone();
            match i % 4 {
                0 => {}
                1 => s.push(r.below(256) as u8),
                2 => {
                    s.pop();
                }
                _ => {
                    if let Some(b) = s.last_mut() {
                        *b = r.below(256) as u8;
                    }
                }
            }
            match i % 3 {
                0 => Bound::Included(s),
                1 => Bound::Excluded(s),
                _ => Bound::Unbounded,
            }
        })
        .collect()
}

#[test]
fn a_two_level_fence_search_finds_what_one_partition_finds() {
    let mut r = Rng(0x5eed_f00d);
    for len in [1usize, 2, 3, 4, 5, 7, 8, 9, 64, 65, 300] {
        for spread in [3u64, 40, u64::MAX] {
            let mut windows: Vec<u64> = (0..len).map(|_| r.below(spread)).collect();
            windows.sort_unstable();
            for top in [1, 2, 3, 64] {
                let f = Fences::with_top(Vec::new(), windows.clone(), top);
                for probe in [0, 1, 2, spread / 2, spread.saturating_sub(1), u64::MAX]
                    .into_iter()
                    .chain((0..20).map(|_| r.below(spread)))
                {
                    for strict in [false, true] {
                        let pred = |w: u64| if strict { w < probe } else { w <= probe };
                        assert_eq!(
                        f.partition(pred),
                        windows.partition_point(|&w| pred(w)),
                        "len {len}, top {top}, windows {windows:?}, probe {probe}, strict {strict}"
                    );
                    }
                    // The strict point from the other one, by a walk
                    // back over equal windows (or a search past 8).
                    assert_eq!(
                        f.below(f.partition(|w| w <= probe), probe),
                        windows.partition_point(|&w| w < probe),
                        "below: len {len}, top {top}, windows {windows:?}, probe {probe}"
                    );
                }
            }
        }
    }
}

#[test]
fn interpolating_search_finds_what_a_partition_finds() {
    let mut r = Rng(0x5eed);
    let log2 = |n: usize| usize::BITS as usize - n.leading_zeros() as usize;
    // Evenly spread keys (the CLI's `user:%08d`): a handful of reads.
    let even: Vec<Vec<u8>> = (0..1_000_000u32)
        .map(|i| format!("user:{i:08}").into_bytes())
        .collect();
    let starts = random_starts(&even, &mut r, 3000);
    let most = searches(&even, &starts, &mut r);
    assert!(
        most <= 8,
        "evenly spread keys: {most} reads (binary search: 20)"
    );
    // Unevenly spread keys: cubes, random bytes, and long shared
    // prefixes the 8-byte windows cannot tell apart.
    let mut cubes: Vec<Vec<u8>> = (0..200_000u64)
        .map(|i| format!("{:020}", i * i * i).into_bytes())
        .collect();
    cubes.sort();
    let mut random: Vec<Vec<u8>> = (0..200_000)
        .map(|_| (0..1 + r.below(12)).map(|_| r.below(256) as u8).collect())
        .collect();
    random.sort();
    random.dedup();
    let mut long: Vec<Vec<u8>> = (0..100_000u32)
        .map(|i| {
            let mut k = b"tenant/0042/".to_vec();
            k.extend_from_slice(&[b'x'; 9]);
            k.extend_from_slice(format!("{:06}", i * 7).as_bytes());
            k
        })
        .collect();
    long.sort();
    let mut mixed: Vec<Vec<u8>> = (0..50_000u32)
        .map(|i| match i % 3 {
            0 => format!("a{i}").into_bytes(),
            1 => vec![b'a'; (i % 40) as usize],
            _ => format!("zz{:x}", u64::from(i).pow(3)).into_bytes(),
        })
        .collect();
    mixed.sort();
    mixed.dedup();
    for keys in [&cubes, &random, &long, &mixed] {
        let starts = random_starts(keys, &mut r, 2000);
        let most = searches(keys, &starts, &mut r);
        // A binary search reads about log2(n).
        let bound = log2(keys.len()) + 8;
        assert!(most <= bound, "{most} reads over {} keys", keys.len());
    }
    // Small and empty ranges.
    for n in 0..70usize {
        let keys: Vec<Vec<u8>> = (0..n).map(|i| vec![b'k', i as u8 * 3]).collect();
        let starts: Vec<_> = (0..4u8)
            .flat_map(|b| {
                [
                    Bound::Included(vec![b'k', b * 50]),
                    Bound::Excluded(vec![b'k', b * 50]),
                ]
            })
            .collect();
        if n > 0 {
            searches(&keys, &starts, &mut r);
        }
        assert_eq!(
            lower_bound(0, n, Bound::Unbounded, |_, _| unreachable!()).unwrap(),
            0
        );
    }
}

fn key(r: &mut Rng) -> Vec<u8> {
    // Shared prefixes of several lengths, so windows tie and differ.
    let n = r.below(300);
    match r.below(3) {
        0 => format!("user:{n:05}").into_bytes(),
        1 => format!("u{n}").into_bytes(),
        _ => vec![b'k'; (n % 12) as usize],
    }
}

fn check(db: &Emdb, model: &BTreeMap<Vec<u8>, Vec<u8>>, r: &mut Rng, step: usize) {
    let all = db.range(..).unwrap();
    let want: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert!(
        all == want,
        "step {step}: full range differs ({} vs {})",
        all.len(),
        want.len()
    );
    let a = key(r);
    let got: Vec<Vec<u8>> = db.iter_from(&a).unwrap().map(|x| x.unwrap().0).collect();
    let want: Vec<Vec<u8>> = model.range(a.clone()..).map(|(k, _)| k.clone()).collect();
    assert_eq!(got, want, "step {step}: iter_from");
    let p = &a[..a.len().min(4)];
    let got: Vec<Vec<u8>> = db
        .range_prefix(p)
        .unwrap()
        .into_iter()
        .map(|x| x.0)
        .collect();
    let want: Vec<Vec<u8>> = model.keys().filter(|k| k.starts_with(p)).cloned().collect();
    assert_eq!(got, want, "step {step}: prefix");
    // From a key that exists, included and excluded: the seek's
    // comparisons at equality.
    if !model.is_empty() {
        let i = r.below(model.len() as u64) as usize;
        let Some(k) = model.keys().nth(i) else { return };
        let keys = |it: crate::RangeIter| -> Vec<Vec<u8>> { it.map(|x| x.unwrap().0).collect() };
        let want: Vec<Vec<u8>> = model.range(k.clone()..).map(|(k, _)| k.clone()).collect();
        assert_eq!(
            keys(db.iter_from(k).unwrap()),
            want,
            "step {step}: iter_from existing"
        );
        assert_eq!(
            keys(db.iter_after(k).unwrap()),
            want[1..],
            "step {step}: iter_after existing"
        );
    }
}

fn run(path: Option<&std::path::Path>, seed: u64) {
    run_with(path, seed, None, 0);
}

/// [`run`] with an encryption key, after loading `preload` keys of
/// their own (so the few written between two checkpoints are placed
/// into the last checkpoint's order instead of sorted with all).
fn run_with(path: Option<&std::path::Path>, seed: u64, secret: Option<[u8; 32]>, preload: u32) {
    let open = || {
        let mut b = Emdb::builder();
        if let Some(p) = path {
            b = b.path(p);
        }
        if let Some(k) = secret {
            b = b.encryption_key(k);
        }
        b.build().unwrap()
    };
    let mut db = open();
    let mut model = BTreeMap::new();
    let mut r = Rng(seed);
    let pre: Vec<(Vec<u8>, Vec<u8>)> = (0..preload)
        .map(|i| {
            let k = format!("pre:{:06}", (i * 7919) % preload.max(1)).into_bytes();
            (k, i.to_le_bytes().to_vec())
        })
        .collect();
    db.insert_many(pre.clone()).unwrap();
    model.extend(pre);
    for step in 0..1500 {
        match r.below(100) {
            0..=44 => {
                let (k, v) = (key(&mut r), r.next().to_le_bytes().to_vec());
                db.insert(&k, &v).unwrap();
                model.insert(k, v);
            }
            45..=64 => {
                let k = key(&mut r);
                db.remove(&k).unwrap();
                model.remove(&k);
            }
            65..=69 => {
                let items: Vec<_> = (0..r.below(40))
                    .map(|i| (key(&mut r), vec![i as u8]))
                    .collect();
                db.insert_many(items.clone()).unwrap();
                model.extend(items);
            }
            70 => {
                db.clear().unwrap();
                model.clear();
            }
            71..=72 => db.compact().unwrap(),
            73..=74 => db.checkpoint().unwrap(),
            77 => {
                // A long run of writes with no ordered read: the
                // unsorted records outgrow the order, which is dropped.
                for i in 0..700u32 {
                    let k = key(&mut r);
                    db.insert(&k, i.to_le_bytes()).unwrap();
                    model.insert(k, i.to_le_bytes().to_vec());
                }
            }
            75..=76 if path.is_some() => {
                drop(db);
                db = open();
            }
            _ => check(&db, &model, &mut r, step),
        }
    }
    check(&db, &model, &mut r, usize::MAX);
}

/// A plain log (header page of zeros, then one put per key) and the
/// offsets of its frames, in a scrambled order.
fn plain_log(keys: &[&[u8]]) -> (Vec<u8>, Vec<u64>) {
    let mut bytes = vec![0u8; HEADER_SIZE];
    let mut offs = Vec::new();
    for k in keys {
        offs.push(bytes.len() as u64);
        bytes.extend(crate::format::record::FrameSpec::put(0, k, b"v", 0).encode());
    }
    offs.reverse();
    offs.rotate_left(keys.len() / 3);
    (bytes, offs)
}

/// Sort record offsets of `src` by `(key, offset)`, the slow way.
fn by_key_then_offset(src: KeySource<'_>, offs: &mut [u64]) {
    offs.sort_by_key(|&o| {
        let mut k = Vec::new();
        src.read(o, &mut k).unwrap();
        (k, o)
    })
}

#[test]
fn entries_placed_into_an_order_in_place_sit_where_a_merge_puts_them() {
    // Keys repeat (one key's records at several offsets), and the
    // placed entries fall before, between and after the order's.
    let names: Vec<Vec<u8>> = (0..400u32)
        .map(|i| format!("k{:03}", (i * 37) % 150).into_bytes())
        .collect();
    let refs: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
    let (bytes, offs) = plain_log(&refs);
    let src = KeySource {
        bytes: &bytes,
        crypt: None,
    };
    let mut r = Rng(7);
    for round in 0..60 {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let to_b = [0, 1, 3, 50, 100][round % 5];
        for &o in &offs {
            match r.below(100) < to_b {
                true => b.push(o),
                false => a.push(o),
            }
        }
        by_key_then_offset(src, &mut a);
        by_key_then_offset(src, &mut b);
        let want = super::merge(src, &a, &b).unwrap();
        let mut all = offs.clone();
        by_key_then_offset(src, &mut all);
        assert_eq!(want, all, "round {round}: the merge");
        assert_eq!(
            super::sort::place_into(src, a, &b).unwrap(),
            want,
            "round {round}"
        );
    }
}

#[test]
fn gathered_pieces_come_back_as_one_ascending_vector() {
    // Large enough for the threaded path; pieces of different sizes,
    // one empty, with values repeated across pieces.
    let n = 200_000u64;
    let value = |i: u64| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) % 3_000_000;
    let got = gather_sorted(n as usize, |part, parts| {
        assert!(part < parts);
        (0..n)
            .filter(|i| (i % 7) as usize % parts == part && part != 1)
            .map(value)
            .collect()
    });
    let parts = parallel_parts(n as usize);
    let mut want: Vec<u64> = (0..n)
        .filter(|i| (i % 7) as usize % parts != 1 || parts == 1)
        .map(value)
        .collect();
    want.sort_unstable();
    assert_eq!(got, want);
    assert_eq!(gather_sorted(3, |_, _| vec![9, 1, 5]), vec![1, 5, 9]);
}

#[test]
fn sort_offsets_orders_by_key_then_offset_whether_or_not_written_in_order() {
    let cases: [&[&[u8]]; 4] = [
        &[b"a", b"b", b"c", b"d", b"e"],
        &[b"a", b"b", b"b", b"c"],
        &[b"a", b"c", b"b", b"d"],
        &[b"e", b"d", b"c", b"b", b"a"],
    ];
    // Large enough to be checked in parallel parts: in order, out of
    // order inside a part, and out of order where two parts meet.
    let many: Vec<Vec<u8>> = (0..70_000u32)
        .map(|i| format!("k{i:06}").into_bytes())
        .collect();
    let mut inside = many.clone();
    inside.swap(50_000, 50_001);
    let mut across = many.clone();
    across.swap(34_999, 35_000);
    let big: Vec<Vec<&[u8]>> = [&many, &inside, &across]
        .iter()
        .map(|v| v.iter().map(Vec::as_slice).collect())
        .collect();
    for keys in cases.iter().copied().chain(big.iter().map(Vec::as_slice)) {
        let (bytes, offs) = plain_log(keys);
        let src = KeySource {
            bytes: &bytes,
            crypt: None,
        };
        let got = sort_offsets(src, offs.clone()).unwrap();
        let mut want = offs.clone();
        by_key_then_offset(src, &mut want);
        assert_eq!(got, want, "{} keys", keys.len());
        // As a base: the same order, and the fences a build over it
        // reads (from the sort's windows, or read again when in order).
        let base = sort_base(src, offs).unwrap();
        assert_eq!(base.offs, want, "{} keys", keys.len());
        let built = Fences::build(src, want.len(), |i| Ok(want[i])).unwrap();
        assert_eq!(base.fences, Some(built), "{} keys", keys.len());
    }
}

#[test]
fn key_order_sorts_runs_that_share_more_than_the_common_prefix() {
    // Groups sharing 8, 16 and 30 bytes past the common prefix (none),
    // keys that are prefixes of others, zero bytes where a shorter key
    // ends, repeats (ordered by index), runs above and below the size
    // compared directly, in a scrambled order.
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for i in 0..300u32 {
        keys.push(format!("user:{:08}", (i * 7919) % 300).into_bytes());
        keys.push(format!("user:000000{:02}", i % 7).into_bytes());
        keys.push(format!("event:2026-11-28T12:00:{:05}", (i * 31) % 300).into_bytes());
        keys.push(format!("{}{}", "x".repeat(30), i % 40).into_bytes());
    }
    for extra in [
        &b"user:"[..],
        b"user:\0",
        b"user:\0\0\0\0\0\0\0\0\0",
        b"user:0",
        b"",
        b"x",
    ] {
        keys.push(extra.to_vec());
        keys.push(extra.to_vec());
    }
    for i in 0..40u8 {
        let mut k = b"user:00000".to_vec();
        k.extend(std::iter::repeat_n(0u8, usize::from(i % 9)));
        k.push(i);
        keys.push(k);
    }
    let mut r = Rng(17);
    for i in (1..keys.len()).rev() {
        keys.swap(i, r.below(i as u64 + 1) as usize);
    }
    for fenced in [false, true] {
        let (got, fences) = super::sort::key_order(keys.len(), |i| &keys[i][..], fenced).unwrap();
        let mut want: Vec<u32> = (0..keys.len() as u32).collect();
        want.sort_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]).then(a.cmp(&b)));
        assert_eq!(got, want);
        assert_eq!(fences.is_some(), fenced);
    }
    // The same through the log: its fences are those a build reads.
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let (bytes, offs) = plain_log(&refs);
    let src = KeySource {
        bytes: &bytes,
        crypt: None,
    };
    let base = sort_base(src, offs.clone()).unwrap();
    let mut want = offs;
    by_key_then_offset(src, &mut want);
    assert_eq!(base.offs, want);
    let built = Fences::build(src, want.len(), |i| Ok(want[i])).unwrap();
    assert_eq!(base.fences, Some(built));
}

#[test]
fn a_fold_comes_with_fences_that_bound_every_start() {
    use super::{fold, Base, FenceSlot, View};
    use crate::format::record::FrameSpec;
    use std::sync::Arc;
    let mut r = Rng(0xf01d);
    for case in 0..6 {
        // A base of unique keys, then later puts, overwrites and
        // deletes; in odd cases also a key below and one above every
        // other, deleted again, so the streams' ends share a shorter
        // prefix than the fold's keys do, and a live key past the
        // base's, so its keys share less than the base's ends do.
        let mut bytes = vec![0u8; HEADER_SIZE];
        let mut model: BTreeMap<Vec<u8>, Option<u64>> = BTreeMap::new();
        let mut base = Vec::new();
        let mut delta = Vec::new();
        let write = |bytes: &mut Vec<u8>, k: &[u8], put: bool| {
            let off = bytes.len() as u64;
            let spec = match put {
                true => FrameSpec::put(0, k, b"v", 0),
                false => FrameSpec::delete(0, k),
            };
            bytes.extend(spec.encode());
            off
        };
        let key = |r: &mut Rng| format!("user:{:06}", r.below(5000)).into_bytes();
        for _ in 0..200 {
            let k = key(&mut r);
            if let std::collections::btree_map::Entry::Vacant(e) = model.entry(k) {
                let off = write(&mut bytes, e.key(), true);
                e.insert(Some(off));
                base.push(off);
            }
        }
        let mut later: Vec<(Vec<u8>, bool)> = (0..150).map(|i| (key(&mut r), i % 5 != 0)).collect();
        if case % 2 == 1 {
            for k in [b"a".to_vec(), b"zz".to_vec()] {
                later.push((k.clone(), true));
                later.push((k, false));
            }
            later.push((b"user:9".to_vec(), true));
        }
        for (k, put) in later {
            let off = write(&mut bytes, &k, put);
            model.insert(k, put.then_some(off));
            delta.push(off);
        }
        let src = KeySource {
            bytes: &bytes,
            crypt: None,
        };
        by_key_then_offset(src, &mut base);
        by_key_then_offset(src, &mut delta);
        let view = View {
            base: Base::Heap(Arc::from(base)),
            fences: Arc::new(FenceSlot::default()),
            delta: Arc::new(delta),
        };
        let folded = fold(src, &view).unwrap();
        let live: Vec<(Vec<u8>, u64)> = model
            .into_iter()
            .filter_map(|(k, o)| o.map(|o| (k, o)))
            .collect();
        let offs: Vec<u64> = live.iter().map(|(_, o)| *o).collect();
        assert_eq!(folded.offs, offs, "case {case}");
        // Odd cases: the streams' ends ("a", "zz") share no byte where
        // the fold's keys share "user:", so windows after "" would
        // all be "user:000"-ish; such a fold leaves its fences to the
        // usual build.
        let Some(fences) = folded.fences else {
            assert_eq!(case % 2, 1, "case {case}: a fold this long has fences");
            continue;
        };
        assert_eq!(
            case % 2,
            0,
            "case {case}: fences after a prefix its keys outgrew"
        );
        // As narrow as fences built over the folded order itself.
        let n = folded.offs.len();
        let built = Fences::build(src, n, |i| Ok(folded.offs[i])).unwrap();
        assert!(
            fences == built,
            "case {case}: the fold's fences differ from a build's"
        );
        let keys: Vec<Vec<u8>> = live.into_iter().map(|(k, _)| k).collect();
        for start in random_starts(&keys, &mut r, 400) {
            let s = match &start {
                Bound::Included(s) | Bound::Excluded(s) => s,
                Bound::Unbounded => continue,
            };
            let want = keys.partition_point(|k| match &start {
                Bound::Excluded(_) => k <= s,
                _ => k < s,
            });
            let (lo, hi) = fences.bounds(s, keys.len());
            assert!(
                lo <= want && want <= hi,
                "case {case}: {s:?} at {want}, fences {lo}..={hi}"
            );
        }
    }
}

/// The base of the default namespace of `db` has its fences before
/// any seek, and they are what a build over it reads.
fn fenced_from_the_start(db: &Emdb, len: usize) {
    let gen = db.engine_arc().gen();
    let (base, slot) = gen.default_ns().sorted.base_and_fences();
    assert_eq!(base.len(), len);
    let region = gen.log().region();
    let src = KeySource {
        bytes: gen.bytes(&region),
        crypt: None,
    };
    let built = Fences::build(src, base.len(), |i| base.get(i)).unwrap();
    assert_eq!(slot.fences.get(), Some(&built));
    assert_eq!(slot.seeks.load(std::sync::atomic::Ordering::Relaxed), 0);
}

/// 600 keys written out of order, some sharing more than 8 bytes
/// after their common prefix; with `churn`, overwrites and removes too.
fn scattered(db: &Emdb, churn: bool) {
    for i in 0..600u64 {
        let k = match i % 3 {
            0 => format!("user:{:05}", (i * 7919) % 600),
            _ => format!("user:000000000{:04}", (i * 104_729) % 600),
        };
        db.insert(&k, b"v").unwrap();
        if churn && i % 7 == 0 {
            db.insert(&k, b"again").unwrap();
        }
    }
    if churn {
        for i in (0..600u64).step_by(5) {
            db.remove(format!("user:{:05}", i)).unwrap();
        }
    }
}

#[test]
fn a_checkpoint_hands_its_base_over_with_its_fences() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::open(dir.path().join("f.emdb")).unwrap();
    scattered(&db, false);
    db.checkpoint().unwrap();
    fenced_from_the_start(&db, 600);
}

/// A checkpoint install adopts an order that was kept before it takes
/// the writer lock: the adoption waits for a reader's refresh in
/// progress (a sort or fold, a second at 10M keys), and writes must
/// not wait behind it.
#[test]
fn a_checkpoint_install_does_not_hold_writers_behind_a_readers_refresh() {
    use std::sync::mpsc;
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("w.emdb"))
        .background(false)
        .build()
        .unwrap();
    for i in 0..20 {
        db.insert(format!("k{i:02}"), "v").unwrap();
    }
    assert_eq!(db.range(..).unwrap().len(), 20);
    db.insert("k20", "v").unwrap();
    let e = db.engine_arc();
    let gen = e.gen();
    let sorted = &gen.default_ns().sorted;
    // A reader's refresh in progress (it sorts the pending record),
    // as a long sort or fold at 10M keys would be.
    let refresh = sorted.begin();
    assert!(matches!(refresh, super::Refresh::Work(..)));
    let mut snap = e.checkpoint_snapshot().unwrap().unwrap();
    let tmp = snap.write_temp(".tmp").unwrap();
    let landed = std::thread::scope(|s| {
        let install = s.spawn(|| e.install_checkpoint(&snap, &tmp));
        // The install reaches its adoption of the order, which waits
        // for the refresh.
        std::thread::sleep(Duration::from_millis(200));
        assert!(!install.is_finished());
        let (tx, rx) = mpsc::channel();
        let w = db.clone();
        s.spawn(move || {
            w.insert("k21", "v").unwrap();
            let _ = tx.send(());
        });
        // A write meanwhile lands without waiting for the refresh.
        let landed = rx.recv_timeout(Duration::from_secs(3)).is_ok();
        let region = gen.log().region();
        let keys = KeySource {
            bytes: gen.bytes(&region),
            crypt: None,
        };
        sorted.finish(refresh, keys, || unreachable!()).unwrap();
        install.join().unwrap().unwrap();
        landed
    });
    assert!(
        landed,
        "a write waited for a reader's refresh behind a checkpoint install"
    );
    let want: Vec<Vec<u8>> = (0..22).map(|i| format!("k{i:02}").into_bytes()).collect();
    let got: Vec<Vec<u8>> = db.range(..).unwrap().into_iter().map(|(k, _)| k).collect();
    assert_eq!(got, want);
}

/// Once nobody read in order for a while the order is dropped and
/// writes are no longer noted; a checkpoint whose snapshot was taken
/// then takes it up again with the records written since (it used to
/// without them: a writer's range read returned a key's older value
/// and a removed key, and missed a new one), those written before the
/// install listed them and those written during the listing alike.
#[test]
fn a_checkpoint_takes_up_a_dropped_order_with_what_was_written_since() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("d.emdb"))
        .background(false)
        .build()
        .unwrap();
    // No ordered read: past a few pending records the order is dropped.
    for i in 0..50 {
        db.insert(format!("k{i:02}"), "old").unwrap();
    }
    let e = db.engine_arc();
    let mut snap = e.checkpoint_snapshot().unwrap().unwrap();
    let tmp = snap.write_temp(".tmp").unwrap();
    // Written after the snapshot's order was sorted, before it is
    // handed over (as beside the writer's background checkpoint).
    db.insert("k07", "new").unwrap();
    db.remove("k08").unwrap();
    db.insert("k50", "new").unwrap();
    // And while the install lists those without the writer lock,
    // before it lists the rest under it.
    e.install_checkpoint_with(&snap, &tmp, || {
        db.insert("k09", "newer").unwrap();
        db.remove("k10").unwrap();
        db.insert("k51", "new").unwrap();
    })
    .unwrap();
    // Taken up (the checkpoint's base), not left for a rebuild.
    let (base, _) = e.gen().default_ns().sorted.base_and_fences();
    assert_eq!(base.len(), 50);
    let mut want: Vec<(Vec<u8>, Vec<u8>)> =
        db.iter().unwrap().collect::<crate::Result<_>>().unwrap();
    want.sort();
    let got = db.range(..).unwrap();
    assert_eq!(got, want);
    assert_eq!(db.get("k07").unwrap().as_deref(), Some(&b"new"[..]));
    assert_eq!(db.get("k09").unwrap().as_deref(), Some(&b"newer"[..]));
    assert_eq!(got.len(), 50, "50 keys, two removed, two added");
}

/// A plain writer's next checkpoint starts from the order it opened
/// (the checkpoint's mapped block), then from the base it adopted,
/// for as long as that stays its base; it holds no copy of its own.
#[test]
fn a_plain_writers_checkpoint_starts_from_its_base_and_keeps_no_copy() {
    use super::Base;
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.emdb");
    let n = 5000u32;
    let key = |i: u32| format!("k{i:05}");
    {
        let db = Emdb::open(&path).unwrap();
        db.insert_many((0..n).map(|i| (key(i * 7919 % n), "v")))
            .unwrap();
        db.checkpoint().unwrap();
    }
    let db = Emdb::open(&path).unwrap();
    let e = db.engine_arc();
    let at_hand = || {
        let ns = Arc::clone(e.gen().default_ns());
        let (base, _) = ns.sorted.base_and_fences();
        let got = ns.sorted.checkpointed();
        (got.map(|(end, b)| (end, super::same_base(&b, &base))), base)
    };
    let (got, base) = at_hand();
    assert!(matches!(base, Base::Mapped { .. }));
    assert_eq!(got, Some((e.checkpointed_end(), true)));
    for i in 0..40 {
        db.insert(key(i * 3), "new").unwrap();
    }
    db.remove(key(1)).unwrap();
    db.checkpoint().unwrap();
    let (got, base) = at_hand();
    assert!(matches!(base, Base::Heap(_)));
    assert_eq!(got, Some((e.checkpointed_end(), true)));
    // The base is the only copy: 8 bytes a key, and its fences.
    let ns = Arc::clone(e.gen().default_ns());
    let fences = ns.sorted.base_and_fences().1.memory_bytes();
    assert_eq!(ns.sorted.memory_bytes(), 8 * (n as usize - 1) + fences);
    // Folded into a new base: no longer the checkpoint's order.
    for i in 0..n / 2 {
        db.insert(key(i * 2 + 1), "newer").unwrap();
    }
    assert_eq!(db.range(..).unwrap().len(), n as usize);
    let (got, base) = at_hand();
    assert!(matches!(base, Base::Heap(_)));
    assert_eq!(got, None);
    // The next checkpoint sorts, and is the order again.
    db.checkpoint().unwrap();
    assert_eq!(at_hand().0, Some((e.checkpointed_end(), true)));
    drop(db);
    let ro = Emdb::builder().path(&path).read_only(true).build().unwrap();
    let keys: Vec<Vec<u8>> = ro.range_iter(..).unwrap().map(|p| p.unwrap().0).collect();
    let want: Vec<Vec<u8>> = (0..n).map(|i| key(i).into_bytes()).collect();
    assert_eq!(keys, want);
}

/// (From the checkpoint a compaction of a file writes when done.)
#[test]
fn a_compaction_hands_its_base_over_with_its_fences() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::open(dir.path().join("c.emdb")).unwrap();
    scattered(&db, true);
    let live = db.len().unwrap();
    db.compact().unwrap();
    fenced_from_the_start(&db, live);
}

#[test]
fn a_merge_by_search_or_by_walk_orders_by_key_then_offset() {
    let mut r = Rng(0xfeed);
    // Keys from a small alphabet, so some repeat (a key's older and
    // newer records in both inputs).
    let keys: Vec<Vec<u8>> = (0..3000)
        .map(|_| format!("k{:03}", r.below(900)).into_bytes())
        .collect();
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let (bytes, offs) = plain_log(&refs);
    let src = KeySource {
        bytes: &bytes,
        crypt: None,
    };
    let order = |v: &mut Vec<u64>| by_key_then_offset(src, v);
    // (|a|, |b|): one new entry, a few (searched into `a`), as many
    // as `a` (walked), none, and `a` empty.
    for (na, nb) in [
        (2000, 1),
        (2000, 7),
        (2000, 150),
        (1000, 1000),
        (5, 3),
        (50, 0),
        (0, 9),
    ] {
        for _ in 0..4 {
            let mut pick = offs.clone();
            for i in (1..pick.len()).rev() {
                pick.swap(i, r.below(i as u64 + 1) as usize);
            }
            let mut a = pick[..na].to_vec();
            let mut b = pick[na..na + nb].to_vec();
            order(&mut a);
            order(&mut b);
            let mut want = [a.clone(), b.clone()].concat();
            order(&mut want);
            assert_eq!(
                super::merge(src, &a, &b).unwrap(),
                want,
                "|a| {na}, |b| {nb}"
            );
        }
    }
}

#[test]
fn the_radix_sort_sorts() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for (n, bits) in [
        (0usize, 8u32),
        (5, 8),
        (5_000, 12),
        (70_000, 40),
        (70_000, 64),
    ] {
        let mut v: Vec<u64> = (0..n)
            .map(|_| {
                if bits == 64 {
                    r.next()
                } else {
                    r.below(1 << bits)
                }
            })
            .collect();
        let mut want = v.clone();
        want.sort_unstable();
        sort_u64(&mut v);
        assert_eq!(v, want, "{n} values of {bits} bits");
    }
}

#[test]
fn sorted_reads_agree_with_a_btreemap_through_folds_drops_and_rebuilds() {
    for seed in 1..4 {
        run(None, seed * 7919);
    }
    let dir = tempfile::tempdir().unwrap();
    for seed in 1..4 {
        let p = dir.path().join(format!("s{seed}.emdb"));
        run(Some(&p), seed * 104_729);
    }
}

/// The same on encrypted databases, whose checkpoints seal their order
/// and start it from the last one (`sort_from`), and whose reopens read
/// it sealed.
#[cfg(feature = "encrypt")]
#[test]
fn sorted_reads_of_encrypted_databases_agree_with_a_btreemap() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 1..3 {
        let p = dir.path().join(format!("e{seed}.emdb"));
        run_with(Some(&p), seed * 15_485_863, Some([seed as u8; 32]), 4000);
    }
}

/// An encrypted database's checkpoint sorts keys decrypted in parts
/// on several threads: keys written in order are taken as they are,
/// keys in order within each part but not where two parts meet are
/// sorted, and so are scrambled ones; each checkpoint's sealed order
/// read back by a read-only open is the keys' order.
#[cfg(feature = "encrypt")]
#[test]
fn sealed_keys_are_decrypted_in_parts_and_checked_where_the_parts_meet() {
    let n = 70_000usize;
    let parts = super::sort::parallel_parts(n);
    let chunk = n.div_ceil(parts.max(1));
    let sorted: Vec<Vec<u8>> = (0..n).map(|i| format!("k{i:06}").into_bytes()).collect();
    let mut at_seam = sorted.clone();
    if parts > 1 {
        at_seam.swap(chunk - 1, chunk);
    }
    let mut scrambled = sorted.clone();
    let mut r = Rng(99);
    for i in (1..n).rev() {
        scrambled.swap(i, r.below(i as u64 + 1) as usize);
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, order) in [
        ("in_order", &sorted),
        ("seam", &at_seam),
        ("scrambled", &scrambled),
    ] {
        let path = dir.path().join(format!("{name}.emdb"));
        let key = |p: &std::path::Path| Emdb::builder().path(p).encryption_key([5; 32]);
        {
            let db = key(&path).build().unwrap();
            db.insert_many(order.iter().map(|k| (k.clone(), b"v".to_vec())))
                .unwrap();
            db.checkpoint().unwrap();
        }
        let db = key(&path).read_only(true).build().unwrap();
        assert!(db.recovery_report().used_checkpoint);
        let got: Vec<Vec<u8>> = db.range_iter(..).unwrap().map(|p| p.unwrap().0).collect();
        assert!(got == sorted, "{name}: {} keys, not in order", got.len());
    }
}

/// Whatever order `sort_from` is handed as the last checkpoint's (the
/// true one, one of another end, a random sorted subset of the log's
/// records, one with entries added, repeated or missing), it returns
/// the live offsets' exact order or declines (`None`: then sort).
#[test]
fn sort_from_is_exact_or_declines_whatever_order_it_is_given() {
    use super::{sort_from, Base};
    use std::collections::HashMap;
    use std::sync::Arc;
    let total = 3000usize;
    let names: Vec<Vec<u8>> = (0..total)
        .map(|i| format!("k{:04}", (i * 37) % 900).into_bytes())
        .collect();
    let refs: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
    let (bytes, mut all) = plain_log(&refs);
    all.sort_unstable();
    let src = KeySource {
        bytes: &bytes,
        crypt: None,
    };
    // The live offsets after the first `upto` records, `gone` keys removed.
    let live_at = |upto: usize, gone: &[usize]| -> Vec<u64> {
        let mut newest: HashMap<&[u8], u64> = HashMap::new();
        for (k, &o) in names.iter().zip(&all).take(upto) {
            newest.insert(k, o);
        }
        for &g in gone {
            newest.remove(&names[g][..]);
        }
        newest.into_values().collect()
    };
    let mut r = Rng(0xdead_beef);
    let (mut exact, mut declined) = (0, 0);
    for round in 0..400 {
        let now = total - r.below(30) as usize;
        let gone: Vec<usize> = (0..r.below(20))
            .map(|_| r.below(total as u64) as usize)
            .collect();
        let live = live_at(now, &gone);
        let want = sort_offsets(src, live.clone()).unwrap();
        // The end the order is said to be of (a record's start, or the
        // log's end).
        let cut = now - 1 - r.below(60) as usize;
        let end = all[cut];
        let truth = sort_offsets(src, live_at(cut, &gone[..gone.len() / 2])).unwrap();
        let mut prev: Vec<u64> = match round % 6 {
            0 => truth.clone(),
            // Of another end.
            1 => {
                let other = now - 1 - r.below(200) as usize;
                sort_offsets(src, live_at(other, &[])).unwrap()
            }
            // A random subset of every record.
            2 => {
                let keep = r.below(100);
                let some: Vec<u64> = all
                    .iter()
                    .copied()
                    .filter(|_| r.below(100) < keep)
                    .collect();
                sort_offsets(src, some).unwrap()
            }
            // Extra records (stale, or past the end), repeated ones.
            3 => {
                let mut v = truth.clone();
                for _ in 0..1 + r.below(5) {
                    v.push(all[r.below(total as u64) as usize]);
                }
                if let Some(&o) = v.first() {
                    v.push(o);
                }
                by_key_then_offset(src, &mut v);
                v
            }
            // One missing.
            4 => {
                let mut v = truth.clone();
                if !v.is_empty() {
                    v.remove(r.below(v.len() as u64) as usize);
                }
                v
            }
            // The live records now: an end too early for it.
            _ => want.clone(),
        };
        if round % 12 == 11 {
            prev.truncate(prev.len() / 2);
        }
        let base = Base::Heap(Arc::from(prev));
        match sort_from(src, &live, (end, &base), round % 2 == 0).unwrap() {
            Some(o) => {
                assert!(o.offs == want, "round {round}: a wrong order");
                exact += 1;
            }
            None => declined += 1,
        }
    }
    assert!(
        exact > 100 && declined > 50,
        "{exact} exact, {declined} declined"
    );
}

/// Whatever order `patch_from` is handed as the last checkpoint's (the
/// true one, one of another end, a random sorted subset of the log's
/// puts, one with entries added, missing, or one swapped for an older
/// record of its key, which leaves its length alone), with the puts and
/// deletes written since, it returns the live offsets' exact order or
/// declines (`None`); given the true one, it never declines.
#[test]
fn patch_from_is_exact_or_declines_whatever_order_it_is_given() {
    use super::{patch_from, Base, LiveSplit};
    use crate::format::record::FrameSpec;
    use std::collections::HashMap;
    use std::sync::Arc;
    let total = 4000usize;
    let mut r = Rng(0x005e_ed0f_9a7c);
    // Keys repeat; about one record in eight is a delete.
    let ops: Vec<(Vec<u8>, bool)> = (0..total)
        .map(|i| {
            let k = format!("k{:04}", (i * 37 + r.below(7) as usize) % 1500).into_bytes();
            (k, i > 100 && r.below(8) == 0)
        })
        .collect();
    let mut bytes = vec![0u8; HEADER_SIZE];
    let mut at = Vec::new();
    for (k, del) in &ops {
        at.push(bytes.len() as u64);
        let spec = match del {
            true => FrameSpec::delete(0, k),
            false => FrameSpec::put(0, k, b"v", 0),
        };
        bytes.extend(spec.encode());
    }
    let src = KeySource {
        bytes: &bytes,
        crypt: None,
    };
    // The live offsets after the first `upto` records.
    let live_at = |upto: usize| -> Vec<u64> {
        let mut newest: HashMap<&[u8], Option<u64>> = HashMap::new();
        for ((k, del), &o) in ops.iter().zip(&at).take(upto) {
            newest.insert(k, (!del).then_some(o));
        }
        newest.into_values().flatten().collect()
    };
    let puts: Vec<u64> = at
        .iter()
        .zip(&ops)
        .filter(|(_, (_, del))| !del)
        .map(|(&o, _)| o)
        .collect();
    let (mut exact, mut declined) = (0, 0);
    for round in 0..300 {
        let now = total - r.below(30) as usize;
        let live = live_at(now);
        let want = sort_offsets(src, live.clone()).unwrap();
        let cut = now - 1 - r.below(80) as usize;
        let end = at[cut];
        let truth = sort_offsets(src, live_at(cut)).unwrap();
        let mut prev: Vec<u64> = match round % 7 {
            0 | 1 => truth.clone(),
            // Of another end.
            2 => sort_offsets(src, live_at(now - 1 - r.below(300) as usize)).unwrap(),
            // A random subset of the puts.
            3 => {
                let keep = r.below(100);
                let some = puts.iter().copied().filter(|_| r.below(100) < keep);
                sort_offsets(src, some.collect()).unwrap()
            }
            // Extra records, stale or past the end.
            4 => {
                let mut v = truth.clone();
                for _ in 0..1 + r.below(5) {
                    v.push(puts[r.below(puts.len() as u64) as usize]);
                }
                by_key_then_offset(src, &mut v);
                v.dedup();
                v
            }
            // One missing.
            5 => {
                let mut v = truth.clone();
                v.remove(r.below(v.len() as u64) as usize);
                v
            }
            // One entry swapped for an older put of its key.
            _ => {
                let mut v = truth.clone();
                let i = r.below(v.len() as u64) as usize;
                let mut k = Vec::new();
                src.read(v[i], &mut k).unwrap();
                if let Some(&older) = puts
                    .iter()
                    .filter(|&&o| o < v[i])
                    .find(|&&o| ops[at.binary_search(&o).unwrap()].0 == k)
                {
                    v[i] = older;
                }
                v
            }
        };
        if round % 14 == 13 {
            prev.truncate(prev.len() / 2);
        }
        let since: Vec<u64> = at[cut..now].iter().rev().copied().collect();
        let base = Base::Heap(Arc::from(prev));
        let split = LiveSplit::of(live.iter().copied(), end);
        match patch_from(src, (end, &base), since, &split).unwrap() {
            Some(p) => {
                assert!(p.offsets().unwrap() == want, "round {round}: a wrong order");
                assert_eq!(p.len(), want.len());
                exact += 1;
            }
            None => {
                assert!(round % 7 > 1, "round {round}: the true order declined");
                declined += 1;
            }
        }
    }
    assert!(
        exact > 80 && declined > 50,
        "{exact} exact, {declined} declined"
    );
}

/// `patch_from` at the edges: nothing written since; keys before and
/// after every key of the order and the empty key; the first and last
/// entries overwritten or removed; put-then-remove and
/// remove-then-put of one key; several records of one key; keys that
/// are prefixes or extensions of the order's; removes of absent keys;
/// every entry of a short stretch removed. Each is exact (and the
/// block written in pieces is the same).
#[test]
fn patch_from_is_exact_at_the_edges() {
    use super::{patch_from, Base, LiveSplit};
    use crate::format::record::FrameSpec;
    use std::collections::HashMap;
    use std::sync::Arc;
    let first: Vec<Vec<u8>> = (0..1000u32)
        .map(|i| format!("b{i:03}").into_bytes())
        .collect();
    let k = |s: &str| s.as_bytes().to_vec();
    let cases: Vec<Vec<(Vec<u8>, bool)>> = vec![
        vec![],
        vec![(k("a"), false)],
        vec![(k("c"), false)],
        vec![(k(""), false), (k("zz"), false)],
        vec![(k("b000"), false), (k("b999"), true)],
        vec![(k("b000"), true), (k("b999"), false)],
        vec![
            (k("b500"), false),
            (k("b500"), true),
            (k("b501"), true),
            (k("b501"), false),
        ],
        vec![
            (k("b5"), false),
            (k("b50"), false),
            (k("b5000"), false),
            (k("b500"), true),
        ],
        vec![
            (k("b2"), true),
            (k("nope"), true),
            (k("b777x"), false),
            (k("b777x"), true),
        ],
        vec![
            (k("b100"), false),
            (k("b100"), false),
            (k("b100"), true),
            (k("b100"), false),
        ],
        (300..330u32)
            .map(|i| (format!("b{i:03}").into_bytes(), true))
            .collect(),
        (0..40u32)
            .map(|i| (format!("b{:03}", i * 25).into_bytes(), i % 3 == 0))
            .collect(),
    ];
    for (c, ops) in cases.iter().enumerate() {
        let mut bytes = vec![0u8; HEADER_SIZE];
        let mut newest: HashMap<Vec<u8>, Option<u64>> = HashMap::new();
        for key in &first {
            newest.insert(key.clone(), Some(bytes.len() as u64));
            bytes.extend(FrameSpec::put(0, key, b"v", 0).encode());
        }
        let end = bytes.len() as u64;
        let src0 = KeySource {
            bytes: &bytes,
            crypt: None,
        };
        let prev = sort_offsets(src0, newest.values().flatten().copied().collect()).unwrap();
        let mut since = Vec::new();
        for (key, del) in ops {
            let at = bytes.len() as u64;
            since.push(at);
            newest.insert(key.clone(), (!del).then_some(at));
            let spec = match del {
                true => FrameSpec::delete(0, key),
                false => FrameSpec::put(0, key, b"w", 0),
            };
            bytes.extend(spec.encode());
        }
        let src = KeySource {
            bytes: &bytes,
            crypt: None,
        };
        let live: Vec<u64> = newest.values().flatten().copied().collect();
        let want = sort_offsets(src, live.clone()).unwrap();
        let base = Base::Heap(Arc::from(prev));
        let split = LiveSplit::of(live.iter().copied(), end);
        let p = patch_from(src, (end, &base), since, &split)
            .unwrap()
            .unwrap_or_else(|| panic!("case {c}: declined"));
        assert_eq!(p.len(), want.len(), "case {c}: length");
        assert!(p.offsets().unwrap() == want, "case {c}: a wrong order");
        for chunk in [8, 4096] {
            let (mut out, mut written) = (Vec::new(), Vec::new());
            p.write(&mut out, chunk, |b| {
                written.append(b);
                Ok(())
            })
            .unwrap();
            written.extend(out);
            let got: Vec<u64> = written
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                .collect();
            assert!(got == want, "case {c}: pieces of {chunk}");
        }
    }
}

/// A patch writes the same bytes in pieces of any size (from a heap
/// order; closes after a reopen write from a mapped one, in
/// `closes_with_patches`).
#[test]
fn a_patch_writes_the_same_block_in_pieces_of_any_size() {
    use super::{Base, Patch};
    use std::sync::Arc;
    let prev: Vec<u64> = (0..3000u64).map(|i| 4096 + i * 40).collect();
    let patch = Patch {
        prev: Base::Heap(Arc::from(prev.clone())),
        dropped: vec![0, 7, 8, 2999],
        added: vec![(0, 1), (0, 2), (8, 3), (1500, 4), (3000, 5)],
    };
    let mut want: Vec<u64> = Vec::new();
    for (i, &o) in prev.iter().enumerate() {
        want.extend(patch.added.iter().filter(|a| a.0 == i).map(|a| a.1));
        if !patch.dropped.contains(&i) {
            want.push(o);
        }
    }
    want.extend(patch.added.iter().filter(|a| a.0 == 3000).map(|a| a.1));
    assert_eq!(patch.len(), want.len());
    assert_eq!(patch.offsets().unwrap(), want);
    for chunk in [1, 8, 100, 4096, 1 << 20] {
        let (mut out, mut written) = (Vec::new(), Vec::new());
        patch
            .write(&mut out, chunk, |b| {
                written.append(b);
                Ok(())
            })
            .unwrap();
        written.extend(out);
        let got: Vec<u64> = written
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(got, want, "pieces of {chunk}");
    }
}

#[test]
fn sort_from_keeps_what_is_still_live_and_places_what_was_written_since() {
    use super::{sort_from, Base};
    use std::collections::HashMap;
    use std::sync::Arc;
    let first = 3000u32;
    let name = |s: String| s.into_bytes();
    let mut keys: Vec<Vec<u8>> = (0..first)
        .map(|i| name(format!("k{:05}", (i * 7919) % first)))
        .collect();
    // Since the earlier end: overwrites, and new keys after and
    // between the old ones.
    keys.extend((0..40u32).map(|i| name(format!("k{:05}", i * 71))));
    keys.extend((0..30u32).map(|i| name(format!("n{i:03}"))));
    keys.extend((0..30u32).map(|i| name(format!("k{:05}x", i * 97))));
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let (bytes, mut all) = plain_log(&refs);
    all.sort_unstable();
    let src = KeySource {
        bytes: &bytes,
        crypt: None,
    };
    let prev_end = all[first as usize];
    let prev_order = sort_offsets(src, all[..first as usize].to_vec()).unwrap();
    let prev = Base::Heap(Arc::from(prev_order.clone()));
    // Live now: each key's newest record, but for ten removed keys.
    let mut newest: HashMap<&[u8], u64> = HashMap::new();
    for (k, &o) in keys.iter().zip(&all) {
        newest.insert(k, o);
    }
    for i in 0..10u32 {
        let k = name(format!("k{:05}", i * 13 + 5));
        assert!(newest.remove(&k[..]).is_some());
    }
    let live: Vec<u64> = newest.values().copied().collect();
    let want = sort_offsets(src, live.clone()).unwrap();
    let offs_from = |live: &[u64], prev: (u64, &Base)| {
        sort_from(src, live, prev, false).unwrap().map(|o| o.offs)
    };
    let got = sort_from(src, &live, (prev_end, &prev), false).unwrap();
    assert_eq!(got.map(|o| (o.offs, o.fences)), Some((want, None)));
    // Asked for fences: those a sort as a base makes of the same keys.
    let fenced = sort_from(src, &live, (prev_end, &prev), true).unwrap();
    assert!(fenced.as_ref().is_some_and(|o| o.fences.is_some()));
    assert_eq!(fenced, Some(super::sort_base(src, live.clone()).unwrap()));
    // An order that lacks a live offset below its end is not that
    // end's order: sorted instead.
    // (Its second key, k00001, was neither rewritten nor removed.)
    let mut lacking = prev_order.clone();
    lacking.remove(1);
    let partial = Base::Heap(Arc::from(lacking));
    assert_eq!(offs_from(&live, (prev_end, &partial)), None);
    // Nor one that lacks the live offset nearest below its end (the
    // last key written before it, k01081, was neither rewritten nor
    // removed).
    let last = all[first as usize - 1];
    assert!(live.contains(&last));
    let lacking_last: Vec<u64> = prev_order.iter().copied().filter(|&o| o != last).collect();
    let partial = Base::Heap(Arc::from(lacking_last));
    assert_eq!(offs_from(&live, (prev_end, &partial)), None);
    // Entries at or past its end, and a repeated one, are not kept:
    // a new key's entry is placed once, from the offsets written since.
    let mut extra = prev_order.clone();
    let new_key = *live.iter().max().unwrap();
    extra.insert(7, new_key);
    extra.insert(9, extra[8]);
    let extra = Base::Heap(Arc::from(extra));
    let want = sort_offsets(src, live.clone()).unwrap();
    assert_eq!(offs_from(&live, (prev_end, &extra)), Some(want));
    // Too many keys written since for placing each to pay.
    let early = Base::Heap(Arc::from(sort_offsets(src, all[..10].to_vec()).unwrap()));
    assert_eq!(offs_from(&live, (all[10], &early)), None);
    // A log far longer than its keys need (large values): the bitmap
    // of its offsets would outweigh a sort (here 32 GiB for 1 TiB).
    let now = Base::Heap(Arc::from(sort_offsets(src, live.clone()).unwrap()));
    assert!(offs_from(&live, (all[all.len() - 1] + 1, &now)).is_some());
    assert_eq!(offs_from(&live, (1 << 40, &now)), None);
}

/// A pass over a sealed base's runs (a checkpoint's, over the whole order)
/// reads what entry-by-entry reads do, from any start to any end, whether
/// its chunks were opened before or not, and keeps none open that a read
/// had not.
#[cfg(feature = "encrypt")]
#[test]
fn a_sealed_bases_runs_read_its_entries_and_keep_no_chunk_open() {
    use super::Base;
    use crate::format::checkpoint::SORTED_CHUNK;
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.emdb");
    let open = || {
        Emdb::builder()
            .path(&path)
            .encryption_key([5; 32])
            .background(false)
            .build()
            .unwrap()
    };
    // Five whole chunks and part of a sixth.
    let n = 5 * SORTED_CHUNK as u32 + 77;
    {
        let db = open();
        db.insert_many((0..n).map(|i| (format!("k{:06}", i * 7919 % n), "v")))
            .unwrap();
        db.checkpoint().unwrap();
    }
    let db = open();
    let e = db.engine_arc();
    let ns = Arc::clone(e.gen().default_ns());
    let Some((_, base)) = ns.sorted.checkpointed() else {
        panic!("no checkpointed order")
    };
    let Base::Sealed(sealed) = &base else {
        panic!("not a sealed base")
    };
    let runs = |from: usize, to: usize| {
        let mut got = Vec::new();
        let mut sizes = Vec::new();
        base.runs(from, to, |run| {
            sizes.push(run.len());
            got.extend(
                run.chunks_exact(8)
                    .map(|b| crate::format::read_u64(b, 0).unwrap()),
            );
            Ok(())
        })
        .unwrap();
        assert!(sizes.iter().all(|&s| s > 0 && s <= SORTED_CHUNK * 8));
        got
    };
    let whole = runs(0, n as usize);
    assert_eq!(whole.len(), n as usize);
    assert_eq!(sealed.memory_bytes(), 0, "a pass kept chunks open");
    let c = SORTED_CHUNK;
    let edges = [
        (0, 1),
        (c - 1, c + 1),
        (c, 2 * c),
        (3, 4 * c + 9),
        (2 * c + 5, n as usize),
    ];
    for &(from, to) in &edges {
        assert_eq!(runs(from, to), &whole[from..to], "{from}..{to}, none open");
    }
    // Entry reads open (and keep) chunks 0 and 2; runs read them from memory.
    for i in (0..c).chain(2 * c..3 * c) {
        assert_eq!(base.get(i).unwrap(), whole[i], "entry {i}");
    }
    assert_eq!(sealed.memory_bytes(), 2 * c * 8);
    for &(from, to) in &edges {
        assert_eq!(runs(from, to), &whole[from..to], "{from}..{to}, some open");
    }
    assert_eq!(sealed.memory_bytes(), 2 * c * 8);
    // Those entries are the keys in order.
    let gen = e.gen();
    let region = gen.log().region();
    let keys = KeySource {
        bytes: gen.bytes(&region),
        crypt: ns.crypt(),
    };
    let mut key = Vec::new();
    let read: Vec<Vec<u8>> = whole
        .iter()
        .map(|&o| {
            keys.read(o, &mut key).unwrap();
            key.clone()
        })
        .collect();
    let want: Vec<Vec<u8>> = (0..n).map(|i| format!("k{i:06}").into_bytes()).collect();
    assert!(read == want, "the sealed base is not the keys' order");
}
