//! `emdb put KEY VALUE`.

use std::io::Read;
use std::path::Path;

use emdb_core::Ttl;

use crate::cli::PutArgs;
use crate::database::Session;
use crate::encoding::os_bytes;
use crate::error::{CliError, CliResult};
use crate::output::Ui;
use crate::Encoding;

/// Store one value, with an expiry when `--ttl` is given.
pub fn run(args: &PutArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let key = ui.codec.key_arg(&args.key)?;
    let raw = match (&args.value, &args.file) {
        (_, Some(file)) => read_file(file, ui.codec.value)?,
        (Some(v), None) if v == "-" => {
            if !ui.stdin_free {
                return Err(CliError::usage(
                    "VALUE `-` (stdin) is not available inside `emdb shell`",
                )
                .hint("use --file, or give the value on the line"));
            }
            read_at_most(std::io::stdin().lock(), ui.codec.value, None)?
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

/// Room for the whitespace around hex or base64 text, which decoding
/// ignores (a trailing newline, a wrapped base64 file's line ends).
const ENCODING_SLACK: u64 = 1 << 20;

/// The most bytes the text of a value can take in `enc`: the engine's
/// value limit, encoded. Anything longer cannot become a storable value.
fn text_limit(enc: Encoding) -> u64 {
    let max = emdb_core::MAX_VALUE_LEN as u64;
    match enc {
        Encoding::Text => max,
        Encoding::Hex => 2 * max + ENCODING_SLACK,
        // Wrapped base64 (76 columns) adds a line end per 57 bytes.
        Encoding::Base64 => max.div_ceil(3) * 4 + max / 57 * 2 + ENCODING_SLACK,
    }
}

/// `--file`: a regular file over the limit is refused by its size, before
/// a byte is read; anything else (a pipe, a device) is read only up to
/// the limit.
fn read_file(file: &Path, enc: Encoding) -> CliResult<Vec<u8>> {
    let f = std::fs::File::open(file).map_err(|e| CliError::io("reading", Some(file), e))?;
    let meta = f
        .metadata()
        .map_err(|e| CliError::io("reading", Some(file), e))?;
    if meta.is_file() && meta.len() > text_limit(enc) {
        return Err(too_big(Some(file), format!("is {} bytes", meta.len()), enc));
    }
    read_at_most(f, enc, Some(file))
}

/// Read `input` to its end, failing as soon as it passes the limit for
/// values in `enc` (memory stays bounded however much there is).
fn read_at_most(input: impl Read, enc: Encoding, file: Option<&Path>) -> CliResult<Vec<u8>> {
    let limit = text_limit(enc);
    let mut buf = Vec::new();
    input
        .take(limit + 1)
        .read_to_end(&mut buf)
        .map_err(|e| match file {
            Some(f) => CliError::io("reading", Some(f), e),
            None => CliError::io("reading the value from stdin", None, e),
        })?;
    if buf.len() as u64 > limit {
        return Err(too_big(file, format!("holds more than {limit} bytes"), enc));
    }
    Ok(buf)
}

/// "too long for a value" (exit 7); `size` says how long the input is
/// (`is 300000000 bytes`, `holds more than 268435456 bytes`).
fn too_big(file: Option<&Path>, size: String, enc: Encoding) -> CliError {
    let source = file.map_or("the value on stdin".into(), |f| f.display().to_string());
    let as_text = match enc {
        Encoding::Text => "",
        Encoding::Hex => " in hex",
        Encoding::Base64 => " in base64",
    };
    CliError::bad_input(format!(
        "{source} {size}: too long for a value{as_text} (the limit is {} bytes, 256 MiB)",
        emdb_core::MAX_VALUE_LEN
    ))
}
