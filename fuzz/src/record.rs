//! Target `record`: the record frame decoder (docs/FORMAT.md, "Record frame").
//!
//! Raw mode feeds the bytes as they are. Structured mode builds a CRC-valid
//! frame with `encode_record` from fuzzer-chosen parts, checks that it decodes
//! exactly when the format allows those parts, then appends bytes and damages
//! it. Every decoded frame must satisfy the invariants in [`check`].

use arbitrary::Unstructured;
use emdb_core::fuzzing::decode_record;

use crate::{le_u32, pick_parts, MIN_FRAME_LEN};

/// Run one input.
pub fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        check(rest);
    } else {
        structured(rest);
    }
}

/// Decode `bytes` and check what any accepted frame must satisfy.
pub fn check(bytes: &[u8]) -> Option<usize> {
    let len = decode_record(bytes)?;
    assert!(
        (MIN_FRAME_LEN..=bytes.len()).contains(&len),
        "frame length {len} outside {MIN_FRAME_LEN}..={}",
        bytes.len()
    );
    assert_eq!(
        le_u32(bytes, 0),
        Some(crc32fast::hash(&bytes[4..len])),
        "accepted a frame whose stored CRC is not the CRC of its bytes"
    );
    assert_eq!(
        decode_record(&bytes[..len]),
        Some(len),
        "the frame's validity depends on bytes past its end"
    );
    assert_eq!(
        decode_record(&bytes[..len - 1]),
        None,
        "a cut frame decoded"
    );
    assert_eq!(bytes[4] & 0x80, 0, "reserved tag bit 7 accepted");
    let kind = bytes[4] & 0x0f;
    assert!((1..=6).contains(&kind), "record kind {kind} accepted");
    Some(len)
}

fn structured(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let parts = pick_parts(&mut u);
    let frame = parts.encode();
    let decoded = check(&frame);
    if parts.valid() {
        assert_eq!(
            decoded,
            Some(frame.len()),
            "a valid frame did not decode: {parts:?}"
        );
    } else {
        assert_eq!(decoded, None, "an invalid frame decoded: {parts:?}");
    }

    // Whatever follows a frame does not change it.
    let mut bytes = frame.clone();
    let tail_len = u.int_in_range(0..=64usize).unwrap_or(0);
    bytes.extend_from_slice(u.bytes(tail_len.min(u.len())).unwrap_or_default());
    assert_eq!(check(&bytes), decoded, "trailing bytes changed the frame");

    match u.int_in_range(0u8..=3).unwrap_or(0) {
        // One flipped bit inside the frame: CRC-32 catches every single-bit
        // error over the same range, so the frame can only decode with a
        // different length (its length field was hit; odds of 2^-32).
        0 => {
            let at = u.arbitrary::<u32>().unwrap_or(0) as usize % frame.len();
            let bit = u.int_in_range(0u8..=7).unwrap_or(0);
            bytes[at] ^= 1 << bit;
            if decoded.is_some() {
                let after = check(&bytes);
                assert_ne!(
                    after,
                    Some(frame.len()),
                    "a flip of bit {bit} at byte {at} went unnoticed"
                );
            } else {
                check(&bytes);
            }
        }
        // Every cut of the frame fails.
        1 => {
            let cut = u.arbitrary::<u32>().unwrap_or(0) as usize % frame.len();
            assert_eq!(check(&frame[..cut]), None, "frame cut at {cut} decoded");
        }
        // Free damage: only the invariants.
        _ => {
            let damage = crate::pick_damage(&mut u, 8);
            crate::apply_damage(&mut bytes, 0, &damage);
            check(&bytes);
        }
    }
}
