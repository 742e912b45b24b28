//! [`Emdb`], the public face of the engine: thin wrappers that delegate.

use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::builder::EmdbBuilder;
use crate::engine::{check_sizes, expired, now_ms, Engine, Generation};
use crate::error::{Error, Result};
use crate::format::record::{FrameSpec, Kind};
use crate::index::SHARDS;
use crate::lock::{self, LockHolder};
use crate::log::Region;
use crate::namespace::{frame_at, NsEntry};
use crate::recovery::RecoveryReport;
use crate::stats::Stats;

/// An embedded key-value database.
///
/// Cheap to clone: clones share one engine, and the engine is `Send + Sync`,
/// so hand clones to threads. Reads never block each other; writes are
/// serialised by a single writer lock. When the last clone is dropped the
/// database is synced and checkpointed.
#[derive(Clone)]
pub struct Emdb {
    engine: Arc<Engine>,
}

impl fmt::Debug for Emdb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Emdb")
            .field("path", &self.engine.path())
            .field("read_only", &self.engine.cfg.read_only)
            .finish()
    }
}

const DEFAULT_NS: u32 = 0;

impl Emdb {
    pub(crate) fn from_engine(engine: Engine) -> Emdb {
        Emdb {
            engine: Arc::new(engine),
        }
    }

    /// Open (or create) the database file at `path` with default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Emdb> {
        EmdbBuilder::new().path(path.as_ref()).build()
    }

    /// A new, empty database that lives in memory only.
    pub fn open_in_memory() -> Emdb {
        Emdb::from_engine(Engine::open_memory(crate::builder::Config::default()))
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
        &self.engine.report
    }

    /// Insert or replace `key`.
    pub fn insert(&self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        self.engine.put(DEFAULT_NS, key.as_ref(), value.as_ref(), 0)
    }

    /// The value of `key`, copied out.
    #[inline]
    pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        let gen = self.engine.gen.load();
        self.engine
            .lookup(&gen, &gen.default, key.as_ref(), |_, _, f| f.value.to_vec())
    }

    /// The value of `key` without copying: a [`ValueRef`] into the mapped log.
    /// It stays valid after later writes, growth and compaction.
    #[inline]
    pub fn get_zerocopy(&self, key: impl AsRef<[u8]>) -> Result<Option<ValueRef>> {
        let gen = self.engine.gen.load();
        self.engine
            .lookup(&gen, &gen.default, key.as_ref(), |region, off, f| {
                let start = off + f.value_at as u64;
                ValueRef {
                    region: Arc::clone(region),
                    start,
                    end: start + f.value.len() as u64,
                }
            })
    }

    /// Remove `key`; returns the value it had.
    pub fn remove(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        self.engine.delete(DEFAULT_NS, key.as_ref())
    }

    /// True when `key` has a value.
    pub fn contains_key(&self, key: impl AsRef<[u8]>) -> Result<bool> {
        let gen = self.engine.gen.load();
        Ok(self
            .engine
            .lookup(&gen, &gen.default, key.as_ref(), |_, _, _| ())?
            .is_some())
    }

    /// Number of keys.
    pub fn len(&self) -> Result<usize> {
        Ok(self.engine.gen.load().default.keydir.len() as usize)
    }

    /// True when there are no keys.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Remove every key (one record in the log, however many keys).
    pub fn clear(&self) -> Result<()> {
        self.engine.clear(DEFAULT_NS)
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
        let mut batch = self.engine.batch()?;
        for (k, v) in items {
            batch.put(DEFAULT_NS, k.as_ref(), v.as_ref(), 0)?;
        }
        batch.commit()
    }

    /// Run `f` against a transaction and commit its writes atomically when it
    /// returns `Ok`. On `Err` nothing is written.
    ///
    /// Reads inside the transaction see its own pending writes. The commit is
    /// all-or-nothing across a crash.
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
        for (key, value) in &tx.ops {
            match value {
                Some(v) => batch.put(DEFAULT_NS, key, v, 0)?,
                None => batch.delete(DEFAULT_NS, key)?,
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
        let gen = self.engine.gen.load_full();
        let ns = Arc::clone(&gen.default);
        Ok(Iter {
            inner: Cursor::new(gen, ns),
        })
    }

    /// Stream every key, in no particular order (see [`Emdb::iter`]).
    pub fn keys(&self) -> Result<Keys> {
        let gen = self.engine.gen.load_full();
        let ns = Arc::clone(&gen.default);
        Ok(Keys {
            inner: Cursor::new(gen, ns),
        })
    }

    /// Make every write that returned before this call durable, as the
    /// configured [`FlushPolicy`](crate::FlushPolicy) says.
    pub fn flush(&self) -> Result<()> {
        self.engine.flush()
    }

    /// Flush, then persist the index so the next open does not replay the log.
    pub fn checkpoint(&self) -> Result<()> {
        self.engine.checkpoint()
    }

    /// Rewrite the log with only live records. Readers and writers keep
    /// working meanwhile; a crash at any point leaves the old or the new file.
    pub fn compact(&self) -> Result<()> {
        self.engine.compact()
    }

    /// Sizes and activity counters.
    pub fn stats(&self) -> Result<Stats> {
        Ok(self.engine.stats())
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

    /// The default database file: `<platform data dir>/emdb/emdb-default.emdb`.
    pub fn default_path() -> Result<PathBuf> {
        crate::builder::default_database_path()
    }
}

fn canonical_or_same(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

impl Engine {
    /// Remove every key of a namespace with one `Clear` record.
    pub(crate) fn clear(&self, ns_id: u32) -> Result<()> {
        let (mut w, gen) = self.begin_write()?;
        let ns = gen
            .ns(ns_id)
            .ok_or_else(|| Error::InvalidConfig(format!("namespace id {ns_id} does not exist")))?;
        let spec = FrameSpec {
            kind: Kind::Clear,
            ns: ns_id,
            expires_at: 0,
            key: &[],
            value: &[],
        };
        self.append(&mut w, &gen, &spec)?;
        self.publish(&w, &gen, 1);
        ns.keydir.clear();
        Ok(())
    }
}

/// Pending writes of a [`Emdb::transaction`].
pub struct Transaction<'db> {
    db: &'db Emdb,
    ops: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    /// Index into `ops` of the newest write per key.
    latest: HashMap<Vec<u8>, usize>,
}

impl Transaction<'_> {
    /// Stage an insert.
    pub fn insert(&mut self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        let (k, v) = (key.as_ref(), value.as_ref());
        check_sizes(k, v)?;
        self.latest.insert(k.to_vec(), self.ops.len());
        self.ops.push((k.to_vec(), Some(v.to_vec())));
        Ok(())
    }

    /// Stage a removal; returns the value the key has within the transaction.
    pub fn remove(&mut self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        let k = key.as_ref();
        check_sizes(k, &[])?;
        let old = self.get(k)?;
        self.latest.insert(k.to_vec(), self.ops.len());
        self.ops.push((k.to_vec(), None));
        Ok(old)
    }

    /// The value of `key` as this transaction sees it.
    pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        let k = key.as_ref();
        match self.latest.get(k) {
            Some(&i) => Ok(self.ops[i].1.clone()),
            None => self.db.get(k),
        }
    }

    /// True when `key` has a value as this transaction sees it.
    pub fn contains_key(&self, key: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.get(key)?.is_some())
    }
}

/// A value borrowed from the mapped log, returned by [`Emdb::get_zerocopy`].
///
/// Holds the mapping alive, so it stays valid after later writes, growth of
/// the file, compaction, and even after the database handle is dropped.
#[derive(Clone)]
pub struct ValueRef {
    region: Arc<Region>,
    start: u64,
    end: u64,
}

impl ValueRef {
    /// Copy the bytes out.
    pub fn into_vec(self) -> Vec<u8> {
        self.to_vec()
    }
}

impl Deref for ValueRef {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // The range was checked against this region when the ValueRef was made.
        self.region.slice(self.start, self.end).unwrap_or_default()
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

/// Shard-by-shard walk over one namespace of one generation.
struct Cursor {
    gen: Arc<Generation>,
    ns: Arc<NsEntry>,
    shard: usize,
    pending: std::vec::IntoIter<u64>,
    now: u64,
}

impl Cursor {
    fn new(gen: Arc<Generation>, ns: Arc<NsEntry>) -> Cursor {
        Cursor {
            gen,
            ns,
            shard: 0,
            pending: Vec::new().into_iter(),
            now: now_ms(),
        }
    }

    fn next_with<T>(&mut self, mut f: impl FnMut(&[u8], &[u8]) -> T) -> Option<Result<T>> {
        loop {
            if let Some(off) = self.pending.next() {
                let region = self.gen.log.region();
                let bytes = self.gen.bytes(&region);
                match frame_at(bytes, off) {
                    Ok(fr) if expired(fr.expires_at, self.now) => continue,
                    Ok(fr) => return Some(Ok(f(fr.key, fr.value))),
                    Err(e) => return Some(Err(e)),
                }
            }
            if self.shard >= SHARDS {
                return None;
            }
            self.pending = self.ns.keydir.shard_offsets(self.shard).into_iter();
            self.shard += 1;
        }
    }
}

/// Streaming iterator over `(key, value)` pairs; see [`Emdb::iter`].
pub struct Iter {
    inner: Cursor,
}

impl Iterator for Iter {
    type Item = Result<(Vec<u8>, Vec<u8>)>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next_with(|k, v| (k.to_vec(), v.to_vec()))
    }
}

/// Streaming iterator over keys; see [`Emdb::keys`].
pub struct Keys {
    inner: Cursor,
}

impl Iterator for Keys {
    type Item = Result<Vec<u8>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next_with(|k, _| k.to_vec())
    }
}
