//! How a value is shown: as text, as pretty-printed JSON or as a hex dump.
//!
//! Pure functions; the value pane caches their output so a frame never
//! re-formats a large value.

use std::fmt::Write as _;

use emdb_tools::encoding::is_invisible;

use crate::escape::escape;

/// Text and JSON views format at most this many bytes of a value; the hex
/// view shows every byte (it is computed line by line, for visible lines only).
pub const MAX_FORMATTED: usize = 1 << 20;

/// Pretty-printed JSON stops at this many bytes of output: indenting by
/// depth makes deeply nested input grow with the square of its depth
/// (`[[[…]]]` 10,000 deep would be 100 MB), so capping the input is not
/// enough.
pub const MAX_PRETTY: usize = MAX_FORMATTED;

/// The note shown when [`MAX_PRETTY`] cut the pretty-printed JSON.
pub const PRETTY_CUT: &str = "nested deep: layout cut at 1 MiB";

/// Values up to this size are checked for being JSON as a whole (the check
/// reads every byte but builds nothing); larger ones are shown as text.
pub const MAX_JSON_CHECK: usize = 64 << 20;

/// The view the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ViewMode {
    /// JSON when the value is a JSON object or array, text when it is
    /// printable UTF-8, hex otherwise.
    #[default]
    Auto,
    /// UTF-8 text, control characters and invalid bytes escaped.
    Text,
    /// Pretty-printed JSON (falls back to text when the value is not JSON).
    Json,
    /// Offset, hex bytes and ASCII columns.
    Hex,
}

impl ViewMode {
    /// The next mode in the `v` cycle.
    pub fn next(self) -> ViewMode {
        match self {
            ViewMode::Auto => ViewMode::Text,
            ViewMode::Text => ViewMode::Json,
            ViewMode::Json => ViewMode::Hex,
            ViewMode::Hex => ViewMode::Auto,
        }
    }

    /// Lower-case name for titles.
    pub fn name(self) -> &'static str {
        match self {
            ViewMode::Auto => "auto",
            ViewMode::Text => "text",
            ViewMode::Json => "json",
            ViewMode::Hex => "hex",
        }
    }
}

/// The format actually used for a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Text lines.
    Text,
    /// Pretty JSON lines.
    Json,
    /// Hex dump.
    Hex,
}

impl Shown {
    /// Lower-case name for titles.
    pub fn name(self) -> &'static str {
        match self {
            Shown::Text => "text",
            Shown::Json => "json",
            Shown::Hex => "hex",
        }
    }
}

/// Which format `mode` gives for `bytes`, and why when it differs from what
/// was asked.
pub fn resolve(bytes: &[u8], mode: ViewMode) -> (Shown, Option<&'static str>) {
    match mode {
        ViewMode::Hex => (Shown::Hex, None),
        ViewMode::Text => (Shown::Text, None),
        ViewMode::Json => {
            if bytes.len() > MAX_JSON_CHECK {
                (
                    Shown::Text,
                    Some("too large to check as JSON, shown as text"),
                )
            } else if is_json(bytes) {
                (Shown::Json, None)
            } else {
                (Shown::Text, Some("not valid JSON, shown as text"))
            }
        }
        ViewMode::Auto => {
            let head = &bytes[..bytes.len().min(MAX_FORMATTED)];
            if matches!(first_non_space(bytes), Some(b'{' | b'[')) && is_json(bytes) {
                (Shown::Json, None)
            } else if looks_like_text(head) {
                (Shown::Text, None)
            } else {
                (Shown::Hex, None)
            }
        }
    }
}

fn first_non_space(bytes: &[u8]) -> Option<u8> {
    bytes.iter().copied().find(|b| !b.is_ascii_whitespace())
}

/// The whole value is one JSON document (checked without building it).
fn is_json(bytes: &[u8]) -> bool {
    bytes.len() <= MAX_JSON_CHECK && serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
}

/// Mostly printable UTF-8 (a cut multi-byte character at the end is fine).
fn looks_like_text(bytes: &[u8]) -> bool {
    let mut bad = 0usize;
    let mut chunks = bytes.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        bad += chunk
            .valid()
            .chars()
            .filter(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
            .count();
        let last = chunks.peek().is_none();
        if !(last && chunk.invalid().len() < 4 && bytes.len() == MAX_FORMATTED) {
            bad += chunk.invalid().len();
        }
    }
    bad * 20 <= bytes.len()
}

/// Lines of `bytes` shown as `shown` (not for [`Shown::Hex`], whose lines are
/// made on demand by [`hex_line`]). Long lines are kept whole; the pane wraps.
pub fn format_lines(bytes: &[u8], shown: Shown) -> Vec<String> {
    format_lines_capped(bytes, shown).0
}

/// [`format_lines`], and whether the JSON layout was cut at [`MAX_PRETTY`].
pub fn format_lines_capped(bytes: &[u8], shown: Shown) -> (Vec<String>, bool) {
    let head = &bytes[..bytes.len().min(MAX_FORMATTED)];
    let (text, cut) = match shown {
        Shown::Json => pretty_json_capped(head, MAX_PRETTY),
        Shown::Text | Shown::Hex => (text_of(head), false),
    };
    (text.split('\n').map(str::to_owned).collect(), cut)
}

/// Text with line breaks kept and everything else unprintable escaped.
fn text_of(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        out.push_str(&escape(line).replace("\\t", "    "));
    }
    out
}

/// Re-indent JSON text by two spaces per level, keeping the member order and
/// every number and string exactly as written, except that control and
/// invisible characters inside strings are shown as their `\uXXXX` escapes.
/// The input must be valid JSON.
pub fn pretty_json(bytes: &[u8]) -> String {
    pretty_json_capped(bytes, usize::MAX).0
}

/// [`pretty_json`] stopped once the output reaches `limit` bytes (an
/// indent included), and whether it was.
pub fn pretty_json_capped(bytes: &[u8], limit: usize) -> (String, bool) {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len().saturating_mul(2).min(limit));
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        // One indent alone may be megabytes deep in: never past the limit.
        let room = limit.saturating_sub(out.len()) / 2;
        for _ in 0..depth.min(room) {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if out.len() >= limit {
            return (out, true);
        }
        if in_string {
            if c.is_control() || is_invisible(c) {
                // Valid JSON may hold these raw in a string (a line
                // separator, a bidi override, C1 controls): shown as the
                // `\uXXXX` escapes that stand for them, which JSON reads the same.
                for unit in c.encode_utf16(&mut [0; 2]) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
                continue;
            }
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                // Keep empty containers on one line.
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                if matches!(chars.peek(), Some('}' | ']')) {
                    if let Some(close) = chars.next() {
                        out.push(close);
                    }
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    (out, false)
}

/// How many bytes one hex line shows so that it fits `width` columns.
pub fn hex_bytes_per_line(width: u16) -> usize {
    // "offset " + a space per group of 8 + "xx " per byte + "|" chars "|"
    [32usize, 16, 8, 4]
        .into_iter()
        .find(|&n| 9 + n.div_ceil(8) + 3 * n + 2 + n <= usize::from(width))
        .unwrap_or(4)
}

/// Number of hex lines for `len` bytes.
pub fn hex_line_count(len: usize, per_line: usize) -> usize {
    len.div_ceil(per_line.max(1)).max(1)
}

/// Hex dump line `line`: `00000010  7b 22 61 22  3a 31 7d 0a  |{"a":1}.|`.
pub fn hex_line(bytes: &[u8], line: usize, per_line: usize) -> String {
    let start = line * per_line;
    let chunk = bytes
        .get(start..bytes.len().min(start + per_line))
        .unwrap_or(&[]);
    let mut out = format!("{start:08x} ");
    for i in 0..per_line {
        if i % 8 == 0 {
            out.push(' ');
        }
        match chunk.get(i) {
            Some(b) => out.push_str(&format!("{b:02x} ")),
            None => out.push_str("   "),
        }
    }
    out.push('|');
    out.extend(chunk.iter().map(|&b| {
        if b.is_ascii_graphic() || b == b' ' {
            char::from(b)
        } else {
            '.'
        }
    }));
    out.push('|');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_picks_json_text_or_hex() {
        assert_eq!(resolve(br#" {"a": 1}"#, ViewMode::Auto).0, Shown::Json);
        assert_eq!(resolve(b"[1,2]", ViewMode::Auto).0, Shown::Json);
        assert_eq!(resolve(b"42", ViewMode::Auto).0, Shown::Text);
        assert_eq!(resolve(b"hello\nworld", ViewMode::Auto).0, Shown::Text);
        assert_eq!(resolve(&[0, 1, 2, 3, 0xff], ViewMode::Auto).0, Shown::Hex);
        assert_eq!(
            resolve(b"{oops", ViewMode::Json),
            (Shown::Text, Some("not valid JSON, shown as text"))
        );
    }

    #[test]
    fn json_over_a_mebibyte_is_still_json() {
        // A valid document larger than the formatted head: the check reads
        // all of it; only the first MAX_FORMATTED bytes are laid out.
        let mut v = b"[".to_vec();
        while v.len() <= MAX_FORMATTED + 1000 {
            v.extend_from_slice(br#"{"k":"0123456789abcdef"},"#);
        }
        v.extend_from_slice(b"1]");
        assert!(v.len() > MAX_FORMATTED);
        assert_eq!(resolve(&v, ViewMode::Json), (Shown::Json, None));
        assert_eq!(resolve(&v, ViewMode::Auto).0, Shown::Json);
        let lines = format_lines(&v, Shown::Json);
        assert_eq!(lines[0], "[");
        assert_eq!(lines[1], "  {");
        // Cut in the middle: still invalid when the end is missing.
        assert_eq!(resolve(&v[..v.len() - 1], ViewMode::Json).0, Shown::Text);
    }

    #[test]
    fn pretty_json_keeps_order_and_literals() {
        let s = pretty_json(br#"{"z":1.50,"a":[],"s":"x, {y}: \"q\"","n":{"k":[true,null]}}"#);
        assert_eq!(
            s,
            "{\n  \"z\": 1.50,\n  \"a\": [],\n  \"s\": \"x, {y}: \\\"q\\\"\",\n  \"n\": {\n    \"k\": [\n      true,\n      null\n    ]\n  }\n}"
        );
    }

    #[test]
    fn deeply_nested_json_formats_within_the_cap() {
        let depth = 10_000;
        let v = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(resolve(v.as_bytes(), ViewMode::Auto).0, Shown::Json);
        let (lines, cut) = format_lines_capped(v.as_bytes(), Shown::Json);
        assert!(cut);
        let size: usize = lines.iter().map(|l| l.len() + 1).sum();
        assert!(size <= MAX_PRETTY + 2, "{size} bytes");
        assert_eq!(lines[2], "    [");
        // Shallow documents are laid out whole.
        assert!(!format_lines_capped(br#"{"a":[1]}"#, Shown::Json).1);
    }

    #[test]
    fn json_strings_show_invisible_characters_as_escapes() {
        let v = "{\"k\":\"a\u{2028}b\u{200d}c\u{85}\u{e0001}\"}".as_bytes();
        assert_eq!(
            pretty_json(v),
            "{\n  \"k\": \"a\\u2028b\\u200dc\\u0085\\udb40\\udc01\"\n}"
        );
    }

    #[test]
    fn text_lines_escape_controls() {
        assert_eq!(
            format_lines(b"a\tb\r\nc\0", Shown::Text),
            vec!["a    b".to_string(), "c\\x00".to_string()]
        );
    }

    #[test]
    fn hex_lines() {
        let v = b"{\"a\":1}\n\0\x01";
        assert_eq!(hex_bytes_per_line(120), 16);
        assert_eq!(hex_bytes_per_line(50), 8);
        assert_eq!(hex_bytes_per_line(44), 8);
        assert_eq!(hex_bytes_per_line(43), 4);
        assert_eq!(hex_line(v, 0, 8).chars().count(), 44);
        assert_eq!(hex_line_count(v.len(), 8), 2);
        assert_eq!(
            hex_line(v, 0, 8),
            "00000000  7b 22 61 22 3a 31 7d 0a |{\"a\":1}.|"
        );
        assert_eq!(hex_line(v, 1, 8), "00000008  00 01                   |..|");
    }
}
