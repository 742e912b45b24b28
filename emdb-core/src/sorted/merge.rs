//! Walking a view in key order ([`Merge`]): the base and the delta are two
//! sorted streams, merged one key (its newest record) at a time, each
//! record read once and the records ahead loading while the walk goes on,
//! since this is what every range read and compaction pays per pair
//! (docs/ARCHITECTURE.md, "Sorted order").

use std::ops::Bound;

use zeroize::Zeroizing;

use super::fences::FENCE_STEP;
use super::{is_before, lower_bound, Head, KeySource, View};
use crate::error::{Error, Result};
use crate::format::record::Kind;
use crate::log::prefetch_span;
use crate::namespace::check_crc;

/// Records a merge asks the CPU to load ahead of its position in each
/// stream (the next pairs of a range read are then in flight together
/// instead of one cache miss after another).
const AHEAD: usize = 6;
/// Bytes of a record loaded ahead: its head and key, and on most records
/// the value too.
const AHEAD_BYTES: usize = 192;

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
pub(super) struct Rec {
    pub(super) off: u64,
    pub(super) head: Head,
    pub(super) ns: u32,
    /// Encoded length of the frame at `off`.
    pub(super) len: usize,
    /// (start, length) of the key.
    pub(super) key: (usize, usize),
    /// (start, length) of the value.
    pub(super) value: (usize, usize),
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
    pub(super) fn win_key<'s>(&'s self, keys: KeySource<'s>) -> Result<&'s [u8]> {
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
