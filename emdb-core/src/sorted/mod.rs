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
//! every [`FENCE_STEP`](fences::FENCE_STEP)th entry, so a seek narrows to
//! one step of entries in memory before it reads any record.
//!
//! This file holds the order itself ([`Sorted`]: its state, refreshes and
//! snapshots) and where keys are read from ([`KeySource`]); its parts, by role:
//!
//! - `base.rs`: the base as stored, in memory, mapped or sealed ([`Base`]).
//! - `fences.rs`: a base's fences and the key windows they hold ([`FenceSlot`]).
//! - `search.rs`: a key's place in an order, by interpolation ([`lower_bound`]).
//! - `sort.rs`: sorting offsets by key, placing new ones, folding a delta ([`sort_base`]).
//! - `patch.rs`: a checkpoint's block as the last order patched ([`Patch`]).
//! - `merge.rs`: walking a view's two streams in key order ([`Merge`]).
//! - `tests.rs`, `tests_checkpoint.rs`, `sort/key_order_review.rs`: the unit tests.

use std::ops::Bound;
use std::sync::Arc;

use parking_lot::Mutex;
use zeroize::Zeroize;

use crate::crypto::Crypt;
use crate::error::{Error, Result};
use crate::format::header::HEADER_SIZE;
use crate::format::record::{self, Frame, Kind, Layout};
use crate::namespace::{frame_at_checked, open_frame};

mod base;
mod fences;
mod merge;
mod patch;
mod search;
mod sort;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_checkpoint;

pub(crate) use base::{Base, SealedBase};
pub(crate) use fences::FenceSlot;
use fences::Fences;
pub(crate) use merge::Merge;
use merge::Rec;
pub(crate) use patch::{patch_from, patch_pays, LiveSplit, Patch};
pub(crate) use search::lower_bound;
use sort::{fold, merge};
pub(crate) use sort::{gather_sorted, sort_base, sort_from, sort_offsets};

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
