//! Opening a log file: creating it, reading its header and sync slot,
//! binding its record keys, and loading its checkpoint.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::now_ms;
use crate::builder::Config;
use crate::crypto::Crypt;
use crate::error::{Error, Result};
use crate::fault::{self, Faults, FsEvent, WriteSite};
use crate::format::checkpoint::Binding;
use crate::format::header::{
    HeaderError, Identity, SyncSlot, FLAG_ENCRYPTED, FORMAT_VERSION, HEADER_SIZE,
};
use crate::fs::{self as efs, sibling};
use crate::index::{Keydir, SHARDS};
use crate::namespace::{frame_at, NsEntry, NsTable};
use crate::replay;
use crate::sorted::{Base, Sorted};

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
    let encrypted = id.flags & FLAG_ENCRYPTED != 0;
    match (encrypted, &cfg.encryption) {
        (false, None) => Ok(None),
        (false, Some(_)) => Err(Error::NotEncrypted {
            path: path.to_path_buf(),
        }),
        (true, None) => Err(Error::EncryptionRequired {
            path: path.to_path_buf(),
        }),
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

/// Create a new, empty database file at `path` atomically.
pub(super) fn create_file(path: &Path, cfg: &Config) -> Result<()> {
    let faults = cfg.faults.as_deref();
    let tmp = sibling(path, ".create.tmp");
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
/// mapped (constant time), a version-1 one decoded into memory.
pub(super) fn load_checkpoint(
    path: &Path,
    id: &Identity,
    bytes: &[u8],
    crypt: Option<Arc<Crypt>>,
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
        let f = frame_at(bytes, b.last_frame_at).map_err(|e| e.to_string())?;
        if b.last_frame_at + f.len as u64 != b.covered_end
            || replay::stored_crc(bytes, b.last_frame_at) != b.last_frame_crc
        {
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
        crate::checkpoint::Loaded::V2 { metas, image, .. } => metas
            .into_iter()
            .map(|m| {
                let kd = Keydir::over_image(&m, &image).ok_or_else(inconsistent)?;
                let sorted = match m.sorted {
                    // Stored only for plain databases; one entry per live key.
                    Some(p) if crypt.is_none() && p.len == kd.len() => Sorted::over(Base::Mapped {
                        image: Arc::clone(&image),
                        at: usize::try_from(p.at).map_err(|_| inconsistent())?,
                        len: usize::try_from(p.len).map_err(|_| inconsistent())?,
                    }),
                    Some(_) => return Err(inconsistent()),
                    None => Sorted::unbuilt(),
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
pub(super) fn refuse_foreign(path: &Path) -> Result<()> {
    use std::io::Read;
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
