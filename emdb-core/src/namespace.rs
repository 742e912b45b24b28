//! Namespaces: named key spaces, each with its own index, sharing one log.
//!
//! Id 0 is the default namespace (name `""`); named namespaces get ids from
//! 1 up, bound to their name by a `NamespaceCreate` record and never reused.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::record::{self, Frame, Kind};
use crate::index::{hash_key, Keydir};
use crate::recovery::ApplyError;

/// One namespace of one log generation.
pub(crate) struct NsEntry {
    pub id: u32,
    pub name: Vec<u8>,
    pub keydir: Keydir,
}

/// Every namespace of one log generation.
pub(crate) struct NsTable {
    by_id: HashMap<u32, Arc<NsEntry>>,
    by_name: HashMap<Vec<u8>, u32>,
    /// The next unused namespace id.
    pub next_id: u32,
}

impl NsTable {
    /// A table holding only the empty default namespace.
    pub(crate) fn new() -> NsTable {
        let mut t = NsTable {
            by_id: HashMap::new(),
            by_name: HashMap::new(),
            next_id: 1,
        };
        t.insert(Arc::new(NsEntry {
            id: 0,
            name: Vec::new(),
            keydir: Keydir::default(),
        }));
        t
    }

    /// Add (or replace) a namespace.
    pub(crate) fn insert(&mut self, ns: Arc<NsEntry>) {
        self.next_id = self.next_id.max(ns.id.saturating_add(1));
        self.by_name.insert(ns.name.clone(), ns.id);
        self.by_id.insert(ns.id, ns);
    }

    /// The default namespace.
    pub(crate) fn default(&self) -> &Arc<NsEntry> {
        // Id 0 is inserted by `new` and never removed (drop refuses id 0).
        &self.by_id[&0]
    }

    /// A namespace by id.
    pub(crate) fn get(&self, id: u32) -> Option<&Arc<NsEntry>> {
        self.by_id.get(&id)
    }

    /// A namespace by name.
    pub(crate) fn by_name(&self, name: &[u8]) -> Option<&Arc<NsEntry>> {
        self.by_name.get(name).and_then(|id| self.by_id.get(id))
    }

    /// Remove a namespace (never the default one).
    pub(crate) fn remove(&mut self, id: u32) -> Option<Arc<NsEntry>> {
        if id == 0 {
            return None;
        }
        let ns = self.by_id.remove(&id)?;
        self.by_name.remove(&ns.name);
        Some(ns)
    }

    /// Every namespace, default first, then by id.
    pub(crate) fn all(&self) -> Vec<Arc<NsEntry>> {
        let mut v: Vec<_> = self.by_id.values().cloned().collect();
        v.sort_by_key(|n| n.id);
        v
    }

    /// Apply one replayed frame at offset `off` of `bytes` (the whole log).
    pub(crate) fn apply(
        &mut self,
        bytes: &[u8],
        off: u64,
        f: &Frame<'_>,
    ) -> Result<(), ApplyError> {
        match f.kind {
            Kind::Put => {
                let ns = self.by_id.get(&f.ns).ok_or(ApplyError::UnknownNamespace)?;
                let old = ns
                    .keydir
                    .upsert(hash_key(f.key), off, |o| same_key(bytes, o, f.key))?;
                let old_len = old.map_or(0, |o| frame_len_at(bytes, o));
                ns.keydir.account(f.len as u64, old_len);
            }
            Kind::Delete => {
                let ns = self.by_id.get(&f.ns).ok_or(ApplyError::UnknownNamespace)?;
                if let Some(o) = ns
                    .keydir
                    .remove(hash_key(f.key), |o| same_key(bytes, o, f.key))?
                {
                    ns.keydir.account(0, frame_len_at(bytes, o));
                }
            }
            Kind::Clear => {
                self.by_id
                    .get(&f.ns)
                    .ok_or(ApplyError::UnknownNamespace)?
                    .keydir
                    .clear();
            }
            Kind::NamespaceCreate => {
                self.insert(Arc::new(NsEntry {
                    id: f.ns,
                    name: f.key.to_vec(),
                    keydir: Keydir::default(),
                }));
            }
            Kind::NamespaceDrop => {
                self.remove(f.ns).ok_or(ApplyError::UnknownNamespace)?;
            }
            Kind::BatchBegin => {
                return Err(ApplyError::Engine(Error::corruption(
                    off,
                    "nested batch header",
                )))
            }
        }
        Ok(())
    }
}

/// Decode and verify the frame at `off` of `bytes` (the log from offset 0).
#[inline]
pub(crate) fn frame_at(bytes: &[u8], off: u64) -> Result<Frame<'_>> {
    let start = usize::try_from(off).map_err(|_| Error::corruption(off, "offset out of range"))?;
    let buf = bytes
        .get(start..)
        .ok_or_else(|| Error::corruption(off, "index points past the end of the log"))?;
    record::decode(buf).map_err(|e| Error::corruption(off, e.reason()))
}

/// True when the verified frame at `off` carries `key`.
#[inline]
pub(crate) fn same_key(bytes: &[u8], off: u64, key: &[u8]) -> Result<bool> {
    Ok(frame_at(bytes, off)?.key == key)
}

/// Encoded length of the frame at `off` (for live-bytes accounting).
pub(crate) fn frame_len_at(bytes: &[u8], off: u64) -> u64 {
    usize::try_from(off)
        .ok()
        .and_then(|o| bytes.get(o..))
        .and_then(record::frame_len)
        .unwrap_or(0) as u64
}
