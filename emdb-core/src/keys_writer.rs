//! Writes of a few keys by a process that writes nothing else
//! ([`EmdbBuilder::write_keys`]: the CLI's `put`, `del KEY`, `incr`,
//! `decr`, `expire` and `persist`).
//!
//! A writer's open replays the log written since the checkpoint into the
//! index, about 2.8 µs a record at 1M keys (each record's slot page is
//! checked and copied on write). A one-shot write needs none of that: it
//! opens with only its keys of that tail indexed, as a one-shot read does,
//! while every unit of the tail is still read and checked as a writer's
//! open checks it (CRCs, namespaces, seals; the torn tail cut), writes,
//! and closes without a checkpoint. Its handle holds only those keys, so
//! it is never handed out: the caller gets a [`KeysWriter`], which reads
//! and writes those keys and refuses any other. Once the tail reaches
//! `engine::keys_write_tail` (about 315 KiB at 1M keys), a full writer
//! is opened after the close and checkpoints, which keeps the scans of
//! one-shot reads and writes short (docs/ARCHITECTURE.md, "One-key
//! writes").

use std::time::SystemTime;

use crate::builder::EmdbBuilder;
use crate::config::KeyScope;
use crate::db::{Emdb, Transaction, TxNamespace};
use crate::error::{Error, Result};
use crate::keyspace::Namespace;
use crate::ttl::Ttl;

/// A writable view of a database that reads and writes only the keys it
/// was made for, in one namespace: what [`EmdbBuilder::write_keys`] hands
/// its closure. Any other key is [`Error::KeysOnly`].
pub struct KeysWriter<'a> {
    db: &'a Emdb,
    /// The namespace written (the default one is a [`Namespace`] of id 0,
    /// whose operations are the [`Emdb`]'s own).
    space: Namespace,
    /// Sorted, without repeats.
    keys: Vec<Vec<u8>>,
}

impl<'a> KeysWriter<'a> {
    /// A view of `db` for `keys` in `namespace` (`None`: the default
    /// one). With `create` a missing namespace is created; without it,
    /// `Ok(None)` when there is none of that name. Over a full handle it
    /// only narrows what can be done; [`EmdbBuilder::write_keys`] gives
    /// one over a handle that indexed only these keys.
    pub fn new(
        db: &'a Emdb,
        namespace: Option<&str>,
        create: bool,
        keys: &[&[u8]],
    ) -> Result<Option<KeysWriter<'a>>> {
        let space = match namespace {
            None => db.default_namespace(),
            Some(name) if create => db.namespace(name)?,
            Some(name) => match db.namespace_if_exists(name)? {
                Some(ns) => ns,
                None => return Ok(None),
            },
        };
        let mut keys: Vec<Vec<u8>> = keys.iter().map(|k| k.to_vec()).collect();
        keys.sort_unstable();
        keys.dedup();
        Ok(Some(KeysWriter { db, space, keys }))
    }

    /// The namespace, once `key` is found to be one of the keys.
    fn space(&self, key: &[u8]) -> Result<&Namespace> {
        check(&self.keys, key)?;
        Ok(&self.space)
    }

    /// The value of `key`, if it is live.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.space(key)?.get(key)
    }

    /// When `key` expires: `None` when it never does or is not live.
    pub fn expires_at(&self, key: &[u8]) -> Result<Option<SystemTime>> {
        self.space(key)?.expires_at(key)
    }

    /// Store `value` at `key` with `ttl`.
    pub fn insert(&self, key: &[u8], value: &[u8], ttl: Ttl) -> Result<()> {
        self.space(key)?.insert_with_ttl(key, value, ttl)
    }

    /// Remove `key`; whether it was live.
    pub fn remove(&self, key: &[u8]) -> Result<bool> {
        Ok(self.space(key)?.remove(key)?.is_some())
    }

    /// Whether `key` is live.
    pub fn contains(&self, key: &[u8]) -> Result<bool> {
        self.space(key)?.contains_key(key)
    }

    /// Give `key` a new lifetime of `ttl` from now; false when it is not
    /// live ([`Emdb::expire`]).
    pub fn expire(&self, key: &[u8], ttl: std::time::Duration) -> Result<bool> {
        self.space(key)?.expire(key, ttl)
    }

    /// Remove `key`'s expiry; false when it is not live
    /// ([`Emdb::persist`]).
    pub fn persist(&self, key: &[u8]) -> Result<bool> {
        self.space(key)?.persist(key)
    }

    /// Run `f` and commit its writes as one atomic unit when it returns
    /// `Ok` ([`Emdb::transaction`]); on `Err` nothing is written.
    pub fn transaction<T>(&self, f: impl FnOnce(&mut KeysTx<'_, '_>) -> Result<T>) -> Result<T> {
        self.db.transaction(|tx| {
            f(&mut KeysTx {
                tx,
                space: &self.space,
                keys: &self.keys,
            })
        })
    }
}

/// [`Error::KeysOnly`] unless `key` is one of `keys` (sorted).
fn check(keys: &[Vec<u8>], key: &[u8]) -> Result<()> {
    match keys.binary_search_by(|k| k.as_slice().cmp(key)).is_ok() {
        true => Ok(()),
        false => Err(Error::KeysOnly),
    }
}

/// The transaction of [`KeysWriter::transaction`], for the same keys.
pub struct KeysTx<'t, 'db> {
    tx: &'t mut Transaction<'db>,
    space: &'t Namespace,
    keys: &'t [Vec<u8>],
}

impl<'db> KeysTx<'_, 'db> {
    /// This transaction's part in the namespace, once `key` is found to
    /// be one of the keys.
    fn space(&mut self, key: &[u8]) -> Result<TxNamespace<'_, 'db>> {
        check(self.keys, key)?;
        Ok(self.tx.namespace(self.space))
    }

    /// The value of `key` as this transaction would leave it.
    pub fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.space(key)?.get(key)
    }

    /// Stage storing `value` at `key` with `ttl`.
    pub fn insert(&mut self, key: &[u8], value: &[u8], ttl: Ttl) -> Result<()> {
        self.space(key)?.insert_with_ttl(key, value, ttl)
    }

    /// Stage removing `key`; whether it was live as of this transaction.
    pub fn remove(&mut self, key: &[u8]) -> Result<bool> {
        Ok(self.space(key)?.remove(key)?.is_some())
    }
}

impl EmdbBuilder {
    /// Open the database file for a call that reads and writes only `keys`
    /// of `namespace` (`None`: the default one), run `write` on them, and
    /// close it: what a writer would do, for a process that writes nothing
    /// else, such as a one-shot `emdb put`. `Ok(None)`: `namespace` does
    /// not exist and `create` is false.
    ///
    /// The open takes the writer lock and reads the whole log written
    /// since the checkpoint as a writer's does (every unit checked as
    /// applying it would check it, a torn tail cut; a tail index is not
    /// used), but indexes only the records of `keys` (and every namespace
    /// create, drop and clear), as [`EmdbBuilder::read_one_key`] does:
    /// beside a tail of thousands of one-shot writes that costs a scan, not
    /// a replay. The close makes the writes durable and writes no
    /// checkpoint; once the log written since the checkpoint is past a
    /// bound (about 315 KiB at 1M keys, 980 KiB at 10M; docs/ARCHITECTURE.md,
    /// "One-key writes"), a full writer is opened after it and
    /// checkpoints (with a passphrase, that open derives the key again),
    /// unless another process holds the lock by then (the next call tries
    /// again; the writes were durable before it). The builder's
    /// [`EmdbBuilder::background`] and [`EmdbBuilder::checkpoint_on_close`]
    /// are not used: neither handle starts threads, and only the second
    /// checkpoints. Options that need the whole index
    /// ([`EmdbBuilder::salvage`], [`EmdbBuilder::read_only`]) are refused.
    pub fn write_keys<T>(
        self,
        namespace: Option<&str>,
        create: bool,
        keys: &[&[u8]],
        write: impl FnOnce(&KeysWriter<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        if self.cfg.read_only {
            return Err(Error::ReadOnly);
        }
        if self.cfg.salvage {
            return Err(Error::InvalidConfig(
                "write_keys cannot salvage: a salvage open rewrites the whole log".into(),
            ));
        }
        if self.resolve_path()?.is_none() {
            return Err(Error::NeedsFile {
                what: "write_keys (an in-memory database starts empty)",
            });
        }
        let full = self.clone();
        let mut b = self;
        b.cfg.background = false;
        b.cfg.checkpoint_on_close = false;
        b.cfg.only_keys = Some(KeyScope::keys(keys.iter().copied()));
        let db = b.build()?;
        let out = match KeysWriter::new(&db, namespace, create, keys) {
            Ok(Some(w)) => write(&w).map(Some),
            other => other.map(|_| None),
        };
        let due = db.engine_arc().keys_write_due();
        let closed = db.close();
        let out = out?;
        closed?;
        if due {
            // Not this call's to fail: its writes are durable, and the
            // next one-shot write finds the checkpoint still due.
            let _ = full
                .background(false)
                .checkpoint_on_close(false)
                .build()
                .and_then(|db| {
                    db.engine_arc()
                        .checkpoint_before_close()
                        .and_then(|()| db.close())
                });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_keys_writer_refuses_other_keys_and_whole_database_work() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.emdb");
        let db = Emdb::open(&path).unwrap();
        db.insert("a", "1").unwrap();
        db.insert("b", "2").unwrap();
        drop(db);
        let got = Emdb::builder()
            .path(&path)
            .write_keys(None, false, &[b"a"], |w| {
                assert!(matches!(w.get(b"b"), Err(Error::KeysOnly)));
                assert!(matches!(
                    w.insert(b"b", b"x", Ttl::Never),
                    Err(Error::KeysOnly)
                ));
                assert!(matches!(w.remove(b"c"), Err(Error::KeysOnly)));
                let refused = w.transaction(|tx| tx.insert(b"b", b"x", Ttl::Never));
                assert!(matches!(refused, Err(Error::KeysOnly)));
                // The handle under it holds only `a` of the tail: the
                // whole-index work is refused there too.
                assert!(matches!(w.db.checkpoint(), Err(Error::KeysOnly)));
                assert!(matches!(w.db.compact(), Err(Error::KeysOnly)));
                w.insert(b"a", b"3", Ttl::Never)?;
                w.get(b"a")
            })
            .unwrap();
        assert_eq!(got, Some(Some(b"3".to_vec())));
        let db = Emdb::open(&path).unwrap();
        assert_eq!(db.get("a").unwrap(), Some(b"3".to_vec()));
        assert_eq!(db.get("b").unwrap(), Some(b"2".to_vec()));
        assert_eq!(db.len().unwrap(), 2);
    }
}
