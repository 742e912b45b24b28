//! Bytes shown as text and typed back: printable UTF-8 as is, everything
//! else as a backslash escape (`\n`, `\t`, `\r`, `\\`, `\xNN`).
//!
//! "Printable" leaves out control characters and the invisible ones of
//! [`is_invisible`] (zero-width and bidi marks, line separators, variation
//! selectors): a terminal draws those as nothing or changes the width of
//! what comes next, which would shift the columns.
//!
//! [`escape`] and [`unescape`] are inverses, so any key or value can be
//! displayed on one line and edited in a one-line prompt.

use emdb_tools::encoding::is_invisible;

/// `bytes` as one line of text: valid, printable UTF-8 is kept, control
/// and invisible characters (each UTF-8 byte as `\xNN`) and invalid bytes
/// become escapes, and `\` is doubled.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() || is_invisible(c) => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        push_hex(&mut out, b);
                    }
                }
                c => out.push(c),
            }
        }
        for &b in chunk.invalid() {
            push_hex(&mut out, b);
        }
    }
    out
}

/// `text` (a namespace name, a message part) as it is drawn: [`escape`]d,
/// so a name holding terminal escape sequences cannot reach the terminal.
pub fn escape_str(text: &str) -> String {
    escape(text.as_bytes())
}

/// A file path as it is drawn, [`escape`]d like a key (a path may hold
/// any byte but `/` and NUL).
pub fn escape_path(path: &std::path::Path) -> String {
    escape(path.as_os_str().as_encoded_bytes())
}

fn push_hex(out: &mut String, b: u8) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\x");
    out.push(char::from(DIGITS[usize::from(b >> 4)]));
    out.push(char::from(DIGITS[usize::from(b & 0xf)]));
}

/// The bytes an escaped line stands for; the inverse of [`escape`].
///
/// Fails with a readable reason on a dangling `\` or an unknown escape.
pub fn unescape(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        match chars.next() {
            Some('\\') => out.push(b'\\'),
            Some('n') => out.push(b'\n'),
            Some('t') => out.push(b'\t'),
            Some('r') => out.push(b'\r'),
            Some('0') => out.push(0),
            Some('x') => {
                let hi = chars.next().and_then(|c| c.to_digit(16));
                let lo = chars.next().and_then(|c| c.to_digit(16));
                match (hi, lo) {
                    (Some(hi), Some(lo)) => out.push((hi * 16 + lo) as u8),
                    _ => return Err("\\x needs two hex digits, as in \\x00".into()),
                }
            }
            Some(other) => {
                return Err(format!(
                    "unknown escape \\{other} (use \\\\, \\n, \\t, \\r, \\0 or \\xNN)"
                ))
            }
            None => return Err("the text ends with a lone \\ (write \\\\ for a backslash)".into()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_text_is_kept() {
        assert_eq!(escape(b"user:1"), "user:1");
        assert_eq!(escape("héllo wörld".as_bytes()), "héllo wörld");
    }

    #[test]
    fn control_and_invalid_bytes_are_escaped() {
        assert_eq!(escape(b"a\nb\tc\\"), "a\\nb\\tc\\\\");
        assert_eq!(escape(&[0, 0xff, b'x']), "\\x00\\xffx");
    }

    #[test]
    fn invisible_characters_are_escaped() {
        assert_eq!(escape("b\u{2028}x".as_bytes()), "b\\xe2\\x80\\xa8x");
        assert_eq!(escape("a\u{200d}b".as_bytes()), "a\\xe2\\x80\\x8db");
        assert_eq!(escape("\u{202e}".as_bytes()), "\\xe2\\x80\\xae");
        assert_eq!(escape("\u{fe0f}".as_bytes()), "\\xef\\xb8\\x8f");
        assert_eq!(escape("\u{e0100}".as_bytes()), "\\xf3\\xa0\\x84\\x80");
        assert_eq!(escape("é €".as_bytes()), "é €");
    }

    #[test]
    fn unescape_inverts_escape() {
        let samples: [&[u8]; 6] = [
            b"",
            b"plain",
            b"a\\b\nc",
            &[0, 1, 2, 0xfe, 0xff],
            "ünï\u{7f}".as_bytes(),
            "b\u{2028}x\u{200d}\u{feff}\u{e01ef}".as_bytes(),
        ];
        for s in samples {
            assert_eq!(unescape(&escape(s)).unwrap(), s);
        }
    }

    #[test]
    fn bad_escapes_are_reported() {
        assert!(unescape("abc\\").is_err());
        assert!(unescape("\\q").is_err());
        assert!(unescape("\\x4").is_err());
        assert_eq!(unescape("\\x41\\0").unwrap(), b"A\0");
    }
}
