//! Editing (`--write`): prompts, staging, the review and writing.

#[allow(unused_imports)]
use super::*;

// ---- editing ----

pub(super) fn write_command(app: &mut App, c: Command) {
    if !app.config.writable {
        app.complain("read-only: start emdb-tui with --write to edit");
        return;
    }
    let needs_value = matches!(
        c,
        Command::Edit | Command::EditExternal | Command::Rename | Command::EditTtl
    );
    if needs_value && wait_for_value(app, c) {
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
        Command::Rename => {
            let Some((key, value)) = editable_value(app) else {
                return;
            };
            let text = escape(&key);
            open_prompt(
                app,
                PromptKind::RenameKey { key, value },
                Input::with_text(&text),
            );
        }
        Command::CreateNamespace => open_prompt(app, PromptKind::NewNamespace, Input::default()),
        Command::DropNamespace => match app.selected_ns() {
            None => app.complain(
                "the default namespace cannot be dropped (select another in the namespace pane)",
            ),
            Some(name) => {
                let staged = app
                    .staged
                    .iter()
                    .filter(|s| s.change.ns.as_deref() == Some(name.as_str()))
                    .count();
                if staged > 0 {
                    app.complain(format!(
                        "{} staged in {}: write or unstage them first",
                        units::plural(staged as u64, "change"),
                        escape_str(&name)
                    ));
                } else {
                    let keys = app
                        .namespaces
                        .iter()
                        .find(|n| n.name.as_deref() == Some(name.as_str()))
                        .map_or(0, |n| n.count);
                    app.mode = Mode::Confirm(Question::DropNamespace { name, keys });
                }
            }
        },
        Command::EditTtl => {
            let Some((key, value)) = editable_value(app) else {
                return;
            };
            open_prompt(app, PromptKind::EditTtl { key, value }, Input::default());
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

/// When the selected key's value is still being read (and no staged change
/// of it gives the value to start from), wait for it in
/// [`Mode::Awaiting`]: `command` runs when it arrives (see
/// [`resume_awaiting`]). False when there is nothing to wait for.
fn wait_for_value(app: &mut App, command: Command) -> bool {
    let Some(key) = app.selected_key().map(<[u8]>::to_vec) else {
        return false;
    };
    if app.staged_for(&key).is_some() {
        return false;
    }
    let loaded = app.value.loaded.as_ref().is_some_and(|l| l.key == key);
    let failed = app.value.failed.as_ref().is_some_and(|(k, _)| *k == key);
    let reading = app.value.target.as_deref() == Some(&key[..]);
    if loaded || failed || !reading {
        return false;
    }
    app.say(format!(
        "reading the value of {}… (Esc cancels)",
        escape(&key)
    ));
    app.mode = Mode::Awaiting(Awaiting {
        command,
        key,
        typed: Vec::new(),
    });
    true
}

/// The value an edit waited for was read: run the edit, then replay into
/// its prompt what was typed meanwhile. Typing left over once the prompt
/// is gone (the edit refused, or Enter staged it) is dropped, never run as
/// commands.
pub(super) fn resume_awaiting(app: &mut App) {
    let ready = match (&app.mode, &app.value.loaded) {
        (Mode::Awaiting(w), Some(l)) => l.key == w.key,
        _ => false,
    };
    if !ready {
        return;
    }
    let Mode::Awaiting(waiting) = std::mem::replace(&mut app.mode, Mode::Normal) else {
        return;
    };
    write_command(app, waiting.command);
    for typed in waiting.typed {
        let Mode::Prompt(kind, input) = app.mode.clone() else {
            break;
        };
        let action = match typed {
            Typed::Edit(edit) => Action::Input(edit),
            Typed::Submit => Action::Submit,
        };
        prompt_action(app, kind, input, action);
    }
}

/// An edit waiting for the value of `key` will not get it: say why and
/// go back to the panes.
pub(super) fn abandon_awaiting(app: &mut App, key: &[u8], why: &str) {
    if matches!(&app.mode, Mode::Awaiting(w) if w.key == key) {
        app.mode = Mode::Normal;
        app.complain(format!("{}: {why}; nothing opened", escape(key)));
    }
}

/// The selected key and the value an edit starts from (the staged one if
/// there is one).
pub(super) fn editable_value(app: &mut App) -> Option<(Vec<u8>, Vec<u8>)> {
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
        Some(LoadedValue {
            key: k,
            value: None,
            ..
        }) if *k == key => {
            app.complain(format!("{} does not exist (any more)", escape(&key)));
            None
        }
        _ => {
            app.complain("the value is not loaded yet");
            None
        }
    }
}

/// Open a prompt with a clean message bar: an error shown while it is open
/// is then about what was typed into it (the status bar shows it, since the
/// prompt takes the message line).
pub(super) fn open_prompt(app: &mut App, kind: PromptKind, input: Input) {
    app.message = None;
    app.mode = Mode::Prompt(kind, input);
}

pub(super) fn prompt_submit(app: &mut App, kind: PromptKind, text: &str) {
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
        PromptKind::RenameKey { key, value } => {
            if bytes.is_empty() {
                app.complain("the new key is empty");
                return;
            }
            if bytes == key {
                app.mode = Mode::Normal;
                app.say("same name: nothing staged");
                return;
            }
            // An expired key is gone for the engine: renaming it would
            // bring its value back under the new name.
            if let Some(at) = source_expiry(app, &key).filter(|&at| at <= app.now_ms) {
                app.mode = Mode::Normal;
                app.complain(format!(
                    "{} expired {} ago: nothing to rename",
                    escape(&key),
                    units::span(Duration::from_millis(app.now_ms - at))
                ));
                return;
            }
            match app.staged_for(&bytes).map(|s| s.change.value.is_some()) {
                Some(true) => {
                    app.complain(format!(
                        "{} has a staged put already; pick another name (u on it unstages it)",
                        escape(&bytes)
                    ));
                }
                // Staged for deletion: the delete makes room, and the put
                // of the new name replaces it (the review shows the value
                // it replaces).
                Some(false) => {
                    app.mode = Mode::Normal;
                    stage_rename(app, key, value, bytes);
                }
                None if app.keys.list.contains(&bytes) == Some(true) => {
                    app.complain(taken(&bytes));
                }
                None => {
                    // The list cannot say the name is free (a paged list
                    // holds some chunks, a filtered one its matches): the
                    // database does. The prompt stays open until it
                    // answers (see `rename_target_read`).
                    app.say(format!("checking whether {} exists…", escape(&bytes)));
                    let ns = app.shown_ns();
                    app.request(Request::LoadValue {
                        ns,
                        key: bytes,
                        purpose: ValuePurpose::RenameTarget,
                    });
                }
            }
        }
        PromptKind::ExportPath { .. } => {
            let path = text.trim();
            if path.is_empty() {
                app.complain("type a file name (.jsonl or .csv)");
                return;
            }
            app.mode = Mode::Normal;
            if app.keys.list.is_paged() {
                // Too many to hold: the worker streams the list's keys
                // (the scanned filter's matches) from the engine.
                app.say(format!(
                    "exporting {} to {path}…",
                    units::plural(app.keys.list.total() as u64, "key")
                ));
                let (ns, filter) = (app.shown_ns(), app.keys.list.scanned_filter().to_string());
                app.exports += 1;
                app.request(Request::ExportRange {
                    ns,
                    filter,
                    path: std::path::PathBuf::from(path),
                });
                return;
            }
            let keys: Vec<Vec<u8>> = app.keys.list.listed_keys().map(<[u8]>::to_vec).collect();
            app.say(format!(
                "exporting {} to {path}…",
                units::plural(keys.len() as u64, "key")
            ));
            let ns = app.shown_ns();
            app.exports += 1;
            app.request(Request::Export {
                ns,
                keys,
                path: std::path::PathBuf::from(path),
            });
        }
        PromptKind::NewNamespace => {
            let Ok(name) = String::from_utf8(bytes) else {
                app.complain("a namespace name is text (UTF-8)");
                return;
            };
            if name.is_empty() {
                app.complain("the name is empty");
                return;
            }
            app.mode = Mode::Normal;
            app.say(format!("creating namespace {}…", escape_str(&name)));
            app.request(Request::CreateNamespace(name));
        }
        PromptKind::FindInValues => {
            app.mode = Mode::Normal;
            if bytes.is_empty() {
                app.found = None;
                app.say("search cleared");
                return;
            }
            let ns = app.shown_ns();
            let ignore_case = !bytes.iter().any(u8::is_ascii_uppercase);
            app.found = Some(Found {
                ns: ns.clone(),
                text: text.to_string(),
                needle: bytes.clone(),
                ignore_case,
                running: true,
                ..Found::default()
            });
            app.say(format!("looking for {text:?} in the values…"));
            app.request(Request::FindInValues {
                ns,
                needle: bytes,
                ignore_case,
                window: FindWindow::After(None),
            });
        }
        PromptKind::EditTtl { key, value } => match parse_ttl(text) {
            Ok(NewTtl::Keep) => app.complain("type a time to live (e.g. 15m, 7d) or never"),
            Ok(ttl) => {
                app.mode = Mode::Normal;
                stage(app, key, Some(value), ttl);
            }
            Err(e) => app.complain(e),
        },
    }
}

/// The refusal of a rename onto `target`, a key that exists.
fn taken(target: &[u8]) -> String {
    format!(
        "{} exists already; delete it first or pick another name",
        escape(target)
    )
}

/// The database answered whether `target`, the new name typed into the
/// rename prompt, exists in `ns` (`exists`): refuse it, or stage the
/// rename. An answer for a prompt no longer open, or for another name
/// than the one in it now, is dropped.
pub(super) fn rename_target_read(app: &mut App, ns: NsName, target: Vec<u8>, exists: bool) {
    let Mode::Prompt(PromptKind::RenameKey { key, value }, input) = app.mode.clone() else {
        return;
    };
    let typed = unescape(input.text()).ok();
    if ns != app.shown_ns() || typed.as_deref() != Some(&target[..]) {
        return;
    }
    if exists {
        app.complain(taken(&target));
        return;
    }
    app.mode = Mode::Normal;
    stage_rename(app, key, value, target);
}

/// The stored expiry of `key` (ms since the epoch), the key being
/// renamed: as its staged change read it, else as the value pane did.
fn source_expiry(app: &App, key: &[u8]) -> Option<u64> {
    match (app.staged_for(key), &app.value.loaded) {
        (Some(s), _) => s.old_expires_ms,
        (None, Some(l)) if l.key == key => l.expires_ms,
        _ => None,
    }
}

/// Stage renaming `key` (holding `value`) to `target`, a name that is free
/// or staged for deletion: a put of `target` and a delete of `key`.
fn stage_rename(app: &mut App, key: Vec<u8>, value: Vec<u8>, target: Vec<u8>) {
    let replaces = app
        .staged_for(&target)
        .is_some_and(|s| s.change.value.is_none());
    // The new key keeps the old one's lifetime: a staged one (`L`) if
    // there is one, else what is left of the stored one.
    let staged = app.staged_for(&key).map(|s| s.change.ttl);
    let expires_ms = source_expiry(app, &key);
    let ttl = match (staged, expires_ms) {
        (Some(ttl @ (NewTtl::After(_) | NewTtl::Never)), _) => ttl,
        (_, Some(at)) => NewTtl::After(Duration::from_millis(at.saturating_sub(app.now_ms).max(1))),
        (_, None) => NewTtl::Never,
    };
    stage(app, target.clone(), Some(value), ttl);
    stage(app, key.clone(), None, NewTtl::Keep);
    let note = if replaces {
        format!(" (replacing {}, staged for deletion)", escape(&target))
    } else {
        String::new()
    };
    app.say(format!(
        "staged renaming {} to {}{note}; {} staged, w to review and write",
        escape(&key),
        escape(&target),
        units::plural(app.staged.len() as u64, "change")
    ));
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

pub(super) fn stage(app: &mut App, key: Vec<u8>, value: Option<Vec<u8>>, ttl: NewTtl) {
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
    // A put of the stored value with its lifetime kept (or "never" for a
    // key that has none) changes nothing: nothing to stage (and a staged
    // change of the key goes away).
    let same_ttl = ttl == NewTtl::Keep || (ttl == NewTtl::Never && old_expires_ms.is_none());
    if same_ttl && value.is_some() && old == OldValue::Known(value.clone()) {
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
        if app.keys.list.contains(&key) != Some(true) {
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
