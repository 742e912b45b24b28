//! `emdb get KEY`.

use crate::cli::GetArgs;
use crate::database::Session;
use crate::encoding::{display, Layout};
use crate::error::{CliError, CliResult};
use crate::output::Ui;

/// Print one value.
pub fn run(args: &GetArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let key = ui.codec.key_arg(&args.key)?;
    let Some(value) = s.read_one(&key)? else {
        if ui.json && !args.raw {
            // `null` keeps `emdb get --json k | jq` working; exit 1 still says it.
            ui.line("null")?;
        }
        return Err(CliError::not_found(format!(
            "key {} not found",
            quoted(&ui.key_text(&key))
        )));
    };
    if args.raw {
        ui.bytes(&value)
    } else if ui.json {
        let record = ui.record(&key, Some(&value));
        ui.json_line(&record)
    } else {
        ui.line(&display(ui.codec.value, &value, Layout::Block))
    }
}

/// A key in a message: in quotes, already escaped for display.
pub fn quoted(text: &str) -> String {
    format!("\"{text}\"")
}
