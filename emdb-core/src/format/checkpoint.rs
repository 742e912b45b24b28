//! The checkpoint file (docs/FORMAT.md, "Checkpoint file").
//!
//! A checkpoint is a raw image of every namespace's hash index as of a log
//! offset (`covered_end`), bound to one log file by its database id,
//! generation, and the CRC of the last frame it covers. Loading one replaces
//! the replay of everything before `covered_end`.

use super::{read_u32, read_u64};

/// Magic bytes at offset 0.
pub(crate) const MAGIC: [u8; 8] = *b"EMDBCKPT";
/// Checkpoint layout version.
pub(crate) const VERSION: u32 = 1;

const FIXED_LEN: usize = 64;

/// What a checkpoint is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Binding {
    pub db_id: [u8; 16],
    pub generation: u64,
    /// Log offset up to which the image is complete.
    pub covered_end: u64,
    /// Offset of the last frame before `covered_end` (0 when the log is empty).
    pub last_frame_at: u64,
    /// Stored CRC of that frame.
    pub last_frame_crc: u32,
}

/// One shard's table, as stored.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct ShardImage {
    pub len: u32,
    pub entries: Vec<u64>,
}

/// One namespace's index image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NsImage {
    pub id: u32,
    pub name: Vec<u8>,
    pub live_bytes: u64,
    /// Live entries whose record carries an expiry.
    pub expiring: u64,
    pub shards: Vec<ShardImage>,
}

/// A decoded checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Checkpoint {
    pub binding: Binding,
    /// Highest namespace id ever assigned (ids are never reused).
    pub next_ns_id: u32,
    pub namespaces: Vec<NsImage>,
}

/// Encoded size of a checkpoint, for reserving the buffer up front.
pub(crate) fn encoded_len(namespaces: &[NsImage]) -> usize {
    let mut n = FIXED_LEN + 4;
    for ns in namespaces {
        n += 4 + 2 + ns.name.len() + 8 + 8 + 4;
        for s in &ns.shards {
            n += 8 + s.entries.len() * 8;
        }
    }
    n
}

/// Encode a checkpoint.
pub(crate) fn encode(cp: &Checkpoint) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded_len(&cp.namespaces));
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(cp.namespaces.len() as u32).to_le_bytes());
    out.extend_from_slice(&cp.binding.db_id);
    out.extend_from_slice(&cp.binding.generation.to_le_bytes());
    out.extend_from_slice(&cp.binding.covered_end.to_le_bytes());
    out.extend_from_slice(&cp.binding.last_frame_at.to_le_bytes());
    out.extend_from_slice(&cp.binding.last_frame_crc.to_le_bytes());
    out.extend_from_slice(&cp.next_ns_id.to_le_bytes());
    debug_assert_eq!(out.len(), FIXED_LEN);
    for ns in &cp.namespaces {
        out.extend_from_slice(&ns.id.to_le_bytes());
        out.extend_from_slice(&(ns.name.len() as u16).to_le_bytes());
        out.extend_from_slice(&ns.name);
        out.extend_from_slice(&ns.live_bytes.to_le_bytes());
        out.extend_from_slice(&ns.expiring.to_le_bytes());
        out.extend_from_slice(&(ns.shards.len() as u32).to_le_bytes());
        for s in &ns.shards {
            out.extend_from_slice(&(s.entries.len() as u32).to_le_bytes());
            out.extend_from_slice(&s.len.to_le_bytes());
            for e in &s.entries {
                out.extend_from_slice(&e.to_le_bytes());
            }
        }
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Decode and verify a checkpoint. `Err` carries a reason; a bad checkpoint
/// is never fatal (the caller falls back to replaying the log).
pub(crate) fn decode(buf: &[u8], shard_count: usize) -> Result<Checkpoint, &'static str> {
    if buf.len() < FIXED_LEN + 4 || buf[..8] != MAGIC {
        return Err("not a checkpoint");
    }
    let (body, trailer) = buf.split_at(buf.len() - 4);
    if crc32fast::hash(body) != read_u32(trailer, 0).ok_or("short")? {
        return Err("checkpoint checksum mismatch");
    }
    if read_u32(body, 8) != Some(VERSION) {
        return Err("unknown checkpoint version");
    }
    let ns_count = read_u32(body, 12).ok_or("short")? as usize;
    let mut db_id = [0u8; 16];
    db_id.copy_from_slice(&body[16..32]);
    let binding = Binding {
        db_id,
        generation: read_u64(body, 32).ok_or("short")?,
        covered_end: read_u64(body, 40).ok_or("short")?,
        last_frame_at: read_u64(body, 48).ok_or("short")?,
        last_frame_crc: read_u32(body, 56).ok_or("short")?,
    };
    let next_ns_id = read_u32(body, 60).ok_or("short")?;
    let mut at = FIXED_LEN;
    let mut namespaces = Vec::with_capacity(ns_count.min(1024));
    for _ in 0..ns_count {
        let id = read_u32(body, at).ok_or("short")?;
        let name_len = usize::from(u16::from_le_bytes(
            body.get(at + 4..at + 6)
                .ok_or("short")?
                .try_into()
                .map_err(|_| "short")?,
        ));
        at += 6;
        let name = body.get(at..at + name_len).ok_or("short")?.to_vec();
        at += name_len;
        let live_bytes = read_u64(body, at).ok_or("short")?;
        let expiring = read_u64(body, at + 8).ok_or("short")?;
        let shards_n = read_u32(body, at + 16).ok_or("short")? as usize;
        at += 20;
        if shards_n != shard_count {
            return Err("checkpoint shard count differs");
        }
        let mut shards = Vec::with_capacity(shards_n);
        for _ in 0..shards_n {
            let cap = read_u32(body, at).ok_or("short")? as usize;
            let len = read_u32(body, at + 4).ok_or("short")?;
            at += 8;
            if cap != 0 && !cap.is_power_of_two() || len as usize > cap {
                return Err("bad shard table size");
            }
            let raw = body.get(at..at + cap * 8).ok_or("short")?;
            let entries = raw
                .chunks_exact(8)
                .map(|c| {
                    let mut a = [0u8; 8];
                    a.copy_from_slice(c);
                    u64::from_le_bytes(a)
                })
                .collect();
            at += cap * 8;
            shards.push(ShardImage { len, entries });
        }
        namespaces.push(NsImage {
            id,
            name,
            live_bytes,
            expiring,
            shards,
        });
    }
    if at != body.len() {
        return Err("trailing bytes in checkpoint");
    }
    Ok(Checkpoint {
        binding,
        next_ns_id,
        namespaces,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            binding: Binding {
                db_id: [1; 16],
                generation: 2,
                covered_end: 10_000,
                last_frame_at: 9_000,
                last_frame_crc: 77,
            },
            next_ns_id: 3,
            namespaces: vec![NsImage {
                id: 0,
                name: Vec::new(),
                live_bytes: 500,
                expiring: 0,
                shards: vec![
                    ShardImage {
                        len: 1,
                        entries: vec![0, 4096, 0, 0],
                    },
                    ShardImage::default(),
                ],
            }],
        }
    }

    #[test]
    fn round_trips() {
        let cp = sample();
        let bytes = encode(&cp);
        assert_eq!(bytes.len(), encoded_len(&cp.namespaces));
        assert_eq!(decode(&bytes, 2), Ok(cp));
    }

    #[test]
    fn any_damage_is_rejected() {
        let bytes = encode(&sample());
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert!(decode(&b, 2).is_err(), "flip at {i}");
        }
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut], 2).is_err(), "cut at {cut}");
        }
    }
}
