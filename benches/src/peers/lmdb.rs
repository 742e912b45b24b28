//! LMDB through heed: B+tree in a memory map. Commits sync by default; the
//! nosync phase turns on `MDB_NOSYNC` for its duration.

use std::ops::Bound;
use std::path::PathBuf;

use heed::types::Bytes;
use heed::{CommitOrAbort, Database, Env, EnvFlags, EnvOpenOptions, FlagSetMode};

use crate::store::{closed, dir_bytes, ReadSum, Store};
use crate::workload::{Key, Pair};
use crate::Result;

/// Map size: address space only (the file grows as data is written).
const MAP_BYTES: usize = 64 << 30;

/// heed 0.23 ties a database handle to the environment it was opened in,
/// so each phase opens the handle (one short read transaction) from the Env.
type Db<'e> = Database<'e, Bytes, Bytes>;

/// LMDB in `dir/lmdb`.
pub struct Lmdb {
    dir: PathBuf,
    env: Option<Env>,
}

impl Lmdb {
    /// Create the environment in `dir` (an empty directory).
    pub fn create(dir: PathBuf) -> Result<Lmdb> {
        std::fs::create_dir_all(dir.join("lmdb"))?;
        let mut s = Lmdb { dir, env: None };
        s.open()?;
        Ok(s)
    }

    fn db(&self) -> Result<(&Env, Db<'_>)> {
        let env = self.env.as_ref().ok_or_else(|| closed("lmdb"))?;
        let rtxn = env.read_txn()?;
        let db = env
            .open_databases_and_commit(rtxn, |opener, rtxn| -> heed::Result<_> {
                Ok(CommitOrAbort::<_, ()>::Commit(
                    opener.open_database::<Bytes, Bytes>(rtxn, None)?,
                ))
            })?
            .unwrap_commit()
            .ok_or("lmdb: the unnamed database is missing")?;
        Ok((env, db))
    }

    /// One write transaction per chunk of `per_txn` pairs.
    fn write(&self, pairs: &[Pair], per_txn: usize) -> Result<()> {
        let (env, db) = self.db()?;
        for chunk in pairs.chunks(per_txn) {
            let mut txn = env.write_txn()?;
            for p in chunk {
                db.put(&mut txn, &p.key, &p.value)?;
            }
            txn.commit()?;
        }
        Ok(())
    }

    #[allow(unsafe_code)]
    fn set_nosync(&self, on: bool) -> Result<()> {
        let env = self.env.as_ref().ok_or_else(|| closed("lmdb"))?;
        let mode = if on {
            FlagSetMode::Enable
        } else {
            FlagSetMode::Disable
        };
        // SAFETY: MDB_NOSYNC may be toggled at run time (mdb_env_set_flags);
        // no write transaction is open here, the only writer is this thread.
        unsafe { env.set_flags(EnvFlags::NO_SYNC, mode)? };
        Ok(())
    }
}

impl Store for Lmdb {
    fn name(&self) -> &'static str {
        "lmdb"
    }

    fn bulk_load(&mut self, pairs: &[Pair]) -> Result<()> {
        self.write(pairs, pairs.len().max(1))
    }

    fn individual_writes(&mut self, pairs: &[Pair]) -> Result<()> {
        self.write(pairs, 1)
    }

    fn batch_writes(&mut self, pairs: &[Pair], batch: usize) -> Result<()> {
        self.write(pairs, batch)
    }

    fn nosync_writes(&mut self, pairs: &[Pair]) -> Result<()> {
        self.set_nosync(true)?;
        let res = self.write(pairs, 1);
        self.set_nosync(false)?;
        res
    }

    fn count(&self) -> Result<u64> {
        let (env, db) = self.db()?;
        let txn = env.read_txn()?;
        Ok(db.len(&txn)?)
    }

    fn reads(&self, keys: &[Key]) -> Result<ReadSum> {
        let (env, db) = self.db()?;
        let txn = env.read_txn()?;
        let mut sum = ReadSum::default();
        for k in keys {
            if let Some(v) = db.get(&txn, k)? {
                sum.add(v);
            }
        }
        Ok(sum)
    }

    fn range_reads(&mut self, starts: &[Key], len: usize) -> Result<Option<ReadSum>> {
        let (env, db) = self.db()?;
        let txn = env.read_txn()?;
        let mut sum = ReadSum::default();
        for s in starts {
            let from: (Bound<&[u8]>, Bound<&[u8]>) = (Bound::Included(&s[..]), Bound::Unbounded);
            for item in db.range(&txn, &from)?.take(len) {
                let (_, v) = item?;
                sum.add(v);
            }
        }
        Ok(Some(sum))
    }

    fn removals(&mut self, keys: &[Key]) -> Result<()> {
        let (env, db) = self.db()?;
        let mut txn = env.write_txn()?;
        for k in keys {
            db.delete(&mut txn, k)?;
        }
        txn.commit()?;
        Ok(())
    }

    fn compact(&mut self) -> Result<bool> {
        // LMDB reuses free pages but never shrinks its file in place
        // (a compacting copy, mdb_env_copy2, writes a second file).
        Ok(false)
    }

    fn disk_bytes(&self) -> Result<Option<u64>> {
        Ok(Some(dir_bytes(&self.dir)?))
    }

    fn close(&mut self) -> Result<()> {
        if let Some(env) = self.env.take() {
            env.force_sync()?;
            env.prepare_for_closing().wait();
        }
        Ok(())
    }

    #[allow(unsafe_code)]
    fn open(&mut self) -> Result<()> {
        let path = self.dir.join("lmdb");
        // SAFETY: this process opens the environment once at a time (close()
        // waits for the previous Env to be gone) and nothing else maps it.
        let env = unsafe { EnvOpenOptions::new().map_size(MAP_BYTES).open(&path)? };
        let wtxn = env.write_txn()?;
        env.create_databases_and_commit(wtxn, |opener, wtxn| -> heed::Result<_> {
            opener.create_database::<Bytes, Bytes>(wtxn, None)?;
            Ok(CommitOrAbort::<(), ()>::Commit(()))
        })?;
        self.env = Some(env);
        Ok(())
    }
}
