//! The on-disk codec: file header, record frames, varints and the checkpoint
//! file. Pure functions over byte slices; no I/O happens here.
//!
//! The byte layout is specified in `docs/FORMAT.md`; this module is its only
//! implementation, and the comments here point to that document rather than
//! repeat it.

pub(crate) mod checkpoint;
pub(crate) mod coverage;
pub(crate) mod crc;
pub(crate) mod header;
pub(crate) mod record;
pub(crate) mod varint;

/// Read a little-endian `u32` at `at`; `None` when out of bounds.
pub(crate) fn read_u32(buf: &[u8], at: usize) -> Option<u32> {
    let bytes = buf.get(at..at.checked_add(4)?)?;
    let mut a = [0u8; 4];
    a.copy_from_slice(bytes);
    Some(u32::from_le_bytes(a))
}

/// Read a little-endian `u64` at `at`; `None` when out of bounds.
pub(crate) fn read_u64(buf: &[u8], at: usize) -> Option<u64> {
    let bytes = buf.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(bytes);
    Some(u64::from_le_bytes(a))
}
