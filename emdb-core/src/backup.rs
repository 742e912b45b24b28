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
//!
//! Two backups to the same new file may run at once, in two processes (or
//! two threads). Every temp name carries the host and the pid
//! (`<target>.emdb-backup-<host>-<pid>...`), so neither removes or renames
//! the other's file, and the final rename never replaces a file at the
//! target ([`rename_noreplace`]): one backup wins, the others fail as a
//! backup onto an existing file does. Threads of one process, which share
//! the pid, take turns per target. What a killed backup left (a SIGKILL, a
//! crash) is removed by the next backup to the same target on the same
//! machine, once its process is gone.

use std::path::{Path, PathBuf};

use parking_lot::{Condvar, Mutex};

use crate::engine::{random_id, Engine};
use crate::error::{Error, Result};
use crate::fault::{note, write_all_at, FsEvent, WriteSite};
use crate::format::header::{Identity, SyncSlot, HEADER_SIZE, SYNC_SLOT_LEN};
use crate::fs::{
    create_fresh, fsync_parent, parent_dir, process_temp_base, remove_dead_process_temps, rename,
    rename_new, rename_noreplace, sibling,
};
use crate::progress::{self, Meter, Phase};

/// Bytes per write of a backup copy whose progress is observed.
const COPY_PIECE: usize = 8 << 20;

/// The name the temp files of a backup to `target` by this process start
/// with: `<target>.emdb-backup-<host>-<pid>`. A plain copy is written as
/// this plus `.tmp`; an encrypted one as a database this plus `.fork`
/// (written through `.fork.tmp`), with the files of its own that its
/// reseal makes (`.fork.enc.tmp`, `.fork.ckpt`, `.fork.lock`, ...).
pub(crate) fn temp_base(target: &Path) -> PathBuf {
    process_temp_base(target, "backup")
}

/// Targets a backup of this process is writing (their temp names are the
/// same for all its threads), and the signal that one is done.
static BUSY: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static DONE: Condvar = Condvar::new();

/// A target this thread backs up to, until dropped: another thread of
/// this process backing up to it waits meanwhile, then finds it exists.
struct Claim(PathBuf);

impl Claim {
    fn take(target: &Path) -> Claim {
        // One key per file, however the path is spelled (its directory
        // exists, or the backup fails anyway).
        let dir = parent_dir(target);
        let key = match (dir.canonicalize(), target.file_name()) {
            (Ok(d), Some(n)) => d.join(n),
            _ => target.to_path_buf(),
        };
        let mut busy = BUSY.lock();
        while busy.contains(&key) {
            DONE.wait(&mut busy);
        }
        busy.push(key.clone());
        Claim(key)
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let mut busy = BUSY.lock();
        busy.retain(|k| *k != self.0);
        DONE.notify_all();
    }
}

/// The error of a backup onto a file that exists.
fn exists(target: &Path) -> Error {
    Error::BackupTarget {
        target: target.to_path_buf(),
        reason: "it already exists; remove it or pick another path",
    }
}

/// Map a rename that found a file at `target` to [`exists`].
fn exists_if_taken(e: Error, target: &Path) -> Error {
    match e {
        Error::Io { ref source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists => {
            exists(target)
        }
        e => e,
    }
}

/// Copy the database to `target` (a new file).
pub(crate) fn backup_to(engine: &Engine, target: &Path) -> Result<()> {
    let _claim = Claim::take(target);
    if target.exists() {
        let same = match engine.path() {
            Some(src) => same_file(&src, target),
            None => false,
        };
        if !same {
            return Err(exists(target));
        }
        return Err(Error::BackupTarget {
            target: target.to_path_buf(),
            reason: "it is the database itself; back up to another path",
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
    remove_dead_process_temps(target, "backup");
    let base = temp_base(target);
    let staging = if encrypted {
        sibling(&base, ".fork")
    } else {
        target.to_path_buf()
    };
    let tmp = sibling(&base, if encrypted { ".fork.tmp" } else { ".tmp" });
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
    // The fork's name is this process's own; the target may be taken
    // meanwhile by another backup, whose file stays.
    let placed = if encrypted {
        rename(&tmp, &staging, faults)
    } else {
        rename_new(&tmp, &staging, faults).map_err(|e| exists_if_taken(e, target))
    };
    if let Err(e) = placed {
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
    rename_new(staging, target, faults.as_deref()).map_err(|e| exists_if_taken(e, target))?;
    // Its checkpoint is bound to the new id: it goes with it, unless a
    // file is at its name (which a checkpoint of the copy's id only would
    // be accepted as; the copy then makes its own, and the caller removes
    // this one).
    let ckpt = sibling(staging, ".ckpt");
    if rename_noreplace(&ckpt, &sibling(target, ".ckpt")).is_ok() {
        note(faults.as_deref(), || FsEvent::Renamed {
            from: ckpt.clone(),
            to: sibling(target, ".ckpt"),
        });
    }
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}
