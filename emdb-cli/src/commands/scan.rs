//! `emdb scan`: keys (and values) in key order, filtered.

use std::borrow::Cow;
use std::ops::Bound;

use emdb_core::{RangeIter, ReadPattern};

use crate::cli::ScanArgs;
use crate::database::Session;
use crate::encoding::{display, Encoding, Layout};
use crate::error::{CliError, CliResult};
use crate::glob::Glob;
use crate::output::{quoted, Ui};

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
/// Streams from the engine's sorted order (docs/ARCHITECTURE.md, "Sorted
/// order"): the start of the range (the larger of `--prefix` and `--from`)
/// is found in O(log n) and records are read one at a time until the end
/// of the range (`--to`, the end of the prefix) or `--limit`, so a scan
/// holds no list of keys and costs the same on any database size. `--glob`
/// filters within that range.
pub fn run(args: &ScanArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let codec = ui.codec;
    if args.glob.is_some() && codec.key != Encoding::Text {
        // The pattern is text matched against the key's bytes; a hex or
        // base64 pattern would silently match nothing.
        return Err(CliError::usage(format!(
            "--glob matches keys as text, but keys are in {} here",
            codec.key.name()
        ))
        .hint(
            "give the pattern as text and drop --hex/--base64, or add --key-format text \
             (values keep their own --value-format); --prefix, --from and --to take encoded keys",
        ));
    }
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
    let (start, end) = bounds(&filter);
    let mut left = args.limit.unwrap_or(usize::MAX);
    if left == 0 {
        // Still an error for a namespace that does not exist.
        s.space_reader()?;
        return Ok(());
    }
    // A limit without a glob needs only the range's first pairs.
    let first = args.limit.filter(|_| filter.glob.is_none());
    let mut range = RandomStart::new(s.read_range(start, end, first)?);
    loop {
        let item = range.next(args.keys_only);
        let Some(item) = item else { break };
        let (key, value) = item?;
        // Ctrl-C in the interactive shell (a glob may print nothing for long).
        crate::interrupt::check()?;
        if !filter.keeps(&key) {
            continue;
        }
        print_pair(args, ui, &key, &value)?;
        left -= 1;
        if left == 0 {
            break;
        }
    }
    Ok(())
}

/// Records a scan reads with [`ReadPattern::Random`] before it asks for
/// read-ahead again (a short scan's records fit in a few pages).
const RANDOM_READS_FOR: usize = 1000;

/// Random-read advice for the start of a scan. The seek is a binary search
/// over records all over the log, and most scans are short: with a cold
/// page cache each probe would otherwise read the whole read-around window.
/// After [`RANDOM_READS_FOR`] records, or when the scan ends however it
/// ends, the handle gets read-ahead back (an `emdb shell` keeps it).
struct RandomStart {
    range: RangeIter,
    /// Records still to read under the random advice (0: restored).
    left: usize,
}

impl RandomStart {
    fn new(range: RangeIter) -> RandomStart {
        let _ = range.advise_reads(ReadPattern::Random);
        RandomStart {
            range,
            left: RANDOM_READS_FOR,
        }
    }

    /// The next pair (with an empty value for `keys_only`).
    fn next(&mut self, keys_only: bool) -> Option<emdb_core::Result<(Vec<u8>, Vec<u8>)>> {
        if self.left > 0 {
            self.left -= 1;
            if self.left == 0 {
                let _ = self.range.advise_reads(ReadPattern::Normal);
            }
        }
        if keys_only {
            self.range.next_key().map(|k| k.map(|k| (k, Vec::new())))
        } else {
            self.range.next()
        }
    }
}

impl Drop for RandomStart {
    fn drop(&mut self) {
        if self.left > 0 {
            let _ = self.range.advise_reads(ReadPattern::Normal);
        }
    }
}

/// The range the filter's prefix, `--from` and `--to` leave.
fn bounds(f: &Filter) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let start = match (&f.prefix, &f.from) {
        (Some(p), Some(from)) => Bound::Included(p.max(from).clone()),
        (Some(p), None) => Bound::Included(p.clone()),
        (None, Some(from)) => Bound::Included(from.clone()),
        (None, None) => Bound::Unbounded,
    };
    let prefix_end = f.prefix.as_deref().map(emdb_core::prefix_end);
    let end = match (prefix_end, &f.to) {
        (Some(Bound::Excluded(pe)), Some(to)) => Bound::Excluded(pe.min(to.clone())),
        (Some(Bound::Excluded(pe)), None) => Bound::Excluded(pe),
        (_, Some(to)) => Bound::Excluded(to.clone()),
        (_, None) => Bound::Unbounded,
    };
    (start, end)
}

/// One scanned pair in the chosen output form.
fn print_pair(args: &ScanArgs, ui: &mut Ui, key: &[u8], value: &[u8]) -> CliResult {
    let codec = ui.codec;
    if args.null {
        // The whole record is checked before any of it is written: a
        // reader must never get a key without its value.
        let mut record = null_field(codec.key, key)?.into_owned();
        record.push(0);
        if !args.keys_only {
            record.extend_from_slice(&null_field(codec.value, value)?);
            record.push(0);
        }
        return ui.bytes(&record);
    }
    if args.keys_only {
        if ui.json {
            let record = ui.record(key, None);
            ui.json_line(&record)?;
        } else {
            let text = ui.key_text(key);
            ui.line(&text)?;
        }
        return Ok(());
    }
    if ui.json {
        let record = ui.record(key, Some(value));
        ui.json_line(&record)?;
    } else {
        let line = format!(
            "{}\t{}",
            ui.key_text(key),
            display(codec.value, value, Layout::Field)
        );
        ui.line(&line)?;
    }
    Ok(())
}

/// `bytes` as `--null` prints them, in `enc` (text: exactly as stored).
/// Text holding a NUL itself would be ambiguous, so it is refused.
fn null_field(enc: Encoding, bytes: &[u8]) -> CliResult<Cow<'_, [u8]>> {
    match enc {
        Encoding::Text if bytes.contains(&0) => Err(CliError::bad_input(format!(
            "{} holds a NUL byte, which --null output cannot separate",
            quoted(enc, bytes)
        ))
        .hint("add --hex or --base64 (or --key-format/--value-format)")),
        Encoding::Text => Ok(Cow::Borrowed(bytes)),
        enc => Ok(Cow::Owned(
            display(enc, bytes, Layout::Field).into_owned().into_bytes(),
        )),
    }
}
