//! The Redis protocol: `SET` commands as RESP arrays of bulk strings, so
//! `emdb export --format resp | redis-cli --pipe` loads a database into
//! Redis.
//!
//! ```text
//! ECHO {"emdb_export":1,"namespaces":["","sessions"],"encrypted":false}
//! SET user:1 james
//! ECHO {"emdb_namespace":"sessions"}
//! SET sessions:s:1 x PXAT 1767225600000
//! ```
//! - The export starts with an `ECHO` of the same header as JSON Lines;
//!   Redis answers it and stores nothing.
//! - Redis has no namespaces, so keys of a named namespace are written with
//!   the Redis-conventional prefix `<namespace>:`. Before the first record
//!   of each namespace an `ECHO {"emdb_namespace":...}` marks where the
//!   prefixed keys start, so an import strips exactly that prefix (and a
//!   default-namespace key that merely looks prefixed stays as it is).
//! - A key that expires carries `PXAT <ms since the Unix epoch>`.
//! - Bulk strings carry any bytes; with `--hex`/`--base64` the encoded text
//!   is sent instead (and decoded again on import), as RESP has no place to
//!   say which encoding was used.
//!
//! Import reads what `redis-cli` and common dump tools emit, as RESP
//! arrays or inline commands (`SET k v` on a line, with `"..."` and `'...'`
//! quoting as redis-cli reads it):
//! - `SET key value` with at most one of `EX`, `PX`, `EXAT`, `PXAT`, and
//!   `NX` (write only if absent) or `KEEPTTL` (keep the current expiry);
//! - `MSET k v [k v ...]`, `DEL key [key ...]`;
//! - `EXPIRE`/`PEXPIRE key n` and `EXPIREAT`/`PEXPIREAT key t`;
//! - `SELECT n`: database 0 is the import's target namespace (`-n`, else the
//!   default one), database `n` > 0 the namespace `db<n>`;
//! - `ECHO` (the header and namespace markers above; anything else is
//!   ignored, as Redis would only echo it).
//!
//! Any other command is refused, naming the line.

use std::collections::VecDeque;
use std::io::{BufRead, Read, Write};

use super::{is_header, namespace_field, parse_header, Command, Entry, Item, Plan, RecordWriter};
use crate::encoding::Encoding;
use crate::encoding::{base64, decode, escape_text, hex, Codec, Layout};
use crate::error::{ToolError, ToolResult};
use crate::space::now_ms;

/// Writes `SET` commands.
pub struct Writer<'w> {
    out: &'w mut dyn Write,
    codec: Codec,
    /// The namespace of the records written last (`""`: the default).
    ns: String,
    scratch: Vec<u8>,
}

/// The namespace marker, as JSON.
#[derive(serde::Serialize, serde::Deserialize)]
struct Marker<'a> {
    #[serde(borrow)]
    emdb_namespace: std::borrow::Cow<'a, str>,
}

impl<'w> Writer<'w> {
    /// A writer on `out`; writes the header `ECHO`.
    pub fn new(out: &'w mut dyn Write, codec: Codec, plan: &Plan) -> ToolResult<Self> {
        let header = super::header_json(plan)?;
        let mut w = Writer {
            out,
            codec,
            ns: String::new(),
            scratch: Vec::new(),
        };
        w.command(&[b"ECHO", &header]).map_err(write_error)?;
        Ok(w)
    }

    fn command(&mut self, parts: &[&[u8]]) -> std::io::Result<()> {
        write!(self.out, "*{}\r\n", parts.len())?;
        for part in parts {
            write!(self.out, "${}\r\n", part.len())?;
            self.out.write_all(part)?;
            self.out.write_all(b"\r\n")?;
        }
        Ok(())
    }
}

fn write_error(e: std::io::Error) -> ToolError {
    ToolError::io("writing the export", None, e)
}

fn encode_into(enc: Encoding, bytes: &[u8], out: &mut Vec<u8>) {
    match enc {
        Encoding::Text => out.extend_from_slice(bytes),
        Encoding::Hex => out.extend_from_slice(hex(bytes).as_bytes()),
        Encoding::Base64 => out.extend_from_slice(base64(bytes).as_bytes()),
    }
}

impl RecordWriter for Writer<'_> {
    fn record(
        &mut self,
        ns: &str,
        key: &[u8],
        value: &[u8],
        expires_at_ms: Option<u64>,
    ) -> ToolResult {
        if ns != self.ns {
            let marker = serde_json::to_vec(&Marker {
                emdb_namespace: ns.into(),
            })
            .map_err(|e| ToolError::bad_input(format!("cannot encode JSON: {e}")))?;
            self.command(&[b"ECHO", &marker]).map_err(write_error)?;
            self.ns = ns.to_string();
        }
        let mut k = std::mem::take(&mut self.scratch);
        k.clear();
        if !ns.is_empty() {
            k.extend_from_slice(ns.as_bytes());
            k.push(b':');
        }
        encode_into(self.codec.key, key, &mut k);
        let encoded_value;
        let v = match self.codec.value {
            Encoding::Text => value,
            enc => {
                let mut buf = Vec::new();
                encode_into(enc, value, &mut buf);
                encoded_value = buf;
                &encoded_value
            }
        };
        let written = match expires_at_ms {
            None => self.command(&[b"SET", &k, v]),
            Some(at) => self.command(&[
                b"SET",
                &k,
                v,
                b"PXAT",
                redis_expiry(at).to_string().as_bytes(),
            ]),
        };
        self.scratch = k;
        written.map_err(write_error)
    }

    fn finish(&mut self) -> ToolResult {
        self.out.flush().map_err(write_error)
    }
}

/// Reads `SET` and `ECHO` commands.
pub struct Reader<'r> {
    input: Box<dyn BufRead + 'r>,
    codec: Codec,
    /// The line the next byte is on (1-based).
    line: u64,
    /// The namespace set by the last marker (`None`: the default).
    ns: Option<String>,
    /// The namespace of the last `SELECT` (`None`: database 0).
    selected: Option<String>,
    /// Items of a command that yields several (`MSET`, `DEL`).
    pending: VecDeque<Item>,
    /// Whether the last protocol line ended with `\r\n` (not just `\n`).
    crlf: bool,
    failed: bool,
}

/// The largest bulk string accepted (a value limit plus base64 growth).
const MAX_BULK: usize = emdb_core::MAX_VALUE_LEN / 3 * 4 + 4;
/// The most parts a command may have (an `MSET` of half a million pairs);
/// memory grows with the bytes that arrive, not with this count.
const MAX_PARTS: usize = 1 << 20;
/// The most a bulk string's buffer starts with; it grows as bytes arrive.
const BULK_PREALLOC: usize = 64 << 10;

/// The furthest expiry Redis holds, in ms since the Unix epoch (its times
/// are signed 64-bit). emdb holds later ones (its expiries are unsigned, and
/// a library caller can set any); what is written for Redis is capped here,
/// which for a time 292 million years away changes nothing anyone sees.
pub const REDIS_MAX_EXPIRY_MS: u64 = i64::MAX as u64;

/// `expires_at_ms` as Redis can be told it ([`REDIS_MAX_EXPIRY_MS`] at most).
pub fn redis_expiry(expires_at_ms: u64) -> u64 {
    expires_at_ms.min(REDIS_MAX_EXPIRY_MS)
}

/// The absolute expiry (ms since the epoch) of a Redis expiry argument `n`
/// given with `command` (`EX`, `PX`, `EXAT`, `PXAT`, `EXPIRE`, `PEXPIRE`,
/// `EXPIREAT`, `PEXPIREAT`), refused where Redis refuses it: past its
/// signed 64-bit milliseconds, or 0 for `SET`'s `EX` and `PX` (a duration
/// of nothing). `EXAT 0` and `PXAT 0` are a time long past, which the
/// import takes as such (emdb's own export could write one).
fn redis_expiry_arg(command: &[u8], n: u64) -> Result<u64, String> {
    let invalid = || {
        format!(
            "{} {n} is an invalid expire time (Redis refuses it too)",
            String::from_utf8_lossy(command)
        )
    };
    if matches!(command, b"EX" | b"PX") && n == 0 {
        return Err(invalid());
    }
    let ms = match command {
        b"EX" | b"EXAT" | b"EXPIRE" | b"EXPIREAT" => n.checked_mul(1000),
        _ => Some(n),
    }
    .filter(|&ms| ms <= REDIS_MAX_EXPIRY_MS)
    .ok_or_else(invalid)?;
    match command {
        b"EX" | b"PX" | b"EXPIRE" | b"PEXPIRE" => now_ms()
            .checked_add(ms)
            .filter(|&at| at <= REDIS_MAX_EXPIRY_MS)
            .ok_or_else(invalid),
        _ => Ok(ms),
    }
}

/// A decimal number of ASCII digits only (no sign, no spaces), as RESP
/// lengths and `SET` expiry arguments are written.
fn decimal<T: std::str::FromStr>(digits: &[u8]) -> Option<T> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

impl<'r> Reader<'r> {
    /// A reader over `input`.
    pub fn new(input: Box<dyn BufRead + 'r>, codec: Codec) -> Self {
        Reader {
            input,
            codec,
            line: 1,
            ns: None,
            selected: None,
            pending: VecDeque::new(),
            crlf: true,
            failed: false,
        }
    }

    /// One `\r\n`-terminated protocol line, without the terminator; `None`
    /// at the end of the input.
    fn header_line(&mut self) -> ToolResult<Option<Vec<u8>>> {
        let mut buf = Vec::new();
        let n = self
            .input
            .read_until(b'\n', &mut buf)
            .map_err(|e| ToolError::io("reading the import", None, e))?;
        if n == 0 {
            return Ok(None);
        }
        self.crlf = buf.ends_with(b"\r\n");
        if !buf.ends_with(b"\n") {
            return Err(self.bad("the last line does not end with \\r\\n"));
        }
        self.line += 1;
        buf.truncate(buf.len() - if self.crlf { 2 } else { 1 });
        Ok(Some(buf))
    }

    /// The protocol lines of arrays and bulk strings end with `\r\n`.
    fn require_crlf(&self) -> ToolResult {
        if self.crlf {
            Ok(())
        } else {
            Err(self.bad_at(self.line - 1, "a line does not end with \\r\\n"))
        }
    }

    fn bad(&self, what: impl std::fmt::Display) -> ToolError {
        self.bad_at(self.line, what)
    }

    fn bad_at(&self, line: u64, what: impl std::fmt::Display) -> ToolError {
        ToolError::bad_input(format!("line {line}: {what}")).hint(
            "the input must be Redis commands (SET, MSET, DEL, EXPIRE, SELECT, ...) as RESP arrays or inline lines",
        )
    }

    /// Parse `<sigil><digits>` from the protocol line just read. Digits
    /// only, as Redis reads them: no sign, no spaces.
    fn number(&self, line: &[u8], sigil: u8, what: &str) -> ToolResult<usize> {
        let at = self.line - 1;
        match line.split_first() {
            Some((&s, digits)) if s == sigil => decimal(digits).ok_or_else(|| {
                self.bad_at(
                    at,
                    format!("bad {what} {:?}", String::from_utf8_lossy(line)),
                )
            }),
            _ => Err(self.bad_at(
                at,
                format!(
                    "expected {what} starting with `{}`, found {:?}",
                    char::from(sigil),
                    String::from_utf8_lossy(line)
                ),
            )),
        }
    }

    fn bulk(&mut self) -> ToolResult<Vec<u8>> {
        let head = self
            .header_line()?
            .ok_or_else(|| self.bad("the input ends inside a command"))?;
        let len = self.number(&head, b'$', "bulk string length")?;
        self.require_crlf()?;
        if len > MAX_BULK {
            return Err(self.bad(format!("a {len}-byte string is past the value size limit")));
        }
        // Grow with the bytes that arrive, not with the declared length: a
        // `$300000000` at the end of a short input must not allocate 300 MB.
        let want = len + 2;
        let mut data = Vec::with_capacity(want.min(BULK_PREALLOC));
        (&mut self.input)
            .take(want as u64)
            .read_to_end(&mut data)
            .map_err(|e| ToolError::io("reading the import", None, e))?;
        if data.len() < want {
            return Err(self.bad("the input ends inside a string"));
        }
        if !data.ends_with(b"\r\n") {
            return Err(self.bad(format!("a {len}-byte string is not followed by \\r\\n")));
        }
        data.truncate(len);
        self.line += 1 + data.iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(data)
    }

    /// The line the next command starts on and its parts (an array, or an
    /// inline line); `None` at the end of the input.
    fn command(&mut self) -> ToolResult<Option<(u64, Vec<Vec<u8>>)>> {
        loop {
            let line = self.line;
            let Some(head) = self.header_line()? else {
                return Ok(None);
            };
            if !head.starts_with(b"*") {
                let parts = split_inline(&head).map_err(|e| self.bad_at(line, e))?;
                if parts.is_empty() {
                    continue;
                }
                return Ok(Some((line, parts)));
            }
            self.require_crlf()?;
            let count = self.number(&head, b'*', "array header")?;
            if count == 0 || count > MAX_PARTS {
                return Err(self.bad_at(line, format!("a command of {count} parts")));
            }
            let mut parts = Vec::with_capacity(count.min(64));
            for _ in 0..count {
                parts.push(self.bulk()?);
            }
            return Ok(Some((line, parts)));
        }
    }

    fn next_item(&mut self) -> ToolResult<Option<Item>> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Ok(Some(item));
            }
            let Some((line, parts)) = self.command()? else {
                return Ok(None);
            };
            let bad = |what: String| ToolError::bad_input(format!("line {line}: {what}"));
            let name = parts[0].to_ascii_uppercase();
            match &name[..] {
                b"ECHO" => {
                    if let Some(item) = self
                        .echo(&parts)
                        .map_err(|e| e.context(format!("line {line}")))?
                    {
                        return Ok(Some(item));
                    }
                }
                b"SET" => return self.set(&parts, line).map(Some),
                b"MSET" => {
                    if parts.len() < 3 || parts.len() % 2 == 0 {
                        return Err(bad("MSET takes key value pairs".into()));
                    }
                    for pair in parts[1..].chunks_exact(2) {
                        let entry = self.entry(&pair[0], &pair[1], None, line)?;
                        self.pending.push_back(Item::Record(entry));
                    }
                }
                b"DEL" => {
                    if parts.len() < 2 {
                        return Err(bad("DEL takes at least one key".into()));
                    }
                    for raw in &parts[1..] {
                        let (ns, key) = self.key(raw, line)?;
                        self.pending
                            .push_back(Item::Command(Command::Delete { ns, key, line }));
                    }
                }
                b"EXPIRE" | b"PEXPIRE" | b"EXPIREAT" | b"PEXPIREAT" => {
                    let [_, raw, n] = &parts[..] else {
                        return Err(bad(format!(
                            "{} takes a key and a number (its NX, XX, GT and LT options are not supported)",
                            String::from_utf8_lossy(&name)
                        )));
                    };
                    let not_a_number =
                        || bad(format!("{:?} is not a number", String::from_utf8_lossy(n)));
                    let expires_at_ms = match n.strip_prefix(b"-") {
                        // Negative: a time already past, so the key is
                        // deleted, as Redis does.
                        Some(digits) => {
                            decimal::<u64>(digits).ok_or_else(not_a_number)?;
                            1
                        }
                        None => {
                            let n: u64 = decimal(n).ok_or_else(not_a_number)?;
                            redis_expiry_arg(&name, n).map_err(bad)?
                        }
                    };
                    let (ns, key) = self.key(raw, line)?;
                    return Ok(Some(Item::Command(Command::Expire {
                        ns,
                        key,
                        expires_at_ms,
                        line,
                    })));
                }
                b"SELECT" => {
                    let [_, n] = &parts[..] else {
                        return Err(bad("SELECT takes a database number".into()));
                    };
                    let n: u64 = decimal(n).ok_or_else(|| {
                        bad(format!(
                            "SELECT {:?}: not a database number",
                            String::from_utf8_lossy(n)
                        ))
                    })?;
                    self.selected = (n > 0).then(|| format!("db{n}"));
                    self.ns = None;
                }
                _ => {
                    return Err(bad(format!(
                        "{:?} cannot be imported (SET, MSET, DEL, EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, SELECT and ECHO can)",
                        String::from_utf8_lossy(&parts[0])
                    )))
                }
            }
        }
    }

    /// `SET key value [EX|PX|EXAT|PXAT n] [NX] [KEEPTTL]`.
    fn set(&mut self, parts: &[Vec<u8>], line: u64) -> ToolResult<Item> {
        let bad = |what: String| ToolError::bad_input(format!("line {line}: {what}"));
        if parts.len() < 3 {
            return Err(bad("SET takes a key and a value".into()));
        }
        let (mut expires_at_ms, mut nx, mut keep_ttl) = (None, false, false);
        let mut i = 3;
        while i < parts.len() {
            let option = parts[i].to_ascii_uppercase();
            match &option[..] {
                b"NX" => nx = true,
                b"KEEPTTL" => keep_ttl = true,
                b"EX" | b"PX" | b"EXAT" | b"PXAT" => {
                    let n = parts.get(i + 1).ok_or_else(|| {
                        bad(format!(
                            "SET {} needs a number",
                            String::from_utf8_lossy(&option)
                        ))
                    })?;
                    if expires_at_ms.is_some() {
                        return Err(bad("SET takes at most one of EX, PX, EXAT, PXAT".into()));
                    }
                    expires_at_ms = Some(expiry(&option, n).map_err(bad)?);
                    i += 1;
                }
                _ => {
                    return Err(bad(format!(
                        "SET option {:?} is not supported (only EX, PX, EXAT, PXAT, NX, KEEPTTL)",
                        String::from_utf8_lossy(&parts[i])
                    )))
                }
            }
            i += 1;
        }
        if keep_ttl && expires_at_ms.is_some() {
            return Err(bad("SET with KEEPTTL cannot also set an expiry".into()));
        }
        let entry = self.entry(&parts[1], &parts[2], expires_at_ms, line)?;
        Ok(if nx {
            Item::Command(Command::SetIfAbsent(entry))
        } else if keep_ttl {
            Item::Command(Command::SetKeepTtl(entry))
        } else {
            Item::Record(entry)
        })
    }

    /// The namespace and decoded key of a key as written: under a namespace
    /// marker without its `<namespace>:` prefix, else in the namespace of
    /// the last `SELECT`.
    fn key(&self, raw: &[u8], line: u64) -> ToolResult<(Option<String>, Vec<u8>)> {
        let mut raw_key = raw;
        if let Some(ns) = &self.ns {
            raw_key = raw_key
                .strip_prefix(ns.as_bytes())
                .and_then(|k| k.strip_prefix(b":"))
                .ok_or_else(|| {
                    let ns = escape_text(ns.as_bytes(), Layout::Field);
                    ToolError::bad_input(format!(
                        "line {line}: the key of a record in namespace \"{ns}\" must start with \"{ns}:\""
                    ))
                })?;
        }
        let key =
            decode(self.codec.key, raw_key).map_err(|e| e.context(format!("line {line}: key")))?;
        Ok((self.ns.clone().or_else(|| self.selected.clone()), key))
    }

    fn entry(
        &self,
        raw_key: &[u8],
        raw_value: &[u8],
        expires_at_ms: Option<u64>,
        line: u64,
    ) -> ToolResult<Entry> {
        let (ns, key) = self.key(raw_key, line)?;
        let value = decode(self.codec.value, raw_value)
            .map_err(|e| e.context(format!("line {line}: value")))?;
        Ok(Entry {
            ns,
            key,
            value,
            expires_at_ms,
            line,
        })
    }

    /// An `ECHO`: the export header, a namespace marker, or anything else
    /// (ignored, as Redis would only echo it).
    fn echo(&mut self, parts: &[Vec<u8>]) -> ToolResult<Option<Item>> {
        let [_, text] = parts else {
            return Err(ToolError::bad_input("ECHO takes one argument"));
        };
        if is_header(text) {
            return parse_header(text).map(|h| Some(Item::Header(h)));
        }
        if let Ok(marker) = serde_json::from_slice::<Marker<'_>>(text) {
            self.ns = namespace_field(&marker.emdb_namespace)?;
        }
        Ok(None)
    }
}

/// The arguments of an inline command, as redis-cli splits them:
/// whitespace between arguments, `"..."` with backslash escapes (`\\n`,
/// `\\r`, `\\t`, `\\b`, `\\a`, `\\xHH`, `\\\\`, `\\"`), `'...'` with `\\'`.
fn split_inline(line: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let mut parts = Vec::new();
    let mut i = 0;
    loop {
        while line.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        let Some(&first) = line.get(i) else {
            return Ok(parts);
        };
        let mut arg = Vec::new();
        match first {
            b'"' | b'\'' => {
                i += 1;
                loop {
                    let c = *line
                        .get(i)
                        .ok_or("unbalanced quotes in an inline command")?;
                    i += 1;
                    if c == first {
                        break;
                    }
                    if c != b'\\' {
                        arg.push(c);
                        continue;
                    }
                    let e = *line
                        .get(i)
                        .ok_or("unbalanced quotes in an inline command")?;
                    i += 1;
                    if first == b'\'' {
                        if e != b'\'' {
                            arg.push(b'\\');
                        }
                        arg.push(e);
                        continue;
                    }
                    arg.push(match e {
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'b' => 8,
                        b'a' => 7,
                        b'x' => {
                            let hex = line.get(i..i + 2).ok_or("a bad \\x escape")?;
                            i += 2;
                            std::str::from_utf8(hex)
                                .ok()
                                .and_then(|h| u8::from_str_radix(h, 16).ok())
                                .ok_or("a bad \\x escape")?
                        }
                        other => other,
                    });
                }
                if line.get(i).is_some_and(|c| !c.is_ascii_whitespace()) {
                    return Err("a closing quote must be followed by a space".into());
                }
            }
            _ => {
                while let Some(&c) = line.get(i).filter(|c| !c.is_ascii_whitespace()) {
                    arg.push(c);
                    i += 1;
                }
            }
        }
        parts.push(arg);
    }
}

/// The absolute expiry of `SET ... <option> <n>` (`option` upper-case).
fn expiry(option: &[u8], n: &[u8]) -> Result<u64, String> {
    let n: u64 =
        decimal(n).ok_or_else(|| format!("{:?} is not a number", String::from_utf8_lossy(n)))?;
    redis_expiry_arg(option, n)
}

impl Iterator for Reader<'_> {
    type Item = ToolResult<Item>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.next_item().transpose();
        self.failed = matches!(item, Some(Err(_)));
        item
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> ToolResult<Vec<Entry>> {
        let items: Vec<Item> =
            Reader::new(Box::new(bytes), Codec::default()).collect::<ToolResult<_>>()?;
        Ok(items
            .into_iter()
            .filter_map(|i| match i {
                Item::Record(e) => Some(e),
                Item::Header(_) | Item::Command(_) => None,
            })
            .collect())
    }

    fn items(bytes: &[u8]) -> ToolResult<Vec<Item>> {
        Reader::new(Box::new(bytes), Codec::default()).collect()
    }

    #[test]
    fn redis_cli_commands_inline_and_in_arrays() {
        let got = items(
            b"SELECT 0\nSET a 1 NX\r\nset 'b c' \"x\\ty\\x41\" KEEPTTL\n\n\
              *5\r\n$4\r\nMSET\r\n$1\r\nd\r\n$1\r\n4\r\n$1\r\ne\r\n$1\r\n5\r\n\
              DEL a d\nPEXPIREAT e 99\nEXPIREAT e 7\nSELECT 3\nSET f 6 PX 1000\n",
        )
        .unwrap();
        let entry = |ns: Option<&str>, key: &[u8], value: &[u8], line: u64| Entry {
            ns: ns.map(str::to_owned),
            key: key.to_vec(),
            value: value.to_vec(),
            expires_at_ms: None,
            line,
        };
        assert_eq!(
            got[0],
            Item::Command(Command::SetIfAbsent(entry(None, b"a", b"1", 2)))
        );
        assert_eq!(
            got[1],
            Item::Command(Command::SetKeepTtl(entry(None, b"b c", b"x\tyA", 3)))
        );
        assert_eq!(got[2], Item::Record(entry(None, b"d", b"4", 5)));
        assert_eq!(got[3], Item::Record(entry(None, b"e", b"5", 5)));
        assert!(
            matches!(&got[4], Item::Command(Command::Delete { key, line: 16, .. }) if key == b"a")
        );
        assert!(matches!(&got[5], Item::Command(Command::Delete { key, .. }) if key == b"d"));
        assert!(matches!(
            &got[6],
            Item::Command(Command::Expire {
                expires_at_ms: 99,
                ..
            })
        ));
        assert!(matches!(
            &got[7],
            Item::Command(Command::Expire {
                expires_at_ms: 7000,
                ..
            })
        ));
        let Item::Record(f) = &got[8] else {
            panic!("{:?}", got[8])
        };
        assert_eq!(f.ns.as_deref(), Some("db3"));
        assert!(f.expires_at_ms.is_some());
        assert_eq!(got.len(), 9);
        let e = items(b"SET a 1 KEEPTTL EX 5\n").unwrap_err();
        assert!(e.message.contains("KEEPTTL"), "{}", e.message);
        let e = items(b"SET 'a 1\n").unwrap_err();
        assert!(e.message.contains("unbalanced quotes"), "{}", e.message);
        let e = items(b"HSET h f v\n").unwrap_err();
        assert!(
            e.message.starts_with("line 1: \"HSET\" cannot be imported"),
            "{}",
            e.message
        );
        let e = items(b"EXPIRE a 5 NX\n").unwrap_err();
        assert!(e.message.contains("not supported"), "{}", e.message);
        // A negative expiry is a time already past (Redis deletes the key);
        // a minus sign alone is still not a number.
        for cmd in [
            "EXPIRE a -5",
            "PEXPIRE a -1",
            "EXPIREAT a -3",
            "PEXPIREAT a -9",
        ] {
            let got = items(format!("{cmd}\n").as_bytes()).unwrap();
            assert!(
                matches!(
                    &got[..],
                    [Item::Command(Command::Expire {
                        expires_at_ms: 1,
                        ..
                    })]
                ),
                "{cmd}: {got:?}"
            );
        }
        for bad in ["EXPIRE a -", "EXPIRE a -x", "EXPIRE a --5"] {
            let e = items(format!("{bad}\n").as_bytes()).unwrap_err();
            assert!(
                e.message.contains("is not a number"),
                "{bad}: {}",
                e.message
            );
        }
    }

    #[test]
    fn parses_set_commands() {
        let rows = read(
            b"*3\r\n$3\r\nset\r\n$1\r\na\r\n$3\r\nx\ny\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$0\r\n\r\n",
        )
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].value, b"x\ny");
        assert_eq!(rows[1].line, 9);
        assert_eq!(rows[1].value, b"");
    }

    #[test]
    fn expiry_options_and_namespace_markers() {
        let rows = read(
            b"*5\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n$2\r\nex\r\n$2\r\n10\r\n\
              *2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n\
              *2\r\n$4\r\nECHO\r\n$23\r\n{\"emdb_namespace\":\"ns\"}\r\n\
              *5\r\n$3\r\nSET\r\n$5\r\nns:ns\r\n$1\r\n2\r\n$4\r\nPXAT\r\n$3\r\n123\r\n",
        )
        .unwrap();
        let now = now_ms();
        let a = rows[0].expires_at_ms.unwrap();
        assert!(a > now + 9_000 && a <= now + 10_000, "{a} {now}");
        assert_eq!(rows[1].ns.as_deref(), Some("ns"));
        assert_eq!(rows[1].key, b"ns");
        assert_eq!(rows[1].expires_at_ms, Some(123));
        let e = read(
            b"*2\r\n$4\r\nECHO\r\n$23\r\n{\"emdb_namespace\":\"ns\"}\r\n\
              *3\r\n$3\r\nSET\r\n$3\r\nx:y\r\n$1\r\n2\r\n",
        )
        .unwrap_err();
        assert!(
            e.message.contains("must start with \"ns:\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn errors_name_the_line() {
        let e = read(b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n*2\r\n$3\r\nGET\r\n$1\r\na\r\n")
            .unwrap_err();
        assert!(e.message.starts_with("line 8:"), "{}", e.message);
        let e = read(b"SET a\r\n").unwrap_err();
        assert!(e.message.starts_with("line 1:"), "{}", e.message);
        let e = read(b"*3\n$3\nSET\n$1\na\n$1\nb\n").unwrap_err();
        assert!(e.message.contains("\\r\\n"), "{}", e.message);
        let e = read(b"*3\r\n$3\r\nSET\r\n$5\r\nab\r\n").unwrap_err();
        assert_eq!(e.kind.exit_code(), 7);
        let e =
            read(b"*5\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n$2\r\nNX\r\n$2\r\n10\r\n").unwrap_err();
        assert!(e.message.contains("not supported"), "{}", e.message);
    }

    /// A reader that remembers the largest buffer it was asked to fill.
    struct Probe<'a> {
        data: &'a [u8],
        largest: std::rc::Rc<std::cell::Cell<usize>>,
    }

    impl Read for Probe<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.largest.set(self.largest.get().max(buf.len()));
            self.data.read(buf)
        }
    }

    impl BufRead for Probe<'_> {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            Ok(self.data)
        }
        fn consume(&mut self, n: usize) {
            self.data = &self.data[n..];
        }
    }

    #[test]
    fn declared_lengths_are_not_allocated_up_front() {
        // Found by the import_resp fuzz target: the string's buffer was
        // sized by its declared length (358 MB for a 40-byte input).
        let largest = std::rc::Rc::default();
        let input = Probe {
            data: b"*3\r\n$3\r\nSET\r\n$357913944\r\nab",
            largest: std::rc::Rc::clone(&largest),
        };
        let e = Reader::new(Box::new(input), Codec::default())
            .collect::<ToolResult<Vec<_>>>()
            .unwrap_err();
        assert!(e.message.contains("ends inside a string"), "{}", e.message);
        assert!(
            largest.get() <= BULK_PREALLOC,
            "read into {} bytes",
            largest.get()
        );
        let e = read(b"*3\r\n$3\r\nSET\r\n$999999999999\r\nab").unwrap_err();
        assert!(
            e.message.contains("past the value size limit"),
            "{}",
            e.message
        );
    }

    #[test]
    fn numbers_are_digits_only() {
        // Found by the import_resp fuzz target: lengths, part counts and
        // expiries took a `+` sign (Rust's integer parsing; Redis refuses).
        for (bad, message) in [
            (
                &b"*+3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n"[..],
                r#"line 1: bad array header "*+3""#,
            ),
            (
                b"*3\r\n$+3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n",
                r#"line 2: bad bulk string length "$+3""#,
            ),
            (
                b"*3\r\n$ 3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n",
                r#"line 2: bad bulk string length "$ 3""#,
            ),
            (
                b"*5\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n$4\r\nPXAT\r\n$2\r\n+5\r\n",
                r#"line 1: "+5" is not a number"#,
            ),
        ] {
            assert_eq!(read(bad).unwrap_err().message, message);
        }
        let rows =
            read(b"*5\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n$4\r\nPXAT\r\n$2\r\n05\r\n").unwrap();
        assert_eq!(rows[0].expires_at_ms, Some(5));
    }

    #[test]
    fn a_namespace_named_emdb_export_round_trips() {
        // Found by the import_resp fuzz target: the marker of a namespace
        // named `emdb_export` was taken for the export header.
        let plan = Plan {
            namespaces: vec![String::new(), "emdb_export".into()],
            encrypted: false,
            any_expiry: false,
        };
        let mut out = Vec::new();
        {
            let mut w = Writer::new(&mut out, Codec::default(), &plan).unwrap();
            w.record("emdb_export", b"k", b"v", None).unwrap();
            w.finish().unwrap();
        }
        let rows = read(&out).unwrap();
        assert_eq!(rows[0].ns.as_deref(), Some("emdb_export"));
        assert_eq!(rows[0].key, b"k");
        // A damaged header is still reported as one.
        let e = read(b"*2\r\n$4\r\nECHO\r\n$15\r\n{\"emdb_export\":\r\n").unwrap_err();
        assert!(e.message.contains("export header"), "{}", e.message);
    }

    /// Expiries Redis refuses are refused here too, naming the line: a
    /// `SET` option of 0, and anything past its signed 64-bit milliseconds
    /// (before, `EX 99999999999999999` saturated to `u64::MAX`, which no
    /// Redis takes back). The furthest one Redis holds is accepted, and
    /// what is written for Redis is capped at it.
    #[test]
    fn expiries_redis_refuses_are_refused() {
        for bad in [
            "SET k v EX 0",
            "SET k v PX 0",
            "SET k v EX 99999999999999999",
            "SET k v EX 9223372036854776",
            "SET k v PX 9223372036854775807",
            "SET k v EXAT 9223372036854776",
            "SET k v PXAT 9223372036854775808",
            "EXPIRE k 99999999999999999",
            "PEXPIRE k 9223372036854775807",
            "EXPIREAT k 9223372036854776",
            "PEXPIREAT k 9223372036854775808",
        ] {
            let e = items(format!("SET a 1\n{bad}\n").as_bytes()).unwrap_err();
            assert!(
                e.message.starts_with("line 2: ") && e.message.contains("invalid expire time"),
                "{bad}: {}",
                e.message
            );
        }
        let rows =
            read(b"SET k v PXAT 9223372036854775807\nSET j v EXAT 9223372036854775\n").unwrap();
        assert_eq!(rows[0].expires_at_ms, Some(i64::MAX as u64));
        assert_eq!(rows[1].expires_at_ms, Some(9_223_372_036_854_775_000));
        // An EXPIRE of 0 is a time already past (the key is deleted).
        let got = items(b"EXPIRE k 0\n").unwrap();
        assert!(
            matches!(&got[..], [Item::Command(Command::Expire { expires_at_ms, .. })] if *expires_at_ms <= now_ms()),
            "{got:?}"
        );
        let plan = Plan {
            namespaces: vec![String::new()],
            encrypted: false,
            any_expiry: true,
        };
        let mut out = Vec::new();
        {
            let mut w = Writer::new(&mut out, Codec::default(), &plan).unwrap();
            w.record("", b"k", b"v", Some(u64::MAX)).unwrap();
            w.finish().unwrap();
        }
        let rows = read(&out).unwrap();
        assert_eq!(rows[0].expires_at_ms, Some(i64::MAX as u64));
    }
}
