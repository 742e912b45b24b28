//! Target `import_jsonl`: the JSON Lines import parser of `emdb import`
//! (emdb-cli/src/transfer/jsonl.rs), with the CLI's exporter.
//!
//! The first byte picks a mode:
//! - raw: the bytes as they are, read with encodings from the mode byte;
//! - round trip: an export built from the input (binary keys and values,
//!   namespaces, expiries, all three encodings) is written by the CLI's
//!   writer, whose lines must hold exactly the fields this module derives
//!   from the format's description (module docs of jsonl.rs), and read back
//!   as the same records on the same lines; then cut at any byte: a cut at
//!   the end of a line reads the lines before it, a cut inside a line is an
//!   error;
//! - equivalent: the same export written as JSON allows (no header line,
//!   fields in any order, whitespace, `\u` escapes for any character, `"ns":""`, an
//!   explicit `"text"` encoding, uppercase hex, unpadded base64, blank lines,
//!   CRLF, no final newline) reads as the same records on the right lines;
//! - broken: one line is made invalid (unknown, missing or repeated fields,
//!   wrong JSON types, numbers outside u64, unknown encodings, undecodable
//!   hex or base64, a 256-byte namespace, a cut or trailing text, invalid
//!   UTF-8 or escapes, a line that is not an object, a header of another
//!   version) and must be an error naming that line, after the records of
//!   the lines before it;
//! - damaged: bit flips, cuts and overwritten bytes anywhere; the records of
//!   the lines before the first damaged byte come back unchanged.
//!
//! Every input also gets the checks of [`crate::transfer::read`] and
//! [`crate::transfer::check_stable`].

use arbitrary::Unstructured;
use emdb_cli::{Encoding, TransferFormat};

use crate::transfer::{self as t, Export};

const FORMAT: TransferFormat = TransferFormat::Jsonl;

/// A JSON value of a line, kept as the parts the mutations work on.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    /// A string, escaped when written (the bytes may be invalid UTF-8).
    Str(Vec<u8>),
    /// JSON text written as it is (a number, `true`, an array, ...).
    Raw(Vec<u8>),
}

/// One line: an object's fields in order, or other text.
#[derive(Clone, Debug)]
pub struct Line {
    /// Fields, in the order written.
    pub fields: Vec<(String, J)>,
    /// When set, the line is this text instead.
    pub text: Option<Vec<u8>>,
    /// The record it carries.
    pub record: Option<usize>,
}

/// How lines are written.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    /// Spaces around `:` and `,` and inside the braces.
    pub spaces: bool,
    /// Every non-ASCII character as `\u` escapes (surrogate pairs above
    /// U+FFFF), and `/` as `\/`.
    pub escape_all: bool,
}

/// A JSON string for `bytes` (which may hold invalid UTF-8: written as is).
pub fn json_string(bytes: &[u8], escape_all: bool, out: &mut Vec<u8>) {
    out.push(b'"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\t' => out.extend_from_slice(b"\\t"),
                '/' if escape_all => out.extend_from_slice(b"\\/"),
                c if (c as u32) < 0x20 || (escape_all && !c.is_ascii()) => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
                    }
                }
                c => {
                    let mut b = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
                }
            }
        }
        out.extend_from_slice(chunk.invalid());
    }
    out.push(b'"');
}

impl Line {
    fn object(fields: Vec<(String, J)>, record: Option<usize>) -> Line {
        Line {
            fields,
            text: None,
            record,
        }
    }

    fn write(&self, style: Style, out: &mut Vec<u8>) {
        if let Some(text) = &self.text {
            out.extend_from_slice(text);
            return;
        }
        let sp: &[u8] = if style.spaces { b" " } else { b"" };
        out.push(b'{');
        out.extend_from_slice(sp);
        for (i, (name, value)) in self.fields.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(sp);
                out.push(b',');
                out.extend_from_slice(sp);
            }
            json_string(name.as_bytes(), style.escape_all, out);
            out.extend_from_slice(sp);
            out.push(b':');
            out.extend_from_slice(sp);
            match value {
                J::Str(s) => json_string(s, style.escape_all, out),
                J::Raw(r) => out.extend_from_slice(r),
            }
        }
        out.extend_from_slice(sp);
        out.push(b'}');
    }

    fn get(&self, name: &str) -> Option<&J> {
        self.fields.iter().find(|f| f.0 == name).map(|f| &f.1)
    }

    fn set(&mut self, name: &str, value: J) {
        match self.fields.iter_mut().find(|f| f.0 == name) {
            Some(f) => f.1 = value,
            None => self.fields.push((name.to_string(), value)),
        }
    }
}

/// A field as the format describes it: text when the encoding is text and
/// the bytes are UTF-8 (no `*_encoding`), else base64, or hex/base64 as
/// the encoding says.
fn field(enc: Encoding, bytes: &[u8]) -> (J, Option<&'static str>) {
    match enc {
        Encoding::Text if std::str::from_utf8(bytes).is_ok() => (J::Str(bytes.to_vec()), None),
        Encoding::Text | Encoding::Base64 => {
            (J::Str(t::encoded(Encoding::Base64, bytes)), Some("base64"))
        }
        Encoding::Hex => (J::Str(t::encoded(Encoding::Hex, bytes)), Some("hex")),
    }
}

/// The lines of an export, from the format's description.
pub fn lines(exp: &Export) -> Vec<Line> {
    let mut out = vec![Line {
        fields: Vec::new(),
        text: Some(t::header_json(exp)),
        record: None,
    }];
    for (i, r) in exp.records.iter().enumerate() {
        let mut f = Vec::new();
        if !r.ns.is_empty() {
            f.push(("ns".to_string(), J::Str(r.ns.as_bytes().to_vec())));
        }
        let (k, ke) = field(exp.codec.key, &r.key);
        f.push(("key".to_string(), k));
        if let Some(e) = ke {
            f.push(("key_encoding".to_string(), J::Str(e.into())));
        }
        let (v, ve) = field(exp.codec.value, &r.value);
        f.push(("value".to_string(), v));
        if let Some(e) = ve {
            f.push(("value_encoding".to_string(), J::Str(e.into())));
        }
        if let Some(at) = r.expires_at_ms {
            f.push(("expires_at_ms".to_string(), J::Raw(at.to_string().into())));
        }
        out.push(Line::object(f, Some(i)));
    }
    out
}

/// The bytes of `lines`, each followed by `eol`; where each line starts.
fn write(lines: &[Line], style: Style, eol: &[u8]) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let mut starts = Vec::new();
    for l in lines {
        starts.push(out.len());
        l.write(style, &mut out);
        out.extend_from_slice(eol);
    }
    (out, starts)
}

/// Run one input (see [`t::run`] for the modes).
pub fn run(data: &[u8]) {
    let modes = t::Modes {
        round_trip,
        equivalent,
        broken,
        damaged,
    };
    t::run(FORMAT, &modes, data);
}

fn json_value(line: &[u8]) -> serde_json::Value {
    serde_json::from_slice(line).unwrap_or_else(|e| {
        panic!(
            "the exporter wrote a line that is not JSON ({e}): {:?}",
            String::from_utf8_lossy(line)
        )
    })
}

fn round_trip(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let exp = t::pick_export(&mut u);
    let bytes = t::export(FORMAT, &exp);
    let spec = lines(&exp);
    let (want, _) = write(&spec, Style::default(), b"\n");
    // Same lines, same fields: compare as JSON values (field order and
    // escapes are the writer's choice).
    let got_lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let want_lines: Vec<&[u8]> = want.split(|&b| b == b'\n').collect();
    assert_eq!(got_lines.len(), want_lines.len(), "line count");
    assert_eq!(
        got_lines.last(),
        Some(&&b""[..]),
        "the export ends with a newline"
    );
    for (i, (g, w)) in got_lines.iter().zip(&want_lines).enumerate() {
        if g.is_empty() && w.is_empty() {
            continue;
        }
        assert_eq!(json_value(g), json_value(w), "line {}", i + 1);
    }
    let out = t::read_export(FORMAT, &exp, &bytes);
    for (i, e) in out.records.iter().enumerate() {
        assert_eq!(e.line, i as u64 + 2, "line of record {i}");
    }

    // Cuts: at a line's end (before or after its newline) the lines
    // before it read; inside a line, an error.
    let cut = u.int_in_range(0..=bytes.len()).unwrap_or(0);
    let out = t::read(FORMAT, exp.codec, &bytes[..cut]);
    let mut start = 0;
    let mut whole = 0usize;
    let mut inside = false;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let body_end = start + line.len() - 1;
        if cut >= body_end {
            whole += 1;
        } else if cut > start {
            inside = true;
        }
        start += line.len();
    }
    let records = whole.saturating_sub(1);
    if inside {
        assert!(out.error.is_some(), "a line cut at byte {cut} was accepted");
        assert_eq!(
            t::error_line(out.message()),
            Some(whole as u64 + 1),
            "the error names the cut line: {}",
            out.message()
        );
    } else {
        assert!(
            out.error.is_none(),
            "cut at a line end ({cut}): {}",
            out.message()
        );
    }
    assert_eq!(
        out.recs(),
        exp.records[..records],
        "records before a cut at {cut}"
    );
}

fn uppercase_hex(j: &mut J) {
    if let J::Str(s) = j {
        s.make_ascii_uppercase();
    }
}

fn unpad(j: &mut J) {
    if let J::Str(s) = j {
        while s.last() == Some(&b'=') {
            s.pop();
        }
    }
}

fn equivalent(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let exp = t::pick_export(&mut u);
    let mut spec = lines(&exp);
    for line in spec.iter_mut().skip(1) {
        let r = &exp.records[line.record.unwrap_or(0)];
        let choice: u8 = u.arbitrary().unwrap_or(0);
        if choice & 1 != 0 {
            // Fields in another order.
            let n = line.fields.len();
            for i in (1..n).rev() {
                let j = u.int_in_range(0..=i).unwrap_or(0);
                line.fields.swap(i, j);
            }
        }
        if choice & 2 != 0 && r.ns.is_empty() {
            line.set("ns", J::Str(Vec::new()));
        }
        if choice & 4 != 0 {
            for (name, enc) in [("key", "key_encoding"), ("value", "value_encoding")] {
                if line.get(enc).is_none() {
                    line.set(enc, J::Str(b"text".to_vec()));
                }
                match line.get(enc) {
                    Some(J::Str(e)) if e == b"hex" => {
                        if let Some(f) = line.fields.iter_mut().find(|f| f.0 == name) {
                            uppercase_hex(&mut f.1);
                        }
                    }
                    Some(J::Str(e)) if e == b"base64" => {
                        if let Some(f) = line.fields.iter_mut().find(|f| f.0 == name) {
                            unpad(&mut f.1);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    // The header is optional.
    if t::rarely(&mut u, 4) {
        spec.remove(0);
    }
    let style = Style {
        spaces: u.arbitrary().unwrap_or(false),
        escape_all: u.arbitrary().unwrap_or(false),
    };
    let eol: &[u8] = if u.arbitrary().unwrap_or(false) {
        b"\r\n"
    } else {
        b"\n"
    };
    // Blank lines between records, and perhaps no final newline.
    let mut bytes = Vec::new();
    let mut record_lines = Vec::new();
    for (i, l) in spec.iter().enumerate() {
        if i > 0 {
            for _ in 0..u.int_in_range(0u8..=2).unwrap_or(0) {
                let blank: &[u8] = [&b""[..], b" ", b"\t", b"\r"][u.choose_index(4).unwrap_or(0)];
                bytes.extend_from_slice(blank);
                bytes.extend_from_slice(eol);
            }
        }
        if l.record.is_some() {
            record_lines.push(t::line_of(&bytes, bytes.len()));
        }
        l.write(style, &mut bytes);
        bytes.extend_from_slice(eol);
    }
    if u.arbitrary().unwrap_or(false) && bytes.ends_with(eol) {
        bytes.truncate(bytes.len() - eol.len());
    }
    t::check_equivalent(FORMAT, &exp, &bytes, Some(&record_lines));
}

/// Ways to make one line invalid.
#[derive(Clone, Copy, Debug)]
enum Break {
    UnknownField,
    MissingField,
    RepeatedField,
    WrongType,
    ExpiryOutOfRange,
    EncodingName,
    BadEncodedText,
    LongNamespace,
    Cut,
    Trailing,
    InvalidUtf8,
    BadEscape,
    NotAnObject,
    HeaderVersion,
    HeaderTypes,
}

const BREAKS: [Break; 15] = [
    Break::UnknownField,
    Break::MissingField,
    Break::RepeatedField,
    Break::WrongType,
    Break::ExpiryOutOfRange,
    Break::EncodingName,
    Break::BadEncodedText,
    Break::LongNamespace,
    Break::Cut,
    Break::Trailing,
    Break::InvalidUtf8,
    Break::BadEscape,
    Break::NotAnObject,
    Break::HeaderVersion,
    Break::HeaderTypes,
];

/// Apply `how` to `line`; false when it does not apply.
fn apply_break(u: &mut Unstructured<'_>, exp: &Export, line: &mut Line, how: Break) -> bool {
    let header = line.text.is_some();
    let pick = |u: &mut Unstructured<'_>, xs: &[&'static [u8]]| -> Vec<u8> {
        xs[u.choose_index(xs.len()).unwrap_or(0)].to_vec()
    };
    match (how, header) {
        (Break::UnknownField, false) => {
            let name = ["ttl", "Key", "keys", "", "expires_at"][u.choose_index(5).unwrap_or(0)];
            line.fields.push((name.to_string(), J::Raw(b"5".to_vec())));
        }
        (Break::MissingField, false) => {
            let name = if u.arbitrary().unwrap_or(false) {
                "key"
            } else {
                "value"
            };
            line.fields.retain(|f| f.0 != name);
        }
        (Break::RepeatedField, false) => {
            let i = u.choose_index(line.fields.len()).unwrap_or(0);
            let f = line.fields[i].clone();
            line.fields.push(f);
        }
        (Break::WrongType, false) => {
            // Each field's type, broken: key and value are strings, the
            // others optional strings or a u64 (so `null` is allowed there).
            let (name, wrong): (&str, &[&'static [u8]]) = match u.int_in_range(0u8..=4).unwrap_or(0)
            {
                0 => ("key", &[b"1", b"[]", b"{}", b"true", b"null"]),
                1 => ("value", &[b"1", b"[]", b"{}", b"true", b"null"]),
                2 => ("ns", &[b"1", b"[]", b"{}", b"true", b"2.5"]),
                3 => ("key_encoding", &[b"1", b"[]", b"{}", b"true", b"2.5"]),
                _ => ("expires_at_ms", &[b"\"5\"", b"[]", b"{}", b"true", b"[5]"]),
            };
            let wrong = pick(u, wrong);
            line.set(name, J::Raw(wrong));
        }
        (Break::ExpiryOutOfRange, false) => {
            let n = pick(
                u,
                &[b"-1", b"1.5", b"18446744073709551616", b"1e3", b"-0.0"],
            );
            line.set("expires_at_ms", J::Raw(n));
        }
        (Break::EncodingName, false) => {
            let name = if u.arbitrary().unwrap_or(false) {
                "key_encoding"
            } else {
                "value_encoding"
            };
            let enc = pick(u, &[b"HEX", b"rot13", b"", b"utf8", b"base64 "]);
            line.set(name, J::Str(enc));
        }
        (Break::BadEncodedText, false) => {
            let (name, enc) = if u.arbitrary().unwrap_or(false) {
                ("key", exp.codec.key)
            } else {
                ("value", exp.codec.value)
            };
            let (enc, bad): (&[u8], Vec<u8>) = match enc {
                Encoding::Hex | Encoding::Text if u.arbitrary().unwrap_or(false) => (
                    b"hex",
                    pick(u, &[b"abc", b"zz", b"0g", b"\xc3\xa9\xc3\xa9"]),
                ),
                _ => (
                    b"base64",
                    pick(u, &[b"!!!!", b"A", b"AB=C", b"\xc3\xa9\xc3\xa9"]),
                ),
            };
            line.set(name, J::Str(bad));
            line.set(&format!("{name}_encoding"), J::Str(enc.to_vec()));
        }
        (Break::LongNamespace, false) => {
            line.set(
                "ns",
                J::Str("n".repeat(t::MAX_NAMESPACE_NAME_LEN + 1).into_bytes()),
            );
        }
        (Break::Cut, _) => {
            let mut text = Vec::new();
            line.write(Style::default(), &mut text);
            let keep = u.int_in_range(1..=text.len() - 1).unwrap_or(1);
            text.truncate(keep);
            line.text = Some(text);
        }
        (Break::Trailing, _) => {
            let mut text = Vec::new();
            line.write(Style::default(), &mut text);
            let junk = pick(u, &[b"x", b",", b"{}", b"}", b"\"\""]);
            text.extend_from_slice(&junk);
            line.text = Some(text);
        }
        (Break::InvalidUtf8, false) => {
            let name = ["key", "value", "ns"][u.choose_index(3).unwrap_or(0)];
            let bad = pick(u, &[b"\xff", b"a\xc3", b"\xed\xa0\x80", b"\xc0\xaf"]);
            line.set(name, J::Str(bad));
            if name != "ns" {
                line.fields.retain(|f| f.0 != format!("{name}_encoding"));
            }
        }
        (Break::BadEscape, false) => {
            let name = ["key", "value", "ns"][u.choose_index(3).unwrap_or(0)];
            let bad = pick(
                u,
                &[
                    b"\"\\x41\"",
                    b"\"\\u12\"",
                    b"\"\\ud800\"",
                    b"\"\\q\"",
                    b"\"a\tb\"",
                ],
            );
            line.set(name, J::Raw(bad));
        }
        (Break::NotAnObject, _) => {
            if header {
                return false;
            }
            line.text = Some(pick(
                u,
                &[
                    b"[]",
                    b"1",
                    b"\"x\"",
                    b"null",
                    b"[{\"key\":\"a\",\"value\":\"b\"}]",
                ],
            ));
        }
        (Break::HeaderVersion, true) => {
            let v = pick(u, &[b"0", b"2", b"-1", b"1.0", b"\"1\"", b"null"]);
            let text = line.text.take().unwrap_or_default();
            let mut new = b"{\"emdb_export\":".to_vec();
            new.extend_from_slice(&v);
            new.extend_from_slice(&text[b"{\"emdb_export\":1".len()..]);
            line.text = Some(new);
        }
        (Break::HeaderTypes, true) => {
            let body: &[u8] = match u.int_in_range(0u8..=3).unwrap_or(0) {
                0 => b"{\"emdb_export\":1,\"namespaces\":\"\"}",
                1 => b"{\"emdb_export\":1,\"namespaces\":[1]}",
                2 => b"{\"emdb_export\":1,\"encrypted\":\"no\"}",
                _ => {
                    let long = "n".repeat(t::MAX_NAMESPACE_NAME_LEN + 1);
                    line.text = Some(
                        format!("{{\"emdb_export\":1,\"namespaces\":[\"\",\"{long}\"]}}")
                            .into_bytes(),
                    );
                    return true;
                }
            };
            line.text = Some(body.to_vec());
        }
        _ => return false,
    }
    true
}

fn broken(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let exp = t::pick_export(&mut u);
    let mut spec = lines(&exp);
    let at = u.choose_index(spec.len()).unwrap_or(0);
    let how = BREAKS[u.choose_index(BREAKS.len()).unwrap_or(0)];
    if !apply_break(&mut u, &exp, &mut spec[at], how) {
        return;
    }
    let (bytes, _) = write(&spec, Style::default(), b"\n");
    let out = t::read(FORMAT, exp.codec, &bytes);
    assert!(
        out.error.is_some(),
        "JSON Lines with {how:?} on line {} was accepted: {:?}",
        at + 1,
        String::from_utf8_lossy(&bytes[..bytes.len().min(400)])
    );
    assert_eq!(
        t::error_line(out.message()),
        Some(at as u64 + 1),
        "{how:?}: the error names another line: {}",
        out.message()
    );
    let before = at.saturating_sub(1);
    assert_eq!(
        out.recs(),
        exp.records[..before],
        "{how:?}: records before it"
    );
}

fn damaged(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let exp = t::pick_export(&mut u);
    let (bytes, starts) = write(&lines(&exp), Style::default(), b"\n");
    let damage = crate::pick_damage(&mut u, 4);
    let mut hurt = bytes.clone();
    crate::apply_damage(&mut hurt, 0, &damage);
    let out = t::read(FORMAT, exp.codec, &hurt);
    let from = t::first_difference(&bytes, &hurt);
    // Record i is line i + 2; its bytes end where the next line starts.
    let ends: Vec<usize> = (0..exp.records.len())
        .map(|i| starts.get(i + 2).copied().unwrap_or(bytes.len()))
        .collect();
    t::check_intact_prefix(FORMAT, &exp, &ends, from, &out);
    t::check_stable(FORMAT, exp.codec, &out);
}
