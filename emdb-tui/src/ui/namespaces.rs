//! The namespace pane: names and live key counts.

use ratatui::layout::{Alignment, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::app::App;
use crate::ui::theme;
use crate::ui::{ns_label, pane_block, selected_style};
use crate::units;

/// Draw the namespace pane in `area`.
pub fn draw(frame: &mut Frame, app: &App, area: Rect, focused: bool) {
    let title = Line::from(format!(" Namespaces {} ", app.namespaces.len()));
    let block = pane_block(title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = usize::from(inner.height);
    let mut nav = app.ns_nav;
    nav.follow(app.namespaces.len(), height);
    for (row, i) in (nav.offset..app.namespaces.len()).take(height).enumerate() {
        let item = &app.namespaces[i];
        let r = Rect::new(inner.x, inner.y + row as u16, inner.width, 1);
        let pointer = if i == nav.selected { ">" } else { " " };
        frame.render_widget(Paragraph::new(pointer), r);
        let r = Rect::new(r.x + 1, r.y, r.width.saturating_sub(1), 1);
        let count = units::count(item.count);
        let count_w = (count.len() as u16 + 1).min(r.width);
        let name_r = Rect::new(r.x, r.y, r.width - count_w, 1);
        let name_style = if item.name.is_none() {
            Style::new().fg(theme::LABEL)
        } else {
            Style::new()
        };
        frame.render_widget(
            Paragraph::new(Line::styled(ns_label(&item.name), name_style)),
            name_r,
        );
        frame.render_widget(
            Paragraph::new(count)
                .alignment(Alignment::Right)
                .style(Style::new().fg(theme::MUTED)),
            r,
        );
        if i == nav.selected {
            let full = Rect::new(inner.x, r.y, inner.width, 1);
            frame.buffer_mut().set_style(full, selected_style(focused));
        }
    }
    if app.namespaces.is_empty() {
        frame.render_widget(Paragraph::new("(none)"), inner);
    }
}
