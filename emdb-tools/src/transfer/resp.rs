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
//! Import accepts `SET key value` with at most one of `PXAT`, `PX`, `EXAT`,
//! `EX`, and `ECHO`; any other command is refused.

use std::io::{BufRead, Read, Write};

use super::{is_header, namespace_field, parse_header, Entry, Item, Plan, RecordWriter};
use crate::encoding::Encoding;
use crate::encoding::{base64, decode, hex, Codec};
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
            Some(at) => self.command(&[b"SET", &k, v, b"PXAT", at.to_string().as_bytes()]),
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
    failed: bool,
}

/// The largest bulk string accepted (a value limit plus base64 growth).
const MAX_BULK: usize = emdb_core::MAX_VALUE_LEN / 3 * 4 + 4;
/// The most parts a command may have (`SET k v PXAT ms`).
const MAX_PARTS: usize = 5;
/// The most a bulk string's buffer starts with; it grows as bytes arrive.
const BULK_PREALLOC: usize = 64 << 10;

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
        if !buf.ends_with(b"\r\n") {
            return Err(self.bad("a line does not end with \\r\\n"));
        }
        self.line += 1;
        buf.truncate(buf.len() - 2);
        Ok(Some(buf))
    }

    fn bad(&self, what: impl std::fmt::Display) -> ToolError {
        self.bad_at(self.line, what)
    }

    fn bad_at(&self, line: u64, what: impl std::fmt::Display) -> ToolError {
        ToolError::bad_input(format!("line {line}: {what}")).hint(
            "the input must be RESP `SET key value [PXAT ms]` commands, as `emdb export --format resp` writes",
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

    fn next_item(&mut self) -> ToolResult<Option<Item>> {
        loop {
            let line = self.line;
            let Some(head) = self.header_line()? else {
                return Ok(None);
            };
            let count = self.number(&head, b'*', "array header")?;
            if count == 0 || count > MAX_PARTS {
                return Err(self.bad_at(line, format!("a command of {count} parts")));
            }
            let mut parts = Vec::with_capacity(count);
            for _ in 0..count {
                parts.push(self.bulk()?);
            }
            let bad = |what: String| ToolError::bad_input(format!("line {line}: {what}"));
            if parts[0].eq_ignore_ascii_case(b"ECHO") {
                if let Some(item) = self
                    .echo(&parts)
                    .map_err(|e| e.context(format!("line {line}")))?
                {
                    return Ok(Some(item));
                }
                continue;
            }
            if !parts[0].eq_ignore_ascii_case(b"SET") {
                return Err(bad(format!(
                    "only SET and ECHO commands can be imported, found {:?}",
                    String::from_utf8_lossy(&parts[0])
                )));
            }
            let expires_at_ms = match count {
                3 => None,
                5 => Some(expiry(&parts[3], &parts[4]).map_err(bad)?),
                _ => {
                    return Err(bad(
                        "SET takes a key, a value and at most one of PXAT, PX, EXAT, EX".into(),
                    ))
                }
            };
            let mut raw_key = &parts[1][..];
            if let Some(ns) = &self.ns {
                raw_key = raw_key
                    .strip_prefix(ns.as_bytes())
                    .and_then(|k| k.strip_prefix(b":"))
                    .ok_or_else(|| {
                        bad(format!(
                            "the key of a record in namespace {ns:?} must start with \"{ns}:\""
                        ))
                    })?;
            }
            let key = decode(self.codec.key, raw_key)
                .map_err(|e| e.context(format!("line {line}: key")))?;
            let value = decode(self.codec.value, &parts[2])
                .map_err(|e| e.context(format!("line {line}: value")))?;
            return Ok(Some(Item::Record(Entry {
                ns: self.ns.clone(),
                key,
                value,
                expires_at_ms,
                line,
            })));
        }
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

/// The absolute expiry of `SET ... <option> <n>`.
fn expiry(option: &[u8], n: &[u8]) -> Result<u64, String> {
    let n: u64 =
        decimal(n).ok_or_else(|| format!("{:?} is not a number", String::from_utf8_lossy(n)))?;
    let upper = option.to_ascii_uppercase();
    match &upper[..] {
        b"PXAT" => Ok(n),
        b"EXAT" => Ok(n.saturating_mul(1000)),
        b"PX" => Ok(now_ms().saturating_add(n)),
        b"EX" => Ok(now_ms().saturating_add(n.saturating_mul(1000))),
        _ => Err(format!(
            "SET option {:?} is not supported (only PXAT, PX, EXAT, EX)",
            String::from_utf8_lossy(option)
        )),
    }
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
                Item::Header(_) => None,
            })
            .collect())
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
        let e = read(b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n*2\r\n$3\r\nDEL\r\n$1\r\na\r\n")
            .unwrap_err();
        assert!(e.message.starts_with("line 8:"), "{}", e.message);
        let e = read(b"SET a b\r\n").unwrap_err();
        assert!(e.message.starts_with("line 1:"), "{}", e.message);
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
}
