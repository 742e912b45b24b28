//! The source side of a full resend: before `emdb sync` deletes anything on
//! the target to copy everything again, it makes sure the database it would
//! copy from opens and reads. A file replaced by `encrypt`, `decrypt` or
//! `rotate-key` looks to the change feed like any replaced file (a resend),
//! but the sync's handle holds the old secret and cannot read it: clearing
//! the target first would leave it empty.

use std::path::PathBuf;

use emdb_core::changes::ChangeFeed;
use emdb_core::{Emdb, EncryptionInput};
use emdb_tools::database::{self as shared, OpenOptions};

use crate::error::{CliError, CliResult, Kind};

/// Log bytes decoded to check that a handle reads the file: the first
/// records are sealed with the current key when the database is encrypted.
const PROBE_BYTES: usize = 64 << 10;

/// How the database was opened: its path and the secret the CLI resolved.
pub struct Source {
    path: PathBuf,
    secret: Option<EncryptionInput>,
}

impl Source {
    /// The source at `path`, opened with `secret` (as `emdb sync` was).
    pub fn new(path: PathBuf, secret: Option<EncryptionInput>) -> Source {
        Source { path, secret }
    }

    /// Succeeds when the file at the path opens with the sync's secret
    /// (the usual exit 5 when the secret is missing or wrong) and `db`, the
    /// handle the sync reads through, decodes its first records.
    pub fn verify(&self, db: &Emdb) -> CliResult {
        let options = OpenOptions {
            write: false,
            lock_timeout: None,
            checkpoint_on_close: false,
            follow: false,
            background: false,
        };
        let fresh = shared::open(&self.path, &options, self.secret.clone())
            .map_err(|e| untouched(e.into()))?;
        if probe(db).is_ok() {
            return Ok(());
        }
        // The secret opens the new file but the sync's keys (bound when it
        // started) do not read it: the keys changed under the sync.
        probe(&fresh).map_err(|e| untouched(e.into()))?;
        Err(untouched(
            CliError::new(
                Kind::WrongKey,
                format!(
                    "the encryption of {} changed while emdb sync was running: the keys it started with no longer read the file",
                    self.path.display()
                ),
            )
            .hint("run emdb sync again with the database's current secret"),
        ))
    }
}

/// `e`, stopped before a resend: its hint also says the target was kept.
fn untouched(e: CliError) -> CliError {
    const KEPT: &str = "nothing was deleted from the target (its cursor included)";
    let e = e.context("before copying everything again");
    let hint = match &e.hint {
        Some(h) => format!("{h}; {KEPT}"),
        None => KEPT.to_string(),
    };
    e.hint(hint)
}

/// Decode the first records of the current file through `db`'s keys.
fn probe(db: &Emdb) -> emdb_core::Result<()> {
    let (mut feed, _) = ChangeFeed::open(db, None)?;
    feed.poll(PROBE_BYTES)?;
    Ok(())
}
