//! Worker answers: stats, keys, values, writes, failures.

#[allow(unused_imports)]
use super::*;

pub(super) fn refresh(app: &mut App) {
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

/// A key scan of the current generation finished (a list, a top-N view or
/// a tree level): the keys pane stops loading and notes where the log was.
/// `false` for a stale scan, which changes nothing.
fn scan_landed(app: &mut App, generation: u64, log_end: u64, took: Duration) -> bool {
    if generation != app.keys.generation {
        return false;
    }
    app.keys.loading = None;
    app.keys.wanted = None;
    app.keys.following = false;
    app.keys.log_end = log_end;
    if let Some(s) = &app.stats {
        app.keys.compactions = s.compactions;
    }
    app.keys.loaded_ms = app.now_ms;
    app.keys.took = took;
    true
}

/// Put a scan's answer (of load `generation`) in the key pane: the same
/// namespace keeps its selection (and, for a whole list of every key, its
/// open groups); a new one starts at the top. `first_page`: only the first
/// keys of the scan, shown while the rest is read.
fn install_list(
    app: &mut App,
    generation: u64,
    ns: NsName,
    set: KeySet,
    pages: Option<crate::pages::Pages>,
    scanned: &str,
    first_page: bool,
) {
    // Chunk reads of this list carry it (answers for a list it replaces
    // are dropped).
    app.keys.list_generation = generation;
    let same_ns = app.keys.ns.as_ref() == Some(&ns);
    let (view, sort, delim) = (
        app.keys.list.view(),
        app.keys.list.sort(),
        app.keys.list.delimiter(),
    );
    let typed = if same_ns {
        app.keys.list.filter().to_string()
    } else {
        String::new()
    };
    if same_ns {
        // On the last row, stay on the last row: new keys at the end
        // scroll in, like `tail -f`.
        let rows = app.keys.list.row_count();
        let at_end = rows > 1 && app.keys.nav.selected + 1 == rows;
        let was = app.selected_key().map(<[u8]>::to_vec);
        // Only the same scan read again tells a key was deleted: a new
        // filter's scan (or a first page) simply does not list it.
        let again = !first_page && app.keys.list.scanned_filter() == scanned;
        let whole_again = pages.is_none() && scanned.is_empty() && app.keys.list.holds_all();
        let staged = staged_puts(app);
        keep_selection(app, |list| {
            if whole_again {
                list.replace_set(set);
            } else {
                let mut fresh = KeyList::from_scan(set, pages, scanned, &typed, delim);
                if !fresh.is_paged() {
                    fresh.set_view(view);
                    fresh.set_sort(sort);
                }
                *list = fresh;
            }
            let lacking = staged
                .into_iter()
                .filter(|c| match c {
                    KeyChange::Upsert { key, .. } => list.contains(key) == Some(false),
                    KeyChange::Remove(_) => false,
                })
                .collect();
            list.apply(lacking);
        });
        if let Some(key) = was {
            if again
                && app.keys.list.contains(&key) == Some(false)
                && app.keys.list.filter() == scanned
                && !app.config.writable
            {
                app.complain(format!("{} deleted by the writer", escape(&key)));
            }
        }
        if at_end {
            let (len, h) = (app.keys.list.row_count(), key_rows(app));
            app.keys.nav.select(len.saturating_sub(1), len, h);
            selection_changed(app);
        }
    } else {
        let mut list = KeyList::from_scan(set, pages, scanned, &typed, delim);
        if !list.is_paged() {
            list.set_view(view);
            list.set_sort(sort);
        }
        app.keys.list = list;
        app.keys.ns = Some(ns);
        app.keys.pending_select = None;
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
    if app.keys.list.is_paged() {
        if view == ListView::Tree {
            // Too many keys to hold for a tree: its top level, counted.
            start_level(app, Vec::new());
        } else if crate::worker::TopBy::of(view, sort).is_some() {
            // Too many keys to hold for this order: its first ones.
            view_big(app, view, sort);
        }
    }
}

/// Put the first keys in an order (a top scan's answer) in the key pane,
/// the first of them selected.
#[allow(clippy::too_many_arguments)]
fn install_top(
    app: &mut App,
    ns: NsName,
    filter: String,
    view: ListView,
    sort: crate::keylist::SortBy,
    set: KeySet,
    matched: usize,
) {
    let same_ns = app.keys.ns.as_ref() == Some(&ns);
    let typed = if same_ns {
        app.keys.list.filter().to_string()
    } else {
        String::new()
    };
    let delim = app.keys.list.delimiter();
    let by_expiry = crate::worker::TopBy::of(view, sort) == Some(crate::worker::TopBy::Expiry);
    let held = set.len();
    app.keys.list = KeyList::top_of(
        set,
        &filter,
        &typed,
        delim,
        view,
        sort,
        crate::keylist::TopOf { matched, by_expiry },
    );
    app.keys.ns = Some(ns);
    app.keys.pending_select = None;
    let staged = staged_puts(app);
    app.keys.list.apply(staged);
    app.keys.nav = Default::default();
    let (len, h) = (app.keys.list.row_count(), key_rows(app));
    app.keys.nav.select(0, len, h);
    selection_changed(app);
    let what = if by_expiry {
        "soonest to expire"
    } else {
        "largest"
    };
    app.say(format!(
        "the {} {what} of {} keys: {} back to every key",
        units::count(held as u64),
        units::count(matched as u64),
        if view == ListView::Expiring { "x" } else { "s" }
    ));
}

/// Put a tree level (a level scan's answer, or with `so_far` one while it
/// counts) in the key pane, the first row selected, or the group just
/// left going up (as soon as an answer holds it, unless the cursor was
/// moved meanwhile: moving forgets it), or, for the same level again, the
/// row the cursor is on.
fn install_level(
    app: &mut App,
    ns: NsName,
    filter: String,
    prefix: Vec<u8>,
    level: crate::worker::Level,
    so_far: bool,
) {
    let same_ns = app.keys.ns.as_ref() == Some(&ns);
    let typed = if same_ns {
        app.keys.list.filter().to_string()
    } else {
        String::new()
    };
    let shown = app.keys.list.level().map(|l| l.prefix.clone());
    let again = same_ns && shown.as_deref() == Some(&prefix[..]);
    let coming_up = shown.filter(|p| same_ns && p.len() > prefix.len() && p.starts_with(&prefix));
    match coming_up {
        Some(group) => app.keys.level_target = Some((prefix.clone(), group)),
        None if !again => app.keys.level_target = None,
        None => {}
    }
    let target = app
        .keys
        .level_target
        .as_ref()
        .filter(|(p, _)| *p == prefix)
        .map(|(_, group)| group.clone());
    let cursor = app
        .keys
        .list
        .row(app.keys.nav.selected)
        .filter(|_| again)
        .map(|row| app.keys.list.row_bytes(row).to_vec());
    let delim = app.keys.list.delimiter();
    let truncated = level.truncated;
    let matched = level.matched;
    app.keys.list = KeyList::level_of(
        level.keys,
        &filter,
        &typed,
        delim,
        crate::keylist::LevelOf {
            prefix,
            groups: level.groups,
            matched: level.matched,
            bytes: level.bytes,
            truncated: level.truncated,
        },
    );
    app.keys.ns = Some(ns);
    app.keys.pending_select = None;
    // The same level again keeps the screen where it was.
    let offset = app.keys.nav.offset;
    app.keys.nav = Default::default();
    if again {
        app.keys.nav.offset = offset;
    }
    if !same_ns {
        // Another namespace's level (a KeysPaged shortcut skips
        // install_list): its value is not the one loaded.
        app.value.target = None;
        app.value.loaded = None;
    }
    let at_target = target.and_then(|g| app.keys.list.row_of(&g));
    if at_target.is_some() || !so_far {
        app.keys.level_target = None;
    }
    let row = at_target
        .or_else(|| cursor.and_then(|k| app.keys.list.row_of(&k)))
        .unwrap_or(0);
    let (len, h) = (app.keys.list.row_count(), key_rows(app));
    app.keys.nav.select(row, len, h);
    selection_changed(app);
    if truncated {
        app.say(format!(
            "only the first {} groups and keys of {} keys listed: filter, or open a group",
            units::count(len as u64),
            units::count(matched as u64)
        ));
    }
}

pub(super) fn on_response(app: &mut App, resp: Response) {
    match resp {
        Response::Stats {
            stats,
            compact_written,
            writer_alive,
            live_counts,
            follow_failed,
            namespace_ids,
        } => {
            follow_result(app, follow_failed.as_ref());
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
            namespace_ids_seen(app, namespace_ids);
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
        Response::KeysFirst {
            generation,
            ns,
            filter,
            set,
        } => {
            // Show the first keys of a new namespace, or of a new filter's
            // scan, while the rest is read; a reload of the same list
            // waits for the whole answer (the cursor may be far down).
            let same = app.keys.ns.as_ref() == Some(&ns)
                && app.keys.list.scanned_filter() == filter
                && (app.keys.list.row_count() > 0 || filter.is_empty());
            // (Only in the flat view by key: a provisional page would
            // drop a tree or an order the whole answer can keep.)
            let flat = app.keys.list.view() == ListView::Flat
                && app.keys.list.sort() == crate::keylist::SortBy::Key;
            if generation != app.keys.generation || same || !flat {
                return;
            }
            let chunk = set.len();
            let pages = crate::pages::Pages::new(vec![(None, chunk, 0)], set, chunk);
            install_list(
                app,
                generation,
                ns,
                KeySet::new(),
                Some(pages),
                &filter,
                true,
            );
        }
        Response::KeysPaged {
            generation,
            ns,
            filter,
        } => {
            // A tree asked of a list too big to hold: count its top level
            // now rather than once the whole list is read (the level
            // replaces the load; `t` reads the paged list again).
            if generation == app.keys.generation && view_and_sort(app).0 == ListView::Tree {
                // Stand in the (empty) top level of `ns` while it is
                // counted: keys pressed meanwhile act on a level of the
                // namespace being shown, not on the list before.
                let empty = crate::worker::Level::default();
                install_level(app, ns.clone(), filter.clone(), Vec::new(), empty, true);
                start_level_of(app, ns, filter, Vec::new());
            }
        }
        Response::Keys {
            generation,
            ns,
            filter,
            set,
            pages,
            log_end,
            took,
        } => {
            if !scan_landed(app, generation, log_end, took) {
                return;
            }
            install_list(app, generation, ns, set, pages, &filter, false);
        }
        Response::Top {
            generation,
            ns,
            filter,
            view,
            sort,
            set,
            matched,
            log_end,
            took,
        } => {
            if !scan_landed(app, generation, log_end, took) {
                return;
            }
            install_top(app, ns, filter, view, sort, set, matched);
        }
        Response::LevelSoFar {
            generation,
            ns,
            filter,
            prefix,
            level,
        } => {
            // Shown while the count goes on (the title still says
            // loading); the whole answer replaces it.
            if generation != app.keys.generation || app.keys.loading.is_none() {
                return;
            }
            install_level(app, ns, filter, prefix, level, true);
        }
        Response::Level {
            generation,
            ns,
            filter,
            prefix,
            level,
            log_end,
            took,
        } => {
            if !scan_landed(app, generation, log_end, took) {
                return;
            }
            install_level(app, ns, filter, prefix, level, false);
        }
        Response::Chunk {
            generation,
            chunk,
            lo,
            count,
            bytes,
            keys,
        } => {
            if generation != app.keys.list_generation {
                return;
            }
            let held = keys.is_some();
            let was = app.selected_key().map(<[u8]>::to_vec);
            keep_selection(app, |list| {
                list.fill_chunk(chunk, &lo, count, bytes, keys);
            });
            if held {
                let staged = staged_new_keys(app);
                if !staged.is_empty() {
                    keep_selection(app, |list| list.apply(staged));
                }
            }
            // A key waited for (a jump into a chunk not held yet).
            if let Some(key) = app.keys.pending_select.clone() {
                match app.keys.list.row_near(&key) {
                    Some((row, true)) => {
                        app.keys.pending_select = None;
                        let (len, h) = (app.keys.list.row_count(), key_rows(app));
                        app.keys.nav.select(row, len, h);
                    }
                    Some((_, false)) => {}
                    // Its chunk came without it: gone.
                    None => app.keys.pending_select = None,
                }
            }
            if was.is_none() || app.keys.pending_select.is_none() {
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
                        // A round of counts of the chunks these changed
                        // (follows come at most once a tick).
                        app.keys.recount_at_ms = 0;
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
                    resume_awaiting(app);
                }
            }
            ValuePurpose::RenameTarget => {
                rename_target_read(app, ns, key, value.is_some());
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
        Response::Found {
            ns,
            needle,
            window,
            found: got,
        } => {
            let Some(found) = app
                .found
                .as_mut()
                .filter(|f| f.running && f.ns == ns && f.needle == needle && f.window == window)
            else {
                return;
            };
            // Only the first search starts with no keys: a next window is
            // asked for only when one is held.
            let first = found.keys.is_empty();
            // None past the selection (the window asked for starts there):
            // wrap around to the other end.
            if !first && got.keys.is_empty() && got.matched > 0 {
                let wrap = match window {
                    FindWindow::After(Some(_)) => Some(FindWindow::After(None)),
                    FindWindow::Before(Some(_)) => Some(FindWindow::Before(None)),
                    _ => None,
                };
                if let Some(wrap) = wrap {
                    ask_found(app, wrap);
                    return;
                }
            }
            found.keys = got.keys;
            found.scanned = got.scanned;
            found.matched = got.matched;
            found.skipped = got.skipped;
            found.running = false;
            let (n, text) = (found.keys.len(), found.text.clone());
            let (matched, scanned) = (found.matched, found.scanned);
            if n == 0 && first {
                app.say(format!(
                    "{text:?} is in none of {} values",
                    units::count(scanned as u64)
                ));
            } else if n == 0 {
                // Deleted meanwhile.
                app.say(format!("{text:?} is in none of the values left there"));
            } else if first {
                select_found(app, 0, false);
                let held = if n < matched {
                    format!(" ({} at a time in key order)", units::count(n as u64))
                } else {
                    String::new()
                };
                app.say(format!(
                    "{text:?} is in {} of {} values{held}: n next, N previous",
                    units::count(matched as u64),
                    units::count(scanned as u64)
                ));
            } else {
                let (i, wrapped) = match window {
                    FindWindow::After(k) => (0, k.is_none()),
                    FindWindow::Before(k) => (n - 1, k.is_none()),
                };
                select_found(app, i, wrapped);
            }
        }
        Response::Applied(n) => {
            app.staged.clear();
            app.staged_version += 1;
            app.say(format!(
                "wrote {} and flushed",
                units::plural(n as u64, "change")
            ));
            refresh(app);
        }
        Response::Exported {
            path,
            format,
            written,
            skipped,
        } => {
            app.exports = app.exports.saturating_sub(1);
            quit_if_pending(app);
            let gone = if skipped > 0 {
                format!(" ({skipped} deleted meanwhile)")
            } else {
                String::new()
            };
            app.say(format!(
                "exported {} to {} ({format}){gone}",
                units::plural(written as u64, "key"),
                escape_path(&path)
            ));
        }
        Response::Exporting { path, written } => {
            // Progress takes the message line: a pending quit is said here.
            let quitting = if app.quit_pending {
                " · quitting when it ends (Ctrl-C: now)"
            } else {
                ""
            };
            app.say(format!(
                "exporting to {}… {} written{quitting}",
                escape_path(&path),
                units::plural(written as u64, "key")
            ));
        }
        Response::NamespaceCreated(name, new) => {
            if new {
                app.say(format!("created namespace {}", escape_str(&name)));
            } else {
                app.say(format!("namespace {} exists already", escape_str(&name)));
            }
            app.stats_pending = true;
            app.request(Request::Stats);
        }
        Response::NamespaceDropped(name, dropped) => {
            if dropped {
                // Leave it now, so the next stats do not report it gone.
                if app.shown_ns().as_deref() == Some(name.as_str()) {
                    namespace_gone(app, name.clone());
                }
                app.say(format!(
                    "dropped namespace {} and its keys",
                    escape_str(&name)
                ));
            } else {
                app.say(format!("namespace {} was not there", escape_str(&name)));
            }
            app.stats_pending = true;
            app.request(Request::Stats);
        }
        Response::Flushed(took) => app.say(format!("flushed in {}", units::latency(took))),
        Response::Compacted { took, reclaimed } => {
            app.compaction = None;
            quit_if_pending(app);
            app.say(format!(
                "compacted in {}, reclaimed about {}",
                units::latency(took),
                units::bytes(reclaimed)
            ));
            app.stats_pending = true;
            app.request(Request::Stats);
        }
        Response::Failed {
            job: Job::Open,
            error,
        } => {
            // Nothing works without the database: end, and say why.
            app.open_failed = Some(error);
            app.quit = true;
        }
        Response::Failed { job, error } => {
            match job {
                Job::LoadKeys => {
                    app.keys.loading = None;
                    // A follow that failed reads every key again, as one
                    // that could not tell what changed does (a reload that
                    // fails too is tried again as any failed load is).
                    if std::mem::take(&mut app.keys.following) {
                        app.keys.log_end = 0;
                        app.keys.stale = true;
                    }
                }
                Job::Stats => app.stats_pending = false,
                Job::Compact => {
                    app.compaction = None;
                    quit_if_pending(app);
                }
                Job::Export => {
                    app.exports = app.exports.saturating_sub(1);
                    quit_if_pending(app);
                }
                Job::FindInValues => app.found = None,
                Job::LoadValue(ValuePurpose::Show) => value_failed(app, &error),
                _ => {}
            }
            report_failure(app, job, &error);
        }
        Response::ChunkFailed {
            generation,
            chunk,
            lo,
            error,
        } => {
            if generation == app.keys.list_generation {
                app.keys.list.chunk_failed(chunk, &lo);
            }
            report_failure(app, Job::LoadChunk, &error);
        }
    }
}

/// What a read-only handle that cannot follow the file any more (replaced
/// by `emdb encrypt`, `decrypt`, `rotate-key`, or anything it cannot open)
/// shows: what happened and what to do, in one line.
pub fn stale_text(error: &JobError) -> String {
    let what = match error {
        JobError::Db(e) => stale_cause(e),
        e => format!("the file cannot be followed ({e}); quit and start again"),
    };
    format!("STALE: {what}")
}

/// What [`stale_text`] says for an error of the database: a read's
/// [`emdb_core::Error::Stale`] by its cause, as the refresh's own error.
fn stale_cause(error: &emdb_core::Error) -> String {
    use emdb_core::Error as E;
    match error {
        E::Stale { cause, .. } => stale_cause(cause),
        E::EncryptionRequired { .. } => {
            "the file was replaced by an encrypted one (emdb encrypt?); \
             quit and start again with EMDB_PASSPHRASE, --passphrase-file or --key-file"
                .to_string()
        }
        E::EncryptionKeyMismatch { .. } => {
            "the file was replaced and its key changed (emdb rotate-key?); \
             quit and start again with the new passphrase or key file"
                .to_string()
        }
        E::NotEncrypted { .. } => "the file was replaced by one not encrypted \
             (emdb decrypt?); quit and start again without EMDB_PASSPHRASE or a secret file"
            .to_string(),
        e => format!("the file cannot be followed ({e}); quit and start again"),
    }
}

/// Note whether the read-only handle still follows the file: the first
/// failure (or another one) is said; it stays on the status bar (and on
/// the message line when nothing else is said) until the file can be read
/// again, when every key is read again.
fn follow_result(app: &mut App, failed: Option<&JobError>) {
    match failed {
        Some(e) => {
            let text = stale_text(e);
            if app.stale.as_ref().map(|s| &s.text) != Some(&text) {
                let since_ms = app.stale.as_ref().map_or(app.now_ms, |s| s.since_ms);
                app.stale = Some(crate::app::StaleView {
                    text: text.clone(),
                    since_ms,
                });
                app.complain(text);
                app.redraw = true;
            }
        }
        None => {
            if app.stale.take().is_some() {
                app.say("the file can be read again: every key is read again");
                app.keys.log_end = 0;
                app.keys.stale = true;
                app.redraw = true;
                if let Some((key, _)) = app.value.failed.take() {
                    request_value(app, key);
                }
            }
        }
    }
}

/// The read of the value pane's key failed: the pane says why (the stale
/// reason when the file was replaced) rather than `loading…` for ever.
fn value_failed(app: &mut App, error: &JobError) {
    let Some(key) = app.value.target.clone() else {
        return;
    };
    let why = match (&app.stale, error) {
        (Some(s), _) => s.text.clone(),
        (None, JobError::Db(emdb_core::Error::Stale { .. })) => stale_text(error),
        (None, e) => format!("could not read it: {e}"),
    };
    abandon_awaiting(app, &key, &why);
    app.value.failed = Some((key, why));
    app.redraw = true;
}

/// Tell the user a job failed: a namespace the screen shows that is gone
/// is left for the list of namespaces; anything else is a complaint.
fn report_failure(app: &mut App, job: Job, error: &JobError) {
    // A handle that cannot follow the file fails every read: say why once,
    // readably, rather than each read's error.
    if let Some(s) = &app.stale {
        let text = s.text.clone();
        app.complain(text);
        return;
    }
    let gone = match error {
        JobError::NamespaceGone(name) => Some(name.clone()),
        e if e.namespace_gone() => app.shown_ns(),
        _ => None,
    };
    // Only about the namespace on screen; a stale request about one left
    // behind says nothing new.
    let shown = app.shown_ns();
    match gone {
        Some(name) if Some(&name) == shown.as_ref() => namespace_gone(app, name),
        Some(_) => {}
        None => app.complain(format!("{} failed: {error}", job.what())),
    }
}
