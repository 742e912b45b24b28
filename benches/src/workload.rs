//! The phase workload: 24-byte random keys, 150-byte random values, all
//! generated up front from a seeded RNG so every engine sees the same bytes.

/// Key size of the phase bench.
pub const KEY_LEN: usize = 24;
/// Value size of the phase bench.
pub const VALUE_LEN: usize = 150;
/// Pairs read by one random range read.
pub const RANGE_LEN: usize = 10;

/// A phase-bench key.
pub type Key = [u8; KEY_LEN];
/// A phase-bench value.
pub type Value = [u8; VALUE_LEN];

/// One key and its value.
#[derive(Clone)]
pub struct Pair {
    /// The key.
    pub key: Key,
    /// The value.
    pub value: Value,
}

/// xorshift64* seeded through splitmix64: fast, deterministic, good enough
/// for keys and shuffles (not for anything cryptographic).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value, zero included).
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n > 0`; the tiny modulo bias does not matter here).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Fill `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let r = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&r[..chunk.len()]);
        }
    }

    /// A random pair.
    pub fn pair(&mut self) -> Pair {
        let mut p = Pair {
            key: [0; KEY_LEN],
            value: [0; VALUE_LEN],
        };
        self.fill(&mut p.key);
        self.fill(&mut p.value);
        p
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// Everything the phases write and read, generated before any timing.
pub struct Workload {
    /// The bulk-loaded records.
    pub records: Vec<Pair>,
    /// Individual writes (each made durable on its own).
    pub individual: Vec<Pair>,
    /// Batch writes, in `batch_size` chunks (each chunk durable).
    pub batches: Vec<Pair>,
    /// Size of one batch.
    pub batch_size: usize,
    /// Writes that are not synced.
    pub nosync: Vec<Pair>,
    /// Keys of `records`, shuffled: the order of the random reads.
    pub read_order: Vec<Key>,
    /// Start keys of the random range reads (existing keys).
    pub range_starts: Vec<Key>,
    /// Keys removed by the removal phase (half of `records`).
    pub removals: Vec<Key>,
}

/// Counts of the write phases, as in redb's lmdb_benchmark.
pub const INDIVIDUAL_WRITES: usize = 1_000;
/// Batches of the batch-write phase.
pub const BATCHES: usize = 100;
/// Pairs per batch.
pub const BATCH_SIZE: usize = 1_000;
/// Unsynced individual writes.
pub const NOSYNC_WRITES: usize = 50_000;

impl Workload {
    /// Generate the workload for `records` bulk-loaded pairs.
    pub fn generate(records: usize, seed: u64) -> Workload {
        let mut rng = Rng::new(seed);
        let gen = |n: usize, rng: &mut Rng| (0..n).map(|_| rng.pair()).collect::<Vec<_>>();
        let recs = gen(records, &mut rng);
        let individual = gen(INDIVIDUAL_WRITES, &mut rng);
        let batches = gen(BATCHES * BATCH_SIZE, &mut rng);
        let nosync = gen(NOSYNC_WRITES, &mut rng);
        let mut read_order: Vec<Key> = recs.iter().map(|p| p.key).collect();
        rng.shuffle(&mut read_order);
        let range_starts = (0..(records / RANGE_LEN).max(1))
            .map(|_| recs[rng.below(records.max(1))].key)
            .collect();
        let mut removals: Vec<Key> = recs.iter().map(|p| p.key).collect();
        rng.shuffle(&mut removals);
        removals.truncate(records / 2);
        Workload {
            records: recs,
            individual,
            batches,
            batch_size: BATCH_SIZE,
            nosync,
            read_order,
            range_starts,
            removals,
        }
    }

    /// What [`read_digest`] summed over `read_order` must add up to.
    pub fn expected_read_digest(&self) -> u64 {
        self.records.iter().map(|p| read_digest(&p.value)).sum()
    }

    /// Raw bytes of the live pairs at the end (keys and values, no overhead).
    pub fn live_raw_bytes(&self) -> u64 {
        let live = self.records.len() - self.removals.len()
            + self.individual.len()
            + self.batches.len()
            + self.nosync.len();
        (live * (KEY_LEN + VALUE_LEN)) as u64
    }
}

/// What a read folds into its checksum: the value's length and its first and
/// last bytes, so the value really is touched and a wrong one is noticed.
#[inline]
pub fn read_digest(value: &[u8]) -> u64 {
    let first = value.first().copied().unwrap_or(0) as u64;
    let last = value.last().copied().unwrap_or(0) as u64;
    value.len() as u64 + first + (last << 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workload_is_deterministic_and_sized() {
        let a = Workload::generate(100, 7);
        let b = Workload::generate(100, 7);
        assert_eq!(a.records[5].key, b.records[5].key);
        assert_eq!(a.read_order.len(), 100);
        assert_eq!(a.removals.len(), 50);
        assert_eq!(a.range_starts.len(), 10);
        assert_eq!(a.batches.len(), BATCHES * BATCH_SIZE);
    }
}
