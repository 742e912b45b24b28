//! Drawing: one function per pane, all reading [`App`] and doing no I/O.

pub mod dashboard;
pub mod dialog;
pub mod help;
pub mod keys;
pub mod namespaces;
pub mod theme;
pub mod value;

use emdb_tools::encoding::is_invisible;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Gauge, Paragraph};
use ratatui::Frame;

use crate::app::{App, Areas, Mode, Pane, PromptKind, Question, Tab};
use crate::escape::{escape, escape_path, escape_str};
use crate::keymap::{self, Place};
use crate::units;

/// Messages stay this long.
const MESSAGE_MS: u64 = 8000;

/// What `m` shows whole: the message the message line shows (cut at the
/// window's width when long), or showed last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LastMessage<'a> {
    /// The text.
    pub text: &'a str,
    /// An error (or the warning that the data shown is stale).
    pub error: bool,
    /// When it was said (ms since the epoch).
    pub at_ms: u64,
}

/// The message on the message line now: a message not yet gone, else the
/// warning that the data shown is stale; when neither shows, the last
/// message, gone from the line.
pub fn last_message(app: &App) -> Option<LastMessage<'_>> {
    let message = app.message.as_ref().map(|m| LastMessage {
        text: &m.text,
        error: m.error,
        at_ms: m.at_ms,
    });
    let stale = app.stale.as_ref().map(|s| LastMessage {
        text: &s.text,
        error: true,
        at_ms: s.since_ms,
    });
    match message {
        Some(m) if app.now_ms < m.at_ms + MESSAGE_MS => Some(m),
        _ => stale.or(message),
    }
}

/// Said after a message cut at the window's width.
const CUT_HINT: &str = " m: all";

/// `text` on one line of `width` characters in `style`: a longer one is
/// cut, ending in `…` and [`CUT_HINT`], which names the key that shows
/// it whole.
fn message_line(text: &str, style: Style, width: usize) -> Line<'static> {
    let hint = CUT_HINT.chars().count();
    if text.chars().count() <= width || width < hint + 8 {
        return Line::styled(text.to_string(), style);
    }
    Line::from(vec![
        Span::styled(keys::ellipsize(text, width - hint), style),
        Span::styled(CUT_HINT, Style::new().fg(theme::LABEL).bold()),
    ])
}

/// Name of the namespace `name` as shown.
pub fn ns_label(name: &Option<String>) -> String {
    match name {
        Some(n) => escape_str(n),
        None => "(default)".into(),
    }
}

/// Style of the selected row.
pub fn selected_style(focused: bool) -> Style {
    if focused {
        Style::new()
            .bg(theme::ACCENT)
            .fg(theme::ON_ACCENT)
            .add_modifier(Modifier::BOLD)
    } else {
        Style::new().add_modifier(Modifier::REVERSED)
    }
}

/// A pane's frame: highlighted when focused.
pub fn pane_block<'a>(title: Line<'a>, focused: bool) -> Block<'a> {
    let block = Block::default().borders(Borders::ALL).title(title);
    if focused {
        block
            .border_type(BorderType::Thick)
            .border_style(Style::new().fg(theme::ACCENT))
    } else {
        block.border_style(Style::new().fg(theme::MUTED))
    }
}

/// A `width` x `height` rectangle in the middle of `area` (clamped).
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Draw the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let [top, body, message, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    draw_tabs(frame, app, top);
    match app.tab {
        Tab::Browse => draw_browse(frame, app, body),
        Tab::Dashboard => dashboard::draw(frame, app, body),
    }
    draw_message(frame, app, message);
    draw_status(frame, app, status);
    match &app.mode {
        Mode::Help(scroll) => help::draw(frame, app, body, *scroll),
        Mode::Confirm(q) => dialog::confirm(frame, body, q),
        Mode::Review(scroll) => dialog::review(frame, app, body, *scroll),
        Mode::Message(scroll) => dialog::message(frame, app, body, *scroll),
        _ => {}
    }
    scrub(frame.buffer_mut());
}

/// Drop any control or invisible character left in a cell. Names, keys and
/// paths are escaped where they are drawn; this is the net for text that
/// is not (an engine's error message quoting a name), since an ESC reaching
/// the terminal would be obeyed, not shown, and an invisible character
/// would shift the columns after it.
fn scrub(buffer: &mut Buffer) {
    let hidden = |c: char| c.is_control() || is_invisible(c);
    for cell in &mut buffer.content {
        if cell.symbol().chars().any(hidden) {
            let clean: String = cell.symbol().chars().filter(|&c| !hidden(c)).collect();
            cell.set_symbol(if clean.is_empty() { " " } else { &clean });
        }
    }
}

fn draw_tabs(frame: &mut Frame, app: &App, area: Rect) {
    let tab = |n: &'static str, name: &'static str, on: bool| {
        let style = if on {
            Style::new().fg(theme::ON_ACCENT).bg(theme::ACCENT).bold()
        } else {
            Style::new().fg(theme::LABEL)
        };
        Span::styled(format!(" {n} {name} "), style)
    };
    let mut spans = vec![
        Span::styled(" emdb-tui ", Style::new().bold()),
        tab("1", "Browse", app.tab == Tab::Browse),
        Span::raw(" "),
        tab("2", "Dashboard", app.tab == Tab::Dashboard),
    ];
    if !app.staged.is_empty() {
        spans.push(Span::styled(
            format!("  {} staged (w: review)", app.staged.len()),
            Style::new().fg(theme::WARN).bold(),
        ));
    }
    frame.render_widget(Line::from(spans), area);
    let help = Line::from(" ? help  q quit ")
        .right_aligned()
        .fg(theme::MUTED);
    frame.render_widget(help, area);
}

/// Where the browser's panes go on a `screen` of that size (a pure
/// function: `update` keeps the result for the mouse and paging, drawing
/// computes the same for the frame it draws).
pub fn layout(screen: Rect) -> Areas {
    let [_top, area, _message, _status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(screen);
    let ns_width = if area.width < 80 {
        0
    } else {
        (area.width / 5).clamp(18, 30)
    };
    let [ns, rest] =
        Layout::horizontal([Constraint::Length(ns_width), Constraint::Min(0)]).areas(area);
    let [keys, value] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(rest);
    let inner_rows = |r: Rect, extra: u16| r.height.saturating_sub(2 + extra);
    Areas {
        namespaces: ns,
        keys,
        value,
        key_rows: inner_rows(keys, 1),
        ns_rows: inner_rows(ns, 0),
        value_rows: inner_rows(value, value::HEADER_LINES),
    }
}

fn draw_browse(frame: &mut Frame, app: &App, _area: Rect) {
    let Areas {
        namespaces: ns,
        keys,
        value,
        ..
    } = layout(frame.area());
    if ns.width > 0 {
        namespaces::draw(frame, app, ns, app.focus == Pane::Namespaces);
    }
    keys::draw(frame, app, keys, app.focus == Pane::Keys);
    value::draw(frame, app, value, app.focus == Pane::Value);
}

fn draw_message(frame: &mut Frame, app: &App, area: Rect) {
    let prompt = |label: String, text: &str, cursor: usize| {
        let (label, text, cursor) = fit_prompt(&label, text, cursor, usize::from(area.width));
        let line = Line::from(vec![
            Span::styled(label.clone(), Style::new().fg(theme::WARN).bold()),
            Span::raw(text),
        ]);
        let x = area.x + (label.chars().count() + cursor) as u16;
        (
            line,
            Some(Position::new(x.min(area.right().saturating_sub(1)), area.y)),
        )
    };
    let (line, cursor) = match &app.mode {
        Mode::Filter(input) => prompt(
            "Filter (^prefix, * ? glob, ~regex; Enter keep, Esc clear): ".into(),
            input.text(),
            input.cursor(),
        ),
        Mode::Prompt(kind, input) => {
            let label = match kind {
                PromptKind::NewKey => "New key: ".to_string(),
                PromptKind::NewValue { key } => format!("Value for {}: ", escape(key)),
                PromptKind::NewTtl { .. } => {
                    "Time to live (e.g. 90s 15m 2h 7d; empty: keep or none): ".to_string()
                }
                PromptKind::EditValue { key } => format!("New value for {}: ", escape(key)),
                PromptKind::RenameKey { key, .. } => format!("Rename {} to: ", escape(key)),
                PromptKind::NewNamespace => "New namespace: ".to_string(),
                PromptKind::ExportPath { keys } => format!(
                    "Export {} to the new file (.jsonl, .csv or .resp): ",
                    units::plural(*keys as u64, "listed key")
                ),
                PromptKind::FindInValues => {
                    "Find in values (Enter looks, empty clears): ".to_string()
                }
                PromptKind::EditTtl { key, .. } => format!(
                    "Time to live for {} (e.g. 90s 15m 2h 7d, never): ",
                    escape(key)
                ),
            };
            prompt(label, input.text(), input.cursor())
        }
        Mode::Confirm(Question::Delete { key }) => (
            Line::from(format!("Delete {}? y/n", escape(key))).fg(theme::WARN),
            None,
        ),
        Mode::Confirm(Question::DropNamespace { name, .. }) => (
            Line::from(format!(
                "Drop namespace {} and its keys now? y/n",
                escape_str(name)
            ))
            .fg(theme::WARN),
            None,
        ),
        Mode::Confirm(Question::Quit) => (
            Line::from("Quit and discard the staged changes? y/n").fg(theme::WARN),
            None,
        ),
        _ => {
            if let Some(c) = &app.compaction {
                draw_compaction(frame, app, c, area);
                return;
            }
            let width = usize::from(area.width);
            match &app.message {
                Some(m) if app.now_ms < m.at_ms + MESSAGE_MS => {
                    let style = if m.error {
                        Style::new().fg(theme::ERROR).bold()
                    } else {
                        Style::new().fg(theme::GOOD)
                    };
                    (message_line(&m.text, style, width), None)
                }
                _ => match &app.stale {
                    // What is shown is the file as it was: said until
                    // something else is.
                    Some(s) => (
                        message_line(&s.text, Style::new().fg(theme::ERROR).bold(), width),
                        None,
                    ),
                    None => (key_bar(app, width), None),
                },
            }
        }
    };
    frame.render_widget(Paragraph::new(line), area);
    if let Some(pos) = cursor {
        frame.set_cursor_position(pos);
    }
}

/// Columns of a prompt's line kept for the typed text, at most: a longer
/// label is cut first (`New value for user:0…: `), so what is typed shows
/// in a narrow window too.
const PROMPT_ROOM: usize = 24;

/// A prompt's `label` and typed `text` (cursor at character `cursor`) on
/// one line of `width` characters: the label keeps all but the room for
/// the text (up to half the line, or [`PROMPT_ROOM`]), and the text shows
/// the part around the cursor when it is longer than its room. Returns
/// the label and the text to draw, and the cursor's column in that text.
pub fn fit_prompt(label: &str, text: &str, cursor: usize, width: usize) -> (String, String, usize) {
    let room = (width / 2).min(PROMPT_ROOM);
    let label_max = width.saturating_sub(room);
    let label = if label.chars().count() > label_max {
        let name = label.strip_suffix(": ").unwrap_or(label);
        format!("{}: ", keys::ellipsize(name, label_max.saturating_sub(2)))
    } else {
        label.to_string()
    };
    // The cursor's column after the text needs one more.
    let room = width.saturating_sub(label.chars().count()).max(1);
    let start = (cursor + 1).saturating_sub(room);
    let shown: String = text.chars().skip(start).take(room).collect();
    (label, shown, cursor - start)
}

/// The keys worth knowing here, as many as fit in `width` columns (the
/// last, `? more`, always shows).
fn key_bar(app: &App, width: usize) -> Line<'static> {
    let place = match (app.tab, app.focus) {
        (Tab::Dashboard, _) => Place::Dashboard,
        (Tab::Browse, Pane::Namespaces) => Place::Namespaces,
        (Tab::Browse, Pane::Keys) => Place::Keys,
        (Tab::Browse, Pane::Value) => Place::Value,
    };
    let items = keymap::key_bar(place, app.config.writable, !app.staged.is_empty());
    let len = |(k, w): &(&str, &str)| k.chars().count() + w.chars().count() + 3;
    let more = items.last().map_or(0, len);
    let mut used = 1 + more;
    let mut spans = vec![Span::raw(" ")];
    let (last, rest) = items.split_last().unzip();
    for item in rest.unwrap_or(&[]) {
        if used + len(item) > width {
            break;
        }
        used += len(item);
        push_key(&mut spans, item);
    }
    if let Some(item) = last {
        push_key(&mut spans, item);
    }
    Line::from(spans)
}

fn push_key(spans: &mut Vec<Span<'static>>, (keys, what): &(&'static str, &'static str)) {
    spans.push(Span::styled(*keys, Style::new().fg(theme::LABEL).bold()));
    spans.push(Span::styled(
        format!(" {what}  "),
        Style::new().fg(theme::MUTED),
    ));
}

fn draw_compaction(frame: &mut Frame, app: &App, c: &crate::app::Compaction, area: Rect) {
    let elapsed = units::span(std::time::Duration::from_millis(
        app.now_ms.saturating_sub(c.started_ms),
    ));
    let (ratio, label) = match c.written {
        Some(w) if c.expected > 0 => {
            let r = (w as f64 / c.expected as f64).min(0.99);
            (
                r,
                format!(
                    "compacting: {} of about {} copied, {elapsed}",
                    units::bytes(w.min(c.expected)),
                    units::bytes(c.expected)
                ),
            )
        }
        _ => (0.0, format!("compacting… {elapsed}")),
    };
    // The gauge takes the message line: the pending quit is said here.
    let label = if app.quit_pending {
        format!("{label} · quitting when it ends (Ctrl-C: now)")
    } else {
        label
    };
    let gauge = Gauge::default()
        .gauge_style(Style::new().fg(theme::MODE).bg(theme::ON_ACCENT))
        .ratio(ratio)
        .label(label);
    frame.render_widget(gauge, area);
}

fn draw_status(frame: &mut Frame, app: &App, area: Rect) {
    // While a prompt or the filter takes the message line, an error about
    // what was typed goes here instead, where it cannot be missed.
    if matches!(app.mode, Mode::Prompt(..) | Mode::Filter(_)) {
        if let Some(m) = app.message.as_ref().filter(|m| m.error) {
            let line = Line::from(vec![
                Span::styled(
                    " ✗ ",
                    Style::new().fg(theme::ON_ERROR).bg(theme::ERROR).bold(),
                ),
                Span::styled(format!(" {}", m.text), Style::new().fg(theme::ERROR).bold()),
            ]);
            frame.render_widget(Paragraph::new(line), area);
            return;
        }
    }
    let mode = if app.config.writable {
        Span::styled(
            " read-write ",
            Style::new().fg(theme::ON_ACCENT).bg(theme::ERROR).bold(),
        )
    } else {
        Span::styled(
            " read-only ",
            Style::new().fg(theme::ON_ACCENT).bg(theme::GOOD).bold(),
        )
    };
    let refreshed = match (&app.stale, app.stats_ms) {
        (Some(s), _) => Span::styled(
            format!(" STALE: data as of {} ", units::ago(s.since_ms, app.now_ms)),
            Style::new().fg(theme::ON_ERROR).bg(theme::ERROR).bold(),
        ),
        (None, Some(t)) => Span::raw(format!("refreshed {}", units::ago(t, app.now_ms))),
        (None, None) => Span::raw("connecting…"),
    };
    let sep = || Span::styled(" │ ", Style::new().fg(theme::MUTED));
    let line = Line::from(vec![
        Span::raw(" "),
        Span::styled(escape_path(&app.config.path), Style::new().bold()),
        sep(),
        mode,
        sep(),
        match &app.stats {
            // The file now is another one.
            _ if app.stale.is_some() => Span::raw("encryption ?"),
            Some(s) if s.encrypted => Span::styled("encrypted", Style::new().fg(theme::GOOD)),
            Some(_) => Span::raw("not encrypted"),
            None => Span::raw("encryption ?"),
        },
        sep(),
        Span::raw(format!("ns {}", ns_label(&app.shown_ns()))),
        sep(),
        refreshed,
    ]);
    frame.render_widget(
        Paragraph::new(line).style(Style::new().bg(theme::STATUS_BG)),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::fit_prompt;

    #[test]
    fn prompts_fit_their_line() {
        let label = "New value for user:0: ";
        assert_eq!(
            fit_prompt(label, "abc", 3, 120),
            (label.to_string(), "abc".to_string(), 3)
        );
        // Half of 20 columns for the label, half for the text.
        assert_eq!(
            fit_prompt(label, "abc", 3, 20),
            ("New val…: ".to_string(), "abc".to_string(), 3)
        );
        // Room for 10 characters, the cursor after them: the last 9.
        assert_eq!(
            fit_prompt(label, "abcdefghij", 10, 20),
            ("New val…: ".to_string(), "bcdefghij".to_string(), 9)
        );
        assert_eq!(
            fit_prompt(label, "abcdefghij", 0, 20),
            ("New val…: ".to_string(), "abcdefghij".to_string(), 0)
        );
        for width in 0..6 {
            fit_prompt(label, "abc", 1, width);
        }
    }
}
