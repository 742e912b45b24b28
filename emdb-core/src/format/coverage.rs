//! The compaction coverage block of the header page (docs/FORMAT.md,
//! "Compaction coverage block").
//!
//! A compaction writes it into the new file's header page: "from byte
//! `new_from` of this file (generation `new_generation`) on, the bytes are the
//! units of generation `old_generation` from `old_from` on, copied with the
//! same lengths". A change-feed reader whose cursor is in the old generation
//! at or past `old_from` can continue in the new file without a resend.
//! Version-1 readers ignore it: it lives in reserved bytes of the header page
//! that they never read.

use super::{read_u32, read_u64};

/// Offset of the block in the header page: its own 512-byte sector, apart
/// from the identity block (0), the sync slots (512, 2048) and the
/// encryption block (1024).
pub(crate) const COVERAGE_AT: usize = 3072;
/// Magic bytes at the start of the block.
const MAGIC: [u8; 8] = *b"EMDBCOV\0";
const DB_ID_AT: usize = MAGIC.len();
const OLD_GEN_AT: usize = DB_ID_AT + 16;
const OLD_FROM_AT: usize = OLD_GEN_AT + 8;
const NEW_GEN_AT: usize = OLD_FROM_AT + 8;
const NEW_FROM_AT: usize = NEW_GEN_AT + 8;
const CRC_AT: usize = NEW_FROM_AT + 8;
/// Size of the block, CRC included.
pub(crate) const COVERAGE_LEN: usize = CRC_AT + 4;

/// Which position of the previous generation the start of a file's copied
/// tail stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Coverage {
    /// The database both files belong to.
    pub db_id: [u8; 16],
    /// Generation of the file that was compacted.
    pub old_generation: u64,
    /// Offset in the old file from which units were copied verbatim in length.
    pub old_from: u64,
    /// Generation of the file holding this block.
    pub new_generation: u64,
    /// Offset in this file where the copied units start.
    pub new_from: u64,
}

impl Coverage {
    /// The encoded block.
    pub(crate) fn encode(&self) -> [u8; COVERAGE_LEN] {
        let mut b = [0u8; COVERAGE_LEN];
        b[..DB_ID_AT].copy_from_slice(&MAGIC);
        b[DB_ID_AT..OLD_GEN_AT].copy_from_slice(&self.db_id);
        b[OLD_GEN_AT..OLD_FROM_AT].copy_from_slice(&self.old_generation.to_le_bytes());
        b[OLD_FROM_AT..NEW_GEN_AT].copy_from_slice(&self.old_from.to_le_bytes());
        b[NEW_GEN_AT..NEW_FROM_AT].copy_from_slice(&self.new_generation.to_le_bytes());
        b[NEW_FROM_AT..CRC_AT].copy_from_slice(&self.new_from.to_le_bytes());
        let crc = crate::format::crc::crc32(&b[..CRC_AT]);
        b[CRC_AT..].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decode the block from a whole header page; `None` when absent or damaged.
    pub(crate) fn decode(page: &[u8]) -> Option<Coverage> {
        let b = page.get(COVERAGE_AT..COVERAGE_AT + COVERAGE_LEN)?;
        if b[..DB_ID_AT] != MAGIC || crate::format::crc::crc32(&b[..CRC_AT]) != read_u32(b, CRC_AT)?
        {
            return None;
        }
        let mut db_id = [0u8; 16];
        db_id.copy_from_slice(&b[DB_ID_AT..OLD_GEN_AT]);
        Some(Coverage {
            db_id,
            old_generation: read_u64(b, OLD_GEN_AT)?,
            old_from: read_u64(b, OLD_FROM_AT)?,
            new_generation: read_u64(b, NEW_GEN_AT)?,
            new_from: read_u64(b, NEW_FROM_AT)?,
        })
    }

    /// Where `position` of the old generation is in the new file, when this
    /// block covers it.
    pub(crate) fn map(&self, db_id: [u8; 16], generation: u64, position: u64) -> Option<u64> {
        (db_id == self.db_id && generation == self.old_generation && position >= self.old_from)
            .then(|| self.new_from + (position - self.old_from))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::header::HEADER_SIZE;

    #[test]
    fn round_trip_and_damage() {
        let c = Coverage {
            db_id: [7; 16],
            old_generation: 3,
            old_from: 10_000,
            new_generation: 4,
            new_from: 5_000,
        };
        let mut page = vec![0u8; HEADER_SIZE];
        assert_eq!(Coverage::decode(&page), None);
        page[COVERAGE_AT..COVERAGE_AT + COVERAGE_LEN].copy_from_slice(&c.encode());
        assert_eq!(Coverage::decode(&page), Some(c));
        assert_eq!(c.map([7; 16], 3, 10_100), Some(5_100));
        assert_eq!(c.map([7; 16], 3, 9_999), None);
        assert_eq!(c.map([7; 16], 2, 10_100), None);
        assert_eq!(c.map([8; 16], 3, 10_100), None);
        page[COVERAGE_AT + 20] ^= 1;
        assert_eq!(Coverage::decode(&page), None);
    }
}
