//! A paged key list: the keys of a big namespace (or of a filter matching
//! many keys) as a sequence of chunks, of which only a few around the
//! cursor are held.
//!
//! A scan by the worker (in key order, from the engine's sorted order)
//! cuts the matching keys into chunks of about [`CHUNK`] keys and keeps,
//! per chunk, only its first key (its *anchor*), its key count and the
//! bytes of its values: a million keys cost about a thousand anchors. Row
//! `i` of the list is found by the chunks' counts; a chunk's keys are read
//! from the engine when rows in it come near the screen (a range read from
//! its anchor to the next one, O(log n + k)) and dropped when the cursor
//! moves far away.
//!
//! Followed records change a held chunk in place; a change to a chunk that
//! is not held only marks it *dirty*: its count is read again (the engine
//! cannot say whether a put made a new key or replaced one). Those counts
//! are read a few chunks at a time ([`Pages::wants`]'s budget, in turn
//! from where the last round stopped): beside a writer updating keys all
//! over a big namespace nearly every chunk is dirty after each follow, and
//! counting them all again each time kept the worker busy (62% of a core
//! beside 20,000 writes/s on a million keys). A chunk that a count finds
//! grown to twice the chunk size is read whole once, so it is split like a
//! held one instead of growing (and being counted whole) without bound.

use std::ops::Bound;

use crate::keylist::{KeyChange, KeyEntry, KeySet, Pattern};

/// Keys per chunk as the worker cuts them.
pub const CHUNK: usize = 1024;

/// Chunks held on each side of the cursor's chunk.
pub const KEEP_AROUND: usize = 4;

/// One chunk: the keys from its anchor up to the next chunk's anchor.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// Its first key when it was cut (`None` for the first chunk, which
    /// starts where the scan starts). Keys added before it later still
    /// belong to the chunk before.
    pub lo: Option<Vec<u8>>,
    /// Keys in it (as last counted or held).
    pub count: usize,
    /// Bytes of their values.
    pub bytes: u64,
    /// Its keys, when held.
    pub keys: Option<KeySet>,
    /// Counted at twice the chunk size or more while not held: read it
    /// whole, so it is split.
    pub oversized: bool,
    /// Changes followed into it since it was last counted, while not held
    /// (any: count it again, [`Chunk::dirty`]).
    pub changes: u32,
    /// Its last read failed: not asked for again until it changes.
    pub failed: bool,
    /// A read of it is in flight.
    pub requested: bool,
}

impl Chunk {
    /// Changed since it was counted and not held: count it again.
    pub fn dirty(&self) -> bool {
        self.changes > 0
    }
}

/// A chunk read the list wants from the worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkWant {
    /// Its index.
    pub chunk: usize,
    /// Its first key (`None`: from the scan's start).
    pub lo: Option<Vec<u8>>,
    /// The next chunk's first key, excluded (`None`: to the scan's end).
    pub hi: Option<Vec<u8>>,
    /// Only its count and bytes are needed (it is far from the cursor).
    pub count_only: bool,
    /// It is away from the screen: read for its count (whole when it grew
    /// too big), within [`Pages::wants`]'s budget.
    pub away: bool,
}

/// The chunks of a paged list.
#[derive(Clone, Debug, Default)]
pub struct Pages {
    chunks: Vec<Chunk>,
    /// Row of each chunk's first key.
    starts: Vec<usize>,
    total: usize,
    /// Chunk size to split grown chunks at (twice this splits).
    chunk_size: usize,
    /// Where the next round of counts of chunks away from the screen
    /// starts (they are counted in turn, a budget at a time).
    recount_from: usize,
}

impl Pages {
    /// Pages from a scan's chunks: `(anchor, count, bytes)` in key order,
    /// the first one's anchor `None`; `first` holds the first chunk's keys.
    pub fn new(
        index: Vec<(Option<Vec<u8>>, usize, u64)>,
        first: KeySet,
        chunk_size: usize,
    ) -> Pages {
        let mut chunks: Vec<Chunk> = index
            .into_iter()
            .map(|(lo, count, bytes)| Chunk {
                lo,
                count,
                bytes,
                keys: None,
                oversized: false,
                changes: 0,
                failed: false,
                requested: false,
            })
            .collect();
        if chunks.is_empty() {
            chunks.push(Chunk {
                lo: None,
                count: 0,
                bytes: 0,
                keys: None,
                oversized: false,
                changes: 0,
                failed: false,
                requested: false,
            });
        }
        if let Some(c) = chunks.first_mut() {
            c.count = first.len();
            c.bytes = first.value_bytes();
            c.keys = Some(first);
        }
        let mut pages = Pages {
            chunks,
            starts: Vec::new(),
            total: 0,
            chunk_size: chunk_size.max(1),
            recount_from: 0,
        };
        pages.recount();
        pages
    }

    fn recount(&mut self) {
        self.starts.clear();
        let mut at = 0;
        for c in &self.chunks {
            self.starts.push(at);
            at += c.count;
        }
        self.total = at;
    }

    /// Rows (keys) in all chunks.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Number of chunks.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Chunks whose keys are held.
    pub fn held(&self) -> usize {
        self.chunks.iter().filter(|c| c.keys.is_some()).count()
    }

    /// Bytes of every value.
    pub fn value_bytes(&self) -> u64 {
        self.chunks.iter().map(|c| c.bytes).sum()
    }

    /// Chunk holding row `i`, and the row's place in it.
    fn locate(&self, i: usize) -> Option<(usize, usize)> {
        if i >= self.total {
            return None;
        }
        // The last chunk starting at or before `i` that is not empty.
        let c = self.starts.partition_point(|&s| s <= i).checked_sub(1)?;
        Some((c, i - self.starts[c]))
    }

    /// Chunk a key belongs in: the last one whose anchor is not above it.
    fn chunk_of(&self, key: &[u8]) -> usize {
        self.chunks.get(1..).map_or(0, |rest| {
            rest.partition_point(|c| c.lo.as_deref() <= Some(key))
        })
    }

    /// The key of row `i`, when its chunk is held.
    pub fn key(&self, i: usize) -> Option<&[u8]> {
        let (c, off) = self.locate(i)?;
        let set = self.chunks[c].keys.as_ref()?;
        (off < set.len()).then(|| set.key(off))
    }

    /// Size and expiry of row `i`, when its chunk is held.
    pub fn entry(&self, i: usize) -> Option<&KeyEntry> {
        let (c, off) = self.locate(i)?;
        self.chunks[c].keys.as_ref()?.entry(off)
    }

    /// Row of `key`: `Ok(row)` when its chunk is held and has it,
    /// `Err(Some(chunk))` when its chunk is not held, `Err(None)` when it
    /// is not there.
    pub fn row_of(&self, key: &[u8]) -> Result<usize, Option<usize>> {
        let c = self.chunk_of(key);
        let chunk = &self.chunks[c];
        match &chunk.keys {
            Some(set) => set.find(key).map(|p| self.starts[c] + p).ok_or(None),
            None => Err(Some(c)),
        }
    }

    /// First row of chunk `c`.
    pub fn start_of(&self, c: usize) -> usize {
        self.starts.get(c).copied().unwrap_or(self.total)
    }

    /// Whether `key` is held (`None`: its chunk is not held, so unknown).
    pub fn contains(&self, key: &[u8]) -> Option<bool> {
        match self.row_of(key) {
            Ok(_) => Some(true),
            Err(None) => Some(false),
            Err(Some(_)) => None,
        }
    }

    /// Apply followed changes of keys matching `filter` (all keys without
    /// one): held chunks change in place, others are marked dirty.
    /// Returns true when rows moved.
    pub fn apply(&mut self, changes: Vec<KeyChange>, filter: Option<&Pattern>) -> bool {
        let mut per_chunk: Vec<(usize, Vec<KeyChange>)> = Vec::new();
        for ch in changes {
            let key = match &ch {
                KeyChange::Upsert { key, .. } | KeyChange::Remove(key) => key,
            };
            if filter.is_some_and(|p| !p.matches(key)) {
                continue;
            }
            let c = self.chunk_of(key);
            match per_chunk.last_mut() {
                Some((last, list)) if *last == c => list.push(ch),
                _ => per_chunk.push((c, vec![ch])),
            }
        }
        let mut moved = false;
        let mut split = false;
        for (c, list) in per_chunk {
            let chunk = &mut self.chunks[c];
            match &mut chunk.keys {
                Some(set) => {
                    moved |= set.apply(list);
                    chunk.count = set.len();
                    chunk.bytes = set.value_bytes();
                    split |= chunk.count >= 2 * self.chunk_size;
                }
                None => {
                    chunk.failed = false;
                    let n = u32::try_from(list.len()).unwrap_or(u32::MAX).max(1);
                    chunk.changes = chunk.changes.saturating_add(n);
                }
            }
        }
        if split {
            self.split_big();
        }
        if moved {
            self.recount();
        }
        moved
    }

    /// Cut held chunks that grew to twice the chunk size.
    fn split_big(&mut self) {
        let size = self.chunk_size;
        let mut out = Vec::with_capacity(self.chunks.len() + 1);
        for chunk in std::mem::take(&mut self.chunks) {
            let Some(set) = chunk.keys.as_ref().filter(|s| s.len() >= 2 * size) else {
                out.push(chunk);
                continue;
            };
            let mut start = 0;
            while start < set.len() {
                let end = (start + size).min(set.len());
                let part = set.slice(start..end);
                out.push(Chunk {
                    lo: if start == 0 {
                        chunk.lo.clone()
                    } else {
                        Some(set.key(start).to_vec())
                    },
                    count: part.len(),
                    bytes: part.value_bytes(),
                    keys: Some(part),
                    oversized: false,
                    changes: 0,
                    failed: false,
                    requested: false,
                });
                start = end;
            }
        }
        self.chunks = out;
        self.recount();
    }

    /// Store a chunk read: its keys (or only its count and bytes), for the
    /// chunk starting at `lo` (chunk `c` when it was asked; splits may have
    /// moved it since). Ignored when no chunk starts at `lo` any more.
    /// Returns true when rows moved.
    pub fn fill(
        &mut self,
        c: usize,
        lo: &Option<Vec<u8>>,
        count: usize,
        bytes: u64,
        keys: Option<KeySet>,
    ) -> bool {
        let Some(c) = self.find(c, lo) else {
            return false;
        };
        let size = self.chunk_size;
        let Some(chunk) = self.chunks.get_mut(c) else {
            return false;
        };
        chunk.requested = false;
        chunk.failed = false;
        chunk.changes = 0;
        let moved = chunk.count != count;
        chunk.count = count;
        chunk.bytes = bytes;
        // Counted only, and grown too big to count again and again: the
        // next read of it takes its keys, and splits it.
        chunk.oversized = keys.is_none() && count >= 2 * size;
        if keys.is_some() {
            chunk.keys = keys;
        }
        if chunk.count >= 2 * self.chunk_size && chunk.keys.is_some() {
            self.split_big();
        } else if moved {
            self.recount();
        }
        moved
    }

    /// The chunk starting at `lo`: chunk `c` when it was asked, unless
    /// splits have moved it since.
    fn find(&self, c: usize, lo: &Option<Vec<u8>>) -> Option<usize> {
        if self.chunks.get(c).is_some_and(|ch| ch.lo == *lo) {
            return Some(c);
        }
        // Anchors are unique and in key order (the first one `None`).
        self.chunks
            .binary_search_by(|ch| ch.lo.as_deref().cmp(&lo.as_deref()))
            .ok()
    }

    /// A read of the chunk starting at `lo` (chunk `c` when asked)
    /// failed: it is no longer in flight, and it is not asked for again
    /// until a followed change lands in it (a damaged record would fail
    /// every read, and the screen asks on every update).
    pub fn chunk_failed(&mut self, c: usize, lo: &Option<Vec<u8>>) {
        if let Some(chunk) = self.find(c, lo).and_then(|c| self.chunks.get_mut(c)) {
            chunk.requested = false;
            chunk.failed = true;
        }
    }

    /// The chunk reads needed to show rows `rows` (the screen and a margin):
    /// the chunks there that are not held (or are dirty), then dirty chunks
    /// elsewhere (count only, or whole when they grew too big), those for
    /// at most about `budget` keys (at least one chunk when `budget > 0`),
    /// taken in turn from where the last call's stopped. Drops chunks far
    /// from `cursor`. Marks what it returns as requested.
    pub fn wants(
        &mut self,
        rows: std::ops::Range<usize>,
        cursor: usize,
        budget: usize,
    ) -> Vec<ChunkWant> {
        let near = |i: usize| {
            self.locate(i.min(self.total.saturating_sub(1)))
                .map_or(0, |(c, _)| c)
        };
        let (first, last) = (near(rows.start), near(rows.end.saturating_sub(1)));
        let at = near(cursor);
        let lo = first.min(at).saturating_sub(1);
        let hi = (last.max(at) + 1).min(self.chunks.len().saturating_sub(1));
        let shown = |c: usize| c >= lo && c <= hi;
        let mut out = Vec::new();
        let n = self.chunks.len();
        for c in 0..n {
            let show = shown(c);
            let keep = c + KEEP_AROUND >= at && c <= at + KEEP_AROUND;
            let chunk = &mut self.chunks[c];
            if !keep && !show && chunk.keys.is_some() && c != 0 {
                chunk.keys = None;
            }
            if show && (chunk.keys.is_none() || chunk.dirty()) && !chunk.requested && !chunk.failed
            {
                chunk.requested = true;
                out.push(self.want(c, false, false));
            }
        }
        // Counts of changed chunks elsewhere, within the budget: half of
        // it for the chunks that took the most changes (where keys are
        // being added or removed in bulk, the count is most likely off),
        // the rest in turn, so every changed chunk is counted in time.
        if budget == 0 {
            return out;
        }
        let waiting = |ch: &Chunk, c: usize| {
            (ch.dirty() || ch.oversized) && !ch.requested && !ch.failed && !shown(c)
        };
        let mut busiest: Vec<(u32, usize)> = (0..n)
            .filter(|&c| waiting(&self.chunks[c], c))
            .map(|c| (self.chunks[c].changes, c))
            .collect();
        busiest.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut spent = 0usize;
        for (_, c) in busiest {
            if spent >= budget / 2 && spent > 0 {
                break;
            }
            spent += self.take_away(c, &mut out);
        }
        let from = self.recount_from.min(n);
        for c in (from..n).chain(0..from) {
            if spent >= budget && spent > 0 {
                break;
            }
            if waiting(&self.chunks[c], c) {
                spent += self.take_away(c, &mut out);
                self.recount_from = c + 1;
            }
        }
        out
    }

    /// Ask for chunk `c`, away from the screen, to be counted (or read
    /// whole when it grew too big); returns the keys that costs about.
    fn take_away(&mut self, c: usize, out: &mut Vec<ChunkWant>) -> usize {
        let Some(chunk) = self.chunks.get_mut(c) else {
            return 0;
        };
        chunk.requested = true;
        let (cost, whole) = (chunk.count.max(1), chunk.oversized);
        out.push(self.want(c, !whole, true));
        cost
    }

    /// The read of chunk `c` (to the next chunk's anchor).
    fn want(&self, c: usize, count_only: bool, away: bool) -> ChunkWant {
        ChunkWant {
            chunk: c,
            lo: self.chunks.get(c).and_then(|ch| ch.lo.clone()),
            hi: self.chunks.get(c + 1).and_then(|n| n.lo.clone()),
            count_only,
            away,
        }
    }
}

/// The range a scan of `filter` reads within `[lo, hi)`: a prefix filter
/// narrows it to the prefix's keys.
pub fn scan_bounds(
    filter: Option<&Pattern>,
    lo: Option<&[u8]>,
    hi: Option<&[u8]>,
) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let mut start = lo.map_or(Bound::Unbounded, |k| Bound::Included(k.to_vec()));
    let mut end = hi.map_or(Bound::Unbounded, |k| Bound::Excluded(k.to_vec()));
    if let Some(p) = filter.filter(|p| p.is_prefix() && p.error.is_none()) {
        let prefix = p.needle.clone();
        if lo.is_none_or(|k| k < prefix.as_slice()) {
            start = Bound::Included(prefix.clone());
        }
        let prefix_end = emdb_core::prefix_end(&prefix);
        end = match (end, prefix_end) {
            (Bound::Unbounded, e) => e,
            (e, Bound::Unbounded) => e,
            (Bound::Excluded(a), Bound::Excluded(b)) => Bound::Excluded(a.min(b)),
            (e, _) => e,
        };
    }
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(keys: &[&str]) -> KeySet {
        KeySet::from_keys(keys)
    }

    fn pages() -> Pages {
        // Three chunks of two: a b | c d | e f.
        Pages::new(
            vec![
                (None, 2, 0),
                (Some(b"c".to_vec()), 2, 0),
                (Some(b"e".to_vec()), 2, 0),
            ],
            set(&["a", "b"]),
            2,
        )
    }

    #[test]
    fn rows_map_to_chunks_and_unheld_chunks_are_wanted() {
        let mut p = pages();
        assert_eq!(p.total(), 6);
        assert_eq!(p.key(1), Some(&b"b"[..]));
        assert_eq!(p.key(2), None);
        assert_eq!(p.row_of(b"d"), Err(Some(1)));
        // The shown rows' chunk and the next one.
        let wants = p.wants(0..2, 0, usize::MAX);
        assert_eq!(
            wants,
            vec![ChunkWant {
                chunk: 1,
                lo: Some(b"c".to_vec()),
                hi: Some(b"e".to_vec()),
                count_only: false,
                away: false,
            }]
        );
        // Asked once only.
        assert!(p.wants(0..2, 0, usize::MAX).is_empty());
        assert!(p.fill(1, &Some(b"c".to_vec()), 3, 9, Some(set(&["c", "cc", "d"]))));
        assert_eq!(p.total(), 7);
        assert_eq!(p.key(3), Some(&b"cc"[..]));
        assert_eq!(p.row_of(b"d"), Ok(4));
        assert_eq!(p.value_bytes(), 9);
    }

    #[test]
    fn changes_apply_in_place_or_mark_dirty_and_big_chunks_split() {
        let mut p = pages();
        let up = |k: &str| KeyChange::Upsert {
            key: k.into(),
            size: 1,
            expires_ms: 0,
        };
        // "a0" lands in the held first chunk; "e1" in the third, not held.
        assert!(p.apply(vec![up("a0"), up("e1")], None));
        assert_eq!(p.key(1), Some(&b"a0"[..]));
        assert_eq!(p.total(), 7);
        // Chunk 1 is read (next to the screen), chunk 2 only counted.
        let wants = p.wants(0..2, 0, usize::MAX);
        assert_eq!(wants.len(), 2);
        assert_eq!((wants[0].chunk, wants[0].count_only), (1, false));
        assert_eq!((wants[1].chunk, wants[1].count_only), (2, true));
        // The held chunk grew to 4 = twice the size: it is split.
        assert!(p.apply(vec![up("a1")], None));
        assert_eq!(p.chunk_count(), 4);
        assert_eq!(p.total(), 8);
        assert_eq!(p.row_of(b"a1"), Ok(2));
        // A filter keeps other keys out.
        let f = Pattern::parse("^z");
        assert!(!p.apply(vec![up("b0")], Some(&f)));
        assert_eq!(p.contains(b"b0"), Some(false));
    }

    #[test]
    fn chunks_far_from_the_cursor_are_dropped() {
        let index: Vec<_> = (0..20)
            .map(|i| ((i > 0).then(|| format!("k{i:02}").into_bytes()), 1, 1))
            .collect();
        let mut p = Pages::new(index, set(&["k00"]), 1);
        for w in p.wants(0..20, 0, usize::MAX) {
            let key = w.lo.clone().unwrap_or_default();
            let k = String::from_utf8(key).unwrap();
            p.fill(w.chunk, &w.lo, 1, 1, Some(set(&[&k])));
        }
        assert_eq!(p.held(), 20);
        p.wants(15..16, 15, usize::MAX);
        // The first chunk stays; the rest within KEEP_AROUND of the cursor
        // or shown.
        assert!(p.held() <= 2 * KEEP_AROUND + 2, "{}", p.held());
        assert!(p.key(0).is_some());
        assert!(p.key(5).is_none());
    }

    /// Twenty chunks of one key each (`k00` to `k19`), the first held.
    fn twenty() -> Pages {
        let index: Vec<_> = (0..20)
            .map(|i| ((i > 0).then(|| format!("k{i:02}").into_bytes()), 1, 1))
            .collect();
        Pages::new(index, set(&["k00"]), 1)
    }

    #[test]
    fn changed_chunks_away_from_the_screen_are_counted_in_turn_within_a_budget() {
        let mut p = twenty();
        let up = |k: String| KeyChange::Upsert {
            key: k.into_bytes(),
            size: 1,
            expires_ms: 0,
        };
        // Every chunk but the held first one changes.
        p.apply((1..20).map(|i| up(format!("k{i:02}"))).collect(), None);
        let away = |w: &[ChunkWant]| -> Vec<usize> {
            w.iter().filter(|w| w.away).map(|w| w.chunk).collect()
        };
        // The screen's chunks first, without a budget; nothing else.
        let first = p.wants(0..1, 0, 0);
        assert!(away(&first).is_empty(), "{first:?}");
        // A budget of 3 keys: 3 chunks of one key, then the next 3.
        let mut seen = Vec::new();
        for _ in 0..7 {
            let w = p.wants(0..1, 0, 3);
            let a = away(&w);
            assert!(a.len() <= 3, "{w:?}");
            assert!(w.iter().filter(|w| w.away).all(|w| w.count_only));
            for w in &w {
                p.fill(w.chunk, &w.lo, 1, 1, None);
            }
            seen.extend(a);
        }
        seen.sort_unstable();
        let shown: Vec<usize> = first.iter().map(|w| w.chunk).collect();
        let want: Vec<usize> = (1..20).filter(|c| !shown.contains(c)).collect();
        assert_eq!(seen, want, "every changed chunk counted once");
        assert!(p.wants(0..1, 0, 3).iter().all(|w| !w.away));
    }

    #[test]
    fn the_chunk_with_the_most_changes_is_counted_first() {
        let mut p = twenty();
        p.wants(0..1, 0, 0);
        let up = |k: String| KeyChange::Upsert {
            key: k.into_bytes(),
            size: 1,
            expires_ms: 0,
        };
        let mut changes: Vec<KeyChange> = (1..20).map(|i| up(format!("k{i:02}"))).collect();
        changes.extend((0..5).map(|i| up(format!("k12x{i}"))));
        changes.sort_by(|a, b| match (a, b) {
            (KeyChange::Upsert { key: x, .. }, KeyChange::Upsert { key: y, .. }) => x.cmp(y),
            _ => std::cmp::Ordering::Equal,
        });
        p.apply(changes, None);
        // A budget of one chunk: chunk 12, with six changes.
        let w = p.wants(0..1, 0, 1);
        let away: Vec<usize> = w.iter().filter(|w| w.away).map(|w| w.chunk).collect();
        assert_eq!(away, vec![12], "{w:?}");
    }

    #[test]
    fn a_chunk_whose_read_failed_is_asked_for_again_only_once_it_changes() {
        let mut p = twenty();
        // Chunk 1 is shown: asked for, and its read fails.
        let w = p.wants(0..2, 0, 0);
        let w1 = w.iter().find(|w| w.chunk == 1).unwrap().clone();
        p.chunk_failed(1, &w1.lo);
        for _ in 0..3 {
            assert!(p.wants(0..2, 0, usize::MAX).iter().all(|w| w.chunk != 1));
        }
        // A change in it: asked for again, and a read that works clears it.
        p.apply(
            vec![KeyChange::Upsert {
                key: b"k01a".to_vec(),
                size: 1,
                expires_ms: 0,
            }],
            None,
        );
        let w = p.wants(0..2, 0, 0);
        assert!(w.iter().any(|w| w.chunk == 1 && !w.count_only), "{w:?}");
        assert!(p.fill(1, &w1.lo, 2, 2, Some(set(&["k01", "k01a"]))));
        assert_eq!(p.key(2), Some(&b"k01a"[..]));
    }

    #[test]
    fn a_chunk_counted_too_big_is_read_whole_and_split() {
        let mut p = twenty();
        p.wants(0..1, 0, 0);
        let up = |k: &str| KeyChange::Upsert {
            key: k.into(),
            size: 1,
            expires_ms: 0,
        };
        // Chunk 10 (k10) gained two keys while not held.
        p.apply(vec![up("k10a"), up("k10b")], None);
        let w = p.wants(0..1, 0, usize::MAX);
        let w10 = w.iter().find(|w| w.chunk == 10).unwrap().clone();
        assert!(w10.count_only && w10.away);
        assert!(p.fill(10, &w10.lo, 3, 3, None));
        assert_eq!(p.total(), 22);
        // Three keys, chunk size 1: read whole next, then split.
        let w = p.wants(0..1, 0, usize::MAX);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(!w[0].count_only && w[0].away && w[0].chunk == 10);
        let chunks = p.chunk_count();
        p.fill(10, &w[0].lo, 3, 3, Some(set(&["k10", "k10a", "k10b"])));
        assert_eq!(p.chunk_count(), chunks + 2);
        assert_eq!(p.total(), 22);
        // A read answered after the split moved its chunk still lands.
        let lo = Some(b"k15".to_vec());
        assert_eq!(p.row_of(b"k15"), Err(Some(17)));
        p.apply(vec![up("k15a")], None);
        assert!(p.fill(15, &lo, 2, 2, None));
        assert_eq!(p.total(), 23);
        // The count went to k15's chunk (now 17), not to chunk 15 (k13).
        assert_eq!(p.start_of(18) - p.start_of(17), 2);
        assert_eq!(p.start_of(16) - p.start_of(15), 1);
    }

    #[test]
    fn prefix_filters_narrow_the_scan() {
        let f = Pattern::parse("^user:");
        let (lo, hi) = scan_bounds(Some(&f), None, None);
        assert_eq!(lo, Bound::Included(b"user:".to_vec()));
        assert_eq!(hi, Bound::Excluded(b"user;".to_vec()));
        let (lo, hi) = scan_bounds(Some(&f), Some(b"user:5"), Some(b"v"));
        assert_eq!(lo, Bound::Included(b"user:5".to_vec()));
        assert_eq!(hi, Bound::Excluded(b"user;".to_vec()));
        let (lo, hi) = scan_bounds(None, None, None);
        assert_eq!((lo, hi), (Bound::Unbounded, Bound::Unbounded));
    }
}
