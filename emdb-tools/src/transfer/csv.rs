//! CSV: a header row, then one row per record (RFC 4180 quoting).
//!
//! The header names the columns: `key` and `value` always (with their
//! encoding when not text: `key:hex`, `value:base64`, ...), then `ns` when
//! the export holds a named namespace and `expires_at_ms` when a key
//! expires (an empty cell: the default namespace, or no expiry). On import
//! the columns may come in any order, each once (a column named twice or
//! an unknown one is refused); a plain `key` or `value` column is read
//! with the `--key-format`/`--value-format` in force. Text fields
//! carry the bytes as they are, so any bytes round-trip.

use std::collections::VecDeque;
use std::io::{BufRead, Read, Write};

use super::{namespace_field, Entry, Item, Plan, RecordWriter};
use crate::encoding::Encoding;
use crate::encoding::{base64, decode, escape_text, hex, Codec, Layout};
use crate::error::{ToolError, ToolResult};

/// Writes CSV.
pub struct Writer<'w> {
    csv: csv::Writer<&'w mut dyn Write>,
    codec: Codec,
    ns_column: bool,
    expiry_column: bool,
}

impl<'w> Writer<'w> {
    /// Write the header row.
    pub fn new(out: &'w mut dyn Write, codec: Codec, plan: &Plan) -> ToolResult<Self> {
        let mut csv = csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_writer(out);
        let mut header = vec![column("key", codec.key), column("value", codec.value)];
        if plan.named() {
            header.push("ns".into());
        }
        if plan.any_expiry {
            header.push("expires_at_ms".into());
        }
        csv.write_record(&header).map_err(write_error)?;
        Ok(Writer {
            csv,
            codec,
            ns_column: plan.named(),
            expiry_column: plan.any_expiry,
        })
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

fn write_error(e: csv::Error) -> ToolError {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => ToolError::io("writing the export", None, e),
        other => ToolError::bad_input(format!("cannot write CSV: {other:?}")),
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
        let k = encode(self.codec.key, key);
        let v = encode(self.codec.value, value);
        let exp = expires_at_ms.map(|t| t.to_string()).unwrap_or_default();
        let mut row: [&[u8]; 4] = [&k, &v, b"", b""];
        let mut n = 2;
        if self.ns_column {
            row[n] = ns.as_bytes();
            n += 1;
        } else if !ns.is_empty() {
            return Err(ToolError::bad_input(format!(
                "record of namespace \"{}\" in an export planned without namespaces",
                escape_text(ns.as_bytes(), Layout::Field)
            )));
        }
        if self.expiry_column {
            row[n] = exp.as_bytes();
            n += 1;
        }
        self.csv.write_record(&row[..n]).map_err(write_error)
    }

    fn finish(&mut self) -> ToolResult {
        self.csv
            .flush()
            .map_err(|e| ToolError::io("writing the export", None, e))
    }
}

/// Where each field is, from the header row.
#[derive(Debug, Clone, Copy)]
struct Columns {
    count: usize,
    key: (usize, Encoding),
    value: (usize, Encoding),
    ns: Option<usize>,
    expiry: Option<usize>,
}

/// Reads CSV.
pub struct Reader<'r> {
    csv: csv::Reader<Rows<Box<dyn BufRead + 'r>>>,
    codec: Codec,
    columns: Option<Columns>,
    record: csv::ByteRecord,
    failed: bool,
}

/// Where each row starts, and whether the input ends inside quotes, seen in
/// the bytes as the csv reader pulls them through.
///
/// The csv crate's record positions name the line where the *previous*
/// record ended (one too few after a CRLF, and blank lines are not counted),
/// and it takes a quoted field the input ends in as complete. This follows
/// the same dialect (RFC 4180: `"` quotes a whole field, `""` inside quotes
/// is a quote, a quote elsewhere is a plain byte; `\r`, `\n` or `\r\n` end a
/// row; blank lines are skipped) to find both.
struct Rows<R> {
    inner: R,
    state: Lex,
    /// The line of the next byte (1-based).
    line: u64,
    /// Lines of the rows that started in bytes read ahead, not yet claimed.
    starts: VecDeque<u64>,
    /// The inner reader reported the end of the input.
    ended: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lex {
    /// Between rows: line ends and blank lines are skipped.
    RowStart,
    /// At the start of a field.
    FieldStart,
    /// In an unquoted field (or after a quoted one's closing quote).
    Unquoted,
    /// Inside quotes.
    Quoted,
    /// A quote inside quotes: closes the field, or a second one follows.
    QuoteInQuoted,
}

impl<R> Rows<R> {
    fn new(inner: R) -> Self {
        Rows {
            inner,
            state: Lex::RowStart,
            line: 1,
            starts: VecDeque::new(),
            ended: false,
        }
    }

    fn step(&mut self, b: u8) {
        let row_end = b == b'\r' || b == b'\n';
        if self.state == Lex::RowStart && !row_end {
            self.starts.push_back(self.line);
            self.state = Lex::FieldStart;
        }
        self.state = match (self.state, b) {
            (Lex::RowStart, _) => Lex::RowStart,
            (Lex::Quoted, b'"') => Lex::QuoteInQuoted,
            (Lex::Quoted, _) => Lex::Quoted,
            (Lex::FieldStart | Lex::QuoteInQuoted, b'"') => Lex::Quoted,
            (_, b',') => Lex::FieldStart,
            _ if row_end => Lex::RowStart,
            _ => Lex::Unquoted,
        };
        if b == b'\n' {
            self.line += 1;
        }
    }

    /// The input ended inside a quoted field.
    fn open_quote(&self) -> bool {
        self.ended && self.state == Lex::Quoted
    }
}

impl<R: Read> Read for Rows<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.ended = true;
        }
        for &b in &buf[..n] {
            self.step(b);
        }
        Ok(n)
    }
}

impl<'r> Reader<'r> {
    /// A reader over `input`.
    pub fn new(input: Box<dyn BufRead + 'r>, codec: Codec) -> Self {
        let csv = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(Rows::new(input));
        Reader {
            csv,
            codec,
            columns: None,
            record: csv::ByteRecord::new(),
            failed: false,
        }
    }

    fn next_item(&mut self) -> ToolResult<Option<Item>> {
        loop {
            let more = self.csv.read_byte_record(&mut self.record).map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                match e.into_kind() {
                    csv::ErrorKind::Io(e) => ToolError::io("reading the import", None, e),
                    other => ToolError::bad_input(format!("line {line}: not valid CSV: {other:?}")),
                }
            })?;
            if !more {
                return Ok(None);
            }
            let rows = self.csv.get_mut();
            // Every row the csv reader returns started in bytes it read
            // through `Rows`; its own line is the fallback, never expected.
            let line = rows
                .starts
                .pop_front()
                .or_else(|| self.record.position().map(|p| p.line()))
                .unwrap_or(0);
            if rows.open_quote() {
                return Err(ToolError::bad_input(format!(
                    "line {line}: the input ends inside a quoted field"
                ))
                .hint("the file may be cut short; a field that starts with \" ends with \""));
            }
            let Some(cols) = self.columns else {
                self.columns = Some(self.header(line)?);
                continue;
            };
            if self.record.len() != cols.count {
                return Err(ToolError::bad_input(format!(
                    "line {line}: expected {} fields as the header says, found {}",
                    cols.count,
                    self.record.len()
                ))
                .hint("quote fields that contain commas or newlines"));
            }
            fn at(line: u64, what: &'static str) -> impl Fn(ToolError) -> ToolError {
                move |e| e.context(format!("line {line}: {what}"))
            }
            let key = decode(cols.key.1, &self.record[cols.key.0]).map_err(at(line, "key"))?;
            let value =
                decode(cols.value.1, &self.record[cols.value.0]).map_err(at(line, "value"))?;
            let ns = match cols.ns {
                Some(i) => {
                    let name = std::str::from_utf8(&self.record[i]).map_err(|_| {
                        ToolError::bad_input(format!("line {line}: ns: not valid UTF-8"))
                    })?;
                    namespace_field(name).map_err(at(line, "ns"))?
                }
                None => None,
            };
            let expires_at_ms = match cols.expiry {
                Some(i) if !self.record[i].is_empty() => Some(
                    std::str::from_utf8(&self.record[i])
                        .ok()
                        .and_then(|t| t.trim().parse::<u64>().ok())
                        .ok_or_else(|| {
                            ToolError::bad_input(format!(
                                "line {line}: expires_at_ms is not a number of milliseconds"
                            ))
                        })?,
                ),
                _ => None,
            };
            return Ok(Some(Item::Record(Entry {
                ns,
                key,
                value,
                expires_at_ms,
                line,
            })));
        }
    }

    fn header(&self, line: u64) -> ToolResult<Columns> {
        let bad = |found: &str| {
            ToolError::bad_input(format!(
                "line {line}: the CSV header must name the columns key and value \
                 (optionally key:hex, value:base64, ..., ns, expires_at_ms), found {found:?}"
            ))
        };
        let (mut key, mut value, mut ns, mut expiry) = (None, None, None, None);
        for (i, field) in self.record.iter().enumerate() {
            let name = std::str::from_utf8(field).unwrap_or("").trim();
            let (base, enc) = match name.split_once(':') {
                Some((b, "text")) => (b, Some(Encoding::Text)),
                Some((b, "hex")) => (b, Some(Encoding::Hex)),
                Some((b, "base64")) => (b, Some(Encoding::Base64)),
                Some(_) => return Err(bad(name)),
                None => (name, None),
            };
            let taken = match base {
                "key" => key.replace((i, enc.unwrap_or(self.codec.key))).is_some(),
                "value" => value
                    .replace((i, enc.unwrap_or(self.codec.value)))
                    .is_some(),
                "ns" if enc.is_none() => ns.replace(i).is_some(),
                "expires_at_ms" if enc.is_none() => expiry.replace(i).is_some(),
                _ => return Err(bad(name)),
            };
            if taken {
                // A second column of the same name: which one holds the
                // data is anyone's guess, so nothing is imported.
                return Err(ToolError::bad_input(format!(
                    "line {line}: the CSV header names the column {base} twice \
                     (column {} is {name:?})",
                    i + 1
                )));
            }
        }
        match (key, value) {
            (Some(key), Some(value)) => Ok(Columns {
                count: self.record.len(),
                key,
                value,
                ns,
                expiry,
            }),
            _ => {
                let all: Vec<String> = self
                    .record
                    .iter()
                    .map(|f| String::from_utf8_lossy(f).into_owned())
                    .collect();
                Err(bad(&all.join(",")))
            }
        }
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
    fn header_and_rows() {
        let rows = read("key,value\na,1\n\"b,c\",\"x\ny\"\n").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].key, b"b,c");
        assert_eq!(rows[1].value, b"x\ny");
        let rows = read("key:hex,value\n6162,x\n").unwrap();
        assert_eq!(rows[0].key, b"ab");
        let rows = read("expires_at_ms,ns,value,key\n,,1,a\n7,users,2,b\n").unwrap();
        assert_eq!((rows[0].ns.clone(), rows[0].expires_at_ms), (None, None));
        assert_eq!(rows[1].ns.as_deref(), Some("users"));
        assert_eq!(rows[1].expires_at_ms, Some(7));
        assert_eq!(rows[1].key, b"b");
    }

    #[test]
    fn errors_name_the_line() {
        let e = read("key,value\na,1\nb\n").unwrap_err();
        assert!(e.message.starts_with("line 3:"), "{}", e.message);
        let e = read("key,value,expires_at_ms\na,1,soon\n").unwrap_err();
        assert!(
            e.message.starts_with("line 2: expires_at_ms"),
            "{}",
            e.message
        );
        let e = read("name,age\n").unwrap_err();
        assert!(e.message.contains("header"), "{}", e.message);
        let e = read("key:hex,value\nzz,1\n").unwrap_err();
        assert!(e.message.starts_with("line 2: key:"), "{}", e.message);
    }

    #[test]
    fn a_header_naming_a_column_twice_or_an_unknown_one_is_an_error() {
        for (header, column) in [
            ("key,value,key", "key"),
            ("key,value,key:hex", "key"),
            ("value,key,value:base64", "value"),
            ("key,value,ns,ns", "ns"),
            ("expires_at_ms,key,value,expires_at_ms", "expires_at_ms"),
        ] {
            let e = read(&format!("{header}\r\na,b,c,d\r\n")).unwrap_err();
            assert_eq!(e.kind, crate::error::Kind::BadInput, "{header}");
            assert!(
                e.message.starts_with(&format!(
                    "line 1: the CSV header names the column {column} twice"
                )),
                "{header}: {}",
                e.message
            );
        }
        let e = read("key,value,colour\r\na,b,c\r\n").unwrap_err();
        assert_eq!(e.kind, crate::error::Kind::BadInput);
        assert!(e.message.contains("\"colour\""), "{}", e.message);
    }

    #[test]
    fn lines_are_where_rows_start() {
        // Found by the import_csv fuzz target: the csv crate's positions
        // name the line the previous row ended on, one short after each
        // CRLF (the exporter's line end) and blank lines not counted.
        let lines =
            |text: &str| -> Vec<u64> { read(text).unwrap().iter().map(|e| e.line).collect() };
        assert_eq!(
            lines("key,value\r\na,1\r\n\r\n\"b\r\nc\",2\r\nd,3\r\n"),
            [2, 4, 6]
        );
        assert_eq!(
            lines("\nkey,value\n\n\na,1\n\"x\"\"\ny\",2\nz,3"),
            [5, 6, 8]
        );
        let e = read("key,value\r\na,1\r\n\r\nb\r\n").unwrap_err();
        assert!(e.message.starts_with("line 4:"), "{}", e.message);
        let e = read("\r\nname,age\r\n").unwrap_err();
        assert!(e.message.starts_with("line 2:"), "{}", e.message);
    }

    #[test]
    fn an_input_ending_inside_quotes_is_an_error() {
        // Found by the import_csv fuzz target: a file cut inside a quoted
        // field imported the cut field as if it were whole.
        let e = read("key,value,expires_at_ms\r\na,1,\r\nb,\"2\r\n").unwrap_err();
        assert!(
            e.message
                .starts_with("line 3: the input ends inside a quoted field"),
            "{}",
            e.message
        );
        let e = read("key,\"value").unwrap_err();
        assert!(e.message.starts_with("line 1:"), "{}", e.message);
        let rows = read("key,value\na,\"1\"\"2\"").unwrap();
        assert_eq!(rows[0].value, b"1\"2");
        let rows = read("key,value\na\"b,\"x\"y").unwrap();
        assert_eq!(
            (&rows[0].key[..], &rows[0].value[..]),
            (&b"a\"b"[..], &b"xy"[..])
        );
    }
}
