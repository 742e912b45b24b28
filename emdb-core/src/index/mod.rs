//! The keydir: a per-namespace, sharded hash index from key to log offset.
//!
//! No keys are kept in memory. A key's 64-bit xxh3 hash picks a shard (top
//! 8 bits) and a 24-bit tag (next 24 bits); each shard is a [`Table`] of
//! 8-byte (tag, offset) slots behind its own reader-writer lock, so readers
//! never block each other and a writer blocks only one shard at a time.

mod arena;
pub(crate) mod image;
pub(crate) mod layer;
pub(crate) mod table;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;

use crate::error::Result;
use crate::format::checkpoint::{NsImage, NsMeta, ShardImage};
pub(crate) use arena::Arena;
use arena::Arenas;
use image::Image;
pub(crate) use layer::Layer;
pub(crate) use table::Table;

/// Number of shards per namespace index.
pub(crate) const SHARDS: usize = 256;

/// Where a key lives in the index.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeyHash {
    shard: usize,
    tag: u32,
}

/// Hash a key (xxh3-64 with `seed`; 0 for plain databases, a key-derived
/// secret for encrypted ones). The mapping is part of the checkpoint format.
#[inline]
pub(crate) fn hash_key(key: &[u8], seed: u64) -> KeyHash {
    let h = if seed == 0 {
        xxhash_rust::xxh3::xxh3_64(key)
    } else {
        xxhash_rust::xxh3::xxh3_64_with_seed(key, seed)
    };
    KeyHash {
        shard: (h >> 56) as usize,
        tag: ((h >> 32) as u32) & 0x00ff_ffff,
    }
}

/// Whether a shard of `cap` slots should move to the `target` capacity: it
/// is one doubling behind and shards of the target share an arena.
fn follows(cap: usize, target: usize) -> bool {
    cap != 0 && cap * 2 == target && arena::is_shared(target)
}

/// Subtract `n` from a count, stopping at zero: counts a read-only open
/// took from a tail index are only as right as that file, and a wrong one
/// must not wrap to a huge number.
fn take(c: &AtomicU64, n: u64) {
    let _ = c.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
        Some(v.saturating_sub(n))
    });
}

/// One shard on its own cache line, so readers of neighbouring shards do not
/// contend on the lock words.
#[repr(align(64))]
struct Shard(RwLock<Table>, SlotHint);

/// Where a shard's slots lie, readable without its lock, for prefetch
/// hints only: it may be stale or torn while the table moves (a prefetch
/// of any address is harmless: it never faults and reads nothing the
/// program sees).
#[derive(Default)]
struct SlotHint {
    /// Address of the first slot (0: no slots).
    at: AtomicUsize,
    /// Slot count minus one.
    mask: AtomicUsize,
}

impl Shard {
    fn new(t: Table) -> Shard {
        // The hint is read from the table before it is shared: no lock to
        // take (a namespace opens 256 shards).
        let (at, mask) = t.slot_span();
        let hint = SlotHint {
            at: AtomicUsize::new(at),
            mask: AtomicUsize::new(mask),
        };
        Shard(RwLock::new(t), hint)
    }
}

impl SlotHint {
    /// Record where `t`'s slots are now (with `t` locked).
    #[inline]
    fn set(&self, t: &Table) {
        let (at, mask) = t.slot_span();
        self.at.store(at, Ordering::Relaxed);
        self.mask.store(mask, Ordering::Relaxed);
    }

    /// Start loading the slot a lookup of `tag` begins at.
    #[inline]
    fn prefetch(&self, tag: u32) {
        let at = self.at.load(Ordering::Relaxed);
        if at != 0 {
            let mask = self.mask.load(Ordering::Relaxed);
            arena::prefetch_addr(at.wrapping_add((tag as usize & mask).wrapping_mul(8)));
        }
    }
}

/// The index of one namespace.
pub(crate) struct Keydir {
    shards: Box<[Shard]>,
    /// The shards' slot memory.
    arenas: Arenas,
    /// Shards still one doubling below the target capacity (see [`follows`]).
    behind: AtomicUsize,
    /// Next shard [`Keydir::catch_up`] looks at.
    cursor: AtomicUsize,
    live: AtomicU64,
    live_bytes: AtomicU64,
    /// Live entries whose record carries an expiry.
    expiring: AtomicU64,
    /// Changes kept over the shards instead of in them (a read-only open
    /// from a tail index: see [`Layer`]); once set, the shards are only
    /// read (and emptied by a clear).
    layer: OnceLock<Layer>,
}

impl Default for Keydir {
    fn default() -> Self {
        Keydir {
            shards: (0..SHARDS).map(|i| Shard::new(Table::new(i))).collect(),
            arenas: Arenas::default(),
            behind: AtomicUsize::new(0),
            cursor: AtomicUsize::new(0),
            live: AtomicU64::new(0),
            live_bytes: AtomicU64::new(0),
            expiring: AtomicU64::new(0),
            layer: OnceLock::new(),
        }
    }
}

impl Keydir {
    /// Look a key up; `is_key` confirms a tag match against the log.
    #[inline]
    pub(crate) fn get(
        &self,
        h: KeyHash,
        is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        if let Some(l) = self.layer.get() {
            return l.get(h, &self.shards[h.shard].0, is_key);
        }
        let t = self.shards[h.shard].0.read();
        let found = t.find(h.tag, is_key)?.map(|(_, off)| off);
        t.check_cut()?;
        Ok(found)
    }

    /// Start loading the slot where a lookup of `h` begins (see
    /// [`SlotHint::prefetch`]); a run of these ahead of the lookups overlaps
    /// their cache misses.
    #[inline]
    pub(crate) fn prefetch(&self, h: KeyHash) {
        self.shards[h.shard].1.prefetch(h.tag);
    }

    /// Run a write on shard `i`, then keep the shards' capacities in step.
    fn write<T>(&self, i: usize, op: impl FnOnce(&mut Table, &Arenas) -> Result<T>) -> Result<T> {
        let target = self.arenas.target();
        let out = {
            let mut t = self.shards[i].0.write();
            let out = op(&mut t, &self.arenas);
            self.shards[i].1.set(&t);
            t.check_cut()?;
            out
        };
        if self.arenas.target() > target {
            self.count_behind();
        }
        self.catch_up();
        out
    }

    /// After the target capacity rose: count the shards left behind (none
    /// while the target is too small for shards to share an arena).
    fn count_behind(&self) {
        let target = self.arenas.target();
        self.cursor.store(0, Ordering::Relaxed);
        if !arena::is_shared(target) {
            self.behind.store(0, Ordering::Relaxed);
            return;
        }
        let behind = self
            .shards
            .iter()
            .filter(|s| follows(s.0.read().cap(), target))
            .count();
        self.behind.store(behind, Ordering::Relaxed);
    }

    /// Move one shard left behind to the target capacity, so a smaller arena
    /// is not kept alive by a few shards (one relaxed load when none is).
    /// A failure to get memory leaves the shard where it is, which is only
    /// less compact.
    fn catch_up(&self) {
        if self.behind.load(Ordering::Relaxed) == 0 {
            return;
        }
        let target = self.arenas.target();
        loop {
            let j = self.cursor.fetch_add(1, Ordering::Relaxed);
            let Some(shard) = self.shards.get(j) else {
                self.behind.store(0, Ordering::Relaxed);
                return;
            };
            let cap = shard.0.read().cap();
            if follows(cap, target) {
                let mut t = shard.0.write();
                let _ = t.resize(&self.arenas, target);
                shard.1.set(&t);
                drop(t);
                let _ = self
                    .behind
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(1));
                return;
            }
        }
    }

    /// Point a key at a new record; returns the previous offset. The key
    /// and byte counts are the caller's to keep ([`Keydir::add_counts`]:
    /// once per record, or once for a whole batch).
    pub(crate) fn upsert(
        &self,
        h: KeyHash,
        offset: u64,
        is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        if let Some(l) = self.layer.get() {
            return l.upsert(h, offset, &self.shards[h.shard].0, is_key);
        }
        self.write(h.shard, |t, a| t.upsert(a, h.tag, offset, is_key))
    }

    /// Keep every later change in `layer` (built over this index), leaving
    /// the shards as they are; false if a layer was set already.
    pub(crate) fn set_layer(&self, layer: Layer) -> bool {
        self.layer.set(layer).is_ok()
    }

    /// [`Layer::add_delete`] for a layer to be set on this index.
    pub(crate) fn add_delete(
        &self,
        layer: &Layer,
        h: KeyHash,
        offset: u64,
        is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<()> {
        layer.add_delete(h, offset, &self.shards[h.shard].0, is_key)
    }

    /// Whether changes are layered over the shards (see [`Keydir::set_layer`]).
    pub(crate) fn is_layered(&self) -> bool {
        self.layer.get().is_some()
    }

    /// Apply the net changes of [`Keydir::upsert`] calls: live keys, live
    /// bytes, expiring keys.
    pub(crate) fn add_counts(&self, live: i64, bytes: i64, expiring: i64) {
        let add = |c: &AtomicU64, d: i64| {
            if d > 0 {
                c.fetch_add(d.unsigned_abs(), Ordering::Relaxed);
            } else if d < 0 {
                take(c, d.unsigned_abs());
            }
        };
        add(&self.live, live);
        add(&self.live_bytes, bytes);
        add(&self.expiring, expiring);
    }

    /// Insert a key known to be absent (compaction, checkpoint-free rebuilds).
    pub(crate) fn insert_new(&self, h: KeyHash, offset: u64) -> Result<()> {
        match self.layer.get() {
            Some(l) => l.insert_new(h, offset)?,
            None => self.write(h.shard, |t, a| t.insert_new(a, h.tag, offset))?,
        }
        self.live.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Remove a key; returns its offset.
    pub(crate) fn remove(
        &self,
        h: KeyHash,
        is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        let old = match self.layer.get() {
            Some(l) => l.remove(h, &self.shards[h.shard].0, is_key)?,
            None => {
                let mut t = self.shards[h.shard].0.write();
                let old = t.remove(h.tag, is_key)?;
                t.check_cut()?;
                old
            }
        };
        if old.is_some() {
            take(&self.live, 1);
        }
        Ok(old)
    }

    /// Drop every entry.
    pub(crate) fn clear(&self) {
        for (i, s) in self.shards.iter().enumerate() {
            let empty = || {
                let mut t = s.0.write();
                *t = Table::new(i);
                s.1.set(&t);
            };
            match self.layer.get() {
                Some(l) => l.clear_shard(i, empty),
                None => empty(),
            }
        }
        if let Some(l) = self.layer.get() {
            l.cleared();
        }
        self.arenas.reset_target();
        self.behind.store(0, Ordering::Relaxed);
        self.live.store(0, Ordering::Relaxed);
        self.live_bytes.store(0, Ordering::Relaxed);
        self.expiring.store(0, Ordering::Relaxed);
    }

    /// Live entries whose record can expire.
    pub(crate) fn expiring(&self) -> u64 {
        self.expiring.load(Ordering::Relaxed)
    }

    /// Adjust the expiring-entries account.
    pub(crate) fn account_expiring(&self, added: bool, removed: bool) {
        match (added, removed) {
            (true, false) => {
                self.expiring.fetch_add(1, Ordering::Relaxed);
            }
            (false, true) => {
                take(&self.expiring, 1);
            }
            _ => {}
        }
    }

    /// Set every count at once (a scoped open takes them from a tail
    /// index): live keys, live bytes, expiring keys.
    pub(crate) fn set_counts(&self, live: u64, bytes: u64, expiring: u64) {
        self.live.store(live, Ordering::Relaxed);
        self.live_bytes.store(bytes, Ordering::Relaxed);
        self.expiring.store(expiring, Ordering::Relaxed);
    }

    /// Live keys.
    pub(crate) fn len(&self) -> u64 {
        self.live.load(Ordering::Relaxed)
    }

    /// Bytes of the log held by live records.
    pub(crate) fn live_bytes(&self) -> u64 {
        self.live_bytes.load(Ordering::Relaxed)
    }

    /// Adjust the live-bytes account by `add - sub`.
    pub(crate) fn account(&self, add: u64, sub: u64) {
        if add >= sub {
            self.live_bytes.fetch_add(add - sub, Ordering::Relaxed);
        } else {
            take(&self.live_bytes, sub - add);
        }
    }

    /// Heap bytes the index uses.
    pub(crate) fn memory_bytes(&self) -> usize {
        let mut arenas: Vec<(usize, usize)> = self
            .shards
            .iter()
            .filter_map(|s| {
                let t = s.0.read();
                t.arena().map(|a| (Arc::as_ptr(a) as usize, a.bytes()))
            })
            .collect();
        if let Some(l) = self.layer.get() {
            arenas.extend(l.arenas());
        }
        arenas.sort_unstable();
        arenas.dedup();
        self.shards.len() * std::mem::size_of::<Shard>()
            + arenas.iter().map(|&(_, bytes)| bytes).sum::<usize>()
    }

    /// Offsets of every entry of shard `i`, copied under its read lock.
    /// `same(a, b)` tells whether the records at `a` and `b` have the same
    /// key: a layered index (see [`Keydir::set_layer`]) asks it when an
    /// entry of the shard may be replaced by one of the layer.
    pub(crate) fn shard_offsets(
        &self,
        i: usize,
        same: impl FnMut(u64, u64) -> Result<bool>,
    ) -> Result<Vec<u64>> {
        if let Some(l) = self.layer.get() {
            return l.offsets(i, &self.shards[i].0, same);
        }
        let t = self.shards[i].0.read();
        let offsets = t.offsets()?.collect();
        t.check_cut()?;
        Ok(offsets)
    }

    /// A stored image of this index: its slots copied, or with `live` the
    /// index's own (`Slots::Live`, for a checkpoint that keeps writers out
    /// until its file is written).
    pub(crate) fn image(&self, id: u32, name: &[u8], live: bool) -> Result<NsImage> {
        if self.is_layered() {
            // Only read-only opens layer, and they write no checkpoint.
            return Err(crate::error::Error::ReadOnly);
        }
        let shards = self
            .shards
            .iter()
            .map(|s| {
                let t = s.0.read();
                let entries = match live {
                    true => t.live()?,
                    false => t.raw()?.into(),
                };
                t.check_cut()?;
                Ok(ShardImage {
                    len: t.len() as u32,
                    entries,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(NsImage {
            id,
            name: name.to_vec(),
            live_bytes: self.live_bytes(),
            expiring: self.expiring(),
            shards,
            sorted: None,
        })
    }

    /// An index over a mapped checkpoint's slots (docs/FORMAT.md, version
    /// 2): no slot is read here, so this costs the same for any number of
    /// keys. `None` if a shard's slots do not lie inside the image.
    pub(crate) fn over_image(meta: &NsMeta, image: &Arc<Image>) -> Option<Keydir> {
        if meta.shards.len() != SHARDS {
            return None;
        }
        let arenas = Arenas::default();
        // Shared blocks by (capacity, first byte).
        let mut shared: Vec<(usize, usize, Arc<Arena>)> = Vec::new();
        let mut shards = Vec::with_capacity(SHARDS);
        let mut live = 0u64;
        for (i, place) in meta.shards.iter().enumerate() {
            let (cap, len) = (place.cap as usize, place.len as usize);
            live += place.len as u64;
            if cap == 0 {
                shards.push(Shard::new(Table::new(i)));
                continue;
            }
            let at = usize::try_from(place.at).ok()?;
            let arena = if arena::is_shared(cap) {
                let start = at.checked_sub(i.checked_mul(cap)?.checked_mul(8)?)?;
                match shared.iter().find(|(c, s, _)| *c == cap && *s == start) {
                    Some((_, _, a)) => Arc::clone(a),
                    None => {
                        let a = Arc::new(Arena::in_image(image, start, cap, 0, SHARDS)?);
                        arenas.adopt(&a);
                        shared.push((cap, start, Arc::clone(&a)));
                        a
                    }
                }
            } else {
                let a = Arc::new(Arena::in_image(image, at, cap, i, 1)?);
                arenas.raise_target(cap);
                a
            };
            shards.push(Shard::new(Table::in_arena(i, arena, len)));
        }
        Some(Keydir {
            shards: shards.into_boxed_slice(),
            arenas,
            behind: AtomicUsize::new(0),
            cursor: AtomicUsize::new(0),
            live: AtomicU64::new(live),
            live_bytes: AtomicU64::new(meta.live_bytes),
            expiring: AtomicU64::new(meta.expiring),
            layer: OnceLock::new(),
        })
    }

    /// Rebuild from a stored image; `None` if it is inconsistent.
    pub(crate) fn from_image(img: NsImage, max_offset: u64) -> Option<Keydir> {
        if img.shards.len() != SHARDS {
            return None;
        }
        let mut live = 0u64;
        let arenas = Arenas::default();
        let mut shards = Vec::with_capacity(SHARDS);
        for (i, s) in img.shards.into_iter().enumerate() {
            if s.entries
                .iter()
                .any(|e| e != 0 && table::entry_offset(e) >= max_offset)
            {
                return None;
            }
            live += u64::from(s.len);
            shards.push(Shard::new(Table::from_raw(
                i,
                &arenas,
                s.entries.into_vec(),
                s.len as usize,
            )?));
        }
        // Shards of an image taken while they were growing may differ in
        // size: bring the small ones up now rather than keep two arenas
        // (a read-only open never writes, so it would never catch up).
        let target = arenas.target();
        for s in &mut shards {
            let t = s.0.get_mut();
            if follows(t.cap(), target) {
                // Failing to get memory only leaves the shard in its arena.
                let _ = t.resize(&arenas, target);
            }
            s.1.set(t);
        }
        Some(Keydir {
            shards: shards.into_boxed_slice(),
            arenas,
            behind: AtomicUsize::new(0),
            cursor: AtomicUsize::new(0),
            live: AtomicU64::new(live),
            live_bytes: AtomicU64::new(img.live_bytes),
            expiring: AtomicU64::new(img.expiring),
            layer: OnceLock::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn key(i: u64) -> Vec<u8> {
        format!("key-{i}").into_bytes()
    }

    /// Non-empty shard capacities, smallest first, deduplicated.
    fn caps(kd: &Keydir) -> Vec<usize> {
        let mut c: Vec<usize> = kd
            .shards
            .iter()
            .map(|s| s.0.read().cap())
            .filter(|&c| c != 0)
            .collect();
        c.sort_unstable();
        c.dedup();
        c
    }

    fn fill(kd: &Keydir, log: &mut HashMap<u64, Vec<u8>>, keys: impl IntoIterator<Item = u64>) {
        for i in keys {
            let k = key(i);
            let off = 4096 + log.len() as u64;
            log.insert(off, k.clone());
            kd.upsert(hash_key(&k, 0), off, |o| Ok(log[&o] == k))
                .unwrap();
        }
    }

    fn all_found(kd: &Keydir, log: &HashMap<u64, Vec<u8>>, keys: impl IntoIterator<Item = u64>) {
        for i in keys {
            let k = key(i);
            let off = kd.get(hash_key(&k, 0), |o| Ok(log[&o] == k)).unwrap();
            assert_eq!(log[&off.unwrap()], k);
        }
    }

    #[test]
    fn shards_grow_in_step_and_the_smaller_arena_is_freed() {
        let kd = Keydir::default();
        let mut log = HashMap::new();
        let mut seen_two = false;
        for step in 0..3_125u64 {
            fill(&kd, &mut log, step * 64..(step + 1) * 64);
            // Small shards grow on their own; shared arenas in step.
            let c: Vec<usize> = caps(&kd)
                .into_iter()
                .filter(|&c| arena::is_shared(c))
                .collect();
            assert!(c.len() <= 2, "at most two shared capacities at once: {c:?}");
            seen_two |= c.len() == 2;
        }
        assert!(seen_two, "growth was observed mid-way");
        // A shard that just grew leaves the others behind; SHARDS more
        // writes bring every one of them up.
        let n = 200_000;
        fill(&kd, &mut log, n..n + SHARDS as u64);
        let c = caps(&kd);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(
            kd.memory_bytes(),
            SHARDS * std::mem::size_of::<Shard>() + SHARDS * c[0] * 8,
            "only the current arena is alive"
        );
        all_found(&kd, &log, 0..n + SHARDS as u64);
        kd.clear();
        assert_eq!(kd.memory_bytes(), SHARDS * std::mem::size_of::<Shard>());
        assert!(caps(&kd).is_empty());
    }

    #[test]
    fn a_small_index_pays_only_for_the_shards_it_uses() {
        let kd = Keydir::default();
        let mut log = HashMap::new();
        fill(&kd, &mut log, 0..1);
        assert_eq!(
            kd.memory_bytes(),
            SHARDS * std::mem::size_of::<Shard>() + 16 * 8
        );
        all_found(&kd, &log, 0..1);
    }

    #[test]
    fn a_skewed_key_set_does_not_grow_the_small_shards() {
        let kd = Keydir::default();
        let mut log = HashMap::new();
        // 5,000 keys in shard 0 first (a shared 8,192-slot arena), then one
        // key in every other shard.
        let mut big = Vec::new();
        let mut small = vec![None; SHARDS];
        let mut i = 0u64;
        while big.len() < 5_000 || small.iter().skip(1).any(Option::is_none) {
            let shard = hash_key(&key(i), 0).shard;
            if shard == 0 && big.len() < 5_000 {
                big.push(i);
            } else if shard != 0 && small[shard].is_none() {
                small[shard] = Some(i);
            }
            i += 1;
        }
        fill(&kd, &mut log, big.iter().copied());
        fill(&kd, &mut log, small.iter().flatten().copied());
        // Writes that would move lagging shards.
        fill(&kd, &mut log, std::iter::repeat_n(big[0], 2 * SHARDS));
        assert_eq!(caps(&kd), vec![16, 8192]);
        assert!(kd.memory_bytes() < (17 << 20), "{}", kd.memory_bytes());
        all_found(&kd, &log, big.iter().chain(small.iter().flatten()).copied());
    }

    #[test]
    fn an_image_with_mixed_shard_sizes_loads_into_one_arena() {
        let kd = Keydir::default();
        let mut log = HashMap::new();
        let n = 300_000;
        fill(&kd, &mut log, 0..n);
        assert_eq!(
            caps(&kd),
            vec![2048],
            "the 300,000 keys' shards, in one arena"
        );
        let mut img = kd.image(0, b"", false).unwrap();
        // Shard 0 as if it had grown first.
        let cap = img.shards[0].entries.len();
        let scratch = Arenas::default();
        let mut t = Table::from_raw(
            0,
            &scratch,
            img.shards[0].entries.to_vec(),
            img.shards[0].len as usize,
        )
        .unwrap();
        t.resize(&scratch, cap * 2).unwrap();
        img.shards[0].entries = t.raw().unwrap().into();
        let back = Keydir::from_image(img, u64::MAX).unwrap();
        assert_eq!(caps(&back), vec![cap * 2]);
        assert_eq!(back.len(), n);
        all_found(&back, &log, 0..n);
    }
}
