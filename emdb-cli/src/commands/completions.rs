//! `emdb completions SHELL`.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::error::CliResult;
use crate::output::Ui;

/// Print the completion script for a shell, generated from the clap
/// definition (the files in `completions/` are this output).
pub fn run(args: &CompletionsArgs, ui: &mut Ui) -> CliResult {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "emdb", &mut buf);
    ui.bytes(&buf)
}
