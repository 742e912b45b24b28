//! Applying an [`Action`] to the [`App`]: the only place state changes.
//! No I/O happens here; reads and writes go to the worker as requests.
//!
//! One file per concern: `keys` (the key pane), `namespaces`,
//! `response` (worker answers) and `edit` (staging and writing); this
//! file dispatches and holds what every pane shares (ticks, commands,
//! paging, the mouse).

mod edit;
mod keys;
mod namespaces;
mod response;

use std::time::Duration;

use crate::action::{Action, Command};
use crate::app::{
    next_delimiter, App, Awaiting, Compaction, EditorJob, Found, Input, LoadedValue, Mode, NsItem,
    OldValue, Pane, PromptKind, Question, Staged, Tab, Typed,
};
use crate::escape::{escape, escape_path, escape_str, unescape};
use crate::keylist::{KeyChange, KeyList, KeySet, ListView, Row};
use crate::units;
use crate::worker::{
    unix_ms, Change, FindWindow, Job, JobError, NewTtl, NsName, Request, Response, ValuePurpose,
};

use edit::*;
use keys::*;
use namespaces::*;
use response::*;

pub use edit::parse_ttl;
pub use response::stale_text;

/// Lines the mouse wheel moves per notch.
const WHEEL_LINES: i32 = 3;

/// Values longer than this are edited in `$EDITOR`, not inline.
const MAX_INLINE_EDIT: usize = 16 * 1024;

/// Apply one action, and set [`App::redraw`] when the screen may have
/// changed: always, except for a clock tick (only when a second turned and
/// something on screen counts time) and a stats sample (only when it
/// differs from the last one).
pub fn update(app: &mut App, action: Action) {
    apply(app, action);
    page_keys(app);
    prepare_value(app);
}

/// The input burst that held back work (see [`App::input_pending`]) is
/// read: do it now.
pub fn input_read(app: &mut App) {
    app.input_pending = false;
    apply_typed_filter(app);
    page_keys(app);
    prepare_value(app);
}

/// Rows read around the screen of a paged key list, each side.
const PAGE_MARGIN: usize = 64;

/// Keys counted per round when changed chunks away from the screen are
/// counted again (8 chunks of `pages::CHUNK`). A round goes out when a
/// follow brought changes (at most once a tick), or else at most every
/// [`RECOUNT_EVERY_MS`]: with the default 250 ms tick about 33,000 keys
/// read per second for counts, however many chunks a writer keeps
/// changing (more with a shorter `--refresh-ms`).
const RECOUNT_KEYS: usize = 8 * crate::pages::CHUNK;
/// Time between two rounds without a follow between them.
const RECOUNT_EVERY_MS: u64 = 250;

/// Ask the worker for what the key list lacks: a scan when the filter
/// changed beyond what the held keys answer, and in a paged list the
/// chunks near the screen (and counts of changed chunks elsewhere).
fn page_keys(app: &mut App) {
    if !app.input_pending && app.keys.list.take_want_scan() && app.keys.ns.is_some() {
        let ns = app.shown_ns();
        app.load_keys(ns);
    }
    if !app.keys.list.is_paged() {
        return;
    }
    let nav = app.keys.nav;
    let h = key_rows(app);
    let rows = nav.offset.saturating_sub(PAGE_MARGIN)..nav.offset + h + PAGE_MARGIN;
    let budget = if app.now_ms >= app.keys.recount_at_ms {
        RECOUNT_KEYS
    } else {
        0
    };
    let wants = app.keys.list.wants(rows, nav.selected, budget);
    if wants.is_empty() {
        return;
    }
    if wants.iter().any(|w| w.away) {
        app.keys.recount_at_ms = app.now_ms + RECOUNT_EVERY_MS;
    }
    // The shown list's generation: a reload under way does not own these
    // chunks.
    let (ns, generation) = (app.shown_ns(), app.keys.list_generation);
    let filter = app.keys.list.scanned_filter().to_string();
    for w in wants {
        app.request(Request::LoadChunk {
            ns: ns.clone(),
            generation,
            chunk: w.chunk,
            lo: w.lo,
            hi: w.hi,
            filter: filter.clone(),
            count_only: w.count_only,
        });
    }
}

/// Format the shown value for the value pane's width, unless that is done
/// already: drawing then only reads it (and how many lines it has, which
/// bounds scrolling).
fn prepare_value(app: &mut App) {
    let width = crate::ui::value::body_width(app.areas.value);
    let fresh = app.value.formatted.as_ref().is_some_and(|f| {
        f.version == app.value.version
            && f.mode == app.value.mode
            && f.width == width
            && f.staged_version == app.staged_version
    });
    if !fresh {
        app.value.formatted = Some(crate::ui::value::make_formatted(app, width));
    }
    app.value.lines = crate::ui::value::line_count(app, width);
}

fn apply(app: &mut App, action: Action) {
    match &action {
        Action::Tick(now) => {
            let second = |ms: u64| ms / 1000;
            if second(unix_ms(*now)) != second(app.now_ms) && shows_time(app) {
                app.redraw = true;
            }
        }
        Action::Worker(resp) if matches!(**resp, Response::Stats { .. }) => {}
        _ => app.redraw = true,
    }
    match action {
        Action::Interrupt => {
            if app.quit_pending {
                // Asked again while waiting for a compaction or an
                // export: at once.
                app.quit = true;
            } else if app.staged.is_empty() || app.mode == Mode::Confirm(Question::Quit) {
                quit_when_idle(app);
            } else {
                app.mode = Mode::Confirm(Question::Quit);
            }
        }
        Action::Suspend => app.suspend = true,
        Action::Tick(now) => tick(app, unix_ms(now)),
        Action::Worker(resp) => on_response(app, *resp),
        Action::Resize { width, height } => {
            app.areas = crate::ui::layout(ratatui::layout::Rect::new(0, 0, width, height));
        }
        Action::Edited { job, result } => on_edited(app, job, result),
        Action::Scroll { column, row, lines } => on_scroll(app, column, row, lines),
        Action::Click { column, row } => on_click(app, column, row),
        other => match app.mode.clone() {
            Mode::Normal => {
                if let Action::Command(c) = other {
                    command(app, c);
                }
            }
            Mode::Filter(input) => filter_mode(app, input, other),
            Mode::Help(scroll) => match other {
                Action::Cancel | Action::Submit | Action::Command(Command::Help) => {
                    app.mode = Mode::Normal;
                }
                Action::Command(Command::Quit) => command(app, Command::Quit),
                Action::Command(c) => app.mode = Mode::Help(scrolled(scroll, c, usize::MAX)),
                _ => {}
            },
            Mode::Message(scroll) => match other {
                Action::Cancel | Action::Submit | Action::Command(Command::LastMessage) => {
                    app.mode = Mode::Normal;
                }
                Action::Command(Command::Help) => app.mode = Mode::Help(0),
                Action::Command(c) => {
                    let max = crate::ui::dialog::message_max_scroll(app);
                    let scroll = match c {
                        Command::Bottom => max,
                        c => scrolled(scroll, c, max),
                    };
                    app.mode = Mode::Message(scroll);
                }
                _ => {}
            },
            Mode::Prompt(kind, input) => prompt_action(app, kind, input, other),
            Mode::Awaiting(mut waiting) => match other {
                Action::Cancel => {
                    app.mode = Mode::Normal;
                    app.say("cancelled");
                }
                // The editor (`E`) takes no typing: what is typed while it
                // waits is dropped rather than run as commands.
                Action::Input(edit) if waiting.command != Command::EditExternal => {
                    waiting.typed.push(Typed::Edit(edit));
                    app.mode = Mode::Awaiting(waiting);
                }
                Action::Submit if waiting.command != Command::EditExternal => {
                    waiting.typed.push(Typed::Submit);
                    app.mode = Mode::Awaiting(waiting);
                }
                _ => {}
            },
            Mode::Confirm(q) => match other {
                Action::Submit => {
                    app.mode = Mode::Normal;
                    confirmed(app, q);
                }
                Action::Cancel => {
                    app.mode = Mode::Normal;
                    app.say("cancelled");
                }
                _ => {}
            },
            Mode::Review(scroll) => match other {
                Action::Submit => write_staged(app),
                Action::Cancel => app.mode = Mode::Normal,
                Action::DiscardStaged => {
                    let dropped = std::mem::take(&mut app.staged);
                    let n = dropped.len();
                    app.staged_version += 1;
                    unlist_new_keys(app, &dropped);
                    app.mode = Mode::Normal;
                    app.say(format!(
                        "discarded {} staged",
                        units::plural(n as u64, "change")
                    ));
                }
                Action::Command(Command::Quit) => command(app, Command::Quit),
                Action::Command(c) => {
                    let max = crate::ui::dialog::review_max_scroll(app);
                    let scroll = match c {
                        Command::Bottom => max,
                        c => scrolled(scroll, c, max),
                    };
                    app.mode = Mode::Review(scroll);
                }
                _ => {}
            },
        },
    }
}

/// Quit, or while a compaction or an export runs, quit when it ends, so
/// it is not lost. Ctrl-C meanwhile quits at once and abandons it (the
/// file it was writing, `<db>.compact.tmp` or the export's temporary
/// file, is removed on the way out).
pub(super) fn quit_when_idle(app: &mut App) {
    let what = match (app.compaction.is_some(), app.exports > 0) {
        (false, false) => {
            app.quit = true;
            return;
        }
        (true, _) => "a compaction is running",
        (false, true) => "an export is running",
    };
    app.quit_pending = true;
    app.complain(format!(
        "{what}: quitting when it ends (Ctrl-C quits now and abandons it)"
    ));
}

/// A compaction or an export ended: quit if asked to while it ran and
/// nothing else runs.
pub(super) fn quit_if_pending(app: &mut App) {
    if app.quit_pending && app.compaction.is_none() && app.exports == 0 {
        app.quit = true;
    }
}

/// One action in a prompt: edit its text, submit or cancel it.
fn prompt_action(app: &mut App, kind: PromptKind, mut input: Input, action: Action) {
    match action {
        Action::Input(edit) => {
            input.edit(edit);
            app.mode = Mode::Prompt(kind, input);
        }
        Action::Submit => prompt_submit(app, kind, input.text()),
        Action::Cancel => {
            app.mode = Mode::Normal;
            app.say("cancelled");
        }
        _ => {}
    }
}

/// True when something on screen changes with the clock alone: a time to
/// live counting down, an "… ago", a message about to go, a compaction.
pub(super) fn shows_time(app: &App) -> bool {
    if app.message.is_some() || app.compaction.is_some() || app.tab == Tab::Dashboard {
        return true;
    }
    // "refreshed Ns ago" once stats stop coming.
    if app.stats_ms.is_none_or(|t| app.now_ms >= t + 1000) {
        return true;
    }
    let value_ttl = app
        .value
        .loaded
        .as_ref()
        .is_some_and(|l| l.expires_ms.is_some());
    let rows = key_rows(app);
    let list = &app.keys.list;
    let nav = app.keys.nav;
    let key_ttl = (nav.offset..list.row_count()).take(rows).any(|i| {
        list.row(i)
            .and_then(|r| list.row_entry(r))
            .is_some_and(|e| e.expires_ms != 0)
    });
    value_ttl || key_ttl
}

pub(super) fn scrolled(scroll: usize, c: Command, max: usize) -> usize {
    let s = match c {
        Command::Down => scroll.saturating_add(1),
        Command::Up => scroll.saturating_sub(1),
        Command::PageDown => scroll.saturating_add(10),
        Command::PageUp => scroll.saturating_sub(10),
        Command::Top => 0,
        _ => scroll,
    };
    s.min(max)
}

pub(super) fn tick(app: &mut App, now_ms: u64) {
    app.now_ms = now_ms;
    if !app.stats_pending {
        app.stats_pending = true;
        app.request(Request::Stats);
    }
    maybe_reload_keys(app);
}

/// Reload a stale key list, but not more often than every second and not
/// more than a fifth of the time (big namespaces take a while to read).
pub(super) fn maybe_reload_keys(app: &mut App) {
    if !app.keys.stale || app.keys.loading.is_some() || app.keys.following {
        return;
    }
    // Follow the new records when the list knows where it stands; read
    // every key only when it does not (first load, after a compaction).
    if app.keys.log_end > 0 && app.keys.ns.is_some() {
        app.keys.stale = false;
        app.keys.following = true;
        let (ns, generation, since) = (app.shown_ns(), app.keys.generation, app.keys.log_end);
        app.request(Request::FollowKeys {
            ns,
            generation,
            since,
        });
        return;
    }
    let took = u64::try_from(app.keys.took.as_millis()).unwrap_or(u64::MAX);
    let wait = took.saturating_mul(4).max(1000);
    if app.now_ms >= app.keys.loaded_ms.saturating_add(wait) {
        let ns = app.shown_ns();
        app.load_keys(ns);
    }
}

pub(super) fn key_rows(app: &App) -> usize {
    match app.areas.key_rows {
        0 => 20,
        n => usize::from(n),
    }
}

pub(super) fn ns_rows(app: &App) -> usize {
    match app.areas.ns_rows {
        0 => 10,
        n => usize::from(n),
    }
}

pub(super) fn value_rows(app: &App) -> usize {
    match app.areas.value_rows {
        0 => 20,
        n => usize::from(n),
    }
}

pub(super) fn command(app: &mut App, c: Command) {
    match c {
        Command::Quit => {
            if app.staged.is_empty() {
                quit_when_idle(app);
            } else {
                app.mode = Mode::Confirm(Question::Quit);
            }
        }
        Command::Help => app.mode = Mode::Help(0),
        Command::LastMessage => {
            if crate::ui::last_message(app).is_some() {
                app.mode = Mode::Message(0);
            } else {
                app.say("no message yet");
            }
        }
        Command::BrowseTab => app.tab = Tab::Browse,
        Command::DashboardTab => app.tab = Tab::Dashboard,
        Command::Refresh => refresh(app),
        _ if app.tab != Tab::Browse => {}
        Command::FocusNext => app.focus = app.focus.next(),
        Command::FocusPrev => app.focus = app.focus.prev(),
        Command::Up => step(app, -1),
        Command::Down => step(app, 1),
        Command::PageUp => step(app, -(page(app) as isize)),
        Command::PageDown => step(app, page(app) as isize),
        Command::Top => step(app, isize::MIN / 2),
        Command::Bottom => step(app, isize::MAX / 2),
        Command::Left => left(app),
        Command::Right => right(app),
        Command::Enter => enter(app),
        Command::Filter => {
            app.focus = Pane::Keys;
            app.message = None;
            app.mode = Mode::Filter(Input::with_text(app.keys.list.filter()));
        }
        Command::ClearFilter => {
            if !app.keys.list.filter().is_empty() {
                set_filter(app, "");
            }
        }
        Command::ToggleTree if is_big(app) && view_and_sort(app).0 == ListView::Tree => {
            // Back to every key, paged.
            view_big(app, ListView::Flat, crate::keylist::SortBy::Key);
        }
        Command::ToggleTree
            if is_big(app)
                && view_and_sort(app) == (ListView::Flat, crate::keylist::SortBy::Key) =>
        {
            start_level(app, Vec::new())
        }
        Command::NextDelimiter if app.keys.list.is_paged() || app.keys.list.level().is_some() => {
            let d = next_delimiter(app.keys.list.delimiter());
            app.keys.list.set_delimiter(d);
            start_level(app, Vec::new());
            app.say(format!("tree groups on '{}'", char::from(d)));
        }
        Command::ToggleTree | Command::NextDelimiter if is_big(app) => {
            app.complain("no tree of the first keys in an order: s or x back to every key first");
        }
        Command::ToggleExpiring | Command::Sort
            if is_big(app) && view_and_sort(app).0 == ListView::Tree =>
        {
            app.complain("the tree is in key order: t leaves it");
        }
        Command::ToggleExpiring if is_big(app) => {
            let (view, sort) = view_and_sort(app);
            let view = match view {
                ListView::Expiring => ListView::Flat,
                _ => ListView::Expiring,
            };
            view_big(app, view, sort);
        }
        Command::Sort if is_big(app) => {
            let (view, sort) = view_and_sort(app);
            let sort = sort.next();
            if view == ListView::Expiring {
                // The soonest to expire stay soonest first.
                app.keys.list.set_sort(sort);
                if let Some(w) = &mut app.keys.wanted {
                    w.1 = sort;
                }
                app.say(format!(
                    "keys sorted {} (in the flat view; x leaves this one)",
                    sort.label()
                ));
            } else {
                view_big(app, view, sort);
            }
        }
        Command::ToggleTree => {
            let view = match app.keys.list.view() {
                ListView::Tree => ListView::Flat,
                _ => ListView::Tree,
            };
            set_view(app, view);
        }
        Command::NextDelimiter => {
            let d = next_delimiter(app.keys.list.delimiter());
            keep_selection(app, |list| list.set_delimiter(d));
            if app.keys.list.view() != ListView::Tree {
                set_view(app, ListView::Tree);
            }
            app.say(format!("tree groups on '{}'", char::from(d)));
        }
        Command::ToggleExpiring => {
            let view = match app.keys.list.view() {
                ListView::Expiring => ListView::Flat,
                _ => ListView::Expiring,
            };
            set_view(app, view);
        }
        Command::NextView => {
            app.value.mode = app.value.mode.next();
            app.value.scroll = 0;
        }
        Command::Sort => {
            let sort = app.keys.list.sort().next();
            keep_selection(app, |list| list.set_sort(sort));
            let note = match app.keys.list.view() {
                ListView::Flat => "",
                ListView::Tree => " (in the flat view; t leaves the tree)",
                ListView::Expiring => " (in the flat view; x leaves this one)",
            };
            app.say(format!("keys sorted {}{note}", sort.label()));
        }
        Command::FindInValues => {
            let text = app
                .found
                .as_ref()
                .map(|f| f.text.clone())
                .unwrap_or_default();
            app.focus = Pane::Keys;
            open_prompt(app, PromptKind::FindInValues, Input::with_text(&text));
        }
        Command::NextFound => step_found(app, true),
        Command::PrevFound => step_found(app, false),
        Command::Export => {
            // A paged list is streamed from the engine; its count is the
            // scan's.
            let keys = if app.keys.list.is_paged() {
                app.keys.list.total()
            } else {
                app.keys.list.listed_keys().count()
            };
            if keys == 0 {
                app.complain("no keys listed to export");
            } else {
                open_prompt(app, PromptKind::ExportPath { keys }, Input::default());
            }
        }
        Command::CopyKey => match app.selected_key().map(<[u8]>::to_vec) {
            Some(key) => copy(app, key, "key"),
            None => app.complain("select a key to copy"),
        },
        Command::CopyValue => {
            let key = app.selected_key().map(<[u8]>::to_vec);
            let value = match (&key, &app.value.loaded) {
                (Some(k), Some(l)) if l.key == *k => l.value.clone(),
                _ => None,
            };
            match (key, value) {
                (None, _) => app.complain("select a key to copy its value"),
                (Some(_), None) => app.complain("the value is not loaded yet"),
                (Some(_), Some(v)) => copy(app, v, "value"),
            }
        }
        Command::Put
        | Command::Edit
        | Command::EditExternal
        | Command::Delete
        | Command::Unstage
        | Command::EditTtl
        | Command::Rename
        | Command::CreateNamespace
        | Command::DropNamespace
        | Command::Review
        | Command::Flush
        | Command::Compact => write_command(app, c),
    }
}

/// Select the next (or previous) key found in values, in key order from
/// the selected key, wrapping around. Past either end of the window of
/// matches held, the next window is searched for (then selected).
pub(super) fn step_found(app: &mut App, forward: bool) {
    let Some(found) = &app.found else {
        app.say("nothing found yet: f looks for text inside values");
        return;
    };
    if found.running {
        app.say("still looking…");
        return;
    }
    let (Some(first), Some(last)) = (found.keys.first(), found.keys.last()) else {
        app.say(format!("{:?} is in no value", found.text));
        return;
    };
    let n = found.keys.len();
    let here = app.selected_key().map(<[u8]>::to_vec);
    let (before, after) = (found.skipped > 0, found.more_after());
    // Matches not held lie between the selection and the next one held:
    // search for the window that starts at the selection (or, past the
    // last match, wrap to the first).
    let window = match (&here, forward) {
        (Some(h), true) if h >= last && after => Some(FindWindow::After(Some(h.clone()))),
        (Some(h), true) if h >= last && before => Some(FindWindow::After(None)),
        (Some(h), true) if h < first && before => Some(FindWindow::After(Some(h.clone()))),
        (Some(h), false) if h <= first && before => Some(FindWindow::Before(Some(h.clone()))),
        (Some(h), false) if h <= first && after => Some(FindWindow::Before(None)),
        (Some(h), false) if h > last && after => Some(FindWindow::Before(Some(h.clone()))),
        _ => None,
    };
    if let Some(window) = window {
        ask_found(app, window);
        return;
    }
    let pos = match &here {
        Some(k) => found.keys.binary_search(k),
        None => Err(0),
    };
    let i = match (pos, forward) {
        (Ok(i), true) => (i + 1) % n,
        (Err(i), true) => i % n,
        (Ok(i) | Err(i), false) => (i + n - 1) % n,
    };
    let wrapped = match &here {
        Some(h) => (forward && found.keys[i] <= *h) || (!forward && found.keys[i] >= *h),
        None => false,
    };
    select_found(app, i, wrapped && n > 1);
}

/// Search for another window of the matches of the search on screen.
fn ask_found(app: &mut App, window: FindWindow) {
    let Some(f) = &mut app.found else {
        return;
    };
    f.running = true;
    f.window = window.clone();
    let (ns, needle, ignore_case) = (f.ns.clone(), f.needle.clone(), f.ignore_case);
    let text = f.text.clone();
    app.say(format!("looking for more of {text:?} in the values…"));
    app.request(Request::FindInValues {
        ns,
        needle,
        ignore_case,
        window,
    });
}

/// Select hit `i` of the window held.
pub(super) fn select_found(app: &mut App, i: usize, wrapped: bool) {
    let Some(f) = &mut app.found else {
        return;
    };
    let Some(key) = f.keys.get(i).cloned() else {
        return;
    };
    f.at = Some(i);
    let (nth, of) = (f.skipped + i + 1, f.matched);
    match app.keys.list.row_near(&key) {
        Some((row, exact)) => {
            app.keys.pending_select = (!exact).then(|| key.clone());
            let (len, h) = (app.keys.list.row_count(), key_rows(app));
            app.keys.nav.select(row, len, h);
            selection_changed(app);
            let wrap = if wrapped { " (wrapped)" } else { "" };
            app.say(format!(
                "found {} of {}{wrap}",
                units::count(nth as u64),
                units::count(of as u64)
            ));
        }
        None => app.say(format!(
            "{} holds it but is hidden by the filter or view",
            escape(&key)
        )),
    }
}

/// Most bytes handed to the clipboard: terminals and tmux cap OSC 52
/// sequences (and a huge one would stall the terminal).
pub const MAX_COPY: usize = 512 * 1024;

/// Put `bytes` on the terminal's clipboard (OSC 52, sent by the main loop).
fn copy(app: &mut App, bytes: Vec<u8>, what: &str) {
    if bytes.len() > MAX_COPY {
        app.complain(format!(
            "the {what} is {}; the clipboard takes at most {}",
            units::bytes(bytes.len() as u64),
            units::bytes(MAX_COPY as u64)
        ));
        return;
    }
    app.say(format!(
        "copied the {what} ({}) to the clipboard",
        units::bytes(bytes.len() as u64)
    ));
    app.clipboard = Some(bytes);
}

pub(super) fn page(app: &App) -> usize {
    match app.focus {
        Pane::Namespaces => ns_rows(app),
        Pane::Keys => key_rows(app),
        Pane::Value => value_rows(app),
    }
    .saturating_sub(1)
    .max(1)
}

pub(super) fn step(app: &mut App, delta: isize) {
    match app.focus {
        Pane::Namespaces => {
            let (len, h) = (app.namespaces.len(), ns_rows(app));
            let before = app.ns_nav.selected;
            app.ns_nav.step(delta, len, h);
            if app.ns_nav.selected != before {
                namespace_selected(app);
            }
        }
        Pane::Keys => {
            // Moving on forgets a key waited for, and the group to stand
            // on once a level being counted holds it.
            app.keys.pending_select = None;
            app.keys.level_target = None;
            let (len, h) = (app.keys.list.row_count(), key_rows(app));
            app.keys.nav.step(delta, len, h);
            selection_changed(app);
        }
        Pane::Value => {
            let max = app.value.lines.saturating_sub(value_rows(app));
            app.value.scroll = app.value.scroll.saturating_add_signed(delta).min(max);
        }
    }
}

pub(super) fn on_scroll(app: &mut App, column: u16, row: u16, lines: i32) {
    if app.tab != Tab::Browse || app.mode != Mode::Normal {
        return;
    }
    let Some(pane) = pane_at(app, column, row) else {
        return;
    };
    let focus = app.focus;
    app.focus = pane;
    step(app, (lines * WHEEL_LINES) as isize);
    app.focus = focus;
}

pub(super) fn on_click(app: &mut App, column: u16, row: u16) {
    if app.tab != Tab::Browse || app.mode != Mode::Normal {
        return;
    }
    let Some(pane) = pane_at(app, column, row) else {
        return;
    };
    app.focus = pane;
    let areas = app.areas;
    match pane {
        Pane::Namespaces => {
            // One border row above the first item.
            if let Some(i) = row.checked_sub(areas.namespaces.y + 1) {
                let target = app.ns_nav.offset + usize::from(i);
                if target < app.namespaces.len() {
                    let delta = target as isize - app.ns_nav.selected as isize;
                    step(app, delta);
                }
            }
        }
        Pane::Keys => {
            // A border row and a header row above the first key.
            if let Some(i) = row.checked_sub(areas.keys.y + 2) {
                let target = app.keys.nav.offset + usize::from(i);
                if target < app.keys.list.row_count() {
                    let delta = target as isize - app.keys.nav.selected as isize;
                    step(app, delta);
                }
            }
        }
        Pane::Value => {}
    }
}

pub(super) fn pane_at(app: &App, column: u16, row: u16) -> Option<Pane> {
    let a = app.areas;
    let pos = ratatui::layout::Position::new(column, row);
    [
        (a.namespaces, Pane::Namespaces),
        (a.keys, Pane::Keys),
        (a.value, Pane::Value),
    ]
    .into_iter()
    .find(|(r, _)| r.contains(pos))
    .map(|(_, p)| p)
}
