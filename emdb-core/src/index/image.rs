//! A checkpoint's slot pages used in place (docs/FORMAT.md, "Checkpoint
//! file", version 2).
//!
//! Open maps the checkpoint and the index's arenas point into the mapping,
//! so opening costs the same whatever the number of keys, and a one-shot
//! read faults in only the pages it probes. Each slot page is checked
//! against its stored CRC the first time anything touches it: damage in the
//! image is then an error, never a key that silently goes missing. The
//! check runs under one lock per image, so a page is never read for its CRC
//! while a writer changes it: every write to a slot follows a probe that
//! verified its page first.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::format::checkpoint::PAGE;
use crate::log::image::ImageMap;

/// A mapped checkpoint's slot pages and what is known about them.
pub(crate) struct Image {
    map: ImageMap,
    /// File offset of the first slot page.
    pages_at: usize,
    page_count: usize,
    /// File offset of the page CRC table.
    crcs_at: usize,
    /// One bit per slot page: checked against its CRC.
    verified: Box<[AtomicU64]>,
    /// Serialises page checks (see the module docs).
    checking: Mutex<()>,
    path: PathBuf,
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("path", &self.path)
            .field("pages", &self.page_count)
            .finish()
    }
}

impl Image {
    /// Wrap a mapping whose header said the slot pages are
    /// `[pages_at, pages_at + page_count * PAGE)` and the CRCs follow.
    pub(crate) fn new(
        map: ImageMap,
        pages_at: usize,
        page_count: usize,
        path: &Path,
    ) -> Option<Image> {
        let crcs_at = pages_at.checked_add(page_count.checked_mul(PAGE)?)?;
        if crcs_at.checked_add(page_count.checked_mul(4)?)? > map.len() {
            return None;
        }
        Some(Image {
            map,
            pages_at,
            page_count,
            crcs_at,
            verified: (0..page_count.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            checking: Mutex::new(()),
            path: path.to_path_buf(),
        })
    }

    /// The mapping.
    #[inline]
    pub(crate) fn map(&self) -> &ImageMap {
        &self.map
    }

    /// Make sure the slot page holding file byte `at` was checked.
    #[inline]
    pub(crate) fn ensure(&self, at: usize) -> Result<()> {
        let page = at.wrapping_sub(self.pages_at) / PAGE;
        match self.verified.get(page / 64) {
            Some(w) if w.load(Ordering::Acquire) & (1 << (page % 64)) != 0 => Ok(()),
            _ => self.check_page(page),
        }
    }

    /// Make sure every slot page overlapping `[at, at + len)` was checked.
    pub(crate) fn ensure_range(&self, at: usize, len: usize) -> Result<()> {
        if len == 0 {
            return Ok(());
        }
        let mut p = at;
        while p < at + len {
            self.ensure(p)?;
            p = (p - (p - self.pages_at) % PAGE) + PAGE;
        }
        Ok(())
    }

    /// Check every slot page against its CRC (`emdb check`): the error of
    /// the first damaged one.
    pub(crate) fn check_all(&self) -> Result<()> {
        (0..self.page_count).try_for_each(|p| self.check_page(p))
    }

    #[cold]
    fn check_page(&self, page: usize) -> Result<()> {
        let Some(word) = self.verified.get(page / 64) else {
            return Err(self.damaged(self.pages_at + page * PAGE, "slot outside the image"));
        };
        let _g = self.checking.lock();
        let bit = 1u64 << (page % 64);
        if word.load(Ordering::Acquire) & bit != 0 {
            return Ok(());
        }
        let at = self.pages_at + page * PAGE;
        let stored = self
            .map
            .bytes(self.crcs_at + page * 4, 4)
            .and_then(|b| crate::format::read_u32(b, 0));
        let bytes = self.map.bytes(at, PAGE);
        self.check_cut()?;
        match (stored, bytes) {
            (Some(crc), Some(b)) if crate::format::crc::crc32(b) == crc => {
                word.fetch_or(bit, Ordering::Release);
                Ok(())
            }
            _ => Err(self.damaged(at, "index page checksum mismatch")),
        }
    }

    /// The `len` bytes at file byte `at`, which lie in one slot page, once
    /// that page was checked; an error naming `what` (with the
    /// checkpoint's path) when the file does not hold them.
    #[inline]
    pub(crate) fn page_bytes(&self, at: usize, len: usize, what: &str) -> Result<&[u8]> {
        self.ensure(at)?;
        let raw = self.map.bytes(at, len);
        self.check_cut()?;
        raw.ok_or_else(|| self.damaged(at, what))
    }

    /// An error if another process cut the file short under the mapping.
    #[inline]
    pub(crate) fn check_cut(&self) -> Result<()> {
        match self.map.cut_at() {
            None => Ok(()),
            Some(at) => Err(self.damaged(
                at as usize,
                "the checkpoint file was truncated by another process",
            )),
        }
    }

    /// The error for damage at file byte `at` of this checkpoint (with its
    /// path, which tells it from a log record's error).
    pub(crate) fn damaged(&self, at: usize, what: &str) -> Error {
        Error::Corruption {
            path: Some(self.path.clone()),
            offset: at as u64,
            reason: format!(
                "{what}; remove this checkpoint file and reopen: the index is rebuilt from the log"
            ),
        }
    }
}
