//! The namespace pane: selecting one, counts, a namespace that went away.

#[allow(unused_imports)]
use super::*;

pub(super) fn namespace_selected(app: &mut App) {
    let ns = app.selected_ns();
    if app.keys.ns.as_ref() != Some(&ns) {
        app.load_keys(ns);
    }
}

pub(super) fn update_namespaces(app: &mut App, counts: &[(String, u64)]) {
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
pub(super) fn namespace_gone(app: &mut App, name: String) {
    let who = if app.config.writable {
        "dropped"
    } else {
        "dropped by the writer"
    };
    app.complain(format!(
        "namespace {} {who}; showing (default)",
        escape_str(&name)
    ));
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

/// Note the namespaces' ids of a stats sample: the namespace shown with a
/// new id was dropped and created again since the last sample (between
/// two follows, say, "clear, then fill again"), and the keys listed are
/// the old namespace's, which no follow of the new one removes. Say so
/// and read its keys again.
pub(super) fn namespace_ids_seen(app: &mut App, ids: Vec<(String, u32)>) {
    let id_in =
        |ids: &[(String, u32)], name: &str| ids.iter().find(|(n, _)| n == name).map(|(_, id)| *id);
    let shown = app.keys.ns.clone().flatten();
    let recreated = shown.filter(|name| {
        let (was, is) = (id_in(&app.namespace_ids, name), id_in(&ids, name));
        matches!((was, is), (Some(a), Some(b)) if a != b)
    });
    app.namespace_ids = ids;
    let Some(name) = recreated else {
        return;
    };
    let who = if app.config.writable {
        "dropped and created again"
    } else {
        "dropped and created again by the writer"
    };
    app.complain(format!(
        "namespace {} {who}; its keys are read again",
        escape_str(&name)
    ));
    // As for another namespace: a new list from the top (no key of the
    // old one is "deleted by the writer"), the old value gone.
    app.keys.ns = None;
    app.value.target = None;
    app.value.loaded = None;
    app.load_keys(Some(name));
}
