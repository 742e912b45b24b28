//! `emdb-tui`: parse the command line, open the database, run the UI, and
//! print `emdb-tui: <error>` with a meaningful exit code when that fails.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use clap::Parser;

use emdb_tools::encoding::escape_line;
use emdb_tools::secret::{self, SecretOptions};
use emdb_tools::{ToolError, ToolResult};
use emdb_tui::app::{App, Config};
use emdb_tui::cli::Cli;
use emdb_tui::database::{self, OpenRequest};
use emdb_tui::event_loop;
use emdb_tui::pages::CHUNK;
use emdb_tui::terminal::{self, CrosstermHost, RestoreGuard};
use emdb_tui::worker::{Paging, Worker};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Not eprintln: it panics when standard error is gone (a
            // terminal that hung up), which is one of the ways out.
            let mut err = std::io::stderr().lock();
            if !e.message.is_empty() {
                let _ = writeln!(err, "emdb-tui: {}", escape_line(&e.message));
            }
            if let Some(hint) = &e.hint {
                let _ = writeln!(err, "  hint: {}", escape_line(hint));
            }
            ExitCode::from(e.kind.exit_code())
        }
    }
}

fn run(cli: Cli) -> ToolResult {
    let path = database::resolve_path(cli.path, cli.db)?;
    // The database is opened (and its failures reported, as `emdb` reports
    // them) before the terminal is required, so a script sees the same
    // codes and messages either way; a passphrase is asked for only when
    // the UI could run afterwards.
    let on_terminal = std::io::stdout().is_terminal();
    let request = OpenRequest {
        write: cli.write,
        create: cli.create,
        lock_timeout: cli.lock_timeout,
        secret: SecretOptions {
            passphrase_file: cli.passphrase_file,
            key_file: cli.key_file,
        },
        can_prompt: on_terminal && secret::can_prompt(),
    };
    // On a terminal, read-only, in the flat list: a one-shot read finds
    // the first page and the worker opens the database behind the UI, so
    // the page shows before the open is done (docs/TUI.md, "Starting").
    // The secret is read once for both (a `--key-file <(...)` pipe reads
    // empty the second time); a writer reads it after checking the file.
    let (first, secret) = if on_terminal && !cli.write && cli.tree.is_none() {
        let secret = secret::from_options(&request.secret)?;
        let first = database::first_page(
            &path,
            &request,
            secret.clone(),
            cli.namespace.as_deref(),
            CHUNK,
        );
        (first, Some(secret))
    } else {
        (None, None)
    };
    let (worker, shown_path, first) = match first {
        Some(set) => {
            let opened = path.clone();
            let worker = Worker::spawn_opening(
                move || database::open_read_only(&opened, secret.flatten()),
                Paging::default(),
            );
            (worker, path.canonicalize().unwrap_or(path), Some(set))
        }
        None => {
            // A wait for the writer lock (--lock-timeout) says so, before
            // the terminal is taken, so that it does not look like a hang.
            emdb_tools::database::announce_lock_waits(Some("emdb-tui"));
            let opened = match secret {
                Some(secret) => database::open_with(&path, &request, secret),
                None => database::open(&path, &request),
            };
            emdb_tools::database::announce_lock_waits(None);
            let db = opened?;
            if let Some(name) = &cli.namespace {
                database::check_namespace(&db, name)?;
            }
            if !on_terminal {
                return Err(
                    ToolError::usage("emdb-tui needs a terminal on standard output")
                        .hint("use the emdb command for scripts"),
                );
            }
            let shown = db.path().unwrap_or(path);
            (Worker::spawn(db), shown, None)
        }
    };
    let config = Config {
        path: shown_path,
        writable: cli.write,
        tick: Duration::from_millis(cli.refresh_ms),
        delimiter: cli.tree.unwrap_or(b':'),
        tree: cli.tree.is_some(),
        namespace: cli.namespace,
    };
    let mut app = App::new(config, worker, SystemTime::now());
    if let Some(set) = first {
        let ns = app.config.namespace.clone();
        app = app.with_first_page(ns, set);
    }
    let mut tui = terminal::setup().map_err(database::terminal_error)?;
    let mut host = CrosstermHost::new().map_err(database::terminal_error)?;
    let guard = RestoreGuard;
    if std::env::var_os("EMDB_TUI_CRASH_TEST").is_some() {
        // For tests/e2e_tmux.sh: the terminal must come back after a panic.
        panic!("EMDB_TUI_CRASH_TEST is set: crashing on purpose");
    }
    let result = event_loop::run(&mut tui, &mut app, &mut host);
    drop(guard);
    let (ended_by, unwritten) = (app.ended_by, app.staged.len());
    let open_failed = app.open_failed.take();
    let shown = app.config.path.clone();
    let exports = app.exports;
    app.abandon_compaction(&shown);
    // Closing the worker drops the last database handle (a writable one
    // syncs and checkpoints then), and abandons an export still running:
    // its temporary file is removed, nothing is left under its name.
    drop(app);
    if exports > 0 {
        let _ = writeln!(
            std::io::stderr(),
            "emdb-tui: {exports} export(s) abandoned unfinished; no file was left"
        );
    }
    if let Some(sig) = ended_by {
        // Staged edits were never written; say so, then end as the signal
        // would have ended us (the shell reports it as usual).
        if unwritten > 0 {
            let _ = writeln!(
                std::io::stderr(),
                "emdb-tui: ended by signal {sig}; {unwritten} staged change(s) not written"
            );
        }
        terminal::die_by_signal(sig);
    }
    if let Some(e) = open_failed {
        return Err(e.into_tool_error());
    }
    result.map_err(database::terminal_error)
}
