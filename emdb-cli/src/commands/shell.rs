//! `emdb shell` (placeholder until the next commit).
use crate::cli::GlobalArgs;
use crate::database::Session;
use crate::error::CliResult;
use crate::output::Ui;
/// Not implemented yet.
pub fn run(_g: &GlobalArgs, _s: &mut Session, _ui: &mut Ui) -> CliResult {
    Err(crate::error::CliError::usage(
        "`shell` is not implemented yet",
    ))
}
