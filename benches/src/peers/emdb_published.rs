//! The published `emdb` crate (1.x, renamed `emdb_published`), default options.

use std::path::PathBuf;

use emdb_published::Emdb;

use crate::store::{closed, dir_bytes, ReadSum, Store};
use crate::workload::{Key, Pair};
use crate::Result;

/// emdb 1.x in `dir/db.emdb`.
pub struct EmdbPublished {
    dir: PathBuf,
    db: Option<Emdb>,
}

impl EmdbPublished {
    /// Create the database in `dir` (an empty directory).
    pub fn create(dir: PathBuf) -> Result<EmdbPublished> {
        let db = Emdb::open(dir.join("db.emdb"))?;
        Ok(EmdbPublished { dir, db: Some(db) })
    }

    fn db(&self) -> Result<&Emdb> {
        self.db.as_ref().ok_or_else(|| closed("emdb-1.x"))
    }

    fn open_with(&mut self, range_scans: bool) -> Result<()> {
        self.db = Some(
            Emdb::builder()
                .path(self.dir.join("db.emdb"))
                .enable_range_scans(range_scans)
                .build()?,
        );
        Ok(())
    }
}

impl Store for EmdbPublished {
    fn name(&self) -> &'static str {
        "emdb-1.x"
    }

    fn bulk_load(&mut self, pairs: &[Pair]) -> Result<()> {
        let db = self.db()?;
        db.insert_many(pairs.iter().map(|p| (&p.key, &p.value)))?;
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
            db.insert_many(chunk.iter().map(|p| (&p.key, &p.value)))?;
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
        Ok(self.db()?.len()? as u64)
    }

    fn reads(&self, keys: &[Key]) -> Result<ReadSum> {
        let db = self.db()?;
        let mut sum = ReadSum::default();
        for k in keys {
            if let Some(v) = db.get_zerocopy(k)? {
                sum.add(&v);
            }
        }
        Ok(sum)
    }

    fn begin_range_reads(&mut self) -> Result<()> {
        // Range scans are opt-in (they keep a sorted copy of every key):
        // reopen with them for this phase only.
        self.close()?;
        self.open_with(true)
    }

    fn end_range_reads(&mut self) -> Result<()> {
        self.close()?;
        self.open_with(false)
    }

    fn range_reads(&mut self, starts: &[Key], len: usize) -> Result<Option<ReadSum>> {
        let db = self.db()?;
        let mut sum = ReadSum::default();
        for s in starts {
            for (_, v) in db.range_iter(s.to_vec()..)?.take(len) {
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
        self.db()?.compact()?;
        Ok(true)
    }

    fn disk_bytes(&self) -> Result<Option<u64>> {
        Ok(Some(dir_bytes(&self.dir)?))
    }

    fn close(&mut self) -> Result<()> {
        if let Some(db) = self.db.take() {
            // Its checkpoint is a sync plus a sidecar write (reopen always
            // replays the journal); do it so a failure is reported.
            db.checkpoint()?;
        }
        Ok(())
    }

    fn open(&mut self) -> Result<()> {
        self.open_with(false)
    }
}
