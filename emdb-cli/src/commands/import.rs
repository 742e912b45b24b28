//! `emdb import` (placeholder until the next commit).
use crate::cli::ImportArgs;
use crate::database::Session;
use crate::error::CliResult;
use crate::output::Ui;
/// Not implemented yet.
pub fn run(_a: &ImportArgs, _s: &mut Session, _ui: &mut Ui) -> CliResult {
    Err(crate::error::CliError::usage(
        "`import` is not implemented yet",
    ))
}
