//! Terminal input to [`Action`]s, depending on the mode.

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEventKind,
};

use crate::action::{Action, Command, InputEdit};
use crate::app::{App, Mode, Tab};
use crate::keymap;

/// The action for one terminal event, if it means anything now.
pub fn to_action(event: &Event, app: &App) -> Option<Action> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => key_action(key, app),
        Event::Mouse(m) => match m.kind {
            MouseEventKind::ScrollDown => Some(Action::Scroll {
                column: m.column,
                row: m.row,
                lines: 1,
            }),
            MouseEventKind::ScrollUp => Some(Action::Scroll {
                column: m.column,
                row: m.row,
                lines: -1,
            }),
            MouseEventKind::Down(MouseButton::Left) => Some(Action::Click {
                column: m.column,
                row: m.row,
            }),
            _ => None,
        },
        Event::Resize(width, height) => Some(Action::Resize {
            width: *width,
            height: *height,
        }),
        _ => None,
    }
}

fn key_action(key: &KeyEvent, app: &App) -> Option<Action> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        return Some(Action::Interrupt);
    }
    if ctrl && key.code == KeyCode::Char('z') {
        return Some(Action::Suspend);
    }
    let browse = app.tab == Tab::Browse;
    match &app.mode {
        Mode::Normal => keymap::lookup(key, browse).map(Action::Command),
        Mode::Filter(_) => text_key(key, true),
        // Typed ahead of a prompt that opens once a value is read.
        Mode::Prompt(..) | Mode::Awaiting(_) => text_key(key, false),
        Mode::Confirm(_) => match key.code {
            KeyCode::Char('y' | 'Y') | KeyCode::Enter => Some(Action::Submit),
            KeyCode::Char('n' | 'N') | KeyCode::Esc => Some(Action::Cancel),
            _ => None,
        },
        // q closes the help, as in lazygit and k9s, rather than quitting.
        Mode::Help(_) => match key.code {
            KeyCode::Esc | KeyCode::Char('q') => Some(Action::Cancel),
            KeyCode::Enter => Some(Action::Submit),
            _ => keymap::lookup(key, true).map(Action::Command),
        },
        // As the help: q closes it.
        Mode::Message(_) => match key.code {
            KeyCode::Esc | KeyCode::Char('q') => Some(Action::Cancel),
            KeyCode::Enter => Some(Action::Submit),
            _ => keymap::lookup(key, true).map(Action::Command),
        },
        Mode::Review(_) => match key.code {
            KeyCode::Esc | KeyCode::Char('n') => Some(Action::Cancel),
            KeyCode::Enter | KeyCode::Char('y') => Some(Action::Submit),
            KeyCode::Char('X') => Some(Action::DiscardStaged),
            _ => keymap::lookup(key, true).map(Action::Command),
        },
    }
}

/// Keys of a one-line text input. `filter`: arrows move the key selection.
fn text_key(key: &KeyEvent, filter: bool) -> Option<Action> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let edit = |e| Some(Action::Input(e));
    match key.code {
        KeyCode::Enter => Some(Action::Submit),
        KeyCode::Esc => Some(Action::Cancel),
        KeyCode::Backspace => edit(InputEdit::Backspace),
        KeyCode::Delete => edit(InputEdit::Delete),
        KeyCode::Left => edit(InputEdit::Left),
        KeyCode::Right => edit(InputEdit::Right),
        KeyCode::Home => edit(InputEdit::Home),
        KeyCode::End => edit(InputEdit::End),
        KeyCode::Char('u') if ctrl => edit(InputEdit::ClearToStart),
        KeyCode::Char('w') if ctrl => edit(InputEdit::DeleteWord),
        KeyCode::Char('a') if ctrl => edit(InputEdit::Home),
        KeyCode::Char('e') if ctrl => edit(InputEdit::End),
        KeyCode::Char('h') if ctrl => edit(InputEdit::Backspace),
        KeyCode::Char(c) if !ctrl && !alt => edit(InputEdit::Insert(c)),
        KeyCode::Up if filter => Some(Action::Command(Command::Up)),
        KeyCode::Down if filter => Some(Action::Command(Command::Down)),
        KeyCode::PageUp if filter => Some(Action::Command(Command::PageUp)),
        KeyCode::PageDown if filter => Some(Action::Command(Command::PageDown)),
        _ => None,
    }
}
