//! Shared parts of the import targets (`import_jsonl`, `import_csv`,
//! `import_resp`): the records an export is built from, the reader run with
//! the checks that hold for *any* input, and the round trip through the
//! CLI's own exporter.
//!
//! Checks every input gets ([`read`], [`check_stable`]):
//! - the reader does not panic, and holds at most [`MEMORY_PER_INPUT_BYTE`]
//!   times the input plus [`MEMORY_SLACK`] at once (a declared length alone
//!   must not make it allocate);
//! - it stops at its first error, which is `BadInput` (exit 7; the input is
//!   in memory, so nothing else can fail) and names a line of the input;
//! - records name a valid namespace and increasing lines (strictly, but
//!   for CSV rows that share a line ended by a lone `\r`);
//! - whatever it accepts is stable: exported again by the CLI's writer in the
//!   same format and encodings, it reads back as the same records and header.

use arbitrary::Unstructured;
use emdb_cli::transfer::{self, Entry, Header, Item, Plan};
use emdb_cli::{CliError, Codec, Encoding, Kind, TransferFormat};

use crate::alloc::peak_during;

/// A reader may hold this many bytes per input byte at once ...
pub const MEMORY_PER_INPUT_BYTE: usize = 16;
/// ... plus this much.
pub const MEMORY_SLACK: usize = 1 << 20;
/// Longest namespace name (`emdb_core::MAX_NAMESPACE_NAME_LEN`).
pub const MAX_NAMESPACE_NAME_LEN: usize = 255;

/// One record as the exporter takes it (`ns` `""`: the default namespace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rec {
    /// Namespace name.
    pub ns: String,
    /// Key bytes.
    pub key: Vec<u8>,
    /// Value bytes.
    pub value: Vec<u8>,
    /// Expiry, ms since the Unix epoch.
    pub expires_at_ms: Option<u64>,
}

impl Rec {
    /// The record an import entry stands for.
    pub fn from_entry(e: &Entry) -> Rec {
        Rec {
            ns: e.ns.clone().unwrap_or_default(),
            key: e.key.clone(),
            value: e.value.clone(),
            expires_at_ms: e.expires_at_ms,
        }
    }
}

/// An export: what the exporter is told, the encodings, and the records.
#[derive(Clone, Debug)]
pub struct Export {
    /// The plan handed to `transfer::writer`.
    pub plan: Plan,
    /// Key and value encodings.
    pub codec: Codec,
    /// Records in the order written.
    pub records: Vec<Rec>,
}

/// What a reader made of an input.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Headers, in the order read.
    pub headers: Vec<Header>,
    /// Records read before the end or the error.
    pub records: Vec<Entry>,
    /// The error that stopped the reader.
    pub error: Option<CliError>,
}

impl Outcome {
    /// The records without their lines.
    pub fn recs(&self) -> Vec<Rec> {
        self.records.iter().map(Rec::from_entry).collect()
    }

    /// The error's message, or `""`.
    pub fn message(&self) -> &str {
        self.error.as_ref().map_or("", |e| &e.message)
    }
}

/// Format tokens and edge bytes, so that keys, values and names hit the
/// syntax of all three formats (like a libFuzzer dictionary).
pub const TOKENS: &[&[u8]] = &[
    b"\r\n",
    b"\n",
    b"\r",
    b"\"",
    b"\"\"",
    b",",
    b":",
    b"\\",
    b"\\u0000",
    b"\0",
    b"$3",
    b"$-1",
    b"*3\r\n",
    b"*3\r\n$3\r\nSET\r\n",
    b"SET",
    b"ECHO",
    b"PXAT",
    b"{",
    b"}",
    b"{\"emdb_export\":1}",
    b"emdb_export",
    b"\"emdb_export\"",
    b"emdb_namespace",
    b"{\"emdb_namespace\":\"a\"}",
    b"key",
    b"value",
    b"ns",
    b"key:hex",
    b"expires_at_ms",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\xc3\xa9",
    b"\xe2\x80\xa8",
    b"\xf0\x9f\x98\x80",
    b" ",
    b"\t",
    b"=",
    b"00",
];

/// Bytes for a key or value: empty, fuzzer bytes, or format tokens.
pub fn pick_blob(u: &mut Unstructured<'_>) -> Vec<u8> {
    match u.int_in_range(0u8..=15).unwrap_or(0) {
        0 => Vec::new(),
        1..=6 => crate::pick_bytes(u, 64),
        7..=12 => {
            let mut b = Vec::new();
            for _ in 0..u.int_in_range(1u8..=4).unwrap_or(1) {
                if u.arbitrary().unwrap_or(false) {
                    b.extend_from_slice(pick_token(u));
                } else {
                    b.extend_from_slice(&crate::pick_bytes(u, 8));
                }
            }
            b
        }
        _ => pick_token(u).to_vec(),
    }
}

/// Long bytes: just past one read of the CSV reader's 8 KiB buffer, or
/// past the 64 KiB a RESP string's buffer starts with (and the key limit).
pub fn pick_long(u: &mut Unstructured<'_>) -> Vec<u8> {
    let len = if u.arbitrary().unwrap_or(false) {
        u.int_in_range(8_100usize..=8_400).unwrap_or(8_100)
    } else {
        u.int_in_range(65_540usize..=65_800).unwrap_or(65_540)
    };
    let fill = pick_token(u);
    fill.iter().copied().cycle().take(len).collect()
}

/// True once in `one_in` inputs, and false when the input is used up
/// (`Unstructured` then answers the low end of every range, which would
/// make `ratio` always true).
pub fn rarely(u: &mut Unstructured<'_>, one_in: u8) -> bool {
    u.int_in_range(1..=one_in).unwrap_or(1) == one_in
}

/// One of [`TOKENS`].
pub fn pick_token(u: &mut Unstructured<'_>) -> &'static [u8] {
    TOKENS[u.choose_index(TOKENS.len()).unwrap_or(0)]
}

/// A namespace name the engine accepts: 1 to 255 bytes of UTF-8.
pub fn pick_name(u: &mut Unstructured<'_>) -> String {
    let name = match u.int_in_range(0u8..=7).unwrap_or(0) {
        0..=2 => String::from_utf8_lossy(pick_token(u)).into_owned(),
        3 => "n".repeat(MAX_NAMESPACE_NAME_LEN),
        4 => "é".repeat(MAX_NAMESPACE_NAME_LEN / 2),
        _ => u.arbitrary::<String>().unwrap_or_default(),
    };
    let mut name: String = name.chars().take(MAX_NAMESPACE_NAME_LEN).collect();
    while name.len() > MAX_NAMESPACE_NAME_LEN {
        name.pop();
    }
    if name.is_empty() {
        name.push('a');
    }
    name
}

/// One of the three encodings.
pub fn pick_encoding(u: &mut Unstructured<'_>) -> Encoding {
    match u.int_in_range(0u8..=3).unwrap_or(0) {
        0 | 1 => Encoding::Text,
        2 => Encoding::Hex,
        _ => Encoding::Base64,
    }
}

/// Encodings for keys and values.
pub fn pick_codec(u: &mut Unstructured<'_>) -> Codec {
    Codec {
        key: pick_encoding(u),
        value: pick_encoding(u),
    }
}

/// The encodings a raw input is read with, from its mode byte.
pub fn codec_from_byte(b: u8) -> Codec {
    let enc = |x: u8| match x % 3 {
        0 => Encoding::Text,
        1 => Encoding::Hex,
        _ => Encoding::Base64,
    };
    Codec {
        key: enc(b >> 2),
        value: enc(b >> 4),
    }
}

/// An expiry: mostly none, sometimes an edge.
pub fn pick_expiry(u: &mut Unstructured<'_>) -> Option<u64> {
    match u.int_in_range(0u8..=7).unwrap_or(0) {
        0..=3 => None,
        4 => Some(1_767_225_600_000),
        5 => Some(0),
        6 => Some(u64::MAX),
        _ => Some(u.arbitrary().unwrap_or(1)),
    }
}

/// An export as `emdb export` would write it: namespaces (the default one
/// first, usually), records grouped by namespace and sorted by key, no key
/// twice in a namespace.
pub fn pick_export(u: &mut Unstructured<'_>) -> Export {
    let mut namespaces = Vec::new();
    if !rarely(u, 8) {
        namespaces.push(String::new());
    }
    for _ in 0..u.int_in_range(0u8..=3).unwrap_or(0) {
        let name = pick_name(u);
        if !namespaces.contains(&name) {
            namespaces.push(name);
        }
    }
    if namespaces.is_empty() {
        namespaces.push(pick_name(u));
    }
    let mut records = Vec::new();
    for _ in 0..u.int_in_range(0u8..=10).unwrap_or(0) {
        let ns = u.choose_index(namespaces.len()).unwrap_or(0);
        records.push((
            ns,
            Rec {
                ns: namespaces[ns].clone(),
                key: pick_blob(u),
                value: pick_blob(u),
                expires_at_ms: pick_expiry(u),
            },
        ));
    }
    // Rarely one long key or value: checking one costs as much as a
    // thousand short inputs (every byte through traced comparisons).
    if !records.is_empty() && rarely(u, 128) {
        let i = u.choose_index(records.len()).unwrap_or(0);
        let long = pick_long(u);
        if u.arbitrary().unwrap_or(false) {
            records[i].1.key = long;
        } else {
            records[i].1.value = long;
        }
    }
    records.sort_by(|a, b| (a.0, &a.1.key).cmp(&(b.0, &b.1.key)));
    records.dedup_by(|a, b| a.0 == b.0 && a.1.key == b.1.key);
    let records: Vec<Rec> = records.into_iter().map(|r| r.1).collect();
    let any_expiry = records.iter().any(|r| r.expires_at_ms.is_some()) || rarely(u, 8);
    Export {
        plan: Plan {
            namespaces,
            encrypted: u.arbitrary().unwrap_or(false),
            any_expiry,
        },
        codec: pick_codec(u),
        records,
    }
}

/// The CLI's exporter's output for `exp`.
pub fn export(format: TransferFormat, exp: &Export) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = transfer::writer(format, &mut out, exp.codec, &exp.plan)
        .unwrap_or_else(|e| panic!("{format:?}: the writer failed: {}", e.message));
    for r in &exp.records {
        w.record(&r.ns, &r.key, &r.value, r.expires_at_ms)
            .unwrap_or_else(|e| panic!("{format:?}: the writer failed on {r:?}: {}", e.message));
    }
    w.finish()
        .unwrap_or_else(|e| panic!("{format:?}: the writer failed: {}", e.message));
    drop(w);
    out
}

/// Lines in `bytes` (a last line without `\n` counts).
pub fn line_count(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1
}

/// The line of byte `at` (1-based).
pub fn line_of(bytes: &[u8], at: usize) -> u64 {
    line_count(&bytes[..at.min(bytes.len())])
}

/// The `N` of an error message `line N: ...`.
pub fn error_line(message: &str) -> Option<u64> {
    let rest = message.strip_prefix("line ")?;
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    rest[..end].parse().ok()
}

/// Run the reader of `format` over `bytes` and check what holds for any
/// input (see the module docs).
pub fn read(format: TransferFormat, codec: Codec, bytes: &[u8]) -> Outcome {
    let (out, peak) = peak_during(|| {
        let mut out = Outcome::default();
        let mut items = transfer::reader(format, Box::new(bytes), codec);
        for item in items.by_ref() {
            match item {
                Ok(Item::Header(h)) => {
                    if format == TransferFormat::Jsonl {
                        assert!(
                            out.headers.is_empty() && out.records.is_empty(),
                            "{format:?}: a header after the first line"
                        );
                    }
                    out.headers.push(h);
                }
                Ok(Item::Record(e)) => out.records.push(e),
                // Redis commands other than SET: never in an emdb export,
                // and nothing an export must match.
                Ok(Item::Command(_)) => {}
                Err(e) => {
                    out.error = Some(e);
                    break;
                }
            }
        }
        if out.error.is_some() {
            assert!(
                items.next().is_none(),
                "{format:?}: the reader went on after an error"
            );
        }
        out
    });
    let limit = bytes.len() * MEMORY_PER_INPUT_BYTE + MEMORY_SLACK;
    assert!(
        peak <= limit,
        "{format:?}: reading {} bytes held {peak} bytes at once (limit {limit}); error: {:?}",
        bytes.len(),
        out.message()
    );
    let lines = line_count(bytes);
    if let Some(e) = &out.error {
        assert_eq!(
            e.kind,
            Kind::BadInput,
            "{format:?}: an input in memory failed with {:?}: {}",
            e.kind,
            e.message
        );
        let at = error_line(&e.message)
            .unwrap_or_else(|| panic!("{format:?}: the error names no line: {}", e.message));
        assert!(
            (1..=lines).contains(&at),
            "{format:?}: the error names line {at} of {lines}: {}",
            e.message
        );
    }
    if format == TransferFormat::Csv {
        assert!(out.headers.is_empty(), "CSV has no header item");
    }
    for h in &out.headers {
        for ns in &h.namespaces {
            assert!(
                ns.len() <= MAX_NAMESPACE_NAME_LEN,
                "{format:?}: a header names a {}-byte namespace",
                ns.len()
            );
        }
    }
    // Lines count `\n`: CSV rows may share one when a lone `\r` ends a row.
    let mut last = 0;
    for e in &out.records {
        if let Some(ns) = &e.ns {
            assert!(
                (1..=MAX_NAMESPACE_NAME_LEN).contains(&ns.len()),
                "{format:?}: a record names a {}-byte namespace",
                ns.len()
            );
        }
        let next = e.line > last || (format == TransferFormat::Csv && e.line == last);
        assert!(
            next && (1..=lines).contains(&e.line),
            "{format:?}: record line {} after line {last}, in {lines} lines",
            e.line
        );
        last = e.line;
    }
    out
}

/// Read `bytes`, which the exporter wrote for `exp`: no error, the same
/// records and (JSON Lines, RESP) the header of the plan.
pub fn read_export(format: TransferFormat, exp: &Export, bytes: &[u8]) -> Outcome {
    let out = read(format, exp.codec, bytes);
    assert!(
        out.error.is_none(),
        "{format:?}: the reader refused the exporter's output: {}\n{exp:?}",
        out.message()
    );
    assert_eq!(
        out.recs(),
        exp.records,
        "{format:?}: records changed in a round trip ({:?})",
        exp.codec
    );
    if format != TransferFormat::Csv {
        assert_eq!(out.headers.len(), 1, "{format:?}: header count");
        assert_eq!(out.headers[0].namespaces, exp.plan.namespaces);
        assert_eq!(out.headers[0].encrypted, exp.plan.encrypted);
    }
    out
}

/// What the reader accepted, exported again with the CLI's writer and read
/// back, gives the same records (and header).
pub fn check_stable(format: TransferFormat, codec: Codec, out: &Outcome) {
    if out.records.is_empty() && out.headers.is_empty() {
        return;
    }
    let header = out.headers.first();
    let mut namespaces = header.map_or_else(|| vec![String::new()], |h| h.namespaces.clone());
    for e in &out.records {
        let ns = e.ns.clone().unwrap_or_default();
        if !namespaces.contains(&ns) {
            namespaces.push(ns);
        }
    }
    let records = out.recs();
    let exp = Export {
        plan: Plan {
            namespaces,
            encrypted: header.is_some_and(|h| h.encrypted),
            any_expiry: records.iter().any(|r| r.expires_at_ms.is_some()),
        },
        codec,
        records,
    };
    let again = export(format, &exp);
    read_export(format, &exp, &again);
}

/// The ways an import target uses an input, besides reading it raw.
pub struct Modes {
    /// Export a picked record set with the CLI and read it back.
    pub round_trip: fn(&[u8]),
    /// Write the same records another valid way; they must read the same.
    pub equivalent: fn(&[u8]),
    /// Make one line or field invalid; the reader must say where.
    pub broken: fn(&[u8]),
    /// Damage a valid export's bytes.
    pub damaged: fn(&[u8]),
}

/// Run one input of an import target: its first byte picks the mode (raw
/// bytes in either codec, or one of `modes`), the rest is the mode's input.
pub fn run(format: TransferFormat, modes: &Modes, data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 8 {
        0 | 1 => {
            let codec = codec_from_byte(mode);
            check_stable(format, codec, &read(format, codec, rest));
        }
        2 => (modes.round_trip)(rest),
        3 | 4 => (modes.equivalent)(rest),
        5 | 6 => (modes.broken)(rest),
        _ => (modes.damaged)(rest),
    }
}

/// Read `bytes`, the records of `exp` written another valid way than the
/// exporter's: accepted, the same records, each on its line of `lines`
/// where given, and stable.
pub fn check_equivalent(format: TransferFormat, exp: &Export, bytes: &[u8], lines: Option<&[u64]>) {
    let out = read(format, exp.codec, bytes);
    assert!(
        out.error.is_none(),
        "{format:?}: an equivalent export was refused: {}",
        out.message()
    );
    assert_eq!(
        out.recs(),
        exp.records,
        "{format:?}: an equivalent export read differently"
    );
    if let Some(lines) = lines {
        let got: Vec<u64> = out.records.iter().map(|e| e.line).collect();
        assert_eq!(got, lines, "record lines");
    }
    check_stable(format, exp.codec, &out);
}

/// The first byte where `a` and `b` differ (the shorter length when one is
/// a prefix of the other; the length when equal).
pub fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// After damage from byte `from` on, the records whose bytes all lie before
/// it (`ends[i]`: where record `i`'s bytes end) come back unchanged.
pub fn check_intact_prefix(
    format: TransferFormat,
    exp: &Export,
    ends: &[usize],
    from: usize,
    out: &Outcome,
) {
    let intact = ends.iter().take_while(|&&end| end <= from).count();
    let recs = out.recs();
    assert!(
        recs.len() >= intact,
        "{format:?}: damage from byte {from} lost records before it: read {} of {intact}; error: {}",
        recs.len(),
        out.message()
    );
    assert_eq!(
        recs[..intact],
        exp.records[..intact],
        "{format:?}: damage from byte {from} changed records before it"
    );
}

/// `bytes` in `enc`, written here from the format descriptions: lowercase
/// hex, padded standard base64 (RFC 4648).
pub fn encoded(enc: Encoding, bytes: &[u8]) -> Vec<u8> {
    match enc {
        Encoding::Text => bytes.to_vec(),
        Encoding::Hex => bytes
            .iter()
            .flat_map(|b| {
                let d = |n: u8| b"0123456789abcdef"[usize::from(n)];
                [d(b >> 4), d(b & 15)]
            })
            .collect(),
        Encoding::Base64 => {
            const A: &[u8; 64] =
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            let mut s = Vec::new();
            for c in bytes.chunks(3) {
                let n = (u32::from(c[0]) << 16)
                    | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                    | u32::from(*c.get(2).unwrap_or(&0));
                for i in 0..4 {
                    s.push(if i <= c.len() {
                        A[(n >> (18 - 6 * i)) as usize & 63]
                    } else {
                        b'='
                    });
                }
            }
            s
        }
    }
}

/// The export header as JSON, as JSON Lines and RESP describe it.
pub fn header_json(exp: &Export) -> Vec<u8> {
    format!(
        "{{\"emdb_export\":1,\"namespaces\":{},\"encrypted\":{}}}",
        serde_json::to_string(&exp.plan.namespaces).unwrap_or_default(),
        exp.plan.encrypted
    )
    .into_bytes()
}
