//! redb: copy-on-write B-tree, one file. Configured as redb's own
//! lmdb_benchmark does: a 4 GiB page cache, `Durability::Immediate` commits.

use std::path::PathBuf;

use redb::{Database, Durability, ReadableDatabase, ReadableTableMetadata, TableDefinition};

use crate::store::{closed, dir_bytes, ReadSum, Store};
use crate::workload::{Key, Pair};
use crate::Result;

const TABLE: TableDefinition<&[u8], &[u8]> = TableDefinition::new("bench");
const CACHE_BYTES: usize = 4 << 30;

/// redb in `dir/db.redb`.
pub struct Redb {
    dir: PathBuf,
    db: Option<Database>,
}

impl Redb {
    /// Create the database in `dir` (an empty directory).
    pub fn create(dir: PathBuf) -> Result<Redb> {
        let mut s = Redb { dir, db: None };
        s.open()?;
        Ok(s)
    }

    fn db(&self) -> Result<&Database> {
        self.db.as_ref().ok_or_else(|| closed("redb"))
    }

    fn write(&self, pairs: &[Pair], durability: Durability) -> Result<()> {
        let mut txn = self.db()?.begin_write()?;
        txn.set_durability(durability)?;
        {
            let mut t = txn.open_table(TABLE)?;
            for p in pairs {
                t.insert(&p.key[..], &p.value[..])?;
            }
        }
        txn.commit()?;
        Ok(())
    }
}

impl Store for Redb {
    fn name(&self) -> &'static str {
        "redb"
    }

    fn bulk_load(&mut self, pairs: &[Pair]) -> Result<()> {
        self.write(pairs, Durability::Immediate)
    }

    fn individual_writes(&mut self, pairs: &[Pair]) -> Result<()> {
        for p in pairs {
            self.write(std::slice::from_ref(p), Durability::Immediate)?;
        }
        Ok(())
    }

    fn batch_writes(&mut self, pairs: &[Pair], batch: usize) -> Result<()> {
        for chunk in pairs.chunks(batch) {
            self.write(chunk, Durability::Immediate)?;
        }
        Ok(())
    }

    fn nosync_writes(&mut self, pairs: &[Pair]) -> Result<()> {
        for p in pairs {
            self.write(std::slice::from_ref(p), Durability::None)?;
        }
        Ok(())
    }

    fn count(&self) -> Result<u64> {
        let txn = self.db()?.begin_read()?;
        Ok(txn.open_table(TABLE)?.len()?)
    }

    fn reads(&self, keys: &[Key]) -> Result<ReadSum> {
        let txn = self.db()?.begin_read()?;
        let t = txn.open_table(TABLE)?;
        let mut sum = ReadSum::default();
        for k in keys {
            if let Some(v) = t.get(&k[..])? {
                sum.add(v.value());
            }
        }
        Ok(sum)
    }

    fn range_reads(&mut self, starts: &[Key], len: usize) -> Result<Option<ReadSum>> {
        let txn = self.db()?.begin_read()?;
        let t = txn.open_table(TABLE)?;
        let mut sum = ReadSum::default();
        for s in starts {
            for item in t.range::<&[u8]>(&s[..]..)?.take(len) {
                let (_, v) = item?;
                sum.add(v.value());
            }
        }
        Ok(Some(sum))
    }

    fn removals(&mut self, keys: &[Key]) -> Result<()> {
        let txn = self.db()?.begin_write()?;
        {
            let mut t = txn.open_table(TABLE)?;
            for k in keys {
                t.remove(&k[..])?;
            }
        }
        txn.commit()?;
        Ok(())
    }

    fn compact(&mut self) -> Result<bool> {
        let db = self.db.as_mut().ok_or_else(|| closed("redb"))?;
        // compact() returns whether it did anything; repeat until it is done.
        while db.compact()? {}
        Ok(true)
    }

    fn disk_bytes(&self) -> Result<Option<u64>> {
        Ok(Some(dir_bytes(&self.dir)?))
    }

    fn close(&mut self) -> Result<()> {
        self.db = None;
        Ok(())
    }

    fn open(&mut self) -> Result<()> {
        self.db = Some(
            Database::builder()
                .set_cache_size(CACHE_BYTES)
                .create(self.dir.join("db.redb"))?,
        );
        Ok(())
    }
}
