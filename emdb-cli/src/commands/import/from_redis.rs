//! `emdb import --from redis://HOST:PORT[/DB]`: the string keys of one Redis
//! server, read with `SCAN` and fed to the import loop as records.
//!
//! Each `SCAN` page (up to [`SCAN_COUNT`] keys) costs one more round trip:
//! a pipeline of `TYPE`, `PTTL` and `GET` per key, sent with
//! `ignore_errors` so that the `WRONGTYPE` of a hash or list only marks that
//! key. A key is a string when its `GET` returns bytes; a nil `GET` (or a
//! `PTTL` of -2) means it expired or was deleted after `SCAN` listed it, and
//! it is counted as gone. Keys of other types are counted by type.
//!
//! `SCAN` may return a key twice (while Redis resizes its table); a 128-bit
//! keyed hash of each key seen drops the repeats, so counts are exact at
//! 16 bytes of memory per key.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::hash::{BuildHasher, RandomState};
use std::rc::Rc;
use std::time::Duration;

use indicatif::ProgressBar;
use redis::{Client, ConnectionInfo, IntoConnectionInfo, RedisError, Value};

use crate::encoding::Encoding;
use crate::error::{CliError, CliResult, Kind};
use crate::output::quoted;
use crate::space::now_ms;
use crate::transfer::{Entry, Item};

/// Keys asked for per `SCAN` call (a hint to Redis, not a bound).
const SCAN_COUNT: u64 = 1000;
/// How long to wait for the connection, and for each reply.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// What the copy found besides the string keys it yields.
#[derive(Debug, Default)]
pub struct Tally {
    /// Distinct keys `SCAN` listed.
    pub scanned: u64,
    /// String keys read (and yielded).
    pub strings: u64,
    /// Keys of other types, by type name (`hash`, `list`, ...): not copied.
    pub other: BTreeMap<String, u64>,
    /// Keys that expired or were deleted between `SCAN` and `GET`.
    pub gone: u64,
    /// Keys `emdb sync` keeps for itself (its cursors and leases): not
    /// copied (a database synced to Redis and imported back got its sync
    /// cursor as a record).
    pub sync_keys: u64,
}

impl Tally {
    /// Keys of other types, all together.
    pub fn other_total(&self) -> u64 {
        self.other.values().sum()
    }

    /// `2 hash, 1 list`.
    pub fn other_text(&self) -> String {
        self.other
            .iter()
            .map(|(t, n)| format!("{n} {t}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The records of a Redis server, one `SCAN` page at a time.
pub struct Source {
    con: redis::Connection,
    /// The server as shown in messages: `redis://HOST:PORT/DB`, no password.
    shown: String,
    cursor: u64,
    done: bool,
    ready: VecDeque<Entry>,
    seen: HashSet<u128>,
    hashers: (RandomState, RandomState),
    tally: Rc<RefCell<Tally>>,
    pb: ProgressBar,
}

/// The server of `url` as messages show it: scheme, address and database,
/// never the password.
pub fn shown(info: &ConnectionInfo) -> String {
    format!("redis://{}/{}", info.addr(), info.redis_settings().db())
}

impl Source {
    /// Connect to `url` and size `pb` by `DBSIZE`. A URL that does not
    /// parse is a usage error (exit 2); a server that cannot be reached,
    /// refuses the password or the database number is exit 9.
    pub fn connect(url: &str, pb: ProgressBar) -> CliResult<Source> {
        let info = url
            .into_connection_info()
            .map(crate::commands::sync::with_env_password)
            .map_err(|e| {
                let url = crate::commands::sync::without_password(url);
                CliError::usage(format!("--from {url:?} is not a Redis URL: {e}"))
                    .hint("write it as redis://HOST:PORT or redis://HOST:PORT/DB")
            })?;
        let shown = shown(&info);
        let down = |e: RedisError| target_down(&shown, &e);
        let con = Client::open(info)
            .map_err(down)?
            .get_connection_with_timeout(CONNECT_TIMEOUT)
            .map_err(down)?;
        con.set_read_timeout(Some(REPLY_TIMEOUT)).map_err(down)?;
        con.set_write_timeout(Some(REPLY_TIMEOUT)).map_err(down)?;
        let mut source = Source {
            con,
            shown,
            cursor: 0,
            done: false,
            ready: VecDeque::new(),
            seen: HashSet::new(),
            hashers: (RandomState::new(), RandomState::new()),
            tally: Rc::default(),
            pb,
        };
        let size: u64 = redis::cmd("DBSIZE")
            .query(&mut source.con)
            .map_err(|e| target_down(&source.shown, &e))?;
        source.pb.set_length(size);
        Ok(source)
    }

    /// The server as messages show it.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The counts, readable while and after the import loop runs.
    pub fn tally(&self) -> Rc<RefCell<Tally>> {
        Rc::clone(&self.tally)
    }

    /// One `SCAN` page, then the types, TTLs and values of its new keys.
    fn fetch(&mut self) -> CliResult {
        let (next, keys): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
            .arg(self.cursor)
            .arg("COUNT")
            .arg(SCAN_COUNT)
            .query(&mut self.con)
            .map_err(|e| target_down(&self.shown, &e))?;
        self.cursor = next;
        self.done = next == 0;
        let keys: Vec<Vec<u8>> = keys
            .into_iter()
            .filter(|k| {
                let id = (u128::from(self.hashers.0.hash_one(k)) << 64)
                    | u128::from(self.hashers.1.hash_one(k));
                self.seen.insert(id)
            })
            .collect();
        let before = keys.len();
        let keys: Vec<Vec<u8>> = keys
            .into_iter()
            .filter(|k| !crate::commands::sync::is_cursor_key(k))
            .collect();
        self.tally.borrow_mut().sync_keys += (before - keys.len()) as u64;
        if keys.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        pipe.ignore_errors();
        for k in &keys {
            pipe.cmd("TYPE").arg(k).cmd("PTTL").arg(k).cmd("GET").arg(k);
        }
        let sent_at = now_ms();
        // Sent and read here, not with `pipe.query`: that waits for every
        // reply in turn after a timeout (3,000 x 30 s), so a server that
        // stopped answering hung the import.
        self.con
            .send_packed_command(&pipe.get_packed_pipeline())
            .map_err(|e| target_down(&self.shown, &e))?;
        let mut replies: Vec<redis::RedisResult<Value>> = Vec::with_capacity(keys.len() * 3);
        for _ in 0..keys.len() * 3 {
            replies.push(
                match self
                    .con
                    .recv_response()
                    .map_err(|e| target_down(&self.shown, &e))?
                {
                    Value::ServerError(e) => Err(e.into()),
                    v => Ok(v),
                },
            );
        }
        if replies.len() != keys.len() * 3 {
            return Err(CliError::new(
                Kind::TargetDown,
                format!(
                    "{}: {} replies to {} commands",
                    self.shown,
                    replies.len(),
                    keys.len() * 3
                ),
            ));
        }
        let mut tally = self.tally.borrow_mut();
        for (key, r) in keys.into_iter().zip(replies.chunks_exact(3)) {
            tally.scanned += 1;
            let pttl = match &r[1] {
                Ok(Value::Int(ms)) => *ms,
                _ => -1,
            };
            match &r[2] {
                Ok(Value::BulkString(value)) if pttl != -2 => {
                    check_limits(&key, value)?;
                    tally.strings += 1;
                    self.ready.push_back(Entry {
                        ns: None,
                        expires_at_ms: u64::try_from(pttl).ok().map(|ms| sent_at + ms),
                        value: value.clone(),
                        key,
                        line: tally.scanned,
                    });
                }
                Ok(Value::Nil) | Ok(Value::BulkString(_)) => tally.gone += 1,
                _ => {
                    let kind = match &r[0] {
                        Ok(Value::SimpleString(t)) => t.clone(),
                        _ => "unknown".to_string(),
                    };
                    if kind == "none" {
                        tally.gone += 1;
                    } else {
                        *tally.other.entry(kind).or_default() += 1;
                    }
                }
            }
        }
        let scanned = tally.scanned;
        if self.pb.length().is_some_and(|len| scanned > len) {
            self.pb.set_length(scanned);
        }
        self.pb.set_position(scanned);
        Ok(())
    }
}

impl Iterator for Source {
    type Item = CliResult<Item>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(entry) = self.ready.pop_front() {
                return Some(Ok(Item::Record(entry)));
            }
            if self.done {
                return None;
            }
            if let Err(e) = self.fetch() {
                self.done = true;
                self.ready.clear();
                return Some(Err(e));
            }
        }
    }
}

/// A key or value over the engine's limits stops the import (exit 7),
/// naming the key (escaped and cut short as messages quote keys), as an
/// oversized record in a file does.
fn check_limits(key: &[u8], value: &[u8]) -> CliResult {
    let name = || format!("Redis key {}", quoted(Encoding::Text, key));
    if key.len() > emdb_core::MAX_KEY_LEN {
        return Err(CliError::bad_input(format!(
            "{}: the key is {} bytes, the limit is {}",
            name(),
            key.len(),
            emdb_core::MAX_KEY_LEN
        )));
    }
    if value.len() > emdb_core::MAX_VALUE_LEN {
        return Err(CliError::bad_input(format!(
            "{}: the value is {} bytes, the limit is {}",
            name(),
            value.len(),
            emdb_core::MAX_VALUE_LEN
        )));
    }
    Ok(())
}

/// Exit 9: the server cannot be reached, sent no reply for
/// [`REPLY_TIMEOUT`], or failed mid-copy.
fn target_down(shown: &str, e: &RedisError) -> CliError {
    if e.is_timeout() {
        return CliError::new(
            Kind::TargetDown,
            format!(
                "no reply from Redis at {shown} for {} s",
                REPLY_TIMEOUT.as_secs()
            ),
        )
        .hint("the server is stopped, overloaded or cut off: check it, then import again");
    }
    CliError::new(Kind::TargetDown, format!("Redis at {shown}: {e}"))
        .hint("check that the server is running and reachable, and the URL's password and database number")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oversized_key_is_named_escaped_and_cut_short() {
        let mut key = b"\xff\x1b[31m\0".to_vec();
        key.resize(emdb_core::MAX_KEY_LEN + 1, b'A');
        let e = check_limits(&key, b"v").unwrap_err();
        assert_eq!(e.kind, Kind::BadInput);
        let start = format!(
            "Redis key \"\\xff\\x1b[31m\\x00{}\"... ({} bytes): the key is",
            "A".repeat(64 - 7),
            key.len()
        );
        assert!(e.message.starts_with(&start), "{}", e.message);
    }
}
