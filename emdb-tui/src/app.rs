//! The state of the whole UI. Only [`crate::update`] changes it; the `ui`
//! modules only read it (a `&App`, with nothing inside it that drawing
//! could change: the layout and the formatted value are made in `update`).

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use emdb_core::Stats;
use ratatui::layout::Rect;

use crate::history::History;
use crate::keylist::{KeyList, KeySet};
use crate::value_format::{Shown, ViewMode};
use crate::worker::{Change, JobError, NsName, Request, Response, Worker};

/// Tree delimiters offered by `T`, in order.
pub const DELIMITERS: &[u8] = b":./-";

/// The tree delimiter after `cur` in [`DELIMITERS`] (the first one after
/// the last, or for a delimiter not in the list).
pub fn next_delimiter(cur: u8) -> u8 {
    let i = DELIMITERS
        .iter()
        .position(|&d| d == cur)
        .map_or(0, |i| i + 1);
    DELIMITERS[i % DELIMITERS.len()]
}

/// Options fixed at start.
#[derive(Clone, Debug)]
pub struct Config {
    /// The database file.
    pub path: PathBuf,
    /// Opened with `--write`.
    pub writable: bool,
    /// How often stats are sampled.
    pub tick: Duration,
    /// Tree delimiter to start with.
    pub delimiter: u8,
    /// Start in the tree view.
    pub tree: bool,
    /// Namespace to open first (`None`: the default one).
    pub namespace: NsName,
}

impl Config {
    /// Read-only browsing of `path` with the default settings.
    pub fn new(path: impl Into<PathBuf>) -> Config {
        Config {
            path: path.into(),
            writable: false,
            tick: Duration::from_millis(250),
            delimiter: b':',
            tree: false,
            namespace: None,
        }
    }
}

/// The two tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    /// Namespaces, keys and a value.
    Browse,
    /// Live statistics.
    Dashboard,
}

/// The panes of the browser tab, left to right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    /// Namespace list.
    Namespaces,
    /// Key list.
    Keys,
    /// Value viewer.
    Value,
}

impl Pane {
    /// The pane to the right (wrapping).
    pub fn next(self) -> Pane {
        match self {
            Pane::Namespaces => Pane::Keys,
            Pane::Keys => Pane::Value,
            Pane::Value => Pane::Namespaces,
        }
    }

    /// The pane to the left (wrapping).
    pub fn prev(self) -> Pane {
        match self {
            Pane::Namespaces => Pane::Value,
            Pane::Keys => Pane::Namespaces,
            Pane::Value => Pane::Keys,
        }
    }
}

/// A one-line text input with a cursor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Input {
    text: String,
    /// Cursor position in characters.
    cursor: usize,
}

impl Input {
    /// An input holding `text`, cursor at the end.
    pub fn with_text(text: &str) -> Input {
        Input {
            text: text.to_string(),
            cursor: text.chars().count(),
        }
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor, in characters.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    fn byte_at(&self, chars: usize) -> usize {
        // Typing and pasting happen at the end: no walk over the text
        // there (a paste of 100,000 characters would walk it each time).
        if chars >= self.text.len() {
            return self.text.len();
        }
        self.text
            .char_indices()
            .nth(chars)
            .map_or(self.text.len(), |(i, _)| i)
    }

    /// Apply one edit.
    pub fn edit(&mut self, edit: crate::action::InputEdit) {
        use crate::action::InputEdit as E;
        // Counted only for the edits that need it (not for a paste's).
        let len = |text: &str| text.chars().count();
        match edit {
            E::Insert(c) => {
                let at = self.byte_at(self.cursor);
                self.text.insert(at, c);
                self.cursor += 1;
            }
            E::Backspace if self.cursor > 0 => {
                let at = self.byte_at(self.cursor - 1);
                self.text.remove(at);
                self.cursor -= 1;
            }
            E::Delete if self.cursor < len(&self.text) => {
                let at = self.byte_at(self.cursor);
                self.text.remove(at);
            }
            E::Left => self.cursor = self.cursor.saturating_sub(1),
            E::Right => self.cursor = (self.cursor + 1).min(len(&self.text)),
            E::Home => self.cursor = 0,
            E::End => self.cursor = len(&self.text),
            E::ClearToStart => {
                let at = self.byte_at(self.cursor);
                self.text.replace_range(..at, "");
                self.cursor = 0;
            }
            E::DeleteWord => {
                let chars: Vec<char> = self.text.chars().collect();
                let mut start = self.cursor;
                while start > 0 && chars[start - 1] == ' ' {
                    start -= 1;
                }
                while start > 0 && chars[start - 1] != ' ' {
                    start -= 1;
                }
                let (a, b) = (self.byte_at(start), self.byte_at(self.cursor));
                self.text.replace_range(a..b, "");
                self.cursor = start;
            }
            E::Backspace | E::Delete => {}
        }
    }
}

/// What a prompt asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PromptKind {
    /// The key of a new put.
    NewKey,
    /// The value of a new put.
    NewValue {
        /// Its key.
        key: Vec<u8>,
    },
    /// The time to live of a new put.
    NewTtl {
        /// Its key.
        key: Vec<u8>,
        /// Its value.
        value: Vec<u8>,
    },
    /// A new value for an existing key.
    EditValue {
        /// The key.
        key: Vec<u8>,
    },
    /// Text to look for inside values.
    FindInValues,
    /// The new name of a key.
    RenameKey {
        /// The key.
        key: Vec<u8>,
        /// Its value.
        value: Vec<u8>,
    },
    /// The name of a new namespace.
    NewNamespace,
    /// The file to export the listed keys to.
    ExportPath {
        /// How many keys.
        keys: usize,
    },
    /// A new time to live for an existing key, its value kept.
    EditTtl {
        /// The key.
        key: Vec<u8>,
        /// Its value (staged again unchanged).
        value: Vec<u8>,
    },
}

/// A question waiting for y/n.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Question {
    /// Stage deleting this key.
    Delete {
        /// The key.
        key: Vec<u8>,
    },
    /// Quit with staged changes.
    Quit,
    /// Drop this namespace and every key in it, at once.
    DropNamespace {
        /// Its name.
        name: String,
        /// Its keys, as last counted.
        keys: u64,
    },
}

/// What the keyboard is talking to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The panes.
    Normal,
    /// Typing the key filter.
    Filter(Input),
    /// The help overlay, scrolled this far.
    Help(usize),
    /// A text prompt.
    Prompt(PromptKind, Input),
    /// A y/n question.
    Confirm(Question),
    /// The diff of the staged changes, scrolled this far.
    Review(usize),
    /// The last message whole (see [`crate::ui::last_message`]), scrolled
    /// this far.
    Message(usize),
    /// An edit of the selected key (`e`, `E`, `R`, `L`) waiting for its
    /// value to be read: it opens then, and what was typed meanwhile goes
    /// into its prompt, never to the panes as commands.
    Awaiting(Awaiting),
}

/// An edit command waiting for a value (see [`Mode::Awaiting`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Awaiting {
    /// The command to run once the value is read.
    pub command: crate::action::Command,
    /// The key whose value it waits for.
    pub key: Vec<u8>,
    /// Prompt input typed while waiting, replayed into the prompt in order.
    pub typed: Vec<Typed>,
}

/// Prompt input kept while an edit waits for its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Typed {
    /// An edit of the prompt's text.
    Edit(crate::action::InputEdit),
    /// Enter.
    Submit,
}

/// Selection and scroll position of a list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListNav {
    /// Selected row.
    pub selected: usize,
    /// First visible row.
    pub offset: usize,
}

impl ListNav {
    /// Move the selection by `delta` rows within `len` rows, keeping it on
    /// screen in a window of `height` rows.
    pub fn step(&mut self, delta: isize, len: usize, height: usize) {
        let target = self.selected.saturating_add_signed(delta);
        self.select(target, len, height);
    }

    /// Select row `i` (clamped), keeping it on screen.
    pub fn select(&mut self, i: usize, len: usize, height: usize) {
        self.selected = i.min(len.saturating_sub(1));
        self.follow(len, height);
    }

    /// Adjust the offset so the selection is visible.
    pub fn follow(&mut self, len: usize, height: usize) {
        let height = height.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        self.offset = self.offset.min(len.saturating_sub(height));
    }
}

/// One namespace in the namespace pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NsItem {
    /// Its name (`None`: the default namespace).
    pub name: NsName,
    /// Unexpired keys (the engine's count less the expired keys it has not
    /// swept yet, as last counted).
    pub count: u64,
}

/// A key load in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loading {
    /// Its generation.
    pub generation: u64,
    /// Keys read so far.
    pub loaded: usize,
    /// When it started (ms since the epoch).
    pub started_ms: u64,
}

/// The keys pane.
#[derive(Debug, Default)]
pub struct KeysPane {
    /// The keys, filtered and arranged.
    pub list: KeyList,
    /// Selection and scroll.
    pub nav: ListNav,
    /// The namespace `list` holds; `None` until a first load arrives.
    pub ns: Option<NsName>,
    /// The load in flight.
    pub loading: Option<Loading>,
    /// Generation of the newest load requested.
    pub generation: u64,
    /// Generation of the load whose list is shown: chunk reads of a paged
    /// list carry it, so answers meant for the list a reload replaced are
    /// ignored (its chunks' ranges differ from the new list's).
    pub list_generation: u64,
    /// When the shown keys were loaded (ms since the epoch).
    pub loaded_ms: u64,
    /// How long that load took.
    pub took: Duration,
    /// The database changed since the keys were loaded.
    pub stale: bool,
    /// Log size when the shown keys were read (or followed up to).
    pub log_end: u64,
    /// A follow-up of the records since `log_end` is in flight.
    pub following: bool,
    /// A key to select once its chunk of a paged list is read.
    pub pending_select: Option<Vec<u8>>,
    /// A tree level still being counted, and the group to stand on once
    /// it shows (the one just left, going up): the answers so far may not
    /// have reached it yet.
    pub level_target: Option<(Vec<u8>, Vec<u8>)>,
    /// The view and order asked for of a list too big to hold while its
    /// scan runs (`s`, `x`, `t` pressed again act on these).
    pub wanted: Option<(crate::keylist::ListView, crate::keylist::SortBy)>,
    /// Compactions counted when the shown keys were read: after one, log
    /// offsets mean something else and the keys are read again.
    pub compactions: u64,
    /// When the next round of counts of changed chunks away from the
    /// screen may go out (ms since the epoch; see `update::page_keys`).
    pub recount_at_ms: u64,
}

/// A value read from the database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedValue {
    /// Its namespace.
    pub ns: NsName,
    /// Its key.
    pub key: Vec<u8>,
    /// The bytes, or `None` when the key is gone.
    pub value: Option<Vec<u8>>,
    /// Expiry (ms since the epoch).
    pub expires_ms: Option<u64>,
    /// Offset of its record in the log.
    pub offset: Option<u64>,
}

/// Formatted lines of the shown value, made once per value, view and width.
#[derive(Clone, Debug)]
pub struct Formatted {
    /// [`ValuePane::version`] it was made from.
    pub version: u64,
    /// [`App::staged_version`] it was made from.
    pub staged_version: u64,
    /// The view asked for.
    pub mode: ViewMode,
    /// Wrapping width.
    pub width: u16,
    /// The format used.
    pub shown: Shown,
    /// Why it differs from the one asked for.
    pub note: Option<&'static str>,
    /// Wrapped lines (empty for hex, which is made per visible line).
    pub lines: Vec<String>,
}

/// The value pane.
#[derive(Debug, Default)]
pub struct ValuePane {
    /// The key the pane should show.
    pub target: Option<Vec<u8>>,
    /// The newest value read for the selection.
    pub loaded: Option<LoadedValue>,
    /// Bumped whenever `loaded` changes, to invalidate `formatted`.
    pub version: u64,
    /// The view asked for.
    pub mode: ViewMode,
    /// First visible line.
    pub scroll: usize,
    /// The value formatted for the pane's width (made in `update`).
    pub formatted: Option<Formatted>,
    /// Display lines of the value at the pane's width, for scrolling
    /// limits (made in `update`).
    pub lines: usize,
    /// The shown key was there and another process deleted it.
    pub deleted_by_writer: bool,
    /// The key whose read for the pane failed, and why: shown instead of
    /// `loading…`, which no answer would ever end.
    pub failed: Option<(Vec<u8>, String)>,
}

/// The old value of a staged change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OldValue {
    /// Being read.
    Loading,
    /// Read: `None` when the key did not exist.
    Known(Option<Vec<u8>>),
}

/// A change waiting to be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Staged {
    /// The change.
    pub change: Change,
    /// What it replaces.
    pub old: OldValue,
    /// Expiry of the value it replaces (ms since the epoch), when known.
    pub old_expires_ms: Option<u64>,
}

/// A compaction in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compaction {
    /// When it started (ms since the epoch).
    pub started_ms: u64,
    /// Bytes the new file should reach (live bytes plus header).
    pub expected: u64,
    /// Bytes of the new file so far, when known.
    pub written: Option<u64>,
}

/// A line for the message bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The text.
    pub text: String,
    /// Shown in red.
    pub error: bool,
    /// When it was set (ms since the epoch).
    pub at_ms: u64,
}

/// Where the panes are, for the mouse and for page sizes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Areas {
    /// Namespace pane.
    pub namespaces: Rect,
    /// Key pane.
    pub keys: Rect,
    /// Value pane.
    pub value: Rect,
    /// Rows of keys visible.
    pub key_rows: u16,
    /// Rows of namespaces visible.
    pub ns_rows: u16,
    /// Lines of value visible.
    pub value_rows: u16,
}

/// Why the data shown is the file as it was, and since when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleView {
    /// What happened and what to do, one line.
    pub text: String,
    /// When it was first seen (ms since the epoch).
    pub since_ms: u64,
}

/// The result of a search inside values (`f`), stepped with `n` / `N`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// The namespace searched.
    pub ns: NsName,
    /// What was looked for, as typed.
    pub text: String,
    /// What is looked for (escapes decoded).
    pub needle: Vec<u8>,
    /// Case is ignored.
    pub ignore_case: bool,
    /// The window of the matches held, or asked for while `running`.
    pub window: crate::worker::FindWindow,
    /// Keys whose value holds it (a window of them in key order), sorted.
    pub keys: Vec<Vec<u8>>,
    /// Values read.
    pub scanned: usize,
    /// Values that hold it, in the whole namespace.
    pub matched: usize,
    /// Matches before `keys` in key order.
    pub skipped: usize,
    /// The hit selected last (an index into `keys`).
    pub at: Option<usize>,
    /// The search is still running.
    pub running: bool,
}

impl Found {
    /// Matches in key order after the keys held.
    pub fn more_after(&self) -> bool {
        self.skipped + self.keys.len() < self.matched
    }

    /// True when `key` is one of the hits.
    pub fn holds(&self, key: &[u8]) -> bool {
        self.keys
            .binary_search_by(|k| k.as_slice().cmp(key))
            .is_ok()
    }
}

/// A `$EDITOR` session the main loop should run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditorJob {
    /// The key being edited.
    pub key: Vec<u8>,
    /// The text to start from.
    pub initial: Vec<u8>,
}

/// Everything the UI knows.
pub struct App {
    /// Options.
    pub config: Config,
    /// The clock, advanced by ticks (ms since the epoch).
    pub now_ms: u64,
    /// The visible tab.
    pub tab: Tab,
    /// The focused pane of the browser.
    pub focus: Pane,
    /// The keyboard mode.
    pub mode: Mode,
    /// Namespaces with counts.
    pub namespaces: Vec<NsItem>,
    /// Namespace selection.
    pub ns_nav: ListNav,
    /// The key pane.
    pub keys: KeysPane,
    /// The value pane.
    pub value: ValuePane,
    /// The newest stats sample.
    pub stats: Option<Stats>,
    /// When it arrived (ms since the epoch).
    pub stats_ms: Option<u64>,
    /// The file can no longer be followed (read-only): what is shown is
    /// the file as it was.
    pub stale: Option<StaleView>,
    /// Whether the writer that published the counters still runs.
    pub writer_alive: Option<bool>,
    /// Rates over time.
    pub history: History,
    /// Staged changes, in staging order.
    pub staged: Vec<Staged>,
    /// Bumped whenever `staged` changes.
    pub staged_version: u64,
    /// A running compaction.
    pub compaction: Option<Compaction>,
    /// The message bar.
    pub message: Option<Message>,
    /// Where the panes are, from the terminal's size (made in `update`
    /// on [`crate::action::Action::Resize`]).
    pub areas: Areas,
    /// An external edit to run.
    pub editor: Option<EditorJob>,
    /// The last search inside values.
    pub found: Option<Found>,
    /// Bytes for the terminal's clipboard: the main loop hands them to the
    /// host (an OSC 52 sequence), which is output, not drawing.
    pub clipboard: Option<Vec<u8>>,
    /// Set when the UI should exit.
    pub quit: bool,
    /// Asked to quit while a compaction or an export runs: quit when they
    /// end (quitting at once would leave `<db>.compact.tmp` behind, or
    /// abandon the export).
    pub quit_pending: bool,
    /// Exports (`O`) asked for and not finished: quitting waits for them.
    pub exports: usize,
    /// How many times [`App::complain`] was called: the main loop drops
    /// the rest of an input burst when a key was refused, so keys typed
    /// ahead for what was refused never act as commands.
    pub refusals: u64,
    /// Something on screen changed since the last frame (set by
    /// [`crate::update::update`], taken by the main loop).
    pub redraw: bool,
    /// More terminal input is waiting (set by the main loop while it reads
    /// a burst): the scan for a changed filter waits for it, so a paste
    /// starts one scan for its whole text, not one per character.
    pub input_pending: bool,
    /// The id of each named namespace in the last stats sample: one that
    /// changes was dropped and created again (see
    /// [`emdb_core::Emdb::namespace_id`]).
    pub namespace_ids: Vec<(String, u32)>,
    /// Expired keys the engine still counts, per namespace (`""`: the
    /// default one), as last counted by the worker.
    pub expired: Vec<(String, u64)>,
    /// Suspend (Ctrl-Z): the loop gives the terminal back and stops.
    pub suspend: bool,
    /// The signal that ended the UI (SIGTERM, SIGHUP, ...), if one did.
    pub ended_by: Option<i32>,
    /// Log size when the shown value was read, to notice changes.
    pub(crate) value_log_end: u64,
    /// Stats requests sent and not answered yet.
    pub(crate) stats_pending: bool,
    /// Why the worker could not open the database (the UI then ends, and
    /// the caller reports it as a failed open).
    pub open_failed: Option<JobError>,
    /// A first page read before the worker had the database open, shown by
    /// [`App::start`] (see [`App::with_first_page`]).
    first_page: Option<(NsName, KeySet)>,
    worker: Worker,
}

impl App {
    /// On the way out: a compaction still running ends with the process (a
    /// second Ctrl-C, or a signal), so remove the new file it writes beside
    /// `db` while this process still holds the writer lock (call it before
    /// the app, and so its database handle, is dropped; the compaction's
    /// thread holds a handle too). No copy of the records is left behind.
    pub fn abandon_compaction(&self, db: &std::path::Path) {
        if self.compaction.is_some() && self.config.writable {
            let tmp = emdb_tools::database::beside_real(db, ".compact.tmp");
            let _ = std::fs::remove_file(tmp);
        }
    }

    /// A UI over `worker`'s database, starting at `now`. Call
    /// [`App::start`] to send the first requests.
    pub fn new(config: Config, worker: Worker, now: SystemTime) -> App {
        let mut keys = KeysPane {
            list: KeyList::new(KeySet::new(), config.delimiter),
            ..KeysPane::default()
        };
        if config.tree {
            keys.list.set_view(crate::keylist::ListView::Tree);
        }
        let namespaces = vec![NsItem {
            name: config.namespace.clone(),
            count: 0,
        }];
        App {
            now_ms: crate::worker::unix_ms(now),
            tab: Tab::Browse,
            focus: Pane::Keys,
            mode: Mode::Normal,
            namespaces,
            ns_nav: ListNav::default(),
            keys,
            value: ValuePane::default(),
            stats: None,
            stats_ms: None,
            stale: None,
            writer_alive: None,
            history: History::default(),
            staged: Vec::new(),
            staged_version: 0,
            compaction: None,
            message: None,
            areas: Areas::default(),
            editor: None,
            found: None,
            clipboard: None,
            quit: false,
            quit_pending: false,
            exports: 0,
            refusals: 0,
            redraw: true,
            input_pending: false,
            expired: Vec::new(),
            namespace_ids: Vec::new(),
            suspend: false,
            ended_by: None,
            value_log_end: 0,
            stats_pending: false,
            open_failed: None,
            first_page: None,
            worker,
            config,
        }
    }

    /// Show `set`, the first keys of `ns` in key order (a one-shot read's,
    /// `crate::database::first_page`), as soon as the UI starts, while
    /// the worker opens the database and reads the whole list. It stands
    /// as the list's first chunk does (flat view by key only): the whole
    /// answer replaces it.
    pub fn with_first_page(mut self, ns: NsName, set: KeySet) -> App {
        self.first_page = Some((ns, set));
        self
    }

    /// Ask for the first stats and keys.
    pub fn start(&mut self) {
        // Keys first: the worker starts their scan on its own thread
        // before it serves the first stats sample, which counts every
        // namespace's unexpired keys (tens of ms at a million keys).
        let ns = self.config.namespace.clone();
        self.load_keys(ns);
        if let Some((ns, set)) = self.first_page.take() {
            let first = Response::KeysFirst {
                generation: self.keys.generation,
                ns,
                filter: String::new(),
                set,
            };
            crate::update::update(self, crate::action::Action::Worker(Box::new(first)));
        }
        self.request(Request::Stats);
        self.stats_pending = true;
    }

    /// Send a request to the worker.
    pub fn request(&mut self, req: Request) {
        self.worker.send(req);
    }

    /// How the worker pages key lists.
    pub fn worker_paging(&self) -> crate::worker::Paging {
        self.worker.paging()
    }

    /// The next worker response, if any.
    pub fn poll_worker(&mut self) -> Option<crate::worker::Response> {
        self.worker.try_recv()
    }

    /// Start loading the keys of `ns` (replacing any load in flight).
    pub fn load_keys(&mut self, ns: NsName) {
        self.keys.generation += 1;
        self.keys.stale = false;
        let generation = self.keys.generation;
        self.keys.loading = Some(Loading {
            generation,
            loaded: 0,
            started_ms: self.now_ms,
        });
        // A list that holds every key is read whole again (it filters
        // itself); a paged one, or one holding a filter's matches, scans
        // for the filter typed now. Another namespace starts without one.
        let filter = if self.keys.ns.as_ref() == Some(&ns) && !self.keys.list.holds_all() {
            self.keys.list.filter().to_string()
        } else {
            String::new()
        };
        self.request(Request::LoadKeys {
            ns,
            generation,
            filter,
        });
    }

    /// The namespace selected in the namespace pane.
    pub fn selected_ns(&self) -> NsName {
        self.namespaces
            .get(self.ns_nav.selected)
            .and_then(|n| n.name.clone())
    }

    /// The namespace whose keys are shown (or being loaded first).
    pub fn shown_ns(&self) -> NsName {
        match &self.keys.ns {
            Some(ns) => ns.clone(),
            None => self.selected_ns(),
        }
    }

    /// The key of the selected row, when it is a key.
    pub fn selected_key(&self) -> Option<&[u8]> {
        self.keys.list.key_at(self.keys.nav.selected)
    }

    /// The staged change of `key` in the shown namespace.
    pub fn staged_for(&self, key: &[u8]) -> Option<&Staged> {
        let ns = self.shown_ns();
        self.staged
            .iter()
            .find(|s| s.change.key == key && s.change.ns == ns)
    }

    /// Expired keys namespace `name` (`""`: the default one) still counts.
    pub fn expired_in(&self, name: &str) -> u64 {
        self.expired
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, e)| *e)
    }

    /// Unexpired keys in the database.
    pub fn live_keys(&self) -> Option<u64> {
        let s = self.stats.as_ref()?;
        let expired: u64 = self.expired.iter().map(|(_, e)| e).sum();
        Some(s.live_records.saturating_sub(expired))
    }

    /// Set the message bar.
    pub fn say(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: false,
            at_ms: self.now_ms,
        });
    }

    /// Set the message bar to an error.
    pub fn complain(&mut self, text: impl Into<String>) {
        self.refusals += 1;
        self.message = Some(Message {
            text: text.into(),
            error: true,
            at_ms: self.now_ms,
        });
    }
}
