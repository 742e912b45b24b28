//! The command line, defined once with clap derive.
//!
//! Doc comments here are the only source of the help text, the completion
//! scripts in `completions/` and docs/CLI.md's option lists.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
pub use emdb_tools::database::parse_duration;
use emdb_tools::secret::SecretOptions;
use emdb_tools::{Encoding, TransferFormat};

const EXAMPLES: &str = "\
Examples:
  emdb put user:1 james                 store a value (default database)
  emdb get user:1                       print it, exit 1 when missing
  printf 'x\\0y' | emdb put blob -       value from stdin, bytes kept exactly
  emdb --hex get 626c6f62               keys and values as hex
  emdb scan --prefix user: --json       sorted, one JSON object per line
  emdb del --prefix tmp: --yes          delete by prefix (asks on a terminal)
  emdb --db app.emdb export > dump.jsonl
  emdb --db copy.emdb import dump.jsonl
  emdb export --format resp | redis-cli --pipe
  emdb stats --format prometheus
  emdb -n sessions put s:1 data --ttl 30m   namespaces and expiry
  emdb check --repair                   verify every record, salvage
  emdb --passphrase-file pw.txt get k   open an encrypted database
  printf 'put a 1\\nget a\\n' | emdb shell

Exit codes: 0 ok, 1 not found, 2 usage, 3 locked, 4 corrupt,
5 wrong key, 6 I/O, 7 bad input, 8 leftover backup, 9 sync target down,
130 interrupted. See docs/CLI.md.";

/// emdb: an embedded key-value database, from the command line.
///
/// Keys and values are UTF-8 text by default; use --hex, --base64 or
/// --key-format/--value-format for binary data. Reading commands open the
/// database read-only, without the writer lock, so they work while another
/// process writes (and see its writes as they become visible).
#[derive(Debug, Parser)]
#[command(name = "emdb", version, after_help = EXAMPLES, max_term_width = 100)]
pub struct Cli {
    /// Options that apply to every command.
    #[command(flatten)]
    pub global: GlobalArgs,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options accepted before or after any command.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Database file [default: the platform data directory's
    /// emdb/emdb-default.emdb].
    #[arg(
        long,
        global = true,
        env = "EMDB_PATH",
        hide_env_values = true,
        value_name = "PATH"
    )]
    pub db: Option<PathBuf>,

    /// Never write: reading commands only (writing ones fail with exit 2).
    #[arg(long, global = true)]
    pub read_only: bool,

    /// How long a writing command waits while another process holds the
    /// writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds; at most
    /// 100 years), then fails with exit code 3. 0 fails at once.
    #[arg(
        long,
        global = true,
        env = "EMDB_LOCK_TIMEOUT",
        value_name = "DURATION",
        value_parser = parse_duration,
        default_value = DEFAULT_LOCK_TIMEOUT
    )]
    pub lock_timeout: Option<Duration>,

    /// The namespace data commands work in [default: the default
    /// namespace]. Commands that add keys (put, incr, decr, import) create
    /// it; the others fail with exit 1 when it does not exist (even with
    /// --quiet). `emdb ns list` shows them.
    #[arg(
        short = 'n',
        long,
        global = true,
        value_name = "NAME",
        help_heading = "Global options"
    )]
    pub namespace: Option<String>,

    /// True when `--db` was typed on the command line (not taken from
    /// EMDB_PATH); set by `main`, used by `bench`.
    #[arg(skip)]
    pub db_on_command_line: bool,

    /// Output and input encodings, JSON and quiet mode.
    #[command(flatten)]
    pub output: OutputArgs,

    /// Where the key or passphrase of an encrypted database comes from.
    #[command(flatten)]
    pub secret: SecretArgs,
}

/// The secret of an encrypted database. Never a plain argument: a file, an
/// environment variable, or a hidden prompt on a terminal.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Encryption")]
pub struct SecretArgs {
    /// Read the passphrase from FILE (its contents without a trailing
    /// newline). Else the EMDB_PASSPHRASE environment variable; else, on a
    /// terminal, emdb asks when the database is encrypted.
    #[arg(long, global = true, value_name = "FILE", conflicts_with = "key_file")]
    pub passphrase_file: Option<PathBuf>,

    /// Read the raw 256-bit key from FILE: 32 bytes, or 64 hex digits.
    /// Else the file named by the EMDB_KEY_FILE environment variable.
    #[arg(long, global = true, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
}

impl SecretArgs {
    /// The options as the shared toolkit takes them.
    pub fn options(&self) -> SecretOptions {
        SecretOptions {
            passphrase_file: self.passphrase_file.clone(),
            key_file: self.key_file.clone(),
        }
    }
}

/// Options that shape input decoding and output; the shell accepts them on
/// every line too.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Output and encoding")]
pub struct OutputArgs {
    /// Print results as JSON (one document, or one object per line for
    /// streams).
    #[arg(long, global = true)]
    pub json: bool,

    /// No progress bars and no status reports; data and errors still print.
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Encoding of keys in arguments, stdin, output, import and export.
    #[arg(long, global = true, value_enum, value_name = "FORMAT")]
    pub key_format: Option<EncodingArg>,

    /// Encoding of values in arguments, stdin, output, import and export.
    #[arg(long, global = true, value_enum, value_name = "FORMAT")]
    pub value_format: Option<EncodingArg>,

    /// Shorthand for --key-format hex --value-format hex.
    #[arg(long, global = true, conflicts_with = "base64")]
    pub hex: bool,

    /// Shorthand for --key-format base64 --value-format base64.
    #[arg(long, global = true)]
    pub base64: bool,
}

/// How bytes are written as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EncodingArg {
    /// UTF-8 text, bytes as given; non-printable output is escaped.
    Text,
    /// Two hex digits per byte.
    Hex,
    /// Standard base64 with padding.
    Base64,
}

/// How long writers wait for the writer lock unless told otherwise
/// (`--lock-timeout`, `EMDB_LOCK_TIMEOUT`); docs/CLI.md documents it.
pub const DEFAULT_LOCK_TIMEOUT: &str = "10s";

/// The commands.
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Store a value under a key (replacing any old value).
    #[command(after_help = "Examples:\n  emdb put user:1 james\n  \
        echo -n 'from stdin' | emdb put note -\n  emdb put logo --file logo.png\n  \
        emdb -n sessions put s:42 token --ttl 30m")]
    Put(PutArgs),

    /// Add to an integer value atomically and print the result (a missing
    /// key counts as 0).
    #[command(
        after_help = "Examples:\n  emdb incr visits\n  emdb incr stock:42 --by -3\n\n\
        The value must be a decimal integer (i64) as Redis's INCR takes one: 42, -7\n\
        (not +5, 05 or -0); its expiry is kept. The read and the write are one\n\
        transaction under the writer lock, so parallel `incr`s never lose an update."
    )]
    Incr(IncrArgs),

    /// Subtract from an integer value atomically and print the result (a
    /// missing key counts as 0).
    #[command(after_help = "Examples:\n  emdb decr stock:42\n  emdb decr stock:42 --by 5")]
    Decr(IncrArgs),

    /// Print the value of a key and a newline (exit 1 when missing).
    #[command(after_help = "Examples:\n  emdb get user:1\n  \
        emdb get logo --raw > logo.png\n  emdb get user:1 --json")]
    Get(GetArgs),

    /// Delete keys, or every key with a prefix.
    #[command(after_help = "Examples:\n  emdb del user:1 user:2\n  \
        emdb del --prefix tmp: --dry-run\n  emdb del --prefix tmp: --yes")]
    Del(DelArgs),

    /// Exit 0 when the key exists, 1 when it does not.
    #[command(after_help = "Example:\n  emdb exists user:1 && echo present")]
    Exists(KeyArgs),

    /// Print the number of keys (in the namespace of -n).
    #[command(after_help = "Examples:\n  emdb count\n  emdb -n sessions count")]
    Count,

    /// List keys and values, sorted by key bytes.
    #[command(after_help = "Examples:\n  emdb scan --prefix user:\n  \
        emdb scan --from a --to m --keys-only\n  emdb scan --glob 'user:*:name' --json --limit 10")]
    Scan(ScanArgs),

    /// Sizes and activity counters of the database.
    #[command(after_help = "Examples:\n  emdb stats\n  emdb stats --json\n  \
        emdb stats --format prometheus\n  emdb stats --watch 5")]
    Stats(StatsArgs),

    /// Rewrite the file with only live records, reclaiming dead bytes.
    #[command(after_help = "Examples:\n  emdb compact --dry-run\n  emdb compact")]
    Compact(CompactArgs),

    /// Inspect or remove the writer lock.
    #[command(subcommand)]
    Lock(LockCommand),

    /// Load records from a file (or stdin) in JSON Lines, CSV or Redis
    /// protocol, or copy the string keys of a Redis server (--from).
    ///
    /// Each record goes to the namespace it names, else to the one -n names,
    /// else to the default one; its expiry is kept, and records that have
    /// expired already are skipped. Atomic batches of 10,000 records.
    #[command(after_help = "Examples:\n  emdb import dump.jsonl\n  \
        emdb import --format csv data.csv\n  cat dump.jsonl | emdb import -\n  \
        emdb import --from redis://127.0.0.1:6379/0")]
    Import(ImportArgs),

    /// Write every record, with its namespace and expiry, to a file (or
    /// stdout); all namespaces, or only the one -n names.
    #[command(after_help = "Examples:\n  emdb export > dump.jsonl\n  \
        emdb export --format csv data.csv\n  emdb export --format resp | redis-cli --pipe\n  \
        emdb export --salvage rescued.jsonl")]
    Export(ExportArgs),

    /// Print the time left before a key expires (exit 1 when missing).
    #[command(
        after_help = "Examples:\n  emdb ttl session:1          # 29.874s, or `no expiry`\n  \
        emdb ttl session:1 --json   # {\"key\":\"session:1\",\"ttl_ms\":29874,\"expires_at_ms\":...}"
    )]
    Ttl(KeyArgs),

    /// Make a key expire DURATION from now (exit 1 when missing).
    #[command(after_help = "Examples:\n  emdb expire session:1 30m\n  emdb expire tmp 500ms")]
    Expire(ExpireArgs),

    /// Remove the expiry of a key, so it lives until deleted (exit 1 when
    /// missing).
    #[command(after_help = "Example:\n  emdb persist session:1")]
    Persist(KeyArgs),

    /// List or drop namespaces.
    #[command(subcommand)]
    Ns(NsCommand),

    /// Write a consistent copy of the database to DEST while writers go on.
    #[command(
        after_help = "Examples:\n  emdb backup /backups/app-$(date +%F).emdb\n  \
        emdb --db /backups/app-2025-01-31.emdb count   # the copy opens like any database"
    )]
    Backup(BackupArgs),

    /// Verify every record's checksum (and seal); report damage with offsets.
    ///
    /// Exits 4 when damage is found in the durable part of the log. An
    /// unsynced tail that recovery would cut is reported but is not damage.
    /// `--repair` salvages: it keeps a copy of the damaged file, drops the
    /// damaged records and rewrites the database.
    #[command(after_help = "Examples:\n  emdb check\n  emdb check --json\n  \
        emdb check --repair --yes")]
    Check(CheckArgs),

    /// Encrypt a plain database with the secret from --passphrase-file,
    /// --key-file, EMDB_PASSPHRASE, EMDB_KEY_FILE or a prompt.
    ///
    /// Rewrites the file offline (it takes the writer lock). The old,
    /// unencrypted file is kept as `<db>.encbak` until every record of the
    /// new one has been read back, then deleted (--keep-backup keeps it).
    #[command(
        after_help = "Examples:\n  emdb encrypt                     # asks for a new passphrase twice\n  \
        emdb encrypt --key-file db.key --cipher chacha --yes"
    )]
    Encrypt(EncryptArgs),

    /// Decrypt an encrypted database into a plain one (the old file is
    /// deleted once the new one is verified; --keep-backup keeps it).
    #[command(after_help = "Example:\n  emdb --passphrase-file pw.txt decrypt --yes")]
    Decrypt(AdminArgs),

    /// Re-encrypt a database under a new key or passphrase.
    ///
    /// The current secret comes from the usual options; the new one from
    /// --new-passphrase-file, --new-key-file, or a prompt (asked twice).
    /// The old file is kept as `<db>.encbak` (still readable with the old
    /// secret) until every record of the new one has been read back, then
    /// deleted (--keep-backup keeps it).
    #[command(
        after_help = "Examples:\n  emdb --passphrase-file old.txt rotate-key --new-passphrase-file new.txt --yes\n  \
        emdb --key-file old.key rotate-key --new-key-file new.key --keep-backup --yes"
    )]
    RotateKey(RotateKeyArgs),

    /// Measure the seed workloads: sequential set, get, mixed 50% get /
    /// 40% set / 10% delete, latency percentiles, reopen and replay time.
    ///
    /// Runs on a new temporary database, or on `--db PATH` when given on the
    /// command line (it must not exist yet; it is removed afterwards unless
    /// --keep). EMDB_PATH is ignored: bench never touches your data.
    #[command(
        after_help = "Examples:\n  emdb bench\n  emdb bench --records 1000000 --value-size 150 --threads 4\n  \
        emdb bench --json > bench.json\n  emdb bench --redis redis://127.0.0.1:6379"
    )]
    Bench(BenchArgs),

    /// Run commands read from stdin, one per line, against one open database.
    ///
    /// Each line uses the same syntax as the command line without `emdb`
    /// (shell-like quoting; `#` starts a comment). A failing line does not
    /// stop the loop, but the exit code is that of the first failure.
    /// Writes are flushed when the shell ends.
    #[command(after_help = "Example:\n  printf 'put a 1\\nget a\\ndel a\\n' | emdb shell")]
    Shell,

    /// Copy the database into Redis or a Redis Cluster, then (with
    /// --follow) keep applying the writer's changes; resumable.
    ///
    /// Read-only beside the writer (takes no lock). Only durable records are
    /// sent; the cursor is saved in the target (or --state-file), so a
    /// restart resends at most the last batch. See docs/SCALING.md.
    #[command(after_help = "Examples:\n  emdb sync --to redis://127.0.0.1:6379\n  \
        emdb sync --to redis://10.0.0.5:7000 --cluster --follow --ns-prefix '{%n}:'\n  \
        emdb sync --to redis://127.0.0.1:6379/2 --follow --json")]
    Sync(crate::commands::SyncArgs),

    /// Print a shell completion script.
    #[command(
        after_help = "Example:\n  emdb completions bash > ~/.local/share/bash-completion/completions/emdb"
    )]
    Completions(CompletionsArgs),
}

/// Arguments of `put`.
#[derive(Debug, Clone, Args)]
pub struct PutArgs {
    /// The key.
    pub key: OsString,

    /// The value; `-` reads it from stdin (bytes kept exactly, no newline
    /// stripped in text format). A negative number (`-5`) is a value; put
    /// other values starting with `-` after `--`.
    #[arg(
        required_unless_present = "file",
        conflicts_with = "file",
        allow_negative_numbers = true
    )]
    pub value: Option<OsString>,

    /// Read the value from this file.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Expire the key this long from now: 500ms, 30s, 10m, 2h (a bare
    /// number is seconds; at most 100 years). Without it the key never
    /// expires (an old expiry is removed).
    #[arg(long, value_name = "DURATION", value_parser = parse_ttl)]
    pub ttl: Option<Duration>,

    /// Write only when the key does not exist yet; else write nothing and
    /// exit 1. The check and the write are one transaction under the
    /// writer lock.
    #[arg(long, conflicts_with = "if_value")]
    pub if_absent: bool,

    /// Write only when the key's current value is OLD (compare-and-set, in
    /// the value encoding in force); else write nothing and exit 1. The
    /// check and the write are one transaction under the writer lock.
    /// OLD may start with `-` (`--if-value -5`).
    #[arg(long, value_name = "OLD", allow_hyphen_values = true)]
    pub if_value: Option<OsString>,
}

/// Arguments of `incr` and `decr`.
#[derive(Debug, Clone, Args)]
pub struct IncrArgs {
    /// The key.
    pub key: OsString,

    /// The amount: a decimal 64-bit integer, may be negative (no `+`,
    /// leading zeros or spaces, as for the stored value).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        allow_negative_numbers = true,
        value_parser = parse_by
    )]
    pub by: i64,
}

/// Arguments of `get`.
#[derive(Debug, Clone, Args)]
pub struct GetArgs {
    /// The key.
    pub key: OsString,

    /// Write the exact value bytes, without escaping or a trailing newline.
    #[arg(long, conflicts_with = "json")]
    pub raw: bool,
}

/// Arguments of `del`.
#[derive(Debug, Clone, Args)]
pub struct DelArgs {
    /// Keys to delete (in one atomic batch). Exit 1 when any was missing.
    #[arg(required_unless_present = "prefix", conflicts_with = "prefix")]
    pub keys: Vec<OsString>,

    /// Delete every key starting with this prefix (in atomic batches of
    /// 10,000). Shows the count first and asks on a terminal.
    #[arg(long, value_name = "PREFIX")]
    pub prefix: Option<OsString>,

    /// Do not ask for confirmation (required when not on a terminal).
    #[arg(short, long, requires = "prefix")]
    pub yes: bool,

    /// Only report how many keys would be deleted.
    #[arg(long, requires = "prefix")]
    pub dry_run: bool,
}

/// Arguments of commands that take one key (`exists`, `ttl`, `persist`).
#[derive(Debug, Clone, Args)]
pub struct KeyArgs {
    /// The key.
    pub key: OsString,
}

/// Arguments of `expire`.
#[derive(Debug, Clone, Args)]
pub struct ExpireArgs {
    /// The key.
    pub key: OsString,

    /// How long from now: 500ms, 30s, 10m, 2h (a bare number is seconds;
    /// at most 100 years).
    #[arg(value_parser = parse_ttl)]
    pub duration: Duration,
}

/// Subcommands of `ns`.
#[derive(Debug, Clone, Subcommand)]
pub enum NsCommand {
    /// List the named namespaces and their key counts (tab-separated).
    #[command(after_help = "Examples:\n  emdb ns list\n  emdb ns list --json")]
    List,

    /// Drop a namespace and every key in it (asks on a terminal).
    #[command(after_help = "Examples:\n  emdb ns drop sessions\n  emdb ns drop sessions --yes")]
    Drop(NsDropArgs),
}

/// Arguments of `ns drop`.
#[derive(Debug, Clone, Args)]
pub struct NsDropArgs {
    /// The namespace.
    pub name: String,

    /// Do not ask for confirmation (required when not on a terminal).
    #[arg(short, long)]
    pub yes: bool,
}

/// Arguments of `backup`.
#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    /// The copy to write; must not exist yet.
    pub dest: PathBuf,
}

/// Arguments of `check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// Salvage a damaged database: drop the damaged records and rewrite the
    /// file (the damaged file is kept as `<db>.before-repair`). Asks first
    /// on a terminal.
    #[arg(long)]
    pub repair: bool,

    /// Do not ask for confirmation (required for --repair when not on a
    /// terminal).
    #[arg(short, long, requires = "repair")]
    pub yes: bool,
}

/// Options shared by `encrypt`, `decrypt` and `rotate-key`.
#[derive(Debug, Clone, Args)]
pub struct AdminArgs {
    /// Do not ask for confirmation (required when not on a terminal).
    #[arg(short, long)]
    pub yes: bool,

    /// Keep the old file as `<db>.encbak`. By default it is deleted once
    /// every record of the rewritten file has been read back under the new
    /// secret (the backup holds the data in plaintext after `encrypt`, and
    /// under the old key after `rotate-key`).
    #[arg(long)]
    pub keep_backup: bool,

    /// Deprecated and ignored: deleting the backup is the default now. It
    /// does not remove a `<db>.encbak` left by an earlier run (that still
    /// exits 8); kept so that older scripts still run.
    #[arg(long, hide = true, conflicts_with = "keep_backup")]
    pub remove_backup: bool,
}

/// Arguments of `encrypt`.
#[derive(Debug, Clone, Args)]
pub struct EncryptArgs {
    /// The cipher: AES-256-GCM (fastest with AES instructions) or
    /// ChaCha20-Poly1305.
    #[arg(long, value_enum, default_value = "aes")]
    pub cipher: CipherArg,

    /// Confirmation and backup options.
    #[command(flatten)]
    pub admin: AdminArgs,
}

/// Ciphers of `encrypt --cipher`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CipherArg {
    /// AES-256-GCM.
    Aes,
    /// ChaCha20-Poly1305.
    Chacha,
}

/// Arguments of `rotate-key`.
#[derive(Debug, Clone, Args)]
pub struct RotateKeyArgs {
    /// Read the new passphrase from FILE (without a trailing newline).
    #[arg(long, value_name = "FILE", conflicts_with = "new_key_file")]
    pub new_passphrase_file: Option<PathBuf>,

    /// Read the new raw key from FILE: 32 bytes, or 64 hex digits.
    #[arg(long, value_name = "FILE")]
    pub new_key_file: Option<PathBuf>,

    /// Confirmation and backup options.
    #[command(flatten)]
    pub admin: AdminArgs,
}

/// A `redis://` URL, which may hold a password: `Debug` never shows it.
#[derive(Clone)]
pub struct RedisUrl(pub String);

impl std::fmt::Debug for RedisUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RedisUrl(<redacted>)")
    }
}

/// Arguments of `bench`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Records written by the sequential set (and the key space of the
    /// other workloads).
    #[arg(long, value_name = "N", default_value_t = 100_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub records: u64,

    /// Bytes per value.
    #[arg(long, value_name = "BYTES", default_value_t = 100)]
    pub value_size: usize,

    /// Threads sharing each workload (each its own connection for Redis).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: u64,

    /// Also run the workloads against the Redis server at URL
    /// (`redis://[[user]:password@]host[:port][/db]`; without a password in
    /// the URL, REDISCLI_AUTH is used as redis-cli does). Its keys start
    /// with `emdb-bench:` and are deleted afterwards.
    #[arg(long, value_name = "URL", value_parser = |s: &str| Ok::<_, String>(RedisUrl(s.to_string())))]
    pub redis: Option<RedisUrl>,

    /// Keep the database file given with --db instead of removing it.
    #[arg(long)]
    pub keep: bool,
}

/// Arguments of `scan`.
#[derive(Debug, Clone, Args)]
pub struct ScanArgs {
    /// Only keys starting with these bytes.
    #[arg(long, value_name = "PREFIX")]
    pub prefix: Option<OsString>,

    /// Only keys at or after this one (byte order, inclusive).
    #[arg(long, value_name = "KEY")]
    pub from: Option<OsString>,

    /// Only keys before this one (byte order, exclusive).
    #[arg(long, value_name = "KEY")]
    pub to: Option<OsString>,

    /// Only keys matching this glob, given as text and applied to the key
    /// bytes: `*` any run, `?` one byte, `[a-z]` / `[!a-z]` a class, `\`
    /// escapes. Refused (exit 2) with keys in hex or base64.
    #[arg(long, value_name = "PATTERN")]
    pub glob: Option<String>,

    /// Print at most this many records.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,

    /// Print keys without values.
    #[arg(long)]
    pub keys_only: bool,

    /// End each key (and each value) with a NUL byte instead of a tab or
    /// newline, and print text unescaped, as the exact bytes: for
    /// `xargs -0` and other NUL-separated readers. Hex and base64 still
    /// apply when chosen.
    #[arg(short = '0', long, conflicts_with = "json")]
    pub null: bool,
}

/// Arguments of `stats`.
#[derive(Debug, Clone, Args)]
pub struct StatsArgs {
    /// Output format (`--json` is the same as `--format json`).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<StatsFormat>,

    /// Refresh every SECS seconds (default 2) until interrupted; redraws in
    /// place on a terminal. Off a terminal (a pipe, a log file) each tick
    /// prints one JSON line with a `timestamp_ms` field instead of a table.
    #[arg(long, value_name = "SECS", num_args = 0..=1, default_missing_value = "2")]
    pub watch: Option<f64>,

    /// With --watch: stop after this many refreshes.
    #[arg(long, value_name = "N", requires = "watch")]
    pub count: Option<u64>,
}

/// Output formats of `stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    /// Aligned, human-readable lines.
    Text,
    /// One JSON document.
    Json,
    /// OpenMetrics text exposition, for Prometheus.
    Prometheus,
}

/// Arguments of `compact`.
#[derive(Debug, Clone, Args)]
pub struct CompactArgs {
    /// Only print the estimate of reclaimable bytes (the dead bytes).
    #[arg(long)]
    pub dry_run: bool,
}

/// Subcommands of `lock`.
#[derive(Debug, Clone, Subcommand)]
pub enum LockCommand {
    /// Show who holds the writer lock.
    #[command(after_help = "Example:\n  emdb lock status --json")]
    Status,

    /// Remove a lock file left behind; refuses while the holder runs.
    ///
    /// The lock is released by the operating system when its holder exits,
    /// so breaking it is rarely needed.
    #[command(after_help = "Examples:\n  emdb lock break\n  emdb lock break --force --yes")]
    Break(LockBreakArgs),
}

/// Arguments of `lock break`.
#[derive(Debug, Clone, Args)]
pub struct LockBreakArgs {
    /// DANGEROUS: remove the lock file even while a live process holds the
    /// lock, so that another writer can open the database. The holder
    /// notices the next writer at its next write or flush and refuses to
    /// write from then on (restart it); anything it had not flushed is
    /// lost. Only for a holder you know is gone or frozen for good (e.g. on
    /// another host). Asks for confirmation, or pass --yes.
    #[arg(long)]
    pub force: bool,

    /// Do not ask before --force removes a held lock.
    #[arg(long, short = 'y', requires = "force")]
    pub yes: bool,
}

/// Arguments of `import`.
#[derive(Debug, Clone, Args)]
pub struct ImportArgs {
    /// File to read, or `-` for stdin.
    #[arg(required_unless_present = "from", conflicts_with = "from")]
    pub file: Option<PathBuf>,

    /// Copy the string keys of a Redis server instead, with their TTLs,
    /// using SCAN: redis://[:PASSWORD@]HOST:PORT[/DB]. Keys of other types
    /// are counted and reported, not copied; keys go to -n's namespace,
    /// else the default one.
    #[arg(long, value_name = "URL", conflicts_with = "format")]
    pub from: Option<String>,

    /// Input format [default: from the file extension (.csv, .resp),
    /// else jsonl].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<FormatArg>,

    /// Write the whole input as one atomic unit: every record or none
    /// (at most 1 GiB of keys and values, held in memory until the end).
    #[arg(long)]
    pub atomic: bool,

    /// Read and check the whole input and count what would be imported;
    /// write nothing and create no database.
    #[arg(long, conflicts_with = "atomic")]
    pub dry_run: bool,
}

/// Arguments of `export`.
#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    /// File to write (replaced atomically), or `-` / nothing for stdout.
    pub file: Option<PathBuf>,

    /// Replace FILE when it exists already (without it, an existing file
    /// is refused with exit 2 and left alone).
    #[arg(long)]
    pub force: bool,

    /// Output format [default: from the file extension (.csv, .resp),
    /// else jsonl].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<FormatArg>,

    /// Only keys starting with these bytes, in each namespace exported
    /// (read in --hex / --base64 like other key arguments). Streams just
    /// that range of the sorted order.
    #[arg(long, value_name = "PREFIX")]
    pub prefix: Option<OsString>,

    /// Export what still verifies from a damaged database, and report what
    /// was skipped, without changing it: the file is copied to a private
    /// temporary directory (TMPDIR; room for about twice its size) and the
    /// copy is salvaged as `check --repair` would.
    #[arg(long)]
    pub salvage: bool,
}

/// File formats of `import` and `export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// JSON Lines: a header line, then one `{"key":..,"value":..}` per line.
    Jsonl,
    /// CSV with a header row: key,value[,ns][,expires_at_ms].
    Csv,
    /// Redis protocol `SET key value [PXAT ms]` commands (for `redis-cli --pipe`).
    Resp,
}

/// Arguments of `completions`.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to generate for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// One line of `emdb shell`: a command plus per-line output options.
#[derive(Debug, Parser)]
#[command(name = "emdb", no_binary_name = true, disable_version_flag = true)]
pub struct ShellLine {
    /// The namespace for this line [default: the shell's own].
    #[arg(short = 'n', long, global = true, value_name = "NAME")]
    pub namespace: Option<String>,

    /// Output options for this line (added to the shell's own).
    #[command(flatten)]
    pub output: OutputArgs,

    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

impl From<EncodingArg> for Encoding {
    fn from(e: EncodingArg) -> Encoding {
        match e {
            EncodingArg::Text => Encoding::Text,
            EncodingArg::Hex => Encoding::Hex,
            EncodingArg::Base64 => Encoding::Base64,
        }
    }
}

impl From<FormatArg> for TransferFormat {
    fn from(f: FormatArg) -> TransferFormat {
        match f {
            FormatArg::Jsonl => TransferFormat::Jsonl,
            FormatArg::Csv => TransferFormat::Csv,
            FormatArg::Resp => TransferFormat::Resp,
        }
    }
}

/// A positive duration (`--ttl`, `expire`).
pub fn parse_ttl(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.as_millis() == 0 {
        return Err("a TTL must be at least 1ms (use `emdb del` to remove a key now)".into());
    }
    Ok(d)
}

/// `incr --by`: an integer in the form a stored counter must have.
pub fn parse_by(s: &str) -> Result<i64, String> {
    crate::commands::parse_strict(s).ok_or_else(|| {
        "expected a decimal 64-bit integer such as 5 or -3 \
         (no `+`, leading zeros or spaces)"
            .into()
    })
}

/// Parse the command line into a [`Cli`] and the matches it came from.
///
/// Building the whole definition and parsing with it is most of the work
/// of a one-shot `emdb get`: clap builds every subcommand and copies every
/// global option into each before it parses (hundreds of argument clones,
/// about a fifth of a process that otherwise takes a millisecond and a
/// half). So when the arguments name a subcommand, the parse runs on a root
/// with the global options and only that subcommand, built alone for the
/// commands scripts call most ([`quick_subcommand`]) and taken from the
/// whole definition for the others; its options are the root's own, so it
/// reads the same tokens the same way. Whatever that parse does not accept
/// (help, version, errors) is parsed again by the whole definition, so
/// messages and help are the usual ones.
pub fn parse(args: &[OsString]) -> Result<(Cli, clap::ArgMatches), clap::Error> {
    use clap::{CommandFactory, FromArgMatches};

    if let Some(one) = single_subcommand(args) {
        if let Ok(matches) = one.try_get_matches_from(args) {
            if let Ok(cli) = Cli::from_arg_matches(&matches) {
                return Ok((cli, matches));
            }
        }
    }
    let matches = Cli::command().try_get_matches_from(args)?;
    let cli = Cli::from_arg_matches(&matches)?;
    Ok((cli, matches))
}

/// The root: the global options, no subcommand yet.
fn root_command() -> clap::Command {
    GlobalArgs::augment_args(
        clap::Command::new("emdb")
            .version(env!("CARGO_PKG_VERSION"))
            .subcommand_required(true)
            .arg_required_else_help(true),
    )
}

/// The subcommands scripts call most, built alone: their arguments exactly
/// as the whole definition builds them (a test compares), without the help
/// text, which only the whole definition prints.
fn quick_subcommand(name: &str) -> Option<clap::Command> {
    use clap::Command as C;
    Some(match name {
        "get" => GetArgs::augment_args(C::new("get")),
        "exists" => KeyArgs::augment_args(C::new("exists")),
        "ttl" => KeyArgs::augment_args(C::new("ttl")),
        "persist" => KeyArgs::augment_args(C::new("persist")),
        "put" => PutArgs::augment_args(C::new("put")),
        "del" => DelArgs::augment_args(C::new("del")),
        "incr" => IncrArgs::augment_args(C::new("incr")),
        "decr" => IncrArgs::augment_args(C::new("decr")),
        "expire" => ExpireArgs::augment_args(C::new("expire")),
        "scan" => ScanArgs::augment_args(C::new("scan")),
        "count" => C::new("count"),
        _ => return None,
    })
}

/// The root with only the subcommand `args` invoke, or `None` when that is
/// not plain to see (an option the root does not define before it, such as
/// `--help`, or no subcommand at all).
fn single_subcommand(args: &[OsString]) -> Option<clap::Command> {
    use clap::CommandFactory;

    let root = root_command();
    let name = invoked_subcommand(&root, args)?;
    let sub = match quick_subcommand(name) {
        Some(sub) => sub,
        None => Cli::command().find_subcommand(name)?.clone(),
    };
    Some(root.subcommand(sub))
}

/// The first argument that is not an option of `root` or an option's
/// value: the subcommand's name, if it is one.
fn invoked_subcommand<'a>(root: &clap::Command, args: &'a [OsString]) -> Option<&'a str> {
    let option = |found: Option<&clap::Arg>| found.map(|a| a.get_action().takes_values());
    let mut rest = args.iter().skip(1);
    while let Some(arg) = rest.next() {
        let arg = arg.to_str()?;
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline_value) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            let takes_value = option(root.get_arguments().find(|a| a.get_long() == Some(name)))?;
            if takes_value && !inline_value {
                rest.next()?;
            }
        } else if let Some(shorts) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            for (at, c) in shorts.char_indices() {
                let takes_value = option(root.get_arguments().find(|a| a.get_short() == Some(c)))?;
                if takes_value {
                    if at + c.len_utf8() == shorts.len() {
                        rest.next()?;
                    }
                    break;
                }
            }
        } else {
            return Some(arg);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches};

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
        ShellLine::command().debug_assert();
    }

    fn argv(line: &str) -> Vec<OsString> {
        std::iter::once("emdb")
            .chain(line.split(' ').filter(|s| !s.is_empty()))
            .map(OsString::from)
            .collect()
    }

    /// What the whole definition makes of `args`: the parsed command, or
    /// the error's kind and text.
    fn by_full_definition(args: &[OsString]) -> String {
        match Cli::command().try_get_matches_from(args) {
            Ok(m) => format!("{:?}", Cli::from_arg_matches(&m).map_err(|e| e.kind())),
            Err(e) => format!("{:?}: {}", e.kind(), e.render()),
        }
    }

    #[test]
    fn parsing_with_one_subcommand_reads_the_arguments_as_the_whole_definition_does() {
        let lines = [
            "get user:1",
            "--db x.emdb -q get user:1",
            "--db=x.emdb get user:1 --json",
            "get user:1 --db x.emdb --json",
            "--db get get get",
            "-qn sessions get k",
            "-q -n sessions put k v --ttl 30m",
            "-nsessions exists k",
            "--hex put 6b 76",
            "--lock-timeout 0 incr n --by 5",
            "scan --prefix user: --keys-only --limit 10",
            "scan --from a --to b -0",
            "ns list --json",
            "ns drop sessions --yes",
            "lock status",
            "put -- -k- v",
            "get",
            "get a b",
            "get --no-such-flag k",
            "frobnicate k",
            "--help",
            "get --help",
            "-V",
            "--version get k",
            "help get",
            "",
        ];
        for line in lines {
            let args = argv(line);
            let ours = match parse(&args) {
                Ok((cli, _)) => format!("{:?}", Ok::<_, clap::error::ErrorKind>(cli)),
                Err(e) => format!("{:?}: {}", e.kind(), e.render()),
            };
            assert_eq!(ours, by_full_definition(&args), "emdb {line}");
        }
    }

    #[test]
    fn common_calls_take_the_one_subcommand_path() {
        let root = root_command();
        for (line, sub) in [
            ("get user:1", "get"),
            ("--db get get k", "get"),
            ("--db=x -q exists k", "exists"),
            ("-qn sessions scan --prefix p", "scan"),
            ("-nsessions count", "count"),
            ("--passphrase-file pw put k v", "put"),
            ("ns list", "ns"),
            ("--json stats", "stats"),
        ] {
            let args = argv(line);
            assert_eq!(invoked_subcommand(&root, &args), Some(sub), "emdb {line}");
            let one = single_subcommand(&args).expect(line);
            assert_eq!(one.get_subcommands().count(), 1, "emdb {line}");
            assert!(
                one.clone().try_get_matches_from(&args).is_ok(),
                "emdb {line}"
            );
        }
        // Anything the root does not define before the subcommand (help,
        // version, a typo) goes to the whole definition.
        for line in [
            "--help get k",
            "-V get",
            "--nope get k",
            "frobnicate",
            "",
            "-- get k",
        ] {
            assert!(single_subcommand(&argv(line)).is_none(), "emdb {line}");
        }
    }

    #[test]
    fn subcommands_built_alone_have_the_arguments_of_the_whole_definition() {
        let mut full = Cli::command();
        full.build();
        let mut root = root_command();
        root.build();
        let show = |args: Vec<&clap::Arg>| format!("{args:?}");
        // The root: the same options (help and version flags included).
        assert_eq!(
            show(root.get_arguments().collect()),
            show(full.get_arguments().collect())
        );
        let mut quick = 0;
        for sub in full.get_subcommands() {
            let Some(alone) = quick_subcommand(sub.get_name()) else {
                continue;
            };
            quick += 1;
            let mut alone = root_command().subcommand(alone);
            alone.build();
            let alone = alone.find_subcommand(sub.get_name()).unwrap();
            assert_eq!(
                show(alone.get_arguments().collect()),
                show(sub.get_arguments().collect()),
                "emdb {}",
                sub.get_name()
            );
            assert_eq!(
                format!("{:?}", alone.get_groups().collect::<Vec<_>>()),
                format!("{:?}", sub.get_groups().collect::<Vec<_>>()),
                "emdb {}",
                sub.get_name()
            );
        }
        assert_eq!(
            quick, 11,
            "every quick subcommand is in the whole definition"
        );
    }
}
