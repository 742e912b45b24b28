//! The automatic checkpointer's bell: the writer rings it when the log
//! tail reaches the bound the checkpointer armed it with, so a fast writer
//! does not run past the bound for the rest of the checkpointer's
//! once-a-second look (docs/ARCHITECTURE.md, "The tail bound").

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

/// Shared by the engine (which rings) and its checkpointer thread (which
/// waits), outside the engine so that waiting never keeps it alive.
pub(crate) struct Bell {
    /// Log end at which to ring; `u64::MAX`: not armed.
    due_at: AtomicU64,
    rung: Mutex<bool>,
    cv: Condvar,
}

impl Default for Bell {
    fn default() -> Self {
        Bell {
            due_at: AtomicU64::new(u64::MAX),
            rung: Mutex::new(false),
            cv: Condvar::new(),
        }
    }
}

impl Bell {
    /// Ring once the log end reaches `at`.
    pub(crate) fn arm(&self, at: u64) {
        self.due_at.store(at, Ordering::Relaxed);
    }

    /// The log now ends at `end`: ring if it reached the armed bound (once
    /// per arming). One relaxed load on every write.
    #[inline]
    pub(crate) fn check(&self, end: u64) {
        if end >= self.due_at.load(Ordering::Relaxed)
            && self.due_at.swap(u64::MAX, Ordering::Relaxed) != u64::MAX
        {
            self.ring();
        }
    }

    /// Wake the waiter now (the bound was reached, or the engine is going).
    pub(crate) fn ring(&self) {
        *self.rung.lock() = true;
        self.cv.notify_one();
    }

    /// Wait until rung or `timeout` passed; true when it was rung.
    pub(crate) fn wait(&self, timeout: Duration) -> bool {
        let mut rung = self.rung.lock();
        if !*rung {
            let _ = self.cv.wait_for(&mut rung, timeout);
        }
        std::mem::replace(&mut *rung, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn rings_once_per_arming_when_the_end_reaches_the_bound() {
        let bell = Arc::new(Bell::default());
        // Not armed: nothing rings.
        bell.check(u64::MAX - 1);
        assert!(!bell.wait(Duration::from_millis(1)));
        bell.arm(100);
        bell.check(99);
        assert!(!bell.wait(Duration::from_millis(1)));
        // A waiter on another thread is woken by the write that reaches it.
        let waiter = {
            let bell = Arc::clone(&bell);
            std::thread::spawn(move || bell.wait(Duration::from_secs(60)))
        };
        bell.check(100);
        assert!(waiter.join().unwrap());
        // Rung once: a later write past the bound does not ring again.
        bell.check(200);
        assert!(!bell.wait(Duration::from_millis(1)));
        // Re-armed, it rings again.
        bell.arm(300);
        bell.check(300);
        assert!(bell.wait(Duration::from_millis(1)));
    }
}
