//! Offline verification of every record of a log (`emdb check`).
//!
//! Unlike open, which stops at the first damage (or trusts a checkpoint),
//! verification reads the whole file, checks every record's CRC (and, for an
//! encrypted database, its authentication tag), and lists every damaged
//! range with the offset where valid records resume.

use std::path::{Path, PathBuf};

use crate::checkpoint::Loaded;
use crate::config::Config;
use crate::crypto::EncryptionInput;
use crate::engine::{checkpoint_path, crypt_for, read_identity};
use crate::error::{Error, Result};
use crate::format::header::HEADER_SIZE;
use crate::namespace::open_frame;
use crate::progress::{Meter, Phase};
use crate::replay::{decode_unit, resync, short_of_durable, short_reason};

/// One damaged range found by [`Emdb::verify`](crate::Emdb::verify).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DamagedRange {
    /// Offset of the first bad byte.
    pub offset: u64,
    /// Bytes until the next valid record (or the end of the data).
    pub len: u64,
    /// What is wrong at `offset`.
    pub reason: String,
    /// True when the range lies in the part of the log a sync acknowledged
    /// (real damage); false for an unsynced tail that recovery would cut.
    pub durable: bool,
}

/// Damage in the checkpoint beside the log (`<db>.ckpt`), found by
/// [`Emdb::verify`](crate::Emdb::verify). The checkpoint holds no data of
/// its own, only an index of the log: removing it loses nothing, and the
/// next open that writes rebuilds it from the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DamagedCheckpoint {
    /// The checkpoint file.
    pub path: PathBuf,
    /// Offset of the damaged page in that file.
    pub offset: u64,
    /// What is wrong there.
    pub reason: String,
}

/// What [`Emdb::verify`](crate::Emdb::verify) found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifyReport {
    /// Records whose checksum (and seal) verified.
    pub records: u64,
    /// Units (single records and whole batches) that verified.
    pub units: u64,
    /// Bytes of the log that were checked.
    pub bytes: u64,
    /// End of the durable part of the log, from the header's sync slots.
    pub durable_end: u64,
    /// Every damaged range, in file order.
    pub damaged: Vec<DamagedRange>,
    /// Damage in the checkpoint: reads that reach its damaged page fail
    /// (the log itself can be sound). Removing the file repairs it.
    pub checkpoint: Option<DamagedCheckpoint>,
}

impl VerifyReport {
    /// True when nothing acknowledged as durable is damaged, and the
    /// checkpoint is not.
    pub fn is_clean(&self) -> bool {
        self.damaged.iter().all(|d| !d.durable) && self.checkpoint.is_none()
    }
}

/// Verify the log at `path` (opened read-only with `encryption`, if given).
pub(crate) fn verify(path: &Path, encryption: Option<EncryptionInput>) -> Result<VerifyReport> {
    // A private copy: another process may trim or replace the file meanwhile.
    // The header first: a writer appending meanwhile has written everything
    // below the durable end it recorded before the copy is read.
    let file = std::fs::File::open(path).map_err(|e| Error::io("open", Some(path), e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::io("stat", Some(path), e))?
        .len();
    let (identity, slot, page) = read_identity(&file, path, len)?;
    let bytes = std::fs::read(path).map_err(|e| Error::io("read", Some(path), e))?;
    if bytes.len() < HEADER_SIZE {
        return Err(Error::Corruption {
            path: Some(path.to_path_buf()),
            offset: bytes.len() as u64,
            reason: "file is shorter than its header".into(),
        });
    }
    let cfg = Config {
        read_only: true,
        encryption,
        ..Config::default()
    };
    let crypt = crypt_for(&cfg, path, &identity, &page)?;
    let mut rep = VerifyReport {
        durable_end: slot.durable_end,
        ..VerifyReport::default()
    };
    let mut at = HEADER_SIZE as u64;
    let total = bytes.len() as u64;
    let mut meter = Meter::start(Phase::Verifying, total - at);
    while at < total {
        let from = at;
        let checked = decode_unit(&bytes, at)
            .map_err(str::to_string)
            .and_then(|unit| {
                for (off, f) in &unit.frames {
                    let mut scratch = zeroize::Zeroizing::new(Vec::new());
                    open_frame(*f, *off, crypt.as_deref(), &mut scratch).map_err(|e| match e {
                        Error::Corruption { reason, .. } => reason,
                        other => other.to_string(),
                    })?;
                }
                Ok((unit.len, unit.frames.len() as u64))
            });
        match checked {
            Ok((len, records)) => {
                rep.units += 1;
                rep.records += records;
                at += len;
            }
            Err(reason) => {
                if at >= slot.durable_end && bytes[at as usize..].iter().all(|&b| b == 0) {
                    break; // the preallocated, never-written end
                }
                let next = resync(&bytes, at + 1);
                let end = next.unwrap_or(total);
                rep.damaged.push(DamagedRange {
                    offset: at,
                    len: end - at,
                    reason,
                    durable: at < slot.durable_end,
                });
                at = end;
            }
        }
        meter.add(at - from);
    }
    meter.finish();
    rep.bytes = at.min(total);
    rep.checkpoint = check_checkpoint(path, crypt.as_deref());
    // The same rule as open: a log shorter than its durable end lost data.
    if let Some(lost) = short_of_durable(total, slot.durable_end, true)? {
        rep.damaged.push(DamagedRange {
            offset: lost.offset,
            len: lost.len,
            reason: short_reason(lost.offset, slot.durable_end),
            durable: true,
        });
    }
    Ok(rep)
}

/// Check every page of the checkpoint beside `path` against its CRC. A
/// checkpoint that open would not use at all (a damaged header or table,
/// another log's) is not reported: open replays the log instead, and the
/// next writer replaces it. Damage in its pages is: open uses the pages in
/// place and checks each one only when a read first reaches it.
fn check_checkpoint(
    path: &Path,
    crypt: Option<&crate::crypto::Crypt>,
) -> Option<DamagedCheckpoint> {
    let ckpt = checkpoint_path(path);
    let Ok(Some(Loaded::V2 { image, .. })) =
        crate::checkpoint::open(&ckpt, crate::index::SHARDS, crypt)
    else {
        return None;
    };
    match image.check_all() {
        Ok(()) => None,
        Err(Error::Corruption { offset, reason, .. }) => Some(DamagedCheckpoint {
            path: ckpt,
            offset,
            reason,
        }),
        Err(e) => Some(DamagedCheckpoint {
            path: ckpt,
            offset: 0,
            reason: e.to_string(),
        }),
    }
}
