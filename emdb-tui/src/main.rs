//! `emdb-tui`: parse the command line, open the database, run the UI, and
//! print `emdb-tui: <error>` with a meaningful exit code when that fails.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use clap::Parser;

use emdb_tui::app::{App, Config};
use emdb_tui::cli::Cli;
use emdb_tui::database::{self, Failure};
use emdb_tui::terminal::{self, CrosstermHost, RestoreGuard};
use emdb_tui::{event_loop, worker::Worker};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("emdb-tui: {}", f.message);
            if let Some(hint) = f.hint {
                eprintln!("hint: {hint}");
            }
            ExitCode::from(f.code)
        }
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    let path = database::resolve_path(cli.path, cli.db)?;
    if !std::io::stdout().is_terminal() {
        return Err(
            Failure::new(2, "emdb-tui needs a terminal on standard output")
                .hint("use the emdb command for scripts"),
        );
    }
    let keys = database::KeySource::from_env(cli.passphrase_file, cli.key_file);
    let db = database::open(&path, cli.write, cli.create, cli.lock_timeout, &keys)?;
    if let Some(name) = &cli.namespace {
        let names = db.list_namespaces()?;
        if !names.contains(name) {
            let known = if names.is_empty() {
                "there are none besides the default one".to_string()
            } else {
                format!("there are: {}", names.join(", "))
            };
            return Err(
                Failure::new(2, format!("no namespace {name:?} in {}", path.display())).hint(known),
            );
        }
    }
    let config = Config {
        path: db.path().unwrap_or(path),
        writable: cli.write,
        tick: Duration::from_millis(cli.refresh_ms),
        delimiter: cli.tree.unwrap_or(b':'),
        tree: cli.tree.is_some(),
        namespace: cli.namespace,
    };
    let mut app = App::new(config, Worker::spawn(db), SystemTime::now());
    let mut tui = terminal::setup()?;
    let guard = RestoreGuard;
    if std::env::var_os("EMDB_TUI_CRASH_TEST").is_some() {
        // For tests/e2e_tmux.sh: the terminal must come back after a panic.
        panic!("EMDB_TUI_CRASH_TEST is set: crashing on purpose");
    }
    let result = event_loop::run(&mut tui, &mut app, &mut CrosstermHost);
    drop(guard);
    let (ended_by, unwritten) = (app.ended_by, app.staged.len());
    // Closing the worker drops the last database handle (a writable one
    // syncs and checkpoints then).
    drop(app);
    if let Some(sig) = ended_by {
        // Staged edits were never written; say so, then end as the signal
        // would have ended us (the shell reports it as usual).
        if unwritten > 0 {
            eprintln!("emdb-tui: ended by signal {sig}; {unwritten} staged change(s) not written");
        }
        terminal::die_by_signal(sig);
    }
    Ok(result?)
}
