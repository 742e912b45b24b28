//! Opening a log file: creating it, reading its header and sync slot,
//! binding its record keys, and loading its checkpoint.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{now_ms, Generation, WriterState};
use crate::config::{Config, KeyScope, Smallest};
use crate::crypto::Crypt;
use crate::error::{Error, Result};
use crate::fault::{self, Faults, FsEvent, WriteSite};
use crate::flush::FlushPolicy;

use crate::format::checkpoint::Binding;
use crate::format::header::{
    HeaderError, Identity, SyncSlot, FLAG_ENCRYPTED, FORMAT_VERSION, HEADER_SIZE,
};
use crate::fs::{self as efs, sibling};
use crate::index::{Keydir, SHARDS};
use crate::lock::WriterLock;
use crate::log::{Log, LogFile, Region};
use crate::namespace::{frame_at, NsEntry, NsTable};
use crate::recovery::{self, RecoveryReport};
use crate::replay;
use crate::sorted::{Base, SealedBase, Sorted};

/// A fresh random database id.
pub(crate) fn random_id() -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let mut id = [0u8; 16];
    for (i, chunk) in id.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.write_u32(std::process::id());
        h.write_usize(i);
        chunk.copy_from_slice(&h.finish().to_le_bytes());
    }
    id
}

pub(super) fn new_identity() -> Identity {
    Identity {
        version: FORMAT_VERSION,
        flags: 0,
        db_id: random_id(),
        generation: 0,
        created_ms: now_ms(),
    }
}

/// Path of the checkpoint file of a database.
pub(crate) fn checkpoint_path(db: &Path) -> PathBuf {
    sibling(db, ".ckpt")
}

/// Path of the new file an encryption rewrite writes before its rename.
pub(crate) fn enc_tmp_path(db: &Path) -> PathBuf {
    sibling(db, ".enc.tmp")
}

/// Path of compaction's temporary file.
pub(crate) fn compact_tmp_path(db: &Path) -> PathBuf {
    sibling(db, ".compact.tmp")
}

/// A header page for a new database, encrypted when `cfg` has a key.
pub(super) fn new_header_page(cfg: &Config) -> Result<Vec<u8>> {
    let mut id = new_identity();
    match &cfg.encryption {
        None => Ok(id.page()),
        #[cfg(feature = "encrypt")]
        Some(input) => {
            id.flags |= FLAG_ENCRYPTED;
            let mut page = id.page();
            let (_, hdr) = Crypt::create(input, cfg.cipher, cfg.kdf_params, id.db_id)?;
            hdr.encode_into(&mut page);
            Ok(page)
        }
        #[cfg(not(feature = "encrypt"))]
        Some(_) => {
            let _ = &mut id;
            Err(Error::FeatureDisabled("encryption"))
        }
    }
}

/// The record keys of a log, from its header page and the configured secret.
pub(crate) fn crypt_for(
    cfg: &Config,
    path: &Path,
    id: &Identity,
    page: &[u8],
) -> Result<Option<Arc<Crypt>>> {
    let encrypted = keys_fit(path, id, cfg.encryption.is_some())?;
    match (encrypted, &cfg.encryption) {
        (false, _) | (true, None) => Ok(None),
        #[cfg(feature = "encrypt")]
        (true, Some(input)) => {
            let hdr = crate::crypto::EncHeader::decode(page).map_err(|r| Error::Corruption {
                path: Some(path.to_path_buf()),
                offset: crate::crypto::ENC_AT as u64,
                reason: r.to_string(),
            })?;
            Ok(Some(Arc::new(Crypt::open(
                input,
                &hdr,
                id.db_id,
                id.generation,
            )?)))
        }
        #[cfg(not(feature = "encrypt"))]
        (true, Some(_)) => {
            let _ = page;
            Err(Error::FeatureDisabled("opening an encrypted database"))
        }
    }
}

/// Whether the file whose identity is `id` is encrypted, once a handle
/// with (`keyed`) or without a secret may read it: `NotEncrypted` or
/// `EncryptionRequired` otherwise.
pub(crate) fn keys_fit(path: &Path, id: &Identity, keyed: bool) -> Result<bool> {
    let encrypted = id.flags & FLAG_ENCRYPTED != 0;
    match (encrypted, keyed) {
        (false, true) => Err(Error::NotEncrypted {
            path: path.to_path_buf(),
        }),
        (true, false) => Err(Error::EncryptionRequired {
            path: path.to_path_buf(),
        }),
        _ => Ok(encrypted),
    }
}

/// Temp files a writer of `db` writes and renames into place, which a
/// process killed at the wrong moment leaves behind: a compaction's new
/// log, a new file's first page, the checkpoints (explicit and automatic),
/// the stats, the tail index. (A writer's open removes the last after
/// recovery, which may still write one; here it matters for the temp
/// database of an encryption change.)
pub(crate) fn writer_temps(db: &Path) -> [PathBuf; 6] {
    let ckpt = checkpoint_path(db);
    [
        compact_tmp_path(db),
        sibling(db, CREATE_TEMP),
        sibling(&ckpt, crate::checkpoint::TEMP),
        sibling(&ckpt, crate::checkpoint::AUTO_TEMP),
        crate::stats::sidecar_tmp_path(db),
        crate::tail_index::tmp_path(db),
    ]
}

/// Suffix of the temp file a new database's first page is written to.
const CREATE_TEMP: &str = ".create.tmp";

/// Create a new, empty database file at `path` atomically.
pub(super) fn create_file(path: &Path, cfg: &Config) -> Result<()> {
    let faults = cfg.faults.as_deref();
    let tmp = sibling(path, CREATE_TEMP);
    let created = (|| {
        let f = efs::create_fresh(&tmp)?;
        write_page(&f, &tmp, &new_header_page(cfg)?, faults)?;
        efs::rename(&tmp, path, faults)
    })();
    if created.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    created?;
    efs::fsync_parent(path, faults)
}

/// Write and fsync the header page of a new file.
pub(super) fn write_page(
    f: &File,
    path: &Path,
    page: &[u8],
    faults: Option<&Faults>,
) -> Result<()> {
    fault::write_all_at(faults, WriteSite::Header, f, page, 0)
        .map_err(|e| Error::io("write header", Some(path), e))?;
    f.sync_all()
        .map_err(|e| Error::io("fsync", Some(path), e))?;
    fault::note(faults, || FsEvent::Synced(path.to_path_buf()));
    Ok(())
}

pub(crate) fn read_identity(
    file: &File,
    path: &Path,
    len: u64,
) -> Result<(Identity, SyncSlot, Vec<u8>)> {
    use std::os::unix::fs::FileExt;
    let mut page = vec![0u8; HEADER_SIZE.min(len as usize)];
    file.read_exact_at(&mut page, 0)
        .map_err(|e| Error::io("read header", Some(path), e))?;
    let id = Identity::decode(&page).map_err(|e| match e {
        HeaderError::Foreign(reason) => Error::NotADatabase {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        },
        HeaderError::Version(found) => Error::UnsupportedVersion {
            path: path.to_path_buf(),
            found,
            supported: FORMAT_VERSION,
        },
        HeaderError::Damaged(reason) => Error::Corruption {
            path: Some(path.to_path_buf()),
            offset: 0,
            reason: reason.to_string(),
        },
    })?;
    let slot = SyncSlot::newest(&page);
    Ok((id, slot, page))
}

/// Try to use the checkpoint that belongs to this log: a version-2 image is
/// mapped (constant time), a version-1 one decoded into memory. A `writer`
/// keeps the sorted blocks for its next checkpoint to start from
/// (`Sorted::set_checkpointed`).
pub(super) fn load_checkpoint(
    path: &Path,
    id: &Identity,
    bytes: &[u8],
    crypt: Option<Arc<Crypt>>,
    writer: bool,
) -> std::result::Result<Option<(Binding, NsTable)>, String> {
    let Some(loaded) = crate::checkpoint::open(&checkpoint_path(path), SHARDS, crypt.as_deref())?
    else {
        return Ok(None);
    };
    let b = loaded.binding();
    if b.db_id != id.db_id || b.generation != id.generation {
        return Err("checkpoint belongs to another log generation".into());
    }
    if b.covered_end < HEADER_SIZE as u64 || b.covered_end > bytes.len() as u64 {
        return Err("checkpoint covers more than the log holds".into());
    }
    if b.last_frame_at == 0 {
        if b.covered_end != HEADER_SIZE as u64 {
            return Err("checkpoint binding is inconsistent".into());
        }
    } else {
        frame_at(bytes, b.last_frame_at).map_err(|e| e.to_string())?;
        if !ends_with_frame(bytes, b.covered_end, b.last_frame_at, b.last_frame_crc) {
            return Err("checkpoint does not match the log's content".into());
        }
    }
    let next_ns_id = loaded.next_ns_id();
    let inconsistent = || "checkpoint index image is inconsistent".to_string();
    let keydirs: Vec<(u32, Vec<u8>, Keydir, Sorted)> = match loaded {
        crate::checkpoint::Loaded::V1(cp) => cp
            .namespaces
            .into_iter()
            .map(|img| {
                let (id, name) = (img.id, img.name.clone());
                let kd = Keydir::from_image(img, b.covered_end).ok_or_else(inconsistent)?;
                Ok((id, name, kd, Sorted::unbuilt()))
            })
            .collect::<std::result::Result<_, String>>()?,
        crate::checkpoint::Loaded::V2 {
            header,
            metas,
            image,
        } => metas
            .into_iter()
            .map(|m| {
                let kd = Keydir::over_image(&m, &image).ok_or_else(inconsistent)?;
                let sorted = match m.sorted {
                    None => Sorted::unbuilt(),
                    // One entry per live key, or the checkpoint is not used.
                    Some(p) if p.len != kd.len() => return Err(inconsistent()),
                    Some(p) => {
                        let at = usize::try_from(p.at).map_err(|_| inconsistent())?;
                        let len = usize::try_from(p.len).map_err(|_| inconsistent())?;
                        let image = Arc::clone(&image);
                        match &crypt {
                            // A plain database's, used in place.
                            None => {
                                let sorted = Sorted::over(Base::Mapped { image, at, len });
                                // A writer's next checkpoint starts from it.
                                if writer {
                                    sorted.base_is_checkpointed(b.covered_end);
                                }
                                sorted
                            }
                            // Sealed in chunks (docs/FORMAT.md).
                            Some(c) => {
                                let aad = crate::format::checkpoint::sorted_aad_prefix(
                                    &header, m.id, p.len,
                                );
                                let base = Base::Sealed(Arc::new(SealedBase::new(
                                    image,
                                    Arc::clone(c),
                                    at,
                                    len,
                                    aad,
                                )));
                                let sorted = Sorted::over(base.clone());
                                // A writer's next checkpoint starts from it.
                                if writer {
                                    sorted.set_checkpointed(b.covered_end, base);
                                }
                                sorted
                            }
                        }
                    }
                };
                Ok((m.id, m.name, kd, sorted))
            })
            .collect::<std::result::Result<_, String>>()?,
    };
    let mut table = NsTable::new(crypt.clone());
    for (id, name, keydir, sorted) in keydirs {
        table.insert(Arc::new(NsEntry::with_keydir(
            id,
            name,
            keydir,
            sorted,
            crypt.clone(),
        )));
    }
    table.next_id = table.next_id.max(next_ns_id);
    Ok(Some((b, table)))
}

/// Fail with `NotADatabase` before creating any sibling file (lock, temp)
/// when `path` holds something that is not an emdb log.
pub(crate) fn refuse_foreign(path: &Path) -> Result<()> {
    use std::io::Read;
    // Not opened unless a regular file: opening a FIFO waits for a writer,
    // and a device (`/dev/null`) is no database either.
    if let Ok(m) = std::fs::metadata(path) {
        if !m.is_file() && !m.is_dir() {
            return Err(Error::NotADatabase {
                path: path.to_path_buf(),
                reason: "not a regular file".into(),
            });
        }
    }
    let Ok(mut f) = File::open(path) else {
        return Ok(()); // missing (created later) or unreadable (reported later)
    };
    let mut magic = [0u8; 8];
    let n = f.read(&mut magic).unwrap_or(0);
    if n == 0 {
        return Ok(()); // empty: becomes a new database
    }
    if magic[..n] != crate::format::header::MAGIC[..n] {
        return Err(Error::NotADatabase {
            path: path.to_path_buf(),
            reason: "magic bytes do not match".into(),
        });
    }
    Ok(())
}

/// A descriptor on `path` whose writes are durable on return (`O_DSYNC`).
pub(super) fn open_dsync(path: &Path, faults: Option<&Faults>) -> Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    Faults::check(faults.map(|f| &f.fail_open), libc::EMFILE)
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_DSYNC | libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(path)
        })
        .map_err(|e| Error::io("open O_DSYNC", Some(path), e))
}

/// Write a sync slot that claims the file for this writer: the next
/// sequence number after `newest`, the same durable end. Returns its number.
pub(super) fn claim(file: &File, path: &Path, newest: SyncSlot) -> Result<u64> {
    use std::os::unix::fs::FileExt;
    let mine = SyncSlot {
        seq: newest.seq + 1,
        ..newest
    };
    file.write_all_at(&mine.encode(), SyncSlot::offset(mine.seq) as u64)
        .map_err(|e| Error::io("write sync slot", Some(path), e))?;
    Ok(mine.seq)
}

/// What opening a log file produced, for the engine to assemble.
pub(super) struct Opened {
    pub cfg: Config,
    pub gen: Generation,
    pub writer: WriterState,
    pub report: RecoveryReport,
    pub lock: Option<WriterLock>,
    /// Records sealed under the current key before this open (from the
    /// newest sync slot).
    pub encryptions: u64,
    /// The sync-slot sequence number this open claimed the file with.
    pub claimed_seq: u64,
}

/// Open (creating if needed) the log file at `path` and recover it: read
/// its header, bind its record keys, load its checkpoint, replay the rest
/// (see `recovery.rs` and `follower.rs`), and cut a torn tail.
/// A writer refuses a database file that has another name (a hard link):
/// the writer lock is per name, so a writer through the other name would
/// not be kept out, and two one-shot writers could each append, sync and
/// acknowledge over the other's records before either noticed. The one
/// other name allowed is `<db>.encbak` of an interrupted encryption change
/// (a link to the database until its rename), which only the next
/// encryption change reads.
fn refuse_second_name(file: &File, path: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = file
        .metadata()
        .map_err(|e| Error::io("stat", Some(path), e))?;
    if meta.nlink() <= 1 {
        return Ok(());
    }
    let same = |m: &std::fs::Metadata| m.dev() == meta.dev() && m.ino() == meta.ino();
    if meta.nlink() == 2 && std::fs::metadata(sibling(path, ".encbak")).is_ok_and(|m| same(&m)) {
        return Ok(());
    }
    Err(Error::InvalidPath {
        reason: format!(
            "{} has {} names (hard links to one file); the writer lock is per name, so a \
             writer through another name would not be kept out: remove the other links, \
             or copy the file, before writing to it (reading it is fine)",
            path.display(),
            meta.nlink()
        ),
    })
}

pub(super) fn open_file(cfg: Config, path: PathBuf) -> Result<Opened> {
    if path.is_dir() {
        return Err(Error::InvalidPath {
            reason: format!(
                "{} is a directory; give the path of a database file",
                path.display()
            ),
        });
    }
    refuse_foreign(&path)?;
    let lock = if cfg.read_only {
        None
    } else {
        Some(WriterLock::acquire(&path, cfg.faults.as_deref())?)
    };
    let exists = path.exists();
    if !exists {
        if cfg.read_only {
            return Err(Error::io(
                "open",
                Some(&path),
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
        create_file(&path, &cfg)?;
    }
    if !cfg.read_only {
        // With the writer lock held no other writer, compaction or
        // encryption change runs: what their temp files hold is never read,
        // only removed (a checkpoint's is as big as the index image).
        for stale in writer_temps(&path) {
            let _ = std::fs::remove_file(stale);
        }
        // A killed encryption change (`decrypt` above all) left its new
        // file, maybe plaintext, its siblings, and their own temp files.
        let enc_tmp = enc_tmp_path(&path);
        for stale in writer_temps(&enc_tmp) {
            let _ = std::fs::remove_file(stale);
        }
        for stale in [".ckpt", ".tail", ".lock", ".stats"] {
            let _ = std::fs::remove_file(sibling(&enc_tmp, stale));
        }
        let _ = std::fs::remove_file(&enc_tmp);
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(!cfg.read_only)
        .open(&path)
        .map_err(|e| Error::io("open", Some(&path), e))?;
    if !cfg.read_only {
        refuse_second_name(&file, &path)?;
    }
    let mut len = file
        .metadata()
        .map_err(|e| Error::io("stat", Some(&path), e))?
        .len();
    if len == 0 && !cfg.read_only {
        // An empty file (for example made by mktemp) becomes a new
        // database. A failed write leaves it empty again, not half a header.
        if let Err(e) = write_page(&file, &path, &new_header_page(&cfg)?, cfg.faults.as_deref()) {
            let _ = file.set_len(0);
            return Err(e);
        }
        len = HEADER_SIZE as u64;
    }
    if len < HEADER_SIZE as u64 {
        read_identity(&file, &path, len)?;
        return Err(Error::Corruption {
            path: Some(path.clone()),
            offset: len,
            reason: "file is shorter than its header".into(),
        });
    }
    let (identity, slot, page) = read_identity(&file, &path, len)?;
    if cfg.read_only {
        // A writer may be appending: the size as of after the sync slot
        // was read covers its durable end (see `replay_pread`).
        len = file
            .metadata()
            .map_err(|e| Error::io("stat", Some(&path), e))?
            .len()
            .max(len);
    }
    let crypt = crypt_for(&cfg, &path, &identity, &page)?;
    let map_len = usize::try_from(len).map_err(|_| Error::DatabaseFull {
        requested: len,
        max: crate::limits::MAX_LOG_SIZE,
    })?;
    let region = if cfg.read_only {
        Region::map_file_read_only(&file, map_len)
    } else {
        Region::map_file(&file, map_len)
    }
    .map_err(|e| Error::io("mmap", Some(&path), e))?;
    if cfg.only_keys.is_some() && cfg.read_only {
        // One key's record (and its older ones) is all this handle reads
        // through the mapping (its tail is read with `pread`): with a cold
        // page cache each would otherwise read the whole read-around
        // window (8 MiB on this machine's disk). A writer opened for a few
        // keys scans its tail through the mapping, where read-around is
        // what it needs (cold, 13x faster than with this advice).
        let _ = region.advise(memmap2::Advice::Random);
    }
    let bytes = region.slice(0, len).unwrap_or_default();

    let mut report = RecoveryReport::default();
    // Salvage reads every record: damage under a checkpoint must be found too.
    let checkpoint = if cfg.salvage {
        Ok(None)
    } else {
        load_checkpoint(&path, &identity, bytes, crypt.clone(), !cfg.read_only)
    };
    let (mut table, start, cp_last) = match checkpoint {
        Ok(Some((binding, table))) => {
            report.used_checkpoint = true;
            (table, binding.covered_end, binding.last_frame_at)
        }
        Ok(None) => (NsTable::new(crypt.clone()), HEADER_SIZE as u64, 0),
        Err(reason) => {
            report.checkpoint_rejected = Some(reason);
            (NsTable::new(crypt.clone()), HEADER_SIZE as u64, 0)
        }
    };
    // What the checkpoint covers, whatever a tail index adds below.
    let checkpoint_end = start;
    // A one-key or one-range read starts past the writer's tail index
    // when it has one; so does a count, which indexes the keys written
    // past it and takes every namespace's counts from it.
    let mut scope = match &cfg.only_keys {
        Some(KeyScope::First {
            namespace,
            start: from,
            end: to,
            want,
        }) => {
            // The first pairs of a range lie before the key `want` entries
            // past its start in the checkpoint's order, unless the tail
            // removed many of them: the caller checks, and reads the whole
            // range if it did.
            let ns = match namespace {
                None => Some(table.default()),
                Some(name) => table.by_name(name),
            };
            let keys = crate::sorted::KeySource {
                bytes,
                crypt: crypt.as_deref(),
            };
            let bound = match (ns, report.used_checkpoint) {
                // A record the search cannot read (damage, perhaps far
                // past the range) is no reason to fail: the whole range is
                // read instead, and reports what damage it meets itself.
                (Some(ns), true) => ns
                    .sorted
                    .base_key_past(
                        keys,
                        from.as_ref().map(|k| &k[..]),
                        to.as_ref().map(|k| &k[..]),
                        *want,
                    )
                    .unwrap_or(None),
                _ => None,
            };
            let to = match &bound {
                Some(b) => std::ops::Bound::Included(Arc::from(&b[..])),
                None => to.clone(),
            };
            report.narrowed_to = bound.map(std::ops::Bound::Included);
            Some(match ns {
                // Of the keys the tail touches there, only the smallest
                // are indexed (`config::Smallest`): twice what is wanted,
                // for those the tail removed.
                Some(ns) => KeyScope::Smallest(Arc::new(Smallest::new(
                    ns.id,
                    from.clone(),
                    to,
                    want.saturating_mul(2),
                ))),
                // A namespace the checkpoint does not have: every key of
                // the range the tail touches.
                None => KeyScope::Range(from.clone(), to),
            })
        }
        other => other.clone(),
    };
    let mut scan_end = None;
    // A count's frames and bytes scanned past the tail index.
    let mut counted_past = None;
    let (start, cp_last) = match (scope.clone(), report.used_checkpoint) {
        // An encrypted database's tail index is sealed, its sorted section
        // too (one written before 2026-11-28 has none, and its ranges read
        // the whole tail: `UsableTail::frames`). A writer opened for a few
        // keys reads and checks its whole tail instead, as every writer
        // does before it appends: the log a tail index covers is not read
        // through it.
        (Some(wanted), true) if cfg.read_only => {
            let limit = crate::log::written_end(&file, len, slot.durable_end.max(start)).min(len);
            let durable = slot.durable_end.max(start);
            let used = UsableTail::open(&path, &identity, start, bytes, limit, &table).and_then(
                |mut tail| match &wanted {
                    KeyScope::Counts => match tail.counts_past(limit, durable) {
                        Some(past) => Some((tail.ix.header, Vec::new(), Some(past))),
                        // The log past the index holds what counts cannot
                        // be moved by (a namespace created, dropped or
                        // cleared, a unit that does not decode): layer the
                        // tail index as a full read-only open does, and
                        // count after replaying only the log past it.
                        None if cfg.layer_tail && !cfg.salvage => {
                            // The layer reads every frame the file lists,
                            // in log order: let the kernel read around
                            // them, as it does for a full open.
                            let _ = region.advise(memmap2::Advice::Normal);
                            tail.layer().map(|()| (tail.ix.header, Vec::new(), None))
                        }
                        None => None,
                    },
                    _ => {
                        let offs = tail.frames(&wanted)?;
                        Some((tail.ix.header, offs, None))
                    }
                },
            );
            match used {
                Some((header, offs, counted)) => {
                    for off in offs {
                        let f = frame_at(bytes, off)?;
                        table.apply(bytes, off, &f).map_err(|e| e.strict(off))?;
                    }
                    report.used_tail_index = true;
                    match counted {
                        Some(past) => {
                            for c in past.counts {
                                if let Some(ns) = table.get(c.ns) {
                                    ns.keydir.set_counts(c.live, c.live_bytes, c.expiring);
                                }
                            }
                            // Nothing is indexed: the counts are all the
                            // handle answers for. They were moved up to
                            // where the scan stopped: nothing is left to
                            // replay.
                            scope = Some(KeyScope::Nothing);
                            report.counts_only = true;
                            scan_end = Some(past.end);
                            counted_past = Some((past.frames, past.end - header.end));
                            (past.end, past.last_frame_at)
                        }
                        None => (header.end, header.last_frame_at),
                    }
                }
                None => (start, cp_last),
            }
        }
        // A full read-only open (a handle, a follower, the TUI) beside a
        // writer: the tail since the checkpoint is layered over its mapped
        // index from the tail index, and only the log past that replayed.
        (None, true) if cfg.read_only && !cfg.salvage && cfg.layer_tail => {
            let limit = crate::log::written_end(&file, len, slot.durable_end.max(start)).min(len);
            let layered = UsableTail::open(&path, &identity, start, bytes, limit, &table)
                .and_then(|mut tail| tail.layer().map(|()| tail.ix.header));
            match layered {
                Some(header) => {
                    report.used_tail_index = true;
                    (header.end, header.last_frame_at)
                }
                None => (start, cp_last),
            }
        }
        _ => (start, cp_last),
    };
    // A count that could not take its counts from a tail index counts
    // everything it replays (over a layered tail index, or from the
    // checkpoint).
    if matches!(scope, Some(KeyScope::Counts)) {
        scope = None;
    }
    // Everything the checkpoint (and a tail index) covers was synced
    // before it was written.
    let durable_end = slot.durable_end.max(start);
    let replayed = if cfg.read_only {
        // Another process may be writing: read new bytes with pread only,
        // up to what it had written by now.
        recovery::replay_pread(
            &recovery::LogSource {
                file: &file,
                path: &path,
                region: &region,
                only_keys: scope.as_ref(),
            },
            start,
            // A count stops where its scan for the keys to index stopped.
            scan_end.unwrap_or_else(|| crate::log::written_end(&file, len, durable_end)),
            durable_end,
            &mut table,
            &|_| {},
            cfg.salvage.then_some(&mut report.skipped),
        )
        .map(|f| {
            report.records_replayed = f.applied as u64;
            (
                f.end,
                f.last_frame_at.unwrap_or(cp_last),
                f.last_frame_at.is_some(),
            )
        })
    } else {
        recovery::replay(
            bytes,
            start,
            durable_end,
            cfg.salvage,
            scope.as_ref(),
            &mut table,
            &mut report,
        )
        .map_err(|e| e.with_path(&path))
        .map(|r| {
            (
                r.end,
                r.last_frame.map_or(cp_last, |(at, _)| at),
                r.last_frame.is_some(),
            )
        })
    };
    // Replay (and the checkpoint check) read the mapping: if another
    // process cut the file meanwhile, what they found is not the log,
    // and cutting a "torn tail" now would destroy more.
    if let Some(at) = region.cut_at() {
        return Err(crate::log::cut_error(Some(&path), Some(&file), at, len));
    }
    let (mut end, last_frame_at, _) = replayed?;
    if let (Some(KeyScope::Smallest(held)), Some(KeyScope::First { namespace, .. })) =
        (&scope, &cfg.only_keys)
    {
        // The namespace read, dropped and created again since the
        // checkpoint, has a new id whose keys were not held.
        let now = match namespace {
            None => Some(table.default().id),
            Some(name) => table.by_name(name).map(|ns| ns.id),
        };
        report.namespace_replaced = now.is_some_and(|id| id != held.ns());
    }
    if let Some(KeyScope::Smallest(held)) = &scope {
        // Only the keys below the cut are complete: a first-pairs read
        // reads up to there (or to the checkpoint's bound, if lower).
        if let Some(cut) = held.cut() {
            report.narrowed_to = Some(match report.narrowed_to.take() {
                Some(std::ops::Bound::Included(b)) if b < cut => std::ops::Bound::Included(b),
                _ => std::ops::Bound::Excluded(cut),
            });
        }
    }
    report.replayed_bytes = end.saturating_sub(start);
    if let Some((frames, bytes)) = counted_past {
        report.records_replayed = frames;
        report.replayed_bytes = bytes;
    }
    // A writer claims the file with a sync slot of its own (same durable
    // end, next sequence number): a writer still running on it (its
    // lock file removed under it) sees a slot it did not write before
    // its next write, and stops instead of writing over this one's.
    let claimed = if cfg.read_only {
        slot.seq
    } else {
        claim(&file, &path, slot)?
    };

    let mut region = region;
    // A spare of zeros a clean close left (CLOSE_KEEP_SPARE) holds no
    // frame to land in front of: it is kept for the first appends.
    // (Read-only opens never cut: they do not look.)
    let spare = || super::keeps_spare(end, len) && crate::log::zeros_between(&file, end, len);
    if !cfg.read_only && len > end && !spare() {
        // Cut everything past the end (a torn tail, frames of a batch
        // whose header never landed, preallocated zeros) and make the cut
        // durable, so new appends never land in front of stale frames.
        end = end.min(len);
        drop(region);
        file.set_len(end)
            .and_then(|_| file.sync_all())
            .map_err(|e| Error::io("truncate torn tail", Some(&path), e))?;
        fault::note(cfg.faults.as_deref(), || FsEvent::Synced(path.clone()));
        len = end;
        region =
            Region::map_file(&file, end as usize).map_err(|e| Error::io("mmap", Some(&path), e))?;
    } else if !cfg.read_only && end > durable_end {
        // A writer that stopped without syncing left whole records past
        // its last sync: make them durable now, before a checkpoint or a
        // tail index is bound to them.
        file.sync_data()
            .map_err(|e| Error::io("fdatasync", Some(&path), e))?;
        fault::note(cfg.faults.as_deref(), || FsEvent::Synced(path.clone()));
    }
    let _ = len;
    if !cfg.read_only {
        crate::tail_index::remove_if_past(&path, end);
        // A tail index write that crashed before its rename left this.
        let _ = std::fs::remove_file(crate::tail_index::tmp_path(&path));
    }
    let dsync = if cfg.read_only || !matches!(cfg.flush_policy, FlushPolicy::WriteThrough) {
        None
    } else {
        Some(open_dsync(&path, cfg.faults.as_deref())?)
    };
    let mut log = Log::new(
        identity,
        Some(LogFile {
            path: path.clone(),
            file,
            dsync,
        }),
        region,
        end,
    );
    log.faults = cfg.faults.clone();
    log.claim_seq(claimed);
    if cfg.read_only {
        log.note_followed_durable(durable_end);
        if last_frame_at >= HEADER_SIZE as u64 {
            log.note_followed(&log.region(), last_frame_at);
        }
    }
    let w = WriterState {
        end,
        last_frame_at,
        // What the checkpoint file on disk covers; 0 (none was used:
        // missing or rejected) makes the next close write one, since this
        // open paid for replaying the whole log anyway.
        checkpointed_end: if report.used_checkpoint {
            checkpoint_end
        } else {
            0
        },
        tail_indexed_end: 0,
        closed_end: None,
    };
    Ok(Opened {
        cfg,
        gen: Generation::new(log, table),
        writer: w,
        report,
        lock,
        encryptions: slot.encryptions,
        claimed_seq: claimed,
    })
}

/// True when the log `bytes` holds, at `last_frame_at`, a frame that
/// decodes, carries the stored CRC `crc` and ends at `end`: how a
/// checkpoint or tail index bound to the log up to `end` checks that the
/// log still holds what it was written against.
fn ends_with_frame(bytes: &[u8], end: u64, last_frame_at: u64, crc: u32) -> bool {
    frame_at(bytes, last_frame_at).is_ok_and(|f| last_frame_at + f.len as u64 == end)
        && replay::stored_crc(bytes, last_frame_at) == crc
}

/// What [`UsableTail::counts_past`] found.
struct CountedPast {
    /// Every namespace's counts as of `end`.
    counts: Vec<crate::tail_index::NsCounts>,
    /// Where the scan past the index stopped (a unit boundary).
    end: u64,
    /// The last frame before `end`.
    last_frame_at: u64,
    /// Frames scanned past the index.
    frames: u64,
}

/// A key's state for a count: the length and expiry of its live record,
/// `None` when it has none.
type KeyState = Option<(u64, u64)>;

/// A key's state at a tail index's end, as the index says.
enum AtEnd {
    /// Its newest frame there is a put of this length and expiry.
    Put(u64, u64),
    /// Its newest frame there is a delete.
    Deleted,
    /// The index holds no frame of it: the checkpoint's entry stands.
    NotHere,
}

/// The writer's tail index beside the checkpoint covering the log up to
/// `base_end`, checked against the log (docs/FORMAT.md, "Tail index
/// file"), for a scoped open.
struct UsableTail<'a> {
    ix: crate::tail_index::TailIndex,
    base_end: u64,
    bytes: &'a [u8],
    table: &'a NsTable,
}

impl<'a> UsableTail<'a> {
    /// `None` when there is no usable one (missing, for another
    /// checkpoint, damaged, past `limit`, the bytes written so far, or not
    /// matching the log), and the whole tail is scanned instead.
    fn open(
        db: &Path,
        identity: &Identity,
        base_end: u64,
        bytes: &'a [u8],
        limit: u64,
        table: &'a NsTable,
    ) -> Option<UsableTail<'a>> {
        let base = crate::tail_index::Base {
            db_id: identity.db_id,
            generation: identity.generation,
            end: base_end,
        };
        // A sealed file for an encrypted database, a plain one otherwise.
        let ix = crate::tail_index::TailIndex::open(db, base, table.crypt.clone()).ok()??;
        let h = ix.header;
        if h.end > limit
            || h.end > bytes.len() as u64
            || h.last_frame_at < base_end
            || !ends_with_frame(bytes, h.end, h.last_frame_at, h.last_frame_crc)
        {
            return None;
        }
        Some(UsableTail {
            ix,
            base_end,
            bytes,
            table,
        })
    }

    /// A frame the index points to: inside what it covers, CRC-checked, a
    /// put or delete of a namespace the checkpoint has, plain (sealed in
    /// a sealed file: its key and value are then the sealed payload; see
    /// [`UsableTail::has_key`]).
    fn frame(&self, off: u64) -> Option<crate::format::record::Frame<'a>> {
        use crate::format::record::Kind;
        if off < self.base_end || off >= self.ix.header.end {
            return None;
        }
        let f = frame_at(self.bytes, off).ok()?;
        (f.sealed == self.ix.header.sealed
            && matches!(f.kind, Kind::Put | Kind::Delete)
            && self.table.get(f.ns).is_some())
        .then_some(f)
    }

    /// Whether the frame at `off` (as [`UsableTail::frame`] takes it) is
    /// one of `key`: a sealed one is decrypted and authenticated first.
    fn has_key(&self, off: u64, key: &[u8]) -> Option<bool> {
        let mut opened = zeroize::Zeroizing::new(Vec::new());
        Some(self.key_at(off, &mut opened)?.1 == key)
    }

    /// The namespace and key of the frame at `off` (as
    /// [`UsableTail::frame`] takes it; a sealed one decrypted into
    /// `opened` and authenticated).
    fn key_at<'b>(
        &self,
        off: u64,
        opened: &'b mut zeroize::Zeroizing<Vec<u8>>,
    ) -> Option<(u32, &'b [u8])>
    where
        'a: 'b,
    {
        let f = self.frame(off)?;
        let f = crate::namespace::open_frame(f, off, self.table.crypt.as_deref(), opened).ok()?;
        Some((f.ns, f.key))
    }

    /// The offsets of the newest frames of the keys in `scope` (one per
    /// key and namespace) the index holds. One key is looked up by its
    /// hash, a range by a search of the sorted section
    /// (`sorted::lower_bound`).
    fn frames(&mut self, scope: &KeyScope) -> Option<Vec<u64>> {
        let mut offs = Vec::new();
        match scope {
            KeyScope::Keys(keys) => {
                for key in keys.iter() {
                    for off in self
                        .ix
                        .lookup(crate::tail_index::key_hash(
                            key,
                            self.table.crypt.as_deref(),
                        ))
                        .ok()?
                    {
                        if self.has_key(off, key)? {
                            offs.push(off);
                        }
                    }
                }
                // Applied in log order, as a replay would.
                offs.sort_unstable();
            }
            // A sealed file written before 2026-11-28 has no sorted
            // section to search.
            _ if self.ix.header.sorted_count != self.ix.header.entries => return None,
            KeyScope::Nothing => {}
            KeyScope::Range(..) | KeyScope::Smallest(_) => {
                // The first entry not before `start`, then every one up to
                // the end of the range.
                let start = match scope {
                    KeyScope::Smallest(s) => &s.start,
                    KeyScope::Range(start, _) => start,
                    _ => return None,
                };
                let count = usize::try_from(self.ix.header.sorted_count).ok()?;
                let unusable = || crate::error::Error::corruption(0, "unusable tail index");
                let mut opened = zeroize::Zeroizing::new(Vec::new());
                let lo =
                    crate::sorted::lower_bound(0, count, start.as_ref().map(|s| &s[..]), |i, k| {
                        let off = self.ix.sorted(i as u64).map_err(|_| unusable())?;
                        let (_, key) = self.key_at(off, &mut opened).ok_or_else(unusable)?;
                        if k.capacity() < key.len() {
                            // As `KeySource::read`: zeroed before it grows.
                            zeroize::Zeroize::zeroize(&mut *k);
                            k.reserve(key.len());
                        }
                        k.clear();
                        k.extend_from_slice(key);
                        Ok(())
                    })
                    .ok()? as u64;
                for i in lo..self.ix.header.sorted_count {
                    let off = self.ix.sorted(i).ok()?;
                    let (ns, key) = self.key_at(off, &mut opened)?;
                    if scope.holds(ns, key) {
                        offs.push(off);
                    } else if !matches!(scope, KeyScope::Smallest(s) if !s.past(key)) {
                        // Past the range (or the cut); a `Smallest` also
                        // skips the keys of other namespaces.
                        break;
                    }
                }
            }
            KeyScope::Counts | KeyScope::First { .. } => return None,
        }
        Some(offs)
    }

    /// For a count: every namespace's counts as of the end of the log
    /// written so far, up to `limit`, and where that is (the end of the
    /// last whole unit, and the offset of the last frame before it). They start from the index's count section (one
    /// entry for each namespace the checkpoint has, and no other) and move
    /// by each key written past the index: from its state at the index's
    /// end (the index's frame for it, or the checkpoint's entry) to that
    /// of its last record. Nothing is indexed. `None` when the index has
    /// no count section (version 1), or the log past it holds what a count
    /// cannot take from it: a namespace create, drop or clear, a sealed
    /// frame, or a unit that does not decode below `durable_end` (damage,
    /// which an open that indexes everything reports).
    fn counts_past(&mut self, limit: u64, durable_end: u64) -> Option<CountedPast> {
        use crate::format::record::Kind;
        use std::collections::HashMap;
        let mut counts = self.counts()?;
        // Each key's last record past the index: (length, expiry) of a
        // put, `None` for a delete. Read through the mapping, which a
        // writer may be appending to: only whole units that decode (CRC
        // checked) are taken, and the open checks the mapping was not cut
        // (`Region::cut_at`) before it uses anything read here.
        let mut last: HashMap<(u32, &'a [u8]), KeyState> = HashMap::new();
        let (mut at, mut last_frame) = (self.ix.header.end, self.ix.header.last_frame_at);
        let mut frames = 0u64;
        let written = self.bytes.get(..usize::try_from(limit).ok()?)?;
        while at < limit {
            let Ok(unit) = replay::decode_unit(written, at) else {
                if at < durable_end {
                    return None;
                }
                break;
            };
            at = unit.end();
            for (off, f) in unit.frames {
                last_frame = off;
                frames += 1;
                // Only a plain database's frames are taken here: in an
                // encrypted log every one must be opened (and a plain one
                // is corruption, which the replay a layered open does
                // reports).
                let plain = !f.sealed && self.table.crypt.is_none();
                let state = match f.kind {
                    Kind::Put if plain => Some((f.len as u64, f.expires_at)),
                    Kind::Delete if plain => None,
                    _ => return None,
                };
                last.insert((f.ns, f.key), state);
            }
        }
        // Looked up in the order of the index's slots: each page is read
        // once.
        let mut keys: Vec<_> = last
            .into_iter()
            .map(|((ns, key), after)| {
                let hash = crate::tail_index::key_hash(key, self.table.crypt.as_deref());
                (self.ix.home_slot(hash), hash, ns, key, after)
            })
            .collect();
        keys.sort_unstable_by_key(|k| (k.0, k.1));
        for (_, hash, ns, key, after) in keys {
            let before = match self.state_at_end(hash, ns, key)? {
                AtEnd::Put(len, exp) => Some((len, exp)),
                AtEnd::Deleted => None,
                AtEnd::NotHere => {
                    let entry = self.table.get(ns)?;
                    let found = entry
                        .keydir
                        .get(entry.hash(key), |o| {
                            crate::namespace::same_key(self.bytes, o, key, None)
                        })
                        .ok()?;
                    found.map(|o| crate::namespace::head_at(self.bytes, o))
                }
            };
            let c = counts.iter_mut().find(|c| c.ns == ns)?;
            let (b, a) = (before.unwrap_or((0, 0)), after.unwrap_or((0, 0)));
            let moved = |n: u64, plus: bool, minus: bool| -> Option<u64> {
                n.checked_add(u64::from(plus))?
                    .checked_sub(u64::from(minus))
            };
            c.live = moved(c.live, after.is_some(), before.is_some())?;
            c.expiring = moved(c.expiring, a.1 != 0, b.1 != 0)?;
            c.live_bytes = c.live_bytes.checked_add(a.0)?.checked_sub(b.0)?;
        }
        Some(CountedPast {
            counts,
            end: at,
            last_frame_at: last_frame,
            frames,
        })
    }

    /// The index's count section, if it names exactly the namespaces of
    /// the checkpoint.
    fn counts(&mut self) -> Option<Vec<crate::tail_index::NsCounts>> {
        let counts = self.ix.counts().ok()??;
        let ids: Vec<u32> = self.table.all().iter().map(|n| n.id).collect();
        if counts.len() != ids.len() || counts.iter().zip(&ids).any(|(c, &id)| c.ns != id) {
            return None;
        }
        Some(counts)
    }

    /// For a full read-only open: layer the newest frame of every key the
    /// index holds over its namespace's keydir (`Keydir::set_layer`), which
    /// then keeps every later change too, and take the counts from the
    /// count section. The checkpoint's mapped slots are left as they are,
    /// and no record the tail replaced is read. `None`, with nothing
    /// changed, when the index has no count section (version 1), its
    /// counts do not name the checkpoint's namespaces or move further from
    /// the checkpoint's than its entries can, or an entry is not a plain
    /// put or delete of one of them in the log it covers, or names a key
    /// the layer has already (the open then replays the tail).
    fn layer(&mut self) -> Option<()> {
        use crate::format::record::Kind;
        use crate::index::Layer;
        let counts = self.counts()?;
        // Read in log order: the frames lie together, past the checkpoint.
        let mut offs = if self.ix.header.sealed {
            self.ix.offsets().ok()?
        } else {
            let n = self.ix.header.sorted_count;
            let mut offs = Vec::with_capacity(usize::try_from(n.min(1 << 24)).ok()?);
            for i in 0..n {
                offs.push(self.ix.sorted(i).ok()?);
            }
            offs
        };
        offs.sort_unstable();
        let crypt = self.table.crypt.as_deref();
        let mut opened = zeroize::Zeroizing::new(Vec::new());
        let mut layers: Vec<(Layer, Vec<u64>)> = Vec::new();
        let all = self.table.all();
        let place: std::collections::HashMap<u32, usize> =
            all.iter().enumerate().map(|(i, ns)| (ns.id, i)).collect();
        layers.resize_with(all.len(), Default::default);
        for off in offs {
            // A sealed frame is decrypted and authenticated for its key.
            let f = crate::namespace::open_frame(self.frame(off)?, off, crypt, &mut opened).ok()?;
            let at = *place.get(&f.ns)?;
            let (layer, noted) = layers.get_mut(at)?;
            let (key, bytes) = (f.key, self.bytes);
            let is_key = |o| crate::namespace::same_key(bytes, o, key, crypt);
            let h = all[at].hash(key);
            let added = match f.kind {
                Kind::Put => layer.add_put(h, off, is_key),
                _ => all[at].keydir.add_delete(layer, h, off, is_key),
            };
            added.ok()?;
            noted.push(off);
        }
        // Each entry moves a namespace's live keys by one at most, and its
        // records lie in the log: counts past that are not the file's.
        let sane = layers
            .iter()
            .zip(all.iter().zip(&counts))
            .all(|((_, noted), (ns, c))| {
                let (base, moved) = (ns.keydir.len(), noted.len() as u64);
                c.live <= base.saturating_add(moved)
                    && base <= c.live.saturating_add(moved)
                    && c.live_bytes <= self.ix.header.end
            });
        if !sane {
            return None;
        }
        for ((layer, noted), (ns, c)) in layers.into_iter().zip(all.iter().zip(&counts)) {
            ns.keydir.set_counts(c.live, c.live_bytes, c.expiring);
            // A fresh table's keydirs have no layer yet.
            ns.keydir.set_layer(layer);
            ns.sorted.note_many(&noted);
        }
        Some(())
    }

    /// What the index says of `key` in namespace `ns` (hash `hash`);
    /// `None` when it cannot be read (the caller gives up on it).
    fn state_at_end(&mut self, hash: u64, ns: u32, key: &[u8]) -> Option<AtEnd> {
        use crate::format::record::Kind;
        for off in self.ix.lookup(hash).ok()? {
            let f = self.frame(off)?;
            if f.ns == ns && f.key == key {
                return Some(match f.kind {
                    Kind::Put => AtEnd::Put(f.len as u64, f.expires_at),
                    _ => AtEnd::Deleted,
                });
            }
        }
        Some(AtEnd::NotHere)
    }
}
