//! A minimal Redis client for `emdb bench --redis`: one blocking TCP
//! connection, RESP2 requests and replies, and only what the benchmark
//! needs (AUTH, SELECT, PING, SET, GET, DEL).
//!
//! Written here rather than taken from the `redis` crate: that crate (0.32,
//! default features off) adds 50 crates (url, idna and the ICU stack among
//! them) and about 25 s of CPU to a clean build, for a few dozen lines of
//! protocol.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::Conn;
use crate::error::{CliError, CliResult, Kind};

/// Where and how to connect, from a `redis://` URL.
#[derive(Clone)]
pub struct Target {
    /// `host:port`.
    pub addr: String,
    user: Option<String>,
    password: Option<String>,
    db: Option<u32>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never show the password.
        f.debug_struct("Target")
            .field("addr", &self.addr)
            .field("db", &self.db)
            .finish()
    }
}

impl Target {
    /// Parse `redis://[[user]:password@]host[:port][/db]`.
    pub fn parse(url: &str) -> CliResult<Target> {
        let bad = |why: &str| {
            CliError::usage(format!("--redis: {why}"))
                .hint("use redis://host:port, e.g. redis://127.0.0.1:6379 (optionally redis://:password@host:port/2)")
        };
        let rest = url
            .strip_prefix("redis://")
            .ok_or_else(|| bad("the URL must start with redis://"))?;
        let (auth, rest) = match rest.rsplit_once('@') {
            Some((auth, rest)) => (Some(auth), rest),
            None => (None, rest),
        };
        let (hostport, db) = match rest.split_once('/') {
            Some((hp, "")) => (hp, None),
            Some((hp, db)) => (
                hp,
                Some(
                    db.parse::<u32>()
                        .map_err(|_| bad("the database must be a number"))?,
                ),
            ),
            None => (rest, None),
        };
        if hostport.is_empty() {
            return Err(bad("no host"));
        }
        let addr = if hostport.starts_with('[') {
            // [::1]:6379 or [::1]
            if hostport.ends_with(']') {
                format!("{hostport}:6379")
            } else {
                hostport.to_string()
            }
        } else if hostport.contains(':') {
            hostport.to_string()
        } else {
            format!("{hostport}:6379")
        };
        let (user, password) = match auth {
            None => (
                None,
                std::env::var("REDISCLI_AUTH")
                    .ok()
                    .filter(|p| !p.is_empty()),
            ),
            Some(a) => match a.split_once(':') {
                Some(("", p)) => (None, Some(p.to_string())),
                Some((u, p)) => (Some(u.to_string()), Some(p.to_string())),
                None => (None, Some(a.to_string())),
            },
        };
        Ok(Target {
            addr,
            user,
            password,
            db,
        })
    }

    /// Open a connection, authenticate, select the database, and ping.
    pub fn connect(&self) -> CliResult<Redis> {
        let stream = TcpStream::connect(&self.addr).map_err(|e| {
            CliError::new(
                Kind::Io,
                format!("cannot connect to Redis at {}: {e}", self.addr),
            )
            .hint("is redis-server running? check --redis")
        })?;
        let _ = stream.set_nodelay(true);
        let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
        let reader = BufReader::new(
            stream
                .try_clone()
                .map_err(|e| CliError::io("connecting to Redis", None, e))?,
        );
        let mut r = Redis {
            stream,
            reader,
            buf: Vec::with_capacity(512),
        };
        if let Some(password) = &self.password {
            match &self.user {
                Some(user) => r.call(&[b"AUTH", user.as_bytes(), password.as_bytes()])?,
                None => r.call(&[b"AUTH", password.as_bytes()])?,
            };
        }
        if let Some(db) = self.db {
            r.call(&[b"SELECT", db.to_string().as_bytes()])?;
        }
        r.call(&[b"PING"])?;
        Ok(r)
    }
}

/// A reply, reduced to what the benchmark looks at.
#[derive(Debug, PartialEq, Eq)]
pub enum Reply {
    /// `+OK` and other status lines.
    Status,
    /// `:n`.
    Integer(i64),
    /// `$n` (its length) or `$-1` (`None`).
    Bulk(Option<usize>),
    /// `*n`.
    Array,
}

/// One connection.
pub struct Redis {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
    buf: Vec<u8>,
}

impl Redis {
    /// Send one command and read its reply; a Redis error reply is an error.
    pub fn call(&mut self, parts: &[&[u8]]) -> CliResult<Reply> {
        self.buf.clear();
        let _ = write!(self.buf, "*{}\r\n", parts.len());
        for p in parts {
            let _ = write!(self.buf, "${}\r\n", p.len());
            self.buf.extend_from_slice(p);
            self.buf.extend_from_slice(b"\r\n");
        }
        self.stream.write_all(&self.buf).map_err(io_error)?;
        self.reply()
    }

    fn line(&mut self) -> CliResult<Vec<u8>> {
        let mut line = Vec::new();
        self.reader.read_until(b'\n', &mut line).map_err(io_error)?;
        if !line.ends_with(b"\r\n") {
            return Err(CliError::new(Kind::Io, "Redis closed the connection"));
        }
        line.truncate(line.len() - 2);
        Ok(line)
    }

    fn reply(&mut self) -> CliResult<Reply> {
        let line = self.line()?;
        let (kind, rest) = line
            .split_first()
            .ok_or_else(|| CliError::new(Kind::Io, "empty reply from Redis"))?;
        let number = || -> CliResult<i64> {
            std::str::from_utf8(rest)
                .ok()
                .and_then(|t| t.parse().ok())
                .ok_or_else(|| CliError::new(Kind::Io, "malformed reply from Redis"))
        };
        match kind {
            b'+' => Ok(Reply::Status),
            b'-' => Err(CliError::new(
                Kind::Io,
                format!("Redis replied: {}", String::from_utf8_lossy(rest)),
            )),
            b':' => Ok(Reply::Integer(number()?)),
            b'$' => {
                let n = number()?;
                let Ok(len) = usize::try_from(n) else {
                    return Ok(Reply::Bulk(None));
                };
                let mut skip = vec![0; len + 2];
                self.reader.read_exact(&mut skip).map_err(io_error)?;
                Ok(Reply::Bulk(Some(len)))
            }
            b'*' => {
                for _ in 0..number()?.max(0) {
                    self.reply()?;
                }
                Ok(Reply::Array)
            }
            _ => Err(CliError::new(Kind::Io, "unexpected reply from Redis")),
        }
    }
}

fn io_error(e: std::io::Error) -> CliError {
    CliError::new(Kind::Io, format!("talking to Redis failed: {e}"))
}

impl Conn for Redis {
    fn set(&mut self, key: &[u8], value: &[u8]) -> CliResult {
        self.call(&[b"SET", key, value]).map(drop)
    }

    fn get(&mut self, key: &[u8]) -> CliResult<bool> {
        Ok(matches!(self.call(&[b"GET", key])?, Reply::Bulk(Some(_))))
    }

    fn del(&mut self, key: &[u8]) -> CliResult {
        self.call(&[b"DEL", key]).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = Target::parse("redis://127.0.0.1").unwrap();
        assert_eq!(t.addr, "127.0.0.1:6379");
        let t = Target::parse("redis://:pw@h:7000/3").unwrap();
        assert_eq!((t.addr.as_str(), t.db), ("h:7000", Some(3)));
        assert_eq!(t.password.as_deref(), Some("pw"));
        assert!(!format!("{t:?}").contains("pw"));
        let t = Target::parse("redis://u:p@[::1]").unwrap();
        assert_eq!(
            (t.addr.as_str(), t.user.as_deref()),
            ("[::1]:6379", Some("u"))
        );
        assert!(Target::parse("http://x").is_err());
        assert!(Target::parse("redis://h/x").is_err());
    }
}
