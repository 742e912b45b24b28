//! Online compaction: rewrite live records into a new log while readers and
//! writers keep going, then swap it in.
//!
//! 1. Snapshot: note the log end `e0`; copy every live record below `e0`
//!    (frames are position-independent, so a copy is a `memcpy`) into
//!    `<db>.compact.tmp`, building a new index. Writers keep appending to
//!    the old log; readers keep using the old generation.
//! 2. Catch-up, under the writer lock: copy the units written since `e0`
//!    verbatim (deletes and batch headers included, so a replay of the new
//!    file alone reaches the same state) and apply them to the new index.
//! 3. Trim, write a sync slot, fsync the new file, rename it over the log,
//!    fsync the directory, and swap the new generation in. A crash before the
//!    rename leaves the old file (the stale temp file is deleted at the next
//!    open, never read); after it, the new file is complete.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::engine::{compact_tmp_path, expired, now_ms, Engine, Generation};
use crate::error::{Error, Result};
use crate::format::header::{SyncSlot, HEADER_SIZE};
use crate::format::record::{FrameSpec, Kind};
use crate::fs as efs;
use crate::index::{hash_key, SHARDS};
use crate::log::{Log, LogFile, Region};
use crate::namespace::{frame_at, NsEntry, NsTable};
use crate::recovery::decode_unit;

/// A log being written by compaction (no readers until it is swapped in).
struct NewLog {
    log: Log,
    end: u64,
    last_frame_at: u64,
}

impl NewLog {
    fn append_raw(&mut self, bytes: &[u8]) -> Result<u64> {
        let at = self.end;
        self.log.ensure_capacity(at, at + bytes.len() as u64)?;
        self.log
            .fill(at, bytes.len(), |d| d.copy_from_slice(bytes))?;
        self.end += bytes.len() as u64;
        Ok(at)
    }
}

impl Engine {
    /// Rewrite the log with only its live records.
    pub(crate) fn compact(&self) -> Result<()> {
        if self.cfg.read_only {
            return Err(Error::ReadOnly);
        }
        let _m = self.maintenance.lock();
        self.compact_locked()
    }

    fn compact_locked(&self) -> Result<()> {
        let (old, e0) = {
            let (w, gen) = self.begin_write()?;
            (gen, w.end)
        };
        let mut identity = old.log.identity;
        identity.generation += 1;

        let (log, tmp) = match &old.log.file {
            Some(f) => {
                let tmp = compact_tmp_path(&f.path);
                let file = efs::create_options()
                    .truncate(true)
                    .open(&tmp)
                    .map_err(|e| Error::io("create", Some(&tmp), e))?;
                file.set_len(HEADER_SIZE as u64)
                    .map_err(|e| Error::io("size", Some(&tmp), e))?;
                let region = Region::map_file(&file, HEADER_SIZE)
                    .map_err(|e| Error::io("mmap", Some(&tmp), e))?;
                region.write(0, &identity.page());
                let log = Log::new(
                    identity,
                    Some(LogFile {
                        path: f.path.clone(),
                        file,
                        dsync: None,
                    }),
                    region,
                    HEADER_SIZE as u64,
                );
                (log, Some(tmp))
            }
            None => (Log::in_memory(identity), None),
        };
        let result = self.rewrite(&old, e0, log, tmp.as_deref());
        if result.is_err() {
            if let Some(t) = &tmp {
                let _ = std::fs::remove_file(t);
            }
        }
        result
    }

    fn rewrite(
        &self,
        old: &Arc<Generation>,
        e0: u64,
        log: Log,
        tmp: Option<&std::path::Path>,
    ) -> Result<()> {
        let mut out = NewLog {
            log,
            end: HEADER_SIZE as u64,
            last_frame_at: 0,
        };
        let mut table = NsTable::new();
        let (namespaces, next_id) = {
            let t = old.ns.read();
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
            out.last_frame_at = out.append_raw(&spec.encode())?;
            table.insert(Arc::new(NsEntry::new(ns.id, ns.name.clone())));
        }

        // Phase 1: live records below e0, without blocking writers.
        let now = self.now();
        let old_region = old.log.region_arc();
        let old_bytes = old_region
            .slice(0, e0)
            .ok_or_else(|| Error::corruption(e0, "log shorter than its end"))?;
        for ns in &namespaces {
            let Some(target) = table.get(ns.id).cloned() else {
                continue;
            };
            for shard in 0..SHARDS {
                for off in ns.keydir.shard_offsets(shard) {
                    if off >= e0 {
                        continue;
                    }
                    let f = frame_at(old_bytes, off)?;
                    if expired(f.expires_at, now) {
                        continue;
                    }
                    let at = out.append_raw(&old_bytes[off as usize..off as usize + f.len])?;
                    out.last_frame_at = at;
                    target.keydir.insert_new(hash_key(f.key), at)?;
                    target.keydir.account(f.len as u64, 0);
                    target.keydir.account_expiring(f.expires_at != 0, false);
                }
            }
        }
        drop(old_region);

        // Phase 2: catch up with what was written meanwhile, writers paused.
        let mut w = self.writer.lock();
        let e1 = w.end;
        let region = old.log.region();
        let bytes = old.bytes(&region);
        let delta_at = out.end;
        if e1 > e0 {
            out.append_raw(&bytes[e0 as usize..e1 as usize])?;
        }
        out.log.publish(out.end);
        let new_region = out.log.region_arc();
        let new_bytes = new_region
            .slice(0, out.end)
            .ok_or_else(|| Error::corruption(out.end, "new log shorter than written"))?;
        let mut at = e0;
        while at < e1 {
            let unit = decode_unit(bytes, at).map_err(|r| Error::corruption(at, r))?;
            for (off, _) in &unit.frames {
                let new_off = off - e0 + delta_at;
                let f = frame_at(new_bytes, new_off)?;
                table.apply(new_bytes, new_off, &f).map_err(|e| match e {
                    crate::recovery::ApplyError::Engine(e) => e,
                    crate::recovery::ApplyError::UnknownNamespace => {
                        Error::corruption(*off, "record names a namespace that does not exist")
                    }
                })?;
                out.last_frame_at = new_off;
            }
            at += unit.len;
        }
        drop(new_region);

        // Phase 3: make the new file durable and put it in place.
        let end = out.end;
        if let (Some(tmp), Some(f)) = (tmp, &out.log.file) {
            out.log.truncate(end)?;
            {
                let mut seq = self.slots_lock();
                *seq += 1;
                out.log.write_slot(SyncSlot {
                    seq: *seq,
                    durable_end: end,
                });
            }
            f.file
                .sync_all()
                .map_err(|e| Error::io("fsync", Some(tmp), e))?;
            std::fs::rename(tmp, &f.path).map_err(|e| Error::io("rename", Some(&f.path), e))?;
            efs::fsync_parent(&f.path)?;
        }
        // The sorted key sets belong to the namespace, not to one file.
        for ns in table.all() {
            if let Some(s) = old.ns(ns.id).and_then(|o| o.sorted.get().cloned()) {
                let _ = ns.sorted.set(s);
            }
        }
        let out_log = self.with_write_through_fd(out.log)?;
        self.gen.store(Arc::new(Generation::new(out_log, table)));
        w.end = end;
        w.last_frame_at = out.last_frame_at;
        w.checkpointed_end = 0;
        self.mark_durable();
        drop(w);
        self.counters.compactions.fetch_add(1, Ordering::Relaxed);
        self.counters
            .last_compaction_ms
            .store(now_ms(), Ordering::Relaxed);
        if self.is_file() {
            self.checkpoint_locked()?;
        }
        Ok(())
    }
}
