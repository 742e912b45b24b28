//! Target `checkpoint`: the checkpoint decoder (docs/FORMAT.md, "Checkpoint
//! file").
//!
//! Three modes, picked by the first byte:
//! - raw bytes;
//! - `EMDBCKPT`, version 1 and fuzzer bytes, closed by a correct CRC32, so
//!   the decoder's field parsing is reached at all;
//! - a well-formed image built from fuzzer-chosen namespaces and shard
//!   tables, optionally damaged and then re-sealed with a correct CRC.
//!
//! The engine's verdict must equal [`spec_ok`], an independent reading of
//! the layout, and a built, undamaged image must always be accepted.

use arbitrary::Unstructured;
use emdb_core::fuzzing::decode_checkpoint;

use crate::{apply_damage, le_u32, pick_bytes, pick_damage, SHARDS};

/// Checkpoint magic.
pub const MAGIC: &[u8; 8] = b"EMDBCKPT";
/// Bytes of the fixed part before the namespaces.
pub const FIXED_LEN: usize = 64;

/// Run one input.
pub fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let image = match mode % 3 {
        0 => rest.to_vec(),
        1 => {
            let mut b = MAGIC.to_vec();
            b.extend_from_slice(&1u32.to_le_bytes());
            b.extend_from_slice(rest);
            seal(b)
        }
        _ => {
            let mut u = Unstructured::new(rest);
            let body = build(&mut u);
            let whole = seal(body.clone());
            assert!(
                decode_checkpoint(&whole),
                "a well-formed checkpoint of {} bytes was rejected",
                whole.len()
            );
            let damage = pick_damage(&mut u, 4);
            if damage.is_empty() {
                return;
            }
            let mut body = body;
            apply_damage(&mut body, 0, &damage);
            seal(body)
        }
    };
    assert_eq!(
        decode_checkpoint(&image),
        spec_ok(&image),
        "engine and spec disagree on a checkpoint of {} bytes",
        image.len()
    );
}

/// Append the CRC32 of `body`.
pub fn seal(mut body: Vec<u8>) -> Vec<u8> {
    let crc = crc32fast::hash(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    body
}

/// A well-formed checkpoint body (no CRC) from the fuzzer's choices.
pub fn build(u: &mut Unstructured<'_>) -> Vec<u8> {
    let ns_count = u.int_in_range(0u8..=3).unwrap_or(0);
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&u32::from(ns_count).to_le_bytes());
    // db_id, generation, covered_end, last_frame_at, last_frame_crc, next id.
    for _ in 0..(16 + 8 + 8 + 8 + 4 + 4) {
        b.push(u.arbitrary().unwrap_or(0));
    }
    for _ in 0..ns_count {
        b.extend_from_slice(&u.arbitrary::<u32>().unwrap_or(0).to_le_bytes());
        let name = pick_bytes(u, 40);
        b.extend_from_slice(&(name.len() as u16).to_le_bytes());
        b.extend_from_slice(&name);
        b.extend_from_slice(&u.arbitrary::<u64>().unwrap_or(0).to_le_bytes());
        b.extend_from_slice(&u.arbitrary::<u64>().unwrap_or(0).to_le_bytes());
        b.extend_from_slice(&(SHARDS as u32).to_le_bytes());
        for _ in 0..SHARDS {
            // Mostly empty shards, so inputs stay small.
            let slots: u32 = match u.int_in_range(0u8..=15).unwrap_or(0) {
                0 => 1,
                1 => 2,
                2 => 8,
                _ => 0,
            };
            let len = u.int_in_range(0..=slots).unwrap_or(0);
            b.extend_from_slice(&slots.to_le_bytes());
            b.extend_from_slice(&len.to_le_bytes());
            for _ in 0..slots {
                b.extend_from_slice(&u.arbitrary::<u64>().unwrap_or(0).to_le_bytes());
            }
        }
    }
    b
}

/// Whether FORMAT.md's layout accepts `image`: the CRC over everything
/// before the last four bytes, version 1, exactly `namespace count`
/// namespaces of 256 shards each, every shard table empty or a power of two
/// with `len <= slots`, and nothing left over.
pub fn spec_ok(image: &[u8]) -> bool {
    if image.len() < FIXED_LEN + 4 || !image.starts_with(MAGIC) {
        return false;
    }
    let body = &image[..image.len() - 4];
    if le_u32(image, body.len()) != Some(crc32fast::hash(body)) || le_u32(body, 8) != Some(1) {
        return false;
    }
    let Some(count) = le_u32(body, 12) else {
        return false;
    };
    let mut at = FIXED_LEN;
    for _ in 0..count {
        let Some(name_len) = body.get(at + 4..at + 6) else {
            return false;
        };
        let name_len = usize::from(u16::from_le_bytes([name_len[0], name_len[1]]));
        // id, name length, name, live_bytes, expiring: the shard count
        // being readable past them proves they are there.
        at += 6 + name_len + 16;
        if le_u32(body, at) != Some(SHARDS as u32) {
            return false;
        }
        at += 4;
        for _ in 0..SHARDS {
            let (Some(slots), Some(len)) = (le_u32(body, at), le_u32(body, at + 4)) else {
                return false;
            };
            if !(slots == 0 || slots.is_power_of_two()) || len > slots {
                return false;
            }
            at += 8 + slots as usize * 8;
            if at > body.len() {
                return false;
            }
        }
    }
    at == body.len()
}
