//! `key_order` against a naive sort on adversarial key sets (from a
//! review of the windows' refinement).
#![allow(clippy::unwrap_used)]
use super::key_order;
use crate::sorted::fences::{common_prefix, window, window_bytes, Fences, FENCE_STEP};
use crate::sorted::tests::Rng;

fn naive(keys: &[Vec<u8>]) -> Vec<u32> {
    let mut want: Vec<u32> = (0..keys.len() as u32).collect();
    want.sort_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]).then(a.cmp(&b)));
    want
}

fn want_fences(keys: &[Vec<u8>], order: &[u32]) -> Fences {
    let first = &keys[order[0] as usize];
    let last = &keys[*order.last().unwrap() as usize];
    let lcp = common_prefix(first, last);
    let windows = order
        .iter()
        .step_by(FENCE_STEP)
        .map(|&i| window(window_bytes(&keys[i as usize], lcp)))
        .collect();
    Fences::new(first[..lcp].to_vec(), windows)
}

fn check(keys: &[Vec<u8>], what: &str) {
    let want = naive(keys);
    for fenced in [false, true] {
        let (got, fences) = key_order(keys.len(), |i| &keys[i][..], fenced).unwrap();
        assert_eq!(got, want, "{what} fenced={fenced} n={}", keys.len());
        if fenced {
            assert_eq!(fences.unwrap(), want_fences(keys, &want), "{what} fences");
        } else {
            assert!(fences.is_none());
        }
    }
}

/// A random adversarial key set.
fn gen(r: &mut Rng) -> Vec<Vec<u8>> {
    let alpha: &[u8] = match r.below(4) {
        0 => &[0, 1],
        1 => &[0, 0, 0, 1, 255],
        2 => b"ab\0",
        _ => &[0, 1, 2, 3, 127, 128, 254, 255],
    };
    let plen = [0usize, 1, 5, 7, 8, 9, 15, 16, 17, 63, 4096, 9000][r.below(12) as usize];
    let prefix: Vec<u8> = (0..plen)
        .map(|_| alpha[r.below(alpha.len() as u64) as usize])
        .collect();
    // A few stems (shared past the prefix), the keys built on them.
    let stems: Vec<Vec<u8>> = (0..1 + r.below(4))
        .map(|_| {
            let l = [0usize, 3, 8, 16, 24, 40, 100][r.below(7) as usize];
            (0..l)
                .map(|_| alpha[r.below(alpha.len() as u64) as usize])
                .collect()
        })
        .collect();
    let n = [1usize, 2, 3, 23, 24, 25, 50, 200, 600][r.below(9) as usize];
    let mut keys: Vec<Vec<u8>> = Vec::with_capacity(n);
    while keys.len() < n {
        let mut k = prefix.clone();
        if r.below(10) == 0 {
            // Shorter than the prefix: a prefix of it.
            k.truncate(r.below(plen as u64 + 1) as usize);
            keys.push(k);
            continue;
        }
        k.extend_from_slice(&stems[r.below(stems.len() as u64) as usize]);
        match r.below(6) {
            0 => {}
            1 => k.extend(std::iter::repeat_n(0u8, r.below(20) as usize)),
            2 if !keys.is_empty() => {
                // A repeat, or a repeat with zeros (or one byte) after.
                k = keys[r.below(keys.len() as u64) as usize].clone();
                match r.below(3) {
                    0 => {}
                    1 => k.extend(std::iter::repeat_n(0u8, 1 + r.below(17) as usize)),
                    _ => k.push(alpha[r.below(alpha.len() as u64) as usize]),
                }
            }
            _ => {
                let l = r.below(20) as usize;
                k.extend((0..l).map(|_| alpha[r.below(alpha.len() as u64) as usize]));
            }
        }
        keys.push(k);
    }
    keys
}

/// [`check`] on the key sets `gen` makes for seeds `1..=KO_SEEDS`
/// (300 unless set), each seed's generator salted with `salt`.
fn check_seeds(salt: u64, what: &str, gen: impl Fn(&mut Rng) -> Vec<Vec<u8>>) {
    let seeds: u64 = std::env::var("KO_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    for seed in 1..=seeds {
        let mut r = Rng(seed.wrapping_mul(salt) | 1);
        check(&gen(&mut r), &format!("{what}seed {seed}"));
    }
}

#[test]
fn key_order_matches_a_naive_sort_on_adversarial_sets() {
    check_seeds(0x9E37_79B9_7F4A_7C15, "", gen);
}

/// Keys sharing a stretch past the windows, some ending inside it or
/// exactly at its end, repeats, runs around [`COMPARE_RUN`] (a
/// review's test of the skip past shared bytes).
#[test]
fn key_order_matches_a_naive_sort_on_shared_stretches() {
    check_seeds(0xD1B5_4A32_D192_ED03, "stretch ", stretched);
}

/// Keys of one prefix, most followed by one stretch (some cut inside
/// it, some with a few bytes more), some repeated, over a small
/// alphabet.
fn stretched(r: &mut Rng) -> Vec<Vec<u8>> {
    let alpha: &[u8] = [&[0u8, 1][..], &[0, 255], b"ab"][r.below(3) as usize];
    let pick = |r: &mut Rng| alpha[r.below(alpha.len() as u64) as usize];
    let plen = r.below(20) as usize;
    let prefix: Vec<u8> = (0..plen).map(|_| pick(r)).collect();
    let slen = r.below(40) as usize;
    let stretch: Vec<u8> = (0..slen).map(|_| pick(r)).collect();
    let n = [2usize, 23, 24, 25, 26, 47, 48, 49, 100, 300][r.below(10) as usize];
    let mut keys: Vec<Vec<u8>> = Vec::new();
    while keys.len() < n {
        let mut k = prefix.clone();
        match r.below(8) {
            0 => k.extend_from_slice(&stretch[..r.below(slen as u64 + 1) as usize]),
            1 if !keys.is_empty() => k = keys[r.below(keys.len() as u64) as usize].clone(),
            _ => {
                k.extend_from_slice(&stretch);
                let t = r.below(4) as usize;
                k.extend((0..t).map(|_| pick(r)));
            }
        }
        keys.push(k);
    }
    keys
}

#[test]
fn key_order_edge_cases() {
    check(&[vec![]], "one empty");
    check(&[b"abc".to_vec()], "one");
    check(&[vec![], vec![]], "two empty");
    check(&vec![vec![]; 50], "50 empty");
    check(&vec![b"same".to_vec(); 50], "50 equal");
    // Keys that are each other's prefix by zeros, long enough to refine.
    let mut keys: Vec<Vec<u8>> = (0..60).map(|j| vec![0u8; j]).collect();
    keys.reverse();
    check(&keys, "zeros of every length");
    let mut keys: Vec<Vec<u8>> = (0..60)
        .map(|j| {
            let mut k = b"k".to_vec();
            k.extend(vec![0u8; j]);
            k
        })
        .collect();
    keys.push(b"j".to_vec());
    keys.reverse();
    check(&keys, "k and zeros");
    check(&sharing_9000(), "9000 shared");
}

/// A shared prefix past 8 KiB beside a key that differs early: 100
/// keys of 9,000 `x` and a number, the 9,000 alone, 8,191 of them,
/// and `y`.
fn sharing_9000() -> Vec<Vec<u8>> {
    let long = vec![b'x'; 9000];
    let mut keys: Vec<Vec<u8>> = (0..100u32)
        .map(|i| {
            let mut k = long.clone();
            k.extend(format!("{}", (i * 37) % 100).bytes());
            k
        })
        .collect();
    keys.push(b"y".to_vec());
    keys.push(long.clone());
    keys.push(long[..8191].to_vec());
    keys
}

/// Repeats of a key (a key rewritten in one pending batch) beside one
/// key that is it followed by zeros: every level of the refinement
/// finds the run's windows all zero and one key longer, so the short
/// keys were carried along for 8 KiB of levels (n x 8192 key reads).
#[test]
fn key_order_reads_keys_a_bounded_number_of_times() {
    let n = 20_000;
    let mut keys: Vec<Vec<u8>> = vec![b"counter".to_vec(); n];
    let mut long = b"counter".to_vec();
    long.extend(vec![0u8; 65_000]);
    keys.push(long);
    keys.push(b"a".to_vec());
    let per_key = reads_per_key(&keys, true);
    assert!(per_key < 16, "{per_key} key reads per key");
}

/// Key reads per key of a `key_order` of `keys`, checked against a
/// naive sort.
fn reads_per_key(keys: &[Vec<u8>], fenced: bool) -> u64 {
    let reads = std::cell::Cell::new(0u64);
    let (got, _) = key_order(
        keys.len(),
        |i| {
            reads.set(reads.get() + 1);
            &keys[i][..]
        },
        fenced,
    )
    .unwrap();
    assert_eq!(got, naive(keys));
    reads.get() / keys.len() as u64
}

/// Keys that share 8 KiB past the common prefix (one key differs at
/// once) are sorted past that stretch in one step: read eight bytes a
/// level, each key was read about a thousand times before any window
/// differed (100,000 such keys of 1 KiB: 278 ms, now 83 ms).
#[test]
fn key_order_skips_a_stretch_a_whole_run_shares() {
    let per_key = reads_per_key(&sharing_9000(), false);
    assert!(per_key < 16, "{per_key} key reads per key");
}

#[test]
fn common_prefix_counts_the_bytes_two_slices_start_with_alike() {
    let a: Vec<u8> = (0..40).collect();
    for len in 0..=40 {
        for at in 0..=len {
            let mut b = a[..len].to_vec();
            if at < len {
                b[at] ^= 0x80;
            }
            let want = if at < len { at } else { len };
            assert_eq!(common_prefix(&a, &b), want, "len {len} at {at}");
            assert_eq!(common_prefix(&b, &a), want, "len {len} at {at} swapped");
        }
    }
}
