//! The key pane: a virtualised list (only visible rows are drawn) with
//! size and time-to-live columns.

use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::app::{App, OldValue};
use crate::escape::escape;
use crate::keylist::{ListView, Row, SortBy};
use crate::ui::theme;
use crate::ui::{pane_block, selected_style};
use crate::units;

/// Draw the key pane in `area`.
pub fn draw(frame: &mut Frame, app: &App, area: Rect, focused: bool) {
    let list = &app.keys.list;
    // Keys of the namespace: the list's own count when it holds them all
    // (or pages them all), else the namespace pane's count.
    let total = if list.scanned_filter().is_empty() {
        list.total()
    } else {
        let ns = app.shown_ns();
        app.namespaces
            .iter()
            .find(|n| n.name == ns)
            .map_or(list.total(), |n| n.count as usize)
    };
    let count = if let Some(level) = list.level() {
        // One level of a tree too big to hold: the keys under it.
        if level.prefix.is_empty() {
            format!("{} ", units::count(level.matched as u64))
        } else {
            format!(
                "{} under {} ",
                units::count(level.matched as u64),
                escape(&level.prefix)
            )
        }
    } else if let Some(top) = list.top() {
        // The first keys in an order, out of more than are held.
        let what = if top.by_expiry {
            "soonest to expire"
        } else {
            "largest"
        };
        format!(
            "{} {what} of {} ",
            units::count(list.match_count() as u64),
            units::count(top.matched as u64)
        )
    } else if list.pattern().is_some() || list.view() == ListView::Expiring {
        format!(
            "{} of {} ",
            units::count(list.match_count() as u64),
            units::count(total as u64)
        )
    } else {
        format!("{} ", units::count(total as u64))
    };
    let mut title = vec![
        Span::raw(" Keys "),
        Span::styled(count, Style::new().bold()),
    ];
    // The bytes of every value of the namespace (with a filter the count
    // says "of N", and a total of all would read as the matches' total).
    if list.level().is_some()
        || (list.pattern().is_none() && list.view() != ListView::Expiring && list.top().is_none())
    {
        title.push(Span::styled(
            format!("· {} ", units::bytes(list.total_bytes())),
            Style::new().fg(theme::MUTED),
        ));
    }
    if !list.filter().is_empty() {
        title.push(Span::styled(
            format!("/{} ", list.filter()),
            Style::new().fg(theme::WARN),
        ));
    }
    match list.view() {
        ListView::Flat if list.sort() == SortBy::Key => {}
        ListView::Flat => title.push(Span::styled(
            format!("[{}] ", list.sort().label()),
            Style::new().fg(theme::MODE),
        )),
        ListView::Tree => title.push(Span::styled(
            format!("[tree '{}'] ", char::from(list.delimiter())),
            Style::new().fg(theme::MODE),
        )),
        ListView::Expiring => title.push(Span::styled(
            "[expiring soon] ",
            Style::new().fg(theme::MODE),
        )),
    }
    if let Some(f) = app.found.as_ref().filter(|f| f.ns == app.shown_ns()) {
        let text = if f.running {
            format!("find {:?}… ", f.text)
        } else {
            let at = f.at.map_or(0, |i| f.skipped + i + 1);
            format!(
                "find {:?} {}/{} ",
                f.text,
                units::count(at as u64),
                units::count(f.matched as u64)
            )
        };
        title.push(Span::styled(text, Style::new().fg(theme::WARN)));
    }
    if let Some(l) = &app.keys.loading {
        title.push(Span::styled(
            format!("loading… {} ", units::count(l.loaded as u64)),
            Style::new().fg(theme::MUTED),
        ));
    }
    let block = pane_block(Line::from(title), focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height < 2 || inner.width < 8 {
        return;
    }
    let marks = app.config.writable;
    // Gutter: the selection pointer, then the staged-change mark.
    // Narrow panes give up the TTL column first, then the size column.
    let [mark, key, size, ttl] = Layout::horizontal([
        Constraint::Length(2),
        Constraint::Min(4),
        Constraint::Length(if inner.width >= 30 { 10 } else { 0 }),
        Constraint::Length(if inner.width >= 40 { 9 } else { 0 }),
    ])
    .areas(inner);
    let header_style = Style::new()
        .fg(theme::MUTED)
        .add_modifier(Modifier::UNDERLINED);
    let header = |r: Rect, text: &'static str, align: Alignment| {
        let r = Rect::new(r.x, r.y, r.width, 1);
        (Paragraph::new(text).style(header_style).alignment(align), r)
    };
    for (w, r) in [
        header(mark, "", Alignment::Left),
        header(key, "key", Alignment::Left),
        header(size, "size", Alignment::Right),
        header(ttl, "ttl", Alignment::Right),
    ] {
        frame.render_widget(w, r);
    }

    let height = usize::from(inner.height - 1);
    let rows = list.row_count();
    let mut nav = app.keys.nav;
    nav.follow(rows, height);
    let found = app.found.as_ref().filter(|f| f.ns == app.shown_ns());
    for (line, i) in (nav.offset..rows).take(height).enumerate() {
        let Some(row) = list.row(i) else { break };
        let y = inner.y + 1 + line as u16;
        let cell = |r: Rect| Rect::new(r.x, y, r.width, 1);
        if i == nav.selected {
            frame.render_widget(Paragraph::new(">"), cell(mark));
        }
        match row {
            Row::Key { depth, skip, .. } => {
                let full = list.row_bytes(row);
                if full.is_empty() && list.is_paged() {
                    // Its chunk is being read.
                    frame.render_widget(Paragraph::new("…").fg(theme::MUTED), cell(key));
                    if i == nav.selected {
                        let r = Rect::new(inner.x, y, inner.width, 1);
                        frame.buffer_mut().set_style(r, selected_style(focused));
                    }
                    continue;
                }
                let shown = full.get(skip as usize..).unwrap_or(full);
                let indent = "  ".repeat(usize::from(depth));
                let text = if shown.is_empty() {
                    format!("{indent}{}", escape(full))
                } else {
                    format!("{indent}{}", escape(shown))
                };
                // Cut long keys visibly; the value pane shows them whole.
                let text = ellipsize(&text, usize::from(key.width));
                // Keys whose value holds what `f` found stand out.
                let style = match found {
                    Some(f) if f.holds(full) => Style::new().fg(theme::WARN).bold(),
                    _ => Style::new(),
                };
                frame.render_widget(Paragraph::new(text).style(style), cell(key));
                if let Some(e) = list.row_entry(row) {
                    frame.render_widget(
                        Paragraph::new(units::bytes(u64::from(e.size)))
                            .alignment(Alignment::Right)
                            .fg(theme::MUTED),
                        cell(size),
                    );
                    if e.expires_ms != 0 {
                        let left = e.expires_ms.saturating_sub(app.now_ms);
                        let color = if left < 60_000 {
                            theme::ERROR
                        } else {
                            theme::WARN
                        };
                        frame.render_widget(
                            Paragraph::new(units::ttl_left(e.expires_ms, app.now_ms))
                                .alignment(Alignment::Right)
                                .fg(color),
                            cell(ttl),
                        );
                    }
                }
                if marks {
                    if let Some(s) = app.staged_for(full) {
                        let (m, c) = match (&s.change.value, &s.old) {
                            (None, _) => ("-", theme::ERROR),
                            (Some(_), OldValue::Known(None)) => ("+", theme::GOOD),
                            (Some(_), _) => ("~", theme::WARN),
                        };
                        let r = cell(mark);
                        frame.render_widget(
                            Paragraph::new(m).style(Style::new().fg(c).bold()),
                            Rect::new(r.x + 1, r.y, 1, 1),
                        );
                    }
                }
            }
            Row::Group {
                count,
                bytes,
                prefix_len,
                skip,
                depth,
                expanded,
                ..
            } => {
                let prefix = list.row_bytes(row);
                let label = prefix
                    .get(skip as usize..prefix_len as usize)
                    .unwrap_or(prefix);
                let arrow = if expanded { "▾" } else { "▸" };
                let line = Line::from(vec![
                    Span::raw("  ".repeat(usize::from(depth))),
                    Span::styled(
                        format!("{arrow} {}", escape(label)),
                        Style::new().fg(theme::GROUP).bold(),
                    ),
                    Span::styled(
                        format!(" ({})", units::count(u64::from(count))),
                        Style::new().fg(theme::MUTED),
                    ),
                ]);
                frame.render_widget(Paragraph::new(line), cell(key));
                // A group's size is the bytes of all its values.
                frame.render_widget(
                    Paragraph::new(units::bytes(bytes))
                        .alignment(Alignment::Right)
                        .fg(theme::MUTED),
                    cell(size),
                );
            }
        }
        if i == nav.selected {
            let r = Rect::new(inner.x, y, inner.width, 1);
            frame.buffer_mut().set_style(r, selected_style(focused));
        }
    }
    if rows == 0 {
        let text = if app.keys.loading.is_some() {
            "loading keys…"
        } else if list.pattern().is_some() {
            "no key matches the filter (Esc clears it)"
        } else if list.view() == ListView::Expiring {
            "no key has a time to live"
        } else {
            "no keys"
        };
        let r = Rect::new(inner.x, inner.y + 1, inner.width, 1);
        frame.render_widget(Paragraph::new(text).fg(theme::MUTED), r);
    }
}

/// `text` cut to `width` characters, ending in `…` when it was cut.
pub fn ellipsize(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::ellipsize;

    #[test]
    fn long_text_ends_in_an_ellipsis() {
        assert_eq!(ellipsize("user:1", 6), "user:1");
        assert_eq!(ellipsize("user:12", 6), "user:…");
        assert_eq!(ellipsize("ab", 1), "…");
    }
}
