//! The value pane: the selected key's value as text, pretty JSON or a hex
//! dump, with its size and time to live; a staged change shows as a diff.

use ratatui::layout::Rect;
use ratatui::style::{Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use crate::app::{App, Formatted, OldValue};
use crate::diff::{value_diff, DiffLine};
use crate::escape::escape;
use crate::keylist::Row;
use crate::ui::pane_block;
use crate::ui::theme;
use crate::units;
use crate::value_format::{self, format_lines_capped, hex_bytes_per_line, hex_line, Shown};
use crate::worker::NewTtl;

/// Lines above the value: the key (at least one line), then size, TTL and
/// view.
pub const HEADER_LINES: u16 = 2;

/// A long key takes at most this many lines above its value.
pub const MAX_KEY_LINES: usize = 4;

/// `key` broken into lines of `width` characters, at most `max` of them;
/// the last ends in `…` when even they cannot hold it.
pub fn key_lines(key: &str, width: usize, max: usize) -> Vec<String> {
    let chars: Vec<char> = key.chars().collect();
    let width = width.max(1);
    let mut lines: Vec<String> = chars.chunks(width).map(|c| c.iter().collect()).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    if lines.len() > max {
        lines.truncate(max.max(1));
        if let Some(last) = lines.last_mut() {
            last.pop();
            last.push('…');
        }
    }
    lines
}

/// Draw the value pane in `area`.
pub fn draw(frame: &mut Frame, app: &App, area: Rect, focused: bool) {
    let mode = app.value.mode;
    let title = Line::from(vec![
        Span::raw(" Value "),
        Span::styled(format!("[{}] ", mode.name()), Style::new().fg(theme::MODE)),
    ]);
    let block = pane_block(title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height <= HEADER_LINES || inner.width < 4 {
        return;
    }
    let line_at = |i: u16| Rect::new(inner.x, inner.y + i, inner.width, 1);
    let dim = |t: String| Paragraph::new(t).fg(theme::MUTED);

    let row = app.keys.list.row(app.keys.nav.selected);
    let Some(target) = app.value.target.as_deref() else {
        let text = match row {
            Some(r @ Row::Group { count, .. }) => format!(
                "group {} with {} keys (Enter opens it)",
                escape(app.keys.list.row_bytes(r)),
                units::count(u64::from(count))
            ),
            _ => "no key selected".into(),
        };
        frame.render_widget(dim(text), line_at(0));
        return;
    };
    // The key whole, over a few lines when it is long.
    let key_lines = key_lines(&escape(target), usize::from(inner.width), MAX_KEY_LINES);
    let kl = (key_lines.len() as u16).min(inner.height - HEADER_LINES + 1);
    for (i, l) in key_lines.iter().take(usize::from(kl)).enumerate() {
        frame.render_widget(
            Paragraph::new(l.as_str()).style(Style::new().bold()),
            line_at(i as u16),
        );
    }
    let line_at = |i: u16| line_at(i + kl - 1);
    let body = Rect::new(
        inner.x,
        inner.y + kl + 1,
        inner.width,
        inner.height - kl - 1,
    );
    let staged = app.staged_for(target);
    let loaded = app.value.loaded.as_ref().filter(|l| l.key == target);
    let Some(loaded) = loaded else {
        match app.value.failed.as_ref().filter(|(k, _)| k == target) {
            Some((_, why)) => frame.render_widget(
                Paragraph::new(why.as_str())
                    .wrap(Wrap { trim: false })
                    .fg(theme::ERROR)
                    .bold(),
                Rect::new(
                    inner.x,
                    line_at(1).y,
                    inner.width,
                    inner.bottom().saturating_sub(line_at(1).y),
                ),
            ),
            None => frame.render_widget(dim("loading…".into()), line_at(1)),
        }
        return;
    };
    if loaded.value.is_none() && staged.is_none() {
        let text = if app.value.deleted_by_writer {
            "deleted by the writer"
        } else {
            "the key no longer exists"
        };
        frame.render_widget(Paragraph::new(text).fg(theme::ERROR).bold(), line_at(1));
        return;
    }

    // Made in `update` for the pane's width; a frame of another size (a
    // test drawing at several sizes) formats its own copy.
    let made;
    let formatted = match app.value.formatted.as_ref() {
        Some(f) if is_current(app, f, body.width) => f,
        _ => {
            made = make_formatted(app, body.width);
            &made
        }
    };
    let mut meta = Vec::new();
    if let Some(v) = &loaded.value {
        meta.push(Span::raw(format!("{} ", units::bytes(v.len() as u64))));
        let ttl = match loaded.expires_ms {
            Some(ms) => format!("· ttl {} ", units::ttl_left(ms, app.now_ms)),
            None => "· no ttl ".into(),
        };
        meta.push(Span::styled(ttl, Style::new().fg(theme::WARN)));
        if let Some(off) = loaded.offset {
            meta.push(Span::raw(format!("· offset {off} ")));
        }
    }
    match staged {
        Some(s) => {
            let what = match (&s.change.value, s.change.ttl) {
                (None, _) => "staged delete".to_string(),
                (Some(v), NewTtl::Keep) => format!("staged put {}", units::bytes(v.len() as u64)),
                (Some(v), NewTtl::Never) => {
                    format!("staged put {}, no ttl", units::bytes(v.len() as u64))
                }
                (Some(v), NewTtl::After(d)) => format!(
                    "staged put {}, ttl {}",
                    units::bytes(v.len() as u64),
                    units::span(d)
                ),
            };
            meta.push(Span::styled(
                format!("· {what} (w writes) "),
                Style::new().fg(theme::WARN).bold(),
            ));
        }
        None => {
            meta.push(Span::styled(
                format!("· {}", formatted.shown.name()),
                Style::new().fg(theme::ACCENT),
            ));
            if mode == value_format::ViewMode::Auto {
                meta.push(Span::styled(" (auto)", Style::new().fg(theme::MUTED)));
            }
            if let Some(note) = formatted.note {
                meta.push(Span::styled(
                    format!(" · {note}"),
                    Style::new().fg(theme::ERROR),
                ));
            }
            if let Some(v) = &loaded.value {
                if v.len() > value_format::MAX_FORMATTED && formatted.shown != Shown::Hex {
                    meta.push(Span::styled(
                        format!(
                            " · first {} shown",
                            units::bytes(value_format::MAX_FORMATTED as u64)
                        ),
                        Style::new().fg(theme::ERROR),
                    ));
                }
            }
        }
    }
    frame.render_widget(Paragraph::new(Line::from(meta)), line_at(1));

    let height = usize::from(body.height);
    let bytes: &[u8] = loaded.value.as_deref().unwrap_or(&[]);
    let is_hex = formatted.shown == Shown::Hex && staged.is_none();
    let per_line = hex_bytes_per_line(body.width);
    let total = if is_hex {
        value_format::hex_line_count(bytes.len(), per_line)
    } else {
        formatted.lines.len()
    };
    let scroll = app.value.scroll.min(total.saturating_sub(height));
    let lines: Vec<Line> = (scroll..total)
        .take(height)
        .map(|i| {
            if is_hex {
                Line::raw(hex_line(bytes, i, per_line))
            } else {
                styled_line(&formatted.lines[i], staged.is_some())
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), body);
}

fn styled_line(text: &str, diff: bool) -> Line<'static> {
    if !diff {
        return Line::raw(text.to_string());
    }
    let style = match text.chars().next() {
        Some('+') => Style::new().fg(theme::GOOD),
        Some('-') => Style::new().fg(theme::ERROR),
        Some('…') => Style::new().fg(theme::MUTED),
        Some('!') => Style::new().fg(theme::WARN),
        _ => Style::new(),
    };
    Line::styled(text.to_string(), style)
}

/// True when `f` is the current value formatted for `width`.
fn is_current(app: &App, f: &Formatted, width: u16) -> bool {
    f.version == app.value.version
        && f.mode == app.value.mode
        && f.width == width
        && f.staged_version == app.staged_version
}

/// The width values are formatted to in a value pane drawn in `pane`.
pub fn body_width(pane: Rect) -> u16 {
    pane.width.saturating_sub(2)
}

/// Display lines of the shown value at `width` (0 when there is none to
/// show): what scrolling is bounded by.
pub fn line_count(app: &App, width: u16) -> usize {
    let Some(target) = app.value.target.as_deref() else {
        return 0;
    };
    let staged = app.staged_for(target);
    let Some(loaded) = app.value.loaded.as_ref().filter(|l| l.key == target) else {
        return 0;
    };
    if loaded.value.is_none() && staged.is_none() {
        return 0;
    }
    match app.value.formatted.as_ref() {
        Some(f) if f.shown == Shown::Hex && staged.is_none() => value_format::hex_line_count(
            loaded.value.as_ref().map_or(0, Vec::len),
            hex_bytes_per_line(width),
        ),
        Some(f) => f.lines.len(),
        None => 0,
    }
}

/// The current value (or the staged change's diff) formatted for `width`.
pub fn make_formatted(app: &App, width: u16) -> Formatted {
    let v = &app.value;
    let loaded = v.loaded.as_ref();
    let bytes: &[u8] = loaded.and_then(|l| l.value.as_deref()).unwrap_or(&[]);
    let staged = loaded.and_then(|l| app.staged_for(&l.key));
    let (shown, note, lines) = match staged {
        Some(s) => {
            let old = match &s.old {
                OldValue::Known(old) => old.as_deref(),
                OldValue::Loading => Some(bytes),
            };
            let new = s.change.value.as_deref();
            let lines = value_diff(old, new, 3)
                .into_iter()
                .map(|d| match d {
                    DiffLine::Same(s) => format!("  {s}"),
                    DiffLine::Removed(s) => format!("- {s}"),
                    DiffLine::Added(s) => format!("+ {s}"),
                    DiffLine::Skipped(n) => {
                        format!("… {} unchanged", units::plural(n as u64, "line"))
                    }
                    DiffLine::Note(s) => format!("! {s}"),
                })
                .collect::<Vec<_>>();
            (Shown::Text, None, lines)
        }
        None => {
            let (shown, note) = value_format::resolve(bytes, v.mode);
            let (lines, cut) = if shown == Shown::Hex {
                (Vec::new(), false)
            } else {
                format_lines_capped(bytes, shown)
            };
            let note = if cut {
                Some(value_format::PRETTY_CUT)
            } else {
                note
            };
            (shown, note, lines)
        }
    };
    Formatted {
        version: v.version,
        staged_version: app.staged_version,
        mode: v.mode,
        width,
        shown,
        note,
        lines: wrap(lines, usize::from(width)),
    }
}

/// Break lines longer than `width` characters.
pub fn wrap(lines: Vec<String>, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if line.chars().count() <= width {
            out.push(line);
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        for chunk in chars.chunks(width) {
            out.push(chunk.iter().collect());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::key_lines;

    #[test]
    fn long_keys_wrap_then_end_in_an_ellipsis() {
        assert_eq!(key_lines("abc", 10, 4), ["abc"]);
        assert_eq!(key_lines("abcdefg", 3, 4), ["abc", "def", "g"]);
        assert_eq!(key_lines("abcdefghij", 3, 2), ["abc", "de…"]);
    }
}
