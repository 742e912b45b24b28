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

use std::path::{Path, PathBuf};

use crate::builder::Config;
use crate::crypto::{Cipher, EncryptionInput};
use crate::db::Emdb;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::fs::{fsync_parent, sibling};
use crate::index::SHARDS;
use crate::lock::WriterLock;
use crate::namespace::read_at;

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
) -> Result<()> {
    let path = path
        .canonicalize()
        .map_err(|e| Error::io("open", Some(path), e))?;
    let backup = encbak_path(&path);
    if backup.exists() {
        return Err(Error::InvalidConfig(format!(
            "{} exists: an earlier encryption change was interrupted or its backup was kept; \
             check that {} opens with the key you expect, then remove the backup and retry",
            backup.display(),
            path.display()
        )));
    }
    // Hold the writer lock for the whole rewrite; read through a read-only
    // engine, which never writes to the old file (not even on close).
    let _lock = WriterLock::acquire(&path)?;
    let source_cfg = Config {
        read_only: true,
        encryption: from,
        ..Config::default()
    };
    let source = Engine::open_file(source_cfg, path.clone())?;
    let src_gen = source.gen.load_full();
    let cipher = cipher.or_else(|| src_cipher(&source)).unwrap_or_default();

    let tmp = sibling(&path, ".enc.tmp");
    for stale in [tmp.clone(), sibling(&tmp, ".ckpt"), sibling(&tmp, ".lock")] {
        let _ = std::fs::remove_file(stale);
    }
    let target_cfg = Config {
        encryption: to,
        cipher,
        ..Config::default()
    };
    {
        let target = Emdb::from_engine(Engine::open_file(target_cfg, tmp.clone())?);
        let engine = target.engine_arc();
        let now = source.now();
        let region = src_gen.log.region();
        let bytes = src_gen.bytes(&region);
        for ns in src_gen.ns.read().all() {
            let id = if ns.id == 0 {
                0
            } else {
                engine.create_namespace(&String::from_utf8_lossy(&ns.name))?
            };
            let mut batch = engine.batch()?;
            let mut in_batch = 0;
            for shard in 0..SHARDS {
                for off in ns.keydir.shard_offsets(shard) {
                    let mut scratch = zeroize::Zeroizing::new(Vec::new());
                    let f = src_gen
                        .log
                        .vouch(&region, read_at(bytes, off, ns.crypt(), &mut scratch))?;
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
        // Values were copied out of the source mapping after their check.
        src_gen.log.vouch(&region, Ok(()))?;
        target.flush()?;
    } // closed: synced, trimmed, checkpointed
    drop(src_gen);
    drop(source);

    std::fs::hard_link(&path, &backup).map_err(|e| Error::io("link backup", Some(&backup), e))?;
    fsync_parent(&path)?;
    std::fs::rename(&tmp, &path).map_err(|e| Error::io("rename", Some(&path), e))?;
    fsync_parent(&path)?;
    // The new file's checkpoint is bound to its id; the old one is useless.
    let _ = std::fs::rename(sibling(&tmp, ".ckpt"), sibling(&path, ".ckpt"));
    let _ = std::fs::remove_file(sibling(&tmp, ".lock"));
    let _ = std::fs::remove_file(sibling(&tmp, ".stats"));
    fsync_parent(&path)
}

fn src_cipher(engine: &Engine) -> Option<Cipher> {
    #[cfg(feature = "encrypt")]
    {
        engine.gen.load().crypt.as_ref().map(|c| c.cipher())
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
        rewrite(path.as_ref(), None, Some(target), None)
    }

    /// [`Emdb::enable_encryption`] with a chosen cipher.
    pub fn enable_encryption_with(
        path: impl AsRef<Path>,
        target: EncryptionInput,
        cipher: Cipher,
    ) -> Result<()> {
        rewrite(path.as_ref(), None, Some(target), Some(cipher))
    }

    /// Decrypt the database at `path` (opened with `current`) into a plain
    /// one; same atomic rewrite and `.encbak` backup.
    pub fn disable_encryption(path: impl AsRef<Path>, current: EncryptionInput) -> Result<()> {
        rewrite(path.as_ref(), Some(current), None, None)
    }

    /// Re-encrypt the database at `path` from `current` to `new` (same
    /// cipher; a new passphrase gets a new salt and today's default Argon2id
    /// costs); same atomic rewrite and `.encbak` backup.
    pub fn rotate_encryption_key(
        path: impl AsRef<Path>,
        current: EncryptionInput,
        new: EncryptionInput,
    ) -> Result<()> {
        rewrite(path.as_ref(), Some(current), Some(new), None)
    }
}
