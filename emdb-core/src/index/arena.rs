//! Slot memory for the shards of one index.
//!
//! A random read's first memory access is its index slot. With the slots of
//! each shard in their own small heap allocation, a million keys spread their
//! 16 MiB of slots over thousands of 4 KiB pages, and most reads also miss the
//! TLB (a page walk, which inside a virtual machine is a two-level walk). So
//! the shards of an index that have the same capacity share one [`Arena`]:
//! one allocation holding every shard's slots side by side (shard `i` at
//! `i * cap`). Arenas of 2 MiB or more are anonymous mappings aligned to 2 MiB
//! and advised for transparent huge pages, so all slots fit in a handful of
//! TLB entries. Smaller ones live on the heap.
//!
//! Shards grow in lockstep to keep this so: when one shard outgrows the
//! current capacity, it moves to an arena twice as large, and every later
//! write moves one more shard there (see `Keydir::catch_up`), so the old arena
//! is freed (its last `Arc` dropped) within [`super::SHARDS`] writes instead
//! of holding memory until the other shards fill up on their own.

#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use super::SHARDS;
use crate::error::{Error, Result};

/// Arenas this large or larger are huge-page-aligned mappings.
const HUGE: usize = 2 << 20;

/// Slot memory for every shard of one capacity.
pub(crate) struct Arena {
    /// Slots per shard.
    cap: usize,
    mem: Mem,
}

enum Mem {
    Heap(Box<[AtomicU64]>),
    Mapped {
        map: memmap2::MmapMut,
        /// Bytes from the start of the mapping to the first 2 MiB boundary.
        skip: usize,
    },
}

impl Arena {
    /// Zeroed slots for [`SHARDS`] shards of `cap` slots each.
    fn new(cap: usize) -> Result<Arena> {
        let slots = SHARDS * cap;
        let bytes = slots * 8;
        if bytes < HUGE {
            let mem = Mem::Heap((0..slots).map(|_| AtomicU64::new(0)).collect());
            return Ok(Arena { cap, mem });
        }
        // Map one huge page more than needed, so the slots can start on a
        // 2 MiB boundary (only touched pages take memory).
        let map = memmap2::MmapOptions::new()
            .len(bytes + HUGE)
            .map_anon()
            .map_err(|e| Error::io("map index memory", None, e))?;
        let skip = (HUGE - map.as_ptr() as usize % HUGE) % HUGE;
        #[cfg(target_os = "linux")]
        {
            // Only advice: without huge pages the index still works.
            let _ = map.advise_range(memmap2::Advice::HugePage, skip, bytes);
        }
        Ok(Arena {
            cap,
            mem: Mem::Mapped { map, skip },
        })
    }

    /// Slots per shard.
    pub(crate) fn cap(&self) -> usize {
        self.cap
    }

    /// Bytes of slots.
    fn bytes(&self) -> usize {
        SHARDS * self.cap * 8
    }

    /// Shard `shard`'s slots.
    #[inline]
    pub(crate) fn shard(&self, shard: usize) -> &[AtomicU64] {
        let all: &[AtomicU64] = match &self.mem {
            Mem::Heap(b) => b,
            Mem::Mapped { map, skip } => {
                // SAFETY: the mapping is `SHARDS * cap * 8 + HUGE` bytes and
                // `skip < HUGE`, so `SHARDS * cap` u64s fit after `skip`; the
                // start is 2 MiB-aligned, so aligned for `AtomicU64`; anonymous
                // memory is zeroed, a valid `AtomicU64`; the mapping lives as
                // long as `self` and is only ever accessed through this
                // slice of atomics (never as `&mut [u8]`).
                unsafe {
                    std::slice::from_raw_parts(
                        map.as_ptr().add(*skip).cast::<AtomicU64>(),
                        SHARDS * self.cap,
                    )
                }
            }
        };
        &all[shard * self.cap..(shard + 1) * self.cap]
    }
}

/// The arenas of one index, one per capacity in use, and the capacity shards
/// are growing towards.
#[derive(Default)]
pub(crate) struct Arenas {
    live: Mutex<Vec<Weak<Arena>>>,
    /// Largest capacity of any shard: where growing and new shards go.
    target: AtomicUsize,
}

impl Arenas {
    /// The arena for shards of `cap` slots (made if none is alive).
    pub(crate) fn get(&self, cap: usize) -> Result<Arc<Arena>> {
        let mut live = self.live.lock();
        live.retain(|w| w.strong_count() > 0);
        if let Some(a) = live.iter().filter_map(Weak::upgrade).find(|a| a.cap == cap) {
            return Ok(a);
        }
        let a = Arc::new(Arena::new(cap)?);
        live.push(Arc::downgrade(&a));
        Ok(a)
    }

    /// The capacity shards grow towards (0 while every shard is empty).
    #[inline]
    pub(crate) fn target(&self) -> usize {
        self.target.load(Ordering::Relaxed)
    }

    /// Raise the target to `cap`; true if it rose.
    pub(crate) fn raise_target(&self, cap: usize) -> bool {
        self.target.fetch_max(cap, Ordering::Relaxed) < cap
    }

    /// Forget the target (after the index was cleared).
    pub(crate) fn reset_target(&self) {
        self.target.store(0, Ordering::Relaxed);
    }

    /// Bytes of every live arena.
    pub(crate) fn bytes(&self) -> usize {
        self.live
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .map(|a| a.bytes())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_get_disjoint_zeroed_slots_and_arenas_are_shared_then_freed() {
        let arenas = Arenas::default();
        for cap in [16, 1 << 13] {
            let a = arenas.get(cap).unwrap();
            let b = arenas.get(cap).unwrap();
            assert!(Arc::ptr_eq(&a, &b), "one arena per capacity");
            for s in 0..SHARDS {
                assert_eq!(a.shard(s).len(), cap);
                assert!(a.shard(s).iter().all(|x| x.load(Ordering::Relaxed) == 0));
                a.shard(s)[cap - 1].store(s as u64 + 1, Ordering::Relaxed);
            }
            for s in 0..SHARDS {
                assert_eq!(b.shard(s)[cap - 1].load(Ordering::Relaxed), s as u64 + 1);
            }
        }
        // Both arenas are dropped by now.
        assert_eq!(arenas.bytes(), 0);
        let big = arenas.get(1 << 13).unwrap();
        assert_eq!(arenas.bytes(), SHARDS * (1 << 13) * 8);
        assert!(matches!(big.mem, Mem::Mapped { .. }));
        assert!(
            (big.shard(0).as_ptr() as usize).is_multiple_of(HUGE),
            "huge arenas start on a 2 MiB boundary"
        );
    }
}
