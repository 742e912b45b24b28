//! Opening the database: which file, read-only or writable, which
//! namespace, the secret of an encrypted database, and waiting for the
//! writer lock.

use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use emdb_core::{Emdb, EncryptionInput, KeyCounts, KeysWriter, OneExpiry, OneKey, RangeIter};
use emdb_tools::database::{self as shared, OpenOptions};
pub use emdb_tools::database::{gave_up, retry_locked, unknown_namespace};
use emdb_tools::secret::SecretOptions;

use crate::cli::GlobalArgs;
use crate::error::{CliError, CliResult};
use crate::secret;
use crate::space::Space;

/// The database of one `emdb` run (or one `emdb shell`), opened on first use.
pub struct Session {
    db_arg: Option<PathBuf>,
    read_only: bool,
    lock_timeout: Option<Duration>,
    db: Option<Emdb>,
    writable: bool,
    flush_each_write: bool,
    namespace: Option<String>,
    secret_args: SecretOptions,
    /// The secret, once resolved from the options or a prompt.
    secret: Option<EncryptionInput>,
    secret_resolved: bool,
    can_prompt: bool,
    /// Read-only opens follow the writer in the background (commands that
    /// stay open); otherwise they are a snapshot and start no thread.
    follow: bool,
}

impl Session {
    /// A session for the global options; nothing is opened yet.
    pub fn new(global: &GlobalArgs) -> Session {
        Session {
            db_arg: global.db.clone(),
            read_only: global.read_only,
            lock_timeout: global.lock_timeout,
            db: None,
            writable: false,
            flush_each_write: true,
            namespace: global.namespace.clone().filter(|n| !n.is_empty()),
            secret_args: global.secret.options(),
            secret: None,
            secret_resolved: false,
            can_prompt: secret::can_prompt(),
            follow: false,
        }
    }

    /// Read-only opens from now on follow the writer in the background,
    /// for commands that stay open (`shell`, `sync`, `stats --watch`).
    pub fn follow_writer(&mut self) {
        self.follow = true;
    }

    /// The namespace data commands use (`None`: the default one).
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// Switch the namespace (per line of `emdb shell`); returns the old one.
    pub fn set_namespace(&mut self, ns: Option<String>) -> Option<String> {
        std::mem::replace(&mut self.namespace, ns.filter(|n| !n.is_empty()))
    }

    /// The lock timeout of `--lock-timeout`.
    pub fn lock_timeout(&self) -> Option<Duration> {
        self.lock_timeout
    }

    /// True when the user can be asked for a passphrase.
    pub fn can_prompt(&self) -> bool {
        self.can_prompt
    }

    /// The secret from the options or the environment, if any (resolved once).
    pub fn secret(&mut self) -> CliResult<Option<EncryptionInput>> {
        if !self.secret_resolved {
            self.secret = secret::from_options(&self.secret_args)?;
            self.secret_resolved = true;
        }
        Ok(self.secret.clone())
    }

    /// Run `op` with the secret; when it fails because the database at
    /// `path` is encrypted and no secret was given, ask for the passphrase
    /// on the terminal (if there is one) and run it again.
    pub fn with_secret<T>(
        &mut self,
        path: &Path,
        mut op: impl FnMut(Option<EncryptionInput>) -> emdb_core::Result<T>,
    ) -> CliResult<T> {
        let secret = self.secret()?;
        let given = secret.is_some();
        match op(secret) {
            Err(emdb_core::Error::EncryptionRequired { .. }) if !given && self.can_prompt => {
                let input = secret::prompt_existing(path)?;
                self.secret = Some(input.clone());
                Ok(op(Some(input))?)
            }
            other => Ok(other?),
        }
    }

    /// The database file: `--db`, else `EMDB_PATH`, else the platform default.
    pub fn path(&self) -> CliResult<PathBuf> {
        shared::resolve_path(self.db_arg.as_deref())
    }

    /// Do not flush after every write command; [`Session::close`] flushes
    /// once (used by `emdb shell`).
    pub fn defer_flush(&mut self) {
        self.flush_each_write = false;
    }

    /// A handle for reading. Opens the file read-only (a snapshot that needs
    /// no lock) unless a handle is open already.
    pub fn reader(&mut self) -> CliResult<Emdb> {
        if let Some(db) = &self.db {
            return Ok(db.clone());
        }
        let path = self.path()?;
        shared::check_file(&path, true)?;
        let options = OpenOptions {
            write: false,
            lock_timeout: None,
            checkpoint_on_close: false,
            follow: self.follow,
            background: false,
        };
        let db = self.with_secret(&path, |secret| shared::open(&path, &options, secret))?;
        self.db = Some(db.clone());
        Ok(db)
    }

    /// The value of `key` in the selected namespace, for a command that
    /// reads nothing else (`get`, `exists`): a one-shot run reads it with
    /// [`emdb_core::EmdbBuilder::read_one_key`], which indexes only this
    /// key's records of the log written since the last checkpoint; a
    /// session with a handle open (or one that follows the writer) reads
    /// through that handle. `None`: the key has no value. A namespace that
    /// does not exist is "not found" (exit 1).
    pub fn read_one(&mut self, key: &[u8]) -> CliResult<Option<Vec<u8>>> {
        if self.db.is_some() || self.follow {
            return Ok(self.space_reader()?.get(key)?.map(|v| v.into_vec()));
        }
        let found = self.one_shot(|path, secret, namespace| {
            shared::read_one_key(path, secret, namespace, key)
        })?;
        match found {
            OneKey::Found(value) => Ok(Some(value)),
            OneKey::Missing => Ok(None),
            OneKey::NoNamespace => Err(unknown_namespace(self.namespace().unwrap_or_default())),
        }
    }

    /// The live keys of every namespace, for a command that reads nothing
    /// else (`count`, `ns list`): a one-shot run reads them with
    /// [`emdb_core::EmdbBuilder::read_counts`], which beside a writer's
    /// tail index looks up only the keys written past it; a session with a
    /// handle open (or one that follows the writer) counts through that
    /// handle.
    pub fn read_counts(&mut self) -> CliResult<KeyCounts> {
        if self.db.is_some() || self.follow {
            return Ok(KeyCounts::of(&self.reader()?)?);
        }
        self.one_shot(|path, secret, _| shared::read_counts(path, secret))
    }

    /// Sizes and counters, and how the open went, for a command that reads
    /// nothing else (a one-shot `stats`): read with
    /// [`emdb_core::EmdbBuilder::read_stats`], which beside a writer's tail
    /// index looks up only the keys written past it; a session with a
    /// handle open (or one that follows the writer) reads that handle's.
    pub fn read_stats(&mut self) -> CliResult<(emdb_core::Stats, emdb_core::RecoveryReport, bool)> {
        if self.db.is_some() || self.follow {
            let db = self.reader()?;
            return Ok((db.stats()?, db.recovery_report().clone(), db.is_read_only()));
        }
        let (stats, report) = self.one_shot(|path, secret, _| shared::read_stats(path, secret))?;
        Ok((stats, report, true))
    }

    /// The live keys of the selected namespace, for a command that reads
    /// nothing else (`count`), read the way [`Session::read_counts`]
    /// reads them. A namespace that does not exist is "not found".
    pub fn read_count(&mut self) -> CliResult<u64> {
        if self.db.is_some() || self.follow {
            return Ok(self.space_reader()?.len()? as u64);
        }
        let found = self.one_shot(shared::read_count)?;
        found.ok_or_else(|| unknown_namespace(self.namespace().unwrap_or_default()))
    }

    /// When `key` in the selected namespace expires, for a command that
    /// reads nothing else (`ttl`), read the way [`Session::read_one`] reads
    /// a value: `None` when the key has no value, `Some(None)` when it
    /// never expires. A namespace that does not exist is "not found".
    pub fn read_one_expiry(&mut self, key: &[u8]) -> CliResult<Option<Option<SystemTime>>> {
        if self.db.is_some() || self.follow {
            // Expiry first: a key that expires before the second read then
            // reads as missing, not as one without an expiry.
            let space = self.space_reader()?;
            let at = space.expires_at_ms(key)?;
            if !space.contains(key)? {
                return Ok(None);
            }
            return Ok(Some(at.map(|ms| UNIX_EPOCH + Duration::from_millis(ms))));
        }
        let found = self.one_shot(|path, secret, namespace| {
            shared::read_one_expiry(path, secret, namespace, key)
        })?;
        match found {
            OneExpiry::At(at) => Ok(Some(Some(at))),
            OneExpiry::Never => Ok(Some(None)),
            OneExpiry::Missing => Ok(None),
            OneExpiry::NoNamespace => Err(unknown_namespace(self.namespace().unwrap_or_default())),
        }
    }

    /// Pairs of `start..end` in the selected namespace, for a command that
    /// reads nothing else (a one-shot `scan`): read with
    /// [`emdb_core::EmdbBuilder::range_once`], which indexes only the
    /// range's records of the log written since the last checkpoint; a
    /// session with a handle open (or one that follows the writer) reads
    /// through that handle. With `first`, only the first that many pairs
    /// are read ([`emdb_core::EmdbBuilder::range_once_first`]: the range
    /// is read up to a bound the checkpoint's order gives, so a wide range
    /// beside a busy writer costs what a short one does); the iterator may
    /// end after them. A namespace that does not exist is "not found"
    /// (exit 1).
    pub fn read_range(
        &mut self,
        start: Bound<Vec<u8>>,
        end: Bound<Vec<u8>>,
        first: Option<usize>,
    ) -> CliResult<RangeIter> {
        if self.db.is_some() || self.follow {
            return Ok(self.space_reader()?.range(start, end)?);
        }
        let (start, end) = (
            start.as_ref().map(Vec::as_slice),
            end.as_ref().map(Vec::as_slice),
        );
        let found = self.one_shot(|path, secret, namespace| match first {
            Some(n) => shared::range_once_first(path, secret, namespace, start, end, n),
            None => shared::range_once(path, secret, namespace, start, end),
        })?;
        found.ok_or_else(|| unknown_namespace(self.namespace().unwrap_or_default()))
    }

    /// Run the one-shot read `op` on the database file with the secret
    /// (asked for when the file turns out to be encrypted) and the selected
    /// namespace. A missing file is an error, as for every reading command.
    fn one_shot<T>(
        &mut self,
        mut op: impl FnMut(&Path, Option<EncryptionInput>, Option<&str>) -> emdb_core::Result<T>,
    ) -> CliResult<T> {
        let path = self.path()?;
        shared::check_file(&path, true)?;
        let namespace = self.namespace.clone();
        self.with_secret(&path, |secret| op(&path, secret, namespace.as_deref()))
    }

    /// The key space of the selected namespace, for reading. A namespace
    /// that does not exist is "not found" (exit 1).
    pub fn space_reader(&mut self) -> CliResult<Space> {
        let db = self.reader()?;
        self.space_in(db, false)
    }

    /// The key space of the selected namespace, for writing (see
    /// [`Session::writer`]). With `create`, a missing namespace is created;
    /// otherwise it is "not found" (exit 1).
    pub fn space_writer(&mut self, what: &str, create: bool) -> CliResult<Space> {
        let db = self.writer(what)?;
        self.space_in(db, create)
    }

    fn space_in(&self, db: Emdb, create: bool) -> CliResult<Space> {
        let Some(name) = self.namespace.as_deref() else {
            return Ok(Space::Default(db));
        };
        if !create && !db.list_namespaces()?.iter().any(|n| n == name) {
            return Err(unknown_namespace(name));
        }
        Ok(Space::Named(db.namespace(name)?))
    }

    /// A handle for writing, for the command `what`. Takes the writer lock,
    /// retrying for up to `--lock-timeout` while another process holds it.
    /// The index is checkpointed on close, so the next open is fast.
    pub fn writer(&mut self, what: &str) -> CliResult<Emdb> {
        self.open_writer(what)
    }

    /// Run `write` on `keys` of the selected namespace (created first with
    /// `create`; otherwise a missing one is "not found"), for a command
    /// that writes nothing else (`put`, `del KEY`, `incr`). With a handle
    /// open already (`emdb shell`) it writes through it, flushed as
    /// [`Session::wrote`] says. Otherwise the file is opened for those keys
    /// alone ([`emdb_core::EmdbBuilder::write_keys`]): the log written
    /// since the checkpoint is read for them, not indexed, and the close
    /// makes the write durable (and has a checkpoint written once that
    /// tail is long enough).
    pub fn write_keys<T>(
        &mut self,
        what: &str,
        create: bool,
        keys: &[&[u8]],
        mut write: impl FnMut(&KeysWriter<'_>) -> emdb_core::Result<T>,
    ) -> CliResult<T> {
        self.require_writable(what)?;
        let namespace = self.namespace.clone();
        let missing = || unknown_namespace(namespace.as_deref().unwrap_or_default());
        if self.db.is_some() {
            let db = self.writer(what)?;
            let Some(w) = KeysWriter::new(&db, namespace.as_deref(), create, keys)? else {
                return Err(missing());
            };
            let out = write(&w)?;
            drop(w);
            self.wrote()?;
            return Ok(out);
        }
        let path = self.path()?;
        shared::check_file(&path, false)?;
        shared::check_new_name(&path)?;
        let timeout = self.lock_timeout;
        let out = self
            .with_secret(&path, |secret| {
                shared::write_keys(
                    &path,
                    secret,
                    timeout,
                    namespace.as_deref(),
                    create,
                    keys,
                    &mut write,
                )
            })
            .map_err(|e| gave_up(e, timeout))?;
        out.ok_or_else(missing)
    }

    /// Fail when `--read-only` was given: `what` writes to the database.
    pub fn require_writable(&self, what: &str) -> CliResult {
        if self.read_only {
            return Err(CliError::usage(format!(
                "`{what}` writes to the database, but --read-only was given"
            )));
        }
        Ok(())
    }

    fn open_writer(&mut self, what: &str) -> CliResult<Emdb> {
        self.require_writable(what)?;
        if let Some(db) = &self.db {
            if self.writable {
                return Ok(db.clone());
            }
            // A read-only snapshot was opened earlier in this run: replace it.
            self.db = None;
        }
        let path = self.path()?;
        shared::check_file(&path, false)?;
        shared::check_new_name(&path)?;
        let options = OpenOptions {
            write: true,
            lock_timeout: self.lock_timeout,
            checkpoint_on_close: true,
            follow: false,
            background: true,
        };
        let db = self
            .with_secret(&path, |secret| shared::open(&path, &options, secret))
            .map_err(|e| gave_up(e, options.lock_timeout))?;
        self.db = Some(db.clone());
        self.writable = true;
        Ok(db)
    }

    /// Call after a write command: makes the write durable now, unless the
    /// flush is deferred to [`Session::close`].
    pub fn wrote(&self) -> CliResult {
        if let (true, Some(db)) = (self.flush_each_write, &self.db) {
            db.flush()?;
        }
        Ok(())
    }

    /// Make every write so far durable now (a `flush` line of `emdb shell`).
    pub fn flush(&self) -> CliResult {
        if let (true, Some(db)) = (self.writable, &self.db) {
            db.flush()?;
        }
        Ok(())
    }

    /// Flush pending writes and close the database (reporting a failed
    /// sync or checkpoint, which a plain drop would not).
    pub fn close(&mut self) -> CliResult {
        if let Some(db) = self.db.take() {
            if self.writable {
                db.close()?;
            }
        }
        Ok(())
    }
}

// The database's own files and the check that an output file is none of
// them live in emdb-tools, shared with emdb-tui (whose `O` export refuses
// the same files).
pub use emdb_tools::database::{
    beside_real, file_id, refuse_database_files, sibling, DATABASE_FILES,
};
