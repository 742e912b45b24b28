//! Writes gathered and encoded ahead of their commit ([`WriteBatch`]).
//!
//! `insert_many` encodes its records while it holds the writer lock. A
//! [`WriteBatch`] is built without it, on any thread: each write is checked
//! and encoded into the batch's buffer as it is added (frame, CRC and index
//! hash), so the commit is a copy into the log and the index updates. A
//! loader can then encode the next batch on one thread while another
//! commits the previous one (`emdb shell` does).
//!
//! Encrypted databases seal each frame with its offset in the log as
//! authenticated data, so there a batch keeps keys and values and seals
//! them when it commits.

use crate::engine::{check_sizes, Handle};
use crate::error::Result;
use crate::format::record::{FrameSpec, Kind};
use crate::index::{hash_key, KeyHash};
use crate::ttl::Ttl;

/// A batch of puts and removals on one key space, committed as one atomic
/// unit (after a crash, all of it is visible or none). Made by
/// `write_batch` on [`crate::Emdb`] or [`crate::Namespace`].
///
/// Each write is checked and encoded when it is added, not when the batch
/// commits, so a batch can be filled on one thread while another commits.
/// Expiry times are fixed when a write is added. [`WriteBatch::commit`]
/// empties the batch and keeps its buffers for the next one. A batch keeps
/// the database open, as a clone of the handle does.
///
/// ```
/// # fn main() -> emdb_core::Result<()> {
/// let db = emdb_core::Emdb::open_in_memory();
/// let mut batch = db.write_batch();
/// // Filled on another thread, committed on this one.
/// let mut batch = std::thread::spawn(move || -> emdb_core::Result<_> {
///     batch.put(b"a", b"1")?;
///     batch.put(b"b", b"2")?;
///     batch.remove(b"a")?;
///     Ok(batch)
/// })
/// .join()
/// .unwrap()?;
/// batch.commit()?;
/// assert_eq!(db.get(b"a")?, None);
/// assert_eq!(db.get(b"b")?.as_deref(), Some(&b"2"[..]));
/// assert!(batch.is_empty());
/// # Ok(())
/// # }
/// ```
pub struct WriteBatch {
    engine: Handle,
    ns: u32,
    /// Plain databases: the encoded frames, back to back. Encrypted ones:
    /// each write's key and value, back to back: plaintext, so zeroed when
    /// dropped, cleared or outgrown ([`WriteBatch::reserve`]).
    bytes: zeroize::Zeroizing<Vec<u8>>,
    ops: Vec<BatchWrite>,
    /// Whether `bytes` holds encoded frames (the database is not encrypted).
    encoded: bool,
}

/// One write of a [`WriteBatch`], as the engine commits it.
#[derive(Clone, Copy)]
pub(crate) struct BatchWrite {
    /// Put or delete.
    pub kind: Kind,
    /// Bytes of it in the batch's buffer: its frame, or its key and value.
    pub len: u32,
    /// Length of its key.
    pub key_len: u32,
    /// Expiry (ms since the epoch, 0 for none).
    pub expires_at: u64,
    /// Where its key lives in the index (plain databases).
    pub hash: KeyHash,
}

impl WriteBatch {
    pub(crate) fn new(engine: Handle, ns: u32) -> WriteBatch {
        let encoded = engine.gen().crypt().is_none();
        WriteBatch {
            engine,
            ns,
            bytes: zeroize::Zeroizing::new(Vec::new()),
            ops: Vec::new(),
            encoded,
        }
    }

    /// Add a put of `key` that expires after the builder's `default_ttl`,
    /// if set.
    pub fn put(&mut self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        self.put_with_ttl(key, value, Ttl::Default)
    }

    /// Add a put of `key` with an explicit expiry (see [`Ttl`]); the expiry
    /// time is fixed now.
    pub fn put_with_ttl(
        &mut self,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
        ttl: Ttl,
    ) -> Result<()> {
        let (key, value) = (key.as_ref(), value.as_ref());
        check_sizes(key, value)?;
        let expires_at = ttl.expires_at(|| self.engine.now(), self.engine.cfg().default_ttl);
        self.add(FrameSpec::put(self.ns, key, value, expires_at));
        Ok(())
    }

    /// Add a removal of `key` (nothing happens at commit if it is absent).
    pub fn remove(&mut self, key: impl AsRef<[u8]>) -> Result<()> {
        let key = key.as_ref();
        check_sizes(key, &[])?;
        self.add(FrameSpec::delete(self.ns, key));
        Ok(())
    }

    /// Room for `more` bytes. An encrypted batch's buffer is never grown
    /// in place (a reallocation would leave a copy of the plaintext in
    /// freed memory): it moves to a larger one, and the old one is zeroed.
    fn reserve(&mut self, more: usize) {
        if self.encoded || self.bytes.capacity() - self.bytes.len() >= more {
            self.bytes.reserve(more);
            return;
        }
        let want = (self.bytes.len() + more).max(2 * self.bytes.capacity());
        let mut larger = zeroize::Zeroizing::new(Vec::with_capacity(want));
        larger.extend_from_slice(&self.bytes);
        // The old buffer is zeroed as it is dropped.
        self.bytes = larger;
    }

    fn add(&mut self, spec: FrameSpec<'_>) {
        let start = self.bytes.len();
        let len = if self.encoded {
            let len = spec.encoded_len();
            self.bytes.resize(start + len, 0);
            spec.encode_into(&mut self.bytes[start..]);
            len
        } else {
            self.reserve(spec.key.len() + spec.value.len());
            self.bytes.extend_from_slice(spec.key);
            self.bytes.extend_from_slice(spec.value);
            spec.key.len() + spec.value.len()
        };
        // Keys and values are within their limits (checked above), so a
        // write's bytes fit in a u32.
        self.ops.push(BatchWrite {
            kind: spec.kind,
            len: len as u32,
            key_len: spec.key.len() as u32,
            expires_at: spec.expires_at,
            hash: hash_key(spec.key, 0),
        });
    }

    /// Writes added since the last commit.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// True when no write was added since the last commit.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Bytes the added writes take in the batch (about what they add to
    /// the log).
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// Drop every write added since the last commit.
    pub fn clear(&mut self) {
        if !self.encoded {
            // Plaintext keys and values: zeroed, not just forgotten.
            zeroize::Zeroize::zeroize(&mut *self.bytes);
        }
        self.bytes.clear();
        self.ops.clear();
    }

    /// Write the batch to the log as one atomic unit and index it, then
    /// empty it (its buffers are kept). Durable after the next `flush`, as
    /// every write. On an error nothing of it is visible and it keeps its
    /// writes.
    pub fn commit(&mut self) -> Result<()> {
        if self.ops.is_empty() {
            return Ok(());
        }
        self.engine
            .commit_batch(self.ns, &self.bytes, &self.ops, self.encoded)?;
        self.clear();
        Ok(())
    }
}

impl std::fmt::Debug for WriteBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteBatch")
            .field("namespace", &self.ns)
            .field("writes", &self.ops.len())
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use crate::Emdb;

    #[test]
    #[cfg(feature = "encrypt")]
    fn frames_encoded_for_a_plain_log_are_sealed_when_the_log_is_encrypted() {
        // Not reachable through the API (a handle's encryption does not
        // change while it is open); the engine still handles it.
        let plain = Emdb::open_in_memory();
        let mut batch = plain.write_batch();
        batch.put(b"k", b"v").unwrap();
        batch.put(b"gone", b"x").unwrap();
        batch.remove(b"gone").unwrap();
        assert!(batch.encoded);
        let dir = tempfile::tempdir().unwrap();
        let sealed = Emdb::builder()
            .path(dir.path().join("enc.emdb"))
            .encryption_key([7u8; 32])
            .build()
            .unwrap();
        sealed
            .engine_arc()
            .commit_batch(0, &batch.bytes, &batch.ops, true)
            .unwrap();
        assert_eq!(sealed.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
        assert_eq!(sealed.get(b"gone").unwrap(), None);
        assert!(!sealed.write_batch().encoded);
    }
}
