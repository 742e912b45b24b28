//! The control connection of `emdb sync`: one server, or a Redis Cluster
//! through the `redis` crate's slot-routing client. It reads and saves the
//! cursor, scans and deletes the keys of a cleared namespace, and reads the
//! cluster's layout for the bulk path (`pipeline`), which carries the
//! changes themselves. Commands go out as pipelines; a failed pipeline is
//! sent again whole (every command of it is idempotent).

use std::time::Duration;

use redis::cluster::{ClusterClient, ClusterConnection};
use redis::{Client, ConnectionAddr, ConnectionInfo, IntoConnectionInfo, RedisResult};

use super::resp::Layout;

/// How long to wait for a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long to wait for a reply (or to write a command).
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// `e`, or for a timeout (which the OS reports as "Resource temporarily
/// unavailable"), "no reply from the target for N s".
pub fn no_reply_for(e: redis::RedisError, timeout: Duration) -> redis::RedisError {
    if !e.is_timeout() {
        return e;
    }
    redis::RedisError::from((
        redis::ErrorKind::Io,
        "no reply from the target",
        format!("for {} s", timeout.as_secs()),
    ))
}

/// One write to the target.
#[derive(Clone, Debug)]
pub enum Op {
    /// `SET key value` (which also drops any expiry).
    Set(Vec<u8>, Vec<u8>),
    /// `DEL key`.
    Del(Vec<u8>),
}

impl Op {
    fn cmd(&self) -> redis::Cmd {
        match self {
            Op::Set(k, v) => {
                let mut c = redis::cmd("SET");
                c.arg(k).arg(v);
                c
            }
            Op::Del(k) => {
                let mut c = redis::cmd("DEL");
                c.arg(k);
                c
            }
        }
    }
}

/// What one server does when it is full (`INFO memory`).
#[derive(Debug, Clone)]
pub struct Eviction {
    /// The server, as `host:port`.
    pub node: String,
    /// `maxmemory` in bytes (0: no limit).
    pub maxmemory: u64,
    /// `maxmemory_policy` (`noeviction`, `allkeys-lru`, ...).
    pub policy: String,
}

impl Eviction {
    /// True when the server may delete keys on its own to make room: a
    /// memory limit and a policy other than `noeviction`.
    pub fn evicts(&self) -> bool {
        self.maxmemory != 0 && self.policy != "noeviction"
    }
}

enum Conn {
    One(redis::Connection),
    Cluster(Box<ClusterConnection>),
}

/// A connection to the target that reconnects after a failure.
pub struct Target {
    seeds: Vec<ConnectionInfo>,
    cluster: bool,
    conn: Option<Conn>,
    /// How long to wait for a reply ([`REPLY_TIMEOUT`] unless set).
    reply_timeout: Duration,
}

impl Target {
    /// Parse the URLs; connects on first use (see [`Target::check`]).
    pub fn new(urls: &[String], cluster: bool) -> RedisResult<Target> {
        let seeds = urls
            .iter()
            .map(|u| {
                u.as_str()
                    .into_connection_info()
                    .map(super::with_env_password)
            })
            .collect::<RedisResult<Vec<_>>>()?;
        Ok(Target {
            seeds,
            cluster,
            conn: None,
            reply_timeout: REPLY_TIMEOUT,
        })
    }

    /// The same target waiting at most `timeout` for each reply (on the
    /// control connection; [`Target::scan`] and [`Target::eviction`] keep
    /// [`REPLY_TIMEOUT`]).
    pub fn with_reply_timeout(mut self, timeout: Duration) -> Target {
        self.reply_timeout = timeout;
        self
    }

    /// Connect (if not connected) and `PING`.
    pub fn check(&mut self) -> RedisResult<()> {
        let mut c = redis::cmd("PING");
        let _: String = self.query(&mut c)?;
        Ok(())
    }

    /// Forget the connection after an error; the next call reconnects.
    pub fn reset(&mut self) {
        self.conn = None;
    }

    fn conn(&mut self) -> RedisResult<&mut Conn> {
        if self.conn.is_none() {
            let conn = if self.cluster {
                // Few retries of its own: `--retry-for` bounds the sync's
                // (with its defaults, a cluster that lost a master and its
                // replica kept one request retrying for minutes).
                let client = ClusterClient::builder(self.seeds.clone())
                    .connection_timeout(CONNECT_TIMEOUT)
                    .response_timeout(self.reply_timeout)
                    .retries(2)
                    .min_retry_wait(50)
                    .max_retry_wait(1000)
                    .build()?;
                Conn::Cluster(Box::new(client.get_connection()?))
            } else {
                let seed = self.seeds.first().cloned().ok_or_else(|| {
                    redis::RedisError::from((
                        redis::ErrorKind::InvalidClientConfig,
                        "no target URL",
                    ))
                })?;
                let con = Client::open(seed)?.get_connection_with_timeout(CONNECT_TIMEOUT)?;
                con.set_read_timeout(Some(self.reply_timeout))?;
                con.set_write_timeout(Some(self.reply_timeout))?;
                Conn::One(con)
            };
            self.conn = Some(conn);
        }
        self.conn
            .as_mut()
            .ok_or_else(|| redis::RedisError::from((redis::ErrorKind::Io, "not connected")))
    }

    fn query<T: redis::FromRedisValue>(&mut self, cmd: &mut redis::Cmd) -> RedisResult<T> {
        let timeout = self.reply_timeout;
        let r = match self.conn() {
            Ok(Conn::One(c)) => cmd.query(c),
            Ok(Conn::Cluster(c)) => cmd.query(&mut **c),
            Err(e) => Err(e),
        };
        if r.is_err() {
            self.reset();
        }
        r.map_err(|e| no_reply_for(e, timeout))
    }

    /// Send `ops` as one pipeline, in order (in a cluster: in order per slot).
    pub fn apply(&mut self, ops: &[Op]) -> RedisResult<()> {
        if ops.is_empty() {
            return Ok(());
        }
        let timeout = self.reply_timeout;
        let r = match self.conn().map_err(|e| no_reply_for(e, timeout))? {
            Conn::One(c) => {
                let mut p = redis::pipe();
                for op in ops {
                    p.add_command(op.cmd()).ignore();
                }
                // Read here, not with `exec`: after a timeout that waits
                // for each of the other replies in turn (20,000 x 30 s).
                c.send_packed_command(&p.get_packed_pipeline())
                    .and_then(|()| {
                        let mut refused = None;
                        for _ in ops {
                            if let redis::Value::ServerError(e) = c.recv_response()? {
                                refused.get_or_insert(e);
                            }
                        }
                        refused.map_or(Ok(()), |e| Err(e.into()))
                    })
            }
            Conn::Cluster(c) => {
                let mut p = redis::cluster::cluster_pipe();
                for op in ops {
                    p.add_command(op.cmd()).ignore();
                }
                p.exec(c)
            }
        };
        if r.is_err() {
            self.reset();
        }
        r.map_err(|e| no_reply_for(e, timeout))
    }

    /// `GET key`.
    pub fn get(&mut self, key: &[u8]) -> RedisResult<Option<Vec<u8>>> {
        let mut c = redis::cmd("GET");
        c.arg(key);
        self.query(&mut c)
    }

    /// `SET key value`.
    pub fn set(&mut self, key: &[u8], value: &[u8]) -> RedisResult<()> {
        self.apply(&[Op::Set(key.to_vec(), value.to_vec())])
    }

    /// `SET key value` if `key` holds `expected` (`None`: no value), in
    /// one step on the server; else leave it and return what it holds.
    pub fn swap(
        &mut self,
        key: &[u8],
        expected: Option<&[u8]>,
        value: &[u8],
    ) -> RedisResult<Result<(), Option<Vec<u8>>>> {
        // A missing key reads as "" (cursor values are never empty).
        const SWAP: &str = "local cur = redis.call('GET', KEYS[1]) or '' \
            if cur ~= ARGV[1] then return {0, cur} end \
            redis.call('SET', KEYS[1], ARGV[2]) return {1, ''}";
        let mut c = redis::cmd("EVAL");
        c.arg(SWAP)
            .arg(1)
            .arg(key)
            .arg(expected.unwrap_or_default())
            .arg(value);
        let (done, cur): (i64, Vec<u8>) = self.query(&mut c)?;
        Ok(match done {
            1 => Ok(()),
            _ => Err((!cur.is_empty()).then_some(cur)),
        })
    }

    /// Set `key` to `token` with an expiry of `ttl_ms` unless it holds
    /// another value than `stale`, in one step on the server:
    /// `Some(value)` when it does (the lease of another process), else
    /// `None`.
    pub fn lease(
        &mut self,
        key: &[u8],
        token: &[u8],
        ttl_ms: u64,
        stale: Option<&[u8]>,
    ) -> RedisResult<Option<Vec<u8>>> {
        const LEASE: &str = "local cur = redis.call('GET', KEYS[1]) \
            if cur and cur ~= ARGV[1] and cur ~= ARGV[3] then return cur end \
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return ''";
        let mut c = redis::cmd("EVAL");
        c.arg(LEASE)
            .arg(1)
            .arg(key)
            .arg(token)
            .arg(ttl_ms)
            .arg(stale.unwrap_or_default());
        let cur: Vec<u8> = self.query(&mut c)?;
        Ok((!cur.is_empty()).then_some(cur))
    }

    /// Delete `key` if it holds `token`.
    pub fn unlease(&mut self, key: &[u8], token: &[u8]) -> RedisResult<()> {
        const UNLEASE: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then \
            redis.call('DEL', KEYS[1]) end return 1";
        let mut c = redis::cmd("EVAL");
        c.arg(UNLEASE).arg(1).arg(key).arg(token);
        let _: i64 = self.query(&mut c)?;
        Ok(())
    }

    /// Every key matching `pattern`, on every master. Keys may repeat (SCAN
    /// guarantees only that a key present throughout is seen).
    pub fn scan(&mut self, pattern: &[u8]) -> RedisResult<Vec<Vec<u8>>> {
        self.scan_all(pattern)
            .map_err(|e| no_reply_for(e, REPLY_TIMEOUT))
    }

    fn scan_all(&mut self, pattern: &[u8]) -> RedisResult<Vec<Vec<u8>>> {
        let servers = self.servers()?;
        let mut keys = Vec::new();
        for info in servers {
            let mut con = Client::open(info)?.get_connection_with_timeout(CONNECT_TIMEOUT)?;
            con.set_read_timeout(Some(REPLY_TIMEOUT))?;
            let mut cursor = 0u64;
            loop {
                let (next, batch): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(pattern)
                    .arg("COUNT")
                    .arg(1000)
                    .query(&mut con)?;
                keys.extend(batch);
                if next == 0 {
                    break;
                }
                cursor = next;
            }
        }
        Ok(keys)
    }

    /// The memory limit and eviction policy of every server holding keys
    /// (`INFO memory` on the one server, or on each cluster master).
    pub fn eviction(&mut self) -> RedisResult<Vec<Eviction>> {
        self.eviction_all()
            .map_err(|e| no_reply_for(e, REPLY_TIMEOUT))
    }

    fn eviction_all(&mut self) -> RedisResult<Vec<Eviction>> {
        let servers = self.servers()?;
        let mut out = Vec::new();
        for info in servers {
            let node = info.addr().to_string();
            let mut con = Client::open(info)?.get_connection_with_timeout(CONNECT_TIMEOUT)?;
            con.set_read_timeout(Some(REPLY_TIMEOUT))?;
            con.set_write_timeout(Some(REPLY_TIMEOUT))?;
            let text: String = redis::cmd("INFO").arg("memory").query(&mut con)?;
            let field = |name: &str| {
                text.lines()
                    .find_map(|l| l.trim().strip_prefix(name)?.strip_prefix(':'))
                    .map(str::to_string)
            };
            out.push(Eviction {
                node,
                maxmemory: field("maxmemory").and_then(|m| m.parse().ok()).unwrap_or(0),
                policy: field("maxmemory_policy").unwrap_or_default(),
            });
        }
        Ok(out)
    }

    /// The servers holding keys: the one server, or each cluster master.
    fn servers(&mut self) -> RedisResult<Vec<ConnectionInfo>> {
        Ok(self.layout()?.nodes)
    }

    /// Where keys go: the one server, or each cluster master with the
    /// slots it serves (from `CLUSTER NODES`; failed masters left out, and
    /// their slots unserved).
    pub fn layout(&mut self) -> RedisResult<Layout> {
        let seed = self.seeds.first().cloned().ok_or_else(|| {
            redis::RedisError::from((redis::ErrorKind::InvalidClientConfig, "no target URL"))
        })?;
        if !self.cluster {
            return Ok(Layout::single(seed));
        }
        let nodes: String = self.query(redis::cmd("CLUSTER").arg("NODES"))?;
        let mut out = Vec::new();
        let mut ranges = Vec::new();
        for line in nodes.lines() {
            // <id> <ip:port@cport[,hostname]> <flags> <master> <ping> <pong>
            // <epoch> <link> <slot ranges...>
            let f: Vec<&str> = line.split_whitespace().collect();
            let (Some(addr), Some(flags)) = (f.get(1), f.get(2)) else {
                continue;
            };
            if !flags.split(',').any(|x| x == "master") || flags.contains("fail") {
                continue;
            }
            let hostport = addr.split(['@', ',']).next().unwrap_or(addr);
            let Some((host, port)) = hostport.rsplit_once(':') else {
                continue;
            };
            let Ok(port) = port.parse::<u16>() else {
                continue;
            };
            let node = out.len();
            for r in f.iter().skip(8) {
                // "[slot->-id]" and "[slot-<-id]" are migrations: the owner
                // still serves the slot.
                if r.starts_with('[') {
                    continue;
                }
                let (a, b) = r.split_once('-').unwrap_or((r, r));
                if let (Ok(a), Ok(b)) = (a.parse::<u16>(), b.parse::<u16>()) {
                    ranges.push((node, a, b));
                }
            }
            out.push(
                seed.clone()
                    .set_addr(ConnectionAddr::Tcp(host.to_string(), port)),
            );
        }
        Ok(Layout::cluster(out, &ranges))
    }
}
