//! One shard's open-addressing table.
//!
//! Each slot is a `u64`: the top 24 bits are a tag taken from the key's hash,
//! the low 40 bits the byte offset of the key's newest record in the log. The
//! table holds no keys; a tag match is confirmed by reading the record at the
//! offset. `0` marks an empty slot (no record lives at offset 0, the header
//! does). Linear probing from `tag & mask`, so an entry's home slot can be
//! recomputed from the entry alone: growing and backward-shift deletion never
//! need to read a key.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::arena::{Arena, Arenas};
use crate::error::{Error, Result};
use crate::format::checkpoint::Slots;

/// Bits of a slot that hold the offset.
pub(crate) const OFFSET_BITS: u32 = 40;
/// Largest log offset an entry can address.
pub(crate) const MAX_OFFSET: u64 = (1 << OFFSET_BITS) - 1;
/// Tags are 24 bits; a table never grows past this many slots, because the
/// home slot is derived from the tag.
pub(crate) const MAX_SLOTS: usize = 1 << 24;
/// Slots per checkpoint page: a probe entering a new page checks it.
const PAGE_SLOTS: usize = crate::format::checkpoint::PAGE / 8;

/// A probe that went all the way round: only a damaged image gets here
/// (tables keep at least one slot empty).
#[cold]
fn full_table() -> Error {
    Error::corruption(
        0,
        "index table has no empty slot (damaged checkpoint image)",
    )
}

#[inline]
fn entry(tag: u32, offset: u64) -> u64 {
    (u64::from(tag) << OFFSET_BITS) | offset
}

#[inline]
pub(crate) fn entry_offset(e: u64) -> u64 {
    e & MAX_OFFSET
}

#[inline]
fn entry_tag(e: u64) -> u32 {
    (e >> OFFSET_BITS) as u32
}

/// An open-addressing table of (tag, offset) slots: shard `shard`'s part of
/// an [`Arena`] shared with the index's other shards of the same capacity.
/// Slots are atomics only so that shards can share the arena; every access
/// is under the shard's lock, and relaxed loads and stores compile to plain
/// moves.
pub(crate) struct Table {
    shard: usize,
    arena: Option<Arc<Arena>>,
    len: usize,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("shard", &self.shard)
            .field("cap", &self.cap())
            .field("len", &self.len)
            .finish()
    }
}

impl Table {
    /// An empty table for shard `shard` (no memory until the first insert).
    pub(crate) fn new(shard: usize) -> Table {
        Table {
            shard,
            arena: None,
            len: 0,
        }
    }

    /// Rebuild shard `shard` from a stored image; `None` if the image is
    /// inconsistent (or its memory cannot be had).
    pub(crate) fn from_raw(
        shard: usize,
        arenas: &Arenas,
        slots: Vec<u64>,
        len: usize,
    ) -> Option<Table> {
        if !slots.is_empty() && !slots.len().is_power_of_two() || slots.len() > MAX_SLOTS {
            return None;
        }
        if !slots.is_empty() && len >= slots.len() {
            return None; // a table needs an empty slot, or probes never end
        }
        let filled = slots.iter().filter(|&&e| e != 0).count();
        if filled != len {
            return None;
        }
        let mut t = Table::new(shard);
        t.len = len;
        if slots.is_empty() {
            return Some(t);
        }
        let arena = arenas.get(slots.len(), shard).ok()?;
        for (dst, e) in arena.shard(shard).iter().zip(slots) {
            dst.store(e, Ordering::Relaxed);
        }
        arenas.raise_target(arena.cap());
        t.arena = Some(arena);
        Some(t)
    }

    /// The slots.
    #[inline]
    fn slots(&self) -> &[AtomicU64] {
        match &self.arena {
            Some(a) => a.shard(self.shard),
            None => &[],
        }
    }

    /// The slots themselves for a checkpoint that keeps writers out until
    /// it has written them ([`Slots::Live`]), every page checked first.
    pub(crate) fn live(&self) -> Result<Slots> {
        self.checked_slots()?;
        Ok(match &self.arena {
            Some(a) => Slots::Live(Arc::clone(a), self.shard),
            None => Slots::default(),
        })
    }

    /// A copy of the raw slots, for checkpoints.
    pub(crate) fn raw(&self) -> Result<Vec<u64>> {
        Ok(self
            .checked_slots()?
            .iter()
            .map(|e| e.load(Ordering::Relaxed))
            .collect())
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The arena holding the slots, if any.
    pub(crate) fn arena(&self) -> Option<&Arc<Arena>> {
        self.arena.as_ref()
    }

    /// Number of slots (0 before the first insert).
    pub(crate) fn cap(&self) -> usize {
        self.arena.as_ref().map_or(0, |a| a.cap())
    }

    /// Make sure slot `i` may be used (its checkpoint page checked), on the
    /// first slot of a probe and whenever a probe enters a new page.
    #[inline]
    fn ensure(&self, i: usize, first: bool) -> Result<()> {
        match &self.arena {
            Some(a) if first || i.is_multiple_of(PAGE_SLOTS) => a.ensure(self.shard, i),
            _ => Ok(()),
        }
    }

    /// Every slot of this shard, checked (see [`Table::ensure`]).
    fn checked_slots(&self) -> Result<&[AtomicU64]> {
        if let Some(a) = &self.arena {
            a.ensure_shard(self.shard)?;
        }
        Ok(self.slots())
    }

    /// An error if the slots' mapped checkpoint was cut under a read.
    #[inline]
    pub(crate) fn check_cut(&self) -> Result<()> {
        match &self.arena {
            Some(a) => a.check_cut(),
            None => Ok(()),
        }
    }

    /// Address of the first slot (0 when there are none) and the slot
    /// count minus one, for [`super::SlotHint`].
    pub(crate) fn slot_span(&self) -> (usize, usize) {
        let slots = self.slots();
        if slots.is_empty() {
            return (0, 0);
        }
        (slots.as_ptr() as usize, slots.len() - 1)
    }

    /// Find the slot whose record satisfies `is_key`. `is_key` is called only
    /// for slots whose tag matches, with the record offset.
    #[inline]
    pub(crate) fn find(
        &self,
        tag: u32,
        mut is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<(usize, u64)>> {
        let slots = self.slots();
        if slots.is_empty() {
            return Ok(None);
        }
        let mask = slots.len() - 1;
        let mut i = tag as usize & mask;
        self.ensure(i, true)?;
        for _ in 0..slots.len() {
            let e = slots[i].load(Ordering::Relaxed);
            if e == 0 {
                return Ok(None);
            }
            if entry_tag(e) == tag && is_key(entry_offset(e))? {
                return Ok(Some((i, entry_offset(e))));
            }
            i = (i + 1) & mask;
            self.ensure(i, false)?;
        }
        Err(full_table())
    }

    /// Point the key at `offset`; returns the previous offset if it existed.
    pub(crate) fn upsert(
        &mut self,
        arenas: &Arenas,
        tag: u32,
        offset: u64,
        is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        if let Some((slot, old)) = self.find(tag, is_key)? {
            self.slots()[slot].store(entry(tag, offset), Ordering::Relaxed);
            return Ok(Some(old));
        }
        self.insert_new(arenas, tag, offset)?;
        Ok(None)
    }

    /// Insert an entry known not to be present.
    pub(crate) fn insert_new(&mut self, arenas: &Arenas, tag: u32, offset: u64) -> Result<()> {
        // Grow at 80% load. The tag caps the table size; past that the load
        // factor keeps rising (probes get longer) until the table is full.
        let cap = self.cap();
        if (self.len + 1) * 5 > cap * 4 {
            if cap < MAX_SLOTS {
                let to = (cap * 2).clamp(16, MAX_SLOTS);
                self.resize(arenas, to)?;
            } else if self.len + 1 >= cap {
                return Err(Error::TooManyKeys {
                    limit: crate::limits::MAX_KEYS_PER_NAMESPACE,
                });
            }
        }
        let slots = self.slots();
        let mask = slots.len() - 1;
        let mut i = tag as usize & mask;
        self.ensure(i, true)?;
        let mut probed = 0;
        while slots[i].load(Ordering::Relaxed) != 0 {
            i = (i + 1) & mask;
            self.ensure(i, false)?;
            probed += 1;
            if probed > mask {
                return Err(full_table());
            }
        }
        slots[i].store(entry(tag, offset), Ordering::Relaxed);
        self.len += 1;
        Ok(())
    }

    /// Remove the key; returns its offset if it existed.
    pub(crate) fn remove(
        &mut self,
        tag: u32,
        is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        let Some((slot, old)) = self.find(tag, is_key)? else {
            return Ok(None);
        };
        self.remove_slot(slot)?;
        Ok(Some(old))
    }

    /// Backward-shift deletion: pull later members of the probe run into the
    /// hole so lookups never need tombstones.
    fn remove_slot(&mut self, mut hole: usize) -> Result<()> {
        let slots = self.slots();
        let mask = slots.len() - 1;
        let mut i = hole;
        loop {
            i = (i + 1) & mask;
            self.ensure(i, false)?;
            let e = slots[i].load(Ordering::Relaxed);
            if e == 0 {
                break;
            }
            let home = entry_tag(e) as usize & mask;
            // Move `e` into the hole unless its home lies cyclically in (hole, i].
            let stays = if hole <= i {
                hole < home && home <= i
            } else {
                hole < home || home <= i
            };
            if !stays {
                slots[hole].store(e, Ordering::Relaxed);
                hole = i;
            }
        }
        slots[hole].store(0, Ordering::Relaxed);
        self.len -= 1;
        Ok(())
    }

    /// Move to the arena of `cap` slots per shard (`cap` a power of two that
    /// holds every entry with room to spare).
    pub(crate) fn resize(&mut self, arenas: &Arenas, cap: usize) -> Result<()> {
        if cap <= self.cap() || !cap.is_power_of_two() || self.len >= cap {
            return Ok(());
        }
        let arena = arenas.get(cap, self.shard)?;
        // The new slots may lie in a mapped checkpoint (zeros there): check
        // them before writing, as every write does.
        arena.ensure_shard(self.shard)?;
        let old = self.checked_slots()?;
        let dst = arena.shard(self.shard);
        // The region is fresh unless this shard used this capacity before
        // the index was cleared; start from empty either way.
        for d in dst {
            d.store(0, Ordering::Relaxed);
        }
        let mask = cap - 1;
        for e in old.iter().map(|e| e.load(Ordering::Relaxed)) {
            if e == 0 {
                continue;
            }
            let mut i = entry_tag(e) as usize & mask;
            while dst[i].load(Ordering::Relaxed) != 0 {
                i = (i + 1) & mask;
            }
            dst[i].store(e, Ordering::Relaxed);
        }
        arenas.raise_target(cap);
        self.arena = Some(arena);
        Ok(())
    }

    /// Offsets of every entry.
    pub(crate) fn offsets(&self) -> Result<impl Iterator<Item = u64> + '_> {
        Ok(self
            .checked_slots()?
            .iter()
            .map(|e| e.load(Ordering::Relaxed))
            .filter(|&e| e != 0)
            .map(entry_offset))
    }

    /// The tag and offset of every entry.
    pub(crate) fn entries(&self) -> Result<impl Iterator<Item = (u32, u64)> + '_> {
        Ok(self
            .checked_slots()?
            .iter()
            .map(|e| e.load(Ordering::Relaxed))
            .filter(|&e| e != 0)
            .map(|e| (entry_tag(e), entry_offset(e))))
    }

    /// A table over slots of a mapped checkpoint that hold `len` entries
    /// (as its CRC-checked table says: the slots themselves are checked page
    /// by page on first use, so nothing here reads them).
    pub(crate) fn in_arena(shard: usize, arena: Arc<Arena>, len: usize) -> Table {
        Table {
            shard,
            arena: Some(arena),
            len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A model where "the log" maps offsets to keys.
    struct Model {
        table: Table,
        arenas: Arenas,
        log: HashMap<u64, u64>, // offset -> key
        next: u64,
    }

    fn tag_of(key: u64) -> u32 {
        // Few distinct tags to force long runs and tag collisions.
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as u32 & 0x3f
    }

    impl Model {
        fn put(&mut self, key: u64) -> Option<u64> {
            self.next += 1;
            let off = self.next;
            self.log.insert(off, key);
            let log = &self.log;
            self.table
                .upsert(&self.arenas, tag_of(key), off, |o| Ok(log[&o] == key))
                .unwrap()
        }
        fn get(&self, key: u64) -> Option<u64> {
            self.table
                .find(tag_of(key), |o| Ok(self.log[&o] == key))
                .unwrap()
                .map(|(_, o)| o)
        }
        fn del(&mut self, key: u64) -> Option<u64> {
            let log = &self.log;
            self.table
                .remove(tag_of(key), |o| Ok(log[&o] == key))
                .unwrap()
        }
    }

    #[test]
    fn behaves_like_a_map_under_collisions() {
        let mut m = Model {
            table: Table::new(0),
            arenas: Arenas::default(),
            log: HashMap::new(),
            next: 4096,
        };
        let mut reference: HashMap<u64, u64> = HashMap::new();
        let mut x = 1u64;
        for step in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = x % 500;
            if x.is_multiple_of(3) {
                assert_eq!(m.del(key), reference.remove(&key), "step {step}");
            } else {
                let before = reference.get(&key).copied();
                assert_eq!(m.put(key), before, "step {step}");
                reference.insert(key, m.next);
            }
            if step % 997 == 0 {
                for k in 0..500 {
                    assert_eq!(m.get(k), reference.get(&k).copied(), "key {k}");
                }
            }
        }
        assert_eq!(m.table.len(), reference.len());
        let raw = m.table.raw().unwrap();
        let again = Table::from_raw(3, &Arenas::default(), raw.clone(), m.table.len()).unwrap();
        assert_eq!(again.raw().unwrap(), raw);
        assert_eq!(again.len(), m.table.len());
    }

    #[test]
    fn from_raw_rejects_inconsistent_images() {
        let a = Arenas::default();
        assert!(Table::from_raw(0, &a, vec![0, 5, 0], 1).is_none());
        assert!(Table::from_raw(0, &a, vec![0, 5, 0, 0], 2).is_none());
    }
}
