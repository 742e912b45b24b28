//! The file header page (docs/FORMAT.md, "File header").
//!
//! The first [`HEADER_SIZE`] bytes of a log hold a fixed identity block that is
//! written once, and two *sync slots*. After each successful fdatasync the
//! writer records the durable end of the log in the older slot; recovery uses
//! the newest valid slot to tell damaged durable data (corruption) from a torn
//! unsynced tail.

use super::{read_u32, read_u64};

/// Size of the header page; the first record starts here.
pub(crate) const HEADER_SIZE: usize = 4096;
/// Magic bytes at offset 0.
pub(crate) const MAGIC: [u8; 8] = *b"EMDBLOG\0";
/// The format version this build writes and reads.
pub(crate) const FORMAT_VERSION: u32 = 1;

const MAGIC_AT: usize = 0;
const VERSION_AT: usize = MAGIC_AT + MAGIC.len();
const FLAGS_AT: usize = VERSION_AT + 4;
const DB_ID_AT: usize = FLAGS_AT + 4;
const GENERATION_AT: usize = DB_ID_AT + 16;
const CREATED_AT: usize = GENERATION_AT + 8;
const IDENTITY_CRC_AT: usize = CREATED_AT + 8;
/// Bytes of the identity block covered by its CRC.
const IDENTITY_LEN: usize = IDENTITY_CRC_AT;

/// Offsets of the two sync slots: separate 512-byte sectors (and apart from
/// the identity block), so a write torn inside one sector can damage at most
/// the slot being written, never the other one or the identity.
pub(crate) const SYNC_SLOT_OFFSETS: [usize; 2] = [512, 2048];
/// Size of one sync slot.
pub(crate) const SYNC_SLOT_LEN: usize = 32;

/// The bytes of a database file that hold its two sync slots
/// (docs/FORMAT.md). A writable open claims the file by writing one of
/// them, and changes nothing else in a file it finds whole: a tool that
/// compares a copy with the file it was taken of (`emdb check --repair`)
/// leaves these out.
pub const SYNC_SLOT_BYTES: [std::ops::Range<u64>; 2] = [
    SYNC_SLOT_OFFSETS[0] as u64..(SYNC_SLOT_OFFSETS[0] + SYNC_SLOT_LEN) as u64,
    SYNC_SLOT_OFFSETS[1] as u64..(SYNC_SLOT_OFFSETS[1] + SYNC_SLOT_LEN) as u64,
];
const SLOT_SEQ_AT: usize = 0;
const SLOT_END_AT: usize = SLOT_SEQ_AT + 8;
const SLOT_ENC_AT: usize = SLOT_END_AT + 8;
const SLOT_CRC_AT: usize = SLOT_ENC_AT + 8;

/// Identity flag: records are sealed (encrypted database).
pub(crate) const FLAG_ENCRYPTED: u32 = 1;

/// The identity block of a log file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    pub version: u32,
    pub flags: u32,
    /// Random id fixed when the database is created; kept by compaction.
    pub db_id: [u8; 16],
    /// Bumped by every compaction; binds checkpoints to one file.
    pub generation: u64,
    pub created_ms: u64,
}

/// Why a header was rejected.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum HeaderError {
    /// Not an emdb file at all.
    Foreign(&'static str),
    /// An emdb file of another format version.
    Version(u32),
    /// An emdb file whose identity block is damaged.
    Damaged(&'static str),
}

impl Identity {
    /// Encode the identity block into the start of `page`.
    pub(crate) fn encode_into(&self, page: &mut [u8]) {
        page[MAGIC_AT..VERSION_AT].copy_from_slice(&MAGIC);
        page[VERSION_AT..FLAGS_AT].copy_from_slice(&self.version.to_le_bytes());
        page[FLAGS_AT..DB_ID_AT].copy_from_slice(&self.flags.to_le_bytes());
        page[DB_ID_AT..GENERATION_AT].copy_from_slice(&self.db_id);
        page[GENERATION_AT..CREATED_AT].copy_from_slice(&self.generation.to_le_bytes());
        page[CREATED_AT..IDENTITY_CRC_AT].copy_from_slice(&self.created_ms.to_le_bytes());
        let crc = crate::format::crc::crc32(&page[..IDENTITY_LEN]);
        page[IDENTITY_CRC_AT..IDENTITY_CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
    }

    /// A fresh header page with this identity and empty sync slots.
    pub(crate) fn page(&self) -> Vec<u8> {
        let mut page = vec![0u8; HEADER_SIZE];
        self.encode_into(&mut page);
        page
    }

    /// Decode the identity block from a header page.
    pub(crate) fn decode(page: &[u8]) -> Result<Identity, HeaderError> {
        if page.len() < MAGIC.len() || page[..MAGIC.len()] != MAGIC {
            return Err(HeaderError::Foreign("magic bytes do not match"));
        }
        if page.len() < HEADER_SIZE {
            return Err(HeaderError::Damaged("header page is truncated"));
        }
        let stored = read_u32(page, IDENTITY_CRC_AT).ok_or(HeaderError::Damaged("short"))?;
        if crate::format::crc::crc32(&page[..IDENTITY_LEN]) != stored {
            return Err(HeaderError::Damaged("header checksum mismatch"));
        }
        let version = read_u32(page, VERSION_AT).ok_or(HeaderError::Damaged("short"))?;
        if version != FORMAT_VERSION {
            return Err(HeaderError::Version(version));
        }
        let mut db_id = [0u8; 16];
        db_id.copy_from_slice(&page[DB_ID_AT..GENERATION_AT]);
        Ok(Identity {
            version,
            flags: read_u32(page, FLAGS_AT).ok_or(HeaderError::Damaged("short"))?,
            db_id,
            generation: read_u64(page, GENERATION_AT).ok_or(HeaderError::Damaged("short"))?,
            created_ms: read_u64(page, CREATED_AT).ok_or(HeaderError::Damaged("short"))?,
        })
    }
}

/// One sync slot: "the log was durable up to `durable_end` after sync `seq`".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct SyncSlot {
    pub seq: u64,
    pub durable_end: u64,
    /// Records sealed under the current key so far (encrypted databases).
    pub encryptions: u64,
}

impl SyncSlot {
    /// Encode into a slot-sized buffer.
    pub(crate) fn encode(&self) -> [u8; SYNC_SLOT_LEN] {
        let mut b = [0u8; SYNC_SLOT_LEN];
        b[SLOT_SEQ_AT..SLOT_END_AT].copy_from_slice(&self.seq.to_le_bytes());
        b[SLOT_END_AT..SLOT_ENC_AT].copy_from_slice(&self.durable_end.to_le_bytes());
        b[SLOT_ENC_AT..SLOT_CRC_AT].copy_from_slice(&self.encryptions.to_le_bytes());
        let crc = crate::format::crc::crc32(&b[..SLOT_CRC_AT]);
        b[SLOT_CRC_AT..SLOT_CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
        b
    }

    fn decode(b: &[u8]) -> Option<SyncSlot> {
        let stored = read_u32(b, SLOT_CRC_AT)?;
        if crate::format::crc::crc32(b.get(..SLOT_CRC_AT)?) != stored {
            return None;
        }
        Some(SyncSlot {
            seq: read_u64(b, SLOT_SEQ_AT)?,
            durable_end: read_u64(b, SLOT_END_AT)?,
            encryptions: read_u64(b, SLOT_ENC_AT)?,
        })
    }

    /// Byte offset of slot `i` (0 or 1) in the header page.
    pub(crate) fn offset(i: u64) -> usize {
        SYNC_SLOT_OFFSETS[(i % 2) as usize]
    }

    /// Blank both slots of a header page.
    pub(crate) fn clear_all(page: &mut [u8]) {
        for at in SYNC_SLOT_OFFSETS {
            page[at..at + SYNC_SLOT_LEN].fill(0);
        }
    }

    /// The newest valid slot of a header page (all-zero if neither is valid).
    pub(crate) fn newest(page: &[u8]) -> SyncSlot {
        let a = page
            .get(Self::offset(0)..Self::offset(0) + SYNC_SLOT_LEN)
            .and_then(Self::decode);
        let b = page
            .get(Self::offset(1)..Self::offset(1) + SYNC_SLOT_LEN)
            .and_then(Self::decode);
        match (a, b) {
            (Some(a), Some(b)) => {
                if a.seq >= b.seq {
                    a
                } else {
                    b
                }
            }
            (Some(s), None) | (None, Some(s)) => s,
            (None, None) => SyncSlot::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ident() -> Identity {
        Identity {
            version: FORMAT_VERSION,
            flags: 0,
            db_id: [9; 16],
            generation: 3,
            created_ms: 42,
        }
    }

    #[test]
    fn identity_round_trips_and_detects_damage() {
        let page = ident().page();
        assert_eq!(Identity::decode(&page), Ok(ident()));
        for i in 0..IDENTITY_CRC_AT + 4 {
            let mut p = page.clone();
            p[i] ^= 0x40;
            assert!(Identity::decode(&p).is_err(), "flip at {i}");
        }
    }

    #[test]
    fn foreign_and_future_files_are_told_apart() {
        assert!(matches!(
            Identity::decode(b"hello world, not a db"),
            Err(HeaderError::Foreign(_))
        ));
        let mut id = ident();
        id.version = 99;
        assert_eq!(Identity::decode(&id.page()), Err(HeaderError::Version(99)));
    }

    #[test]
    fn newest_valid_slot_wins() {
        let mut page = ident().page();
        let s1 = SyncSlot {
            seq: 1,
            durable_end: 5000,
            encryptions: 0,
        };
        let s2 = SyncSlot {
            seq: 2,
            durable_end: 9000,
            encryptions: 7,
        };
        page[SyncSlot::offset(1)..][..SYNC_SLOT_LEN].copy_from_slice(&s1.encode());
        page[SyncSlot::offset(2)..][..SYNC_SLOT_LEN].copy_from_slice(&s2.encode());
        assert_eq!(SyncSlot::newest(&page), s2);
        // A torn newer slot falls back to the older one.
        page[SyncSlot::offset(2) + 3] ^= 1;
        assert_eq!(SyncSlot::newest(&page), s1);
    }
}
