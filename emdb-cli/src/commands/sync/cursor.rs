//! Where `emdb sync` keeps its cursor: the Redis key
//! `emdb-sync-cursor:<db id in hex>` in the target (in a cluster, on the
//! node owning that key's slot), or a local `--state-file`. The value is one
//! line of text: `emdb-sync 1 <db id hex> <generation> <offset>`, then (in
//! a state file) the target, then `check=<8 hex digits>`: a checksum of the
//! log bytes before the offset ([`emdb_core::changes::history_check`]),
//! which tells a resume whether the file still holds that history (cursors
//! saved before it existed have none and are taken as they are), then
//! `map=<hex>`: the `--ns-prefix` the keys were sent under, in hex (a
//! cursor is a position in what the target received under one key
//! mapping; cursors saved before it was recorded have none).
//!
//! The cursor is saved only after the target acknowledged every operation
//! before it, so it is never ahead of the target; a restart replays at most
//! what was sent after the last save, and replays are idempotent.
//!
//! A cursor in the target also tells whether the target kept what was
//! sent: the store remembers the value it last read or wrote, and saves
//! only over that value (a compare-and-set script). A target that lost it
//! (restarted without persistence, flushed, restored from an older
//! snapshot, written by another process) is found at the next save or
//! reconnection, and the sync copies everything again.

use std::path::{Path, PathBuf};

use emdb_core::changes::Cursor;
use redis::RedisResult;

use super::target::Target;

/// Prefix of every cursor key; `emdb sync` never deletes such keys.
const KEY_PREFIX: &[u8] = b"emdb-sync-cursor:";

/// True for a key the sync keeps for itself: a sync cursor, or a sync's
/// lease ([`super::lease`]).
pub fn is_cursor_key(key: &[u8]) -> bool {
    key.starts_with(KEY_PREFIX) || key.starts_with(super::lease::KEY_PREFIX)
}

/// What a cursor value that does not parse is called; no retry fixes it.
pub const UNREADABLE: &str = "the saved sync cursor is not readable";

/// What a state file's problems are called ([`state_file_error`]): they
/// are local and no retry fixes them, so the sync stops at once.
pub const STATE_FILE: &str = "sync state file";

/// A problem of the local state file `f`, as an error the sync's retry
/// loop knows to stop at (`usage`: its content, not its I/O).
fn state_file_error(f: &Path, usage: bool, what: String) -> redis::RedisError {
    redis::RedisError::from((
        redis::ErrorKind::InvalidClientConfig,
        STATE_FILE,
        format!(
            "{}{}: {what}",
            if usage { "" } else { "I/O: " },
            f.display()
        ),
    ))
}

/// The cursor of one database, in the target or in a file.
pub struct CursorStore {
    file: Option<PathBuf>,
    /// The target as a state file names it: each server as `host:port/db`,
    /// sorted, comma-separated ([`target_name`]).
    target: String,
    key: Vec<u8>,
    /// The `--ns-prefix` of this sync, saved with the cursor.
    map: String,
    /// The value the target's cursor key should hold (`None`: no value),
    /// once read or written; unused with a state file.
    known: Option<Option<Vec<u8>>>,
}

impl CursorStore {
    /// The store for database `db_id` synced into the servers `urls`
    /// (recorded in a state file as [`target_name`] says) with the key
    /// mapping `--ns-prefix map`.
    pub fn new(file: Option<PathBuf>, db_id: [u8; 16], urls: &[String], map: &str) -> CursorStore {
        let mut key = KEY_PREFIX.to_vec();
        key.extend_from_slice(hex(&db_id).as_bytes());
        CursorStore {
            file,
            target: target_name(urls),
            key,
            map: map.to_string(),
            known: None,
        }
    }

    /// Cursor keys of other databases in the target (none with a state
    /// file): it was synced from another database, or from this one before
    /// it got a new id (`encrypt`, `decrypt`, `rotate-key`, a restored
    /// backup).
    pub fn others(&self, target: &mut Target) -> RedisResult<Vec<Vec<u8>>> {
        if self.file.is_some() {
            return Ok(Vec::new());
        }
        let mut pattern = KEY_PREFIX.to_vec();
        pattern.push(b'*');
        let mut keys = target.scan(&pattern)?;
        keys.retain(|k| *k != self.key);
        keys.sort();
        keys.dedup();
        Ok(keys)
    }

    /// The Redis key of the cursor (also with a state file: the lease is
    /// named after it).
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// Where the cursor lives, for messages.
    pub fn describe(&self) -> String {
        match &self.file {
            Some(f) => format!("state file {}", f.display()),
            None => format!("key {}", String::from_utf8_lossy(&self.key)),
        }
    }

    /// The saved cursor, if any, with its history check and its key
    /// mapping if it has them. A cursor saved by another database under the
    /// same file comes back as is (the feed refuses it).
    pub fn load(&mut self, target: &mut Target) -> RedisResult<Option<Saved>> {
        let text = match &self.file {
            Some(f) => {
                let t = match std::fs::read(f) {
                    Ok(t) => t,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                    Err(e) => return Err(state_file_error(f, false, e.to_string())),
                };
                let cursor = parse(&t).ok_or_else(|| {
                    state_file_error(
                        f,
                        true,
                        "it holds no sync cursor (delete it, or pass --reset)".into(),
                    )
                })?;
                // A cursor is a position in what one target received.
                match parse_target(&t) {
                    Some(to) if !same_target(&to, &self.target) => {
                        return Err(state_file_error(
                            f,
                            true,
                            format!(
                                "it is the cursor of a sync into {to}, not {}: if that is \
                                 the same server under another name, put this one in the \
                                 file's last field; else pass --reset, which copies \
                                 everything into this target",
                                self.target
                            ),
                        ))
                    }
                    _ => {
                        return Ok(Some(Saved {
                            cursor,
                            check: parse_check(&t),
                            map: parse_map(&t),
                        }))
                    }
                }
            }
            None => {
                let got = target.get(&self.key)?;
                self.known = Some(got.clone());
                match got {
                    Some(t) => t,
                    None => return Ok(None),
                }
            }
        };
        let (check, map) = (parse_check(&text), parse_map(&text));
        parse(&text)
            .map(|cursor| Some(Saved { cursor, check, map }))
            .ok_or_else(|| {
                redis::RedisError::from((redis::ErrorKind::Parse, UNREADABLE, self.describe()))
            })
    }

    /// The temporary name a state file is written under before the rename.
    pub fn temp_path(file: &Path) -> PathBuf {
        file.with_extension("tmp")
    }

    /// Save `c`, with its history check if known. A state file is replaced
    /// atomically (temp file + rename). In the target, `Ok(Some(why))` when
    /// the cursor there is not the one this store last read or wrote
    /// ([`CursorStore::check`]); it is then left as it is.
    pub fn save(
        &mut self,
        target: &mut Target,
        c: &Cursor,
        check: Option<u32>,
    ) -> RedisResult<Option<String>> {
        let base = format!(
            "emdb-sync 1 {} {} {}",
            hex(&c.db_id),
            c.generation,
            c.position
        );
        let check = check.map(|x| format!(" check={x:08x}")).unwrap_or_default();
        let check = format!("{check} map={}", hex(self.map.as_bytes()));
        let text = format!("{base}{check}").into_bytes();
        match &self.file {
            Some(f) => {
                let tmp = Self::temp_path(f);
                let line = format!("{base} {}{check}\n", self.target).into_bytes();
                std::fs::write(&tmp, &line)
                    .and_then(|()| std::fs::rename(&tmp, f))
                    .map_err(|e| state_file_error(f, false, e.to_string()))?;
                Ok(None)
            }
            None => match &self.known {
                Some(known) => match target.swap(&self.key, known.as_deref(), &text)? {
                    Ok(()) => {
                        self.known = Some(Some(text));
                        Ok(None)
                    }
                    Err(found) => Ok(Some(self.lost(found.as_deref()))),
                },
                None => {
                    target.set(&self.key, &text)?;
                    self.known = Some(Some(text));
                    Ok(None)
                }
            },
        }
    }

    /// `Some(why)` when the target's cursor is not the one this store last
    /// read or wrote: the target lost what was sent (a restart without
    /// persistence, a flush, an older snapshot) or another process writes
    /// it. Always `None` with a state file.
    pub fn check(&self, target: &mut Target) -> RedisResult<Option<String>> {
        let (None, Some(known)) = (&self.file, &self.known) else {
            return Ok(None);
        };
        let found = target.get(&self.key)?;
        Ok((found != *known).then(|| self.lost(found.as_deref())))
    }

    fn lost(&self, found: Option<&[u8]>) -> String {
        let key = String::from_utf8_lossy(&self.key);
        match found {
            None => format!(
                "the cursor {key} is gone from the target: it lost what was sent (restarted without persistence, flushed, or evicted by its maxmemory-policy)"
            ),
            Some(v) => format!(
                "the cursor {key} in the target is \"{}\", not the one this sync saved: the target was restored or another process writes it",
                String::from_utf8_lossy(v)
            ),
        }
    }

    /// Remove the saved cursor (before a full resend).
    pub fn forget(&mut self, target: &mut Target) -> RedisResult<()> {
        match &self.file {
            Some(f) => match std::fs::remove_file(f) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(state_file_error(f, false, e.to_string()))
                }
                _ => Ok(()),
            },
            None => {
                target.apply(&[super::target::Op::Del(self.key.clone())])?;
                self.known = Some(None);
                Ok(())
            }
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

/// A cursor as saved: the position, its history check and the
/// `--ns-prefix` it was saved under (each absent from older cursors).
#[derive(Debug, Clone)]
pub struct Saved {
    /// The position.
    pub cursor: Cursor,
    /// The CRC of the log bytes before it.
    pub check: Option<u32>,
    /// The `--ns-prefix` of the sync that saved it.
    pub map: Option<String>,
}

/// The `--ns-prefix` saved with a cursor (`map=` and its bytes in hex).
fn parse_map(text: &[u8]) -> Option<String> {
    let x = std::str::from_utf8(text)
        .ok()?
        .split_whitespace()
        .skip(5)
        .find_map(|f| f.strip_prefix("map="))?;
    let bytes = (0..x.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(x.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

/// The history check saved with a cursor (`check=` and 8 hex digits).
fn parse_check(text: &[u8]) -> Option<u32> {
    std::str::from_utf8(text)
        .ok()?
        .split_whitespace()
        .skip(5)
        .find_map(|f| f.strip_prefix("check="))
        .and_then(|x| u32::from_str_radix(x, 16).ok())
}

/// How a state file names the servers `urls`: `host:port/db` each (the
/// host in lower case; no scheme, user or password), sorted and
/// comma-separated, so spellings of one URL (`redis://h:1`, `redis://h:1/0`,
/// a trailing `/`) and the order of cluster seeds compare equal.
pub fn target_name(urls: &[String]) -> String {
    let mut names: Vec<String> = urls
        .iter()
        .map(
            |u| match redis::IntoConnectionInfo::into_connection_info(u.as_str()) {
                Ok(info) => {
                    let db = info.redis_settings().db();
                    match info.addr() {
                        redis::ConnectionAddr::Tcp(h, p)
                        | redis::ConnectionAddr::TcpTls {
                            host: h, port: p, ..
                        } => {
                            format!("{}:{p}/{db}", h.to_ascii_lowercase())
                        }
                        redis::ConnectionAddr::Unix(path) => format!("{}/{db}", path.display()),
                        _ => super::without_password(u),
                    }
                }
                Err(_) => super::without_password(u),
            },
        )
        .map(|n| n.split_whitespace().collect())
        .collect();
    names.sort();
    names.dedup();
    names.join(",")
}

/// Whether two [`target_name`]s name one target: the same server, or
/// cluster seed lists with a node in common (a seed replaced after a node
/// died still names the same cluster).
fn same_target(a: &str, b: &str) -> bool {
    a == b || a.split(',').any(|x| b.split(',').any(|y| x == y))
}

/// The target a state file's cursor was saved for (its sixth field;
/// files written before it was recorded have none).
fn parse_target(text: &[u8]) -> Option<String> {
    std::str::from_utf8(text)
        .ok()?
        .split_whitespace()
        .nth(5)
        .map(str::to_string)
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
        let with_target = format!("{text} redis://h:1/0\n");
        assert_eq!(parse(with_target.as_bytes()), Some(c));
        assert_eq!(
            parse_target(with_target.as_bytes()).as_deref(),
            Some("redis://h:1/0")
        );
        assert_eq!(parse_target(text.as_bytes()), None);
        let name = |u: &[&str]| target_name(&u.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(name(&["redis://H:1"]), "h:1/0");
        assert_eq!(name(&["redis://h:1/"]), name(&["redis://u:pw@h:1/0"]));
        assert_ne!(name(&["redis://h:1/1"]), name(&["redis://h:1/2"]));
        assert_eq!(name(&["redis://b:2", "redis://a:1"]), "a:1/0,b:2/0");
        assert!(same_target(
            &name(&["redis://a:1", "redis://b:2"]),
            &name(&["redis://b:2", "redis://c:3"])
        ));
        assert!(!same_target(
            &name(&["redis://a:1"]),
            &name(&["redis://a:2"])
        ));
        assert_eq!(parse_check(text.as_bytes()), None);
        let checked = format!("{text} check=00c0ffee");
        assert_eq!(parse(checked.as_bytes()), Some(c));
        assert_eq!(parse_check(checked.as_bytes()), Some(0xc0ffee));
        let file = format!("{text} h:1/0 check=0000002a\n");
        assert_eq!(parse_target(file.as_bytes()).as_deref(), Some("h:1/0"));
        assert_eq!(parse_check(file.as_bytes()), Some(42));
        let mapped = format!("{text} h:1/0 check=0000002a map={}\n", hex(b"{%n}:"));
        assert_eq!(parse(mapped.as_bytes()), Some(c));
        assert_eq!(parse_check(mapped.as_bytes()), Some(42));
        assert_eq!(parse_map(mapped.as_bytes()).as_deref(), Some("{%n}:"));
        assert_eq!(parse_map(file.as_bytes()), None);
        assert_eq!(parse(b"emdb-sync 2 00 1 2"), None);
        assert_eq!(parse(b"garbage"), None);
    }
}
