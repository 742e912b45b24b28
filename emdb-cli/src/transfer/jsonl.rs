//! JSON Lines: a header line, then one record object per line.
//!
//! ```text
//! {"emdb_export":1,"namespaces":[""],"encrypted":false}
//! {"key":"user:1","value":"james"}
//! {"key":"blob","value":"AAEC","value_encoding":"base64"}
//! ```
//! A field without `*_encoding` is text; on import it is read with the
//! `--key-format`/`--value-format` in force (text by default).

use std::borrow::Cow;
use std::io::{BufRead, Write};

use serde::Deserialize;

use super::{Entry, RecordWriter};
use crate::encoding::{decode_json_field, json_field, Codec};
use crate::error::{CliError, CliResult};
use crate::output::{ExportHeader, Record};

/// The export format version this build writes and reads.
pub const VERSION: u32 = 1;

/// Writes JSON Lines.
pub struct Writer<'w> {
    out: &'w mut dyn Write,
    codec: Codec,
}

impl<'w> Writer<'w> {
    /// Write the header line.
    pub fn new(out: &'w mut dyn Write, codec: Codec) -> CliResult<Self> {
        let header = ExportHeader {
            emdb_export: VERSION,
            namespaces: vec![String::new()],
            encrypted: false,
        };
        let mut w = Writer { out, codec };
        w.line(&header)?;
        Ok(w)
    }

    fn line<T: serde::Serialize>(&mut self, value: &T) -> CliResult {
        serde_json::to_writer(&mut *self.out, value).map_err(json_write_error)?;
        self.out
            .write_all(b"\n")
            .map_err(|e| CliError::io("writing the export", None, e))
    }
}

fn json_write_error(e: serde_json::Error) -> CliError {
    match e.io_error_kind() {
        Some(kind) => CliError::io("writing the export", None, kind.into()),
        None => CliError::bad_input(format!("cannot encode JSON: {e}")),
    }
}

impl RecordWriter for Writer<'_> {
    fn record(&mut self, key: &[u8], value: &[u8]) -> CliResult {
        let (k, key_encoding) = json_field(self.codec.key, key);
        let (v, value_encoding) = json_field(self.codec.value, value);
        let record = Record {
            key: k,
            key_encoding,
            value: Some(v),
            value_encoding,
        };
        self.line(&record)
    }

    fn finish(&mut self) -> CliResult {
        self.out
            .flush()
            .map_err(|e| CliError::io("writing the export", None, e))
    }
}

/// The header line, as read.
#[derive(Debug, Deserialize)]
struct Header {
    emdb_export: u32,
    #[serde(default)]
    namespaces: Vec<String>,
    #[serde(default)]
    encrypted: bool,
}

/// One record line, as read. Unknown fields are refused so that data this
/// build does not understand (TTLs, namespaces) is never silently dropped.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InRecord<'a> {
    #[serde(borrow)]
    key: Cow<'a, str>,
    #[serde(borrow)]
    value: Cow<'a, str>,
    #[serde(default, borrow)]
    key_encoding: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    value_encoding: Option<Cow<'a, str>>,
}

/// Reads JSON Lines; checks the header when the first line is one.
pub struct Reader<'r> {
    input: Box<dyn BufRead + 'r>,
    codec: Codec,
    line: u64,
    buf: Vec<u8>,
    failed: bool,
}

impl<'r> Reader<'r> {
    /// A reader over `input`.
    pub fn new(input: Box<dyn BufRead + 'r>, codec: Codec) -> Self {
        Reader {
            input,
            codec,
            line: 0,
            buf: Vec::new(),
            failed: false,
        }
    }

    fn next_entry(&mut self) -> CliResult<Option<Entry>> {
        loop {
            self.buf.clear();
            let n = self
                .input
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| CliError::io("reading the import", None, e))?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            let line = self.line;
            let text = self.buf.trim_ascii();
            if text.is_empty() {
                continue;
            }
            let at = |e: CliError| e.context(format!("line {line}"));
            if line == 1 && is_header(text) {
                check_header(text).map_err(at)?;
                continue;
            }
            let rec: InRecord<'_> = serde_json::from_slice(text).map_err(|e| {
                at(CliError::bad_input(format!("not a valid record: {}", json_error(&e))).hint(
                    r#"each line must be {"key":"..","value":".."}, optionally with key_encoding/value_encoding"#,
                ))
            })?;
            let key = decode_json_field(&rec.key, rec.key_encoding.as_deref(), self.codec.key)
                .map_err(|e| at(e.context("key")))?;
            let value =
                decode_json_field(&rec.value, rec.value_encoding.as_deref(), self.codec.value)
                    .map_err(|e| at(e.context("value")))?;
            return Ok(Some(Entry { key, value, line }));
        }
    }
}

/// serde_json's message with its position as a column of this line (its
/// own "line 1" would be misleading: each record is parsed alone).
fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let text = text.rfind(" at line ").map_or(&*text, |i| &text[..i]);
    format!("{text} (column {})", e.column())
}

fn is_header(line: &[u8]) -> bool {
    line.windows(13).any(|w| w == b"\"emdb_export\"")
}

fn check_header(line: &[u8]) -> CliResult {
    let header: Header = serde_json::from_slice(line).map_err(|e| {
        CliError::bad_input(format!("not a valid export header: {}", json_error(&e)))
    })?;
    if header.emdb_export != VERSION {
        return Err(CliError::bad_input(format!(
            "export format version {} is not supported (this build reads version {VERSION})",
            header.emdb_export
        ))
        .hint("import it with the emdb version that wrote it, or a newer one"));
    }
    if let Some(ns) = header.namespaces.iter().find(|n| !n.is_empty()) {
        return Err(CliError::bad_input(format!(
            "the export holds namespace {ns:?}; this build has only the default namespace"
        )));
    }
    // `encrypted` records whether the source was encrypted; the records
    // themselves are plaintext either way, so it needs no check here.
    let _ = header.encrypted;
    Ok(())
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

    fn read(text: &str) -> CliResult<Vec<Entry>> {
        Reader::new(Box::new(text.as_bytes()), Codec::default()).collect()
    }

    #[test]
    fn header_is_checked_and_optional() {
        let ok = "{\"emdb_export\":1,\"namespaces\":[\"\"],\"encrypted\":false}\n{\"key\":\"a\",\"value\":\"1\"}\n";
        assert_eq!(read(ok).unwrap().len(), 1);
        assert_eq!(read("{\"key\":\"a\",\"value\":\"1\"}").unwrap()[0].line, 1);
        let newer = read("{\"emdb_export\":2,\"namespaces\":[]}\n").unwrap_err();
        assert!(newer.message.contains("line 1"), "{}", newer.message);
        let ns = read("{\"emdb_export\":1,\"namespaces\":[\"users\"]}\n").unwrap_err();
        assert!(ns.message.contains("namespace"), "{}", ns.message);
    }

    #[test]
    fn errors_name_the_line() {
        let e = read("{\"key\":\"a\",\"value\":\"1\"}\n\n{\"key\":\"b\"\n").unwrap_err();
        assert!(e.message.starts_with("line 3:"), "{}", e.message);
        assert_eq!(e.kind.exit_code(), 7);
        let e = read("{\"key\":\"a\",\"value\":\"zz\",\"value_encoding\":\"hex\"}").unwrap_err();
        assert!(e.message.starts_with("line 1: value:"), "{}", e.message);
        let e = read("{\"key\":\"a\",\"value\":\"1\",\"ttl\":5}").unwrap_err();
        assert!(e.message.contains("ttl"), "{}", e.message);
    }
}
