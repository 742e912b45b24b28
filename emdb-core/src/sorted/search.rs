//! Finding where a key goes in an order of log offsets ([`lower_bound`]),
//! where each key looked at is a record read (on a cold page cache, pages
//! from disk): so the search interpolates between the keys it has read
//! ([`guess`]) instead of halving, and falls back to halving on unevenly
//! spread keys (docs/ARCHITECTURE.md, "Sorted order").

use std::ops::Bound;

use zeroize::Zeroizing;

use super::fences::{common_prefix, window_bytes};
use super::is_before;
use crate::error::Result;

/// Ranges longer than this are searched by interpolation
/// ([`lower_bound`]); shorter ones by halving.
const INTERPOLATE_MIN: usize = 64;
/// Guesses of a [`lower_bound`] that may each leave more than half of the
/// range before it only halves.
const GUESS_MISSES: u32 = 3;

/// The first index in `lo..hi` (entries in key order) whose key is not
/// before `start`, or `hi`; `key_at(i, buf)` puts entry `i`'s key in
/// `buf` (one record read: on a cold page cache, pages from disk).
///
/// A binary search reads about log2(n) keys (24 at 10M keys). Long ranges
/// are searched by interpolation instead: once the keys at both ends of
/// the range are known, the next read is where `start` would lie if the
/// keys were spread evenly between them (by the 8 bytes after their
/// common prefix, read as digits: [`guess`]), which on evenly spread keys
/// takes a handful of reads. A guess that does not halve the range is
/// followed by a read at the middle, and after [`GUESS_MISSES`] such
/// guesses the search only halves, so unevenly spread keys cost a few
/// reads more than a binary search at most.
pub(crate) fn lower_bound(
    mut lo: usize,
    mut hi: usize,
    start: Bound<&[u8]>,
    mut key_at: impl FnMut(usize, &mut Vec<u8>) -> Result<()>,
) -> Result<usize> {
    let s = match start {
        Bound::Included(s) | Bound::Excluded(s) => s,
        Bound::Unbounded => return Ok(lo),
    };
    let before = |k: &[u8]| is_before(k, start);
    // Keys known to bracket the answer, kept while the search interpolates:
    // the one just below `lo` (before `start`) and the one at `hi` (not
    // before it). The three buffers trade places instead of allocating.
    // Zeroed when dropped: an encrypted database's keys are plaintext here.
    let mut below = Zeroizing::new(Vec::new());
    let mut above = Zeroizing::new(Vec::new());
    let (mut have_below, mut have_above) = (false, false);
    let mut k = Zeroizing::new(Vec::new());
    let mut halve = false;
    let mut misses = 0;
    while lo < hi {
        let span = hi - lo;
        let mut guessed = false;
        let interpolating = !halve && span > INTERPOLATE_MIN;
        let mid = if !interpolating {
            lo + span / 2
        } else if !have_below {
            // The ends first: each may settle the search alone.
            lo
        } else if !have_above {
            hi - 1
        } else {
            guessed = true;
            guess(&below, &above, s, lo, hi)
        };
        key_at(mid, &mut k)?;
        let is_before = before(&k);
        if is_before {
            lo = mid + 1;
        } else {
            hi = mid;
        }
        // Once the search only halves it never reads them again.
        if span > INTERPOLATE_MIN && misses < GUESS_MISSES {
            if is_before {
                std::mem::swap(&mut k, &mut below);
                have_below = true;
            } else {
                std::mem::swap(&mut k, &mut above);
                have_above = true;
            }
        }
        // After a guess that left more than half, halve once; after a few
        // such guesses (keys spread unevenly), halve to the end.
        if guessed && (hi - lo) * 2 > span {
            misses += 1;
            halve = true;
        } else {
            halve = misses >= GUESS_MISSES;
        }
    }
    Ok(lo)
}

/// Where in `lo..hi` a key `s` lies if the keys between `b` (the key just
/// below `lo`) and `a` (the key at `hi`) are spread evenly: by the 8 bytes
/// after `b`'s and `a`'s common prefix, read as digits of the smallest
/// alphabet that holds both (decimal, hexadecimal, letters and digits, or
/// bytes), so `user:00421337` is a number in base 10 and not in base 256,
/// where its digits would use 10 values of every 256. The middle when the
/// digits do not tell `b` and `a` apart.
pub(super) fn guess(b: &[u8], a: &[u8], s: &[u8], lo: usize, hi: usize) -> usize {
    let p = common_prefix(b, a);
    let (tb, ta) = (window_bytes(b, p), window_bytes(a, p));
    let alphabet = Alphabet::of(tb.iter().chain(ta).copied());
    let (wb, wa, ws) = (
        alphabet.value(tb),
        alphabet.value(ta),
        alphabet.value(window_bytes(s, p)),
    );
    if wa <= wb {
        return lo + (hi - lo) / 2;
    }
    let f = (ws.clamp(wb, wa) - wb) as f64 / (wa - wb) as f64;
    // `b` is entry lo - 1 and `a` entry hi: the guess spans both.
    let pos = (lo as f64 - 1.0) + f * ((hi - lo) as f64 + 1.0);
    (pos.round().max(lo as f64) as usize).min(hi - 1)
}

/// The digits a [`guess`] reads key bytes as.
#[derive(Clone, Copy)]
pub(super) enum Alphabet {
    /// `0`-`9`.
    Decimal,
    /// `0`-`9`, `a`-`f`.
    Hex,
    /// `0`-`9`, `A`-`Z`, `a`-`z`.
    Alphanumeric,
    /// Any byte.
    Bytes,
}

impl Alphabet {
    /// The smallest alphabet holding every byte of `bytes`.
    fn of(bytes: impl Iterator<Item = u8>) -> Alphabet {
        let mut smallest = Alphabet::Decimal;
        for c in bytes {
            smallest = match (smallest, c) {
                (Alphabet::Bytes, _) => Alphabet::Bytes,
                (_, b'0'..=b'9') => smallest,
                (Alphabet::Decimal | Alphabet::Hex, b'a'..=b'f') => Alphabet::Hex,
                (_, b'A'..=b'Z' | b'a'..=b'z') => Alphabet::Alphanumeric,
                _ => Alphabet::Bytes,
            };
        }
        smallest
    }

    /// The digit of byte `c`: a byte outside the alphabet counts as the
    /// nearest digit below it (the lowest when none is), so digit order
    /// follows byte order.
    fn digit(self, c: u8) -> u64 {
        // (first byte, digit of the first byte) of each run of digits.
        let runs: &[(u8, u8)] = match self {
            Alphabet::Bytes => return u64::from(c),
            Alphabet::Decimal => &[(b'0', 0)],
            Alphabet::Hex => &[(b'0', 0), (b'a', 10)],
            Alphabet::Alphanumeric => &[(b'0', 0), (b'A', 10), (b'a', 36)],
        };
        let last = self.base() as u8 - 1;
        let mut d = 0;
        for (i, &(first, digit)) in runs.iter().enumerate() {
            if c < first {
                break;
            }
            let next = runs.get(i + 1).map_or(last, |&(_, n)| n - 1);
            d = (digit + (c - first)).min(next);
        }
        u64::from(d)
    }

    /// Digits per position.
    fn base(self) -> u64 {
        match self {
            Alphabet::Decimal => 10,
            Alphabet::Hex => 16,
            Alphabet::Alphanumeric => 62,
            Alphabet::Bytes => 256,
        }
    }

    /// Up to 8 bytes as a number of this alphabet's digits (a key's end
    /// counts as the lowest digit): integer order follows key order.
    pub(super) fn value(self, k: &[u8]) -> u64 {
        (0..8).fold(0u64, |acc, i| {
            let d = k.get(i).map_or(0, |&c| self.digit(c));
            acc.wrapping_mul(self.base()).wrapping_add(d)
        })
    }
}
