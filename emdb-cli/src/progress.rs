//! Progress bars: indicatif, on stderr, only when stderr is a terminal and
//! `--quiet` was not given.

use std::io::IsTerminal;
use std::time::Duration;

use emdb_core::progress::{Phase, Progress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar of bytes with its ETA.
const BYTES: &str = "{msg} [{bar:30}] {bytes}/{total_bytes} ({eta})";

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
        BYTES
    } else {
        "{msg} [{bar:30}] {human_pos}/{human_len} ({eta})"
    };
    let style = ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    // Drawn from its first update on: a bar whose length is set later
    // (`import --from`: the server's DBSIZE) would first flash as a full
    // bar of 0/0.
    let pb = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden())
        .with_style(style)
        .with_message(message.to_string());
    pb.set_draw_target(ProgressDrawTarget::stderr());
    pb
}

/// A spinner for work of unknown length, or a hidden one when disabled.
pub fn spinner(message: &str, quiet: bool) -> ProgressBar {
    spinner_with(message, quiet, "{spinner} {msg} ({elapsed})")
}

/// A spinner that also shows a count the caller keeps up to date with
/// `set_position` (records imported from stdin).
pub fn counter(message: &str, quiet: bool) -> ProgressBar {
    spinner_with(message, quiet, "{spinner} {msg} {human_pos} ({elapsed})")
}

fn spinner_with(message: &str, quiet: bool, template: &str) -> ProgressBar {
    if !enabled(quiet) {
        return ProgressBar::hidden();
    }
    let style =
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_spinner());
    let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(style);
    pb.set_message(message.to_string());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// Run `op` (a compaction, verification, backup or encryption change) with
/// a bar fed by the engine's own progress reports: bytes done of the
/// phase's total, with an ETA. A later phase of the same operation (an
/// encrypted backup copies, then re-seals the copy) restarts the bar with
/// its own total and says which phase it is. Nothing is drawn when progress
/// is off.
pub fn engine<R>(label: &str, quiet: bool, op: impl FnOnce() -> R) -> R {
    if !enabled(quiet) {
        return op();
    }
    let style = ProgressStyle::with_template(BYTES)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    // Hidden until the first report gives the total (an empty bar of 0 B
    // would draw as complete).
    let pb = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden())
        .with_style(style)
        .with_message(label.to_string());
    let shown = pb.clone();
    let label = label.to_string();
    let mut first = None;
    let r = emdb_core::progress::observe(
        move |p: Progress| {
            if p.done == 0 {
                let phase = *first.get_or_insert(p.phase);
                if phase != p.phase {
                    shown.set_message(format!("{label}: {}", phase_name(p.phase)));
                }
                shown.set_length(p.total);
                shown.set_position(0);
                shown.reset_eta();
                if shown.is_hidden() {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                }
            }
            shown.set_position(p.done);
        },
        op,
    );
    pb.finish_and_clear();
    r
}

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Compacting => "compacting",
        Phase::Verifying => "checking",
        Phase::Copying => "copying",
        Phase::Rewriting => "rewriting",
        _ => "working",
    }
}
