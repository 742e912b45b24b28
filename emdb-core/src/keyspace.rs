//! Operations shared by the default key space ([`Emdb`]) and named ones
//! ([`Namespace`]): TTLs, counting, iteration, range scans, nested groups.
//!
//! The public methods are written once, in `keyspace_api!`, and expanded into
//! both types; each type supplies `engine()` and `ns_id()`.

use std::ops::Bound;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::db::Emdb;
use crate::engine::{check_indexed, expired, Engine, Generation, Handle};
use crate::error::{Error, Result};
use crate::format::record::Kind;
use crate::index::SHARDS;
use crate::namespace::{read_at_checked, NsEntry};
use crate::sorted::{KeySource, Merge};

/// The smallest key greater than every key starting with `prefix`
/// (`Unbounded` when the prefix is empty or all `0xff` bytes): the exclusive
/// end of a prefix scan, for combining a prefix with other bounds.
pub fn prefix_end(prefix: &[u8]) -> Bound<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Bound::Excluded(end);
        }
    }
    Bound::Unbounded
}

pub(crate) fn owned_bound(b: Bound<&Vec<u8>>) -> Bound<Vec<u8>> {
    match b {
        Bound::Included(k) => Bound::Included(k.clone()),
        Bound::Excluded(k) => Bound::Excluded(k.clone()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Streaming, byte-ordered iterator over a key range; see `range_iter`.
///
/// It reads a snapshot of the namespace's order taken when it was created
/// (docs/ARCHITECTURE.md, "Sorted order"): the first step searches it once
/// (O(log N)), every later step reads the next record. Writes made after it
/// was created are not seen, and it stays valid across a compaction (it
/// keeps the log generation it started on). It holds no lock between steps.
pub struct RangeIter {
    gen: Arc<Generation>,
    ns: Arc<NsEntry>,
    merge: Merge,
    now: u64,
    verify: bool,
    /// Whether the first step (the seek) has looked at the base's fences.
    fences_looked: bool,
}

impl RangeIter {
    /// After this iterator's seek: start building the base's fences if they
    /// are due (`sorted::FenceSlot`), on a thread of their own so this
    /// iterator does not wait for them.
    fn build_fences_if_due(&self, keys: KeySource<'_>) {
        let view = self.merge.view();
        if !view.fences.build_due() {
            return;
        }
        let (slot, base) = (Arc::clone(&view.fences), view.base.clone());
        if cfg!(test) {
            // Unit tests build them at once, so their seeks go through
            // fences at a known point.
            slot.build(keys, &base);
            return;
        }
        let (gen, ns) = (Arc::clone(&self.gen), Arc::clone(&self.ns));
        let spawned = std::thread::Builder::new()
            .name("emdb-fences".into())
            .spawn(move || {
                let region = gen.log().region();
                let keys = KeySource {
                    bytes: gen.bytes(&region),
                    crypt: ns.crypt(),
                };
                slot.build(keys, &base);
            });
        if spawned.is_err() {
            view.fences.release();
        }
    }

    /// Tell the kernel how the rest of this iteration reads the log, as
    /// [`Emdb::advise_reads`] does for a handle (for an iterator from
    /// [`crate::EmdbBuilder::range_once`], which has none). Only a hint.
    pub fn advise_reads(&self, pattern: crate::ReadPattern) -> Result<()> {
        crate::db::advise(&self.gen, pattern)
    }

    /// The next live pair, passed to `f` as `(key, value, expires_at)`
    /// (`expires_at` in ms since the epoch, 0 for none).
    fn next_with<T>(&mut self, mut f: impl FnMut(&[u8], &[u8], u64) -> T) -> Option<Result<T>> {
        loop {
            // The current mapping at each step: a mapping held from the
            // start may have been replaced by a shorter one (a writer's
            // close trims the file to the published end), and a probe past
            // a frame through it would read past the end of the file.
            let region = self.gen.log().region();
            let bytes = self.gen.bytes(&region);
            let keys = KeySource {
                bytes,
                crypt: self.ns.crypt(),
            };
            let next = self.merge.next(keys);
            if !self.fences_looked {
                self.fences_looked = true;
                self.build_fences_if_due(keys);
            }
            let w = match next {
                Ok(Some(w)) => w,
                Ok(None) => return None,
                Err(e) => return Some(self.gen.log().vouch_read(&region, bytes, Err(e))),
            };
            if w.head.kind != Kind::Put || expired(w.head.expires_at, self.now) {
                continue;
            }
            // The winner's key and value from the read that found it: one
            // read, one CRC check and one decryption per pair. The log is
            // vouched for after `f` has read them; `f`'s answer is then
            // moved only once (a `Result` of it through the check measured
            // 5-10% of a pair read, in stalled copies).
            let log = self.gen.log();
            let (off, len) = (w.off, Some(w.len));
            let out = match self.merge.item(keys, self.ns.id, self.verify) {
                Ok((k, v)) => f(k, v, w.head.expires_at),
                Err(e) => return Some(log.vouch_span(&region, bytes, off, len, Err(e))),
            };
            return Some(
                log.vouch_span(&region, bytes, off, len, Ok(()))
                    .map(|()| out),
            );
        }
    }

    /// The next pair, handed to `f` as `(key, value)` without copying
    /// either (slices of the mapped log, or of the decrypted record of an
    /// encrypted database); returns what `f` returns. The zero-copy
    /// counterpart of [`Iterator::next`], as
    /// [`Emdb::get_zerocopy`](crate::Emdb::get_zerocopy) is of `get`.
    ///
    /// ```
    /// # fn main() -> emdb_core::Result<()> {
    /// let db = emdb_core::Emdb::open_in_memory();
    /// db.insert("a", "1")?;
    /// db.insert("b", "22")?;
    /// let mut it = db.range_iter(..)?;
    /// let mut total = 0;
    /// while let Some(len) = it.next_map(|_key, value| value.len()) {
    ///     total += len?;
    /// }
    /// assert_eq!(total, 3);
    /// # Ok(())
    /// # }
    /// ```
    pub fn next_map<T>(&mut self, mut f: impl FnMut(&[u8], &[u8]) -> T) -> Option<Result<T>> {
        self.next_with(|k, v, _| f(k, v))
    }

    /// The next key only (the value is not copied).
    pub fn next_key(&mut self) -> Option<Result<Vec<u8>>> {
        self.next_with(|k, _, _| k.to_vec())
    }

    /// The next key with its value's length and expiry (ms since the Unix
    /// epoch, 0 for none); the value is read and checked, not copied.
    pub fn next_key_info(&mut self) -> Option<Result<(Vec<u8>, usize, u64)>> {
        self.next_with(|k, v, exp| (k.to_vec(), v.len(), exp))
    }

    /// The next pair with its expiry (`None`: the key does not expire).
    #[allow(clippy::type_complexity)] // the `Iterator::Item` plus one field
    pub fn next_with_expiry(&mut self) -> Option<Result<(Vec<u8>, Vec<u8>, Option<SystemTime>)>> {
        self.next_with(|k, v, exp| {
            (
                k.to_vec(),
                v.to_vec(),
                (exp != 0).then(|| to_system_time(exp)),
            )
        })
    }
}

impl Iterator for RangeIter {
    type Item = Result<(Vec<u8>, Vec<u8>)>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_with(|k, v, _| (k.to_vec(), v.to_vec()))
    }
}

/// Shard-by-shard walk over one namespace of one generation.
pub(crate) struct Cursor {
    gen: Arc<Generation>,
    ns: Arc<NsEntry>,
    shard: usize,
    pending: std::vec::IntoIter<u64>,
    now: u64,
    verify: bool,
}

impl Cursor {
    pub(crate) fn new(engine: &Engine, id: u32) -> Result<Cursor> {
        let gen = engine.gen_arc();
        // A stale read-only handle's index is the old view's (an empty
        // namespace there would end the walk with no record read).
        gen.log().fresh()?;
        let ns = gen.ns(id).ok_or(Error::NamespaceDropped)?;
        Ok(Cursor {
            gen,
            ns,
            shard: 0,
            pending: Vec::new().into_iter(),
            now: engine.now(),
            verify: engine.cfg().verify_reads,
        })
    }

    fn next_with<T>(&mut self, mut f: impl FnMut(&[u8], &[u8]) -> T) -> Option<Result<T>> {
        loop {
            if let Some(off) = self.pending.next() {
                let region = self.gen.log().region();
                let bytes = self.gen.bytes(&region);
                let mut scratch = zeroize::Zeroizing::new(Vec::new());
                let now = self.now;
                let read = read_at_checked(bytes, off, self.ns.crypt(), &mut scratch, self.verify)
                    .and_then(|fr| check_indexed(&fr, self.ns.id, off).map(|()| fr))
                    .map(|fr| (!expired(fr.expires_at, now)).then(|| f(fr.key, fr.value)));
                // After `f` has read the item: the file may have been cut under it.
                match self.gen.log().vouch_frame(&region, bytes, off, read) {
                    Ok(None) => continue,
                    Ok(Some(item)) => return Some(Ok(item)),
                    Err(e) => return Some(Err(e)),
                }
            }
            if self.shard >= SHARDS {
                // The end, once: an index gone stale meanwhile may have
                // ended the walk early.
                if self.shard == SHARDS {
                    self.shard += 1;
                    if let Err(e) = self.gen.log().fresh() {
                        return Some(Err(e));
                    }
                }
                return None;
            }
            let offsets = self.gen.shard_offsets(&self.ns, self.shard);
            self.shard += 1;
            match offsets {
                Ok(o) => self.pending = o.into_iter(),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Streaming iterator over `(key, value)` pairs, in no particular order.
///
/// Weakly consistent: each key appears at most once, with the value it had
/// when its index shard was visited.
pub struct Iter {
    pub(crate) inner: Cursor,
}

impl Iterator for Iter {
    type Item = Result<(Vec<u8>, Vec<u8>)>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next_with(|k, v| (k.to_vec(), v.to_vec()))
    }
}

/// Streaming iterator over keys, in no particular order (see [`Iter`]).
pub struct Keys {
    pub(crate) inner: Cursor,
}

impl Iterator for Keys {
    type Item = Result<Vec<u8>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next_with(|k, _| k.to_vec())
    }
}

pub(crate) fn to_system_time(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

/// A named key space: same operations as [`Emdb`], separate keys. Get one
/// with [`Emdb::namespace`]; cheap to clone.
#[derive(Clone)]
pub struct Namespace {
    engine: Handle,
    id: u32,
    name: String,
}

impl std::fmt::Debug for Namespace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Namespace")
            .field("name", &self.name)
            .finish()
    }
}

impl Namespace {
    pub(crate) fn new(engine: Handle, id: u32, name: String) -> Namespace {
        Namespace { engine, id, name }
    }

    /// The namespace's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn id(&self) -> u32 {
        self.id
    }

    fn engine(&self) -> &Handle {
        &self.engine
    }

    fn ns_id(&self) -> u32 {
        self.id
    }

    /// Stream every `(key, value)` pair, in no particular order.
    pub fn iter(&self) -> Result<Iter> {
        Ok(Iter {
            inner: Cursor::new(&self.engine, self.id)?,
        })
    }

    /// Stream every key, in no particular order.
    pub fn keys(&self) -> Result<Keys> {
        Ok(Keys {
            inner: Cursor::new(&self.engine, self.id)?,
        })
    }

    /// Insert many pairs as one atomic batch.
    pub fn insert_many<I, K, V>(&self, items: I) -> Result<()>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        self.engine.insert_many_in(self.id, items)
    }
}

/// The operations every key space has.
macro_rules! keyspace_api {
    () => {
        /// A batch of puts and removals on this key space, checked and
        /// encoded as they are added (on any thread, without the writer
        /// lock) and committed as one atomic unit by
        /// [`WriteBatch::commit`](crate::WriteBatch::commit).
        pub fn write_batch(&self) -> $crate::WriteBatch {
            $crate::batch::WriteBatch::new(self.engine().clone(), self.ns_id())
        }

        /// Insert or replace `key` (expiring after the builder's `default_ttl`, if set).
        pub fn insert(&self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
            self.insert_with_ttl(key, value, $crate::Ttl::Default)
        }

        /// Insert or replace `key` with an explicit lifetime.
        pub fn insert_with_ttl(
            &self,
            key: impl AsRef<[u8]>,
            value: impl AsRef<[u8]>,
            ttl: $crate::Ttl,
        ) -> Result<()> {
            let e = self.engine();
            let at = ttl.expires_at(|| e.now(), e.cfg().default_ttl);
            e.put(self.ns_id(), key.as_ref(), value.as_ref(), at)
        }

        /// The value of `key`, copied out.
        #[inline]
        pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
            let e = self.engine();
            let gen = e.gen();
            e.with_ns(&gen, self.ns_id(), |ns| {
                e.lookup(&gen, ns, key.as_ref(), |_, _, f| f.value.to_vec())
            })
        }

        /// A hint that `key` is about to be read: starts loading the start of
        /// its index entry into the CPU cache and returns at once. Calling it
        /// for the next few keys before reading them overlaps their memory
        /// latency (the CLI's `shell` does this for runs of `get` lines).
        /// It has no other effect; a dropped namespace is ignored.
        #[inline]
        pub fn prefetch(&self, key: impl AsRef<[u8]>) {
            let e = self.engine();
            let gen = e.gen();
            let _ = e.with_ns(&gen, self.ns_id(), |ns| {
                ns.prefetch(key.as_ref());
                Ok(())
            });
        }

        /// The value of `key` without copying: a [`ValueRef`](crate::ValueRef)
        /// into the mapped log, valid after later writes, growth and compaction.
        #[inline]
        pub fn get_zerocopy(&self, key: impl AsRef<[u8]>) -> Result<Option<$crate::ValueRef>> {
            let e = self.engine();
            let gen = e.gen();
            e.with_ns(&gen, self.ns_id(), |ns| {
                e.lookup(&gen, ns, key.as_ref(), |region, off, f| {
                    if f.sealed {
                        // Decrypted: the plaintext is not in the map.
                        $crate::db::ValueRef::owned(f.value)
                    } else {
                        $crate::db::ValueRef::new(region, off + f.value_at as u64, f.value.len())
                    }
                })
            })
        }

        /// Byte offset in the log of the record that holds `key`'s live value
        /// (for inspection tools; it changes when the key is rewritten or the
        /// log compacted).
        pub fn record_offset(&self, key: impl AsRef<[u8]>) -> Result<Option<u64>> {
            let e = self.engine();
            let gen = e.gen();
            e.with_ns(&gen, self.ns_id(), |ns| {
                e.lookup(&gen, ns, key.as_ref(), |_, off, _| off)
            })
        }

        /// Remove `key`; returns the value it had.
        pub fn remove(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
            self.engine().delete(self.ns_id(), key.as_ref())
        }

        /// True when `key` has a live value.
        pub fn contains_key(&self, key: impl AsRef<[u8]>) -> Result<bool> {
            let e = self.engine();
            let gen = e.gen();
            Ok(e.with_ns(&gen, self.ns_id(), |ns| {
                e.lookup(&gen, ns, key.as_ref(), |_, _, _| ())
            })?
            .is_some())
        }

        /// Number of live (unexpired) keys.
        pub fn len(&self) -> Result<usize> {
            self.engine().count(self.ns_id())
        }

        /// Live records that carry an expiry (expired ones not yet swept
        /// included); 0 means no key here can expire. O(1).
        pub fn expiring_len(&self) -> Result<u64> {
            let e = self.engine();
            let gen = e.gen();
            gen.log().fresh()?;
            e.with_ns(&gen, self.ns_id(), |ns| Ok(ns.keydir.expiring()))
        }

        /// True when there are no live keys.
        pub fn is_empty(&self) -> Result<bool> {
            Ok(self.len()? == 0)
        }

        /// Remove every key (one record in the log, however many keys).
        pub fn clear(&self) -> Result<()> {
            self.engine().clear(self.ns_id())
        }

        /// When `key` expires, if it is live and has an expiry.
        pub fn expires_at(&self, key: impl AsRef<[u8]>) -> Result<Option<std::time::SystemTime>> {
            Ok(self
                .engine()
                .expiry_of(self.ns_id(), key.as_ref())?
                .filter(|&ms| ms != 0)
                .map(to_system_time))
        }

        /// Time left before `key` expires, if it is live and has an expiry.
        pub fn ttl(&self, key: impl AsRef<[u8]>) -> Result<Option<std::time::Duration>> {
            let e = self.engine();
            let now = e.now();
            Ok(e.expiry_of(self.ns_id(), key.as_ref())?
                .filter(|&ms| ms != 0)
                .map(|ms| std::time::Duration::from_millis(ms.saturating_sub(now))))
        }

        /// Give a live key a new lifetime; false if the key is absent.
        pub fn expire(&self, key: impl AsRef<[u8]>, ttl: std::time::Duration) -> Result<bool> {
            let e = self.engine();
            let at = $crate::Ttl::After(ttl).expires_at(|| e.now(), None);
            e.set_expiry(self.ns_id(), key.as_ref(), at)
        }

        /// Remove the expiry of a live key; false if the key is absent.
        pub fn persist(&self, key: impl AsRef<[u8]>) -> Result<bool> {
            self.engine().set_expiry(self.ns_id(), key.as_ref(), 0)
        }

        /// Delete every expired key now (expired keys are already invisible;
        /// this reclaims their index entries). Returns how many were removed.
        pub fn sweep_expired(&self) -> Result<usize> {
            self.engine().sweep_expired(self.ns_id())
        }

        /// Pairs with keys in `range`, in byte order.
        pub fn range(
            &self,
            range: impl std::ops::RangeBounds<Vec<u8>>,
        ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
            self.range_iter(range)?.collect()
        }

        /// Streaming form of [`range`](Self::range).
        pub fn range_iter(
            &self,
            range: impl std::ops::RangeBounds<Vec<u8>>,
        ) -> Result<$crate::keyspace::RangeIter> {
            $crate::keyspace::range_iter(
                self.engine(),
                self.ns_id(),
                owned_bound(range.start_bound()),
                owned_bound(range.end_bound()),
            )
        }

        /// Pairs whose key starts with `prefix`, in byte order.
        pub fn range_prefix(&self, prefix: impl AsRef<[u8]>) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
            self.range_prefix_iter(prefix)?.collect()
        }

        /// Streaming form of [`range_prefix`](Self::range_prefix).
        pub fn range_prefix_iter(
            &self,
            prefix: impl AsRef<[u8]>,
        ) -> Result<$crate::keyspace::RangeIter> {
            let p = prefix.as_ref();
            $crate::keyspace::range_iter(
                self.engine(),
                self.ns_id(),
                std::ops::Bound::Included(p.to_vec()),
                prefix_end(p),
            )
        }

        /// Pairs with keys `>= key`, in byte order.
        pub fn iter_from(&self, key: impl AsRef<[u8]>) -> Result<$crate::keyspace::RangeIter> {
            $crate::keyspace::range_iter(
                self.engine(),
                self.ns_id(),
                std::ops::Bound::Included(key.as_ref().to_vec()),
                std::ops::Bound::Unbounded,
            )
        }

        /// Pairs with keys `> key`, in byte order.
        pub fn iter_after(&self, key: impl AsRef<[u8]>) -> Result<$crate::keyspace::RangeIter> {
            $crate::keyspace::range_iter(
                self.engine(),
                self.ns_id(),
                std::ops::Bound::Excluded(key.as_ref().to_vec()),
                std::ops::Bound::Unbounded,
            )
        }

        /// A handle on the keys under `prefix.` (dotted groups): its
        /// `set`/`get`/`remove` take keys relative to the prefix.
        pub fn focus(&self, prefix: impl AsRef<str>) -> $crate::Focus {
            $crate::Focus::new(self.engine().clone(), self.ns_id(), prefix.as_ref())
        }

        /// Every pair whose key lies under `prefix.` (full keys), in byte order.
        pub fn group(&self, prefix: impl AsRef<str>) -> Result<$crate::Group> {
            self.focus(prefix).pairs()
        }

        /// Delete every key under `prefix.` in one atomic batch; returns how many.
        pub fn delete_group(&self, prefix: impl AsRef<str>) -> Result<usize> {
            self.focus(prefix).delete_all()
        }
    };
}

pub(crate) use keyspace_api;

impl Namespace {
    keyspace_api!();
}

/// Start a range iterator over namespace `ns`.
pub(crate) fn range_iter(
    engine: &Engine,
    ns: u32,
    start: Bound<Vec<u8>>,
    end: Bound<Vec<u8>>,
) -> Result<RangeIter> {
    let gen = engine.gen_arc();
    let entry = gen.ns(ns).ok_or(Error::NamespaceDropped)?;
    let view = engine.sorted_view(&gen, &entry)?;
    Ok(RangeIter {
        merge: Merge::new(view, start, end),
        fences_looked: false,
        now: engine.now(),
        verify: engine.cfg().verify_reads,
        gen,
        ns: entry,
    })
}

/// Emdb-side entry points for namespaces.
impl Emdb {
    /// The namespace called `name`, created (durably, with one record) if it
    /// does not exist. Names are 1 to 255 bytes.
    pub fn namespace(&self, name: impl AsRef<str>) -> Result<Namespace> {
        let name = name.as_ref();
        let id = self.engine_arc().create_namespace(name)?;
        Ok(Namespace::new(
            self.engine_arc().clone(),
            id,
            name.to_string(),
        ))
    }

    /// The namespace called `name` if it exists, `None` if not. Unlike
    /// [`Emdb::namespace`] it never creates one: it writes nothing, so it
    /// works on read-only handles and cannot bring back a namespace another
    /// process dropped.
    pub fn namespace_if_exists(&self, name: impl AsRef<str>) -> Result<Option<Namespace>> {
        let name = name.as_ref();
        let engine = self.engine_arc();
        Ok(engine
            .namespace_id(name)?
            .map(|id| Namespace::new(engine.clone(), id, name.to_string())))
    }

    /// The id of namespace `name` as it is now, `None` if it does not
    /// exist (it writes nothing, like [`Emdb::namespace_if_exists`]). A
    /// namespace dropped and created again under the same name has a new
    /// id (a log never gives out a dropped namespace's id again; only a
    /// compacted one reopened without its checkpoint may), so a viewer
    /// that keeps a copy of its keys
    /// (see [`Emdb::keys_touched_since`], which follows one id) can tell
    /// that the namespace it read is gone although the name is there.
    pub fn namespace_id(&self, name: impl AsRef<str>) -> Result<Option<u32>> {
        self.engine_arc().namespace_id(name.as_ref())
    }

    /// Keys of namespace `namespace` (`None`: the default one) that records
    /// written at or after log offset `since` put or delete, and the log end
    /// they were read up to (the `since` of the next call). For viewers that
    /// follow a writer and keep their own copy of the keys: they look up
    /// each key's current state instead of rereading every key. `since` is
    /// 0 (the whole log) or a log end this method returned. `None` when
    /// `since` is past the end or no record decodes there (the log was
    /// compacted since, or the namespace does not exist): read every key
    /// again then. Any other offset is not always told apart: inside a
    /// value that holds the bytes of a frame, it reads that as a record.
    /// An encrypted database's records are decrypted for their
    /// keys; one that does not open is `Error::Corruption`. A file another
    /// process cut short under the read is an error where the read saw the
    /// cut, else `None` (and the full read that follows reports it).
    pub fn keys_touched_since(
        &self,
        namespace: Option<&str>,
        since: u64,
    ) -> Result<Option<(Vec<Vec<u8>>, u64)>> {
        let engine = self.engine_arc();
        let id = match namespace {
            None => 0,
            Some(name) => match engine.namespace_id(name)? {
                Some(id) => id,
                None => return Ok(None),
            },
        };
        engine.keys_touched_since(id, since)
    }

    /// Drop namespace `name` with all its keys; false if it did not exist.
    /// Handles to it then fail with `Error::NamespaceDropped`.
    pub fn drop_namespace(&self, name: impl AsRef<str>) -> Result<bool> {
        self.engine_arc().drop_namespace(name.as_ref())
    }

    /// Names of all named namespaces (not the default one), sorted.
    pub fn list_namespaces(&self) -> Result<Vec<String>> {
        self.engine_arc().list_namespaces()
    }
}
