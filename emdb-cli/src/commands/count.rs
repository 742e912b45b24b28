//! `emdb count`.

use crate::database::Session;
use crate::error::CliResult;
use crate::output::{CountReport, Ui};

/// Print the number of keys.
pub fn run(s: &mut Session, ui: &mut Ui) -> CliResult {
    let count = s.space_reader()?.len()? as u64;
    if ui.json {
        ui.json_line(&CountReport { count })
    } else {
        ui.line(&count.to_string())
    }
}
