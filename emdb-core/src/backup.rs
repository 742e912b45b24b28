//! Consistent online backups.
//!
//! The log below its end never changes, so a backup copies the bytes up to
//! the end as it stood at one instant (taken under the writer lock, after a
//! sync), while writers keep appending past it. The copy's sync slots are
//! rewritten to say exactly that end was durable, then the copy is fsynced
//! and renamed into place.
//!
//! A copy is a database of its own from then on (a fork): it gets its own
//! database id, so nothing of one (a checkpoint, a sealed record) is ever
//! taken for the other's. A plain copy just gets a new id in its header;
//! an encrypted one is sealed under its id (the AEAD binds it), so it is
//! copied to a temp name, rewritten with the same key under a new id (the
//! encryption rewrite of `admin.rs`), and only then renamed into place.

use std::path::Path;

use crate::engine::{random_id, Engine};
use crate::error::{Error, Result};
use crate::fault::{note, write_all_at, FsEvent, WriteSite};
use crate::format::header::{Identity, SyncSlot, HEADER_SIZE, SYNC_SLOT_LEN};
use crate::fs::{create_fresh, fsync_parent, rename, sibling};
use crate::progress::{self, Meter, Phase};

/// Bytes per write of a backup copy whose progress is observed.
const COPY_PIECE: usize = 8 << 20;

/// Copy the database to `target` (a new file).
pub(crate) fn backup_to(engine: &Engine, target: &Path) -> Result<()> {
    if target.exists() {
        let same = match engine.path() {
            Some(src) => same_file(&src, target),
            None => false,
        };
        return Err(Error::BackupTarget {
            target: target.to_path_buf(),
            reason: if same {
                "it is the database itself; back up to another path"
            } else {
                "it already exists; remove it or pick another path"
            },
        });
    }
    // The copy's checkpoint is written as `<target>.ckpt` (an encrypted
    // copy's by its rewrite): a file there is someone's, not to replace.
    if sibling(target, ".ckpt").exists() {
        return Err(Error::BackupTarget {
            target: target.to_path_buf(),
            reason: "a file named like its checkpoint (the path plus .ckpt) exists; \
                     remove it or pick another path",
        });
    }
    let (gen, end) = {
        let w = engine.lock_writer();
        if !engine.cfg().read_only {
            engine.sync()?;
        }
        let gen = engine.gen_arc();
        let end = if engine.cfg().read_only {
            gen.log().published_end()
        } else {
            w.end()
        };
        (gen, end)
    };
    // Copying from a file another process cut short would fault (or
    // copy zeros): refuse up front, and check again after the copy.
    gen.log().check_intact()?;
    let region = gen.log().region_arc();
    let bytes = region
        .slice(0, end)
        .ok_or_else(|| Error::corruption(end, "log shorter than its end"))?;
    let mut page = bytes[..HEADER_SIZE.min(bytes.len())].to_vec();
    let encrypted = gen.crypt().is_some();
    if page.len() == HEADER_SIZE && !encrypted {
        let mut id = Identity::decode(&page).map_err(|_| Error::corruption(0, "header"))?;
        id.db_id = random_id();
        id.encode_into(&mut page);
    }
    if page.len() == HEADER_SIZE {
        SyncSlot::clear_all(&mut page);
        let slot = SyncSlot {
            seq: 1,
            durable_end: end,
            encryptions: engine.encryptions(),
        };
        let at = SyncSlot::offset(slot.seq);
        page[at..at + SYNC_SLOT_LEN].copy_from_slice(&slot.encode());
    }
    // An encrypted copy still has the original's id until rewritten:
    // never under the target name.
    let staging = if encrypted {
        sibling(target, ".fork.tmp")
    } else {
        target.to_path_buf()
    };
    let tmp = sibling(&staging, ".tmp");
    let faults = engine.cfg().faults.as_deref();
    let write = || -> std::io::Result<()> {
        let f = create_fresh(&tmp).map_err(std::io::Error::other)?;
        write_all_at(faults, WriteSite::Backup, &f, &page, 0)?;
        if progress::observed() {
            // In pieces, to report each; unobserved, one write as before
            // (the fault tests count two writes).
            let mut meter = Meter::start(Phase::Copying, bytes.len() as u64);
            meter.add(page.len() as u64);
            let mut at = page.len();
            for piece in bytes[at..].chunks(COPY_PIECE) {
                write_all_at(faults, WriteSite::Backup, &f, piece, at as u64)?;
                at += piece.len();
                meter.add(piece.len() as u64);
            }
            meter.finish();
        } else {
            write_all_at(
                faults,
                WriteSite::Backup,
                &f,
                &bytes[page.len()..],
                page.len() as u64,
            )?;
        }
        f.sync_all()
    };
    let written = write().map_err(|e| Error::io("write backup", Some(&tmp), e));
    // The kernel reports a cut source as EFAULT: say what happened.
    let written = written.and_then(|()| gen.log().check_intact());
    if let Err(e) = gen.log().vouch(&region, written) {
        let _ = std::fs::remove_file(&tmp);
        return Err(match (e, gen.log().check_intact()) {
            (Error::Io { .. }, Err(cut)) => cut,
            (e, _) => e,
        });
    }
    note(faults, || FsEvent::Synced(tmp.clone()));
    if let Err(e) = rename(&tmp, &staging, faults) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    if encrypted {
        let forked = reseal_as_fork(engine, &staging, target);
        if forked.is_err() {
            let _ = std::fs::remove_file(&staging);
        }
        for left in [".encbak", ".ckpt", ".tail", ".lock", ".stats"] {
            let _ = std::fs::remove_file(sibling(&staging, left));
        }
        forked?;
    }
    fsync_parent(target, faults)
}

/// Rewrite the encrypted copy at `staging` with the same key under a new
/// database id, then rename it to `target`.
fn reseal_as_fork(engine: &Engine, staging: &Path, target: &Path) -> Result<()> {
    let faults = engine.cfg().faults.clone();
    let key = engine.cfg().encryption.clone();
    crate::admin::rewrite(staging, key.clone(), key, None, faults.clone())?;
    // The copy as it was before the rewrite (the original's id): gone.
    std::fs::remove_file(crate::admin::encbak_path(staging))
        .map_err(|e| Error::io("remove", Some(staging), e))?;
    // Its checkpoint is bound to the new id: it goes with it.
    let _ = rename(
        &sibling(staging, ".ckpt"),
        &sibling(target, ".ckpt"),
        faults.as_deref(),
    );
    rename(staging, target, faults.as_deref())
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}
