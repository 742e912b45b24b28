//! [`Space`]: the key space a data command works in, the default namespace
//! or a named one, behind one set of methods.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use std::ops::Bound;

use emdb_core::{Emdb, Keys, Namespace, RangeIter, Result, Transaction, Ttl, ValueRef, WriteBatch};

/// The default namespace (the database itself) or a named namespace.
#[derive(Clone, Debug)]
pub enum Space {
    /// The default namespace.
    Default(Emdb),
    /// A named namespace.
    Named(Namespace),
}

/// Call the same method on whichever key space this is.
macro_rules! both {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            Space::Default($s) => $e,
            Space::Named($s) => $e,
        }
    };
}

impl Space {
    /// The key space `name` of `db` (`None` or `""`: the default one). A
    /// named namespace is created if missing when `db` is writable.
    pub fn open(db: &Emdb, name: Option<&str>) -> Result<Space> {
        match name.filter(|n| !n.is_empty()) {
            None => Ok(Space::Default(db.clone())),
            Some(name) => Ok(Space::Named(db.namespace(name)?)),
        }
    }

    /// The key space `name` of `db` if it exists (`None` or `""`: the
    /// default one, which always does). Never creates a namespace, so a
    /// reader does not bring back a namespace another process dropped.
    pub fn existing(db: &Emdb, name: Option<&str>) -> Result<Option<Space>> {
        match name.filter(|n| !n.is_empty()) {
            None => Ok(Some(Space::Default(db.clone()))),
            Some(name) => Ok(db.namespace_if_exists(name)?.map(Space::Named)),
        }
    }

    /// The namespace name (`""` for the default one).
    pub fn name(&self) -> &str {
        match self {
            Space::Default(_) => "",
            Space::Named(ns) => ns.name(),
        }
    }

    /// The value of `key`, borrowed from the mapped log.
    pub fn get(&self, key: &[u8]) -> Result<Option<ValueRef>> {
        both!(self, s => s.get_zerocopy(key))
    }

    /// Start loading `key`'s index entry into the CPU cache (a hint; see
    /// [`Namespace::prefetch`]).
    pub fn prefetch(&self, key: &[u8]) {
        both!(self, s => s.prefetch(key))
    }

    /// The value of `key`, copied out.
    pub fn get_owned(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        both!(self, s => s.get(key))
    }

    /// Where the record of `key` starts in the log.
    pub fn record_offset(&self, key: &[u8]) -> Result<Option<u64>> {
        both!(self, s => s.record_offset(key))
    }

    /// True when `key` is live.
    pub fn contains(&self, key: &[u8]) -> Result<bool> {
        both!(self, s => s.contains_key(key))
    }

    /// Insert or replace `key` with `ttl`.
    pub fn insert(&self, key: &[u8], value: &[u8], ttl: Ttl) -> Result<()> {
        both!(self, s => s.insert_with_ttl(key, value, ttl))
    }

    /// A batch of writes on this key space, encoded as they are added.
    pub fn write_batch(&self) -> WriteBatch {
        both!(self, s => s.write_batch())
    }

    /// Insert many pairs without expiry as one atomic batch.
    pub fn insert_many<'a>(
        &self,
        items: impl IntoIterator<Item = (&'a [u8], &'a [u8])>,
    ) -> Result<()> {
        both!(self, s => s.insert_many(items))
    }

    /// Live keys.
    pub fn len(&self) -> Result<usize> {
        both!(self, s => s.len())
    }

    /// Live records that carry an expiry (0: no key here can expire).
    pub fn expiring_len(&self) -> Result<u64> {
        both!(self, s => s.expiring_len())
    }

    /// True when the key space holds no live key.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Every key, in no order.
    pub fn keys(&self) -> Result<Keys> {
        both!(self, s => s.keys())
    }

    /// Pairs with keys between `start` and `end`, streamed in byte order
    /// from the engine's sorted order (O(log n) to start, then one record
    /// per step; no key is held in memory).
    pub fn range(&self, start: Bound<Vec<u8>>, end: Bound<Vec<u8>>) -> Result<RangeIter> {
        both!(self, s => s.range_iter((start.clone(), end.clone())))
    }

    /// When `key` expires, in ms since the Unix epoch (`None`: no expiry or
    /// no such key).
    pub fn expires_at_ms(&self, key: &[u8]) -> Result<Option<u64>> {
        Ok(both!(self, s => s.expires_at(key))?.map(unix_ms))
    }

    /// Time left before `key` expires.
    pub fn ttl(&self, key: &[u8]) -> Result<Option<Duration>> {
        both!(self, s => s.ttl(key))
    }

    /// The value of `key` as the transaction `tx` sees it.
    pub fn tx_get(&self, tx: &mut Transaction<'_>, key: &[u8]) -> Result<Option<Vec<u8>>> {
        match self {
            Space::Default(_) => tx.get(key),
            Space::Named(ns) => tx.namespace(ns).get(key),
        }
    }

    /// Stage an insert of `key` with `ttl` in `tx`.
    pub fn tx_insert(
        &self,
        tx: &mut Transaction<'_>,
        key: &[u8],
        value: &[u8],
        ttl: Ttl,
    ) -> Result<()> {
        match self {
            Space::Default(_) => tx.insert_with_ttl(key, value, ttl),
            Space::Named(ns) => tx.namespace(ns).insert_with_ttl(key, value, ttl),
        }
    }

    /// Stage the removal of `key` in `tx`; returns whether it existed.
    pub fn tx_remove(&self, tx: &mut Transaction<'_>, key: &[u8]) -> Result<bool> {
        Ok(match self {
            Space::Default(_) => tx.remove(key)?,
            Space::Named(ns) => tx.namespace(ns).remove(key)?,
        }
        .is_some())
    }
}

/// Milliseconds since the Unix epoch (0 before it).
pub fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Now, in milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    unix_ms(SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn existing_never_creates_a_namespace() {
        let dir = tempfile::tempdir().unwrap();
        let db = Emdb::open(dir.path().join("db.emdb")).unwrap();
        assert_eq!(Space::existing(&db, None).unwrap().unwrap().name(), "");
        assert_eq!(Space::existing(&db, Some("")).unwrap().unwrap().name(), "");
        assert!(Space::existing(&db, Some("later")).unwrap().is_none());
        assert!(db.list_namespaces().unwrap().is_empty());
        Space::open(&db, Some("later")).unwrap();
        let found = Space::existing(&db, Some("later")).unwrap().unwrap();
        assert_eq!(found.name(), "later");
    }
}
