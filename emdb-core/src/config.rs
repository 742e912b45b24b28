//! The validated options an engine is opened with ([`Config`]), made by
//! `EmdbBuilder`; a leaf the engine and the tools below the public API share.

use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Clock, SystemClock};
use crate::crypto::{Cipher, EncryptionInput, KdfParams};
use crate::flush::FlushPolicy;

/// Default for `EmdbBuilder::checkpoint_tail`: 8 MiB of log.
pub const DEFAULT_CHECKPOINT_TAIL: u64 = 8 << 20;

/// Validated engine options.
#[derive(Clone, Debug)]
pub(crate) struct Config {
    pub flush_policy: FlushPolicy,
    pub read_only: bool,
    /// Read-only handles: catch up with the writer in the background.
    pub follow: bool,
    /// Writable handles: publish stats and checkpoint in the background.
    pub background: bool,
    pub salvage: bool,
    pub checkpoint_on_close: bool,
    /// Log tail (bytes past the newest checkpoint) from which the writer
    /// checkpoints by itself; `None` turns that off.
    pub checkpoint_tail: Option<u64>,
    pub default_ttl: Option<Duration>,
    /// Verify each record's CRC when a read returns it.
    pub verify_reads: bool,
    pub clock: Arc<dyn Clock>,
    /// Key or passphrase (zeroized on drop, redacted in Debug).
    pub encryption: Option<EncryptionInput>,
    /// Cipher for a new encrypted database.
    pub cipher: Cipher,
    /// Argon2id costs for a new passphrase-encrypted database.
    pub kdf_params: KdfParams,
    /// Injected I/O faults (feature `fault-injection`).
    pub faults: Option<Arc<crate::fault::Faults>>,
    /// An open for the reads of a few keys or one key range: of the log
    /// tail only the records of those keys are indexed
    /// (`EmdbBuilder::read_one_key`, `EmdbBuilder::range_once`; never a
    /// handle a caller gets). A writer opened so
    /// (`EmdbBuilder::write_keys`) never checkpoints, compacts or writes a
    /// tail index: its index holds only those keys of the tail.
    pub only_keys: Option<KeyScope>,
    /// A full read-only open may take the log a tail index covers from it
    /// (ARCHITECTURE.md, "Layered opens"); `false` only in tests, for a
    /// reference handle that replays the whole tail.
    pub layer_tail: bool,
}

/// The keys a scoped open indexes; its Debug form shows no key bytes.
#[derive(Clone)]
pub(crate) enum KeyScope {
    /// A few keys (one for a one-key read), sorted and without repeats
    /// ([`KeyScope::keys`]).
    Keys(Arc<[Arc<[u8]>]>),
    /// The keys within two bounds.
    Range(Bound<Arc<[u8]>>, Bound<Arc<[u8]>>),
    /// No key: what a count resolves to when it takes its counts from a
    /// tail index.
    Nothing,
    /// The first `want` keys of a range of one namespace (`None`: the
    /// default one): resolved at open to a `Range` ending at the key
    /// `want` entries past the start in the checkpoint's order, when it
    /// has one (`EmdbBuilder::range_once_first`).
    First {
        namespace: Option<Arc<[u8]>>,
        start: Bound<Arc<[u8]>>,
        end: Bound<Arc<[u8]>>,
        want: usize,
    },
    /// What a `First` resolves to once its namespace is known: the keys of
    /// that namespace within two bounds, of which only the smallest ones
    /// the log tail touches are indexed ([`Smallest`]).
    Smallest(Arc<Smallest>),
    /// Every namespace's count: with a writer's tail index (version 2),
    /// the counts are taken from it and moved by the keys written past it
    /// (`Nothing` is indexed); without one, everything is indexed
    /// (`EmdbBuilder::read_counts`).
    Counts,
}

impl KeyScope {
    /// The scope of `keys` (sorted and deduplicated here).
    pub(crate) fn keys<'a>(keys: impl IntoIterator<Item = &'a [u8]>) -> KeyScope {
        let mut keys: Vec<Arc<[u8]>> = keys.into_iter().map(Arc::from).collect();
        keys.sort_unstable();
        keys.dedup();
        KeyScope::Keys(keys.into())
    }

    /// True for a key of namespace `ns` in the scope (only `Smallest`
    /// looks at the namespace).
    #[inline]
    pub(crate) fn holds(&self, ns: u32, key: &[u8]) -> bool {
        match self {
            KeyScope::First { start, end, .. } => within(start, end, key),
            KeyScope::Smallest(s) => s.holds(ns, key),
            KeyScope::Keys(keys) => keys.binary_search_by(|k| (**k).cmp(key)).is_ok(),
            KeyScope::Nothing => false,
            KeyScope::Counts => true,
            KeyScope::Range(start, end) => within(start, end, key),
        }
    }
}

/// True for a key between two bounds.
#[inline]
fn within(start: &Bound<Arc<[u8]>>, end: &Bound<Arc<[u8]>>, key: &[u8]) -> bool {
    let after_start = match start {
        Bound::Included(s) => key >= &**s,
        Bound::Excluded(s) => key > &**s,
        Bound::Unbounded => true,
    };
    after_start
        && match end {
            Bound::Included(e) => key <= &**e,
            Bound::Excluded(e) => key < &**e,
            Bound::Unbounded => true,
        }
}

/// The scope of a read of a range's first pairs (`KeyScope::Smallest`):
/// the keys of one namespace between two bounds, of which a scoped open
/// indexes only the `keep` smallest the log tail touches. Each key it
/// meets beyond those moves a cut down to the largest it held, and no key
/// from the cut on is held any more; so every key below the cut that the
/// tail touches is indexed (each of its records: the cut only moves
/// down), and the range read up to the cut is as complete as a full
/// open's. A tail that writes many keys at the range's start (a writer
/// appending `event:N` keys before a checkpoint's `user:` keys) then
/// costs the read `keep` indexed keys, not one per key written.
pub(crate) struct Smallest {
    ns: u32,
    /// Where the range starts.
    pub start: Bound<Arc<[u8]>>,
    end: Bound<Arc<[u8]>>,
    keep: usize,
    held: std::sync::Mutex<Held>,
}

/// The keys a [`Smallest`] holds, and its cut.
#[derive(Default)]
struct Held {
    keys: std::collections::BTreeSet<Vec<u8>>,
    /// The smallest key left out: keys from here on are not held.
    cut: Option<Vec<u8>>,
}

impl Smallest {
    /// Hold at most `keep` keys of namespace `ns` from `start` to `end`.
    pub(crate) fn new(
        ns: u32,
        start: Bound<Arc<[u8]>>,
        end: Bound<Arc<[u8]>>,
        keep: usize,
    ) -> Smallest {
        Smallest {
            ns,
            start,
            end,
            keep: keep.max(1),
            held: std::sync::Mutex::new(Held::default()),
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        // A panic elsewhere while holding it leaves a set that is still
        // consistent (each step is one insert or one removal).
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// True when the key is (now) held; a key met for the first time is
    /// taken in, and the largest held key leaves when that makes one too
    /// many (it becomes the cut).
    fn holds(&self, ns: u32, key: &[u8]) -> bool {
        if ns != self.ns || !within(&self.start, &self.end, key) {
            return false;
        }
        let mut held = self.held();
        if held.cut.as_deref().is_some_and(|c| key >= c) {
            return false;
        }
        if held.keys.contains(key) {
            return true;
        }
        held.keys.insert(key.to_vec());
        if held.keys.len() > self.keep {
            let largest = held.keys.pop_last();
            let kept = largest.as_deref().is_some_and(|l| key < l);
            held.cut = largest;
            return kept;
        }
        true
    }

    /// The namespace id whose keys are held: the one the checkpoint gave
    /// the namespace read.
    pub(crate) fn ns(&self) -> u32 {
        self.ns
    }

    /// True for a key past the range's end or the cut: no key after it in
    /// key order is held either.
    pub(crate) fn past(&self, key: &[u8]) -> bool {
        let beyond_end = match &self.end {
            Bound::Included(e) => key > &**e,
            Bound::Excluded(e) => key >= &**e,
            Bound::Unbounded => false,
        };
        beyond_end || self.held().cut.as_deref().is_some_and(|c| key >= c)
    }

    /// The cut, when keys were left out: the range read is complete only
    /// below it.
    pub(crate) fn cut(&self) -> Option<Vec<u8>> {
        self.held().cut.clone()
    }
}

impl std::fmt::Debug for KeyScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyScope::Keys(k) => write!(f, "KeyScope::Keys({} keys)", k.len()),
            KeyScope::Range(..) => write!(f, "KeyScope::Range(..)"),
            KeyScope::Nothing => write!(f, "KeyScope::Nothing"),
            KeyScope::First { want, .. } => write!(f, "KeyScope::First({want})"),
            KeyScope::Smallest(s) => write!(f, "KeyScope::Smallest({})", s.keep),
            KeyScope::Counts => write!(f, "KeyScope::Counts"),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            flush_policy: FlushPolicy::default(),
            read_only: false,
            follow: true,
            background: true,
            salvage: false,
            checkpoint_on_close: true,
            checkpoint_tail: Some(DEFAULT_CHECKPOINT_TAIL),
            default_ttl: None,
            verify_reads: true,
            clock: Arc::new(SystemClock),
            encryption: None,
            cipher: Cipher::default(),
            kdf_params: KdfParams::default(),
            faults: None,
            only_keys: None,
            layer_tail: true,
        }
    }
}
