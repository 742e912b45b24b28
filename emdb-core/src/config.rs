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

    /// True for a key in the scope.
    #[inline]
    pub(crate) fn holds(&self, key: &[u8]) -> bool {
        match self {
            KeyScope::First { start, end, .. } => {
                KeyScope::Range(start.clone(), end.clone()).holds(key)
            }
            KeyScope::Keys(keys) => keys.binary_search_by(|k| (**k).cmp(key)).is_ok(),
            KeyScope::Nothing => false,
            KeyScope::Counts => true,
            KeyScope::Range(start, end) => {
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
        }
    }
}

impl std::fmt::Debug for KeyScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyScope::Keys(k) => write!(f, "KeyScope::Keys({} keys)", k.len()),
            KeyScope::Range(..) => write!(f, "KeyScope::Range(..)"),
            KeyScope::Nothing => write!(f, "KeyScope::Nothing"),
            KeyScope::First { want, .. } => write!(f, "KeyScope::First({want})"),
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
