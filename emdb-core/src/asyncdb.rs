//! `AsyncEmdb` and `AsyncNamespace` (feature `async`): the same operations,
//! run on tokio's blocking thread pool so they never stall an async runtime.
//!
//! Iteration streams in chunks: each `next()` that finds the buffer empty
//! fetches the next chunk on the blocking pool, so nothing is read ahead of
//! what the consumer takes (backpressure by construction).
//!
//! Outside a tokio runtime every operation fails with an error (it used
//! to panic inside tokio). A write whose future is dropped before it
//! finishes may still happen: it runs on the blocking pool to its end.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Duration;

use crate::builder::EmdbBuilder;
use crate::db::Emdb;
use crate::error::{Error, Result};
use crate::keyspace::{Iter, Namespace};
use crate::stats::Stats;
use crate::ttl::Ttl;

/// Items fetched per trip to the blocking pool while iterating.
const CHUNK: usize = 256;

async fn blocking<T, F>(f: F) -> Result<T>
where
    F: FnOnce() -> Result<T> + Send + 'static,
    T: Send + 'static,
{
    tokio::runtime::Handle::try_current()
        .map_err(|e| Error::io("start a blocking task", None, std::io::Error::other(e)))?
        .spawn_blocking(f)
        .await
        .map_err(|e| Error::io("blocking task", None, std::io::Error::other(e.to_string())))?
}

impl EmdbBuilder {
    /// Open the database on the blocking pool and return an async handle.
    /// Needs a tokio runtime.
    pub async fn build_async(self) -> Result<AsyncEmdb> {
        let db = blocking(move || self.build()).await?;
        Ok(AsyncEmdb { db })
    }
}

/// An async handle on an [`Emdb`]; cheap to clone.
#[derive(Clone, Debug)]
pub struct AsyncEmdb {
    db: Emdb,
}

/// An async handle on a [`Namespace`]; cheap to clone.
#[derive(Clone, Debug)]
pub struct AsyncNamespace {
    ns: Namespace,
}

/// The data operations shared by both async handles.
macro_rules! async_keyspace {
    ($field:ident) => {
        /// Insert or replace `key`.
        pub async fn insert(
            &self,
            key: impl Into<Vec<u8>>,
            value: impl Into<Vec<u8>>,
        ) -> Result<()> {
            let (h, k, v) = (self.$field.clone(), key.into(), value.into());
            blocking(move || h.insert(k, v)).await
        }

        /// Insert or replace `key` with a lifetime.
        pub async fn insert_with_ttl(
            &self,
            key: impl Into<Vec<u8>>,
            value: impl Into<Vec<u8>>,
            ttl: Ttl,
        ) -> Result<()> {
            let (h, k, v) = (self.$field.clone(), key.into(), value.into());
            blocking(move || h.insert_with_ttl(k, v, ttl)).await
        }

        /// The value of `key`.
        pub async fn get(&self, key: impl Into<Vec<u8>>) -> Result<Option<Vec<u8>>> {
            let (h, k) = (self.$field.clone(), key.into());
            blocking(move || h.get(k)).await
        }

        /// Remove `key`; returns its value.
        pub async fn remove(&self, key: impl Into<Vec<u8>>) -> Result<Option<Vec<u8>>> {
            let (h, k) = (self.$field.clone(), key.into());
            blocking(move || h.remove(k)).await
        }

        /// True when `key` has a live value.
        pub async fn contains_key(&self, key: impl Into<Vec<u8>>) -> Result<bool> {
            let (h, k) = (self.$field.clone(), key.into());
            blocking(move || h.contains_key(k)).await
        }

        /// Number of live keys.
        pub async fn len(&self) -> Result<usize> {
            let h = self.$field.clone();
            blocking(move || h.len()).await
        }

        /// True when there are no live keys.
        pub async fn is_empty(&self) -> Result<bool> {
            Ok(self.len().await? == 0)
        }

        /// Remove every key.
        pub async fn clear(&self) -> Result<()> {
            let h = self.$field.clone();
            blocking(move || h.clear()).await
        }

        /// Insert many pairs as one atomic batch.
        pub async fn insert_many(&self, items: Vec<(Vec<u8>, Vec<u8>)>) -> Result<()> {
            let h = self.$field.clone();
            blocking(move || h.insert_many(items)).await
        }

        /// Time left before `key` expires.
        pub async fn ttl(&self, key: impl Into<Vec<u8>>) -> Result<Option<Duration>> {
            let (h, k) = (self.$field.clone(), key.into());
            blocking(move || h.ttl(k)).await
        }

        /// Stream every pair (see `Emdb::iter`), a chunk at a time.
        pub async fn iter(&self) -> Result<AsyncIter> {
            let h = self.$field.clone();
            let inner = blocking(move || h.iter()).await?;
            Ok(AsyncIter::new(inner))
        }
    };
}

impl AsyncEmdb {
    async_keyspace!(db);

    /// The synchronous handle behind this one.
    pub fn blocking_handle(&self) -> &Emdb {
        &self.db
    }

    /// The namespace `name`, created if missing.
    pub async fn namespace(&self, name: impl Into<String>) -> Result<AsyncNamespace> {
        let (db, name) = (self.db.clone(), name.into());
        let ns = blocking(move || db.namespace(name)).await?;
        Ok(AsyncNamespace { ns })
    }

    /// Drop namespace `name`; false if it did not exist.
    pub async fn drop_namespace(&self, name: impl Into<String>) -> Result<bool> {
        let (db, name) = (self.db.clone(), name.into());
        blocking(move || db.drop_namespace(name)).await
    }

    /// Make every earlier write durable.
    pub async fn flush(&self) -> Result<()> {
        let db = self.db.clone();
        blocking(move || db.flush()).await
    }

    /// Persist the index for a fast reopen.
    pub async fn checkpoint(&self) -> Result<()> {
        let db = self.db.clone();
        blocking(move || db.checkpoint()).await
    }

    /// Rewrite the log with only live records.
    pub async fn compact(&self) -> Result<()> {
        let db = self.db.clone();
        blocking(move || db.compact()).await
    }

    /// Sizes and counters.
    pub async fn stats(&self) -> Result<Stats> {
        let db = self.db.clone();
        blocking(move || db.stats()).await
    }

    /// A consistent copy in a new file.
    pub async fn backup_to(&self, target: impl Into<PathBuf>) -> Result<()> {
        let (db, t) = (self.db.clone(), target.into());
        blocking(move || db.backup_to(t)).await
    }
}

impl AsyncNamespace {
    async_keyspace!(ns);

    /// The namespace's name.
    pub fn name(&self) -> &str {
        self.ns.name()
    }
}

/// Async iterator over `(key, value)` pairs: call [`AsyncIter::next`].
pub struct AsyncIter {
    inner: Option<Iter>,
    buf: VecDeque<Result<(Vec<u8>, Vec<u8>)>>,
    /// A chunk being fetched on the blocking pool. Kept here, not in the
    /// future of `next`: a `next` dropped before it finished (a `select!`,
    /// a timeout) must not take the iterator with it, or every later
    /// `next` would end the iteration early, as if the data had ended.
    fetching: Option<tokio::task::JoinHandle<Fetched>>,
}

/// The iterator and the chunk it gave.
type Fetched = (Iter, VecDeque<Result<(Vec<u8>, Vec<u8>)>>);

impl AsyncIter {
    fn new(inner: Iter) -> AsyncIter {
        AsyncIter {
            inner: Some(inner),
            buf: VecDeque::new(),
            fetching: None,
        }
    }

    /// The next pair, fetching another chunk from the blocking pool when the
    /// buffer is empty; `None` at the end. Cancel-safe: a call dropped while
    /// it waits loses nothing (the next call waits for the same chunk).
    pub async fn next(&mut self) -> Option<Result<(Vec<u8>, Vec<u8>)>> {
        if self.buf.is_empty() {
            if self.fetching.is_none() {
                let runtime = match tokio::runtime::Handle::try_current() {
                    Ok(r) => r,
                    Err(e) => {
                        let e = std::io::Error::other(e);
                        return Some(Err(Error::io("start a blocking task", None, e)));
                    }
                };
                let mut it = self.inner.take()?;
                self.fetching = Some(runtime.spawn_blocking(move || {
                    let chunk: VecDeque<_> = it.by_ref().take(CHUNK).collect();
                    (it, chunk)
                }));
            }
            let fetched = match self.fetching.as_mut() {
                Some(handle) => handle.await,
                None => return None,
            };
            self.fetching = None;
            match fetched {
                Ok((it, chunk)) => {
                    if chunk.len() == CHUNK {
                        self.inner = Some(it);
                    }
                    self.buf = chunk;
                }
                Err(e) => {
                    return Some(Err(Error::io(
                        "blocking task",
                        None,
                        std::io::Error::other(e.to_string()),
                    )))
                }
            }
        }
        self.buf.pop_front()
    }
}
