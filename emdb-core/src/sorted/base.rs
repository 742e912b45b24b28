//! The base of an order, one offset per live key in key order, in each
//! form it is kept: built in memory, mapped from a checkpoint's sorted
//! block where it lies, or sealed in chunks that are decrypted on first
//! use. Every read of a base goes through [`Base::get`] or [`Base::runs`],
//! so the rest of the order need not know which form it reads
//! (docs/ARCHITECTURE.md, "Sorted order").

use std::sync::{Arc, OnceLock};

use zeroize::Zeroizing;

use crate::crypto::Crypt;
use crate::error::{Error, Result};
use crate::format::checkpoint::{PAGE, SORTED_CHUNK};
use crate::index::image::Image;

/// The base: one offset per live key, in key order.
#[derive(Clone)]
pub(crate) enum Base {
    /// Built in memory (compaction, a checkpoint, a rebuild).
    Heap(Arc<[u64]>),
    /// A checkpoint's sorted block, used where it lies: `len` offsets from
    /// file byte `at`, each page checked against its CRC on first use.
    Mapped {
        image: Arc<Image>,
        at: usize,
        len: usize,
    },
    /// An encrypted database's checkpoint sorted block, in sealed chunks
    /// opened on first use (docs/FORMAT.md).
    Sealed(Arc<SealedBase>),
}

/// A sealed sorted block: `len` offsets in chunks of
/// [`SORTED_CHUNK`](crate::format::checkpoint::SORTED_CHUNK), one per page
/// from file byte `at`, each decrypted the first time an entry of it is
/// read and kept (8 bytes per offset opened); a pass over its runs keeps
/// none it opens.
pub(crate) struct SealedBase {
    image: Arc<Image>,
    crypt: Arc<Crypt>,
    at: usize,
    len: usize,
    /// Associated data of every chunk, without the chunk's index.
    aad: Vec<u8>,
    chunks: Box<[OnceLock<Box<[u64]>>]>,
}

impl SealedBase {
    /// The block of `len` offsets at file byte `at` of `image`, whose
    /// chunks are bound to `aad` (`format::checkpoint::sorted_aad_prefix`).
    pub(crate) fn new(
        image: Arc<Image>,
        crypt: Arc<Crypt>,
        at: usize,
        len: usize,
        aad: Vec<u8>,
    ) -> SealedBase {
        let chunks = (0..len.div_ceil(SORTED_CHUNK))
            .map(|_| OnceLock::new())
            .collect();
        SealedBase {
            image,
            crypt,
            at,
            len,
            aad,
            chunks,
        }
    }

    /// Entry `i`, opening its chunk if no read did yet.
    #[inline]
    fn get(&self, i: usize) -> Result<u64> {
        let c = i / SORTED_CHUNK;
        let Some(slot) = self.chunks.get(c).filter(|_| i < self.len) else {
            return Err(Error::corruption(0, "sorted index read past its end"));
        };
        let chunk = match slot.get() {
            Some(chunk) => chunk,
            None => {
                // Two readers may both open it; either result is the same.
                let _ = slot.set(self.open(c)?);
                slot.get()
                    .ok_or_else(|| Error::corruption(0, "sorted chunk not kept"))?
            }
        };
        chunk
            .get(i % SORTED_CHUNK)
            .copied()
            .ok_or_else(|| Error::corruption(0, "sorted index read past its end"))
    }

    /// Check, authenticate and decrypt chunk `c`.
    #[cold]
    fn open(&self, c: usize) -> Result<Box<[u64]>> {
        let plain = Zeroizing::new(self.open_bytes(c)?);
        Ok(plain
            .chunks_exact(8)
            .filter_map(|b| crate::format::read_u64(b, 0))
            .collect())
    }

    /// Chunk `c` checked, authenticated and decrypted: its offsets as
    /// little-endian bytes.
    fn open_bytes(&self, c: usize) -> Result<Vec<u8>> {
        let byte = self.at + c * crate::format::checkpoint::PAGE;
        let n = (self.len - c * SORTED_CHUNK).min(SORTED_CHUNK);
        let sealed_len = n * 8 + crate::format::checkpoint::TABLE_SEAL_OVERHEAD as usize;
        let raw = self
            .image
            .page_bytes(byte, sealed_len, "sorted block outside the checkpoint")?;
        let mut aad = self.aad.clone();
        aad.extend_from_slice(&(c as u64).to_le_bytes());
        self.crypt
            .open_blob(&aad, raw)
            .filter(|plain| plain.len() == n * 8)
            .ok_or_else(|| {
                self.image
                    .damaged(byte, "sorted block chunk failed authentication")
            })
    }

    /// Entries `from..to` (`to` at most the length) as little-endian
    /// bytes, handed to `f` a chunk at a time. A chunk a read already
    /// opened is read from memory; any other is opened for this pass alone
    /// and not kept, so a pass over the whole order (a checkpoint's)
    /// does not leave every chunk open (8 bytes a key).
    fn runs(&self, from: usize, to: usize, mut f: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let past_end = || Error::corruption(0, "sorted index read past its end");
        let mut buf = Zeroizing::new(Vec::with_capacity(SORTED_CHUNK * 8));
        let mut i = from;
        while i < to {
            let c = i / SORTED_CHUNK;
            let first = c * SORTED_CHUNK;
            let (lo, hi) = (i - first, (to - first).min(SORTED_CHUNK));
            match self.chunks.get(c).and_then(OnceLock::get) {
                Some(chunk) => {
                    buf.clear();
                    for o in chunk.get(lo..hi).ok_or_else(past_end)? {
                        buf.extend_from_slice(&o.to_le_bytes());
                    }
                    f(&buf)?;
                }
                None => {
                    let plain = Zeroizing::new(self.open_bytes(c)?);
                    f(plain.get(lo * 8..hi * 8).ok_or_else(past_end)?)?;
                }
            }
            i = first + hi;
        }
        Ok(())
    }

    /// Bytes of the chunks opened so far.
    pub(super) fn memory_bytes(&self) -> usize {
        self.chunks
            .iter()
            .filter_map(OnceLock::get)
            .map(|c| c.len() * 8)
            .sum()
    }
}

impl Base {
    /// No entries.
    pub(crate) fn empty() -> Base {
        Base::Heap(Arc::from(Vec::new()))
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        match self {
            Base::Heap(v) => v.len(),
            Base::Mapped { len, .. } => *len,
            Base::Sealed(b) => b.len,
        }
    }

    /// Entry `i` (`i < len`).
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> Result<u64> {
        match self {
            Base::Heap(v) => v
                .get(i)
                .copied()
                .ok_or_else(|| Error::corruption(0, "sorted index read past its end")),
            Base::Mapped { image, at, len } => {
                if i >= *len {
                    return Err(Error::corruption(0, "sorted index read past its end"));
                }
                let byte = at + i * 8;
                // With the checkpoint's path: a log offset has none, and
                // a read error without one is checked against the log.
                let what = "sorted block outside the checkpoint";
                let raw = image.page_bytes(byte, 8, what)?;
                crate::format::read_u64(raw, 0).ok_or_else(|| image.damaged(byte, what))
            }
            Base::Sealed(b) => b.get(i),
        }
    }

    /// Entries `from..to` as their little-endian bytes, handed to `f` a
    /// run at a time (a mapped block's runs are its pages, each checked
    /// against its CRC first, and are the file's own bytes; a sealed
    /// block's are its chunks, decrypted for the pass and not kept): for
    /// passes over a whole order, where [`Base::get`] would check every
    /// entry's page (or keep every chunk it opens).
    pub(super) fn runs(
        &self,
        from: usize,
        to: usize,
        mut f: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        if from >= to {
            return Ok(());
        }
        if to > self.len() {
            return Err(Error::corruption(0, "sorted index read past its end"));
        }
        match self {
            Base::Mapped { image, at, .. } => {
                let what = "sorted block outside the checkpoint";
                let (mut byte, end) = (at + from * 8, at + to * 8);
                while byte < end {
                    let page_end = (byte / PAGE + 1) * PAGE;
                    let len = page_end.min(end) - byte;
                    f(image.page_bytes(byte, len, what)?)?;
                    byte += len;
                }
                Ok(())
            }
            Base::Heap(v) => {
                let mut buf = [0u8; 8 * 512];
                for part in v.get(from..to).unwrap_or_default().chunks(512) {
                    for (b, o) in buf.chunks_exact_mut(8).zip(part) {
                        b.copy_from_slice(&o.to_le_bytes());
                    }
                    f(buf.get(..part.len() * 8).unwrap_or_default())?;
                }
                Ok(())
            }
            Base::Sealed(b) => b.runs(from, to, f),
        }
    }
}
