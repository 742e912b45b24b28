//! `emdb scan`: keys (and values) in key order, filtered.

use crate::cli::ScanArgs;
use crate::database::Session;
use crate::encoding::{display, Layout};
use crate::error::CliResult;
use crate::glob::Glob;
use crate::output::Ui;

/// Which keys a scan keeps.
struct Filter {
    prefix: Option<Vec<u8>>,
    from: Option<Vec<u8>>,
    to: Option<Vec<u8>>,
    glob: Option<Glob>,
}

impl Filter {
    fn keeps(&self, key: &[u8]) -> bool {
        self.prefix.as_deref().is_none_or(|p| key.starts_with(p))
            && self.from.as_deref().is_none_or(|f| key >= f)
            && self.to.as_deref().is_none_or(|t| key < t)
            && self.glob.as_ref().is_none_or(|g| g.matches(key))
    }
}

/// List records sorted by key bytes.
///
/// The engine has no ordered index or range scan yet, so this walks every
/// key with `keys()`, keeps the matching ones and sorts them in memory;
/// values are then read one by one. Once the engine offers range scans this
/// becomes a streaming scan.
pub fn run(args: &ScanArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let codec = ui.codec;
    let filter = Filter {
        prefix: args
            .prefix
            .as_deref()
            .map(|p| codec.key_arg(p))
            .transpose()?,
        from: args.from.as_deref().map(|p| codec.key_arg(p)).transpose()?,
        to: args.to.as_deref().map(|p| codec.key_arg(p)).transpose()?,
        glob: args.glob.as_deref().map(Glob::new).transpose()?,
    };
    let db = s.reader()?;
    let mut keys = Vec::new();
    for key in db.keys()? {
        let key = key?;
        if filter.keeps(&key) {
            keys.push(key);
        }
    }
    keys.sort_unstable();
    if let Some(limit) = args.limit {
        keys.truncate(limit);
    }
    for key in &keys {
        if args.keys_only {
            if ui.json {
                let record = ui.record(key, None);
                ui.json_line(&record)?;
            } else {
                let text = ui.key_text(key);
                ui.line(&text)?;
            }
            continue;
        }
        // A read-only snapshot cannot lose keys, but a shared handle in
        // `emdb shell` has no other writer either: a miss is just skipped.
        let Some(value) = db.get_zerocopy(key)? else {
            continue;
        };
        if ui.json {
            let record = ui.record(key, Some(&value));
            ui.json_line(&record)?;
        } else {
            let line = format!(
                "{}\t{}",
                ui.key_text(key),
                display(codec.value, &value, Layout::Field)
            );
            ui.line(&line)?;
        }
    }
    Ok(())
}
