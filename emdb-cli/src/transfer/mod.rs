//! File formats of `import` and `export`: JSON Lines, CSV and the Redis
//! protocol. Writers take records in key order; readers yield records with
//! the line they started on, so errors can name it.

mod csv;
mod jsonl;
mod resp;

use std::io::{BufRead, Write};
use std::path::Path;

use crate::cli::TransferFormat;
use crate::encoding::Codec;
use crate::error::CliResult;

/// One record read from an import file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key bytes.
    pub key: Vec<u8>,
    /// The value bytes.
    pub value: Vec<u8>,
    /// The 1-based line the record starts on.
    pub line: u64,
}

/// Writes records in one format.
pub trait RecordWriter {
    /// Write one record.
    fn record(&mut self, key: &[u8], value: &[u8]) -> CliResult;
    /// Write whatever ends the file and flush.
    fn finish(&mut self) -> CliResult;
}

/// A writer of `format` on `out`; writes the format's header at once.
pub fn writer<'w>(
    format: TransferFormat,
    out: &'w mut dyn Write,
    codec: Codec,
) -> CliResult<Box<dyn RecordWriter + 'w>> {
    Ok(match format {
        TransferFormat::Jsonl => Box::new(jsonl::Writer::new(out, codec)?),
        TransferFormat::Csv => Box::new(csv::Writer::new(out, codec)?),
        TransferFormat::Resp => Box::new(resp::Writer::new(out, codec)),
    })
}

/// A reader of `format` from `input`; errors name the line.
pub fn reader<'r>(
    format: TransferFormat,
    input: Box<dyn BufRead + 'r>,
    codec: Codec,
) -> Box<dyn Iterator<Item = CliResult<Entry>> + 'r> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Encoding;

    fn round_trip(format: TransferFormat, codec: Codec) {
        let records: Vec<(Vec<u8>, Vec<u8>)> = vec![
            (b"plain".to_vec(), b"text value".to_vec()),
            (b"".to_vec(), b"empty key".to_vec()),
            (b"empty value".to_vec(), b"".to_vec()),
            (b"quote\"comma,\r\nnewline".to_vec(), b"tab\there".to_vec()),
            ((0..=255).collect(), (0..=255).rev().collect()),
            ("unicode é ✓".as_bytes().to_vec(), b"\xff\xfe\x00".to_vec()),
        ];
        let mut out = Vec::new();
        {
            let mut w = writer(format, &mut out, codec).unwrap();
            for (k, v) in &records {
                w.record(k, v).unwrap();
            }
            w.finish().unwrap();
        }
        let read: Vec<(Vec<u8>, Vec<u8>)> = reader(format, Box::new(&out[..]), codec)
            .map(|e| e.map(|e| (e.key, e.value)))
            .collect::<CliResult<_>>()
            .unwrap();
        assert_eq!(read, records, "{format:?} {codec:?}");
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
                    round_trip(format, Codec { key, value });
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
}
