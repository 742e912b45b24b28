//! fjall 3: LSM-tree with a journal. Durable means `persist(SyncData)`.
//! A 4 GiB block cache, like the other engines that have one.

use std::path::PathBuf;

use fjall::{Database, Keyspace, KeyspaceCreateOptions, PersistMode};

use crate::store::{closed, dir_bytes, ReadSum, Store};
use crate::workload::{Key, Pair};
use crate::Result;

const CACHE_BYTES: u64 = 4 << 30;

/// fjall in `dir/fjall`, one keyspace.
pub struct Fjall {
    dir: PathBuf,
    db: Option<(Database, Keyspace)>,
}

impl Fjall {
    /// Create the database in `dir` (an empty directory).
    pub fn create(dir: PathBuf) -> Result<Fjall> {
        let mut s = Fjall { dir, db: None };
        s.open()?;
        Ok(s)
    }

    fn db(&self) -> Result<&(Database, Keyspace)> {
        self.db.as_ref().ok_or_else(|| closed("fjall"))
    }

    fn batch(&self, pairs: &[Pair]) -> Result<()> {
        let (db, ks) = self.db()?;
        let mut b = db.batch();
        for p in pairs {
            b.insert(ks, &p.key[..], &p.value[..]);
        }
        b.commit()?;
        db.persist(PersistMode::SyncData)?;
        Ok(())
    }
}

impl Store for Fjall {
    fn name(&self) -> &'static str {
        "fjall"
    }

    fn bulk_load(&mut self, pairs: &[Pair]) -> Result<()> {
        self.batch(pairs)
    }

    fn individual_writes(&mut self, pairs: &[Pair]) -> Result<()> {
        let (db, ks) = self.db()?;
        for p in pairs {
            ks.insert(&p.key[..], &p.value[..])?;
            db.persist(PersistMode::SyncData)?;
        }
        Ok(())
    }

    fn batch_writes(&mut self, pairs: &[Pair], batch: usize) -> Result<()> {
        for chunk in pairs.chunks(batch) {
            self.batch(chunk)?;
        }
        Ok(())
    }

    fn nosync_writes(&mut self, pairs: &[Pair]) -> Result<()> {
        let (_, ks) = self.db()?;
        for p in pairs {
            ks.insert(&p.key[..], &p.value[..])?;
        }
        Ok(())
    }

    fn count(&self) -> Result<u64> {
        Ok(self.db()?.1.len()? as u64)
    }

    fn reads(&self, keys: &[Key]) -> Result<ReadSum> {
        let (_, ks) = self.db()?;
        let mut sum = ReadSum::default();
        for k in keys {
            if let Some(v) = ks.get(k)? {
                sum.add(&v);
            }
        }
        Ok(sum)
    }

    fn range_reads(&mut self, starts: &[Key], len: usize) -> Result<Option<ReadSum>> {
        let (_, ks) = self.db()?;
        let mut sum = ReadSum::default();
        for s in starts {
            for guard in ks.range(&s[..]..).take(len) {
                let (_, v) = guard.into_inner()?;
                sum.add(&v);
            }
        }
        Ok(Some(sum))
    }

    fn removals(&mut self, keys: &[Key]) -> Result<()> {
        let (db, ks) = self.db()?;
        for k in keys {
            ks.remove(&k[..])?;
        }
        db.persist(PersistMode::SyncData)?;
        Ok(())
    }

    fn compact(&mut self) -> Result<bool> {
        // Major compaction (a hidden but public API) merges every table and
        // drops the tombstoned pairs.
        self.db()?.1.major_compact()?;
        Ok(true)
    }

    fn disk_bytes(&self) -> Result<Option<u64>> {
        Ok(Some(dir_bytes(&self.dir)?))
    }

    fn close(&mut self) -> Result<()> {
        if let Some((db, _)) = self.db.take() {
            db.persist(PersistMode::SyncAll)?;
        }
        Ok(())
    }

    fn open(&mut self) -> Result<()> {
        let db = Database::builder(self.dir.join("fjall"))
            .cache_size(CACHE_BYTES)
            .open()?;
        let ks = db.keyspace("bench", KeyspaceCreateOptions::default)?;
        self.db = Some((db, ks));
        Ok(())
    }
}
