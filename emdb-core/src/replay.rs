//! One reader of log units, and the one rule for what damage means.
//!
//! The log is read as a sequence of *units*: a single frame, or a
//! `BatchBegin` frame followed by exactly the frames it announces. A unit is
//! applied whole or not at all, which is what makes batches atomic.
//!
//! Recovery, followers, compaction's catch-up and the change feed all walk
//! units with [`walk`]. They differ in two ways only:
//! - where the bytes come from ([`LogBytes`]): the mapped file ([`Mapped`]),
//!   or `pread` into a buffer that grows while whole buffers decode and is
//!   sized to a unit larger than it ([`Pread`]), for readers that must not
//!   touch bytes another process may still cut;
//! - what a unit that does not decode at offset X means ([`DamagePolicy`]):
//!   - X at or past the durable end (the newest sync slot, or the
//!     checkpoint's covered end): nothing from X on was ever acknowledged as
//!     durable, so it is a torn tail and the log ends at X (reported when the
//!     bytes were not zeros);
//!   - X before the durable end: acknowledged data is damaged, which is
//!     `Error::Corruption { offset: X }`, unless salvaging, which skips to the
//!     next valid unit and reports the skipped range;
//!   - under [`DamagePolicy::Fail`] (bytes this process wrote or already
//!     checked) every undecodable unit is corruption.
//!
//! [`DamagePolicy::judge`] is the only place that makes this decision.

use std::fs::File;
use std::ops::ControlFlow;
use std::path::Path;

use crate::error::{Error, Result};
use crate::format::record::{self, Frame, Kind};

/// A range of the log that salvage skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkippedRange {
    /// Offset of the first damaged byte.
    pub offset: u64,
    /// Bytes skipped.
    pub len: u64,
}

/// A decoded unit: its frames with their offsets, and its total length.
pub(crate) struct Unit<'a> {
    /// Offset of the unit's first byte.
    pub at: u64,
    /// The frames a reader applies, with their offsets (a batch's header
    /// frame is not among them).
    pub frames: Vec<(u64, Frame<'a>)>,
    /// Bytes the unit takes, header frame included.
    pub len: u64,
}

impl Unit<'_> {
    /// Offset one past the unit's last byte.
    pub(crate) fn end(&self) -> u64 {
        self.at + self.len
    }
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
            at: base,
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
        at: base,
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

/// The next offset at or after `from` where a whole valid unit starts.
pub(crate) fn resync(bytes: &[u8], from: u64) -> Option<u64> {
    let from = usize::try_from(from).ok()?;
    (from..bytes.len().saturating_sub(record::MIN_FRAME_LEN - 1))
        .find(|&p| bytes[p + record::CRC_LEN] != 0 && decode_unit(bytes, p as u64).is_ok())
        .map(|p| p as u64)
}

/// What a unit that does not decode means to a reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DamagePolicy {
    /// Every unit below the limit must decode: the bytes were written or
    /// checked by this process (compaction's catch-up, a change feed's
    /// strict reads).
    Fail,
    /// At or past the durable end, the log ends (a torn tail); below it,
    /// corruption. Open, and followers.
    CutTornTail,
    /// At or past the durable end, the log ends; below it, the damage is
    /// skipped to the next whole unit and reported. Open with salvage.
    Salvage,
}

/// The verdict of [`DamagePolicy::judge`] on a unit that does not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Damage {
    /// The log ends here: nothing from here on was acknowledged as durable.
    End,
    /// Acknowledged (or required) data is damaged: fail.
    Corrupt,
    /// Skip to the next whole unit and report the range.
    Skip,
}

impl DamagePolicy {
    /// What a unit that does not decode at `at` means, given the durable end.
    pub(crate) fn judge(self, at: u64, durable_end: u64) -> Damage {
        match self {
            DamagePolicy::Fail => Damage::Corrupt,
            _ if at >= durable_end => Damage::End,
            DamagePolicy::CutTornTail => Damage::Corrupt,
            DamagePolicy::Salvage => Damage::Skip,
        }
    }

    /// True when damage below the durable end is skipped, not fatal.
    pub(crate) fn salvages(self) -> bool {
        self == DamagePolicy::Salvage
    }
}

/// Where a reader gets the log's bytes.
pub(crate) trait LogBytes {
    /// The log from offset `at` on: at least `want` bytes where the log
    /// has them (a source may return more). Fewer only where the file ends
    /// (empty at its end).
    fn window(&mut self, at: u64, want: u64) -> Result<&[u8]>;
}

/// The log as one mapped (or in-memory) slice, offset 0 first.
pub(crate) struct Mapped<'a>(pub &'a [u8]);

impl LogBytes for Mapped<'_> {
    fn window(&mut self, at: u64, _want: u64) -> Result<&[u8]> {
        Ok(usize::try_from(at)
            .ok()
            .and_then(|at| self.0.get(at..))
            .unwrap_or_default())
    }
}

/// The log read with `pread` into a buffer: for readers that must not read
/// through a mapping bytes another process may cut at any moment.
pub(crate) struct Pread<'a> {
    /// The log file.
    pub file: &'a File,
    /// Its path, for errors.
    pub path: &'a Path,
    /// The read buffer, reused across windows (and across calls by the
    /// change feed).
    pub buf: &'a mut Vec<u8>,
}

impl LogBytes for Pread<'_> {
    fn window(&mut self, at: u64, want: u64) -> Result<&[u8]> {
        let len = usize::try_from(want).unwrap_or(usize::MAX);
        self.buf.resize(len, 0);
        let got = crate::fs::read_upto(self.file, self.buf, at)
            .map_err(|e| Error::io("read", Some(self.path), e))?;
        self.buf.truncate(got);
        Ok(self.buf.as_slice())
    }
}

/// Smallest read window: holds any frame's head, so a unit cut by a window
/// always tells how long it is.
const MIN_WINDOW: u64 = 64;

/// How [`walk`] reads: where to stop, the damage rule, and read sizes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Walk {
    /// Offset to read up to (the file's size, or a cursor).
    pub limit: u64,
    /// Every byte below it was synced before it was recorded.
    pub durable_end: u64,
    /// What a unit that does not decode means.
    pub policy: DamagePolicy,
    /// First read size (a [`Mapped`] source ignores read sizes).
    pub first_read: u64,
    /// Reads double up to this size while whole windows decode.
    pub max_read: u64,
}

impl Walk {
    /// A walk of `[.., limit)` over a source that ignores read sizes.
    pub(crate) fn mapped(limit: u64, durable_end: u64, policy: DamagePolicy) -> Walk {
        Walk {
            limit,
            durable_end,
            policy,
            first_read: limit,
            max_read: limit,
        }
    }
}

/// Where a walk stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Walked {
    /// End of the last good unit (or of the unit the visitor stopped at).
    pub end: u64,
    /// Offset of a torn tail that was not zeros (the log ends there).
    pub torn_tail_at: Option<u64>,
}

/// Read the units in `[from, walk.limit)` of `src`, calling `each` with
/// every whole unit (and the ranges skipped so far) in order, until the
/// limit, a unit that does not decode and ends the log, or `each` breaks.
///
/// Damage is judged by [`DamagePolicy::judge`]; skipped ranges are pushed to
/// `skipped`. A log whose units end below the durable end lost acknowledged
/// data ([`short_of_durable`]). A unit cut by the end of a read window is
/// read again from its start, with a window large enough for the size its
/// header claims.
pub(crate) fn walk<S: LogBytes>(
    src: &mut S,
    from: u64,
    walk: &Walk,
    skipped: &mut Vec<SkippedRange>,
    mut each: impl FnMut(&Unit<'_>, &[SkippedRange]) -> Result<ControlFlow<()>>,
) -> Result<Walked> {
    let (limit, durable_end) = (walk.limit, walk.durable_end);
    let mut at = from;
    let mut want = walk.first_read.max(MIN_WINDOW);
    'windows: while at < limit {
        let asked = want.min(limit - at);
        let window = src.window(at, asked)?;
        if window.is_empty() {
            break;
        }
        // A window shorter than asked is the end of the file (cut after its
        // size was read): reading again would return the same bytes.
        let whole = at + window.len() as u64 >= limit || (window.len() as u64) < asked;
        let mut pos = 0usize;
        while pos < window.len() {
            let here = at + pos as u64;
            let rest = &window[pos..];
            let reason = match decode_unit_in(rest, here) {
                Ok(unit) => {
                    let flow = each(&unit, skipped)?;
                    pos += unit.len as usize;
                    if flow.is_break() {
                        return Ok(Walked {
                            end: at + pos as u64,
                            torn_tail_at: None,
                        });
                    }
                    continue;
                }
                Err(reason) => reason,
            };
            if !whole {
                // The unit may just be cut by the read window.
                let claimed = claimed_unit_len(rest).unwrap_or(0);
                if pos > 0 {
                    at = here;
                    want = want.max(claimed);
                    continue 'windows;
                }
                if claimed > window.len() as u64 && at + claimed <= limit {
                    want = claimed;
                    continue 'windows;
                }
            }
            match walk.policy.judge(here, durable_end) {
                Damage::End => {
                    return Ok(Walked {
                        end: here,
                        torn_tail_at: (!is_zero(rest)).then_some(here),
                    });
                }
                Damage::Corrupt => return Err(Error::corruption(here, reason)),
                Damage::Skip => {
                    if let Some(next) = resync(rest, 1) {
                        skipped.push(SkippedRange {
                            offset: here,
                            len: next,
                        });
                        pos += next as usize;
                        continue;
                    }
                    // Nothing valid follows: everything up to the last
                    // written (or last durable) byte is lost, in one range.
                    let lost_to = last_nonzero(rest, here).max(durable_end.min(limit));
                    skipped.push(SkippedRange {
                        offset: here,
                        len: lost_to - here,
                    });
                    if durable_end > lost_to {
                        skipped.push(SkippedRange {
                            offset: lost_to,
                            len: durable_end - lost_to,
                        });
                    }
                    return Ok(Walked {
                        end: here,
                        torn_tail_at: None,
                    });
                }
            }
        }
        at += pos as u64;
        want = want.saturating_mul(2).min(walk.max_read.max(MIN_WINDOW));
    }
    if let Some(lost) = short_of_durable(at, durable_end, walk.policy.salvages())? {
        skipped.push(lost);
    }
    Ok(Walked {
        end: at.min(limit),
        torn_tail_at: None,
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

/// True when the first bytes of a would-be frame at the start of `rest` are
/// all zero: the preallocated, never-written end of the log.
fn is_zero(rest: &[u8]) -> bool {
    rest.iter().take(record::MIN_FRAME_LEN).all(|&b| b == 0)
}

/// One past the last non-zero byte of `rest`, which holds the log from
/// offset `base` (or `base` when all are zero).
fn last_nonzero(rest: &[u8], base: u64) -> u64 {
    rest.iter()
        .rposition(|&b| b != 0)
        .map_or(base, |p| base + p as u64 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::header::HEADER_SIZE;
    use crate::format::record::{batch_value, FrameSpec};

    /// A source that returns exactly the window asked for, and records the
    /// sizes asked: stands in for a `pread` buffer without a file.
    struct Exact<'a> {
        bytes: &'a [u8],
        asked: Vec<u64>,
    }

    impl LogBytes for Exact<'_> {
        fn window(&mut self, at: u64, want: u64) -> Result<&[u8]> {
            self.asked.push(want);
            let at = at as usize;
            let end = (at + want as usize).min(self.bytes.len());
            Ok(&self.bytes[at.min(end)..end])
        }
    }

    fn put(key: &[u8], value: &[u8]) -> Vec<u8> {
        FrameSpec::put(0, key, value, 0).encode()
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

    /// A log image: the header page, then `units`; returns it and where
    /// each unit starts.
    fn log(units: &[Vec<u8>]) -> (Vec<u8>, Vec<u64>) {
        let mut b = vec![0u8; HEADER_SIZE];
        let mut starts = Vec::new();
        for u in units {
            starts.push(b.len() as u64);
            b.extend_from_slice(u);
        }
        (b, starts)
    }

    /// Walk all of `bytes` (through `src`), collecting each unit's start and
    /// frame count, and the skipped ranges.
    fn collect<S: LogBytes>(
        src: &mut S,
        bytes_len: u64,
        durable_end: u64,
        policy: DamagePolicy,
        reads: (u64, u64),
    ) -> (Result<Walked>, Vec<(u64, usize)>, Vec<SkippedRange>) {
        let mut seen = Vec::new();
        let mut skipped = Vec::new();
        let w = Walk {
            limit: bytes_len,
            durable_end,
            policy,
            first_read: reads.0,
            max_read: reads.1,
        };
        let r = walk(src, HEADER_SIZE as u64, &w, &mut skipped, |u, _| {
            seen.push((u.at, u.frames.len()));
            Ok(ControlFlow::Continue(()))
        });
        (r, seen, skipped)
    }

    fn mapped(
        bytes: &[u8],
        durable_end: u64,
        policy: DamagePolicy,
    ) -> (Result<Walked>, Vec<(u64, usize)>, Vec<SkippedRange>) {
        let len = bytes.len() as u64;
        collect(&mut Mapped(bytes), len, durable_end, policy, (len, len))
    }

    #[test]
    fn judge_is_the_damage_rule() {
        use Damage::*;
        use DamagePolicy::*;
        for (policy, below, at_or_past) in [
            (Fail, Corrupt, Corrupt),
            (CutTornTail, Corrupt, End),
            (Salvage, Skip, End),
        ] {
            assert_eq!(policy.judge(99, 100), below, "{policy:?} below");
            assert_eq!(policy.judge(100, 100), at_or_past, "{policy:?} at");
            assert_eq!(policy.judge(101, 100), at_or_past, "{policy:?} past");
        }
    }

    #[test]
    fn torn_tail_past_the_durable_end_is_cut() {
        let (mut b, starts) = log(&[put(b"a", b"1"), put(b"b", b"2")]);
        let torn_at = b.len() as u64;
        b.extend_from_slice(&put(b"c", b"3")[..7]);
        for policy in [DamagePolicy::CutTornTail, DamagePolicy::Salvage] {
            let (r, seen, skipped) = mapped(&b, torn_at, policy);
            assert_eq!(
                r.unwrap(),
                Walked {
                    end: torn_at,
                    torn_tail_at: Some(torn_at)
                }
            );
            assert_eq!(seen, vec![(starts[0], 1), (starts[1], 1)]);
            assert!(skipped.is_empty());
        }
        // Zeros past the end are the unwritten end, not a torn tail.
        let (mut z, _) = log(&[put(b"a", b"1")]);
        let end = z.len() as u64;
        z.extend_from_slice(&[0u8; 64]);
        let (r, _, _) = mapped(&z, end, DamagePolicy::CutTornTail);
        assert_eq!(
            r.unwrap(),
            Walked {
                end,
                torn_tail_at: None
            }
        );
        // Under Fail nothing may be torn.
        match mapped(&b, torn_at, DamagePolicy::Fail).0 {
            Err(Error::Corruption { offset, .. }) => assert_eq!(offset, torn_at),
            other => panic!("expected corruption, got {other:?}"),
        }
    }

    #[test]
    fn damage_below_the_durable_end_fails_and_salvage_skips_it() {
        let (mut b, starts) = log(&[put(b"a", b"1"), put(b"b", b"2"), put(b"c", b"3")]);
        let durable = b.len() as u64;
        b[starts[1] as usize + 6] ^= 0xff;
        match mapped(&b, durable, DamagePolicy::CutTornTail).0 {
            Err(Error::Corruption { offset, .. }) => assert_eq!(offset, starts[1]),
            other => panic!("expected corruption, got {other:?}"),
        }
        let (r, seen, skipped) = mapped(&b, durable, DamagePolicy::Salvage);
        assert_eq!(r.unwrap().end, durable);
        assert_eq!(seen, vec![(starts[0], 1), (starts[2], 1)]);
        assert_eq!(
            skipped,
            vec![SkippedRange {
                offset: starts[1],
                len: starts[2] - starts[1]
            }]
        );
        // A log that stops short of its durable end lost acknowledged data.
        let short = &b[..starts[1] as usize];
        assert!(mapped(short, durable, DamagePolicy::CutTornTail).0.is_err());
        let (r, _, skipped) = mapped(short, durable, DamagePolicy::Salvage);
        assert_eq!(r.unwrap().end, starts[1]);
        assert_eq!(
            skipped,
            vec![SkippedRange {
                offset: starts[1],
                len: durable - starts[1]
            }]
        );
    }

    #[test]
    fn units_larger_than_the_read_window_are_read_whole() {
        let big = vec![7u8; 300];
        let (b, starts) = log(&[
            put(b"a", b"1"),
            put(b"big", &big),
            batch(&[
                FrameSpec::put(0, b"c", &big, 0),
                FrameSpec::put(0, b"d", b"4", 0),
            ]),
            put(b"e", b"5"),
        ]);
        let len = b.len() as u64;
        let want = vec![
            (starts[0], 1),
            (starts[1], 1),
            (starts[2], 2),
            (starts[3], 1),
        ];
        let mut src = Exact {
            bytes: &b,
            asked: Vec::new(),
        };
        let (r, seen, _) = collect(&mut src, len, len, DamagePolicy::CutTornTail, (64, 128));
        assert_eq!(r.unwrap().end, len);
        assert_eq!(seen, want);
        // Windows were sized up to the big units, past the largest read.
        assert!(src.asked.iter().any(|&w| w > 300), "{:?}", src.asked);
        // The same units as reading the mapped file.
        assert_eq!(mapped(&b, len, DamagePolicy::CutTornTail).1, want);
    }

    #[test]
    fn a_window_cut_is_not_damage_but_damage_after_one_is() {
        let v = [9u8; 40];
        let (mut b, starts) = log(&[put(b"a", &v), put(b"b", &v), put(b"c", &v)]);
        let len = b.len() as u64;
        // Windows ending anywhere inside a unit: read on from that unit.
        for first in MIN_WINDOW..len - starts[0] {
            let mut src = Exact {
                bytes: &b,
                asked: Vec::new(),
            };
            let reads = (first, first);
            let (r, seen, _) = collect(&mut src, len, len, DamagePolicy::CutTornTail, reads);
            assert_eq!(r.unwrap().end, len, "read size {first}");
            assert_eq!(seen.len(), 3, "read size {first}");
        }
        b[starts[2] as usize + 6] ^= 0xff;
        let mut src = Exact {
            bytes: &b,
            asked: Vec::new(),
        };
        match collect(&mut src, len, len, DamagePolicy::CutTornTail, (64, 64)).0 {
            Err(Error::Corruption { offset, .. }) => assert_eq!(offset, starts[2]),
            other => panic!("expected corruption, got {other:?}"),
        }
    }

    /// A file that ends before the limit (cut after its size was read),
    /// inside a unit larger than the first window.
    struct ShortFile<'a> {
        bytes: &'a [u8],
        calls: usize,
    }

    impl LogBytes for ShortFile<'_> {
        fn window(&mut self, at: u64, want: u64) -> Result<&[u8]> {
            self.calls += 1;
            assert!(
                self.calls < 100,
                "the reader keeps asking for the same bytes"
            );
            let at = at as usize;
            let end = (at + want as usize).min(self.bytes.len());
            Ok(&self.bytes[at.min(end)..end])
        }
    }

    #[test]
    fn a_file_ending_inside_a_large_unit_ends_the_walk() {
        let (b, starts) = log(&[put(b"a", b"1"), put(b"big", &[5u8; 500])]);
        let cut = &b[..starts[1] as usize + 200];
        // The limit (the size read earlier) still covers the whole unit.
        let limit = b.len() as u64;
        let mut src = ShortFile {
            bytes: cut,
            calls: 0,
        };
        let (r, seen, _) = collect(&mut src, limit, 0, DamagePolicy::CutTornTail, (64, 64));
        assert_eq!(
            r.unwrap(),
            Walked {
                end: starts[1],
                torn_tail_at: Some(starts[1])
            }
        );
        assert_eq!(seen, vec![(starts[0], 1)]);
        // Below the durable end the same cut is corruption.
        let mut src = ShortFile {
            bytes: cut,
            calls: 0,
        };
        match collect(&mut src, limit, limit, DamagePolicy::CutTornTail, (64, 64)).0 {
            Err(Error::Corruption { offset, .. }) => assert_eq!(offset, starts[1]),
            other => panic!("expected corruption, got {other:?}"),
        }
    }
}
