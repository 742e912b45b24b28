//! Where `emdb sync` keeps its cursor: the Redis key
//! `emdb-sync-cursor:<db id in hex>` in the target (in a cluster, on the
//! node owning that key's slot), or a local `--state-file`. The value is one
//! line of text: `emdb-sync 1 <db id hex> <generation> <offset>`.
//!
//! The cursor is saved only after the target acknowledged every operation
//! before it, so it is never ahead of the target; a restart replays at most
//! what was sent after the last save, and replays are idempotent.

use std::path::{Path, PathBuf};

use emdb_core::changes::Cursor;
use redis::RedisResult;

use super::target::Target;

/// Prefix of every cursor key; `emdb sync` never deletes such keys.
const KEY_PREFIX: &[u8] = b"emdb-sync-cursor:";

/// True for a key that holds a sync cursor.
pub fn is_cursor_key(key: &[u8]) -> bool {
    key.starts_with(KEY_PREFIX)
}

/// The cursor of one database, in the target or in a file.
pub struct CursorStore {
    file: Option<PathBuf>,
    key: Vec<u8>,
}

impl CursorStore {
    /// The store for database `db_id`.
    pub fn new(file: Option<PathBuf>, db_id: [u8; 16]) -> CursorStore {
        let mut key = KEY_PREFIX.to_vec();
        key.extend_from_slice(hex(&db_id).as_bytes());
        CursorStore { file, key }
    }

    /// Where the cursor lives, for messages.
    pub fn describe(&self) -> String {
        match &self.file {
            Some(f) => format!("state file {}", f.display()),
            None => format!("key {}", String::from_utf8_lossy(&self.key)),
        }
    }

    /// The saved cursor, if any. A cursor saved by another database under the
    /// same file comes back as is (the feed refuses it).
    pub fn load(&self, target: &mut Target) -> RedisResult<Option<Cursor>> {
        let text = match &self.file {
            Some(f) => match std::fs::read(f) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e.into()),
            },
            None => match target.get(&self.key)? {
                Some(t) => t,
                None => return Ok(None),
            },
        };
        parse(&text).map(Some).ok_or_else(|| {
            redis::RedisError::from((
                redis::ErrorKind::Parse,
                "the saved sync cursor is not readable",
                self.describe(),
            ))
        })
    }

    /// The temporary name a state file is written under before the rename.
    pub fn temp_path(file: &Path) -> PathBuf {
        file.with_extension("tmp")
    }

    /// Save `c`. A state file is replaced atomically (temp file + rename).
    pub fn save(&self, target: &mut Target, c: &Cursor) -> RedisResult<()> {
        let text = format!(
            "emdb-sync 1 {} {} {}",
            hex(&c.db_id),
            c.generation,
            c.position
        );
        match &self.file {
            Some(f) => {
                let tmp = Self::temp_path(f);
                std::fs::write(&tmp, text.as_bytes())?;
                std::fs::rename(&tmp, f)?;
                Ok(())
            }
            None => target.set(&self.key, text.as_bytes()),
        }
    }

    /// Remove the saved cursor (before a full resend).
    pub fn forget(&self, target: &mut Target) -> RedisResult<()> {
        match &self.file {
            Some(f) => match std::fs::remove_file(f) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
                _ => Ok(()),
            },
            None => target.apply(&[super::target::Op::Del(self.key.clone())]),
        }
    }
}

fn parse(text: &[u8]) -> Option<Cursor> {
    let text = std::str::from_utf8(text).ok()?;
    let mut f = text.split_whitespace();
    if f.next()? != "emdb-sync" || f.next()? != "1" {
        return None;
    }
    let id = f.next()?;
    if id.len() != 32 {
        return None;
    }
    let mut db_id = [0u8; 16];
    for (i, b) in db_id.iter_mut().enumerate() {
        *b = u8::from_str_radix(id.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(Cursor {
        db_id,
        generation: f.next()?.parse().ok()?,
        position: f.next()?.parse().ok()?,
    })
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_text_round_trips() {
        let c = Cursor {
            db_id: [0xA5; 16],
            generation: 7,
            position: 123_456,
        };
        let text = format!("emdb-sync 1 {} 7 123456", hex(&c.db_id));
        assert_eq!(parse(text.as_bytes()), Some(c));
        assert_eq!(parse(b"emdb-sync 2 00 1 2"), None);
        assert_eq!(parse(b"garbage"), None);
    }
}
