//! # emdb-core
//!
//! An embedded key-value database: one append-only log file of CRC-framed
//! records, read through a memory map, with an in-memory sharded hash index
//! that stores 8 bytes per key (no key copies). Single writer, any number of
//! concurrent readers.
//!
//! ```
//! use emdb_core::Emdb;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("app.emdb");
//! {
//!     let db = Emdb::open(&path)?;
//!     db.insert("user:1", "james")?;
//!     db.insert_many([("user:2", "alex"), ("user:3", "sam")])?; // atomic
//!     db.flush()?; // durable from here on
//! }
//! let db = Emdb::open(&path)?;
//! assert_eq!(db.get("user:1")?, Some(b"james".to_vec()));
//! assert_eq!(db.len()?, 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What else is here:
//!
//! - [`EmdbBuilder`]: path or platform data directory, [`FlushPolicy`]
//!   (per-flush fdatasync, group commit, write-through), TTL default,
//!   range scans, read-only follower mode, salvage, encryption.
//! - [`Namespace`]: separate key spaces in one file; [`Emdb::transaction`]
//!   can span them, atomically.
//! - TTLs ([`Ttl`], `insert_with_ttl`, `ttl`, `expire`, `persist`), range
//!   scans (`range`, `range_prefix`, `iter_from`, ...), dotted groups
//!   ([`Focus`]), streaming iteration, zero-copy reads ([`ValueRef`]).
//! - Operations: `flush`, `checkpoint`, `compact` (online), `backup_to`,
//!   [`Emdb::verify`], `stats` ([`Stats`]), [`Emdb::lock_holder`],
//!   [`Emdb::break_lock`], and the offline encryption admin functions
//!   ([`Emdb::enable_encryption`], [`Emdb::rotate_encryption_key`], ...).
//!
//! Cargo features: `encrypt` (default; AES-256-GCM / ChaCha20-Poly1305,
//! Argon2id passphrases), `async` (default; `AsyncEmdb` on tokio's blocking
//! pool), `fault-injection` (tests), `fuzzing` (decoder entry points).
//!
//! The on-disk format is specified in `docs/FORMAT.md`, the design and its
//! reasons in `docs/ARCHITECTURE.md`, the durability promises and how they are
//! tested in `docs/RELIABILITY.md`.

#![deny(missing_docs)]
#![deny(unsafe_code)]

mod admin;
#[cfg(feature = "async")]
mod asyncdb;
mod backup;
mod batch;
mod builder;
pub mod changes;
mod checkpoint;
mod clock;
mod compaction;
mod config;
mod crypto;
mod db;
mod engine;
mod error;
mod fault;
mod flush;
mod follower;
mod format;
mod fs;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod generation;
mod index;
mod keys_writer;
mod keyspace;
mod limits;
mod lock;
mod log;
mod namespace;
mod nested;
pub mod progress;
mod recovery;
mod replay;
mod sorted;
mod stats;
mod tail_index;
mod ttl;
mod verify;

#[cfg(feature = "async")]
pub use asyncdb::{AsyncEmdb, AsyncIter, AsyncNamespace};
pub use batch::WriteBatch;
pub use builder::{
    default_database_path, EmdbBuilder, KeyCounts, OneExpiry, OneKey, DEFAULT_APP_NAME,
    DEFAULT_DATABASE_NAME,
};
pub use clock::{Clock, ManualClock, SystemClock};
pub use crypto::{Cipher, EncryptionInput, KdfParams, KDF_LIMITS};
pub use db::{Emdb, ReadPattern, Transaction, TxNamespace, ValueRef};
pub use error::{Error, Result};
#[cfg(feature = "fault-injection")]
pub use fault::{Faults, FsEvent, ShortWrite, WriteSite};
pub use flush::FlushPolicy;
pub use format::header::SYNC_SLOT_BYTES;
pub use fs::{
    check_new_name, process_temp_base, remove_dead_process_temps, rename_noreplace,
    MAX_NEW_NAME_LEN,
};
pub use keys_writer::{KeysTx, KeysWriter};
pub use keyspace::{prefix_end, Iter, Keys, Namespace, RangeIter};
pub use limits::{
    MAX_KEYS_PER_NAMESPACE, MAX_KEY_LEN, MAX_LOG_SIZE, MAX_NAMESPACE_NAME_LEN, MAX_VALUE_LEN,
};
pub use lock::{pid_alive, LockHolder};
pub use nested::{Focus, Group};
pub use recovery::RecoveryReport;
pub use replay::SkippedRange;
pub use stats::Stats;
pub use ttl::Ttl;
pub use verify::{DamagedCheckpoint, DamagedRange, VerifyReport};
