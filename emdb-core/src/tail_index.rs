//! Tail index files (`<db>.tail`, docs/FORMAT.md "Tail index file"): for
//! each key written since the checkpoint, where its newest record lies, so
//! a one-key read beside a busy writer scans only the log written after the
//! file instead of everything after the checkpoint (docs/ARCHITECTURE.md,
//! "Tail indexes").
//!
//! The writer's checkpointer builds it with an [`Indexer`] (which scans
//! each stretch of log once and remembers the newest offset per key) and
//! writes it with [`write`]; a one-key open finds its key with [`lookup`].

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::crypto::Crypt;
use crate::error::{Error, Result};
use crate::fault::{self, Faults, FsEvent, WriteSite};
use crate::format::crc::crc32;
use crate::format::record::Kind;
use crate::format::{read_u32, read_u64};
use crate::fs::{self as efs, sibling};
use crate::replay::decode_unit;

const MAGIC: &[u8; 8] = b"EMDBTAIL";
/// The version written. Version 1 files (no count section) are still read.
const VERSION: u32 = 2;
const PAGE: usize = 4096;
/// Header flag: the file of an encrypted database (docs/FORMAT.md).
const SEALED: u32 = 1;
const SLOT: usize = 16;
/// Slots per page: the last 16 bytes hold the page index and its CRC.
const PER_PAGE: usize = 255;
/// Offsets per page of the sorted section (same trailer).
const SORTED_PER_PAGE: usize = 510;
/// Offsets per page of a sealed file's sorted section: each page holds them
/// sealed as one blob (a nonce and a tag more), since their order would
/// show how the keys sort.
const SEALED_SORTED_PER_PAGE: usize = 500;
/// Bytes of one entry of the count section.
const COUNT: usize = 32;
/// Count entries per page (same trailer).
const COUNTS_PER_PAGE: usize = 127;
/// Where a page's trailer starts: its index (u32), then its CRC (u32).
const TRAILER: usize = PAGE - 16;
/// Bytes of the header the header CRC covers.
const HEADER_LEN: usize = 96;

/// The tail index file of the database at `db`.
pub(crate) fn path(db: &Path) -> PathBuf {
    sibling(db, ".tail")
}

/// The temp file a tail index is written to before its rename.
pub(crate) fn tmp_path(db: &Path) -> PathBuf {
    sibling(db, ".tail.tmp")
}

/// Which log, and which checkpoint of it, a tail index extends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Base {
    pub db_id: [u8; 16],
    pub generation: u64,
    /// The checkpoint's `covered_end`: the index holds records from here.
    pub end: u64,
}

/// One namespace's counts as of a tail index's `end` (its count section):
/// what its index held after every record before `end` was applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct NsCounts {
    /// Namespace id.
    pub ns: u32,
    /// Live keys (expired ones not yet swept included).
    pub live: u64,
    /// Log bytes of their records.
    pub live_bytes: u64,
    /// Live keys whose record carries an expiry.
    pub expiring: u64,
}

/// A tail index file's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub base: Base,
    /// The entries are complete up to this log offset (a unit boundary).
    pub end: u64,
    /// Offset and stored CRC of the last frame before `end`.
    pub last_frame_at: u64,
    pub last_frame_crc: u32,
    pub entries: u64,
    pub page_count: u64,
    /// Offsets in the sorted section (every entry's, in key order), which
    /// follows the slot pages.
    pub sorted_count: u64,
    /// Entries of the count section, which follows the sorted section
    /// (version 2; 0 in a version 1 file, which has none).
    pub ns_count: u32,
    /// An encrypted database's file (flag bit 0): keyed hashes and tags
    /// under its tail key, and a sorted section sealed page by page, or
    /// none (files written before 2026-11-28).
    pub sealed: bool,
}

impl Header {
    /// Offsets per page of this file's sorted section.
    fn sorted_per_page(&self) -> u64 {
        if self.sealed {
            SEALED_SORTED_PER_PAGE as u64
        } else {
            SORTED_PER_PAGE as u64
        }
    }

    /// Pages of this file's sorted section.
    fn sorted_pages(&self) -> u64 {
        self.sorted_count.div_ceil(self.sorted_per_page())
    }

    fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(PAGE);
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&u32::from(self.sealed).to_le_bytes());
        b.extend_from_slice(&self.base.db_id);
        b.extend_from_slice(&self.base.generation.to_le_bytes());
        b.extend_from_slice(&self.base.end.to_le_bytes());
        b.extend_from_slice(&self.end.to_le_bytes());
        b.extend_from_slice(&self.last_frame_at.to_le_bytes());
        b.extend_from_slice(&self.last_frame_crc.to_le_bytes());
        b.extend_from_slice(&self.ns_count.to_le_bytes());
        b.extend_from_slice(&self.entries.to_le_bytes());
        b.extend_from_slice(&self.page_count.to_le_bytes());
        b.extend_from_slice(&self.sorted_count.to_le_bytes());
        debug_assert_eq!(b.len(), HEADER_LEN);
        let crc = crc32(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b.resize(PAGE, 0);
        b
    }

    fn decode(page: &[u8]) -> std::result::Result<Header, &'static str> {
        if page.len() < PAGE || &page[..8] != MAGIC {
            return Err("not a tail index");
        }
        let version = read_u32(page, 8);
        if version != Some(1) && version != Some(VERSION) {
            return Err("unknown tail index version");
        }
        if read_u32(page, HEADER_LEN) != Some(crc32(&page[..HEADER_LEN])) {
            return Err("tail index header fails its CRC");
        }
        let flags = read_u32(page, 12).ok_or("short tail index header")?;
        let u64_at = |at| read_u64(page, at).ok_or("short tail index header");
        let mut db_id = [0u8; 16];
        db_id.copy_from_slice(&page[16..32]);
        let h = Header {
            base: Base {
                db_id,
                generation: u64_at(32)?,
                end: u64_at(40)?,
            },
            end: u64_at(48)?,
            last_frame_at: u64_at(56)?,
            last_frame_crc: read_u32(page, 64).ok_or("short tail index header")?,
            entries: u64_at(72)?,
            page_count: u64_at(80)?,
            sorted_count: u64_at(88)?,
            ns_count: read_u32(page, 68).ok_or("short tail index header")?,
            sealed: flags == SEALED,
        };
        let slots = h.page_count.checked_mul(PER_PAGE as u64);
        if h.page_count == 0
            || slots.is_none_or(|s| h.entries > s / 2)
            || flags & !SEALED != 0
            || (version == Some(1) && flags != 0)
            || (h.sorted_count != h.entries && !(h.sealed && h.sorted_count == 0))
            || h.end < h.base.end
            || (version == Some(1) && h.ns_count != 0)
        {
            return Err("tail index header is inconsistent");
        }
        Ok(h)
    }
}

/// Home slot of `hash` among `slots`.
fn home(hash: u64, slots: u64) -> u64 {
    ((u128::from(hash) * u128::from(slots)) >> 64) as u64
}

/// The key hash a tail index stores: xxh3-64 (seed 0) in a plain
/// database's file; in an encrypted one's (sealed), a keyed hash under
/// its tail key ([`Crypt::tail_hash`]).
pub(crate) fn key_hash(key: &[u8], crypt: Option<&Crypt>) -> u64 {
    match crypt {
        Some(c) => c.tail_hash(key),
        None => xxhash_rust::xxh3::xxh3_64(key),
    }
}

/// Where a sealed file's nonce lies (12 random bytes), after the header
/// CRC: pages of two files with the same header fields never match.
const NONCE_AT: usize = HEADER_LEN + 4;
/// Where a sealed file's header tag lies, after its nonce.
const HEADER_TAG: usize = NONCE_AT + 12;
/// Header bytes a sealed file's tags bind (everything up to its tag).
const BOUND: usize = HEADER_TAG;
/// Where a sealed file's page tag lies: the last 8 bytes of the page.
const PAGE_TAG: usize = PAGE - 8;

/// A sealed file's tag of its header `head` (its first [`BOUND`] bytes).
fn header_tag(crypt: &Crypt, head: &[u8]) -> [u8; 8] {
    crypt.tail_tag(&[b"header", head])
}

/// A sealed file's tag of page `p` (its first [`PAGE_TAG`] bytes), bound
/// to the file's header `head`: no page moves to another place or file.
fn page_tag(crypt: &Crypt, head: &[u8], p: u64, page: &[u8]) -> [u8; 8] {
    crypt.tail_tag(&[b"page", head, &p.to_le_bytes(), page])
}

/// Append page number `index` of the file: `body` (at most [`TRAILER`]
/// bytes), zeros, its index and CRC.
fn push_page(out: &mut Vec<u8>, body: &[u8], index: usize) {
    let start = out.len();
    out.extend_from_slice(body);
    out.resize(start + TRAILER, 0);
    out.extend_from_slice(&(index as u32).to_le_bytes());
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
    out.resize(start + PAGE, 0);
}

/// The whole file for `header` (whose counts are set here), `entries`
/// (key hash, frame offset; offsets are never 0), `sorted` (the same
/// offsets in key order) and `counts` (by namespace id). A sealed header's
/// file is tagged with `crypt`'s tail key (left untagged without one, which
/// no reader accepts).
fn encode(
    mut header: Header,
    entries: &[(u64, u64)],
    sorted: &[u64],
    counts: &[NsCounts],
    crypt: Option<&Crypt>,
) -> Result<Vec<u8>> {
    let pages = (entries.len() * 2).div_ceil(PER_PAGE).max(1);
    header.entries = entries.len() as u64;
    header.page_count = pages as u64;
    header.sorted_count = sorted.len() as u64;
    header.ns_count = counts.len() as u32;
    let slots = (pages * PER_PAGE) as u64;
    let mut table = vec![(0u64, 0u64); pages * PER_PAGE];
    for &(hash, off) in entries {
        let mut s = home(hash, slots) as usize;
        while table[s].1 != 0 {
            s = (s + 1) % table.len();
        }
        table[s] = (hash, off);
    }
    let sealer = match (header.sealed, crypt) {
        (true, Some(c)) => Some(c),
        _ => None,
    };
    let per_page = header.sorted_per_page() as usize;
    let sorted_pages = header.sorted_pages() as usize;
    let mut out = header.encode();
    out.reserve((pages + sorted_pages) * PAGE);
    let mut body = Vec::with_capacity(TRAILER);
    for (i, page) in table.chunks(PER_PAGE).enumerate() {
        body.clear();
        for &(hash, off) in page {
            body.extend_from_slice(&hash.to_le_bytes());
            body.extend_from_slice(&off.to_le_bytes());
        }
        push_page(&mut out, &body, i);
    }
    for (j, page) in sorted.chunks(per_page).enumerate() {
        body.clear();
        for &off in page {
            body.extend_from_slice(&off.to_le_bytes());
        }
        if let Some(c) = sealer {
            let plain = zeroize::Zeroizing::new(std::mem::take(&mut body));
            body = c.seal_blob(&sorted_aad((pages + j) as u64), &plain)?;
        }
        push_page(&mut out, &body, pages + j);
    }
    let first = pages + sorted_pages;
    for (j, page) in counts.chunks(COUNTS_PER_PAGE).enumerate() {
        body.clear();
        for c in page {
            body.extend_from_slice(&c.ns.to_le_bytes());
            body.extend_from_slice(&0u32.to_le_bytes());
            body.extend_from_slice(&c.live.to_le_bytes());
            body.extend_from_slice(&c.live_bytes.to_le_bytes());
            body.extend_from_slice(&c.expiring.to_le_bytes());
        }
        push_page(&mut out, &body, first + j);
    }
    if let (true, Some(c)) = (header.sealed, crypt) {
        let (head, pages) = out.split_at_mut(PAGE);
        let mut nonce = [0u8; 12];
        c.fresh_nonce(&mut nonce)?;
        head[NONCE_AT..HEADER_TAG].copy_from_slice(&nonce);
        let tag = header_tag(c, &head[..BOUND]);
        head[HEADER_TAG..HEADER_TAG + 8].copy_from_slice(&tag);
        for (p, page) in pages.chunks_exact_mut(PAGE).enumerate() {
            let tag = page_tag(c, &head[..BOUND], p as u64, &page[..PAGE_TAG]);
            page[PAGE_TAG..].copy_from_slice(&tag);
        }
    }
    Ok(out)
}

/// What a sealed sorted page's blob is bound to (its page number; the
/// page's tag binds the page to its file and place as well).
fn sorted_aad(p: u64) -> Vec<u8> {
    let mut aad = b"emdb tail index sorted page".to_vec();
    aad.extend_from_slice(&p.to_le_bytes());
    aad
}

/// Recompute every checksum of a tail index file in place (header CRC,
/// each page's CRC; the page numbers are left as they are), for fuzzing.
#[cfg(feature = "fuzzing")]
pub(crate) fn reseal(file: &mut [u8]) {
    if file.len() >= HEADER_LEN + 4 {
        let crc = crc32(&file[..HEADER_LEN]);
        file[HEADER_LEN..HEADER_LEN + 4].copy_from_slice(&crc.to_le_bytes());
    }
    for page in file
        .get_mut(PAGE..)
        .unwrap_or_default()
        .chunks_exact_mut(PAGE)
    {
        let crc = crc32(&page[..TRAILER + 4]);
        page[TRAILER + 4..TRAILER + 8].copy_from_slice(&crc.to_le_bytes());
    }
}

/// A tail index with the header of the valid file `like` (its binding and
/// ends) and the given entries and sorted offsets (which must be as many),
/// checksums right: for fuzzing. `None` when `like` does not decode.
#[cfg(feature = "fuzzing")]
pub(crate) fn forge(
    like: &[u8],
    entries: &[(u64, u64)],
    sorted: &[u64],
    counts: &[NsCounts],
) -> Option<Vec<u8>> {
    let header = Header::decode(like).ok()?;
    if entries.len() != sorted.len() || entries.iter().any(|e| e.1 == 0) {
        return None;
    }
    encode(header, entries, sorted, counts, None).ok()
}

/// Write the tail index for `header`, `entries` and `counts` to `<db>.tail.tmp`
/// (fsynced) and rename it over `<db>.tail` with `install` (which decides,
/// under the caller's lock, whether it still applies). The temp file is
/// removed when it is not installed. `crypt` tags a sealed one.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write(
    db: &Path,
    header: Header,
    entries: &[(u64, u64)],
    sorted: &[u64],
    counts: &[NsCounts],
    crypt: Option<&Crypt>,
    faults: Option<&Faults>,
    install: impl FnOnce(&dyn Fn() -> Result<()>) -> Result<bool>,
) -> Result<bool> {
    let tmp = tmp_path(db);
    let written = (|| {
        let f = efs::create_fresh(&tmp)?;
        // Owner-only when encrypted, as a checkpoint (its tags).
        if let Ok(like) = std::fs::metadata(db) {
            efs::match_permissions(&f, &like, if crypt.is_some() { 0o600 } else { 0o666 });
        }
        fault::write_all_at(
            faults,
            WriteSite::Checkpoint,
            &f,
            &encode(header, entries, sorted, counts, crypt)?,
            0,
        )
        .map_err(|e| Error::io("write", Some(&tmp), e))?;
        f.sync_all()
            .map_err(|e| Error::io("fsync", Some(&tmp), e))?;
        fault::note(faults, || FsEvent::Synced(tmp.clone()));
        Ok(())
    })();
    let installed = written.and_then(|()| {
        let target = path(db);
        install(&|| {
            efs::rename(&tmp, &target, faults)?;
            efs::fsync_parent(&target, faults)
        })
    });
    if !matches!(installed, Ok(true)) {
        let _ = std::fs::remove_file(&tmp);
    }
    installed
}

/// Remove the tail index of `db` (a newer checkpoint replaces it).
pub(crate) fn remove(db: &Path) {
    let _ = std::fs::remove_file(path(db));
}

/// Remove the tail index of `db` unless it is readable and ends at or
/// before `end`, the end of the log a writer's open recovered: one that
/// reaches past it indexes records the log no longer holds.
pub(crate) fn remove_if_past(db: &Path, end: u64) {
    let mut page = vec![0u8; PAGE];
    let keep = match File::open(path(db)) {
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        Ok(f) => {
            f.read_exact_at(&mut page, 0).is_ok()
                && Header::decode(&page).is_ok_and(|h| h.end <= end)
        }
    };
    if !keep {
        remove(db);
    }
}

/// An open tail index that passed its header checks.
pub(crate) struct TailIndex {
    file: File,
    pub header: Header,
    /// The page read last (its number and bytes).
    page: Option<(u64, Vec<u8>)>,
    /// A sealed file's: the cipher whose tail key checks each page's tag,
    /// and the header bytes the tags bind.
    sealed: Option<(std::sync::Arc<Crypt>, Vec<u8>)>,
    /// A sealed file's sorted page opened last (its number and offsets,
    /// zeroed when dropped).
    opened: Option<(u64, zeroize::Zeroizing<Vec<u64>>)>,
}

impl TailIndex {
    /// Open the tail index of `db` if there is one and it extends `base`;
    /// `Ok(None)` otherwise, and for a file sealed when `crypt` (the log's
    /// cipher) is `None` or plain when it is not. A sealed file's header
    /// tag is checked with `crypt`, and so is each page's as it is read.
    /// The caller still checks `end` and the last frame against the log.
    pub(crate) fn open(
        db: &Path,
        base: Base,
        crypt: Option<std::sync::Arc<Crypt>>,
    ) -> std::result::Result<Option<TailIndex>, String> {
        let file = match File::open(path(db)) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read the tail index: {e}")),
        };
        let mut page = vec![0u8; PAGE];
        file.read_exact_at(&mut page, 0)
            .map_err(|e| format!("cannot read the tail index: {e}"))?;
        let header = Header::decode(&page)?;
        if header.base != base || header.sealed != crypt.is_some() {
            return Ok(None);
        }
        let sealed = match crypt {
            Some(c) => {
                let head = page[..BOUND].to_vec();
                if page[HEADER_TAG..HEADER_TAG + 8] != header_tag(&c, &head) {
                    return Err("tail index header fails its tag".into());
                }
                Some((c, head))
            }
            None => None,
        };
        let len = file
            .metadata()
            .map_err(|e| format!("cannot read the tail index: {e}"))?
            .len();
        let pages = header
            .sorted_pages()
            .checked_add(u64::from(header.ns_count).div_ceil(COUNTS_PER_PAGE as u64))
            .and_then(|p| p.checked_add(header.page_count))
            .and_then(|p| p.checked_add(1))
            .and_then(|p| p.checked_mul(PAGE as u64));
        if pages != Some(len) {
            return Err("tail index length does not match its header".into());
        }
        Ok(Some(TailIndex {
            file,
            header,
            page: None,
            sealed,
            opened: None,
        }))
    }

    /// Page `p` (0: the first slot page), checked against its CRC.
    fn page(&mut self, p: u64) -> std::result::Result<&[u8], String> {
        if self.page.as_ref().is_none_or(|(at, _)| *at != p) {
            let mut buf = vec![0u8; PAGE];
            let at = p
                .checked_add(1)
                .and_then(|p| p.checked_mul(PAGE as u64))
                .ok_or("tail index page out of range")?;
            self.file
                .read_exact_at(&mut buf, at)
                .map_err(|e| format!("cannot read the tail index: {e}"))?;
            if read_u32(&buf, TRAILER) != Some(p as u32)
                || read_u32(&buf, TRAILER + 4) != Some(crc32(&buf[..TRAILER + 4]))
            {
                return Err(format!("tail index page {p} fails its CRC"));
            }
            if let Some((c, head)) = &self.sealed {
                if buf[PAGE_TAG..] != page_tag(c, head, p, &buf[..PAGE_TAG]) {
                    return Err(format!("tail index page {p} fails its tag"));
                }
            }
            self.page = Some((p, buf));
        }
        Ok(self.page.as_ref().map_or(&[][..], |(_, b)| &b[..]))
    }

    /// The slot a lookup of `hash` starts at: lookups in this order read
    /// each page once.
    pub(crate) fn home_slot(&self, hash: u64) -> u64 {
        home(hash, self.header.page_count * PER_PAGE as u64)
    }

    /// Offsets of the entries whose key hash is `hash`, in slot order.
    pub(crate) fn lookup(&mut self, hash: u64) -> std::result::Result<Vec<u64>, String> {
        let slots = self.header.page_count * PER_PAGE as u64;
        let mut s = home(hash, slots);
        let mut found = Vec::new();
        // At most half the slots are used: an empty one comes first.
        for _ in 0..slots {
            let page = self.page(s / PER_PAGE as u64)?;
            let at = (s % PER_PAGE as u64) as usize * SLOT;
            let (h, off) = (
                read_u64(page, at).unwrap_or(0),
                read_u64(page, at + 8).unwrap_or(0),
            );
            if off == 0 {
                return Ok(found);
            }
            if h == hash {
                found.push(off);
            }
            s = (s + 1) % slots;
        }
        Err("tail index has no empty slot".into())
    }

    /// Every entry's offset, in slot order (each slot page read once):
    /// what a sealed file lists its entries by (an older one has no sorted
    /// section, and this opens no blob).
    pub(crate) fn offsets(&mut self) -> std::result::Result<Vec<u64>, String> {
        let cap = usize::try_from(self.header.entries.min(1 << 24)).unwrap_or(0);
        let mut out = Vec::with_capacity(cap);
        for p in 0..self.header.page_count {
            let page = self.page(p)?;
            for s in 0..PER_PAGE {
                let off = read_u64(page, s * SLOT + 8).unwrap_or(0);
                if off != 0 {
                    out.push(off);
                }
            }
        }
        if out.len() as u64 != self.header.entries {
            return Err("tail index entries do not match its header".into());
        }
        Ok(out)
    }

    /// Entry `i` of the sorted section (`i < header.sorted_count`).
    pub(crate) fn sorted(&mut self, i: u64) -> std::result::Result<u64, String> {
        if i >= self.header.sorted_count {
            return Err("past the tail index's sorted section".into());
        }
        let per_page = self.header.sorted_per_page();
        let p = self.header.page_count + i / per_page;
        let at = (i % per_page) as usize;
        if self.sealed.is_none() {
            return read_u64(self.page(p)?, at * 8).ok_or_else(|| "short tail index page".into());
        }
        if self.opened.as_ref().is_none_or(|(q, _)| *q != p) {
            // Every page but the last is full.
            let n = (self.header.sorted_count - (p - self.header.page_count) * per_page)
                .min(per_page) as usize;
            let blob_len = n * 8 + crate::crypto::SEAL_OVERHEAD;
            let page = self.page(p)?.get(..blob_len).map(<[u8]>::to_vec);
            let plain = match (page, &self.sealed) {
                (Some(blob), Some((c, _))) => c.open_blob(&sorted_aad(p), &blob),
                _ => None,
            }
            .map(zeroize::Zeroizing::new)
            .ok_or_else(|| format!("tail index sorted page {p} does not open"))?;
            let offs = plain
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
                .collect();
            self.opened = Some((p, zeroize::Zeroizing::new(offs)));
        }
        self.opened
            .as_ref()
            .and_then(|(_, offs)| offs.get(at).copied())
            .ok_or_else(|| "short tail index page".into())
    }

    /// The count section, by namespace id: `Ok(None)` for a version 1
    /// file, which has none. Ids must rise strictly.
    pub(crate) fn counts(&mut self) -> std::result::Result<Option<Vec<NsCounts>>, String> {
        let n = self.header.ns_count as usize;
        if n == 0 {
            return Ok(None);
        }
        let first = self.header.page_count + self.header.sorted_pages();
        // Grown as read: the length was checked, but not that it is sane.
        let mut out: Vec<NsCounts> = Vec::with_capacity(n.min(1024));
        for i in 0..n {
            let page = self.page(first + (i / COUNTS_PER_PAGE) as u64)?;
            let at = (i % COUNTS_PER_PAGE) * COUNT;
            let u64_at = |o| read_u64(page, at + o).ok_or("short tail index page");
            let c = NsCounts {
                ns: read_u32(page, at).ok_or("short tail index page")?,
                live: u64_at(8)?,
                live_bytes: u64_at(16)?,
                expiring: u64_at(24)?,
            };
            if out.last().is_some_and(|p| p.ns >= c.ns)
                || c.expiring > c.live
                || read_u32(page, at + 4) != Some(0)
            {
                return Err("tail index count section is inconsistent".into());
            }
            out.push(c);
        }
        Ok(Some(out))
    }
}

/// The writer side: the newest frame of each (key, namespace) in the log
/// from a checkpoint on, kept across calls so each stretch of log is
/// scanned once.
#[derive(Default)]
pub(crate) struct Indexer {
    base: Option<Base>,
    scanned_to: u64,
    /// (key hash, namespace) -> offset of the newest put or delete.
    newest: HashMap<(u64, u32), u64>,
    /// The log past the base holds something a tail index cannot say (a
    /// namespace create, drop or clear, a sealed frame, two keys of one
    /// namespace with the same hash): none is written until the base moves.
    unusable: bool,
}

impl Indexer {
    /// Take in the log `bytes` (from offset 0) up to `end`, from the
    /// checkpoint `base` on; `Ok(false)` when no tail index can be written
    /// for it. `crypt` is the log's cipher, which opens its sealed frames
    /// (the key of each is hashed under its tail key, [`key_hash`]); `None`
    /// for a plain log.
    pub(crate) fn scan(
        &mut self,
        base: Base,
        bytes: &[u8],
        end: u64,
        crypt: Option<&Crypt>,
    ) -> Result<bool> {
        if self.base != Some(base) || self.scanned_to > end {
            *self = Indexer {
                base: Some(base),
                scanned_to: base.end,
                ..Indexer::default()
            };
        }
        let mut at = self.scanned_to;
        // Decrypted keys (the frame's, and an older frame's of its slot).
        let mut opened = zeroize::Zeroizing::new(Vec::new());
        let mut older = zeroize::Zeroizing::new(Vec::new());
        while at < end && !self.unusable {
            // Bytes this process wrote and published: every unit decodes.
            let unit = decode_unit(bytes, at).map_err(|r| Error::corruption(at, r))?;
            for (off, f) in &unit.frames {
                // Every frame of a plain log is plain, and every one of an
                // encrypted log sealed: anything else is not this log's.
                if f.sealed != crypt.is_some() || !matches!(f.kind, Kind::Put | Kind::Delete) {
                    self.unusable = true;
                    break;
                }
                let f = crate::namespace::open_frame(*f, *off, crypt, &mut opened)?;
                let slot = (key_hash(f.key, crypt), f.ns);
                if let Some(&prev) = self.newest.get(&slot) {
                    let o =
                        crate::namespace::read_at_checked(bytes, prev, crypt, &mut older, false)?;
                    if o.key != f.key {
                        self.unusable = true;
                        break;
                    }
                }
                self.newest.insert(slot, *off);
            }
            at = unit.end();
        }
        self.scanned_to = end;
        Ok(!self.unusable)
    }

    /// True when the log past `base` holds something no tail index can
    /// say (see `unusable`), as far as it was scanned.
    pub(crate) fn gave_up(&self, base: &Base) -> bool {
        self.unusable && self.base.as_ref() == Some(base)
    }

    /// The entries to write: (key hash, offset).
    pub(crate) fn entries(&self) -> Vec<(u64, u64)> {
        self.newest.iter().map(|(&(h, _), &off)| (h, off)).collect()
    }

    /// The entries' offsets in key order (ties by offset), for the sorted
    /// section; `bytes` is the log the last scan read, `crypt` its cipher
    /// (the keys of an encrypted one's are decrypted to sort them).
    pub(crate) fn sorted(&self, bytes: &[u8], crypt: Option<&Crypt>) -> Result<Vec<u64>> {
        let keys = crate::sorted::KeySource { bytes, crypt };
        crate::sorted::sort_offsets(keys, self.newest.values().copied().collect())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn header() -> Header {
        Header {
            base: Base {
                db_id: [9; 16],
                generation: 3,
                end: 4096,
            },
            end: 100_000,
            last_frame_at: 99_000,
            last_frame_crc: 0xdead_beef,
            entries: 0,
            page_count: 0,
            sorted_count: 0,
            ns_count: 0,
            sealed: false,
        }
    }

    fn written(entries: &[(u64, u64)]) -> (tempfile::TempDir, PathBuf) {
        written_with(entries, &[])
    }

    fn written_with(entries: &[(u64, u64)], counts: &[NsCounts]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("t.emdb");
        let sorted: Vec<u64> = entries.iter().map(|e| e.1).collect();
        let done = write(
            &db,
            header(),
            entries,
            &sorted,
            counts,
            None,
            None,
            |install| {
                install()?;
                Ok(true)
            },
        )
        .unwrap();
        assert!(done);
        assert!(!sibling(&db, ".tail.tmp").exists());
        (dir, db)
    }

    /// A sealed header round-trips, with a count section or without, with
    /// a sorted section of every entry or none (an older file); one with a
    /// sorted section of another length, an unknown flag, or a flag in a
    /// version 1 file does not decode.
    #[test]
    fn a_sealed_header_has_a_whole_sorted_section_or_none() {
        let sealed = Header {
            sealed: true,
            entries: 3,
            page_count: 1,
            ..header()
        };
        let page = sealed.encode();
        assert_eq!(read_u32(&page, 12), Some(SEALED));
        assert_eq!(Header::decode(&page), Ok(sealed));
        let plain = Header {
            sorted_count: 3,
            ..sealed
        };
        let bad = |h: Header, edit: &dyn Fn(&mut Vec<u8>)| {
            let mut p = h.encode();
            edit(&mut p);
            let crc = crc32(&p[..HEADER_LEN]);
            p[HEADER_LEN..HEADER_LEN + 4].copy_from_slice(&crc.to_le_bytes());
            Header::decode(&p)
        };
        assert_eq!(
            bad(plain, &|_| {}),
            Ok(plain),
            "sealed with a sorted section"
        );
        let short = Header {
            sorted_count: 2,
            ..sealed
        };
        assert!(bad(short, &|_| {}).is_err(), "sorted section of 2 of 3");
        let counted = Header {
            ns_count: 1,
            ..sealed
        };
        assert_eq!(bad(counted, &|_| {}), Ok(counted));
        assert!(bad(sealed, &|p| p[12] = 2).is_err(), "unknown flag");
        assert!(bad(sealed, &|p| p[8] = 1).is_err(), "sealed version 1");
        let unsealed = Header {
            sealed: false,
            ..plain
        };
        assert_eq!(bad(unsealed, &|_| {}), Ok(unsealed));
    }

    /// A sealed file's sorted section: each page one sealed blob, opened
    /// only with the file's cipher; the offsets are not in clear, and a
    /// sealed file without one (written before 2026-11-28) still opens.
    #[cfg(feature = "encrypt")]
    #[test]
    fn a_sealed_sorted_section_reads_back_only_with_its_key() {
        use crate::crypto::{Cipher, EncryptionInput, KdfParams};
        use std::sync::Arc;
        let crypt = |k: u8| {
            let input = EncryptionInput::Key([k; 32]);
            Arc::new(
                Crypt::create(&input, Cipher::Aes256Gcm, KdfParams::default(), [3; 16])
                    .unwrap()
                    .0,
            )
        };
        let (key, other) = (crypt(1), crypt(2));
        let sealed = Header {
            sealed: true,
            ..header()
        };
        // Three sorted pages, the last one short.
        let entries: Vec<(u64, u64)> = (0..1_203u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15), 8_192 + i * 40))
            .collect();
        let sorted: Vec<u64> = entries.iter().rev().map(|e| e.1).collect();
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.emdb");
        let put = |sorted: &[u64]| {
            let done = write(
                &db,
                sealed,
                &entries,
                sorted,
                &[],
                Some(&key),
                None,
                |install| {
                    install()?;
                    Ok(true)
                },
            );
            assert!(done.unwrap());
        };
        put(&sorted);
        let bytes = std::fs::read(path(&db)).unwrap();
        let mut ix = TailIndex::open(&db, sealed.base, Some(Arc::clone(&key)))
            .unwrap()
            .unwrap();
        assert_eq!(ix.header.sorted_count, 1_203);
        // Read out of order: pages are opened again as needed.
        for i in [0u64, 1_202, 600, 499, 500, 1_000, 3] {
            assert_eq!(ix.sorted(i).unwrap(), sorted[i as usize], "entry {i}");
        }
        assert!(ix.sorted(1_203).is_err());
        let first_sorted = PAGE * (1 + ix.header.page_count as usize);
        let section = &bytes[first_sorted..first_sorted + 3 * PAGE];
        for w in sorted.windows(2).step_by(97) {
            let mut pair = w[0].to_le_bytes().to_vec();
            pair.extend_from_slice(&w[1].to_le_bytes());
            assert!(
                !section.windows(16).any(|x| x == &pair[..]),
                "offsets in clear"
            );
        }
        // Another key fails the header's tag; no key is not a sealed reader.
        assert!(TailIndex::open(&db, sealed.base, Some(other)).is_err());
        assert!(TailIndex::open(&db, sealed.base, None).unwrap().is_none());
        // Without a sorted section, as written before: it opens, and has
        // no sorted entries to read.
        put(&[]);
        let mut ix = TailIndex::open(&db, sealed.base, Some(key))
            .unwrap()
            .unwrap();
        assert_eq!((ix.header.sorted_count, ix.header.entries), (0, 1_203));
        assert!(ix.sorted(0).is_err());
        assert_eq!(ix.offsets().unwrap().len(), 1_203);
    }

    #[test]
    fn every_entry_is_found_under_its_hash_and_no_other() {
        // Many hashes sharing home slots (small high bits), one hash twice
        // (two namespaces), probes that wrap past the last slot.
        let mut entries: Vec<(u64, u64)> = (0..600u64).map(|i| (i * 7, 4096 + i * 10)).collect();
        entries.push((u64::MAX, 1));
        entries.push((u64::MAX - 1, 2));
        entries.push((42 * 7, 77_777));
        let (_dir, db) = written(&entries);
        let mut ix = TailIndex::open(&db, header().base, None).unwrap().unwrap();
        assert_eq!(ix.header.entries, entries.len() as u64);
        assert_eq!(ix.header.end, 100_000);
        for &(h, off) in &entries {
            let got = ix.lookup(h).unwrap();
            assert!(got.contains(&off), "hash {h}: {got:?}");
            let want = entries.iter().filter(|e| e.0 == h).count();
            assert_eq!(got.len(), want, "hash {h}");
        }
        assert!(ix.lookup(5).unwrap().is_empty());
        // The sorted section holds what it was given, in its order.
        for (i, e) in entries.iter().enumerate() {
            assert_eq!(ix.sorted(i as u64).unwrap(), e.1);
        }
        assert!(ix.sorted(entries.len() as u64).is_err());
        // Another checkpoint: not this file's.
        let other = Base {
            end: 8192,
            ..header().base
        };
        assert!(TailIndex::open(&db, other, None).unwrap().is_none());
    }

    #[test]
    fn counts_read_back_as_written_and_a_damaged_count_page_is_an_error() {
        // 300 namespaces: three pages of counts, after two sorted pages.
        let entries: Vec<(u64, u64)> = (0..600u64).map(|i| (i << 40, 4096 + i)).collect();
        let counts: Vec<NsCounts> = (0..300u32)
            .map(|i| NsCounts {
                ns: i * 3,
                live: u64::from(i) * 1000 + 7,
                live_bytes: u64::from(i) << 33,
                expiring: u64::from(i),
            })
            .collect();
        let (_dir, db) = written_with(&entries, &counts);
        let mut ix = TailIndex::open(&db, header().base, None).unwrap().unwrap();
        assert_eq!(ix.header.ns_count, 300);
        assert_eq!(ix.counts().unwrap(), Some(counts.clone()));
        // The other sections are where they were.
        assert_eq!(ix.sorted(599).unwrap(), 4096 + 599);
        assert!(ix.lookup(5 << 40).unwrap().contains(&(4096 + 5)));
        // Damage in the last count page.
        let file = path(&db);
        let mut bytes = std::fs::read(&file).unwrap();
        let last = bytes.len() - PAGE + 40;
        bytes[last] ^= 1;
        std::fs::write(&file, &bytes).unwrap();
        let mut ix = TailIndex::open(&db, header().base, None).unwrap().unwrap();
        assert!(ix.counts().is_err());
        // Ids out of order, or more expiring keys than live ones: refused.
        for bad in [
            vec![counts[1], counts[0]],
            vec![NsCounts {
                expiring: counts[1].live + 1,
                ..counts[1]
            }],
        ] {
            let (_dir, db) = written_with(&entries, &bad);
            let mut ix = TailIndex::open(&db, header().base, None).unwrap().unwrap();
            assert!(ix.counts().is_err(), "{bad:?}");
        }
        // None written: none read, as from a version 1 file.
        let (_dir, db) = written(&entries);
        let mut ix = TailIndex::open(&db, header().base, None).unwrap().unwrap();
        assert_eq!(ix.counts().unwrap(), None);
    }

    #[test]
    fn a_damaged_page_or_header_is_an_error_not_a_missing_key() {
        let entries: Vec<(u64, u64)> = (0..300u64).map(|i| (i << 50, 4096 + i)).collect();
        let (_dir, db) = written(&entries);
        let file = path(&db);
        let mut bytes = std::fs::read(&file).unwrap();
        bytes[PAGE + 100] ^= 1;
        std::fs::write(&file, &bytes).unwrap();
        let mut ix = TailIndex::open(&db, header().base, None).unwrap().unwrap();
        let hit_page_0 = entries.iter().find(|e| home(e.0, 3 * 255) < 255).unwrap();
        assert!(ix.lookup(hit_page_0.0).is_err());
        // The sorted section's last page (300 offsets: one page).
        let last = bytes.len() - PAGE + 8;
        bytes[last] ^= 1;
        std::fs::write(&file, &bytes).unwrap();
        let mut ix = TailIndex::open(&db, header().base, None).unwrap().unwrap();
        assert!(ix.sorted(0).is_err());
        bytes[20] ^= 1;
        std::fs::write(&file, &bytes).unwrap();
        assert!(TailIndex::open(&db, header().base, None).is_err());
    }

    #[test]
    fn the_indexer_keeps_each_keys_newest_frame_and_gives_up_on_a_clear() {
        use crate::format::header::HEADER_SIZE;
        use crate::format::record::FrameSpec;
        let mut log = vec![0u8; HEADER_SIZE];
        let mut at = Vec::new();
        let mut push = |log: &mut Vec<u8>, spec: FrameSpec<'_>| {
            at.push(log.len() as u64);
            log.extend_from_slice(&spec.encode());
        };
        push(&mut log, FrameSpec::put(0, b"a", b"1", 0));
        push(&mut log, FrameSpec::put(3, b"a", b"2", 0));
        push(&mut log, FrameSpec::put(0, b"b", b"3", 0));
        push(&mut log, FrameSpec::delete(0, b"a"));
        let first = log.len() as u64;
        push(&mut log, FrameSpec::put(3, b"a", b"4", 0));
        let base = Base {
            db_id: [1; 16],
            generation: 0,
            end: HEADER_SIZE as u64,
        };
        let mut ix = Indexer::default();
        // In two calls: the second scans only what the first did not.
        assert!(ix.scan(base, &log, first, None).unwrap());
        assert!(ix.scan(base, &log, log.len() as u64, None).unwrap());
        let mut got = ix.entries();
        got.sort_by_key(|e| e.1);
        let mut want = vec![
            (key_hash(b"b", None), at[2]),
            (key_hash(b"a", None), at[3]),
            (key_hash(b"a", None), at[4]),
        ];
        want.sort_by_key(|e| e.1);
        assert_eq!(got, want);
        // A clear: nothing more is said until the base moves.
        let clear = FrameSpec {
            kind: Kind::Clear,
            ns: 3,
            expires_at: 0,
            key: b"",
            value: b"",
        };
        log.extend_from_slice(&clear.encode());
        log.extend_from_slice(&FrameSpec::put(0, b"c", b"5", 0).encode());
        assert!(!ix.scan(base, &log, log.len() as u64, None).unwrap());
        let moved = Base { end: first, ..base };
        assert!(ix.scan(moved, &log, first, None).unwrap());
        assert!(ix.entries().is_empty());
    }

    /// A writer with a small checkpoint minimum over a database whose
    /// image makes its full checkpoints far apart: tail indexes are written
    /// between them, and one-key reads through them (and through the log
    /// written after them) answer as a pinned read-only handle does.
    mod against_a_pinned_handle {
        use super::super::*;
        use crate::{Emdb, KeyCounts, OneKey, Ttl};
        use std::ops::Bound;
        use std::time::{Duration, Instant};

        const SPACES: [Option<&str>; 3] = [None, Some("a"), Some("b")];
        const HOT: u64 = 300;

        struct Lcg(u64);
        impl Lcg {
            fn below(&mut self, n: u64) -> u64 {
                self.0 = self
                    .0
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (self.0 >> 33) % n
            }
        }

        fn key(i: u64) -> Vec<u8> {
            format!("key:{i:05}").into_bytes()
        }

        /// The namespace `space` of `db` as a handle (`None`: the default
        /// one, whose handle's operations are `db`'s own).
        fn space_of(db: &Emdb, space: Option<&str>) -> crate::Namespace {
            space.map_or_else(|| db.default_namespace(), |n| db.namespace(n).unwrap())
        }

        /// Puts (with `ttl`, some expiring at once, some in an hour),
        /// removes, batches and transactions on the hot keys.
        fn writes(db: &Emdb, rng: &mut Lcg, ops: usize) {
            writes_with(db, rng, ops, true);
        }

        fn writes_with(db: &Emdb, rng: &mut Lcg, ops: usize, ttl: bool) {
            for step in 0..ops {
                let space = SPACES[rng.below(3) as usize];
                let ns = space_of(db, space);
                let k = key(rng.below(HOT));
                let value = format!("v{step}-{}-{}", rng.below(1000), "x".repeat(40));
                match rng.below(10) {
                    0..=4 => ns.insert(&k, &value).unwrap(),
                    5 if !ttl => ns.insert(&k, &value).unwrap(),
                    5 => {
                        let ttl = if rng.below(2) == 0 {
                            Ttl::After(Duration::from_millis(1))
                        } else {
                            Ttl::After(Duration::from_secs(3600))
                        };
                        ns.insert_with_ttl(&k, &value, ttl).unwrap()
                    }
                    6 | 7 => {
                        ns.remove(&k).map(drop).unwrap();
                    }
                    8 => {
                        let mut batch = db.write_batch();
                        for _ in 0..1 + rng.below(5) {
                            let k = key(rng.below(HOT));
                            if rng.below(4) == 0 {
                                batch.remove(&k).unwrap();
                            } else {
                                batch.put(&k, &value).unwrap();
                            }
                        }
                        batch.commit().unwrap();
                    }
                    _ => {
                        let a = db.namespace("a").unwrap();
                        db.transaction(|tx| {
                            tx.namespace(&a).insert(key(rng.below(HOT)), &value)?;
                            tx.remove(key(rng.below(HOT)))?;
                            Ok(())
                        })
                        .unwrap();
                    }
                }
            }
        }

        /// The end of the tail index on disk, if there is one.
        fn indexed_end(db: &Path) -> Option<u64> {
            let bytes = std::fs::read(path(db)).ok()?;
            Header::decode(&bytes).ok().map(|h| h.end)
        }

        /// The end of a tail index newer than one ending at `last` once the
        /// writer's checkpointer has written it, waiting up to `within`;
        /// `last` if none came.
        fn newer_index(db: &Path, last: u64, within: Duration) -> u64 {
            let t = Instant::now();
            while indexed_end(db).is_none_or(|e| e <= last) && t.elapsed() < within {
                std::thread::sleep(Duration::from_millis(5));
            }
            indexed_end(db).unwrap_or(last)
        }

        /// A pinned read-only handle that replayed the whole log since the
        /// checkpoint: the reference, which never reads a tail index.
        fn replayed(db: &Path) -> Emdb {
            replayed_with(db, None)
        }

        /// [`replayed`] for a database encrypted with `secret`, if any.
        fn replayed_with(db: &Path, secret: Option<[u8; 32]>) -> Emdb {
            let h = builder_for(db, secret).replaying().build().unwrap();
            assert!(!h.recovery_report().used_tail_index);
            h
        }

        /// A builder for `db`, with the raw key `secret` if any.
        fn builder_for(db: &Path, secret: Option<[u8; 32]>) -> crate::EmdbBuilder {
            let b = Emdb::builder().path(db);
            match secret {
                Some(k) => b.encryption_key(k),
                None => b,
            }
        }

        /// `read_counts` (and `read_stats`) against a pinned handle's
        /// counts (and stats); whether each went through the tail index.
        fn counts_agree(db: &Path) -> bool {
            counts_and_stats_agree(db).counts.used_tail_index
        }

        /// How a one-shot count and stats were read, and how the full
        /// replay they were checked against was.
        struct Agreed {
            counts: crate::RecoveryReport,
            stats: crate::RecoveryReport,
            replay: crate::RecoveryReport,
        }

        /// Check a one-shot count and stats against a full replay.
        fn counts_and_stats_agree(db: &Path) -> Agreed {
            let pinned = replayed(db);
            let (got, report) = Emdb::builder().path(db).read_counts_reporting().unwrap();
            let mut namespaces = Vec::new();
            for name in pinned.list_namespaces().unwrap() {
                let n = pinned.namespace(&name).unwrap().len().unwrap() as u64;
                namespaces.push((name, n));
            }
            let want = KeyCounts {
                default: pinned.len().unwrap() as u64,
                namespaces,
            };
            assert_eq!(got, want);
            // Stats read the same way, with expiring keys too.
            let (st, stats_report) = Emdb::builder().path(db).read_stats().unwrap();
            let full = pinned.stats().unwrap();
            assert_eq!(
                (st.live_records, st.live_bytes, st.expiring_records),
                (full.live_records, full.live_bytes, full.expiring_records)
            );
            assert_eq!(
                (st.log_logical_bytes, st.dead_bytes, &st.namespaces),
                (full.log_logical_bytes, full.dead_bytes, &full.namespaces)
            );
            Agreed {
                counts: report,
                stats: stats_report,
                replay: pinned.recovery_report().clone(),
            }
        }

        /// Every hot key (and a few never written) of every namespace:
        /// `read_one_key` against a pinned handle. Returns how many reads
        /// went through the tail index.
        fn agree(db: &Path) -> usize {
            // With keys that can expire a count indexes everything: it
            // still agrees.
            counts_agree(db);
            let pinned = replayed(db);
            let (mut through_index, _) = one_keys_agree(&|| Emdb::builder().path(db), &pinned);
            for space in SPACES {
                // Ranges: from a hot key to a little past it, and past
                // every key written.
                for i in (0..HOT + 3).step_by(61) {
                    let (from, to) = (key(i), key(i + 40));
                    let mut ranges = vec![
                        (Bound::Included(&from[..]), Bound::Excluded(&to[..])),
                        (Bound::Excluded(&from[..]), Bound::Included(&to[..])),
                    ];
                    if i == 0 {
                        ranges.push((Bound::Unbounded, Bound::Excluded(&to[..])));
                        ranges.push((Bound::Included(&to[..]), Bound::Unbounded));
                    }
                    for (start, end) in ranges {
                        let (it, report) = Emdb::builder()
                            .path(db)
                            .range_once_reporting(space, start, end)
                            .unwrap();
                        let got: Vec<_> = it.unwrap().collect::<crate::Result<_>>().unwrap();
                        let owned = (start.map(<[u8]>::to_vec), end.map(<[u8]>::to_vec));
                        let want: Vec<_> = match space {
                            Some(n) => pinned.namespace(n).unwrap().range(owned).unwrap(),
                            None => pinned.range(owned).unwrap(),
                        };
                        assert_eq!(got, want, "namespace {space:?}, {start:?}..{end:?}");
                        through_index += usize::from(report.used_tail_index);
                    }
                }
            }
            through_index
        }

        /// A writer with a small automatic-checkpoint minimum over keys
        /// `0..3000` in every namespace, checkpointed: its tail indexes come
        /// every few KiB of log written after.
        fn loaded(dir: &Path, name: &str) -> (PathBuf, Emdb) {
            loaded_with(dir, name, None)
        }

        /// [`loaded`], encrypted with `secret` if any.
        fn loaded_with(dir: &Path, name: &str, secret: Option<[u8; 32]>) -> (PathBuf, Emdb) {
            let db_path = dir.join(format!("{name}.emdb"));
            let db = builder_for(&db_path, secret)
                .checkpoint_tail(Some(8 << 10))
                .build()
                .unwrap();
            load(&db);
            (db_path, db)
        }

        /// Keys `0..3000` in every namespace of `db`, checkpointed.
        fn load(db: &Emdb) {
            for space in SPACES {
                let pairs: Vec<(Vec<u8>, Vec<u8>)> = (0..3000)
                    .map(|i| (key(i), format!("base{i}").into_bytes()))
                    .collect();
                match space {
                    None => db.insert_many(pairs).unwrap(),
                    Some(n) => db.namespace(n).unwrap().insert_many(pairs).unwrap(),
                }
            }
            db.checkpoint().unwrap();
        }

        /// Every hot key (and a few never written) of every namespace, read
        /// with `read_one_key` through `builder`, against `pinned`: how many
        /// reads went through the tail index, and how many there were.
        fn one_keys_agree(
            builder: &dyn Fn() -> crate::EmdbBuilder,
            pinned: &Emdb,
        ) -> (usize, usize) {
            let (mut through, mut reads) = (0, 0);
            for space in SPACES {
                for i in (0..HOT + 3).chain([1000, 2500]) {
                    let k = key(i);
                    let (one, report) = builder().read_one_key_reporting(space, &k).unwrap();
                    let expected = match space {
                        Some(n) => pinned.namespace(n).unwrap().get(&k).unwrap(),
                        None => pinned.get(&k).unwrap(),
                    }
                    .map_or(OneKey::Missing, OneKey::Found);
                    assert_eq!(one, expected, "namespace {space:?}, key {i}");
                    through += usize::from(report.used_tail_index);
                    reads += 1;
                }
            }
            (through, reads)
        }

        /// `range_once_first` of `db` against `pinned`'s first `n` pairs of
        /// the same range (no namespace of that name: `None` from both);
        /// the read's report. `what` names the case in a failure.
        fn first_pairs_match(
            db: &Path,
            secret: Option<[u8; 32]>,
            pinned: &Emdb,
            space: Option<&str>,
            (start, end): (Bound<&[u8]>, Bound<&[u8]>),
            n: usize,
            what: &str,
        ) -> crate::RecoveryReport {
            let (it, report) = builder_for(db, secret)
                .range_once_first_reporting(space, start, end, n)
                .unwrap();
            let exists =
                space.is_none_or(|s| pinned.list_namespaces().unwrap().iter().any(|x| x == s));
            if !exists {
                assert!(it.is_none(), "{what}: {space:?}");
                return report;
            }
            let got: Vec<_> = it.unwrap().take(n).collect::<crate::Result<_>>().unwrap();
            let owned = (start.map(<[u8]>::to_vec), end.map(<[u8]>::to_vec));
            let want: Vec<_> = match space {
                Some(s) => pinned.namespace(s).unwrap().range(owned).unwrap(),
                None => pinned.range(owned).unwrap(),
            };
            let want: Vec<_> = want.into_iter().take(n).collect();
            assert_eq!(
                got, want,
                "{what}: {space:?}, {start:?}..{end:?}, n = {n}, narrowed to {:?}",
                report.narrowed_to
            );
            report
        }

        /// `range_once_first` against a pinned handle's first pairs, from
        /// every 23rd hot key (and the start) to the end of the keys or a
        /// little past the start; how many reads were narrowed.
        fn firsts_agree(db: &Path, secret: Option<[u8; 32]>) -> usize {
            let pinned = replayed_with(db, secret);
            let mut narrowed = 0;
            for space in SPACES {
                for i in (0..HOT + 3).step_by(23).chain([1000, 1090]) {
                    let (from, to) = (key(i), key(i + 300));
                    for (start, end) in [
                        (Bound::Included(&from[..]), Bound::Unbounded),
                        (Bound::Excluded(&from[..]), Bound::Excluded(&to[..])),
                        (Bound::Unbounded, Bound::Unbounded),
                    ] {
                        for n in [1, 10, 57] {
                            let report =
                                first_pairs_match(db, secret, &pinned, space, (start, end), n, "");
                            narrowed += usize::from(report.narrowed_to.is_some());
                        }
                    }
                }
            }
            narrowed
        }

        /// First pairs of a range through tail indexes and the log past
        /// them: narrowed to the checkpoint's order, and read whole when
        /// the log since removed the keys the narrowed range held.
        #[test]
        fn first_pairs_agree_and_fall_back_when_the_tail_removed_them() {
            first_pairs(None);
        }

        /// The same on an encrypted database, narrowed through its
        /// checkpoint's sealed sorted block.
        #[test]
        fn first_pairs_of_an_encrypted_database_agree_and_fall_back() {
            first_pairs(Some([0x68; 32]));
        }

        fn first_pairs(secret: Option<[u8; 32]>) {
            let dir = tempfile::tempdir().unwrap();
            let (db_path, db) = loaded_with(dir.path(), "first", secret);
            let mut rng = Lcg(5);
            let mut narrowed = 0;
            for round in 0..3 {
                writes(&db, &mut rng, 300);
                db.flush().unwrap();
                std::thread::sleep(Duration::from_millis(30));
                writes(&db, &mut rng, 30);
                narrowed += firsts_agree(&db_path, secret);
                if round == 1 {
                    // The 100 keys after key 1000 go, in the default
                    // namespace: a narrowed read from there finds fewer
                    // pairs than it wants and reads the whole range.
                    for i in 1000..1100 {
                        db.remove(key(i)).unwrap();
                    }
                    let (it, report) = builder_for(&db_path, secret)
                        .range_once_first_reporting(
                            None,
                            Bound::Included(&key(1000)),
                            Bound::Unbounded,
                            10,
                        )
                        .unwrap();
                    assert!(report.narrowing_fell_back && report.narrowed_to.is_none());
                    let first: Vec<_> = it.unwrap().take(10).map(|p| p.unwrap().0).collect();
                    assert_eq!(first[0], key(1100));
                    assert_eq!(first.len(), 10);
                }
            }
            assert!(narrowed > 100, "{narrowed} reads narrowed");
            // A namespace that does not exist.
            let none = builder_for(&db_path, secret)
                .range_once_first(Some("zz"), Bound::Unbounded, Bound::Unbounded, 3)
                .unwrap();
            assert!(none.is_none());
        }

        /// A tail that writes many keys before the checkpoint's first one
        /// (as a writer appending `a:N` keys beside `key:` keys does, and
        /// removing some of them again): a first-pairs read indexes only
        /// the smallest of them, reads up to the cut that leaves, and
        /// returns what a full open does. Plain and encrypted.
        #[test]
        fn first_pairs_index_only_the_smallest_keys_a_tail_writes_at_the_start() {
            for secret in [None, Some([0x31; 32])] {
                let dir = tempfile::tempdir().unwrap();
                let (db_path, db) = loaded_with(dir.path(), "front", secret);
                drop(db);
                // No checkpoint and no tail index: everything below stays
                // in the tail (the handle stays open while reading).
                let db = builder_for(&db_path, secret)
                    .background(false)
                    .checkpoint_on_close(false)
                    .build()
                    .unwrap();
                let front = |i: u64| format!("a:{i:05}").into_bytes();
                for i in 0..3000 {
                    db.insert(front(i), format!("v{i}")).unwrap();
                    if i % 3 == 2 {
                        db.remove(front(i - 2)).unwrap();
                    }
                }
                db.insert(key(5), "changed").unwrap();
                db.flush().unwrap();
                let pinned = replayed_with(&db_path, secret);
                let mut cut_reads = 0;
                for space in SPACES {
                    for (start, end) in [
                        (Bound::Unbounded, Bound::Unbounded),
                        (Bound::Included(&b"a:01000"[..]), Bound::Unbounded),
                        (
                            Bound::Excluded(&b"a:00500"[..]),
                            Bound::Excluded(&b"key:00020"[..]),
                        ),
                    ] {
                        for n in [1, 10, 57] {
                            let report = first_pairs_match(
                                &db_path,
                                secret,
                                &pinned,
                                space,
                                (start, end),
                                n,
                                "a tail written at the start",
                            );
                            assert!(!report.narrowing_fell_back, "{space:?} {start:?} {n}");
                            if space.is_none() {
                                // At most twice the slack held, and the
                                // removals of those: not 4,000 records.
                                let slack = (n + n / 2 + 16) as u64;
                                assert!(
                                    report.records_replayed <= 3 * slack,
                                    "{} records indexed for {n} pairs",
                                    report.records_replayed
                                );
                                if matches!(report.narrowed_to, Some(Bound::Excluded(_))) {
                                    cut_reads += 1;
                                }
                            }
                        }
                    }
                }
                assert_eq!(cut_reads, 9, "every default-namespace read was cut");
                drop(db);
            }
        }

        /// `range_once_first` against a full replaying open on random
        /// workloads (puts, deletes, expiring keys, batches, four
        /// namespaces; every kind of bound at both ends; n from 1 to 100),
        /// in five modes: tail indexes with log past them (two), a
        /// namespace created since the checkpoint, no checkpoint, and
        /// namespace clears, drops and re-creations; plain and encrypted
        /// (from a review's differential test).
        #[test]
        fn first_pairs_agree_with_a_full_open_on_random_workloads() {
            // Five seeds: each mode once, one of them encrypted.
            let seeds: u64 = 5;
            let wk = |i: u64| format!("k{i:05}").into_bytes();
            let (mut cut_reads, mut fell, mut via_ix, mut total) = (0, 0, 0, 0);
            for seed in 0..seeds {
                let mode = seed % 5; // 0,1: tail index; 2: ns created in tail; 3: no checkpoint; 4: clear/drop in tail
                let secret = if seed % 3 == 2 {
                    Some([0x55; 32])
                } else {
                    None
                };
                let dir = tempfile::tempdir().unwrap();
                let db_path = dir.path().join("d.emdb");
                let mut b = builder_for(&db_path, secret).checkpoint_on_close(false);
                b = if mode == 3 {
                    b.checkpoint_tail(None).background(false)
                } else {
                    b.checkpoint_tail(Some(16 << 10))
                };
                let db = b.build().unwrap();
                let mut rng = Lcg(seed * 7919 + 1);
                let spaces: [Option<&str>; 4] = [None, Some("a"), Some("b"), Some("c")];
                // Base: keys 2000..5000 in None, a, b (c only in mode 3/4).
                for space in spaces {
                    if space == Some("c") && mode < 3 {
                        continue;
                    }
                    let pairs: Vec<(Vec<u8>, Vec<u8>)> = (2000..5000)
                        .filter(|i| i % 3 != 0 || space.is_none())
                        .map(|i| (wk(i), format!("base{i}").into_bytes()))
                        .collect();
                    match space {
                        None => db.insert_many(pairs).unwrap(),
                        Some(n) => db.namespace(n).unwrap().insert_many(pairs).unwrap(),
                    }
                }
                if mode != 3 {
                    db.checkpoint().unwrap();
                }
                for round in 0..3 {
                    for step in 0..1500u64 {
                        let mut space = spaces[rng.below(4) as usize];
                        if mode < 2 && space == Some("c") {
                            space = None;
                        }
                        let ns = space_of(&db, space);
                        let k = if rng.below(10) < 7 {
                            wk(rng.below(2500))
                        } else {
                            wk(rng.below(5200))
                        };
                        let value = format!("v{seed}-{round}-{step}");
                        match rng.below(20) {
                            0..=10 => ns.insert(&k, &value).unwrap(),
                            11 | 12 => {
                                let ttl = if rng.below(2) == 0 {
                                    Ttl::After(Duration::from_millis(1))
                                } else {
                                    Ttl::After(Duration::from_secs(3600))
                                };
                                ns.insert_with_ttl(&k, &value, ttl).unwrap()
                            }
                            13..=17 => {
                                ns.remove(&k).map(drop).unwrap();
                            }
                            18 => {
                                let mut batch = db.write_batch();
                                for _ in 0..1 + rng.below(6) {
                                    let k = wk(rng.below(2600));
                                    if rng.below(3) == 0 {
                                        batch.remove(&k).unwrap();
                                    } else {
                                        batch.put(&k, &value).unwrap();
                                    }
                                }
                                batch.commit().unwrap();
                            }
                            _ => {
                                if mode == 4 && rng.below(40) == 0 {
                                    if rng.below(2) == 0 {
                                        db.namespace("a").unwrap().clear().unwrap();
                                    } else {
                                        db.drop_namespace("b").unwrap();
                                        let _ = db.namespace("b").unwrap();
                                    }
                                } else {
                                    ns.insert(&k, &value).unwrap()
                                }
                            }
                        }
                        if step % 300 == 299 {
                            db.flush().unwrap();
                            std::thread::sleep(Duration::from_millis(20));
                        }
                    }
                    db.flush().unwrap();
                    if mode < 2 && secret.is_none() {
                        let last = indexed_end(&db_path).unwrap_or(0);
                        newer_index(&db_path, last, Duration::from_secs(3));
                        // A little more log past the index.
                        for i in 0..20 {
                            db.insert(wk(rng.below(2500)), format!("past{i}")).unwrap();
                        }
                        if round == 1 {
                            for i in 0..30 {
                                db.remove(wk(2000 + 3 * i + 1)).map(drop).unwrap();
                            }
                        }
                        db.flush().unwrap();
                    }
                    std::thread::sleep(Duration::from_millis(50));
                    let pinned = replayed_with(&db_path, secret);
                    for _ in 0..60 {
                        let space = spaces[rng.below(4) as usize];
                        let a = rng.below(5300);
                        let bnd = a + rng.below(5300 - a + 1);
                        let (ka, kb) = (wk(a), wk(bnd));
                        let start = match rng.below(3) {
                            0 => Bound::Unbounded,
                            1 => Bound::Included(&ka[..]),
                            _ => Bound::Excluded(&ka[..]),
                        };
                        let end = match rng.below(3) {
                            0 => Bound::Unbounded,
                            1 => Bound::Included(&kb[..]),
                            _ => Bound::Excluded(&kb[..]),
                        };
                        if let (Bound::Excluded(x), Bound::Excluded(y)) = (start, end) {
                            if x == y {
                                continue;
                            }
                        }
                        let n = [1usize, 2, 5, 17, 40, 100][rng.below(6) as usize];
                        let what = format!("seed {seed}, mode {mode}, round {round}");
                        let report = first_pairs_match(
                            &db_path,
                            secret,
                            &pinned,
                            space,
                            (start, end),
                            n,
                            &what,
                        );
                        total += 1;
                        cut_reads +=
                            usize::from(matches!(report.narrowed_to, Some(Bound::Excluded(_))));
                        fell += usize::from(report.narrowing_fell_back);
                        via_ix += usize::from(report.used_tail_index);
                    }
                }
                drop(db);
            }
            // Every way through was taken: cuts, fallbacks, tail indexes.
            assert!(
                cut_reads > 0 && fell > 0 && via_ix > 0,
                "{total} reads: {cut_reads} cut, {fell} fell back, {via_ix} through a tail index"
            );
        }

        /// A namespace dropped and created again since the checkpoint has
        /// a new id: a first-pairs read of it, which holds the keys of the
        /// id the checkpoint gave it, notices and reads the whole range
        /// (found in review: it returned nothing).
        #[test]
        fn first_pairs_of_a_namespace_created_again_since_the_checkpoint() {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("again.emdb");
            let db = Emdb::builder().path(&p).build().unwrap();
            db.namespace("b").unwrap().insert("old", "1").unwrap();
            db.checkpoint().unwrap();
            db.drop_namespace("b").unwrap();
            db.namespace("b").unwrap().insert("new", "2").unwrap();
            db.flush().unwrap();
            let (first, report) = Emdb::builder()
                .path(&p)
                .range_once_first_reporting(Some("b"), Bound::Unbounded, Bound::Unbounded, 10)
                .unwrap();
            let first: Vec<_> = first.unwrap().collect::<crate::Result<_>>().unwrap();
            assert_eq!(first, vec![(b"new".to_vec(), b"2".to_vec())]);
            assert!(report.narrowing_fell_back);
            // The default namespace, never dropped, is read narrowed.
            let (_, report) = Emdb::builder()
                .path(&p)
                .range_once_first_reporting(None, Bound::Unbounded, Bound::Unbounded, 10)
                .unwrap();
            assert!(!report.namespace_replaced && !report.narrowing_fell_back);
        }

        #[test]
        fn one_key_reads_through_tail_indexes_agree() {
            let dir = tempfile::tempdir().unwrap();
            let (db_path, db) = loaded(dir.path(), "tail");
            let mut rng = Lcg(7);
            let (mut indexed, mut reads, mut last) = (0, 0, 0);
            // Stats read through a tail index, keys that can expire and all.
            let mut stats_indexed = 0;
            for round in 0..12 {
                writes(&db, &mut rng, 250);
                db.flush().unwrap();
                if round == 10 {
                    // A checkpoint removes the tail index it had.
                    db.checkpoint().unwrap();
                    assert!(!path(&db_path).exists());
                    last = 0;
                } else {
                    // The writer's checkpointer writes a tail index once
                    // 8 KiB more of log is past the last one.
                    last = newer_index(&db_path, last, Duration::from_secs(10));
                }
                // And some log past it, not flushed.
                writes(&db, &mut rng, 20);
                if round == 9 {
                    // A clear: no tail index covers it (the older one
                    // stays usable; the reads scan the clear after it).
                    db.namespace("b").unwrap().clear().unwrap();
                }
                std::thread::sleep(Duration::from_millis(5));
                indexed += agree(&db_path);
                stats_indexed +=
                    usize::from(counts_and_stats_agree(&db_path).stats.used_tail_index);
                reads += 3 * (HOT as usize + 5 + 2 * 5 + 2);
            }
            assert!(
                indexed * 2 > reads,
                "{indexed} of {reads} reads used a tail index"
            );
            assert!(
                stats_indexed >= 6,
                "{stats_indexed} of 12 stats used a tail index"
            );
            // A damaged tail index is not used, and the reads still agree.
            let file = path(&db_path);
            let mut bytes = std::fs::read(&file).unwrap();
            let pages = bytes.len() / PAGE - 1;
            for p in 0..pages {
                bytes[PAGE * (1 + p) + 3] ^= 0x40;
            }
            std::fs::write(&file, &bytes).unwrap();
            assert_eq!(agree(&db_path), 0);
            assert!(!counts_agree(&db_path));
            // Compaction writes a checkpoint, which replaces it.
            db.compact().unwrap();
            assert!(!file.exists());
            assert_eq!(agree(&db_path), 0);
            drop(db);
            assert_eq!(agree(&db_path), 0);
        }

        /// Random ranges (every kind of bound, keys cut short, every
        /// namespace) and first-n reads of an encrypted database through
        /// its sealed tail indexes agree with a full replay (a review's
        /// test of the sealed sorted section).
        #[test]
        fn random_ranges_through_sealed_tail_indexes_agree() {
            let secret = Some([0x33; 32]);
            let builder = |db: &Path| builder_for(db, secret);
            let dir = tempfile::tempdir().unwrap();
            let (db_path, db) = loaded_with(dir.path(), "r", secret);
            let mut rng = Lcg(77);
            let (mut last, mut used, mut total) = (0, 0, 0);
            for _round in 0..6 {
                writes(&db, &mut rng, 250);
                db.flush().unwrap();
                last = newer_index(&db_path, last, Duration::from_secs(10));
                writes(&db, &mut rng, 20);
                std::thread::sleep(Duration::from_millis(5));
                let pinned = builder(&db_path).replaying().build().unwrap();
                let bound = |rng: &mut Lcg| -> Bound<Vec<u8>> {
                    let k = if rng.below(5) == 0 {
                        let mut k = key(rng.below(HOT + 5));
                        k.truncate(rng.below(k.len() as u64 + 1) as usize);
                        k
                    } else {
                        key(rng.below(HOT + 5))
                    };
                    match rng.below(5) {
                        0 => Bound::Unbounded,
                        1 | 2 => Bound::Included(k),
                        _ => Bound::Excluded(k),
                    }
                };
                for _ in 0..40 {
                    let space = SPACES[rng.below(3) as usize];
                    let (from, to) = (bound(&mut rng), bound(&mut rng));
                    let (f, t) = (from.as_ref().map(|k| &k[..]), to.as_ref().map(|k| &k[..]));
                    let want: Vec<(Vec<u8>, Vec<u8>)> = {
                        let it = match space {
                            Some(n) => pinned
                                .namespace(n)
                                .unwrap()
                                .range_iter((from.clone(), to.clone())),
                            None => pinned.range_iter((from.clone(), to.clone())),
                        };
                        match it {
                            Ok(it) => it.collect::<crate::Result<_>>().unwrap(),
                            Err(_) => continue,
                        }
                    };
                    let (it, report) = builder(&db_path).range_once_reporting(space, f, t).unwrap();
                    let got: Vec<_> = it.unwrap().collect::<crate::Result<_>>().unwrap();
                    assert_eq!(got, want, "{space:?} {from:?} {to:?}");
                    used += usize::from(report.used_tail_index);
                    total += 1;
                    let n = 1 + rng.below(30) as usize;
                    let (it, _) = builder(&db_path)
                        .range_once_first_reporting(space, f, t, n)
                        .unwrap();
                    let got: Vec<_> = it.unwrap().take(n).collect::<crate::Result<_>>().unwrap();
                    assert_eq!(
                        &got[..],
                        &want[..want.len().min(n)],
                        "first {n} {space:?} {from:?} {to:?}"
                    );
                }
            }
            assert!(
                used * 2 > total,
                "{used} of {total} ranges used a tail index"
            );
        }

        /// An encrypted database's writer writes sealed tail indexes
        /// (secret-seeded hashes, a sorted section sealed page by page),
        /// and one-key and range reads through them and the log past them
        /// answer as a full replay does, as do counts; a sealed file is not
        /// read as a plain one.
        #[test]
        fn sealed_tail_indexes_serve_one_key_reads_of_an_encrypted_database() {
            let secret = [0x5a; 32];
            let builder = |db: &Path| Emdb::builder().path(db).encryption_key(secret);
            let dir = tempfile::tempdir().unwrap();
            let db_path = dir.path().join("sealed.emdb");
            let db = builder(&db_path)
                .checkpoint_tail(Some(8 << 10))
                .checkpoint_on_close(false)
                .build()
                .unwrap();
            load(&db);
            let mut rng = Lcg(13);
            let (mut through, mut reads, mut last, mut files) = (0, 0, 0, 0);
            let (mut counted, mut ranged, mut ranges) = (0, 0, 0);
            for round in 0..6 {
                writes(&db, &mut rng, 250);
                db.flush().unwrap();
                last = newer_index(&db_path, last, Duration::from_secs(10));
                // The file on disk is sealed (none is there when an
                // automatic checkpoint has just replaced it).
                if let Ok(bytes) = std::fs::read(path(&db_path)) {
                    let h = Header::decode(&bytes).unwrap();
                    assert!(h.sealed && h.entries > 0);
                    assert_eq!((h.sorted_count, h.ns_count), (h.entries, 3));
                    // Its slots hold keyed hashes: no hot key's plain
                    // xxh3 (the hash of a plain database's file) is there.
                    let plain: std::collections::HashSet<u64> = (0..HOT)
                        .map(|i| xxhash_rust::xxh3::xxh3_64(&key(i)))
                        .collect();
                    let slots = bytes[PAGE..PAGE * (1 + h.page_count as usize)]
                        .chunks_exact(PAGE)
                        .flat_map(|p| p[..PER_PAGE * SLOT].chunks_exact(SLOT))
                        .filter(|s| read_u64(s, 8) != Some(0));
                    let mut n = 0;
                    for slot in slots {
                        assert!(!plain.contains(&read_u64(slot, 0).unwrap()));
                        n += 1;
                    }
                    assert_eq!(n, h.entries);
                    files += 1;
                }
                // And some log past it, not flushed.
                writes(&db, &mut rng, 20);
                std::thread::sleep(Duration::from_millis(5));
                let pinned = builder(&db_path).replaying().build().unwrap();
                assert!(!pinned.recovery_report().used_tail_index);
                let (used, read) = one_keys_agree(&|| builder(&db_path), &pinned);
                through += used;
                reads += read;
                // Ranges and counts start from the file when there is
                // one, and agree.
                for (space, from, to) in [
                    (Some("a"), key(40), key(90)),
                    (None, key(0), key(HOT + 3)),
                    (Some("b"), key(7), key(8)),
                ] {
                    let (it, report) = builder(&db_path)
                        .range_once_reporting(
                            space,
                            Bound::Included(&from[..]),
                            Bound::Excluded(&to[..]),
                        )
                        .unwrap();
                    let got: Vec<_> = it.unwrap().collect::<crate::Result<_>>().unwrap();
                    let want = match space {
                        Some(n) => pinned.namespace(n).unwrap().range(from..to).unwrap(),
                        None => pinned.range(from..to).unwrap(),
                    };
                    assert_eq!(got, want, "{space:?}");
                    ranged += usize::from(report.used_tail_index);
                    ranges += 1;
                }
                let (counts, report) = builder(&db_path).read_counts_reporting().unwrap();
                counted += usize::from(report.used_tail_index);
                assert_eq!(counts.default, pinned.len().unwrap() as u64);
                for (name, n) in &counts.namespaces {
                    assert_eq!(*n, pinned.namespace(name).unwrap().len().unwrap() as u64);
                }
                if round == 4 {
                    // Without the file, the same answers from the log.
                    std::fs::remove_file(path(&db_path)).unwrap();
                    let (one, report) = builder(&db_path)
                        .read_one_key_reporting(None, &key(7))
                        .unwrap();
                    assert!(!report.used_tail_index);
                    assert_eq!(
                        one,
                        pinned
                            .get(key(7))
                            .unwrap()
                            .map_or(OneKey::Missing, OneKey::Found)
                    );
                    last = 0;
                }
            }
            assert!(files >= 4, "a tail index after only {files} of 6 rounds");
            assert!(counted >= 3, "{counted} of 6 counts used a tail index");
            assert!(
                ranged * 2 > ranges,
                "{ranged} of {ranges} ranges used a tail index"
            );
            assert!(
                through * 2 > reads,
                "{through} of {reads} reads used a tail index"
            );
            // The writer closes without a checkpoint: its last file stays
            // (unless an automatic checkpoint had just replaced it).
            drop(db);
            let file = path(&db_path);
            let Ok(mut bytes) = std::fs::read(&file) else {
                return;
            };
            let (_, report) = builder(&db_path)
                .read_one_key_reporting(None, &key(3))
                .unwrap();
            assert!(report.used_tail_index);
            // Pages changed (their CRCs redone) fail their tags: the file
            // is not used, and the answers are the log's.
            let pinned = builder(&db_path).replaying().build().unwrap();
            let mut tampered = bytes.clone();
            for page in tampered[PAGE..].chunks_exact_mut(PAGE) {
                page[8] ^= 0x01;
                let crc = crc32(&page[..TRAILER + 4]);
                page[TRAILER + 4..TRAILER + 8].copy_from_slice(&crc.to_le_bytes());
            }
            std::fs::write(&file, &tampered).unwrap();
            for i in 0..HOT {
                let (one, report) = builder(&db_path)
                    .read_one_key_reporting(None, &key(i))
                    .unwrap();
                assert!(!report.used_tail_index, "key {i}");
                let want = pinned.get(key(i)).unwrap();
                assert_eq!(one, want.map_or(OneKey::Missing, OneKey::Found), "key {i}");
            }
            let (from, to) = (key(0), key(HOT + 3));
            let (it, report) = builder(&db_path)
                .range_once_reporting(None, Bound::Included(&from[..]), Bound::Excluded(&to[..]))
                .unwrap();
            assert!(!report.used_tail_index);
            let got: Vec<_> = it.unwrap().collect::<crate::Result<_>>().unwrap();
            assert_eq!(got, pinned.range(from..to).unwrap());
            // The same file, flagged plain (its header CRC redone), is not
            // used by the encrypted database's reads.
            bytes[12..16].copy_from_slice(&0u32.to_le_bytes());
            let crc = crc32(&bytes[..HEADER_LEN]);
            bytes[HEADER_LEN..HEADER_LEN + 4].copy_from_slice(&crc.to_le_bytes());
            assert!(Header::decode(&bytes).is_ok_and(|h| !h.sealed));
            std::fs::write(&file, &bytes).unwrap();
            let (_, report) = builder(&db_path)
                .read_one_key_reporting(None, &key(3))
                .unwrap();
            assert!(!report.used_tail_index);
        }

        /// A plaintext frame past a sealed tail index (the log's CRC has
        /// no key: anyone who can write the file can append one) is
        /// corruption for a count as for a full replay, never a key
        /// counted.
        #[test]
        fn a_count_past_a_sealed_tail_index_rejects_a_plaintext_frame() {
            use std::os::unix::fs::FileExt;
            let secret = Some([0x71; 32]);
            let dir = tempfile::tempdir().unwrap();
            let (db_path, db) = loaded_with(dir.path(), "forged", secret);
            let mut rng = Lcg(3);
            let mut last = 0;
            for _ in 0..3 {
                writes_with(&db, &mut rng, 250, false);
                db.flush().unwrap();
                last = newer_index(&db_path, last, Duration::from_secs(10));
            }
            std::thread::sleep(Duration::from_millis(300));
            let end = indexed_end(&db_path).unwrap();
            let (counts, report) = builder_for(&db_path, secret)
                .read_counts_reporting()
                .unwrap();
            assert!(report.used_tail_index);
            let pinned = replayed_with(&db_path, secret);
            assert_eq!(counts.default, pinned.len().unwrap() as u64);
            // A plaintext put, its CRC right, where the writer's next
            // frame would go.
            let frame = crate::format::record::FrameSpec::put(0, b"forged", b"x", 0).encode();
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(&db_path)
                .unwrap();
            f.write_all_at(&frame, end).unwrap();
            drop(f);
            let full = builder_for(&db_path, secret).replaying().build();
            assert!(
                matches!(full, Err(crate::Error::Corruption { .. })),
                "{:?}",
                full.err()
            );
            let counted = builder_for(&db_path, secret).read_counts_reporting();
            assert!(
                matches!(counted, Err(crate::Error::Corruption { .. })),
                "{:?}",
                counted.map(|c| c.0)
            );
            drop(db);
        }

        /// Counts through tail indexes (no key can expire): puts, removes,
        /// batches and transactions past the index, in every namespace; a
        /// clear and a namespace created past it, which a count cannot take
        /// from it; a version 1 file, which has no counts.
        #[test]
        fn counts_through_tail_indexes_agree() {
            let dir = tempfile::tempdir().unwrap();
            let (db_path, db) = loaded(dir.path(), "counts");
            let mut rng = Lcg(11);
            let (mut through, mut last) = (0, 0);
            for round in 0..8 {
                writes_with(&db, &mut rng, 250, false);
                db.flush().unwrap();
                last = newer_index(&db_path, last, Duration::from_secs(10));
                // New keys, overwrites and removes past the index.
                writes_with(&db, &mut rng, 40, false);
                for i in 0..5 {
                    db.insert(key(5000 + round * 10 + i), "new").unwrap();
                }
                db.remove(key(round)).unwrap();
                through += usize::from(counts_agree(&db_path));
            }
            assert!(through >= 6, "{through} of 8 counts used a tail index");
            // The file is version 2 and has one count per namespace.
            let bytes = std::fs::read(path(&db_path)).unwrap();
            let h = Header::decode(&bytes).unwrap();
            assert_eq!((read_u32(&bytes, 8), h.ns_count), (Some(2), 3));
            // As version 1 (no count section): still read, never for counts.
            // On a still copy, since the live writer may checkpoint or write
            // a newer index at any moment.
            let mut v1 = bytes[..bytes.len() - PAGE].to_vec();
            v1[8..12].copy_from_slice(&1u32.to_le_bytes());
            v1[68..72].copy_from_slice(&0u32.to_le_bytes());
            let crc = crc32(&v1[..HEADER_LEN]);
            v1[HEADER_LEN..HEADER_LEN + 4].copy_from_slice(&crc.to_le_bytes());
            let still = tempfile::tempdir().unwrap();
            let copy = still_copy(&db_path, still.path());
            std::fs::write(path(&copy), &v1).unwrap();
            let (_, report) = Emdb::builder()
                .path(&copy)
                .read_one_key_reporting(None, &key(1))
                .unwrap();
            assert!(report.used_tail_index);
            assert!(!counts_agree(&copy));
            std::fs::write(path(&copy), &bytes).unwrap();
            assert!(counts_agree(&copy));
            // A clear past the index, then a namespace created past it:
            // the counts cannot be moved past them, so the count layers
            // the tail index and replays only the log past it.
            let layered_only_past = |db_path: &Path| {
                let Agreed {
                    counts: report,
                    replay,
                    ..
                } = counts_and_stats_agree(db_path);
                assert!(report.used_tail_index && !report.counts_only);
                let whole = replay.replayed_bytes;
                assert!(
                    report.replayed_bytes < whole,
                    "replayed {} bytes, the whole tail is {whole}",
                    report.replayed_bytes
                );
            };
            db.namespace("b").unwrap().clear().unwrap();
            layered_only_past(&db_path);
            db.namespace("c").unwrap().insert("k", "v").unwrap();
            layered_only_past(&db_path);
            // A checkpoint replaces the index: counted whole.
            db.checkpoint().unwrap();
            assert!(!path(&db_path).exists());
            assert!(!counts_agree(&db_path));
            db.close().unwrap();
            assert!(!counts_agree(&db_path));
        }

        /// A copy in `to` of `db`'s log, checkpoint and tail index, taken
        /// while its writer is not writing but may still checkpoint or
        /// index in the background: copies until one reads through its
        /// tail index, so the three agree.
        fn still_copy(db: &Path, to: &Path) -> PathBuf {
            let copy = to.join(db.file_name().unwrap());
            for _ in 0..100 {
                for suffix in ["", ".ckpt", ".tail"] {
                    let _ = std::fs::copy(sibling(db, suffix), sibling(&copy, suffix));
                }
                let read = Emdb::builder()
                    .path(&copy)
                    .read_one_key_reporting(None, &key(1));
                if read.is_ok_and(|(_, report)| report.used_tail_index) {
                    return copy;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            panic!("no copy of {} read through its tail index", db.display());
        }

        /// What a handle answers of one namespace (`None`: the default):
        /// its length, every pair in hash order (sorted here), every pair
        /// in key order, one range, and each hot key's value.
        type Snapshot = (
            usize,
            Vec<(Vec<u8>, Vec<u8>)>,
            Vec<(Vec<u8>, Vec<u8>)>,
            Vec<(Vec<u8>, Vec<u8>)>,
            Vec<Option<Vec<u8>>>,
        );

        fn snapshot(db: &Emdb, space: Option<&str>) -> Snapshot {
            let all = (Bound::<Vec<u8>>::Unbounded, Bound::Unbounded);
            let some = (Bound::Included(key(50)), Bound::Excluded(key(120)));
            macro_rules! of {
                ($h:expr) => {{
                    let h = $h;
                    let mut pairs: Vec<_> =
                        h.iter().unwrap().collect::<crate::Result<_>>().unwrap();
                    pairs.sort();
                    (
                        h.len().unwrap(),
                        pairs,
                        h.range(all).unwrap(),
                        h.range(some).unwrap(),
                        (0..HOT + 3).map(|i| h.get(key(i)).unwrap()).collect(),
                    )
                }};
            }
            match space {
                None => of!(db),
                Some(n) => of!(db.namespace(n).unwrap()),
            }
        }

        /// `reader` answers as `writer` does, in every namespace; its stats
        /// count the same keys and bytes.
        fn same_as(reader: &Emdb, writer: &Emdb) {
            let spaces = writer.list_namespaces().unwrap();
            assert_eq!(reader.list_namespaces().unwrap(), spaces);
            for space in std::iter::once(None).chain(spaces.iter().map(|s| Some(&s[..]))) {
                let (r, w) = (snapshot(reader, space), snapshot(writer, space));
                assert_eq!(r.0, w.0, "namespace {space:?}: len");
                assert_eq!(r.4, w.4, "namespace {space:?}: gets");
                assert_eq!(r.1, w.1, "namespace {space:?}: pairs");
                assert_eq!(r.2, w.2, "namespace {space:?}: all in order");
                assert_eq!(r.3, w.3, "namespace {space:?}: range");
            }
            let (r, w) = (reader.stats().unwrap(), writer.stats().unwrap());
            assert_eq!(
                (
                    r.live_records,
                    r.live_bytes,
                    r.expiring_records,
                    r.namespaces
                ),
                (
                    w.live_records,
                    w.live_bytes,
                    w.expiring_records,
                    w.namespaces
                )
            );
        }

        /// A full read-only open beside the writer layers the tail from its
        /// tail index over the mapped checkpoint (and replays only the log
        /// past it); it answers as the writer does, and so does such a
        /// handle following the writer's later writes: puts, removes,
        /// batches, keys that expire, a clear, a namespace dropped and one
        /// created.
        #[test]
        fn full_opens_and_followers_through_tail_indexes_agree() {
            full_opens_agree(None);
        }

        /// The same over an encrypted database's sealed tail indexes.
        #[test]
        fn encrypted_full_opens_and_followers_through_sealed_tail_indexes_agree() {
            full_opens_agree(Some([0x66; 32]));
        }

        fn full_opens_agree(secret: Option<[u8; 32]>) {
            let dir = tempfile::tempdir().unwrap();
            let (db_path, db) = loaded_with(dir.path(), "full", secret);
            let mut rng = Lcg(23);
            let (mut layered, mut last) = (0, 0);
            let mut follower: Option<Emdb> = None;
            for round in 0..8 {
                writes(&db, &mut rng, 250);
                db.flush().unwrap();
                last = newer_index(&db_path, last, Duration::from_secs(2));
                // Past the index: new keys, overwrites, removes.
                writes(&db, &mut rng, 40);
                db.insert(key(7000 + round), "new").unwrap();
                db.remove(key(round)).unwrap();
                if round == 6 {
                    db.namespace("b").unwrap().clear().unwrap();
                }
                if round == 7 {
                    db.drop_namespace("a").unwrap();
                    db.namespace("c").unwrap().insert("k", "v").unwrap();
                }
                db.flush().unwrap();
                // Keys written to expire in a millisecond have expired for
                // both handles before either is read.
                std::thread::sleep(Duration::from_millis(5));
                let reader = builder_for(&db_path, secret)
                    .read_only(true)
                    .follow(false)
                    .build()
                    .unwrap();
                let used = reader.recovery_report().used_tail_index;
                layered += usize::from(used);
                same_as(&reader, &db);
                same_as(&reader, &replayed_with(&db_path, secret));
                if let Some(f) = &follower {
                    f.refresh().unwrap();
                    same_as(f, &db);
                }
                if used && follower.is_none() {
                    follower = Some(reader);
                }
            }
            assert!(layered >= 5, "{layered} of 8 opens used a tail index");
            let f = follower.unwrap();
            db.close().unwrap();
            f.refresh().unwrap();
            same_as(&f, &builder_for(&db_path, secret).build().unwrap());
        }

        /// A layered handle that follows a busy writer is read meanwhile:
        /// walks that compare a checkpoint key with one the follower has
        /// just layered, counts, ordered reads and gets never fail, and once
        /// the writer stops the handle answers as the writer does.
        #[test]
        fn a_layered_follower_reads_while_the_writer_writes() {
            layered_follower_reads(None);
        }

        /// The same over an encrypted database's sealed tail indexes.
        #[test]
        fn a_layered_follower_of_an_encrypted_database_reads_while_the_writer_writes() {
            layered_follower_reads(Some([0x67; 32]));
        }

        fn layered_follower_reads(secret: Option<[u8; 32]>) {
            use std::sync::atomic::{AtomicBool, Ordering};
            let dir = tempfile::tempdir().unwrap();
            let (db_path, db) = loaded_with(dir.path(), "busy", secret);
            let mut rng = Lcg(5);
            let t = Instant::now();
            while indexed_end(&db_path).is_none() && t.elapsed() < Duration::from_secs(10) {
                writes(&db, &mut rng, 100);
                db.flush().unwrap();
            }
            let reader = builder_for(&db_path, secret)
                .read_only(true)
                .build()
                .unwrap();
            assert!(reader.recovery_report().used_tail_index);
            let stop = AtomicBool::new(false);
            let mut walks = 0;
            std::thread::scope(|s| {
                s.spawn(|| {
                    let mut rng = Lcg(6);
                    let t = Instant::now();
                    while t.elapsed() < Duration::from_millis(1500) {
                        // Overwrites of checkpoint keys, then a mix in
                        // every namespace.
                        for i in 0..200 {
                            db.insert(key(rng.below(3000)), format!("busy{i}")).unwrap();
                        }
                        writes(&db, &mut rng, 20);
                        db.flush().unwrap();
                    }
                    stop.store(true, Ordering::Relaxed);
                });
                while !stop.load(Ordering::Relaxed) {
                    for pair in reader.iter().unwrap() {
                        pair.unwrap();
                    }
                    reader.len().unwrap();
                    reader.namespace("a").unwrap().len().unwrap();
                    reader.get(key(7)).unwrap();
                    reader
                        .range((Bound::Included(key(10)), Bound::Excluded(key(40))))
                        .unwrap();
                    walks += 1;
                }
            });
            assert!(walks > 3, "{walks} walks");
            std::thread::sleep(Duration::from_millis(5));
            reader.refresh().unwrap();
            same_as(&reader, &db);
            // The writer compacts: the follower moves to the new file.
            db.compact().unwrap();
            db.insert(key(1), "after").unwrap();
            db.flush().unwrap();
            reader.refresh().unwrap();
            same_as(&reader, &db);
        }
    }
}
