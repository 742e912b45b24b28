//! RocksDB: LSM-tree with a write-ahead log. Durable means a write with
//! `sync = true`; a 4 GiB block cache as in redb's lmdb_benchmark.

use std::path::PathBuf;

use rocksdb::{BlockBasedOptions, Cache, Options, WriteBatch, WriteOptions, DB};

use crate::store::{closed, dir_bytes, ReadSum, Store};
use crate::workload::{Key, Pair};
use crate::Result;

const CACHE_BYTES: usize = 4 << 30;

/// RocksDB in `dir/rocksdb`.
pub struct Rocks {
    dir: PathBuf,
    cache: Cache,
    db: Option<DB>,
}

fn write_opts(sync: bool) -> WriteOptions {
    let mut w = WriteOptions::default();
    w.set_sync(sync);
    w
}

impl Rocks {
    /// Create the database in `dir` (an empty directory).
    pub fn create(dir: PathBuf) -> Result<Rocks> {
        let mut s = Rocks {
            dir,
            cache: Cache::new_lru_cache(CACHE_BYTES),
            db: None,
        };
        s.open()?;
        Ok(s)
    }

    fn db(&self) -> Result<&DB> {
        self.db.as_ref().ok_or_else(|| closed("rocksdb"))
    }

    fn batch(&self, pairs: &[Pair]) -> Result<()> {
        let mut b = WriteBatch::default();
        for p in pairs {
            b.put(p.key, p.value);
        }
        self.db()?.write_opt(b, &write_opts(true))?;
        Ok(())
    }
}

impl Store for Rocks {
    fn name(&self) -> &'static str {
        "rocksdb"
    }

    fn bulk_load(&mut self, pairs: &[Pair]) -> Result<()> {
        self.batch(pairs)
    }

    fn individual_writes(&mut self, pairs: &[Pair]) -> Result<()> {
        let db = self.db()?;
        let w = write_opts(true);
        for p in pairs {
            db.put_opt(p.key, p.value, &w)?;
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
        let db = self.db()?;
        let w = write_opts(false);
        for p in pairs {
            db.put_opt(p.key, p.value, &w)?;
        }
        Ok(())
    }

    fn count(&self) -> Result<u64> {
        let mut it = self.db()?.raw_iterator();
        it.seek_to_first();
        let mut n = 0;
        while it.valid() {
            n += 1;
            it.next();
        }
        it.status()?;
        Ok(n)
    }

    fn reads(&self, keys: &[Key]) -> Result<ReadSum> {
        let db = self.db()?;
        let mut sum = ReadSum::default();
        for k in keys {
            if let Some(v) = db.get_pinned(k)? {
                sum.add(&v);
            }
        }
        Ok(sum)
    }

    fn range_reads(&mut self, starts: &[Key], len: usize) -> Result<Option<ReadSum>> {
        let db = self.db()?;
        let mut sum = ReadSum::default();
        let mut it = db.raw_iterator();
        for s in starts {
            it.seek(s);
            let mut n = 0;
            while n < len && it.valid() {
                if let Some(v) = it.value() {
                    sum.add(v);
                }
                n += 1;
                it.next();
            }
            it.status()?;
        }
        Ok(Some(sum))
    }

    fn removals(&mut self, keys: &[Key]) -> Result<()> {
        let db = self.db()?;
        let w = write_opts(false);
        for k in keys {
            db.delete_opt(k, &w)?;
        }
        db.flush_wal(true)?;
        Ok(())
    }

    fn compact(&mut self) -> Result<bool> {
        self.db()?.compact_range(None::<&[u8]>, None::<&[u8]>);
        Ok(true)
    }

    fn disk_bytes(&self) -> Result<Option<u64>> {
        Ok(Some(dir_bytes(&self.dir)?))
    }

    fn close(&mut self) -> Result<()> {
        if let Some(db) = self.db.take() {
            db.flush_wal(true)?;
        }
        Ok(())
    }

    fn open(&mut self) -> Result<()> {
        let mut table = BlockBasedOptions::default();
        table.set_block_cache(&self.cache);
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.set_block_based_table_factory(&table);
        self.db = Some(DB::open(&opts, self.dir.join("rocksdb"))?);
        Ok(())
    }
}
