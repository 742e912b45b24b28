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
//! cannot say whether a put made a new key or replaced one).

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
    /// Changed since it was counted and not held: count it again.
    pub dirty: bool,
    /// A read of it is in flight.
    pub requested: bool,
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
                dirty: false,
                requested: false,
            })
            .collect();
        if chunks.is_empty() {
            chunks.push(Chunk {
                lo: None,
                count: 0,
                bytes: 0,
                keys: None,
                dirty: false,
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
                None => chunk.dirty = true,
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
                    dirty: false,
                    requested: false,
                });
                start = end;
            }
        }
        self.chunks = out;
        self.recount();
    }

    /// Store a chunk read: its keys (or only its count and bytes). Ignored
    /// when chunk `c` is no longer the one starting at `lo`. Returns true
    /// when rows moved.
    pub fn fill(
        &mut self,
        c: usize,
        lo: &Option<Vec<u8>>,
        count: usize,
        bytes: u64,
        keys: Option<KeySet>,
    ) -> bool {
        let Some(chunk) = self.chunks.get_mut(c).filter(|ch| ch.lo == *lo) else {
            return false;
        };
        chunk.requested = false;
        chunk.dirty = false;
        let moved = chunk.count != count;
        chunk.count = count;
        chunk.bytes = bytes;
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

    /// The chunk reads needed to show rows `rows` (the screen and a margin):
    /// the chunks there that are not held (or are dirty), then dirty chunks
    /// elsewhere (count only). Drops chunks far from `cursor`. Marks what it
    /// returns as requested.
    pub fn wants(&mut self, rows: std::ops::Range<usize>, cursor: usize) -> Vec<ChunkWant> {
        let near = |i: usize| {
            self.locate(i.min(self.total.saturating_sub(1)))
                .map_or(0, |(c, _)| c)
        };
        let (first, last) = (near(rows.start), near(rows.end.saturating_sub(1)));
        let at = near(cursor);
        let lo = first.min(at).saturating_sub(1);
        let hi = (last.max(at) + 1).min(self.chunks.len().saturating_sub(1));
        let mut out = Vec::new();
        for c in 0..self.chunks.len() {
            let show = c >= lo && c <= hi;
            let keep = c + KEEP_AROUND >= at && c <= at + KEEP_AROUND;
            let chunk = &mut self.chunks[c];
            if !keep && !show && chunk.keys.is_some() && c != 0 {
                chunk.keys = None;
            }
            let need = if show {
                chunk.keys.is_none() || chunk.dirty
            } else {
                chunk.dirty
            };
            if need && !chunk.requested {
                chunk.requested = true;
                out.push(ChunkWant {
                    chunk: c,
                    lo: chunk.lo.clone(),
                    hi: self.chunks.get(c + 1).and_then(|n| n.lo.clone()),
                    count_only: !show,
                });
            }
        }
        out
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
        let wants = p.wants(0..2, 0);
        assert_eq!(
            wants,
            vec![ChunkWant {
                chunk: 1,
                lo: Some(b"c".to_vec()),
                hi: Some(b"e".to_vec()),
                count_only: false
            }]
        );
        // Asked once only.
        assert!(p.wants(0..2, 0).is_empty());
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
        let wants = p.wants(0..2, 0);
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
        for w in p.wants(0..20, 0) {
            let key = w.lo.clone().unwrap_or_default();
            let k = String::from_utf8(key).unwrap();
            p.fill(w.chunk, &w.lo, 1, 1, Some(set(&[&k])));
        }
        assert_eq!(p.held(), 20);
        p.wants(15..16, 15);
        // The first chunk stays; the rest within KEEP_AROUND of the cursor
        // or shown.
        assert!(p.held() <= 2 * KEEP_AROUND + 2, "{}", p.held());
        assert!(p.key(0).is_some());
        assert!(p.key(5).is_none());
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
