//! Progress of the long operations: compaction, verification, backup and
//! the encryption rewrite (enable, disable, rotate).
//!
//! A caller that wants to show progress runs the operation inside
//! [`observe`], which installs its callback for that call on the calling
//! thread; the operation reports bytes done of a total as it goes. Without
//! an observer (the default, and always on the engine's background threads)
//! a report is a counter update and one thread-local read per step of
//! 256 KiB or more (`Meter::STEP_MIN`), so the operations pay nothing
//! measurable for it. A thread-local, rather than a parameter, keeps the
//! operations' signatures as they are.
//!
//! ```
//! # fn main() -> emdb_core::Result<()> {
//! # let dir = tempfile::tempdir().unwrap();
//! use std::sync::{Arc, Mutex};
//!
//! let db = emdb_core::Emdb::open(dir.path().join("app.emdb"))?;
//! db.insert("k", "v")?;
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let sink = Arc::clone(&seen);
//! emdb_core::progress::observe(move |p| sink.lock().unwrap().push(p), || db.compact())?;
//! let last = *seen.lock().unwrap().last().unwrap();
//! assert_eq!(last.done, last.total);
//! # Ok(())
//! # }
//! ```

use std::cell::RefCell;

/// Which long operation is reporting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// Compaction copying the live records into the new log.
    Compacting,
    /// [`Emdb::verify`](crate::Emdb::verify) checking every record.
    Verifying,
    /// A backup copying the log's bytes.
    Copying,
    /// An encryption change (or an encrypted backup's re-seal) copying
    /// every live record into the new file.
    Rewriting,
}

/// How far a long operation has got, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// What is being done.
    pub phase: Phase,
    /// Bytes done so far; never more than `total`.
    pub done: u64,
    /// Bytes to do in this phase: log bytes for verification and backup,
    /// bytes of live records for compaction and the encryption rewrite.
    pub total: u64,
}

type Observer = Box<dyn FnMut(Progress)>;

thread_local! {
    static OBSERVER: RefCell<Option<Observer>> = const { RefCell::new(None) };
}

/// Run `op`, reporting the progress of the long operations it runs on this
/// thread to `observer`. Each phase starts with a report of `done: 0` and
/// ends with `done == total`; reports in between come every 1/512 of the
/// total (at least every 256 KiB). The previous observer, if any, is put
/// back afterwards, also when `op` panics.
pub fn observe<R>(observer: impl FnMut(Progress) + 'static, op: impl FnOnce() -> R) -> R {
    struct Restore(Option<Observer>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            OBSERVER.with(|o| {
                if let Ok(mut o) = o.try_borrow_mut() {
                    *o = previous;
                }
            });
        }
    }
    let previous = OBSERVER.with(|o| {
        o.try_borrow_mut()
            .ok()
            .and_then(|mut o| o.replace(Box::new(observer)))
    });
    let _restore = Restore(previous);
    op()
}

/// True when an observer is installed on this thread.
pub(crate) fn observed() -> bool {
    OBSERVER.with(|o| o.try_borrow().is_ok_and(|o| o.is_some()))
}

/// Hand `p` to this thread's observer, if any. An observer that starts a
/// long operation itself is not called again from inside it.
fn report(p: Progress) {
    OBSERVER.with(|o| {
        if let Ok(mut o) = o.try_borrow_mut() {
            if let Some(f) = o.as_mut() {
                f(p);
            }
        }
    });
}

/// Counts one phase's bytes and reports them in steps.
pub(crate) struct Meter {
    phase: Phase,
    total: u64,
    done: u64,
    next: u64,
    step: u64,
    on: bool,
}

impl Meter {
    /// The smallest step between two reports.
    pub(crate) const STEP_MIN: u64 = 256 << 10;

    /// Start a phase of `total` bytes (reports `done: 0` when observed).
    pub(crate) fn start(phase: Phase, total: u64) -> Meter {
        let on = observed();
        let step = (total / 512).max(Self::STEP_MIN);
        if on {
            report(Progress {
                phase,
                total,
                done: 0,
            });
        }
        Meter {
            phase,
            total,
            done: 0,
            next: step,
            step,
            on,
        }
    }

    /// `n` more bytes done.
    #[inline]
    pub(crate) fn add(&mut self, n: u64) {
        self.done = self.done.saturating_add(n);
        if self.on && self.done >= self.next {
            self.next = self.done.saturating_add(self.step);
            report(Progress {
                phase: self.phase,
                total: self.total,
                done: self.done.min(self.total),
            });
        }
    }

    /// The phase is over: report `done == total` (records that went away
    /// meanwhile, or expired ones, may have left `done` short of it).
    pub(crate) fn finish(self) {
        if self.on {
            report(Progress {
                phase: self.phase,
                total: self.total,
                done: self.total,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn reports_in_steps_and_restores_the_previous_observer() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let out = seen.clone();
        observe(
            move |p: Progress| out.lock().unwrap().push(p.done),
            || {
                let mut m = Meter::start(Phase::Verifying, 10 << 20);
                for _ in 0..(10 << 10) {
                    m.add(1024);
                }
                m.finish();
            },
        );
        let seen = seen.lock().unwrap();
        assert_eq!(seen.first(), Some(&0));
        assert_eq!(seen.last(), Some(&(10 << 20)));
        // 10 MiB in steps of 256 KiB: 40 reports, plus start and finish.
        assert_eq!(seen.len(), 42, "{seen:?}");
        assert!(seen.windows(2).all(|w| w[0] <= w[1]));
        assert!(!observed());
    }

    #[test]
    fn without_an_observer_nothing_is_reported() {
        let mut m = Meter::start(Phase::Compacting, 100);
        m.add(1 << 30);
        m.finish();
        assert!(!observed());
    }
}
