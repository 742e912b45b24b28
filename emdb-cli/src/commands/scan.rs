//! `emdb scan`: keys (and values) in key order, filtered.

use std::collections::BinaryHeap;

use crate::cli::ScanArgs;
use crate::database::Session;
use crate::encoding::{display, Encoding, Layout};
use crate::error::{CliError, CliResult};
use crate::glob::Glob;
use crate::keylist::KeyList;
use crate::output::Ui;
use crate::space::Space;

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
/// Walks every key of the namespace with `keys()`, keeps the matching ones
/// and sorts them in memory (with `--limit N`, only the N smallest are
/// kept, in a heap); values are then read one by one. The engine's range
/// scans would stream in order, but they need a sorted copy of every key
/// built at open, which costs more than this walk for a one-shot process
/// (docs/CLI.md, "scan", has the measurements).
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
    let space = s.space_reader()?;
    let mut keys = KeyList::new();
    match args.limit {
        Some(limit) => {
            for key in smallest(&space, &filter, limit)? {
                keys.push(&key, ());
            }
        }
        None => {
            for key in space.keys()? {
                let key = key?;
                if filter.keeps(&key) {
                    keys.push(&key, ());
                }
            }
            keys.sort();
        }
    }
    for (key, ()) in keys.iter() {
        if args.null {
            null_field(ui, codec.key, key)?;
            if !args.keys_only {
                if let Some(value) = space.get(key)? {
                    null_field(ui, codec.value, &value)?;
                } else {
                    // Keep the key/value pairing: an empty value field.
                    ui.bytes(b"\0")?;
                }
            }
            continue;
        }
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
        let Some(value) = space.get(key)? else {
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

/// `bytes` in `enc` (text: exactly as stored) and a NUL. Text holding a
/// NUL itself would be ambiguous, so it is refused.
fn null_field(ui: &mut Ui, enc: Encoding, bytes: &[u8]) -> CliResult {
    match enc {
        Encoding::Text if bytes.contains(&0) => {
            return Err(CliError::bad_input(format!(
                "{} holds a NUL byte, which --null output cannot separate",
                crate::commands::get::quoted(&display(enc, bytes, Layout::Field))
            ))
            .hint("add --hex or --base64 (or --key-format/--value-format)"));
        }
        Encoding::Text => ui.bytes(bytes)?,
        enc => ui.bytes(display(enc, bytes, Layout::Field).as_bytes())?,
    }
    ui.bytes(b"\0")
}

/// The `limit` smallest matching keys, sorted, without holding every key.
fn smallest(space: &Space, filter: &Filter, limit: usize) -> CliResult<Vec<Vec<u8>>> {
    let mut heap: BinaryHeap<Vec<u8>> = BinaryHeap::with_capacity(limit.min(1 << 16) + 1);
    if limit == 0 {
        return Ok(Vec::new());
    }
    for key in space.keys()? {
        let key = key?;
        if !filter.keeps(&key) {
            continue;
        }
        if heap.len() < limit {
            heap.push(key);
        } else if heap.peek().is_some_and(|top| key < *top) {
            heap.pop();
            heap.push(key);
        }
    }
    Ok(heap.into_sorted_vec())
}
