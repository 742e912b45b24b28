//! The `emdb` command-line tool as a library: the binary (src/main.rs)
//! only calls [`run`].
//!
//! Besides [`run`], the public surface re-exports the import and export file
//! formats of the shared toolkit ([`transfer`]: JSON Lines, CSV and RESP,
//! from `emdb_tools`), which fuzz/ in the repository drives. Their readers
//! are pure decoders: bytes in, [`transfer::Item`]s out, no I/O beyond the
//! reader they are given. Everything else is private to the tool.
//!
//! ```
//! use emdb_cli::transfer::{self, Item, Plan};
//! use emdb_cli::{Codec, TransferFormat};
//!
//! # fn main() -> Result<(), emdb_cli::CliError> {
//! let plan = Plan {
//!     namespaces: vec![String::new(), "sessions".into()],
//!     encrypted: false,
//!     any_expiry: true,
//! };
//! let mut file = Vec::new();
//! let mut w = transfer::writer(TransferFormat::Resp, &mut file, Codec::default(), &plan)?;
//! w.record("sessions", b"s:1", b"\x00\xff", Some(1_767_225_600_000))?;
//! w.finish()?;
//! drop(w);
//!
//! let items: Vec<Item> =
//!     transfer::reader(TransferFormat::Resp, Box::new(&file[..]), Codec::default())
//!         .collect::<Result<_, _>>()?;
//! let Item::Record(entry) = &items[1] else { unreachable!() };
//! assert_eq!(entry.ns.as_deref(), Some("sessions"));
//! assert_eq!(entry.value, b"\x00\xff");
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod cli;
mod commands;
mod database;
mod encoding;
mod error;
mod glob;
mod interrupt;
mod output;
mod progress;
mod temps;

pub use emdb_tools::transfer;
use emdb_tools::{secret, space};

use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use clap::parser::ValueSource;
use emdb_tools::encoding::escape_line;

pub use crate::error::{CliError, CliResult, Kind};
pub use emdb_tools::{Codec, Encoding, TransferFormat};

use crate::cli::{Cli, Command};
use crate::database::Session;
use crate::output::Ui;

/// Run `emdb` with the process's arguments: parse them, run the command,
/// print `emdb: <message>` on failure, and return the exit code that
/// docs/CLI.md documents (2 for usage errors, 0 after `--help`).
pub fn run() -> ExitCode {
    // Past a file size limit (`ulimit -f`, systemd's LimitFSIZE=) a write
    // raises SIGXFSZ, which kills the process without a word and leaves
    // its temp files. Handled, the write fails with EFBIG instead: an
    // error naming the file, exit 6, and the usual cleanup.
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    );
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let parsed = cli::parse(&args);
    let cli = match parsed {
        Ok((mut cli, matches)) => {
            cli.global.db_on_command_line =
                matches.value_source("db") == Some(ValueSource::CommandLine);
            cli
        }
        Err(e) => {
            // clap blames `--db` for an empty EMDB_PATH (`export
            // EMDB_PATH=$UNSET`), though none was given: name the variable.
            let about_db = matches!(
                e.get(clap::error::ContextKind::InvalidArg),
                Some(clap::error::ContextValue::String(arg)) if arg.starts_with("--db")
            );
            if e.kind() == clap::error::ErrorKind::InvalidValue
                && about_db
                && std::env::var_os("EMDB_PATH").is_some_and(|v| v.is_empty())
                && !args
                    .iter()
                    .any(|a| a.to_str().is_some_and(|a| a.starts_with("--db")))
            {
                print_error(
                    &CliError::usage("EMDB_PATH is set but empty")
                        .hint("unset it, or set it to the database's path"),
                    false,
                );
                return ExitCode::from(2);
            }
            // Help and version go to stdout with exit 0; usage errors exit 2.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    ExitCode::from(run_command(&cli))
}

fn run_command(cli: &Cli) -> u8 {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(64 * 1024, stdout.lock());
    let mut session = Session::new(&cli.global);
    // Commands that stay open see a writer's later changes; the others
    // read a snapshot and start no background thread.
    let stays_open = match &cli.command {
        Command::Shell | Command::Sync(_) => true,
        Command::Stats(args) => args.watch.is_some(),
        _ => false,
    };
    if stays_open {
        session.follow_writer();
    }
    let quiet = cli.global.output.quiet;
    // A wait for the writer lock (--lock-timeout) says so on stderr, so
    // that it does not look like a hang.
    emdb_tools::database::announce_lock_waits((!quiet).then_some("emdb"));
    let result = {
        let mut ui = Ui {
            out: &mut out,
            json: cli.global.output.json,
            quiet,
            codec: encoding::from_args(&cli.global.output),
            interactive: io::stdin().is_terminal() && io::stderr().is_terminal(),
            stdin_free: true,
        };
        commands::run(&cli.command, &cli.global, &mut session, &mut ui)
    };
    let flushed = out.flush().map_err(CliError::stdout);
    let closed = session.close();
    match result.and(flushed).and(closed) {
        Ok(()) => 0,
        Err(e) => {
            print_error(&e, quiet);
            e.kind.exit_code()
        }
    }
}

/// Print `emdb: <message>` (and a hint line) on stderr. A broken pipe and
/// silent failures print nothing; `--quiet` hides a missing key, but not a
/// missing namespace ([`Kind::NoNamespace`]), which is a mistake to show.
/// Control and invisible characters (of a path the message names) are
/// escaped, so each stays one line and nothing in it reaches the terminal
/// raw.
pub(crate) fn print_error(e: &CliError, quiet: bool) {
    if e.kind == Kind::BrokenPipe || e.message.is_empty() || (quiet && e.kind == Kind::NotFound) {
        return;
    }
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "emdb: {}", escape_line(&e.message));
    if let Some(hint) = &e.hint {
        let _ = writeln!(err, "  hint: {}", escape_line(hint));
    }
}
