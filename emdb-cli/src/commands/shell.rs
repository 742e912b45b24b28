//! `emdb shell`: many commands, one process, one open database.

use std::io::{BufRead, IsTerminal, Write};

use clap::error::ErrorKind;
use clap::Parser;

use crate::cli::{Command, GlobalArgs, ShellLine};
use crate::database::Session;
use crate::error::{CliError, CliResult, Kind};
use crate::output::Ui;

/// Read commands from stdin until its end (or `quit`), run each, and exit
/// with the code of the first failing line (0 when none failed).
pub fn run(global: &GlobalArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    if !ui.stdin_free {
        return Err(CliError::usage("`shell` cannot run inside `emdb shell`"));
    }
    // Writes are flushed once, when the shell ends.
    s.defer_flush();
    if global.read_only {
        s.reader()?;
    } else {
        s.writer("shell")?;
    }
    let prompt = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let mut stdin = std::io::stdin().lock();
    let mut first_failure: Option<Kind> = None;
    let mut buf = Vec::new();
    let mut line_no = 0u64;
    loop {
        if prompt {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "emdb> ");
            let _ = err.flush();
        }
        buf.clear();
        let n = stdin
            .read_until(b'\n', &mut buf)
            .map_err(|e| CliError::io("reading commands from stdin", None, e))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let outcome = match std::str::from_utf8(&buf) {
            Ok(text) => run_line(text.trim(), global, s, ui),
            Err(_) => Err(CliError::bad_input("the line is not valid UTF-8")
                .hint("give binary keys and values with --hex or --base64")),
        };
        let flushed = ui.out.flush().map_err(CliError::stdout);
        match flushed.and(outcome) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) => break,
            Err(e) if e.kind == Kind::BrokenPipe => return Err(e),
            Err(e) => {
                first_failure.get_or_insert(e.kind);
                crate::print_error(&e.context(format!("line {line_no}")), ui.quiet);
            }
        }
    }
    match first_failure {
        None => Ok(()),
        Some(kind) => Err(CliError::silent(kind)),
    }
}

enum Flow {
    Continue,
    Quit,
}

fn run_line(line: &str, global: &GlobalArgs, s: &mut Session, ui: &mut Ui) -> CliResult<Flow> {
    if line.is_empty() || line.starts_with('#') {
        return Ok(Flow::Continue);
    }
    if matches!(line, "quit" | "exit") {
        return Ok(Flow::Quit);
    }
    let words = shlex::split(line).ok_or_else(|| {
        CliError::usage("unbalanced quotes").hint("quote with '...' or \"...\", escape with \\")
    })?;
    let parsed = match ShellLine::try_parse_from(words) {
        Ok(parsed) => parsed,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            ui.bytes(e.render().to_string().as_bytes())?;
            return Ok(Flow::Continue);
        }
        Err(e) => {
            // clap's first paragraph, on one line, without the usage block.
            let text = e.render().to_string();
            let first: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let first = first.join(" ");
            let first = first.strip_prefix("error: ").unwrap_or(&first).to_string();
            return Err(CliError::usage(first).hint("type `help` for the commands"));
        }
    };
    let offline = match &parsed.command {
        Command::Shell => Some("shell"),
        Command::Encrypt(_) => Some("encrypt"),
        Command::Decrypt(_) => Some("decrypt"),
        Command::RotateKey(_) => Some("rotate-key"),
        Command::Check(a) if a.repair => Some("check --repair"),
        Command::Bench(_) => Some("bench"),
        _ => None,
    };
    if let Some(what) = offline {
        return Err(
            CliError::usage(format!("`{what}` cannot run inside `emdb shell`"))
                .hint("run it as its own `emdb` command"),
        );
    }
    let mut line_ui = Ui {
        out: &mut *ui.out,
        json: ui.json || parsed.output.json,
        quiet: ui.quiet || parsed.output.quiet,
        codec: ui.codec.overlay(&parsed.output),
        interactive: false,
        stdin_free: false,
    };
    // `-n` on a line applies to that line only.
    let restore = parsed.namespace.clone().map(|ns| s.set_namespace(Some(ns)));
    let outcome = crate::commands::run(&parsed.command, global, s, &mut line_ui);
    if let Some(old) = restore {
        s.set_namespace(old);
    }
    outcome.map(|()| Flow::Continue)
}
