//! `emdb compact`: reclaim the bytes of dead records.

use crate::cli::CompactArgs;
use crate::database::Session;
use crate::error::{CliError, CliResult};
use crate::output::{CompactReport, Ui};
use crate::progress;

/// Compact, or with `--dry-run` print the estimate (the dead bytes).
pub fn run(args: &CompactArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    if args.dry_run {
        let db = s.reader()?;
        let st = db.stats()?;
        let report = CompactReport {
            dry_run: true,
            dead_bytes_before: st.dead_bytes,
            log_bytes_before: st.log_logical_bytes,
            log_bytes_after: st.log_logical_bytes,
            reclaimed_bytes: st.dead_bytes,
        };
        let text = format!(
            "compaction would reclaim about {} bytes of {} (dry run; nothing changed)",
            st.dead_bytes, st.log_logical_bytes
        );
        // An estimate is the answer asked for, so it prints even when quiet.
        return if ui.json {
            ui.json_line(&report)
        } else {
            ui.line(&text)
        };
    }
    let db = s.writer("compact")?;
    // Its open removed any leftover; the one written now holds every live
    // record (in plaintext for a plain database): Ctrl-C removes it.
    let _interrupt = crate::temps::remove_on_interrupt(
        vec![crate::database::beside_real(&s.path()?, ".compact.tmp")],
        Vec::new(),
    );
    let before = db.stats()?;
    // Bytes of live records copied, as the engine reports them.
    let unwritten = match progress::engine("compacting", ui.quiet, || db.compact()) {
        Ok(()) => None,
        // Compacted, and durable; only the checkpoint after it failed.
        Err(e @ emdb_core::Error::CheckpointNotWritten(_)) => Some(e),
        Err(e) => return Err(e.into()),
    };
    s.wrote()?;
    let after = db.stats()?;
    let reclaimed = before
        .log_logical_bytes
        .saturating_sub(after.log_logical_bytes);
    let report = CompactReport {
        dry_run: false,
        dead_bytes_before: before.dead_bytes,
        log_bytes_before: before.log_logical_bytes,
        log_bytes_after: after.log_logical_bytes,
        reclaimed_bytes: reclaimed,
    };
    let text = format!(
        "reclaimed {reclaimed} bytes: the log went from {} to {} bytes",
        before.log_logical_bytes, after.log_logical_bytes
    );
    ui.report(&text, &report)?;
    match unwritten {
        None => Ok(()),
        Some(e) => Err(CliError::from(e).hint(format!(
            "the compaction itself finished (reclaimed {reclaimed} bytes); free some space: \
             later writers write the checkpoint again, and until then each open replays the \
             compacted log"
        ))),
    }
}
