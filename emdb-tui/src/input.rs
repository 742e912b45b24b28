//! Terminal input bytes to crossterm [`Event`]s.
//!
//! emdb-tui reads the terminal itself rather than through crossterm's
//! reader: that one waits on an edge-triggered poll and reads 1 KiB per
//! wake-up, so the rest of a burst (a paste, a fast mouse wheel) stayed in
//! the terminal until more input came, while a level-triggered poll said
//! there was input: a busy loop, and keys acted on late. The host reads
//! every byte waiting and feeds it to a [`Decoder`], which yields every
//! event those bytes hold.
//!
//! The decoder knows what a terminal sends emdb-tui: characters (UTF-8),
//! control keys, `ESC`-prefixed Alt keys, the CSI and SS3 sequences of
//! arrows, Home/End, PgUp/PgDn, Insert/Delete, F1-F12 and S-Tab (with
//! xterm modifiers), and SGR (1006) and X10 mouse reports. Events are the
//! ones crossterm would give, so key bindings are unchanged.

use std::collections::VecDeque;

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

/// Bytes of one escape sequence at most; a longer one is garbage and is
/// dropped rather than held for ever.
const MAX_SEQUENCE: usize = 64;

/// Turns terminal input bytes into events, across reads: an escape
/// sequence cut between two reads is completed by the next one.
#[derive(Debug, Default)]
pub struct Decoder {
    /// Bytes of an event not complete yet.
    pending: Vec<u8>,
    /// Events decoded and not taken yet.
    events: VecDeque<Event>,
}

/// What the start of the pending bytes holds.
enum Parsed {
    /// An event (or nothing, for a sequence emdb-tui has no use for) from
    /// that many bytes.
    Done(Option<Event>, usize),
    /// The bytes so far start an event; more are needed.
    Incomplete,
}

impl Decoder {
    /// A decoder with nothing pending.
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// Decode `bytes`, read after the ones fed before.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        let mut start = 0;
        while start < self.pending.len() {
            match parse(&self.pending[start..]) {
                Parsed::Done(event, used) => {
                    self.events.extend(event);
                    start += used.max(1);
                }
                Parsed::Incomplete => {
                    if self.pending.len() - start > MAX_SEQUENCE {
                        start += 1;
                    } else {
                        break;
                    }
                }
            }
        }
        self.pending.drain(..start);
    }

    /// No more input came after an incomplete event: a lone `ESC` was the
    /// Esc key, `ESC` and a byte that starts a sequence an Alt key; any
    /// other part of a sequence is dropped.
    pub fn flush(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        match pending.as_slice() {
            [] => {}
            [0x1b] => self.events.push_back(key(KeyCode::Esc, KeyModifiers::NONE)),
            [0x1b, b] if b.is_ascii_graphic() => self
                .events
                .push_back(key(KeyCode::Char(char::from(*b)), KeyModifiers::ALT)),
            _ => {}
        }
    }

    /// The next decoded event.
    pub fn next_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Decoded events are waiting.
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// Bytes of an incomplete event are held (see [`Decoder::flush`]).
    pub fn is_partial(&self) -> bool {
        !self.pending.is_empty()
    }
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> Event {
    Event::Key(KeyEvent::new(code, modifiers))
}

/// The event at the start of `bytes` (not empty).
fn parse(bytes: &[u8]) -> Parsed {
    let none = KeyModifiers::NONE;
    match bytes[0] {
        0x1b => parse_escape(bytes),
        b'\r' => Parsed::Done(Some(key(KeyCode::Enter, none)), 1),
        b'\t' => Parsed::Done(Some(key(KeyCode::Tab, none)), 1),
        0x7f => Parsed::Done(Some(key(KeyCode::Backspace, none)), 1),
        0 => Parsed::Done(Some(key(KeyCode::Char(' '), KeyModifiers::CONTROL)), 1),
        c @ 0x01..=0x1a => Parsed::Done(
            Some(key(
                KeyCode::Char(char::from(c - 1 + b'a')),
                KeyModifiers::CONTROL,
            )),
            1,
        ),
        c @ 0x1c..=0x1f => Parsed::Done(
            Some(key(
                KeyCode::Char(char::from(c - 0x1c + b'4')),
                KeyModifiers::CONTROL,
            )),
            1,
        ),
        _ => match parse_char(bytes) {
            Some(Ok((c, used))) => Parsed::Done(Some(char_key(c, none)), used),
            // Not UTF-8: skip the byte.
            Some(Err(())) => Parsed::Done(None, 1),
            None => Parsed::Incomplete,
        },
    }
}

/// A character key, Shift added for a capital as crossterm does.
fn char_key(c: char, modifiers: KeyModifiers) -> Event {
    let modifiers = if c.is_uppercase() {
        modifiers | KeyModifiers::SHIFT
    } else {
        modifiers
    };
    key(KeyCode::Char(c), modifiers)
}

/// The UTF-8 character at the start of `bytes`: `None` when cut short,
/// `Err` when not UTF-8.
fn parse_char(bytes: &[u8]) -> Option<Result<(char, usize), ()>> {
    let len = match bytes[0] {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Some(Err(())),
    };
    if bytes.len() < len {
        // Cut short, unless what is there is already wrong.
        return match bytes[1..].iter().all(|b| b & 0xc0 == 0x80) {
            true => None,
            false => Some(Err(())),
        };
    }
    match std::str::from_utf8(&bytes[..len]) {
        Ok(s) => s.chars().next().map(|c| Ok((c, len))),
        Err(_) => Some(Err(())),
    }
}

fn parse_escape(bytes: &[u8]) -> Parsed {
    let Some(&second) = bytes.get(1) else {
        return Parsed::Incomplete;
    };
    match second {
        b'[' => parse_csi(bytes),
        b'O' => match bytes.get(2) {
            None => Parsed::Incomplete,
            Some(&c) => Parsed::Done(ss3(c).map(|k| key(k, KeyModifiers::NONE)), 3),
        },
        0x1b => Parsed::Done(Some(key(KeyCode::Esc, KeyModifiers::NONE)), 1),
        _ => match parse(&bytes[1..]) {
            Parsed::Incomplete => Parsed::Incomplete,
            Parsed::Done(Some(Event::Key(k)), used) => {
                Parsed::Done(Some(key(k.code, k.modifiers | KeyModifiers::ALT)), used + 1)
            }
            Parsed::Done(other, used) => Parsed::Done(other, used + 1),
        },
    }
}

/// The key of an SS3 (`ESC O x`) or parameterless CSI final byte.
fn ss3(c: u8) -> Option<KeyCode> {
    Some(match c {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'P' => KeyCode::F(1),
        b'Q' => KeyCode::F(2),
        b'R' => KeyCode::F(3),
        b'S' => KeyCode::F(4),
        _ => return None,
    })
}

/// xterm's modifier parameter (1 + Shift 1, Alt 2, Ctrl 4).
fn modifiers(param: Option<u16>) -> KeyModifiers {
    let bits = param.unwrap_or(1).saturating_sub(1);
    let mut m = KeyModifiers::NONE;
    if bits & 1 != 0 {
        m |= KeyModifiers::SHIFT;
    }
    if bits & 2 != 0 {
        m |= KeyModifiers::ALT;
    }
    if bits & 4 != 0 {
        m |= KeyModifiers::CONTROL;
    }
    m
}

fn parse_csi(bytes: &[u8]) -> Parsed {
    // X10 mouse: `ESC [ M` and three bytes.
    if bytes.get(2) == Some(&b'M') {
        let Some(&[b, x, y]) = bytes.get(3..6).and_then(|s| <&[u8; 3]>::try_from(s).ok()) else {
            return Parsed::Incomplete;
        };
        let event = mouse(
            u16::from(b.saturating_sub(32)),
            u16::from(x.saturating_sub(33)),
            u16::from(y.saturating_sub(33)),
            false,
        );
        return Parsed::Done(event, 6);
    }
    // Parameter and intermediate bytes, then the final one.
    let Some(end) = bytes[2..].iter().position(|b| (0x40..=0x7e).contains(b)) else {
        return if bytes[2..].iter().all(|b| (0x20..=0x3f).contains(b)) {
            Parsed::Incomplete
        } else {
            // Not a sequence: drop the introducer.
            Parsed::Done(None, 2)
        };
    };
    let used = 2 + end + 1;
    let body = &bytes[2..2 + end];
    let last = bytes[2 + end];
    if body.iter().any(|b| !(0x20..=0x3f).contains(b)) {
        return Parsed::Done(None, 2);
    }
    if let Some(rest) = body.strip_prefix(b"<") {
        let p = params(rest);
        let event = match (p.first(), p.get(1), p.get(2)) {
            (Some(&Some(b)), Some(&Some(x)), Some(&Some(y))) => {
                mouse(b, x.saturating_sub(1), y.saturating_sub(1), last == b'm')
            }
            _ => None,
        };
        return Parsed::Done(event, used);
    }
    if body
        .first()
        .is_some_and(|b| matches!(b, b'?' | b'>' | b'='))
    {
        // Replies to queries (keyboard flags, device attributes): unused.
        return Parsed::Done(None, used);
    }
    let p = params(body);
    let first = p.first().copied().flatten();
    let mods = modifiers(p.get(1).copied().flatten());
    let code = match last {
        b'Z' => {
            return Parsed::Done(
                Some(key(KeyCode::BackTab, KeyModifiers::SHIFT | mods)),
                used,
            )
        }
        b'~' => match first {
            Some(1 | 7) => Some(KeyCode::Home),
            Some(2) => Some(KeyCode::Insert),
            Some(3) => Some(KeyCode::Delete),
            Some(4 | 8) => Some(KeyCode::End),
            Some(5) => Some(KeyCode::PageUp),
            Some(6) => Some(KeyCode::PageDown),
            Some(n @ 11..=15) => Some(KeyCode::F((n - 10) as u8)),
            Some(n @ 17..=21) => Some(KeyCode::F((n - 11) as u8)),
            Some(n @ 23..=24) => Some(KeyCode::F((n - 12) as u8)),
            _ => None,
        },
        c => ss3(c),
    };
    Parsed::Done(code.map(|c| key(c, mods)), used)
}

/// `;`-separated numbers (`None` for an empty or bad one).
fn params(body: &[u8]) -> Vec<Option<u16>> {
    body.split(|&b| b == b';')
        .map(|p| std::str::from_utf8(p).ok().and_then(|s| s.parse().ok()))
        .collect()
}

/// A mouse report: button code `b` (xterm's), zero-based cell.
fn mouse(b: u16, column: u16, row: u16, release: bool) -> Option<Event> {
    let mut modifiers = KeyModifiers::NONE;
    if b & 4 != 0 {
        modifiers |= KeyModifiers::SHIFT;
    }
    if b & 8 != 0 {
        modifiers |= KeyModifiers::ALT;
    }
    if b & 16 != 0 {
        modifiers |= KeyModifiers::CONTROL;
    }
    let button = match b & 3 {
        0 => MouseButton::Left,
        1 => MouseButton::Middle,
        _ => MouseButton::Right,
    };
    let kind = if b & 64 != 0 {
        match b & 3 {
            0 => MouseEventKind::ScrollUp,
            1 => MouseEventKind::ScrollDown,
            2 => MouseEventKind::ScrollLeft,
            _ => MouseEventKind::ScrollRight,
        }
    } else if b & 32 != 0 {
        if b & 3 == 3 {
            MouseEventKind::Moved
        } else {
            MouseEventKind::Drag(button)
        }
    } else if release || b & 3 == 3 {
        MouseEventKind::Up(button)
    } else {
        MouseEventKind::Down(button)
    };
    Some(Event::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(d: &mut Decoder) -> Vec<Event> {
        std::iter::from_fn(|| d.next_event()).collect()
    }

    fn k(code: KeyCode) -> Event {
        key(code, KeyModifiers::NONE)
    }

    #[test]
    fn a_burst_of_3000_bytes_yields_every_event() {
        let mut d = Decoder::new();
        d.feed(&[b'y'; 3000]);
        let events = all(&mut d);
        assert_eq!(events.len(), 3000);
        assert!(events.iter().all(|e| *e == k(KeyCode::Char('y'))));
        assert!(!d.is_partial());
    }

    #[test]
    fn keys_and_sequences() {
        let mut d = Decoder::new();
        d.feed(
            b"a\r\t\x7f\x15\x1b[A\x1bOB\x1b[Z\x1b[1;5C\x1b[3~\x1b[5~\x1b[6~\x1b[H\x1b[4~Q\xc3\xa9",
        );
        assert_eq!(
            all(&mut d),
            vec![
                k(KeyCode::Char('a')),
                k(KeyCode::Enter),
                k(KeyCode::Tab),
                k(KeyCode::Backspace),
                key(KeyCode::Char('u'), KeyModifiers::CONTROL),
                k(KeyCode::Up),
                k(KeyCode::Down),
                key(KeyCode::BackTab, KeyModifiers::SHIFT),
                key(KeyCode::Right, KeyModifiers::CONTROL),
                k(KeyCode::Delete),
                k(KeyCode::PageUp),
                k(KeyCode::PageDown),
                k(KeyCode::Home),
                k(KeyCode::End),
                key(KeyCode::Char('Q'), KeyModifiers::SHIFT),
                k(KeyCode::Char('é')),
            ]
        );
    }

    #[test]
    fn a_sequence_cut_between_reads_is_completed() {
        let mut d = Decoder::new();
        d.feed(b"x\x1b[<65;1");
        assert_eq!(all(&mut d), vec![k(KeyCode::Char('x'))]);
        assert!(d.is_partial());
        d.feed(b"0;5M\xc3");
        d.feed(b"\xa9");
        let events = all(&mut d);
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(matches!(
            events[0],
            Event::Mouse(MouseEvent {
                kind: MouseEventKind::ScrollDown,
                column: 9,
                row: 4,
                ..
            })
        ));
        assert_eq!(events[1], k(KeyCode::Char('é')));
    }

    #[test]
    fn a_lone_escape_is_the_esc_key_once_nothing_follows() {
        let mut d = Decoder::new();
        d.feed(b"\x1b");
        assert!(!d.has_events());
        d.flush();
        assert_eq!(all(&mut d), vec![k(KeyCode::Esc)]);
        d.feed(b"\x1bj\x1b\x1b");
        d.flush();
        assert_eq!(
            all(&mut d),
            vec![
                key(KeyCode::Char('j'), KeyModifiers::ALT),
                k(KeyCode::Esc),
                k(KeyCode::Esc)
            ]
        );
    }

    #[test]
    fn wheel_bursts_and_clicks() {
        let mut d = Decoder::new();
        let burst = b"\x1b[<64;3;4M".repeat(500);
        d.feed(&burst);
        d.feed(b"\x1b[<0;7;8M\x1b[<0;7;8m");
        let events = all(&mut d);
        assert_eq!(events.len(), 502);
        assert!(matches!(
            events[500],
            Event::Mouse(MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column: 6,
                row: 7,
                ..
            })
        ));
    }

    #[test]
    fn garbage_is_skipped() {
        let mut d = Decoder::new();
        d.feed(b"\xff\x80a\x1b[?1;2ub");
        assert_eq!(
            all(&mut d),
            vec![k(KeyCode::Char('a')), k(KeyCode::Char('b'))]
        );
        d.feed(b"\x1b[");
        d.feed(&[b'1'; 100]);
        d.feed(b"c");
        assert!(all(&mut d).contains(&k(KeyCode::Char('c'))));
    }
}
