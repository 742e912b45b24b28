//! How emdb keys map to Redis keys (docs/CLI.md, "sync"; docs/SCALING.md).
//!
//! The default namespace maps to the bare key. A named namespace maps to a
//! prefix built from `--ns-prefix`: `%n` stands for the namespace name and
//! `%%` for a literal `%`; the default is `%n:`. `{%n}:` puts a Redis Cluster
//! hash tag around the name, so all keys of a namespace share one slot.

use crate::error::{CliError, CliResult};

/// The default `--ns-prefix`.
pub const DEFAULT_NS_PREFIX: &str = "%n:";

/// A validated `--ns-prefix`.
#[derive(Clone, Debug)]
pub struct KeyMap {
    parts: Vec<Part>,
}

#[derive(Clone, Debug)]
enum Part {
    Text(String),
    Name,
}

impl KeyMap {
    /// Parse a key format; it must name the namespace (`%n`) exactly once.
    pub fn parse(format: &str) -> CliResult<KeyMap> {
        let bad = |why: &str| {
            CliError::usage(format!("--ns-prefix {format:?}: {why}")).hint(
                "use %n for the namespace name and %% for a percent sign, e.g. '%n:' or '{%n}:'",
            )
        };
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut names = 0;
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                text.push(c);
                continue;
            }
            match chars.next() {
                Some('%') => text.push('%'),
                Some('n') => {
                    if !text.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut text)));
                    }
                    parts.push(Part::Name);
                    names += 1;
                }
                _ => return Err(bad("% must be followed by n or %")),
            }
        }
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        if names != 1 {
            return Err(bad("the format must contain %n exactly once"));
        }
        Ok(KeyMap { parts })
    }

    /// The Redis key prefix of a named namespace; empty for the default one.
    pub fn prefix(&self, namespace: &str) -> Vec<u8> {
        if namespace.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.extend_from_slice(t.as_bytes()),
                Part::Name => out.extend_from_slice(namespace.as_bytes()),
            }
        }
        out
    }

    /// The Redis key of `key` in `namespace`.
    #[cfg(test)]
    pub fn key(&self, namespace: &str, key: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_key(namespace, key, &mut out);
        out
    }

    /// Replace the contents of `out` with the Redis key of `key` in
    /// `namespace` (no allocation once `out` is large enough).
    pub fn write_key(&self, namespace: &str, key: &[u8], out: &mut Vec<u8>) {
        out.clear();
        if !namespace.is_empty() {
            for p in &self.parts {
                match p {
                    Part::Text(t) => out.extend_from_slice(t.as_bytes()),
                    Part::Name => out.extend_from_slice(namespace.as_bytes()),
                }
            }
        }
        out.extend_from_slice(key);
    }
}

/// A Redis `SCAN MATCH` pattern for every key starting with `prefix`.
pub fn prefix_pattern(prefix: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(prefix.len() + 2);
    for &b in prefix {
        if matches!(b, b'*' | b'?' | b'[' | b']' | b'\\') {
            out.push(b'\\');
        }
        out.push(b);
    }
    out.push(b'*');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_format_and_hash_tags() {
        let m = KeyMap::parse(DEFAULT_NS_PREFIX).unwrap();
        assert_eq!(m.key("", b"k\x00"), b"k\x00");
        assert_eq!(m.key("users", b"1"), b"users:1");
        let m = KeyMap::parse("{%n}:").unwrap();
        assert_eq!(m.key("users", b"1"), b"{users}:1");
        let m = KeyMap::parse("app%%%n/").unwrap();
        assert_eq!(m.key("a", b"k"), b"app%a/k");
        assert!(KeyMap::parse("static:").is_err());
        assert!(KeyMap::parse("%n%n").is_err());
        assert!(KeyMap::parse("%x%n").is_err());
    }

    #[test]
    fn patterns_escape_glob_characters() {
        assert_eq!(prefix_pattern(b"a*b?[c]\\:"), b"a\\*b\\?\\[c\\]\\\\:*");
    }
}
