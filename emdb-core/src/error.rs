//! The one error type of the engine.
//!
//! Every variant carries the context a person needs to act on it (the path,
//! the byte offset, the holder of a lock), and its `Display` says what to do.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::lock::LockHolder;

/// Convenient alias for results whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in emdb.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system I/O call failed.
    #[error("{op} failed{}: {source}", fmt_path(path))]
    Io {
        /// What the engine was doing ("open", "fdatasync", "rename", ...).
        op: &'static str,
        /// The file involved, when there is one.
        path: Option<PathBuf>,
        /// The underlying error.
        #[source]
        source: io::Error,
    },

    /// Stored bytes failed their checksum or do not decode.
    ///
    /// Open fails with this when a record inside the durable part of the log
    /// is damaged; open the database with `salvage(true)` (or run
    /// `emdb check --repair`) to skip the damaged bytes.
    #[error(
        "corruption{} at byte offset {offset}: {reason} (open with salvage to skip the damaged bytes, or restore from a backup)",
        fmt_path(path)
    )]
    Corruption {
        /// The damaged file, when known.
        path: Option<PathBuf>,
        /// Byte offset of the damaged record or structure.
        offset: u64,
        /// What exactly is wrong.
        reason: String,
    },

    /// The file exists but is not an emdb database.
    #[error("{} is not an emdb database ({reason}); refusing to touch it", path.display())]
    NotADatabase {
        /// The foreign file.
        path: PathBuf,
        /// Why it was rejected.
        reason: String,
    },

    /// The file was written by a format version this build cannot read.
    #[error(
        "{} uses on-disk format version {found}, this build reads version {supported}; upgrade emdb",
        path.display()
    )]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// Version found in the header.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },

    /// Another process (or another handle of this one) holds the writer
    /// lock.
    #[error("{} is locked by another writer{}; {}",
        path.display(), fmt_holder(holder), lock_advice(holder))]
    LockBusy {
        /// The database path.
        path: PathBuf,
        /// Who holds it, as recorded in the lock file.
        holder: Option<LockHolder>,
    },

    /// The builder options are contradictory or invalid (for example bad
    /// key-derivation parameters).
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),

    /// The database path is unusable: empty, a directory, combined with the
    /// options that derive a path, or not derivable on this platform.
    #[error("invalid database path: {reason}")]
    InvalidPath {
        /// What is wrong with it.
        reason: String,
    },

    /// The operation needs a database file, and this one is in memory (or
    /// no path was given).
    #[error("{what} needs a database file; an in-memory database has none")]
    NeedsFile {
        /// The operation.
        what: &'static str,
    },

    /// A backup target that cannot be used: it exists, or it is the
    /// database itself.
    #[error("cannot back up to {}: {reason}", target.display())]
    BackupTarget {
        /// The target path.
        target: PathBuf,
        /// Why it was refused.
        reason: &'static str,
    },

    /// An earlier encryption change left its backup (`<db>.encbak`): it was
    /// interrupted, or its backup was kept. Nothing is changed until the
    /// backup is checked and removed.
    #[error(
        "{} exists: an earlier encryption change was interrupted or its backup was kept; \
         check that {} opens with the key you expect, then remove the backup and retry",
        backup.display(),
        db.display()
    )]
    EncryptionBackupLeft {
        /// The leftover backup.
        backup: PathBuf,
        /// The database.
        db: PathBuf,
    },

    /// Every namespace id has been used (ids are never reused).
    #[error("no namespace id is left (ids are never reused)")]
    NamespaceIdsExhausted,

    /// A key is longer than [`MAX_KEY_LEN`](crate::MAX_KEY_LEN).
    #[error("key is {len} bytes, the limit is {max} bytes")]
    KeyTooLarge {
        /// The key's length.
        len: usize,
        /// The limit.
        max: usize,
    },

    /// A value is longer than [`MAX_VALUE_LEN`](crate::MAX_VALUE_LEN).
    #[error("value is {len} bytes, the limit is {max} bytes")]
    ValueTooLarge {
        /// The value's length.
        len: usize,
        /// The limit.
        max: usize,
    },

    /// The log would grow past the largest offset the index can address.
    #[error("database would grow to {requested} bytes, past the {max}-byte limit; compact it or split the data")]
    DatabaseFull {
        /// The size the write needed.
        requested: u64,
        /// The largest supported log size.
        max: u64,
    },

    /// A namespace's index has no room for another key.
    #[error("the namespace holds the most keys one index supports ({limit}); spread keys over namespaces")]
    TooManyKeys {
        /// The per-namespace key limit.
        limit: u64,
    },

    /// A namespace name is empty or too long.
    #[error("namespace name {name:?} is invalid: names are 1 to {max} bytes")]
    InvalidNamespaceName {
        /// The rejected name.
        name: String,
        /// The longest name allowed.
        max: usize,
    },

    /// The namespace behind a handle was dropped.
    #[error("the namespace was dropped; get a new handle with Emdb::namespace")]
    NamespaceDropped,

    /// The key or passphrase does not open this encrypted database.
    #[error("wrong encryption key: {reason}")]
    EncryptionKeyMismatch {
        /// What did not match.
        reason: String,
    },

    /// The database is encrypted and no key or passphrase was given.
    #[error("{} is encrypted; open it with encryption_key or encryption_passphrase", path.display())]
    EncryptionRequired {
        /// The database.
        path: PathBuf,
    },

    /// A key was given for a database that is not encrypted.
    #[error("{} is not encrypted; open it without a key, or encrypt it with Emdb::enable_encryption", path.display())]
    NotEncrypted {
        /// The database.
        path: PathBuf,
    },

    /// [`crate::Emdb::enable_encryption`] of a database that is encrypted
    /// already.
    #[error("{} is encrypted already; change its key with Emdb::rotate_encryption_key", path.display())]
    AlreadyEncrypted {
        /// The database.
        path: PathBuf,
    },

    /// The build lacks a feature the database or option needs.
    #[error("{0} needs emdb-core built with the \"encrypt\" feature")]
    FeatureDisabled(&'static str),

    /// A transaction closure asked to roll back.
    #[error("transaction aborted: {0}")]
    TransactionAborted(&'static str),

    /// A key outside the keys a [`crate::KeysWriter`] was opened for, or
    /// a whole-database operation on such a handle (its index holds only
    /// those keys of the log written since the checkpoint).
    #[error("the handle was opened for a few keys (EmdbBuilder::write_keys) and reads and writes only those")]
    KeysOnly,

    /// A write was attempted on a read-only handle.
    #[error("the database is open read-only; reopen it without read_only to write")]
    ReadOnly,

    /// An earlier fsync failed, or the log file was found truncated by
    /// another process, so the engine no longer knows what is durable.
    ///
    /// Reopen the database: recovery re-reads what actually reached the disk.
    #[error(
        "an earlier failure ({0}) left the handle unsure what is durable; it refuses further writes, reopen the database"
    )]
    Poisoned(String),

    /// A close made every write durable, but writing the checkpoint failed
    /// (a full disk, say). Nothing is lost; the next open replays the log
    /// written since the last checkpoint, and a later close or
    /// `checkpoint()` writes one.
    #[error(
        "every write is durable, but the checkpoint was not written ({0}); the next open replays the log written since the last one"
    )]
    CheckpointNotWritten(Box<Error>),

    /// A read-only handle could not catch up with its file: another
    /// process replaced it with one this handle cannot open (encrypted,
    /// re-keyed or decrypted it), cut it short, or it could not be read.
    /// The handle's answers would be stale, so its reads fail with this
    /// until a refresh succeeds; `cause` is why the refresh failed.
    #[error(
        "this read-only handle could not catch up with its file{} ({cause}); its answers would be stale: reopen the database",
        fmt_path(path)
    )]
    Stale {
        /// The database file.
        path: Option<PathBuf>,
        /// Why the handle could not catch up (for example
        /// [`Error::EncryptionRequired`] when the file was encrypted).
        #[source]
        cause: Box<Error>,
    },
}

impl Error {
    /// A copy of an error that says everything in its fields (not an I/O
    /// error, whose source cannot be copied): what a follower answers again
    /// for a file it does not open again.
    pub(crate) fn copied(&self) -> Option<Error> {
        Some(match self {
            Error::EncryptionKeyMismatch { reason } => Error::EncryptionKeyMismatch {
                reason: reason.clone(),
            },
            Error::EncryptionRequired { path } => Error::EncryptionRequired { path: path.clone() },
            Error::NotEncrypted { path } => Error::NotEncrypted { path: path.clone() },
            Error::AlreadyEncrypted { path } => Error::AlreadyEncrypted { path: path.clone() },
            Error::Corruption {
                path,
                offset,
                reason,
            } => Error::Corruption {
                path: path.clone(),
                offset: *offset,
                reason: reason.clone(),
            },
            Error::Stale { path, cause } => Error::Stale {
                path: path.clone(),
                cause: Box::new(cause.copied_lossy()),
            },
            _ => return None,
        })
    }

    /// A copy of this error for a handle to return again: [`Error::copied`]
    /// where it can copy; an I/O error keeps its operation, path, kind and
    /// message; anything else becomes an I/O error with its message.
    pub(crate) fn copied_lossy(&self) -> Error {
        if let Some(e) = self.copied() {
            return e;
        }
        match self {
            Error::Io { op, path, source } => Error::Io {
                op,
                path: path.clone(),
                source: io::Error::new(source.kind(), source.to_string()),
            },
            other => Error::Io {
                op: "follow the writer",
                path: None,
                source: io::Error::other(other.to_string()),
            },
        }
    }

    pub(crate) fn io(op: &'static str, path: Option<&std::path::Path>, source: io::Error) -> Self {
        Error::Io {
            op,
            path: path.map(|p| p.to_path_buf()),
            source,
        }
    }

    pub(crate) fn corruption(offset: u64, reason: impl Into<String>) -> Self {
        Error::Corruption {
            path: None,
            offset,
            reason: reason.into(),
        }
    }

    /// Attach a path to an error that lacks one.
    pub(crate) fn with_path(self, p: &std::path::Path) -> Self {
        match self {
            Error::Corruption {
                path: None,
                offset,
                reason,
            } => Error::Corruption {
                path: Some(p.to_path_buf()),
                offset,
                reason,
            },
            Error::Io {
                op,
                path: None,
                source,
            } => Error::Io {
                op,
                path: Some(p.to_path_buf()),
                source,
            },
            other => other,
        }
    }
}

fn fmt_path(path: &Option<PathBuf>) -> String {
    match path {
        Some(p) => format!(" in {}", p.display()),
        None => String::new(),
    }
}

fn fmt_holder(holder: &Option<LockHolder>) -> String {
    match holder {
        Some(h) => format!(" ({h})"),
        None => String::new(),
    }
}

/// What to do about a held writer lock: a holder that is this very
/// process is another handle of it, which closing "that process" would
/// not be.
fn lock_advice(holder: &Option<LockHolder>) -> &'static str {
    match holder {
        Some(h) if h.is_this_process() => {
            "another handle of this process holds it: close that handle first, or clone it \
             to share it"
        }
        _ => "close that process, open read-only, or wait",
    }
}

impl fmt::Display for LockHolder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pid {}", self.pid)?;
        if let Some(host) = &self.hostname {
            write!(f, " on {host}")?;
        }
        if !self.alive {
            write!(f, ", not running")?;
        }
        Ok(())
    }
}
