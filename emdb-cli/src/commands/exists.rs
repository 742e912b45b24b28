//! `emdb exists KEY`: exit 0 or 1.

use crate::cli::KeyArgs;
use crate::database::Session;
use crate::error::{CliError, CliResult, Kind};
use crate::output::{ExistsReport, Ui};

/// Check for one key; prints nothing unless `--json`.
pub fn run(args: &KeyArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let key = ui.codec.key_arg(&args.key)?;
    let exists = s.read_one(&key)?.is_some();
    if ui.json {
        let report = ExistsReport {
            key: ui.record(&key, None),
            exists,
        };
        ui.json_line(&report)?;
    }
    if exists {
        Ok(())
    } else {
        Err(CliError::silent(Kind::NotFound))
    }
}
