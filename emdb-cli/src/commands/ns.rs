//! `emdb ns list` and `emdb ns drop NAME`.

use super::confirm;
use crate::cli::{NsCommand, NsDropArgs};
use crate::database::{unknown_namespace, Session};
use crate::encoding::{escape_text, Layout};
use crate::error::{CliError, CliResult};
use crate::output::{NamespaceReport, NsDropReport, Ui};

/// List or drop namespaces.
pub fn run(cmd: &NsCommand, s: &mut Session, ui: &mut Ui) -> CliResult {
    match cmd {
        NsCommand::List => list(s, ui),
        NsCommand::Drop(args) => drop(args, s, ui),
    }
}

fn list(s: &mut Session, ui: &mut Ui) -> CliResult {
    for (name, keys) in s.read_counts()?.namespaces {
        if ui.json {
            ui.json_line(&NamespaceReport { name, keys })?;
        } else {
            // Escaped as keys are: a tab or newline in a name must not
            // split the record, nor a control byte reach the terminal.
            ui.line(&format!(
                "{}\t{keys}",
                escape_text(name.as_bytes(), Layout::Field)
            ))?;
        }
    }
    Ok(())
}

fn drop(args: &NsDropArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let name = &args.name;
    if name.is_empty() {
        return Err(CliError::usage("the default namespace cannot be dropped")
            .hint("`emdb del --prefix '' --yes` deletes every key in it"));
    }
    let db = s.writer("ns drop")?;
    if !db.list_namespaces()?.iter().any(|n| n == name) {
        return Err(unknown_namespace(name));
    }
    let keys = db.namespace(name)?.len()? as u64;
    let what = format!(
        "namespace \"{}\" with {keys} {}",
        escape_text(name.as_bytes(), Layout::Field),
        plural(keys)
    );
    if !args.yes {
        if !ui.interactive {
            return Err(CliError::usage(format!(
                "refusing to drop {what} without confirmation (not a terminal)"
            ))
            .hint("pass --yes to drop it"));
        }
        if !confirm(ui, &format!("drop {what}?"))? {
            return Err(CliError::usage("cancelled; nothing was dropped"));
        }
    }
    db.drop_namespace(name)?;
    s.wrote()?;
    let report = NsDropReport {
        name: name.clone(),
        keys,
        dropped: true,
    };
    ui.report(&format!("dropped {what}"), &report)
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        "key"
    } else {
        "keys"
    }
}
