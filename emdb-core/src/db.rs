//! [`Emdb`], the public face of the engine: thin wrappers that delegate.

use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::builder::EmdbBuilder;
use crate::engine::{check_sizes, Engine, Handle};
use crate::error::{Error, Result};
use crate::keyspace::{
    keyspace_api, owned_bound, prefix_end, to_system_time, Cursor, Iter, Keys, Namespace,
};
use crate::lock::{self, LockHolder};
use crate::log::Region;
use crate::recovery::RecoveryReport;
use crate::stats::Stats;
use crate::ttl::Ttl;

/// An embedded key-value database.
///
/// Cheap to clone: clones share one engine, and the engine is `Send + Sync`,
/// so hand clones to threads. Reads never block each other; writes are
/// serialised by a single writer lock. When the last clone is dropped the
/// database is synced and checkpointed.
#[derive(Clone)]
pub struct Emdb {
    engine: Handle,
}

impl fmt::Debug for Emdb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Emdb")
            .field("path", &self.engine.path())
            .field("read_only", &self.engine.cfg().read_only)
            .finish()
    }
}

const DEFAULT_NS: u32 = 0;

impl Emdb {
    pub(crate) fn from_engine(engine: Engine) -> Emdb {
        Emdb {
            engine: Handle::new(engine),
        }
    }

    fn engine(&self) -> &Handle {
        &self.engine
    }

    pub(crate) fn engine_arc(&self) -> &Handle {
        &self.engine
    }

    fn ns_id(&self) -> u32 {
        DEFAULT_NS
    }

    /// The default namespace as a [`Namespace`] handle (no name): its
    /// operations are this handle's own.
    pub(crate) fn default_namespace(&self) -> Namespace {
        Namespace::new(self.engine.clone(), DEFAULT_NS, String::new())
    }

    keyspace_api!();

    /// Open (or create) the database file at `path` with default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Emdb> {
        EmdbBuilder::new().path(path.as_ref()).build()
    }

    /// A new, empty database that lives in memory only.
    pub fn open_in_memory() -> Emdb {
        Emdb::from_engine(Engine::open_memory_plain(crate::config::Config::default()))
    }

    /// A builder for every other option.
    pub fn builder() -> EmdbBuilder {
        EmdbBuilder::new()
    }

    /// The database file, or `None` in memory.
    pub fn path(&self) -> Option<PathBuf> {
        self.engine.path()
    }

    /// What recovery found when this database was opened.
    pub fn recovery_report(&self) -> &RecoveryReport {
        self.engine.recovery_report()
    }

    /// Tell the kernel how this handle is about to read the log, for its
    /// read-ahead when the pages are not in the page cache yet (see
    /// [`ReadPattern`]). Only a hint: results never change, and a page
    /// already cached is read the same way whatever the pattern. It covers
    /// the log as mapped now; a handle that writes or follows a writer maps
    /// new room later with the default pattern. In-memory databases
    /// ignore it.
    pub fn advise_reads(&self, pattern: ReadPattern) -> Result<()> {
        advise(&self.engine.gen(), pattern)
    }

    /// Insert many pairs as one atomic batch: after a crash either all of
    /// them are present or none. Encoded straight into the log, no per-record
    /// syscall.
    pub fn insert_many<I, K, V>(&self, items: I) -> Result<()>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        self.engine.insert_many_in(DEFAULT_NS, items)
    }

    /// Run `f` against a transaction and commit its writes atomically when it
    /// returns `Ok`. On `Err` nothing is written.
    ///
    /// Reads inside the transaction see its own pending writes. The commit is
    /// all-or-nothing across a crash.
    ///
    /// It is atomic, not isolated: `f` runs without the writer lock and its
    /// reads are not checked at commit, so two threads that read a key and
    /// write it back through transactions can lose one's update (a counter
    /// incremented 40,000 times by two threads ended at 22,984). Serialise
    /// such read-modify-writes yourself (a `Mutex` around them); the `emdb`
    /// commands are safe because each holds the writer lock of its process.
    pub fn transaction<F, T>(&self, f: F) -> Result<T>
    where
        F: FnOnce(&mut Transaction<'_>) -> Result<T>,
    {
        let mut tx = Transaction {
            db: self,
            ops: Vec::new(),
            latest: HashMap::new(),
        };
        let out = f(&mut tx)?;
        let mut batch = self.engine.batch()?;
        for op in &tx.ops {
            match &op.value {
                Some(v) => batch.put(op.ns, &op.key, v, op.expires_at)?,
                None => batch.delete(op.ns, &op.key)?,
            }
        }
        batch.commit()?;
        Ok(out)
    }

    /// Stream every `(key, value)` pair, in no particular order.
    ///
    /// Weakly consistent: each key appears at most once, with the value it
    /// had when its index shard was visited; writes made during iteration may
    /// or may not be seen.
    pub fn iter(&self) -> Result<Iter> {
        Ok(Iter {
            inner: Cursor::new(&self.engine, DEFAULT_NS)?,
        })
    }

    /// Stream every key, in no particular order (see [`Emdb::iter`]).
    pub fn keys(&self) -> Result<Keys> {
        Ok(Keys {
            inner: Cursor::new(&self.engine, DEFAULT_NS)?,
        })
    }

    /// Make every write that returned before this call durable, as the
    /// configured [`FlushPolicy`](crate::FlushPolicy) says.
    pub fn flush(&self) -> Result<()> {
        self.engine.flush()
    }

    /// Close this handle as dropping the last one does, and say what
    /// failed: trim the room allocated ahead, make every write durable, and
    /// checkpoint when the log grew enough since the last checkpoint (the
    /// log's sync and the checkpoint's writing overlap). Other clones stay
    /// usable (their writes wait while that checkpoint is written from the
    /// index itself); if they write more, the last of them closes again
    /// when dropped.
    pub fn close(self) -> Result<()> {
        self.engine.close()
    }

    /// Flush, then persist the index so the next open does not replay the log.
    pub fn checkpoint(&self) -> Result<()> {
        self.engine.checkpoint()
    }

    /// Rewrite the log with only live records. Readers and writers keep
    /// working meanwhile; a crash at any point leaves the old or the new file.
    pub fn compact(&self) -> Result<()> {
        crate::compaction::compact(&self.engine)
    }

    /// Sizes and activity counters. On a read-only handle the activity
    /// counters (writes, flushes, fsyncs, compactions) are the writer's, read
    /// from the stats file it publishes next to the database.
    pub fn stats(&self) -> Result<Stats> {
        Ok(self.engine.stats())
    }

    /// Read-only handles: catch up with what the writing process has written
    /// since (also done automatically about every 50 ms). Returns how many
    /// records were applied. Follows the writer across compactions. A no-op
    /// returning 0 on a writable handle.
    pub fn refresh(&self) -> Result<usize> {
        crate::follower::refresh(&self.engine)
    }

    /// True when this handle was opened read-only.
    pub fn is_read_only(&self) -> bool {
        self.engine.cfg().read_only
    }

    /// Write a consistent copy of the database to `target`, a file that must
    /// not exist yet, while other threads keep writing. The copy opens like
    /// any database. Refuses the database's own path.
    pub fn backup_to(&self, target: impl AsRef<Path>) -> Result<()> {
        crate::backup::backup_to(&self.engine, target.as_ref())
    }

    /// The name every temp file of a [`Emdb::backup_to`] `target` by this
    /// process starts with (`<target>.emdb-backup-<host>-<pid>`, then
    /// `.tmp`, or `.fork` and the files of its own for an encrypted copy):
    /// for a caller that removes them when it is interrupted. A killed
    /// backup's are removed by the next backup to `target` on this machine.
    pub fn backup_temp_base(target: impl AsRef<Path>) -> std::path::PathBuf {
        crate::backup::temp_base(target.as_ref())
    }

    /// Who holds the writer lock of the database at `path`, if anyone. A lock
    /// file left by a process that is gone is reported with `alive: false`.
    pub fn lock_holder(path: impl AsRef<Path>) -> Result<Option<LockHolder>> {
        lock::holder(&canonical_or_same(path.as_ref()))
    }

    /// Remove the lock file of the database at `path` when no live process
    /// holds it (`Error::LockBusy` otherwise). Returns whether a file was removed.
    pub fn break_lock(path: impl AsRef<Path>) -> Result<bool> {
        lock::break_lock(&canonical_or_same(path.as_ref()))
    }

    /// Check every record of the database at `path` (CRCs, and seals when
    /// `encryption` is given) without modifying anything, and list every
    /// damaged range. Repair with `EmdbBuilder::salvage(true)`.
    pub fn verify(
        path: impl AsRef<Path>,
        encryption: Option<crate::EncryptionInput>,
    ) -> Result<crate::VerifyReport> {
        crate::verify::verify(path.as_ref(), encryption)
    }

    /// The default database file: `<platform data dir>/emdb/emdb-default.emdb`.
    pub fn default_path() -> Result<PathBuf> {
        crate::builder::default_database_path()
    }
}

fn canonical_or_same(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

struct TxOp {
    ns: u32,
    key: Vec<u8>,
    value: Option<Vec<u8>>,
    expires_at: u64,
}

/// Pending writes of a [`Emdb::transaction`], possibly across namespaces.
pub struct Transaction<'db> {
    db: &'db Emdb,
    ops: Vec<TxOp>,
    /// Index into `ops` of the newest write per (namespace, key).
    latest: HashMap<(u32, Vec<u8>), usize>,
}

impl<'db> Transaction<'db> {
    fn stage(&mut self, ns: u32, key: &[u8], value: Option<&[u8]>, ttl: Ttl) -> Result<()> {
        check_sizes(key, value.unwrap_or_default())?;
        let e = &self.db.engine;
        let expires_at = match value {
            Some(_) => ttl.expires_at(|| e.now(), e.cfg().default_ttl),
            None => 0,
        };
        self.latest.insert((ns, key.to_vec()), self.ops.len());
        self.ops.push(TxOp {
            ns,
            key: key.to_vec(),
            value: value.map(<[u8]>::to_vec),
            expires_at,
        });
        Ok(())
    }

    fn read(&self, ns: u32, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if let Some(&i) = self.latest.get(&(ns, key.to_vec())) {
            return Ok(self.ops[i].value.clone());
        }
        let e = &self.db.engine;
        let gen = e.gen();
        e.with_ns(&gen, ns, |n| {
            e.lookup(&gen, n, key, |_, _, f| f.value.to_vec())
        })
    }

    /// Stage an insert (with the default TTL, if one is set).
    pub fn insert(&mut self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        self.stage(DEFAULT_NS, key.as_ref(), Some(value.as_ref()), Ttl::Default)
    }

    /// Stage an insert with an explicit lifetime.
    pub fn insert_with_ttl(
        &mut self,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
        ttl: Ttl,
    ) -> Result<()> {
        self.stage(DEFAULT_NS, key.as_ref(), Some(value.as_ref()), ttl)
    }

    /// Stage a removal; returns the value the key has within the transaction.
    pub fn remove(&mut self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        let old = self.read(DEFAULT_NS, key.as_ref())?;
        self.stage(DEFAULT_NS, key.as_ref(), None, Ttl::Never)?;
        Ok(old)
    }

    /// The value of `key` as this transaction sees it.
    pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        self.read(DEFAULT_NS, key.as_ref())
    }

    /// True when `key` has a value as this transaction sees it.
    pub fn contains_key(&self, key: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.get(key)?.is_some())
    }

    /// Stage writes to another namespace in the same atomic commit.
    pub fn namespace<'t>(&'t mut self, ns: &Namespace) -> TxNamespace<'t, 'db> {
        TxNamespace {
            tx: self,
            ns: ns.id(),
        }
    }
}

/// The part of a [`Transaction`] that writes to one [`Namespace`].
pub struct TxNamespace<'t, 'db> {
    tx: &'t mut Transaction<'db>,
    ns: u32,
}

impl TxNamespace<'_, '_> {
    /// Stage an insert into this namespace.
    pub fn insert(&mut self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        self.tx
            .stage(self.ns, key.as_ref(), Some(value.as_ref()), Ttl::Default)
    }

    /// Stage an insert into this namespace with an explicit lifetime.
    pub fn insert_with_ttl(
        &mut self,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
        ttl: Ttl,
    ) -> Result<()> {
        self.tx
            .stage(self.ns, key.as_ref(), Some(value.as_ref()), ttl)
    }

    /// Stage a removal from this namespace; returns the value as the
    /// transaction sees it.
    pub fn remove(&mut self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        let old = self.tx.read(self.ns, key.as_ref())?;
        self.tx.stage(self.ns, key.as_ref(), None, Ttl::Never)?;
        Ok(old)
    }

    /// The value of `key` in this namespace as the transaction sees it.
    pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        self.tx.read(self.ns, key.as_ref())
    }
}

/// How a handle expects to read the log next ([`Emdb::advise_reads`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadPattern {
    /// The kernel's default: a page fault on a page not in the cache reads
    /// a window around it (`read_ahead_kb`, often megabytes).
    Normal,
    /// A few records here and there (a lookup, a short scan): a fault
    /// reads only its own page. On a cold cache a one-shot lookup then
    /// reads kilobytes instead of the read-around windows.
    Random,
    /// Long runs in log order (an export of a compacted database): read
    /// ahead more.
    Sequential,
}

/// A value borrowed from the mapped log, returned by [`Emdb::get_zerocopy`].
///
/// Holds the mapping alive, so it stays valid after later writes, growth of
/// the file, compaction, and even after the database handle is dropped.
#[derive(Clone)]
pub struct ValueRef {
    inner: ValueInner,
}

#[derive(Clone)]
enum ValueInner {
    /// Bytes of the mapped log.
    Mapped {
        region: Arc<Region>,
        start: u64,
        end: u64,
    },
    /// A decrypted copy (encrypted databases), zeroized on drop.
    Owned(Arc<zeroize::Zeroizing<Vec<u8>>>),
}

impl ValueRef {
    pub(crate) fn new(region: &Arc<Region>, start: u64, len: usize) -> ValueRef {
        ValueRef {
            inner: ValueInner::Mapped {
                region: Arc::clone(region),
                start,
                end: start + len as u64,
            },
        }
    }

    pub(crate) fn owned(bytes: &[u8]) -> ValueRef {
        ValueRef {
            inner: ValueInner::Owned(Arc::new(zeroize::Zeroizing::new(bytes.to_vec()))),
        }
    }

    /// Copy the bytes out.
    pub fn into_vec(self) -> Vec<u8> {
        self.to_vec()
    }
}

impl Deref for ValueRef {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.inner {
            // The range was checked against this region when the ValueRef was made.
            ValueInner::Mapped { region, start, end } => {
                region.slice(*start, *end).unwrap_or_default()
            }
            ValueInner::Owned(v) => v.as_slice(),
        }
    }
}

impl AsRef<[u8]> for ValueRef {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl fmt::Debug for ValueRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValueRef")
            .field("len", &self.len())
            .finish()
    }
}

impl PartialEq<[u8]> for ValueRef {
    fn eq(&self, other: &[u8]) -> bool {
        **self == *other
    }
}

/// [`Emdb::advise_reads`] for the log of `gen`.
pub(crate) fn advise(gen: &crate::engine::Generation, pattern: ReadPattern) -> Result<()> {
    let advice = match pattern {
        ReadPattern::Normal => memmap2::Advice::Normal,
        ReadPattern::Random => memmap2::Advice::Random,
        ReadPattern::Sequential => memmap2::Advice::Sequential,
    };
    gen.log()
        .region()
        .advise(advice)
        .map_err(|e| Error::io("madvise", gen.log().path(), e))
}
