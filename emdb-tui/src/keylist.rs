//! The key list model: the keys of a namespace (every key, or the matches
//! of a filter the worker scanned for), sorted, with the filter, the tree
//! grouping and the "expiring soon" view applied; or, past
//! [`crate::worker::WHOLE_LIMIT`] keys, pages of them (see
//! [`crate::pages`]).
//!
//! Built for a million keys: keys live in one byte arena, a filter narrows
//! the previous result while the user keeps typing (and steps back to a
//! cached result on backspace), a prefix filter is a binary search, and tree
//! groups are ranges of the sorted list, found by binary search too.

use std::collections::HashSet;
use std::ops::Range;

use crate::escape::unescape;
use crate::pages::{ChunkWant, Pages};

/// One key's place in the arena, with its value size and expiry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyEntry {
    off: u64,
    len: u32,
    /// Value size in bytes.
    pub size: u32,
    /// Expiry in ms since the Unix epoch, 0 when the key never expires.
    pub expires_ms: u64,
}

/// Every key of one namespace, sorted by key bytes.
#[derive(Clone, Debug, Default)]
pub struct KeySet {
    bytes: Vec<u8>,
    entries: Vec<KeyEntry>,
    /// Arena bytes of removed keys, reclaimed when they reach half of it.
    garbage: usize,
    /// Sum of the value sizes, kept as keys come and go.
    value_bytes: u64,
}

/// A change to one key of a [`KeySet`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyChange {
    /// The key exists with this value size and expiry (0: none).
    Upsert {
        /// The key.
        key: Vec<u8>,
        /// Value size in bytes.
        size: u64,
        /// Expiry in ms since the Unix epoch, 0 for none.
        expires_ms: u64,
    },
    /// The key is gone.
    Remove(Vec<u8>),
}

impl KeyChange {
    fn key(&self) -> &[u8] {
        match self {
            KeyChange::Upsert { key, .. } | KeyChange::Remove(key) => key,
        }
    }
}

impl KeySet {
    /// An empty set to fill with [`KeySet::push`] and finish with [`KeySet::sort`].
    pub fn new() -> KeySet {
        KeySet::default()
    }

    /// Add a key (in any order).
    pub fn push(&mut self, key: &[u8], size: u64, expires_ms: u64) {
        self.value_bytes += u64::from(u32::try_from(size).unwrap_or(u32::MAX));
        self.entries.push(KeyEntry {
            off: self.bytes.len() as u64,
            len: u32::try_from(key.len()).unwrap_or(u32::MAX),
            size: u32::try_from(size).unwrap_or(u32::MAX),
            expires_ms,
        });
        self.bytes.extend_from_slice(key);
    }

    /// Sort by key bytes; call once after the last push.
    pub fn sort(&mut self) {
        let bytes = &self.bytes;
        self.entries
            .sort_unstable_by(|a, b| slice(bytes, a).cmp(slice(bytes, b)));
        // Lay the arena out in sorted order too: a filter then reads it
        // front to back instead of jumping around it (a cache miss per key).
        self.relayout();
    }

    /// A sorted set of `keys` (size 0, no expiry), for tests and examples.
    pub fn from_keys<K: AsRef<[u8]>>(keys: impl IntoIterator<Item = K>) -> KeySet {
        let mut set = KeySet::new();
        for k in keys {
            set.push(k.as_ref(), 0, 0);
        }
        set.sort();
        set
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no keys.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Key number `i` in sorted order.
    pub fn key(&self, i: usize) -> &[u8] {
        self.entries
            .get(i)
            .map_or(&[][..], |e| slice(&self.bytes, e))
    }

    /// Size and expiry of key number `i`.
    pub fn entry(&self, i: usize) -> Option<&KeyEntry> {
        self.entries.get(i)
    }

    /// Position of `key`, if present.
    pub fn find(&self, key: &[u8]) -> Option<usize> {
        self.entries
            .binary_search_by(|e| slice(&self.bytes, e).cmp(key))
            .ok()
    }

    /// Positions of the keys starting with `prefix` (a contiguous range).
    pub fn prefix_range(&self, prefix: &[u8]) -> Range<usize> {
        let lo = self
            .entries
            .partition_point(|e| slice(&self.bytes, e) < prefix);
        let hi =
            lo + self.entries[lo..].partition_point(|e| slice(&self.bytes, e).starts_with(prefix));
        lo..hi
    }

    /// Apply `changes` in order (a later change to a key wins), keeping the
    /// sorted order: sizes and expiries are updated in place, added and
    /// removed keys are merged in one pass over the entries. Returns true
    /// when keys were added or removed (positions moved).
    pub fn apply(&mut self, changes: Vec<KeyChange>) -> bool {
        let mut last: std::collections::BTreeMap<Vec<u8>, KeyChange> = Default::default();
        for c in changes {
            last.insert(c.key().to_vec(), c);
        }
        let mut added: Vec<KeyChange> = Vec::new();
        let mut removed: Vec<usize> = Vec::new();
        for (_, c) in last {
            let at = self.find(c.key());
            match (c, at) {
                (
                    KeyChange::Upsert {
                        size, expires_ms, ..
                    },
                    Some(i),
                ) => {
                    let e = &mut self.entries[i];
                    let size = u32::try_from(size).unwrap_or(u32::MAX);
                    self.value_bytes = self.value_bytes - u64::from(e.size) + u64::from(size);
                    e.size = size;
                    e.expires_ms = expires_ms;
                }
                (c @ KeyChange::Upsert { .. }, None) => added.push(c),
                (KeyChange::Remove(_), Some(i)) => removed.push(i),
                (KeyChange::Remove(_), None) => {}
            }
        }
        if added.is_empty() && removed.is_empty() {
            return false;
        }
        // `added` is sorted (it came out of the map) and so is `removed`.
        let fresh: Vec<KeyEntry> = added
            .into_iter()
            .filter_map(|c| match c {
                KeyChange::Upsert {
                    key,
                    size,
                    expires_ms,
                } => Some(self.append(&key, size, expires_ms)),
                KeyChange::Remove(_) => None,
            })
            .collect();
        // In place, without a new million-entry vector per follow (its page
        // faults were most of the cost): removals in one compaction pass,
        // then the additions merged in from the back, which moves only the
        // entries after the first added key.
        if !removed.is_empty() {
            let mut gone = removed.into_iter().peekable();
            let mut i = 0;
            let (mut garbage, mut freed) = (0usize, 0u64);
            self.entries.retain(|e| {
                let drop = gone.next_if_eq(&i).is_some();
                i += 1;
                if drop {
                    garbage += e.len as usize;
                    freed += u64::from(e.size);
                }
                !drop
            });
            self.garbage += garbage;
            self.value_bytes -= freed;
        }
        if !fresh.is_empty() {
            let old_len = self.entries.len();
            let Some(&filler) = fresh.first() else {
                return true;
            };
            self.entries.resize(old_len + fresh.len(), filler);
            let bytes = &self.bytes;
            let (mut i, mut j, mut k) = (old_len, fresh.len(), old_len + fresh.len());
            while j > 0 {
                let take_old =
                    i > 0 && slice(bytes, &self.entries[i - 1]) > slice(bytes, &fresh[j - 1]);
                k -= 1;
                if take_old {
                    i -= 1;
                    self.entries[k] = self.entries[i];
                } else {
                    j -= 1;
                    self.entries[k] = fresh[j];
                }
            }
        }
        if self.garbage > self.bytes.len() / 2 {
            self.relayout();
        }
        true
    }

    fn append(&mut self, key: &[u8], size: u64, expires_ms: u64) -> KeyEntry {
        self.value_bytes += u64::from(u32::try_from(size).unwrap_or(u32::MAX));
        let e = KeyEntry {
            off: self.bytes.len() as u64,
            len: u32::try_from(key.len()).unwrap_or(u32::MAX),
            size: u32::try_from(size).unwrap_or(u32::MAX),
            expires_ms,
        };
        self.bytes.extend_from_slice(key);
        e
    }

    /// Lay the arena out in the entries' (sorted) order, without garbage.
    fn relayout(&mut self) {
        let mut sorted = Vec::with_capacity(self.bytes.len() - self.garbage);
        for e in &mut self.entries {
            let start = sorted.len() as u64;
            sorted.extend_from_slice(slice(&self.bytes, e));
            e.off = start;
        }
        self.bytes = sorted;
        self.garbage = 0;
    }

    /// The keys at positions `range`, as a set of their own.
    pub fn slice(&self, range: Range<usize>) -> KeySet {
        let mut out = KeySet::new();
        for i in range {
            if let Some(e) = self.entries.get(i) {
                out.push(slice(&self.bytes, e), u64::from(e.size), e.expires_ms);
            }
        }
        out
    }

    /// Keep only the first `len` keys.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.entries.len() {
            return;
        }
        for e in &self.entries[len..] {
            self.garbage += e.len as usize;
            self.value_bytes -= u64::from(e.size);
        }
        self.entries.truncate(len);
        self.relayout();
        self.entries.shrink_to_fit();
        self.bytes.shrink_to_fit();
    }

    /// Sum of the value sizes of every key.
    pub fn value_bytes(&self) -> u64 {
        self.value_bytes
    }

    /// Bytes used by the arena and the entries.
    pub fn memory_bytes(&self) -> usize {
        self.bytes.capacity() + self.entries.capacity() * std::mem::size_of::<KeyEntry>()
    }
}

fn slice<'a>(bytes: &'a [u8], e: &KeyEntry) -> &'a [u8] {
    let start = e.off as usize;
    bytes.get(start..start + e.len as usize).unwrap_or(&[])
}

/// The filter a scan for `text` applies (`None`: every key).
fn base_pattern(text: &str) -> Option<Pattern> {
    (!text.is_empty() && text != "^").then(|| Pattern::parse(text))
}

/// How a filter matches keys.
#[derive(Clone, Debug)]
pub enum Match {
    /// The needle anywhere in the key.
    Substring,
    /// The key starts with the needle (text began with `^`).
    Prefix,
    /// The whole key matches a glob (the text has `*` or `?`): `*` any
    /// bytes, `?` one byte.
    Glob,
    /// A regular expression anywhere in the key (text began with `~`).
    Regex(regex::bytes::Regex),
}

/// What the typed filter text means.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// How it matches.
    pub kind: Match,
    /// The bytes to look for (escapes such as `\x00` resolved), or the
    /// glob, or the regular expression's source.
    pub needle: Vec<u8>,
    /// Matches ignore ASCII case unless the text has an upper-case letter
    /// ("smart case"); prefix matches are exact.
    pub ignore_case: bool,
    /// Why a regular expression was not accepted (the filter then matches
    /// nothing until it is fixed).
    pub error: Option<String>,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        std::mem::discriminant(&self.kind) == std::mem::discriminant(&other.kind)
            && self.needle == other.needle
            && self.ignore_case == other.ignore_case
    }
}

impl Eq for Pattern {}

impl Pattern {
    /// Parse filter text: `^abc` is a prefix filter, `~re` a regular
    /// expression, text with `*` or `?` a glob over the whole key, anything
    /// else a substring filter.
    pub fn parse(text: &str) -> Pattern {
        if let Some(source) = text.strip_prefix('~') {
            let ignore_case = !source.chars().any(|c| c.is_ascii_uppercase());
            let built = regex::bytes::RegexBuilder::new(source)
                .case_insensitive(ignore_case)
                .size_limit(1 << 20)
                .build();
            let (kind, error) = match built {
                Ok(re) => (Match::Regex(re), None),
                Err(e) => {
                    let first = e
                        .to_string()
                        .lines()
                        .last()
                        .unwrap_or("")
                        .trim()
                        .to_string();
                    (
                        Match::Glob,
                        Some(format!("not a regular expression: {first}")),
                    )
                }
            };
            return Pattern {
                kind,
                needle: source.as_bytes().to_vec(),
                ignore_case,
                error,
            };
        }
        let (prefix, rest) = match text.strip_prefix('^') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        // A bad (or half-typed, `\x4`) escape matches nothing and says why,
        // as a regular expression that does not parse does.
        let (needle, error) = match unescape(rest) {
            Ok(needle) => (needle, None),
            Err(e) => (rest.as_bytes().to_vec(), Some(format!("bad escape: {e}"))),
        };
        let glob = !prefix && needle.iter().any(|&b| b == b'*' || b == b'?');
        let ignore_case = !prefix && !needle.iter().any(u8::is_ascii_uppercase);
        Pattern {
            kind: if prefix {
                Match::Prefix
            } else if glob {
                Match::Glob
            } else {
                Match::Substring
            },
            needle,
            ignore_case,
            error,
        }
    }

    /// True for a `^prefix` filter.
    pub fn is_prefix(&self) -> bool {
        matches!(self.kind, Match::Prefix)
    }

    /// True when every key matching `narrower` also matches `self`, so
    /// `narrower` can filter the result of `self` instead of every key.
    pub fn narrows_to(&self, narrower: &Pattern) -> bool {
        matches!(self.kind, Match::Substring)
            && matches!(narrower.kind, Match::Substring)
            && (self.ignore_case || !narrower.ignore_case)
            && contains(&narrower.needle, &self.needle, false)
    }

    /// True when `key` matches.
    pub fn matches(&self, key: &[u8]) -> bool {
        if self.error.is_some() {
            return false;
        }
        match &self.kind {
            Match::Prefix => key.starts_with(&self.needle),
            Match::Substring => contains(key, &self.needle, self.ignore_case),
            Match::Glob => glob(&self.needle, key, self.ignore_case),
            Match::Regex(re) => re.is_match(key),
        }
    }
}

/// Whole-key glob match: `*` any run of bytes, `?` one byte.
fn glob(pattern: &[u8], key: &[u8], ignore_case: bool) -> bool {
    let eq = |a: u8, b: u8| {
        if ignore_case {
            a.eq_ignore_ascii_case(&b)
        } else {
            a == b
        }
    };
    // Greedy with one backtrack point (the last `*`): linear for the
    // patterns people type.
    let (mut p, mut k) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while k < key.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, k));
                p += 1;
            }
            Some(&c) if c == b'?' || eq(c, key[k]) => {
                p += 1;
                k += 1;
            }
            _ => match star {
                Some((sp, sk)) => {
                    p = sp + 1;
                    k = sk + 1;
                    star = Some((sp, sk + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p.min(pattern.len())..].iter().all(|&c| c == b'*')
}

/// True when `needle` occurs in `hay` (ignoring ASCII case if asked).
pub fn contains(hay: &[u8], needle: &[u8], ignore_case: bool) -> bool {
    let Some(&first) = needle.first() else {
        return true;
    };
    if hay.len() < needle.len() {
        return false;
    }
    let last_start = hay.len() - needle.len();
    // Find candidates by their first byte with a tight loop the compiler
    // vectorises (for a letter ignoring case: the byte with bit 5 set, which
    // lets some non-letters through; the full comparison rejects them).
    let fold = ignore_case && first.is_ascii_alphabetic();
    let target = if fold { first | 0x20 } else { first };
    let mut i = 0;
    while i <= last_start {
        let window = &hay[i..=last_start];
        let found = if fold {
            window.iter().position(|&b| b | 0x20 == target)
        } else {
            window.iter().position(|&b| b == target)
        };
        let Some(p) = found else {
            return false;
        };
        i += p;
        let candidate = &hay[i..i + needle.len()];
        let hit = if ignore_case {
            candidate.eq_ignore_ascii_case(needle)
        } else {
            candidate == needle
        };
        if hit {
            return true;
        }
        i += 1;
    }
    false
}

/// How the list is arranged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListView {
    /// Every matching key, sorted.
    #[default]
    Flat,
    /// Keys grouped on a delimiter into collapsible groups.
    Tree,
    /// Only keys with an expiry, soonest first.
    Expiring,
}

/// The order of the flat list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortBy {
    /// By key bytes.
    #[default]
    Key,
    /// Biggest values first (then by key).
    Size,
    /// Soonest expiry first, keys without one last (then by key).
    Ttl,
}

impl SortBy {
    /// The next order (`s` cycles through them).
    pub fn next(self) -> SortBy {
        match self {
            SortBy::Key => SortBy::Size,
            SortBy::Size => SortBy::Ttl,
            SortBy::Ttl => SortBy::Key,
        }
    }

    /// How the title names it.
    pub fn label(self) -> &'static str {
        match self {
            SortBy::Key => "by key",
            SortBy::Size => "biggest first",
            SortBy::Ttl => "soonest expiry first",
        }
    }
}

/// One line of the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    /// A key.
    Key {
        /// Position in the [`KeySet`].
        entry: u32,
        /// Nesting depth (tree view).
        depth: u16,
        /// Leading bytes hidden because the enclosing group shows them.
        skip: u32,
    },
    /// A group of keys sharing a prefix that ends with the delimiter.
    Group {
        /// Position of the group's first key in the filtered matches.
        first: u32,
        /// Number of keys in the group.
        count: u32,
        /// Bytes of their values.
        bytes: u64,
        /// Length of the group prefix, delimiter included.
        prefix_len: u32,
        /// Length of the enclosing group's prefix (hidden in the label).
        skip: u32,
        /// Nesting depth.
        depth: u16,
        /// Whether its keys are listed below it.
        expanded: bool,
    },
}

/// Cached filter results kept at most (entries), so a long text that keeps
/// matching a million keys does not hold a copy per character.
const MAX_CACHED_POSITIONS: usize = 8 << 20;

/// The keys of one namespace as the keys pane shows them.
#[derive(Debug, Default)]
pub struct KeyList {
    set: KeySet,
    filter: String,
    pattern: Option<Pattern>,
    /// Substring patterns typed so far with their matching positions.
    cache: Vec<(Pattern, Vec<u32>)>,
    matches: Vec<u32>,
    view: ListView,
    sort: SortBy,
    delimiter: u8,
    expanded: HashSet<Vec<u8>>,
    rows: Vec<Row>,
    /// The keys the set (or the pages) holds: those matching this filter
    /// as the worker scanned for it, or every key (`None`).
    base: Option<Pattern>,
    /// The filter text `base` was parsed from.
    base_text: String,
    /// A big list held as chunks around the cursor (`set` is then empty).
    paged: Option<Pages>,
    /// The filter changed in a way the held keys cannot answer: the
    /// worker has to scan for it.
    want_scan: bool,
    /// The held keys are only the first of a list too big to hold, in the
    /// order of the sort or view (see [`KeyList::top`]).
    top: Option<TopOf>,
    /// The held keys are one tree level of a list too big to hold: its
    /// keys with no delimiter left, and its groups' counts (see
    /// [`KeyList::level`]).
    level: Option<LevelOf>,
}

/// One level of the tree of a list too big to hold, as a worker scan
/// counted it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LevelOf {
    /// The level's prefix (empty: the top), ending with the delimiter.
    pub prefix: Vec<u8>,
    /// Its groups: full prefix, key count, bytes of values, in key order.
    pub groups: Vec<(Vec<u8>, usize, u64)>,
    /// Keys under the prefix matching the filter.
    pub matched: usize,
    /// Bytes of their values.
    pub bytes: u64,
    /// Not every group and key is listed (too many).
    pub truncated: bool,
}

/// What a list of the first keys in some order (the biggest, the soonest
/// to expire) was taken from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopOf {
    /// Keys that matched the scanned filter, held or not.
    pub matched: usize,
    /// Ranked by expiry (else by size).
    pub by_expiry: bool,
}

impl KeyList {
    /// A list over `set` grouped on `delimiter` in tree view.
    pub fn new(set: KeySet, delimiter: u8) -> KeyList {
        let mut list = KeyList {
            set,
            delimiter,
            ..KeyList::default()
        };
        list.refilter();
        list
    }

    /// A list over what a worker scan for `scanned` (filter text, empty
    /// for every key) found: the keys whole (`set`), or `pages` when there
    /// were too many to hold. `filter` is the filter typed now (it may have
    /// moved on since the scan started).
    pub fn from_scan(
        set: KeySet,
        pages: Option<Pages>,
        scanned: &str,
        filter: &str,
        delimiter: u8,
    ) -> KeyList {
        let base = base_pattern(scanned);
        let mut list = KeyList {
            set,
            delimiter,
            base,
            base_text: scanned.to_string(),
            paged: pages,
            ..KeyList::default()
        };
        list.filter = filter.to_string();
        list.refilter();
        list
    }

    /// A list of the first keys in an order, out of more than can be held
    /// (a worker top scan): `set` holds them, `top` says of how many. The
    /// view and the order are the ones the scan ranked by.
    #[allow(clippy::too_many_arguments)]
    pub fn top_of(
        set: KeySet,
        scanned: &str,
        filter: &str,
        delimiter: u8,
        view: ListView,
        sort: SortBy,
        top: TopOf,
    ) -> KeyList {
        let mut list = KeyList::from_scan(set, None, scanned, filter, delimiter);
        list.top = Some(top);
        list.view = view;
        list.sort = sort;
        list.rebuild_rows();
        list
    }

    /// One tree level of a list too big to hold: `set` holds the level's
    /// keys, `level` its groups.
    pub fn level_of(
        set: KeySet,
        scanned: &str,
        filter: &str,
        delimiter: u8,
        level: LevelOf,
    ) -> KeyList {
        let mut list = KeyList::from_scan(set, None, scanned, filter, delimiter);
        list.level = Some(level);
        list.view = ListView::Tree;
        list.rebuild_rows();
        list
    }

    /// The tree level shown, when the list is one (see
    /// [`KeyList::level_of`]).
    pub fn level(&self) -> Option<&LevelOf> {
        self.level.as_ref()
    }

    /// What a list of the first keys in an order was taken from (`None`:
    /// the list holds or pages every key).
    pub fn top(&self) -> Option<TopOf> {
        self.top
    }

    /// The filter text the held keys were scanned for (empty: every key).
    pub fn scanned_filter(&self) -> &str {
        &self.base_text
    }

    /// True when the list is paged (too many keys to hold).
    pub fn is_paged(&self) -> bool {
        self.paged.is_some()
    }

    /// The pages of a paged list.
    pub fn pages(&self) -> Option<&Pages> {
        self.paged.as_ref()
    }

    /// True (once) when the filter needs a scan by the worker.
    pub fn take_want_scan(&mut self) -> bool {
        std::mem::take(&mut self.want_scan)
    }

    /// True when the held keys are every key of the namespace (not only
    /// the matches of a filter scanned for, nor pages).
    pub fn holds_all(&self) -> bool {
        self.base.is_none() && self.paged.is_none() && self.top.is_none() && self.level.is_none()
    }

    /// Keys of the namespace (or of the scanned filter's matches) in the
    /// list, held or not.
    pub fn total(&self) -> usize {
        if let Some(l) = &self.level {
            return l.matched;
        }
        match &self.paged {
            Some(p) => p.total(),
            None => self.set.len(),
        }
    }

    /// Bytes of the values of [`KeyList::total`]'s keys.
    pub fn total_bytes(&self) -> u64 {
        if let Some(l) = &self.level {
            return l.bytes;
        }
        match &self.paged {
            Some(p) => p.value_bytes(),
            None => self.set.value_bytes(),
        }
    }

    /// Whether `key` is in the list (`None`: unknown, its page is not held).
    pub fn contains(&self, key: &[u8]) -> Option<bool> {
        match &self.paged {
            Some(p) => p.contains(key),
            None => Some(self.set.find(key).is_some()),
        }
    }

    /// Chunk reads a paged list needs to show rows `rows` around the
    /// selected row `cursor`, and counts of changed chunks elsewhere for
    /// about `budget` keys (see [`Pages::wants`]).
    pub fn wants(&mut self, rows: Range<usize>, cursor: usize, budget: usize) -> Vec<ChunkWant> {
        match &mut self.paged {
            Some(p) => p.wants(rows, cursor, budget),
            None => Vec::new(),
        }
    }

    /// Store a chunk read (see [`Pages::fill`]); returns true when rows moved.
    pub fn fill_chunk(
        &mut self,
        chunk: usize,
        lo: &Option<Vec<u8>>,
        count: usize,
        bytes: u64,
        keys: Option<KeySet>,
    ) -> bool {
        match &mut self.paged {
            Some(p) => p.fill(chunk, lo, count, bytes, keys),
            None => false,
        }
    }

    /// A chunk read failed (see [`Pages::chunk_failed`]).
    pub fn chunk_failed(&mut self, chunk: usize, lo: &Option<Vec<u8>>) {
        if let Some(p) = &mut self.paged {
            p.chunk_failed(chunk, lo);
        }
    }

    /// Row of `key`, or where its chunk starts when that is not held (a
    /// paged list): `(row, exact)`.
    pub fn row_near(&self, key: &[u8]) -> Option<(usize, bool)> {
        match &self.paged {
            Some(p) => match p.row_of(key) {
                Ok(r) => Some((r, true)),
                Err(Some(c)) => Some((p.start_of(c), false)),
                Err(None) => None,
            },
            None => self.row_of(key).map(|r| (r, true)),
        }
    }

    /// Size and expiry of the key of `row`.
    pub fn row_entry(&self, row: Row) -> Option<&KeyEntry> {
        match row {
            Row::Key { entry, .. } => match &self.paged {
                Some(p) => p.entry(entry as usize),
                None => self.set.entry(entry as usize),
            },
            Row::Group { .. } => None,
        }
    }

    /// Apply changes to the keys (see [`KeySet::apply`]), keeping filter,
    /// view and open groups.
    pub fn apply(&mut self, changes: Vec<KeyChange>) {
        // Keys the scanned filter does not match are not this list's.
        let changes: Vec<KeyChange> = match &self.base {
            Some(base) => changes
                .into_iter()
                .filter(|c| base.matches(c.key()))
                .collect(),
            None => changes,
        };
        // The first keys in an order keep only their own keys' changes: a
        // new key's place among the rest is unknown until a scan.
        let changes = if self.top.is_some() || self.level.is_some() {
            changes
                .into_iter()
                .filter(|c| self.set.find(c.key()).is_some())
                .collect()
        } else {
            changes
        };
        if let Some(p) = &mut self.paged {
            p.apply(changes, None);
            return;
        }
        if self.set.apply(changes) {
            self.cache.clear();
            self.refilter();
        } else if self.uses_rows() {
            // Only expiries and sizes changed: an order by them, and the
            // groups' byte totals, may have.
            self.rebuild_rows();
        }
    }

    /// Swap in a freshly loaded set, keeping filter, view and open groups.
    pub fn replace_set(&mut self, set: KeySet) {
        self.set = set;
        self.paged = None;
        self.top = None;
        self.level = None;
        self.base = None;
        self.base_text.clear();
        self.cache.clear();
        self.refilter();
    }

    /// The held keys: every key of the namespace, or the matches of the
    /// scanned filter (see [`KeyList::holds_all`]); empty in a paged list.
    pub fn set(&self) -> &KeySet {
        &self.set
    }

    /// The filter text as typed.
    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// The parsed filter, when there is one.
    pub fn pattern(&self) -> Option<&Pattern> {
        self.pattern.as_ref()
    }

    /// The arrangement in use.
    pub fn view(&self) -> ListView {
        self.view
    }

    /// The order of the flat view.
    pub fn sort(&self) -> SortBy {
        self.sort
    }

    /// Order the flat view by `sort` (the tree stays by key; the
    /// expiring view stays soonest first).
    pub fn set_sort(&mut self, sort: SortBy) {
        self.sort = sort;
        self.rebuild_rows();
    }

    /// True when the rows are kept in `rows` rather than read from the
    /// matches directly (the flat view by key).
    fn uses_rows(&self) -> bool {
        !(self.view == ListView::Flat && self.sort == SortBy::Key)
    }

    /// The tree delimiter.
    pub fn delimiter(&self) -> u8 {
        self.delimiter
    }

    /// Number of keys that pass the filter (and, in the expiring view, have
    /// an expiry).
    pub fn match_count(&self) -> usize {
        if let Some(p) = &self.paged {
            return p.total();
        }
        match self.view {
            ListView::Expiring => self.rows.len(),
            _ => self.matches.len(),
        }
    }

    /// The keys the list shows (every match of the filter; in the expiring
    /// view only those with an expiry), in key order, groups included
    /// whole.
    /// A paged list lists none (its keys are not held): see
    /// [`KeyList::is_paged`].
    pub fn listed_keys(&self) -> Box<dyn Iterator<Item = &[u8]> + '_> {
        if self.paged.is_some() {
            return Box::new(std::iter::empty());
        }
        let expiring = self.view == ListView::Expiring;
        Box::new(self.matches.iter().filter_map(move |&i| {
            let e = self.set.entry(i as usize)?;
            (!expiring || e.expires_ms != 0).then(|| self.set.key(i as usize))
        }))
    }

    /// Change the filter text, narrowing the last result when the new text
    /// extends it.
    pub fn set_filter(&mut self, text: &str) {
        if text == self.filter {
            return;
        }
        self.filter = text.to_string();
        self.refilter();
    }

    /// Change the arrangement.
    pub fn set_view(&mut self, view: ListView) {
        self.view = view;
        self.rebuild_rows();
    }

    /// Change the tree delimiter (open groups are forgotten).
    pub fn set_delimiter(&mut self, delimiter: u8) {
        self.delimiter = delimiter;
        self.expanded.clear();
        self.rebuild_rows();
    }

    fn refilter(&mut self) {
        let text = self.filter.clone();
        let wanted = base_pattern(&text);
        // The held keys answer the filter when they are every key, the
        // matches of this very filter, or of one it narrows.
        // (Not a part of the keys: the first ones in an order, or pages.)
        let whole = self.paged.is_none() && self.top.is_none() && self.level.is_none();
        let answers = match (&self.base, &wanted) {
            (None, None) => true,
            (None, Some(_)) => whole,
            (Some(_), None) => false,
            (Some(b), Some(w)) => b == w || (whole && b.narrows_to(w)),
        };
        if !answers {
            self.want_scan = true;
        }
        if self.paged.is_some() {
            // Rows are the pages as scanned; a scan for the new filter
            // replaces them.
            self.pattern = wanted;
            return;
        }
        if text.is_empty() || text == "^" {
            self.pattern = None;
            self.cache.clear();
            // Reuse the vector: rebuilt on every followed batch of new keys.
            self.matches.clear();
            self.matches.extend(0..self.set.len() as u32);
            self.rebuild_rows();
            return;
        }
        let pattern = Pattern::parse(&text);
        let matches: Vec<u32> = if pattern.error.is_some() {
            Vec::new()
        } else if pattern.is_prefix() {
            let r = self.set.prefix_range(&pattern.needle);
            (r.start as u32..r.end as u32).collect()
        } else {
            // Step back to the newest cached result that is a superset of
            // the new one, and narrow it.
            while let Some((cached, _)) = self.cache.last() {
                if cached.narrows_to(&pattern) {
                    break;
                }
                self.cache.pop();
            }
            let found = match self.cache.last() {
                Some((cached, prev)) if *cached == pattern => prev.clone(),
                Some((_, prev)) => prev
                    .iter()
                    .copied()
                    .filter(|&i| pattern.matches(self.set.key(i as usize)))
                    .collect(),
                None => (0..self.set.len() as u32)
                    .filter(|&i| pattern.matches(self.set.key(i as usize)))
                    .collect(),
            };
            if self.cache.last().is_none_or(|(c, _)| *c != pattern) {
                self.cache.push((pattern.clone(), found.clone()));
                // Drop the oldest (widest) results first; the newest narrow
                // best and backspace usually needs only the last few.
                while self.cache.len() > 1
                    && self.cache.iter().map(|(_, m)| m.len()).sum::<usize>() > MAX_CACHED_POSITIONS
                {
                    self.cache.remove(0);
                }
            }
            found
        };
        self.matches = matches;
        self.pattern = Some(pattern);
        self.rebuild_rows();
    }

    fn rebuild_rows(&mut self) {
        let mut rows = Vec::new();
        match self.view {
            ListView::Flat if self.sort == SortBy::Key => {}
            ListView::Flat => {
                let set = &self.set;
                let mut sorted = self.matches.clone();
                let of = |i: u32| set.entry(i as usize).copied();
                match self.sort {
                    SortBy::Size => {
                        sorted.sort_by_key(|&i| (std::cmp::Reverse(of(i).map_or(0, |e| e.size)), i))
                    }
                    _ => sorted.sort_by_key(|&i| {
                        let exp = of(i).map_or(0, |e| e.expires_ms);
                        (if exp == 0 { u64::MAX } else { exp }, i)
                    }),
                }
                rows = sorted
                    .into_iter()
                    .map(|entry| Row::Key {
                        entry,
                        depth: 0,
                        skip: 0,
                    })
                    .collect();
            }
            ListView::Tree if self.level.is_some() => self.level_rows(&mut rows),
            ListView::Tree => self.tree_rows(0, self.matches.len(), 0, 0, &mut rows),
            ListView::Expiring => {
                let mut exp: Vec<(u64, u32)> = self
                    .matches
                    .iter()
                    .filter_map(|&i| {
                        let e = self.set.entry(i as usize)?;
                        (e.expires_ms != 0).then_some((e.expires_ms, i))
                    })
                    .collect();
                exp.sort_unstable();
                rows = exp
                    .into_iter()
                    .map(|(_, entry)| Row::Key {
                        entry,
                        depth: 0,
                        skip: 0,
                    })
                    .collect();
            }
        }
        self.rows = rows;
    }

    /// Rows of a tree level: its groups and keys merged in key order.
    fn level_rows(&self, rows: &mut Vec<Row>) {
        let Some(level) = &self.level else {
            return;
        };
        let skip = level.prefix.len() as u32;
        let mut keys = self.matches.iter().peekable();
        for (g, (prefix, count, bytes)) in level.groups.iter().enumerate() {
            while let Some(&&entry) = keys.peek() {
                if self.set.key(entry as usize) > prefix.as_slice() {
                    break;
                }
                rows.push(Row::Key {
                    entry,
                    depth: 0,
                    skip,
                });
                keys.next();
            }
            rows.push(Row::Group {
                first: g as u32,
                count: u32::try_from(*count).unwrap_or(u32::MAX),
                bytes: *bytes,
                prefix_len: prefix.len() as u32,
                skip,
                depth: 0,
                expanded: false,
            });
        }
        rows.extend(keys.map(|&entry| Row::Key {
            entry,
            depth: 0,
            skip,
        }));
    }

    /// Rows for matches `[lo, hi)`, all of which start with a prefix of
    /// `plen` bytes ending in the delimiter (or `plen == 0`).
    fn tree_rows(&self, lo: usize, hi: usize, plen: usize, depth: u16, rows: &mut Vec<Row>) {
        let mut i = lo;
        while i < hi {
            let entry = self.matches[i];
            let key = self.set.key(entry as usize);
            let rest = key.get(plen..).unwrap_or(&[]);
            let Some(p) = rest.iter().position(|&b| b == self.delimiter) else {
                rows.push(Row::Key {
                    entry,
                    depth,
                    skip: plen as u32,
                });
                i += 1;
                continue;
            };
            let glen = plen + p + 1;
            let group = &key[..glen];
            let j = i
                + 1
                + self.matches[i + 1..hi]
                    .partition_point(|&m| self.set.key(m as usize).starts_with(group));
            if j - i == 1 {
                // A group of one is just its key.
                rows.push(Row::Key {
                    entry,
                    depth,
                    skip: plen as u32,
                });
            } else {
                let expanded = self.expanded.contains(group);
                let bytes = self.matches[i..j]
                    .iter()
                    .filter_map(|&m| self.set.entry(m as usize))
                    .map(|e| u64::from(e.size))
                    .sum();
                rows.push(Row::Group {
                    first: i as u32,
                    count: (j - i) as u32,
                    bytes,
                    prefix_len: glen as u32,
                    skip: plen as u32,
                    depth,
                    expanded,
                });
                if expanded {
                    self.tree_rows(i, j, glen, depth + 1, rows);
                }
            }
            i = j;
        }
    }

    /// Number of rows shown.
    pub fn row_count(&self) -> usize {
        if let Some(p) = &self.paged {
            return p.total();
        }
        if self.uses_rows() {
            self.rows.len()
        } else {
            self.matches.len()
        }
    }

    /// Row `i`. In a paged list the entry of a key row is the row itself
    /// (its key is there once its chunk is held).
    pub fn row(&self, i: usize) -> Option<Row> {
        if let Some(p) = &self.paged {
            return (i < p.total()).then_some(Row::Key {
                entry: u32::try_from(i).unwrap_or(u32::MAX),
                depth: 0,
                skip: 0,
            });
        }
        if self.uses_rows() {
            return self.rows.get(i).copied();
        }
        self.matches.get(i).map(|&entry| Row::Key {
            entry,
            depth: 0,
            skip: 0,
        })
    }

    /// The full key of a key row, or the prefix of a group row.
    pub fn row_bytes(&self, row: Row) -> &[u8] {
        match row {
            Row::Key { entry, .. } => match &self.paged {
                Some(p) => p.key(entry as usize).unwrap_or(&[]),
                None => self.set.key(entry as usize),
            },
            Row::Group {
                first, prefix_len, ..
            } if self.level.is_some() => self
                .level
                .as_ref()
                .and_then(|l| l.groups.get(first as usize))
                .map_or(&[][..], |g| &g.0[..g.0.len().min(prefix_len as usize)]),
            Row::Group {
                first, prefix_len, ..
            } => {
                let entry = self.matches.get(first as usize).copied().unwrap_or(0);
                let key = self.set.key(entry as usize);
                &key[..key.len().min(prefix_len as usize)]
            }
        }
    }

    /// The key of row `i`, when it is a key row.
    pub fn key_at(&self, i: usize) -> Option<&[u8]> {
        if let Some(p) = &self.paged {
            return p.key(i);
        }
        match self.row(i)? {
            row @ Row::Key { .. } => Some(self.row_bytes(row)),
            Row::Group { .. } => None,
        }
    }

    /// Row showing `key` (or, in the tree view, the group that hides it).
    pub fn row_of(&self, key: &[u8]) -> Option<usize> {
        if let Some(p) = &self.paged {
            return p.row_of(key).ok();
        }
        match self.view {
            ListView::Flat if self.sort == SortBy::Key => {
                let entry = self.set.find(key)? as u32;
                self.matches.binary_search(&entry).ok()
            }
            ListView::Flat | ListView::Expiring => {
                let entry = self.set.find(key)? as u32;
                self.rows
                    .iter()
                    .position(|r| matches!(r, Row::Key { entry: e, .. } if *e == entry))
            }
            ListView::Tree => {
                let mut best = None;
                for (i, &row) in self.rows.iter().enumerate() {
                    let bytes = self.row_bytes(row);
                    match row {
                        Row::Key { .. } if bytes == key => return Some(i),
                        Row::Group { .. } if key.starts_with(bytes) => best = Some(i),
                        _ => {}
                    }
                }
                best
            }
        }
    }

    /// Open or close the group at row `i`; returns false when it is not a group.
    pub fn toggle_group(&mut self, i: usize) -> bool {
        let Some(row @ Row::Group { expanded, .. }) = self.row(i) else {
            return false;
        };
        if self.level.is_some() {
            // A group of a level opens with a scan of its own.
            return false;
        }
        let prefix = self.row_bytes(row).to_vec();
        if expanded {
            self.expanded.remove(&prefix);
        } else {
            self.expanded.insert(prefix);
        }
        self.rebuild_rows();
        true
    }

    /// Row of the group enclosing row `i` in the tree view.
    pub fn parent_of(&self, i: usize) -> Option<usize> {
        let depth = match self.row(i)? {
            Row::Key { depth, .. } | Row::Group { depth, .. } => depth,
        };
        if depth == 0 || self.view != ListView::Tree {
            return None;
        }
        (0..i).rev().find(
            |&j| matches!(self.rows.get(j), Some(Row::Group { depth: d, .. }) if *d + 1 == depth),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(keys: &[&str]) -> KeyList {
        KeyList::new(KeySet::from_keys(keys), b':')
    }

    fn shown(l: &KeyList) -> Vec<String> {
        (0..l.row_count())
            .map(|i| {
                let row = l.row(i).unwrap();
                let text = String::from_utf8_lossy(l.row_bytes(row)).into_owned();
                match row {
                    Row::Key { depth, .. } => format!("{}{text}", "  ".repeat(depth.into())),
                    Row::Group {
                        depth,
                        count,
                        expanded,
                        ..
                    } => format!(
                        "{}{}{text} ({count})",
                        "  ".repeat(depth.into()),
                        if expanded { "-" } else { "+" }
                    ),
                }
            })
            .collect()
    }

    #[test]
    fn applied_changes_match_a_model_over_many_rounds() {
        use std::collections::BTreeMap;
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        let mut model: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
        let mut set = KeySet::new();
        set.sort();
        for _ in 0..300 {
            let mut changes = Vec::new();
            for _ in 0..next(12) {
                let key = format!("k{:03}", next(200)).into_bytes();
                if next(3) == 0 {
                    model.remove(&key);
                    changes.push(KeyChange::Remove(key));
                } else {
                    let size = next(1000);
                    model.insert(key.clone(), size);
                    changes.push(KeyChange::Upsert {
                        key,
                        size,
                        expires_ms: 0,
                    });
                }
            }
            set.apply(changes);
            let got: Vec<(Vec<u8>, u64)> = (0..set.len())
                .map(|i| (set.key(i).to_vec(), u64::from(set.entry(i).unwrap().size)))
                .collect();
            let want: Vec<(Vec<u8>, u64)> = model.iter().map(|(k, v)| (k.clone(), *v)).collect();
            assert_eq!(got, want);
            assert_eq!(set.value_bytes(), model.values().sum::<u64>());
        }
    }

    #[test]
    fn value_bytes_follow_puts_resizes_and_removals() {
        let mut set = KeySet::new();
        set.push(b"a", 10, 0);
        set.push(b"b", 5, 0);
        set.sort();
        assert_eq!(set.value_bytes(), 15);
        set.apply(vec![
            KeyChange::Upsert {
                key: b"a".to_vec(),
                size: 3,
                expires_ms: 0,
            },
            KeyChange::Upsert {
                key: b"c".to_vec(),
                size: 100,
                expires_ms: 0,
            },
            KeyChange::Remove(b"b".to_vec()),
            KeyChange::Remove(b"zz".to_vec()),
        ]);
        assert_eq!(set.value_bytes(), 103);
    }

    #[test]
    fn keys_are_sorted_and_found() {
        let s = KeySet::from_keys(["b", "a", "ab", "c"]);
        assert_eq!(s.key(0), b"a");
        assert_eq!(s.key(3), b"c");
        assert_eq!(s.find(b"ab"), Some(1));
        assert_eq!(s.find(b"x"), None);
        assert_eq!(s.prefix_range(b"a"), 0..2);
        assert_eq!(s.prefix_range(b"z"), 4..4);
    }

    #[test]
    fn substring_filter_is_smart_case_and_incremental() {
        let mut l = list(&["User:1", "user:2", "session:1", "other"]);
        l.set_filter("s");
        assert_eq!(shown(&l), ["User:1", "session:1", "user:2"]);
        l.set_filter("se");
        assert_eq!(l.match_count(), 3);
        l.set_filter("ser");
        assert_eq!(shown(&l), ["User:1", "user:2"]);
        l.set_filter("Us");
        assert_eq!(shown(&l), ["User:1"]);
        l.set_filter("u");
        assert_eq!(l.match_count(), 2);
        l.set_filter("");
        assert_eq!(l.match_count(), 4);
    }

    #[test]
    fn substring_search_edges() {
        assert!(contains(b"abc", b"", false));
        assert!(contains(b"abc", b"c", false));
        assert!(!contains(b"ab", b"abc", false));
        assert!(contains(b"xxABc", b"abc", true));
        assert!(!contains(b"xxABc", b"abc", false));
        // '@' | 0x20 == '`': a candidate, rejected by the full comparison.
        assert!(!contains(b"@bc", b"`bc", true));
        assert!(contains(b"a@b", b"@B", true));
        assert!(contains(b"aaab", b"aab", false));
    }

    #[test]
    fn prefix_filter_uses_the_sorted_order() {
        let mut l = list(&["user:1", "xuser:2", "user:3", "users"]);
        l.set_filter("^user:");
        assert_eq!(shown(&l), ["user:1", "user:3"]);
        l.set_filter("^");
        assert_eq!(l.match_count(), 4);
    }

    #[test]
    fn escapes_in_filters() {
        let mut l = KeyList::new(KeySet::from_keys([&b"a\0b"[..], b"ab", b"\\x0"]), b':');
        // Typed one character at a time: a half-typed escape is an error
        // until it completes.
        for text in ["\\", "\\x", "\\x0", "\\x00"] {
            l.set_filter(text);
        }
        assert_eq!(shown(&l), ["a\0b"]);
        for bad in ["\\x0", "\\x", "\\q", "^\\x0", "a*\\q"] {
            l.set_filter(bad);
            assert!(shown(&l).is_empty(), "{bad}");
            let error = l.pattern().and_then(|p| p.error.clone());
            assert!(error.is_some_and(|e| e.starts_with("bad escape")), "{bad}");
        }
        // The key `\x0` itself: its backslash doubled.
        l.set_filter("\\\\x0");
        assert_eq!(shown(&l), ["\\x0"]);
    }

    #[test]
    fn tree_groups_on_the_delimiter() {
        let mut l = list(&["user:1:name", "user:1:mail", "user:2", "config", "solo:x"]);
        l.set_view(ListView::Tree);
        assert_eq!(shown(&l), ["config", "solo:x", "+user: (3)"]);
        assert!(l.toggle_group(2));
        assert_eq!(
            shown(&l),
            [
                "config",
                "solo:x",
                "-user: (3)",
                "  +user:1: (2)",
                "  user:2"
            ]
        );
        assert!(l.toggle_group(3));
        assert_eq!(
            shown(&l),
            [
                "config",
                "solo:x",
                "-user: (3)",
                "  -user:1: (2)",
                "    user:1:mail",
                "    user:1:name",
                "  user:2"
            ]
        );
        assert_eq!(l.parent_of(4), Some(3));
        assert_eq!(l.parent_of(3), Some(2));
        assert_eq!(l.row_of(b"user:1:name"), Some(5));
        assert!(!l.toggle_group(0));
        // The filter applies inside groups.
        l.set_filter("mail");
        assert_eq!(shown(&l), ["user:1:mail"]);
        l.set_filter("");
        l.set_delimiter(b'.');
        assert_eq!(l.row_count(), 5);
    }

    #[test]
    fn expiring_view_sorts_by_expiry() {
        let mut s = KeySet::new();
        s.push(b"a", 1, 0);
        s.push(b"b", 1, 3000);
        s.push(b"c", 1, 1000);
        s.sort();
        let mut l = KeyList::new(s, b':');
        l.set_view(ListView::Expiring);
        assert_eq!(shown(&l), ["c", "b"]);
        assert_eq!(l.match_count(), 2);
        assert_eq!(l.row_of(b"b"), Some(1));
    }

    #[test]
    fn changes_keep_the_order() {
        let mut s = KeySet::from_keys(["b", "d", "f"]);
        let up = |k: &str, size| KeyChange::Upsert {
            key: k.into(),
            size,
            expires_ms: 0,
        };
        assert!(!s.apply(vec![up("d", 7)]), "an update moves nothing");
        assert_eq!(s.entry(1).unwrap().size, 7);
        assert!(s.apply(vec![
            up("a", 1),
            up("e", 1),
            KeyChange::Remove(b"b".to_vec()),
            up("g", 1),
            KeyChange::Remove(b"x".to_vec()),
            up("c", 1),
            KeyChange::Remove(b"c".to_vec()),
        ]));
        let keys: Vec<_> = (0..s.len()).map(|i| s.key(i).to_vec()).collect();
        assert_eq!(keys, [&b"a"[..], b"d", b"e", b"f", b"g"]);
        assert_eq!(s.find(b"e"), Some(2));
        // Removing most keys reclaims the arena.
        let before = s.bytes.len();
        s.apply(
            ["a", "d", "e", "f"]
                .map(|k| KeyChange::Remove(k.into()))
                .into(),
        );
        assert_eq!(s.len(), 1);
        assert_eq!(s.key(0), b"g");
        assert!(s.bytes.len() < before);
        let mut l = KeyList::new(KeySet::from_keys(["x1", "y"]), b':');
        l.set_filter("1");
        l.apply(vec![up("a1", 0), up("b", 0)]);
        assert_eq!(shown(&l), ["a1", "x1"]);
    }

    #[test]
    fn replacing_the_set_keeps_the_filter() {
        let mut l = list(&["a1", "b1"]);
        l.set_filter("1");
        l.replace_set(KeySet::from_keys(["a1", "b1", "c1", "d"]));
        assert_eq!(l.match_count(), 3);
    }
}
