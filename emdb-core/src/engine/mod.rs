//! The shared engine behind every `Emdb` handle: the write path, the read
//! path, flush, checkpoints, close, and namespace, count and expiry
//! operations, in one `impl Engine` over private fields. Its parts are types
//! of their own: `open.rs` (open and recover a file, [`open::Opened`]),
//! `writer.rs` ([`WriterState`], [`Batch`]), `durability.rs` (sync
//! coverage, group commit, sync slots, poisoning). Compaction, backups,
//! encryption rewrites and follower refreshes are functions above the
//! engine that call it (docs/ARCHITECTURE.md, "Module map").
//!
//! Lock order (never taken the other way round): `maintenance` (compaction,
//! checkpoint) -> `writer` -> `slots`. Readers take none of these: they load
//! the current [`Generation`] through an `ArcSwap` and read-lock one index
//! shard.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use arc_swap::ArcSwap;
use parking_lot::{Mutex, MutexGuard};

pub(crate) use crate::clock::now_ms;
use crate::config::Config;
use crate::crypto::Crypt;
use crate::error::{Error, Result};
use crate::flush::FlushPolicy;
use crate::format::checkpoint::Binding;
use crate::format::header::{Identity, SyncSlot, HEADER_SIZE};
use crate::format::record::{Frame, FrameSpec, Kind};
use crate::fs::{self as efs};
use crate::index::SHARDS;
use crate::limits::{MAX_KEY_LEN, MAX_NAMESPACE_NAME_LEN, MAX_VALUE_LEN};
use crate::lock::WriterLock;
use crate::log::{Log, Region};
use crate::namespace::{open_frame, read_at, read_at_checked, NsEntry, NsTable};
use crate::recovery::RecoveryReport;
use crate::replay;
use crate::sorted::{KeySource, View};
use crate::stats::{collect_stats, Counters, Stats};

mod bell;
mod durability;
mod handle;
mod open;
mod writer;

pub(crate) use crate::generation::Generation;
pub(crate) use bell::{Bell, Stop};
use durability::Durability;
pub(crate) use handle::Handle;
pub(crate) use open::{
    checkpoint_path, compact_tmp_path, crypt_for, enc_tmp_path, keys_fit, random_id, read_identity,
    refuse_foreign, writer_temps,
};
use open::{new_header_page, new_identity, open_dsync};
use writer::missing_ns;
pub(crate) use writer::{encode, encoded_len, Batch, WriterState};

/// Log between two tail indexes, given the `minimum` tail bound
/// (`checkpoint_tail`) and the log `indexed` since the checkpoint by the
/// newest one: half of what is indexed, at least a quarter of the minimum
/// and at most the minimum. A one-shot read then scans at most a quarter of
/// the minimum past a short tail's index (2 MiB by default) and at most the
/// minimum past a long one's, while each file (which holds the whole tail)
/// is rewritten each time the tail grows by half early on, and once per
/// minimum later.
fn tail_index_step(minimum: u64, indexed: u64) -> u64 {
    let floor = (minimum / 4).max(1);
    (indexed / 2).clamp(floor, minimum.max(floor))
}

/// What the automatic checkpointer should do ([`Engine::due`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Due {
    /// Nothing yet.
    Nothing,
    /// Write a checkpoint.
    Checkpoint,
    /// Write a tail index.
    TailIndex,
}

/// A tail index to write ([`Engine::tail_index_job`]).
pub(crate) struct TailIndexJob {
    /// The database file.
    pub db: PathBuf,
    /// Its header; `entries` and `page_count` are filled in when written.
    pub header: crate::tail_index::Header,
    /// The generation whose log it indexes.
    pub gen: Arc<Generation>,
    /// Every namespace's counts as of `header.end`, by id.
    pub counts: Vec<crate::tail_index::NsCounts>,
}

/// The engine shared by all clones of an `Emdb`.
///
/// Its fields are its own: other modules go through the methods below.
pub(crate) struct Engine {
    cfg: Config,
    gen: Arc<ArcSwap<Generation>>,
    writer: Mutex<WriterState>,
    /// Serialises compaction and checkpoints.
    maintenance: Mutex<()>,
    /// What is synced, group commit, the sync-slot sequence, poisoning.
    durability: Durability,
    /// Tells the background threads the engine is closing.
    stop: Arc<Stop>,
    /// The background threads (stats publisher, checkpointer, follower):
    /// dropping the engine waits for them, so a closed handle leaves no
    /// thread behind to free its memory or write its files later.
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
    /// The caller's handles ([`Handle`]) alive: the last one to go shuts
    /// the engine down on its own thread.
    users: AtomicUsize,
    /// Set by the first [`Engine::shut_down`]: the engine's own drop after
    /// its last handle's does not close again (a failed close would write
    /// its whole checkpoint again).
    shut: std::sync::atomic::AtomicBool,
    /// Records sealed under the current key before this open (from the
    /// newest sync slot).
    encryptions_base: AtomicU64,
    counters: Arc<Counters>,
    /// Rung when the log tail reaches the automatic checkpoint's bound.
    bell: Arc<Bell>,
    report: RecoveryReport,
    _lock: Option<WriterLock>,
}

/// True when a record with this expiry is no longer visible.
#[inline]
pub(crate) fn expired(expires_at: u64, now: u64) -> bool {
    expires_at != 0 && expires_at <= now
}

/// Log bytes past the newest checkpoint below which a clean close leaves the
/// tail for the next open to replay instead of rewriting the whole index
/// image (docs/ARCHITECTURE.md, "Checkpoints").
pub(crate) const CLOSE_TAIL: u64 = 64 << 10;

/// The log tail past the newest checkpoint below which a clean close
/// leaves it for the next open to replay. A handle with background threads
/// (a long-lived writer) uses [`CLOSE_TAIL`]. A handle opened for one
/// short call (`background(false)`) is likely followed by more of its
/// kind, each replaying what the others left: its bound balances that
/// replay against the checkpoint that resets it. With a checkpoint costing
/// `c` per byte of index image `image`, a replay `r` per byte of tail, and
/// `w` bytes written per call, checkpointing when the tail reaches `t`
/// costs each call about `r * t / 2` of replay plus `c * image * w / t` of
/// checkpoint, least at `t = sqrt(2 * w * image * c / r)`. Measured on
/// this project's machine (`benches/scripts/put_loop.sh`), `c` is about
/// 15 ns a byte (a one-shot call that checkpoints a 24 MiB image at 1M
/// keys takes 340-470 ms) and `r` about 19 (2.8 µs a record of 150 bytes,
/// mostly the copy-on-write page each record's slot takes), and `w` is
/// taken as 256 bytes: `t = sqrt(400 * image)`, about 97 KiB at 1M keys,
/// 305 KiB at 10M, 967 KiB at 100M (docs/ARCHITECTURE.md, "Checkpoints").
/// The CLI's one-shot writes go through [`keys_write_tail`] instead.
pub(crate) fn close_tail(background: bool, image: u64) -> u64 {
    if background {
        CLOSE_TAIL
    } else {
        CLOSE_TAIL.max(image.saturating_mul(400).isqrt())
    }
}

/// The log tail past the newest checkpoint at which a writer opened for a
/// few keys ([`crate::EmdbBuilder::write_keys`]: the CLI's `put`, `del
/// KEY`, `incr`, `decr`, `expire`, `persist`) has a checkpoint written
/// after it closes. Such an open does not index the tail, it only reads it
/// for those keys (a one-shot `emdb get` reads it the same way), at about
/// 0.7 ns a byte where indexing costs about 19: with the checkpoint's 15
/// ns per byte of image (see [`close_tail`]) the balance moves to
/// `sqrt(2 * w * image * c / r)` with `c / r` about 21; `w` is taken as 93
/// bytes here (a shorter tail for the one-shot reads that scan it too), so
/// `t = sqrt(4096 * image)`: about 315 KiB at 1M keys, 980 KiB at 10M.
pub(crate) fn keys_write_tail(image: u64) -> u64 {
    CLOSE_TAIL.max(image.saturating_mul(4096).isqrt())
}

/// Bytes of index image a checkpoint of `gen` writes (its keydirs' slots).
fn image_bytes(gen: &Generation) -> u64 {
    gen.ns_table()
        .all()
        .iter()
        .map(|n| n.keydir.memory_bytes() as u64)
        .sum()
}

/// Preallocated zeros past the logical end that a clean close leaves in
/// place (up to a handle's first growth step: 1 MiB, rounded up to a MiB
/// boundary): trimming them would cost a second metadata sync, and the
/// next writer would allocate them again for its first record.
pub(crate) const CLOSE_KEEP_SPARE: u64 = 2 << 20;

/// Whether a file of `len` bytes whose log ends at `end` keeps its spare
/// of zeros at a clean close (and at the next writer's open): at most
/// [`CLOSE_KEEP_SPARE`], and at most 1/32 of the log, so small databases
/// are still trimmed to their end.
pub(crate) fn keeps_spare(end: u64, len: u64) -> bool {
    let spare = len.saturating_sub(end);
    spare <= CLOSE_KEEP_SPARE && spare <= end / 32
}

/// Validate key and value sizes.
#[inline]
pub(crate) fn check_sizes(key: &[u8], value: &[u8]) -> Result<()> {
    if key.len() > MAX_KEY_LEN {
        return Err(Error::KeyTooLarge {
            len: key.len(),
            max: MAX_KEY_LEN,
        });
    }
    if value.len() > MAX_VALUE_LEN {
        return Err(Error::ValueTooLarge {
            len: value.len(),
            max: MAX_VALUE_LEN,
        });
    }
    Ok(())
}

impl Engine {
    /// Now, by the configured clock (ms since the Unix epoch).
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        self.cfg.clock.now_unix_ms()
    }

    /// The options this engine was opened with.
    #[inline]
    pub(crate) fn cfg(&self) -> &Config {
        &self.cfg
    }

    /// The current generation (log and indexes), without a reference count:
    /// for reads that do not outlive the call.
    #[inline]
    pub(crate) fn gen(&self) -> arc_swap::Guard<Arc<Generation>> {
        self.gen.load()
    }

    /// The current generation, held.
    #[inline]
    pub(crate) fn gen_arc(&self) -> Arc<Generation> {
        self.gen.load_full()
    }

    /// Make `gen` the current generation (compaction's swap, a follower's
    /// reopen). Callers hold the writer lock.
    pub(crate) fn install(&self, gen: Arc<Generation>) {
        self.gen.store(gen);
    }

    /// The cell holding the current generation, for the stats publisher
    /// thread (which must not keep the engine alive).
    pub(crate) fn generations(&self) -> Arc<ArcSwap<Generation>> {
        Arc::clone(&self.gen)
    }

    /// Take the writer lock (lock order: after `maintenance`).
    pub(crate) fn lock_writer(&self) -> MutexGuard<'_, WriterState> {
        self.writer.lock()
    }

    /// Take the maintenance lock (compaction, checkpoints).
    pub(crate) fn lock_maintenance(&self) -> MutexGuard<'_, ()> {
        self.maintenance.lock()
    }

    /// [`Engine::lock_maintenance`], unless another holds it.
    pub(crate) fn try_lock_maintenance(&self) -> Option<MutexGuard<'_, ()>> {
        self.maintenance.try_lock()
    }

    /// The automatic checkpointer's bell.
    pub(crate) fn bell(&self) -> &Arc<Bell> {
        &self.bell
    }

    /// Activity counters.
    pub(crate) fn counters(&self) -> &Arc<Counters> {
        &self.counters
    }

    /// What open found and did while recovering.
    pub(crate) fn recovery_report(&self) -> &RecoveryReport {
        &self.report
    }

    /// What tells background threads the engine is closing.
    pub(crate) fn stop_flag(&self) -> Arc<Stop> {
        Arc::clone(&self.stop)
    }

    /// True once the engine is closing.
    pub(crate) fn stopping(&self) -> bool {
        self.stop.stopped()
    }

    /// Close the engine and wait for its background threads: what the
    /// last caller's handle does when dropped ([`Handle`]), and dropping
    /// the engine. Best effort: a failed close leaves a log that recovery
    /// handles.
    fn shut_down(&self) {
        self.stop.stop();
        // The checkpointer waits on the bell: let it see the engine is gone.
        self.bell.ring();
        let closing = !self.shut.swap(true, Ordering::SeqCst);
        if closing {
            let _ = self.close();
        }
        // Each thread ends at its next look (none sleeps now). Measured
        // before this wait: the checkpointer freeing its tail map after
        // the close held the allocator's lock for 2-5 ms of the next open.
        // A background thread that held the last `Arc` runs this itself
        // (from the engine's drop), and ends when it returns.
        let me = std::thread::current().id();
        let threads = std::mem::take(&mut *self.threads.lock());
        for t in threads {
            if t.thread().id() != me {
                let _ = t.join();
            }
        }
        // After the close (whose own sync may be the one that failed) and
        // the background threads (a checkpointer's sync too).
        if closing && self.durability.is_poisoned() {
            self.cut_unsynced();
        }
    }

    /// Keep a background thread to wait for when the engine is dropped.
    pub(crate) fn adopt_thread(&self, thread: std::thread::JoinHandle<()>) {
        self.threads.lock().push(thread);
    }

    fn assemble(
        cfg: Config,
        gen: Generation,
        w: WriterState,
        report: RecoveryReport,
        lock: Option<WriterLock>,
    ) -> Engine {
        Engine {
            cfg,
            gen: Arc::new(ArcSwap::from_pointee(gen)),
            writer: Mutex::new(w),
            maintenance: Mutex::new(()),
            durability: Durability::new(),
            stop: Arc::default(),
            threads: Mutex::new(Vec::new()),
            users: AtomicUsize::new(0),
            shut: std::sync::atomic::AtomicBool::new(false),
            encryptions_base: AtomicU64::new(0),
            counters: Arc::new(Counters::default()),
            bell: Arc::default(),
            report,
            _lock: lock,
        }
    }

    /// An empty in-memory engine (encrypted when `cfg` has a key).
    pub(crate) fn open_memory(cfg: Config) -> Result<Engine> {
        if cfg.encryption.is_none() {
            return Ok(Engine::open_memory_plain(cfg));
        }
        let page = new_header_page(&cfg)?;
        let identity = Identity::decode(&page).map_err(|_| Error::corruption(0, "new header"))?;
        let crypt = crypt_for(&cfg, Path::new("(memory)"), &identity, &page)?;
        Ok(Engine::memory_with(cfg, Log::in_memory(identity), crypt))
    }

    /// An empty, unencrypted in-memory engine.
    pub(crate) fn open_memory_plain(cfg: Config) -> Engine {
        Engine::memory_with(cfg, Log::in_memory(new_identity()), None)
    }

    fn memory_with(cfg: Config, log: Log, crypt: Option<Arc<Crypt>>) -> Engine {
        let w = WriterState {
            end: HEADER_SIZE as u64,
            last_frame_at: 0,
            checkpointed_end: HEADER_SIZE as u64,
            tail_indexed_end: 0,
            closed_end: None,
        };
        Engine::assemble(
            cfg,
            Generation::new(log, NsTable::new(crypt)),
            w,
            RecoveryReport::default(),
            None,
        )
    }

    /// Open (creating if needed) a file-backed engine, recovering the log.
    pub(crate) fn open_file(cfg: Config, path: PathBuf) -> Result<Engine> {
        let o = open::open_file(cfg, path)?;
        let engine = Engine::assemble(o.cfg, o.gen, o.writer, o.report, o.lock);
        engine
            .encryptions_base
            .store(o.encryptions, Ordering::Relaxed);
        // Later slots must outrank the ones already in the file.
        *engine.durability.slots_lock() = o.claimed_seq;
        Ok(engine)
    }

    /// True when the log lives in a file.
    pub(crate) fn is_file(&self) -> bool {
        self.gen.load().log().file.is_some()
    }

    /// Path of the log file, if any.
    pub(crate) fn path(&self) -> Option<PathBuf> {
        self.gen.load().log().path().map(Path::to_path_buf)
    }

    // ---- read path -------------------------------------------------------

    /// Look `key` up in namespace `ns_id` and hand its frame to `hit` (its CRC
    /// verified unless the database was opened with `verify_reads(false)`).
    #[inline]
    pub(crate) fn lookup<T>(
        &self,
        gen: &Generation,
        ns: &NsEntry,
        key: &[u8],
        hit: impl FnMut(&Arc<Region>, u64, &Frame<'_>) -> T,
    ) -> Result<Option<T>> {
        self.lookup_checked(gen, ns, key, self.cfg.verify_reads, hit)
    }

    /// [`Engine::lookup`] with the CRC check forced on or off (writes that
    /// copy a value they read verify it whatever `verify_reads` says).
    #[inline]
    pub(crate) fn lookup_checked<T>(
        &self,
        gen: &Generation,
        ns: &NsEntry,
        key: &[u8],
        verify: bool,
        mut hit: impl FnMut(&Arc<Region>, u64, &Frame<'_>) -> T,
    ) -> Result<Option<T>> {
        let mut out = None;
        ns.keydir.get(ns.hash(key), |off| {
            let region = gen.log().region();
            let mut scratch = zeroize::Zeroizing::new(Vec::new());
            let bytes = gen.bytes(&region);
            let found =
                read_at_checked(bytes, off, ns.crypt(), &mut scratch, verify).and_then(|f| {
                    if f.key != key {
                        return Ok(false);
                    }
                    check_indexed(&f, ns.id, off)?;
                    // The clock is read only for records that can expire.
                    if f.expires_at == 0 || !expired(f.expires_at, self.now()) {
                        out = Some(hit(&region, off, &f));
                    }
                    Ok(true)
                });
            // After `hit` has read the value: the file may have been cut under it.
            gen.log().vouch_frame(&region, bytes, off, found)
        })?;
        if out.is_none() {
            // A miss may have read no record to vouch for: a read-only
            // handle that could not follow the file must not answer
            // "absent" from its old view.
            gen.log().fresh()?;
        }
        Ok(out)
    }

    // ---- write path ------------------------------------------------------

    /// Refuse what needs the whole index (a checkpoint, a compaction, a
    /// tail index) on a writer opened for a few keys
    /// ([`crate::EmdbBuilder::write_keys`]): its index holds only those
    /// keys of the log written since the checkpoint.
    pub(crate) fn check_whole(&self) -> Result<()> {
        match (&self.cfg.only_keys, self.cfg.read_only) {
            (Some(_), false) => Err(Error::KeysOnly),
            _ => Ok(()),
        }
    }

    fn check_writable(&self) -> Result<()> {
        if self.cfg.read_only {
            return Err(Error::ReadOnly);
        }
        self.durability.check()
    }

    /// Refuse every later write: what is durable is no longer known.
    pub(crate) fn poison(&self, e: &Error) {
        self.durability.poison(e.to_string());
    }

    /// [`Log::fill`] on the writer's behalf. Its errors poison the handle
    /// when the file was cut short by another process, or when they are
    /// I/O errors: a staged write (which `fill` may issue) failed, and part
    /// of it may be in the file.
    fn fill_log(
        &self,
        log: &Log,
        at: u64,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> Result<()>,
    ) -> Result<()> {
        log.fill(at, len, fill).map_err(|e| {
            if log.cut().is_some() || matches!(e, Error::Io { .. }) {
                self.poison(&e);
            }
            e
        })
    }

    /// Take the writer lock and the current generation.
    pub(crate) fn begin_write(&self) -> Result<(MutexGuard<'_, WriterState>, Arc<Generation>)> {
        self.check_writable()?;
        let w = self.writer.lock();
        // Poisoned while this waited for the lock: nothing more is written.
        self.durability.check()?;
        // Compaction swaps generations under the writer lock, so this is stable.
        let gen = self.gen.load_full();
        if let Some(at) = gen.log().cut() {
            // A reader found the file cut short by another process.
            let e = gen.log().cut_found(at);
            self.poison(&e);
            return Err(e);
        }
        if let Some(slot) = gen.log().foreign_slot() {
            return Err(self.displaced(foreign_slot_reason(&gen, slot.seq)));
        }
        Ok((w, gen))
    }

    /// Fail, poisoning the handle, when another process writes to this
    /// database too or the file is no longer this handle's: a sync slot this
    /// handle did not write is in the header, the lock file it holds is no
    /// longer at its name, or the file at the path is another one (renamed
    /// over or removed). Checked before anything is acknowledged as durable
    /// (flush, write-through write, checkpoint, close) and before compaction
    /// renames its file over the path: from then on, writing would land
    /// over another writer's records, or where nobody will read them.
    pub(crate) fn check_sole_writer(&self, gen: &Generation) -> Result<()> {
        let Some(lf) = gen.log().file.as_ref().filter(|_| !self.cfg.read_only) else {
            return Ok(());
        };
        if let Some(slot) = gen.log().foreign_slot() {
            return Err(self.displaced(foreign_slot_reason(gen, slot.seq)));
        }
        if let Some(Err(reason)) = self._lock.as_ref().map(WriterLock::still_held) {
            return Err(self.displaced(reason));
        }
        if efs::file_id_at(&lf.path)? != Some(efs::file_id(&lf.file, &lf.path)?) {
            let reason = format!(
                "{} is no longer the file this handle opened (another process renamed \
                 a file over it or removed it); what this handle writes would be lost",
                lf.path.display()
            );
            return Err(self.displaced(reason));
        }
        Ok(())
    }

    /// The last handle of one poisoned by a failed sync is closing: cut the
    /// log back to what is known to be on disk ([`Log::cut_unsynced`]),
    /// under the writer lock, if the file is still this handle's. If even
    /// that fails, the bytes stay for the next open to take up.
    fn cut_unsynced(&self) {
        let _w = self.writer.lock();
        let gen = self.gen.load_full();
        // Already poisoned: the check's own poisoning changes nothing.
        if self.check_sole_writer(&gen).is_ok() {
            let _ = gen.log().cut_unsynced();
        }
    }

    /// Run `made_durable` (an fdatasync, or a write-through write) under
    /// the log's sync lock, then note everything below `end` as on disk,
    /// unless the handle was poisoned by then: a sync that failed on
    /// another thread meanwhile may have had pages dropped that this one
    /// then found clean, so once poisoned nothing more is acknowledged.
    /// What `made_durable` returns as an error is returned as is.
    fn note_durable(
        &self,
        log: &Log,
        end: u64,
        made_durable: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let _s = log.sync_lock();
        made_durable()?;
        self.durability.check()?;
        log.note_synced(end);
        Ok(())
    }

    /// fdatasync the log and note everything below `end` as on disk (see
    /// [`Engine::note_durable`]). A failed fdatasync poisons the handle.
    pub(crate) fn sync_log(&self, log: &Log, end: u64) -> Result<()> {
        self.note_durable(log, end, || log.sync_data().inspect_err(|e| self.poison(e)))
    }

    /// Poison the handle because another process took the file over.
    #[cold]
    fn displaced(&self, reason: String) -> Error {
        self.durability.poison(reason.clone());
        Error::Poisoned(reason)
    }

    /// Poison the handle when `e` comes from the log having been cut short
    /// by another process: what was acknowledged is gone, and growing the
    /// file again would bury the loss under zeros. Other errors pass as is.
    pub(crate) fn poison_if_cut(&self, log: &Log, e: Error) -> Error {
        if log.cut().is_some() {
            self.poison(&e);
        }
        e
    }

    fn write_through(&self) -> bool {
        matches!(self.cfg.flush_policy, FlushPolicy::WriteThrough)
    }

    /// Append one frame at the end of the log; returns its offset and length.
    pub(crate) fn append(
        &self,
        w: &mut WriterState,
        gen: &Generation,
        spec: &FrameSpec<'_>,
    ) -> Result<(u64, u64)> {
        let crypt = gen.crypt().as_deref();
        let len = encoded_len(spec, crypt);
        let off = w.end;
        gen.log()
            .ensure_capacity(off, off + len as u64)
            .map_err(|e| self.poison_if_cut(gen.log(), e))?;
        if self.write_through() && gen.log().file.is_some() {
            // Each write-through write is acknowledged on return.
            self.check_sole_writer(gen)?;
            let mut buf = vec![0u8; len];
            encode(spec, crypt, off, &mut buf)?;
            let written = self.note_durable(gen.log(), off + len as u64, || {
                gen.log().write_through(off, &buf)
            });
            if let Err(e) = written {
                let e = self.poison_if_cut(gen.log(), e);
                // Part of the frame may have landed, durably: wipe it, or a
                // shorter frame written here next would be followed by its
                // remains (which could decode). If even that fails, what the
                // file holds at the end is unknown: refuse further writes.
                if gen.log().wipe_through(off, len).is_err() {
                    self.poison(&e);
                }
                return Err(e);
            }
        } else {
            self.fill_log(gen.log(), off, len, |d| encode(spec, crypt, off, d))?;
        }
        w.end = off + len as u64;
        w.last_frame_at = off;
        Ok((off, len as u64))
    }

    /// Publish everything appended so far.
    ///
    /// A failed write poisons the handle: part of the bytes may be in the
    /// file, so what follows the durable end is no longer known.
    pub(crate) fn publish(&self, w: &WriterState, gen: &Generation, records: u64) -> Result<()> {
        if let Err(e) = gen.log().publish_written(w.end) {
            self.poison(&e);
            return Err(e);
        }
        self.durability.published();
        self.counters.writes.fetch_add(records, Ordering::Relaxed);
        self.bell.check(w.end);
        Ok(())
    }

    /// Insert or replace a key.
    pub(crate) fn put(&self, ns_id: u32, key: &[u8], value: &[u8], expires_at: u64) -> Result<()> {
        check_sizes(key, value)?;
        let (mut w, gen) = self.begin_write()?;
        let ns = gen.ns(ns_id).ok_or_else(|| missing_ns(ns_id))?;
        let (off, len) =
            self.append(&mut w, &gen, &FrameSpec::put(ns_id, key, value, expires_at))?;
        self.publish(&w, &gen, 1)?;
        let region = gen.log().region();
        let bytes = gen.bytes(&region);
        // Indexing reads the record the key had (to confirm its key).
        let indexed = ns.index_put_parts(bytes, off, key, len, expires_at);
        gen.log().vouch_read(&region, bytes, indexed)
    }

    /// Remove a key; returns its value if it was live.
    pub(crate) fn delete(&self, ns_id: u32, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if key.len() > MAX_KEY_LEN {
            return Ok(None);
        }
        let (mut w, gen) = self.begin_write()?;
        let ns = gen.ns(ns_id).ok_or_else(|| missing_ns(ns_id))?;
        let now = self.now();
        let old = {
            let region = gen.log().region();
            let bytes = gen.bytes(&region);
            let mut found = None;
            let looked = ns.keydir.get(ns.hash(key), |o| {
                let mut scratch = zeroize::Zeroizing::new(Vec::new());
                let f = read_at(bytes, o, ns.crypt(), &mut scratch)?;
                if f.key != key {
                    return Ok(false);
                }
                found = Some((!expired(f.expires_at, now)).then(|| f.value.to_vec()));
                Ok(true)
            });
            gen.log().vouch_read(&region, bytes, looked)?;
            found
        };
        let Some(value) = old else {
            return Ok(None);
        };
        let (at, _) = self.append(&mut w, &gen, &FrameSpec::delete(ns_id, key))?;
        self.publish(&w, &gen, 1)?;
        let region = gen.log().region();
        let bytes = gen.bytes(&region);
        let unindexed = ns.index_delete(bytes, key, at);
        gen.log().vouch_read(&region, bytes, unindexed)?;
        Ok(value)
    }

    /// Start an atomic batch.
    pub(crate) fn batch(&self) -> Result<Batch<'_>> {
        let (w, gen) = self.begin_write()?;
        Ok(Batch::new(self, w, gen))
    }

    // ---- durability ------------------------------------------------------

    /// Make every write that returned before this call durable.
    pub(crate) fn flush(&self) -> Result<()> {
        self.counters.flushes.fetch_add(1, Ordering::Relaxed);
        if !self.is_file() || self.cfg.read_only {
            return Ok(());
        }
        self.check_writable()?;
        match self.cfg.flush_policy {
            FlushPolicy::Group {
                max_wait,
                max_batch,
            } => self.durability.group_flush(
                max_wait,
                max_batch.max(1),
                || self.check_writable(),
                || self.sync(),
            ),
            FlushPolicy::OnEachFlush | FlushPolicy::WriteThrough => self.sync(),
        }
    }

    /// One fdatasync covering every write published before it, then a sync
    /// slot recording the durable end.
    pub(crate) fn sync(&self) -> Result<()> {
        let target = self.durability.target();
        if self.durability.covers(target) {
            return Ok(());
        }
        let gen = self.gen.load_full();
        let end = gen.log().published_end();
        let t = Instant::now();
        self.sync_log(gen.log(), end)?;
        // After the sync: a file cut short by another process must not be
        // acknowledged as durable (one fstat next to an fdatasync).
        if let Err(e) = gen.log().check_intact() {
            self.poison(&e);
            return Err(e);
        }
        self.counters.record_fsync(t.elapsed());
        self.durability.mark_durable(target);
        let mut seq = self.durability.slots_lock();
        // Skip if compaction swapped generations meanwhile: the new file was
        // synced whole and carries its own slot. (Compaction holds the slots
        // lock from its slot write to the swap, so the file at the path is
        // this generation's here.)
        if Arc::ptr_eq(&gen, &self.gen.load()) {
            self.check_sole_writer(&gen)?;
            *seq += 1;
            if let Err(e) = gen.log().write_slot(SyncSlot {
                seq: *seq,
                durable_end: end,
                encryptions: self.encryptions(),
            }) {
                self.poison(&e);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Persist the index so the next open skips replaying the log.
    pub(crate) fn checkpoint(&self) -> Result<()> {
        self.checkpoint_with(true)
    }

    /// [`Engine::checkpoint`] for a handle about to close: its sorted
    /// blocks come without fences (built on use by whoever seeks them),
    /// since this handle will not seek them, and it is written from the
    /// index's own slots with the writer lock held, instead of a copy
    /// (no write is coming: at 10M keys the copy was 134 MB of fresh
    /// pages).
    pub(crate) fn checkpoint_before_close(&self) -> Result<()> {
        if self.cfg.read_only {
            return Err(Error::ReadOnly);
        }
        if !self.is_file() {
            return Ok(());
        }
        let _m = self.maintenance.lock();
        self.check_writable()?;
        let w = self.writer.lock();
        self.sync()?;
        let Some(mut snap) = self.snapshot_locked(&w, true)? else {
            return Ok(());
        };
        snap.fenced = false;
        let tmp = snap.write_temp(crate::checkpoint::TEMP)?;
        // Installing hands sorted blocks over under the writer lock.
        drop(w);
        self.install_checkpoint(&snap, &tmp)
    }

    fn checkpoint_with(&self, fenced: bool) -> Result<()> {
        if self.cfg.read_only {
            return Err(Error::ReadOnly);
        }
        if !self.is_file() {
            return Ok(());
        }
        let _m = self.maintenance.lock();
        self.checkpoint_locked(fenced)
    }

    /// Checkpoint with `maintenance` held; the sorted blocks with their
    /// fences if `fenced`.
    pub(crate) fn checkpoint_locked(&self, fenced: bool) -> Result<()> {
        let Some(snap) = self.checkpoint_snapshot()? else {
            return Ok(());
        };
        let mut snap = snap;
        snap.fenced = fenced;
        let tmp = snap.write_temp(crate::checkpoint::TEMP)?;
        self.install_checkpoint(&snap, &tmp)?;
        Ok(())
    }

    /// Copy the index for a checkpoint, bound to the current end of the log
    /// (synced first), with `maintenance` held; `None` in memory.
    pub(crate) fn checkpoint_snapshot(&self) -> Result<Option<crate::checkpoint::Snapshot>> {
        self.check_writable()?;
        let w = self.writer.lock();
        self.sync()?;
        self.snapshot_locked(&w, false)
    }

    /// [`Engine::checkpoint_snapshot`] without the sync, with the writer
    /// lock `w` held: the caller must sync the log before it installs the
    /// checkpoint (a checkpoint bound to records a crash then loses is
    /// rejected at open, which costs a replay, not data).
    ///
    /// With `live` the images are the index's own slots
    /// ([`crate::format::checkpoint::Slots::Live`]), not a copy: the
    /// caller keeps the writer lock until the snapshot is written.
    fn snapshot_locked(
        &self,
        w: &WriterState,
        live: bool,
    ) -> Result<Option<crate::checkpoint::Snapshot>> {
        self.check_whole()?;
        let gen = self.gen.load_full();
        let Some(path) = gen.log().path().map(Path::to_path_buf) else {
            return Ok(None);
        };
        let region = gen.log().region();
        let bytes = gen.bytes(&region);
        let (last_frame_at, last_frame_crc) = if w.end > HEADER_SIZE as u64 {
            (w.last_frame_at, replay::stored_crc(bytes, w.last_frame_at))
        } else {
            (0, 0)
        };
        let (images, entries, next_ns_id) = {
            let t = gen.ns_table();
            let all = t.all();
            (
                all.iter()
                    .map(|n| n.keydir.image(n.id, &n.name, live))
                    .collect::<Result<Vec<_>>>()?,
                all.into_iter()
                    .map(|n| {
                        let epoch = n.sorted.epoch();
                        (n, epoch)
                    })
                    .collect(),
                t.next_id,
            )
        };
        let binding = Binding {
            db_id: gen.log().identity.db_id,
            generation: gen.log().identity.generation,
            covered_end: w.end,
            last_frame_at,
            last_frame_crc,
        };
        // The image was read from the mapping; never bind it to a cut file,
        // nor write a checkpoint over another writer's.
        if let Err(e) = gen.log().check_intact() {
            return Err(self.poison_if_cut(gen.log(), e));
        }
        {
            let _slots = self.durability.slots_lock();
            self.check_sole_writer(&gen)?;
        }
        Ok(Some(crate::checkpoint::Snapshot {
            path: checkpoint_path(&path),
            binding,
            next_ns_id,
            images,
            faults: self.cfg.faults.clone(),
            gen: Arc::clone(&gen),
            entries,
            fences: Vec::new(),
            fenced: true,
            cancel: None,
        }))
    }

    /// Log end covered by the newest checkpoint this handle wrote or loaded
    /// (0: none, or the log was replaced since).
    pub(crate) fn checkpointed_end(&self) -> u64 {
        self.writer.lock().checkpointed_end
    }

    /// Rename the written checkpoint `tmp` of `snap` over the checkpoint
    /// file (durably), hand its sorted blocks to the namespaces, and note
    /// the log end it covers. With `maintenance` held.
    pub(crate) fn install_checkpoint(
        &self,
        snap: &crate::checkpoint::Snapshot,
        tmp: &Path,
    ) -> Result<()> {
        self.install_checkpoint_with(snap, tmp, || {})
    }

    /// [`Engine::install_checkpoint`], calling `between` after the records
    /// a dropped order takes up were listed without the writer lock and
    /// before the rest are listed under it (tests write there).
    pub(crate) fn install_checkpoint_with(
        &self,
        snap: &crate::checkpoint::Snapshot,
        tmp: &Path,
        between: impl FnOnce(),
    ) -> Result<()> {
        snap.install(tmp)?;
        // Kept orders first, outside the writer lock: this may wait for a
        // reader's refresh, which writers must not. The records a dropped
        // order takes up are listed outside it too, up to what is
        // published now.
        snap.adopt_kept_orders();
        let dropped = snap.list_dropped();
        between();
        let mut w = self.writer.lock();
        // Under the writer lock: no record lands while a dropped order is
        // taken up with what was written since (only the last part of it
        // is read here).
        snap.adopt_dropped_orders(dropped, w.end);
        w.checkpointed_end = w.checkpointed_end.max(snap.binding.covered_end);
        // It extended the checkpoint just replaced.
        w.tail_indexed_end = 0;
        if let Some(db) = self.gen.load().log().path() {
            crate::tail_index::remove(db);
        }
        Ok(())
    }

    /// Sync the log and describe a tail index of everything written since
    /// the checkpoint on disk, up to the end the writer had reached, with
    /// `maintenance` held: `None` without a checkpoint on disk and in
    /// memory (docs/ARCHITECTURE.md, "Tail indexes"; an encrypted
    /// database's is sealed). The entries come from [`crate::tail_index::Indexer`];
    /// when `gave_up` says it can write none for this checkpoint (the log
    /// past it holds a namespace change), the stretch is only noted as
    /// looked at, with no sync.
    pub(crate) fn tail_index_job(
        &self,
        gave_up: &dyn Fn(&crate::tail_index::Base) -> bool,
    ) -> Result<Option<TailIndexJob>> {
        self.check_writable()?;
        self.check_whole()?;
        // Counts read under the writer lock: every record before `end`
        // is in the index, and no other.
        let (base_end, end, last_frame_at, gen, counts) = {
            let w = self.writer.lock();
            let gen = self.gen.load_full();
            let counts = gen
                .ns_table()
                .all()
                .iter()
                .map(|ns| crate::tail_index::NsCounts {
                    ns: ns.id,
                    live: ns.keydir.len(),
                    live_bytes: ns.keydir.live_bytes(),
                    expiring: ns.keydir.expiring(),
                })
                .collect::<Vec<_>>();
            (w.checkpointed_end, w.end, w.last_frame_at, gen, counts)
        };
        if base_end == 0 || end <= base_end {
            return Ok(None);
        }
        // An encrypted database's is sealed (docs/FORMAT.md).
        let sealed = gen.crypt().is_some();
        let Some(db) = gen.log().path().map(Path::to_path_buf) else {
            return Ok(None);
        };
        let base = crate::tail_index::Base {
            db_id: gen.log().identity.db_id,
            generation: gen.log().identity.generation,
            end: base_end,
        };
        if gave_up(&base) {
            let mut w = self.writer.lock();
            w.tail_indexed_end = w.tail_indexed_end.max(end);
            return Ok(None);
        }
        // Published before the lock was released: this sync covers it, so
        // no crash can lose a record the tail index points to.
        self.sync()?;
        let last_frame_crc = {
            let region = gen.log().region();
            replay::stored_crc(gen.bytes(&region), last_frame_at)
        };
        Ok(Some(TailIndexJob {
            db,
            header: crate::tail_index::Header {
                base,
                end,
                last_frame_at,
                last_frame_crc,
                entries: 0,
                page_count: 0,
                sorted_count: 0,
                ns_count: 0,
                sealed,
            },
            gen,
            counts,
        }))
    }

    /// Put a written tail index in place with `rename`, if it still extends
    /// the checkpoint on disk and is newer than the one there; or, with no
    /// `rename` (nothing could be written for that stretch of log), only
    /// note that the stretch was looked at. With `maintenance` held.
    pub(crate) fn install_tail_index(
        &self,
        header: &crate::tail_index::Header,
        rename: Option<&dyn Fn() -> Result<()>>,
    ) -> Result<bool> {
        {
            let w = self.writer.lock();
            if self.generation() != header.base.generation
                || w.checkpointed_end != header.base.end
                || w.tail_indexed_end >= header.end
            {
                return Ok(false);
            }
        }
        if let Some(rename) = rename {
            // Never over another writer's tail index, nor from a handle
            // that stopped writing.
            self.check_writable()?;
            {
                let gen = self.gen.load_full();
                let _slots = self.durability.slots_lock();
                self.check_sole_writer(&gen)?;
            }
            rename()?;
        }
        let mut w = self.writer.lock();
        w.tail_indexed_end = w.tail_indexed_end.max(header.end);
        Ok(rename.is_some())
    }

    /// The generation number of the current log file.
    pub(crate) fn generation(&self) -> u64 {
        self.gen.load().log().identity.generation
    }

    /// What the automatic checkpointer should do now. A checkpoint is due
    /// once the log written since the newest one reaches its bound: the
    /// configured minimum or half the index image, whichever is larger, so
    /// the checkpoints' writes stay within twice the log's
    /// (docs/ARCHITECTURE.md, "Checkpoints"). Between two checkpoints a
    /// tail index is due after each [`tail_index_step`] of log ("Tail
    /// indexes"). Also arms the bell for the nearer of
    /// the two, so the writer wakes the checkpointer as soon as it is due.
    pub(crate) fn due(&self) -> Due {
        let Some(min) = self.cfg.checkpoint_tail else {
            return Due::Nothing;
        };
        if self.cfg.read_only || !self.is_file() || self.durability.is_poisoned() {
            return Due::Nothing;
        }
        let (checkpointed, indexed, end) = {
            let w = self.writer.lock();
            (w.checkpointed_end, w.tail_indexed_end, w.end)
        };
        let from = checkpointed.max(HEADER_SIZE as u64);
        let image = image_bytes(&self.gen.load());
        let bound = min.max(image / 2);
        let checkpoint_at = from.saturating_add(bound);
        let index_at = (checkpointed != 0)
            .then(|| {
                let indexed = indexed.max(from);
                indexed.saturating_add(tail_index_step(min, indexed - from))
            })
            .filter(|&at| at < checkpoint_at);
        self.bell
            .arm(index_at.map_or(checkpoint_at, |at| at.min(checkpoint_at)));
        if end >= checkpoint_at {
            Due::Checkpoint
        } else if index_at.is_some_and(|at| end >= at) {
            Due::TailIndex
        } else {
            Due::Nothing
        }
    }

    /// For a writer opened for a few keys: whether the log written since
    /// the newest checkpoint (all of it, with no checkpoint) is past
    /// [`keys_write_tail`], so a checkpoint is due once it closes.
    pub(crate) fn keys_write_due(&self) -> bool {
        let (checkpointed, end) = {
            let w = self.writer.lock();
            (w.checkpointed_end, w.end)
        };
        let tail = end.saturating_sub(checkpointed.max(HEADER_SIZE as u64));
        tail > 0 && (checkpointed == 0 || tail >= keys_write_tail(image_bytes(&self.gen.load())))
    }

    /// Clean shutdown: drop preallocated room, sync, checkpoint if needed.
    /// The log's sync runs on a second thread while the checkpoint is
    /// sorted and written, and the checkpoint is installed only after the
    /// log is durable. Safe to call again (a second call finds nothing to
    /// do unless more was written).
    pub(crate) fn close(&self) -> Result<()> {
        if self.cfg.read_only || !self.is_file() {
            return Ok(());
        }
        self.check_writable()?;
        let _m = self.maintenance.lock();
        let (w, snap) = {
            let w = self.writer.lock();
            if w.closed_end == Some(w.end) {
                drop(w);
                return self.sync();
            }
            let gen = self.gen.load_full();
            // Trimming would extend a file another process cut short back to
            // the log's length, over a hole of zeros, and would cut another
            // writer's records: leave it as it is.
            gen.log().check_intact()?;
            {
                let _slots = self.durability.slots_lock();
                self.check_sole_writer(&gen)?;
            }
            // A handle without background threads (a one-shot CLI write)
            // leaves the sidecar to long-running writers: its own counters
            // (a write or two) would tell a watcher nothing, and replacing
            // the file costs a rename.
            if let (true, Some(p)) = (self.cfg.background, gen.log().path()) {
                crate::stats::publish_sidecar(p, &collect_stats(&gen, &self.counters));
            }
            // Trimmed before the sync below, which makes the new length
            // durable too when it has records to sync; when it has none,
            // the length is left to the kernel: a crash before it is
            // written leaves the zeros, which every open reads as the end
            // of the log, as after a crash while the room was in use.
            if !keeps_spare(w.end, gen.log().capacity()) {
                gen.log().truncate(w.end)?;
            }
            // A small tail is cheaper to replay at the next open than a
            // whole image is to write now (a one-shot `emdb put` on a large
            // database); a rejected or missing image always gets rewritten.
            let tail = w.end.saturating_sub(w.checkpointed_end);
            if !self.cfg.checkpoint_on_close
                || self.check_whole().is_err()
                || tail == 0
                || (w.checkpointed_end != 0
                    && tail < close_tail(self.cfg.background, image_bytes(&gen)))
            {
                let end = w.end;
                drop(w);
                self.sync()?;
                self.closed(end);
                return Ok(());
            }
            self.check_writable()?;
            // Written from the index's own slots, not a copy: the writer
            // lock stays held until the file is written (a clone that
            // outlives an `Emdb::close` waits to write meanwhile).
            let snap = self.snapshot_locked(&w, true)?;
            (w, snap)
        };
        let end = w.end;
        let Some(mut snap) = snap else {
            drop(w);
            return self.sync();
        };
        // Closing: the order is written for the next open, not seeked here.
        snap.fenced = false;
        let (synced, written) = std::thread::scope(|s| {
            let syncing = s.spawn(|| self.sync());
            let written = snap.write_temp(crate::checkpoint::TEMP);
            let synced = syncing.join().unwrap_or_else(|_| {
                Err(Error::io(
                    "sync",
                    None,
                    std::io::Error::other("the log sync thread panicked"),
                ))
            });
            (synced, written)
        });
        // Installing hands sorted blocks over under the writer lock.
        drop(w);
        let tmp = match (synced, written) {
            (Ok(()), Ok(tmp)) => tmp,
            (Err(e), written) => {
                if let Ok(tmp) = written {
                    let _ = std::fs::remove_file(tmp);
                }
                return Err(e);
            }
            (Ok(()), Err(e)) => return Err(Error::CheckpointNotWritten(Box::new(e))),
        };
        self.install_checkpoint(&snap, &tmp)
            .map_err(|e| Error::CheckpointNotWritten(Box::new(e)))?;
        self.closed(end);
        Ok(())
    }

    /// A clean close covered the log up to `end`.
    fn closed(&self, end: u64) {
        self.writer.lock().closed_end = Some(end);
    }

    // ---- introspection ---------------------------------------------------

    /// Sizes and counters (activity counters from the writer's sidecar on a
    /// read-only handle).
    pub(crate) fn stats(&self) -> Stats {
        let mut s = collect_stats(&self.gen.load_full(), &self.counters);
        s.encrypted = self.gen.load().crypt().is_some();
        s.encryptions = self.encryptions();
        s.nonce_budget_warning = s.encryptions >= 1 << 28;
        if self.cfg.read_only {
            if let Some(p) = self.path() {
                crate::stats::merge_sidecar(&mut s, &p);
            }
        }
        s
    }

    /// Records sealed under the current key, across opens (approximate
    /// after a crash: counts since the last sync may be lost).
    pub(crate) fn encryptions(&self) -> u64 {
        self.encryptions_with(self.gen.load().crypt().as_deref())
    }

    /// [`Engine::encryptions`] as counted by `crypt`.
    pub(crate) fn encryptions_with(&self, crypt: Option<&Crypt>) -> u64 {
        #[cfg(feature = "encrypt")]
        let now = crypt.map_or(0, |c| c.sealed.load(Ordering::Relaxed));
        #[cfg(not(feature = "encrypt"))]
        let now = match crypt {
            Some(c) => match *c {},
            None => 0,
        };
        self.encryptions_base.load(Ordering::Relaxed) + now
    }

    /// The sync-slot sequence counter.
    pub(crate) fn slots_lock(&self) -> MutexGuard<'_, u64> {
        self.durability.slots_lock()
    }

    /// Give a freshly built log the `O_DSYNC` descriptor write-through
    /// needs, opened through `at` (the file's name now: compaction opens it
    /// before renaming the file into place, so a failure leaves the old file
    /// in use and nothing lost).
    pub(crate) fn with_write_through_fd(&self, mut log: Log, at: &Path) -> Result<Log> {
        if self.write_through() {
            if let Some(f) = &mut log.file {
                f.dsync = Some(open_dsync(at, self.cfg.faults.as_deref())?);
            }
        }
        Ok(log)
    }

    /// Mark all writes so far durable (used after compaction synced a new file).
    pub(crate) fn mark_durable(&self) {
        self.durability.mark_durable(self.durability.target());
    }

    // ---- namespaces, counts, expiry (moved from keyspace.rs, db.rs) ----

    /// Run `f` on namespace `id` of `gen` (no refcount traffic for the default one).
    #[inline]
    pub(crate) fn with_ns<T>(
        &self,
        gen: &Generation,
        id: u32,
        f: impl FnOnce(&NsEntry) -> Result<T>,
    ) -> Result<T> {
        if id == 0 {
            return f(gen.default_ns());
        }
        let ns = gen.ns(id).ok_or(Error::NamespaceDropped)?;
        f(&ns)
    }

    /// Id of namespace `name`, creating it (one record) if needed.
    pub(crate) fn create_namespace(&self, name: &str) -> Result<u32> {
        if name.is_empty() || name.len() > MAX_NAMESPACE_NAME_LEN {
            return Err(Error::InvalidNamespaceName {
                name: name.to_string(),
                max: MAX_NAMESPACE_NAME_LEN,
            });
        }
        if let Some(ns) = self.gen().ns_table().by_name(name.as_bytes()) {
            return Ok(ns.id);
        }
        let (mut w, gen) = self.begin_write()?;
        if let Some(ns) = gen.ns_table().by_name(name.as_bytes()) {
            return Ok(ns.id);
        }
        let id = gen.ns_table().next_id;
        if gen.ns_table().get(id).is_some() {
            return Err(Error::NamespaceIdsExhausted);
        }
        let spec = FrameSpec {
            kind: Kind::NamespaceCreate,
            ns: id,
            expires_at: 0,
            key: name.as_bytes(),
            value: &[],
        };
        self.append(&mut w, &gen, &spec)?;
        self.publish(&w, &gen, 1)?;
        let entry = NsEntry::new(id, name.as_bytes().to_vec(), gen.crypt().clone());
        gen.ns_table_mut().insert(Arc::new(entry));
        Ok(id)
    }

    /// Drop namespace `name` and all its keys; false if it did not exist.
    pub(crate) fn drop_namespace(&self, name: &str) -> Result<bool> {
        let (mut w, gen) = self.begin_write()?;
        let Some(id) = gen.ns_table().by_name(name.as_bytes()).map(|n| n.id) else {
            return Ok(false);
        };
        if id == 0 {
            return Ok(false);
        }
        let spec = FrameSpec {
            kind: Kind::NamespaceDrop,
            ns: id,
            expires_at: 0,
            key: &[],
            value: &[],
        };
        self.append(&mut w, &gen, &spec)?;
        self.publish(&w, &gen, 1)?;
        gen.ns_table_mut().remove(id);
        Ok(true)
    }

    /// Id of the named namespace `name`, if it exists (never creates it).
    pub(crate) fn namespace_id(&self, name: &str) -> Result<Option<u32>> {
        let gen = self.gen();
        // A stale read-only handle's table is the old view's.
        gen.log().fresh()?;
        let id = gen.ns_table().by_name(name.as_bytes()).map(|n| n.id);
        Ok(id.filter(|&id| id != 0))
    }

    /// Keys of namespace `ns` that the records published in `[since, end)`
    /// put or delete, and `end`; `None` when `since` is past the end or not
    /// where a record starts (the log was compacted since, for one), or the
    /// namespace is gone. An encrypted database's records are opened for
    /// their keys (a sealed frame holds none in clear). An error when a
    /// record does not open, or the read saw the file cut under it.
    pub(crate) fn keys_touched_since(
        &self,
        ns: u32,
        since: u64,
    ) -> Result<Option<(Vec<Vec<u8>>, u64)>> {
        let gen = self.gen();
        gen.log().fresh()?;
        let Some(entry) = gen.ns(ns) else {
            return Ok(None);
        };
        let crypt = entry.crypt();
        let region = gen.log().region();
        let bytes = gen.bytes(&region);
        let end = bytes.len() as u64;
        if since > end {
            return Ok(None);
        }
        let mut keys = Vec::new();
        let mut scratch = zeroize::Zeroizing::new(Vec::new());
        // Records start after the file header; every published unit decodes.
        let from = since.max(crate::format::header::HEADER_SIZE as u64);
        let policy = replay::Walk::mapped(end, 0, replay::DamagePolicy::Fail);
        let mut opened = Ok(());
        let walked = replay::walk(
            &mut replay::Mapped(bytes),
            from,
            &policy,
            &mut Vec::new(),
            |unit, _| {
                for &(off, f) in &unit.frames {
                    if f.ns != ns || !matches!(f.kind, Kind::Put | Kind::Delete) {
                        continue;
                    }
                    match open_frame(f, off, crypt, &mut scratch) {
                        Ok(f) => keys.push(f.key.to_vec()),
                        Err(e) => {
                            opened = Err(e);
                            return Ok(std::ops::ControlFlow::Break(()));
                        }
                    }
                }
                Ok(std::ops::ControlFlow::Continue(()))
            },
        );
        // A record that decodes but does not open is damage; a unit that
        // does not decode at `since` means the log moved on (compacted).
        gen.log().vouch_read(&region, bytes, opened)?;
        Ok(walked.ok().map(|_| (keys, end)))
    }

    /// Names of the named namespaces, sorted.
    pub(crate) fn list_namespaces(&self) -> Result<Vec<String>> {
        let gen = self.gen();
        gen.log().fresh()?;
        let mut v: Vec<String> = gen
            .ns_table()
            .all()
            .iter()
            .filter(|n| n.id != 0)
            .map(|n| String::from_utf8_lossy(&n.name).into_owned())
            .collect();
        v.sort();
        Ok(v)
    }

    /// Live, unexpired keys of a namespace.
    pub(crate) fn count(&self, id: u32) -> Result<usize> {
        let gen = self.gen();
        self.with_ns(&gen, id, |ns| {
            if ns.keydir.expiring() == 0 {
                gen.log().fresh()?;
                return Ok(ns.keydir.len() as usize);
            }
            // Some records can expire: count the ones that have not.
            let now = self.now();
            let region = gen.log().region();
            let bytes = gen.bytes(&region);
            let mut n = 0usize;
            for shard in 0..SHARDS {
                for off in gen.shard_offsets(ns, shard)? {
                    let (_, exp) = crate::namespace::head_at(bytes, off);
                    if !expired(exp, now) {
                        n += 1;
                    }
                }
            }
            // The zeros of a cut inside a page read as a head without an
            // expiry, or with an earlier one: counted wrong, not failed.
            gen.log().vouch_scan(&region, bytes, Ok(n))
        })
    }

    /// Expiry of a live key (ms since the epoch, 0 = none); `None` if absent.
    pub(crate) fn expiry_of(&self, id: u32, key: &[u8]) -> Result<Option<u64>> {
        let gen = self.gen();
        self.with_ns(&gen, id, |ns| {
            self.lookup(&gen, ns, key, |_, _, f| f.expires_at)
        })
    }

    /// Rewrite a live key with a new expiry; false if the key is absent.
    pub(crate) fn set_expiry(&self, id: u32, key: &[u8], expires_at: u64) -> Result<bool> {
        let (mut w, gen) = self.begin_write()?;
        let ns = gen.ns(id).ok_or(Error::NamespaceDropped)?;
        // Verified whatever `verify_reads` says: the value is written again
        // under a fresh CRC.
        let read = self.lookup_checked(&gen, &ns, key, true, |_, _, f| f.value.to_vec());
        let Some(value) = read? else {
            return Ok(false);
        };
        let (off, len) = self.append(&mut w, &gen, &FrameSpec::put(id, key, &value, expires_at))?;
        self.publish(&w, &gen, 1)?;
        let region = gen.log().region();
        let bytes = gen.bytes(&region);
        // Indexing reads the record it replaces: a cut since the lookup
        // reads as zeros there.
        let indexed = ns.index_put_parts(bytes, off, key, len, expires_at);
        gen.log().vouch_read(&region, bytes, indexed)?;
        Ok(true)
    }

    /// Remove every expired key of a namespace (one batch); returns how many.
    pub(crate) fn sweep_expired(&self, id: u32) -> Result<usize> {
        let now = self.now();
        // Each expired key with the offset of the record that made it so.
        let expired_keys: Vec<(Vec<u8>, u64)> = {
            let gen = self.gen();
            self.with_ns(&gen, id, |ns| {
                if ns.keydir.expiring() == 0 {
                    return Ok(Vec::new());
                }
                let region = gen.log().region();
                let bytes = gen.bytes(&region);
                let mut keys = Vec::new();
                let listed = (0..SHARDS).try_for_each(|shard| {
                    for off in gen.shard_offsets(ns, shard)? {
                        let (_, exp) = crate::namespace::head_at(bytes, off);
                        if !expired(exp, now) {
                            continue;
                        }
                        let mut scratch = zeroize::Zeroizing::new(Vec::new());
                        let key = read_at(bytes, off, ns.crypt(), &mut scratch)?.key.to_vec();
                        keys.push((key, off));
                    }
                    Ok(())
                });
                gen.log().vouch_scan(&region, bytes, listed.map(|()| keys))
            })?
        };
        if expired_keys.is_empty() {
            return Ok(0);
        }
        let mut batch = self.batch()?;
        // Listed without the writer lock: only a key whose index entry is
        // still the listed record is deleted (nothing can change it now). A
        // key written again since is live and stays; one deleted since, or
        // whose record a compaction dropped, is gone already and neither
        // deleted again nor counted.
        let gen = self.gen();
        let unchanged = |k: &[u8], listed: u64| -> Result<bool> {
            self.with_ns(&gen, id, |ns| {
                Ok(ns
                    .keydir
                    .get(ns.hash(k), |off| Ok(off == listed))?
                    .is_some())
            })
        };
        let mut swept = 0;
        for (k, off) in &expired_keys {
            if unchanged(k, *off)? {
                batch.delete(id, k)?;
                swept += 1;
            }
        }
        batch.commit()?;
        Ok(swept)
    }

    /// A snapshot of namespace `ns`'s sorted order in `gen` (sorting what
    /// was written since the last ordered read).
    pub(crate) fn sorted_view(&self, gen: &Generation, ns: &NsEntry) -> Result<View> {
        // An empty range reads no record to vouch for (see `lookup`).
        gen.log().fresh()?;
        let refresh = ns.sorted.begin();
        // Loaded after `begin`: the bytes cover every record it took.
        let region = gen.log().region();
        let bytes = gen.bytes(&region);
        let keys = KeySource {
            bytes,
            crypt: ns.crypt(),
        };
        let view = ns.sorted.finish(refresh, keys, || {
            let mut all = Vec::with_capacity(ns.keydir.len() as usize);
            for shard in 0..SHARDS {
                all.extend(gen.shard_offsets(ns, shard)?);
            }
            Ok(all)
        });
        gen.log().vouch_read(&region, bytes, view)
    }

    /// `insert_many` for any namespace.
    pub(crate) fn insert_many_in<I, K, V>(&self, id: u32, items: I) -> Result<()>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let expires_at = crate::ttl::Ttl::Default.expires_at(|| self.now(), self.cfg().default_ttl);
        let mut batch = self.batch()?;
        for (k, v) in items {
            batch.put(id, k.as_ref(), v.as_ref(), expires_at)?;
        }
        batch.commit()
    }

    /// Commit the writes of a [`crate::WriteBatch`] on namespace `id` as one
    /// atomic unit: `bytes` holds their frames back to back when `encoded`,
    /// else their keys and values, which are sealed here (encrypted
    /// databases bind each frame to its offset).
    pub(crate) fn commit_batch(
        &self,
        id: u32,
        bytes: &[u8],
        ops: &[crate::batch::BatchWrite],
        encoded: bool,
    ) -> Result<()> {
        let mut batch = self.batch()?;
        if encoded && self.gen().crypt().is_none() {
            batch.push_encoded(id, bytes, ops)?;
        } else {
            let mut at = 0usize;
            for op in ops {
                let end = at + op.len as usize;
                let (frame, key, value);
                let spec = if encoded {
                    // Encoded for a plain log, which this is no longer.
                    frame = crate::format::record::decode(bytes.get(at..end).unwrap_or_default())
                        .map_err(|e| Error::corruption(at as u64, e.reason()))?;
                    FrameSpec {
                        kind: frame.kind,
                        ns: id,
                        expires_at: frame.expires_at,
                        key: frame.key,
                        value: frame.value,
                    }
                } else {
                    let split = at + op.key_len as usize;
                    key = bytes.get(at..split).unwrap_or_default();
                    value = bytes.get(split..end).unwrap_or_default();
                    FrameSpec {
                        kind: op.kind,
                        ns: id,
                        expires_at: op.expires_at,
                        key,
                        value,
                    }
                };
                match spec.kind {
                    Kind::Put => batch.put(id, spec.key, spec.value, spec.expires_at)?,
                    _ => batch.delete(id, spec.key)?,
                }
                at = end;
            }
        }
        batch.commit()
    }

    /// Remove every key of a namespace with one `Clear` record.
    pub(crate) fn clear(&self, ns_id: u32) -> Result<()> {
        let (mut w, gen) = self.begin_write()?;
        let ns = gen.ns(ns_id).ok_or(Error::NamespaceDropped)?;
        let spec = FrameSpec {
            kind: Kind::Clear,
            ns: ns_id,
            expires_at: 0,
            key: &[],
            value: &[],
        };
        self.append(&mut w, &gen, &spec)?;
        self.publish(&w, &gen, 1)?;
        ns.index_clear();
        Ok(())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // An engine no handle was made for; after its last handle's
        // shutdown this only joins what is left.
        self.shut_down();
    }
}

/// Why a sync slot this handle did not write means another writer.
fn foreign_slot_reason(gen: &Generation, seq: u64) -> String {
    format!(
        "another process opened {} for writing while this handle held its writer lock \
         (its lock file was removed, e.g. by emdb lock break --force, or the file was renamed \
         and opened under its new name) and wrote sync slot {seq}; \
         this handle writes nothing more, so as not to overwrite that writer's records",
        gen.log()
            .path()
            .map_or_else(|| "the database".into(), |p| p.display().to_string())
    )
}

/// An index entry must point at a value of its own namespace; anything else
/// (a damaged or foreign checkpoint) is corruption, never a wrong answer.
#[inline]
pub(crate) fn check_indexed(f: &Frame<'_>, ns: u32, off: u64) -> Result<()> {
    if f.kind != Kind::Put || f.ns != ns {
        return Err(Error::corruption(
            off,
            "index entry points at a record that is not a value of this namespace",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{close_tail, keys_write_tail, tail_index_step, CLOSE_TAIL};

    #[test]
    fn a_one_shot_close_bound_grows_with_the_square_root_of_the_image() {
        const MIB: u64 = 1 << 20;
        // Long-lived writers, and small images, use the fixed bound.
        for image in [0, MIB, 24 * MIB, 2048 * MIB] {
            assert_eq!(close_tail(true, image), CLOSE_TAIL);
        }
        assert_eq!(close_tail(false, 0), CLOSE_TAIL);
        assert_eq!(close_tail(false, 4 * MIB), CLOSE_TAIL);
        // The image of 1M, 10M and 100M keys (about 24.5 bytes a key).
        let kib = |image: u64| close_tail(false, image) >> 10;
        assert_eq!(kib(24 * MIB), 97);
        assert_eq!(kib(234 * MIB), 305);
        assert_eq!(kib(2340 * MIB), 967);
        assert_eq!(close_tail(false, u64::MAX), u64::MAX.isqrt());
        // One-key writes scan instead of replaying: a longer tail.
        assert_eq!(keys_write_tail(24 * MIB) >> 10, 313);
        assert_eq!(keys_write_tail(234 * MIB) >> 10, 979);
    }

    #[test]
    fn tail_index_steps_grow_with_the_tail_between_a_quarter_and_all_of_the_minimum() {
        const MIB: u64 = 1 << 20;
        // Where tail indexes fall after a checkpoint, with the default minimum.
        let mut at = 0;
        let mut ends = Vec::new();
        while at < 40 * MIB {
            at += tail_index_step(8 * MIB, at);
            ends.push(at);
        }
        let mib: Vec<f64> = ends.iter().map(|&e| e as f64 / MIB as f64).collect();
        assert_eq!(mib, [2.0, 4.0, 6.0, 9.0, 13.5, 20.25, 28.25, 36.25, 44.25]);
        // A tiny or zero minimum still moves forward.
        assert_eq!(tail_index_step(0, 0), 1);
        assert_eq!(tail_index_step(3, 100), 3);
    }
}
