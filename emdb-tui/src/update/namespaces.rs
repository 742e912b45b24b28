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
