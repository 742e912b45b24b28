//! The Redis protocol: one `SET key value` command per record, as RESP
//! arrays of bulk strings, so `emdb export --format resp | redis-cli --pipe`
//! loads a database into Redis. Bulk strings carry any bytes; with
//! `--hex`/`--base64` the encoded text is sent instead (and decoded again on
//! import), as RESP has no place to say which encoding was used.

use std::io::{BufRead, Read, Write};

use super::{Entry, RecordWriter};
use crate::cli::Encoding;
use crate::encoding::{base64, decode, hex, Codec};
use crate::error::{CliError, CliResult};

/// Writes `SET` commands.
pub struct Writer<'w> {
    out: &'w mut dyn Write,
    codec: Codec,
}

impl<'w> Writer<'w> {
    /// A writer on `out` (RESP has no header).
    pub fn new(out: &'w mut dyn Write, codec: Codec) -> Self {
        Writer { out, codec }
    }

    fn bulk(&mut self, enc: Encoding, bytes: &[u8]) -> std::io::Result<()> {
        let encoded;
        let bytes = match enc {
            Encoding::Text => bytes,
            Encoding::Hex => {
                encoded = hex(bytes);
                encoded.as_bytes()
            }
            Encoding::Base64 => {
                encoded = base64(bytes);
                encoded.as_bytes()
            }
        };
        write!(self.out, "${}\r\n", bytes.len())?;
        self.out.write_all(bytes)?;
        self.out.write_all(b"\r\n")
    }
}

impl RecordWriter for Writer<'_> {
    fn record(&mut self, key: &[u8], value: &[u8]) -> CliResult {
        let (kenc, venc) = (self.codec.key, self.codec.value);
        self.out
            .write_all(b"*3\r\n$3\r\nSET\r\n")
            .and_then(|_| self.bulk(kenc, key))
            .and_then(|_| self.bulk(venc, value))
            .map_err(|e| CliError::io("writing the export", None, e))
    }

    fn finish(&mut self) -> CliResult {
        self.out
            .flush()
            .map_err(|e| CliError::io("writing the export", None, e))
    }
}

/// Reads `SET key value` commands.
pub struct Reader<'r> {
    input: Box<dyn BufRead + 'r>,
    codec: Codec,
    /// The line the next byte is on (1-based).
    line: u64,
    failed: bool,
}

/// The largest bulk string accepted (a value limit plus base64 growth).
const MAX_BULK: usize = emdb_core::MAX_VALUE_LEN / 3 * 4 + 4;

impl<'r> Reader<'r> {
    /// A reader over `input`.
    pub fn new(input: Box<dyn BufRead + 'r>, codec: Codec) -> Self {
        Reader {
            input,
            codec,
            line: 1,
            failed: false,
        }
    }

    /// One `\r\n`-terminated protocol line, without the terminator; `None`
    /// at the end of the input.
    fn header_line(&mut self) -> CliResult<Option<Vec<u8>>> {
        let mut buf = Vec::new();
        let n = self
            .input
            .read_until(b'\n', &mut buf)
            .map_err(|e| CliError::io("reading the import", None, e))?;
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

    fn bad(&self, what: impl std::fmt::Display) -> CliError {
        self.bad_at(self.line, what)
    }

    fn bad_at(&self, line: u64, what: impl std::fmt::Display) -> CliError {
        CliError::bad_input(format!("line {line}: {what}"))
            .hint("the input must be RESP `SET key value` commands, as `emdb export --format resp` writes")
    }

    /// Parse `<sigil><digits>` from the protocol line just read.
    fn number(&self, line: &[u8], sigil: u8, what: &str) -> CliResult<usize> {
        let at = self.line - 1;
        match line.split_first() {
            Some((&s, digits)) if s == sigil => std::str::from_utf8(digits)
                .ok()
                .and_then(|d| d.parse().ok())
                .ok_or_else(|| {
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

    fn bulk(&mut self) -> CliResult<Vec<u8>> {
        let head = self
            .header_line()?
            .ok_or_else(|| self.bad("the input ends inside a command"))?;
        let len = self.number(&head, b'$', "bulk string length")?;
        if len > MAX_BULK {
            return Err(self.bad(format!("a {len}-byte string is past the value size limit")));
        }
        let mut data = vec![0; len + 2];
        self.input.read_exact(&mut data).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                self.bad("the input ends inside a string")
            } else {
                CliError::io("reading the import", None, e)
            }
        })?;
        if !data.ends_with(b"\r\n") {
            return Err(self.bad(format!("a {len}-byte string is not followed by \\r\\n")));
        }
        data.truncate(len);
        self.line += 1 + data.iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(data)
    }

    fn next_entry(&mut self) -> CliResult<Option<Entry>> {
        let line = self.line;
        let Some(head) = self.header_line()? else {
            return Ok(None);
        };
        let count = self.number(&head, b'*', "array header")?;
        let mut parts = Vec::with_capacity(count.min(8));
        for _ in 0..count.min(8) {
            parts.push(self.bulk()?);
        }
        match parts.first() {
            Some(cmd) if cmd.eq_ignore_ascii_case(b"SET") => {}
            Some(cmd) => {
                return Err(CliError::bad_input(format!(
                    "line {line}: only SET commands can be imported, found {:?}",
                    String::from_utf8_lossy(cmd)
                )))
            }
            None => return Err(CliError::bad_input(format!("line {line}: empty command"))),
        }
        if count != 3 {
            return Err(CliError::bad_input(format!(
                "line {line}: SET with options (EX, PX, NX, ...) is not supported; expected SET key value"
            )));
        }
        let value = parts.pop().unwrap_or_default();
        let key = parts.pop().unwrap_or_default();
        let key =
            decode(self.codec.key, &key).map_err(|e| e.context(format!("line {line}: key")))?;
        let value = decode(self.codec.value, &value)
            .map_err(|e| e.context(format!("line {line}: value")))?;
        Ok(Some(Entry { key, value, line }))
    }
}

impl Iterator for Reader<'_> {
    type Item = CliResult<Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.next_entry().transpose();
        self.failed = matches!(item, Some(Err(_)));
        item
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> CliResult<Vec<Entry>> {
        Reader::new(Box::new(bytes), Codec::default()).collect()
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
    fn errors_name_the_line() {
        let e = read(b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n*2\r\n$3\r\nDEL\r\n$1\r\na\r\n")
            .unwrap_err();
        assert!(e.message.starts_with("line 8:"), "{}", e.message);
        let e = read(b"SET a b\r\n").unwrap_err();
        assert!(e.message.starts_with("line 1:"), "{}", e.message);
        let e = read(b"*3\r\n$3\r\nSET\r\n$5\r\nab\r\n").unwrap_err();
        assert_eq!(e.kind.exit_code(), 7);
        let e =
            read(b"*5\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n$2\r\nEX\r\n$2\r\n10\r\n").unwrap_err();
        assert!(e.message.contains("options"), "{}", e.message);
    }
}
