//! `emdb`: the command-line tool of the emdb key-value database.
//!
//! Thin: parse the arguments, run the command, turn the outcome into a
//! documented exit code and a one-line `emdb: <message>` on stderr.

#![deny(missing_docs)]

mod cli;
mod commands;
mod database;
mod encoding;
mod error;
mod glob;
mod keylist;
mod output;
mod progress;
mod secret;
mod space;
mod transfer;

use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches};

use crate::cli::Cli;
use crate::database::Session;
use crate::encoding::Codec;
use crate::error::{CliError, Kind};
use crate::output::Ui;

fn main() -> ExitCode {
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let cli = match parsed {
        Ok((mut cli, matches)) => {
            cli.global.db_on_command_line =
                matches.value_source("db") == Some(ValueSource::CommandLine);
            cli
        }
        Err(e) => {
            // Help and version go to stdout with exit 0; usage errors exit 2.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    ExitCode::from(run(&cli))
}

fn run(cli: &Cli) -> u8 {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(64 * 1024, stdout.lock());
    let mut session = Session::new(&cli.global);
    let quiet = cli.global.output.quiet;
    let result = {
        let mut ui = Ui {
            out: &mut out,
            json: cli.global.output.json,
            quiet,
            codec: Codec::from_args(&cli.global.output),
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
/// silent failures print nothing; `--quiet` hides "not found".
pub(crate) fn print_error(e: &CliError, quiet: bool) {
    if e.kind == Kind::BrokenPipe || e.message.is_empty() || (quiet && e.kind == Kind::NotFound) {
        return;
    }
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "emdb: {}", e.message);
    if let Some(hint) = &e.hint {
        let _ = writeln!(err, "  hint: {hint}");
    }
}
