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
    let r = match refresh_once(engine) {
        Ok(Some(applied)) => {
            engine.gen().log().clear_failed_reopen();
            Ok(applied)
        }
        // The file that failed to open is unchanged: nothing was tried,
        // and the handle stays stale with the error it has.
        Ok(None) => return engine.gen().log().fresh().map(|()| 0),
        Err(e) => Err(e),
    };
    // A reopen swapped in a fresh log; otherwise this is the one read.
    engine.gen().log().set_stale(r.as_ref().err());
    r
}

// Reopens tried on this thread (unit tests: that an unchanged file that
// failed is not opened again).
#[cfg(test)]
thread_local! {
    static REOPENS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How long a file that failed to open in a follower's place is left
/// alone: while it does not change, or, when the secret does not fit it,
/// while it is the same file (its writer may append meanwhile). Opening
/// an encrypted file derives its key, which costs the passphrase's Argon2
/// each time.
const REOPEN_RETRY: Duration = Duration::from_secs(5);

/// One catch-up: `Ok(None)` when the file at the path is one that failed
/// to open in this log's place a moment ago and has not changed.
fn refresh_once(engine: &Engine) -> Result<Option<usize>> {
    // One refresher at a time (read-only handles never write).
    let _w = engine.lock_writer();
    let gen = engine.gen_arc();
    let Some(lf) = &gen.log().file else {
        return Ok(Some(0));
    };
    let path = lf.path.clone();
    let ours = lf
        .file
        .metadata()
        .map_err(|e| Error::io("stat", Some(&path), e))?;
    let on_disk = std::fs::metadata(&path).map_err(|e| Error::io("stat", Some(&path), e))?;
    if (on_disk.dev(), on_disk.ino()) != (ours.dev(), ours.ino()) {
        // Replaced (compaction renamed a new file over it): start over.
        return reopen(engine, &gen, path, &on_disk);
    }
    let limit = ours.len();
    let end = gen.log().published_end();
    if limit < end || gen.log().cut().is_some() {
        // Shorter than what this handle has read: the writer never does
        // that (it trims only its own unused tail), so another process
        // cut the file, or rewrote it in place (truncate, then write).
        let same_log =
            read_identity(&lf.file, &path, limit).is_ok_and(|(id, _, _)| id == gen.log().identity);
        // Cut back no further than the durable end this handle read (not
        // the header's now: a file rewritten in place with an older copy
        // carries that copy's): a writer whose fdatasync failed cut its
        // unsynced records (which this handle may have read) as it
        // closed. Read the file again.
        if same_log && limit >= gen.log().followed_durable() {
            return reopen(engine, &gen, path, &on_disk);
        }
        if same_log || limit < HEADER_SIZE as u64 {
            return Err(gen.log().cut_found(limit));
        }
        // Another database now: follow it from scratch.
        return reopen(engine, &gen, path, &on_disk);
    }
    if let Some(at) = gen.log().followed_changed()? {
        // Rewritten under this handle past the durable end it read (a
        // writer cut back records whose sync failed, and wrote new ones
        // over them): what it applied is no longer the log. Start over
        // from the file (an open checks whatever was synced, as always).
        // Another database now (rewritten in place): follow it from
        // scratch too.
        let same_log =
            read_identity(&lf.file, &path, limit).is_ok_and(|(id, _, _)| id == gen.log().identity);
        if !same_log || at >= gen.log().followed_durable() {
            return reopen(engine, &gen, path, &on_disk);
        }
        // Below it, records a writer acknowledged are gone.
        return Err(Error::Corruption {
            path: Some(path),
            offset: at,
            reason: "the log was rewritten under this handle by another process: a record \
                     its writer had made durable is no longer there (an older copy written \
                     over the file?)"
                .into(),
        });
    }
    if limit == end {
        return Ok(Some(0));
    }
    // The header page: the durable end, and whether this is still the
    // database this handle follows (rewritten in place, it is not).
    let (identity, slot, _) = read_identity(&lf.file, &path, limit)?;
    if identity != gen.log().identity {
        return reopen(engine, &gen, path, &on_disk);
    }
    let durable_end = slot.durable_end;
    gen.log().note_followed_durable(durable_end);
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
    if let Some(at) = followed.last_frame_at {
        gen.log().note_followed(&region, at);
    }
    if followed.end > end {
        gen.log().publish(followed.end);
    }
    engine.counters().refreshes.fetch_add(1, Ordering::Relaxed);
    Ok(Some(followed.applied))
}

/// Open the file at `path` (`on_disk` its metadata) from scratch and follow
/// it from now on; `Ok(None)` without trying when that very file failed to
/// open in `gen`'s place a moment ago.
fn reopen(
    engine: &Engine,
    gen: &crate::engine::Generation,
    path: std::path::PathBuf,
    on_disk: &std::fs::Metadata,
) -> Result<Option<usize>> {
    let stamp = crate::log::file_stamp(on_disk);
    match gen.log().reopen_failed_recently(stamp, REOPEN_RETRY) {
        // The same error again, as the open would give it.
        Some(Some(e)) => return Err(e),
        Some(None) => return Ok(None),
        None => {}
    }
    #[cfg(test)]
    REOPENS.with(|n| n.set(n.get() + 1));
    let fresh = match Engine::open_file(engine.cfg().clone(), path) {
        Ok(fresh) => fresh,
        Err(e) => {
            gen.log().note_failed_reopen(stamp, &e);
            return Err(e);
        }
    };
    let new_gen = fresh.gen_arc();
    let applied = fresh.recovery_report().records_replayed as usize;
    engine.install(new_gen);
    engine.counters().refreshes.fetch_add(1, Ordering::Relaxed);
    Ok(Some(applied))
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

#[cfg(all(test, feature = "encrypt"))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::REOPENS;
    use crate::{Emdb, EncryptionInput};

    /// A file that replaced the followed one and cannot be opened (now
    /// encrypted) is not opened again while it stays as it is (each try
    /// derives a key); a change to it is tried at once. The handle stays
    /// stale with the first error throughout.
    #[test]
    fn an_unchanged_file_that_failed_to_open_is_not_opened_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.emdb");
        Emdb::open(&path).unwrap().insert("k", "v").unwrap();
        let ro = Emdb::builder()
            .path(&path)
            .read_only(true)
            .follow(false)
            .build()
            .unwrap();
        Emdb::enable_encryption(&path, EncryptionInput::Key([7; 32])).unwrap();
        let tries = || REOPENS.with(std::cell::Cell::get);
        let before = tries();
        let first = ro.refresh().unwrap_err().to_string();
        assert_eq!(tries(), before + 1);
        for _ in 0..5 {
            // The same error, as the open gave it.
            assert_eq!(ro.refresh().unwrap_err().to_string(), first);
            assert!(ro.get("k").is_err());
        }
        assert_eq!(tries(), before + 1, "the unchanged file was opened again");
        // Its writer appends: still the same file, whose secret does not
        // fit this handle; not tried again.
        let w = Emdb::builder()
            .path(&path)
            .encryption_key([7; 32])
            .build()
            .unwrap();
        w.insert("k2", "v2").unwrap();
        w.close().unwrap();
        assert_eq!(ro.refresh().unwrap_err().to_string(), first);
        assert_eq!(tries(), before + 1, "an append made it open the file again");
        // Another file at the path: tried at once.
        std::fs::remove_file(crate::admin::encbak_path(&path)).unwrap();
        Emdb::rotate_encryption_key(
            &path,
            EncryptionInput::Key([7; 32]),
            EncryptionInput::Key([8; 32]),
        )
        .unwrap();
        assert!(ro.refresh().is_err());
        assert_eq!(tries(), before + 2);
    }
}
