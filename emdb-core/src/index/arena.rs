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
//! TLB entries. Below that size sharing buys nothing (the slots fit in a few
//! pages either way) and would cost a small namespace the slots of all 256
//! shards, so each shard gets a private arena on the heap.
//!
//! Shards grow in lockstep to keep this so: when one shard outgrows the
//! current capacity, it moves to an arena twice as large, and every later
//! write moves one more shard there (see `Keydir::catch_up`), so the old arena
//! is freed (its last `Arc` dropped) within [`super::SHARDS`] writes instead
//! of holding memory until the other shards fill up on their own. Only
//! shards exactly one doubling behind follow: with a balanced hash that is
//! all of them, and a skewed key set (one shard holding most keys, whether
//! by chance or chosen to) cannot make the small shards take its size.

#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use super::image::Image;
use super::SHARDS;
use crate::error::{Error, Result};

/// Arenas this large or larger are huge-page-aligned mappings.
const HUGE: usize = 2 << 20;

/// Whether shards of `cap` slots share one arena (and so should grow in
/// step): only when the arena would be at least a huge page.
pub(crate) fn is_shared(cap: usize) -> bool {
    SHARDS.saturating_mul(cap).saturating_mul(8) >= HUGE
}

/// Slot memory for every shard of one capacity.
pub(crate) struct Arena {
    /// Slots per shard.
    cap: usize,
    /// First shard held (0 for a shared arena).
    base: usize,
    /// Shards held: [`SHARDS`], or 1 for a private arena.
    shards: usize,
    mem: Mem,
}

enum Mem {
    Heap(Box<[AtomicU64]>),
    /// Slots inside a mapped checkpoint, from file byte `at`.
    Image {
        image: Arc<Image>,
        at: usize,
    },
    Mapped {
        map: memmap2::MmapMut,
        /// Bytes from the start of the mapping to the first 2 MiB boundary.
        skip: usize,
    },
}

impl Arena {
    /// Zeroed slots for `shards` shards of `cap` slots each, from shard `base`.
    fn new(cap: usize, base: usize, shards: usize) -> Result<Arena> {
        // The sizes overflow only where the address space is too small for
        // them (32-bit targets); that is an allocation failure, not a wrap.
        let too_big = || {
            let e = std::io::Error::from(std::io::ErrorKind::OutOfMemory);
            Error::io("map index memory", None, e)
        };
        let slots = shards.checked_mul(cap).ok_or_else(too_big)?;
        let bytes = slots.checked_mul(8).ok_or_else(too_big)?;
        if bytes < HUGE {
            let mem = Mem::Heap((0..slots).map(|_| AtomicU64::new(0)).collect());
            return Ok(Arena {
                cap,
                base,
                shards,
                mem,
            });
        }
        // Map one huge page more than needed, so the slots can start on a
        // 2 MiB boundary (only touched pages take memory).
        let map = memmap2::MmapOptions::new()
            .len(bytes.checked_add(HUGE).ok_or_else(too_big)?)
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
            base,
            shards,
            mem: Mem::Mapped { map, skip },
        })
    }

    /// Slots of a mapped checkpoint: `shards` shards of `cap` slots each,
    /// from shard `base`, at file byte `at` of `image`; `None` if they do not
    /// lie inside it.
    pub(crate) fn in_image(
        image: &Arc<Image>,
        at: usize,
        cap: usize,
        base: usize,
        shards: usize,
    ) -> Option<Arena> {
        image.map().slots(at, shards.checked_mul(cap)?)?;
        Some(Arena {
            cap,
            base,
            shards,
            mem: Mem::Image {
                image: Arc::clone(image),
                at,
            },
        })
    }

    /// Slots per shard.
    pub(crate) fn cap(&self) -> usize {
        self.cap
    }

    /// Make sure slot `i` of shard `shard` may be used: in a mapped
    /// checkpoint its page must have passed its CRC check (free for other
    /// arenas).
    #[inline]
    pub(crate) fn ensure(&self, shard: usize, i: usize) -> Result<()> {
        match &self.mem {
            Mem::Image { image, at } => image.ensure(at + ((shard - self.base) * self.cap + i) * 8),
            _ => Ok(()),
        }
    }

    /// [`Arena::ensure`] for every slot of shard `shard`.
    pub(crate) fn ensure_shard(&self, shard: usize) -> Result<()> {
        match &self.mem {
            Mem::Image { image, at } => {
                image.ensure_range(at + (shard - self.base) * self.cap * 8, self.cap * 8)
            }
            _ => Ok(()),
        }
    }

    /// An error if the mapped checkpoint under these slots was cut short by
    /// another process (reads through it then saw zeros).
    #[inline]
    pub(crate) fn check_cut(&self) -> Result<()> {
        match &self.mem {
            Mem::Image { image, .. } => image.check_cut(),
            _ => Ok(()),
        }
    }

    /// Bytes of slots.
    pub(crate) fn bytes(&self) -> usize {
        self.shards * self.cap * 8
    }

    /// Shard `shard`'s slots.
    #[inline]
    pub(crate) fn shard(&self, shard: usize) -> &[AtomicU64] {
        let all: &[AtomicU64] = match &self.mem {
            Mem::Heap(b) => b,
            // Checked to lie inside the mapping when the arena was made.
            Mem::Image { image, at } => image
                .map()
                .slots(*at, self.shards * self.cap)
                .unwrap_or_default(),
            Mem::Mapped { map, skip } => {
                // SAFETY: the mapping is `shards * cap * 8 + HUGE` bytes and
                // `skip < HUGE`, so `shards * cap` u64s fit after `skip`; the
                // start is 2 MiB-aligned, so aligned for `AtomicU64`; anonymous
                // memory is zeroed, a valid `AtomicU64`; the mapping lives as
                // long as `self` and is only ever accessed through this
                // slice of atomics (never as `&mut [u8]`).
                unsafe {
                    std::slice::from_raw_parts(
                        map.as_ptr().add(*skip).cast::<AtomicU64>(),
                        self.shards * self.cap,
                    )
                }
            }
        };
        let at = (shard - self.base) * self.cap;
        &all[at..at + self.cap]
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
    /// The arena for shard `shard` at `cap` slots: the shared one of that
    /// capacity (made if none is alive), or a private one when a shared one
    /// would be smaller than a huge page.
    pub(crate) fn get(&self, cap: usize, shard: usize) -> Result<Arc<Arena>> {
        if !is_shared(cap) {
            return Ok(Arc::new(Arena::new(cap, shard, 1)?));
        }
        let mut live = self.live.lock();
        live.retain(|w| w.strong_count() > 0);
        if let Some(a) = live.iter().filter_map(Weak::upgrade).find(|a| a.cap == cap) {
            return Ok(a);
        }
        let a = Arc::new(Arena::new(cap, 0, SHARDS)?);
        live.push(Arc::downgrade(&a));
        Ok(a)
    }

    /// Adopt a shared arena of a mapped checkpoint, so shards growing to its
    /// capacity use it.
    pub(crate) fn adopt(&self, arena: &Arc<Arena>) {
        if arena.shards == SHARDS {
            self.live.lock().push(Arc::downgrade(arena));
        }
        self.raise_target(arena.cap);
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
}

/// Ask the CPU to start loading the cache line at address `addr`, which
/// need not be mapped (a prefetch never faults).
#[inline]
pub(crate) fn prefetch_addr(addr: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of the x86-64 baseline, so the instruction exists;
    // a prefetch is a hint that never faults and reads nothing the program
    // sees, so any address, mapped or not, is fine.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(addr as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_arenas_are_private_large_ones_shared_aligned_and_freed() {
        let arenas = Arenas::default();
        let a = arenas.get(16, 5).unwrap();
        let b = arenas.get(16, 5).unwrap();
        assert!(!Arc::ptr_eq(&a, &b), "small arenas are per shard");
        assert_eq!(a.bytes(), 16 * 8);
        assert_eq!(a.shard(5).len(), 16);

        let cap = 1 << 13;
        let a = arenas.get(cap, 0).unwrap();
        let b = arenas.get(cap, 9).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "one shared arena per large capacity");
        assert!(matches!(a.mem, Mem::Mapped { .. }));
        assert!(
            (a.shard(0).as_ptr() as usize).is_multiple_of(HUGE),
            "shared arenas start on a 2 MiB boundary"
        );
        for s in 0..SHARDS {
            assert_eq!(a.shard(s).len(), cap);
            assert!(a.shard(s).iter().all(|x| x.load(Ordering::Relaxed) == 0));
            a.shard(s)[cap - 1].store(s as u64 + 1, Ordering::Relaxed);
        }
        for s in 0..SHARDS {
            assert_eq!(b.shard(s)[cap - 1].load(Ordering::Relaxed), s as u64 + 1);
        }
        let weak = Arc::downgrade(&a);
        drop((a, b));
        assert!(weak.upgrade().is_none(), "freed with its last shard");
        let c = arenas.get(cap, 0).unwrap();
        assert!(c.shard(0).iter().all(|x| x.load(Ordering::Relaxed) == 0));
    }
}
