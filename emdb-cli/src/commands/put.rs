//! `emdb put KEY VALUE`.

use std::io::Read;

use emdb_core::Ttl;

use crate::cli::PutArgs;
use crate::database::Session;
use crate::encoding::os_bytes;
use crate::error::{CliError, CliResult};
use crate::output::Ui;

/// Store one value, with an expiry when `--ttl` is given.
pub fn run(args: &PutArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let key = ui.codec.key_arg(&args.key)?;
    let raw = match (&args.value, &args.file) {
        (_, Some(file)) => {
            std::fs::read(file).map_err(|e| CliError::io("reading", Some(file), e))?
        }
        (Some(v), None) if v == "-" => {
            if !ui.stdin_free {
                return Err(CliError::usage(
                    "VALUE `-` (stdin) is not available inside `emdb shell`",
                )
                .hint("use --file, or give the value on the line"));
            }
            let mut buf = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut buf)
                .map_err(|e| CliError::io("reading the value from stdin", None, e))?;
            buf
        }
        (Some(v), None) => os_bytes(v, "VALUE")?,
        (None, None) => return Err(CliError::usage("give a VALUE, `-` for stdin, or --file")),
    };
    let value = ui.codec.value_bytes(&raw)?;
    let ttl = args.ttl.map_or(Ttl::Never, Ttl::After);
    if !args.if_absent && args.if_value.is_none() {
        return s.write_keys("put", true, &[&key], |w| w.insert(&key, &value, ttl));
    }
    let expected = match &args.if_value {
        Some(old) => Some(ui.codec.value_bytes(&os_bytes(old, "OLD")?)?),
        None => None,
    };
    // The process holds the writer lock: nobody writes between the check
    // and the write, which commit as one transaction.
    let stored = s.write_keys("put", true, &[&key], |w| {
        w.transaction(|tx| {
            let current = tx.get(&key)?;
            let holds = match &expected {
                Some(old) => current.as_deref() == Some(old.as_slice()),
                None => current.is_none(),
            };
            if holds {
                tx.insert(&key, &value, ttl)?;
            }
            Ok(holds)
        })
    })?;
    if !stored {
        return Err(CliError::not_found(if args.if_absent {
            "the key exists already; nothing was written (--if-absent)"
        } else {
            "the key is missing or holds another value; nothing was written (--if-value)"
        }));
    }
    Ok(())
}
