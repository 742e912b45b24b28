//! sled 0.34 (the last stable release): lock-free B-tree over a log, with a
//! 4 GiB page cache like the other engines that have one.

use std::path::PathBuf;

use crate::store::{closed, dir_bytes, ReadSum, Store};
use crate::workload::{Key, Pair};
use crate::Result;

const CACHE_BYTES: u64 = 4 << 30;

/// sled in `dir/sled`.
pub struct Sled {
    dir: PathBuf,
    db: Option<sled::Db>,
}

impl Sled {
    /// Create the database in `dir` (an empty directory).
    pub fn create(dir: PathBuf) -> Result<Sled> {
        let mut s = Sled { dir, db: None };
        s.open()?;
        Ok(s)
    }

    fn db(&self) -> Result<&sled::Db> {
        self.db.as_ref().ok_or_else(|| closed("sled"))
    }
}

impl Store for Sled {
    fn name(&self) -> &'static str {
        "sled"
    }

    fn bulk_load(&mut self, pairs: &[Pair]) -> Result<()> {
        let db = self.db()?;
        for p in pairs {
            db.insert(&p.key[..], &p.value[..])?;
        }
        db.flush()?;
        Ok(())
    }

    fn individual_writes(&mut self, pairs: &[Pair]) -> Result<()> {
        let db = self.db()?;
        for p in pairs {
            db.insert(&p.key[..], &p.value[..])?;
            db.flush()?;
        }
        Ok(())
    }

    fn batch_writes(&mut self, pairs: &[Pair], batch: usize) -> Result<()> {
        let db = self.db()?;
        for chunk in pairs.chunks(batch) {
            let mut b = sled::Batch::default();
            for p in chunk {
                b.insert(&p.key[..], &p.value[..]);
            }
            db.apply_batch(b)?;
            db.flush()?;
        }
        Ok(())
    }

    fn nosync_writes(&mut self, pairs: &[Pair]) -> Result<()> {
        let db = self.db()?;
        for p in pairs {
            db.insert(&p.key[..], &p.value[..])?;
        }
        Ok(())
    }

    fn count(&self) -> Result<u64> {
        Ok(self.db()?.len() as u64)
    }

    fn reads(&self, keys: &[Key]) -> Result<ReadSum> {
        let db = self.db()?;
        let mut sum = ReadSum::default();
        for k in keys {
            if let Some(v) = db.get(k)? {
                sum.add(&v);
            }
        }
        Ok(sum)
    }

    fn range_reads(&mut self, starts: &[Key], len: usize) -> Result<Option<ReadSum>> {
        let db = self.db()?;
        let mut sum = ReadSum::default();
        for s in starts {
            for item in db.range(&s[..]..).take(len) {
                let (_, v) = item?;
                sum.add(&v);
            }
        }
        Ok(Some(sum))
    }

    fn removals(&mut self, keys: &[Key]) -> Result<()> {
        let db = self.db()?;
        for k in keys {
            db.remove(k)?;
        }
        db.flush()?;
        Ok(())
    }

    fn compact(&mut self) -> Result<bool> {
        Ok(false)
    }

    fn disk_bytes(&self) -> Result<Option<u64>> {
        Ok(Some(dir_bytes(&self.dir)?))
    }

    fn close(&mut self) -> Result<()> {
        if let Some(db) = self.db.take() {
            db.flush()?;
        }
        Ok(())
    }

    fn open(&mut self) -> Result<()> {
        self.db = Some(
            sled::Config::new()
                .path(self.dir.join("sled"))
                .cache_capacity(CACHE_BYTES)
                .open()?,
        );
        Ok(())
    }
}
