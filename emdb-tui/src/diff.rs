//! Line diffs for staged edits: what a write would change, shown before it
//! is written.

use crate::value_format::{self, format_lines, Shown, ViewMode};

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
}

/// Diff two versions of a value (`None`: absent), both formatted the way
/// the new one (else the old one) reads best: pretty JSON or text (binary
/// values as escaped text, which diffs line by line where hex would not).
pub fn value_diff(old: Option<&[u8]>, new: Option<&[u8]>, context: usize) -> Vec<DiffLine> {
    let sample = new.or(old).unwrap_or(&[]);
    let shown = match value_format::resolve(sample, ViewMode::Auto).0 {
        Shown::Hex => Shown::Text,
        s => s,
    };
    let lines = |b: Option<&[u8]>| b.map(|b| format_lines(b, shown)).unwrap_or_default();
    diff_lines(&lines(old), &lines(new), context)
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
}
