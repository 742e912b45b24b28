//! [`KeyList`]: many keys stored back to back in one buffer, each with a
//! small payload, sortable by key bytes.
//!
//! `scan` and `export` sort every key of a namespace. A `Vec<Vec<u8>>`
//! costs an allocation per key, and freeing a million of them at the end
//! took about a fifth of a 1M-key scan; one buffer does not.

use std::ops::Range;

/// Keys with a `T` each, in insertion order until [`KeyList::sort`].
#[derive(Debug, Default)]
pub struct KeyList<T> {
    bytes: Vec<u8>,
    spans: Vec<(Range<usize>, T)>,
}

impl<T: Copy> KeyList<T> {
    /// An empty list.
    pub fn new() -> Self {
        KeyList {
            bytes: Vec::new(),
            spans: Vec::new(),
        }
    }

    /// Append `key` with `extra`.
    pub fn push(&mut self, key: &[u8], extra: T) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(key);
        self.spans.push((start..self.bytes.len(), extra));
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Sort by key bytes.
    pub fn sort(&mut self) {
        let bytes = &self.bytes;
        self.spans
            .sort_unstable_by(|a, b| bytes[a.0.clone()].cmp(&bytes[b.0.clone()]));
    }

    /// The keys and their payloads, in the current order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], T)> + '_ {
        self.spans
            .iter()
            .map(|(r, extra)| (&self.bytes[r.clone()], *extra))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_bytes() {
        let mut l = KeyList::new();
        for (k, x) in [
            (&b"b"[..], 1),
            (b"", 2),
            (b"ab", 3),
            (b"a", 4),
            (b"\xff", 5),
        ] {
            l.push(k, x);
        }
        l.sort();
        let got: Vec<(Vec<u8>, i32)> = l.iter().map(|(k, x)| (k.to_vec(), x)).collect();
        assert_eq!(
            got,
            vec![
                (b"".to_vec(), 2),
                (b"a".to_vec(), 4),
                (b"ab".to_vec(), 3),
                (b"b".to_vec(), 1),
                (b"\xff".to_vec(), 5)
            ]
        );
        assert_eq!(l.len(), 5);
    }
}
