//! Target `header`: the header page decoder (docs/FORMAT.md, "Header page"):
//! the identity block and the two sync slots.
//!
//! Raw mode feeds the bytes as they are; structured mode builds a page with a
//! correct identity CRC and sync slots from the fuzzer's fields, then damages
//! it. Either way the engine's answer must equal [`identity_ok`], a reading
//! of the spec written here independently of the engine.

use arbitrary::Unstructured;
use emdb_core::fuzzing::decode_header;

use crate::{apply_damage, le_u32, pick_damage, HEADER_SIZE, SYNC_SLOT_OFFSETS};

/// The identity block's magic.
pub const MAGIC: &[u8; 8] = b"EMDBLOG\0";
/// Bytes covered by the identity CRC.
const IDENTITY_LEN: usize = 48;

/// Run one input.
pub fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let page = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        structured(rest)
    };
    assert_eq!(
        decode_header(&page),
        identity_ok(&page),
        "engine and spec disagree on a header of {} bytes",
        page.len()
    );
}

/// Whether the spec accepts this page's identity block: magic, a whole page,
/// the identity CRC, version 1.
pub fn identity_ok(page: &[u8]) -> bool {
    page.len() >= HEADER_SIZE
        && page.starts_with(MAGIC)
        && le_u32(page, IDENTITY_LEN) == Some(crc32fast::hash(&page[..IDENTITY_LEN]))
        && le_u32(page, 8) == Some(1)
}

/// A header page: identity fields from the input, correct identity CRC.
pub fn identity_page(u: &mut Unstructured<'_>) -> Vec<u8> {
    let mut page = vec![0u8; HEADER_SIZE];
    page[..8].copy_from_slice(MAGIC);
    let version: u32 = if u.ratio(7u8, 8).unwrap_or(true) {
        1
    } else {
        u.arbitrary().unwrap_or(0)
    };
    page[8..12].copy_from_slice(&version.to_le_bytes());
    let flags: u32 = if u.ratio(3u8, 4).unwrap_or(true) {
        0
    } else {
        u.arbitrary().unwrap_or(0)
    };
    page[12..16].copy_from_slice(&flags.to_le_bytes());
    let n = u.len().min(32);
    page[16..16 + n].copy_from_slice(u.bytes(n).unwrap_or_default());
    let crc = crc32fast::hash(&page[..IDENTITY_LEN]);
    page[IDENTITY_LEN..IDENTITY_LEN + 4].copy_from_slice(&crc.to_le_bytes());
    page
}

/// One 32-byte sync slot with a correct CRC.
pub fn slot(seq: u64, durable_end: u64, encryptions: u64) -> [u8; 32] {
    let mut b = [0u8; 32];
    b[..8].copy_from_slice(&seq.to_le_bytes());
    b[8..16].copy_from_slice(&durable_end.to_le_bytes());
    b[16..24].copy_from_slice(&encryptions.to_le_bytes());
    let crc = crc32fast::hash(&b[..24]);
    b[24..28].copy_from_slice(&crc.to_le_bytes());
    b
}

/// Write slot `i` (0 or 1) of `page`.
pub fn put_slot(page: &mut [u8], i: usize, s: &[u8; 32]) {
    let at = SYNC_SLOT_OFFSETS[i];
    page[at..at + 32].copy_from_slice(s);
}

fn structured(data: &[u8]) -> Vec<u8> {
    let mut u = Unstructured::new(data);
    let mut page = identity_page(&mut u);
    for i in 0..2 {
        if u.arbitrary().unwrap_or(false) {
            let s = slot(
                u.arbitrary().unwrap_or(0),
                u.arbitrary().unwrap_or(0),
                u.arbitrary().unwrap_or(0),
            );
            put_slot(&mut page, i, &s);
        }
    }
    let damage = pick_damage(&mut u, 4);
    apply_damage(&mut page, 0, &damage);
    page
}
