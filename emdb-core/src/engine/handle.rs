//! A caller's hold on an engine, as opposed to a background thread's.
//!
//! Every handle a caller keeps ([`Emdb`](crate::Emdb),
//! [`Namespace`](crate::Namespace), [`Focus`](crate::Focus),
//! [`WriteBatch`](crate::WriteBatch)) holds a [`Handle`]; the engine's
//! background threads hold a `Weak` and upgrade it for a moment when they
//! work. The close used to run wherever the last `Arc` was dropped, so
//! when a caller dropped its last handle during one of those moments, the
//! close (sync, checkpoint, waiting for the threads) ran on the background
//! thread instead, and a process that then returned from `main` cut it
//! short, leaving `<db>.tail.tmp` or `<db>.ckpt.auto.tmp` behind. Now the
//! thread that drops the last handle closes the engine and waits for its
//! threads itself, whoever holds the `Arc` a moment longer.

use std::ops::Deref;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::Engine;

/// A caller's share of an engine. Cloning counts one more; dropping the
/// last one shuts the engine down on the dropping thread.
pub(crate) struct Handle {
    engine: Arc<Engine>,
}

impl Handle {
    /// The first handle of a newly opened engine.
    pub(crate) fn new(engine: Engine) -> Handle {
        engine.users.store(1, Ordering::Release);
        Handle {
            engine: Arc::new(engine),
        }
    }

    /// The engine, for code that passes it on without making a new handle.
    pub(crate) fn arc(&self) -> &Arc<Engine> {
        &self.engine
    }
}

impl Clone for Handle {
    fn clone(&self) -> Handle {
        // A clone comes from a live handle, so the count is never 0 here.
        self.engine.users.fetch_add(1, Ordering::Relaxed);
        Handle {
            engine: Arc::clone(&self.engine),
        }
    }
}

impl Deref for Handle {
    type Target = Engine;

    fn deref(&self) -> &Engine {
        &self.engine
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        if self.engine.users.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.engine.shut_down();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::Arc;

    use crate::Emdb;

    /// Dropping the last handle while a background thread holds the engine
    /// for a moment closes it on the dropping thread: a process that then
    /// ends cuts nothing short. Before, the close waited for that thread's
    /// `Arc`, and ran there.
    #[test]
    fn the_last_handle_closes_the_engine_though_a_thread_still_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.emdb");
        let db = Emdb::open(&path).unwrap();
        let ns = db.namespace("n").unwrap();
        for i in 0..2_000u32 {
            db.insert(format!("k{i:05}"), [7u8; 100]).unwrap();
        }
        // What a background thread holds while it works.
        let held = Arc::clone(db.engine_arc().arc());
        drop(db);
        // A namespace handle is a caller's too: the engine stays open.
        assert!(!held.stopping());
        ns.insert("k", "v").unwrap();
        drop(ns);
        assert!(held.stopping());
        assert!(held.threads.lock().is_empty(), "its threads were joined");
        let ckpt = crate::fs::sibling(&path, ".ckpt");
        assert!(ckpt.exists(), "the close checkpointed 200 KiB of tail");
        drop(held);
        let again = Emdb::open(&path).unwrap();
        assert!(again.recovery_report().used_checkpoint);
        assert_eq!(
            again.namespace("n").unwrap().get("k").unwrap().unwrap(),
            b"v"
        );
        assert_eq!(again.len().unwrap(), 2_000);
    }
}
