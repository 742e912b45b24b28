//! [`EmdbBuilder`] and the validated options it produces.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::clock::Clock;
use crate::config::{Config, KeyScope};
use crate::crypto::{Cipher, EncryptionInput, KdfParams};
use crate::db::Emdb;
use crate::engine::{Due, Engine};
use crate::error::{Error, Result};
use crate::flush::FlushPolicy;

/// Default application folder under the platform data directory.
pub const DEFAULT_APP_NAME: &str = "emdb";
/// Default database file name under the application folder.
pub const DEFAULT_DATABASE_NAME: &str = "emdb-default.emdb";

/// Configures and opens an [`Emdb`].
///
/// Where the database lives:
/// - `path(p)`: that file;
/// - any of `app_name`, `database_name`, `data_root`: the file
///   `<data_root>/<app_name>/<database_name>`, where unset parts default to
///   the platform data directory, [`DEFAULT_APP_NAME`] and
///   [`DEFAULT_DATABASE_NAME`];
/// - none of them: an in-memory database.
///
/// Mixing `path` with the other three is `Error::InvalidPath`.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct EmdbBuilder {
    path: Option<PathBuf>,
    app_name: Option<String>,
    database_name: Option<String>,
    data_root: Option<PathBuf>,
    pub(crate) cfg: Config,
}

impl EmdbBuilder {
    /// A builder with default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Store the database in this file (created if missing).
    pub fn path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Folder name under the data root (a single component: no separators,
    /// no `..`, not empty).
    pub fn app_name(mut self, name: impl Into<String>) -> Self {
        self.app_name = Some(name.into());
        self
    }

    /// File name of the database inside the app folder (a bare file name).
    pub fn database_name(mut self, name: impl Into<String>) -> Self {
        self.database_name = Some(name.into());
        self
    }

    /// Root directory instead of the platform data directory.
    pub fn data_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.data_root = Some(root.into());
        self
    }

    /// When writes become durable; see [`FlushPolicy`].
    pub fn flush_policy(mut self, policy: FlushPolicy) -> Self {
        self.cfg.flush_policy = policy;
        self
    }

    /// Open without the writer lock and refuse writes (`Error::ReadOnly`).
    /// A read-only open never modifies any file.
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.cfg.read_only = read_only;
        self
    }

    /// Read-only handles: follow the writing process in the background
    /// (the default, about every 50 ms), or, with `false`, stay pinned at the
    /// database as the open found it (whole batches only) until
    /// [`Emdb::refresh`] is called: a consistent snapshot without copying
    /// the file, even while a writer keeps writing or compacts (the handle
    /// keeps the file it opened). No effect on a writable handle.
    pub fn follow(mut self, follow: bool) -> Self {
        self.cfg.follow = follow;
        self
    }

    /// Writable handles: run the writer's background threads (the default):
    /// one publishes the stats sidecar within a second of activity, one
    /// writes automatic checkpoints ([`EmdbBuilder::checkpoint_tail`]).
    /// With `false`, for a handle opened for one short call (the CLI's
    /// `put`, `delete`, `incr`), no thread is started and no sidecar is
    /// written (its counters would be the one call's); the checkpoint rule
    /// of [`EmdbBuilder::checkpoint_on_close`] still applies when the
    /// handle closes, but a long-lived handle's log tail is then bounded
    /// only by its close. No effect on a read-only handle (see
    /// [`EmdbBuilder::follow`]).
    pub fn background(mut self, on: bool) -> Self {
        self.cfg.background = on;
        self
    }

    /// Skip damaged records instead of failing with `Error::Corruption`.
    /// What was skipped is in [`Emdb::recovery_report`]; a writable salvage
    /// open then compacts, so the damaged bytes leave the file. When that
    /// compaction fails (a full disk), the open fails and writes no
    /// checkpoint: the damage stays where the next open or salvage finds it.
    pub fn salvage(mut self, salvage: bool) -> Self {
        self.cfg.salvage = salvage;
        self
    }

    /// Expiry applied by `insert` and by `insert_with_ttl(.., Ttl::Default)`.
    pub fn default_ttl(mut self, ttl: Duration) -> Self {
        self.cfg.default_ttl = Some(ttl);
        self
    }

    /// Kept so emdb 1.x code compiles; it does nothing. Every database keeps
    /// its keys in byte order, so `range`, `range_prefix`, `iter_from` and
    /// friends work on any handle (docs/ARCHITECTURE.md, "Sorted order").
    pub fn enable_range_scans(self, _on: bool) -> Self {
        self
    }

    /// Verify the CRC of every record a read returns (`get`, `get_zerocopy`,
    /// `contains_key`, iterators and ranges). On by default: damaged bytes
    /// are then an `Error::Corruption`, never a wrong value. Off, a read skips
    /// the checksum (about 70 ns per random read of a 150-byte value; see
    /// docs/BENCH.md) and relies on the record's structure and the key
    /// comparison alone, so a damaged value can be returned as it is. Writes,
    /// replay, compaction, `verify` and encrypted records (authenticated by
    /// their cipher) always check.
    pub fn verify_reads(mut self, on: bool) -> Self {
        self.cfg.verify_reads = on;
        self
    }

    /// The clock TTLs are measured against (tests use a [`ManualClock`](crate::ManualClock)).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.cfg.clock = clock;
        self
    }

    /// Encrypt with a raw 256-bit key (creates an encrypted database, or
    /// opens one; `Error::EncryptionKeyMismatch` if it is the wrong key).
    pub fn encryption_key(mut self, key: [u8; 32]) -> Self {
        self.cfg.encryption = Some(EncryptionInput::Key(key));
        self
    }

    /// Encrypt with a key derived from `passphrase` by Argon2id (salt and
    /// costs are stored in the database header).
    pub fn encryption_passphrase(mut self, passphrase: impl Into<String>) -> Self {
        self.cfg.encryption = Some(EncryptionInput::Passphrase(passphrase.into()));
        self
    }

    /// Key or passphrase as an [`EncryptionInput`].
    pub fn encryption(mut self, input: EncryptionInput) -> Self {
        self.cfg.encryption = Some(input);
        self
    }

    /// Cipher of a new encrypted database (default AES-256-GCM). An existing
    /// database keeps the cipher recorded in its header. Set without a key
    /// or passphrase, `build` fails with `Error::InvalidConfig` (the
    /// database would not be encrypted).
    pub fn cipher(mut self, cipher: Cipher) -> Self {
        self.cfg.cipher = cipher;
        self
    }

    /// Argon2id costs for a new passphrase-encrypted database (default:
    /// 19 MiB, 2 passes, 1 lane, the OWASP recommendation); at most
    /// [`KDF_LIMITS`](crate::KDF_LIMITS), as for the costs a header holds
    /// (more, costs Argon2id refuses, or costs set without a key or
    /// passphrase, is `Error::InvalidConfig` from `build`).
    pub fn kdf_params(mut self, params: KdfParams) -> Self {
        self.cfg.kdf_params = params;
        self
    }

    /// Inject I/O faults (tests of error paths).
    #[cfg(feature = "fault-injection")]
    pub fn faults(mut self, faults: Arc<crate::fault::Faults>) -> Self {
        self.cfg.faults = Some(faults);
        self
    }

    /// Write a checkpoint when the last handle closes (default true), so the
    /// next open does not replay the log. A close whose log tail past the
    /// newest checkpoint is under 64 KiB leaves that tail for the next open
    /// to replay (cheaper than rewriting the index image); with
    /// [`EmdbBuilder::background`] off (a handle for one short call) the
    /// bound grows with the square root of the index image's size, about
    /// 97 KiB at 1M keys and 305 KiB at 10M (docs/ARCHITECTURE.md,
    /// "Checkpoints").
    pub fn checkpoint_on_close(mut self, on: bool) -> Self {
        self.cfg.checkpoint_on_close = on;
        self
    }

    /// Automatic checkpoints: a writer checkpoints by itself (in the
    /// background, about once a second at most) once the log has grown by
    /// `Some(bytes)` since the newest checkpoint and by at least half the
    /// size of the index image, which bounds what an open after a crash
    /// replays while keeping checkpoint writes within twice the log's.
    /// Between two checkpoints of a plain database it also writes a tail
    /// index (`<db>.tail`) every quarter to whole of `bytes` of log, so
    /// one-shot reads ([`EmdbBuilder::read_one_key`],
    /// [`EmdbBuilder::range_once`]) scan at most that much of the log
    /// (docs/ARCHITECTURE.md, "Tail indexes"). Each one syncs the log first.
    /// Default 8 MiB of log; `None` turns both off.
    pub fn checkpoint_tail(mut self, bytes: Option<u64>) -> Self {
        self.cfg.checkpoint_tail = bytes;
        self
    }

    /// The file this builder would open, or `None` for an in-memory database.
    pub fn resolve_path(&self) -> Result<Option<PathBuf>> {
        let os_resolution =
            self.app_name.is_some() || self.database_name.is_some() || self.data_root.is_some();
        match (&self.path, os_resolution) {
            (Some(_), true) => Err(Error::InvalidPath {
                reason: "path() cannot be combined with app_name(), database_name() or data_root()"
                    .into(),
            }),
            (Some(p), false) => {
                if p.as_os_str().is_empty() {
                    return Err(Error::InvalidPath {
                        reason: "the database path is empty".into(),
                    });
                }
                Ok(Some(p.clone()))
            }
            (None, false) => Ok(None),
            (None, true) => {
                let app = self.app_name.as_deref().unwrap_or(DEFAULT_APP_NAME);
                let name = self
                    .database_name
                    .as_deref()
                    .unwrap_or(DEFAULT_DATABASE_NAME);
                validate_component("app_name", app)?;
                validate_component("database_name", name)?;
                let root = match &self.data_root {
                    Some(r) => r.clone(),
                    None => platform_data_dir()?,
                };
                Ok(Some(root.join(app).join(name)))
            }
        }
    }

    /// Open the database.
    ///
    /// A writer creates a missing file (and its missing parent
    /// directories). It refuses, with [`Error::InvalidPath`] and nothing
    /// created, a new file whose name is longer than
    /// [`crate::MAX_NEW_NAME_LEN`] bytes: emdb names files of its own
    /// after the database, and with such a name those would not fit.
    pub fn build(self) -> Result<Emdb> {
        let cfg = self.cfg.clone();
        check_encryption_options(&cfg)?;
        match self.resolve_path()? {
            None => {
                if cfg.read_only {
                    return Err(Error::NeedsFile {
                        what: "read_only (an in-memory database starts empty)",
                    });
                }
                finish(Engine::open_memory(cfg)?)
            }
            Some(path) => {
                if !cfg.read_only {
                    crate::fs::check_new_name(&path)?;
                }
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    if !dir.exists() && !cfg.read_only {
                        std::fs::create_dir_all(dir)
                            .map_err(|e| Error::io("create directory", Some(dir), e))?;
                    }
                }
                let path = canonical(&path);
                if !cfg.read_only {
                    // Where a dangling symlink points, the name made.
                    crate::fs::check_new_name(&path)?;
                }
                let engine = Engine::open_file(cfg, path)?;
                let rep = engine.recovery_report();
                if (!rep.skipped.is_empty() || rep.orphaned_records > 0) && !engine.cfg().read_only
                {
                    // Rewrite without the damaged bytes so the next open is clean.
                    match crate::compaction::compact(&engine) {
                        // The new log is in place; only its checkpoint is
                        // missing, which the next open does without.
                        Ok(()) | Err(Error::CheckpointNotWritten(_)) => {}
                        Err(e) => {
                            // The log still holds the damage, and this
                            // index skipped it: a checkpoint of it (the
                            // close's) would make every later open answer
                            // a damaged key with its older value, with no
                            // error. Poisoned, the handle closes without.
                            engine.poison(&e);
                            return Err(e);
                        }
                    }
                }
                finish(engine)
            }
        }
    }
}

/// What [`EmdbBuilder::read_one_key`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OneKey {
    /// The key's value.
    Found(Vec<u8>),
    /// The namespace holds no live value for the key.
    Missing,
    /// There is no namespace of that name.
    NoNamespace,
}

/// What [`EmdbBuilder::read_one_expiry`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OneExpiry {
    /// The key is live and expires at this time.
    At(std::time::SystemTime),
    /// The key is live and has no expiry.
    Never,
    /// The namespace holds no live value for the key.
    Missing,
    /// There is no namespace of that name.
    NoNamespace,
}

impl EmdbBuilder {
    /// Read one key of a database file and close it again: what a pinned
    /// read-only handle (`read_only(true).follow(false)`) would return for
    /// `key` in `namespace` (`None`: the default namespace), for a caller
    /// that reads nothing else, such as a one-shot `emdb get`.
    ///
    /// The open is the same (checkpoint mapped, the log written after it
    /// read and every unit checked, whole batches only; the part a
    /// writer's tail index covers is looked up there instead, as the part
    /// under the checkpoint is), but of that tail only the
    /// records of `key` are indexed, with every namespace create, drop and
    /// clear: beside a busy writer the tail can be
    /// megabytes, and scanning it costs a fraction of indexing every key
    /// in it (docs/ARCHITECTURE.md, "Checkpoints"). Encrypted records are
    /// indexed whole (their keys are sealed), so there it costs what a
    /// read-only open costs. The handle never leaves this call.
    pub fn read_one_key(self, namespace: Option<&str>, key: &[u8]) -> Result<OneKey> {
        self.read_one_key_reporting(namespace, key).map(|(v, _)| v)
    }

    /// [`EmdbBuilder::read_one_key`], and how its open went.
    pub(crate) fn read_one_key_reporting(
        self,
        namespace: Option<&str>,
        key: &[u8],
    ) -> Result<(OneKey, crate::RecoveryReport)> {
        let (value, report) = self.with_one_key(namespace, key, |db, ns| match ns {
            None => db.get(key),
            Some(ns) => ns.get(key),
        })?;
        let found = match value {
            None => OneKey::NoNamespace,
            Some(v) => v.map_or(OneKey::Missing, OneKey::Found),
        };
        Ok((found, report))
    }

    /// When `key` in `namespace` (`None`: the default one) of a database
    /// file expires, read the way [`EmdbBuilder::read_one_key`] reads its
    /// value (only that key's records of the log tail indexed), for a
    /// caller that reads nothing else, such as a one-shot `emdb ttl`.
    pub fn read_one_expiry(self, namespace: Option<&str>, key: &[u8]) -> Result<OneExpiry> {
        self.read_one_expiry_reporting(namespace, key)
            .map(|(e, _)| e)
    }

    /// [`EmdbBuilder::read_one_expiry`], and how its open went.
    pub(crate) fn read_one_expiry_reporting(
        self,
        namespace: Option<&str>,
        key: &[u8],
    ) -> Result<(OneExpiry, crate::RecoveryReport)> {
        // Expiry, then existence, on a handle nobody writes through. A key
        // that expires between the two reads as missing, as it would a
        // moment later (the other order would read it as never expiring:
        // `expires_at` is `None` for a key that is gone).
        let (found, report) = self.with_one_key(namespace, key, |db, ns| {
            let (at, live) = match ns {
                None => (db.expires_at(key)?, db.contains_key(key)?),
                Some(ns) => (ns.expires_at(key)?, ns.contains_key(key)?),
            };
            Ok(match (live, at) {
                (false, _) => OneExpiry::Missing,
                (true, Some(at)) => OneExpiry::At(at),
                (true, None) => OneExpiry::Never,
            })
        })?;
        Ok((found.unwrap_or(OneExpiry::NoNamespace), report))
    }

    /// Open the database read-only and pinned with only `key`'s records of
    /// the log tail indexed, and run `read` on it with `namespace` (`None`
    /// for the default one, where `read` gets `None`). `Ok((None, _))`:
    /// there is no namespace of that name. The handle never leaves.
    fn with_one_key<T>(
        self,
        namespace: Option<&str>,
        key: &[u8],
        read: impl FnOnce(&Emdb, Option<&crate::Namespace>) -> Result<T>,
    ) -> Result<(Option<T>, crate::RecoveryReport)> {
        let db = self.pinned(Some(KeyScope::keys([key]))).build()?;
        let report = db.recovery_report().clone();
        let out = match namespace {
            None => Some(read(&db, None)?),
            Some(name) => match db.namespace_if_exists(name)? {
                Some(ns) => Some(read(&db, Some(&ns))?),
                None => None,
            },
        };
        Ok((out, report))
    }
}

/// What [`EmdbBuilder::read_counts`] found: live, unexpired keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyCounts {
    /// Keys in the default namespace.
    pub default: u64,
    /// Each named namespace and its keys, by name (as
    /// [`crate::Emdb::list_namespaces`] lists them).
    pub namespaces: Vec<(String, u64)>,
}

impl KeyCounts {
    /// The counts of every namespace of `db`, as its `len()` gives them.
    pub fn of(db: &Emdb) -> Result<KeyCounts> {
        let mut namespaces = Vec::new();
        for name in db.list_namespaces()? {
            let n = db.namespace(&name)?.len()? as u64;
            namespaces.push((name, n));
        }
        Ok(KeyCounts {
            default: db.len()? as u64,
            namespaces,
        })
    }
}

impl EmdbBuilder {
    /// This builder for a one-shot read: read-only, pinned (no follower),
    /// indexing only `scope` of the log past the checkpoint.
    fn pinned(mut self, scope: Option<KeyScope>) -> EmdbBuilder {
        self.cfg.read_only = true;
        self.cfg.follow = false;
        self.cfg.only_keys = scope;
        self
    }

    /// A pinned read-only handle that replays the whole log since the
    /// checkpoint, tail index or not: the reference the tail index's
    /// readers are tested against.
    #[cfg(test)]
    pub(crate) fn replaying(self) -> EmdbBuilder {
        let mut b = self.pinned(None);
        b.cfg.layer_tail = false;
        b
    }

    /// Count the live keys of every namespace of a database file and close
    /// it again: what a pinned read-only handle's `len()` would return for
    /// each, for a caller that reads nothing else, such as a one-shot
    /// `emdb ns list`.
    ///
    /// Beside a running writer the log written since its checkpoint can
    /// be tens of megabytes, which a read-only open indexes whole. When
    /// the writer has left a tail index (docs/FORMAT.md, "Tail index
    /// file", version 2) the counts are taken from it and moved by the
    /// keys written past it, each looked up once (in the index, or the
    /// checkpoint), and nothing is indexed: the cost is that of the log
    /// past the index, not of everything since the checkpoint. Otherwise
    /// the keys are counted after a full read-only open: one that layers
    /// the tail index over the checkpoint and indexes only the log past it
    /// when the log past the index holds a namespace create, drop or
    /// clear (counts cannot be moved past those) or a namespace counted
    /// has keys that can expire (counting the unexpired ones reads every
    /// key's expiry); one that indexes everything since the checkpoint
    /// with no tail index (or a version 1 one, which has no counts) and
    /// on an encrypted database.
    pub fn read_counts(self) -> Result<KeyCounts> {
        self.read_counts_reporting().map(|(c, _)| c)
    }

    /// [`EmdbBuilder::read_counts`], and how its open went.
    pub(crate) fn read_counts_reporting(self) -> Result<(KeyCounts, crate::RecoveryReport)> {
        self.with_counts(None, |db| KeyCounts::of(db).map(Some))
            .map(|(c, report)| (c.unwrap_or_default(), report))
    }

    /// Sizes and counters of a database file ([`crate::Emdb::stats`] of a
    /// pinned read-only handle), and how its open went, for a caller that
    /// reads nothing else, such as a one-shot `emdb stats`: read the way
    /// [`EmdbBuilder::read_counts`] reads counts (from the writer's tail
    /// index, moved by the keys written past it, nothing indexed), but
    /// with keys that can expire too (these counts include expired keys
    /// not yet swept, as `stats` does). When the counts come from the tail
    /// index, the index memory reported is that of the checkpoint's index
    /// as mapped, without what a full open would add for the log past it;
    /// when the count layers the tail index instead, it includes the
    /// layer's.
    pub fn read_stats(self) -> Result<(crate::Stats, crate::RecoveryReport)> {
        let db = self.pinned(Some(KeyScope::Counts)).build()?;
        Ok((db.stats()?, db.recovery_report().clone()))
    }

    /// The live keys of `namespace` (`None`: the default one) of a
    /// database file, read the way [`EmdbBuilder::read_counts`] reads
    /// them, for a caller that reads nothing else, such as a one-shot
    /// `emdb count`; `Ok(None)` when there is no namespace of that name.
    pub fn read_count(self, namespace: Option<&str>) -> Result<Option<u64>> {
        self.with_counts(Some(namespace), |db| match namespace {
            None => Ok(Some(db.len()? as u64)),
            Some(name) => match db.namespace_if_exists(name)? {
                Some(ns) => Ok(Some(ns.len()? as u64)),
                None => Ok(None),
            },
        })
        .map(|(c, _)| c)
    }

    /// Open the database read-only and pinned for counting (see
    /// [`EmdbBuilder::read_counts`]) and run `count` on it: `only` names
    /// the one namespace it counts (`Some(None)`: the default one), `None`
    /// all of them. The handle never leaves.
    fn with_counts<T>(
        self,
        only: Option<Option<&str>>,
        count: impl FnOnce(&Emdb) -> Result<Option<T>>,
    ) -> Result<(Option<T>, crate::RecoveryReport)> {
        let db = self.clone().pinned(Some(KeyScope::Counts)).build()?;
        // Whether a namespace counted has keys that can expire.
        let expiring = |db: &Emdb| -> Result<bool> {
            let named = |name: &str| -> Result<bool> {
                Ok(db
                    .namespace_if_exists(name)?
                    .map(|ns| ns.expiring_len())
                    .transpose()?
                    .is_some_and(|n| n > 0))
            };
            match only {
                Some(None) => Ok(db.expiring_len()? > 0),
                Some(Some(name)) => named(name),
                None => {
                    if db.expiring_len()? > 0 {
                        return Ok(true);
                    }
                    for name in db.list_namespaces()? {
                        if named(&name)? {
                            return Ok(true);
                        }
                    }
                    Ok(false)
                }
            }
        };
        // Counting unexpired keys reads every entry: a handle that took
        // its counts from a tail index indexed none, so that takes a whole
        // open (one that layered the tail index has them all).
        let db = if db.recovery_report().counts_only && expiring(&db)? {
            drop(db);
            self.pinned(None).build()?
        } else {
            db
        };
        let out = count(&db)?;
        Ok((out, db.recovery_report().clone()))
    }

    /// Iterate one key range of a database file, for a caller that reads
    /// nothing else, such as a one-shot `emdb scan --prefix`: the pairs a
    /// pinned read-only handle's `range_iter((start, end))` would return
    /// in `namespace` (`None`: the default one), or `Ok(None)` when there
    /// is no namespace of that name.
    ///
    /// The open is the one [`EmdbBuilder::read_one_key`] makes with the
    /// range in place of the key: of the log written after the checkpoint
    /// (or after a writer's tail index, which is searched for the range)
    /// only the records of keys in the range are indexed (every unit
    /// checked, whole batches only), so beside a busy writer a short scan
    /// does not index the writer's whole tail. The handle is closed before
    /// this returns; the iterator keeps what it reads alive.
    pub fn range_once(
        self,
        namespace: Option<&str>,
        start: std::ops::Bound<&[u8]>,
        end: std::ops::Bound<&[u8]>,
    ) -> Result<Option<crate::RangeIter>> {
        self.range_once_reporting(namespace, start, end)
            .map(|(it, _)| it)
    }

    /// The first `n` pairs of one key range of a database file, for a
    /// caller that reads no more, such as a one-shot `emdb scan --limit
    /// 10`: an iterator whose first `n` pairs (all of them, when the range
    /// holds fewer) are those [`EmdbBuilder::range_once`] would return
    /// first; it may stop after them (`Ok(None)`: there is no namespace of
    /// that name).
    ///
    /// Beside a busy writer `range_once` over a wide range (`scan --limit
    /// 10` has no end) indexes every key of the log written since the
    /// checkpoint. This reads the range only up to the key `n` entries
    /// (and some slack) past its start in the checkpoint's order, so it
    /// costs what a short range costs; when the log since removed so many
    /// of those keys that fewer than `n` pairs remain, it reads the whole
    /// range instead. (On an encrypted database the open still decrypts
    /// every record of the tail to find those in the range; it indexes
    /// and sorts only those.)
    pub fn range_once_first(
        self,
        namespace: Option<&str>,
        start: std::ops::Bound<&[u8]>,
        end: std::ops::Bound<&[u8]>,
        n: usize,
    ) -> Result<Option<crate::RangeIter>> {
        self.range_once_first_reporting(namespace, start, end, n)
            .map(|(it, _)| it)
    }

    /// [`EmdbBuilder::range_once_first`], and how its open went.
    pub(crate) fn range_once_first_reporting(
        self,
        namespace: Option<&str>,
        start: std::ops::Bound<&[u8]>,
        end: std::ops::Bound<&[u8]>,
        n: usize,
    ) -> Result<(Option<crate::RangeIter>, crate::RecoveryReport)> {
        if n == 0 {
            return self.range_once_reporting(namespace, start, end);
        }
        let shared = |b: std::ops::Bound<&[u8]>| b.map(Arc::<[u8]>::from);
        let db = self
            .clone()
            .pinned(Some(KeyScope::First {
                namespace: namespace.map(|n| Arc::from(n.as_bytes())),
                start: shared(start),
                end: shared(end),
                // Slack for keys the log since removed.
                want: n.saturating_add(n / 2).saturating_add(16),
            }))
            .build()?;
        let report = db.recovery_report().clone();
        if report.namespace_replaced {
            drop(db);
            let (it, mut whole) = self.range_once_reporting(namespace, start, end)?;
            whole.narrowing_fell_back = true;
            return Ok((it, whole));
        }
        let Some(bound) = report.narrowed_to.clone() else {
            // Not narrowed: the whole range was read.
            let it = range_in(&db, namespace, start, end)?;
            return Ok((it, report));
        };
        // Only keys up to `bound` were read: enough if `n` pairs are there.
        // The iterator returned is made first: an iterator fixes the time
        // it reads expiries at when it is made, so every key the counting
        // one finds live is live for it too.
        let upto = bound.as_ref().map(|b| &b[..]);
        let (Some(returned), Some(mut counting)) = (
            range_in(&db, namespace, start, upto)?,
            range_in(&db, namespace, start, upto)?,
        ) else {
            return Ok((None, report));
        };
        let mut have = 0;
        while let Some(key) = counting.next_key() {
            key?;
            have += 1;
            if have == n {
                return Ok((Some(returned), report));
            }
        }
        drop((returned, counting, db));
        let (it, mut whole) = self.range_once_reporting(namespace, start, end)?;
        whole.narrowed_to = None;
        whole.narrowing_fell_back = true;
        Ok((it, whole))
    }

    /// [`EmdbBuilder::range_once`], and how its open went.
    pub(crate) fn range_once_reporting(
        self,
        namespace: Option<&str>,
        start: std::ops::Bound<&[u8]>,
        end: std::ops::Bound<&[u8]>,
    ) -> Result<(Option<crate::RangeIter>, crate::RecoveryReport)> {
        let shared = |b: std::ops::Bound<&[u8]>| b.map(Arc::<[u8]>::from);
        let db = self
            .pinned(Some(KeyScope::Range(shared(start), shared(end))))
            .build()?;
        let report = db.recovery_report().clone();
        Ok((range_in(&db, namespace, start, end)?, report))
    }
}

/// `range_iter((start, end))` of `namespace` (`None`: the default one) in
/// `db`; `None` when there is no namespace of that name.
fn range_in(
    db: &Emdb,
    namespace: Option<&str>,
    start: std::ops::Bound<&[u8]>,
    end: std::ops::Bound<&[u8]>,
) -> Result<Option<crate::RangeIter>> {
    let range = (start.map(<[u8]>::to_vec), end.map(<[u8]>::to_vec));
    match namespace {
        None => db.range_iter(range).map(Some),
        Some(name) => db
            .namespace_if_exists(name)?
            .map(|ns| ns.range_iter(range))
            .transpose(),
    }
}

/// Final steps shared by every open.
fn finish(engine: Engine) -> Result<Emdb> {
    let path = engine.path();
    let (read_only, follow, background) = (
        engine.cfg().read_only,
        engine.cfg().follow,
        engine.cfg().background,
    );
    let (gen, counters, stop) = (
        engine.generations(),
        Arc::clone(engine.counters()),
        engine.stop_flag(),
    );
    let db = Emdb::from_engine(engine);
    let e = db.engine_arc();
    let threads = match path {
        Some(_) if read_only && follow => {
            vec![crate::follower::spawn_follower(
                Arc::downgrade(e.arc()),
                stop,
            )]
        }
        Some(_) if read_only || !background => vec![],
        Some(p) => vec![
            crate::stats::spawn_publisher(p, gen, counters, stop),
            spawn_checkpointer(Arc::downgrade(e.arc()), Arc::clone(e.bell())),
        ],
        None => vec![],
    };
    for t in threads.into_iter().flatten() {
        e.adopt_thread(t);
    }
    Ok(db)
}

/// How often the writer's background thread looks at the log tail when
/// the writer does not ring its bell first (the bound changes with the
/// index's size, which the bell's armed offset does not follow).
const CHECKPOINT_TICK: Duration = Duration::from_secs(1);

/// The writer's automatic checkpoints ([`EmdbBuilder::checkpoint_tail`]):
/// a thread that ends with the engine.
///
/// It holds the engine only to copy the index (under `maintenance` and the
/// writer lock, like `checkpoint()`) and to install the file, never while
/// writing it: if the last handle is dropped meanwhile, the close runs at
/// once on that thread and this thread's file is simply not installed (the
/// close wrote its own). It writes to its own temp file, so it never races
/// another checkpoint's, and installs only while holding `maintenance`,
/// only if no compaction replaced the log meanwhile and only if no newer
/// checkpoint (an explicit `checkpoint()`) was installed while it wrote.
fn spawn_checkpointer(
    engine: std::sync::Weak<Engine>,
    bell: Arc<crate::engine::Bell>,
) -> Option<std::thread::JoinHandle<()>> {
    // Without the thread the engine works; only reopening replays more.
    std::thread::Builder::new()
        .name("emdb-checkpoint".into())
        .spawn(move || {
            // Each look arms the bell for the bound as it then stands, so a
            // writer that reaches it rings before the next tick; a look that
            // checkpointed is followed by another. The first look is a tick
            // after open: a bulk load right after open is not checkpointed
            // under the writes that follow it (measured: individual durable
            // writes 30% slower while the checkpoint's data is written back).
            let mut indexer = crate::tail_index::Indexer::default();
            loop {
                let _ = bell.wait(CHECKPOINT_TICK);
                loop {
                    match auto_checkpoint(&engine, &mut indexer) {
                        Auto::Done => {}
                        Auto::Wait => break,
                        Auto::Gone => return,
                    }
                }
            }
        })
        .ok()
}

/// What one look of the automatic checkpointer came to.
enum Auto {
    /// A checkpoint or tail index was installed: look again at once.
    Done,
    /// Nothing due, or it could not be done now: wait for the bell.
    Wait,
    /// The engine is gone.
    Gone,
}

/// What a look found to do.
enum Job {
    Checkpoint(crate::checkpoint::Snapshot),
    TailIndex(crate::engine::TailIndexJob),
}

/// One look of the automatic checkpointer: checkpoint when the tail is past
/// its bound, or write a tail index when one is due (which arms the bell
/// for the next look).
fn auto_checkpoint(
    engine: &std::sync::Weak<Engine>,
    indexer: &mut crate::tail_index::Indexer,
) -> Auto {
    let job = {
        let Some(e) = engine.upgrade() else {
            return Auto::Gone;
        };
        if e.stopping() {
            return Auto::Gone;
        }
        let due = e.due();
        if due == Due::Nothing {
            return Auto::Wait;
        }
        let Some(_m) = e.try_lock_maintenance() else {
            return Auto::Wait;
        };
        // A failure that poisoned the handle is reported by the next write
        // or flush; otherwise the next look retries.
        match due {
            Due::Checkpoint => match e.checkpoint_snapshot() {
                Ok(Some(mut s)) => {
                    s.cancel = Some(e.stop_flag());
                    Job::Checkpoint(s)
                }
                _ => return Auto::Wait,
            },
            _ => match e.tail_index_job(&|base| indexer.gave_up(base)) {
                Ok(Some(j)) => Job::TailIndex(j),
                _ => return Auto::Wait,
            },
        }
    };
    match job {
        Job::Checkpoint(snap) => {
            // What the indexer holds extends the checkpoint being replaced.
            *indexer = crate::tail_index::Indexer::default();
            install_auto_checkpoint(engine, snap)
        }
        Job::TailIndex(job) => write_tail_index(engine, indexer, &job),
    }
}

/// Write the automatic checkpoint `snap` and install it.
fn install_auto_checkpoint(
    engine: &std::sync::Weak<Engine>,
    mut snap: crate::checkpoint::Snapshot,
) -> Auto {
    let Ok(tmp) = snap.write_temp(crate::checkpoint::AUTO_TEMP) else {
        return Auto::Wait;
    };
    let Some(e) = engine.upgrade() else {
        let _ = std::fs::remove_file(&tmp);
        return Auto::Gone;
    };
    let _m = e.lock_maintenance();
    // Not over a newer checkpoint (an explicit one, or a close's, written
    // while this one was being written), nor into a replaced log.
    let newest = e.generation() == snap.binding.generation
        && snap.binding.covered_end > e.checkpointed_end();
    if newest && e.install_checkpoint(&snap, &tmp).is_ok() {
        Auto::Done
    } else {
        let _ = std::fs::remove_file(&tmp);
        Auto::Wait
    }
}

/// Scan the log the tail index `job` covers (only what the last one did
/// not) and write and install it, holding no engine lock but to install.
fn write_tail_index(
    engine: &std::sync::Weak<Engine>,
    indexer: &mut crate::tail_index::Indexer,
    job: &crate::engine::TailIndexJob,
) -> Auto {
    let h = &job.header;
    let crypt = job.gen.crypt().as_deref();
    let usable = {
        let region = job.gen.log().region();
        let bytes = job.gen.bytes(&region);
        let scanned = indexer
            .scan(h.base, bytes, h.end, crypt)
            .and_then(|usable| match usable {
                // A sealed file's sorted section is sealed page by page.
                true => indexer.sorted(bytes, crypt).map(Some),
                false => Ok(None),
            });
        job.gen.log().vouch(&region, scanned)
    };
    let installed = match usable {
        Ok(Some(sorted)) => {
            let faults = engine.upgrade().and_then(|e| e.cfg().faults.clone());
            crate::tail_index::write(
                &job.db,
                *h,
                &indexer.entries(),
                &sorted,
                &job.counts,
                crypt,
                faults.as_deref(),
                |rename| match engine.upgrade() {
                    Some(e) => {
                        let _m = e.lock_maintenance();
                        e.install_tail_index(h, Some(rename))
                    }
                    None => Ok(false),
                },
            )
        }
        // Nothing can be said for this stretch: note it was looked at, so
        // the next look waits for the next one.
        Ok(None) => note_looked_at(engine, h),
        Err(_) => Ok(false),
    };
    // A failed write is not retried at once (the bell is armed at an end
    // already passed, so the next write would ring): the next try is a
    // stretch later.
    let installed = match installed {
        Err(_) => note_looked_at(engine, h).map(|_| false),
        other => other,
    };
    match installed {
        Ok(true) => Auto::Done,
        _ => Auto::Wait,
    }
}

/// Note that the tail index `h` would have covered was looked at.
fn note_looked_at(engine: &std::sync::Weak<Engine>, h: &crate::tail_index::Header) -> Result<bool> {
    match engine.upgrade() {
        Some(e) => {
            let _m = e.lock_maintenance();
            e.install_tail_index(h, None).map(|_| true)
        }
        None => Ok(false),
    }
}

/// The platform data directory (`$XDG_DATA_HOME`, `~/.local/share`, ...).
fn platform_data_dir() -> Result<PathBuf> {
    dirs::data_dir().ok_or_else(|| Error::InvalidPath {
        reason: "no platform data directory (is HOME set?); use path() or data_root()".into(),
    })
}

/// The default database file: `<platform data dir>/emdb/emdb-default.emdb`.
pub fn default_database_path() -> Result<PathBuf> {
    Ok(platform_data_dir()?
        .join(DEFAULT_APP_NAME)
        .join(DEFAULT_DATABASE_NAME))
}

/// Refuse, before any file is touched, encryption options that would be
/// ignored or fail later: a cipher or Argon2id costs without a key or
/// passphrase (the database would silently not be encrypted), and
/// Argon2id costs the key derivation refuses (a failed open left the lock
/// file behind).
fn check_encryption_options(cfg: &Config) -> Result<()> {
    match &cfg.encryption {
        None if cfg.cipher != Cipher::default() || cfg.kdf_params != KdfParams::default() => {
            Err(Error::InvalidConfig(
                "a cipher or Argon2id costs were set without an encryption key or passphrase: \
                 the database would not be encrypted"
                    .into(),
            ))
        }
        #[cfg(feature = "encrypt")]
        Some(EncryptionInput::Passphrase(_)) => {
            crate::crypto::argon2_params(cfg.kdf_params).map(drop)
        }
        _ => Ok(()),
    }
}

fn validate_component(what: &str, s: &str) -> Result<()> {
    if s.is_empty() || s == "." || s == ".." || s.contains(['/', '\\']) || s.contains('\0') {
        return Err(Error::InvalidPath {
            reason: format!(
                "{what} must be a single, non-empty name without path separators or '..', got {s:?}"
            ),
        });
    }
    Ok(())
}

/// Resolve symlinks so that every path to one file shares one lock.
fn canonical(path: &Path) -> PathBuf {
    canonical_within(path, 40)
}

/// [`canonical`], following at most `hops` more symlinks to a file that
/// does not exist yet.
fn canonical_within(path: &Path, hops: u32) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    // A symlink to a file that does not exist yet (dangling): the database
    // is created where it points, as `echo > link` would, not over the
    // link itself (which left the link's target, say on a volume not
    // mounted yet, without the data written through it).
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if let (true, Some(hops), Ok(to)) = (is_link, hops.checked_sub(1), std::fs::read_link(path)) {
        let to = match path.parent() {
            Some(dir) if to.is_relative() => dir.join(to),
            _ => to,
        };
        return canonical_within(&to, hops);
    }
    // The file may not exist yet: canonicalize its directory.
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            dir.canonicalize()
                .map(|d| d.join(name))
                .unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each background thread holds, watched from outside: each is
    /// released only when its thread ends.
    fn held_by_threads(db: &Emdb) -> [std::sync::Weak<dyn std::any::Any + Send + Sync>; 3] {
        let e = db.engine_arc();
        let stop: Arc<dyn std::any::Any + Send + Sync> = e.stop_flag();
        let bell: Arc<dyn std::any::Any + Send + Sync> = e.bell().clone();
        let gens: Arc<dyn std::any::Any + Send + Sync> = e.generations();
        [
            Arc::downgrade(&stop),
            Arc::downgrade(&bell),
            Arc::downgrade(&gens),
        ]
    }

    #[test]
    fn dropping_a_handle_waits_for_its_background_threads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("threads.emdb");
        let writer = Emdb::open(&path).unwrap();
        writer.insert("k", "v").unwrap();
        let follower = Emdb::builder().path(&path).read_only(true).build().unwrap();
        assert_eq!(follower.get("k").unwrap().as_deref(), Some(&b"v"[..]));
        for (who, db) in [("reader", follower), ("writer", writer)] {
            let held = held_by_threads(&db);
            // The stats publisher holds the stop and the generations, the
            // checkpointer the bell, a reader's follower the stop: each
            // sleeps for a tick (250 ms, 1 s, 50 ms) between rounds.
            assert!(
                held.iter().any(|w| w.strong_count() > 1),
                "{who}: no thread"
            );
            drop(db);
            for (what, w) in ["stop", "bell", "generations"].iter().zip(&held) {
                assert_eq!(
                    w.strong_count(),
                    0,
                    "{who}: a thread still holds the {what}"
                );
            }
        }
    }

    #[test]
    fn path_and_os_resolution_do_not_mix() {
        let b = EmdbBuilder::new().path("/tmp/x.emdb").app_name("a");
        assert!(matches!(b.resolve_path(), Err(Error::InvalidPath { .. })));
    }

    #[test]
    fn os_resolution_uses_defaults_and_validates() {
        let b = EmdbBuilder::new().data_root("/data");
        assert_eq!(
            b.resolve_path().unwrap(),
            Some(PathBuf::from("/data/emdb/emdb-default.emdb"))
        );
        let b = EmdbBuilder::new()
            .data_root("/data")
            .app_name("app")
            .database_name("s.emdb");
        assert_eq!(
            b.resolve_path().unwrap(),
            Some(PathBuf::from("/data/app/s.emdb"))
        );
        for bad in ["", "..", ".", "a/b", "a\\b"] {
            let b = EmdbBuilder::new().data_root("/d").app_name(bad);
            assert!(
                matches!(b.resolve_path(), Err(Error::InvalidPath { .. })),
                "{bad:?}"
            );
            let b = EmdbBuilder::new().data_root("/d").database_name(bad);
            assert!(
                matches!(b.resolve_path(), Err(Error::InvalidPath { .. })),
                "{bad:?}"
            );
        }
        assert_eq!(EmdbBuilder::new().resolve_path().unwrap(), None);
    }

    /// Two keys in the same index slot group: the top 32 bits of their
    /// hash (shard and tag) agree.
    fn same_slot_keys() -> (String, String) {
        let mut seen = std::collections::HashMap::new();
        for n in 0u64.. {
            let k = format!("k{n}");
            let top = (xxhash_rust::xxh3::xxh3_64(k.as_bytes()) >> 32) as u32;
            if let Some(other) = seen.insert(top, k.clone()) {
                return (other, k);
            }
        }
        unreachable!()
    }

    /// A layered read-only handle compares a checkpoint key with a key of
    /// the tail index whose slot tag it shares (`Generation::shard_offsets`)
    /// by reading both records. When the file was cut inside the page of
    /// the later one's header (and zeroed in place, for damage), an
    /// iteration must name the cut, not the zeros.
    #[test]
    fn a_layered_key_comparison_over_a_cut_reports_the_cut() {
        let (old, new) = same_slot_keys();
        for cut in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("layer.emdb");
            let db = Emdb::builder()
                .path(&path)
                .background(false)
                .build()
                .unwrap();
            db.insert(&old, vec![b'o'; 1000]).unwrap();
            db.checkpoint().unwrap();
            db.insert(&new, vec![b'n'; 1000]).unwrap();
            let engine = db.engine_arc();
            let job = engine.tail_index_job(&|_| false).unwrap().unwrap();
            let mut indexer = crate::tail_index::Indexer::default();
            let weak = Arc::downgrade(engine.arc());
            assert!(matches!(
                write_tail_index(&weak, &mut indexer, &job),
                Auto::Done
            ));
            let reader = Emdb::builder().path(&path).read_only(true).build().unwrap();
            assert!(reader.recovery_report().used_tail_index);
            let bytes = std::fs::read(&path).unwrap();
            let key_at = bytes
                .windows(new.len())
                .rposition(|w| w == new.as_bytes())
                .unwrap();
            // One byte into the header (CRC, tag, two lengths, the key).
            let at = key_at - 8 + 1;
            let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            if cut {
                f.set_len(at as u64).unwrap();
            } else {
                std::os::unix::fs::FileExt::write_all_at(&f, &[0; 8], at as u64).unwrap();
            }
            let walked: Vec<_> = reader.iter().unwrap().collect();
            match walked.iter().find_map(|r| r.as_ref().err()) {
                Some(Error::Corruption { reason, .. }) => assert_eq!(
                    reason.contains("truncated by another process"),
                    cut,
                    "{reason}"
                ),
                other => panic!("cut {cut}: {other:?} in {walked:?}"),
            }
        }
    }

    /// A one-key open of an encrypted database decrypts each sealed record
    /// of the tail to find its key, and indexes only the asked key's: the
    /// others cost no probe and no read of the record they replace. The
    /// answers are those of a full open.
    #[test]
    fn a_one_key_open_of_an_encrypted_log_indexes_only_that_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sealed.emdb");
        let open = || {
            EmdbBuilder::new()
                .path(&path)
                .encryption_key([9u8; 32])
                .checkpoint_tail(None)
                .checkpoint_on_close(false)
        };
        let db = open().build().unwrap();
        for i in 0..200u32 {
            db.insert(format!("k{i:03}"), format!("v{i}")).unwrap();
        }
        db.checkpoint().unwrap();
        // The tail: 3 records of k007 among 300 of other keys.
        for i in 0..300u32 {
            db.insert(format!("k{:03}", i % 150 + 10), format!("w{i}"))
                .unwrap();
            if i == 100 || i == 200 {
                db.insert("k007", format!("x{i}")).unwrap();
            }
        }
        db.remove("k007").unwrap();
        db.insert("k007", "last").unwrap();
        db.remove("k008").unwrap();
        drop(db);

        let one = |key: &str| {
            open()
                .pinned(Some(KeyScope::keys([key.as_bytes()])))
                .build()
                .unwrap()
        };
        let h = one("k007");
        assert_eq!(h.get("k007").unwrap().as_deref(), Some(&b"last"[..]));
        // Two puts, the delete and the last put.
        assert_eq!(h.recovery_report().records_replayed, 4);
        let h = one("k008");
        assert_eq!(h.get("k008").unwrap(), None);
        assert_eq!(h.recovery_report().records_replayed, 1);
        let full = open().read_only(true).build().unwrap();
        for k in ["k000", "k050", "k159", "k199"] {
            assert_eq!(one(k).get(k).unwrap(), full.get(k).unwrap(), "{k}");
        }
        // A key the tail does not name replays nothing.
        assert_eq!(one("k000").recovery_report().records_replayed, 0);
    }
}
