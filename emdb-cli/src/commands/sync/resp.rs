//! RESP for the bulk path of `emdb sync`: changes are encoded straight into
//! one command buffer per target node (routed by cluster slot when the
//! target is a cluster), and replies are counted without being built into
//! values.

use std::sync::Arc;

use emdb_core::changes::Cursor;
use redis::ConnectionInfo;

use super::keymap::KeyMap;

/// Number of Redis Cluster hash slots.
pub const SLOTS: usize = 16_384;

/// Slot-table entry of a slot no master serves (sent to node 0, whose
/// refusal makes the session fail and the layout be read again).
const UNSERVED: u16 = u16::MAX;

/// The nodes of the target and, for a cluster, which node serves each slot.
#[derive(Debug, Clone)]
pub struct Layout {
    /// One entry per node: the one server, or each cluster master.
    pub nodes: Vec<ConnectionInfo>,
    slots: Option<Vec<u16>>,
}

impl Layout {
    /// A single server: every key goes to it.
    pub fn single(info: ConnectionInfo) -> Layout {
        Layout {
            nodes: vec![info],
            slots: None,
        }
    }

    /// A cluster of `nodes`; `ranges` are `(node index, first slot, last
    /// slot)`, inclusive.
    pub fn cluster(nodes: Vec<ConnectionInfo>, ranges: &[(usize, u16, u16)]) -> Layout {
        let mut slots = vec![UNSERVED; SLOTS];
        for &(node, first, last) in ranges {
            let last = usize::from(last).min(SLOTS - 1);
            for s in slots.iter_mut().take(last + 1).skip(usize::from(first)) {
                *s = u16::try_from(node).unwrap_or(UNSERVED);
            }
        }
        Layout {
            nodes,
            slots: Some(slots),
        }
    }

    /// The node a key goes to.
    pub fn node_of(&self, key: &[u8]) -> usize {
        match &self.slots {
            None => 0,
            Some(table) => match table[usize::from(slot(key))] {
                UNSERVED => 0,
                n => usize::from(n),
            },
        }
    }
}

/// The Redis Cluster hash slot of a key: CRC16 (XMODEM) of the key, or of
/// its hash tag (the bytes between the first `{` and the next `}`, when not
/// empty), modulo 16,384.
pub fn slot(key: &[u8]) -> u16 {
    let hashed = hash_tag(key).unwrap_or(key);
    crc16::State::<crc16::XMODEM>::calculate(hashed) % SLOTS as u16
}

fn hash_tag(key: &[u8]) -> Option<&[u8]> {
    let open = key.iter().position(|&b| b == b'{')?;
    let rest = &key[open + 1..];
    let close = rest.iter().position(|&b| b == b'}')?;
    (close > 0).then(|| &rest[..close])
}

/// Commands for the target, split by node, and how far in the log they go.
#[derive(Debug)]
pub struct Batch {
    /// RESP commands for each node of the layout.
    pub parts: Vec<Vec<u8>>,
    /// How many commands each part holds.
    pub cmds: Vec<u64>,
    /// Commands in all parts.
    pub ops: u64,
    /// Units completed in this batch.
    pub units: u64,
    /// The cursor after the last unit completed in this batch (`None` when
    /// the batch holds only part of a unit).
    pub end: Option<Cursor>,
    bytes: usize,
}

impl Batch {
    /// True when the batch neither sends anything nor moves the cursor.
    pub fn is_empty(&self) -> bool {
        self.ops == 0 && self.end.is_none()
    }

    /// Bytes of RESP in all parts.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// Turns changes into RESP commands for a layout.
pub struct Encoder {
    keymap: KeyMap,
    layout: Arc<Layout>,
    key: Vec<u8>,
}

const SET: &[u8] = b"*3\r\n$3\r\nSET\r\n";
const PEXPIREAT: &[u8] = b"*3\r\n$9\r\nPEXPIREAT\r\n";
const DEL: &[u8] = b"*2\r\n$3\r\nDEL\r\n";

impl Encoder {
    /// An encoder for `layout`, mapping keys with `keymap`.
    pub fn new(keymap: KeyMap, layout: Arc<Layout>) -> Encoder {
        Encoder {
            keymap,
            layout,
            key: Vec::new(),
        }
    }

    /// An empty batch for this layout.
    pub fn batch(&self) -> Batch {
        let n = self.layout.nodes.len();
        Batch {
            parts: vec![Vec::new(); n],
            cmds: vec![0; n],
            ops: 0,
            units: 0,
            end: None,
            bytes: 0,
        }
    }

    /// A put: `SET`, then `PEXPIREAT` when it expires; a `DEL` instead when
    /// it has already expired at `now_ms` (an older value must go).
    pub fn put(
        &mut self,
        b: &mut Batch,
        namespace: &str,
        key: &[u8],
        value: &[u8],
        expires_at_ms: Option<u64>,
        now_ms: u64,
    ) {
        self.keymap.write_key(namespace, key, &mut self.key);
        let node = self.layout.node_of(&self.key);
        let out = &mut b.parts[node];
        let before = out.len();
        match expires_at_ms {
            Some(at) if at <= now_ms => {
                out.extend_from_slice(DEL);
                bulk(out, &self.key);
                b.cmds[node] += 1;
                b.ops += 1;
            }
            Some(at) => {
                out.extend_from_slice(SET);
                bulk(out, &self.key);
                bulk(out, value);
                out.extend_from_slice(PEXPIREAT);
                bulk(out, &self.key);
                let mut digits = [0u8; 20];
                // One Redis refuses would stop the sync at this key for good.
                bulk(
                    out,
                    decimal(emdb_tools::transfer::redis_expiry(at), &mut digits),
                );
                b.cmds[node] += 2;
                b.ops += 2;
            }
            None => {
                out.extend_from_slice(SET);
                bulk(out, &self.key);
                bulk(out, value);
                b.cmds[node] += 1;
                b.ops += 1;
            }
        }
        b.bytes += out.len() - before;
    }

    /// A removal: `DEL`.
    pub fn del(&mut self, b: &mut Batch, namespace: &str, key: &[u8]) {
        self.keymap.write_key(namespace, key, &mut self.key);
        let node = self.layout.node_of(&self.key);
        let out = &mut b.parts[node];
        let before = out.len();
        out.extend_from_slice(DEL);
        bulk(out, &self.key);
        b.cmds[node] += 1;
        b.ops += 1;
        b.bytes += out.len() - before;
    }
}

/// Append one RESP bulk string.
fn bulk(out: &mut Vec<u8>, data: &[u8]) {
    let mut digits = [0u8; 20];
    out.push(b'$');
    out.extend_from_slice(decimal(data.len() as u64, &mut digits));
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
}

/// `n` in decimal ASCII, written at the end of `buf`.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

/// One reply found by [`next_reply`].
#[derive(Debug, PartialEq, Eq)]
pub enum Reply {
    /// The first reply is complete and `len` bytes long; it is not an error.
    Ok(usize),
    /// The first reply is an error reply (`-...`), `len` bytes long.
    Error(usize, String),
    /// The buffer ends before the first reply does.
    Incomplete,
}

/// The first RESP2 reply at the start of `buf`. Err for bytes that are not
/// RESP.
pub fn next_reply(buf: &[u8]) -> Result<Reply, String> {
    let Some(end) = reply_end(buf, 0)? else {
        return Ok(Reply::Incomplete);
    };
    if buf[0] == b'-' {
        let text = String::from_utf8_lossy(&buf[1..end - 2]).into_owned();
        return Ok(Reply::Error(end, text));
    }
    Ok(Reply::Ok(end))
}

/// Where the reply starting at `at` ends (just past it), or `None` when
/// `buf` ends first.
fn reply_end(buf: &[u8], at: usize) -> Result<Option<usize>, String> {
    let Some(&kind) = buf.get(at) else {
        return Ok(None);
    };
    let Some(nl) = buf[at..].iter().position(|&b| b == b'\n') else {
        return Ok(None);
    };
    let eol = at + nl + 1;
    let header = &buf[at + 1..(eol - 2).max(at + 1)];
    match kind {
        b'+' | b'-' | b':' => Ok(Some(eol)),
        b'$' => {
            let n = length(header)?;
            let Ok(n) = usize::try_from(n) else {
                return Ok(Some(eol)); // $-1: a null reply
            };
            let end = eol + n + 2;
            Ok((buf.len() >= end).then_some(end))
        }
        b'*' => {
            let n = length(header)?;
            let mut p = eol;
            for _ in 0..n.max(0) {
                match reply_end(buf, p)? {
                    Some(e) => p = e,
                    None => return Ok(None),
                }
            }
            Ok(Some(p))
        }
        other => Err(format!("unexpected reply type byte {other:#04x}")),
    }
}

fn length(text: &[u8]) -> Result<i64, String> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| format!("bad length {:?} in a reply", String::from_utf8_lossy(text)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::sync::keymap::DEFAULT_NS_PREFIX;

    #[test]
    fn slots_match_redis() {
        // Values from CLUSTER KEYSLOT on a real server.
        assert_eq!(slot(b"foo"), 12182);
        assert_eq!(slot(b"bar"), 5061);
        assert_eq!(slot(b"{user1000}.following"), slot(b"user1000"));
        assert_eq!(slot(b"foo{}{bar}"), slot(b"foo{}{bar}"));
        assert_ne!(slot(b"foo{}{bar}"), slot(b"bar"));
        assert_eq!(slot(b"foo{{bar}}zap"), slot(b"{bar"));
    }

    #[test]
    fn commands_are_the_packed_redis_commands() {
        let layout = Arc::new(Layout::single(
            redis::IntoConnectionInfo::into_connection_info("redis://127.0.0.1:1").unwrap(),
        ));
        let mut enc = Encoder::new(KeyMap::parse(DEFAULT_NS_PREFIX).unwrap(), layout);
        let mut b = enc.batch();
        enc.put(&mut b, "users", b"k\r\n", b"\x00v", None, 10);
        enc.put(&mut b, "", b"t", b"v", Some(12_345), 10);
        enc.put(&mut b, "", b"gone", b"v", Some(5), 10);
        enc.put(&mut b, "", b"far", b"v", Some(u64::MAX), 10);
        enc.del(&mut b, "ns", b"x");
        let mut want = Vec::new();
        want.extend(
            redis::cmd("SET")
                .arg(&b"users:k\r\n"[..])
                .arg(&b"\x00v"[..])
                .get_packed_command(),
        );
        want.extend(redis::cmd("SET").arg("t").arg("v").get_packed_command());
        want.extend(
            redis::cmd("PEXPIREAT")
                .arg("t")
                .arg(12_345u64)
                .get_packed_command(),
        );
        want.extend(redis::cmd("DEL").arg("gone").get_packed_command());
        // Past what Redis holds (it refuses more than i64::MAX ms).
        want.extend(redis::cmd("SET").arg("far").arg("v").get_packed_command());
        want.extend(
            redis::cmd("PEXPIREAT")
                .arg("far")
                .arg(i64::MAX)
                .get_packed_command(),
        );
        want.extend(redis::cmd("DEL").arg("ns:x").get_packed_command());
        assert_eq!(b.parts[0], want);
        assert_eq!((b.cmds[0], b.ops, b.bytes()), (7, 7, want.len()));
    }

    #[test]
    fn cluster_batches_split_by_slot() {
        let info = |p: u16| {
            redis::IntoConnectionInfo::into_connection_info(format!("redis://127.0.0.1:{p}"))
                .unwrap()
        };
        let layout = Layout::cluster(
            vec![info(1), info(2), info(3)],
            &[(0, 0, 5460), (1, 5461, 10922), (2, 10923, 16383)],
        );
        assert_eq!(layout.node_of(b"bar"), 0); // slot 5061
        assert_eq!(layout.node_of(b"foo"), 2); // slot 12182
        let mut enc = Encoder::new(KeyMap::parse("{%n}:").unwrap(), Arc::new(layout));
        let mut b = enc.batch();
        enc.put(&mut b, "", b"bar", b"1", None, 0);
        enc.put(&mut b, "", b"foo", b"1", None, 0);
        enc.put(&mut b, "foo", b"anything", b"1", None, 0);
        assert_eq!(b.cmds, vec![1, 0, 2]);
    }

    #[test]
    fn replies_are_counted_whole() {
        assert_eq!(next_reply(b"+OK\r\n:1"), Ok(Reply::Ok(5)));
        assert_eq!(next_reply(b":1\r"), Ok(Reply::Incomplete));
        assert_eq!(next_reply(b"$3\r\nab"), Ok(Reply::Incomplete));
        assert_eq!(next_reply(b"$3\r\nabc\r\n+"), Ok(Reply::Ok(9)));
        assert_eq!(next_reply(b"$-1\r\n"), Ok(Reply::Ok(5)));
        assert_eq!(next_reply(b"*2\r\n:1\r\n$1\r\nx\r\n"), Ok(Reply::Ok(15)));
        assert_eq!(next_reply(b"*2\r\n:1\r\n"), Ok(Reply::Incomplete));
        assert_eq!(
            next_reply(b"-MOVED 3999 127.0.0.1:6381\r\n"),
            Ok(Reply::Error(28, "MOVED 3999 127.0.0.1:6381".into()))
        );
        assert!(next_reply(b"?\r\n").is_err());
        assert_eq!(next_reply(b""), Ok(Reply::Incomplete));
    }
}
