//! Entry points for fuzz targets (feature `fuzzing`; not a stable API).
//! Each takes arbitrary bytes and must never panic.

use crate::format::{checkpoint, header, record};

/// Decode one record frame; returns its encoded length when valid.
pub fn decode_record(bytes: &[u8]) -> Option<usize> {
    record::decode(bytes).ok().map(|f| f.len)
}

/// Build a CRC-valid frame from parts, for structure-aware fuzzing:
/// `(kind 1..=6, namespace, expiry, key, value)`.
pub fn encode_record(kind: u8, ns: u32, expires_at: u64, key: &[u8], value: &[u8]) -> Vec<u8> {
    let kind = match kind % 6 {
        0 => record::Kind::Put,
        1 => record::Kind::Delete,
        2 => record::Kind::BatchBegin,
        3 => record::Kind::NamespaceCreate,
        4 => record::Kind::NamespaceDrop,
        _ => record::Kind::Clear,
    };
    let spec = record::FrameSpec {
        kind,
        ns,
        expires_at,
        key,
        value,
    };
    let mut v = vec![0u8; spec.encoded_len()];
    spec.encode_into(&mut v);
    v
}

/// Decode a file header page (identity and sync slots).
pub fn decode_header(bytes: &[u8]) -> bool {
    let _ = header::SyncSlot::newest(bytes);
    header::Identity::decode(bytes).is_ok()
}

/// Decode a checkpoint file: version 1 whole, version 2 its header page and
/// namespace table (the slot pages are checked page by page when used).
pub fn decode_checkpoint(bytes: &[u8]) -> bool {
    match checkpoint::version(bytes) {
        Ok(checkpoint::VERSION_1) => checkpoint::decode_v1(bytes, crate::index::SHARDS).is_ok(),
        Ok(checkpoint::VERSION_2) => {
            let Ok(h) = checkpoint::HeaderV2::decode(bytes, bytes.len() as u64) else {
                return false;
            };
            let table = usize::try_from(h.table_len)
                .ok()
                .and_then(|n| bytes.get(checkpoint::PAGE..checkpoint::PAGE.checked_add(n)?));
            table.is_some_and(|t| checkpoint::decode_table(t, &h, crate::index::SHARDS).is_ok())
        }
        _ => false,
    }
}

/// Replay a whole log image (header page first) the way open does, in
/// salvage mode and not; returns the recovered end of each.
pub fn replay_log(bytes: &[u8]) -> (Option<u64>, Option<u64>) {
    let run = |salvage: bool| {
        let slot = header::SyncSlot::newest(bytes);
        let mut table = crate::namespace::NsTable::new(None);
        let mut report = crate::recovery::RecoveryReport::default();
        crate::recovery::replay(
            bytes,
            header::HEADER_SIZE as u64,
            slot.durable_end,
            salvage,
            None,
            &mut table,
            &mut report,
        )
        .ok()
        .map(|r| r.end)
    };
    if bytes.len() < header::HEADER_SIZE {
        return (None, None);
    }
    (run(false), run(true))
}

/// The version-1 encoding of a version-2 checkpoint file (same binding,
/// namespaces and slots), so fuzz targets can exercise the version-1 loader
/// on a checkpoint the engine wrote; `None` if `v2` does not decode.
pub fn checkpoint_v2_to_v1(v2: &[u8]) -> Option<Vec<u8>> {
    use checkpoint::{NsImage, ShardImage, PAGE};
    let h = checkpoint::HeaderV2::decode(v2, v2.len() as u64).ok()?;
    let table = v2.get(PAGE..PAGE.checked_add(usize::try_from(h.table_len).ok()?)?)?;
    let metas = checkpoint::decode_table(table, &h, crate::index::SHARDS).ok()?;
    let namespaces = metas
        .into_iter()
        .map(|m| {
            let shards = m
                .shards
                .iter()
                .map(|p| {
                    let at = usize::try_from(p.at).ok()?;
                    let bytes = v2.get(at..at.checked_add(p.cap as usize * 8)?)?;
                    Some(ShardImage {
                        len: p.len,
                        entries: bytes
                            .chunks_exact(8)
                            .map(|c| {
                                let mut a = [0u8; 8];
                                a.copy_from_slice(c);
                                u64::from_le_bytes(a)
                            })
                            .collect::<Vec<u64>>()
                            .into(),
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            Some(NsImage {
                id: m.id,
                name: m.name,
                live_bytes: m.live_bytes,
                expiring: m.expiring,
                shards,
                sorted: None,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(checkpoint::encode_v1(&checkpoint::Checkpoint {
        binding: h.binding,
        next_ns_id: h.next_ns_id,
        namespaces,
    }))
}

/// Recompute every checksum of a version-2 checkpoint file in place (page
/// CRCs, table CRC, header CRC) after a fuzzer changed its bytes, so the
/// loader's structural checks and the index's use of the slots are reached.
/// Does nothing when the header's layout fields no longer fit the file.
pub fn reseal_checkpoint_v2(file: &mut [u8]) {
    use checkpoint::PAGE;
    let field = |b: &[u8], at: usize| crate::format::read_u64(b, at).map(|v| v as usize);
    let (Some(table_len), Some(pages_at), Some(page_count), Some(crcs_at)) = (
        field(file, 64),
        field(file, 72),
        field(file, 80),
        field(file, 88),
    ) else {
        return;
    };
    let fits = PAGE.checked_add(table_len).is_some_and(|e| e <= pages_at)
        && page_count
            .checked_mul(PAGE)
            .and_then(|n| n.checked_add(pages_at))
            .is_some_and(|e| e == crcs_at)
        && page_count
            .checked_mul(4)
            .and_then(|n| n.checked_add(crcs_at))
            .is_some_and(|e| e <= file.len());
    if !fits {
        return;
    }
    for p in 0..page_count {
        let crc = crate::format::crc::crc32(&file[pages_at + p * PAGE..pages_at + (p + 1) * PAGE]);
        file[crcs_at + p * 4..crcs_at + p * 4 + 4].copy_from_slice(&crc.to_le_bytes());
    }
    let t = crate::format::crc::crc32(&file[PAGE..PAGE + table_len]);
    file[96..100].copy_from_slice(&t.to_le_bytes());
    let h = crate::format::crc::crc32(&file[..100]);
    file[100..104].copy_from_slice(&h.to_le_bytes());
}

/// Recompute every checksum of a tail index file (`<db>.tail`) in place
/// after a fuzzer changed its bytes, so the reader's use of its slots and
/// sorted offsets is reached (docs/FORMAT.md, "Tail index file").
pub fn reseal_tail_index(file: &mut [u8]) {
    crate::tail_index::reseal(file);
}

/// A tail index file bound like the valid one `like` (same checkpoint, same
/// end and last frame) holding `entries` (key hash, frame offset; offsets
/// not 0), `sorted` (as many frame offsets, in the order given) and the
/// count section `counts` (namespace id, live keys, live bytes, expiring
/// keys; in the order given), every checksum right; `None` when `like`
/// does not decode or the entries and sorted offsets differ in number.
pub fn forge_tail_index(
    like: &[u8],
    entries: &[(u64, u64)],
    sorted: &[u64],
    counts: &[(u32, u64, u64, u64)],
) -> Option<Vec<u8>> {
    let counts: Vec<crate::tail_index::NsCounts> = counts
        .iter()
        .map(
            |&(ns, live, live_bytes, expiring)| crate::tail_index::NsCounts {
                ns,
                live,
                live_bytes,
                expiring,
            },
        )
        .collect();
    crate::tail_index::forge(like, entries, sorted, &counts)
}
