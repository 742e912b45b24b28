//! Target `import_csv`: the CSV import parser of `emdb import --format csv`
//! (emdb-cli/src/transfer/csv.rs), with the CLI's exporter.
//!
//! The first byte picks a mode:
//! - raw: the bytes as they are, read with encodings from the mode byte;
//! - round trip: an export built from the input (binary keys and values,
//!   namespaces, expiries, all three encodings) is written by the CLI's
//!   writer; a strict RFC 4180 reading written here must find exactly the
//!   header and rows the format describes (module docs of csv.rs), and the
//!   import must give the same records on the lines their rows start on;
//!   then cut at any byte: a cut at a row's end reads the rows before it, a
//!   cut that leaves a row short of fields or inside a quoted field is an
//!   error (a cut inside an unquoted last field cannot be seen: CSV has no
//!   lengths);
//! - equivalent: the same export written as the format allows (columns in
//!   any order, `key:text`, spaces around header names, every field quoted,
//!   LF or CRLF, blank lines, no final line end, uppercase hex, unpadded
//!   base64) reads as the same records on the right lines;
//! - broken: one row or the header is made invalid (a field too many or too
//!   few, an unknown or missing column, a bad encoding suffix, undecodable
//!   hex or base64, an expiry that is not a u64, a namespace that is not
//!   UTF-8 or longer than 255 bytes, a quoted field the input ends in) and
//!   must be an error naming the row's line, after the records before it;
//! - damaged: bit flips, cuts and overwritten bytes anywhere; the records of
//!   the rows before the first damaged byte come back unchanged.
//!
//! Every input also gets the checks of [`crate::transfer::read`] and
//! [`crate::transfer::check_stable`].

use arbitrary::Unstructured;
use emdb_cli::{Encoding, TransferFormat};

use crate::transfer::{self as t, Export};

const FORMAT: TransferFormat = TransferFormat::Csv;

/// One row: fields, and the record it carries (`None`: the header).
#[derive(Clone, Debug)]
pub struct Row {
    /// Field contents.
    pub fields: Vec<Vec<u8>>,
    /// The record, for a data row.
    pub record: Option<usize>,
}

fn column(name: &str, enc: Encoding) -> Vec<u8> {
    match enc {
        Encoding::Text => name.into(),
        Encoding::Hex => format!("{name}:hex").into(),
        Encoding::Base64 => format!("{name}:base64").into(),
    }
}

/// The header and rows of an export, from the format's description.
pub fn rows(exp: &Export) -> Vec<Row> {
    let named = exp.plan.namespaces.iter().any(|n| !n.is_empty());
    let mut header = vec![
        column("key", exp.codec.key),
        column("value", exp.codec.value),
    ];
    if named {
        header.push(b"ns".to_vec());
    }
    if exp.plan.any_expiry {
        header.push(b"expires_at_ms".to_vec());
    }
    let mut out = vec![Row {
        fields: header,
        record: None,
    }];
    for (i, r) in exp.records.iter().enumerate() {
        let mut f = vec![
            t::encoded(exp.codec.key, &r.key),
            t::encoded(exp.codec.value, &r.value),
        ];
        if named {
            f.push(r.ns.as_bytes().to_vec());
        }
        if exp.plan.any_expiry {
            f.push(
                r.expires_at_ms
                    .map(|m| m.to_string().into_bytes())
                    .unwrap_or_default(),
            );
        }
        out.push(Row {
            fields: f,
            record: Some(i),
        });
    }
    out
}

/// How rows are written.
#[derive(Clone, Copy, Debug)]
struct Style {
    quote_all: bool,
    crlf: bool,
}

fn needs_quotes(f: &[u8]) -> bool {
    f.iter().any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
}

fn write_field(f: &[u8], quote: bool, out: &mut Vec<u8>) {
    if !quote {
        out.extend_from_slice(f);
        return;
    }
    out.push(b'"');
    for &b in f {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

fn write_row(fields: &[Vec<u8>], style: Style, out: &mut Vec<u8>) {
    // A row of one empty field would be a blank line, which readers skip.
    let lone_empty = fields.len() == 1 && fields[0].is_empty();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_field(f, style.quote_all || lone_empty || needs_quotes(f), out);
    }
    out.extend_from_slice(if style.crlf { b"\r\n" } else { b"\n" });
}

/// A row as a strict RFC 4180 reading finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// Field contents.
    pub fields: Vec<Vec<u8>>,
    /// Where the row starts.
    pub start: usize,
    /// Where its last field starts.
    pub last_start: usize,
    /// Whether its last field is quoted.
    pub last_quoted: bool,
    /// Where its last field ends (after a closing quote).
    pub last_end: usize,
    /// Where the row ends (after its line end).
    pub end: usize,
}

/// Read `b` as RFC 4180 with CRLF or LF line ends, strictly: quotes only
/// around whole fields, no blank lines. `None` when `b` breaks a rule.
pub fn parse_strict(b: &[u8]) -> Option<Vec<Parsed>> {
    let mut rows = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let mut fields = Vec::new();
        loop {
            let field_start = i;
            let mut f = Vec::new();
            let quoted = b.get(i) == Some(&b'"');
            if quoted {
                i += 1;
                loop {
                    match b.get(i)? {
                        b'"' if b.get(i + 1) == Some(&b'"') => {
                            f.push(b'"');
                            i += 2;
                        }
                        b'"' => {
                            i += 1;
                            break;
                        }
                        &c => {
                            f.push(c);
                            i += 1;
                        }
                    }
                }
            } else {
                while let Some(&c) = b.get(i) {
                    if matches!(c, b',' | b'\r' | b'\n') {
                        break;
                    }
                    if c == b'"' {
                        return None;
                    }
                    f.push(c);
                    i += 1;
                }
            }
            fields.push(f);
            let last_end = i;
            match b.get(i) {
                Some(b',') => i += 1,
                Some(b'\r') | Some(b'\n') | None => {
                    if b.get(i) == Some(&b'\r') {
                        i += 1;
                        if b.get(i) != Some(&b'\n') {
                            return None;
                        }
                    }
                    if b.get(i) == Some(&b'\n') {
                        i += 1;
                    }
                    if fields.len() == 1 && fields[0].is_empty() && !quoted {
                        return None;
                    }
                    rows.push(Parsed {
                        fields,
                        start,
                        last_start: field_start,
                        last_quoted: quoted,
                        last_end,
                        end: i,
                    });
                    break;
                }
                Some(_) => return None,
            }
        }
    }
    Some(rows)
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

fn round_trip(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let exp = t::pick_export(&mut u);
    let bytes = t::export(FORMAT, &exp);
    let spec = rows(&exp);
    let parsed = parse_strict(&bytes).unwrap_or_else(|| {
        panic!(
            "the exporter wrote CSV that is not RFC 4180: {:?}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(400)])
        )
    });
    let got: Vec<&Vec<Vec<u8>>> = parsed.iter().map(|p| &p.fields).collect();
    let want: Vec<&Vec<Vec<u8>>> = spec.iter().map(|r| &r.fields).collect();
    assert_eq!(got, want, "the exporter's rows");
    let out = t::read_export(FORMAT, &exp, &bytes);
    for (i, e) in out.records.iter().enumerate() {
        assert_eq!(
            e.line,
            t::line_of(&bytes, parsed[i + 1].start),
            "line of record {i}"
        );
    }

    let cut = u.int_in_range(0..=bytes.len()).unwrap_or(0);
    let out = t::read(FORMAT, exp.codec, &bytes[..cut]);
    let whole = parsed.iter().take_while(|p| p.last_end <= cut).count();
    let records = whole.saturating_sub(1);
    let recs = out.recs();
    assert!(
        recs.len() >= records.min(exp.records.len()) && recs[..records] == exp.records[..records],
        "records before a cut at {cut}: {}",
        out.message()
    );
    match parsed.get(whole) {
        // The cut is past the last field of every row (perhaps inside a
        // line end): all rows are whole.
        None => assert!(
            out.error.is_none(),
            "cut at the end ({cut}): {}",
            out.message()
        ),
        Some(p) if cut <= p.start => {
            assert!(
                out.error.is_none(),
                "cut between rows ({cut}): {}",
                out.message()
            );
            assert_eq!(recs.len(), records, "rows before a cut at {cut}");
        }
        // A cut before the last field's start leaves the row short of
        // fields (a cut right at it leaves an empty last field: valid).
        Some(p) if whole > 0 && cut < p.last_start => {
            assert!(
                out.error.is_some(),
                "a row cut short of fields at {cut} was accepted"
            );
            assert_eq!(
                t::error_line(out.message()),
                Some(t::line_of(&bytes, p.start)),
                "{}",
                out.message()
            );
        }
        // Inside the quotes of the last field (an odd number of quotes
        // after the opening one would close it: `"a""b"` cut to `"a"`).
        Some(p)
            if p.last_quoted
                && cut > p.last_start
                && bytes[p.last_start + 1..cut]
                    .iter()
                    .filter(|&&b| b == b'"')
                    .count()
                    % 2
                    == 0 =>
        {
            assert!(
                out.error.is_some(),
                "a quoted field cut at {cut} (it starts at {}) was accepted",
                p.last_start
            );
        }
        // Inside the header, or inside an unquoted last field.
        Some(_) => assert!(recs.len() <= records + 1, "records after a cut at {cut}"),
    }
}

fn equivalent(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let exp = t::pick_export(&mut u);
    let mut spec = rows(&exp);
    let n = spec[0].fields.len();
    // Columns in another order.
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = u.int_in_range(0..=i).unwrap_or(0);
        order.swap(i, j);
    }
    for row in &mut spec {
        row.fields = order.iter().map(|&i| row.fields[i].clone()).collect();
    }
    for i in 0..n {
        let name = &mut spec[0].fields[i];
        if (*name == b"key" || *name == b"value") && u.arbitrary().unwrap_or(false) {
            name.extend_from_slice(b":text");
        }
        let encoding = name.clone();
        if u.arbitrary().unwrap_or(false) {
            name.insert(0, b' ');
            name.push(b' ');
        }
        for row in spec.iter_mut().skip(1) {
            let cell = &mut row.fields[i];
            if encoding.ends_with(b":hex") {
                cell.make_ascii_uppercase();
            } else if encoding.ends_with(b":base64") {
                while cell.last() == Some(&b'=') {
                    cell.pop();
                }
            }
        }
    }
    let style = Style {
        quote_all: u.arbitrary().unwrap_or(false),
        crlf: u.arbitrary().unwrap_or(false),
    };
    let eol: &[u8] = if style.crlf { b"\r\n" } else { b"\n" };
    let mut bytes = Vec::new();
    let mut lines = Vec::new();
    for (i, row) in spec.iter().enumerate() {
        if i > 0 {
            for _ in 0..u.int_in_range(0u8..=2).unwrap_or(0) {
                bytes.extend_from_slice(eol);
            }
            lines.push(t::line_of(&bytes, bytes.len()));
        }
        write_row(&row.fields, style, &mut bytes);
    }
    if u.arbitrary().unwrap_or(false) {
        bytes.truncate(bytes.len() - eol.len());
    }
    t::check_equivalent(FORMAT, &exp, &bytes, Some(&lines));
}

/// Ways to make the header or one row invalid.
#[derive(Clone, Copy, Debug)]
enum Break {
    FieldCount,
    UnknownColumn,
    MissingColumn,
    BadSuffix,
    BadEncodedCell,
    BadExpiry,
    BadNamespace,
    UnterminatedQuote,
}

const BREAKS: [Break; 8] = [
    Break::FieldCount,
    Break::UnknownColumn,
    Break::MissingColumn,
    Break::BadSuffix,
    Break::BadEncodedCell,
    Break::BadExpiry,
    Break::BadNamespace,
    Break::UnterminatedQuote,
];

fn col(spec: &[Row], name: &[u8]) -> Option<usize> {
    spec[0]
        .fields
        .iter()
        .position(|f| f == name || f.strip_prefix(name).is_some_and(|r| r.starts_with(b":")))
}

/// Apply `how` to row `at` (0: the header); returns the bytes, or `None`
/// when it does not apply there.
fn apply_break(
    u: &mut Unstructured<'_>,
    spec: &mut Vec<Row>,
    at: usize,
    how: Break,
) -> Option<Vec<u8>> {
    let style = Style {
        quote_all: false,
        crlf: true,
    };
    let pick = |u: &mut Unstructured<'_>, xs: &[&'static [u8]]| -> Vec<u8> {
        xs[u.choose_index(xs.len()).unwrap_or(0)].to_vec()
    };
    match how {
        Break::FieldCount => {
            if at == 0 {
                return None;
            }
            if u.arbitrary().unwrap_or(false) {
                spec[at].fields.push(b"x".to_vec());
            } else {
                spec[at].fields.pop();
            }
        }
        Break::UnknownColumn => {
            if at != 0 {
                return None;
            }
            let name = pick(u, &[b"keys", b"", b"ttl", b"Key", b"namespace"]);
            if u.arbitrary().unwrap_or(false) {
                for row in spec.iter_mut() {
                    row.fields.push(Vec::new());
                }
                spec[0].fields.last_mut()?.clone_from(&name);
            } else {
                let i = u.choose_index(spec[0].fields.len()).ok()?;
                spec[0].fields[i] = name;
            }
        }
        Break::MissingColumn => {
            if at != 0 {
                return None;
            }
            let i = col(
                spec,
                if u.arbitrary().unwrap_or(false) {
                    b"key"
                } else {
                    b"value"
                },
            )?;
            for row in spec.iter_mut() {
                row.fields.remove(i);
            }
        }
        Break::BadSuffix => {
            if at != 0 {
                return None;
            }
            let (name, suffix): (&[u8], Vec<u8>) = match u.int_in_range(0u8..=3).unwrap_or(0) {
                0 => (b"key", pick(u, &[b":rot13", b":", b":HEX", b":hex:hex"])),
                1 => (b"value", pick(u, &[b":rot13", b":", b":Base64", b":utf8"])),
                2 => (b"ns", pick(u, &[b":text", b":hex"])),
                _ => (b"expires_at_ms", pick(u, &[b":text", b":ms"])),
            };
            let i = col(spec, name)?;
            let mut new = name.to_vec();
            new.extend_from_slice(&suffix);
            spec[0].fields[i] = new;
        }
        Break::BadEncodedCell => {
            if at == 0 {
                return None;
            }
            let name: &[u8] = if u.arbitrary().unwrap_or(false) {
                b"key"
            } else {
                b"value"
            };
            let i = col(spec, name)?;
            let bad = if spec[0].fields[i].ends_with(b":hex") {
                pick(u, &[b"abc", b"zz", b"0g", b"\xff\xff"])
            } else if spec[0].fields[i].ends_with(b":base64") {
                pick(u, &[b"!!!!", b"A", b"AB=C", b"\xff\xff\xff\xff"])
            } else {
                return None;
            };
            spec[at].fields[i] = bad;
        }
        Break::BadExpiry => {
            if at == 0 {
                return None;
            }
            let i = col(spec, b"expires_at_ms")?;
            spec[at].fields[i] = pick(
                u,
                &[
                    b"soon",
                    b"-1",
                    b"1.5",
                    b"18446744073709551616",
                    b"0x10",
                    b"1 2",
                ],
            );
        }
        Break::BadNamespace => {
            if at == 0 {
                return None;
            }
            let i = col(spec, b"ns")?;
            spec[at].fields[i] = if u.arbitrary().unwrap_or(false) {
                b"\xff".to_vec()
            } else {
                vec![b'n'; t::MAX_NAMESPACE_NAME_LEN + 1]
            };
        }
        Break::UnterminatedQuote => {
            // The input ends inside the quoted last field of row `at`.
            spec.truncate(at + 1);
            let mut bytes = Vec::new();
            for row in &spec[..at] {
                write_row(&row.fields, style, &mut bytes);
            }
            let (last, rest) = spec[at].fields.split_last()?;
            for f in rest {
                write_field(f, needs_quotes(f), &mut bytes);
                bytes.push(b',');
            }
            let mut field = Vec::new();
            write_field(last, true, &mut field);
            // Drop the closing quote and perhaps more, never the opening one.
            let keep = u.int_in_range(1..=field.len() - 1).unwrap_or(1);
            field.truncate(keep);
            // A doubled quote cut in half would close the field.
            if field.iter().skip(1).filter(|&&b| b == b'"').count() % 2 == 1 {
                field.pop();
            }
            bytes.extend_from_slice(&field);
            return Some(bytes);
        }
    }
    let mut bytes = Vec::new();
    for row in spec.iter() {
        write_row(&row.fields, style, &mut bytes);
    }
    Some(bytes)
}

fn broken(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let exp = t::pick_export(&mut u);
    let mut spec = rows(&exp);
    let at = u.choose_index(spec.len()).unwrap_or(0);
    let how = BREAKS[u.choose_index(BREAKS.len()).unwrap_or(0)];
    // Lines of the rows, as written before the break.
    let mut clean = Vec::new();
    let mut line = Vec::new();
    for row in &spec {
        line.push(t::line_of(&clean, clean.len()));
        write_row(
            &row.fields,
            Style {
                quote_all: false,
                crlf: true,
            },
            &mut clean,
        );
    }
    let Some(bytes) = apply_break(&mut u, &mut spec, at, how) else {
        return;
    };
    let out = t::read(FORMAT, exp.codec, &bytes);
    assert!(
        out.error.is_some(),
        "CSV with {how:?} in row {at} was accepted: {:?}",
        String::from_utf8_lossy(&bytes[..bytes.len().min(400)])
    );
    assert_eq!(
        t::error_line(out.message()),
        Some(line[at]),
        "{how:?} in row {at}: the error names another line: {}",
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
    let spec = rows(&exp);
    let mut bytes = Vec::new();
    let mut ends = Vec::new();
    for row in &spec {
        write_row(
            &row.fields,
            Style {
                quote_all: false,
                crlf: true,
            },
            &mut bytes,
        );
        if row.record.is_some() {
            ends.push(bytes.len());
        }
    }
    let damage = crate::pick_damage(&mut u, 4);
    let mut hurt = bytes.clone();
    crate::apply_damage(&mut hurt, 0, &damage);
    let out = t::read(FORMAT, exp.codec, &hurt);
    let from = t::first_difference(&bytes, &hurt);
    t::check_intact_prefix(FORMAT, &exp, &ends, from, &out);
    t::check_stable(FORMAT, exp.codec, &out);
}
