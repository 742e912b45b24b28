//! Open-time replay of the log, tail truncation, and the corruption rules.
//!
//! The log is read as a sequence of *units*: a single frame, or a
//! `BatchBegin` frame followed by exactly the frames it announces. A unit is
//! applied whole or not at all, which is what makes batches atomic.
//!
//! When a unit fails to decode at offset X:
//! - X at or past the durable end (the newest sync slot, or the checkpoint's
//!   covered end): nothing from X on was ever acknowledged as durable, so it
//!   is a torn tail and is cut off (reported when the bytes were not zeros);
//! - X before the durable end: acknowledged data is damaged. Open fails with
//!   `Error::Corruption { offset: X }`, unless salvaging, which skips to the
//!   next valid unit and reports the skipped range.

use crate::error::{Error, Result};
use crate::format::record::{self, Frame, Kind};
use crate::namespace::NsTable;

/// A range of the log that salvage skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkippedRange {
    /// Offset of the first damaged byte.
    pub offset: u64,
    /// Bytes skipped.
    pub len: u64,
}

/// What open found and did while recovering.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecoveryReport {
    /// True when an index checkpoint was loaded instead of replaying the
    /// whole log.
    pub used_checkpoint: bool,
    /// Why an existing checkpoint was not used, if there was one.
    pub checkpoint_rejected: Option<String>,
    /// Records (frames) replayed from the log.
    pub records_replayed: u64,
    /// Bytes of log replayed: everything past the checkpoint (the tail a
    /// clean close leaves is under 64 KiB), or the whole log without one.
    pub replayed_bytes: u64,
    /// Offset at which an incomplete, never-synced tail was cut off.
    pub truncated_tail_at: Option<u64>,
    /// Damaged ranges skipped in salvage mode.
    pub skipped: Vec<SkippedRange>,
    /// Records whose namespace was lost with a skipped range (salvage only).
    pub orphaned_records: u64,
}

impl RecoveryReport {
    /// True when recovery dropped anything (a torn tail or damaged ranges).
    pub fn lost_anything(&self) -> bool {
        self.truncated_tail_at.is_some() || !self.skipped.is_empty() || self.orphaned_records > 0
    }
}

/// Where replay stopped.
pub(crate) struct Replayed {
    /// End of the last good unit: the log's logical end.
    pub end: u64,
    /// Offset and stored CRC of the last frame before `end`.
    pub last_frame: Option<(u64, u32)>,
}

/// A decoded unit: its frames with their offsets, and its total length.
pub(crate) struct Unit<'a> {
    pub frames: Vec<(u64, Frame<'a>)>,
    pub len: u64,
}

/// Decode the unit at `at` within `bytes` (which start at offset 0).
pub(crate) fn decode_unit(bytes: &[u8], at: u64) -> Result<Unit<'_>, &'static str> {
    let start = usize::try_from(at).map_err(|_| "offset out of range")?;
    let buf = bytes.get(start..).ok_or("offset past the end")?;
    decode_unit_in(buf, at)
}

/// Decode the unit at the start of `buf`, which holds the log from offset `base`.
pub(crate) fn decode_unit_in(buf: &[u8], base: u64) -> Result<Unit<'_>, &'static str> {
    let first = record::decode(buf).map_err(|e| e.reason())?;
    if first.kind != Kind::BatchBegin {
        return Ok(Unit {
            len: first.len as u64,
            frames: vec![(base, first)],
        });
    }
    let (count, body_len) = first.batch_header().ok_or("bad batch header")?;
    let body_start = first.len;
    let body_end = usize::try_from(body_len)
        .ok()
        .and_then(|l| body_start.checked_add(l))
        .ok_or("batch length out of range")?;
    let body = buf
        .get(body_start..body_end)
        .ok_or("batch runs past the end of the file")?;
    let mut frames = Vec::with_capacity(usize::try_from(count).unwrap_or(0).min(1 << 20));
    let mut pos = 0usize;
    for _ in 0..count {
        let f = record::decode(&body[pos..]).map_err(|_| "damaged or incomplete batch")?;
        if !matches!(f.kind, Kind::Put | Kind::Delete) {
            return Err("batch holds a record kind batches may not hold");
        }
        frames.push((base + (body_start + pos) as u64, f));
        pos += f.len;
    }
    if pos != body.len() {
        return Err("batch length does not match its records");
    }
    Ok(Unit {
        frames,
        len: body_end as u64,
    })
}

/// Bytes a unit starting at the beginning of `buf` claims, when its header
/// decodes: lets a reader fetch a unit larger than its read buffer.
pub(crate) fn claimed_unit_len(buf: &[u8]) -> Option<u64> {
    if let Ok(first) = record::decode(buf) {
        if let Some((_, body_len)) = first.batch_header() {
            return (first.len as u64).checked_add(body_len);
        }
    }
    record::frame_head(buf).map(|(len, _)| len as u64)
}

/// Replay units from `start` into `ns` until the end of the valid log.
///
/// `bytes` is the whole file (offset 0 first). See the module docs for the
/// rules; `report` collects what was dropped.
pub(crate) fn replay(
    bytes: &[u8],
    start: u64,
    durable_end: u64,
    salvage: bool,
    ns: &mut NsTable,
    report: &mut RecoveryReport,
) -> Result<Replayed> {
    let mut at = start;
    let mut last_frame = None;
    let total = bytes.len() as u64;
    while at < total {
        match decode_unit(bytes, at) {
            Ok(unit) => {
                for (off, f) in &unit.frames {
                    match ns.apply(bytes, *off, f) {
                        Ok(()) => {}
                        Err(ApplyError::UnknownNamespace)
                            if salvage && !report.skipped.is_empty() =>
                        {
                            report.orphaned_records += 1;
                        }
                        Err(ApplyError::UnknownNamespace) => {
                            return Err(Error::corruption(
                                *off,
                                "record names a namespace that does not exist",
                            ));
                        }
                        Err(ApplyError::Engine(Error::Corruption { .. })) if salvage => {
                            // e.g. a frame found inside a skipped range's
                            // bytes that this database cannot hold.
                            report.orphaned_records += 1;
                        }
                        Err(ApplyError::Engine(e)) => return Err(e),
                    }
                    report.records_replayed += 1;
                    last_frame = Some((*off, stored_crc(bytes, *off)));
                }
                at += unit.len;
            }
            Err(reason) => {
                if at >= durable_end {
                    if !is_zero(bytes, at) {
                        report.truncated_tail_at = Some(at);
                    }
                    break;
                }
                if !salvage {
                    return Err(Error::corruption(at, reason));
                }
                match resync(bytes, at + 1) {
                    Some(next) => {
                        report.skipped.push(SkippedRange {
                            offset: at,
                            len: next - at,
                        });
                        at = next;
                    }
                    None => {
                        // Nothing valid follows: everything up to the last
                        // written (or last durable) byte is lost, in one range.
                        let lost_to = last_nonzero(bytes, at).max(durable_end.min(total));
                        report.skipped.push(SkippedRange {
                            offset: at,
                            len: lost_to - at,
                        });
                        if durable_end > lost_to {
                            report.skipped.push(SkippedRange {
                                offset: lost_to,
                                len: durable_end - lost_to,
                            });
                        }
                        return Ok(Replayed {
                            end: at,
                            last_frame,
                        });
                    }
                }
            }
        }
    }
    if let Some(lost) = short_of_durable(at, durable_end, salvage)? {
        report.skipped.push(lost);
    }
    Ok(Replayed {
        end: at.min(total),
        last_frame,
    })
}

/// The rule for where a log may end, the same for a writable open, a
/// read-only open and `verify`: every byte below the durable end (the
/// newest sync slot's, or what a checkpoint covers) was synced before that
/// end was recorded, so a log whose valid units stop at `end` below it lost
/// acknowledged data, even when it stops exactly between two records or
/// the rest reads as zeros. `Err` (corruption at `end`) unless salvaging,
/// which gets the lost range instead; `Ok(None)` when nothing is missing.
pub(crate) fn short_of_durable(
    end: u64,
    durable_end: u64,
    salvage: bool,
) -> Result<Option<SkippedRange>> {
    if end >= durable_end {
        return Ok(None);
    }
    if !salvage {
        return Err(Error::corruption(end, short_reason(end, durable_end)));
    }
    Ok(Some(SkippedRange {
        offset: end,
        len: durable_end - end,
    }))
}

/// What [`short_of_durable`] reports.
pub(crate) fn short_reason(end: u64, durable_end: u64) -> String {
    format!("the log ends at byte {end} but was durable up to byte {durable_end}")
}

/// Stored CRC of the frame at `off` (the first four bytes).
pub(crate) fn stored_crc(bytes: &[u8], off: u64) -> u32 {
    usize::try_from(off)
        .ok()
        .and_then(|o| crate::format::read_u32(bytes, o))
        .unwrap_or(0)
}

/// True when the first bytes of a would-be frame at `at` are all zero: the
/// preallocated, never-written end of the log.
fn is_zero(bytes: &[u8], at: u64) -> bool {
    let Ok(at) = usize::try_from(at) else {
        return true;
    };
    let end = at.saturating_add(record::MIN_FRAME_LEN).min(bytes.len());
    bytes[at.min(end)..end].iter().all(|&b| b == 0)
}

/// One past the last non-zero byte at or after `from` (or `from`).
fn last_nonzero(bytes: &[u8], from: u64) -> u64 {
    let from = usize::try_from(from)
        .unwrap_or(bytes.len())
        .min(bytes.len());
    bytes[from..]
        .iter()
        .rposition(|&b| b != 0)
        .map_or(from as u64, |p| (from + p + 1) as u64)
}

/// The next offset at or after `from` where a whole valid unit starts.
pub(crate) fn resync(bytes: &[u8], from: u64) -> Option<u64> {
    let from = usize::try_from(from).ok()?;
    (from..bytes.len().saturating_sub(record::MIN_FRAME_LEN - 1))
        .find(|&p| bytes[p + record::CRC_LEN] != 0 && decode_unit(bytes, p as u64).is_ok())
        .map(|p| p as u64)
}

/// Why a frame could not be applied.
pub(crate) enum ApplyError {
    /// The frame names a namespace id that is not bound.
    UnknownNamespace,
    /// Anything else (a damaged record found while confirming a key).
    Engine(Error),
}

impl From<Error> for ApplyError {
    fn from(e: Error) -> Self {
        ApplyError::Engine(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::header::HEADER_SIZE;
    use crate::format::record::{batch_value, FrameSpec};

    fn log_with(frames: &[Vec<u8>]) -> Vec<u8> {
        let mut b = vec![0u8; HEADER_SIZE];
        for f in frames {
            b.extend_from_slice(f);
        }
        b.extend_from_slice(&[0u8; 100]);
        b
    }

    fn batch(ops: &[FrameSpec<'_>]) -> Vec<u8> {
        let body: Vec<u8> = ops.iter().flat_map(|o| o.encode()).collect();
        let v = batch_value(ops.len() as u64, body.len() as u64);
        let mut out = FrameSpec {
            kind: Kind::BatchBegin,
            ns: 0,
            expires_at: 0,
            key: &[],
            value: &v,
        }
        .encode();
        out.extend_from_slice(&body);
        out
    }

    fn run(
        bytes: &[u8],
        durable: u64,
        salvage: bool,
    ) -> (Result<Replayed>, NsTable, RecoveryReport) {
        let mut ns = NsTable::new(None);
        let mut rep = RecoveryReport::default();
        let r = replay(
            bytes,
            HEADER_SIZE as u64,
            durable,
            salvage,
            &mut ns,
            &mut rep,
        );
        (r, ns, rep)
    }

    #[test]
    fn replays_puts_deletes_and_batches() {
        let b = log_with(&[
            FrameSpec::put(0, b"a", b"1", 0).encode(),
            FrameSpec::put(0, b"b", b"2", 0).encode(),
            FrameSpec::delete(0, b"a").encode(),
            batch(&[
                FrameSpec::put(0, b"c", b"3", 0),
                FrameSpec::put(0, b"d", b"4", 0),
            ]),
        ]);
        let (r, ns, rep) = run(&b, 0, false);
        let r = r.unwrap();
        assert_eq!(ns.default().keydir.len(), 3);
        assert_eq!(rep.records_replayed, 5);
        assert_eq!(rep.truncated_tail_at, None);
        assert_eq!(r.end as usize, b.len() - 100);
    }

    #[test]
    fn torn_batch_past_the_durable_end_is_dropped_whole() {
        let good = FrameSpec::put(0, b"a", b"1", 0).encode();
        let bt = batch(&[
            FrameSpec::put(0, b"c", b"3", 0),
            FrameSpec::put(0, b"d", b"4", 0),
        ]);
        for cut in 1..bt.len() {
            let mut b = vec![0u8; HEADER_SIZE];
            b.extend_from_slice(&good);
            b.extend_from_slice(&bt[..cut]);
            let (r, ns, rep) = run(&b, (HEADER_SIZE + good.len()) as u64, false);
            let r = r.unwrap();
            assert_eq!(ns.default().keydir.len(), 1, "cut {cut}");
            assert_eq!(r.end as usize, HEADER_SIZE + good.len());
            assert_eq!(rep.truncated_tail_at, Some(r.end));
        }
    }

    #[test]
    fn damage_before_the_durable_end_is_corruption_unless_salvaging() {
        let a = FrameSpec::put(0, b"a", b"1", 0).encode();
        let bb = FrameSpec::put(0, b"b", b"2", 0).encode();
        let c = FrameSpec::put(0, b"c", b"3", 0).encode();
        let mut b = log_with(&[a.clone(), bb.clone(), c.clone()]);
        let bad_at = HEADER_SIZE + a.len();
        b[bad_at + 6] ^= 0xff;
        let durable = (HEADER_SIZE + a.len() + bb.len() + c.len()) as u64;
        match run(&b, durable, false).0 {
            Err(Error::Corruption { offset, .. }) => assert_eq!(offset as usize, bad_at),
            other => panic!("expected corruption, got {:?}", other.map(|r| r.end)),
        }
        let (r, ns, rep) = run(&b, durable, true);
        assert_eq!(r.unwrap().end, durable);
        assert_eq!(ns.default().keydir.len(), 2);
        assert_eq!(
            rep.skipped,
            vec![SkippedRange {
                offset: bad_at as u64,
                len: bb.len() as u64
            }]
        );
    }
}
