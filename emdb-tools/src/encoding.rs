//! Bytes <-> text: the one encoding option that governs arguments, stdin,
//! output, import and export alike (the `emdb` options `--key-format`,
//! `--value-format`, `--hex` and `--base64` choose a [`Codec`]).

use std::borrow::Cow;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::Path;

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;

use crate::error::{ToolError, ToolResult};

/// How bytes are written as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 text, bytes as given; non-printable output is escaped.
    Text,
    /// Two hex digits per byte.
    Hex,
    /// Standard base64 with padding.
    Base64,
}

impl Encoding {
    /// The encoding's name, as the command lines spell it.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Text => "text",
            Encoding::Hex => "hex",
            Encoding::Base64 => "base64",
        }
    }
}

/// Standard alphabet; writes padding, accepts input with or without it.
const B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The encodings in force for keys and values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Codec {
    /// Encoding of keys.
    pub key: Encoding,
    /// Encoding of values.
    pub value: Encoding,
}

impl Default for Codec {
    fn default() -> Self {
        Codec {
            key: Encoding::Text,
            value: Encoding::Text,
        }
    }
}

impl Codec {
    /// `key` for keys, `value` for values.
    pub fn new(key: Encoding, value: Encoding) -> Codec {
        Codec { key, value }
    }

    /// Decode a key given on the command line.
    pub fn key_arg(&self, arg: &OsStr) -> ToolResult<Vec<u8>> {
        decode(self.key, &os_bytes(arg, "KEY")?).map_err(|e| e.context("KEY"))
    }

    /// Decode a value given on the command line, stdin or a file.
    pub fn value_bytes(&self, raw: &[u8]) -> ToolResult<Vec<u8>> {
        decode(self.value, raw).map_err(|e| e.context("VALUE"))
    }
}

/// The bytes of a command-line argument (any bytes on Unix).
pub fn os_bytes(arg: &OsStr, what: &str) -> ToolResult<Vec<u8>> {
    #[cfg(unix)]
    {
        let _ = what;
        use std::os::unix::ffi::OsStrExt;
        Ok(arg.as_bytes().to_vec())
    }
    #[cfg(not(unix))]
    {
        arg.to_str()
            .map(|s| s.as_bytes().to_vec())
            .ok_or_else(|| ToolError::bad_input(format!("{what} is not valid Unicode")))
    }
}

/// Decode text in `enc` into bytes. Hex and base64 ignore surrounding
/// whitespace (so a trailing newline from `echo` is fine).
pub fn decode(enc: Encoding, input: &[u8]) -> ToolResult<Vec<u8>> {
    match enc {
        Encoding::Text => Ok(input.to_vec()),
        Encoding::Hex => decode_hex(input.trim_ascii()),
        Encoding::Base64 => B64.decode(input.trim_ascii()).map_err(|e| {
            ToolError::bad_input(format!("not valid base64: {e}"))
                .hint("pass base64 text, or choose another --key-format/--value-format")
        }),
    }
}

fn decode_hex(s: &[u8]) -> ToolResult<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return Err(ToolError::bad_input(format!(
            "not valid hex: odd number of digits ({})",
            s.len()
        ))
        .hint("hex needs two digits per byte"));
    }
    let digit = |i: usize| -> ToolResult<u8> {
        let c = s[i];
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(ToolError::bad_input(format!(
                "not valid hex: {:?} at position {i}",
                char::from(c)
            ))
            .hint("hex uses the digits 0-9 and a-f; choose another --key-format/--value-format for text")),
        }
    };
    (0..s.len() / 2)
        .map(|i| Ok(digit(2 * i)? << 4 | digit(2 * i + 1)?))
        .collect()
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Padded standard base64 of `bytes`.
pub fn base64(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

/// Where escaped text is going to be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A whole value on its own (`get`): newlines and tabs print as they are.
    Block,
    /// A field in a line-oriented listing: newlines and tabs are escaped too.
    Field,
}

/// `bytes` as text that is safe to print on a terminal, in `enc`.
pub fn display(enc: Encoding, bytes: &[u8], layout: Layout) -> Cow<'_, str> {
    match enc {
        Encoding::Hex => Cow::Owned(hex(bytes)),
        Encoding::Base64 => Cow::Owned(base64(bytes)),
        Encoding::Text => escape_text(bytes, layout),
    }
}

/// Whether `c` is drawn as nothing, or changes how its neighbours are
/// drawn, without being a control character: the format characters
/// (Unicode category Cf: soft hyphen, zero-width space and joiners, the
/// bidirectional marks, embeddings, overrides and isolates, the byte order
/// mark, tags, ...), the line and paragraph separators (Zl, Zp), the
/// invisible Hangul fillers, the combining grapheme joiner, the Khmer
/// inherent vowels and the variation selectors (which change the width of
/// the character before them).
///
/// Text shown to a person escapes these as it escapes control characters,
/// so that two different names never look the same and a name cannot
/// reorder or shift what is drawn after it.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'                        // soft hyphen
            | '\u{34f}'                 // combining grapheme joiner
            | '\u{600}'..='\u{605}'      // Arabic number signs
            | '\u{61c}'                 // Arabic letter mark
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{115f}'..='\u{1160}'    // Hangul fillers
            | '\u{17b4}'..='\u{17b5}'    // Khmer inherent vowels
            | '\u{180b}'..='\u{180f}'    // Mongolian variation selectors, vowel separator
            | '\u{200b}'..='\u{200f}'    // zero-width space, joiners, LRM, RLM
            | '\u{2028}'..='\u{202e}'    // line/paragraph separators, bidi embeddings
            | '\u{2060}'..='\u{2064}'    // word joiner, invisible operators
            | '\u{2066}'..='\u{206f}'    // bidi isolates, deprecated format characters
            | '\u{3164}'                // Hangul filler
            | '\u{fe00}'..='\u{fe0f}'    // variation selectors
            | '\u{feff}'                // byte order mark
            | '\u{ffa0}'                // halfwidth Hangul filler
            | '\u{fff9}'..='\u{fffb}'    // interlinear annotation
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'  // Egyptian hieroglyph format controls
            | '\u{1bca0}'..='\u{1bca3}'  // shorthand format controls
            | '\u{1d173}'..='\u{1d17a}'  // musical symbol format controls
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'  // tags
            | '\u{e0100}'..='\u{e01ef}' // variation selectors supplement
    )
}

/// Printable UTF-8 without a backslash is returned as is. Anything else
/// (a backslash, invalid UTF-8, control characters, [invisible](is_invisible)
/// characters) is escaped: `\\` for every backslash, `\n`, `\t`, `\r`,
/// `\xNN` for other bytes, `\u{N}` for C1 controls and invisible
/// characters. Since every backslash is escaped, the output is
/// unambiguous: [`unescape_text`] turns it back into the exact bytes.
pub fn escape_text(bytes: &[u8], layout: Layout) -> Cow<'_, str> {
    // The common case, printable ASCII without a backslash, in one cheap
    // pass over bytes rather than chars.
    if bytes
        .iter()
        .all(|&b| (b' '..=b'~').contains(&b) && b != b'\\')
    {
        if let Ok(s) = std::str::from_utf8(bytes) {
            return Cow::Borrowed(s);
        }
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        if !s.chars().any(|c| needs_escape(c, layout)) {
            return Cow::Borrowed(s);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str(if layout == Layout::Block { "\n" } else { "\\n" }),
                '\t' => out.push_str(if layout == Layout::Block { "\t" } else { "\\t" }),
                '\r' => out.push_str("\\r"),
                c if c.is_ascii_control() => {
                    let _ = write!(out, "\\x{:02x}", u32::from(c));
                }
                c if c.is_control() || is_invisible(c) => {
                    let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char, layout: Layout) -> bool {
    match c {
        '\\' => true,
        '\n' | '\t' => layout == Layout::Field,
        c => c.is_control() || is_invisible(c),
    }
}

/// A file path as listings show it: its bytes [`escape_text`]ed as a
/// field, so that a path holding terminal commands, a newline or invisible
/// characters is shown, not obeyed, and stays on its line.
pub fn escape_path(path: &Path) -> Cow<'_, str> {
    escape_text(path.as_os_str().as_encoded_bytes(), Layout::Field)
}

/// `text` as one line of a message (an error, its hint, a note, a status
/// report): control and [invisible](is_invisible) characters are escaped
/// as [`escape_text`] escapes them (`\n`, `\t`, `\r`, `\xNN`, `\u{N}`),
/// everything else, backslashes included, is kept. Not reversible, and not
/// meant to be: the keys and names a message quotes are escaped already
/// (their backslashes doubled), and this only keeps the rest (a path, an
/// engine's message naming one) from reaching the terminal raw.
pub fn escape_line(text: &str) -> Cow<'_, str> {
    let hidden = |c: char| c.is_control() || is_invisible(c);
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if hidden(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The bytes that [`escape_text`] printed as `text` (either layout).
/// Fails on a backslash that does not start one of its escapes.
pub fn unescape_text(text: &str) -> ToolResult<Vec<u8>> {
    let bad = |at: usize| {
        ToolError::bad_input(format!(
            "not valid escaped text: a backslash at byte {at} starts no known escape"
        ))
        .hint("escapes are \\\\, \\n, \\t, \\r, \\xNN and \\u{N..}")
    };
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        match bytes.get(i + 1) {
            Some(b'\\') => out.push(b'\\'),
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(b'r') => out.push(b'\r'),
            Some(b'x') => {
                let hex = text.get(i + 2..i + 4).ok_or_else(|| bad(i))?;
                out.push(u8::from_str_radix(hex, 16).map_err(|_| bad(i))?);
                i += 4;
                continue;
            }
            Some(b'u') => {
                let rest = text.get(i + 2..).ok_or_else(|| bad(i))?;
                let body = rest
                    .strip_prefix('{')
                    .and_then(|r| r.split_once('}'))
                    .ok_or_else(|| bad(i))?
                    .0;
                let c = u32::from_str_radix(body, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| bad(i))?;
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                i += 4 + body.len();
                continue;
            }
            _ => return Err(bad(i)),
        }
        i += 2;
    }
    Ok(out)
}

/// A key or value as a JSON string plus its encoding, when not plain text.
///
/// Text that is valid UTF-8 stays a plain string; other bytes in text mode
/// fall back to base64, so JSON output is always binary-safe.
pub fn json_field(enc: Encoding, bytes: &[u8]) -> (Cow<'_, str>, Option<&'static str>) {
    match enc {
        Encoding::Hex => (Cow::Owned(hex(bytes)), Some("hex")),
        Encoding::Base64 => (Cow::Owned(base64(bytes)), Some("base64")),
        Encoding::Text => match std::str::from_utf8(bytes) {
            Ok(s) => (Cow::Borrowed(s), None),
            Err(_) => (Cow::Owned(base64(bytes)), Some("base64")),
        },
    }
}

/// Decode a JSON field: by its explicit encoding name if it has one, else
/// by `default`.
pub fn decode_json_field(
    text: &str,
    encoding: Option<&str>,
    default: Encoding,
) -> ToolResult<Vec<u8>> {
    let enc = match encoding {
        None => default,
        Some("text") => Encoding::Text,
        Some("hex") => Encoding::Hex,
        Some("base64") => Encoding::Base64,
        Some(other) => {
            return Err(ToolError::bad_input(format!(
                "unknown encoding {other:?} (expected text, hex or base64)"
            )))
        }
    };
    decode(enc, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_and_errors() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(Encoding::Hex, hex(&all).as_bytes()).unwrap(), all);
        assert_eq!(decode(Encoding::Hex, b"00FFaB").unwrap(), vec![0, 255, 171]);
        assert_eq!(decode(Encoding::Hex, b"0a0b\n").unwrap(), vec![10, 11]);
        assert_eq!(
            decode(Encoding::Hex, b"abc").unwrap_err().kind.exit_code(),
            7
        );
        assert_eq!(
            decode(Encoding::Hex, b"zz").unwrap_err().kind.exit_code(),
            7
        );
    }

    #[test]
    fn base64_round_trip_and_errors() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(
            decode(Encoding::Base64, base64(&all).as_bytes()).unwrap(),
            all
        );
        assert_eq!(decode(Encoding::Base64, b"YQ").unwrap(), b"a");
        assert_eq!(
            decode(Encoding::Base64, b"!!")
                .unwrap_err()
                .kind
                .exit_code(),
            7
        );
    }

    #[test]
    fn escaping_never_lets_control_bytes_through() {
        assert_eq!(escape_text(b"plain", Layout::Field), "plain");
        assert_eq!(escape_text(b"a\\b", Layout::Field), "a\\\\b");
        assert_eq!(escape_text(b"a\\nb", Layout::Field), "a\\\\nb");
        assert_eq!(escape_text(b"a\nb", Layout::Field), "a\\nb");
        assert_eq!(escape_text(b"two\nlines", Layout::Block), "two\nlines");
        assert_eq!(escape_text(b"two\nlines", Layout::Field), "two\\nlines");
        assert_eq!(escape_text(b"\x1b[31m\\", Layout::Block), "\\x1b[31m\\\\");
        assert_eq!(escape_text(b"\xff\x00", Layout::Block), "\\xff\\x00");
        assert_eq!(escape_text("\u{85}é".as_bytes(), Layout::Block), "\\u{85}é");
    }

    #[test]
    fn escaping_shows_invisible_characters() {
        assert_eq!(
            escape_text("zw\u{200b}x".as_bytes(), Layout::Field),
            "zw\\u{200b}x"
        );
        assert_eq!(
            escape_text("a\u{202e}b".as_bytes(), Layout::Block),
            "a\\u{202e}b"
        );
        assert_eq!(
            escape_text("b\u{2028}x".as_bytes(), Layout::Field),
            "b\\u{2028}x"
        );
        assert_eq!(
            escape_text("\u{feff}\u{e0041}".as_bytes(), Layout::Field),
            "\\u{feff}\\u{e0041}"
        );
        assert_eq!(escape_text("é€✓ ñ".as_bytes(), Layout::Field), "é€✓ ñ");
        for c in [
            '\u{ad}',
            '\u{61c}',
            '\u{180e}',
            '\u{200d}',
            '\u{2029}',
            '\u{2066}',
            '\u{2064}',
            '\u{115f}',
            '\u{1160}',
            '\u{3164}',
            '\u{ffa0}',
            '\u{fe0f}',
            '\u{e0100}',
            '\u{e01ef}',
            '\u{fffb}',
            '\u{110bd}',
            '\u{1d173}',
            '\u{e0001}',
            '\u{e007f}',
        ] {
            assert!(is_invisible(c), "{c:?}");
        }
        for c in [
            'a',
            ' ',
            '\u{a0}',
            '\u{2010}',
            '\u{2030}',
            '\u{2065}',
            '\u{fe10}',
            '\u{e0080}',
        ] {
            assert!(!is_invisible(c), "{c:?}");
        }
    }

    #[test]
    fn escaped_text_round_trips_every_byte() {
        for layout in [Layout::Field, Layout::Block] {
            for b in 0..=255u8 {
                let bytes = [b'a', b, b'\\', b'n', b];
                let text = escape_text(&bytes, layout);
                assert_eq!(unescape_text(&text).unwrap(), bytes, "{text:?}");
            }
            let all: Vec<u8> = (0..=255).collect();
            assert_eq!(unescape_text(&escape_text(&all, layout)).unwrap(), all);
            let c1 = "x\u{85}\u{9f}é".as_bytes();
            assert_eq!(unescape_text(&escape_text(c1, layout)).unwrap(), c1);
            let invisible =
                "\u{200d}\u{2028}\u{202e}\u{fe0f}\u{e0001}\u{e01ef}\\u{200d}".as_bytes();
            assert_eq!(
                unescape_text(&escape_text(invisible, layout)).unwrap(),
                invisible
            );
        }
        assert!(unescape_text("a\\q").is_err());
        assert!(unescape_text("a\\x4").is_err());
        assert!(unescape_text("a\\").is_err());
    }

    #[test]
    fn message_lines_escape_controls_but_keep_backslashes() {
        assert_eq!(
            escape_line("no database at /x/y.emdb"),
            "no database at /x/y.emdb"
        );
        assert_eq!(
            escape_line("key \"a\\\\b\" not found"),
            "key \"a\\\\b\" not found"
        );
        assert_eq!(
            escape_line("at p\x1b]0;PWN\x07\x1b[31m.emdb\nnext"),
            "at p\\x1b]0;PWN\\x07\\x1b[31m.emdb\\nnext"
        );
        assert_eq!(escape_line("a\u{202e}b\u{85}"), "a\\u{202e}b\\u{85}");
        assert_eq!(
            escape_path(Path::new("/d/p\x1b[2J\n.emdb")),
            "/d/p\\x1b[2J\\n.emdb"
        );
        assert_eq!(escape_path(Path::new("/d/plain.emdb")), "/d/plain.emdb");
    }

    #[test]
    fn json_fields_are_binary_safe() {
        assert_eq!(
            json_field(Encoding::Text, b"hi"),
            (Cow::Borrowed("hi"), None)
        );
        let (s, e) = json_field(Encoding::Text, b"\xff");
        assert_eq!(e, Some("base64"));
        assert_eq!(decode_json_field(&s, e, Encoding::Text).unwrap(), b"\xff");
        let (s, e) = json_field(Encoding::Hex, b"hi");
        assert_eq!(decode_json_field(&s, e, Encoding::Text).unwrap(), b"hi");
        assert!(decode_json_field("x", Some("rot13"), Encoding::Text).is_err());
    }
}
