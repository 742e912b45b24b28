//! Applying an [`Action`] to the [`App`]: the only place state changes.
//! No I/O happens here; reads and writes go to the worker as requests.

use std::time::Duration;

use crate::action::{Action, Command};
use crate::app::{
    App, Compaction, EditorJob, Input, LoadedValue, Mode, NsItem, OldValue, Pane, PromptKind,
    Question, Staged, Tab, DELIMITERS,
};
use crate::escape::{escape, unescape};
use crate::keylist::{KeyChange, KeyList, KeySet, ListView, Row};
use crate::units;
use crate::worker::{
    unix_ms, Change, Job, JobError, NewTtl, NsName, Request, Response, ValuePurpose,
};

/// Lines the mouse wheel moves per notch.
const WHEEL_LINES: i32 = 3;

/// Values longer than this are edited in `$EDITOR`, not inline.
const MAX_INLINE_EDIT: usize = 16 * 1024;

/// Apply one action, and set [`App::redraw`] when the screen may have
/// changed: always, except for a clock tick (only when a second turned and
/// something on screen counts time) and a stats sample (only when it
/// differs from the last one).
pub fn update(app: &mut App, action: Action) {
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
            if app.staged.is_empty() || app.mode == Mode::Confirm(Question::Quit) {
                app.quit = true;
            } else {
                app.mode = Mode::Confirm(Question::Quit);
            }
        }
        Action::Suspend => app.suspend = true,
        Action::Tick(now) => tick(app, unix_ms(now)),
        Action::Worker(resp) => on_response(app, *resp),
        Action::Resize => {}
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
            Mode::Prompt(kind, mut input) => match other {
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
                Action::Command(c) => app.mode = Mode::Review(scrolled(scroll, c, usize::MAX)),
                _ => {}
            },
        },
    }
}

/// True when something on screen changes with the clock alone: a time to
/// live counting down, an "… ago", a message about to go, a compaction.
fn shows_time(app: &App) -> bool {
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
        matches!(list.row(i), Some(Row::Key { entry, .. })
            if list.set().entry(entry as usize).is_some_and(|e| e.expires_ms != 0))
    });
    value_ttl || key_ttl
}

fn scrolled(scroll: usize, c: Command, max: usize) -> usize {
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

fn tick(app: &mut App, now_ms: u64) {
    app.now_ms = now_ms;
    if !app.stats_pending {
        app.stats_pending = true;
        app.request(Request::Stats);
    }
    maybe_reload_keys(app);
}

/// Reload a stale key list, but not more often than every second and not
/// more than a fifth of the time (big namespaces take a while to read).
fn maybe_reload_keys(app: &mut App) {
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

fn key_rows(app: &App) -> usize {
    match app.areas.get().key_rows {
        0 => 20,
        n => usize::from(n),
    }
}

fn ns_rows(app: &App) -> usize {
    match app.areas.get().ns_rows {
        0 => 10,
        n => usize::from(n),
    }
}

fn value_rows(app: &App) -> usize {
    match app.areas.get().value_rows {
        0 => 20,
        n => usize::from(n),
    }
}

fn command(app: &mut App, c: Command) {
    match c {
        Command::Quit => {
            if app.staged.is_empty() {
                app.quit = true;
            } else {
                app.mode = Mode::Confirm(Question::Quit);
            }
        }
        Command::Help => app.mode = Mode::Help(0),
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
        Command::ToggleTree => {
            let view = match app.keys.list.view() {
                ListView::Tree => ListView::Flat,
                _ => ListView::Tree,
            };
            set_view(app, view);
        }
        Command::NextDelimiter => {
            let cur = app.keys.list.delimiter();
            let i = DELIMITERS
                .iter()
                .position(|&d| d == cur)
                .map_or(0, |i| i + 1);
            let d = DELIMITERS[i % DELIMITERS.len()];
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
        Command::Put
        | Command::Edit
        | Command::EditExternal
        | Command::Delete
        | Command::Unstage
        | Command::Review
        | Command::Flush
        | Command::Compact => write_command(app, c),
    }
}

fn page(app: &App) -> usize {
    match app.focus {
        Pane::Namespaces => ns_rows(app),
        Pane::Keys => key_rows(app),
        Pane::Value => value_rows(app),
    }
    .saturating_sub(1)
    .max(1)
}

fn step(app: &mut App, delta: isize) {
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
            let (len, h) = (app.keys.list.row_count(), key_rows(app));
            app.keys.nav.step(delta, len, h);
            selection_changed(app);
        }
        Pane::Value => {
            let max = app.value.lines.get().saturating_sub(value_rows(app));
            app.value.scroll = app.value.scroll.saturating_add_signed(delta).min(max);
        }
    }
}

fn left(app: &mut App) {
    match app.focus {
        Pane::Namespaces => {}
        Pane::Value => app.focus = Pane::Keys,
        Pane::Keys => {
            let i = app.keys.nav.selected;
            if let Some(Row::Group { expanded: true, .. }) = app.keys.list.row(i) {
                app.keys.list.toggle_group(i);
                follow_keys(app);
            } else if let Some(parent) = app.keys.list.parent_of(i) {
                let (len, h) = (app.keys.list.row_count(), key_rows(app));
                app.keys.nav.select(parent, len, h);
                selection_changed(app);
            } else {
                app.focus = Pane::Namespaces;
            }
        }
    }
}

fn right(app: &mut App) {
    match app.focus {
        Pane::Namespaces => app.focus = Pane::Keys,
        Pane::Value => {}
        Pane::Keys => match app.keys.list.row(app.keys.nav.selected) {
            Some(Row::Group {
                expanded: false, ..
            }) => {
                app.keys.list.toggle_group(app.keys.nav.selected);
                follow_keys(app);
            }
            Some(Row::Group { expanded: true, .. }) => step(app, 1),
            Some(Row::Key { .. }) => app.focus = Pane::Value,
            None => {}
        },
    }
}

fn enter(app: &mut App) {
    match app.focus {
        Pane::Namespaces => app.focus = Pane::Keys,
        Pane::Value => {}
        Pane::Keys => match app.keys.list.row(app.keys.nav.selected) {
            Some(Row::Group { .. }) => {
                app.keys.list.toggle_group(app.keys.nav.selected);
                follow_keys(app);
            }
            Some(Row::Key { .. }) => app.focus = Pane::Value,
            None => {}
        },
    }
}

fn follow_keys(app: &mut App) {
    let (len, h) = (app.keys.list.row_count(), key_rows(app));
    app.keys.nav.follow(len, h);
    let sel = app.keys.nav.selected;
    app.keys.nav.select(sel, len, h);
}

/// Change the list with `f`, keeping the selected key (or the group that
/// now holds it) selected.
fn keep_selection(app: &mut App, f: impl FnOnce(&mut KeyList)) {
    let before = app
        .keys
        .list
        .row(app.keys.nav.selected)
        .map(|r| app.keys.list.row_bytes(r).to_vec());
    f(&mut app.keys.list);
    let row = before.and_then(|k| app.keys.list.row_of(&k)).unwrap_or(0);
    let (len, h) = (app.keys.list.row_count(), key_rows(app));
    app.keys.nav.select(row, len, h);
    selection_changed(app);
}

fn set_view(app: &mut App, view: ListView) {
    keep_selection(app, |list| list.set_view(view));
}

fn set_filter(app: &mut App, text: &str) {
    keep_selection(app, |list| list.set_filter(text));
}

fn filter_mode(app: &mut App, mut input: Input, action: Action) {
    match action {
        Action::Input(edit) => {
            input.edit(edit);
            let text = input.text().to_string();
            app.mode = Mode::Filter(input);
            set_filter(app, &text);
        }
        Action::Submit => app.mode = Mode::Normal,
        Action::Cancel => {
            app.mode = Mode::Normal;
            set_filter(app, "");
        }
        Action::Command(
            c @ (Command::Up | Command::Down | Command::PageUp | Command::PageDown),
        ) => {
            command(app, c);
        }
        _ => {}
    }
}

fn namespace_selected(app: &mut App) {
    let ns = app.selected_ns();
    if app.keys.ns.as_ref() != Some(&ns) {
        app.load_keys(ns);
    }
}

/// After the key selection moved: ask for the newly selected value.
fn selection_changed(app: &mut App) {
    let key = app.selected_key().map(<[u8]>::to_vec);
    if key == app.value.target {
        return;
    }
    app.value.target = key.clone();
    app.value.scroll = 0;
    app.value.deleted_by_writer = false;
    if let Some(key) = key {
        request_value(app, key);
    }
}

fn request_value(app: &mut App, key: Vec<u8>) {
    app.value_log_end = app.stats.as_ref().map_or(0, |s| s.log_logical_bytes);
    let ns = app.shown_ns();
    app.request(Request::LoadValue {
        ns,
        key,
        purpose: ValuePurpose::Show,
    });
}

fn refresh(app: &mut App) {
    if !app.config.writable {
        app.request(Request::Refresh);
    }
    app.stats_pending = true;
    app.request(Request::Stats);
    let ns = app.shown_ns();
    app.load_keys(ns);
    if let Some(key) = app.value.target.clone() {
        request_value(app, key);
    }
}

fn on_response(app: &mut App, resp: Response) {
    match resp {
        Response::Stats {
            stats,
            compact_written,
            writer_alive,
            live_counts,
        } => {
            let changed = app.stats.as_ref() != Some(&*stats)
                || app.writer_alive != writer_alive
                || compact_written.is_some();
            app.redraw |= changed;
            let expired_before = app.expired.clone();
            if let Some(live) = live_counts {
                // What the engine still counts but has expired, per
                // namespace; subtracted until the next count.
                app.expired = live
                    .iter()
                    .map(|(name, n)| {
                        let all = stats
                            .namespaces
                            .iter()
                            .find(|(m, _)| m == name)
                            .map_or(*n, |(_, c)| *c);
                        (name.clone(), all.saturating_sub(*n))
                    })
                    .collect();
                app.redraw |= app.expired != expired_before;
            }
            app.stats_pending = false;
            app.writer_alive = writer_alive;
            app.stats_ms = Some(app.now_ms);
            app.history.record(&stats, app.now_ms, writer_alive);
            if let Some(c) = &mut app.compaction {
                c.written = compact_written.or(c.written);
            }
            let log_end = stats.log_logical_bytes;
            update_namespaces(app, &stats.namespaces);
            let compacted = stats.compactions != app.keys.compactions || log_end < app.keys.log_end;
            let compactions = stats.compactions;
            app.stats = Some(*stats);
            if app.keys.loading.is_none() && log_end != app.keys.log_end {
                app.keys.stale = true;
            }
            if compacted && app.keys.loading.is_none() && app.keys.ns.is_some() {
                // Offsets changed meaning: read every key again.
                app.keys.compactions = compactions;
                app.keys.log_end = 0;
                app.keys.stale = true;
            }
            if log_end != app.value_log_end {
                if let Some(key) = app.value.target.clone() {
                    request_value(app, key);
                }
            }
            maybe_reload_keys(app);
        }
        Response::Refreshed(n) => app.say(format!("caught up ({n} new records)")),
        Response::KeysProgress { generation, loaded } => {
            if let Some(l) = &mut app.keys.loading {
                if l.generation == generation {
                    l.loaded = loaded;
                }
            }
        }
        Response::Keys {
            generation,
            ns,
            set,
            log_end,
            took,
        } => {
            if generation != app.keys.generation {
                return;
            }
            app.keys.loading = None;
            app.keys.following = false;
            app.keys.log_end = log_end;
            if let Some(s) = &app.stats {
                app.keys.compactions = s.compactions;
            }
            app.keys.loaded_ms = app.now_ms;
            app.keys.took = took;
            if app.keys.ns.as_ref() == Some(&ns) {
                // On the last row, stay on the last row: new keys at the end
                // scroll in, like `tail -f`.
                let rows = app.keys.list.row_count();
                let at_end = rows > 1 && app.keys.nav.selected + 1 == rows;
                let staged = staged_new_keys_for(app, set);
                let was = app.selected_key().map(<[u8]>::to_vec);
                if let Some(key) = was.filter(|k| staged.0.find(k).is_none()) {
                    if !app.config.writable {
                        app.complain(format!("{} deleted by the writer", escape(&key)));
                    }
                }
                keep_selection(app, |list| {
                    list.replace_set(staged.0);
                    list.apply(staged.1);
                });
                if at_end {
                    let (len, h) = (app.keys.list.row_count(), key_rows(app));
                    app.keys.nav.select(len.saturating_sub(1), len, h);
                    selection_changed(app);
                }
            } else {
                let (view, delim) = (app.keys.list.view(), app.keys.list.delimiter());
                let mut list = KeyList::new(set, delim);
                list.set_view(view);
                app.keys.list = list;
                app.keys.ns = Some(ns);
                let staged = staged_new_keys(app);
                app.keys.list.apply(staged);
                app.keys.nav = Default::default();
                app.value.target = None;
                app.value.loaded = None;
                if let Mode::Filter(_) = app.mode {
                    app.mode = Mode::Normal;
                }
                selection_changed(app);
            }
        }
        Response::KeysTouched {
            generation,
            ns,
            changes,
            log_end,
        } => {
            app.keys.following = false;
            if generation != app.keys.generation || app.keys.ns.as_ref() != Some(&ns) {
                return;
            }
            match changes {
                None => {
                    app.keys.log_end = 0;
                    app.keys.stale = true;
                }
                Some(changes) => {
                    app.keys.log_end = log_end;
                    if !changes.is_empty() {
                        apply_followed(app, changes);
                    }
                }
            }
            maybe_reload_keys(app);
        }
        Response::Value {
            ns,
            key,
            value,
            expires_ms,
            offset,
            purpose,
        } => match purpose {
            ValuePurpose::Show => {
                if app.value.target.as_deref() == Some(&key[..]) && ns == app.shown_ns() {
                    let was_there = app
                        .value
                        .loaded
                        .as_ref()
                        .is_some_and(|l| l.key == key && l.ns == ns && l.value.is_some());
                    if was_there && value.is_none() && !app.config.writable {
                        app.value.deleted_by_writer = true;
                        app.complain(format!("{} deleted by the writer", escape(&key)));
                    }
                    let loaded = Some(LoadedValue {
                        ns,
                        key,
                        value,
                        expires_ms,
                        offset,
                    });
                    if loaded != app.value.loaded {
                        app.value.loaded = loaded;
                        app.value.version += 1;
                    }
                }
            }
            ValuePurpose::Staging => {
                for s in &mut app.staged {
                    if s.change.ns == ns && s.change.key == key && s.old == OldValue::Loading {
                        s.old = OldValue::Known(value.clone());
                        s.old_expires_ms = expires_ms;
                    }
                }
                app.staged_version += 1;
            }
        },
        Response::Applied(n) => {
            app.staged.clear();
            app.staged_version += 1;
            app.say(format!(
                "wrote {} and flushed",
                units::plural(n as u64, "change")
            ));
            refresh(app);
        }
        Response::Flushed(took) => app.say(format!("flushed in {}", units::latency(took))),
        Response::Compacted { took, reclaimed } => {
            app.compaction = None;
            app.say(format!(
                "compacted in {}, reclaimed about {}",
                units::latency(took),
                units::bytes(reclaimed)
            ));
            app.stats_pending = true;
            app.request(Request::Stats);
        }
        Response::Failed { job, error } => {
            match job {
                Job::LoadKeys => app.keys.loading = None,
                Job::Stats => app.stats_pending = false,
                Job::Compact => app.compaction = None,
                _ => {}
            }
            let gone = match &error {
                JobError::NamespaceGone(name) => Some(name.clone()),
                e if e.namespace_gone() => app.shown_ns(),
                _ => None,
            };
            // Only about the namespace on screen; a stale request about
            // one left behind says nothing new.
            let shown = app.shown_ns();
            match gone {
                Some(name) if Some(&name) == shown.as_ref() => namespace_gone(app, name),
                Some(_) => {}
                None => app.complain(format!("{} failed: {error}", job.what())),
            }
        }
    }
}

fn update_namespaces(app: &mut App, counts: &[(String, u64)]) {
    let mut items: Vec<NsItem> = counts
        .iter()
        .map(|(name, count)| NsItem {
            name: (!name.is_empty()).then(|| name.clone()),
            count: count.saturating_sub(app.expired_in(name)),
        })
        .collect();
    items.sort_by(|a, b| a.name.cmp(&b.name));
    if !items.iter().any(|i| i.name.is_none()) {
        items.insert(
            0,
            NsItem {
                name: None,
                count: 0,
            },
        );
    }
    let selected = app.selected_ns();
    let (len, h) = (items.len(), ns_rows(app));
    let index = items.iter().position(|i| i.name == selected);
    app.namespaces = items;
    match (index, selected) {
        (Some(i), _) => app.ns_nav.select(i, len, h),
        (None, Some(name)) => namespace_gone(app, name),
        (None, None) => app.ns_nav.select(0, len, h),
    }
}

/// Namespace `name` no longer exists: the writer dropped it. Say so and
/// show the default namespace instead.
fn namespace_gone(app: &mut App, name: String) {
    let who = if app.config.writable {
        "dropped"
    } else {
        "dropped by the writer"
    };
    app.complain(format!("namespace {name} {who}; showing (default)"));
    app.namespaces
        .retain(|i| i.name.as_deref() != Some(name.as_str()));
    let (len, h) = (app.namespaces.len(), ns_rows(app));
    let default = app.namespaces.iter().position(|i| i.name.is_none());
    app.ns_nav.select(default.unwrap_or(0), len, h);
    app.keys.ns = None;
    app.value.target = None;
    app.value.loaded = None;
    app.load_keys(None);
}

fn on_scroll(app: &mut App, column: u16, row: u16, lines: i32) {
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

fn on_click(app: &mut App, column: u16, row: u16) {
    if app.tab != Tab::Browse || app.mode != Mode::Normal {
        return;
    }
    let Some(pane) = pane_at(app, column, row) else {
        return;
    };
    app.focus = pane;
    let areas = app.areas.get();
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

fn pane_at(app: &App, column: u16, row: u16) -> Option<Pane> {
    let a = app.areas.get();
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

// ---- editing ----

fn write_command(app: &mut App, c: Command) {
    if !app.config.writable {
        app.complain("read-only: start emdb-tui with --write to edit");
        return;
    }
    match c {
        Command::Put => open_prompt(app, PromptKind::NewKey, Input::default()),
        Command::Edit | Command::EditExternal => {
            let Some((key, current)) = editable_value(app) else {
                return;
            };
            if c == Command::EditExternal {
                app.editor = Some(EditorJob {
                    key,
                    initial: current,
                });
            } else if current.len() > MAX_INLINE_EDIT {
                app.complain(format!(
                    "the value is {}; edit it in $EDITOR with E",
                    units::bytes(current.len() as u64)
                ));
            } else {
                open_prompt(
                    app,
                    PromptKind::EditValue { key },
                    Input::with_text(&escape(&current)),
                );
            }
        }
        Command::Delete => match app.selected_key() {
            Some(key) => {
                app.mode = Mode::Confirm(Question::Delete { key: key.to_vec() });
            }
            None => app.complain("select a key to delete"),
        },
        Command::Unstage => {
            let ns = app.shown_ns();
            let Some(key) = app.selected_key().map(<[u8]>::to_vec) else {
                return;
            };
            let (dropped, kept): (Vec<Staged>, Vec<Staged>) = std::mem::take(&mut app.staged)
                .into_iter()
                .partition(|s| s.change.ns == ns && s.change.key == key);
            app.staged = kept;
            app.staged_version += 1;
            unlist_new_keys(app, &dropped);
            if !dropped.is_empty() {
                app.say(format!("unstaged {}", escape(&key)));
            } else {
                app.say("nothing staged for this key");
            }
        }
        Command::Review => {
            if app.staged.is_empty() {
                app.say("nothing staged (a put, e edit, d delete)");
            } else {
                app.mode = Mode::Review(0);
            }
        }
        Command::Flush => {
            app.request(Request::Flush);
            app.say("flushing…");
        }
        Command::Compact => {
            if app.compaction.is_some() {
                app.say("a compaction is already running");
                return;
            }
            let expected = app
                .stats
                .as_ref()
                .map_or(0, |s| s.live_bytes + crate::ui::dashboard::HEADER_BYTES);
            app.compaction = Some(Compaction {
                started_ms: app.now_ms,
                expected,
                written: None,
            });
            app.request(Request::Compact);
        }
        _ => {}
    }
}

/// The selected key and the value an edit starts from (the staged one if
/// there is one).
fn editable_value(app: &mut App) -> Option<(Vec<u8>, Vec<u8>)> {
    let Some(key) = app.selected_key().map(<[u8]>::to_vec) else {
        app.complain("select a key to edit");
        return None;
    };
    if let Some(s) = app.staged_for(&key) {
        return match &s.change.value {
            Some(v) => Some((key, v.clone())),
            None => {
                app.complain("the key is staged for deletion; u unstages it");
                None
            }
        };
    }
    match &app.value.loaded {
        Some(LoadedValue {
            key: k,
            value: Some(v),
            ..
        }) if *k == key => Some((key, v.clone())),
        _ => {
            app.complain("the value is not loaded yet");
            None
        }
    }
}

/// Open a prompt with a clean message bar: an error shown while it is open
/// is then about what was typed into it (the status bar shows it, since the
/// prompt takes the message line).
fn open_prompt(app: &mut App, kind: PromptKind, input: Input) {
    app.message = None;
    app.mode = Mode::Prompt(kind, input);
}

fn prompt_submit(app: &mut App, kind: PromptKind, text: &str) {
    let bytes = match unescape(text) {
        Ok(b) => b,
        Err(e) => {
            app.complain(e);
            return;
        }
    };
    match kind {
        PromptKind::NewKey => {
            if bytes.is_empty() {
                app.complain("the key is empty");
                return;
            }
            open_prompt(app, PromptKind::NewValue { key: bytes }, Input::default());
        }
        PromptKind::NewValue { key } => {
            open_prompt(
                app,
                PromptKind::NewTtl { key, value: bytes },
                Input::default(),
            );
        }
        PromptKind::NewTtl { key, value } => match parse_ttl(text) {
            Ok(ttl) => {
                app.mode = Mode::Normal;
                stage(app, key, Some(value), ttl);
            }
            Err(e) => app.complain(e),
        },
        PromptKind::EditValue { key } => {
            app.mode = Mode::Normal;
            stage(app, key, Some(bytes), NewTtl::Keep);
        }
    }
}

/// `""` keeps the current lifetime, `never` removes it, else a duration
/// such as `90s`, `15m`, `2h`, `7d` (a bare number is seconds).
pub fn parse_ttl(text: &str) -> Result<NewTtl, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(NewTtl::Keep);
    }
    if t == "never" || t == "none" {
        return Ok(NewTtl::Never);
    }
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("bad time to live {t:?}: use e.g. 90s, 15m, 2h, 7d or never"))?;
    // A lifetime of zero would write a key that is already expired: the put
    // would delete it. The CLI refuses it too; `d` is the way to delete.
    if n == 0 {
        return Err(format!(
            "a time to live of {t} would expire the key at once (deleting it); \
             give a positive duration, never, or d to delete"
        ));
    }
    let d = match unit.trim() {
        "" | "s" => Duration::from_secs(n),
        "ms" => Duration::from_millis(n),
        "m" => Duration::from_secs(n.saturating_mul(60)),
        "h" => Duration::from_secs(n.saturating_mul(3600)),
        "d" => Duration::from_secs(n.saturating_mul(86_400)),
        other => return Err(format!("unknown unit {other:?}: use ms, s, m, h or d")),
    };
    Ok(NewTtl::After(d))
}

fn stage(app: &mut App, key: Vec<u8>, value: Option<Vec<u8>>, ttl: NewTtl) {
    let ns: NsName = app.shown_ns();
    let verb = if value.is_some() { "put" } else { "delete" };
    let shown = escape(&key);
    let existing = app
        .staged
        .iter()
        .position(|s| s.change.ns == ns && s.change.key == key);
    let (old, old_expires_ms) = match existing.map(|i| &app.staged[i]) {
        Some(s) => (s.old.clone(), s.old_expires_ms),
        None => match &app.value.loaded {
            Some(l) if l.key == key && l.ns == ns => {
                (OldValue::Known(l.value.clone()), l.expires_ms)
            }
            _ => (OldValue::Loading, None),
        },
    };
    // A put of the stored value with its lifetime kept changes nothing:
    // nothing to stage (and a staged change of the key goes away).
    if ttl == NewTtl::Keep && value.is_some() && old == OldValue::Known(value.clone()) {
        if let Some(i) = existing {
            app.staged.remove(i);
            app.staged_version += 1;
            app.say(format!("{shown} is back to its stored value: unstaged"));
        } else {
            app.say(format!("no change to {shown}: nothing staged"));
        }
        return;
    }
    let change = Change {
        ns: ns.clone(),
        key: key.clone(),
        value: value.clone(),
        ttl,
    };
    match existing {
        Some(i) => app.staged[i].change = change,
        None => {
            if old == OldValue::Loading {
                app.request(Request::LoadValue {
                    ns,
                    key: key.clone(),
                    purpose: ValuePurpose::Staging,
                });
            }
            app.staged.push(Staged {
                change,
                old,
                old_expires_ms,
            });
        }
    }
    app.staged_version += 1;
    if let Some(v) = &value {
        // A new key shows in the list (marked +) before it is written.
        if app.keys.list.set().find(&key).is_none() {
            let expires_ms = match ttl {
                NewTtl::After(d) => app
                    .now_ms
                    .saturating_add(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                NewTtl::Keep | NewTtl::Never => 0,
            };
            let change = KeyChange::Upsert {
                key,
                size: v.len() as u64,
                expires_ms,
            };
            keep_selection(app, |list| list.apply(vec![change]));
        }
    }
    app.say(format!(
        "staged {verb} {shown}; {} staged, w to review and write",
        units::plural(app.staged.len() as u64, "change")
    ));
}

/// Staged puts of keys the shown list lacks, as list changes (new keys
/// show in the list before they are written).
fn staged_new_keys(app: &App) -> Vec<KeyChange> {
    let ns = app.shown_ns();
    app.staged
        .iter()
        .filter(|s| s.change.ns == ns && app.keys.list.set().find(&s.change.key).is_none())
        .filter_map(|s| {
            let v = s.change.value.as_ref()?;
            Some(KeyChange::Upsert {
                key: s.change.key.clone(),
                size: v.len() as u64,
                expires_ms: 0,
            })
        })
        .collect()
}

/// Apply followed changes to the list: the selection stays on its key (or,
/// on the last row, follows new keys at the end); a selected key the writer
/// deleted is said.
fn apply_followed(app: &mut App, changes: Vec<KeyChange>) {
    let rows = app.keys.list.row_count();
    let at_end = rows > 1 && app.keys.nav.selected + 1 == rows;
    // Staged new keys stay listed whatever the writer did to them.
    let ns = app.shown_ns();
    let changes: Vec<KeyChange> = changes
        .into_iter()
        .filter(|c| match c {
            KeyChange::Remove(k) => !app
                .staged
                .iter()
                .any(|s| s.change.ns == ns && s.change.key == *k && s.change.value.is_some()),
            KeyChange::Upsert { .. } => true,
        })
        .collect();
    if let Some(key) = app.selected_key() {
        let gone = changes
            .iter()
            .any(|c| matches!(c, KeyChange::Remove(k) if k.as_slice() == key));
        if gone && !app.config.writable {
            app.complain(format!("{} deleted by the writer", escape(key)));
        }
    }
    keep_selection(app, |list| list.apply(changes));
    if at_end {
        let (len, h) = (app.keys.list.row_count(), key_rows(app));
        app.keys.nav.select(len.saturating_sub(1), len, h);
        selection_changed(app);
    }
}

/// `set` with the staged new keys that it lacks, as changes to apply after
/// it replaced the list.
fn staged_new_keys_for(app: &App, set: KeySet) -> (KeySet, Vec<KeyChange>) {
    let ns = app.shown_ns();
    let changes = app
        .staged
        .iter()
        .filter(|s| s.change.ns == ns && set.find(&s.change.key).is_none())
        .filter_map(|s| {
            Some(KeyChange::Upsert {
                key: s.change.key.clone(),
                size: s.change.value.as_ref()?.len() as u64,
                expires_ms: 0,
            })
        })
        .collect();
    (set, changes)
}

/// Take back from the list the new keys of staged changes being dropped
/// (they were only there because they were staged).
fn unlist_new_keys(app: &mut App, dropped: &[Staged]) {
    let ns = app.shown_ns();
    let gone: Vec<KeyChange> = dropped
        .iter()
        .filter(|s| s.change.ns == ns && s.old == OldValue::Known(None))
        .map(|s| KeyChange::Remove(s.change.key.clone()))
        .collect();
    if !gone.is_empty() {
        keep_selection(app, |list| list.apply(gone));
    }
}

fn confirmed(app: &mut App, q: Question) {
    match q {
        Question::Delete { key } => stage(app, key, None, NewTtl::Keep),
        Question::Quit => app.quit = true,
    }
}

fn write_staged(app: &mut App) {
    let changes: Vec<Change> = app.staged.iter().map(|s| s.change.clone()).collect();
    app.mode = Mode::Normal;
    app.say(format!(
        "writing {}…",
        units::plural(changes.len() as u64, "change")
    ));
    app.request(Request::Apply(changes));
}

fn on_edited(app: &mut App, job: EditorJob, result: Result<Vec<u8>, String>) {
    // Editors end the file with a newline; a value that had none keeps none.
    let result = result.map(|mut bytes| {
        if !job.initial.ends_with(b"\n") && bytes.ends_with(b"\n") {
            bytes.pop();
            if bytes.ends_with(b"\r") {
                bytes.pop();
            }
        }
        bytes
    });
    match result {
        Ok(bytes) if bytes == job.initial => app.say("no change"),
        Ok(bytes) => stage(app, job.key, Some(bytes), NewTtl::Keep),
        Err(e) => app.complain(format!("editor failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_syntax() {
        assert_eq!(parse_ttl(""), Ok(NewTtl::Keep));
        assert_eq!(parse_ttl("never"), Ok(NewTtl::Never));
        assert_eq!(parse_ttl("90"), Ok(NewTtl::After(Duration::from_secs(90))));
        assert_eq!(
            parse_ttl("15m"),
            Ok(NewTtl::After(Duration::from_secs(900)))
        );
        assert_eq!(
            parse_ttl("2h"),
            Ok(NewTtl::After(Duration::from_secs(7200)))
        );
        assert_eq!(
            parse_ttl("250ms"),
            Ok(NewTtl::After(Duration::from_millis(250)))
        );
        assert!(parse_ttl("5 parsecs").is_err());
        // Zero in any unit would delete the key: refused.
        for zero in ["0", "0s", "0ms", "00m", "0d"] {
            assert!(parse_ttl(zero).is_err(), "{zero}");
        }
        assert!(parse_ttl("x").is_err());
    }
}
