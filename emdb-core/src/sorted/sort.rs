//! Putting log offsets in `(key, offset)` order: a batch of new records
//! for the delta ([`sort_offsets`]), a new base with its fences
//! ([`sort_base`]), a checkpoint's order from the last one ([`sort_from`]),
//! new entries joined to an order ([`merge`], [`place_into`]), and a delta
//! folded into its base ([`fold`]). The sort compares key windows first
//! ([`key_order`]), so it rarely reads a key twice; the costs are in
//! docs/ARCHITECTURE.md, "Sorted order".

use std::ops::Bound;

use zeroize::Zeroizing;

use super::fences::{common_prefix, window, window_bytes, Fences, FENCE_MIN, FENCE_STEP};
use super::{Base, KeySource, Merge, View};
use crate::error::{Error, Result};
use crate::format::record::Kind;

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
pub(super) fn parallel_parts(n: usize) -> usize {
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
pub(super) fn sort_u64(v: &mut Vec<u64>) {
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

/// True when placing `placed` entries into `into` sorted ones by a binary
/// search each (about `log2(into) + 1` key reads apiece) reads fewer keys
/// than walking all of `into` (one read per entry).
pub(super) fn placing_pays(placed: usize, into: usize) -> bool {
    placed.saturating_mul((usize::BITS - into.leading_zeros()) as usize + 1) < into
}

/// `b` merged into `a` (both in `(key, offset)` order) in `a`'s own
/// memory: each entry of `b` placed by a binary search of `a` (about
/// log2(|a|) key reads each), then `a`'s entries moved up past them from
/// the end. For few entries into a long order, where [`merge`] would
/// copy the whole order into a second array.
pub(super) fn place_into(keys: KeySource<'_>, mut a: Vec<u64>, b: &[u64]) -> Result<Vec<u64>> {
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

/// Merge two lists sorted by `(key, offset)`.
pub(super) fn merge(keys: KeySource<'_>, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
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
/// a fold leaves its fences to the usual build ([`FenceSlot::build_due`](super::FenceSlot::build_due)).
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

#[cfg(test)]
mod key_order_review;
