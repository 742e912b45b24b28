//! One shard's open-addressing table.
//!
//! Each slot is a `u64`: the top 24 bits are a tag taken from the key's hash,
//! the low 40 bits the byte offset of the key's newest record in the log. The
//! table holds no keys; a tag match is confirmed by reading the record at the
//! offset. `0` marks an empty slot (no record lives at offset 0, the header
//! does). Linear probing from `tag & mask`, so an entry's home slot can be
//! recomputed from the entry alone: growing and backward-shift deletion never
//! need to read a key.

use crate::error::{Error, Result};

/// Bits of a slot that hold the offset.
pub(crate) const OFFSET_BITS: u32 = 40;
/// Largest log offset an entry can address.
pub(crate) const MAX_OFFSET: u64 = (1 << OFFSET_BITS) - 1;
/// Tags are 24 bits; a table never grows past this many slots, because the
/// home slot is derived from the tag.
pub(crate) const MAX_SLOTS: usize = 1 << 24;

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

/// An open-addressing table of (tag, offset) slots.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    slots: Vec<u64>,
    len: usize,
}

impl Table {
    /// Rebuild from a stored image; `None` if the image is inconsistent.
    pub(crate) fn from_raw(slots: Vec<u64>, len: usize) -> Option<Table> {
        if !slots.is_empty() && !slots.len().is_power_of_two() || slots.len() > MAX_SLOTS {
            return None;
        }
        if !slots.is_empty() && len >= slots.len() {
            return None; // a table needs an empty slot, or probes never end
        }
        let t = Table { slots, len };
        let filled = t.slots.iter().filter(|&&e| e != 0).count();
        (filled == len).then_some(t)
    }

    /// The raw slots, for checkpoints.
    pub(crate) fn raw(&self) -> &[u64] {
        &self.slots
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bytes of memory the slots take.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.slots.capacity() * 8
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// Find the slot whose record satisfies `is_key`. `is_key` is called only
    /// for slots whose tag matches, with the record offset.
    #[inline]
    pub(crate) fn find(
        &self,
        tag: u32,
        mut is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<(usize, u64)>> {
        if self.slots.is_empty() {
            return Ok(None);
        }
        let mask = self.mask();
        let mut i = tag as usize & mask;
        loop {
            let e = self.slots[i];
            if e == 0 {
                return Ok(None);
            }
            if entry_tag(e) == tag && is_key(entry_offset(e))? {
                return Ok(Some((i, entry_offset(e))));
            }
            i = (i + 1) & mask;
        }
    }

    /// Point the key at `offset`; returns the previous offset if it existed.
    pub(crate) fn upsert(
        &mut self,
        tag: u32,
        offset: u64,
        is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        if let Some((slot, old)) = self.find(tag, is_key)? {
            self.slots[slot] = entry(tag, offset);
            return Ok(Some(old));
        }
        self.insert_new(tag, offset)?;
        Ok(None)
    }

    /// Insert an entry known not to be present.
    pub(crate) fn insert_new(&mut self, tag: u32, offset: u64) -> Result<()> {
        // Grow at 80% load. The tag caps the table size; past that the load
        // factor keeps rising (probes get longer) until the table is full.
        if (self.len + 1) * 5 > self.slots.len() * 4 {
            if self.slots.len() < MAX_SLOTS {
                self.grow();
            } else if self.len + 1 >= self.slots.len() {
                return Err(Error::TooManyKeys {
                    limit: crate::limits::MAX_KEYS_PER_NAMESPACE,
                });
            }
        }
        let mask = self.mask();
        let mut i = tag as usize & mask;
        while self.slots[i] != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = entry(tag, offset);
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
        self.remove_slot(slot);
        Ok(Some(old))
    }

    /// Backward-shift deletion: pull later members of the probe run into the
    /// hole so lookups never need tombstones.
    fn remove_slot(&mut self, mut hole: usize) {
        let mask = self.mask();
        let mut i = hole;
        loop {
            i = (i + 1) & mask;
            let e = self.slots[i];
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
                self.slots[hole] = e;
                hole = i;
            }
        }
        self.slots[hole] = 0;
        self.len -= 1;
    }

    fn grow(&mut self) {
        let new_len = (self.slots.len() * 2).max(16);
        self.rehash(new_len);
    }

    fn rehash(&mut self, new_len: usize) {
        let old = std::mem::replace(&mut self.slots, vec![0; new_len]);
        let mask = new_len - 1;
        for e in old.into_iter().filter(|&e| e != 0) {
            let mut i = entry_tag(e) as usize & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = e;
        }
    }

    /// Offsets of every entry.
    pub(crate) fn offsets(&self) -> impl Iterator<Item = u64> + '_ {
        self.slots
            .iter()
            .filter(|&&e| e != 0)
            .map(|&e| entry_offset(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A model where "the log" maps offsets to keys.
    struct Model {
        table: Table,
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
                .upsert(tag_of(key), off, |o| Ok(log[&o] == key))
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
            table: Table::default(),
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
        let raw = m.table.raw().to_vec();
        let again = Table::from_raw(raw, m.table.len()).unwrap();
        assert_eq!(again, m.table);
    }

    #[test]
    fn from_raw_rejects_inconsistent_images() {
        assert!(Table::from_raw(vec![0, 5, 0], 1).is_none());
        assert!(Table::from_raw(vec![0, 5, 0, 0], 2).is_none());
    }
}
