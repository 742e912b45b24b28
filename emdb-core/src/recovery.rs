//! Open-time replay of the log into the namespace table.
//!
//! Units are read by [`crate::replay::walk`] over the mapped file with the
//! open's damage policy: a torn tail past the durable end is cut, damage
//! below it fails the open with `Error::Corruption { offset }`, unless
//! salvaging, which skips it and reports the skipped range (see
//! `replay.rs` for the rule). This module applies the units and keeps the
//! [`RecoveryReport`].
//!
//! A read-only handle replays with [`replay_pread`] instead: another process
//! may be writing, so new bytes are read with `pread` (never through the
//! mapping, which could fault past a cut) and mapped only once whole units
//! decoded, published before they are applied. Followers use it to catch up.

use std::fs::File;
use std::ops::ControlFlow;
use std::path::Path;

use crate::config::KeyScope;
use crate::error::{Error, Result};
use crate::log::Region;
use crate::namespace::{ApplyError, NsTable, Pipeline};
use crate::replay::{stored_crc, walk, DamagePolicy, Mapped, Pread, SkippedRange, Walk};

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
    /// True when a one-key, one-range or first-pairs read
    /// ([`crate::EmdbBuilder::read_one_key`],
    /// [`crate::EmdbBuilder::range_once`],
    /// [`crate::EmdbBuilder::range_once_first`]) found its keys' newest
    /// records in the tail index the writer keeps beside the checkpoint,
    /// or a count or stats read ([`crate::EmdbBuilder::read_counts`],
    /// [`crate::EmdbBuilder::read_stats`]) took its counts from it, and
    /// scanned only the log written after it (docs/ARCHITECTURE.md, "Tail
    /// indexes").
    pub used_tail_index: bool,
    /// True when a count or stats read took its counts from a tail index
    /// and moved them past it, indexing nothing: the handle answers for
    /// counts only (a count that layered the tail index indexed every key).
    pub(crate) counts_only: bool,
    /// The bound a first-pairs read (`EmdbBuilder::range_once_first`)
    /// narrowed its range to, when it did.
    pub(crate) narrowed_to: Option<std::ops::Bound<Vec<u8>>>,
    /// True when a first-pairs read narrowed its range, found fewer pairs
    /// there than it wanted, and read the whole range instead.
    pub(crate) narrowing_fell_back: bool,
    /// True when the namespace a first-pairs read reads was dropped and
    /// created again since the checkpoint: its keys have a new id, which
    /// the read did not index, so it reads the whole range instead.
    pub(crate) namespace_replaced: bool,
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

/// Replay units from `start` into `ns` until the end of the valid log.
///
/// `bytes` is the whole file (offset 0 first). See the module docs for the
/// rules; `report` collects what was dropped. With `scope` (a writer opened
/// for a few keys, `EmdbBuilder::write_keys`) every unit is still read and
/// checked, but only the puts and deletes of those keys are indexed, with
/// every namespace create, drop and clear (as [`LogSource::only_keys`]).
pub(crate) fn replay(
    bytes: &[u8],
    start: u64,
    durable_end: u64,
    salvage: bool,
    scope: Option<&KeyScope>,
    ns: &mut NsTable,
    report: &mut RecoveryReport,
) -> Result<Replayed> {
    let policy = if salvage {
        DamagePolicy::Salvage
    } else {
        DamagePolicy::CutTornTail
    };
    let mut last_frame = None;
    let mut skipped = std::mem::take(&mut report.skipped);
    let mut pipe = Pipeline::for_replay(salvage);
    // Decrypted records a scoped replay skips pass through here.
    let mut sealed_scratch = zeroize::Zeroizing::new(Vec::new());
    let walked = walk(
        &mut Mapped(bytes),
        start,
        &Walk::mapped(bytes.len() as u64, durable_end, policy),
        &mut skipped,
        |unit, skipped| {
            for (off, f) in &unit.frames {
                let applied = ns
                    .outside_scope(scope, *off, f, &mut sealed_scratch)
                    .and_then(|skip| match skip {
                        true => Ok(false),
                        false => ns.apply_piped(bytes, *off, f, &mut pipe).map(|()| true),
                    });
                match applied {
                    Ok(true) => {}
                    // Outside the scope: read and checked, not indexed.
                    Ok(false) => {
                        last_frame = Some((*off, stored_crc(bytes, *off)));
                        continue;
                    }
                    Err(ApplyError::UnknownNamespace) if salvage && !skipped.is_empty() => {
                        report.orphaned_records += 1;
                    }
                    Err(e @ ApplyError::UnknownNamespace) => return Err(e.strict(*off)),
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
            Ok(ControlFlow::Continue(()))
        },
    );
    report.skipped = skipped;
    let walked = walked?;
    ns.drain(bytes, &mut pipe)
        .map_err(|e| e.strict(walked.end))?;
    if walked.torn_tail_at.is_some() {
        report.truncated_tail_at = walked.torn_tail_at;
    }
    Ok(Replayed {
        end: walked.end,
        last_frame,
    })
}

/// Largest read when scanning new records.
const CHUNK: u64 = 4 << 20;

/// First read size when scanning new records: a refresh usually finds a
/// few KiB of new units followed by the writer's preallocated, unwritten
/// tail, so reading (and zeroing a buffer for) [`CHUNK`] bytes each time
/// cost a follower 20 x 8 MiB of copies a second for nothing. Reads double
/// up to [`CHUNK`] while whole buffers decode.
const FIRST_READ: u64 = 64 << 10;

/// Where a pread-driven replay stopped.
pub(crate) struct Followed {
    pub end: u64,
    pub applied: usize,
    pub last_frame_at: Option<u64>,
}

/// The file a follower reads: its descriptor, path and current mapping.
pub(crate) struct LogSource<'a> {
    pub file: &'a File,
    pub path: &'a Path,
    /// Maps at least `limit` bytes; read only below validated units.
    pub region: &'a Region,
    /// Index only the puts and deletes of these keys (a sealed frame is
    /// decrypted to find its key), and every namespace create, drop and
    /// clear: the table then answers for these keys alone
    /// ([`crate::EmdbBuilder::read_one_key`],
    /// [`crate::EmdbBuilder::range_once`]). `None` indexes everything.
    pub only_keys: Option<&'a KeyScope>,
}

/// Replay the units in `[start, limit)` of the file into `table`. The region
/// maps at least `limit` bytes of the same file; it is read only below the
/// end of units already validated through `pread`.
///
/// A unit that does not decode ends the replay, unless it lies below
/// `durable_end` (the writer said it was synced): that is corruption, or
/// skipped when salvaging; so is a file whose units end below `durable_end`
/// (see `replay.rs`). `limit` must be the file's size as of after
/// `durable_end` was read (the writer never leaves its file shorter than a
/// durable end it recorded).
pub(crate) fn replay_pread(
    src: &LogSource<'_>,
    start: u64,
    limit: u64,
    durable_end: u64,
    table: &mut NsTable,
    publish: &dyn Fn(u64),
    salvage: Option<&mut Vec<SkippedRange>>,
) -> Result<Followed> {
    let policy = if salvage.is_some() {
        DamagePolicy::Salvage
    } else {
        DamagePolicy::CutTornTail
    };
    let mut unused = Vec::new();
    let skipped = salvage.unwrap_or(&mut unused);
    let mut applied = 0usize;
    let mut last_frame_at = None;
    let mut buf = Vec::new();
    let mut pipe = Pipeline::for_replay(policy.salvages());
    // Decrypted records a scoped replay skips pass through here.
    let mut sealed_scratch = zeroize::Zeroizing::new(Vec::new());
    let walked = walk(
        &mut Pread {
            file: src.file,
            path: src.path,
            buf: &mut buf,
        },
        start,
        &Walk {
            limit,
            durable_end,
            policy,
            first_read: FIRST_READ,
            max_read: CHUNK,
        },
        skipped,
        |unit, _| {
            let unit_end = unit.end();
            let bytes = src
                .region
                .slice(0, unit_end)
                .ok_or_else(|| Error::corruption(unit_end, "mapping shorter than the log"))?;
            // Readers may see index entries as soon as they are
            // applied: the bytes they point to must be published first.
            publish(unit_end);
            for (off, f) in &unit.frames {
                if table
                    .outside_scope(src.only_keys, *off, f, &mut sealed_scratch)
                    .map_err(|e| e.strict(*off))?
                {
                    last_frame_at = Some(*off);
                    continue;
                }
                table
                    .apply_piped(bytes, *off, f, &mut pipe)
                    .map_err(|e| e.strict(*off))?;
                last_frame_at = Some(*off);
                applied += 1;
            }
            Ok(ControlFlow::Continue(()))
        },
    )
    .and_then(|walked| {
        let bytes = src
            .region
            .slice(0, walked.end)
            .ok_or_else(|| Error::corruption(walked.end, "mapping shorter than the log"))?;
        table
            .drain(bytes, &mut pipe)
            .map_err(|e| e.strict(walked.end))?;
        Ok(walked)
    })
    .map_err(|e| e.with_path(src.path))?;
    Ok(Followed {
        end: walked.end,
        applied,
        last_frame_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::header::HEADER_SIZE;
    use crate::format::record::{batch_value, FrameSpec, Kind};
    use crate::replay::SkippedRange;

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
            None,
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
