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
        if args.raw {
            return Err(CliError::not_found(format!(
                "key {} not found",
                ui.quoted_key(&key)
            )));
        }
        // `null` keeps `emdb get --json k | jq` working; exit 1 still says it.
        return Err(ui.key_not_found(&key));
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
