//! The help overlay: the key map, from [`crate::keymap`].

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::app::App;
use crate::keymap::{Context, BINDINGS, INPUT_KEYS, OTHER_KEYS};
use crate::ui::theme;

fn section(title: &str, rows: impl IntoIterator<Item = (String, String)>) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        title.to_string(),
        Style::new().fg(theme::ACCENT).bold(),
    )];
    for (keys, help) in rows {
        lines.push(Line::from(vec![
            Span::styled(format!("  {keys:<14}"), Style::new().fg(theme::WARN)),
            Span::raw(help),
        ]));
    }
    lines.push(Line::default());
    lines
}

fn bindings(context: Context) -> Vec<Line<'static>> {
    section(
        context.title(),
        BINDINGS
            .iter()
            .filter(|b| b.context == context)
            .map(|b| (b.label.to_string(), b.help.to_string())),
    )
}

fn pairs(title: &str, rows: &[(&str, &str)]) -> Vec<Line<'static>> {
    section(
        title,
        rows.iter().map(|(k, h)| (k.to_string(), h.to_string())),
    )
}

/// Draw the help overlay over `area`, scrolled down `scroll` lines.
pub fn draw(frame: &mut Frame, app: &App, area: Rect, scroll: usize) {
    let mut left = bindings(Context::Global);
    left.extend(bindings(Context::Browse));
    let mut right = bindings(Context::Write);
    if !app.config.writable {
        right.insert(
            1,
            Line::styled(
                "  (start with --write to use these)",
                Style::new().fg(theme::MUTED),
            ),
        );
    }
    right.extend(pairs("Filter and prompts", INPUT_KEYS));
    right.extend(pairs("Other", OTHER_KEYS));

    let two_columns = area.width >= 100;
    let (width, height) = if two_columns {
        (110, left.len().max(right.len()) as u16 + 2)
    } else {
        (60, (left.len() + right.len()) as u16 + 2)
    };
    let popup = crate::ui::centered(area, width, height);
    frame.render_widget(Clear, popup);
    // Say when lines are hidden above or below, and how to reach them.
    let total = usize::from(height.saturating_sub(2));
    let shown = usize::from(popup.height.saturating_sub(2));
    let more = match (scroll > 0, scroll + shown < total) {
        (true, true) => Some(" ↑↓ more: k/j "),
        (false, true) => Some(" ↓ more: j, PgDn "),
        (true, false) => Some(" ↑ more: k, g "),
        (false, false) => None,
    };
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(Style::new().fg(theme::ACCENT))
        .title(Line::from(" Keys — Esc, q or ? closes ").bold());
    if let Some(more) = more {
        block = block
            .title_bottom(Line::styled(more, Style::new().fg(theme::WARN).bold()).right_aligned());
    }
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let scroll = u16::try_from(scroll).unwrap_or(u16::MAX);
    if two_columns {
        let [l, r] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(inner);
        frame.render_widget(Paragraph::new(left).scroll((scroll, 0)), l);
        frame.render_widget(Paragraph::new(right).scroll((scroll, 0)), r);
    } else {
        left.extend(right);
        frame.render_widget(Paragraph::new(left).scroll((scroll, 0)), inner);
    }
}
