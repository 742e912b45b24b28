//! The checkpoint file (docs/FORMAT.md, "Checkpoint file").
//!
//! A checkpoint is an image of every namespace's hash index as of a log
//! offset (`covered_end`), bound to one log file by its database id,
//! generation, and the CRC of the last frame it covers. Using one replaces
//! the replay of everything before `covered_end`.
//!
//! Version 2 is laid out to be mapped and used in place: a header page, a
//! namespace table, the slot pages in the index's own memory layout, and a
//! CRC per slot page. This module plans the layout and encodes and decodes
//! the header and table; the slot pages are written and mapped by
//! `crate::checkpoint`. Version 1 (one contiguous encoding under one CRC) is
//! still decoded, so databases written before version 2 open without replay.

use super::{read_u32, read_u64};

/// Magic bytes at offset 0.
pub(crate) const MAGIC: [u8; 8] = *b"EMDBCKPT";
/// Version of the contiguous encoding read into memory.
pub(crate) const VERSION_1: u32 = 1;
/// Version of the mapped image.
pub(crate) const VERSION_2: u32 = 2;

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
    pub entries: Slots,
}

/// A shard table's slots for a checkpoint.
#[derive(Clone)]
pub(crate) enum Slots {
    /// A copy.
    Owned(Vec<u64>),
    /// The index's own slots (shard `.1` of the arena), read as they are
    /// written out: only while no writer can change them (a checkpoint at
    /// close holds the writer lock until its file is written), so a
    /// checkpoint of a large index needs no copy of it.
    Live(std::sync::Arc<crate::index::Arena>, usize),
}

impl Slots {
    /// Number of slots.
    pub(crate) fn len(&self) -> usize {
        match self {
            Slots::Owned(v) => v.len(),
            Slots::Live(a, shard) => a.shard(*shard).len(),
        }
    }

    /// The slots, in order.
    pub(crate) fn iter(&self) -> SlotsIter<'_> {
        match self {
            Slots::Owned(v) => SlotsIter::Owned(v.iter()),
            Slots::Live(a, shard) => SlotsIter::Live(a.shard(*shard).iter()),
        }
    }

    /// An error if the slots lie in a mapped checkpoint another process
    /// cut short (reads through it saw zeros).
    pub(crate) fn check_cut(&self) -> crate::error::Result<()> {
        match self {
            Slots::Owned(_) => Ok(()),
            Slots::Live(a, _) => a.check_cut(),
        }
    }

    /// The slots, copied.
    pub(crate) fn to_vec(&self) -> Vec<u64> {
        self.iter().collect()
    }

    /// The slots as a vector: moved out of a copy, else copied.
    pub(crate) fn into_vec(self) -> Vec<u64> {
        match self {
            Slots::Owned(v) => v,
            live => live.to_vec(),
        }
    }
}

impl Default for Slots {
    fn default() -> Slots {
        Slots::Owned(Vec::new())
    }
}

impl From<Vec<u64>> for Slots {
    fn from(v: Vec<u64>) -> Slots {
        Slots::Owned(v)
    }
}

impl PartialEq for Slots {
    fn eq(&self, other: &Slots) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Slots {}

impl std::fmt::Debug for Slots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Slots::Owned(v) => f.debug_tuple("Owned").field(v).finish(),
            Slots::Live(_, shard) => f
                .debug_struct("Live")
                .field("shard", shard)
                .field("len", &self.len())
                .finish(),
        }
    }
}

/// The slots of a [`Slots`], in order.
pub(crate) enum SlotsIter<'a> {
    Owned(std::slice::Iter<'a, u64>),
    Live(std::slice::Iter<'a, std::sync::atomic::AtomicU64>),
}

impl Iterator for SlotsIter<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        match self {
            SlotsIter::Owned(i) => i.next().copied(),
            SlotsIter::Live(i) => i
                .next()
                .map(|a| a.load(std::sync::atomic::Ordering::Relaxed)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            SlotsIter::Owned(i) => i.size_hint(),
            SlotsIter::Live(i) => i.size_hint(),
        }
    }
}

impl ExactSizeIterator for SlotsIter<'_> {}

/// One namespace's index image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NsImage {
    pub id: u32,
    pub name: Vec<u8>,
    pub live_bytes: u64,
    /// Live entries whose record carries an expiry.
    pub expiring: u64,
    pub shards: Vec<ShardImage>,
    /// Offsets of the live records in key order (version 2's sorted block);
    /// `None` when not stored (version 1).
    pub sorted: Option<SortedBlock>,
}

/// A namespace's sorted block as a checkpoint writes it.
#[derive(Clone, Debug)]
pub(crate) enum SortedBlock {
    /// Every offset, in key order.
    Offsets(std::sync::Arc<[u64]>),
    /// The last checkpoint's order with the keys written since placed in
    /// it, streamed to the file as it is written
    /// (`crate::checkpoint::write_file`).
    Patch(std::sync::Arc<crate::sorted::Patch>),
}

impl SortedBlock {
    /// Number of offsets.
    pub(crate) fn len(&self) -> usize {
        match self {
            SortedBlock::Offsets(o) => o.len(),
            SortedBlock::Patch(p) => p.len(),
        }
    }

    /// The offsets, when held as an array.
    pub(crate) fn offsets(&self) -> Option<&std::sync::Arc<[u64]>> {
        match self {
            SortedBlock::Offsets(o) => Some(o),
            SortedBlock::Patch(_) => None,
        }
    }
}

impl PartialEq for SortedBlock {
    fn eq(&self, other: &SortedBlock) -> bool {
        match (self, other) {
            (SortedBlock::Offsets(a), SortedBlock::Offsets(b)) => a == b,
            (SortedBlock::Patch(a), SortedBlock::Patch(b)) => std::sync::Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for SortedBlock {}

/// A decoded checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Checkpoint {
    pub binding: Binding,
    /// Highest namespace id ever assigned (ids are never reused).
    pub next_ns_id: u32,
    pub namespaces: Vec<NsImage>,
}

/// Encoded size of a version-1 checkpoint, for reserving the buffer up front.
#[cfg(any(test, feature = "fuzzing"))]
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

/// Encode a version-1 checkpoint (tests and fixtures: emdb writes version 2).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn encode_v1(cp: &Checkpoint) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded_len(&cp.namespaces));
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION_1.to_le_bytes());
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
            for e in s.entries.iter() {
                out.extend_from_slice(&e.to_le_bytes());
            }
        }
    }
    let crc = crate::format::crc::crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// The version of a checkpoint file from its first bytes.
pub(crate) fn version(buf: &[u8]) -> Result<u32, &'static str> {
    if buf.len() < 12 || buf[..8] != MAGIC {
        return Err("not a checkpoint");
    }
    read_u32(buf, 8).ok_or("short")
}

/// Decode and verify a version-1 checkpoint. `Err` carries a reason; a bad
/// checkpoint is never fatal (the caller falls back to replaying the log).
pub(crate) fn decode_v1(buf: &[u8], shard_count: usize) -> Result<Checkpoint, &'static str> {
    if buf.len() < FIXED_LEN + 4 || buf[..8] != MAGIC {
        return Err("not a checkpoint");
    }
    let (body, trailer) = buf.split_at(buf.len() - 4);
    if crate::format::crc::crc32(body) != read_u32(trailer, 0).ok_or("short")? {
        return Err("checkpoint checksum mismatch");
    }
    if read_u32(body, 8) != Some(VERSION_1) {
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
                .collect::<Vec<u64>>();
            at += cap * 8;
            shards.push(ShardImage {
                len,
                entries: entries.into(),
            });
        }
        namespaces.push(NsImage {
            id,
            name,
            live_bytes,
            expiring,
            shards,
            sorted: None,
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

// ---- version 2: the mapped image ------------------------------------------

/// Page size of the version-2 layout: the header page, the alignment of the
/// slot pages, and the unit each page CRC covers.
pub(crate) const PAGE: usize = 4096;
/// Bytes of a slot.
const SLOT: usize = 8;
/// Bytes of the version-2 header covered by its CRC.
const HEADER_V2_CRC_AT: usize = 100;
/// Bytes of the version-2 header, CRC included; the rest of its page is zeros.
pub(crate) const HEADER_V2_LEN: usize = HEADER_V2_CRC_AT + 4;
/// Bytes of one shard's entry in the namespace table.
const SHARD_ENTRY: usize = 16;
/// Largest shard table (24-bit tags pick the home slot).
const MAX_TABLE_SLOTS: usize = 1 << 24;

/// The fixed fields of a version-2 checkpoint (docs/FORMAT.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeaderV2 {
    pub binding: Binding,
    pub ns_count: u32,
    pub next_ns_id: u32,
    /// Bytes of the namespace table (which starts at [`PAGE`]).
    pub table_len: u64,
    /// File offset of the first slot page.
    pub pages_at: u64,
    /// Number of slot pages.
    pub page_count: u64,
    /// File offset of the page CRC table.
    pub crcs_at: u64,
    /// CRC of the namespace table.
    pub table_crc: u32,
}

impl HeaderV2 {
    /// Total file length this header describes.
    pub(crate) fn file_len(&self) -> Option<u64> {
        self.crcs_at.checked_add(self.page_count.checked_mul(4)?)
    }

    /// The header page.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(PAGE);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION_2.to_le_bytes());
        out.extend_from_slice(&self.ns_count.to_le_bytes());
        out.extend_from_slice(&self.binding.db_id);
        out.extend_from_slice(&self.binding.generation.to_le_bytes());
        out.extend_from_slice(&self.binding.covered_end.to_le_bytes());
        out.extend_from_slice(&self.binding.last_frame_at.to_le_bytes());
        out.extend_from_slice(&self.binding.last_frame_crc.to_le_bytes());
        out.extend_from_slice(&self.next_ns_id.to_le_bytes());
        out.extend_from_slice(&self.table_len.to_le_bytes());
        out.extend_from_slice(&self.pages_at.to_le_bytes());
        out.extend_from_slice(&self.page_count.to_le_bytes());
        out.extend_from_slice(&self.crcs_at.to_le_bytes());
        out.extend_from_slice(&self.table_crc.to_le_bytes());
        debug_assert_eq!(out.len(), HEADER_V2_CRC_AT);
        let crc = crate::format::crc::crc32(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out.resize(PAGE, 0);
        out
    }

    /// Decode and check a header page; `file_len` is the file's length.
    pub(crate) fn decode(page: &[u8], file_len: u64) -> Result<HeaderV2, &'static str> {
        if version(page)? != VERSION_2 {
            return Err("not a version-2 checkpoint");
        }
        let stored = read_u32(page, HEADER_V2_CRC_AT).ok_or("short checkpoint header")?;
        if crate::format::crc::crc32(&page[..HEADER_V2_CRC_AT]) != stored {
            return Err("checkpoint header checksum mismatch");
        }
        let u64_at = |at| read_u64(page, at).ok_or("short checkpoint header");
        let u32_at = |at| read_u32(page, at).ok_or("short checkpoint header");
        let mut db_id = [0u8; 16];
        db_id.copy_from_slice(page.get(16..32).ok_or("short checkpoint header")?);
        let h = HeaderV2 {
            binding: Binding {
                db_id,
                generation: u64_at(32)?,
                covered_end: u64_at(40)?,
                last_frame_at: u64_at(48)?,
                last_frame_crc: u32_at(56)?,
            },
            ns_count: u32_at(12)?,
            next_ns_id: u32_at(60)?,
            table_len: u64_at(64)?,
            pages_at: u64_at(72)?,
            page_count: u64_at(80)?,
            crcs_at: u64_at(88)?,
            table_crc: u32_at(96)?,
        };
        let table_end = (PAGE as u64)
            .checked_add(h.table_len)
            .ok_or("bad table length")?;
        let pages_end = h
            .page_count
            .checked_mul(PAGE as u64)
            .and_then(|b| b.checked_add(h.pages_at))
            .ok_or("bad page count")?;
        if !h.pages_at.is_multiple_of(PAGE as u64)
            || h.pages_at < table_end
            || h.crcs_at != pages_end
            || h.file_len() != Some(file_len)
        {
            return Err("checkpoint layout does not match its length");
        }
        Ok(h)
    }
}

/// Where one shard's slots are in a version-2 file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct ShardPlace {
    /// Slots (0 or a power of two).
    pub cap: u32,
    /// Filled slots.
    pub len: u32,
    /// File offset of the first slot (0 when `cap` is 0).
    pub at: u64,
}

/// One namespace's entry in the version-2 namespace table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NsMeta {
    pub id: u32,
    pub name: Vec<u8>,
    pub live_bytes: u64,
    pub expiring: u64,
    /// Where the sorted block is, if stored.
    pub sorted: Option<SortedPlace>,
    pub shards: Vec<ShardPlace>,
}

/// Where a namespace's sorted block is in a version-2 file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct SortedPlace {
    /// Offsets stored (8 bytes each).
    pub len: u64,
    /// File offset of the first (a page boundary inside the slot pages).
    pub at: u64,
}

/// Encode the namespace table.
pub(crate) fn encode_table(metas: &[NsMeta]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in metas {
        out.extend_from_slice(&m.id.to_le_bytes());
        out.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
        out.extend_from_slice(&m.name);
        out.extend_from_slice(&m.live_bytes.to_le_bytes());
        out.extend_from_slice(&m.expiring.to_le_bytes());
        let sorted = m.sorted.unwrap_or_default();
        out.extend_from_slice(&sorted.len.to_le_bytes());
        out.extend_from_slice(&sorted.at.to_le_bytes());
        for s in &m.shards {
            out.extend_from_slice(&s.cap.to_le_bytes());
            out.extend_from_slice(&s.len.to_le_bytes());
            out.extend_from_slice(&s.at.to_le_bytes());
        }
    }
    out
}

/// Bytes a sealed namespace table adds to the plain one (nonce and AEAD tag,
/// `crate::crypto::SEAL_OVERHEAD`).
pub(crate) const TABLE_SEAL_OVERHEAD: u64 = 12 + 16;

/// Associated data of an encrypted database's sealed namespace table: a
/// label and the header's bytes `0..96` (all but the two CRCs), binding
/// the table to the log and to the layout it describes (docs/FORMAT.md).
pub(crate) fn table_aad(h: &HeaderV2) -> Vec<u8> {
    let mut aad = b"emdb-ckpt-table-v2".to_vec();
    aad.extend_from_slice(&h.encode()[..96]);
    aad
}

/// Offsets per chunk of an encrypted database's sealed sorted block: one
/// chunk per page, with its nonce and tag (docs/FORMAT.md).
pub(crate) const SORTED_CHUNK: usize = (PAGE - TABLE_SEAL_OVERHEAD as usize) / SLOT;

/// Bytes a sorted block of `len` offsets takes in the slot pages: 8 per
/// offset, or whole pages of sealed chunks.
pub(crate) fn sorted_block_len(len: u64, sealed: bool) -> Option<u64> {
    match sealed {
        false => len.checked_mul(SLOT as u64),
        true => len.div_ceil(SORTED_CHUNK as u64).checked_mul(PAGE as u64),
    }
}

/// Associated data of chunk `chunk` of a sealed sorted block: a label,
/// the header's bytes `0..96` (as [`table_aad`]), the namespace id, the
/// block's length and the chunk's index, so a chunk cannot be moved to
/// another place, namespace or checkpoint.
pub(crate) fn sorted_aad(h: &HeaderV2, ns_id: u32, len: u64, chunk: u64) -> Vec<u8> {
    let mut aad = sorted_aad_prefix(h, ns_id, len);
    aad.extend_from_slice(&chunk.to_le_bytes());
    aad
}

/// [`sorted_aad`] without the chunk index (which a reader appends).
pub(crate) fn sorted_aad_prefix(h: &HeaderV2, ns_id: u32, len: u64) -> Vec<u8> {
    let mut aad = b"emdb-ckpt-sorted-v2".to_vec();
    aad.extend_from_slice(&h.encode()[..96]);
    aad.extend_from_slice(&ns_id.to_le_bytes());
    aad.extend_from_slice(&len.to_le_bytes());
    aad
}

/// Append chunk `chunk` of the sealed sorted block of namespace `ns_id`
/// (`len` offsets in all) to `out`: `plain`, its offsets as little-endian
/// bytes (at most [`SORTED_CHUNK`] of them), sealed by `seal` (associated
/// data, plain bytes) and padded with zeros to its page.
pub(crate) fn seal_sorted_chunk<E>(
    h: &HeaderV2,
    ns_id: u32,
    len: u64,
    chunk: u64,
    plain: &[u8],
    mut seal: impl FnMut(&[u8], &[u8]) -> Result<Vec<u8>, E>,
    out: &mut Vec<u8>,
) -> Result<(), E> {
    debug_assert!(plain.len() <= SORTED_CHUNK * SLOT && plain.len().is_multiple_of(SLOT));
    let sealed = seal(&sorted_aad(h, ns_id, len, chunk), plain)?;
    debug_assert!(sealed.len() <= PAGE);
    let page_end = out.len() + PAGE;
    out.extend_from_slice(&sealed);
    out.resize(page_end, 0);
    Ok(())
}

/// Check the stored namespace table (sealed or not) against its CRC.
pub(crate) fn check_table_crc(table: &[u8], h: &HeaderV2) -> Result<(), &'static str> {
    if crate::format::crc::crc32(table) != h.table_crc {
        return Err("checkpoint namespace table checksum mismatch");
    }
    Ok(())
}

/// Decode and check a plain namespace table against `h`: its CRC, then
/// [`parse_table`].
pub(crate) fn decode_table(
    table: &[u8],
    h: &HeaderV2,
    shard_count: usize,
) -> Result<Vec<NsMeta>, &'static str> {
    check_table_crc(table, h)?;
    parse_table(table, h, shard_count, false)
}

/// Decode and check the (plain, CRC-checked or authenticated) namespace
/// table against `h`: sizes consistent, every shard's slots inside the slot
/// pages, aligned so that a table of up to a page never straddles two
/// pages, and no two blocks overlapping. `sealed`: the table of an
/// encrypted database, whose sorted blocks are sealed chunks.
pub(crate) fn parse_table(
    table: &[u8],
    h: &HeaderV2,
    shard_count: usize,
    sealed: bool,
) -> Result<Vec<NsMeta>, &'static str> {
    let mut metas = Vec::with_capacity((h.ns_count as usize).min(1024));
    let mut at = 0usize;
    // (start, len) of every block: a shared block once, each private table.
    let mut blocks: Vec<(u64, u64)> = Vec::new();
    let mut shared_blocks: Vec<(u64, u64)> = Vec::new();
    let pages_end = h.crcs_at;
    for _ in 0..h.ns_count {
        let id = read_u32(table, at).ok_or("short table")?;
        let name_len = usize::from(u16::from_le_bytes(
            table
                .get(at + 4..at + 6)
                .ok_or("short table")?
                .try_into()
                .map_err(|_| "short table")?,
        ));
        at += 6;
        let name = table.get(at..at + name_len).ok_or("short table")?.to_vec();
        at += name_len;
        let live_bytes = read_u64(table, at).ok_or("short table")?;
        let expiring = read_u64(table, at + 8).ok_or("short table")?;
        let sorted_len = read_u64(table, at + 16).ok_or("short table")?;
        let sorted_at = read_u64(table, at + 24).ok_or("short table")?;
        at += 32;
        let sorted = if sorted_at == 0 {
            if sorted_len != 0 {
                return Err("bad sorted block");
            }
            None
        } else {
            let bytes = sorted_block_len(sorted_len, sealed).ok_or("bad sorted block")?;
            let end = sorted_at.checked_add(bytes).ok_or("bad sorted block")?;
            if !sorted_at.is_multiple_of(PAGE as u64) || sorted_at < h.pages_at || end > pages_end {
                return Err("sorted block outside the slot pages");
            }
            if bytes != 0 {
                blocks.push((sorted_at, bytes));
            }
            Some(SortedPlace {
                len: sorted_len,
                at: sorted_at,
            })
        };
        let mut shards = Vec::with_capacity(shard_count);
        for i in 0..shard_count {
            let cap = read_u32(table, at).ok_or("short table")?;
            let len = read_u32(table, at + 4).ok_or("short table")?;
            let place = read_u64(table, at + 8).ok_or("short table")?;
            at += SHARD_ENTRY;
            if cap == 0 {
                if len != 0 || place != 0 {
                    return Err("bad shard table size");
                }
                shards.push(ShardPlace::default());
                continue;
            }
            if !cap.is_power_of_two() || len >= cap || cap as usize > MAX_TABLE_SLOTS {
                return Err("bad shard table size");
            }
            let bytes = u64::from(cap) * SLOT as u64;
            let end = place
                .checked_add(bytes)
                .ok_or("shard outside the slot pages")?;
            if place < h.pages_at || end > pages_end {
                return Err("shard outside the slot pages");
            }
            if shared(cap as usize, shard_count) {
                let start = place
                    .checked_sub(i as u64 * bytes)
                    .ok_or("shard outside its block")?;
                if !start.is_multiple_of(PAGE as u64) || start < h.pages_at {
                    return Err("misaligned shared block");
                }
                let len = bytes * shard_count as u64;
                if start.checked_add(len).is_none_or(|e| e > pages_end) {
                    return Err("shared block outside the slot pages");
                }
                // A shared block is listed once, however many shards use it.
                if !shared_blocks.contains(&(start, len)) {
                    shared_blocks.push((start, len));
                    blocks.push((start, len));
                }
            } else {
                if !place.is_multiple_of(bytes.min(PAGE as u64)) {
                    return Err("misaligned shard table");
                }
                blocks.push((place, bytes));
            }
            shards.push(ShardPlace {
                cap,
                len,
                at: place,
            });
        }
        metas.push(NsMeta {
            id,
            name,
            live_bytes,
            expiring,
            sorted,
            shards,
        });
    }
    if at != table.len() {
        return Err("trailing bytes in checkpoint table");
    }
    blocks.sort_unstable();
    if blocks.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0) {
        return Err("overlapping blocks in checkpoint");
    }
    Ok(metas)
}

/// Whether shards of `cap` slots share one block (the index's arena rule:
/// `index::arena::is_shared` with the same threshold).
pub(crate) fn shared(cap: usize, shard_count: usize) -> bool {
    shard_count.saturating_mul(cap).saturating_mul(SLOT) >= 2 << 20
}

/// What goes into one block of slot pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockKind {
    /// Every shard of namespace `ns` with `cap` slots, shard `i` at `i * cap`.
    Shared { ns: usize, cap: usize },
    /// Shard `shard` of namespace `ns` alone.
    Private { ns: usize, shard: usize },
    /// The sorted block of namespace `ns`.
    Sorted { ns: usize },
}

/// A block of slots and its file offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub at: u64,
    pub kind: BlockKind,
}

/// The layout of a version-2 file for a set of index images.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub header: HeaderV2,
    pub table: Vec<u8>,
    /// Blocks in file order, each starting where the previous one ended
    /// (plus alignment padding).
    pub blocks: Vec<Block>,
}

/// Lay out the images: header page, table, shared blocks (page-aligned),
/// private tables largest first (so each is aligned to its own size without
/// padding), then the page CRCs. `table_crc` is filled in; the caller
/// computes the page CRCs while writing. With `sealed`, room is left for
/// the sealed table (`table_len` is the sealed length) and the caller seals
/// `table` and sets `table_crc` ([`Plan::seal_table`]).
pub(crate) fn plan(binding: Binding, next_ns_id: u32, images: &[NsImage], sealed: bool) -> Plan {
    let shard_count = images.first().map_or(0, |n| n.shards.len());
    // Placeholders sized like the real table, to know where pages start.
    let mut metas: Vec<NsMeta> = images
        .iter()
        .map(|n| NsMeta {
            id: n.id,
            name: n.name.clone(),
            live_bytes: n.live_bytes,
            expiring: n.expiring,
            sorted: None,
            shards: vec![ShardPlace::default(); n.shards.len()],
        })
        .collect();
    let overhead = if sealed { TABLE_SEAL_OVERHEAD } else { 0 };
    let table_len = encode_table(&metas).len() as u64 + overhead;
    let pages_at = (PAGE as u64 + table_len).next_multiple_of(PAGE as u64);
    let mut at = pages_at;
    let mut blocks = Vec::new();
    for (ni, n) in images.iter().enumerate() {
        let mut caps: Vec<usize> = n
            .shards
            .iter()
            .map(|s| s.entries.len())
            .filter(|&c| c != 0 && shared(c, shard_count))
            .collect();
        caps.sort_unstable();
        caps.dedup();
        for cap in caps {
            at = at.next_multiple_of(PAGE as u64);
            blocks.push(Block {
                at,
                kind: BlockKind::Shared { ns: ni, cap },
            });
            for (si, s) in n.shards.iter().enumerate() {
                if s.entries.len() == cap {
                    metas[ni].shards[si] = ShardPlace {
                        cap: cap as u32,
                        len: s.len,
                        at: at + (si * cap * SLOT) as u64,
                    };
                }
            }
            at += (shard_count * cap * SLOT) as u64;
        }
    }
    let mut private: Vec<(usize, usize, usize)> = images
        .iter()
        .enumerate()
        .flat_map(|(ni, n)| {
            n.shards
                .iter()
                .enumerate()
                .map(move |(si, s)| (s.entries.len(), ni, si))
        })
        .filter(|&(c, _, _)| c != 0 && !shared(c, shard_count))
        .collect();
    private.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    at = at.next_multiple_of(PAGE as u64);
    for (cap, ni, si) in private {
        // Sizes are powers of two placed largest first from a page boundary:
        // each lands aligned to its own size.
        blocks.push(Block {
            at,
            kind: BlockKind::Private { ns: ni, shard: si },
        });
        metas[ni].shards[si] = ShardPlace {
            cap: cap as u32,
            len: images[ni].shards[si].len,
            at,
        };
        at += (cap * SLOT) as u64;
    }
    // Sorted blocks, each from a page boundary.
    for (ni, n) in images.iter().enumerate() {
        let Some(sorted) = &n.sorted else { continue };
        at = at.next_multiple_of(PAGE as u64);
        if sorted.len() != 0 {
            blocks.push(Block {
                at,
                kind: BlockKind::Sorted { ns: ni },
            });
        }
        // An empty block still names a page boundary: `at` 0 means "absent".
        metas[ni].sorted = Some(SortedPlace {
            len: sorted.len() as u64,
            at: at.max(pages_at),
        });
        at += sorted_block_len(sorted.len() as u64, sealed).unwrap_or(0);
    }
    let crcs_at = at.next_multiple_of(PAGE as u64);
    let table = encode_table(&metas);
    debug_assert_eq!(table.len() as u64 + overhead, table_len);
    Plan {
        header: HeaderV2 {
            binding,
            ns_count: images.len() as u32,
            next_ns_id,
            table_len,
            pages_at,
            page_count: (crcs_at - pages_at) / PAGE as u64,
            crcs_at,
            table_crc: crate::format::crc::crc32(&table),
        },
        table,
        blocks,
    }
}

impl Plan {
    /// Replace the plain table by its sealed form, made by `seal` from the
    /// table's associated data ([`table_aad`]) and the plain table; the
    /// length must be what [`plan`] left room for.
    pub(crate) fn seal_table<E>(
        &mut self,
        seal: impl FnOnce(&[u8], &[u8]) -> Result<Vec<u8>, E>,
    ) -> Result<(), E> {
        let sealed = seal(&table_aad(&self.header), &self.table)?;
        debug_assert_eq!(sealed.len() as u64, self.header.table_len);
        self.header.table_crc = crate::format::crc::crc32(&sealed);
        self.table = sealed;
        Ok(())
    }
}

/// The bytes of a block, appended to `out`.
pub(crate) fn block_bytes(images: &[NsImage], kind: BlockKind, out: &mut Vec<u8>) {
    fn put(out: &mut Vec<u8>, entries: impl Iterator<Item = u64>) {
        for e in entries {
            out.extend_from_slice(&e.to_le_bytes());
        }
    }
    match kind {
        BlockKind::Shared { ns, cap } => {
            for s in &images[ns].shards {
                if s.entries.len() == cap {
                    put(out, s.entries.iter());
                } else {
                    out.resize(out.len() + cap * SLOT, 0);
                }
            }
        }
        BlockKind::Private { ns, shard } => put(out, images[ns].shards[shard].entries.iter()),
        // A patch is streamed by the writer (`crate::checkpoint`).
        BlockKind::Sorted { ns } => {
            if let Some(SortedBlock::Offsets(o)) = &images[ns].sorted {
                put(out, o.iter().copied());
            }
        }
    }
}

/// A whole version-2 file in memory (tests and small tools; the engine
/// streams it with `crate::checkpoint`).
#[cfg(test)]
pub(crate) fn encode_v2(binding: Binding, next_ns_id: u32, images: &[NsImage]) -> Vec<u8> {
    let p = plan(binding, next_ns_id, images, false);
    let mut out = p.header.encode();
    out.extend_from_slice(&p.table);
    for b in &p.blocks {
        out.resize(b.at as usize, 0);
        block_bytes(images, b.kind, &mut out);
    }
    out.resize(p.header.crcs_at as usize, 0);
    let crcs: Vec<u8> = out[p.header.pages_at as usize..]
        .chunks(PAGE)
        .flat_map(|c| crate::format::crc::crc32(c).to_le_bytes())
        .collect();
    out.extend_from_slice(&crcs);
    out
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
                        entries: vec![0, 4096, 0, 0].into(),
                    },
                    ShardImage::default(),
                ],
                sorted: None,
            }],
        }
    }

    #[test]
    fn round_trips() {
        let cp = sample();
        let bytes = encode_v1(&cp);
        assert_eq!(bytes.len(), encoded_len(&cp.namespaces));
        assert_eq!(decode_v1(&bytes, 2), Ok(cp));
    }

    #[test]
    fn any_damage_is_rejected() {
        let bytes = encode_v1(&sample());
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert!(decode_v1(&b, 2).is_err(), "flip at {i}");
        }
        for cut in 0..bytes.len() {
            assert!(decode_v1(&bytes[..cut], 2).is_err(), "cut at {cut}");
        }
    }

    fn images_v2() -> Vec<NsImage> {
        // Namespace 0: every shard at 2048 slots (a shared block) but shard 3
        // at 1024 (another shared block); namespace 7: small private tables.
        let big = |cap: usize, i: usize| ShardImage {
            len: 1,
            entries: (0..cap)
                .map(|j| if j == i % cap { 4096 + i as u64 } else { 0 })
                .collect::<Vec<u64>>()
                .into(),
        };
        let ns0 = NsImage {
            id: 0,
            name: Vec::new(),
            live_bytes: 10,
            expiring: 1,
            shards: (0..256)
                .map(|i| if i == 3 { big(1024, i) } else { big(2048, i) })
                .collect(),
            sorted: None,
        };
        let ns7 = NsImage {
            id: 7,
            name: b"users".to_vec(),
            live_bytes: 20,
            expiring: 0,
            shards: (0..256)
                .map(|i| match i % 3 {
                    0 => ShardImage::default(),
                    1 => big(16, i),
                    _ => big(256, i),
                })
                .collect(),
            // Over a page of offsets: the block spans two pages.
            sorted: Some(SortedBlock::Offsets(
                (0..700u64).map(|i| 4096 + i * 40).collect(),
            )),
        };
        vec![ns0, ns7]
    }

    fn binding() -> Binding {
        Binding {
            db_id: [9; 16],
            generation: 4,
            covered_end: 1 << 20,
            last_frame_at: 1000,
            last_frame_crc: 5,
        }
    }

    #[test]
    fn v2_round_trips_and_places_every_shard_where_its_slots_are() {
        let images = images_v2();
        let file = encode_v2(binding(), 8, &images);
        assert_eq!(version(&file), Ok(VERSION_2));
        let h = HeaderV2::decode(&file[..PAGE], file.len() as u64).unwrap();
        assert_eq!(h.binding, binding());
        assert_eq!(h.next_ns_id, 8);
        let table = &file[PAGE..PAGE + h.table_len as usize];
        let metas = decode_table(table, &h, 256).unwrap();
        assert_eq!(metas.len(), 2);
        for (m, img) in metas.iter().zip(&images) {
            assert_eq!(
                (m.id, &m.name, m.live_bytes, m.expiring),
                (img.id, &img.name, img.live_bytes, img.expiring)
            );
            for (p, s) in m.shards.iter().zip(&img.shards) {
                assert_eq!(p.cap as usize, s.entries.len());
                assert_eq!(p.len, s.len);
                let at = p.at as usize;
                let stored: Vec<u64> = file[at..at + s.entries.len() * 8]
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                    .collect();
                assert_eq!(stored, s.entries.to_vec());
                if s.entries.len() <= 512 && s.entries.len() != 0 {
                    // A private table never straddles two pages.
                    assert_eq!(at / PAGE, (at + s.entries.len() * 8 - 1) / PAGE);
                }
            }
            match (&m.sorted, &img.sorted) {
                (None, None) => {}
                (Some(p), Some(SortedBlock::Offsets(want))) => {
                    assert_eq!(p.len as usize, want.len());
                    assert_eq!(p.at % PAGE as u64, 0);
                    let at = p.at as usize;
                    let stored: Vec<u64> = file[at..at + want.len() * 8]
                        .chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                        .collect();
                    assert_eq!(&stored[..], &want[..]);
                }
                other => panic!("sorted block mismatch: {other:?}"),
            }
        }
        // Every page's CRC is right.
        for p in 0..h.page_count as usize {
            let page = &file[h.pages_at as usize + p * PAGE..][..PAGE];
            let crc = read_u32(&file, h.crcs_at as usize + p * 4).unwrap();
            assert_eq!(crate::format::crc::crc32(page), crc, "page {p}");
        }
    }

    #[test]
    fn v2_header_and_table_damage_is_rejected() {
        let file = encode_v2(binding(), 8, &images_v2());
        let h = HeaderV2::decode(&file[..PAGE], file.len() as u64).unwrap();
        for i in 0..104 {
            let mut b = file[..PAGE].to_vec();
            b[i] ^= 0x01;
            assert!(
                HeaderV2::decode(&b, file.len() as u64).is_err(),
                "header byte {i}"
            );
        }
        assert!(HeaderV2::decode(&file[..PAGE], file.len() as u64 - 1).is_err());
        let table = file[PAGE..PAGE + h.table_len as usize].to_vec();
        for i in (0..table.len()).step_by(7) {
            let mut t = table.clone();
            t[i] ^= 0x08;
            assert!(decode_table(&t, &h, 256).is_err(), "table byte {i}");
        }
    }

    #[test]
    fn v2_rejects_overlapping_or_misplaced_shards_even_with_a_valid_crc() {
        let file = encode_v2(binding(), 8, &images_v2());
        let h = HeaderV2::decode(&file[..PAGE], file.len() as u64).unwrap();
        let mut metas = decode_table(&file[PAGE..PAGE + h.table_len as usize], &h, 256).unwrap();
        let reseal = |metas: &[NsMeta]| {
            let t = encode_table(metas);
            let mut h2 = h;
            h2.table_crc = crate::format::crc::crc32(&t);
            (h2, t)
        };
        // Two private tables on the same bytes.
        let a = metas[1].shards[1].at;
        metas[1].shards[4].at = a;
        let (h2, t) = reseal(&metas);
        assert!(decode_table(&t, &h2, 256).is_err());
        // A table past the slot pages.
        let mut m2 = decode_table(&file[PAGE..PAGE + h.table_len as usize], &h, 256).unwrap();
        m2[1].shards[1].at = h.crcs_at;
        let (h2, t) = reseal(&m2);
        assert!(decode_table(&t, &h2, 256).is_err());
        // A full table (len == cap).
        let mut m3 = decode_table(&file[PAGE..PAGE + h.table_len as usize], &h, 256).unwrap();
        m3[1].shards[1].len = 16;
        let (h2, t) = reseal(&m3);
        assert!(decode_table(&t, &h2, 256).is_err());
        // A sorted block over a shard table, past the pages, or off a page boundary.
        let fresh = || decode_table(&file[PAGE..PAGE + h.table_len as usize], &h, 256).unwrap();
        for bad in [
            metas[1].shards[2].at - metas[1].shards[2].at % PAGE as u64,
            h.crcs_at,
            fresh()[1].sorted.unwrap().at + 8,
        ] {
            let mut m4 = fresh();
            m4[1].sorted = Some(SortedPlace { len: 700, at: bad });
            let (h2, t) = reseal(&m4);
            assert!(decode_table(&t, &h2, 256).is_err(), "sorted block at {bad}");
        }
        // Absent means length 0 too.
        let mut m5 = fresh();
        m5[1].sorted = Some(SortedPlace { len: 3, at: 0 });
        let (h2, t) = reseal(&m5);
        assert!(decode_table(&t, &h2, 256).is_err());
    }
}
