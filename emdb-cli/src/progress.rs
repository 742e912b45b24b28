//! Progress bars: indicatif, on stderr, only when stderr is a terminal and
//! `--quiet` was not given.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// True when progress may be drawn.
pub fn enabled(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A bar of `len` units (bytes when `bytes`), or a hidden one when disabled.
pub fn bar(len: u64, bytes: bool, message: &str, quiet: bool) -> ProgressBar {
    if !enabled(quiet) {
        return ProgressBar::hidden();
    }
    let template = if bytes {
        "{msg} [{bar:30}] {bytes}/{total_bytes} ({eta})"
    } else {
        "{msg} [{bar:30}] {human_pos}/{human_len} ({eta})"
    };
    let style = ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    let pb =
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()).with_style(style);
    pb.set_message(message.to_string());
    pb
}

/// A spinner for work of unknown length, or a hidden one when disabled.
pub fn spinner(message: &str, quiet: bool) -> ProgressBar {
    if !enabled(quiet) {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template("{spinner} {msg} {human_pos} ({elapsed})")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(style);
    pb.set_message(message.to_string());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}
