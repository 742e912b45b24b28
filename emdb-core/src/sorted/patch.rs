//! A checkpoint's sorted block written as the last checkpointed order
//! patched ([`Patch`], [`patch_from`]), for a checkpoint at close: no
//! array of every offset is built, where [`sort_from`](super::sort_from)
//! builds the kept order and a bitmap of the live offsets. Each key written
//! since is searched for in the last order, and the result is checked
//! against the index image before it is used (docs/ARCHITECTURE.md,
//! "Sorted order").

use std::ops::Bound;

use zeroize::Zeroizing;

use super::sort::{placing_pays, sort_offsets, sort_u64};
use super::{lower_bound, Base, KeySource};
use crate::error::Result;
use crate::format::record::Kind;

/// A sorted block written as the order of an earlier end of the log with
/// what changed since ([`patch_from`]): entries of that order dropped,
/// offsets added, written out in one pass over it ([`Patch::write`]). No
/// array of every offset is built: [`sort_from`](super::sort_from)'s kept order and the
/// bitmap it checks it with are 80 and 37 MB of fresh pages at 10M keys,
/// most of what a checkpoint at close after a few thousand writes cost.
pub(crate) struct Patch {
    pub(super) prev: Base,
    /// Positions in `prev` of the entries whose keys were written since,
    /// ascending.
    pub(super) dropped: Vec<usize>,
    /// The newest put of each key written since that is live, in key
    /// order, with the position in `prev` it goes before.
    pub(super) added: Vec<(usize, u64)>,
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
/// than [`sort_from`](super::sort_from), when `prev` cannot be read (damaged on disk), or
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
