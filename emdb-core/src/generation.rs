//! A generation: one log file (or memory region) with the indexes that
//! point into it.

use std::sync::Arc;

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::crypto::Crypt;
use crate::error::Result;
use crate::log::{Log, Region};
use crate::namespace::{read_at, same_key, NsEntry, NsTable};

/// One log file (or memory region) with the indexes that point into it.
/// Compaction builds a new generation and swaps it in whole, so readers
/// always see an index and a log that belong together.
pub(crate) struct Generation {
    log: Log,
    ns: RwLock<NsTable>,
    default: Arc<NsEntry>,
    /// Record keys bound to this generation (encrypted databases).
    crypt: Option<Arc<Crypt>>,
}

impl Generation {
    pub(crate) fn new(log: Log, ns: NsTable) -> Generation {
        let default = Arc::clone(ns.default());
        let crypt = ns.crypt.clone();
        Generation {
            log,
            ns: RwLock::new(ns),
            default,
            crypt,
        }
    }

    /// The log file (or memory region).
    #[inline]
    pub(crate) fn log(&self) -> &Log {
        &self.log
    }

    /// The namespace table, for reading.
    #[inline]
    pub(crate) fn ns_table(&self) -> RwLockReadGuard<'_, NsTable> {
        self.ns.read()
    }

    /// The namespace table, for changing (namespace records, replay).
    pub(crate) fn ns_table_mut(&self) -> RwLockWriteGuard<'_, NsTable> {
        self.ns.write()
    }

    /// The default namespace.
    #[inline]
    pub(crate) fn default_ns(&self) -> &Arc<NsEntry> {
        &self.default
    }

    /// Record keys bound to this generation (encrypted databases).
    #[inline]
    pub(crate) fn crypt(&self) -> &Option<Arc<Crypt>> {
        &self.crypt
    }

    /// A namespace by id.
    #[inline]
    pub(crate) fn ns(&self, id: u32) -> Option<Arc<NsEntry>> {
        if id == 0 {
            return Some(Arc::clone(&self.default));
        }
        self.ns.read().get(id).cloned()
    }

    /// Offsets of the live entries of index shard `shard` of `ns` (see
    /// `Keydir::shard_offsets`). When a layered index compares two
    /// records' keys, it reads them as the log is at that moment: a
    /// follower may have published and indexed a record since the caller
    /// last looked.
    pub(crate) fn shard_offsets(&self, ns: &NsEntry, shard: usize) -> Result<Vec<u64>> {
        let crypt = ns.crypt();
        ns.keydir.shard_offsets(shard, |a, b| {
            let region = self.log.region();
            let bytes = self.bytes(&region);
            let mut scratch = zeroize::Zeroizing::new(Vec::new());
            let same = read_at(bytes, a, crypt, &mut scratch)
                .map(|f| f.key.to_vec())
                .and_then(|key| same_key(bytes, b, &key, crypt));
            self.log.vouch_read(&region, bytes, same)
        })
    }

    /// Published bytes of the log through `region`.
    #[inline]
    pub(crate) fn bytes<'r>(&self, region: &'r Region) -> &'r [u8] {
        let end = self.log.published_end().min(region.len() as u64);
        region.slice(0, end).unwrap_or_default()
    }
}
