//! Namespaces: named key spaces, each with its own index, sharing one log.
//!
//! Id 0 is the default namespace (name `""`); named namespaces get ids from
//! 1 up, bound to their name by a `NamespaceCreate` record and never reused.

use std::collections::HashMap;
use std::sync::Arc;

use crate::config::KeyScope;
use crate::crypto::{Crypt, RecordContext};
use crate::error::{Error, Result};
use crate::format::record::{self, Frame, Kind};
use crate::format::varint;
use crate::index::{hash_key, KeyHash, Keydir};
use crate::sorted::Sorted;

/// One namespace of one log generation.
pub(crate) struct NsEntry {
    pub id: u32,
    pub name: Vec<u8>,
    pub keydir: Keydir,
    /// The keys in byte order ([`crate::sorted`]).
    pub sorted: Sorted,
    /// Record keys of this generation (encrypted databases).
    crypt: Option<Arc<Crypt>>,
    /// Index hash seed (0 for plain databases).
    seed: u64,
}

impl NsEntry {
    /// An empty namespace.
    pub(crate) fn new(id: u32, name: Vec<u8>, crypt: Option<Arc<Crypt>>) -> NsEntry {
        NsEntry::with_keydir(id, name, Keydir::default(), Sorted::new(), crypt)
    }

    /// A namespace over an existing index and order.
    pub(crate) fn with_keydir(
        id: u32,
        name: Vec<u8>,
        keydir: Keydir,
        sorted: Sorted,
        crypt: Option<Arc<Crypt>>,
    ) -> NsEntry {
        NsEntry {
            id,
            name,
            keydir,
            sorted,
            seed: seed_of(crypt.as_deref()),
            crypt,
        }
    }

    /// Where `key` lives in this namespace's index.
    #[inline]
    pub(crate) fn hash(&self, key: &[u8]) -> KeyHash {
        hash_key(key, self.seed)
    }

    /// Start loading the index slot of `key` into the CPU cache.
    #[inline]
    pub(crate) fn prefetch(&self, key: &[u8]) {
        self.keydir.prefetch(self.hash(key));
    }

    /// Record keys, for encrypted databases.
    #[inline]
    pub(crate) fn crypt(&self) -> Option<&Crypt> {
        self.crypt.as_deref()
    }

    /// Point the frame's key at the frame (at `off` of `bytes`), keeping the
    /// live-bytes, expiry and sorted-key accounts.
    pub(crate) fn index_put(&self, bytes: &[u8], off: u64, f: &Frame<'_>) -> Result<()> {
        self.index_put_parts(bytes, off, f.key, f.len as u64, f.expires_at)
    }

    /// [`NsEntry::index_put`] from the frame's parts.
    pub(crate) fn index_put_parts(
        &self,
        bytes: &[u8],
        off: u64,
        key: &[u8],
        len: u64,
        expires_at: u64,
    ) -> Result<()> {
        let mut counts = Counts::default();
        counts.put(self.repoint(bytes, off, key)?, len, expires_at);
        self.keydir
            .add_counts(counts.live, counts.bytes, counts.expiring);
        self.sorted.note(off);
        Ok(())
    }

    /// [`NsEntry::index_put`] for one record of a batch: the counters and
    /// the sorted order are brought up to date by [`NsEntry::settle`] once
    /// for the whole run of records in `tally`.
    pub(crate) fn index_put_tallied(
        &self,
        bytes: &[u8],
        off: u64,
        key: &[u8],
        len: u64,
        expires_at: u64,
        tally: &mut Tally,
    ) -> Result<()> {
        let old = self.repoint(bytes, off, key)?;
        tally.counts.put(old, len, expires_at);
        tally.noted.push(off);
        Ok(())
    }

    /// Point `key` at the record at `off`; the length and expiry of the
    /// record it replaced, `None` for a new key.
    fn repoint(&self, bytes: &[u8], off: u64, key: &[u8]) -> Result<Option<(u64, u64)>> {
        let crypt = self.crypt();
        let old = self
            .keydir
            .upsert(self.hash(key), off, |o| same_key(bytes, o, key, crypt))?;
        Ok(old.map(|o| head_at(bytes, o)))
    }

    /// Apply what [`NsEntry::index_put_tallied`] gathered in `tally`, and
    /// empty it.
    pub(crate) fn settle(&self, tally: &mut Tally) {
        let c = std::mem::take(&mut tally.counts);
        self.keydir.add_counts(c.live, c.bytes, c.expiring);
        self.sorted.note_many(&tally.noted);
        tally.noted.clear();
    }

    /// Remove `key` from the index (by the delete record at `at`); returns
    /// the offset it had.
    pub(crate) fn index_delete(&self, bytes: &[u8], key: &[u8], at: u64) -> Result<Option<u64>> {
        let crypt = self.crypt();
        let old = self
            .keydir
            .remove(self.hash(key), |o| same_key(bytes, o, key, crypt))?;
        if let Some(o) = old {
            let (len, exp) = head_at(bytes, o);
            self.keydir.account(0, len);
            self.keydir.account_expiring(false, exp != 0);
            self.sorted.note(at);
        }
        Ok(old)
    }

    /// Drop every key.
    pub(crate) fn index_clear(&self) {
        self.keydir.clear();
        self.sorted.clear();
    }
}

/// The net effect of a run of indexed puts on a namespace's counters and
/// sorted order, applied at once by [`NsEntry::settle`] (one atomic add per
/// counter and one lock of the order per batch, not per record).
#[derive(Default)]
pub(crate) struct Tally {
    counts: Counts,
    /// Offsets of the records, in log order.
    noted: Vec<u64>,
}

/// Net changes to a namespace's live keys, live bytes and expiring keys.
#[derive(Default)]
struct Counts {
    live: i64,
    bytes: i64,
    expiring: i64,
}

impl Counts {
    /// A put of a `len`-byte record expiring at `expires_at` (0: never)
    /// that replaced `old` (its length and expiry; `None`: a new key).
    fn put(&mut self, old: Option<(u64, u64)>, len: u64, expires_at: u64) {
        let (old_len, old_exp) = old.unwrap_or((0, 0));
        self.live += i64::from(old.is_none());
        self.bytes += len as i64 - old_len as i64;
        self.expiring += i64::from(expires_at != 0) - i64::from(old_exp != 0);
    }
}

/// Replayed puts waiting to be applied (see [`NsTable::apply_piped`]):
/// applying one costs a probe of its index slot and, for a key already
/// there, a read of the record it replaces, two cache misses at random
/// places; queued, both are loaded while the frames in front are applied.
pub(crate) struct Pipeline {
    /// (offset, namespace id, key hash) of each queued put, oldest first.
    queue: std::collections::VecDeque<(u64, u32, KeyHash)>,
    /// Puts queued before the oldest is applied (0: none, apply at once).
    depth: usize,
}

/// Puts queued by a replay before the oldest is applied.
const REPLAY_DEPTH: usize = 16;

impl Pipeline {
    /// The pipeline of a replay: [`REPLAY_DEPTH`] puts deep, or none when
    /// salvaging (what a failed put means there depends on the ranges
    /// skipped so far, so each frame is applied as it comes).
    pub(crate) fn for_replay(salvage: bool) -> Pipeline {
        let depth = if salvage { 0 } else { REPLAY_DEPTH };
        Pipeline {
            queue: std::collections::VecDeque::with_capacity(depth + 1),
            depth,
        }
    }
}

/// Start loading the head, key and most values of the frame at `off`.
#[inline]
fn prefetch_frame(bytes: &[u8], off: u64) {
    crate::log::prefetch_span(bytes, off, 192);
}

/// Hashes a namespace id for [`NsTable`]'s map: a multiply, where the
/// default SipHash cost about a tenth of a scoped replay (a lookup per
/// record). Ids are small counters the engine hands out.
#[derive(Default)]
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, id: u32) {
        self.0 = u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Every namespace of one log generation.
pub(crate) struct NsTable {
    by_id: HashMap<u32, Arc<NsEntry>, std::hash::BuildHasherDefault<IdHasher>>,
    by_name: HashMap<Vec<u8>, u32>,
    /// The next unused namespace id.
    pub next_id: u32,
    /// Record keys of this generation, handed to new namespaces.
    pub crypt: Option<Arc<Crypt>>,
}

impl NsTable {
    /// A table holding only the empty default namespace.
    pub(crate) fn new(crypt: Option<Arc<Crypt>>) -> NsTable {
        let mut t = NsTable {
            by_id: HashMap::default(),
            by_name: HashMap::new(),
            next_id: 1,
            crypt,
        };
        t.insert(Arc::new(NsEntry::new(0, Vec::new(), t.crypt.clone())));
        t
    }

    /// Add (or replace) a namespace.
    pub(crate) fn insert(&mut self, ns: Arc<NsEntry>) {
        self.next_id = self.next_id.max(ns.id.saturating_add(1));
        self.by_name.insert(ns.name.clone(), ns.id);
        self.by_id.insert(ns.id, ns);
    }

    /// The default namespace.
    pub(crate) fn default(&self) -> &Arc<NsEntry> {
        // Id 0 is inserted by `new` and never removed (drop refuses id 0).
        &self.by_id[&0]
    }

    /// A namespace by id.
    pub(crate) fn get(&self, id: u32) -> Option<&Arc<NsEntry>> {
        self.by_id.get(&id)
    }

    /// A namespace by name.
    pub(crate) fn by_name(&self, name: &[u8]) -> Option<&Arc<NsEntry>> {
        self.by_name.get(name).and_then(|id| self.by_id.get(id))
    }

    /// Remove a namespace (never the default one).
    pub(crate) fn remove(&mut self, id: u32) -> Option<Arc<NsEntry>> {
        if id == 0 {
            return None;
        }
        let ns = self.by_id.remove(&id)?;
        self.by_name.remove(&ns.name);
        Some(ns)
    }

    /// Every namespace, default first, then by id.
    pub(crate) fn all(&self) -> Vec<Arc<NsEntry>> {
        let mut v: Vec<_> = self.by_id.values().cloned().collect();
        v.sort_by_key(|n| n.id);
        v
    }

    /// [`NsTable::apply`] through `pipe`: a plain put is applied
    /// [`Pipeline`]'s depth frames later, once its index slot and the
    /// records sharing its tag are loaded; any other frame first applies
    /// every queued put, so the order of effects is the log's. Errors of a
    /// queued put surface from a later call (or from [`NsTable::drain`]);
    /// they carry their own offsets.
    pub(crate) fn apply_piped(
        &mut self,
        bytes: &[u8],
        off: u64,
        f: &Frame<'_>,
        pipe: &mut Pipeline,
    ) -> Result<(), ApplyError> {
        if pipe.depth == 0 || f.kind != Kind::Put || f.sealed || self.crypt.is_some() {
            self.drain(bytes, pipe)?;
            return self.apply(bytes, off, f);
        }
        let ns = self.by_id.get(&f.ns).ok_or(ApplyError::UnknownNamespace)?;
        let h = ns.hash(f.key);
        ns.keydir.prefetch(h);
        pipe.queue.push_back((off, f.ns, h));
        let n = pipe.queue.len();
        if n > pipe.depth / 2 {
            // Half way: the slot is loaded; start loading the records a
            // lookup of this key will compare with.
            let (_, id, h) = pipe.queue[n - 1 - pipe.depth / 2];
            if let Some(ns) = self.by_id.get(&id) {
                let _ = ns.keydir.get(h, |o| {
                    prefetch_frame(bytes, o);
                    Ok(false)
                });
            }
        }
        if n > pipe.depth {
            if let Some((o, id, _)) = pipe.queue.pop_front() {
                self.apply_queued(bytes, o, id)?;
            }
        }
        Ok(())
    }

    /// True when a replay scoped to `scope` leaves out the frame `f` at
    /// `off`: a put or delete of a key outside the scope. A sealed frame is
    /// decrypted and authenticated to find its key, so a scoped replay of
    /// an encrypted log pays one decryption per record it skips, not an
    /// index update (a probe, and a second decryption of the record the key
    /// replaces). An unscoped replay (`None`) leaves nothing out.
    pub(crate) fn outside_scope(
        &self,
        scope: Option<&KeyScope>,
        off: u64,
        f: &Frame<'_>,
        scratch: &mut Vec<u8>,
    ) -> Result<bool, ApplyError> {
        let Some(scope) = scope else {
            return Ok(false);
        };
        if !matches!(f.kind, Kind::Put | Kind::Delete) {
            return Ok(false);
        }
        // What applying it would find wrong is wrong here too: a record of
        // no namespace, a plaintext record in an encrypted log (or the
        // reverse), a seal that does not open.
        if !self.by_id.contains_key(&f.ns) {
            return Err(ApplyError::UnknownNamespace);
        }
        let opened = open_frame(*f, off, self.crypt.as_deref(), scratch)?;
        Ok(!scope.holds(f.ns, opened.key))
    }

    /// Apply every put queued in `pipe` (`bytes` must cover them).
    pub(crate) fn drain(&mut self, bytes: &[u8], pipe: &mut Pipeline) -> Result<(), ApplyError> {
        while let Some((o, id, _)) = pipe.queue.pop_front() {
            self.apply_queued(bytes, o, id)?;
        }
        Ok(())
    }

    /// Apply the plain put at `off` (verified when the replay read it).
    fn apply_queued(&self, bytes: &[u8], off: u64, id: u32) -> Result<(), ApplyError> {
        let f = frame_at_checked(bytes, off, false)?;
        let ns = self.by_id.get(&id).ok_or(ApplyError::UnknownNamespace)?;
        ns.index_put(bytes, off, &f)?;
        Ok(())
    }

    /// Apply one replayed frame at offset `off` of `bytes` (the whole log).
    pub(crate) fn apply(
        &mut self,
        bytes: &[u8],
        off: u64,
        f: &Frame<'_>,
    ) -> Result<(), ApplyError> {
        let mut scratch = zeroize::Zeroizing::new(Vec::new());
        let opened = open_frame(*f, off, self.crypt.as_deref(), &mut scratch)?;
        let f = &opened;
        match f.kind {
            Kind::Put => {
                let ns = self.by_id.get(&f.ns).ok_or(ApplyError::UnknownNamespace)?;
                ns.index_put(bytes, off, f)?;
            }
            Kind::Delete => {
                let ns = self.by_id.get(&f.ns).ok_or(ApplyError::UnknownNamespace)?;
                ns.index_delete(bytes, f.key, off)?;
            }
            Kind::Clear => {
                self.by_id
                    .get(&f.ns)
                    .ok_or(ApplyError::UnknownNamespace)?
                    .index_clear();
            }
            Kind::NamespaceCreate => {
                self.insert(Arc::new(NsEntry::new(
                    f.ns,
                    f.key.to_vec(),
                    self.crypt.clone(),
                )));
            }
            Kind::NamespaceDrop => {
                self.remove(f.ns).ok_or(ApplyError::UnknownNamespace)?;
            }
            Kind::BatchBegin => {
                return Err(ApplyError::Engine(Error::corruption(
                    off,
                    "nested batch header",
                )))
            }
        }
        Ok(())
    }
}

/// Decode and verify the frame at `off` of `bytes` (the log from offset 0).
#[inline]
pub(crate) fn frame_at(bytes: &[u8], off: u64) -> Result<Frame<'_>> {
    frame_at_checked(bytes, off, true)
}

/// [`frame_at`], verifying the CRC only when `verify_crc` is set.
#[inline]
pub(crate) fn frame_at_checked(bytes: &[u8], off: u64, verify_crc: bool) -> Result<Frame<'_>> {
    let start = usize::try_from(off).map_err(|_| Error::corruption(off, "offset out of range"))?;
    let buf = bytes
        .get(start..)
        .ok_or_else(|| Error::corruption(off, "index points past the end of the log"))?;
    record::decode_checked(buf, verify_crc).map_err(|e| Error::corruption(off, e.reason()))
}

/// Verify the CRC of the `len`-byte frame at `off` of `bytes`, a frame
/// decoded before without that check.
#[inline]
pub(crate) fn check_crc(bytes: &[u8], off: u64, len: usize) -> Result<()> {
    let body = usize::try_from(off)
        .ok()
        .and_then(|o| bytes.get(o..o.checked_add(len)?))
        .ok_or_else(|| Error::corruption(off, "index points past the end of the log"))?;
    if record::crc_matches(body) {
        Ok(())
    } else {
        Err(Error::corruption(off, "checksum mismatch"))
    }
}

/// Decode, verify and (when sealed) decrypt the frame at `off`. Decrypted
/// bytes live in `scratch`; the returned frame then has `sealed` set, meaning
/// its key and value are copies, not slices of the log.
#[inline]
pub(crate) fn read_at<'a>(
    bytes: &'a [u8],
    off: u64,
    crypt: Option<&Crypt>,
    scratch: &'a mut Vec<u8>,
) -> Result<Frame<'a>> {
    read_at_checked(bytes, off, crypt, scratch, true)
}

/// [`read_at`] for readers: the CRC is verified only when `verify_crc` is
/// set (`verify_reads`, on by default). Sealed records are authenticated by
/// their cipher either way.
#[inline]
pub(crate) fn read_at_checked<'a>(
    bytes: &'a [u8],
    off: u64,
    crypt: Option<&Crypt>,
    scratch: &'a mut Vec<u8>,
    verify_crc: bool,
) -> Result<Frame<'a>> {
    let f = frame_at_checked(bytes, off, verify_crc)?;
    open_frame(f, off, crypt, scratch)
}

/// Decrypt a decoded frame when it is sealed; reject plaintext records in an
/// encrypted log and sealed ones in a plain log.
pub(crate) fn open_frame<'a>(
    f: Frame<'a>,
    off: u64,
    crypt: Option<&Crypt>,
    scratch: &'a mut Vec<u8>,
) -> Result<Frame<'a>> {
    match (f.sealed, crypt) {
        (false, None) => Ok(f),
        (false, Some(_)) if f.kind == Kind::BatchBegin => Ok(f),
        (false, Some(_)) => Err(Error::corruption(
            off,
            "plaintext record inside an encrypted database",
        )),
        (true, None) => Err(Error::corruption(
            off,
            "encrypted record in a database opened without encryption",
        )),
        (true, Some(c)) => {
            let ctx = RecordContext {
                offset: off,
                tag: f.tag,
                ns: f.ns,
                expires_at: f.expires_at,
            };
            c.open_record(&ctx, f.value, scratch)?;
            let plain: &'a Vec<u8> = scratch;
            let bad = || Error::corruption(off, "sealed record decrypts to a malformed payload");
            let (klen, n) = varint::decode(plain).ok_or_else(bad)?;
            let klen = usize::try_from(klen).map_err(|_| bad())?;
            let rest = plain.get(n..).ok_or_else(bad)?;
            if klen > rest.len() {
                return Err(bad());
            }
            let (key, value) = rest.split_at(klen);
            Ok(Frame {
                key,
                value,
                value_at: 0,
                ..f
            })
        }
    }
}

/// True when the verified frame at `off` carries `key`.
#[inline]
pub(crate) fn same_key(bytes: &[u8], off: u64, key: &[u8], crypt: Option<&Crypt>) -> Result<bool> {
    let mut scratch = zeroize::Zeroizing::new(Vec::new());
    Ok(read_at(bytes, off, crypt, &mut scratch)?.key == key)
}

/// The index hash seed for a generation's keys.
fn seed_of(crypt: Option<&Crypt>) -> u64 {
    #[cfg(feature = "encrypt")]
    {
        crypt.map_or(0, |c| c.hash_seed)
    }
    #[cfg(not(feature = "encrypt"))]
    {
        match crypt {
            Some(c) => match *c {},
            None => 0,
        }
    }
}

/// Encoded length and expiry of the frame at `off` (for accounting).
pub(crate) fn head_at(bytes: &[u8], off: u64) -> (u64, u64) {
    usize::try_from(off)
        .ok()
        .and_then(|o| bytes.get(o..))
        .and_then(record::frame_head)
        .map_or((0, 0), |(len, exp)| (len as u64, exp))
}

/// Why a frame could not be applied.
pub(crate) enum ApplyError {
    /// The frame names a namespace id that is not bound.
    UnknownNamespace,
    /// Anything else (a damaged record found while confirming a key).
    Engine(Error),
}

impl ApplyError {
    /// The error for a reader that accepts no unknown namespace: the frame
    /// at `off` names one that does not exist, which is corruption.
    pub(crate) fn strict(self, off: u64) -> Error {
        match self {
            ApplyError::Engine(e) => e,
            ApplyError::UnknownNamespace => {
                Error::corruption(off, "record names a namespace that does not exist")
            }
        }
    }
}

impl From<Error> for ApplyError {
    fn from(e: Error) -> Self {
        ApplyError::Engine(e)
    }
}
