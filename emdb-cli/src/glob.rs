//! Glob patterns over key bytes, for `scan --glob`.
//!
//! `*` matches any run of bytes (including none), `?` one byte, `[abc]`,
//! `[a-z]` and `[!a-z]` one byte of (or not of) a class, and `\` makes the
//! next character literal. Matching uses the classic two-pointer backtrack
//! on the last `*`, so it is linear in practice and never recursive.

use crate::error::{CliError, CliResult};

/// A compiled glob pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    tokens: Vec<Token>,
}

#[derive(Debug, Clone)]
enum Token {
    Byte(u8),
    AnyByte,
    AnyRun,
    Class {
        negated: bool,
        ranges: Vec<(u8, u8)>,
    },
}

impl Glob {
    /// Compile `pattern`; an unclosed `[` or a trailing `\` is bad input.
    pub fn new(pattern: &str) -> CliResult<Glob> {
        let p = pattern.as_bytes();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < p.len() {
            match p[i] {
                b'*' => {
                    if !matches!(tokens.last(), Some(Token::AnyRun)) {
                        tokens.push(Token::AnyRun);
                    }
                }
                b'?' => tokens.push(Token::AnyByte),
                b'\\' => {
                    i += 1;
                    let b = *p
                        .get(i)
                        .ok_or_else(|| bad(pattern, "ends with a lone `\\`"))?;
                    tokens.push(Token::Byte(b));
                }
                b'[' => {
                    let (token, next) =
                        class(p, i + 1).ok_or_else(|| bad(pattern, "has an unclosed `[`"))?;
                    tokens.push(token);
                    i = next;
                    continue;
                }
                b => tokens.push(Token::Byte(b)),
            }
            i += 1;
        }
        Ok(Glob { tokens })
    }

    /// True when all of `key` matches.
    pub fn matches(&self, key: &[u8]) -> bool {
        let (mut t, mut k) = (0, 0);
        // Where to resume after the last `*`: (token after it, key position).
        let mut backtrack: Option<(usize, usize)> = None;
        while k < key.len() {
            match self.tokens.get(t) {
                Some(Token::AnyRun) => {
                    backtrack = Some((t + 1, k));
                    t += 1;
                    continue;
                }
                Some(tok) if tok.matches_one(key[k]) => {
                    t += 1;
                    k += 1;
                    continue;
                }
                _ => {}
            }
            match backtrack {
                Some((bt, bk)) => {
                    // Let the `*` swallow one more byte and retry.
                    t = bt;
                    k = bk + 1;
                    backtrack = Some((bt, bk + 1));
                }
                None => return false,
            }
        }
        self.tokens[t..]
            .iter()
            .all(|tok| matches!(tok, Token::AnyRun))
    }
}

impl Token {
    fn matches_one(&self, b: u8) -> bool {
        match self {
            Token::Byte(x) => *x == b,
            Token::AnyByte => true,
            Token::AnyRun => false,
            Token::Class { negated, ranges } => {
                ranges.iter().any(|&(lo, hi)| lo <= b && b <= hi) != *negated
            }
        }
    }
}

/// Parse a class starting just after `[`; returns it and the index after `]`.
fn class(p: &[u8], mut i: usize) -> Option<(Token, usize)> {
    let negated = matches!(p.get(i), Some(b'!' | b'^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let mut lo = *p.get(i)?;
        if lo == b']' && !first {
            return Some((Token::Class { negated, ranges }, i + 1));
        }
        first = false;
        if lo == b'\\' {
            i += 1;
            lo = *p.get(i)?;
        }
        i += 1;
        if p.get(i) == Some(&b'-') && p.get(i + 1).is_some_and(|&c| c != b']') {
            let mut hi = p[i + 1];
            i += 2;
            if hi == b'\\' {
                hi = *p.get(i)?;
                i += 1;
            }
            ranges.push((lo.min(hi), lo.max(hi)));
        } else {
            ranges.push((lo, lo));
        }
    }
}

fn bad(pattern: &str, why: &str) -> CliError {
    CliError::bad_input(format!("glob pattern {pattern:?} {why}"))
        .hint("escape special characters with `\\`")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, k: &str) -> bool {
        Glob::new(p).unwrap().matches(k.as_bytes())
    }

    #[test]
    fn basics() {
        assert!(m("user:*", "user:1"));
        assert!(m("user:*", "user:"));
        assert!(!m("user:*", "use"));
        assert!(m("*:name", "user:1:name"));
        assert!(m("a*b*c", "axxbyyc"));
        assert!(!m("a*b*c", "axxbyy"));
        assert!(m("?", "x"));
        assert!(!m("?", ""));
        assert!(m("*", ""));
        assert!(m("**a", "a"));
        assert!(m("a*a*a*a*b", "aaaaaaaaaab"));
        assert!(!m("a*a*a*a*b", "aaaaaaaaaaa"));
    }

    #[test]
    fn classes_and_escapes() {
        assert!(m("[a-c]x", "bx"));
        assert!(!m("[a-c]x", "dx"));
        assert!(m("[!a-c]x", "dx"));
        assert!(m("[]]", "]"));
        assert!(m("[a-]", "-"));
        assert!(m("\\*", "*"));
        assert!(!m("\\*", "x"));
        assert!(Glob::new("[abc").is_err());
        assert!(Glob::new("abc\\").is_err());
    }
}
