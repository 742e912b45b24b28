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
