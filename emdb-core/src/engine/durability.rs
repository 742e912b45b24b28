//! Durability: which published writes are synced, group commit, the
//! sync-slot sequence, and poisoning after a failure that leaves what is
//! durable unknown.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::error::{Error, Result};

#[derive(Default)]
struct GroupState {
    /// A leader is gathering or syncing.
    leader: bool,
    /// The leader is still gathering (waiting for company, not yet syncing).
    gathering: bool,
    /// Flushers queued for the leader's sync (while gathering) or for the
    /// next one (while syncing).
    waiting: usize,
    /// Completed syncs; queued flushers wait for it to change.
    round: u64,
}

/// The engine's durability state. Writes count as published through
/// [`Durability::published`]; a sync covers a target taken before it
/// started ([`Durability::target`]) and records it with
/// [`Durability::mark_durable`].
pub(super) struct Durability {
    /// The sync-slot sequence number (lock order: after the writer lock).
    slots: Mutex<u64>,
    write_seq: AtomicU64,
    durable_seq: AtomicU64,
    group: Mutex<GroupState>,
    group_cv: Condvar,
    poisoned: AtomicBool,
    poison_reason: Mutex<Option<String>>,
}

impl Durability {
    /// Nothing published, nothing poisoned.
    pub(super) fn new() -> Durability {
        Durability {
            slots: Mutex::new(0),
            write_seq: AtomicU64::new(0),
            durable_seq: AtomicU64::new(0),
            group: Mutex::new(GroupState::default()),
            group_cv: Condvar::new(),
            poisoned: AtomicBool::new(false),
            poison_reason: Mutex::new(None),
        }
    }

    /// Refuse every later write: what is durable is no longer known.
    pub(super) fn poison(&self, reason: String) {
        *self.poison_reason.lock() = Some(reason);
        self.poisoned.store(true, Ordering::Release);
    }

    /// True once poisoned.
    pub(super) fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::Acquire)
    }

    /// `Err(Error::Poisoned)` once poisoned.
    pub(super) fn check(&self) -> Result<()> {
        if self.is_poisoned() {
            let why = self.poison_reason.lock().clone().unwrap_or_default();
            return Err(Error::Poisoned(why));
        }
        Ok(())
    }

    /// A write was published: the next sync must cover it.
    pub(super) fn published(&self) {
        self.write_seq.fetch_add(1, Ordering::AcqRel);
    }

    /// The newest published write, for a sync about to start to cover.
    pub(super) fn target(&self) -> u64 {
        self.write_seq.load(Ordering::Acquire)
    }

    /// True when a sync already covered `target`.
    pub(super) fn covers(&self, target: u64) -> bool {
        self.durable_seq.load(Ordering::Acquire) >= target
    }

    /// A sync covering `target` completed.
    pub(super) fn mark_durable(&self, target: u64) {
        self.durable_seq.fetch_max(target, Ordering::AcqRel);
    }

    /// The sync-slot sequence counter.
    pub(super) fn slots_lock(&self) -> MutexGuard<'_, u64> {
        self.slots.lock()
    }

    /// Group commit. At most one fdatasync runs at a time; a flush that finds
    /// one running queues behind it, and the next sync (led by one of the
    /// queued flushers) covers every write published before it started. So
    /// while syncs are back to back, each one covers everything that arrived
    /// during the previous one, and no flusher waits on a timer. A leader
    /// that finds nobody queued waits up to `max_wait` for company (fewer
    /// than `max_batch - 1` others), then syncs.
    /// `check` fails the flush (a poisoned or displaced handle); `sync`
    /// makes every write published before it durable.
    pub(super) fn group_flush(
        &self,
        max_wait: Duration,
        max_batch: usize,
        check: impl Fn() -> Result<()>,
        sync: impl Fn() -> Result<()>,
    ) -> Result<()> {
        let target = self.target();
        let mut g = self.group.lock();
        loop {
            if self.covers(target) {
                return Ok(());
            }
            check()?;
            if g.leader {
                // A sync is running (or a leader is gathering): queue for the
                // round after it.
                g.waiting += 1;
                if g.gathering && g.waiting + 1 >= max_batch {
                    self.group_cv.notify_all();
                }
                let round = g.round;
                while g.round == round {
                    self.group_cv.wait(&mut g);
                }
                continue;
            }
            g.leader = true;
            if g.waiting == 0 && max_batch > 1 && !max_wait.is_zero() {
                g.gathering = true;
                // A max_wait past what an Instant holds (Duration::MAX)
                // waits for the whole group: the sum panicked, and left
                // `leader` set, so every later flush of the handle hung.
                let deadline = Instant::now().checked_add(max_wait);
                while g.waiting + 1 < max_batch {
                    match deadline {
                        Some(d) => {
                            if self.group_cv.wait_until(&mut g, d).timed_out() {
                                break;
                            }
                        }
                        None => self.group_cv.wait(&mut g),
                    }
                }
                g.gathering = false;
            }
            // Everyone queued so far is covered by this sync (their writes
            // were published before they queued); later arrivals queue anew.
            g.waiting = 0;
            drop(g);
            let r = sync();
            let mut g = self.group.lock();
            g.leader = false;
            g.round += 1;
            self.group_cv.notify_all();
            return r;
        }
    }
}
