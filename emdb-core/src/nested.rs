//! Nested dotted groups: `focus("a.b")` scopes keys to the prefix `a.b.`.

use crate::engine::Handle;
use crate::error::Result;
use crate::keyspace::{prefix_end, range_iter, RangeIter};

/// A view of the keys under one dotted prefix; keys given to it are relative
/// (`focus("product").set("name", ..)` writes `product.name`).
#[derive(Clone)]
pub struct Focus {
    engine: Handle,
    ns: u32,
    /// The prefix with its trailing dot (empty for the root).
    prefix: Vec<u8>,
}

impl std::fmt::Debug for Focus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Focus")
            .field("prefix", &String::from_utf8_lossy(&self.prefix))
            .finish()
    }
}

impl Focus {
    pub(crate) fn new(engine: Handle, ns: u32, prefix: &str) -> Focus {
        let prefix = if prefix.is_empty() {
            Vec::new()
        } else {
            format!("{}.", prefix.trim_end_matches('.')).into_bytes()
        };
        Focus { engine, ns, prefix }
    }

    fn full(&self, key: &[u8]) -> Vec<u8> {
        let mut k = Vec::with_capacity(self.prefix.len() + key.len());
        k.extend_from_slice(&self.prefix);
        k.extend_from_slice(key);
        k
    }

    /// The dotted prefix this handle is scoped to (without the trailing dot).
    pub fn prefix(&self) -> String {
        String::from_utf8_lossy(self.prefix.strip_suffix(b".").unwrap_or(&self.prefix)).into_owned()
    }

    /// A handle one level deeper: `focus("a").focus("b")` is `focus("a.b")`.
    pub fn focus(&self, sub: impl AsRef<str>) -> Focus {
        let p = self.prefix();
        let joined = if p.is_empty() {
            sub.as_ref().to_string()
        } else {
            format!("{p}.{}", sub.as_ref())
        };
        Focus::new(self.engine.clone(), self.ns, &joined)
    }

    /// Insert or replace `prefix.key`.
    pub fn set(&self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        let at =
            crate::Ttl::Default.expires_at(|| self.engine.now(), self.engine.cfg().default_ttl);
        self.engine
            .put(self.ns, &self.full(key.as_ref()), value.as_ref(), at)
    }

    /// The value of `prefix.key`.
    pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        let gen = self.engine.gen();
        let full = self.full(key.as_ref());
        self.engine.with_ns(&gen, self.ns, |ns| {
            self.engine
                .lookup(&gen, ns, &full, |_, _, f| f.value.to_vec())
        })
    }

    /// Remove `prefix.key`; returns its value.
    pub fn remove(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        self.engine.delete(self.ns, &self.full(key.as_ref()))
    }

    /// True when `prefix.key` has a value.
    pub fn contains_key(&self, key: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.get(key)?.is_some())
    }

    /// Pairs under the prefix with keys relative to it.
    pub fn iter(&self) -> Result<Group> {
        Ok(Group {
            inner: self.source()?,
            prefix: self.prefix.clone(),
            strip: true,
        })
    }

    /// Pairs under the prefix with full keys.
    pub(crate) fn pairs(&self) -> Result<Group> {
        Ok(Group {
            inner: self.source()?,
            prefix: self.prefix.clone(),
            strip: false,
        })
    }

    /// Number of keys under the prefix.
    pub fn count(&self) -> Result<usize> {
        let mut n = 0;
        for kv in self.pairs()? {
            kv?;
            n += 1;
        }
        Ok(n)
    }

    /// Delete every key under the prefix in one atomic batch; returns how many.
    pub fn delete_all(&self) -> Result<usize> {
        let keys: Vec<Vec<u8>> = self
            .pairs()?
            .map(|kv| kv.map(|(k, _)| k))
            .collect::<Result<_>>()?;
        if keys.is_empty() {
            return Ok(0);
        }
        let mut batch = self.engine.batch()?;
        for k in &keys {
            batch.delete(self.ns, k)?;
        }
        batch.commit()?;
        Ok(keys.len())
    }

    fn source(&self) -> Result<RangeIter> {
        let start = std::ops::Bound::Included(self.prefix.clone());
        range_iter(&self.engine, self.ns, start, prefix_end(&self.prefix))
    }
}

/// Iterator over the pairs of a dotted group, in byte order; see
/// [`Focus::iter`] and `group`.
pub struct Group {
    inner: RangeIter,
    prefix: Vec<u8>,
    strip: bool,
}

impl Iterator for Group {
    type Item = Result<(Vec<u8>, Vec<u8>)>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let item = self.inner.next()?;
            match item {
                Ok((k, v)) if k.starts_with(&self.prefix) => {
                    let k = if self.strip {
                        k[self.prefix.len()..].to_vec()
                    } else {
                        k
                    };
                    return Some(Ok((k, v)));
                }
                Ok(_) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}
