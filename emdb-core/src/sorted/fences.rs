//! A base's fences: the key window of every [`FENCE_STEP`]th entry, held
//! in memory beside the base, so a seek narrows to one step of entries
//! before it reads a record. Built by the sort that makes a base or after
//! enough seeks ([`FenceSlot`]), and searched in two levels ([`Fences`]).
//! The window (the 8 bytes after a known common prefix, as an integer) is
//! also what the sort compares first and what the search's guesses read,
//! so those helpers live here too (docs/ARCHITECTURE.md, "Sorted order").

use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

use zeroize::{Zeroize, Zeroizing};

use super::search::Alphabet;
use super::{Base, KeySource};
use crate::error::Result;
use crate::log::prefetch_all;

/// Entries between two fences of a base.
#[cfg(not(test))]
pub(super) const FENCE_STEP: usize = 4;
/// Seeks on a base after which its fences are built (a one-shot scan never
/// pays for them).
#[cfg(not(test))]
const FENCE_AFTER: u32 = 64;
/// Bases shorter than this are searched without fences.
#[cfg(not(test))]
pub(super) const FENCE_MIN: usize = 4096;
// Small in unit tests, so the model test seeks through fences.
#[cfg(test)]
pub(super) const FENCE_STEP: usize = 3;
#[cfg(test)]
const FENCE_AFTER: u32 = 2;
#[cfg(test)]
pub(super) const FENCE_MIN: usize = 2;

/// Sparse fences over a base: the key window of every [`FENCE_STEP`]th entry.
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(crate) struct Fences {
    /// The prefix every key of the base starts with (that of its first and
    /// last keys).
    prefix: Vec<u8>,
    /// [`window`] of entries `0, FENCE_STEP, 2 * FENCE_STEP, ...`.
    windows: Vec<u64>,
    /// Every `top_step`th of `windows`: what a search reads first.
    top: Vec<u64>,
    /// Windows per entry of `top` ([`FENCE_TOP`]).
    top_step: usize,
}

/// The prefix and windows are bytes of keys (decrypted ones in an
/// encrypted database): zeroed when the fences go.
impl Drop for Fences {
    fn drop(&mut self) {
        self.prefix.zeroize();
        self.windows.zeroize();
        self.top.zeroize();
    }
}

/// Fences per entry of [`Fences::top`]. A binary search of the windows
/// alone misses cache (and the TLB) at most of its ~18 halving steps at
/// 1M keys, the windows being 2 MiB; the top level (31 KiB at 1M keys)
/// stays in cache, and the block of windows it points to is 512 bytes.
#[cfg(not(test))]
const FENCE_TOP: usize = 64;
// Small in unit tests, so the model test's searches use both levels.
#[cfg(test)]
const FENCE_TOP: usize = 2;

/// The 8 bytes of `tail` as a big-endian integer (zero-padded), so integer
/// order is byte order.
#[inline]
pub(super) fn window(tail: &[u8]) -> u64 {
    Alphabet::Bytes.value(tail)
}

/// The (up to) 8 bytes of `k` from `p` on (none past its end): what a
/// [`window`] or a [`guess`](super::search::guess) reads of a key whose
/// first `p` bytes are a known common prefix.
#[inline]
pub(super) fn window_bytes(k: &[u8], p: usize) -> &[u8] {
    let t = k.get(p..).unwrap_or(&[]);
    &t[..t.len().min(8)]
}

/// Bytes `a` and `b` start with alike (8 at a time).
#[inline]
pub(super) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let mut n = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let (x, y) = (u64::from_le_bytes(word(x)), u64::from_le_bytes(word(y)));
        if x != y {
            return n + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    let (a, b) = (a.get(n..).unwrap_or(&[]), b.get(n..).unwrap_or(&[]));
    n + a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Eight bytes of `chunk` (`chunks_exact(8)` gives exactly eight).
#[inline]
fn word(chunk: &[u8]) -> [u8; 8] {
    let mut w = [0; 8];
    w.copy_from_slice(chunk);
    w
}

impl Fences {
    /// Read the keys at the fences of an order of `n >= 1` entries, entry
    /// `i` being the record at offset `at(i)`.
    pub(super) fn build(
        keys: KeySource<'_>,
        n: usize,
        at: impl Fn(usize) -> Result<u64>,
    ) -> Result<Fences> {
        let mut first = Vec::new();
        let mut k = Zeroizing::new(Vec::new());
        keys.read(at(0)?, &mut first)?;
        keys.read(at(n - 1)?, &mut k)?;
        let lcp = common_prefix(&first, &k);
        // The prefix is kept with the fences; the rest of the key is not.
        if let Some(rest) = first.get_mut(lcp..) {
            rest.zeroize();
        }
        first.truncate(lcp);
        // The fences' records in log order: one forward pass over the log
        // (the CPU and the kernel read ahead), where key order is a random
        // read per fence. The pairs take 16 bytes per fence (40 MB at 10M
        // keys) while the build runs, on its own thread.
        let mut offs = Vec::with_capacity(n.div_ceil(FENCE_STEP));
        for (f, i) in (0..n).step_by(FENCE_STEP).enumerate() {
            offs.push((at(i)?, f));
        }
        offs.sort_unstable();
        let mut windows = vec![0u64; offs.len()];
        for (off, f) in offs {
            keys.read(off, &mut k)?;
            if let Some(w) = windows.get_mut(f) {
                *w = window(window_bytes(&k, lcp));
            }
        }
        Ok(Fences::new(first, windows))
    }

    /// Fences of a base whose keys start with `prefix`, from the windows.
    pub(super) fn new(prefix: Vec<u8>, windows: Vec<u64>) -> Fences {
        Fences::with_top(prefix, windows, FENCE_TOP)
    }

    /// [`Fences::new`] with `top_step` windows per top entry (`>= 1`).
    pub(super) fn with_top(prefix: Vec<u8>, windows: Vec<u64>, top_step: usize) -> Fences {
        let top_step = top_step.max(1);
        let top = windows.iter().step_by(top_step).copied().collect();
        Fences {
            prefix,
            windows,
            top,
            top_step,
        }
    }

    /// `self.windows.partition_point(pred)` (`pred` true on a prefix of
    /// the windows): the top level first, then one block of windows.
    pub(super) fn partition(&self, pred: impl Fn(u64) -> bool) -> usize {
        let block = self.top.partition_point(|&w| pred(w));
        let Some(block) = block.checked_sub(1) else {
            return 0;
        };
        // Entry `block` of the top passes and entry `block + 1` (if any)
        // does not: the boundary is inside this block or at its end.
        let from = block * self.top_step;
        let to = (from + self.top_step).min(self.windows.len());
        let Some(b) = self.windows.get(from..to) else {
            return from;
        };
        // The halving reads about three of the block's lines, one after
        // the other; asked for together they arrive in about one miss.
        prefetch_all(b);
        from + b.partition_point(|&w| pred(w))
    }

    /// Where in a base of `n` entries the first key not before `s` can be
    /// (for `s` included or excluded alike): `lo..=hi`. An entry whose
    /// window is below `s`'s is before it; one above is after it.
    pub(super) fn bounds(&self, s: &[u8], n: usize) -> (usize, usize) {
        let p = &self.prefix;
        let m = s.len().min(p.len());
        match s[..m].cmp(&p[..m]) {
            std::cmp::Ordering::Less => return (0, 0),
            std::cmp::Ordering::Greater => return (n, n),
            std::cmp::Ordering::Equal if s.len() < p.len() => return (0, 0),
            std::cmp::Ordering::Equal => {}
        }
        let ws = window(&s[p.len()..]);
        let above = self.partition(|w| w <= ws);
        let hi = if above < self.windows.len() {
            (above * FENCE_STEP).min(n)
        } else {
            n
        };
        let below = self.below(above, ws);
        let lo = match below {
            0 => 0,
            c => ((c - 1) * FENCE_STEP + 1).min(hi),
        };
        (lo, hi)
    }

    /// `self.windows.partition_point(|w| w < ws)`, given `above`, the
    /// partition point of `w <= ws`: the windows between the two equal
    /// `ws`, usually none or one, so a short walk back from `above`
    /// instead of a second search (a search again past a few).
    pub(super) fn below(&self, above: usize, ws: u64) -> usize {
        const WALK: usize = 8;
        let mut i = above;
        while i > 0 && above - i < WALK {
            match self.windows.get(i - 1) {
                Some(&w) if w == ws => i -= 1,
                _ => return i,
            }
        }
        if i == 0 {
            0
        } else {
            self.partition(|w| w < ws)
        }
    }

    fn memory_bytes(&self) -> usize {
        (self.windows.len() + self.top.len()) * 8 + self.prefix.len()
    }
}

/// The fences of one base: from the sort that made it ([`sort_base`](super::sort_base)), or
/// built once it has been searched [`FENCE_AFTER`] times: by the range
/// iterator that finds them due
/// ([`FenceSlot::build_due`]), on a thread of its own, so no seek waits for
/// the build (at 10M keys it reads 2.5M records, in log order). Seeks
/// interpolate until then.
#[derive(Default)]
pub(crate) struct FenceSlot {
    pub(super) seeks: AtomicU32,
    /// Set by the one caller of [`FenceSlot::build_due`] that builds them.
    claimed: AtomicBool,
    pub(super) fences: OnceLock<Fences>,
}

impl FenceSlot {
    /// A slot holding `fences` from the start (built by the sort that made
    /// its base), or an empty one.
    pub(crate) fn ready(fences: Option<Fences>) -> Arc<FenceSlot> {
        Arc::new(FenceSlot {
            fences: fences.map(OnceLock::from).unwrap_or_default(),
            ..FenceSlot::default()
        })
    }

    /// Where the first entry of `base` not before `start` can be: `lo..=hi`
    /// (the whole base until the fences are built).
    pub(super) fn bounds(&self, base: &Base, start: &Bound<Vec<u8>>) -> (usize, usize) {
        let n = base.len();
        let s = match start {
            Bound::Included(s) | Bound::Excluded(s) => s,
            Bound::Unbounded => return (0, 0),
        };
        if let Some(f) = self.fences.get() {
            return f.bounds(s, n);
        }
        if n >= FENCE_MIN {
            // Saturating: counts on past FENCE_AFTER until the build claims it.
            let _ = self
                .seeks
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| c.checked_add(1));
        }
        (0, n)
    }

    /// True for exactly one caller once the base has been searched often
    /// enough: that caller builds the fences ([`FenceSlot::build`]).
    pub(crate) fn build_due(&self) -> bool {
        self.fences.get().is_none()
            && self.seeks.load(Ordering::Relaxed) >= FENCE_AFTER
            && self
                .claimed
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
    }

    /// Give the claim back (the build could not start): a later seek's
    /// caller claims it again.
    pub(crate) fn release(&self) {
        self.claimed.store(false, Ordering::Release);
    }

    /// Read the keys at the fences of `base` and keep them. A record that
    /// fails to read is reported by the reads that need it, not here:
    /// without fences the searches go on as before.
    pub(crate) fn build(&self, keys: KeySource<'_>, base: &Base) {
        if base.len() == 0 {
            return;
        }
        if let Ok(f) = Fences::build(keys, base.len(), |i| base.get(i)) {
            let _ = self.fences.set(f);
        }
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.fences.get().map_or(0, Fences::memory_bytes)
    }
}
