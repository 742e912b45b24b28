//! The key bindings, in one table: input handling looks keys up here and
//! the help overlay (and docs/TUI.md) lists the same table.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::action::Command;

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// On every tab.
    Global,
    /// On the browser tab.
    Browse,
    /// On the browser tab, with `--write`.
    Write,
}

impl Context {
    /// Heading in the help overlay.
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Anywhere",
            Context::Browse => "Browse",
            Context::Write => "Edit (with --write)",
        }
    }
}

/// A key with its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// Ctrl, Alt (Shift is ignored for characters).
    pub mods: KeyModifiers,
}

const fn k(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::NONE,
    }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
    }
}

const fn code(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::NONE,
    }
}

/// One binding.
#[derive(Debug)]
pub struct Binding {
    /// The keys, any of which triggers it.
    pub keys: &'static [Key],
    /// The keys as the help shows them.
    pub label: &'static str,
    /// What it does.
    pub help: &'static str,
    /// The command.
    pub command: Command,
    /// Where it applies.
    pub context: Context,
}

const fn bind(
    context: Context,
    keys: &'static [Key],
    label: &'static str,
    command: Command,
    help: &'static str,
) -> Binding {
    Binding {
        keys,
        label,
        help,
        command,
        context,
    }
}

use Context::{Browse, Global, Write};

/// Every binding of the normal mode, in help order.
pub const BINDINGS: &[Binding] = &[
    bind(
        Global,
        &[k('q')],
        "q",
        Command::Quit,
        "quit (asks if edits are staged)",
    ),
    bind(Global, &[k('?')], "?", Command::Help, "this help"),
    bind(
        Global,
        &[k('m')],
        "m",
        Command::LastMessage,
        "the last message, whole",
    ),
    bind(Global, &[k('1')], "1", Command::BrowseTab, "browser tab"),
    bind(
        Global,
        &[k('2')],
        "2",
        Command::DashboardTab,
        "dashboard tab",
    ),
    bind(
        Global,
        &[k('r')],
        "r",
        Command::Refresh,
        "catch up with the writer now",
    ),
    bind(
        Browse,
        &[k('j'), code(KeyCode::Down)],
        "j ↓",
        Command::Down,
        "down",
    ),
    bind(
        Browse,
        &[k('k'), code(KeyCode::Up)],
        "k ↑",
        Command::Up,
        "up",
    ),
    bind(
        Browse,
        &[k('h'), code(KeyCode::Left)],
        "h ←",
        Command::Left,
        "close group / left pane",
    ),
    bind(
        Browse,
        &[k('l'), code(KeyCode::Right)],
        "l →",
        Command::Right,
        "open group / right pane",
    ),
    bind(
        Browse,
        &[code(KeyCode::Tab)],
        "Tab",
        Command::FocusNext,
        "next pane",
    ),
    bind(
        Browse,
        &[code(KeyCode::BackTab)],
        "S-Tab",
        Command::FocusPrev,
        "previous pane",
    ),
    bind(
        Browse,
        &[code(KeyCode::Enter)],
        "Enter",
        Command::Enter,
        "open namespace / group / value",
    ),
    bind(
        Browse,
        &[code(KeyCode::PageDown), ctrl('f'), ctrl('d')],
        "PgDn C-f C-d",
        Command::PageDown,
        "page down",
    ),
    bind(
        Browse,
        &[code(KeyCode::PageUp), ctrl('b'), ctrl('u')],
        "PgUp C-b C-u",
        Command::PageUp,
        "page up",
    ),
    bind(
        Browse,
        &[k('g'), code(KeyCode::Home)],
        "g Home",
        Command::Top,
        "first line",
    ),
    bind(
        Browse,
        &[k('G'), code(KeyCode::End)],
        "G End",
        Command::Bottom,
        "last line",
    ),
    bind(
        Browse,
        &[k('/')],
        "/",
        Command::Filter,
        "filter as you type (^ = prefix)",
    ),
    bind(
        Browse,
        &[code(KeyCode::Esc)],
        "Esc",
        Command::ClearFilter,
        "clear the filter",
    ),
    bind(
        Browse,
        &[k('t')],
        "t",
        Command::ToggleTree,
        "tree grouping on/off",
    ),
    bind(
        Browse,
        &[k('T')],
        "T",
        Command::NextDelimiter,
        "tree delimiter : . / -",
    ),
    bind(
        Browse,
        &[k('x')],
        "x",
        Command::ToggleExpiring,
        "expiring-soon view on/off",
    ),
    bind(
        Browse,
        &[k('v')],
        "v",
        Command::NextView,
        "value view: auto text json hex",
    ),
    bind(
        Browse,
        &[k('s')],
        "s",
        Command::Sort,
        "sort: key, size (biggest), ttl",
    ),
    bind(
        Browse,
        &[k('f')],
        "f",
        Command::FindInValues,
        "find text inside values",
    ),
    bind(
        Browse,
        &[k('n')],
        "n",
        Command::NextFound,
        "next key found (N previous)",
    ),
    bind(
        Browse,
        &[k('N')],
        "N",
        Command::PrevFound,
        "previous key found",
    ),
    bind(
        Browse,
        &[k('y')],
        "y",
        Command::CopyKey,
        "copy the key (OSC 52)",
    ),
    bind(
        Browse,
        &[k('Y')],
        "Y",
        Command::CopyValue,
        "copy the value (OSC 52)",
    ),
    bind(
        Browse,
        &[k('O')],
        "O",
        Command::Export,
        "export the listed keys (.jsonl .csv)",
    ),
    bind(Write, &[k('a')], "a", Command::Put, "put a new key"),
    bind(
        Write,
        &[k('e')],
        "e",
        Command::Edit,
        "edit the value inline",
    ),
    bind(
        Write,
        &[k('E')],
        "E",
        Command::EditExternal,
        "edit the value in $EDITOR",
    ),
    bind(
        Write,
        &[k('d')],
        "d",
        Command::Delete,
        "delete the key (asks)",
    ),
    bind(
        Write,
        &[k('L')],
        "L",
        Command::EditTtl,
        "set the time to live (value kept)",
    ),
    bind(Write, &[k('R')], "R", Command::Rename, "rename the key"),
    bind(
        Write,
        &[k('A')],
        "A",
        Command::CreateNamespace,
        "add a namespace (at once)",
    ),
    bind(
        Write,
        &[k('D')],
        "D",
        Command::DropNamespace,
        "drop the namespace (asks; at once)",
    ),
    bind(
        Write,
        &[k('u')],
        "u",
        Command::Unstage,
        "unstage the key's change",
    ),
    bind(
        Write,
        &[k('w')],
        "w",
        Command::Review,
        "review the diff, then write",
    ),
    bind(Write, &[k('F')], "F", Command::Flush, "flush to disk"),
    bind(Write, &[k('C')], "C", Command::Compact, "compact the log"),
];

/// Keys of text inputs (filter and prompts), for the help.
pub const INPUT_KEYS: &[(&str, &str)] = &[
    ("Enter", "accept (filter: keep it)"),
    ("Esc", "cancel (filter: clear it)"),
    ("← → Home End", "move the cursor"),
    ("C-u C-w", "delete to start / word"),
    ("↑ ↓", "move the selection"),
    ("\\n \\t \\xNN \\\\", "escapes for any byte"),
];

/// Other keys, for the help.
pub const OTHER_KEYS: &[(&str, &str)] = &[
    ("C-c", "quit (asks if staged; twice quits)"),
    ("C-z", "suspend (fg resumes)"),
    ("y n", "answer (Enter yes, Esc no)"),
    ("X", "review: discard all staged"),
    ("wheel", "scroll the pane under it"),
    ("click", "focus a pane, select a line"),
];

/// Where the user is, for the key bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The namespace pane.
    Namespaces,
    /// The key pane.
    Keys,
    /// The value pane.
    Value,
    /// The dashboard tab.
    Dashboard,
}

/// The keys most used at `place`, as (keys, what) pairs, for the one-line
/// key bar at the bottom (lazygit's "options" line); `?` lists them all.
pub fn key_bar(place: Place, writable: bool, staged: bool) -> Vec<(&'static str, &'static str)> {
    let mut bar: Vec<(&str, &str)> = match place {
        Place::Namespaces => vec![("j k", "move"), ("Enter", "open"), ("Tab", "keys")],
        Place::Keys => vec![
            ("/", "filter"),
            ("f n", "find in values"),
            ("s", "sort"),
            ("t", "tree"),
            ("x", "expiring"),
            ("y Y", "copy key/value"),
        ],
        Place::Value => vec![("j k", "scroll"), ("v", "view"), ("y Y", "copy key/value")],
        Place::Dashboard => vec![("1", "browse"), ("r", "catch up")],
    };
    if writable && matches!(place, Place::Keys | Place::Value) {
        bar.extend([("a", "put"), ("e", "edit"), ("L", "ttl"), ("d", "delete")]);
    }
    if staged {
        bar.push(("w", "review"));
    }
    bar.push(("?", "more"));
    bar
}

/// The command bound to `key` in `context` (or a wider context).
pub fn lookup(key: &KeyEvent, browse: bool) -> Option<Command> {
    // Shift is part of these keys: `?` and S-Tab (`\e[Z`, which crossterm
    // reports as BackTab with SHIFT) carry it.
    let mods = match key.code {
        KeyCode::Char(_) | KeyCode::BackTab => key.modifiers - KeyModifiers::SHIFT,
        _ => key.modifiers,
    };
    BINDINGS
        .iter()
        .filter(|b| browse || b.context == Context::Global)
        .find(|b| b.keys.iter().any(|k| k.code == key.code && k.mods == mods))
        .map(|b| b.command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice() {
        let mut seen = Vec::new();
        for b in BINDINGS {
            for k in b.keys {
                assert!(!seen.contains(k), "{k:?} bound twice");
                seen.push(*k);
            }
        }
    }

    #[test]
    fn shift_is_ignored_for_characters() {
        let ev = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(lookup(&ev, true), Some(Command::Bottom));
        let ev = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL);
        assert_eq!(lookup(&ev, true), Some(Command::PageDown));
        let ev = KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE);
        assert_eq!(lookup(&ev, false), None);
    }
}
