//! Line diffs for staged edits: what a write would change, shown before it
//! is written.

use crate::escape::escape;
use crate::units;
use crate::value_format::{self, format_lines_capped, Shown, ViewMode, MAX_FORMATTED};

/// One line of a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiffLine {
    /// Unchanged.
    Same(String),
    /// Only in the old value.
    Removed(String),
    /// Only in the new value.
    Added(String),
    /// This many unchanged lines left out.
    Skipped(usize),
    /// The bytes differ where the lines above cannot show it (past the
    /// part that is laid out, JSON whitespace, a tab against spaces): what
    /// and where. Always followed by a `Removed` and an `Added` line that
    /// show the first differing bytes, escaped.
    Note(String),
}

/// Bytes of context shown before the first difference in a [`DiffLine::Note`]'s
/// excerpt, and after it.
const EXCERPT_BEFORE: usize = 16;
const EXCERPT_AFTER: usize = 48;

/// Diff two versions of a value (`None`: absent), both formatted the way
/// the new one (else the old one) reads best: pretty JSON or text (binary
/// values as escaped text, which diffs line by line where hex would not).
///
/// When the lines are the same but the bytes are not, the diff never reads
/// as unchanged: a [`DiffLine::Note`] comes first, saying why the lines
/// cannot show it, with the first differing bytes of each side.
pub fn value_diff(old: Option<&[u8]>, new: Option<&[u8]>, context: usize) -> Vec<DiffLine> {
    let sample = new.or(old).unwrap_or(&[]);
    let shown = match value_format::resolve(sample, ViewMode::Auto).0 {
        Shown::Hex => Shown::Text,
        s => s,
    };
    let mut cut = false;
    let mut lines = |b: Option<&[u8]>| match b {
        Some(b) => {
            let (lines, c) = format_lines_capped(b, shown);
            cut |= c;
            lines
        }
        None => Vec::new(),
    };
    let (old_lines, new_lines) = (lines(old), lines(new));
    let diff = diff_lines(&old_lines, &new_lines, context);
    let shows_change = diff
        .iter()
        .any(|l| matches!(l, DiffLine::Removed(_) | DiffLine::Added(_)));
    match (old, new) {
        (Some(old), Some(new)) if old != new && !shows_change => {
            let mut out = hidden_difference(old, new, shown, cut);
            out.extend(diff);
            out
        }
        _ => diff,
    }
}

/// The note and excerpts for two values whose formatted lines are equal
/// although their bytes are not.
fn hidden_difference(old: &[u8], new: &[u8], shown: Shown, cut: bool) -> Vec<DiffLine> {
    let at = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let why = if at >= MAX_FORMATTED {
        "past the first 1 MiB, which is all the diff compares".to_string()
    } else if cut {
        "past the part of the JSON layout the diff compares (nested deep)".to_string()
    } else if shown == Shown::Json {
        "only in JSON whitespace: the diff compares pretty-printed JSON".to_string()
    } else {
        "in a way the text lines do not show (a tab, a \\r, …)".to_string()
    };
    let note = format!(
        "bytes differ from byte {} on, {why}",
        units::count(at as u64)
    );
    // Start on a character, so the excerpt does not open with a cut one.
    let mut start = at.saturating_sub(EXCERPT_BEFORE);
    while start > 0 && old.get(start).is_some_and(|b| b & 0xc0 == 0x80) && at - start < 24 {
        start -= 1;
    }
    let excerpt = |v: &[u8]| {
        let end = v.len().min(at + EXCERPT_AFTER);
        let mut s = format!("byte {}: ", units::count(start as u64));
        if start > 0 {
            s.push('…');
        }
        s.push_str(&escape(v.get(start..end).unwrap_or(&[])));
        s.push_str(if end < v.len() { "…" } else { "⟨end⟩" });
        s
    };
    vec![
        DiffLine::Note(note),
        DiffLine::Removed(excerpt(old)),
        DiffLine::Added(excerpt(new)),
    ]
}

/// Fit the changed lines of `diff` in `width` characters so that the first
/// difference between a removed line and the added line paired with it
/// (the first removed with the first added of a run of changes, and so
/// on) can be seen: a pair that differs past the width is shown from a
/// little before that point, opening with `…(from char N) `. Lines that
/// fit, or differ within the width, are left as they are.
pub fn clip_changes(diff: &mut [DiffLine], width: usize) {
    let mut k = 0;
    while k < diff.len() {
        let start = k;
        while k < diff.len() && matches!(diff[k], DiffLine::Removed(_)) {
            k += 1;
        }
        let removed = start..k;
        while k < diff.len() && matches!(diff[k], DiffLine::Added(_)) {
            k += 1;
        }
        let added = removed.end..k;
        if removed.is_empty() && added.is_empty() {
            k += 1;
            continue;
        }
        for (r, a) in removed.zip(added) {
            let (DiffLine::Removed(old), DiffLine::Added(new)) = (&diff[r], &diff[a]) else {
                continue;
            };
            let (old_chars, new_chars): (Vec<char>, Vec<char>) =
                (old.chars().collect(), new.chars().collect());
            let at = old_chars
                .iter()
                .zip(&new_chars)
                .take_while(|(a, b)| a == b)
                .count();
            if at < width.saturating_sub(1) {
                continue;
            }
            let from = at.saturating_sub(width / 4);
            let clip = |chars: &[char]| {
                let mut s = format!("…(from char {}) ", units::count(from as u64));
                let room = width.saturating_sub(s.chars().count() + 1).max(1);
                let end = chars.len().min(from + room);
                s.extend(chars.get(from..end).unwrap_or(&[]));
                if end < chars.len() {
                    s.push('…');
                }
                s
            };
            let (old_clip, new_clip) = (clip(&old_chars), clip(&new_chars));
            diff[r] = DiffLine::Removed(old_clip);
            diff[a] = DiffLine::Added(new_clip);
        }
    }
}

/// Above this many cells the middle part is shown as replaced wholesale.
const MAX_TABLE: usize = 1 << 20;

/// Diff `old` against `new` line by line (longest common subsequence), with
/// `context` unchanged lines kept around each change.
pub fn diff_lines(old: &[String], new: &[String], context: usize) -> Vec<DiffLine> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let mut full: Vec<DiffLine> = old[..prefix].iter().cloned().map(DiffLine::Same).collect();
    full.extend(middle(a, b));
    full.extend(
        old[old.len() - suffix..]
            .iter()
            .cloned()
            .map(DiffLine::Same),
    );
    collapse(full, context)
}

fn middle(a: &[String], b: &[String]) -> Vec<DiffLine> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > MAX_TABLE {
        let mut out: Vec<DiffLine> = a.iter().cloned().map(DiffLine::Removed).collect();
        out.extend(b.iter().cloned().map(DiffLine::Added));
        return out;
    }
    // lcs[i][j]: length of the LCS of a[i..] and b[j..].
    let w = m + 1;
    let mut lcs = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * w + j] = if a[i] == b[j] {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push(DiffLine::Same(a[i].clone()));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j]) {
            out.push(DiffLine::Added(b[j].clone()));
            j += 1;
        } else {
            out.push(DiffLine::Removed(a[i].clone()));
            i += 1;
        }
    }
    // Show removals before additions within each changed run.
    let mut k = 0;
    while k < out.len() {
        let start = k;
        while k < out.len() && !matches!(out[k], DiffLine::Same(_)) {
            k += 1;
        }
        out[start..k].sort_by_key(|l| matches!(l, DiffLine::Added(_)));
        k += 1;
    }
    out
}

/// Replace runs of unchanged lines farther than `context` from any change.
fn collapse(lines: Vec<DiffLine>, context: usize) -> Vec<DiffLine> {
    let changed: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !matches!(l, DiffLine::Same(_)))
        .map(|(i, _)| i)
        .collect();
    let near = |i: usize| {
        let p = changed.partition_point(|&c| c < i);
        let after = changed.get(p).is_some_and(|&c| c - i <= context);
        let before = p > 0 && i - changed[p - 1] <= context;
        after || before
    };
    let mut out = Vec::new();
    let mut skipped = 0;
    for (i, line) in lines.into_iter().enumerate() {
        if matches!(line, DiffLine::Same(_)) && !near(i) {
            skipped += 1;
            continue;
        }
        if skipped > 0 {
            out.push(DiffLine::Skipped(skipped));
            skipped = 0;
        }
        out.push(line);
    }
    if skipped > 0 {
        out.push(DiffLine::Skipped(skipped));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_owned).collect()
    }

    fn render(d: &[DiffLine]) -> Vec<String> {
        d.iter()
            .map(|l| match l {
                DiffLine::Same(s) => format!(" {s}"),
                DiffLine::Removed(s) => format!("-{s}"),
                DiffLine::Added(s) => format!("+{s}"),
                DiffLine::Skipped(n) => format!("~{n}"),
                DiffLine::Note(s) => format!("!{s}"),
            })
            .collect()
    }

    #[test]
    fn changed_line_in_the_middle() {
        let d = diff_lines(&lines("a\nb\nc\nd\ne\nf"), &lines("a\nb\nX\nd\ne\nf"), 1);
        assert_eq!(render(&d), ["~1", " b", "-c", "+X", " d", "~2"]);
    }

    #[test]
    fn insertions_and_deletions() {
        let d = diff_lines(&lines("a\nb\nc"), &lines("a\nc\nd"), 3);
        assert_eq!(render(&d), [" a", "-b", " c", "+d"]);
        let d = diff_lines(&[], &lines("new"), 3);
        assert_eq!(render(&d), ["+new"]);
        let d = diff_lines(&lines("old"), &[], 3);
        assert_eq!(render(&d), ["-old"]);
    }

    #[test]
    fn values_diff_as_pretty_json() {
        let d = value_diff(Some(br#"{"a":1,"b":2}"#), Some(br#"{"a":1,"b":3}"#), 1);
        assert_eq!(
            render(&d),
            ["~1", "   \"a\": 1,", "-  \"b\": 2", "+  \"b\": 3", " }"]
        );
    }

    #[test]
    fn identical_values_collapse() {
        let d = diff_lines(&lines("a\nb"), &lines("a\nb"), 3);
        assert_eq!(render(&d), ["~2"]);
    }

    #[test]
    fn a_change_past_the_formatted_head_is_noted_with_its_offset() {
        let old: Vec<u8> = "word word word word\n".repeat(2_320_000 / 20).into_bytes();
        let new = old[..1_500_000].to_vec();
        let d = render(&value_diff(Some(&old), Some(&new), 2));
        assert!(
            d[0].starts_with("!bytes differ from byte 1,500,000 on, past the first 1 MiB"),
            "{d:?}"
        );
        assert!(d[1].starts_with("-byte 1,499,984: …"), "{d:?}");
        assert!(d[1].ends_with('…'), "{d:?}");
        assert!(d[2].ends_with("⟨end⟩"), "{d:?}");
        // Bytes appended to a large binary value likewise.
        let old: Vec<u8> = (0u8..=255).cycle().take(5 << 20).collect();
        let mut new = old.clone();
        new.extend_from_slice(b"more");
        let d = render(&value_diff(Some(&old), Some(&new), 2));
        assert!(d[0].contains("from byte 5,242,880 on"), "{d:?}");
        assert!(d[2].ends_with("more⟨end⟩"), "{d:?}");
    }

    #[test]
    fn json_that_differs_only_in_whitespace_is_noted() {
        let d = render(&value_diff(
            Some(br#"{"a":1,"b":[1,2]}"#),
            Some(br#"{"a": 1, "b": [1, 2]}"#),
            2,
        ));
        assert_eq!(
            &d[..3],
            [
                "!bytes differ from byte 5 on, only in JSON whitespace: the diff compares pretty-printed JSON",
                r#"-byte 0: {"a":1,"b":[1,2]}⟨end⟩"#,
                r#"+byte 0: {"a": 1, "b": [1, 2]}⟨end⟩"#,
            ]
        );
        // A tab against spaces in text.
        let d = render(&value_diff(Some(b"a\tb"), Some(b"a    b"), 2));
        assert!(d[0].contains("the text lines do not show"), "{d:?}");
        assert_eq!(d[1], "-byte 0: a\\tb⟨end⟩");
        // Equal values are just unchanged.
        assert_eq!(render(&value_diff(Some(b"x"), Some(b"x"), 2)), ["~1"]);
    }

    #[test]
    fn long_changed_lines_are_clipped_to_their_first_difference() {
        let old = "word ".repeat(60) + "abc";
        let new = "word ".repeat(60) + "xyz";
        let mut d = vec![
            DiffLine::Same("ctx".into()),
            DiffLine::Removed(old.clone()),
            DiffLine::Added(new.clone()),
        ];
        clip_changes(&mut d, 60);
        let r = render(&d);
        assert_eq!(r[0], " ctx");
        assert!(r[1].starts_with("-…(from char 285) "), "{r:?}");
        assert!(r[1].ends_with("abc") && r[2].ends_with("xyz"), "{r:?}");
        assert!(r[1].chars().count() <= 61, "{r:?}");
        // Lines that differ within the width are left whole.
        let mut d = vec![
            DiffLine::Removed(format!("a{old}")),
            DiffLine::Added(format!("b{old}")),
        ];
        clip_changes(&mut d, 60);
        assert_eq!(render(&d)[0], format!("-a{old}"));
    }
}
