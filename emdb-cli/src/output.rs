//! Printing: the [`Ui`] every command writes through, and the stable,
//! serialize-only JSON types (their field names are part of the interface).

use std::borrow::Cow;
use std::io::Write;

use serde::Serialize;

use crate::encoding::{display, escape_line, is_invisible, json_field, Codec, Encoding, Layout};
use crate::error::{CliError, CliResult};

/// Where and how a command prints.
pub struct Ui<'a> {
    /// Data goes here (stdout, buffered).
    pub out: &'a mut dyn Write,
    /// Print JSON instead of text.
    pub json: bool,
    /// No status reports and no progress bars.
    pub quiet: bool,
    /// Encodings of keys and values.
    pub codec: Codec,
    /// True when the user can be asked a question (stdin and stderr are a
    /// terminal, and stdin is not the command stream of `emdb shell`).
    pub interactive: bool,
    /// True when stdin may be read for data (not inside `emdb shell`).
    pub stdin_free: bool,
}

impl Ui<'_> {
    /// Write one line of text to stdout.
    pub fn line(&mut self, text: &str) -> CliResult {
        self.out
            .write_all(text.as_bytes())
            .and_then(|_| self.out.write_all(b"\n"))
            .map_err(CliError::stdout)
    }

    /// Write raw bytes to stdout.
    pub fn bytes(&mut self, bytes: &[u8]) -> CliResult {
        self.out.write_all(bytes).map_err(CliError::stdout)
    }

    /// Write `value` as one line of JSON, with control and invisible
    /// characters in strings as `\uXXXX` escapes (see [`ShownJson`]).
    pub fn json_line<T: Serialize>(&mut self, value: &T) -> CliResult {
        let mut ser = serde_json::Serializer::with_formatter(&mut *self.out, ShownJson);
        value
            .serialize(&mut ser)
            .map_err(|e| match e.io_error_kind() {
                Some(kind) => CliError::stdout(std::io::Error::from(kind)),
                None => CliError::bad_input(format!("cannot encode JSON: {e}")),
            })?;
        self.out.write_all(b"\n").map_err(CliError::stdout)
    }

    /// A status report ("deleted 3 keys"): a line of text on stdout, unless
    /// `--quiet`. JSON mode prints the JSON document instead, even when quiet.
    /// The text is a message: its control and invisible characters (of a
    /// path it names) are escaped ([`escape_line`]).
    pub fn report<T: Serialize>(&mut self, text: &str, json: &T) -> CliResult {
        if self.json {
            self.json_line(json)
        } else if self.quiet {
            Ok(())
        } else {
            self.line(&escape_line(text))
        }
    }

    /// A key as text for a listing, in the key encoding.
    pub fn key_text<'k>(&self, key: &'k [u8]) -> Cow<'k, str> {
        display(self.codec.key, key, Layout::Field)
    }

    /// A key for a message, in the key encoding: see [`quoted`].
    pub fn quoted_key(&self, key: &[u8]) -> String {
        quoted(self.codec.key, key)
    }

    /// "key K not found" (exit 1), after printing `null` in JSON mode: a
    /// command that prints one JSON document prints one even for a missing
    /// key, so `emdb ttl --json k | jq` always reads one (docs/CLI.md).
    pub fn key_not_found(&mut self, key: &[u8]) -> CliError {
        if self.json {
            if let Err(e) = self.line("null") {
                return e;
            }
        }
        CliError::not_found(format!("key {} not found", self.quoted_key(key)))
    }

    /// A record (or a key alone) as its JSON type.
    pub fn record<'r>(&self, key: &'r [u8], value: Option<&'r [u8]>) -> Record<'r> {
        let (key, key_encoding) = json_field(self.codec.key, key);
        let (value, value_encoding) = match value {
            Some(v) => {
                let (s, e) = json_field(self.codec.value, v);
                (Some(s), e)
            }
            None => (None, None),
        };
        Record {
            key,
            key_encoding,
            value,
            value_encoding,
        }
    }

    /// A message for a person on stderr (prompts, notes), unless quiet;
    /// control and invisible characters escaped ([`escape_line`]).
    pub fn note(&self, text: &str) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr().lock(), "{}", escape_line(text));
        }
    }
}

/// serde_json's compact layout, but a string's control characters (C1
/// and DEL included, which serde_json writes raw) and
/// [invisible](is_invisible) characters (zero-width and bidi marks, line
/// separators, ...) are written as `\uXXXX` escapes, so that JSON on a
/// terminal shows them. Any JSON reader decodes the escapes back to the
/// same string: nothing is lost.
pub struct ShownJson;

impl serde_json::ser::Formatter for ShownJson {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some((at, c)) = rest
            .char_indices()
            .find(|&(_, c)| c.is_control() || is_invisible(c))
        {
            let (shown, after) = rest.split_at(at);
            writer.write_all(shown.as_bytes())?;
            for unit in c.encode_utf16(&mut [0; 2]) {
                write!(writer, "\\u{unit:04x}")?;
            }
            rest = after.get(c.len_utf8()..).unwrap_or_default();
        }
        writer.write_all(rest.as_bytes())
    }
}

/// Bytes of a key or value that a message shows before cutting it short.
const SHOWN_BYTES: usize = 64;

/// `bytes` for a message: in quotes, in `enc` (text escaped as in
/// listings). Past [`SHOWN_BYTES`] only the start is shown, then the size
/// (`"abc..."... (65536 bytes)`), so that a 64 KiB key or a 256 MiB value
/// does not flood the terminal.
pub fn quoted(enc: Encoding, bytes: &[u8]) -> String {
    if bytes.len() <= SHOWN_BYTES {
        return format!("\"{}\"", display(enc, bytes, Layout::Field));
    }
    let mut cut = SHOWN_BYTES;
    if enc == Encoding::Text {
        // Not inside a character: a cut one would show as `\xNN` bytes.
        if let Err(e) = std::str::from_utf8(&bytes[..cut]) {
            if e.error_len().is_none() {
                cut = e.valid_up_to();
            }
        }
    }
    format!(
        "\"{}\"... ({} bytes)",
        display(enc, &bytes[..cut], Layout::Field),
        bytes.len()
    )
}

/// One key-value record, as in `get --json`, `scan --json` and JSON Lines
/// export. A field without `*_encoding` is UTF-8 text.
#[derive(Debug, Serialize)]
pub struct Record<'a> {
    /// The key.
    pub key: Cow<'a, str>,
    /// `"hex"` or `"base64"` when the key is not plain text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_encoding: Option<&'static str>,
    /// The value (absent for `--keys-only`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Cow<'a, str>>,
    /// `"hex"` or `"base64"` when the value is not plain text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_encoding: Option<&'static str>,
}

/// `exists --json`.
#[derive(Debug, Serialize)]
pub struct ExistsReport<'a> {
    /// The key, as in [`Record`].
    #[serde(flatten)]
    pub key: Record<'a>,
    /// Whether it exists.
    pub exists: bool,
}

/// `ttl --json`, `expire --json`, `persist --json`.
#[derive(Debug, Serialize)]
pub struct ExpiryReport<'a> {
    /// The key, as in [`Record`].
    #[serde(flatten)]
    pub key: Record<'a>,
    /// Milliseconds left (`null`: no expiry).
    pub ttl_ms: Option<u64>,
    /// When it expires, in ms since the Unix epoch (`null`: never).
    pub expires_at_ms: Option<u64>,
    /// `expire`, `persist`: whether the expiry changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<bool>,
}

/// `count --json`.
#[derive(Debug, Serialize)]
pub struct CountReport {
    /// Number of keys.
    pub count: u64,
}

/// `del --json`.
#[derive(Debug, Serialize)]
pub struct DelReport {
    /// Keys deleted.
    pub deleted: u64,
    /// Keys asked for that did not exist.
    pub not_found: u64,
    /// Keys matching `--prefix` (with `--prefix` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<u64>,
    /// True for `--dry-run`: nothing was deleted.
    pub dry_run: bool,
}

/// `compact --json`.
#[derive(Debug, Serialize)]
pub struct CompactReport {
    /// True for `--dry-run`: nothing was rewritten.
    pub dry_run: bool,
    /// Bytes of superseded or deleted records before compacting.
    pub dead_bytes_before: u64,
    /// Bytes of the log in use before.
    pub log_bytes_before: u64,
    /// Bytes of the log in use after (equal to before for a dry run).
    pub log_bytes_after: u64,
    /// Bytes reclaimed (the estimate, for a dry run).
    pub reclaimed_bytes: u64,
}

/// `lock status --json` and `lock break --json`.
#[derive(Debug, Serialize)]
pub struct LockReport {
    /// The database file.
    pub path: String,
    /// True while a process holds the lock.
    pub locked: bool,
    /// The recorded holder, when there is a lock file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<HolderReport>,
    /// For `lock break`: whether a lock file was removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<bool>,
}

/// A lock holder.
#[derive(Debug, Serialize)]
pub struct HolderReport {
    /// Process id.
    pub pid: u32,
    /// Host name, when recorded.
    pub hostname: Option<String>,
    /// Process start time in clock ticks since boot, when recorded.
    pub start_time: Option<u64>,
    /// True when the recorded process still runs.
    pub running: bool,
}

/// `import --json` and `export --json`.
#[derive(Debug, Serialize)]
pub struct TransferReport {
    /// Records read or written.
    pub records: u64,
    /// Atomic batches committed (import only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batches: Option<u64>,
    /// Records skipped because they had expired already (import only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expired: Option<u64>,
    /// `jsonl`, `csv`, `resp`, or `redis` for `import --from`.
    pub format: &'static str,
    /// Seconds taken.
    pub seconds: f64,
    /// `import --from`: keys of other types than string, by type; not copied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_types: Option<std::collections::BTreeMap<String, u64>>,
    /// `import --from`: keys that expired or were deleted during the copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gone: Option<u64>,
    /// `import --from`: keys `emdb sync` keeps for itself (its cursors and
    /// leases); not copied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync_keys: Option<u64>,
    /// `export --salvage`: what the salvage skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub salvage: Option<SalvageReport>,
}

/// What `export --salvage` left out of a damaged database.
#[derive(Debug, Serialize)]
pub struct SalvageReport {
    /// The damaged ranges skipped (offsets into the database file).
    pub skipped: Vec<DamageReport>,
    /// Their bytes, all together.
    pub skipped_bytes: u64,
    /// Records that verified but whose namespace was lost with a range.
    pub orphaned_records: u64,
    /// Where an unsynced, incomplete tail was cut (not damage).
    pub truncated_tail_at: Option<u64>,
}

/// `stats --json`.
#[derive(Debug, Serialize)]
pub struct StatsReport {
    /// When the report was taken, in ms since the Unix epoch (only in the
    /// lines of `stats --watch`, so that each line says its time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp_ms: Option<u64>,
    /// The database file.
    pub path: String,
    /// Keys in the index across all namespaces; keys whose expiry has
    /// passed count until swept or compacted (`count` leaves them out).
    pub live_records: u64,
    /// Of those, keys that carry an expiry (some may have expired).
    pub expiring_records: u64,
    /// Keys per namespace (`""` is the default one), counted as
    /// `live_records` is.
    pub namespaces: Vec<NamespaceReport>,
    /// Entries in the hash indexes.
    pub index_entries: u64,
    /// Heap bytes of the hash indexes.
    pub index_memory_bytes: u64,
    /// Bytes of the log in use.
    pub log_logical_bytes: u64,
    /// Size of the file on disk, including preallocated room.
    pub file_bytes: u64,
    /// Bytes of current records.
    pub live_bytes: u64,
    /// Bytes reclaimable by compaction.
    pub dead_bytes: u64,
    /// True for a read-only handle, whose activity counters are the
    /// writer's (from the stats file it publishes).
    pub read_only: bool,
    /// Records written since open (by the writer, for a read-only handle).
    pub writes: u64,
    /// Flushes since open.
    pub flushes: u64,
    /// fdatasync calls since open.
    pub fsyncs: u64,
    /// Median fdatasync latency, microseconds.
    pub fsync_p50_us: u64,
    /// 99th-percentile fdatasync latency, microseconds.
    pub fsync_p99_us: u64,
    /// Compactions since open.
    pub compactions: u64,
    /// When the last compaction finished (ms since the Unix epoch).
    pub last_compaction_unix_ms: Option<u64>,
    /// Pid of the writer whose counters these are (read-only handles).
    pub writer_pid: Option<u32>,
    /// When that writer last published them (ms since the Unix epoch).
    pub published_unix_ms: Option<u64>,
    /// Whether `writer_pid` holds the writer lock now (absent without a
    /// `writer_pid`): false for a writer that exited, or a reused pid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writer_running: Option<bool>,
    /// True when records are encrypted.
    pub encrypted: bool,
    /// Records sealed under the current key.
    pub encryptions: u64,
    /// Set when the key has sealed so many records that it should be rotated.
    pub nonce_budget_warning: bool,
    /// Records replayed from the log at open.
    pub recovery_records_replayed: u64,
    /// Whether open loaded an index checkpoint.
    pub recovery_used_checkpoint: bool,
    /// Whether open took the log written since the checkpoint from the
    /// writer's tail index (a one-shot `stats` beside a running writer).
    pub recovery_used_tail_index: bool,
}

/// `check --json`.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    /// The database.
    pub path: String,
    /// Records whose checksum (and seal) verified.
    pub records: u64,
    /// Units (single records and atomic batches) that verified.
    pub units: u64,
    /// Bytes of the log checked.
    pub bytes: u64,
    /// End of the durable part of the log.
    pub durable_end: u64,
    /// True when nothing in the durable part is damaged, and the
    /// checkpoint is not.
    pub clean: bool,
    /// Every damaged range, in file order.
    pub damaged: Vec<DamageReport>,
    /// Damage in the checkpoint (`<db>.ckpt`, an index of the log).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<CheckpointDamage>,
    /// With `--repair` of a damaged checkpoint: it was removed and a
    /// writer's open rebuilt it from the log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_rebuilt: Option<bool>,
    /// What `--repair` did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair: Option<RepairReport>,
    /// With `--repair`: whether a check after the repair found it clean.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clean_after_repair: Option<bool>,
}

/// A damaged page of the checkpoint.
#[derive(Debug, Serialize)]
pub struct CheckpointDamage {
    /// The checkpoint file.
    pub path: String,
    /// Offset of the damaged page in it.
    pub offset: u64,
    /// What is wrong there.
    pub reason: String,
}

/// One damaged (or dropped) range.
#[derive(Debug, Serialize)]
pub struct DamageReport {
    /// Offset of the first bad byte.
    pub offset: u64,
    /// Bytes until the next valid record.
    pub len: u64,
    /// What is wrong there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// True inside the durable log (real damage); false for an unsynced
    /// tail that recovery cuts.
    pub durable: bool,
}

/// What `check --repair` dropped.
#[derive(Debug, Serialize)]
pub struct RepairReport {
    /// The ranges skipped by salvage.
    pub dropped: Vec<DamageReport>,
    /// Their total size.
    pub dropped_bytes: u64,
    /// Where an unsynced tail was cut, if one was.
    pub truncated_tail_at: Option<u64>,
    /// Records whose namespace was lost with a dropped range.
    pub orphaned_records: u64,
    /// Live keys after the repair.
    pub live_records: u64,
    /// The copy of the damaged file.
    pub kept_copy: String,
}

/// `encrypt --json`, `decrypt --json`, `rotate-key --json`.
#[derive(Debug, Serialize)]
pub struct AdminReport {
    /// `encrypt`, `decrypt` or `rotate-key`.
    pub action: &'static str,
    /// The database.
    pub path: String,
    /// The cipher chosen by `encrypt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cipher: Option<&'static str>,
    /// The old file, when kept (`null` unless --keep-backup).
    pub backup: Option<String>,
    /// Seconds taken.
    pub seconds: f64,
}

/// `backup --json`.
#[derive(Debug, Serialize)]
pub struct BackupReport {
    /// The database.
    pub path: String,
    /// The copy.
    pub dest: String,
    /// Size of the copy.
    pub bytes: u64,
    /// Whether the copy is encrypted (as its source).
    pub encrypted: bool,
    /// Seconds taken.
    pub seconds: f64,
}

/// `ns drop --json`.
#[derive(Debug, Serialize)]
pub struct NsDropReport {
    /// The namespace.
    pub name: String,
    /// Keys it held.
    pub keys: u64,
    /// True once dropped.
    pub dropped: bool,
}

/// One namespace in [`StatsReport`] and `ns list --json`.
#[derive(Debug, Serialize)]
pub struct NamespaceReport {
    /// Its name.
    pub name: String,
    /// Its live keys.
    pub keys: u64,
}

/// `bench --json`.
#[derive(Debug, Serialize)]
pub struct BenchReport {
    /// Records written by the set workload (and operations per workload).
    pub records: u64,
    /// Bytes per value.
    pub value_size: usize,
    /// Threads per workload.
    pub threads: u64,
    /// The emdb database file used.
    pub path: String,
    /// Whether the emdb database was encrypted.
    pub encrypted: bool,
    /// The Redis server compared with (`host:port`).
    pub redis: Option<String>,
    /// One entry per engine and workload.
    pub results: Vec<BenchResult>,
    /// Close, reopen and replay of the emdb database.
    pub reopen: ReopenReport,
}

/// One workload on one engine.
#[derive(Debug, Serialize)]
pub struct BenchResult {
    /// `emdb` or `redis`.
    pub engine: &'static str,
    /// `set`, `get` or `mixed`.
    pub workload: &'static str,
    /// Operations.
    pub ops: u64,
    /// Wall time, including the final flush of writing workloads.
    pub seconds: f64,
    /// Operations per second.
    pub ops_per_sec: f64,
    /// Median latency of one operation, microseconds.
    pub p50_us: f64,
    /// 95th-percentile latency, microseconds.
    pub p95_us: f64,
    /// 99th-percentile latency, microseconds.
    pub p99_us: f64,
}

/// Close, reopen and replay times of `bench`.
#[derive(Debug, Serialize)]
pub struct ReopenReport {
    /// Live keys after the workloads.
    pub keys: u64,
    /// Size of the database file.
    pub file_bytes: u64,
    /// Closing the last handle (sync and checkpoint), milliseconds.
    pub close_ms: f64,
    /// Opening again with the checkpoint, milliseconds.
    pub reopen_ms: f64,
    /// Whether that open used the checkpoint.
    pub reopen_used_checkpoint: bool,
    /// Opening without the checkpoint (replaying the whole log), milliseconds.
    pub replay_ms: f64,
    /// Records replayed by that open.
    pub records_replayed: u64,
}
