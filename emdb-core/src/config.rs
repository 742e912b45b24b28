//! The validated options an engine is opened with ([`Config`]), made by
//! `EmdbBuilder`; a leaf the engine and the tools below the public API share.

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
    /// A read-only open for one key's reads: the log tail is indexed for
    /// this key only (`EmdbBuilder::read_one_key`; never a handle a caller
    /// gets).
    pub only_key: Option<OnlyKey>,
}

/// The key of a one-key open; its Debug form shows only the length.
#[derive(Clone)]
pub(crate) struct OnlyKey(pub Arc<[u8]>);

impl std::fmt::Debug for OnlyKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OnlyKey({} bytes)", self.0.len())
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
            only_key: None,
        }
    }
}
