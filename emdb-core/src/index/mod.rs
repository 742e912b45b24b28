//! The keydir: a per-namespace, sharded hash index from key to log offset.
//!
//! No keys are kept in memory. A key's 64-bit xxh3 hash picks a shard (top
//! 8 bits) and a 24-bit tag (next 24 bits); each shard is a [`Table`] of
//! 8-byte (tag, offset) slots behind its own reader-writer lock, so readers
//! never block each other and a writer blocks only one shard at a time.

pub(crate) mod table;

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::RwLock;

use crate::error::Result;
use crate::format::checkpoint::{NsImage, ShardImage};
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

/// One shard on its own cache line, so readers of neighbouring shards do not
/// contend on the lock words.
#[repr(align(64))]
#[derive(Default)]
struct Shard(RwLock<Table>);

/// The index of one namespace.
pub(crate) struct Keydir {
    shards: Box<[Shard]>,
    live: AtomicU64,
    live_bytes: AtomicU64,
    /// Live entries whose record carries an expiry.
    expiring: AtomicU64,
}

impl Default for Keydir {
    fn default() -> Self {
        Keydir {
            shards: (0..SHARDS).map(|_| Shard::default()).collect(),
            live: AtomicU64::new(0),
            live_bytes: AtomicU64::new(0),
            expiring: AtomicU64::new(0),
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
        let t = self.shards[h.shard].0.read();
        Ok(t.find(h.tag, is_key)?.map(|(_, off)| off))
    }

    /// Point a key at a new record; returns the previous offset.
    pub(crate) fn upsert(
        &self,
        h: KeyHash,
        offset: u64,
        is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        let old = self.shards[h.shard]
            .0
            .write()
            .upsert(h.tag, offset, is_key)?;
        if old.is_none() {
            self.live.fetch_add(1, Ordering::Relaxed);
        }
        Ok(old)
    }

    /// Insert a key known to be absent (compaction, checkpoint-free rebuilds).
    pub(crate) fn insert_new(&self, h: KeyHash, offset: u64) -> Result<()> {
        self.shards[h.shard].0.write().insert_new(h.tag, offset)?;
        self.live.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Remove a key; returns its offset.
    pub(crate) fn remove(
        &self,
        h: KeyHash,
        is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        let old = self.shards[h.shard].0.write().remove(h.tag, is_key)?;
        if old.is_some() {
            self.live.fetch_sub(1, Ordering::Relaxed);
        }
        Ok(old)
    }

    /// Drop every entry.
    pub(crate) fn clear(&self) {
        for s in self.shards.iter() {
            *s.0.write() = Table::default();
        }
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
                self.expiring.fetch_sub(1, Ordering::Relaxed);
            }
            _ => {}
        }
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
            self.live_bytes.fetch_sub(sub - add, Ordering::Relaxed);
        }
    }

    /// Heap bytes the index uses.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.shards.len() * std::mem::size_of::<Shard>()
            + self
                .shards
                .iter()
                .map(|s| s.0.read().memory_bytes())
                .sum::<usize>()
    }

    /// Offsets of every entry of shard `i`, copied under its read lock.
    pub(crate) fn shard_offsets(&self, i: usize) -> Vec<u64> {
        self.shards[i].0.read().offsets().collect()
    }

    /// A stored image of this index.
    pub(crate) fn image(&self, id: u32, name: &[u8]) -> NsImage {
        NsImage {
            id,
            name: name.to_vec(),
            live_bytes: self.live_bytes(),
            expiring: self.expiring(),
            shards: self
                .shards
                .iter()
                .map(|s| {
                    let t = s.0.read();
                    ShardImage {
                        len: t.len() as u32,
                        entries: t.raw().to_vec(),
                    }
                })
                .collect(),
        }
    }

    /// Rebuild from a stored image; `None` if it is inconsistent.
    pub(crate) fn from_image(img: NsImage, max_offset: u64) -> Option<Keydir> {
        if img.shards.len() != SHARDS {
            return None;
        }
        let mut live = 0u64;
        let mut shards = Vec::with_capacity(SHARDS);
        for s in img.shards {
            if s.entries
                .iter()
                .any(|&e| e != 0 && table::entry_offset(e) >= max_offset)
            {
                return None;
            }
            live += u64::from(s.len);
            shards.push(Shard(RwLock::new(Table::from_raw(
                s.entries,
                s.len as usize,
            )?)));
        }
        Some(Keydir {
            shards: shards.into_boxed_slice(),
            live: AtomicU64::new(live),
            live_bytes: AtomicU64::new(img.live_bytes),
            expiring: AtomicU64::new(img.expiring),
        })
    }
}
