//! JSON Lines: a header line, then one record object per line.
//!
//! ```text
//! {"emdb_export":1,"namespaces":["","sessions"],"encrypted":false}
//! {"key":"user:1","value":"james"}
//! {"key":"blob","value":"AAEC","value_encoding":"base64"}
//! {"ns":"sessions","key":"s:1","value":"x","expires_at_ms":1767225600000}
//! ```
//! `ns` is absent for the default namespace and `expires_at_ms` (absolute,
//! ms since the Unix epoch) for keys that never expire. A field without
//! `*_encoding` is text; on import it is read with the
//! `--key-format`/`--value-format` in force (text by default).

use std::borrow::Cow;
use std::io::{BufRead, Write};

use serde::{Deserialize, Serialize};

use super::{is_header, namespace_field, parse_header, Entry, Item, Plan, RecordWriter};
use crate::encoding::{decode_json_field, json_field, Codec};
use crate::error::{ToolError, ToolResult};

/// Writes JSON Lines.
pub struct Writer<'w> {
    out: &'w mut dyn Write,
    codec: Codec,
}

impl<'w> Writer<'w> {
    /// Write the header line.
    pub fn new(out: &'w mut dyn Write, codec: Codec, plan: &Plan) -> ToolResult<Self> {
        let header = super::header_json(plan)?;
        out.write_all(&header)
            .and_then(|()| out.write_all(b"\n"))
            .map_err(|e| ToolError::io("writing the export", None, e))?;
        Ok(Writer { out, codec })
    }
}

fn json_write_error(e: serde_json::Error) -> ToolError {
    match e.io_error_kind() {
        Some(kind) => ToolError::io("writing the export", None, kind.into()),
        None => ToolError::bad_input(format!("cannot encode JSON: {e}")),
    }
}

/// One exported record. A field without `*_encoding` is UTF-8 text.
#[derive(Debug, Serialize)]
struct OutRecord<'a> {
    #[serde(skip_serializing_if = "str::is_empty")]
    ns: &'a str,
    key: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key_encoding: Option<&'static str>,
    value: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_encoding: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at_ms: Option<u64>,
}

impl RecordWriter for Writer<'_> {
    fn record(
        &mut self,
        ns: &str,
        key: &[u8],
        value: &[u8],
        expires_at_ms: Option<u64>,
    ) -> ToolResult {
        let (k, key_encoding) = json_field(self.codec.key, key);
        let (v, value_encoding) = json_field(self.codec.value, value);
        let record = OutRecord {
            ns,
            key: k,
            key_encoding,
            value: v,
            value_encoding,
            expires_at_ms,
        };
        serde_json::to_writer(&mut *self.out, &record).map_err(json_write_error)?;
        self.out
            .write_all(b"\n")
            .map_err(|e| ToolError::io("writing the export", None, e))
    }

    fn finish(&mut self) -> ToolResult {
        self.out
            .flush()
            .map_err(|e| ToolError::io("writing the export", None, e))
    }
}

/// One record line, as read. Unknown fields are refused so that data this
/// build does not understand is never silently dropped.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InRecord<'a> {
    #[serde(default, borrow)]
    ns: Option<Cow<'a, str>>,
    #[serde(borrow)]
    key: Cow<'a, str>,
    #[serde(borrow)]
    value: Cow<'a, str>,
    #[serde(default, borrow)]
    key_encoding: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    value_encoding: Option<Cow<'a, str>>,
    #[serde(default)]
    expires_at_ms: Option<u64>,
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

    fn next_item(&mut self) -> ToolResult<Option<Item>> {
        loop {
            self.buf.clear();
            let n = self
                .input
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| ToolError::io("reading the import", None, e))?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            let line = self.line;
            let text = self.buf.trim_ascii();
            if text.is_empty() {
                continue;
            }
            let at = |e: ToolError| e.context(format!("line {line}"));
            if line == 1 && is_header(text) {
                return parse_header(text)
                    .map(|h| Some(Item::Header(h)))
                    .map_err(at);
            }
            let rec: InRecord<'_> = serde_json::from_slice(text).map_err(|e| {
                let what = if e.is_data() {
                    format!("not a valid record: {}", json_error(&e))
                } else {
                    format!(
                        "not valid JSON: {}; expected one JSON object per line",
                        json_error(&e)
                    )
                };
                at(ToolError::bad_input(what).hint(
                    r#"each line must be {"key":"..","value":".."}, optionally with ns, expires_at_ms, key_encoding, value_encoding"#,
                ))
            })?;
            let key = decode_json_field(&rec.key, rec.key_encoding.as_deref(), self.codec.key)
                .map_err(|e| at(e.context("key")))?;
            let value =
                decode_json_field(&rec.value, rec.value_encoding.as_deref(), self.codec.value)
                    .map_err(|e| at(e.context("value")))?;
            let ns = match rec.ns.as_deref() {
                Some(name) => namespace_field(name).map_err(|e| at(e.context("ns")))?,
                None => None,
            };
            return Ok(Some(Item::Record(Entry {
                ns,
                key,
                value,
                expires_at_ms: rec.expires_at_ms,
                line,
            })));
        }
    }
}

/// serde_json's message with its position as a column of this line (its
/// own "line 1" would be misleading: each record is parsed alone).
fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let text = text.rfind(" at line ").map_or(&*text, |i| &text[..i]);
    // serde_json words an unquoted name as "key must be a string", which
    // reads like emdb's `key` field: say what the parser met instead.
    let text = if text == "key must be a string" {
        "an object member name must be a quoted string"
    } else {
        text
    };
    // A `\uD800`-`\uDFFF` escape alone (how some tools write a byte
    // that is not UTF-8): serde_json says only what it expected next.
    let surrogate = if text.contains("surrogate") || text == "unexpected end of hex escape" {
        " (a \\uD800-\\uDFFF escape must be one of a surrogate pair; bytes that are not \
         UTF-8 go in base64 or hex with key_encoding or value_encoding)"
    } else {
        ""
    };
    format!("{text}{surrogate} at column {}", e.column())
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

    fn read(text: &str) -> ToolResult<Vec<Entry>> {
        let items: Vec<Item> =
            Reader::new(Box::new(text.as_bytes()), Codec::default()).collect::<ToolResult<_>>()?;
        Ok(items
            .into_iter()
            .filter_map(|i| match i {
                Item::Record(e) => Some(e),
                Item::Header(_) | Item::Command(_) => None,
            })
            .collect())
    }

    #[test]
    fn header_is_checked_and_optional() {
        let ok = "{\"emdb_export\":1,\"namespaces\":[\"\"],\"encrypted\":false}\n{\"key\":\"a\",\"value\":\"1\"}\n";
        assert_eq!(read(ok).unwrap().len(), 1);
        assert_eq!(read("{\"key\":\"a\",\"value\":\"1\"}").unwrap()[0].line, 1);
        let newer = read("{\"emdb_export\":2,\"namespaces\":[]}\n").unwrap_err();
        assert!(newer.message.contains("line 1"), "{}", newer.message);
        let rows = read("{\"emdb_export\":1,\"namespaces\":[\"\",\"users\"]}\n{\"ns\":\"users\",\"key\":\"a\",\"value\":\"1\",\"expires_at_ms\":5}\n").unwrap();
        assert_eq!(rows[0].ns.as_deref(), Some("users"));
        assert_eq!(rows[0].expires_at_ms, Some(5));
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
        let e = read("{\"key\":\"a\",\"value\":\"1\",\"expires_at_ms\":-1}").unwrap_err();
        assert_eq!(e.kind.exit_code(), 7);
        // Broken JSON is called broken JSON, not a problem with `key`.
        let e = read("{bad\n").unwrap_err();
        assert_eq!(
            e.message,
            "line 1: not valid JSON: an object member name must be a quoted string at column 2; \
             expected one JSON object per line"
        );
    }

    #[test]
    fn a_lone_surrogate_escape_is_named_with_what_to_do() {
        for line in [
            "{\"key\":\"\\ud800\",\"value\":\"x\"}",
            "{\"key\":\"\\ud800\\u0041\",\"value\":\"x\"}",
        ] {
            let e = read(line).unwrap_err();
            assert!(e.message.contains("surrogate pair"), "{}", e.message);
            assert!(e.message.contains("key_encoding"), "{}", e.message);
        }
    }

    #[test]
    fn a_first_record_with_an_emdb_export_field_is_not_taken_for_a_header() {
        // Once taken for the export header and dropped without a word.
        let r = read(
            "{\"emdb_export\":1,\"key\":\"a\",\"value\":\"1\"}\n{\"key\":\"b\",\"value\":\"2\"}\n",
        );
        // A record with a field records do not have: refused, like `ttl`.
        let e = r.unwrap_err();
        assert_eq!(e.kind.exit_code(), 7);
        assert!(e.message.contains("emdb_export"), "{}", e.message);
    }

    #[test]
    fn a_first_record_that_mentions_emdb_export_is_a_record() {
        // Found by the import_jsonl fuzz target: without a header line, a
        // first record whose key or value is `emdb_export` was taken for a
        // header and refused.
        let rows = read("{\"key\":\"emdb_export\",\"value\":\"1\"}\n").unwrap();
        assert_eq!(rows[0].key, b"emdb_export");
        let e = read("{\"emdb_export\":1,\"namespaces\":[\"\"]\n").unwrap_err();
        assert!(
            e.message.starts_with("line 1: not a valid export header"),
            "{}",
            e.message
        );
    }
}
