//! The command line, defined once with clap derive; doc comments are the
//! help text.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

const AFTER_HELP: &str = "\
Examples:
  emdb-tui app.emdb                 browse read-only (works while an app writes)
  emdb-tui --write app.emdb         browse and edit (takes the writer lock)
  EMDB_PATH=app.emdb emdb-tui -n sessions --tree :

Keys: ? in the UI shows them all; q quits. See docs/TUI.md.
Encrypted databases: --passphrase-file, --key-file, EMDB_KEY_FILE,
EMDB_PASSPHRASE, or a hidden prompt; never a secret on the command line.
Exit codes (those of emdb): 0 ok, 1 no such namespace, 2 usage, 3 locked,
4 corrupt, 5 wrong key, 6 I/O, 7 bad input; 129 when the terminal hangs up.";

/// emdb-tui: browse and watch an emdb database in the terminal.
///
/// Opens the database read-only unless --write is given, so it can watch a
/// database another process is writing: keys, values and the live
/// dashboard follow the writer by themselves.
#[derive(Debug, Parser)]
#[command(name = "emdb-tui", version, after_help = AFTER_HELP, max_term_width = 100)]
pub struct Cli {
    /// Database file; overrides --db and EMDB_PATH.
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// Database file [default: the platform data directory's
    /// emdb/emdb-default.emdb].
    #[arg(long, env = "EMDB_PATH", value_name = "PATH")]
    pub db: Option<PathBuf>,

    /// Open for writing: put, edit, delete, flush and compact. Fails when
    /// another process holds the writer lock.
    #[arg(long)]
    pub write: bool,

    /// With --write: create the database when there is none at the path
    /// (without it a mistyped path is an error, not a new empty database).
    #[arg(long, requires = "write")]
    pub create: bool,

    /// With --write: how long to keep retrying while another process holds
    /// the writer lock (e.g. 500ms, 10s, 2m; a bare number is seconds).
    /// Default: fail at once.
    #[arg(long, value_name = "DURATION", value_parser = emdb_tools::database::parse_duration, requires = "write")]
    pub lock_timeout: Option<Duration>,

    /// Read the passphrase of an encrypted database from FILE (its contents
    /// without a trailing newline). Else EMDB_KEY_FILE or EMDB_PASSPHRASE;
    /// else, on a terminal, emdb-tui asks when the database is encrypted.
    #[arg(long, value_name = "FILE", conflicts_with = "key_file")]
    pub passphrase_file: Option<PathBuf>,

    /// Read the raw 256-bit key of an encrypted database from FILE: 32
    /// bytes, or 64 hex digits. Else the file named by EMDB_KEY_FILE.
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,

    /// Namespace to show first [default: the default namespace].
    #[arg(short, long, value_name = "NAME")]
    pub namespace: Option<String>,

    /// Start with keys grouped in a tree on this delimiter (one character
    /// such as ':' or '.').
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    pub tree: Option<u8>,

    /// How often to sample stats and follow the writer, in milliseconds.
    #[arg(
        long,
        value_name = "MS",
        default_value_t = 250,
        value_parser = clap::value_parser!(u64).range(50..=10_000)
    )]
    pub refresh_ms: u64,
}

/// One ASCII punctuation character.
pub fn parse_delimiter(text: &str) -> Result<u8, String> {
    match text.as_bytes() {
        [b] if b.is_ascii_graphic() => Ok(*b),
        _ => Err(format!(
            "{text:?} is not a delimiter: give one printable ASCII character such as : or ."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn delimiters() {
        assert_eq!(parse_delimiter(":"), Ok(b':'));
        assert!(parse_delimiter("::").is_err());
    }
}
