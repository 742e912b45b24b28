//! Bodies of the emdb fuzz targets, kept in a library so that the libFuzzer
//! binaries (`fuzz_targets/`) and the stable-toolchain replay test
//! (`tests/replay.rs`) run exactly the same code.
//!
//! The engine's targets (`record`, `header`, `checkpoint`, `log_replay`,
//! `checkpoint_load`, `tail_index_load`) are described below; the import targets of the CLI
//! (`import_jsonl`, `import_csv`, `import_resp`) in [`transfer`] and their
//! own modules. This library installs a counting global allocator
//! ([`alloc`]) so that the import targets can bound a parser's memory.
//!
//! Each `run` takes arbitrary bytes and panics only when the engine breaks a
//! rule of docs/FORMAT.md (or panics itself). Random bytes never pass a
//! CRC, so most targets read the input as a recipe: a first byte picks raw
//! or structured mode, and structured mode builds CRC-valid frames, headers
//! and checkpoints from the fuzzer's choices and then damages them.
//!
//! Constants below are the format's, copied from docs/FORMAT.md: the engine
//! keeps its own private, and a drift between the two is what we want to see.

pub mod alloc;
pub mod checkpoint;
pub mod checkpoint_load;
pub mod header;
pub mod import_csv;
pub mod import_jsonl;
pub mod import_resp;
pub mod log_replay;
pub mod record;
pub mod tail_index_load;
pub mod transfer;

use std::sync::OnceLock;

use arbitrary::Unstructured;

/// Strict mode: also check the properties behind the findings in
/// docs/RELIABILITY-fuzz.md ("Findings"). On by default now that the engine
/// fixes them; `EMDB_FUZZ_STRICT=0` turns it off.
pub fn strict_from_env() -> bool {
    static S: OnceLock<bool> = OnceLock::new();
    *S.get_or_init(|| std::env::var_os("EMDB_FUZZ_STRICT").is_none_or(|v| v != "0"))
}

/// Size of the log's header page.
pub const HEADER_SIZE: usize = 4096;
/// Offsets of the two sync slots in the header page.
pub const SYNC_SLOT_OFFSETS: [usize; 2] = [512, 2048];
/// Largest key a frame may carry.
pub const MAX_KEY_LEN: usize = 65_536;
/// Largest value a frame may carry.
pub const MAX_VALUE_LEN: usize = 268_435_456;
/// Smallest frame: CRC, tag, two one-byte lengths.
pub const MIN_FRAME_LEN: usize = 7;
/// Index shards per namespace in a checkpoint.
pub const SHARDS: usize = 256;

/// Record kinds as `fuzzing::encode_record` numbers them (`kind % 6`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// 1 on disk.
    Put,
    /// 2 on disk.
    Delete,
    /// 3 on disk.
    BatchBegin,
    /// 4 on disk.
    NamespaceCreate,
    /// 5 on disk.
    NamespaceDrop,
    /// 6 on disk.
    Clear,
}

impl Kind {
    /// The selector `encode_record` takes for this kind.
    pub fn selector(self) -> u8 {
        match self {
            Kind::Put => 0,
            Kind::Delete => 1,
            Kind::BatchBegin => 2,
            Kind::NamespaceCreate => 3,
            Kind::NamespaceDrop => 4,
            Kind::Clear => 5,
        }
    }

    /// The kind `encode_record` builds for a selector byte.
    pub fn from_selector(s: u8) -> Kind {
        match s % 6 {
            0 => Kind::Put,
            1 => Kind::Delete,
            2 => Kind::BatchBegin,
            3 => Kind::NamespaceCreate,
            4 => Kind::NamespaceDrop,
            _ => Kind::Clear,
        }
    }
}

/// Parts of one frame, as `encode_record` takes them.
#[derive(Clone, Debug)]
pub struct Parts {
    /// Record kind.
    pub kind: Kind,
    /// Namespace id (0 is the default namespace).
    pub ns: u32,
    /// Expiry, ms since the epoch; 0 for none.
    pub expires_at: u64,
    /// Key bytes.
    pub key: Vec<u8>,
    /// Value bytes.
    pub value: Vec<u8>,
}

impl Parts {
    /// Encode through the engine's own encoder.
    pub fn encode(&self) -> Vec<u8> {
        emdb_core::fuzzing::encode_record(
            self.kind.selector(),
            self.ns,
            self.expires_at,
            &self.key,
            &self.value,
        )
    }

    /// Whether docs/FORMAT.md (and the decoder) accept a frame of these parts.
    ///
    /// The decoder checks only the *value* of Delete, NamespaceDrop and Clear
    /// frames; FORMAT.md's table also says their key is empty (Drop, Clear).
    /// We follow the decoder here and note the difference in the docs.
    pub fn valid(&self) -> bool {
        if self.key.len() > MAX_KEY_LEN || self.value.len() > MAX_VALUE_LEN {
            return false;
        }
        match self.kind {
            Kind::Put => true,
            Kind::Delete => self.value.is_empty(),
            Kind::NamespaceDrop | Kind::Clear => self.value.is_empty() && self.key.is_empty(),
            Kind::BatchBegin => self.key.is_empty() && self.value.len() == 16 && self.ns == 0,
            Kind::NamespaceCreate => self.value.is_empty() && !self.key.is_empty() && self.ns != 0,
        }
    }
}

/// A BatchBegin value: `count u64`, `body_len u64`.
pub fn batch_value(count: u64, body_len: u64) -> Vec<u8> {
    let mut v = count.to_le_bytes().to_vec();
    v.extend_from_slice(&body_len.to_le_bytes());
    v
}

/// A namespace id the fuzzer picks: mostly small, sometimes anything.
pub fn pick_ns(u: &mut Unstructured<'_>) -> u32 {
    match u.int_in_range(0u8..=7).unwrap_or(0) {
        0..=3 => 0,
        4 | 5 => u32::from(u.int_in_range(1u8..=8).unwrap_or(1)),
        6 => u32::MAX,
        _ => u.arbitrary().unwrap_or(0),
    }
}

/// An expiry the fuzzer picks: mostly none.
pub fn pick_expiry(u: &mut Unstructured<'_>) -> u64 {
    match u.int_in_range(0u8..=3).unwrap_or(0) {
        0 | 1 => 0,
        2 => 1_700_000_000_000,
        _ => u.arbitrary().unwrap_or(0),
    }
}

/// Up to `max` bytes from the input, length chosen by the input.
pub fn pick_bytes(u: &mut Unstructured<'_>, max: usize) -> Vec<u8> {
    let n = u.int_in_range(0..=max).unwrap_or(0);
    u.bytes(n.min(u.len()))
        .map(<[u8]>::to_vec)
        .unwrap_or_default()
}

/// Frame parts chosen freely by the fuzzer (any kind, any fields).
pub fn pick_parts(u: &mut Unstructured<'_>) -> Parts {
    let kind = Kind::from_selector(u.arbitrary().unwrap_or(0));
    let ns = pick_ns(u);
    let expires_at = pick_expiry(u);
    let mut key = pick_bytes(u, 48);
    // Now and then a key at or just past the limit (zero padded).
    match u.int_in_range(0u8..=31).unwrap_or(0) {
        0 => key.resize(MAX_KEY_LEN, 0),
        1 => key.resize(MAX_KEY_LEN + 1, 0),
        _ => {}
    }
    let value = match (kind, u.int_in_range(0u8..=3).unwrap_or(0)) {
        (Kind::BatchBegin, 0..=2) => {
            let count: u8 = u.arbitrary().unwrap_or(0);
            let len: u16 = u.arbitrary().unwrap_or(0);
            batch_value(u64::from(count), u64::from(len))
        }
        (Kind::Put, _) | (_, 3) => pick_bytes(u, 200),
        _ => Vec::new(),
    };
    Parts {
        kind,
        ns,
        expires_at,
        key,
        value,
    }
}

/// Damage the fuzzer can do to an image.
#[derive(Clone, Copy, Debug)]
pub enum Damage {
    /// Flip one bit.
    Flip { at: usize, bit: u8 },
    /// Cut the image to this length.
    Cut(usize),
    /// Zero a range (a sector that never reached the disk).
    Zero { at: usize, len: usize },
    /// Overwrite one byte.
    Set { at: usize, byte: u8 },
}

/// Up to `max` damage steps read from the input; positions are reduced
/// modulo the image length when applied.
pub fn pick_damage(u: &mut Unstructured<'_>, max: usize) -> Vec<Damage> {
    let n = u.int_in_range(0..=max).unwrap_or(0);
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let at = u.arbitrary::<u32>().unwrap_or(0) as usize;
        let d = match u.int_in_range(0u8..=5).unwrap_or(0) {
            0 | 1 => Damage::Flip {
                at,
                bit: u.int_in_range(0u8..=7).unwrap_or(0),
            },
            2 => Damage::Cut(at),
            3 => Damage::Zero {
                at,
                len: usize::from(u.arbitrary::<u16>().unwrap_or(0)) % 1024,
            },
            _ => Damage::Set {
                at,
                byte: u.arbitrary().unwrap_or(0),
            },
        };
        out.push(d);
    }
    out
}

/// Apply damage to `bytes`, leaving the first `keep` bytes alone.
pub fn apply_damage(bytes: &mut Vec<u8>, keep: usize, damage: &[Damage]) {
    for d in damage {
        let span = bytes.len().saturating_sub(keep);
        if span == 0 {
            return;
        }
        match *d {
            Damage::Flip { at, bit } => bytes[keep + at % span] ^= 1 << bit,
            Damage::Cut(at) => bytes.truncate(keep + at % (span + 1)),
            Damage::Zero { at, len } => {
                let from = keep + at % span;
                let to = (from + len).min(bytes.len());
                bytes[from..to].fill(0);
            }
            Damage::Set { at, byte } => bytes[keep + at % span] = byte,
        }
    }
}

/// Little-endian u32 at `at`, if the bytes are there.
pub fn le_u32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Little-endian u64 at `at`, if the bytes are there.
pub fn le_u64(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

/// The fields of a plain (unsealed) frame, read by this crate's own reading
/// of FORMAT.md; no CRC check (use `decode_record` for that).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlainFrame {
    /// Kind nibble.
    pub kind: u8,
    /// Namespace id (0 when absent).
    pub ns: u32,
    /// Key bytes.
    pub key: Vec<u8>,
    /// Value bytes.
    pub value: Vec<u8>,
    /// Encoded length.
    pub len: usize,
}

/// Read the plain frame at the start of `b`.
pub fn parse_plain_frame(b: &[u8]) -> Option<PlainFrame> {
    let tag = *b.get(4)?;
    if tag & 0xc0 != 0 {
        return None;
    }
    let mut at = 5;
    let mut ns = 0;
    if tag & 0x10 != 0 {
        let (v, n) = read_varint(b.get(at..)?)?;
        ns = u32::try_from(v).ok()?;
        at += n;
    }
    if tag & 0x20 != 0 {
        at += 8;
    }
    let (klen, n) = read_varint(b.get(at..)?)?;
    at += n;
    let (vlen, n) = read_varint(b.get(at..)?)?;
    at += n;
    let key_end = at.checked_add(usize::try_from(klen).ok()?)?;
    let end = key_end.checked_add(usize::try_from(vlen).ok()?)?;
    Some(PlainFrame {
        kind: tag & 0x0f,
        ns,
        key: b.get(at..key_end)?.to_vec(),
        value: b.get(key_end..end)?.to_vec(),
        len: end,
    })
}

/// Unsigned LEB128, at most 10 bytes: `(value, bytes read)`.
pub fn read_varint(b: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (i, &byte) in b.iter().take(10).enumerate() {
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}
