//! The writer's state, frame encoding, and atomic batches.

use std::sync::Arc;

use parking_lot::MutexGuard;

use super::{check_sizes, Engine, Generation};
use crate::crypto::Crypt;
use crate::error::{Error, Result};
use crate::format::record::{self, batch_value, FrameSpec, Kind};
use crate::index::KeyHash;
use crate::namespace::{read_at_checked, NsEntry, Tally};

/// Writer-side state, guarded by the writer mutex.
pub(crate) struct WriterState {
    /// Logical end of the log of the current generation.
    pub(super) end: u64,
    /// Offset of the last frame written (for checkpoint binding).
    pub(super) last_frame_at: u64,
    /// Log end covered by the newest checkpoint file.
    pub(super) checkpointed_end: u64,
    /// Log end covered by the newest tail index written since that
    /// checkpoint (0: none).
    pub(super) tail_indexed_end: u64,
    /// Log end at the last completed clean close (a second close with
    /// nothing written since has nothing to do).
    pub(super) closed_end: Option<u64>,
}

impl WriterState {
    /// Logical end of the log of the current generation.
    pub(crate) fn end(&self) -> u64 {
        self.end
    }

    /// A new generation was swapped in (compaction): its log ends at `end`,
    /// its last frame is at `last_frame_at`, and no checkpoint covers it.
    pub(crate) fn restart(&mut self, end: u64, last_frame_at: u64) {
        self.end = end;
        self.last_frame_at = last_frame_at;
        self.checkpointed_end = 0;
        self.tail_indexed_end = 0;
        self.closed_end = None;
    }
}

/// Encoded length of a frame, sealed when the log is encrypted. Batch
/// headers are never sealed (they carry no data; their CRC and the sealed
/// frames they announce protect them).
pub(crate) fn encoded_len(spec: &FrameSpec<'_>, crypt: Option<&Crypt>) -> usize {
    match crypt {
        Some(_) if spec.kind != Kind::BatchBegin => spec.sealed_len(),
        _ => spec.encoded_len(),
    }
}

/// Encode a frame for offset `at` into `dst`, sealed when the log is encrypted.
pub(crate) fn encode(
    spec: &FrameSpec<'_>,
    crypt: Option<&Crypt>,
    at: u64,
    dst: &mut [u8],
) -> Result<()> {
    match crypt {
        Some(c) if spec.kind != Kind::BatchBegin => {
            spec.encode_sealed_into(dst, c, at)?;
        }
        _ => {
            spec.encode_into(dst);
        }
    }
    Ok(())
}

pub(super) fn missing_ns(_id: u32) -> Error {
    Error::NamespaceDropped
}

/// Encoded size of a `BatchBegin` frame (fixed: empty key, 16-byte value).
pub(crate) const BATCH_HEADER_LEN: u64 =
    (record::CRC_LEN + 1 + 1 + 1 + record::BATCH_VALUE_LEN) as u64;

/// One buffered operation of a batch: namespace, offset of its frame.
pub(super) struct BatchOp {
    ns: Arc<NsEntry>,
    off: u64,
    hash: KeyHash,
}

/// What `commit` indexes a sealed frame by, kept from when it was encoded
/// so the frame need not be decrypted again (one AES-GCM pass per record
/// fewer for an encrypted batch).
struct SealedOp {
    kind: Kind,
    expires_at: u64,
    /// Encoded length of the frame.
    len: u64,
    /// The plaintext key in [`SealedKeys`].
    key: KeyAt,
}

/// Where a key is in [`SealedKeys`].
#[derive(Clone, Copy)]
struct KeyAt {
    chunk: u32,
    at: u32,
    len: u32,
}

/// The plaintext keys of an encrypted batch. They are secrets: each chunk
/// is allocated at its full size and never grown (growing a buffer leaves
/// a copy of what it held in freed memory), and zeroed when dropped.
#[derive(Default)]
struct SealedKeys {
    chunks: Vec<zeroize::Zeroizing<Vec<u8>>>,
}

impl SealedKeys {
    /// Bytes per chunk (a larger key gets a chunk of its own size).
    const CHUNK: usize = 64 << 10;

    fn push(&mut self, key: &[u8]) -> KeyAt {
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| c.capacity() - c.len() >= key.len());
        if !fits {
            self.chunks.push(zeroize::Zeroizing::new(Vec::with_capacity(
                key.len().max(Self::CHUNK),
            )));
        }
        let chunk = self.chunks.len() - 1;
        let mut at = 0;
        if let Some(c) = self.chunks.last_mut() {
            at = c.len();
            // Within the capacity checked above: no reallocation.
            c.extend_from_slice(key);
        }
        KeyAt {
            chunk: chunk as u32,
            at: at as u32,
            len: key.len() as u32,
        }
    }

    fn get(&self, k: KeyAt) -> &[u8] {
        let at = k.at as usize;
        self.chunks
            .get(k.chunk as usize)
            .and_then(|c| c.get(at..at + k.len as usize))
            .unwrap_or_default()
    }
}

/// An atomic group of writes. Frames are encoded straight into the log past
/// its end; `commit` writes the `BatchBegin` header in front of them and
/// publishes all at once. Dropped without commit, the bytes are zeroed.
pub(crate) struct Batch<'e> {
    engine: &'e Engine,
    w: MutexGuard<'e, WriterState>,
    gen: Arc<Generation>,
    start: u64,
    cursor: u64,
    ops: Vec<BatchOp>,
    /// For an encrypted log, one entry per op (in step with `ops`).
    sealed: Vec<SealedOp>,
    sealed_keys: SealedKeys,
    done: bool,
}

impl<'e> Batch<'e> {
    /// A batch appending at the end of the log `w` guards.
    pub(super) fn new(
        engine: &'e Engine,
        w: MutexGuard<'e, WriterState>,
        gen: Arc<Generation>,
    ) -> Batch<'e> {
        let start = w.end;
        Batch {
            engine,
            cursor: start + BATCH_HEADER_LEN,
            start,
            w,
            gen,
            ops: Vec::new(),
            sealed: Vec::new(),
            sealed_keys: SealedKeys::default(),
            done: false,
        }
    }

    fn push(&mut self, ns_id: u32, spec: FrameSpec<'_>) -> Result<()> {
        // Most batches write one namespace: reuse the previous op's entry.
        let ns = match self.ops.last() {
            Some(op) if op.ns.id == ns_id => Arc::clone(&op.ns),
            _ => self.gen.ns(ns_id).ok_or_else(|| missing_ns(ns_id))?,
        };
        let crypt = self.gen.crypt().as_deref();
        let len = encoded_len(&spec, crypt) as u64;
        let at = self.cursor;
        let log = &self.gen.log();
        log.ensure_capacity(at, at + len)
            .map_err(|e| self.engine.poison_if_cut(log, e))?;
        self.engine
            .fill_log(log, at, len as usize, |d| encode(&spec, crypt, at, d))?;
        self.ops.push(BatchOp {
            hash: ns.hash(spec.key),
            ns,
            off: self.cursor,
        });
        if crypt.is_some() {
            let key = self.sealed_keys.push(spec.key);
            self.sealed.push(SealedOp {
                kind: spec.kind,
                expires_at: spec.expires_at,
                len,
                key,
            });
        }
        self.cursor += len;
        Ok(())
    }

    /// Add frames encoded ahead (a plain log's [`crate::WriteBatch`]):
    /// `bytes` holds them back to back, `ops` says how long each is. They
    /// are copied in pieces small enough to be staged and written with
    /// `pwrite`, as frames encoded here are.
    pub(crate) fn push_encoded(
        &mut self,
        ns_id: u32,
        bytes: &[u8],
        ops: &[crate::batch::BatchWrite],
    ) -> Result<()> {
        /// Bytes copied into the log per call (below the stage limit).
        const PIECE: usize = 256 << 10;
        let ns = self.gen.ns(ns_id).ok_or_else(|| missing_ns(ns_id))?;
        let at = self.cursor;
        let end = at + bytes.len() as u64;
        let log = &self.gen.log();
        log.ensure_capacity(at, end)
            .map_err(|e| self.engine.poison_if_cut(log, e))?;
        for piece in bytes.chunks(PIECE) {
            self.engine.fill_log(log, self.cursor, piece.len(), |d| {
                d.copy_from_slice(piece);
                Ok(())
            })?;
            // What is in the file is zeroed again if the batch is dropped.
            self.cursor += piece.len() as u64;
        }
        self.ops.reserve(ops.len());
        let mut off = at;
        for op in ops {
            self.ops.push(BatchOp {
                ns: Arc::clone(&ns),
                off,
                hash: op.hash,
            });
            off += u64::from(op.len);
        }
        debug_assert_eq!((off, self.cursor), (end, end));
        Ok(())
    }

    /// Add an insert.
    pub(crate) fn put(
        &mut self,
        ns_id: u32,
        key: &[u8],
        value: &[u8],
        expires_at: u64,
    ) -> Result<()> {
        check_sizes(key, value)?;
        self.push(ns_id, FrameSpec::put(ns_id, key, value, expires_at))
    }

    /// Add a removal.
    pub(crate) fn delete(&mut self, ns_id: u32, key: &[u8]) -> Result<()> {
        check_sizes(key, &[])?;
        self.push(ns_id, FrameSpec::delete(ns_id, key))
    }

    /// Write the batch header, publish, and update the indexes.
    pub(crate) fn commit(mut self) -> Result<()> {
        self.done = true;
        if self.ops.is_empty() {
            return Ok(());
        }
        let body_len = self.cursor - self.start - BATCH_HEADER_LEN;
        let v = batch_value(self.ops.len() as u64, body_len);
        let header = FrameSpec {
            kind: Kind::BatchBegin,
            ns: 0,
            expires_at: 0,
            key: &[],
            value: &v,
        };
        debug_assert_eq!(header.encoded_len() as u64, BATCH_HEADER_LEN);
        let engine = self.engine;
        let gen = Arc::clone(&self.gen);
        engine.fill_log(gen.log(), self.start, BATCH_HEADER_LEN as usize, |d| {
            header.encode_into(d);
            Ok(())
        })?;
        if engine.write_through() && gen.log().file.is_some() {
            engine.sync_log(gen.log(), self.cursor)?;
        }
        self.w.end = self.cursor;
        if let Some(last) = self.ops.last() {
            self.w.last_frame_at = last.off;
        }
        engine.publish(&self.w, &gen, self.ops.len() as u64)?;
        let region = gen.log().region();
        let bytes = gen.bytes(&region);
        // Each key's slot is asked for a few keys ahead, so the cache misses
        // of a large batch overlap instead of coming one after the other.
        const AHEAD: usize = 8;
        let ops = &self.ops;
        for op in ops.iter().take(AHEAD) {
            op.ns.keydir.prefetch(op.hash);
        }
        // Counters and sorted order are settled once per run of puts of
        // one namespace ([`Tally`]), before a removal and at the end.
        let mut tally = Tally::default();
        let mut run: Option<&Arc<NsEntry>> = None;
        // In step with `ops` unless frames encoded ahead were pushed (a
        // plain log's only): then every frame is read back.
        let sealed = match self.sealed.len() == ops.len() {
            true => &self.sealed[..],
            false => &[],
        };
        let keys = &self.sealed_keys;
        let indexed = ops.iter().enumerate().try_for_each(|(i, op)| {
            if let Some(next) = ops.get(i + AHEAD) {
                next.ns.keydir.prefetch(next.hash);
            }
            let mut scratch = zeroize::Zeroizing::new(Vec::new());
            let (kind, key, len, expires_at) = match sealed.get(i) {
                // A sealed frame is indexed by what it was sealed from.
                Some(s) => (s.kind, keys.get(s.key), s.len, s.expires_at),
                None => {
                    // This process encoded these frames a moment ago: their
                    // CRCs are checked by whoever reads them, not again here.
                    let f = read_at_checked(bytes, op.off, op.ns.crypt(), &mut scratch, false)?;
                    (f.kind, f.key, f.len as u64, f.expires_at)
                }
            };
            if let Some(r) = run.filter(|r| kind != Kind::Put || !Arc::ptr_eq(r, &op.ns)) {
                r.settle(&mut tally);
                run = None;
            }
            match kind {
                Kind::Put => {
                    run = Some(&op.ns);
                    op.ns
                        .index_put_tallied(bytes, op.off, key, len, expires_at, &mut tally)
                }
                _ => op.ns.index_delete(bytes, key, op.off).map(|_| ()),
            }
        });
        if let Some(r) = run {
            r.settle(&mut tally);
        }
        gen.log().vouch_read(&region, bytes, indexed)
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        if !self.done {
            // Never leave valid-looking frames past the end: a later, shorter
            // append could otherwise be followed by them on replay.
            let _ = self.gen.log().zero(self.start, self.cursor);
        }
    }
}
