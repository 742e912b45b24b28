//! A Redis server at `EMDB_REDIS_URL`, as a peer that pays a network round
//! trip per call. Durability is the server's AOF: the durable phases run with
//! `appendfsync always` (Redis fsyncs once per event-loop turn, before it
//! replies), the nosync phase with `appendfsync no`. Reads and bulk writes
//! are pipelined in chunks of [`PIPELINE`]; individual writes are one round
//! trip each. The database selected by the URL must be empty: the bench
//! fills it and empties it again at the end.

use std::sync::Mutex;

use redis::{Client, Connection};

use crate::store::{ReadSum, Store};
use crate::workload::{Key, Pair};
use crate::Result;

/// Commands per pipelined round trip.
pub const PIPELINE: usize = 1_000;

/// A Redis database reached over a connection.
pub struct Redis {
    client: Client,
    con: Mutex<Connection>,
}

impl Redis {
    /// Connect to `url` and check that its database is empty; turn on the AOF.
    pub fn connect(url: &str) -> Result<Redis> {
        let client = Client::open(url)?;
        let mut con = client.get_connection()?;
        let n: u64 = redis::cmd("DBSIZE").query(&mut con)?;
        if n != 0 {
            return Err(format!(
                "redis at {url} holds {n} keys; point EMDB_REDIS_URL at an empty database \
                 (e.g. redis://127.0.0.1/15): the bench writes and then flushes it"
            )
            .into());
        }
        redis::cmd("CONFIG")
            .arg("SET")
            .arg("appendonly")
            .arg("yes")
            .exec(&mut con)?;
        let r = Redis {
            client,
            con: Mutex::new(con),
        };
        r.fsync(true)?;
        Ok(r)
    }

    fn with_con<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        let mut con = self
            .con
            .lock()
            .map_err(|_| "redis connection lock poisoned")?;
        f(&mut con)
    }

    fn fsync(&self, always: bool) -> Result<()> {
        self.with_con(|con| {
            redis::cmd("CONFIG")
                .arg("SET")
                .arg("appendfsync")
                .arg(if always { "always" } else { "no" })
                .exec(con)?;
            Ok(())
        })
    }

    fn mset(&self, pairs: &[Pair]) -> Result<()> {
        self.with_con(|con| {
            for chunk in pairs.chunks(PIPELINE) {
                let mut c = redis::cmd("MSET");
                for p in chunk {
                    c.arg(&p.key[..]).arg(&p.value[..]);
                }
                c.exec(con)?;
            }
            Ok(())
        })
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        if let Ok(mut con) = self.con.lock() {
            let _ = redis::cmd("FLUSHDB").exec(&mut con);
        }
    }
}

impl Store for Redis {
    fn name(&self) -> &'static str {
        "redis"
    }

    fn bulk_load(&mut self, pairs: &[Pair]) -> Result<()> {
        self.mset(pairs)
    }

    fn individual_writes(&mut self, pairs: &[Pair]) -> Result<()> {
        self.with_con(|con| {
            for p in pairs {
                redis::cmd("SET")
                    .arg(&p.key[..])
                    .arg(&p.value[..])
                    .exec(con)?;
            }
            Ok(())
        })
    }

    fn batch_writes(&mut self, pairs: &[Pair], batch: usize) -> Result<()> {
        self.with_con(|con| {
            for chunk in pairs.chunks(batch) {
                let mut c = redis::cmd("MSET");
                for p in chunk {
                    c.arg(&p.key[..]).arg(&p.value[..]);
                }
                c.exec(con)?;
            }
            Ok(())
        })
    }

    fn nosync_writes(&mut self, pairs: &[Pair]) -> Result<()> {
        self.fsync(false)?;
        let res = self.with_con(|con| {
            for p in pairs {
                redis::cmd("SET")
                    .arg(&p.key[..])
                    .arg(&p.value[..])
                    .exec(con)?;
            }
            Ok(())
        });
        self.fsync(true)?;
        res
    }

    fn count(&self) -> Result<u64> {
        self.with_con(|con| Ok(redis::cmd("DBSIZE").query(con)?))
    }

    fn reads(&self, keys: &[Key]) -> Result<ReadSum> {
        // One connection per call, so reader threads do not share one.
        let mut con = self.client.get_connection()?;
        let mut sum = ReadSum::default();
        for chunk in keys.chunks(PIPELINE) {
            let mut pipe = redis::pipe();
            for k in chunk {
                pipe.cmd("GET").arg(&k[..]);
            }
            let values: Vec<Option<Vec<u8>>> = pipe.query(&mut con)?;
            for v in values.iter().flatten() {
                sum.add(v);
            }
        }
        Ok(sum)
    }

    fn range_reads(&mut self, _starts: &[Key], _len: usize) -> Result<Option<ReadSum>> {
        Ok(None)
    }

    fn removals(&mut self, keys: &[Key]) -> Result<()> {
        self.with_con(|con| {
            for chunk in keys.chunks(PIPELINE) {
                let mut c = redis::cmd("DEL");
                for k in chunk {
                    c.arg(&k[..]);
                }
                c.exec(con)?;
            }
            Ok(())
        })
    }

    fn compact(&mut self) -> Result<bool> {
        Ok(false)
    }

    fn disk_bytes(&self) -> Result<Option<u64>> {
        Ok(None)
    }

    fn can_reopen(&self) -> bool {
        false
    }

    fn close(&mut self) -> Result<()> {
        Ok(())
    }

    fn open(&mut self) -> Result<()> {
        Ok(())
    }
}
