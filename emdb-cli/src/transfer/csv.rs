//! CSV: a header row, then `key,value` rows (RFC 4180 quoting).
//!
//! The header names each column's encoding: `key` / `value` for text,
//! `key:hex`, `value:base64` and so on otherwise. On import a plain `key` or
//! `value` column is read with the `--key-format`/`--value-format` in force.
//! Text fields carry the bytes as they are, so any bytes round-trip.

use std::io::{BufRead, Write};

use super::{Entry, RecordWriter};
use crate::cli::Encoding;
use crate::encoding::{base64, decode, hex, Codec};
use crate::error::{CliError, CliResult};

/// Writes CSV.
pub struct Writer<'w> {
    csv: csv::Writer<&'w mut dyn Write>,
    codec: Codec,
}

impl<'w> Writer<'w> {
    /// Write the header row.
    pub fn new(out: &'w mut dyn Write, codec: Codec) -> CliResult<Self> {
        let mut csv = csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_writer(out);
        let header = [column("key", codec.key), column("value", codec.value)];
        csv.write_record(header).map_err(write_error)?;
        Ok(Writer { csv, codec })
    }
}

fn column(name: &str, enc: Encoding) -> String {
    match enc {
        Encoding::Text => name.to_string(),
        Encoding::Hex => format!("{name}:hex"),
        Encoding::Base64 => format!("{name}:base64"),
    }
}

fn encode(enc: Encoding, bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    match enc {
        Encoding::Text => bytes.into(),
        Encoding::Hex => hex(bytes).into_bytes().into(),
        Encoding::Base64 => base64(bytes).into_bytes().into(),
    }
}

fn write_error(e: csv::Error) -> CliError {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => CliError::io("writing the export", None, e),
        other => CliError::bad_input(format!("cannot write CSV: {other:?}")),
    }
}

impl RecordWriter for Writer<'_> {
    fn record(&mut self, key: &[u8], value: &[u8]) -> CliResult {
        let k = encode(self.codec.key, key);
        let v = encode(self.codec.value, value);
        self.csv.write_record([&k[..], &v[..]]).map_err(write_error)
    }

    fn finish(&mut self) -> CliResult {
        self.csv
            .flush()
            .map_err(|e| CliError::io("writing the export", None, e))
    }
}

/// Reads CSV.
pub struct Reader<'r> {
    csv: csv::Reader<Box<dyn BufRead + 'r>>,
    codec: Codec,
    columns: Option<(Encoding, Encoding)>,
    record: csv::ByteRecord,
    failed: bool,
}

impl<'r> Reader<'r> {
    /// A reader over `input`.
    pub fn new(input: Box<dyn BufRead + 'r>, codec: Codec) -> Self {
        let csv = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(input);
        Reader {
            csv,
            codec,
            columns: None,
            record: csv::ByteRecord::new(),
            failed: false,
        }
    }

    fn next_entry(&mut self) -> CliResult<Option<Entry>> {
        loop {
            let more = self.csv.read_byte_record(&mut self.record).map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                match e.into_kind() {
                    csv::ErrorKind::Io(e) => CliError::io("reading the import", None, e),
                    other => CliError::bad_input(format!("line {line}: not valid CSV: {other:?}")),
                }
            })?;
            if !more {
                return Ok(None);
            }
            let line = self.record.position().map_or(0, |p| p.line());
            if self.record.len() != 2 {
                return Err(CliError::bad_input(format!(
                    "line {line}: expected 2 fields (key,value), found {}",
                    self.record.len()
                ))
                .hint("quote fields that contain commas or newlines"));
            }
            let Some((kenc, venc)) = self.columns else {
                self.columns = Some(self.header(line)?);
                continue;
            };
            let key = decode(kenc, &self.record[0])
                .map_err(|e| e.context(format!("line {line}: key")))?;
            let value = decode(venc, &self.record[1])
                .map_err(|e| e.context(format!("line {line}: value")))?;
            return Ok(Some(Entry { key, value, line }));
        }
    }

    fn header(&self, line: u64) -> CliResult<(Encoding, Encoding)> {
        let parse = |field: &[u8], name: &str, default: Encoding| -> CliResult<Encoding> {
            let field = std::str::from_utf8(field).unwrap_or("").trim();
            match field.strip_prefix(name) {
                Some("") => Ok(default),
                Some(":text") => Ok(Encoding::Text),
                Some(":hex") => Ok(Encoding::Hex),
                Some(":base64") => Ok(Encoding::Base64),
                _ => Err(CliError::bad_input(format!(
                    "line {line}: the CSV header must be `key,value` (optionally `key:hex`, `value:base64`, ...), found {field:?}"
                ))),
            }
        };
        Ok((
            parse(&self.record[0], "key", self.codec.key)?,
            parse(&self.record[1], "value", self.codec.value)?,
        ))
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

    fn read(text: &str) -> CliResult<Vec<Entry>> {
        Reader::new(Box::new(text.as_bytes()), Codec::default()).collect()
    }

    #[test]
    fn header_and_rows() {
        let rows = read("key,value\na,1\n\"b,c\",\"x\ny\"\n").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].key, b"b,c");
        assert_eq!(rows[1].value, b"x\ny");
        let rows = read("key:hex,value\n6162,x\n").unwrap();
        assert_eq!(rows[0].key, b"ab");
    }

    #[test]
    fn errors_name_the_line() {
        let e = read("key,value\na,1\nb\n").unwrap_err();
        assert!(e.message.starts_with("line 3:"), "{}", e.message);
        let e = read("name,age\n").unwrap_err();
        assert!(e.message.contains("header"), "{}", e.message);
        let e = read("key:hex,value\nzz,1\n").unwrap_err();
        assert!(e.message.starts_with("line 2: key:"), "{}", e.message);
    }
}
