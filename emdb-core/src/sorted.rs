//! Sorted order of one namespace, without a copy of any key in memory
//! (docs/ARCHITECTURE.md, "Sorted order").
//!
//! A namespace's records are ordered by `(key, log offset)` in two arrays of
//! log offsets:
//!
//! - the **base**: one entry per live key, as of the newest checkpoint or
//!   compaction, either mapped from the checkpoint file (version 2's sorted
//!   block; an encrypted database's is sealed in chunks, each decrypted
//!   on first use) or held in memory;
//! - the **delta**: every put and delete record written since, in order;
//!   new records first land unsorted in `pending` and are sorted into the
//!   delta when someone next reads in order.
//!
//! A key's current state is its entry with the highest offset (offsets only
//! grow within a log generation): a put is live unless it expired, a delete
//! hides every older entry. So iteration merges two sorted streams and never
//! probes the hash index. Keys are read from the log where they lie; only
//! sorting a batch of new records buffers their keys, for that sort.
//!
//! Memory stays bounded without anyone reading in order: when the unsorted
//! records outgrow twice the sorted ones (plus a constant), they are dropped
//! and the order is rebuilt from the hash index at the next ordered read.
//!
//! A base that is searched often, or made by a sort ([`sort_base`]), gets
//! **fences** ([`Fences`]): the 8 bytes after the keys' common prefix of
//! every [`FENCE_STEP`]th entry, so a seek narrows to one step of entries
//! in memory before it reads any record.

use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use zeroize::{Zeroize, Zeroizing};

use crate::crypto::Crypt;
use crate::error::{Error, Result};
use crate::format::checkpoint::{PAGE, SORTED_CHUNK};
use crate::format::header::HEADER_SIZE;
use crate::format::record::{self, Frame, Kind, Layout};
use crate::index::image::Image;
use crate::log::{prefetch_all, prefetch_span};
use crate::namespace::{check_crc, frame_at_checked, open_frame};

/// Unsorted records tolerated beyond twice the sorted ones before the
/// order is dropped (and rebuilt on the next ordered read).
#[cfg(not(test))]
const PENDING_SLACK: usize = 1 << 16;
/// Delta entries past which a refresh folds the delta into the base.
#[cfg(not(test))]
const FOLD_MIN: usize = 1 << 12;
// Small in unit tests, so every path (fold, drop, rebuild) runs often.
#[cfg(test)]
const PENDING_SLACK: usize = 6;
#[cfg(test)]
const FOLD_MIN: usize = 4;

/// Entries between two fences of a base.
#[cfg(not(test))]
const FENCE_STEP: usize = 4;
/// Seeks on a base after which its fences are built (a one-shot scan never
/// pays for them).
#[cfg(not(test))]
const FENCE_AFTER: u32 = 64;
/// Bases shorter than this are searched without fences.
#[cfg(not(test))]
const FENCE_MIN: usize = 4096;
// Small in unit tests, so the model test seeks through fences.
#[cfg(test)]
const FENCE_STEP: usize = 3;
#[cfg(test)]
const FENCE_AFTER: u32 = 2;
#[cfg(test)]
const FENCE_MIN: usize = 2;

/// Records a merge asks the CPU to load ahead of its position in each
/// stream (the next pairs of a range read are then in flight together
/// instead of one cache miss after another).
const AHEAD: usize = 6;
/// Bytes of a record loaded ahead: its head and key, and on most records
/// the value too.
const AHEAD_BYTES: usize = 192;

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
fn window(tail: &[u8]) -> u64 {
    Alphabet::Bytes.value(tail)
}

/// The (up to) 8 bytes of `k` from `p` on (none past its end): what a
/// [`window`] or a [`guess`] reads of a key whose first `p` bytes are a
/// known common prefix.
#[inline]
fn window_bytes(k: &[u8], p: usize) -> &[u8] {
    let t = k.get(p..).unwrap_or(&[]);
    &t[..t.len().min(8)]
}

/// Bytes `a` and `b` start with alike (8 at a time).
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
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
    fn build(keys: KeySource<'_>, n: usize, at: impl Fn(usize) -> Result<u64>) -> Result<Fences> {
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
    fn new(prefix: Vec<u8>, windows: Vec<u64>) -> Fences {
        Fences::with_top(prefix, windows, FENCE_TOP)
    }

    /// [`Fences::new`] with `top_step` windows per top entry (`>= 1`).
    fn with_top(prefix: Vec<u8>, windows: Vec<u64>, top_step: usize) -> Fences {
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
    fn partition(&self, pred: impl Fn(u64) -> bool) -> usize {
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
    fn bounds(&self, s: &[u8], n: usize) -> (usize, usize) {
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
    fn below(&self, above: usize, ws: u64) -> usize {
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

/// True when `k` comes before the first key a walk from `start` returns.
#[inline]
fn is_before(k: &[u8], start: Bound<&[u8]>) -> bool {
    match start {
        Bound::Included(s) => k < s,
        Bound::Excluded(s) => k <= s,
        Bound::Unbounded => false,
    }
}

/// Fail unless `kind` is what a sorted index points at.
#[inline(always)]
fn put_or_delete(off: u64, kind: Kind) -> Result<()> {
    if matches!(kind, Kind::Put | Kind::Delete) {
        Ok(())
    } else {
        Err(Error::corruption(
            off,
            "sorted index points at a record that is not a put or delete",
        ))
    }
}

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
fn guess(b: &[u8], a: &[u8], s: &[u8], lo: usize, hi: usize) -> usize {
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
enum Alphabet {
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
    fn value(self, k: &[u8]) -> u64 {
        (0..8).fold(0u64, |acc, i| {
            let d = k.get(i).map_or(0, |&c| self.digit(c));
            acc.wrapping_mul(self.base()).wrapping_add(d)
        })
    }
}

/// The fences of one base: from the sort that made it ([`sort_base`]), or
/// built once it has been searched [`FENCE_AFTER`] times: by the range
/// iterator that finds them due
/// ([`FenceSlot::build_due`]), on a thread of its own, so no seek waits for
/// the build (at 10M keys it reads 2.5M records, in log order). Seeks
/// interpolate until then.
#[derive(Default)]
pub(crate) struct FenceSlot {
    seeks: AtomicU32,
    /// Set by the one caller of [`FenceSlot::build_due`] that builds them.
    claimed: AtomicBool,
    fences: OnceLock<Fences>,
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
    fn bounds(&self, base: &Base, start: &Bound<Vec<u8>>) -> (usize, usize) {
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

    fn memory_bytes(&self) -> usize {
        self.fences.get().map_or(0, Fences::memory_bytes)
    }
}

/// The base: one offset per live key, in key order.
#[derive(Clone)]
pub(crate) enum Base {
    /// Built in memory (compaction, a checkpoint, a rebuild).
    Heap(Arc<[u64]>),
    /// A checkpoint's sorted block, used where it lies: `len` offsets from
    /// file byte `at`, each page checked against its CRC on first use.
    Mapped {
        image: Arc<Image>,
        at: usize,
        len: usize,
    },
    /// An encrypted database's checkpoint sorted block, in sealed chunks
    /// opened on first use (docs/FORMAT.md).
    Sealed(Arc<SealedBase>),
}

/// A sealed sorted block: `len` offsets in chunks of
/// [`SORTED_CHUNK`](crate::format::checkpoint::SORTED_CHUNK), one per page
/// from file byte `at`, each decrypted the first time an entry of it is
/// read and kept (8 bytes per offset opened).
pub(crate) struct SealedBase {
    image: Arc<Image>,
    crypt: Arc<Crypt>,
    at: usize,
    len: usize,
    /// Associated data of every chunk, without the chunk's index.
    aad: Vec<u8>,
    chunks: Box<[OnceLock<Box<[u64]>>]>,
}

impl SealedBase {
    /// The block of `len` offsets at file byte `at` of `image`, whose
    /// chunks are bound to `aad` (`format::checkpoint::sorted_aad_prefix`).
    pub(crate) fn new(
        image: Arc<Image>,
        crypt: Arc<Crypt>,
        at: usize,
        len: usize,
        aad: Vec<u8>,
    ) -> SealedBase {
        let chunks = (0..len.div_ceil(SORTED_CHUNK))
            .map(|_| OnceLock::new())
            .collect();
        SealedBase {
            image,
            crypt,
            at,
            len,
            aad,
            chunks,
        }
    }

    /// Entry `i`, opening its chunk if no read did yet.
    #[inline]
    fn get(&self, i: usize) -> Result<u64> {
        let c = i / SORTED_CHUNK;
        let Some(slot) = self.chunks.get(c).filter(|_| i < self.len) else {
            return Err(Error::corruption(0, "sorted index read past its end"));
        };
        let chunk = match slot.get() {
            Some(chunk) => chunk,
            None => {
                // Two readers may both open it; either result is the same.
                let _ = slot.set(self.open(c)?);
                slot.get()
                    .ok_or_else(|| Error::corruption(0, "sorted chunk not kept"))?
            }
        };
        chunk
            .get(i % SORTED_CHUNK)
            .copied()
            .ok_or_else(|| Error::corruption(0, "sorted index read past its end"))
    }

    /// Check, authenticate and decrypt chunk `c`.
    #[cold]
    fn open(&self, c: usize) -> Result<Box<[u64]>> {
        let byte = self.at + c * crate::format::checkpoint::PAGE;
        let n = (self.len - c * SORTED_CHUNK).min(SORTED_CHUNK);
        let sealed_len = n * 8 + crate::format::checkpoint::TABLE_SEAL_OVERHEAD as usize;
        let raw = self
            .image
            .page_bytes(byte, sealed_len, "sorted block outside the checkpoint")?;
        let mut aad = self.aad.clone();
        aad.extend_from_slice(&(c as u64).to_le_bytes());
        let plain = self.crypt.open_blob(&aad, raw).ok_or_else(|| {
            self.image
                .damaged(byte, "sorted block chunk failed authentication")
        })?;
        Ok(plain
            .chunks_exact(8)
            .filter_map(|b| crate::format::read_u64(b, 0))
            .collect())
    }

    /// Bytes of the chunks opened so far.
    fn memory_bytes(&self) -> usize {
        self.chunks
            .iter()
            .filter_map(OnceLock::get)
            .map(|c| c.len() * 8)
            .sum()
    }
}

impl Base {
    /// No entries.
    pub(crate) fn empty() -> Base {
        Base::Heap(Arc::from(Vec::new()))
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        match self {
            Base::Heap(v) => v.len(),
            Base::Mapped { len, .. } => *len,
            Base::Sealed(b) => b.len,
        }
    }

    /// Entry `i` (`i < len`).
    #[inline(always)]
    fn get(&self, i: usize) -> Result<u64> {
        match self {
            Base::Heap(v) => v
                .get(i)
                .copied()
                .ok_or_else(|| Error::corruption(0, "sorted index read past its end")),
            Base::Mapped { image, at, len } => {
                if i >= *len {
                    return Err(Error::corruption(0, "sorted index read past its end"));
                }
                let byte = at + i * 8;
                // With the checkpoint's path: a log offset has none, and
                // a read error without one is checked against the log.
                let what = "sorted block outside the checkpoint";
                let raw = image.page_bytes(byte, 8, what)?;
                crate::format::read_u64(raw, 0).ok_or_else(|| image.damaged(byte, what))
            }
            Base::Sealed(b) => b.get(i),
        }
    }

    /// Entries `from..to` as their little-endian bytes, handed to `f` a
    /// run at a time (a mapped block's runs are its pages, each checked
    /// against its CRC first, and are the file's own bytes): for passes
    /// over a whole order, where [`Base::get`] would check every entry's
    /// page.
    fn runs(&self, from: usize, to: usize, mut f: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        if from >= to {
            return Ok(());
        }
        if to > self.len() {
            return Err(Error::corruption(0, "sorted index read past its end"));
        }
        match self {
            Base::Mapped { image, at, .. } => {
                let what = "sorted block outside the checkpoint";
                let (mut byte, end) = (at + from * 8, at + to * 8);
                while byte < end {
                    let page_end = (byte / PAGE + 1) * PAGE;
                    let len = page_end.min(end) - byte;
                    f(image.page_bytes(byte, len, what)?)?;
                    byte += len;
                }
                Ok(())
            }
            Base::Heap(v) => {
                let mut buf = [0u8; 8 * 512];
                for part in v.get(from..to).unwrap_or_default().chunks(512) {
                    for (b, o) in buf.chunks_exact_mut(8).zip(part) {
                        b.copy_from_slice(&o.to_le_bytes());
                    }
                    f(buf.get(..part.len() * 8).unwrap_or_default())?;
                }
                Ok(())
            }
            Base::Sealed(b) => {
                for i in from..to {
                    f(&b.get(i)?.to_le_bytes())?;
                }
                Ok(())
            }
        }
    }
}

/// What the sorted order of a namespace currently holds.
struct State {
    /// False: nothing is tracked; the next ordered read rebuilds from the
    /// hash index.
    built: bool,
    base: Base,
    /// The base's fences (a new slot whenever the base changes).
    fences: Arc<FenceSlot>,
    /// Records since the base, sorted by `(key, offset)`.
    delta: Arc<Vec<u64>>,
    /// Records since the delta was last sorted, in log order.
    pending: Vec<u64>,
    /// Bumped when the order is replaced (clear, drop, rebuild, adopt), so a
    /// refresh computed meanwhile is discarded.
    epoch: u64,
}

/// The sorted order of one namespace of one log generation.
pub(crate) struct Sorted {
    state: Mutex<State>,
    /// Serialises refreshes and rebuilds (they read the log, outside `state`).
    refresh: Mutex<()>,
    /// A writer's last checkpointed order, from which the next
    /// checkpoint's sort starts ([`sort_from`]).
    checkpointed: Mutex<Option<Checkpointed>>,
}

/// The order of exactly the live keys as of a log offset `end`, which a
/// writer's last checkpoint wrote or its open loaded.
#[derive(Clone)]
enum Checkpointed {
    /// Kept for as long as the writer lives (an encrypted database's: a
    /// sort costs a decryption per key, so 8 bytes a key are worth it).
    Kept { end: u64, base: Base },
    /// The base, for as long as it stays the base (the order's epoch
    /// unchanged): a plain database's, which costs no memory of its own.
    AsBase { end: u64, epoch: u64 },
}

/// True when both are the same base (not a copy).
fn same_base(a: &Base, b: &Base) -> bool {
    match (a, b) {
        (Base::Heap(x), Base::Heap(y)) => Arc::ptr_eq(x, y),
        (
            Base::Mapped {
                image: x, at: a1, ..
            },
            Base::Mapped {
                image: y, at: a2, ..
            },
        ) => Arc::ptr_eq(x, y) && a1 == a2,
        (Base::Sealed(x), Base::Sealed(y)) => Arc::ptr_eq(x, y),
        _ => false,
    }
}

/// Delta length from which a refresh folds it into a base of `base_len`.
fn fold_at(base_len: usize) -> usize {
    FOLD_MIN.max(base_len / 4)
}

/// What [`Sorted::begin`] found.
pub(crate) enum Refresh<'a> {
    /// Nothing to sort.
    Ready(View),
    /// Work for [`Sorted::finish`], holding the refresh lock.
    Work(parking_lot::MutexGuard<'a, ()>, Work),
}

/// A refresh in progress.
pub(crate) struct Work {
    rebuild: bool,
    base: Base,
    delta: Arc<Vec<u64>>,
    pending: Vec<u64>,
    epoch: u64,
}

/// A consistent snapshot of a namespace's order, for one iterator.
#[derive(Clone)]
pub(crate) struct View {
    pub base: Base,
    /// The base's fences.
    pub fences: Arc<FenceSlot>,
    pub delta: Arc<Vec<u64>>,
}

/// Where keys are read from: the generation's log bytes and record keys.
#[derive(Clone, Copy)]
pub(crate) struct KeySource<'a> {
    pub bytes: &'a [u8],
    pub crypt: Option<&'a Crypt>,
}

/// The parts of a record the order needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    pub kind: Kind,
    pub expires_at: u64,
}

impl<'a> KeySource<'a> {
    /// The put or delete record at `off`, decrypted into `scratch` when
    /// sealed. The CRC is not checked here (readers verify the records
    /// they return).
    #[inline]
    fn frame<'s>(&self, off: u64, scratch: &'s mut Vec<u8>) -> Result<Frame<'s>>
    where
        'a: 's,
    {
        self.start_of(off)?;
        let f = frame_at_checked(self.bytes, off, false)?;
        if f.sealed && scratch.capacity() < f.value.len() {
            // A reused buffer grows here, zeroed first: a reallocation
            // would leave the decrypted bytes it held in freed memory.
            scratch.zeroize();
            scratch.reserve(f.value.len());
        }
        let f = open_frame(f, off, self.crypt, scratch)?;
        put_or_delete(off, f.kind)?;
        Ok(f)
    }

    /// `off` as a position in `bytes`, where a record can start (past the
    /// file header, before the end).
    #[inline(always)]
    fn start_of(&self, off: u64) -> Result<usize> {
        usize::try_from(off)
            .ok()
            .filter(|&o| o >= HEADER_SIZE && o < self.bytes.len())
            .ok_or_else(|| Error::corruption(off, "sorted index points outside the log"))
    }

    /// Where the plain put or delete record at `off` starts in `bytes`,
    /// and its layout: [`KeySource::frame`] for a database without
    /// encryption, with no frame built (what a range read does per pair).
    /// The CRC is not checked here.
    #[inline(always)]
    fn plain(&self, off: u64) -> Result<(usize, Layout)> {
        let start = self.start_of(off)?;
        let buf = self.bytes.get(start..).unwrap_or_default();
        let l = record::layout(buf).map_err(|e| Error::corruption(off, e.reason()))?;
        if l.sealed {
            return Err(Error::corruption(
                off,
                "encrypted record in a database opened without encryption",
            ));
        }
        put_or_delete(off, l.kind)?;
        Ok((start, l))
    }

    /// Where the key of the plain record at `off` lies in `bytes` (start,
    /// length); `layout` checked the whole frame lies inside them.
    #[inline(always)]
    fn plain_key(&self, off: u64) -> Result<(usize, usize)> {
        let (start, l) = self.plain(off)?;
        Ok((start + l.key_at, l.key_len))
    }

    /// The key of the record at `off`, a slice of the log for a plain
    /// record or of `scratch` (decrypted) for a sealed one. The CRC is not
    /// checked here.
    #[inline]
    fn key<'s>(&self, off: u64, scratch: &'s mut Vec<u8>) -> Result<&'s [u8]>
    where
        'a: 's,
    {
        if self.crypt.is_none() {
            let (at, len) = self.plain_key(off)?;
            return self
                .bytes
                .get(at..at + len)
                .ok_or_else(|| Error::corruption(off, "record key outside the log"));
        }
        Ok(self.frame(off, scratch)?.key)
    }

    /// Read the record at `off` for a merge: where its key and value lie
    /// (in the log when plain, in `buf` when sealed, decrypted there).
    /// The CRC is not checked here ([`Merge::item`] checks the winners).
    #[inline(always)]
    fn load(&self, off: u64, buf: &mut Vec<u8>) -> Result<Rec> {
        if self.crypt.is_none() {
            // `layout` checked the frame lies inside `bytes`.
            let (start, l) = self.plain(off)?;
            let key = start + l.key_at;
            return Ok(Rec {
                off,
                head: Head {
                    kind: l.kind,
                    expires_at: l.expires_at,
                },
                ns: l.ns,
                len: l.total,
                key: (key, l.key_len),
                value: (key + l.key_len, l.value_len),
            });
        }
        let f = self.frame(off, buf)?;
        let (key, value) = (
            (f.key.as_ptr() as usize, f.key.len()),
            (f.value.as_ptr() as usize, f.value.len()),
        );
        let (kind, ns, expires_at, len) = (f.kind, f.ns, f.expires_at, f.len);
        // Positions in `buf`, which the sealed record was decrypted into.
        let src = buf.as_slice();
        let at = |(ptr, n): (usize, usize)| -> Result<(usize, usize)> {
            let start = ptr.wrapping_sub(src.as_ptr() as usize);
            match start.checked_add(n) {
                Some(end) if end <= src.len() => Ok((start, n)),
                _ => Err(Error::corruption(
                    off,
                    "record outside the bytes it was read from",
                )),
            }
        };
        Ok(Rec {
            off,
            head: Head { kind, expires_at },
            ns,
            len,
            key: at(key)?,
            value: at(value)?,
        })
    }

    /// Where the key of the plain record at `off` lies in `bytes`
    /// (start, length); `None` for a sealed record, whose key must be
    /// decrypted ([`KeySource::read`]). The CRC is not checked here.
    pub(crate) fn span(&self, off: u64) -> Result<Option<(usize, usize)>> {
        if self.crypt.is_some() {
            return Ok(None);
        }
        self.plain_key(off).map(Some)
    }

    /// Read the record at `off`: its key into `key`, and its kind and expiry.
    /// The CRC is not checked here (readers verify the records they return).
    #[inline]
    pub(crate) fn read(&self, off: u64, key: &mut Vec<u8>) -> Result<Head> {
        let mut scratch = zeroize::Zeroizing::new(Vec::new());
        let f = self.frame(off, &mut scratch)?;
        if key.capacity() < f.key.len() {
            // Zeroed before it grows: a reallocation would leave the
            // (maybe decrypted) key it held in freed memory.
            key.zeroize();
            key.reserve(f.key.len());
        }
        key.clear();
        key.extend_from_slice(f.key);
        Ok(Head {
            kind: f.kind,
            expires_at: f.expires_at,
        })
    }
}

impl Sorted {
    /// An empty, tracked order (a new namespace, a replay from scratch).
    pub(crate) fn new() -> Sorted {
        Sorted::with(true, Base::empty())
    }

    /// An order that is not known yet (a checkpoint without a sorted block):
    /// rebuilt from the hash index at the first ordered read.
    pub(crate) fn unbuilt() -> Sorted {
        Sorted::with(false, Base::empty())
    }

    /// An order starting from `base`.
    pub(crate) fn over(base: Base) -> Sorted {
        Sorted::with(true, base)
    }

    fn with(built: bool, base: Base) -> Sorted {
        Sorted {
            state: Mutex::new(State {
                built,
                base,
                fences: Arc::default(),
                delta: Arc::new(Vec::new()),
                pending: Vec::new(),
                epoch: 0,
            }),
            refresh: Mutex::new(()),
            checkpointed: Mutex::new(None),
        }
    }

    /// Keep `base` as the namespace's order as of log offset `end`,
    /// exactly the live keys then (an encrypted database's checkpoint):
    /// the next checkpoint's sort starts from it.
    pub(crate) fn set_checkpointed(&self, end: u64, base: Base) {
        *self.checkpointed.lock() = Some(Checkpointed::Kept { end, base });
    }

    /// Note that the base, as it is now, is the namespace's order as of
    /// log offset `end`, exactly the live keys then (a plain database's
    /// checkpoint, opened): the next checkpoint's sort starts from it
    /// while it stays the base.
    pub(crate) fn base_is_checkpointed(&self, end: u64) {
        let epoch = self.state.lock().epoch;
        *self.checkpointed.lock() = Some(Checkpointed::AsBase { end, epoch });
    }

    /// The last checkpointed order, if any is still at hand, with the log
    /// offset it is complete as of.
    pub(crate) fn checkpointed(&self) -> Option<(u64, Base)> {
        // Not both locks at once: `memory_bytes` takes them the other way.
        let kept = self.checkpointed.lock().clone();
        match kept? {
            Checkpointed::Kept { end, base } => Some((end, base)),
            Checkpointed::AsBase { end, epoch } => {
                let s = self.state.lock();
                (s.epoch == epoch && s.built).then(|| (end, s.base.clone()))
            }
        }
    }

    /// The key `skip` entries past the first one not before `start` in the
    /// base, if the base has it and it is inside `end`: with only the base
    /// read (no delta), a bound past which a range read need not look for
    /// its first pairs when few of the base's keys were removed since.
    pub(crate) fn base_key_past(
        &self,
        keys: KeySource<'_>,
        start: Bound<&[u8]>,
        end: Bound<&[u8]>,
        skip: usize,
    ) -> Result<Option<Vec<u8>>> {
        let base = self.state.lock().base.clone();
        let n = base.len();
        let first = lower_bound(0, n, start, |i, k| {
            keys.read(base.get(i)?, k)?;
            Ok(())
        })?;
        let Some(at) = first.checked_add(skip).filter(|&i| i < n) else {
            return Ok(None);
        };
        let mut key = Vec::new();
        keys.read(base.get(at)?, &mut key)?;
        let inside = match end {
            Bound::Included(e) => key.as_slice() <= e,
            Bound::Excluded(e) => key.as_slice() < e,
            Bound::Unbounded => true,
        };
        Ok(inside.then_some(key))
    }

    /// A put or delete record of this namespace was indexed at `off`.
    #[inline]
    pub(crate) fn note(&self, off: u64) {
        self.note_many(std::slice::from_ref(&off));
    }

    /// [`Sorted::note`] for each of `offs` (in log order), under one lock.
    pub(crate) fn note_many(&self, offs: &[u64]) {
        let mut s = self.state.lock();
        if !s.built || offs.is_empty() {
            return;
        }
        s.pending.extend_from_slice(offs);
        if s.pending.len() > PENDING_SLACK + 2 * (s.base.len() + s.delta.len()) {
            // Nobody reads in order: stop paying for it.
            *s = State {
                built: false,
                base: Base::empty(),
                fences: Arc::default(),
                delta: Arc::new(Vec::new()),
                pending: Vec::new(),
                epoch: s.epoch + 1,
            };
        }
    }

    /// Every key was removed (a `Clear` record).
    pub(crate) fn clear(&self) {
        let mut s = self.state.lock();
        *s = State {
            built: true,
            base: Base::empty(),
            fences: Arc::default(),
            delta: Arc::new(Vec::new()),
            pending: Vec::new(),
            epoch: s.epoch + 1,
        };
    }

    /// Start a snapshot for an ordered read. `Ready` when nothing needs
    /// sorting; otherwise the work to hand to [`Sorted::finish`] with key
    /// bytes loaded *after* this call (so they cover every record noted
    /// before it).
    pub(crate) fn begin(&self) -> Refresh<'_> {
        let guard = self.refresh.lock();
        let mut s = self.state.lock();
        if s.built && s.pending.is_empty() && s.delta.len() < fold_at(s.base.len()) {
            return Refresh::Ready(View {
                base: s.base.clone(),
                fences: Arc::clone(&s.fences),
                delta: Arc::clone(&s.delta),
            });
        }
        let work = if !s.built {
            // Track from now on; the rebuild covers what came before.
            s.built = true;
            s.epoch += 1;
            s.base = Base::empty();
            s.fences = Arc::default();
            s.delta = Arc::new(Vec::new());
            s.pending.clear();
            Work {
                rebuild: true,
                base: Base::empty(),
                delta: Arc::new(Vec::new()),
                pending: Vec::new(),
                epoch: s.epoch,
            }
        } else {
            Work {
                rebuild: false,
                base: s.base.clone(),
                delta: Arc::clone(&s.delta),
                pending: std::mem::take(&mut s.pending),
                epoch: s.epoch,
            }
        };
        Refresh::Work(guard, work)
    }

    /// Finish a snapshot [`Sorted::begin`] started: sort what was pending,
    /// fold a large delta into the base, or rebuild the order from `live`
    /// (the hash index's offsets) when it was not known.
    pub(crate) fn finish(
        &self,
        refresh: Refresh<'_>,
        keys: KeySource<'_>,
        live: impl FnOnce() -> Result<Vec<u64>>,
    ) -> Result<View> {
        let (_guard, work) = match refresh {
            Refresh::Ready(v) => return Ok(v),
            Refresh::Work(g, w) => (g, w),
        };
        let done = self.compute(keys, live, &work);
        let mut s = self.state.lock();
        let (base, delta, built) = match done {
            Ok(x) => x,
            Err(e) => {
                if s.epoch == work.epoch && !work.rebuild {
                    // Keep what was pending for the next try.
                    let mut back = work.pending;
                    back.append(&mut s.pending);
                    s.pending = back;
                } else if s.epoch == work.epoch {
                    // The rebuild failed: stop tracking until the next try.
                    *s = State {
                        built: false,
                        base: Base::empty(),
                        fences: Arc::default(),
                        delta: Arc::new(Vec::new()),
                        pending: Vec::new(),
                        epoch: work.epoch + 1,
                    };
                }
                return Err(e);
            }
        };
        let fences = if same_base(&s.base, &base) {
            Arc::clone(&s.fences)
        } else {
            FenceSlot::ready(built)
        };
        if s.epoch == work.epoch {
            if !work.rebuild && !same_base(&s.base, &base) {
                // Folded: a checkpoint taken before must not replace this base.
                s.epoch += 1;
            }
            s.base = base.clone();
            s.fences = Arc::clone(&fences);
            s.delta = Arc::clone(&delta);
        }
        // Otherwise the order was replaced meanwhile; this snapshot is still
        // a consistent view of the records it covers.
        Ok(View {
            base,
            fences,
            delta,
        })
    }

    fn compute(
        &self,
        keys: KeySource<'_>,
        live: impl FnOnce() -> Result<Vec<u64>>,
        work: &Work,
    ) -> Result<(Base, Arc<Vec<u64>>, Option<Fences>)> {
        if work.rebuild {
            // A follower may index records after `keys` was loaded, and
            // `live` lists what the index holds now: a record past the
            // loaded bytes was indexed after `begin`, so it was noted
            // into `pending` and the next refresh sorts it.
            let end = keys.bytes.len() as u64;
            let mut offs = live()?;
            offs.retain(|&o| o < end);
            let order = sort_base(keys, offs)?;
            let base = Base::Heap(Arc::from(order.offs));
            return Ok((base, Arc::new(Vec::new()), order.fences));
        }
        let fresh = sort_offsets(keys, work.pending.clone())?;
        let delta = merge(keys, &work.delta, &fresh)?;
        if delta.len() >= fold_at(work.base.len()) {
            let view = View {
                base: work.base.clone(),
                fences: Arc::default(),
                delta: Arc::new(delta),
            };
            let folded = fold(keys, &view)?;
            let base = Base::Heap(Arc::from(folded.offs));
            return Ok((base, Arc::new(Vec::new()), folded.fences));
        }
        Ok((work.base.clone(), Arc::new(delta), None))
    }

    /// Adopt `base` and its `fences` (computed from a snapshot covering the
    /// log below `covered_end`, taken at `epoch`) when the order is still
    /// the one the snapshot saw and is kept: records below `covered_end`
    /// leave the delta. An order dropped meanwhile or before is left to
    /// [`Sorted::adopt_dropped`]. With `checkpointed` (a plain database's
    /// checkpoint), the adopted base is also the order the next
    /// checkpoint starts from ([`Sorted::base_is_checkpointed`]). Waits
    /// for a refresh in progress, so it must not be called with the writer
    /// lock held (a refresh can take a second, and writers would wait for
    /// it).
    pub(crate) fn adopt_kept(
        &self,
        epoch: u64,
        base: Arc<[u64]>,
        fences: Arc<FenceSlot>,
        covered_end: u64,
        checkpointed: bool,
    ) {
        let _r = self.refresh.lock();
        let mut s = self.state.lock();
        if s.epoch != epoch || !s.built {
            return;
        }
        s.base = Base::Heap(base);
        s.fences = fences;
        let delta: Vec<u64> = s
            .delta
            .iter()
            .copied()
            .filter(|&o| o >= covered_end)
            .collect();
        s.delta = Arc::new(delta);
        s.pending.retain(|&o| o >= covered_end);
        s.epoch += 1;
        if checkpointed {
            let epoch = s.epoch;
            *self.checkpointed.lock() = Some(Checkpointed::AsBase {
                end: covered_end,
                epoch,
            });
        }
    }

    /// True when the order was dropped and nothing replaced it since the
    /// snapshot taken at `epoch`: [`Sorted::adopt_dropped`] would take it
    /// up.
    pub(crate) fn dropped_at(&self, epoch: u64) -> bool {
        let s = self.state.lock();
        s.epoch == epoch && !s.built
    }

    /// Take up an order dropped before the snapshot taken at `epoch` with
    /// its `base` and `fences`. A dropped order noted no record since, so
    /// the base alone would miss what was written after the snapshot's
    /// `covered_end`: `since` is those records' offsets in log order,
    /// which the caller lists with no write landing until this returns
    /// (the writer lock). With `checkpointed` (a plain database's
    /// checkpoint, the end it covers), the base is also the order the next
    /// checkpoint starts from. Takes only the state lock: any refresh of a
    /// dropped order is a rebuild, whose `begin` changed the epoch, so an
    /// unchanged epoch means none is running.
    pub(crate) fn adopt_dropped(
        &self,
        epoch: u64,
        base: Arc<[u64]>,
        fences: Arc<FenceSlot>,
        since: Vec<u64>,
        checkpointed: Option<u64>,
    ) {
        let mut s = self.state.lock();
        if s.epoch != epoch || s.built {
            return;
        }
        *s = State {
            built: true,
            base: Base::Heap(base),
            fences,
            delta: Arc::new(Vec::new()),
            pending: since,
            epoch: epoch + 1,
        };
        if let Some(end) = checkpointed {
            *self.checkpointed.lock() = Some(Checkpointed::AsBase {
                end,
                epoch: epoch + 1,
            });
        }
    }

    /// Start over from `base` (compaction: nothing was noted yet).
    pub(crate) fn replace_base(&self, base: Base) {
        let _r = self.refresh.lock();
        let mut s = self.state.lock();
        let epoch = s.epoch + 1;
        *s = State {
            built: true,
            base,
            fences: Arc::default(),
            delta: Arc::new(Vec::new()),
            pending: Vec::new(),
            epoch,
        };
    }

    /// The base and its fences (unit tests).
    #[cfg(test)]
    fn base_and_fences(&self) -> (Base, Arc<FenceSlot>) {
        let s = self.state.lock();
        (s.base.clone(), Arc::clone(&s.fences))
    }

    /// The current epoch (see [`Sorted::adopt_kept`]).
    pub(crate) fn epoch(&self) -> u64 {
        self.state.lock().epoch
    }

    /// Bytes of memory its entries take (8 per offset held in memory,
    /// the checkpointed order's too when it is not the base; a mapped
    /// base is not counted). Counted by entries, not allocations, so
    /// sorting pending records into the delta leaves it unchanged.
    pub(crate) fn memory_bytes(&self) -> usize {
        fn entries(b: &Base) -> usize {
            match b {
                Base::Heap(v) => v.len(),
                Base::Mapped { .. } => 0,
                Base::Sealed(b) => b.memory_bytes() / 8,
            }
        }
        let s = self.state.lock();
        // The checkpointed order, when it is no longer the base.
        let kept = match &*self.checkpointed.lock() {
            Some(Checkpointed::Kept { base, .. }) if !same_base(base, &s.base) => entries(base),
            _ => 0,
        };
        (entries(&s.base) + kept + s.delta.len() + s.pending.len()) * 8 + s.fences.memory_bytes()
    }
}

/// Offsets in `(key, offset)` order, with the fences of that order when
/// it was sorted as a base ([`sort_base`], [`sort_from`]).
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(crate) struct Order {
    /// The offsets, sorted by `(key, offset)`.
    pub offs: Vec<u64>,
    /// Fences over `offs` as a base: none below [`FENCE_MIN`] entries or
    /// when not asked for.
    pub fences: Option<Fences>,
}

/// Sort record offsets by `(key, offset)`. Keys are read once into one
/// buffer; the sort compares the 8 bytes after the keys' common prefix as an
/// integer first, so most comparisons touch neither the log nor the buffer.
pub(crate) fn sort_offsets(keys: KeySource<'_>, offs: Vec<u64>) -> Result<Vec<u64>> {
    Ok(sort(keys, offs, false)?.offs)
}

/// [`sort_offsets`] for a new base, with its fences. The sort computes
/// every key's window anyway, so they cost a copy of every
/// [`FENCE_STEP`]th one (keys already in order are read again, in log
/// order); a base that comes with its fences has them from its first seek
/// instead of after a build on another thread, during which seeks read 3-5
/// records each.
pub(crate) fn sort_base(keys: KeySource<'_>, offs: Vec<u64>) -> Result<Order> {
    sort(keys, offs, true)
}

fn sort(keys: KeySource<'_>, mut offs: Vec<u64>, fenced: bool) -> Result<Order> {
    let fenced = fenced && offs.len() >= FENCE_MIN;
    if offs.len() < 2 {
        return Ok(Order { offs, fences: None });
    }
    // Read the keys in log order: a forward pass the CPU prefetches, where
    // the hash index's order would be one cache miss per key.
    sort_u64(&mut offs);
    // Fences of offsets that were in key order already, read again.
    let as_is = |offs: Vec<u64>| with_fences(keys, offs, fenced);
    // Keys written in key order (a load of sorted input, an import of an
    // export) need no sort: one pass over plain keys in place finds out.
    if keys.crypt.is_none() && in_key_order(keys, &offs)? {
        return as_is(offs);
    }
    // Where each key lies: in the log itself for plain records, else in
    // `buf`, decrypted.
    let (buf, spans, ascending) = match keys.crypt {
        Some(_) => decrypted_keys(keys, &offs)?,
        None => {
            let spans = offs
                .iter()
                .map(|&off| keys.plain_key(off))
                .collect::<Result<Vec<_>>>()?;
            (Zeroizing::new(Vec::new()), spans, false)
        }
    };
    if keys.crypt.is_some() && ascending {
        return as_is(offs);
    }
    let src = if keys.crypt.is_none() {
        keys.bytes
    } else {
        &buf
    };
    let (order, fences) = key_order(
        spans.len(),
        |i| {
            let (start, len) = spans[i];
            src.get(start..start + len).unwrap_or(&[])
        },
        fenced,
    )?;
    // `offs` is ascending, so index order is offset order.
    Ok(Order {
        offs: order.into_iter().map(|i| offs[i as usize]).collect(),
        fences,
    })
}

/// The order of the live offsets `offs` (an image's, unsorted, as of
/// some log end) for a checkpoint, from `prev`: the order of exactly the
/// live offsets as of an earlier end of the same log (the last
/// checkpoint's). Instead of sorting every key (a decryption each in an
/// encrypted database; a comparison-heavy sort of a million keys, most of
/// a checkpoint's time, in a plain one) this keeps `prev`'s entries that
/// are still live, in their order, and places the offsets written since by
/// a binary search each (`merge`): `t × log2(n)` key reads for `t` new
/// keys, and one pass over `prev`. `None` when that would not be cheaper,
/// or `prev` does not fit `offs` (then sort): whatever sorted list of
/// this log's record starts `prev` is, the count check below makes the
/// answer exact or `None` (a `Sorted`, which keeps `prev`, belongs to one
/// log generation, so its entries are record starts of this log: an
/// offset that is not could share a 4-byte bucket with a live one). With
/// `fenced`, a plain
/// order of at least [`FENCE_MIN`] entries comes with its fences (a
/// sealed one builds them on use: each is a decryption).
pub(crate) fn sort_from(
    keys: KeySource<'_>,
    offs: &[u64],
    prev: (u64, &Base),
    fenced: bool,
) -> Result<Option<Order>> {
    let (prev_end, prev) = prev;
    let n = prev.len();
    // Only the offsets written since are copied: at 10M keys every array
    // of all of them is 80 MB of fresh pages.
    let new: Vec<u64> = offs.iter().copied().filter(|&o| o >= prev_end).collect();
    let old = offs.len() - new.len();
    if !placing_pays(new.len() + 1, n) || old > n {
        return Ok(None);
    }
    // Which of `prev`'s entries are still live: a bit per 4 bytes of log
    // below `prev_end` (frames are at least 7 bytes long, so no two share
    // one) marks the live offsets there, and `prev` keeps, in its order,
    // those whose bit is set; each bit is cleared as it is found, so the
    // count found says whether `prev` held every live offset.
    let Some(words) = usize::try_from(prev_end / 4 / 64 + 1).ok() else {
        return Ok(None);
    };
    // A log of large values makes that bitmap far bigger than the 8 bytes
    // a key the sort takes (1M keys of 4 KiB: 128 MiB; a 1 TiB log: 32
    // GiB): past twice those, or 32 MiB, sort instead.
    if words.saturating_mul(8) > n.saturating_mul(16).max(32 << 20) {
        return Ok(None);
    }
    let mut bits = vec![0u64; words];
    for &o in offs.iter().filter(|&&o| o < prev_end) {
        if let Some(w) = bits.get_mut((o / 4 / 64) as usize) {
            *w |= 1 << ((o / 4) % 64);
        }
    }
    // Room for the entries placed into it later.
    let mut kept = Vec::with_capacity(old + new.len());
    for i in 0..n {
        // A damaged kept order (a sealed block that fails its check) is
        // no reason to fail the checkpoint, which reads the image and log.
        let Ok(o) = prev.get(i) else {
            return Ok(None);
        };
        let (w, bit) = ((o / 4 / 64) as usize, 1u64 << ((o / 4) % 64));
        match bits.get_mut(w) {
            Some(word) if *word & bit != 0 => {
                *word &= !bit;
                kept.push(o);
            }
            // Removed since, or past `prev_end` (not that end's order).
            _ => {}
        }
    }
    drop(bits);
    // A live offset `prev` lacks: not the order of that end.
    if kept.len() != old {
        return Ok(None);
    }
    let new = sort_offsets(keys, new)?;
    let offs = place_into(keys, kept, &new)?;
    let fenced = fenced && keys.crypt.is_none() && offs.len() >= FENCE_MIN;
    with_fences(keys, offs, fenced).map(Some)
}

/// A sorted block written as the order of an earlier end of the log with
/// what changed since ([`patch_from`]): entries of that order dropped,
/// offsets added, written out in one pass over it ([`Patch::write`]). No
/// array of every offset is built: [`sort_from`]'s kept order and the
/// bitmap it checks it with are 80 and 37 MB of fresh pages at 10M keys,
/// most of what a checkpoint at close after a few thousand writes cost.
pub(crate) struct Patch {
    prev: Base,
    /// Positions in `prev` of the entries whose keys were written since,
    /// ascending.
    dropped: Vec<usize>,
    /// The newest put of each key written since that is live, in key
    /// order, with the position in `prev` it goes before.
    added: Vec<(usize, u64)>,
}

impl std::fmt::Debug for Patch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Patch")
            .field("prev", &self.prev.len())
            .field("dropped", &self.dropped.len())
            .field("added", &self.added.len())
            .finish()
    }
}

impl Patch {
    /// Number of offsets in the block.
    pub(crate) fn len(&self) -> usize {
        self.prev.len() - self.dropped.len() + self.added.len()
    }

    /// Append the block (each offset little-endian) to `out`, handing `out`
    /// to `flush` whenever it holds at least `chunk` bytes.
    pub(crate) fn write(
        &self,
        out: &mut Vec<u8>,
        chunk: usize,
        mut flush: impl FnMut(&mut Vec<u8>) -> Result<()>,
    ) -> Result<()> {
        let mut copy = |from: usize, to: usize, out: &mut Vec<u8>| {
            self.prev.runs(from, to, |run| {
                out.extend_from_slice(run);
                if out.len() >= chunk {
                    flush(out)?;
                }
                Ok(())
            })
        };
        let mut dropped = self.dropped.iter().copied().peekable();
        let mut at = 0;
        // `prev[at..to]` without its dropped entries.
        let mut kept = |at: &mut usize, to: usize, out: &mut Vec<u8>| -> Result<()> {
            while let Some(d) = dropped.next_if(|&d| d < to) {
                copy(*at, d, out)?;
                *at = d + 1;
            }
            copy(*at, to, out)?;
            *at = (*at).max(to);
            Ok(())
        };
        for &(before, off) in &self.added {
            kept(&mut at, before, out)?;
            out.extend_from_slice(&off.to_le_bytes());
        }
        kept(&mut at, self.prev.len(), out)
    }

    /// The block's offsets.
    #[cfg(test)]
    pub(crate) fn offsets(&self) -> Result<Vec<u64>> {
        let mut bytes = Vec::with_capacity(self.len() * 8);
        self.write(&mut bytes, usize::MAX, |_| Ok(()))?;
        Ok(bytes
            .chunks_exact(8)
            .filter_map(|b| crate::format::read_u64(b, 0))
            .collect())
    }
}

/// A 64-bit mix of a log offset: sums of these (wrapping, so the same in
/// any order) tell two sets of offsets apart ([`LiveSplit`]).
#[inline]
fn mix(o: u64) -> u64 {
    let mut z = o.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What an index image holds, split at a log end: the offsets at or past
/// it (ascending), and the number of those before it and the sum of their
/// [`mix`]es.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LiveSplit {
    pub new: Vec<u64>,
    pub old: usize,
    pub old_sum: u64,
}

impl LiveSplit {
    /// `offs` split at log offset `end`.
    pub(crate) fn of(offs: impl Iterator<Item = u64>, end: u64) -> LiveSplit {
        let mut s = LiveSplit::default();
        for o in offs {
            if o >= end {
                s.new.push(o);
            } else {
                s.old += 1;
                s.old_sum = s.old_sum.wrapping_add(mix(o));
            }
        }
        sort_u64(&mut s.new);
        s
    }
}

/// True when a [`Patch`] placing `records` records into an order of `n`
/// entries reads fewer keys than walking the order would
/// ([`patch_from`] declines otherwise).
pub(crate) fn patch_pays(records: usize, n: usize) -> bool {
    placing_pays(records + 1, n)
}

/// The order of an image's live offsets for a checkpoint, as a [`Patch`] of
/// `prev`: the order of exactly the live offsets as of an earlier end of
/// the same log (the last checkpoint's). `since` is every put and delete
/// record of the namespace from that end to the image's (any order), and
/// `live` the image's offsets split at that end. Each key written since is
/// found in `prev` by a search ([`lower_bound`]: a few key reads on evenly
/// spread keys, `log2(n)` at worst), its entry there dropped and its
/// newest put added in its place. `None` when that would not be cheaper
/// than [`sort_from`], when `prev` cannot be read (damaged on disk), or
/// when the result is not exactly the image's offsets: the offsets added
/// must be the image's new ones, and those kept must match its old ones
/// in number and in the sum of their 64-bit [`mix`]es (so a `prev` that
/// is not that end's order is caught, not only one of another length).
pub(crate) fn patch_from(
    keys: KeySource<'_>,
    prev: (u64, &Base),
    since: Vec<u64>,
    live: &LiveSplit,
) -> Result<Option<Patch>> {
    let (prev_end, prev) = prev;
    let n = prev.len();
    if !patch_pays(since.len(), n) || live.old > n {
        return Ok(None);
    }
    // One pass over `prev` first: every page readable (a damaged block
    // is no reason to fail the checkpoint, which can sort all instead),
    // every entry before `prev_end`, and the sum of all its entries.
    let mut all_sum = 0u64;
    let mut before_end = true;
    let read = prev.runs(0, n, |run| {
        for b in run.chunks_exact(8) {
            let o = crate::format::read_u64(b, 0).unwrap_or(u64::MAX);
            before_end &= o < prev_end;
            all_sum = all_sum.wrapping_add(mix(o));
        }
        Ok(())
    });
    if read.is_err() || !before_end {
        return Ok(None);
    }
    let since = sort_offsets(keys, since)?;
    let (mut dropped, mut added) = (Vec::new(), Vec::new());
    let mut dropped_sum = 0u64;
    let mut from = 0;
    let mut found = Zeroizing::new(Vec::new());
    // Place the newest record of key `k`, at `off`, of kind `kind`.
    let mut place = |k: &[u8], off: u64, kind: Kind| -> Result<()> {
        let at = lower_bound(from, n, Bound::Included(k), |i, buf| {
            keys.read(prev.get(i)?, buf).map(|_| ())
        })?;
        if at < n {
            let o = prev.get(at)?;
            keys.read(o, &mut found)?;
            if found.as_slice() == k {
                dropped.push(at);
                dropped_sum = dropped_sum.wrapping_add(mix(o));
            }
        }
        if kind == Kind::Put {
            added.push((at, off));
        }
        from = at;
        Ok(())
    };
    // `since` is in `(key, offset)` order: the last of each run of equal
    // keys is that key's newest record.
    let (mut key, mut next) = (Zeroizing::new(Vec::new()), Zeroizing::new(Vec::new()));
    let mut newest: Option<(u64, Kind)> = None;
    for &off in &since {
        let head = keys.read(off, &mut next)?;
        if let Some((o, kind)) = newest {
            if next.as_slice() != key.as_slice() {
                place(&key, o, kind)?;
            }
        }
        std::mem::swap(&mut key, &mut next);
        newest = Some((off, head.kind));
    }
    if let Some((o, kind)) = newest {
        place(&key, o, kind)?;
    }
    let mut new: Vec<u64> = added.iter().map(|&(_, o)| o).collect();
    sort_u64(&mut new);
    let exact = new == live.new
        && n - dropped.len() == live.old
        && all_sum.wrapping_sub(dropped_sum) == live.old_sum;
    Ok(exact.then(|| Patch {
        prev: prev.clone(),
        dropped,
        added,
    }))
}

/// `offs`, already in `(key, offset)` order, as an [`Order`], with the
/// fences read from its keys when `fenced`.
fn with_fences(keys: KeySource<'_>, offs: Vec<u64>, fenced: bool) -> Result<Order> {
    let fences = match fenced {
        true => Some(Fences::build(keys, offs.len(), |i| {
            offs.get(i)
                .copied()
                .ok_or_else(|| Error::corruption(0, "fence past the order"))
        })?),
        false => None,
    };
    Ok(Order { offs, fences })
}

/// Keys decrypted into one buffer, where each lies in it, and whether
/// they ascend.
type Decrypted = (Zeroizing<Vec<u8>>, Vec<(usize, usize)>, bool);

/// Append `bytes` to `buf` without leaving a copy of what `buf` held in
/// freed memory: a full buffer moves to a larger one and is zeroed.
fn push_zeroized(buf: &mut Zeroizing<Vec<u8>>, bytes: &[u8]) {
    let need = buf.len() + bytes.len();
    if need > buf.capacity() {
        let mut bigger = Zeroizing::new(Vec::with_capacity(need.max(2 * buf.capacity()).max(4096)));
        bigger.extend_from_slice(buf);
        *buf = bigger;
    }
    buf.extend_from_slice(bytes);
}

/// The keys of the sealed records at `offs` (ascending offsets),
/// decrypted into one buffer: where each lies in it, and whether they
/// ascend. Large inputs are decrypted in parts on up to four threads (a
/// decryption per key is most of what a sort of a sealed log costs).
/// The buffers are zeroed when dropped, moved or grown.
fn decrypted_keys(keys: KeySource<'_>, offs: &[u64]) -> Result<Decrypted> {
    let part = |offs: &[u64]| -> Result<Decrypted> {
        let mut buf = Zeroizing::new(Vec::new());
        let mut spans: Vec<(usize, usize)> = Vec::with_capacity(offs.len());
        let mut key = Zeroizing::new(Vec::new());
        let mut ascending = true;
        for &off in offs {
            keys.read(off, &mut key)?;
            if let Some(&(at, len)) = spans.last() {
                ascending &= buf.get(at..at + len).is_some_and(|prev| prev <= &key[..]);
            }
            spans.push((buf.len(), key.len()));
            push_zeroized(&mut buf, &key);
        }
        Ok((buf, spans, ascending))
    };
    let threads = parallel_parts(offs.len());
    if threads < 2 {
        return part(offs);
    }
    let parts: Vec<&[u64]> = offs.chunks(offs.len().div_ceil(threads)).collect();
    let done: Vec<Result<Decrypted>> = std::thread::scope(|scope| {
        let handles: Vec<_> = parts[1..]
            .iter()
            .map(|&p| scope.spawn(move || part(p)))
            .collect();
        let mut done = vec![part(parts[0])];
        for h in handles {
            // A panic is not damage in the log: it goes on as a panic.
            done.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        done
    });
    let done: Vec<Decrypted> = done.into_iter().collect::<Result<_>>()?;
    let total = done.iter().map(|(b, _, _)| b.len()).sum();
    let mut buf = Zeroizing::new(Vec::with_capacity(total));
    let (mut spans, mut ascending) = (Vec::with_capacity(offs.len()), true);
    for (b, s, asc) in done {
        // Where the parts meet: the last key so far is not after this
        // part's first.
        if let (Some(&(at, len)), Some(&(first, flen))) = (spans.last(), s.first()) {
            let prev: Option<&[u8]> = buf.get(at..at + len);
            ascending &= prev.is_some_and(|p| Some(p) <= b.get(first..first + flen));
        }
        let shift = buf.len();
        spans.extend(s.into_iter().map(|(at, len)| (at + shift, len)));
        buf.extend_from_slice(&b);
        ascending &= asc;
    }
    Ok((buf, spans, ascending))
}

/// True when the plain keys at `offs` (ascending offsets) are already in
/// `(key, offset)` order. Large inputs are checked in parallel parts (a
/// checkpoint at close has the machine to itself); each part stops at its
/// first key smaller than the one before.
fn in_key_order(keys: KeySource<'_>, offs: &[u64]) -> Result<bool> {
    let key = |off: u64| -> Result<Option<&[u8]>> {
        Ok(keys
            .span(off)?
            .map(|(start, len)| keys.bytes.get(start..start + len).unwrap_or_default()))
    };
    let part = |offs: &[u64]| -> Result<bool> {
        let mut last: &[u8] = &[];
        for &off in offs {
            let Some(k) = key(off)? else {
                return Ok(false);
            };
            if k < last {
                return Ok(false);
            }
            last = k;
        }
        Ok(true)
    };
    let threads = parallel_parts(offs.len());
    if threads < 2 {
        return part(offs);
    }
    let chunk = offs.len().div_ceil(threads);
    let parts: Vec<&[u64]> = offs.chunks(chunk).collect();
    // Where parts meet: the last key of one is not after the first of the next.
    for pair in parts.windows(2) {
        let (Some(&a), Some(&b)) = (pair[0].last(), pair[1].first()) else {
            continue;
        };
        match (key(a)?, key(b)?) {
            (Some(ka), Some(kb)) if ka <= kb => {}
            _ => return Ok(false),
        }
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = parts[1..]
            .iter()
            .map(|&p| scope.spawn(move || part(p)))
            .collect();
        let mut all = part(parts[0]);
        for h in handles {
            let r = h.join().unwrap_or(Ok(false));
            all = match (all, r) {
                (Err(e), _) | (_, Err(e)) => Err(e),
                (Ok(a), Ok(b)) => Ok(a && b),
            };
        }
        all
    })
}

/// Threads (up to four) a pass over `n` offsets at a checkpoint or a sort
/// is split over; 1 when `n` is too small to be worth it.
fn parallel_parts(n: usize) -> usize {
    if n < 1 << 16 {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |t| t.get().min(4))
}

/// Log offsets gathered in `parts` pieces (`gather(i, parts)` gives piece
/// `i`), in ascending order. Large inputs (`expected` offsets) are gathered
/// and sorted on up to four threads, one piece each, then merged: a
/// checkpoint at close has the machine to itself.
pub(crate) fn gather_sorted(
    expected: usize,
    gather: impl Fn(usize, usize) -> Vec<u64> + Sync,
) -> Vec<u64> {
    let threads = parallel_parts(expected);
    if threads < 2 {
        let mut all = gather(0, 1);
        sort_u64(&mut all);
        return all;
    }
    let gather = &gather;
    let mut pieces: Vec<Vec<u64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads)
            .map(|i| {
                scope.spawn(move || {
                    let mut piece = gather(i, threads);
                    sort_u64(&mut piece);
                    piece
                })
            })
            .collect();
        let mut first = gather(0, threads);
        sort_u64(&mut first);
        let mut pieces = vec![first];
        // A piece whose thread panicked is gathered again here.
        for (i, h) in handles.into_iter().enumerate() {
            pieces.push(h.join().unwrap_or_else(|_| {
                let mut piece = gather(i + 1, threads);
                sort_u64(&mut piece);
                piece
            }));
        }
        pieces
    });
    while pieces.len() > 1 {
        let b = pieces.pop().unwrap_or_default();
        let a = pieces.pop().unwrap_or_default();
        pieces.push(merge_u64(&a, &b));
    }
    pieces.pop().unwrap_or_default()
}

/// Two ascending vectors merged into one.
fn merge_u64(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) {
        if x <= y {
            out.push(x);
            i += 1;
        } else {
            out.push(y);
            j += 1;
        }
    }
    out.extend_from_slice(a.get(i..).unwrap_or_default());
    out.extend_from_slice(b.get(j..).unwrap_or_default());
    out
}

/// Sort `v` ascending: a radix sort (16 bits a pass, only as many passes as
/// the largest value needs) for large unsorted inputs, which here are log
/// offsets in hash order; already sorted input costs one pass.
fn sort_u64(v: &mut Vec<u64>) {
    if v.is_sorted() {
        return;
    }
    if v.len() < 1 << 12 {
        v.sort_unstable();
        return;
    }
    let max = v.iter().copied().max().unwrap_or(0);
    let mut tmp = vec![0u64; v.len()];
    let mut shift = 0;
    while shift < 64 && (max >> shift) != 0 {
        let mut counts = vec![0usize; 1 << 16];
        for &x in v.iter() {
            counts[((x >> shift) & 0xffff) as usize] += 1;
        }
        let mut at = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = at;
            at += n;
        }
        for &x in v.iter() {
            let d = ((x >> shift) & 0xffff) as usize;
            tmp[counts[d]] = x;
            counts[d] += 1;
        }
        std::mem::swap(v, &mut tmp);
        shift += 16;
    }
}

/// The indexes `0..n` sorted by `(key_of(i), i)`. Sorts by the 8 bytes
/// after the keys' common prefix as an integer (a key's *window*), then
/// each run of keys with equal windows by their next 8 bytes, and so on
/// (`refine_runs`), so a comparison reads neither the keys nor each
/// other's memory until a run is small: keys that share more than the
/// common prefix (`user:` beside `event:` keys) no longer fall to a full
/// comparison each. With `fenced`, also the fences of that order (the
/// first windows, every [`FENCE_STEP`]th: the refinement moves keys only
/// within runs of equal first windows).
pub(crate) fn key_order<'k>(
    n: usize,
    key_of: impl Fn(usize) -> &'k [u8],
    fenced: bool,
) -> Result<(Vec<u32>, Option<Fences>)> {
    let idx = |i: usize| {
        u32::try_from(i).map_err(|_| Error::TooManyKeys {
            limit: u32::MAX as u64,
        })
    };
    if n == 0 {
        return Ok((Vec::new(), None));
    }
    let first = key_of(0);
    let mut lcp = first.len();
    for i in 1..n {
        if lcp == 0 {
            break;
        }
        let k = key_of(i);
        lcp = lcp.min(common_prefix(k, first));
    }
    // (window, index)
    let mut items: Vec<(u64, u32)> = Vec::with_capacity(n);
    for i in 0..n {
        items.push((window(window_bytes(key_of(i), lcp)), idx(i)?));
    }
    items.sort_unstable_by_key(|&(w, _)| w);
    // Every key starts with the `lcp` bytes of the first, the prefix the
    // fences' windows follow (as in `Fences::build`).
    let fences = fenced.then(|| {
        let windows = items.iter().step_by(FENCE_STEP).map(|&(w, _)| w).collect();
        Fences::new(first.get(..lcp).unwrap_or(first).to_vec(), windows)
    });
    refine_runs(&mut items, lcp, &key_of);
    Ok((items.into_iter().map(|(_, i)| i).collect(), fences))
}

/// Runs shorter than this are sorted by comparing their keys.
const COMPARE_RUN: usize = 24;

/// Put `items`, sorted by the windows of their keys at `lcp` (the keys'
/// common prefix), in `(key, index)` order: each run of equal windows at
/// depth `d` is sorted by the windows at `d + 8`, until a run is shorter
/// than [`COMPARE_RUN`] or none of its keys goes past `d` (then by
/// comparing the keys). Equal windows mean equal bytes, with a key that
/// ended read as zeros: so unequal windows order their keys as the keys
/// order, and equal ones are left to the next depth.
fn refine_runs<'k>(items: &mut [(u64, u32)], lcp: usize, key_of: &impl Fn(usize) -> &'k [u8]) {
    let compare = |a: &(u64, u32), b: &(u64, u32)| {
        let (ka, kb) = (key_of(a.1 as usize), key_of(b.1 as usize));
        ka.get(lcp..).cmp(&kb.get(lcp..)).then(a.1.cmp(&b.1))
    };
    // (start, end, depth of the windows that sorted it)
    let mut runs = Vec::new();
    push_runs(items, 0, lcp, &mut runs);
    while let Some((lo, hi, depth)) = runs.pop() {
        let Some(run) = items.get_mut(lo..hi) else {
            continue;
        };
        let mut next = depth + 8;
        let mut longer = false;
        if run.len() >= COMPARE_RUN {
            // Bytes past `next` that every key of the run shares are
            // skipped at once rather than eight a pass (a run of keys that
            // share a long stretch beyond the common prefix). The scan
            // stops at the first key that differs from the first there,
            // which is usually the second.
            next += shared_past(run, next, key_of);
            for item in run.iter_mut() {
                let k = key_of(item.1 as usize);
                longer |= k.len() > next;
                item.0 = window(window_bytes(k, next));
            }
        }
        if run.len() < COMPARE_RUN || !longer {
            run.sort_unstable_by(compare);
            continue;
        }
        // Keys that end by `next` are equal but for trailing zeros (their
        // windows matched at every depth so far): each is a prefix of the
        // longer ones of the run, so they go first, by length and index,
        // and are not carried to deeper levels.
        let mut ended = 0;
        for j in 0..run.len() {
            let len = key_of(run[j].1 as usize).len();
            if len <= next {
                run[j].0 = len as u64;
                run.swap(ended, j);
                ended += 1;
            }
        }
        let (done, rest) = run.split_at_mut(ended);
        done.sort_unstable();
        rest.sort_unstable_by_key(|&(w, _)| w);
        push_runs(rest, lo + ended, next, &mut runs);
    }
}

/// Bytes from `at` on that the keys of `run` all share (0 when one ends
/// there).
fn shared_past<'k>(run: &[(u64, u32)], at: usize, key_of: &impl Fn(usize) -> &'k [u8]) -> usize {
    let Some(first) = run.first().and_then(|f| key_of(f.1 as usize).get(at..)) else {
        return 0;
    };
    let mut shared = first.len();
    for item in run.get(1..).unwrap_or_default() {
        if shared == 0 {
            break;
        }
        let k = key_of(item.1 as usize).get(at..).unwrap_or_default();
        shared = shared.min(common_prefix(k, first));
    }
    shared
}

/// Note each run of two or more equal windows of `items` (which start at
/// `base` of the whole) as sorted at `depth`.
fn push_runs(
    items: &[(u64, u32)],
    base: usize,
    depth: usize,
    runs: &mut Vec<(usize, usize, usize)>,
) {
    let mut start = 0;
    while start < items.len() {
        let w = items.get(start).map_or(0, |x| x.0);
        let len = items
            .get(start..)
            .map_or(0, |rest| rest.iter().take_while(|x| x.0 == w).count());
        if len > 1 {
            runs.push((base + start, base + start + len, depth));
        }
        start += len.max(1);
    }
}

/// Merge two lists sorted by `(key, offset)`.
/// True when placing `placed` entries into `into` sorted ones by a binary
/// search each (about `log2(into) + 1` key reads apiece) reads fewer keys
/// than walking all of `into` (one read per entry).
fn placing_pays(placed: usize, into: usize) -> bool {
    placed.saturating_mul((usize::BITS - into.leading_zeros()) as usize + 1) < into
}

/// `b` merged into `a` (both in `(key, offset)` order) in `a`'s own
/// memory: each entry of `b` placed by a binary search of `a` (about
/// log2(|a|) key reads each), then `a`'s entries moved up past them from
/// the end. For few entries into a long order, where [`merge`] would
/// copy the whole order into a second array.
fn place_into(keys: KeySource<'_>, mut a: Vec<u64>, b: &[u64]) -> Result<Vec<u64>> {
    let (mut ka, mut kb) = (Zeroizing::new(Vec::new()), Zeroizing::new(Vec::new()));
    // Where each entry of `b` goes: before `a[at]`.
    let mut ats = Vec::with_capacity(b.len());
    let mut from = 0;
    for &off in b {
        keys.read(off, &mut kb)?;
        let (mut lo, mut hi) = (from, a.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let at = a.get(mid).copied().unwrap_or(0);
            keys.read(at, &mut ka)?;
            if (ka.as_slice(), at) <= (kb.as_slice(), off) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        ats.push(lo);
        from = lo;
    }
    // From the last placed entry down: `a[at..end]` has `j + 1` entries
    // of `b` before it, entry `j` of `b` has `j`.
    let mut end = a.len();
    a.resize(end + b.len(), 0);
    for (j, (&off, &at)) in b.iter().zip(&ats).enumerate().rev() {
        a.copy_within(at..end, at + j + 1);
        if let Some(slot) = a.get_mut(at + j) {
            *slot = off;
        }
        end = at;
    }
    Ok(a)
}

fn merge(keys: KeySource<'_>, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
    if a.is_empty() {
        return Ok(b.to_vec());
    }
    if b.is_empty() {
        return Ok(a.to_vec());
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut ka, mut kb) = (Zeroizing::new(Vec::new()), Zeroizing::new(Vec::new()));
    // A few new entries into a long delta (a read after each handful of
    // writes): place each by a binary search of `a`, about log2(|a|) key
    // reads, instead of walking `a` up to it, one key read per entry
    // passed (a read after one write into a delta of 100,000 entries
    // read ~50,000 keys).
    if placing_pays(b.len(), a.len()) {
        let mut i = 0;
        for &off in b {
            keys.read(off, &mut kb)?;
            // The first entry of `a[i..]` that sorts after `off`.
            let (mut lo, mut hi) = (i, a.len());
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let at = a[mid];
                keys.read(at, &mut ka)?;
                if (ka.as_slice(), at) <= (kb.as_slice(), off) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            out.extend_from_slice(&a[i..lo]);
            out.push(off);
            i = lo;
        }
        out.extend_from_slice(&a[i..]);
        return Ok(out);
    }
    let (mut i, mut j) = (0, 0);
    keys.read(a[0], &mut ka)?;
    keys.read(b[0], &mut kb)?;
    while i < a.len() && j < b.len() {
        if (ka.as_slice(), a[i]) <= (kb.as_slice(), b[j]) {
            out.push(a[i]);
            i += 1;
            if i < a.len() {
                keys.read(a[i], &mut ka)?;
            }
        } else {
            out.push(b[j]);
            j += 1;
            if j < b.len() {
                keys.read(b[j], &mut kb)?;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    Ok(out)
}

/// The base a view stands for: each key's newest record when it is a put
/// (expired ones included: the hash index holds them too), with its
/// fences when it is long enough for them: the walk reads every key, so
/// they cost the window of every [`FENCE_STEP`]th.
pub(crate) fn fold(keys: KeySource<'_>, view: &View) -> Result<Order> {
    // Every key of the fold lies between the smallest and the largest of
    // the two streams' ends, so it starts with their common prefix: the
    // windows follow that (maybe shorter than the fold's own first and
    // last keys share; a fence prefix only has to be common to all).
    let fenced = view.base.len() + view.delta.len() >= FENCE_MIN;
    let prefix = match fenced {
        true => Some(common_prefix_of_ends(keys, view)?),
        false => None,
    };
    let mut out = Vec::with_capacity(view.base.len());
    let mut windows = Vec::new();
    let mut m = Merge::new(view.clone(), Bound::Unbounded, Bound::Unbounded);
    while let Some(w) = m.next(keys)? {
        if w.head.kind == Kind::Put {
            if let Some(p) = &prefix {
                if out.len() % FENCE_STEP == 0 {
                    windows.push(window(window_bytes(m.win_key(keys)?, p.len())));
                }
            }
            out.push(w.off);
        }
    }
    let fences = match prefix {
        Some(p) if out.len() >= FENCE_MIN && !longer_prefix(keys, &out, p.len())? => {
            Some(Fences::new(p, windows))
        }
        _ => None,
    };
    Ok(Order { offs: out, fences })
}

/// True when the first and last keys of `order` (not empty) share more
/// than `p` bytes. A fold's windows follow the prefix of the streams'
/// ends, and an end that did not survive the fold (a removed key below or
/// above all others) can make it shorter than the fold's own keys share:
/// windows after it would then mostly be equal and bound little, so such
/// a fold leaves its fences to the usual build ([`FenceSlot::build_due`]).
fn longer_prefix(keys: KeySource<'_>, order: &[u64], p: usize) -> Result<bool> {
    let (Some(&first), Some(&last)) = (order.first(), order.last()) else {
        return Ok(false);
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    keys.read(first, &mut a)?;
    keys.read(last, &mut b)?;
    Ok(common_prefix(&a, &b) > p)
}

/// The prefix common to the first and last keys of both streams of `view`
/// (at least one of which is not empty).
fn common_prefix_of_ends(keys: KeySource<'_>, view: &View) -> Result<Vec<u8>> {
    let mut ends = Vec::with_capacity(4);
    let n = view.base.len();
    if n > 0 {
        ends.push(view.base.get(0)?);
        ends.push(view.base.get(n - 1)?);
    }
    ends.extend(view.delta.first());
    ends.extend(view.delta.last());
    let mut prefix: Option<Vec<u8>> = None;
    let mut k = Vec::new();
    for off in ends {
        keys.read(off, &mut k)?;
        match &mut prefix {
            None => prefix = Some(k.clone()),
            Some(p) => p.truncate(common_prefix(p, &k)),
        }
    }
    Ok(prefix.unwrap_or_default())
}

/// A key's newest record, found by [`Merge::next`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Winner {
    pub off: u64,
    pub head: Head,
    /// Encoded length of the record at `off`.
    pub len: usize,
}

/// A record as a merge read it: its head, and where its key and value lie
/// (in the log for a plain record, in its stream's buffer for a sealed
/// one), so neither is read or copied again.
#[derive(Clone, Copy, Debug)]
struct Rec {
    off: u64,
    head: Head,
    ns: u32,
    /// Encoded length of the frame at `off`.
    len: usize,
    /// (start, length) of the key.
    key: (usize, usize),
    /// (start, length) of the value.
    value: (usize, usize),
}

/// One of the two sorted streams of a view, with its head read.
struct Stream {
    at: usize,
    /// Entries before this one have had their records loaded ahead.
    ahead: usize,
    /// Decrypted bytes of the head (sealed records only).
    buf: Zeroizing<Vec<u8>>,
    head: Option<Rec>,
}

impl Stream {
    fn new(at: usize) -> Stream {
        Stream {
            at,
            ahead: at,
            buf: Zeroizing::new(Vec::new()),
            head: None,
        }
    }
}

/// Start loading the first [`AHEAD_BYTES`] of the record at `off`.
#[inline]
fn prefetch_record(bytes: &[u8], off: u64) {
    prefetch_span(bytes, off, AHEAD_BYTES);
}

/// The bytes at `span` of the log (plain records) or of `buf` (sealed).
#[inline]
fn slice<'x>(keys: KeySource<'x>, buf: &'x [u8], (at, len): (usize, usize)) -> Result<&'x [u8]> {
    let src = if keys.crypt.is_some() {
        buf
    } else {
        keys.bytes
    };
    at.checked_add(len)
        .and_then(|end| src.get(at..end))
        .ok_or_else(|| Error::corruption(0, "sorted read lost its record"))
}

/// Walk a view in key order, one key (its newest record) at a time.
///
/// Each record is read once: the key a stream compares with is where the
/// read left it, and the winner's value is taken from the same read
/// ([`Merge::item`]).
pub(crate) struct Merge {
    view: View,
    base: Stream,
    delta: Stream,
    start: Option<Bound<Vec<u8>>>,
    end: Bound<Vec<u8>>,
    /// The last winner; its sealed bytes are in `win_buf`.
    win: Option<Rec>,
    win_buf: Zeroizing<Vec<u8>>,
    /// Keys walked since the seek: how far ahead the walk loads
    /// ([`Merge::load_ahead`]).
    walked: usize,
    done: bool,
}

impl Merge {
    /// The snapshot this walk reads.
    pub(crate) fn view(&self) -> &View {
        &self.view
    }

    /// A walk over `[start, end]` of `view` (the first call to `next` seeks).
    pub(crate) fn new(view: View, start: Bound<Vec<u8>>, end: Bound<Vec<u8>>) -> Merge {
        Merge {
            view,
            base: Stream::new(0),
            delta: Stream::new(0),
            start: Some(start),
            end,
            win: None,
            win_buf: Zeroizing::new(Vec::new()),
            walked: 0,
            done: false,
        }
    }

    /// The key of the winner `next` returned last, from the read that
    /// found it.
    fn win_key<'s>(&'s self, keys: KeySource<'s>) -> Result<&'s [u8]> {
        let w = self
            .win
            .as_ref()
            .ok_or_else(|| Error::corruption(0, "sorted read has no current record"))?;
        slice(keys, &self.win_buf, w.key)
    }

    /// The key and value of the winner `next` returned last, from the read
    /// that found it, after checking it is a put of namespace `ns` and,
    /// when `verify_crc`, its CRC. `keys` must be the `keys` (or a longer
    /// mapping of the same log) that `next` was given.
    #[inline(always)]
    pub(crate) fn item<'s>(
        &'s self,
        keys: KeySource<'s>,
        ns: u32,
        verify_crc: bool,
    ) -> Result<(&'s [u8], &'s [u8])> {
        let w = self
            .win
            .as_ref()
            .ok_or_else(|| Error::corruption(0, "sorted read has no current record"))?;
        if w.head.kind != Kind::Put || w.ns != ns {
            return Err(Error::corruption(
                w.off,
                "index entry points at a record that is not a value of this namespace",
            ));
        }
        if verify_crc {
            check_crc(keys.bytes, w.off, w.len)?;
        }
        Ok((
            slice(keys, &self.win_buf, w.key)?,
            slice(keys, &self.win_buf, w.value)?,
        ))
    }

    fn seek(&mut self, keys: KeySource<'_>, start: &Bound<Vec<u8>>) -> Result<()> {
        let mut scratch = Zeroizing::new(Vec::new());
        let start_key = start.as_ref().map(Vec::as_slice);
        // The key of the record at `off`, into `k`.
        let mut key_of = |off: u64, k: &mut Vec<u8>| -> Result<()> {
            let key = keys.key(off, &mut scratch)?;
            k.clear();
            k.extend_from_slice(key);
            Ok(())
        };
        // The first entry whose key is not before `start`, between the
        // fences around it once the base has them.
        let (lo, hi) = self.view.fences.bounds(&self.view.base, start);
        if hi - lo <= FENCE_STEP {
            // Between two fences: load the keys the search reads together.
            for i in lo..=hi {
                self.prefetch_base(keys, i);
            }
        }
        let (base, delta) = (&self.view.base, &self.view.delta);
        let lo = if hi - lo <= FENCE_STEP && keys.crypt.is_none() {
            // A few plain keys, loading together: compared where they lie
            // in the log, in order, with no copy.
            let mut i = lo;
            while i < hi && is_before(keys.key(base.get(i)?, &mut Vec::new())?, start_key) {
                i += 1;
            }
            i
        } else {
            lower_bound(lo, hi, start_key, |i, k| key_of(base.get(i)?, k))?
        };
        self.base.at = lo;
        self.base.ahead = lo;
        let lo = lower_bound(0, delta.len(), start_key, |i, k| key_of(delta[i], k))?;
        self.delta.at = lo;
        self.delta.ahead = lo;
        self.load_ahead(keys);
        Ok(())
    }

    /// Keep the records of the next entries of each stream loading (each
    /// entry is asked for once): one more than the keys walked so far, up
    /// to [`AHEAD`], so a short range read does not load (and walk the
    /// page tables for) records it never reads.
    #[inline]
    fn load_ahead(&mut self, keys: KeySource<'_>) {
        let reach = AHEAD.min(self.walked + 1);
        while self.base.ahead < self.base.at + reach {
            self.prefetch_base(keys, self.base.ahead);
            self.base.ahead += 1;
        }
        while self.delta.ahead < self.delta.at + reach {
            self.prefetch_delta(keys, self.delta.ahead);
            self.delta.ahead += 1;
        }
    }

    /// Start loading base entry `i`'s record.
    #[inline]
    fn prefetch_base(&self, keys: KeySource<'_>, i: usize) {
        if i < self.view.base.len() {
            if let Ok(off) = self.view.base.get(i) {
                prefetch_record(keys.bytes, off);
            }
        }
    }

    /// Start loading delta entry `i`'s record.
    #[inline]
    fn prefetch_delta(&self, keys: KeySource<'_>, i: usize) {
        if let Some(&off) = self.view.delta.get(i) {
            prefetch_record(keys.bytes, off);
        }
    }

    /// Read the head of the delta when it has moved; false at its end.
    fn load_delta(&mut self, keys: KeySource<'_>) -> Result<bool> {
        if self.delta.head.is_none() {
            let Some(&off) = self.view.delta.get(self.delta.at) else {
                return Ok(false);
            };
            self.delta.head = Some(keys.load(off, &mut self.delta.buf)?);
        }
        Ok(true)
    }

    /// The next key in order, as its newest record (puts, deletes and
    /// expired puts alike: the caller decides what is visible). After an
    /// error the walk ends: the record that failed would fail again.
    pub(crate) fn next(&mut self, keys: KeySource<'_>) -> Result<Option<Winner>> {
        if self.done {
            return Ok(None);
        }
        let r = self.step(keys);
        if r.is_err() {
            self.done = true;
            self.win = None;
        }
        r
    }

    fn step(&mut self, keys: KeySource<'_>) -> Result<Option<Winner>> {
        if let Some(start) = self.start.take() {
            self.seek(keys, &start)?;
        }
        self.walked += 1;
        if self.base.head.is_none() && self.base.at < self.view.base.len() {
            let off = self.view.base.get(self.base.at)?;
            self.base.head = Some(keys.load(off, &mut self.base.buf)?);
        }
        self.load_delta(keys)?;
        let take_base = match (&self.base.head, &self.delta.head) {
            (None, None) => {
                self.done = true;
                self.win = None;
                return Ok(None);
            }
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(b), Some(d)) => {
                slice(keys, &self.base.buf, b.key)? <= slice(keys, &self.delta.buf, d.key)?
            }
        };
        if take_base {
            self.win = self.base.head.take();
            std::mem::swap(&mut self.win_buf, &mut self.base.buf);
            self.base.at += 1;
            self.load_ahead(keys);
        } else {
            // The delta's head: the loop below takes it.
            self.win = self.delta.head.take();
            std::mem::swap(&mut self.win_buf, &mut self.delta.buf);
            self.delta.at += 1;
            self.load_ahead(keys);
        }
        // The winner stays where it is; only a newer delta record of its
        // key (below) replaces it (copies of a record's position, several
        // per pair, measured a tenth of a pair read in stalled moves).
        let Some((mut win_key, mut win_off)) = self.win.as_ref().map(|w| (w.key, w.off)) else {
            return Err(Error::corruption(0, "sorted index lost its place"));
        };
        let key = slice(keys, &self.win_buf, win_key)?;
        let past_end = match &self.end {
            Bound::Included(e) => key > e.as_slice(),
            Bound::Excluded(e) => key >= e.as_slice(),
            Bound::Unbounded => false,
        };
        if past_end {
            self.done = true;
            self.win = None;
            return Ok(None);
        }
        // Every further delta record of the same key (sorted by offset,
        // newest last).
        while self.load_delta(keys)? {
            let Some(d) = self.delta.head else { break };
            if slice(keys, &self.delta.buf, d.key)? != slice(keys, &self.win_buf, win_key)? {
                break;
            }
            self.delta.head = None;
            self.delta.at += 1;
            self.load_ahead(keys);
            if d.off > win_off {
                (win_key, win_off) = (d.key, d.off);
                self.win = Some(d);
                std::mem::swap(&mut self.win_buf, &mut self.delta.buf);
            }
        }
        Ok(self.win.as_ref().map(|w| Winner {
            off: w.off,
            head: w.head,
            len: w.len,
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use std::ops::Bound;

    use super::{
        gather_sorted, lower_bound, parallel_parts, sort_base, sort_offsets, sort_u64, Fences,
        KeySource, HEADER_SIZE,
    };
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
            let keys =
                |it: crate::RangeIter| -> Vec<Vec<u8>> { it.map(|x| x.unwrap().0).collect() };
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
                super::place_into(src, a, &b).unwrap(),
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
            let (got, fences) = super::key_order(keys.len(), |i| &keys[i][..], fenced).unwrap();
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
            let mut later: Vec<(Vec<u8>, bool)> =
                (0..150).map(|i| (key(&mut r), i % 5 != 0)).collect();
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
        let parts = super::parallel_parts(n);
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
}

/// Plain checkpoints that start from the last checkpoint's order
/// (`sort_from`), checked against a model and read back by read-only opens.
#[cfg(test)]
mod plain_from_prev_tests {
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
                                .map(|i| {
                                    (pick(&mut r, &model, s), (i as u32).to_le_bytes().to_vec())
                                })
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
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> =
            (0..n).map(|i| (key(i), b"v".to_vec())).collect();
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
}

#[cfg(test)]
mod key_order_review {
    //! `key_order` against a naive sort on adversarial key sets (from a
    //! review of the windows' refinement).
    #![allow(clippy::unwrap_used)]
    use super::tests::Rng;
    use super::{common_prefix, key_order, window, window_bytes, Fences, FENCE_STEP};

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
}
