//! The dashboard tab: sizes, live vs dead bytes and activity sparklines,
//! from the stats the worker samples about four times a second.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Gauge, Paragraph, Sparkline};
use ratatui::Frame;

use crate::app::App;
use crate::history::{Point, WINDOW_MS};
use crate::ui::theme;
use crate::units;

/// Bytes of the file header (counted in the log size, never dead).
pub const HEADER_BYTES: u64 = 4096;

fn boxed(title: Line<'_>) -> Block<'_> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(theme::MUTED))
        .title(title)
}

fn field(name: &str, value: String) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<15}"), Style::new().fg(theme::LABEL)),
        Span::styled(value, Style::new().bold()),
    ])
}

/// Draw the dashboard in `area`.
pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let Some(s) = &app.stats else {
        frame.render_widget(
            Paragraph::new("waiting for the first stats sample…").fg(theme::MUTED),
            area,
        );
        return;
    };
    let [top, charts, activity] = Layout::vertical([
        Constraint::Length(6),
        Constraint::Min(9),
        Constraint::Length(if s.encrypted { 5 } else { 4 }),
    ])
    .areas(area);
    let [records, storage] =
        Layout::horizontal([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(top);

    let named = s.namespaces.iter().filter(|(n, _)| !n.is_empty()).count();
    let lines = vec![
        field(
            "live keys",
            units::count(app.live_keys().unwrap_or(s.live_records)),
        ),
        // The index still holds expired keys until they are swept or
        // compacted away: index entries = live keys + these.
        field(
            "expired keys",
            units::count(s.live_records.saturating_sub(app.live_keys().unwrap_or(0))),
        ),
        field("index memory", units::bytes(s.index_memory_bytes)),
        field(
            "namespaces",
            format!("{} + default", units::count(named as u64)),
        ),
    ];
    let block = boxed(Line::from(" Records "));
    let inner = block.inner(records);
    frame.render_widget(block, records);
    frame.render_widget(Paragraph::new(lines), inner);

    let block = boxed(Line::from(" Log "));
    let inner = block.inner(storage);
    frame.render_widget(block, storage);
    let [l1, l2, gauge, hint] = Layout::vertical([Constraint::Length(1); 4]).areas(inner);
    frame.render_widget(
        Line::from(vec![
            Span::styled("logical size   ", Style::new().fg(theme::LABEL)),
            Span::styled(units::bytes(s.log_logical_bytes), Style::new().bold()),
            Span::styled("   file size ", Style::new().fg(theme::LABEL)),
            Span::styled(units::bytes(s.file_bytes), Style::new().bold()),
        ]),
        l1,
    );
    frame.render_widget(
        Line::from(vec![
            Span::styled("live bytes     ", Style::new().fg(theme::LABEL)),
            Span::styled(
                units::bytes(s.live_bytes),
                Style::new().fg(theme::GOOD).bold(),
            ),
            Span::styled("   dead bytes ", Style::new().fg(theme::LABEL)),
            Span::styled(
                units::bytes(s.dead_bytes),
                Style::new().fg(theme::ERROR).bold(),
            ),
        ]),
        l2,
    );
    let used = s.live_bytes + s.dead_bytes;
    let ratio = if used == 0 {
        1.0
    } else {
        s.live_bytes as f64 / used as f64
    };
    frame.render_widget(
        Gauge::default()
            .gauge_style(Style::new().fg(theme::GOOD).bg(theme::ERROR))
            .ratio(ratio)
            .label(format!("{:.0}% live", ratio * 100.0)),
        gauge,
    );
    let hint_text = if s.dead_bytes == 0 {
        Line::from("nothing to reclaim").fg(theme::MUTED)
    } else {
        Line::from(format!(
            "compaction would reclaim {}",
            units::bytes(s.dead_bytes)
        ))
        .fg(theme::WARN)
    };
    frame.render_widget(hint_text, hint);

    let [w, f, l] = Layout::vertical([Constraint::Ratio(1, 3); 3]).areas(charts);
    let latest = app.history.latest();
    // A writer that is gone has no rate: "—", not the last one seen.
    let rate = |f: fn(&Point) -> f64| {
        if app.history.writer_gone() {
            Some("— (the writer is gone)".to_string())
        } else {
            latest.map(|p| units::rate(f(p)))
        }
    };
    spark(
        frame,
        app,
        w,
        "writes/s",
        rate(|p| p.writes_per_s),
        |p| p.writes_per_s,
        theme::ACCENT,
    );
    spark(
        frame,
        app,
        f,
        "flushes/s",
        rate(|p| p.flushes_per_s),
        |p| p.flushes_per_s,
        theme::GROUP,
    );
    spark(
        frame,
        app,
        l,
        "fsync p99",
        Some(format!(
            "{} (p50 {}), since the writer opened",
            units::latency(s.fsync_p99),
            units::latency(s.fsync_p50)
        )),
        |p| p.fsync_p99_us as f64,
        theme::MODE,
    );

    let last = match s.last_compaction_unix_ms {
        Some(ms) => format!("{} ({})", units::utc_time(ms), units::ago(ms, app.now_ms)),
        None => "never".into(),
    };
    let writer = match (s.writer_pid, s.published_unix_ms) {
        (Some(pid), Some(at)) => format!(
            "writer pid {pid}{}, stats published {}",
            if app.writer_alive == Some(false) {
                " (no longer running)"
            } else {
                ""
            },
            units::ago(at, app.now_ms)
        ),
        (_, None) if app.config.writable => "this process is the writer".into(),
        _ => "no writer has published stats (idle database?)".into(),
    };
    let lines = vec![
        Line::from(vec![
            Span::styled("compactions ", Style::new().fg(theme::LABEL)),
            Span::styled(units::count(s.compactions), Style::new().bold()),
            Span::styled("   last ", Style::new().fg(theme::LABEL)),
            Span::raw(last),
            Span::styled("   writes ", Style::new().fg(theme::LABEL)),
            Span::raw(units::count(s.writes)),
            Span::styled("   flushes ", Style::new().fg(theme::LABEL)),
            Span::raw(units::count(s.flushes)),
            Span::styled("   fsyncs ", Style::new().fg(theme::LABEL)),
            Span::raw(units::count(s.fsyncs)),
        ]),
        Line::from(writer).fg(theme::MUTED),
    ];
    let mut lines = lines;
    if s.encrypted {
        let mut spans = vec![
            Span::styled("encrypted", Style::new().fg(theme::GOOD)),
            Span::styled(
                format!(
                    ", {} sealed under the current key",
                    units::plural(s.encryptions, "record")
                ),
                Style::new().fg(theme::LABEL),
            ),
        ];
        if s.nonce_budget_warning {
            spans.push(Span::styled(
                "  rotate the key soon (nonce budget)",
                Style::new().fg(theme::ERROR).bold(),
            ));
        }
        lines.insert(1, Line::from(spans));
    }
    let block = boxed(Line::from(" Activity "));
    let inner = block.inner(activity);
    frame.render_widget(block, activity);
    frame.render_widget(Paragraph::new(lines), inner);
}

fn spark(
    frame: &mut Frame,
    app: &App,
    area: Rect,
    name: &str,
    now: Option<String>,
    f: impl Fn(&Point) -> f64,
    color: Color,
) {
    let inner_width = area.width.saturating_sub(2);
    let cols = app
        .history
        .columns(app.now_ms, WINDOW_MS, usize::from(inner_width), &f);
    let start = app.now_ms.saturating_sub(WINDOW_MS);
    let peak = app
        .history
        .points()
        .filter(|p| p.at_ms > start)
        .map(&f)
        .fold(0.0f64, f64::max);
    let title = Line::from(vec![
        Span::styled(format!(" {name} "), Style::new().bold()),
        Span::raw(now.unwrap_or_else(|| "collecting…".into())),
        Span::styled(
            format!(
                "  peak {}  last {} ",
                if name.starts_with("fsync") {
                    units::latency(std::time::Duration::from_micros(peak as u64))
                } else {
                    units::rate(peak)
                },
                units::span(std::time::Duration::from_millis(WINDOW_MS))
            ),
            Style::new().fg(theme::MUTED),
        ),
    ]);
    let data: Vec<Option<u64>> = cols
        .into_iter()
        .map(|c| c.map(|v| v.round() as u64))
        .collect();
    let block = boxed(title);
    let sparkline = Sparkline::default()
        .block(block)
        .data(data)
        .max(peak.ceil().max(1.0) as u64)
        .style(Style::new().fg(color))
        .absent_value_symbol(" ")
        .absent_value_style(Style::new().fg(theme::MUTED));
    frame.render_widget(sparkline, area);
}
