//! File formats of `import` and `export`: JSON Lines, CSV and the Redis
//! protocol. Writers take records grouped by namespace, in key order;
//! readers yield a header (when the format has one) and records with the
//! line they started on, so errors can name it.
//!
//! Every format carries each record's namespace and absolute expiry (ms
//! since the Unix epoch), so an export imports back to the same database.

mod csv;
mod jsonl;
mod resp;

pub use resp::{redis_expiry, REDIS_MAX_EXPIRY_MS};

use std::io::{BufRead, Write};
use std::path::Path;

use serde::Deserialize as _;

use crate::encoding::Codec;
use crate::error::{ToolError, ToolResult};

/// File formats of `import` and `export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferFormat {
    /// JSON Lines: a header line, then one `{"key":..,"value":..}` per line.
    Jsonl,
    /// CSV with a header row: `key,value[,ns][,expires_at_ms]`.
    Csv,
    /// Redis protocol `SET key value [PXAT ms]` commands (for `redis-cli --pipe`).
    Resp,
}

/// The first line of a JSON Lines export (and the first `ECHO` of a RESP one).
#[derive(Debug, serde::Serialize)]
pub struct ExportHeader {
    /// Export format version (1).
    pub emdb_export: u32,
    /// Namespaces in the export (`""` is the default namespace).
    pub namespaces: Vec<String>,
    /// Whether the source database was encrypted.
    pub encrypted: bool,
}

/// The export format version this build writes and reads.
pub const VERSION: u32 = 1;

/// One record read from an import file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The namespace it names (`None`: none named, the import's target).
    pub ns: Option<String>,
    /// The key bytes.
    pub key: Vec<u8>,
    /// The value bytes.
    pub value: Vec<u8>,
    /// When it expires, in ms since the Unix epoch.
    pub expires_at_ms: Option<u64>,
    /// The 1-based line the record starts on.
    pub line: u64,
}

/// What the header of an import file says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// Namespaces of the export (`""` is the default one), including empty ones.
    pub namespaces: Vec<String>,
    /// Whether the exported database was encrypted.
    pub encrypted: bool,
}

/// An item of an import file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// The header (JSON Lines and RESP exports start with one).
    Header(Header),
    /// A record.
    Record(Entry),
    /// A Redis command other than a plain `SET` (RESP input only), applied
    /// in order with the records around it.
    Command(Command),
}

/// What a RESP input does besides plain `SET`s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `SET key value NX`: write only when the key is absent.
    SetIfAbsent(Entry),
    /// `SET key value KEEPTTL`: write and keep the key's current expiry.
    SetKeepTtl(Entry),
    /// `DEL key`: remove the key if present.
    Delete {
        /// The namespace (`None`: the import's target).
        ns: Option<String>,
        /// The key bytes.
        key: Vec<u8>,
        /// The 1-based line the command starts on.
        line: u64,
    },
    /// `EXPIRE`/`PEXPIRE`/`EXPIREAT`/`PEXPIREAT`: a new expiry for the key,
    /// if present.
    Expire {
        /// The namespace (`None`: the import's target).
        ns: Option<String>,
        /// The key bytes.
        key: Vec<u8>,
        /// The new expiry, in ms since the Unix epoch.
        expires_at_ms: u64,
        /// The 1-based line the command starts on.
        line: u64,
    },
}

/// What an export is about to write, known before the first record.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The namespaces, in the order written (`""` is the default one).
    pub namespaces: Vec<String>,
    /// Whether the source database is encrypted.
    pub encrypted: bool,
    /// Whether any record has an expiry.
    pub any_expiry: bool,
}

impl Plan {
    /// True when a record may name a namespace other than the default.
    pub fn named(&self) -> bool {
        self.namespaces.iter().any(|n| !n.is_empty())
    }
}

/// Writes records in one format.
pub trait RecordWriter {
    /// Write one record of namespace `ns` (`""`: the default one).
    fn record(
        &mut self,
        ns: &str,
        key: &[u8],
        value: &[u8],
        expires_at_ms: Option<u64>,
    ) -> ToolResult;
    /// Write whatever ends the file and flush.
    fn finish(&mut self) -> ToolResult;
}

/// A writer of `format` on `out`; writes the format's header at once.
pub fn writer<'w>(
    format: TransferFormat,
    out: &'w mut dyn Write,
    codec: Codec,
    plan: &Plan,
) -> ToolResult<Box<dyn RecordWriter + 'w>> {
    Ok(match format {
        TransferFormat::Jsonl => Box::new(jsonl::Writer::new(out, codec, plan)?),
        TransferFormat::Csv => Box::new(csv::Writer::new(out, codec, plan)?),
        TransferFormat::Resp => Box::new(resp::Writer::new(out, codec, plan)?),
    })
}

/// A reader of `format` from `input`; errors name the line.
pub fn reader<'r>(
    format: TransferFormat,
    input: Box<dyn BufRead + 'r>,
    codec: Codec,
) -> Box<dyn Iterator<Item = ToolResult<Item>> + 'r> {
    match format {
        TransferFormat::Jsonl => Box::new(jsonl::Reader::new(input, codec)),
        TransferFormat::Csv => Box::new(csv::Reader::new(input, codec)),
        TransferFormat::Resp => Box::new(resp::Reader::new(input, codec)),
    }
}

/// The format asked for, else the one the file extension names
/// (`.csv`, `.resp`), else JSON Lines.
pub fn resolve_format(asked: Option<TransferFormat>, file: Option<&Path>) -> TransferFormat {
    if let Some(f) = asked {
        return f;
    }
    match file
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("csv") => TransferFormat::Csv,
        Some("resp") => TransferFormat::Resp,
        _ => TransferFormat::Jsonl,
    }
}

/// The format's name, as on the command line.
pub fn format_name(format: TransferFormat) -> &'static str {
    match format {
        TransferFormat::Jsonl => "jsonl",
        TransferFormat::Csv => "csv",
        TransferFormat::Resp => "resp",
    }
}

/// A namespace name read from a file: `""` is the default (`None`); others
/// must fit the engine's limit.
fn namespace_field(name: &str) -> ToolResult<Option<String>> {
    if name.is_empty() {
        return Ok(None);
    }
    if name.len() > emdb_core::MAX_NAMESPACE_NAME_LEN {
        return Err(ToolError::bad_input(format!(
            "namespace name is {} bytes, the limit is {}",
            name.len(),
            emdb_core::MAX_NAMESPACE_NAME_LEN
        )));
    }
    Ok(Some(name.to_string()))
}

/// The JSON header shared by JSON Lines (first line) and RESP (first ECHO).
fn header_json(plan: &Plan) -> ToolResult<Vec<u8>> {
    let header = ExportHeader {
        emdb_export: VERSION,
        namespaces: plan.namespaces.clone(),
        encrypted: plan.encrypted,
    };
    serde_json::to_vec(&header)
        .map_err(|e| ToolError::bad_input(format!("cannot encode JSON: {e}")))
}

/// The header as read.
#[derive(Debug, serde::Deserialize)]
struct InHeader {
    emdb_export: u32,
    #[serde(default)]
    namespaces: Vec<String>,
    #[serde(default)]
    encrypted: bool,
}

/// True when a JSON text is an export header: an object with a top-level
/// `emdb_export` field. A text that is not valid JSON counts when it
/// mentions the field anywhere, so that a damaged header is reported as one;
/// a valid object that only holds the word (a namespace marker of a
/// namespace named `emdb_export`, a record with such a key) does not, and
/// neither does an object with a `key` field (a record).
fn is_header(json: &[u8]) -> bool {
    /// Whether the field is there, whatever its value.
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default, deserialize_with = "present")]
        emdb_export: bool,
        #[serde(default, deserialize_with = "present")]
        key: bool,
    }
    fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| true)
    }
    match serde_json::from_slice::<Probe>(json) {
        // A header never has a `key`: an object with one is a record (with
        // an unknown extra field), which the record reader judges.
        Ok(probe) => probe.emdb_export && !probe.key,
        Err(_) => json.windows(13).any(|w| w == b"\"emdb_export\""),
    }
}

/// Parse and check an export header.
fn parse_header(json: &[u8]) -> ToolResult<Header> {
    let h: InHeader = serde_json::from_slice(json)
        .map_err(|e| ToolError::bad_input(format!("not a valid export header: {e}")))?;
    if h.emdb_export != VERSION {
        return Err(ToolError::bad_input(format!(
            "export format version {} is not supported (this build reads version {VERSION})",
            h.emdb_export
        ))
        .hint("import it with the emdb version that wrote it, or a newer one"));
    }
    for ns in &h.namespaces {
        namespace_field(ns)?;
    }
    Ok(Header {
        namespaces: h.namespaces,
        encrypted: h.encrypted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::Encoding;

    type Rec = (String, Vec<u8>, Vec<u8>, Option<u64>);

    fn sample() -> Vec<Rec> {
        let d = String::new;
        vec![
            (d(), b"plain".to_vec(), b"text value".to_vec(), None),
            (
                d(),
                b"".to_vec(),
                b"empty key".to_vec(),
                Some(4_000_000_000_000),
            ),
            (d(), b"empty value".to_vec(), b"".to_vec(), None),
            (
                d(),
                b"quote\"comma,\r\nnewline".to_vec(),
                b"tab\there".to_vec(),
                None,
            ),
            (d(), (0..=255).collect(), (0..=255).rev().collect(), None),
            ("users".into(), b"u:1".to_vec(), b"james".to_vec(), Some(1)),
            (
                "users".into(),
                b"users:x".to_vec(),
                b"\xff\xfe\x00".to_vec(),
                None,
            ),
            (
                "z \u{e9}".into(),
                "unicode é ✓".as_bytes().to_vec(),
                b"v".to_vec(),
                None,
            ),
        ]
    }

    fn round_trip(format: TransferFormat, codec: Codec, records: &[Rec]) {
        let mut namespaces: Vec<String> = records.iter().map(|r| r.0.clone()).collect();
        namespaces.dedup();
        namespaces.push("empty".into());
        let plan = Plan {
            namespaces: namespaces.clone(),
            encrypted: true,
            any_expiry: records.iter().any(|r| r.3.is_some()),
        };
        let mut out = Vec::new();
        {
            let mut w = writer(format, &mut out, codec, &plan).unwrap();
            for (ns, k, v, exp) in records {
                w.record(ns, k, v, *exp).unwrap();
            }
            w.finish().unwrap();
        }
        let mut header = None;
        let mut read = Vec::new();
        for item in reader(format, Box::new(&out[..]), codec) {
            match item.unwrap() {
                Item::Header(h) => header = Some(h),
                Item::Record(e) => {
                    read.push((e.ns.unwrap_or_default(), e.key, e.value, e.expires_at_ms))
                }
                Item::Command(c) => panic!("an export holds only records: {c:?}"),
            }
        }
        assert_eq!(read, records, "{format:?} {codec:?}");
        if format != TransferFormat::Csv {
            let h = header.unwrap();
            assert_eq!(h.namespaces, namespaces);
            assert!(h.encrypted);
        }
    }

    #[test]
    fn every_format_and_encoding_round_trips() {
        let encodings = [Encoding::Text, Encoding::Hex, Encoding::Base64];
        for format in [
            TransferFormat::Jsonl,
            TransferFormat::Csv,
            TransferFormat::Resp,
        ] {
            for key in encodings {
                for value in encodings {
                    round_trip(format, Codec { key, value }, &sample());
                    let plain: Vec<Rec> = sample()
                        .into_iter()
                        .filter(|r| r.0.is_empty() && r.3.is_none())
                        .collect();
                    round_trip(format, Codec { key, value }, &plain);
                }
            }
        }
    }

    #[test]
    fn formats_from_extensions() {
        let f = |p: &str| resolve_format(None, Some(Path::new(p)));
        assert_eq!(f("a.csv"), TransferFormat::Csv);
        assert_eq!(f("a.RESP"), TransferFormat::Resp);
        assert_eq!(f("a.jsonl"), TransferFormat::Jsonl);
        assert_eq!(f("-"), TransferFormat::Jsonl);
        assert_eq!(
            resolve_format(Some(TransferFormat::Resp), Some(Path::new("a.csv"))),
            TransferFormat::Resp
        );
    }

    #[test]
    fn headers_are_checked() {
        assert!(
            parse_header(br#"{"emdb_export":1,"namespaces":["","a"],"encrypted":true}"#).is_ok()
        );
        let e = parse_header(br#"{"emdb_export":2}"#).unwrap_err();
        assert!(e.message.contains("version 2"), "{}", e.message);
        let long = format!(
            r#"{{"emdb_export":1,"namespaces":["{}"]}}"#,
            "n".repeat(300)
        );
        assert_eq!(
            parse_header(long.as_bytes()).unwrap_err().kind.exit_code(),
            7
        );
    }

    #[test]
    fn headers_are_told_from_other_json() {
        assert!(is_header(br#"{"emdb_export":1,"namespaces":[]}"#));
        assert!(is_header(br#"{"namespaces":[],"emdb_export":null}"#));
        // Damaged: still a header, so that the error says so.
        assert!(is_header(br#"{"emdb_export":1,"namespa"#));
        assert!(!is_header(br#"{"emdb_namespace":"emdb_export"}"#));
        assert!(!is_header(br#"{"key":"emdb_export","value":"x"}"#));
        assert!(!is_header(br#"{"key":{"emdb_export":1},"value":"x"}"#));
    }
}
