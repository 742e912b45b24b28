//! The threads of the bulk path of `emdb sync` (docs/SCALING.md, "How the
//! sync writes"): a log reader that decodes units and encodes them into
//! per-node RESP batches, and one reply reader per node connection that
//! counts the target's replies. The main thread writes the batches and
//! saves the cursor once every command before it has been acknowledged.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Sender, SyncSender};
use std::sync::Arc;
use std::time::Duration;

use emdb_core::changes::{Change, ChangeFeed};
use redis::{ConnectionAddr, ConnectionInfo, ErrorKind, RedisError, RedisResult};

use super::resp::{next_reply, Batch, Encoder, Reply};

/// Largest stretch of log read per poll.
const POLL_BYTES: usize = 4 << 20;
/// A batch is handed to the writer once it holds this much RESP...
const BATCH_RESP_BYTES: usize = 512 << 10;
/// ...or this many commands.
const BATCH_CMDS: u64 = 5_000;
/// Pause between looks at the log while caught up.
const POLL_IDLE: Duration = Duration::from_millis(2);

/// What the log reader hands to the writer, in log order.
#[derive(Debug)]
pub enum Item {
    /// Commands to send.
    Batch(Batch),
    /// A clear or namespace drop: once everything before it is acknowledged,
    /// delete the namespace's keys (sparing those of `live` namespaces).
    DeleteNamespace {
        /// The namespace cleared or dropped.
        namespace: String,
        /// The namespaces that exist after the poll that read it.
        live: Vec<String>,
    },
    /// The log was replaced by a file the feed could not map its position
    /// into: clear the target, the feed starts over.
    Resend(String),
    /// The full copy is read (without `--follow`).
    End,
    /// Reading the log failed.
    Failed(emdb_core::Error),
}

/// State the log reader shares with the writer.
#[derive(Debug, Default)]
pub struct Shared {
    /// Set by the writer to stop the reader.
    pub stop: AtomicBool,
    /// The writer's durable end as of the reader's last poll.
    pub durable_end: AtomicU64,
    /// True when the reader's last poll found nothing new.
    pub idle: AtomicBool,
}

/// The log reader: polls the feed and sends the encoded batches until it is
/// stopped, the receiver goes away, or (`follow` false) it has read up to
/// `copy_end` or caught up.
pub fn read_log(
    mut feed: ChangeFeed,
    mut enc: Encoder,
    tx: SyncSender<Item>,
    shared: Arc<Shared>,
    follow: bool,
    copy_end: u64,
) {
    let send = |item: Item| tx.send(item).is_ok();
    while !shared.stop.load(Ordering::Relaxed) {
        let poll = match feed.poll(POLL_BYTES) {
            Ok(p) => p,
            Err(e) => {
                send(Item::Failed(e));
                return;
            }
        };
        shared
            .durable_end
            .store(feed.durable_end(), Ordering::Relaxed);
        let got = !poll.units.is_empty();
        if got {
            shared.idle.store(false, Ordering::Relaxed);
        }
        let now = super::now_ms();
        let mut b = enc.batch();
        for unit in &poll.units {
            for change in &unit.changes {
                match change {
                    Change::Put {
                        namespace,
                        key,
                        value,
                        expires_at_ms,
                    } => enc.put(&mut b, namespace, key, value, *expires_at_ms, now),
                    Change::Delete { namespace, key } => enc.del(&mut b, namespace, key),
                    Change::CreateNamespace { .. } => {}
                    Change::Clear { namespace } | Change::DropNamespace { namespace } => {
                        if !b.is_empty()
                            && !send(Item::Batch(std::mem::replace(&mut b, enc.batch())))
                        {
                            return;
                        }
                        let live = feed.namespaces();
                        if !send(Item::DeleteNamespace {
                            namespace: namespace.clone(),
                            live,
                        }) {
                            return;
                        }
                    }
                }
                if (b.bytes() >= BATCH_RESP_BYTES || b.ops >= BATCH_CMDS)
                    && !send(Item::Batch(std::mem::replace(&mut b, enc.batch())))
                {
                    return;
                }
            }
            b.units += 1;
            b.end = Some(unit.end);
        }
        if !b.is_empty() && !send(Item::Batch(b)) {
            return;
        }
        if let Some(reason) = poll.resend {
            if !send(Item::Resend(reason)) {
                return;
            }
            continue;
        }
        let caught_up = feed.cursor().position >= feed.durable_end();
        if !follow && (caught_up || feed.cursor().position >= copy_end) {
            send(Item::End);
            return;
        }
        if !got {
            shared.idle.store(caught_up, Ordering::Relaxed);
            std::thread::sleep(POLL_IDLE);
        }
    }
}

/// What a reply reader reports.
#[derive(Debug)]
pub enum Ack {
    /// Node `node` has answered `total` commands since its connection opened.
    Replies {
        /// Index of the node in the layout.
        node: usize,
        /// Replies so far.
        total: u64,
    },
    /// Node `node` answered with an error or its connection failed.
    Failed(RedisError),
}

/// A reply reader: counts the replies of one node connection and reports
/// after each read; an error reply or a closed connection ends it.
pub fn read_replies(mut stream: Stream, node: usize, tx: Sender<Ack>) {
    let mut buf = vec![0u8; 256 << 10];
    let mut have = 0usize;
    let mut total = 0u64;
    let fail = |e: RedisError| {
        let _ = tx.send(Ack::Failed(e));
    };
    loop {
        if have == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        match stream.read(&mut buf[have..]) {
            Ok(0) => {
                return fail(RedisError::from((
                    ErrorKind::Io,
                    "the target closed the connection",
                )))
            }
            Ok(k) => have += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return fail(e.into()),
        }
        let before = total;
        let mut at = 0usize;
        loop {
            match next_reply(&buf[at..have]) {
                Ok(Reply::Ok(len)) => {
                    at += len;
                    total += 1;
                }
                Ok(Reply::Incomplete) => break,
                Ok(Reply::Error(_, text)) => {
                    return fail(RedisError::from((ErrorKind::Io, super::REFUSED, text)))
                }
                Err(text) => {
                    return fail(RedisError::from((
                        ErrorKind::Parse,
                        "the target's reply is not RESP",
                        text,
                    )))
                }
            }
        }
        buf.copy_within(at..have, 0);
        have -= at;
        if total != before && tx.send(Ack::Replies { node, total }).is_err() {
            return;
        }
    }
}

/// A connection to one node: TCP or a Unix socket.
#[derive(Debug)]
pub enum Stream {
    /// `redis://HOST:PORT`.
    Tcp(TcpStream),
    /// `redis+unix:///path`.
    Unix(UnixStream),
}

impl Stream {
    /// A second handle on the same connection (for the reply reader).
    pub fn try_clone(&self) -> std::io::Result<Stream> {
        Ok(match self {
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
        })
    }

    /// Close both directions (wakes the reply reader).
    pub fn shutdown(&self) {
        let _ = match self {
            Stream::Tcp(s) => s.shutdown(Shutdown::Both),
            Stream::Unix(s) => s.shutdown(Shutdown::Both),
        };
    }

    fn set_timeouts(&self, read: Option<Duration>, write: Option<Duration>) -> std::io::Result<()> {
        match self {
            Stream::Tcp(s) => {
                s.set_read_timeout(read)?;
                s.set_write_timeout(write)
            }
            Stream::Unix(s) => {
                s.set_read_timeout(read)?;
                s.set_write_timeout(write)
            }
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Open a connection to one node, authenticate and select the database as
/// the URL says. Writes time out after `timeout`; reads never (the reply
/// reader is woken by [`Stream::shutdown`]).
pub fn connect(info: &ConnectionInfo, timeout: Duration) -> RedisResult<Stream> {
    let mut stream = match info.addr() {
        ConnectionAddr::Tcp(host, port) => {
            let mut last = None;
            let mut found = None;
            for addr in (host.as_str(), *port).to_socket_addrs()? {
                match TcpStream::connect_timeout(&addr, timeout) {
                    Ok(s) => {
                        found = Some(s);
                        break;
                    }
                    Err(e) => last = Some(e),
                }
            }
            let s = match (found, last) {
                (Some(s), _) => s,
                (None, Some(e)) => return Err(e.into()),
                (None, None) => {
                    return Err(RedisError::from((
                        ErrorKind::InvalidClientConfig,
                        "the target's host name has no address",
                    )))
                }
            };
            s.set_nodelay(true)?;
            Stream::Tcp(s)
        }
        ConnectionAddr::Unix(path) => Stream::Unix(UnixStream::connect(path)?),
        #[allow(unreachable_patterns)]
        _ => {
            return Err(RedisError::from((
                ErrorKind::InvalidClientConfig,
                "TLS targets (rediss://) are not supported by emdb sync",
            )))
        }
    };
    stream.set_timeouts(Some(timeout), Some(timeout))?;
    let settings = info.redis_settings();
    if let Some(password) = settings.password() {
        let mut auth = redis::cmd("AUTH");
        if let Some(user) = settings.username() {
            auth.arg(user);
        }
        auth.arg(password);
        handshake(&mut stream, &auth.get_packed_command())?;
    }
    if settings.db() != 0 {
        handshake(
            &mut stream,
            &redis::cmd("SELECT").arg(settings.db()).get_packed_command(),
        )?;
    }
    stream.set_timeouts(None, Some(timeout))?;
    Ok(stream)
}

/// Send one command and wait for its reply; an error reply is an error.
fn handshake(stream: &mut Stream, cmd: &[u8]) -> RedisResult<()> {
    stream.write_all(cmd)?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 512];
    loop {
        let k = stream.read(&mut chunk)?;
        if k == 0 {
            return Err(RedisError::from((
                ErrorKind::Io,
                "the target closed the connection",
            )));
        }
        buf.extend_from_slice(&chunk[..k]);
        match next_reply(&buf) {
            Ok(Reply::Ok(_)) => return Ok(()),
            Ok(Reply::Incomplete) => {}
            Ok(Reply::Error(_, text)) => {
                return Err(RedisError::from((
                    ErrorKind::AuthenticationFailed,
                    "the target refused the connection setup",
                    text,
                )))
            }
            Err(text) => {
                return Err(RedisError::from((
                    ErrorKind::Parse,
                    "the target's reply is not RESP",
                    text,
                )))
            }
        }
    }
}
