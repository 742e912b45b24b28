//! Read-only handles that follow a log another process is writing.
//!
//! A follower never takes the writer lock and never modifies a file. It
//! learns about new records by reading the file with `pread` (never through
//! the mapping: bytes past the writer's end may be cut off by the writer at
//! any moment, and a mapped read there would fault), decodes whole units
//! only, and only then maps and publishes them. An incomplete unit at the end
//! is simply "not yet written": the next refresh looks again. When the file
//! at the path is no longer the one it has open (the writer compacted and
//! renamed a new file over it), it opens the new file from scratch.
//!
//! The `pread` replay is `recovery::replay_pread` (also used by a read-only
//! open); this module decides when to run it, and swaps generations.

use std::os::unix::fs::MetadataExt;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::engine::{read_identity, Engine};
use crate::error::{Error, Result};
use crate::format::header::HEADER_SIZE;
use crate::log::Region;
use crate::recovery;

/// How often a follower looks for new records by itself.
pub(crate) const FOLLOW_INTERVAL: Duration = Duration::from_millis(50);

/// Catch up with the writer; returns how many records were applied.
/// On a writable handle there is never anything to catch up with.
///
/// A failed refresh (the file cut, replaced by one this handle cannot
/// open, e.g. after `rotate-key`, an I/O error) marks the log stale:
/// every read fails with the error until a refresh succeeds, instead
/// of answering from an index that no longer matches the file.
pub(crate) fn refresh(engine: &Engine) -> Result<usize> {
    if !engine.cfg().read_only {
        return Ok(0);
    }
    let r = refresh_once(engine);
    // A reopen swapped in a fresh log; otherwise this is the one read.
    engine
        .gen()
        .log()
        .set_stale(r.as_ref().err().map(ToString::to_string));
    r
}

fn refresh_once(engine: &Engine) -> Result<usize> {
    // One refresher at a time (read-only handles never write).
    let _w = engine.lock_writer();
    let gen = engine.gen_arc();
    let Some(lf) = &gen.log().file else {
        return Ok(0);
    };
    let path = lf.path.clone();
    let ours = lf
        .file
        .metadata()
        .map_err(|e| Error::io("stat", Some(&path), e))?;
    let on_disk = std::fs::metadata(&path).map_err(|e| Error::io("stat", Some(&path), e))?;
    if (on_disk.dev(), on_disk.ino()) != (ours.dev(), ours.ino()) {
        // Replaced (compaction renamed a new file over it): start over.
        return reopen(engine, path);
    }
    let limit = ours.len();
    let end = gen.log().published_end();
    if limit < end || gen.log().cut().is_some() {
        // Shorter than what this handle has read: the writer never does
        // that (it trims only its own unused tail), so another process
        // cut the file, or rewrote it in place (truncate, then write).
        let same_log =
            read_identity(&lf.file, &path, limit).is_ok_and(|(id, _, _)| id == gen.log().identity);
        if same_log || limit < HEADER_SIZE as u64 {
            return Err(gen.log().cut_found(limit));
        }
        // Another database now: follow it from scratch.
        return reopen(engine, path);
    }
    if limit == end {
        return Ok(0);
    }
    // The header page: the durable end, and whether this is still the
    // database this handle follows (rewritten in place, it is not).
    let (identity, slot, _) = read_identity(&lf.file, &path, limit)?;
    if identity != gen.log().identity {
        return reopen(engine, path);
    }
    let durable_end = slot.durable_end;
    // The size after the slot was read: the writer had written
    // everything below its durable end by then.
    let size = lf
        .file
        .metadata()
        .map_err(|e| Error::io("stat", Some(&path), e))?
        .len()
        .max(limit);
    // What was written by now: a refresh catches up in steps instead of
    // chasing a writer that appends faster than it replays.
    let limit = crate::log::written_end(&lf.file, size, durable_end.max(end));
    let region = if (gen.log().region().len() as u64) < size {
        let r = Region::map_file_read_only(&lf.file, size as usize)
            .map_err(|e| Error::io("mmap", Some(&path), e))?;
        gen.log().replace_region(r);
        gen.log().region_arc()
    } else {
        gen.log().region_arc()
    };
    let followed = {
        let mut table = gen.ns_table_mut();
        recovery::replay_pread(
            &recovery::LogSource {
                file: &lf.file,
                path: &path,
                region: &region,
                only_keys: None,
            },
            end,
            limit,
            durable_end,
            &mut table,
            &|e| gen.log().publish(e),
            None,
        )
    };
    // Replay read index entries through the mapping.
    let followed = gen.log().vouch_cut(&region, followed)?;
    if followed.end > end {
        gen.log().publish(followed.end);
    }
    engine.counters().refreshes.fetch_add(1, Ordering::Relaxed);
    Ok(followed.applied)
}

/// Open the file at `path` from scratch and follow it from now on.
fn reopen(engine: &Engine, path: std::path::PathBuf) -> Result<usize> {
    let fresh = Engine::open_file(engine.cfg().clone(), path)?;
    let new_gen = fresh.gen_arc();
    let applied = fresh.recovery_report().records_replayed as usize;
    engine.install(new_gen);
    engine.counters().refreshes.fetch_add(1, Ordering::Relaxed);
    Ok(applied)
}

/// Keep a read-only engine caught up until it is dropped.
pub(crate) fn spawn_follower(
    engine: Weak<Engine>,
    stop: Arc<crate::engine::Stop>,
) -> Option<std::thread::JoinHandle<()>> {
    // Without the thread the handle still works; `refresh()` catches up on demand.
    std::thread::Builder::new()
        .name("emdb-follow".into())
        .spawn(move || {
            while !stop.sleep(FOLLOW_INTERVAL) {
                let Some(e) = engine.upgrade() else {
                    return;
                };
                // A failure marks the handle stale (reads return it); the
                // next round tries again.
                let _ = refresh(&e);
            }
        })
        .ok()
}
