//! An ordered change feed: every change of the log, in log order, with the
//! log position after it, read from beside a live writer.
//!
//! The feed reads the log file with `pread` (like a follower: never through
//! a mapping, whole units only) and hands out only units that end at or below
//! the writer's durable end (the newest sync slot). A change it reported can
//! therefore never be undone by a crash of the writer (the tail a crash cuts
//! is always past the durable end), and a position it reported is a unit
//! boundary forever in that generation.
//!
//! Positions are `(db_id, generation, offset)` [`Cursor`]s. When the writer
//! compacts, it renames a new file over the log; the feed first drains the
//! old file to its end (the catch-up copies every unit of it into the new
//! file, synced before the rename), then continues in the new file at the
//! position the new file's coverage block maps it to (docs/FORMAT.md,
//! "Compaction coverage block"). A cursor that no coverage block maps (the
//! feed was stopped while the writer compacted twice, or it was behind the
//! compaction's starting point, or the file was replaced by something else)
//! cannot continue: the feed says so ([`Start::Resend`], [`Poll::resend`])
//! and starts over at the beginning of the current file, which a consumer
//! treats as "clear everything and copy again".
//!
//! Reading the current file from its first record is also how a fresh
//! consumer makes its full copy: a compacted file holds only live records,
//! and a file with dead records replays to the same final state.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::crypto::Crypt;
use crate::db::Emdb;
use crate::engine::{keys_fit, read_identity};
use crate::error::{Error, Result};
use crate::format::coverage::Coverage;
use crate::format::header::{Identity, HEADER_SIZE};
use crate::format::record::Kind;
use crate::namespace::open_frame;
use crate::replay::{claimed_unit_len, decode_unit_in, Damage, DamagePolicy};

/// A position in the change feed of one database: the byte offset just past
/// the last unit applied, in one generation (compaction) of its log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// The database's random id (fixed at creation, kept by compaction).
    pub db_id: [u8; 16],
    /// The log generation `position` is in.
    pub generation: u64,
    /// Offset in that generation's log file: a unit boundary.
    pub position: u64,
}

/// One change, decoded. The default namespace is named `""`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// `key` now maps to `value`, expiring at `expires_at_ms` (ms since the
    /// Unix epoch) if set. The expiry may already be past.
    Put {
        /// Namespace name.
        namespace: String,
        /// Key bytes.
        key: Vec<u8>,
        /// Value bytes.
        value: Vec<u8>,
        /// Absolute expiry, ms since the Unix epoch.
        expires_at_ms: Option<u64>,
    },
    /// `key` is removed.
    Delete {
        /// Namespace name.
        namespace: String,
        /// Key bytes.
        key: Vec<u8>,
    },
    /// A namespace was created.
    CreateNamespace {
        /// Its name.
        namespace: String,
    },
    /// A namespace was dropped with all its keys.
    DropNamespace {
        /// Its name.
        namespace: String,
    },
    /// Every key of a namespace was removed.
    Clear {
        /// Namespace name.
        namespace: String,
    },
}

/// The changes of one unit (a record or an atomic batch) and the position
/// just past it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The changes, in order.
    pub changes: Vec<Change>,
    /// The feed position after this unit.
    pub end: Cursor,
}

/// How a feed opened from a cursor starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// No cursor was given: the feed starts at the first record.
    Fresh,
    /// The cursor is in the current file: the feed continues there.
    Continue,
    /// The cursor was in the previous generation and the current file's
    /// coverage block maps it: the feed continues at the mapped position.
    Mapped {
        /// The cursor as given.
        from: Cursor,
    },
    /// The cursor cannot be continued: the feed starts at the first record
    /// of the current file, and the consumer must drop what it holds.
    Resend {
        /// Why, for the operator.
        reason: String,
    },
    /// The cursor belongs to another database (another `db_id`).
    OtherDatabase,
}

/// What one [`ChangeFeed::poll`] found.
#[derive(Debug, Default)]
pub struct Poll {
    /// Units read, in log order.
    pub units: Vec<Unit>,
    /// Set when the log was replaced by a file the feed's position cannot be
    /// mapped into: the feed now starts at the first record of the new file
    /// (the units above, if any, came before the switch).
    pub resend: Option<String>,
}

/// Bytes read per `pread` when nothing larger is needed.
const CHUNK: usize = 1 << 20;

/// The change feed of one database file; see the module docs.
pub struct ChangeFeed {
    path: PathBuf,
    file: File,
    identity: Identity,
    /// Keys of the database (encrypted databases), not bound to a generation.
    base_crypt: Option<Arc<Crypt>>,
    /// The database id those keys are bound to.
    base_db_id: [u8; 16],
    crypt: Option<Crypt>,
    names: HashMap<u32, String>,
    position: u64,
    durable_end: u64,
    file_len: u64,
    buf: Vec<u8>,
}

impl std::fmt::Debug for ChangeFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChangeFeed")
            .field("path", &self.path)
            .field("cursor", &self.cursor())
            .field("durable_end", &self.durable_end)
            .finish()
    }
}

impl ChangeFeed {
    /// A feed of the file `db` was opened from (any handle; a read-only one
    /// is the usual), starting at `from`, or at the first record without one.
    /// An encrypted database's records are decrypted with `db`'s keys.
    ///
    /// Opening reads the log from its first record up to the start position
    /// once, to learn the namespace names in force there.
    pub fn open(db: &Emdb, from: Option<Cursor>) -> Result<(ChangeFeed, Start)> {
        let engine = db.engine_arc();
        let path = engine.path().ok_or(Error::NeedsFile {
            what: "a change feed",
        })?;
        let base_crypt = engine.gen().crypt().clone();
        let base_db_id = engine.gen().log().identity.db_id;
        let (file, identity, page, durable_end, file_len) = open_log(&path)?;
        check_keys(&path, base_crypt.as_deref(), base_db_id, &identity)?;
        let mut feed = ChangeFeed {
            crypt: bind(base_crypt.as_deref(), identity.generation)?,
            path,
            file,
            identity,
            base_crypt,
            base_db_id,
            names: HashMap::new(),
            position: HEADER_SIZE as u64,
            durable_end,
            file_len,
            buf: Vec::new(),
        };
        let start = match from {
            None => Start::Fresh,
            Some(c) if c.db_id != identity.db_id => Start::OtherDatabase,
            Some(c) if c.generation == identity.generation => {
                if c.position < HEADER_SIZE as u64
                    || c.position > durable_end.max(HEADER_SIZE as u64)
                {
                    Start::Resend {
                        reason: format!(
                            "the cursor (offset {}) is past the durable end of the log ({durable_end}): the file was replaced or cut",
                            c.position
                        ),
                    }
                } else {
                    feed.position = c.position;
                    Start::Continue
                }
            }
            Some(c) => match Coverage::decode(&page)
                .filter(|cov| cov.new_generation == identity.generation)
                .and_then(|cov| cov.map(c.db_id, c.generation, c.position))
            {
                Some(p) if p <= file_len => {
                    feed.position = p;
                    Start::Mapped { from: c }
                }
                _ => Start::Resend {
                    reason: resend_reason(&c, &identity, Coverage::decode(&page)),
                },
            },
        };
        if !feed.learn_names()? {
            // A position no unit ends at was not saved by a consumer of
            // this log (nor mapped from one): the cursor is bad, not the
            // log, which decodes whole across it.
            let reason = format!(
                "the cursor (offset {}) does not fall on a record boundary of the log: it was not \
                 saved for this file (a cursor edited or saved for a plain copy of the database)",
                feed.position
            );
            feed.position = HEADER_SIZE as u64;
            feed.names.clear();
            return Ok((feed, Start::Resend { reason }));
        }
        Ok((feed, start))
    }

    /// Where the feed is: the position after the last unit it returned.
    pub fn cursor(&self) -> Cursor {
        Cursor {
            db_id: self.identity.db_id,
            generation: self.identity.generation,
            position: self.position,
        }
    }

    /// The names of the namespaces that exist at the feed's position
    /// (the default namespace not included), sorted.
    pub fn namespaces(&self) -> Vec<String> {
        let mut v: Vec<String> = self.names.values().cloned().collect();
        v.sort();
        v
    }

    /// The writer's durable end as of the last poll: the feed returns units
    /// up to here. `durable_end() - cursor().position` is the lag in bytes.
    pub fn durable_end(&self) -> u64 {
        self.durable_end
    }

    /// The file's size as of the last poll (it may hold records not yet
    /// durable, and preallocated zeros).
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Read the units that became durable since the last call, up to about
    /// `max_bytes` of log. Returns no units when the feed is caught up.
    pub fn poll(&mut self, max_bytes: usize) -> Result<Poll> {
        let (identity, durable_end, len) = self.read_header()?;
        self.file_len = len;
        if identity != self.identity {
            // Rewritten in place by another database or generation.
            return self.restart_on_current("the log file was rewritten in place".into());
        }
        self.durable_end = durable_end.min(len);
        if self.position > len {
            return Err(Error::corruption(
                self.position,
                "the log is shorter than the change feed's position: another process cut it",
            )
            .with_path(&self.path));
        }
        if self.position < self.durable_end {
            let units = self.read_units(self.durable_end, max_bytes, true)?;
            return Ok(Poll {
                units,
                resend: None,
            });
        }
        if !self.replaced()? {
            return Ok(Poll::default());
        }
        // Replaced: drain the old file (a compaction copied all of it into the
        // new, synced file before the rename), then switch.
        let units = self.read_units(len, max_bytes, false)?;
        if !units.is_empty() {
            return Ok(Poll {
                units,
                resend: None,
            });
        }
        let switched = self.switch()?;
        if switched.resend.is_some() || self.position >= self.durable_end {
            return Ok(switched);
        }
        let units = self.read_units(self.durable_end, max_bytes, true)?;
        Ok(Poll {
            units,
            resend: None,
        })
    }

    /// Move to the file now at the path: mapped when its coverage block
    /// covers the position, else from its first record.
    fn switch(&mut self) -> Result<Poll> {
        let (file, identity, page, durable_end, file_len) = open_log(&self.path)?;
        let from = self.cursor();
        let mapped = Coverage::decode(&page)
            .filter(|cov| cov.new_generation == identity.generation)
            .and_then(|cov| cov.map(from.db_id, from.generation, from.position))
            .filter(|p| *p <= file_len);
        let reason = resend_reason(&from, &identity, Coverage::decode(&page));
        self.adopt(file, identity, durable_end, file_len)?;
        match mapped {
            // Namespace ids and names carry over a compaction unchanged.
            Some(p) => {
                self.position = p;
                Ok(Poll::default())
            }
            None => {
                self.position = HEADER_SIZE as u64;
                self.names.clear();
                Ok(Poll {
                    units: Vec::new(),
                    resend: Some(reason),
                })
            }
        }
    }

    /// Read `file` (the one now at the path) from now on, once the feed's
    /// keys are known to fit it.
    fn adopt(
        &mut self,
        file: File,
        identity: Identity,
        durable_end: u64,
        file_len: u64,
    ) -> Result<()> {
        check_keys(
            &self.path,
            self.base_crypt.as_deref(),
            self.base_db_id,
            &identity,
        )?;
        self.crypt = bind(self.base_crypt.as_deref(), identity.generation)?;
        self.file = file;
        self.identity = identity;
        self.durable_end = durable_end;
        self.file_len = file_len;
        Ok(())
    }

    fn restart_on_current(&mut self, reason: String) -> Result<Poll> {
        let (file, identity, _, durable_end, file_len) = open_log(&self.path)?;
        self.adopt(file, identity, durable_end, file_len)?;
        self.position = HEADER_SIZE as u64;
        self.names.clear();
        Ok(Poll {
            units: Vec::new(),
            resend: Some(reason),
        })
    }

    /// True when the path now names another file than the one read.
    fn replaced(&self) -> Result<bool> {
        let ours = self
            .file
            .metadata()
            .map_err(|e| Error::io("stat", Some(&self.path), e))?;
        match std::fs::metadata(&self.path) {
            Ok(m) => Ok((m.dev(), m.ino()) != (ours.dev(), ours.ino())),
            // Mid-rename or removed: look again at the next poll.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Error::io("stat", Some(&self.path), e)),
        }
    }

    fn read_header(&self) -> Result<(Identity, u64, u64)> {
        let len = self
            .file
            .metadata()
            .map_err(|e| Error::io("stat", Some(&self.path), e))?
            .len();
        let (identity, slot, _) = read_identity(&self.file, &self.path, len)?;
        Ok((identity, slot.durable_end, len))
    }

    /// Scan `[first record, position)` for namespace creates and drops.
    ///
    /// False (the position left where the last unit before it ends) when
    /// the position falls inside a unit that decodes whole past it: the
    /// position is not a unit boundary, which is no damage of the log.
    fn learn_names(&mut self) -> Result<bool> {
        let target = self.position;
        self.position = HEADER_SIZE as u64;
        while self.position < target {
            // Names are learnt while decoding; the changes themselves are dropped.
            let failure = match self.read_units(target, CHUNK * 8, true) {
                Ok(units) if !units.is_empty() => continue,
                Ok(_) => Error::corruption(self.position, "no whole unit before the cursor")
                    .with_path(&self.path),
                Err(e) => e,
            };
            // Cut at the cursor, the unit there did not decode: read it
            // without that bound (towards the durable end; not strict, so
            // damage further on does not hide the units before it).
            let at = self.position;
            let names = self.names.clone();
            let limit = self.durable_end.max(target);
            let straddles = matches!(
                self.read_units(limit, CHUNK, false),
                Ok(units) if units.first().is_some_and(|u| u.end.position > target)
            );
            self.position = at;
            self.names = names;
            if straddles {
                return Ok(false);
            }
            return Err(failure);
        }
        Ok(true)
    }

    /// Decode whole units from the position up to `limit`. With `strict`, a
    /// unit that does not decode below `limit` is corruption; without it
    /// (draining a replaced file to its end), it is the end.
    fn read_units(&mut self, limit: u64, max_bytes: usize, strict: bool) -> Result<Vec<Unit>> {
        let mut out = Vec::new();
        let mut want = CHUNK.min(max_bytes.max(1));
        let mut read = 0usize;
        while self.position < limit && read < max_bytes {
            let len = usize::try_from(limit - self.position)
                .unwrap_or(usize::MAX)
                .min(want);
            self.buf.resize(len, 0);
            let got = crate::fs::read_upto(&self.file, &mut self.buf, self.position)
                .map_err(|e| Error::io("read", Some(&self.path), e))?;
            let base = self.position;
            let mut pos = 0usize;
            let mut decoded = Vec::new();
            let mut failure = None;
            while pos < got {
                match decode_unit_in(&self.buf[pos..got], base + pos as u64) {
                    Ok(unit) => {
                        let mut changes = Vec::with_capacity(unit.frames.len());
                        for (off, f) in &unit.frames {
                            let mut scratch = zeroize::Zeroizing::new(Vec::new());
                            let f = open_frame(*f, *off, self.crypt.as_ref(), &mut scratch)?;
                            if let Some(c) = to_change(&mut self.names, *off, &f)? {
                                changes.push(c);
                            }
                        }
                        pos += unit.len as usize;
                        decoded.push((changes, base + pos as u64));
                    }
                    Err(reason) => {
                        failure = Some((reason, claimed_unit_len(&self.buf[pos..got])));
                        break;
                    }
                }
            }
            read += pos;
            for (changes, end) in decoded {
                self.position = end;
                out.push(Unit {
                    changes,
                    end: self.cursor(),
                });
            }
            match failure {
                None if got == 0 => break,
                None => want = CHUNK.min(max_bytes.max(1)),
                Some((reason, claimed)) => {
                    let claimed = claimed.unwrap_or(0);
                    let room = limit - self.position;
                    if pos == 0 && claimed as usize > got && claimed <= room && got == len {
                        // One unit larger than the read: read it whole.
                        want = claimed as usize;
                        continue;
                    }
                    if pos > 0 && got == len && self.position < limit {
                        // Cut by the read buffer: read on from the unit.
                        continue;
                    }
                    // Strict reads stay below a durable end or a cursor: every
                    // unit there must decode. A replaced file being drained
                    // has no durable end left to keep (its compaction copied
                    // it): a unit that does not decode ends it.
                    let policy = if strict {
                        DamagePolicy::Fail
                    } else {
                        DamagePolicy::CutTornTail
                    };
                    match policy.judge(self.position, 0) {
                        Damage::End => break,
                        Damage::Corrupt | Damage::Skip => {
                            return Err(
                                Error::corruption(self.position, reason).with_path(&self.path)
                            );
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The change a frame makes; namespace creates and drops update `names`.
fn to_change(
    names: &mut HashMap<u32, String>,
    off: u64,
    f: &crate::format::record::Frame<'_>,
) -> Result<Option<Change>> {
    let name = |names: &HashMap<u32, String>| -> Result<String> {
        if f.ns == 0 {
            return Ok(String::new());
        }
        names
            .get(&f.ns)
            .cloned()
            .ok_or_else(|| Error::corruption(off, "record names a namespace that does not exist"))
    };
    Ok(Some(match f.kind {
        Kind::Put => Change::Put {
            namespace: name(names)?,
            key: f.key.to_vec(),
            value: f.value.to_vec(),
            expires_at_ms: (f.expires_at != 0).then_some(f.expires_at),
        },
        Kind::Delete => Change::Delete {
            namespace: name(names)?,
            key: f.key.to_vec(),
        },
        Kind::Clear => Change::Clear {
            namespace: name(names)?,
        },
        Kind::NamespaceCreate => {
            let namespace = String::from_utf8_lossy(f.key).into_owned();
            names.insert(f.ns, namespace.clone());
            Change::CreateNamespace { namespace }
        }
        Kind::NamespaceDrop => {
            let namespace = name(names)?;
            names.remove(&f.ns);
            Change::DropNamespace { namespace }
        }
        Kind::BatchBegin => return Ok(None),
    }))
}

/// Bytes [`history_check`] reads before a cursor.
const HISTORY_CHECK_BYTES: u64 = 4096;

/// A checksum of the log bytes just before `cursor` (up to 4 KiB, never
/// the header page, whose sync slots change) in the file at `path`, when
/// that file is the database and generation the cursor is in and reaches
/// it; else `None`. Saved beside a cursor, it tells a later resume whether
/// the file still holds the history the cursor was taken in: a plain copy
/// restored over the database keeps its id and generation, so the cursor
/// alone would be taken at its offset in whatever the copy holds there.
/// The bytes before a cursor are durable and never rewritten in place.
pub fn history_check(path: &std::path::Path, cursor: &Cursor) -> Result<Option<u32>> {
    let (file, identity, _, durable_end, _) = open_log(path)?;
    let from = cursor
        .position
        .saturating_sub(HISTORY_CHECK_BYTES)
        .max(HEADER_SIZE as u64);
    if identity.db_id != cursor.db_id
        || identity.generation != cursor.generation
        || cursor.position > durable_end
        || from >= cursor.position
    {
        return Ok(None);
    }
    let mut buf = vec![0u8; (cursor.position - from) as usize];
    std::os::unix::fs::FileExt::read_exact_at(&file, &mut buf, from)
        .map_err(|e| Error::io("read", Some(path), e))?;
    Ok(Some(crate::format::crc::crc32(&buf)))
}

/// Open the log at `path`: the file, its identity, header page, durable end
/// and length.
fn open_log(path: &std::path::Path) -> Result<(File, Identity, Vec<u8>, u64, u64)> {
    let file = File::open(path).map_err(|e| Error::io("open", Some(path), e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::io("stat", Some(path), e))?
        .len();
    let (identity, slot, page) = read_identity(&file, path, len)?;
    Ok((file, identity, page, slot.durable_end.min(len), len))
}

/// Refuse a file the feed's keys cannot read with the error an open with
/// those keys would give, rather than reading its records as damage: a
/// plain feed on a file now encrypted, an encrypted one on a plain file
/// ([`keys_fit`]), or keys bound to another database id (`encrypt`,
/// `rotate-key` and restored backups write a file with a new id; a
/// compaction keeps it).
fn check_keys(
    path: &std::path::Path,
    base: Option<&Crypt>,
    base_db_id: [u8; 16],
    id: &Identity,
) -> Result<()> {
    if keys_fit(path, id, base.is_some())? && id.db_id != base_db_id {
        return Err(Error::EncryptionKeyMismatch {
            reason: format!(
                "{} was replaced by a file sealed for another database id (encrypt, \
                 rotate-key or a restored backup); the keys this feed holds cannot read it",
                path.display()
            ),
        });
    }
    Ok(())
}

fn bind(base: Option<&Crypt>, generation: u64) -> Result<Option<Crypt>> {
    base.map(|c| c.for_generation(generation)).transpose()
}

fn resend_reason(from: &Cursor, now: &Identity, cov: Option<Coverage>) -> String {
    match cov {
        Some(c) if c.old_generation == from.generation && c.new_generation == now.generation => {
            format!(
                "the cursor (generation {}, offset {}) was behind the writer's compaction, which started at offset {}",
                from.generation, from.position, c.old_from
            )
        }
        _ => format!(
            "the cursor is in generation {} and the log is now generation {} with no record of the way between (compacted more than once, or replaced)",
            from.generation, now.generation
        ),
    }
}
