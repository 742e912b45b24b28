//! The keys pane: moving, opening groups, the filter, the selection and
//! the value it asks for, and changes to the list (followed records, staged
//! new keys).

#[allow(unused_imports)]
use super::*;

pub(super) fn left(app: &mut App) {
    match app.focus {
        Pane::Namespaces => {}
        Pane::Value => app.focus = Pane::Keys,
        Pane::Keys => {
            let i = app.keys.nav.selected;
            let up = app
                .keys
                .list
                .level()
                .and_then(|l| parent_prefix(&l.prefix, app.keys.list.delimiter()));
            if let Some(prefix) = up {
                // Up a level of a tree too big to hold.
                start_level(app, prefix);
            } else if let Some(Row::Group { expanded: true, .. }) = app.keys.list.row(i) {
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

pub(super) fn right(app: &mut App) {
    if app.focus == Pane::Keys && open_level_group(app) {
        return;
    }
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

pub(super) fn enter(app: &mut App) {
    if app.focus == Pane::Keys && open_level_group(app) {
        return;
    }
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

pub(super) fn follow_keys(app: &mut App) {
    let (len, h) = (app.keys.list.row_count(), key_rows(app));
    app.keys.nav.follow(len, h);
    let sel = app.keys.nav.selected;
    app.keys.nav.select(sel, len, h);
}

/// Change the list with `f`, keeping the selected key (or the group that
/// now holds it) selected.
pub(super) fn keep_selection(app: &mut App, f: impl FnOnce(&mut KeyList)) {
    let before = app
        .keys
        .list
        .row(app.keys.nav.selected)
        .map(|r| app.keys.list.row_bytes(r).to_vec());
    // A row of a paged list whose chunk is not read yet has no key: it
    // keeps its place.
    let unread = before.as_ref().is_some_and(|k| k.is_empty()) && app.keys.list.is_paged();
    let sel = app.keys.nav.selected;
    f(&mut app.keys.list);
    let row = if unread {
        sel
    } else {
        // In a paged list the key's chunk may not be read yet (a list read
        // again holds only its first chunk): stand at the chunk's start
        // and select the key when the chunk comes.
        match before.and_then(|k| app.keys.list.row_near(&k).map(|(r, exact)| (r, exact, k))) {
            Some((r, true, _)) => r,
            Some((r, false, k)) => {
                app.keys.pending_select = Some(k);
                r
            }
            None => 0,
        }
    };
    let (len, h) = (app.keys.list.row_count(), key_rows(app));
    app.keys.nav.select(row, len, h);
    selection_changed(app);
}

/// Show the first keys of a list too big to hold in the order of `view`
/// and `sort` (biggest, soonest to expire): the worker scans once keeping
/// at most the holding limit; the key order brings the paged list back.
pub(super) fn view_big(app: &mut App, view: ListView, sort: crate::keylist::SortBy) {
    let Some(by) = crate::worker::TopBy::of(view, sort) else {
        // Back to every key in key order: read them again (paged).
        keep_selection(app, |list| {
            list.set_view(view);
            list.set_sort(sort);
        });
        let ns = app.shown_ns();
        app.load_keys(ns);
        app.keys.wanted = Some((view, sort));
        app.say("back to every key, by key");
        return;
    };
    let ns = app.shown_ns();
    app.keys.generation += 1;
    app.keys.stale = false;
    app.keys.wanted = Some((view, sort));
    let generation = app.keys.generation;
    app.keys.loading = Some(crate::app::Loading {
        generation,
        loaded: 0,
        started_ms: app.now_ms,
    });
    let limit = app.worker_paging().whole_limit.min(MAX_TOP);
    let what = match by {
        crate::worker::TopBy::Size => "largest",
        crate::worker::TopBy::Expiry => "soonest to expire",
    };
    app.say(format!(
        "finding the {} {what} of {} keys…",
        units::count(limit as u64),
        units::count(app.keys.list.total() as u64)
    ));
    let filter = app.keys.list.filter().to_string();
    app.request(Request::TopKeys {
        ns,
        generation,
        filter,
        view,
        sort,
        limit,
    });
}

/// True when the list is too big to hold: paged, the first keys in an
/// order out of more, or a tree level.
pub(super) fn is_big(app: &App) -> bool {
    let list = &app.keys.list;
    list.is_paged() || list.top().is_some() || list.level().is_some()
}

/// Most keys the sorts and the expiring view of a list too big to hold
/// keep (the scan's heap and the list of them stay a few MB).
pub const MAX_TOP: usize = 10_000;

/// The view and order of the key list, or the ones asked for while the
/// scan for them runs.
pub(super) fn view_and_sort(app: &App) -> (ListView, crate::keylist::SortBy) {
    app.keys
        .wanted
        .filter(|_| app.keys.loading.is_some())
        .unwrap_or((app.keys.list.view(), app.keys.list.sort()))
}

/// Most groups and keys a tree level of a list too big to hold lists.
pub const MAX_LEVEL_ROWS: usize = 10_000;

/// Show the tree level under `prefix` of a list too big to hold: the
/// worker counts its groups in one scan of the prefix's range.
pub(super) fn start_level(app: &mut App, prefix: Vec<u8>) {
    let (ns, filter) = (app.shown_ns(), app.keys.list.filter().to_string());
    start_level_of(app, ns, filter, prefix);
}

/// [`start_level`] for the keys of `ns` matching `filter`.
pub(super) fn start_level_of(app: &mut App, ns: NsName, filter: String, prefix: Vec<u8>) {
    app.keys.generation += 1;
    app.keys.stale = false;
    app.keys.wanted = Some((ListView::Tree, crate::keylist::SortBy::Key));
    let generation = app.keys.generation;
    app.keys.loading = Some(crate::app::Loading {
        generation,
        loaded: 0,
        started_ms: app.now_ms,
    });
    let delimiter = app.keys.list.delimiter();
    app.request(Request::TreeLevel {
        ns,
        generation,
        filter,
        prefix,
        delimiter,
        limit: MAX_LEVEL_ROWS.min(app.worker_paging().whole_limit),
        partial_every: LEVEL_SO_FAR_EVERY.min(app.worker_paging().whole_limit),
    });
}

/// Keys a tree level's scan counts between two answers so far: the first
/// shows after about 20 ms of counting (at ~3 keys a µs), then the counts
/// grow every ~90 ms until the whole answer comes.
pub const LEVEL_SO_FAR_EVERY: usize = 1 << 16;

/// The level above a tree level's prefix (`None` at the top).
fn parent_prefix(prefix: &[u8], delimiter: u8) -> Option<Vec<u8>> {
    let inner = prefix.strip_suffix(&[delimiter])?;
    Some(match inner.iter().rposition(|&b| b == delimiter) {
        Some(p) => inner[..=p].to_vec(),
        None => Vec::new(),
    })
}

/// In a tree level, open the selected group (a scan of its keys): true
/// when it did.
fn open_level_group(app: &mut App) -> bool {
    if app.keys.list.level().is_none() {
        return false;
    }
    let Some(row @ Row::Group { .. }) = app.keys.list.row(app.keys.nav.selected) else {
        return false;
    };
    let prefix = app.keys.list.row_bytes(row).to_vec();
    start_level(app, prefix);
    true
}

pub(super) fn set_view(app: &mut App, view: ListView) {
    keep_selection(app, |list| list.set_view(view));
}

pub(super) fn set_filter(app: &mut App, text: &str) {
    keep_selection(app, |list| list.set_filter(text));
}

pub(super) fn filter_mode(app: &mut App, mut input: Input, action: Action) {
    match action {
        Action::Input(edit) => {
            input.edit(edit);
            app.mode = Mode::Filter(input);
            // Within a burst (a paste) the text typed so far is not worth
            // filtering by: the end of the burst filters once.
            if !app.input_pending {
                apply_typed_filter(app);
            }
        }
        Action::Submit => {
            // Enter at the end of a paste keeps the text pasted.
            apply_typed_filter(app);
            app.mode = Mode::Normal;
        }
        Action::Cancel => {
            app.mode = Mode::Normal;
            set_filter(app, "");
        }
        Action::Command(
            c @ (Command::Up | Command::Down | Command::PageUp | Command::PageDown),
        ) => {
            apply_typed_filter(app);
            command(app, c);
        }
        _ => {}
    }
}

/// Filter by the text of the filter being typed (when it changed).
pub(super) fn apply_typed_filter(app: &mut App) {
    let Mode::Filter(input) = &app.mode else {
        return;
    };
    if input.text() == app.keys.list.filter() {
        return;
    }
    let text = input.text().to_string();
    set_filter(app, &text);
    // A regular expression that does not parse matches nothing;
    // say why (the status bar shows it while the filter is typed).
    match app.keys.list.pattern().and_then(|p| p.error.clone()) {
        Some(e) => app.complain(e),
        None => {
            if app.message.as_ref().is_some_and(|m| m.error) {
                app.message = None;
            }
        }
    }
    app.redraw = true;
}

/// After the key selection moved: ask for the newly selected value.
pub(super) fn selection_changed(app: &mut App) {
    let key = app.selected_key().map(<[u8]>::to_vec);
    if key == app.value.target {
        return;
    }
    if let Mode::Awaiting(w) = &app.mode {
        if key.as_ref() != Some(&w.key) {
            app.mode = Mode::Normal;
            app.complain("the selection moved: the edit waiting for its value is cancelled");
        }
    }
    app.value.target = key.clone();
    app.value.scroll = 0;
    app.value.deleted_by_writer = false;
    if let Some(key) = key {
        request_value(app, key);
    }
}

pub(super) fn request_value(app: &mut App, key: Vec<u8>) {
    app.value.failed = None;
    app.value_log_end = app.stats.as_ref().map_or(0, |s| s.log_logical_bytes);
    let ns = app.shown_ns();
    app.request(Request::LoadValue {
        ns,
        key,
        purpose: ValuePurpose::Show,
    });
}

/// Staged puts of the shown namespace, as list changes.
pub(super) fn staged_puts(app: &App) -> Vec<KeyChange> {
    staged_upserts(app, |_| true)
}

/// Staged puts of keys the shown list lacks, as list changes (new keys
/// show in the list before they are written).
pub(super) fn staged_new_keys(app: &App) -> Vec<KeyChange> {
    staged_upserts(app, |key| app.keys.list.contains(key) == Some(false))
}

/// Staged puts of the shown namespace whose key `keep` accepts.
fn staged_upserts(app: &App, keep: impl Fn(&[u8]) -> bool) -> Vec<KeyChange> {
    let ns = app.shown_ns();
    app.staged
        .iter()
        .filter(|s| s.change.ns == ns && keep(&s.change.key))
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
pub(super) fn apply_followed(app: &mut App, changes: Vec<KeyChange>) {
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

/// Take back from the list the new keys of staged changes being dropped
/// (they were only there because they were staged).
pub(super) fn unlist_new_keys(app: &mut App, dropped: &[Staged]) {
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

pub(super) fn confirmed(app: &mut App, q: Question) {
    match q {
        Question::Delete { key } => stage(app, key, None, NewTtl::Keep),
        Question::Quit => quit_when_idle(app),
        Question::DropNamespace { name, .. } => {
            app.say(format!("dropping namespace {}…", escape_str(&name)));
            app.request(Request::DropNamespace(name));
        }
    }
}

pub(super) fn write_staged(app: &mut App) {
    let changes: Vec<Change> = app.staged.iter().map(|s| s.change.clone()).collect();
    app.mode = Mode::Normal;
    app.say(format!(
        "writing {}…",
        units::plural(changes.len() as u64, "change")
    ));
    app.request(Request::Apply(changes));
}

pub(super) fn on_edited(app: &mut App, job: EditorJob, result: Result<Vec<u8>, String>) {
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
