//! The automatic checkpointer's bell: the writer rings it when the log
//! tail reaches the bound the checkpointer armed it with, so a fast writer
//! does not run past the bound for the rest of the checkpointer's
//! once-a-second look (docs/ARCHITECTURE.md, "The tail bound").
//!
//! Also the engine's [`Stop`]: closing wakes every background thread from
//! its sleep, so the close can wait for them to end without waiting out a
//! tick (docs/ARCHITECTURE.md, "Background threads").

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

/// Tells the engine's background threads it is closing, and wakes those
/// sleeping between rounds.
#[derive(Default)]
pub(crate) struct Stop {
    stopped: AtomicBool,
    lock: Mutex<()>,
    cv: Condvar,
}

impl Stop {
    /// True once the engine is closing.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// Say the engine is closing and wake every sleeper.
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
        // Taken so a sleeper between its check and its wait is not missed.
        let _guard = self.lock.lock();
        self.cv.notify_all();
    }

    /// Sleep `timeout`, or less if the engine closes; true when it did.
    pub(crate) fn sleep(&self, timeout: Duration) -> bool {
        let mut guard = self.lock.lock();
        if !self.stopped() {
            let _ = self.cv.wait_for(&mut guard, timeout);
        }
        self.stopped()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn stop_wakes_a_sleeper_at_once_and_later_sleeps_return_at_once() {
        let stop = Arc::new(Stop::default());
        assert!(!stop.sleep(Duration::from_millis(1)));
        let (tx, rx) = std::sync::mpsc::channel();
        {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || tx.send(stop.sleep(Duration::from_secs(600))));
        }
        stop.stop();
        // A sleeper the stop did not wake would still be asleep a minute on.
        assert_eq!(rx.recv_timeout(Duration::from_secs(60)), Ok(true));
        assert!(stop.sleep(Duration::from_secs(600)));
        assert!(stop.stopped());
    }

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
