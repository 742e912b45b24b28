//! emdb-core, this workspace's engine, with its default options
//! (`FlushPolicy::OnEachFlush`, hash index only).

use std::path::PathBuf;

use emdb_core::Emdb;

use crate::store::{closed, dir_bytes, ReadSum, Store};
use crate::workload::{Key, Pair};
use crate::Result;

/// emdb-core in `dir/db.emdb`.
pub struct EmdbCore {
    dir: PathBuf,
    db: Option<Emdb>,
}

impl EmdbCore {
    /// Create the database in `dir` (an empty directory).
    pub fn create(dir: PathBuf) -> Result<EmdbCore> {
        let db = Emdb::open(dir.join("db.emdb"))?;
        Ok(EmdbCore { dir, db: Some(db) })
    }

    fn db(&self) -> Result<&Emdb> {
        self.db.as_ref().ok_or_else(|| closed("emdb-core"))
    }
}

impl Store for EmdbCore {
    fn name(&self) -> &'static str {
        "emdb-core"
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
            db.insert(p.key, p.value)?;
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
            db.insert(p.key, p.value)?;
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

    fn range_reads(&mut self, starts: &[Key], len: usize) -> Result<Option<ReadSum>> {
        let db = self.db()?;
        let mut sum = ReadSum::default();
        for s in starts {
            // Values read in place, as the reads use `get_zerocopy` and
            // the B-tree peers read borrowed slices.
            let mut it = db.range_iter(s.to_vec()..)?;
            for _ in 0..len {
                match it.next_map(|_, v| sum.add(v)) {
                    Some(r) => r?,
                    None => break,
                }
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
            // Dropping the last handle syncs, trims and checkpoints; do the
            // checkpoint explicitly so a failure is reported.
            db.checkpoint()?;
        }
        Ok(())
    }

    fn open(&mut self) -> Result<()> {
        self.db = Some(Emdb::open(self.dir.join("db.emdb"))?);
        Ok(())
    }

    fn index_bytes(&self) -> Result<Option<u64>> {
        Ok(Some(self.db()?.stats()?.index_memory_bytes))
    }
}
