//! Printing: the [`Ui`] every command writes through, and the stable,
//! serialize-only JSON types (their field names are part of the interface).

use std::borrow::Cow;
use std::io::Write;

use serde::Serialize;

use crate::encoding::{display, json_field, Codec, Layout};
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

    /// Write `value` as one line of JSON.
    pub fn json_line<T: Serialize>(&mut self, value: &T) -> CliResult {
        serde_json::to_writer(&mut *self.out, value).map_err(|e| match e.io_error_kind() {
            Some(kind) => CliError::stdout(std::io::Error::from(kind)),
            None => CliError::bad_input(format!("cannot encode JSON: {e}")),
        })?;
        self.out.write_all(b"\n").map_err(CliError::stdout)
    }

    /// A status report ("deleted 3 keys"): a line of text on stdout, unless
    /// `--quiet`. JSON mode prints the JSON document instead, even when quiet.
    pub fn report<T: Serialize>(&mut self, text: &str, json: &T) -> CliResult {
        if self.json {
            self.json_line(json)
        } else if self.quiet {
            Ok(())
        } else {
            self.line(text)
        }
    }

    /// A key as text for a listing, in the key encoding.
    pub fn key_text<'k>(&self, key: &'k [u8]) -> Cow<'k, str> {
        display(self.codec.key, key, Layout::Field)
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

    /// A message for a person on stderr (prompts, notes), unless quiet.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr().lock(), "{text}");
        }
    }
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
    /// `jsonl`, `csv` or `resp`.
    pub format: &'static str,
    /// Seconds taken.
    pub seconds: f64,
}

/// The first line of a JSON Lines export.
#[derive(Debug, Serialize)]
pub struct ExportHeader {
    /// Export format version (1).
    pub emdb_export: u32,
    /// Namespaces in the export (`""` is the default namespace).
    pub namespaces: Vec<String>,
    /// Whether the source database was encrypted.
    pub encrypted: bool,
}

/// `stats --json`.
#[derive(Debug, Serialize)]
pub struct StatsReport {
    /// The database file.
    pub path: String,
    /// Live keys across all namespaces.
    pub live_records: u64,
    /// Live keys per namespace (`""` is the default one).
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
    /// Records written by this process since open.
    pub writes: u64,
    /// Flushes by this process since open.
    pub flushes: u64,
    /// fdatasync calls by this process since open.
    pub fsyncs: u64,
    /// Median fdatasync latency, microseconds.
    pub fsync_p50_us: u64,
    /// 99th-percentile fdatasync latency, microseconds.
    pub fsync_p99_us: u64,
    /// Compactions by this process since open.
    pub compactions: u64,
    /// When the last compaction finished (ms since the Unix epoch).
    pub last_compaction_unix_ms: Option<u64>,
    /// Records replayed from the log at open.
    pub recovery_records_replayed: u64,
    /// Whether open loaded an index checkpoint.
    pub recovery_used_checkpoint: bool,
}

/// One namespace in [`StatsReport`].
#[derive(Debug, Serialize)]
pub struct NamespaceReport {
    /// Its name.
    pub name: String,
    /// Its live keys.
    pub keys: u64,
}
