//! `emdb export` (placeholder until the next commit).
use crate::cli::ExportArgs;
use crate::database::Session;
use crate::error::CliResult;
use crate::output::Ui;
/// Not implemented yet.
pub fn run(_a: &ExportArgs, _s: &mut Session, _ui: &mut Ui) -> CliResult {
    Err(crate::error::CliError::usage(
        "`export` is not implemented yet",
    ))
}
