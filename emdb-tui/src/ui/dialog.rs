//! Overlays that ask: the y/n question and the review of staged changes.

use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

use crate::app::{App, Areas, OldValue, Question};
use crate::diff::{clip_changes, value_diff, DiffLine};
use crate::escape::{escape, escape_str};
use crate::ui::theme;
use crate::ui::{centered, ns_label};
use crate::units;
use crate::worker::NewTtl;

fn popup_block(title: &str, color: Color) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(Style::new().fg(color))
        .title(Line::from(format!(" {title} ")).bold())
}

/// The y/n question over `area`.
pub fn confirm(frame: &mut Frame, area: Rect, q: &Question) {
    let (title, text) = match q {
        Question::Delete { key } => (
            "Delete",
            format!(
                "Stage deleting {}?\nNothing is written until you review it with w.",
                escape(key)
            ),
        ),
        Question::DropNamespace { name, keys } => (
            "Drop namespace",
            format!(
                "Drop namespace {} and its {}?\nThis is written at once; it cannot be undone here.",
                escape_str(name),
                units::plural(*keys, "key")
            ),
        ),
        Question::Quit => (
            "Quit",
            "Quit and discard the staged changes?\nThey were never written.".to_string(),
        ),
    };
    let popup = centered(area, 60, 6);
    frame.render_widget(Clear, popup);
    let block = popup_block(title, theme::WARN);
    let mut lines: Vec<Line> = text.lines().map(|l| Line::raw(l.to_string())).collect();
    lines.push(Line::default());
    lines.push(Line::from(vec![
        Span::styled("y", Style::new().fg(theme::GOOD).bold()),
        Span::raw(" yes   "),
        Span::styled("n", Style::new().fg(theme::ERROR).bold()),
        Span::raw(" no"),
    ]));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        popup,
    );
}

/// The staged changes as diffs, scrolled down `scroll` lines.
pub fn review(frame: &mut Frame, app: &App, area: Rect, scroll: usize) {
    let popup = review_popup(area);
    let lines = review_lines(app, popup.width);
    frame.render_widget(Clear, popup);
    let title = format!(
        "{} staged — y/Enter write and flush · Esc back · X discard all",
        units::plural(app.staged.len() as u64, "change")
    );
    let block = popup_block(&title, theme::WARN);
    let scroll = u16::try_from(scroll).unwrap_or(u16::MAX);
    frame.render_widget(
        Paragraph::new(lines).block(block).scroll((scroll, 0)),
        popup,
    );
}

/// Where the last message goes in a body `area`, and its lines: as wide
/// as its text (up to 100 columns, or the body), as high as its wrapped
/// lines (up to the body).
fn message_popup(app: &App, area: Rect) -> (Rect, Vec<String>) {
    let text = crate::ui::last_message(app).map_or("", |m| m.text);
    let longest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let wanted = u16::try_from(longest + 2)
        .unwrap_or(u16::MAX)
        .clamp(30, 100);
    let width = wanted.min(area.width);
    let lines = word_wrap(text, usize::from(width.saturating_sub(2)));
    let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
    (centered(area, width, height), lines)
}

/// The furthest the last message scrolls: its last line at the bottom of
/// the popup.
pub fn message_max_scroll(app: &App) -> usize {
    let (popup, lines) = message_popup(app, body(&app.areas));
    lines
        .len()
        .saturating_sub(usize::from(popup.height.saturating_sub(2)))
}

/// The last message whole (`m`), wrapped, over `area`, scrolled down
/// `scroll` lines.
pub fn message(frame: &mut Frame, app: &App, area: Rect, scroll: usize) {
    let Some(m) = crate::ui::last_message(app) else {
        return;
    };
    let (popup, lines) = message_popup(app, area);
    frame.render_widget(Clear, popup);
    let ago = units::ago(m.at_ms, app.now_ms);
    let (title, color) = if m.error {
        (format!("Error, {ago} — Esc closes"), theme::ERROR)
    } else {
        (format!("Message, {ago} — Esc closes"), theme::GOOD)
    };
    let mut block = popup_block(&title, color);
    let rows = usize::from(popup.height.saturating_sub(2));
    let more = match (scroll > 0, scroll + rows < lines.len()) {
        (true, true) => Some(" ↑↓ more: k/j "),
        (false, true) => Some(" ↓ more: j, PgDn "),
        (true, false) => Some(" ↑ more: k, g "),
        (false, false) => None,
    };
    if let Some(more) = more {
        block = block
            .title_bottom(Line::styled(more, Style::new().fg(theme::WARN).bold()).right_aligned());
    }
    let lines: Vec<Line> = lines.into_iter().skip(scroll).map(Line::raw).collect();
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}

/// `text` broken into lines of at most `width` characters, at spaces where
/// it can be (a word longer than a line is broken inside); line breaks in
/// it are kept.
pub fn word_wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        let mut len = 0;
        for word in para.split(' ') {
            let mut word: Vec<char> = word.chars().collect();
            // A space before it, unless it starts the line.
            if len > 0 && len + 1 + word.len() <= width {
                line.push(' ');
                line.extend(&word);
                len += 1 + word.len();
                continue;
            }
            if len > 0 {
                out.push(std::mem::take(&mut line));
            }
            while word.len() > width {
                let rest = word.split_off(width);
                out.push(word.iter().collect());
                word = rest;
            }
            line = word.iter().collect();
            len = word.len();
        }
        out.push(line);
    }
    out
}

/// Where the review goes in a body `area`.
fn review_popup(area: Rect) -> Rect {
    let width = area.width.saturating_sub(8).max(40);
    let height = area.height.saturating_sub(2).max(6);
    centered(area, width, height)
}

/// The furthest the review scrolls: its last line at the bottom of the
/// popup (`G`/End go there).
pub fn review_max_scroll(app: &App) -> usize {
    let popup = review_popup(body(&app.areas));
    let rows = popup.height.saturating_sub(2);
    review_lines(app, popup.width)
        .len()
        .saturating_sub(usize::from(rows))
}

/// The body the panes share (the review is drawn over it).
fn body(a: &Areas) -> Rect {
    let left = if a.namespaces.width > 0 {
        a.namespaces.x
    } else {
        a.keys.x
    };
    Rect::new(
        left,
        a.keys.y,
        a.value.right().saturating_sub(left),
        a.keys.height,
    )
}

/// `17 B` for one size, `17 B -> 21 B` for two that differ: exact byte
/// counts, so that a value cut short shows in the review's heading.
fn sizes(old: Option<usize>, new: Option<usize>) -> String {
    let b = |n: usize| format!("{} B", units::count(n as u64));
    match (old, new) {
        (Some(o), Some(n)) if o != n => format!(" · {} -> {}", b(o), b(n)),
        (_, Some(n)) => format!(" · {}", b(n)),
        (Some(o), None) => format!(" · {}", b(o)),
        (None, None) => String::new(),
    }
}

/// The lines of the review in a popup `width` columns wide: each staged
/// change and its diff.
fn review_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    // Inside the borders, after the two-column gutter and `- `.
    let text_width = usize::from(width.saturating_sub(2 + 4));
    let mut lines: Vec<Line<'static>> = Vec::new();
    for s in &app.staged {
        let c = &s.change;
        // A new key has no time to live to keep: it is written without one.
        let new_key = matches!(s.old, OldValue::Known(None));
        let ttl = match (c.value.is_some(), c.ttl) {
            (false, _) => String::new(),
            (true, NewTtl::Keep) if new_key => ", no ttl".into(),
            (true, NewTtl::Keep) => ", ttl kept".into(),
            (true, NewTtl::Never) => ", no ttl".into(),
            (true, NewTtl::After(d)) => format!(", ttl {}", units::span(d)),
        };
        // A kept lifetime that already ran out: the engine no longer has the
        // key's expiry, so the put would bring it back without one. A new
        // lifetime (`L`) for a key that expired since it was staged brings
        // it back too.
        let ago = |at: u64| units::span(std::time::Duration::from_millis(app.now_ms - at));
        let existed = matches!(s.old, OldValue::Known(Some(_)));
        let past = match (c.value.is_some(), c.ttl, s.old_expires_ms) {
            (true, NewTtl::Keep, Some(at)) if at <= app.now_ms => Some(format!(
                "  the kept ttl ran out {} ago: written without a ttl",
                ago(at)
            )),
            (true, NewTtl::After(_) | NewTtl::Never, Some(at)) if at <= app.now_ms && existed => {
                Some(format!(
                    "  the key expired {} ago: writing brings it back",
                    ago(at)
                ))
            }
            _ => None,
        };
        let (verb, color) = match (&c.value, &s.old) {
            (None, _) => ("delete", theme::ERROR),
            (Some(_), OldValue::Known(None)) => ("new", theme::GOOD),
            (Some(_), _) => ("put", theme::WARN),
        };
        let (old, loading) = match &s.old {
            OldValue::Known(v) => (v.as_deref(), false),
            OldValue::Loading => (None, true),
        };
        let new = c.value.as_deref();
        let size = sizes(old.map(<[u8]>::len), new.map(<[u8]>::len));
        lines.push(Line::from(vec![
            Span::styled(format!("{verb} "), Style::new().fg(color).bold()),
            Span::styled(escape(&c.key), Style::new().bold()),
            Span::styled(
                format!("  in {}{ttl}{size}", ns_label(&c.ns)),
                Style::new().fg(theme::MUTED),
            ),
        ]));
        if let Some(p) = past {
            lines.push(Line::styled(p, Style::new().fg(theme::ERROR).bold()));
        }
        if loading {
            lines.push(Line::styled(
                "  (reading the old value…)",
                Style::new().fg(theme::MUTED),
            ));
        }
        let mut diff = value_diff(old, new, 2);
        clip_changes(&mut diff, text_width);
        for d in diff {
            lines.push(match d {
                DiffLine::Same(t) => Line::raw(format!("    {t}")),
                DiffLine::Removed(t) => {
                    Line::styled(format!("  - {t}"), Style::new().fg(theme::ERROR))
                }
                DiffLine::Added(t) => {
                    Line::styled(format!("  + {t}"), Style::new().fg(theme::GOOD))
                }
                DiffLine::Skipped(n) => Line::styled(
                    format!("    … {} unchanged", units::plural(n as u64, "line")),
                    Style::new().fg(theme::MUTED),
                ),
                DiffLine::Note(t) => {
                    Line::styled(format!("  ! {t}"), Style::new().fg(theme::WARN).bold())
                }
            });
        }
        lines.push(Line::default());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::word_wrap;

    #[test]
    fn words_wrap_at_spaces_and_long_ones_are_broken() {
        assert_eq!(word_wrap("ab cd ef", 5), ["ab cd", "ef"]);
        assert_eq!(word_wrap("abcdefg h", 3), ["abc", "def", "g h"]);
        assert_eq!(word_wrap("a\nb", 10), ["a", "b"]);
        assert_eq!(word_wrap("", 10), [""]);
        let text = "write failed: an earlier failure (another process opened it)";
        assert_eq!(word_wrap(text, 12).join(" "), text);
    }
}
