//! Online compaction: rewrite live records into a new log while readers and
//! writers keep going, then swap it in.
//!
//! 1. Snapshot: note the log end `e0`; copy every live record below `e0`
//!    in key order (frames are position-independent, so a copy is a
//!    `memcpy`) into `<db>.compact.tmp`, building a new hash index; the
//!    copies' offsets are the new sorted base. An encrypted log keeps its
//!    records' order instead (each is resealed at its new offset), so
//!    positions never show how the sealed keys sort. Writers keep appending to
//!    the old log; readers keep using the old generation.
//! 2. Catch-up, under the writer lock: copy the units written since `e0`
//!    verbatim (deletes and batch headers included, so a replay of the new
//!    file alone reaches the same state) and apply them to the new index.
//! 3. Trim, write a sync slot, fsync the new file, rename it over the log,
//!    fsync the directory, and swap the new generation in. A crash before the
//!    rename leaves the old file (the stale temp file is deleted at the next
//!    open, never read); after it, the new file is complete.

use std::ops::{Bound, ControlFlow};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::crypto::Crypt;
use crate::engine::{compact_tmp_path, encode, encoded_len, expired, now_ms, Engine, Generation};
use crate::error::{Error, Result};
use crate::fault::{self, Faults, FsEvent};
use crate::format::coverage::{Coverage, COVERAGE_AT};
use crate::format::header::{SyncSlot, HEADER_SIZE};
use crate::format::record::{self, FrameSpec, Kind};
use crate::fs as efs;
use crate::log::{allocate, Log, LogFile, Region};
use crate::namespace::{frame_at, open_frame, read_at, NsEntry, NsTable};
use crate::progress::{Meter, Phase};
use crate::replay::{walk, DamagePolicy, Mapped, Walk};
use crate::sorted::{Base, KeySource, Merge};

/// A log being written by compaction (no readers until it is swapped in).
struct NewLog {
    log: Log,
    end: u64,
    last_frame_at: u64,
    crypt: Option<Arc<Crypt>>,
}

impl NewLog {
    fn append_raw(&mut self, bytes: &[u8]) -> Result<u64> {
        let at = self.end;
        self.log.ensure_capacity(at, at + bytes.len() as u64)?;
        self.log.fill(at, bytes.len(), |d| {
            d.copy_from_slice(bytes);
            Ok(())
        })?;
        self.end += bytes.len() as u64;
        Ok(at)
    }

    /// Encode a frame (sealed in an encrypted log) at the end.
    fn append_frame(&mut self, spec: &FrameSpec<'_>) -> Result<u64> {
        let crypt = self.crypt.as_deref();
        let len = encoded_len(spec, crypt);
        let at = self.end;
        self.log.ensure_capacity(at, at + len as u64)?;
        self.log.fill(at, len, |d| encode(spec, crypt, at, d))?;
        self.end += len as u64;
        Ok(at)
    }
}

/// Rewrite the log with only its live records.
pub(crate) fn compact(engine: &Engine) -> Result<()> {
    if engine.cfg().read_only {
        return Err(Error::ReadOnly);
    }
    engine.check_whole()?;
    let _m = engine.lock_maintenance();
    compact_locked(engine)
}

fn compact_locked(engine: &Engine) -> Result<()> {
    let (old, e0) = {
        let (w, gen) = engine.begin_write()?;
        (gen, w.end())
    };
    let mut identity = old.log().identity;
    identity.generation += 1;
    let crypt = match &old.crypt() {
        Some(c) => Some(Arc::new(c.for_generation(identity.generation)?)),
        None => None,
    };
    // The new header keeps everything but the generation (and the sync
    // slots, which start empty): the encryption block carries over.
    let mut page = {
        let region = old.log().region();
        old.bytes(&region)
            .get(..HEADER_SIZE)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| Error::corruption(0, "header page missing"))?
    };
    identity.encode_into(&mut page);
    SyncSlot::clear_all(&mut page);

    let (log, tmp) = match &old.log().file {
        Some(f) => {
            let tmp = compact_tmp_path(&f.path);
            let file = efs::create_fresh(&tmp)?;
            if let Ok(like) = f.file.metadata() {
                efs::match_permissions(&file, &like, 0o666);
            }
            // Allocated, not just sized: a mapped write into a hole of a
            // full filesystem is SIGBUS, not an error.
            let region = Faults::check(
                old.log().faults.as_ref().map(|x| &x.fail_grow),
                libc::ENOSPC,
            )
            .and_then(|()| allocate(&file, 0, HEADER_SIZE as u64))
            .map_err(|e| Error::io("grow", Some(&tmp), e))
            .and_then(|()| {
                Region::map_file(&file, HEADER_SIZE).map_err(|e| Error::io("mmap", Some(&tmp), e))
            });
            let region = match region {
                Ok(r) => r,
                Err(e) => {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(e);
                }
            };
            region.write(0, &page);
            let log = Log::new(
                identity,
                // Named after the temporary file while it is written, so
                // its errors (a full disk while it grows) name that file;
                // the database's path once it is renamed over it.
                Some(LogFile {
                    path: tmp.clone(),
                    file,
                    dsync: None,
                }),
                region,
                HEADER_SIZE as u64,
            );
            (log, Some(tmp))
        }
        None => {
            let log = Log::in_memory(identity);
            log.fill(0, HEADER_SIZE, |d| {
                d.copy_from_slice(&page);
                Ok(())
            })?;
            (log, None)
        }
    };
    let mut log = log;
    log.faults = old.log().faults.clone();
    let result = rewrite(engine, &old, e0, log, crypt, tmp.as_deref());
    if result.is_err() {
        if let Some(t) = &tmp {
            let _ = std::fs::remove_file(t);
        }
    }
    result
}

fn rewrite(
    engine: &Engine,
    old: &Arc<Generation>,
    e0: u64,
    log: Log,
    crypt: Option<Arc<Crypt>>,
    tmp: Option<&std::path::Path>,
) -> Result<()> {
    let mut out = NewLog {
        log,
        end: HEADER_SIZE as u64,
        last_frame_at: 0,
        crypt: crypt.clone(),
    };
    let mut table = NsTable::new(crypt.clone());
    let (namespaces, next_id) = {
        let t = old.ns_table();
        (t.all(), t.next_id)
    };
    table.next_id = next_id;
    for ns in namespaces.iter().filter(|n| n.id != 0) {
        let spec = FrameSpec {
            kind: Kind::NamespaceCreate,
            ns: ns.id,
            expires_at: 0,
            key: &ns.name,
            value: &[],
        };
        out.last_frame_at = out.append_frame(&spec)?;
        table.insert(Arc::new(NsEntry::new(
            ns.id,
            ns.name.clone(),
            crypt.clone(),
        )));
    }

    // Phase 1: live records below e0 (in key order, for a plain log),
    // without blocking writers. A key whose newest record is at or past e0 is left to the
    // catch-up, which copies that record.
    let now = engine.now();
    // Taken before the region below, which then holds every record they name.
    let views = namespaces
        .iter()
        .map(|ns| engine.sorted_view(old, ns))
        .collect::<Result<Vec<_>>>()?;
    let old_region = old.log().region_arc();
    let all_bytes = old.bytes(&old_region);
    let old_bytes = old_region
        .slice(0, e0)
        .ok_or_else(|| Error::corruption(e0, "log shorter than its end"))?;
    let mut meter = Meter::start(
        Phase::Compacting,
        namespaces.iter().map(|n| n.keydir.live_bytes()).sum(),
    );
    let mut copy_live = || -> Result<()> {
        for (ns, view) in namespaces.iter().zip(&views) {
            let Some(target) = table.get(ns.id).cloned() else {
                continue;
            };
            let view = view.clone();
            let keys = KeySource {
                bytes: all_bytes,
                crypt: ns.crypt(),
            };
            let mut walk = Merge::new(view, Bound::Unbounded, Bound::Unbounded);
            // The live records' offsets, in key order.
            let mut live = Vec::with_capacity(ns.keydir.len() as usize);
            while let Some(w) = walk.next(keys)? {
                if w.off >= e0 || w.head.kind != Kind::Put || expired(w.head.expires_at, now) {
                    continue;
                }
                live.push(w.off);
            }
            // A plain log is rewritten in key order; an encrypted one
            // keeps its records' order, since positions in key order
            // would tell which sealed key sorts before which.
            let mut copy_order: Vec<usize> = (0..live.len()).collect();
            if out.crypt.is_some() {
                copy_order.sort_unstable_by_key(|&i| live[i]);
            }
            // New offsets, in key order: the namespace's new base.
            let mut order = vec![0u64; live.len()];
            for i in copy_order {
                let off = live[i];
                let mut scratch = zeroize::Zeroizing::new(Vec::new());
                let f = read_at(old_bytes, off, ns.crypt(), &mut scratch)?;
                meter.add(f.len as u64);
                let (at, len) = if f.sealed {
                    let spec = FrameSpec::put(f.ns, f.key, f.value, f.expires_at);
                    let at = out.append_frame(&spec)?;
                    (at, out.end - at)
                } else {
                    // Plain frames are position-independent: copy the bytes.
                    let at = out.append_raw(&old_bytes[off as usize..off as usize + f.len])?;
                    (at, f.len as u64)
                };
                out.last_frame_at = at;
                order[i] = at;
                target.keydir.insert_new(target.hash(f.key), at)?;
                target.keydir.account(len, 0);
                target.keydir.account_expiring(f.expires_at != 0, false);
            }
            target.sorted.replace_base(Base::Heap(Arc::from(order)));
        }
        Ok(())
    };
    // Frames were verified, then copied: a cut between the two copied zeros.
    let copied = copy_live();
    meter.finish();
    old.log().vouch_read(&old_region, all_bytes, copied)?;
    drop(old_region);

    // Phase 2: catch up with what was written meanwhile, writers paused.
    let mut w = engine.lock_writer();
    let e1 = w.end();
    let region = old.log().region();
    let bytes = old.bytes(&region);
    let delta_at = out.end;
    // Change-feed readers continue from the old generation at e0 (docs/FORMAT.md,
    // "Compaction coverage block"): the catch-up below keeps unit lengths.
    let id = old.log().identity;
    let cover = Coverage {
        db_id: id.db_id,
        old_generation: id.generation,
        old_from: e0,
        new_generation: id.generation + 1,
        new_from: delta_at,
    };
    if !out.log.region().write(COVERAGE_AT as u64, &cover.encode()) {
        return Err(Error::corruption(
            COVERAGE_AT as u64,
            "header page not writable",
        ));
    }
    let mut units = Vec::new();
    // Every unit up to e1 was written and published by this process:
    // a unit that does not decode is corruption, wherever it is.
    walk(
        &mut Mapped(bytes),
        e0,
        &Walk::mapped(e1, 0, DamagePolicy::Fail),
        &mut Vec::new(),
        |unit, _| {
            let at = unit.at;
            old.log().vouch(&region, Ok(()))?;
            if out.crypt.is_none() {
                out.append_raw(&bytes[at as usize..unit.end() as usize])?;
            } else {
                // Sealed frames are bound to their offset and generation:
                // reseal each one (same length, so batch lengths still hold).
                let start = out.end;
                if unit.frames.len() != 1 || unit.frames[0].0 != at {
                    let first = record::frame_len(&bytes[at as usize..])
                        .ok_or_else(|| Error::corruption(at, "batch header"))?;
                    out.append_raw(&bytes[at as usize..at as usize + first])?;
                }
                for (off, f) in &unit.frames {
                    let mut scratch = zeroize::Zeroizing::new(Vec::new());
                    let f = open_frame(*f, *off, old.crypt().as_deref(), &mut scratch)?;
                    out.append_frame(&FrameSpec {
                        kind: f.kind,
                        ns: f.ns,
                        expires_at: f.expires_at,
                        key: f.key,
                        value: f.value,
                    })?;
                }
                if out.end - start != unit.len {
                    return Err(Error::corruption(at, "resealed unit changed length"));
                }
            }
            units.push((at, unit.frames.iter().map(|(o, _)| *o).collect::<Vec<_>>()));
            Ok(ControlFlow::Continue(()))
        },
    )
    .or_else(|e| old.log().vouch_read(&region, bytes, Err(e)))?;
    // The catch-up copied bytes out of the old mapping, and the first
    // phase left out records by their heads (expired ones): zeros of a
    // cut inside a page can pass for such a head, and a record dropped so
    // is never read again once the new file is renamed over the path.
    old.log().vouch_scan(&region, bytes, Ok(()))?;
    out.log.publish_written(out.end)?;
    let new_region = out.log.region_arc();
    let new_bytes = new_region
        .slice(0, out.end)
        .ok_or_else(|| Error::corruption(out.end, "new log shorter than written"))?;
    for (_, offs) in &units {
        for off in offs {
            let new_off = off - e0 + delta_at;
            let f = frame_at(new_bytes, new_off)?;
            table
                .apply(new_bytes, new_off, &f)
                .map_err(|e| e.strict(*off))?;
            out.last_frame_at = new_off;
        }
    }
    drop(new_region);

    // Phase 3: make the new file durable and put it in place. The slots
    // lock is held from the new file's slot to the swap, so a flush
    // running meanwhile never checks the old generation against a path
    // that already holds the new file.
    let end = out.end;
    let mut seq = engine.slots_lock();
    let db_path = old.log().path().map(std::path::Path::to_path_buf);
    let out_log = if let (Some(tmp), Some(db_path)) = (tmp, db_path) {
        out.log.truncate(end)?;
        *seq += 1;
        out.log.write_slot(SyncSlot {
            seq: *seq,
            durable_end: end,
            encryptions: engine.encryptions_with(out.crypt.as_deref()),
        })?;
        let faults = out.log.faults.clone();
        let faults = faults.as_deref();
        Faults::check(faults.map(|x| &x.fail_sync), libc::EIO)
            .and_then(|()| out.log.sync_all_file())
            .map_err(|e| Error::io("fsync", Some(tmp), e))?;
        out.log.note_synced(end);
        fault::note(faults, || FsEvent::Synced(tmp.to_path_buf()));
        // Everything that can fail is done before the rename: after it,
        // the handle must be writing to the new file, or to nothing.
        let mut out_log = engine.with_write_through_fd(out.log, tmp)?;
        // Never rename over a file another writer has taken over.
        engine.check_sole_writer(old)?;
        efs::rename(tmp, &db_path, faults)?;
        if let Some(f) = &mut out_log.file {
            f.path.clone_from(&db_path);
        }
        if let Err(e) = efs::fsync_parent(&db_path, faults) {
            // The new file is in place but may not be after a crash,
            // and this handle still writes to the old one, which is no
            // longer at the path: nothing it writes from now on could
            // be found again. Reopening reads whichever file is there.
            engine.poison(&e);
            return Err(e);
        }
        out_log
    } else {
        out.log
    };
    engine.install(Arc::new(Generation::new(out_log, table)));
    drop(seq);
    w.restart(end, out.last_frame_at);
    engine.mark_durable();
    drop(w);
    engine
        .counters()
        .compactions
        .fetch_add(1, Ordering::Relaxed);
    engine
        .counters()
        .last_compaction_ms
        .store(now_ms(), Ordering::Relaxed);
    if engine.is_file() {
        // Its sync is the writes' since the swap: a failure there is theirs.
        if let Some(mut snap) = engine.checkpoint_snapshot()? {
            snap.fenced = true;
            // The compaction is done and durable: failing to write the
            // checkpoint (a full disk) only leaves the next open more
            // log to replay. What other threads wrote since the snapshot's
            // sync is synced first, so "every write is durable" holds
            // when the error says it.
            let not_written = |e| match engine.sync() {
                Ok(()) => Error::CheckpointNotWritten(Box::new(e)),
                Err(unsynced) => unsynced,
            };
            let tmp = snap
                .write_temp(crate::checkpoint::TEMP)
                .map_err(not_written)?;
            engine
                .install_checkpoint(&snap, &tmp)
                .map_err(not_written)?;
        }
    }
    Ok(())
}
