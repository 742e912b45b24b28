//! Offline encryption admin: enable, disable, rotate.
//!
//! Each is a rewrite into a new database file followed by an atomic swap:
//!
//! 1. refuse if `<db>.encbak` exists (an earlier run was interrupted, or its
//!    backup was kept: a person must look before anything is overwritten);
//! 2. take the writer lock, read every live record with the current key;
//! 3. write them to `<db>.enc.tmp` with the new key (a new database id, so
//!    nothing of the old file can be replayed into it), close it (synced and
//!    checkpointed);
//! 4. hard-link the old file to `<db>.encbak`, fsync the directory;
//! 5. rename the new file over `<db>`, fsync the directory; move its
//!    checkpoint next to it.
//!
//! A crash before step 5 leaves the old file at `<db>` (opens with the old
//! key); after it, the new one (opens with the new key). Either way all data
//! is there, and `<db>.encbak` keeps the old file until someone removes it.
//! An error before step 5 removes the temp files and the backup link (a full
//! disk gets its space back, a retry is not refused); after it the backup
//! stays, since the new file may be at `<db>`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::Config;
use crate::crypto::{Cipher, EncryptionInput};
use crate::db::Emdb;
use crate::engine::{enc_tmp_path, writer_temps, Engine, Generation};
use crate::error::{Error, Result};
use crate::fault::{self, Faults, FsEvent};
use crate::fs::{fsync_parent, rename, sibling};
use crate::index::SHARDS;
use crate::lock::WriterLock;
use crate::namespace::read_at;
use crate::progress::{Meter, Phase};

/// Path of the backup an encryption rewrite leaves behind.
pub(crate) fn encbak_path(db: &Path) -> PathBuf {
    sibling(db, ".encbak")
}

/// Records per batch while copying.
const COPY_BATCH: usize = 10_000;

/// Rewrite `path` from `from` (None: plain) to `to` (None: plain).
pub(crate) fn rewrite(
    path: &Path,
    from: Option<EncryptionInput>,
    to: Option<EncryptionInput>,
    cipher: Option<Cipher>,
    faults: Option<Arc<Faults>>,
) -> Result<()> {
    let f = faults.as_deref();
    let path = path
        .canonicalize()
        .map_err(|e| Error::io("open", Some(path), e))?;
    let backup = encbak_path(&path);
    // Hold the writer lock for the whole rewrite; read through a read-only
    // engine, which never writes to the old file (not even on close).
    // Taken before the backup is looked at: a backup beside a held lock
    // may be another change's, in progress (`LockBusy`, which a caller
    // can wait out), not one left behind.
    let _lock = WriterLock::acquire(&path, f)?;
    if backup.exists() {
        return Err(Error::EncryptionBackupLeft { backup, db: path });
    }
    // What a killed writer of the old file left (a compaction's new log
    // above all) holds its records as they are, in plaintext for a plain
    // database: removed here as a writer's open would, so it does not
    // outlive the change of secret.
    for stale in writer_temps(&path) {
        fault::remove(f, &stale);
    }
    let source_cfg = Config {
        read_only: true,
        encryption: from,
        faults: faults.clone(),
        ..Config::default()
    };
    let source = match Engine::open_file(source_cfg, path.clone()) {
        // Encrypting: no key was given for the source.
        Err(Error::EncryptionRequired { path }) => return Err(Error::AlreadyEncrypted { path }),
        other => other?,
    };
    let src_gen = source.gen_arc();
    let cipher = cipher.or_else(|| src_cipher(&source)).unwrap_or_default();

    let tmp = enc_tmp_path(&path);
    for stale in [tmp.clone(), sibling(&tmp, ".ckpt"), sibling(&tmp, ".lock")] {
        fault::remove(f, &stale);
    }
    let target_cfg = Config {
        encryption: to,
        cipher,
        faults: faults.clone(),
        ..Config::default()
    };
    let mut linked = false;
    let swapped = (|| {
        copy_live(&source, &src_gen, target_cfg, &tmp)?;
        drop(src_gen);
        drop(source);
        std::fs::hard_link(&path, &backup)
            .map_err(|e| Error::io("link backup", Some(&backup), e))?;
        linked = true;
        fault::note(f, || FsEvent::Linked {
            from: path.clone(),
            to: backup.clone(),
        });
        fsync_parent(&path, f)?;
        rename(&tmp, &path, f)
    })();
    if let Err(e) = swapped {
        // The old file is still at the path. Remove what this run made: on
        // a full disk the temp file holds the space, and a backup left
        // behind would make every retry refuse.
        for made in [
            tmp.clone(),
            sibling(&tmp, ".ckpt"),
            sibling(&tmp, ".tail"),
            sibling(&tmp, ".lock"),
            sibling(&tmp, ".stats"),
        ] {
            let _ = std::fs::remove_file(made);
        }
        if linked {
            let _ = std::fs::remove_file(&backup);
        }
        return Err(e);
    }
    // From here on the new file may be at the path: the backup stays.
    fsync_parent(&path, f)?;
    // The new file's checkpoint is bound to its id; the old one is useless.
    let _ = rename(&sibling(&tmp, ".ckpt"), &sibling(&path, ".ckpt"), f);
    // So is the old file's tail index.
    fault::remove(f, &crate::tail_index::path(&path));
    fault::remove(f, &sibling(&tmp, ".tail"));
    fault::remove(f, &sibling(&tmp, ".lock"));
    fault::remove(f, &sibling(&tmp, ".stats"));
    fsync_parent(&path, f)
}

/// Copy every live record of `source` into a new database at `tmp`, then
/// sync and checkpoint it (errors of either are returned, not swallowed
/// by the close).
fn copy_live(source: &Engine, src_gen: &Generation, target_cfg: Config, tmp: &Path) -> Result<()> {
    // A decrypted file stays owner-only: who could read the encrypted
    // one could not read its records.
    let decrypting = src_gen.crypt().is_some() && target_cfg.encryption.is_none();
    let target = Emdb::from_engine(Engine::open_file(target_cfg, tmp.to_path_buf())?);
    let like = src_gen
        .log()
        .file
        .as_ref()
        .and_then(|f| f.file.metadata().ok());
    if let (Some(like), Some(new)) = (like, target.engine_arc().gen().log().file.as_ref()) {
        crate::fs::match_permissions(&new.file, &like, if decrypting { 0o600 } else { 0o666 });
    }
    let engine = target.engine_arc();
    let now = source.now();
    let region = src_gen.log().region();
    let bytes = src_gen.bytes(&region);
    let namespaces = src_gen.ns_table().all();
    let mut meter = Meter::start(
        Phase::Rewriting,
        namespaces.iter().map(|n| n.keydir.live_bytes()).sum(),
    );
    for ns in namespaces {
        let id = if ns.id == 0 {
            0
        } else {
            engine.create_namespace(&String::from_utf8_lossy(&ns.name))?
        };
        let mut batch = engine.batch()?;
        let mut in_batch = 0;
        for shard in 0..SHARDS {
            for off in src_gen.shard_offsets(&ns, shard)? {
                let mut scratch = zeroize::Zeroizing::new(Vec::new());
                let read = read_at(bytes, off, ns.crypt(), &mut scratch);
                let f = src_gen.log().vouch_read(&region, bytes, read)?;
                meter.add(f.len as u64);
                if crate::engine::expired(f.expires_at, now) {
                    continue;
                }
                batch.put(id, f.key, f.value, f.expires_at)?;
                in_batch += 1;
                if in_batch == COPY_BATCH {
                    batch.commit()?;
                    batch = engine.batch()?;
                    in_batch = 0;
                }
            }
        }
        batch.commit()?;
    }
    meter.finish();
    // Values were copied out of the source mapping after their check.
    src_gen.log().vouch(&region, Ok(()))?;
    target.flush()?;
    target.checkpoint()
} // closed: trimmed

fn src_cipher(engine: &Engine) -> Option<Cipher> {
    #[cfg(feature = "encrypt")]
    {
        engine.gen().crypt().as_ref().map(|c| c.cipher())
    }
    #[cfg(not(feature = "encrypt"))]
    {
        let _ = engine;
        None
    }
}

impl Emdb {
    /// Encrypt the plain database at `path` with `target` (AES-256-GCM),
    /// offline: rewrite, fsync, atomic rename, and keep the old file as
    /// `<path>.encbak`. Refuses if that backup already exists.
    pub fn enable_encryption(path: impl AsRef<Path>, target: EncryptionInput) -> Result<()> {
        rewrite(path.as_ref(), None, Some(target), None, None)
    }

    /// [`Emdb::enable_encryption`] with a chosen cipher.
    pub fn enable_encryption_with(
        path: impl AsRef<Path>,
        target: EncryptionInput,
        cipher: Cipher,
    ) -> Result<()> {
        rewrite(path.as_ref(), None, Some(target), Some(cipher), None)
    }

    /// Decrypt the database at `path` (opened with `current`) into a plain
    /// one; same atomic rewrite and `.encbak` backup.
    pub fn disable_encryption(path: impl AsRef<Path>, current: EncryptionInput) -> Result<()> {
        rewrite(path.as_ref(), Some(current), None, None, None)
    }

    /// Re-encrypt the database at `path` from `current` to `new` (same
    /// cipher; a new passphrase gets a new salt and today's default Argon2id
    /// costs); same atomic rewrite and `.encbak` backup.
    pub fn rotate_encryption_key(
        path: impl AsRef<Path>,
        current: EncryptionInput,
        new: EncryptionInput,
    ) -> Result<()> {
        rewrite(path.as_ref(), Some(current), Some(new), None, None)
    }

    /// An encryption change as [`Emdb::enable_encryption`] (`from` None),
    /// [`Emdb::disable_encryption`] (`to` None) or
    /// [`Emdb::rotate_encryption_key`] make it, with injected faults and
    /// its file operations reported to the observer (tests of the error and
    /// crash paths).
    #[cfg(feature = "fault-injection")]
    pub fn change_encryption_with_faults(
        path: impl AsRef<Path>,
        from: Option<EncryptionInput>,
        to: Option<EncryptionInput>,
        faults: Arc<Faults>,
    ) -> Result<()> {
        rewrite(path.as_ref(), from, to, None, Some(faults))
    }
}
