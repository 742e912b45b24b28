//! The colours of the UI, by role: every pane takes its colours from here,
//! so a change of palette is one edit.

use ratatui::style::Color;

/// Focus, the selection, section titles, the active tab.
pub const ACCENT: Color = Color::Cyan;
/// Text drawn on [`ACCENT`] (the selected row, the active tab).
pub const ON_ACCENT: Color = Color::Black;
/// Borders of unfocused panes, hints, secondary figures.
pub const MUTED: Color = Color::DarkGray;
/// Field names and labels.
pub const LABEL: Color = Color::Gray;
/// Staged changes, times to live, prompts, questions.
pub const WARN: Color = Color::Yellow;
/// Errors, deletions, dead bytes, keys about to expire, read-write mode.
pub const ERROR: Color = Color::Red;
/// Text drawn on [`ERROR`].
pub const ON_ERROR: Color = Color::White;
/// Success, additions, live bytes, read-only mode, encryption.
pub const GOOD: Color = Color::Green;
/// View and mode tags, the compaction gauge.
pub const MODE: Color = Color::Magenta;
/// Tree groups, the flush rate.
pub const GROUP: Color = Color::Blue;
/// The status bar's background.
pub const STATUS_BG: Color = Color::Rgb(30, 30, 40);
