//! Messages: everything that can change the state, from keys, the mouse,
//! the clock or the worker. [`crate::update::update`] applies them.

use std::time::SystemTime;

use crate::worker::Response;

/// Commands a key can be bound to (see [`crate::keymap`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Leave (asks first when edits are staged).
    Quit,
    /// Show or hide the key help.
    Help,
    /// Show the last message whole, wrapped in a popup (the message line
    /// cuts a long one at the window's width).
    LastMessage,
    /// Switch to the browser.
    BrowseTab,
    /// Switch to the dashboard.
    DashboardTab,
    /// Focus the next pane.
    FocusNext,
    /// Focus the previous pane.
    FocusPrev,
    /// Move the selection (or scroll) up one line.
    Up,
    /// Move the selection (or scroll) down one line.
    Down,
    /// Up one page.
    PageUp,
    /// Down one page.
    PageDown,
    /// To the first line.
    Top,
    /// To the last line.
    Bottom,
    /// Close a group, or go to the pane on the left.
    Left,
    /// Open a group, or go to the pane on the right.
    Right,
    /// Open: a namespace's keys, a group, a key's value.
    Enter,
    /// Start typing a filter.
    Filter,
    /// Clear the filter.
    ClearFilter,
    /// Tree grouping on or off.
    ToggleTree,
    /// Next tree delimiter.
    NextDelimiter,
    /// "Expiring soon" view on or off.
    ToggleExpiring,
    /// Next value view (auto, text, JSON, hex).
    NextView,
    /// Next order of the flat list: key, size (biggest first), expiry.
    Sort,
    /// Look for text inside the values of the shown namespace.
    FindInValues,
    /// Select the next key whose value holds what was found.
    NextFound,
    /// Select the previous key whose value holds what was found.
    PrevFound,
    /// Export the listed keys with their values to a file.
    Export,
    /// Copy the selected key to the terminal's clipboard (OSC 52).
    CopyKey,
    /// Copy the selected value to the terminal's clipboard (OSC 52).
    CopyValue,
    /// Catch up with the writer and reload the keys now.
    Refresh,
    /// Stage a new key.
    Put,
    /// Edit the selected value in a one-line prompt.
    Edit,
    /// Edit the selected value in `$EDITOR`.
    EditExternal,
    /// Stage deleting the selected key (asks first).
    Delete,
    /// Drop the staged change of the selected key.
    Unstage,
    /// Stage a new time to live (or none) for the selected key, value kept.
    EditTtl,
    /// Stage renaming the selected key (a put of the new key and a delete
    /// of the old one, written together).
    Rename,
    /// Create a namespace (asks for its name; written at once).
    CreateNamespace,
    /// Drop the namespace selected in the namespace pane (asks; at once).
    DropNamespace,
    /// Show the staged changes as a diff and offer to write them.
    Review,
    /// Flush the database.
    Flush,
    /// Compact the database.
    Compact,
}

/// Editing a one-line text input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputEdit {
    /// Insert a character at the cursor.
    Insert(char),
    /// Delete the character before the cursor.
    Backspace,
    /// Delete the character under the cursor.
    Delete,
    /// Cursor one left.
    Left,
    /// Cursor one right.
    Right,
    /// Cursor to the start.
    Home,
    /// Cursor to the end.
    End,
    /// Delete everything before the cursor.
    ClearToStart,
    /// Delete the word before the cursor.
    DeleteWord,
}

/// One message for [`crate::update::update`].
#[derive(Debug)]
pub enum Action {
    /// A key-bound command.
    Command(Command),
    /// Edit the text of the filter or prompt being typed.
    Input(InputEdit),
    /// Accept the filter or prompt (Enter), or answer yes to a question.
    Submit,
    /// Close the filter, prompt, question or overlay (Esc), or answer no.
    Cancel,
    /// Discard every staged change (in the review).
    DiscardStaged,
    /// Mouse wheel over the cell at (column, row): positive is down.
    Scroll {
        /// Column.
        column: u16,
        /// Row.
        row: u16,
        /// Lines, positive down.
        lines: i32,
    },
    /// Mouse click at (column, row).
    Click {
        /// Column.
        column: u16,
        /// Row.
        row: u16,
    },
    /// The terminal is this many columns and rows (at start and after
    /// every resize): the pane layout is computed from it here, in
    /// `update`, so drawing only reads the state.
    Resize {
        /// Columns.
        width: u16,
        /// Rows.
        height: u16,
    },
    /// Time passed; the clock reads this.
    Tick(SystemTime),
    /// The worker answered.
    Worker(Box<Response>),
    /// `$EDITOR` finished.
    Edited {
        /// What was edited.
        job: crate::app::EditorJob,
        /// The edited bytes, or why the editor failed.
        result: Result<Vec<u8>, String>,
    },
    /// Ctrl-C: quit at once when nothing is staged; with staged edits ask
    /// first, and quit when it is pressed again while asking.
    Interrupt,
    /// Ctrl-Z: give the terminal back and stop until `fg`.
    Suspend,
}
