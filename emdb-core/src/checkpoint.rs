//! Checkpoint files on disk: writing the version-2 image and opening a
//! checkpoint of either version (docs/FORMAT.md, "Checkpoint file").
//!
//! Writing streams the slot pages (CRC per page) to `<db>.ckpt.tmp`, then the
//! CRC table, namespace table (sealed under the key in an encrypted
//! database) and header, fsyncs, renames over `<db>.ckpt` and fsyncs the
//! directory: a crash leaves the old checkpoint or the new one. Opening a version-2 file reads its header page and table only and
//! maps the rest ([`crate::index::image`]); a version-1 file is read and
//! decoded whole, as emdb did before version 2.

use std::path::Path;
use std::sync::Arc;

use crate::crypto::Crypt;
use crate::error::{Error, Result};
use crate::fault::{self, Faults, FsEvent, WriteSite};
use crate::format::checkpoint::{
    self as codec, block_bytes, Binding, Checkpoint, HeaderV2, NsImage, NsMeta, SortedBlock, PAGE,
};
use crate::format::record::Kind;
use crate::fs::{self as efs, sibling};
use crate::generation::Generation;
use crate::index::image::Image;
use crate::log::image::ImageMap;
use crate::namespace::NsEntry;
use crate::sorted::{
    gather_sorted, patch_from, patch_pays, sort_base, sort_from, sort_offsets, Base, FenceSlot,
    KeySource, LiveSplit,
};

/// Bytes of slot pages gathered before they are written. Small enough that
/// the page cache holds the file in small folios: a one-shot reader maps
/// (and counts in its RSS) the whole folio around each page it touches.
const WRITE_CHUNK: usize = 64 << 10;

/// A checkpoint that passed its own checks (not yet its binding to the log).
pub(crate) enum Loaded {
    /// Version 1, decoded into memory.
    V1(Checkpoint),
    /// Version 2, mapped.
    V2 {
        header: HeaderV2,
        metas: Vec<NsMeta>,
        image: Arc<Image>,
    },
}

impl Loaded {
    /// What the checkpoint is bound to.
    pub(crate) fn binding(&self) -> Binding {
        match self {
            Loaded::V1(cp) => cp.binding,
            Loaded::V2 { header, .. } => header.binding,
        }
    }

    /// Highest namespace id ever assigned, as of the checkpoint.
    pub(crate) fn next_ns_id(&self) -> u32 {
        match self {
            Loaded::V1(cp) => cp.next_ns_id,
            Loaded::V2 { header, .. } => header.next_ns_id,
        }
    }
}

/// Open the checkpoint at `path`: `Ok(None)` when there is none, `Err` with
/// a reason when it cannot be used (the caller then replays the log). With
/// `crypt` (an encrypted database) the namespace table must be sealed under
/// its key (docs/FORMAT.md).
pub(crate) fn open(
    path: &Path,
    shards: usize,
    crypt: Option<&Crypt>,
) -> std::result::Result<Option<Loaded>, String> {
    use std::os::unix::fs::FileExt;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let unreadable = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let len = file.metadata().map_err(unreadable)?.len();
    let mut first = vec![0u8; PAGE.min(len as usize)];
    file.read_exact_at(&mut first, 0).map_err(unreadable)?;
    match codec::version(&first)? {
        codec::VERSION_1 => {
            let raw = std::fs::read(path).map_err(unreadable)?;
            Ok(Some(Loaded::V1(codec::decode_v1(&raw, shards)?)))
        }
        codec::VERSION_2 => {
            let header = HeaderV2::decode(&first, len)?;
            // The table and the zeros padding it to the slot pages: every
            // byte before the slot pages is checked here.
            let mut table = vec![0u8; (header.pages_at - PAGE as u64) as usize];
            file.read_exact_at(&mut table, PAGE as u64)
                .map_err(unreadable)?;
            let padding = table.split_off(header.table_len as usize);
            if first[codec::HEADER_V2_LEN..].iter().any(|&b| b != 0)
                || padding.iter().any(|&b| b != 0)
            {
                return Err("checkpoint padding is not zeros".into());
            }
            let metas = match crypt {
                None => codec::decode_table(&table, &header, shards)?,
                Some(c) => {
                    codec::check_table_crc(&table, &header)?;
                    let plain = c.open_blob(&codec::table_aad(&header), &table).ok_or(
                        "checkpoint namespace table failed authentication \
                         (not sealed under this database's key)",
                    )?;
                    codec::parse_table(&plain, &header, shards, true)?
                }
            };
            let map_len = usize::try_from(len).map_err(|_| "checkpoint too large to map")?;
            let map = ImageMap::map(&file, map_len)
                .map_err(|e| format!("cannot map {}: {e}", path.display()))?;
            let image = Image::new(
                map,
                header.pages_at as usize,
                header.page_count as usize,
                path,
            )
            .ok_or("checkpoint layout does not match its length")?;
            Ok(Some(Loaded::V2 {
                header,
                metas,
                image: Arc::new(image),
            }))
        }
        _ => Err("unknown checkpoint version".into()),
    }
}

/// The index as of one log end, taken under the writer lock: a copy to
/// be written without holding any engine lock, or (a checkpoint at close)
/// the index's own slots, written before the writer lock is released.
pub(crate) struct Snapshot {
    /// The checkpoint file (`<db>.ckpt`).
    pub path: std::path::PathBuf,
    pub binding: Binding,
    pub next_ns_id: u32,
    pub images: Vec<NsImage>,
    pub faults: Option<Arc<Faults>>,
    /// The generation the images index (its log holds their keys).
    pub gen: Arc<Generation>,
    /// The namespaces, in the order of `images`, with the epoch of their
    /// sorted order when the images were taken.
    pub entries: Vec<(Arc<NsEntry>, u64)>,
    /// The fences of each image's sorted block, in the order of `images`
    /// (filled by the sort; handed over with the blocks).
    pub fences: Vec<Arc<FenceSlot>>,
    /// Whether the sort also makes the blocks' fences: not for a
    /// checkpoint at close, whose order no seek will use.
    pub fenced: bool,
    /// Set for a background checkpoint: writing it gives up (and removes
    /// its temp file) once the engine is closing, so the close does not
    /// wait for a file it would not install.
    pub cancel: Option<Arc<crate::engine::Stop>>,
}

// Sorts that started from the last checkpoint's order on this thread
// (unit tests: that the path ran).
#[cfg(test)]
thread_local! {
    pub(crate) static FROM_PREV: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

// Checkpoints whose sorted block was a patch of the last order (unit
// tests: that the path ran).
#[cfg(test)]
thread_local! {
    pub(crate) static PATCHED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The offsets the entries of `shards` point to (empty slots left out).
fn entry_offsets<'a, I: Iterator<Item = &'a codec::ShardImage> + 'a>(
    shards: I,
) -> impl Iterator<Item = u64> + 'a {
    shards
        .flat_map(|s| s.entries.iter())
        .filter(|&e| e != 0)
        .map(crate::index::table::entry_offset)
}

/// [`entry_offsets`], collected.
fn live_offsets<'a>(shards: impl Iterator<Item = &'a codec::ShardImage> + 'a) -> Vec<u64> {
    entry_offsets(shards).collect()
}

/// Suffix of the temp file an explicit checkpoint or a close's is written
/// to (after the checkpoint's own name), before it is renamed into place.
pub(crate) const TEMP: &str = ".tmp";

/// Suffix of the temp file of the writer's automatic checkpoints: its own,
/// so it never races another checkpoint's.
pub(crate) const AUTO_TEMP: &str = ".auto.tmp";

/// The put and delete records each namespace with a last order had
/// written since that order's end, for [`patch_from`]: listed in one pass
/// over the log from the earliest such end.
#[derive(Default)]
struct Since {
    /// Per snapshot entry; `None` where none was listed.
    lists: Vec<Option<Vec<u64>>>,
}

impl Since {
    /// The records up to `covered_end` of the namespaces of `entries`
    /// that have a last order in `prevs`. A namespace's listing stops
    /// (`None`) once it holds more records than a patch of its order can
    /// place at a profit ([`patch_pays`]), and the pass stops when every
    /// namespace's has; none are listed when the log since is longer than
    /// the log before it, or cannot be read (the sort then reads it and
    /// says why).
    fn list(
        bytes: &[u8],
        covered_end: u64,
        prevs: &[Option<(u64, Base)>],
        entries: &[(Arc<NsEntry>, u64)],
    ) -> Since {
        // (snapshot entry, what to list for it).
        let (at, wanted): (Vec<usize>, Vec<Wanted>) = prevs
            .iter()
            .zip(entries)
            .enumerate()
            .filter_map(|(i, (p, (ns, _)))| {
                p.as_ref().map(|(end, b)| {
                    let w = Wanted {
                        ns: ns.id,
                        start: *end,
                        patching: Some(b.len()),
                    };
                    (i, w)
                })
            })
            .unzip();
        let Some(from) = wanted.iter().map(|w| w.start).min() else {
            return Since::default();
        };
        if covered_end - from > from {
            return Since::default();
        }
        let Ok(listed) = records_since(bytes, from, covered_end, &wanted) else {
            return Since::default();
        };
        let mut lists: Vec<Option<Vec<u64>>> = vec![None; prevs.len()];
        for (i, list) in at.into_iter().zip(listed) {
            if let Some(l) = lists.get_mut(i) {
                *l = list;
            }
        }
        Since { lists }
    }

    /// The list of snapshot entry `i`, if there is one.
    fn take(&mut self, i: usize) -> Option<Vec<u64>> {
        self.lists.get_mut(i).and_then(Option::take)
    }
}

impl Snapshot {
    /// Put each namespace's live keys in order for the sorted block
    /// (docs/FORMAT.md): the image's offsets sorted by key, or the last
    /// checkpoint's order with the keys written since placed in it
    /// ([`sort_from`]) when that is cheaper. An encrypted database's keys
    /// are decrypted for it, and the block is sealed.
    fn sort(&mut self) -> Result<()> {
        let region = self.gen.log().region();
        let bytes = self.gen.bytes(&region);
        let crypt = self.gen.crypt();
        let keys = KeySource {
            bytes,
            crypt: crypt.as_deref(),
        };
        let fences = &mut self.fences;
        fences.clear();
        let (entries, covered_end) = (&self.entries, self.binding.covered_end);
        let mut kept = Vec::new();
        let prevs: Vec<Option<(u64, Base)>> = entries
            .iter()
            .map(|(ns, _)| {
                ns.sorted
                    .checkpointed()
                    .filter(|(end, _)| *end <= covered_end)
            })
            .collect();
        // At close, the blocks may be patches of the last order, which
        // need no array of every offset and are not adopted: a clone that
        // outlives an `Emdb::close` keeps the order it has, exact as of its
        // older end, for its own next checkpoint.
        let mut since = match self.fenced {
            false => Since::list(bytes, covered_end, &prevs, entries),
            true => Since::default(),
        };
        let sorted = self.images.iter_mut().enumerate().try_for_each(|(i, img)| {
            let live: usize = img.shards.iter().map(|s| s.len as usize).sum();
            let shards = &img.shards;
            // Start from the order this namespace was last checkpointed
            // with, when that is cheaper than a sort (an encrypted
            // database's fences are then built on use).
            let ns = entries.get(i).map(|(ns, _)| &ns.sorted);
            let prev = prevs.get(i).cloned().flatten();
            if let (Some((end, base)), Some(records)) = (&prev, since.take(i)) {
                let split = LiveSplit::of(entry_offsets(shards.iter()), *end);
                if let Some(patch) = patch_from(keys, (*end, base), records, &split)? {
                    #[cfg(test)]
                    PATCHED.with(|c| c.set(c.get() + 1));
                    img.sorted = Some(SortedBlock::Patch(Arc::new(patch)));
                    fences.push(FenceSlot::ready(None));
                    return Ok(());
                }
            }
            let from_prev = match &prev {
                // The live offsets in any order.
                Some((end, base)) => sort_from(
                    keys,
                    &live_offsets(shards.iter()),
                    (*end, base),
                    self.fenced,
                )?,
                None => None,
            };
            #[cfg(test)]
            if from_prev.is_some() {
                FROM_PREV.with(|c| c.set(c.get() + 1));
            }
            let (offs, f) = match from_prev {
                Some(order) => (order.offs, order.fences),
                None => {
                    let offs = gather_sorted(live, |part, parts| {
                        let per = shards.len().div_ceil(parts);
                        live_offsets(shards.iter().skip(part * per).take(per))
                    });
                    match self.fenced {
                        true => {
                            let order = sort_base(keys, offs)?;
                            (order.offs, order.fences)
                        }
                        false => (sort_offsets(keys, offs)?, None),
                    }
                }
            };
            let offs: Arc<[u64]> = Arc::from(offs);
            // An encrypted database keeps its order; a plain one's is the
            // base it is adopted as, while it stays that
            // (`adopt_kept_orders`).
            if let (Some(ns), Some(_)) = (ns, &crypt) {
                kept.push((ns, Arc::clone(&offs)));
            }
            img.sorted = Some(SortedBlock::Offsets(offs));
            fences.push(FenceSlot::ready(f));
            Ok(())
        });
        self.gen.log().vouch_read(&region, bytes, sorted)?;
        // The next checkpoint of an encrypted database starts from these.
        for (ns, offs) in kept {
            ns.set_checkpointed(covered_end, Base::Heap(offs));
        }
        Ok(())
    }

    /// Hand the sorted blocks to the namespaces they were taken from whose
    /// order is still the one the snapshot saw, so a long-running writer's
    /// order stays folded (`Sorted::adopt_kept`). Without the writer lock:
    /// it may wait for a reader's refresh.
    pub(crate) fn adopt_kept_orders(&self) {
        let covered_end = self.binding.covered_end;
        let plain = self.gen.crypt().is_none();
        for (i, (img, (ns, epoch))) in self.images.iter().zip(&self.entries).enumerate() {
            if let Some(order) = img.sorted.as_ref().and_then(SortedBlock::offsets) {
                let fences = self.fences.get(i).cloned().unwrap_or_default();
                ns.sorted
                    .adopt_kept(*epoch, Arc::clone(order), fences, covered_end, plain);
            }
        }
    }

    /// The namespaces whose order was dropped before the snapshot, with
    /// their puts and deletes from the checkpoint's end up to what the log
    /// has published (a unit boundary), listed without the writer lock; [`Snapshot::adopt_dropped_orders`] lists the rest under it.
    /// `None` when no order was dropped or the log cannot be read (the
    /// orders then stay dropped: the next ordered read rebuilds them).
    pub(crate) fn list_dropped(&self) -> Option<Dropped> {
        let entries: Vec<usize> = self
            .images
            .iter()
            .zip(&self.entries)
            .enumerate()
            .filter(|(_, (img, (ns, epoch)))| {
                img.sorted.as_ref().and_then(SortedBlock::offsets).is_some()
                    && ns.sorted.dropped_at(*epoch)
            })
            .map(|(i, _)| i)
            .collect();
        if entries.is_empty() {
            return None;
        }
        let ids: Vec<u32> = entries
            .iter()
            .filter_map(|&i| self.entries.get(i).map(|(ns, _)| ns.id))
            .collect();
        let from = self.binding.covered_end;
        let upto = self.gen.log().published_end().max(from);
        let since = self.records_since(from, upto, &ids)?;
        Some(Dropped {
            entries,
            ids,
            since,
            listed_to: upto,
        })
    }

    /// Hand the sorted blocks to the namespaces of `dropped`, each with its
    /// puts and deletes written since the checkpoint (`Sorted::adopt_dropped`):
    /// those `dropped` listed, then those up to `end`, the log's end, with
    /// the writer lock held so no record is written meanwhile (only what
    /// was written while the first part was listed is read under it).
    pub(crate) fn adopt_dropped_orders(&self, dropped: Option<Dropped>, end: u64) {
        let Some(d) = dropped else {
            return;
        };
        let Some(rest) = self.records_since(d.listed_to, end.max(d.listed_to), &d.ids) else {
            return;
        };
        // A plain database's base is its next checkpoint's starting order.
        let checkpointed = self
            .gen
            .crypt()
            .is_none()
            .then_some(self.binding.covered_end);
        for ((i, mut offs), more) in d.entries.into_iter().zip(d.since).zip(rest) {
            let (Some((ns, epoch)), Some(img)) = (self.entries.get(i), self.images.get(i)) else {
                continue;
            };
            let Some(order) = img.sorted.as_ref().and_then(SortedBlock::offsets) else {
                continue;
            };
            offs.extend(more);
            let fences = self.fences.get(i).cloned().unwrap_or_default();
            ns.sorted
                .adopt_dropped(*epoch, Arc::clone(order), fences, offs, checkpointed);
        }
    }

    /// [`records_since`] over this snapshot's log, with a cut named as one;
    /// `None` when it cannot be read.
    fn records_since(&self, from: u64, to: u64, ids: &[u32]) -> Option<Vec<Vec<u64>>> {
        let region = self.gen.log().region();
        let bytes = self.gen.bytes(&region);
        let wanted: Vec<Wanted> = ids
            .iter()
            .map(|&ns| Wanted {
                ns,
                start: from,
                patching: None,
            })
            .collect();
        let listed = records_since(bytes, from, to, &wanted);
        let listed = self.gen.log().vouch_read(&region, bytes, listed).ok()?;
        // Nothing is given up without `patching`.
        listed.into_iter().collect()
    }

    /// Write the snapshot to the temp file `path` + `suffix` ([`TEMP`] or
    /// [`AUTO_TEMP`]; fsynced), removed again on failure.
    pub(crate) fn write_temp(&mut self, suffix: &str) -> Result<std::path::PathBuf> {
        if self.cancel.as_ref().is_some_and(|s| s.stopped()) {
            return Err(closing_error(&self.path));
        }
        self.sort()?;
        let tmp = sibling(&self.path, suffix);
        // The database's mode, owner and group (efs::match_permissions).
        let like = self
            .gen
            .log()
            .file
            .as_ref()
            .and_then(|f| f.file.metadata().ok());
        let written = write_file(
            &tmp,
            like.as_ref(),
            self.binding,
            self.next_ns_id,
            &self.images,
            self.gen.crypt().as_deref(),
            self.faults.as_deref(),
            self.cancel.as_deref(),
        );
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written.map(|()| tmp)
    }

    /// Rename a written temp file over the checkpoint and make it durable.
    pub(crate) fn install(&self, tmp: &Path) -> Result<()> {
        let faults = self.faults.as_deref();
        if let Err(e) = efs::rename(tmp, &self.path, faults) {
            let _ = std::fs::remove_file(tmp);
            return Err(e);
        }
        efs::fsync_parent(&self.path, faults)
    }
}

/// Orders dropped before a snapshot and the records of their namespaces
/// listed so far ([`Snapshot::list_dropped`]).
pub(crate) struct Dropped {
    /// Indexes of their entries in the snapshot.
    entries: Vec<usize>,
    /// Their namespace ids, in the same order.
    ids: Vec<u32>,
    /// Each one's puts and deletes from the checkpoint's end to `listed_to`.
    since: Vec<Vec<u64>>,
    /// Where the listing stopped (a unit boundary): the rest is listed
    /// under the writer lock.
    listed_to: u64,
}

/// One namespace's records for [`records_since`] to list.
struct Wanted {
    /// The namespace.
    ns: u32,
    /// Its records before this offset are left out.
    start: u64,
    /// The length of the order a patch would place the records in: the
    /// listing is given up (`None`) once a patch of that many records
    /// could not pay ([`patch_pays`]). `None`: every record is listed.
    patching: Option<usize>,
}

/// Offsets of the put and delete records of the namespaces `wanted` names
/// in the log between `from` and `to` (unit boundaries), in log order: one
/// list per entry of `wanted`, holding its records at or past its `start`,
/// or `None` once given up. The pass ends early when every list is.
fn records_since(
    bytes: &[u8],
    from: u64,
    to: u64,
    wanted: &[Wanted],
) -> Result<Vec<Option<Vec<u64>>>> {
    let mut out = vec![Some(Vec::new()); wanted.len()];
    let mut listing = wanted.len();
    let mut at = from;
    while at < to && listing > 0 {
        let unit = crate::replay::decode_unit(bytes, at).map_err(|r| Error::corruption(at, r))?;
        for (off, f) in &unit.frames {
            if !matches!(f.kind, Kind::Put | Kind::Delete) {
                continue;
            }
            let Some((w, list)) = wanted
                .iter()
                .zip(out.iter_mut())
                .find(|(w, _)| w.ns == f.ns)
            else {
                continue;
            };
            let Some(l) = list.as_mut().filter(|_| *off >= w.start) else {
                continue;
            };
            l.push(*off);
            if w.patching.is_some_and(|n| !patch_pays(l.len(), n)) {
                *list = None;
                listing -= 1;
            }
        }
        at = unit.end();
    }
    Ok(out)
}

/// Why a background checkpoint's write gave up.
fn closing_error(path: &Path) -> Error {
    Error::io(
        "write",
        Some(path),
        std::io::Error::new(std::io::ErrorKind::Interrupted, "the database is closing"),
    )
}

/// Write a checkpoint to the new file `tmp`, with the mode, owner and
/// group of `like` (the database file's metadata) where given: owner-only
/// for an encrypted database, whose index tags let a reader test guessed
/// keys (docs/FORMAT.md), which its log does not.
// The snapshot's parts as they are, and the tests' stand-ins for them.
#[allow(clippy::too_many_arguments)]
fn write_file(
    tmp: &Path,
    like: Option<&std::fs::Metadata>,
    binding: Binding,
    next_ns_id: u32,
    images: &[NsImage],
    crypt: Option<&Crypt>,
    faults: Option<&Faults>,
    cancel: Option<&crate::engine::Stop>,
) -> Result<()> {
    let mut plan = codec::plan(binding, next_ns_id, images, crypt.is_some());
    // An encrypted database's names and counts are sealed (docs/FORMAT.md).
    if let Some(c) = crypt {
        plan.seal_table(|aad, plain| c.seal_blob(aad, plain))?;
    }
    // Never through a link planted at the temp name (fs::create_fresh).
    let f = efs::create_fresh(tmp)?;
    if let Some(like) = like {
        efs::match_permissions(&f, like, if crypt.is_some() { 0o600 } else { 0o666 });
    }
    let io = |e| Error::io("write", Some(tmp), e);
    let put = |buf: &[u8], at: u64| {
        if cancel.is_some_and(|s| s.stopped()) {
            return Err(closing_error(tmp));
        }
        fault::write_all_at(faults, WriteSite::Checkpoint, &f, buf, at).map_err(io)
    };
    let h = &plan.header;
    // Slot pages, gathered in chunks of whole pages.
    let mut crcs: Vec<u8> = Vec::with_capacity(h.page_count as usize * 4);
    let mut buf: Vec<u8> = Vec::with_capacity(WRITE_CHUNK + PAGE);
    let mut buf_at = h.pages_at;
    let mut emit = |buf: &mut Vec<u8>, buf_at: &mut u64, all: bool| -> Result<()> {
        let whole = if all {
            buf.len().next_multiple_of(PAGE)
        } else {
            buf.len() - buf.len() % PAGE
        };
        buf.resize(buf.len().max(whole), 0);
        for page in buf[..whole].chunks(PAGE) {
            crcs.extend_from_slice(&crate::format::crc::crc32(page).to_le_bytes());
        }
        // In pieces of at most WRITE_CHUNK (a block can be far larger).
        for piece in buf[..whole].chunks(WRITE_CHUNK) {
            put(piece, *buf_at)?;
            *buf_at += piece.len() as u64;
        }
        buf.drain(..whole);
        Ok(())
    };
    for b in &plan.blocks {
        let pad = (b.at - (buf_at + buf.len() as u64)) as usize;
        buf.resize(buf.len() + pad, 0);
        match (b.kind, crypt) {
            // An encrypted database's order is sealed in chunks
            // (docs/FORMAT.md), written a few at a time.
            (codec::BlockKind::Sorted { ns }, Some(c)) => {
                let img = &images[ns];
                let len = img.sorted.as_ref().map_or(0, SortedBlock::len) as u64;
                let mut chunk = 0u64;
                let mut seal = |plain: &[u8], buf: &mut Vec<u8>| -> Result<()> {
                    codec::seal_sorted_chunk(
                        h,
                        img.id,
                        len,
                        chunk,
                        plain,
                        |aad, plain| c.seal_blob(aad, plain),
                        buf,
                    )?;
                    chunk += 1;
                    match buf.len() >= WRITE_CHUNK {
                        true => emit(buf, &mut buf_at, false),
                        false => Ok(()),
                    }
                };
                // A chunk's worth of offsets at a time, as little-endian bytes.
                const CHUNK_BYTES: usize = codec::SORTED_CHUNK * 8;
                let mut plain = Vec::with_capacity(2 * CHUNK_BYTES + PAGE);
                match &img.sorted {
                    Some(SortedBlock::Offsets(o)) => {
                        for offs in o.chunks(codec::SORTED_CHUNK) {
                            plain.clear();
                            for off in offs {
                                plain.extend_from_slice(&off.to_le_bytes());
                            }
                            seal(&plain, &mut buf)?;
                        }
                    }
                    Some(SortedBlock::Patch(p)) => {
                        p.write(&mut plain, CHUNK_BYTES, |plain| {
                            let whole = plain.len() - plain.len() % CHUNK_BYTES;
                            for bytes in plain[..whole].chunks(CHUNK_BYTES) {
                                seal(bytes, &mut buf)?;
                            }
                            plain.drain(..whole);
                            Ok(())
                        })?;
                        if !plain.is_empty() {
                            seal(&plain, &mut buf)?;
                        }
                    }
                    None => {}
                }
            }
            // Written in one pass over the order it patches, in pieces.
            (codec::BlockKind::Sorted { ns }, None) => {
                if let Some(SortedBlock::Patch(p)) = &images[ns].sorted {
                    p.write(&mut buf, WRITE_CHUNK, |buf| emit(buf, &mut buf_at, false))?;
                } else {
                    block_bytes(images, b.kind, &mut buf);
                }
            }
            _ => block_bytes(images, b.kind, &mut buf),
        }
        if buf.len() >= WRITE_CHUNK {
            emit(&mut buf, &mut buf_at, false)?;
        }
    }
    // Slots read from a mapped checkpoint that another process cut
    // meanwhile were the SIGBUS handler's zeros (a checkpoint at close
    // reads the index's own slots while it writes them).
    images
        .iter()
        .flat_map(|i| &i.shards)
        .try_for_each(|s| s.entries.check_cut())?;
    let pad = (h.crcs_at - (buf_at + buf.len() as u64)) as usize;
    buf.resize(buf.len() + pad, 0);
    emit(&mut buf, &mut buf_at, true)?;
    debug_assert_eq!(buf_at, h.crcs_at);
    debug_assert_eq!(crcs.len() as u64, h.page_count * 4);
    put(&crcs, h.crcs_at)?;
    let mut head = h.encode();
    head.extend_from_slice(&plan.table);
    head.resize(h.pages_at as usize, 0);
    put(&head, 0)?;
    f.sync_all().map_err(|e| Error::io("fsync", Some(tmp), e))?;
    fault::note(faults, || FsEvent::Synced(tmp.to_path_buf()));
    Ok(())
}

/// The sort of a snapshot's keys, over a file another process cut inside
/// a page after the snapshot checked it (see docs/ARCHITECTURE.md, "A file
/// truncated by another process").
#[cfg(test)]
mod cut_tests {
    use crate::{Emdb, Error};

    /// `write_temp` of a snapshot of 64 keys after the bytes from one byte
    /// into the last record's header were lost: cut (`cut`) or zeroed in
    /// place. The sort decodes the lost header.
    fn sorted_after_loss(cut: bool) -> crate::Result<std::path::PathBuf> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sort.emdb");
        let db = Emdb::builder()
            .path(&path)
            .background(false)
            .build()
            .unwrap();
        for i in 0..64u32 {
            db.insert(format!("key{i:03}"), vec![b'v'; 1000]).unwrap();
        }
        let mut snap = db.engine_arc().checkpoint_snapshot().unwrap().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let at = bytes.windows(6).rposition(|w| w == b"key063").unwrap() - 8 + 1;
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        if cut {
            f.set_len(at as u64).unwrap();
        } else {
            std::os::unix::fs::FileExt::write_all_at(&f, &[0; 8], at as u64).unwrap();
        }
        snap.write_temp(".tmp")
    }

    /// A checkpoint at close writes the index's own slots
    /// (`Slots::Live`) after its sort, and the slots of an index opened
    /// over a mapped checkpoint lie in that file. Another process cutting
    /// the file between the sort and the write of the slots (the length of
    /// `write_file`) makes them read as the SIGBUS handler's zeros: the
    /// write must fail, not install a checkpoint whose sorted block still
    /// counts every key (so open takes it) while its slots lost them.
    #[test]
    fn a_live_checkpoint_whose_mapped_slots_are_cut_while_written_loses_no_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.emdb");
        let open = || {
            Emdb::builder()
                .path(&path)
                .background(false)
                .build()
                .unwrap()
        };
        let n = 20_000u32;
        let db = open();
        for i in 0..n {
            db.insert(format!("key{i:06}"), [1u8; 16]).unwrap();
        }
        db.checkpoint().unwrap();
        drop(db);
        // Reopened: the slots lie in the mapped checkpoint. Every key is
        // rewritten in place (no shard grows), a tail longer than the log
        // before it, so the sort sorts all and reads no old order.
        let db = open();
        for i in 0..n {
            db.insert(format!("key{i:06}"), [2u8; 40]).unwrap();
        }
        let e = db.engine_arc();
        let written = {
            let _m = e.lock_maintenance();
            let mut snap = e.checkpoint_snapshot().unwrap().unwrap();
            let w = e.lock_writer();
            // The images as `snapshot_locked(&w, true)` takes them at close.
            for (img, (ns, _)) in snap.images.iter_mut().zip(&snap.entries) {
                *img = ns.keydir.image(ns.id, &ns.name, true).unwrap();
            }
            snap.fenced = false;
            // `write_temp` is this sort, then `write_file`: the cut lands
            // between the two.
            snap.sort().unwrap();
            std::fs::OpenOptions::new()
                .write(true)
                .open(&snap.path)
                .unwrap()
                .set_len(4096)
                .unwrap();
            let tmp = crate::fs::sibling(&snap.path, ".tmp");
            let r = super::write_file(
                &tmp,
                None,
                snap.binding,
                snap.next_ns_id,
                &snap.images,
                None,
                None,
                None,
            );
            drop(w);
            r.and_then(|()| e.install_checkpoint(&snap, &tmp))
        };
        drop(db);
        if let Err(e) = written {
            assert!(e.to_string().contains("truncated"), "{e}");
            return;
        }
        let db = open();
        assert!(db.recovery_report().used_checkpoint);
        assert_eq!(db.len().unwrap() as u64, u64::from(n));
        let lost = (0..n)
            .filter(|i| db.get(format!("key{i:06}")).unwrap().is_none())
            .count();
        assert_eq!(lost, 0, "keys lost by the checkpoint written at close");
    }

    #[test]
    fn a_sort_over_a_cut_inside_a_page_reports_the_cut_and_damage_stays_damage() {
        for cut in [true, false] {
            match sorted_after_loss(cut) {
                Err(Error::Corruption { reason, .. }) => {
                    assert_eq!(
                        reason.contains("truncated by another process"),
                        cut,
                        "{reason}"
                    );
                }
                other => panic!("cut {cut}: {other:?}"),
            }
        }
    }
}

#[cfg(all(test, feature = "encrypt"))]
mod tests {
    use super::*;
    use crate::crypto::{Cipher, EncryptionInput, KdfParams};
    use crate::format::checkpoint::{encode_v2, ShardImage};

    fn crypt(key: u8) -> Crypt {
        let input = EncryptionInput::Key([key; 32]);
        match Crypt::create(&input, Cipher::Aes256Gcm, KdfParams::default(), [3; 16]) {
            Ok((c, _)) => c,
            Err(e) => panic!("keys: {e}"),
        }
    }

    fn images() -> Vec<NsImage> {
        vec![NsImage {
            id: 4,
            name: b"hidden-name".to_vec(),
            live_bytes: 0,
            expiring: 0,
            shards: vec![ShardImage::default(); crate::index::SHARDS],
            sorted: None,
        }]
    }

    fn binding() -> Binding {
        Binding {
            db_id: [3; 16],
            generation: 0,
            covered_end: 4096,
            last_frame_at: 0,
            last_frame_crc: 0,
        }
    }

    fn names(loaded: Loaded) -> Vec<Vec<u8>> {
        match loaded {
            Loaded::V2 { metas, .. } => metas.into_iter().map(|m| m.name).collect(),
            Loaded::V1(_) => panic!("version 1"),
        }
    }

    #[test]
    fn a_background_checkpoint_gives_up_once_the_engine_closes_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let stop = crate::engine::Stop::default();
        stop.stop();
        // Between pieces of the write: the first piece is refused.
        let tmp = dir.path().join("cancelled.ckpt");
        let e =
            write_file(&tmp, None, binding(), 5, &images(), None, None, Some(&stop)).unwrap_err();
        assert!(e.to_string().contains("closing"), "{e}");
        // Before the sort, through a snapshot, which removes its temp file.
        let path = dir.path().join("db.emdb");
        let db = crate::Emdb::builder()
            .path(&path)
            .background(false)
            .build()
            .unwrap();
        db.insert("k", "v").unwrap();
        let mut snap = db.engine_arc().checkpoint_snapshot().unwrap().unwrap();
        snap.cancel = Some(std::sync::Arc::new(stop));
        let e = snap.write_temp(".auto.tmp").unwrap_err();
        assert!(e.to_string().contains("closing"), "{e}");
        assert!(!sibling(&snap.path, ".auto.tmp").exists());
        // Without the flag set, the same write goes through.
        snap.cancel = Some(Default::default());
        let written = snap.write_temp(".auto.tmp").unwrap();
        assert!(written.exists());
    }

    #[test]
    fn a_sealed_table_opens_only_with_its_key_and_a_plain_one_not_with_a_key() {
        let dir = tempfile::tempdir().unwrap();
        let shards = crate::index::SHARDS;
        let (key, other) = (crypt(1), crypt(2));
        let sealed = dir.path().join("sealed.ckpt");
        write_file(
            &sealed,
            None,
            binding(),
            5,
            &images(),
            Some(&key),
            None,
            None,
        )
        .unwrap();
        let bytes = std::fs::read(&sealed).unwrap();
        assert!(!bytes.windows(11).any(|w| w == b"hidden-name"));
        let got = open(&sealed, shards, Some(&key)).unwrap().unwrap();
        assert_eq!(names(got), vec![b"hidden-name".to_vec()]);
        for (who, c) in [("another key", Some(&other)), ("no key", None)] {
            assert!(open(&sealed, shards, c).is_err(), "{who}");
        }
        // A table in clear (a plain database's, or an encrypted one's
        // written before tables were sealed) is refused with a key.
        let plain = dir.path().join("plain.ckpt");
        std::fs::write(&plain, encode_v2(binding(), 5, &images())).unwrap();
        let why = open(&plain, shards, Some(&key)).err().unwrap();
        assert!(why.contains("authentication"), "{why}");
        let got = open(&plain, shards, None).unwrap().unwrap();
        assert_eq!(names(got), vec![b"hidden-name".to_vec()]);
    }
}
