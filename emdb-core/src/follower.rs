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

use std::fs::File;
use std::ops::ControlFlow;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Weak;
use std::time::Duration;

use crate::engine::{read_identity, Engine};
use crate::error::{Error, Result};
use crate::format::header::HEADER_SIZE;
use crate::log::Region;
use crate::namespace::NsTable;
use crate::replay::{walk, DamagePolicy, Pread, SkippedRange, Walk};

/// How often a follower looks for new records by itself.
pub(crate) const FOLLOW_INTERVAL: Duration = Duration::from_millis(50);

/// Largest read when scanning new records.
const CHUNK: u64 = 4 << 20;

/// First read size when scanning new records: a refresh usually finds a
/// few KiB of new units followed by the writer's preallocated, unwritten
/// tail, so reading (and zeroing a buffer for) [`CHUNK`] bytes each time
/// cost a follower 20 x 8 MiB of copies a second for nothing. Reads double
/// up to [`CHUNK`] while whole buffers decode.
const FIRST_READ: u64 = 64 << 10;

/// Where a pread-driven replay stopped.
pub(crate) struct Followed {
    pub end: u64,
    pub applied: usize,
    pub last_frame_at: Option<u64>,
}

/// The file a follower reads: its descriptor, path and current mapping.
pub(crate) struct LogSource<'a> {
    pub file: &'a File,
    pub path: &'a Path,
    /// Maps at least `limit` bytes; read only below validated units.
    pub region: &'a Region,
}

/// Replay the units in `[start, limit)` of the file into `table`. The region
/// maps at least `limit` bytes of the same file; it is read only below the
/// end of units already validated through `pread`.
///
/// A unit that does not decode ends the replay, unless it lies below
/// `durable_end` (the writer said it was synced): that is corruption, or
/// skipped when salvaging; so is a file whose units end below `durable_end`
/// (see `replay.rs`). `limit` must be the file's size as of after
/// `durable_end` was read (the writer never leaves its file shorter than a
/// durable end it recorded).
pub(crate) fn replay_pread(
    src: &LogSource<'_>,
    start: u64,
    limit: u64,
    durable_end: u64,
    table: &mut NsTable,
    publish: &dyn Fn(u64),
    salvage: Option<&mut Vec<SkippedRange>>,
) -> Result<Followed> {
    let policy = if salvage.is_some() {
        DamagePolicy::Salvage
    } else {
        DamagePolicy::CutTornTail
    };
    let mut unused = Vec::new();
    let skipped = salvage.unwrap_or(&mut unused);
    let mut applied = 0usize;
    let mut last_frame_at = None;
    let mut buf = Vec::new();
    let walked = walk(
        &mut Pread {
            file: src.file,
            path: src.path,
            buf: &mut buf,
        },
        start,
        &Walk {
            limit,
            durable_end,
            policy,
            first_read: FIRST_READ,
            max_read: CHUNK,
        },
        skipped,
        |unit, _| {
            let unit_end = unit.end();
            let bytes = src
                .region
                .slice(0, unit_end)
                .ok_or_else(|| Error::corruption(unit_end, "mapping shorter than the log"))?;
            // Readers may see index entries as soon as they are
            // applied: the bytes they point to must be published first.
            publish(unit_end);
            for (off, f) in &unit.frames {
                table.apply(bytes, *off, f).map_err(|e| e.strict(*off))?;
                last_frame_at = Some(*off);
                applied += 1;
            }
            Ok(ControlFlow::Continue(()))
        },
    )
    .map_err(|e| e.with_path(src.path))?;
    Ok(Followed {
        end: walked.end,
        applied,
        last_frame_at,
    })
}

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
        .log
        .set_stale(r.as_ref().err().map(ToString::to_string));
    r
}

fn refresh_once(engine: &Engine) -> Result<usize> {
    // One refresher at a time (read-only handles never write).
    let _w = engine.lock_writer();
    let gen = engine.gen_arc();
    let Some(lf) = &gen.log.file else {
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
    let end = gen.log.published_end();
    if limit < end || gen.log.cut().is_some() {
        // Shorter than what this handle has read: the writer never does
        // that (it trims only its own unused tail), so another process
        // cut the file, or rewrote it in place (truncate, then write).
        let same_log =
            read_identity(&lf.file, &path, limit).is_ok_and(|(id, _, _)| id == gen.log.identity);
        if same_log || limit < HEADER_SIZE as u64 {
            return Err(gen.log.cut_found(limit));
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
    if identity != gen.log.identity {
        return reopen(engine, path);
    }
    let durable_end = slot.durable_end;
    // The size after the slot was read: the writer had written
    // everything below its durable end by then.
    let limit = lf
        .file
        .metadata()
        .map_err(|e| Error::io("stat", Some(&path), e))?
        .len()
        .max(limit);
    let region = if (gen.log.region().len() as u64) < limit {
        let r = Region::map_file_read_only(&lf.file, limit as usize)
            .map_err(|e| Error::io("mmap", Some(&path), e))?;
        gen.log.replace_region(r);
        gen.log.region_arc()
    } else {
        gen.log.region_arc()
    };
    let followed = {
        let mut table = gen.ns.write();
        replay_pread(
            &LogSource {
                file: &lf.file,
                path: &path,
                region: &region,
            },
            end,
            limit,
            durable_end,
            &mut table,
            &|e| gen.log.publish(e),
            None,
        )
    };
    // Replay read index entries through the mapping.
    let followed = gen.log.vouch_cut(&region, followed)?;
    if followed.end > end {
        gen.log.publish(followed.end);
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
pub(crate) fn spawn_follower(engine: Weak<Engine>) {
    let spawned = std::thread::Builder::new()
        .name("emdb-follow".into())
        .spawn(move || loop {
            std::thread::sleep(FOLLOW_INTERVAL);
            let Some(e) = engine.upgrade() else {
                return;
            };
            // A failure marks the handle stale (reads return it); the next
            // round tries again.
            let _ = refresh(&e);
        });
    // Without the thread the handle still works; `refresh()` catches up on demand.
    drop(spawned);
}
