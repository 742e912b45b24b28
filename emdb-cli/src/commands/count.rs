//! `emdb count`.

use crate::database::Session;
use crate::error::CliResult;
use crate::output::{CountReport, Ui};

/// Print the number of keys.
pub fn run(s: &mut Session, ui: &mut Ui) -> CliResult {
    let count = s.read_count()?;
    if ui.json {
        ui.json_line(&CountReport { count })
    } else {
        ui.line(&count.to_string())
    }
}
