//! One [`Store`](crate::Store) adapter per engine. emdb-core is always
//! built; every peer is behind the cargo feature of the same name.

pub mod emdb_core;
#[cfg(feature = "emdb-published")]
pub mod emdb_published;
#[cfg(feature = "fjall")]
pub mod fjall;
#[cfg(feature = "lmdb")]
pub mod lmdb;
#[cfg(feature = "redb")]
pub mod redb;
#[cfg(feature = "redis")]
pub mod redis;
#[cfg(feature = "rocksdb")]
pub mod rocksdb;
#[cfg(feature = "sled")]
pub mod sled;

use std::path::PathBuf;

use crate::{Result, Store};

/// Engines compiled into this build, in report order.
pub fn compiled() -> Vec<&'static str> {
    let mut v = vec!["emdb-core"];
    if cfg!(feature = "emdb-published") {
        v.push("emdb-1.x");
    }
    for (on, name) in [
        (cfg!(feature = "redb"), "redb"),
        (cfg!(feature = "sled"), "sled"),
        (cfg!(feature = "fjall"), "fjall"),
        (cfg!(feature = "lmdb"), "lmdb"),
        (cfg!(feature = "rocksdb"), "rocksdb"),
        (cfg!(feature = "redis"), "redis"),
    ] {
        if on {
            v.push(name);
        }
    }
    v
}

/// Open engine `name` in `dir`, an empty directory of its own.
pub fn create(name: &str, dir: PathBuf) -> Result<Box<dyn Store>> {
    let _ = &dir;
    Ok(match name {
        "emdb-core" => Box::new(emdb_core::EmdbCore::create(dir)?),
        #[cfg(feature = "emdb-published")]
        "emdb-1.x" => Box::new(emdb_published::EmdbPublished::create(dir)?),
        #[cfg(feature = "redb")]
        "redb" => Box::new(redb::Redb::create(dir)?),
        #[cfg(feature = "sled")]
        "sled" => Box::new(sled::Sled::create(dir)?),
        #[cfg(feature = "fjall")]
        "fjall" => Box::new(fjall::Fjall::create(dir)?),
        #[cfg(feature = "lmdb")]
        "lmdb" => Box::new(lmdb::Lmdb::create(dir)?),
        #[cfg(feature = "rocksdb")]
        "rocksdb" => Box::new(rocksdb::Rocks::create(dir)?),
        #[cfg(feature = "redis")]
        "redis" => {
            let url = std::env::var("EMDB_REDIS_URL")
                .map_err(|_| "the redis peer needs EMDB_REDIS_URL (e.g. redis://127.0.0.1/15)")?;
            Box::new(redis::Redis::connect(&url)?)
        }
        other => {
            return Err(format!(
                "engine {other:?} is not compiled in (have: {}); enable its cargo feature",
                compiled().join(", ")
            )
            .into())
        }
    })
}
