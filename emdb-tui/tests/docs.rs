//! docs/TUI.md lists every key binding exactly as the help overlay does.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use emdb_tui::keymap::{BINDINGS, INPUT_KEYS, OTHER_KEYS};

#[test]
fn the_key_map_in_the_docs_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/TUI.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let rows = BINDINGS
        .iter()
        .map(|b| (b.label, b.help))
        .chain(INPUT_KEYS.iter().copied())
        .chain(OTHER_KEYS.iter().copied());
    for (keys, help) in rows {
        let row = format!("| `{keys}` | {help} |");
        assert!(
            doc.contains(&row),
            "docs/TUI.md lacks the key map row {row}"
        );
    }
}
