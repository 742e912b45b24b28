//! Ctrl-C in the interactive `emdb shell` stops the command a line runs,
//! not the shell.
//!
//! While a [`Watch`] is alive, SIGINT only raises a flag. A line's output
//! stops at its next write ([`Output`]), and the commands that work long
//! without printing (`scan --glob`, `del --prefix`, `export` to a file)
//! look at the flag between records or batches ([`check`]), so a write
//! command stops between two of its atomic batches. Nothing raises the
//! flag anywhere else: there Ctrl-C does what it always did.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use signal_hook::consts::SIGINT;

use crate::error::{CliError, CliResult, Kind};

/// Raised by SIGINT while a [`Watch`] is alive.
static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// SIGINT raises the flag instead of ending the process, until dropped.
pub struct Watch {
    id: signal_hook::SigId,
    /// Keeps the temp-file watcher (crate::temps) from acting on it.
    _own: crate::temps::Guard,
}

impl Drop for Watch {
    fn drop(&mut self) {
        signal_hook::low_level::unregister(self.id);
    }
}

/// Catch SIGINT from now on (`None` when the handler cannot be set: then
/// Ctrl-C ends the process, as before). The handler that was there (the
/// line editor's, whose prompt reads Ctrl-C as a key anyway) still runs
/// after it, but no longer interrupts what the command waits for.
pub fn watch() -> Option<Watch> {
    let own = crate::temps::handled_by_caller();
    let flag = Arc::clone(FLAG.get_or_init(Arc::default));
    let id = signal_hook::flag::register(SIGINT, flag).ok()?;
    Some(Watch { id, _own: own })
}

/// Whether Ctrl-C was pressed since the last [`clear`].
pub fn requested() -> bool {
    FLAG.get().is_some_and(|f| f.load(Ordering::Relaxed))
}

/// Forget an earlier Ctrl-C (before the next line runs).
pub fn clear() {
    if let Some(f) = FLAG.get() {
        f.store(false, Ordering::Relaxed);
    }
}

/// The failure of a command Ctrl-C stopped.
pub fn stopped() -> CliError {
    CliError::new(Kind::Interrupted, "interrupted by Ctrl-C")
}

/// Fail with [`stopped`] once Ctrl-C was pressed.
pub fn check() -> CliResult {
    if requested() {
        return Err(stopped());
    }
    Ok(())
}

/// Wait until stdin has something to read (or its end); fail with
/// [`stopped`] on Ctrl-C. A read alone would go on waiting: the handler
/// only raises the flag, and the read it interrupted is restarted.
pub fn wait_for_stdin() -> CliResult {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let stdin = io::stdin();
    let tick = Timespec {
        tv_sec: 0,
        tv_nsec: 100_000_000,
    };
    loop {
        check()?;
        let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
        match poll(&mut fds, Some(&tick)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => continue,
            // Ready, or poll does not work on it: the read will tell.
            Ok(_) | Err(_) => return Ok(()),
        }
    }
}

/// Output that fails its next write once Ctrl-C was pressed; what was
/// written before it still goes out.
pub struct Output<'a> {
    inner: &'a mut dyn Write,
}

impl<'a> Output<'a> {
    /// Writes go to `inner` until Ctrl-C.
    pub fn new(inner: &'a mut dyn Write) -> Self {
        Output { inner }
    }
}

impl Write for Output<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if requested() {
            // Not `ErrorKind::Interrupted`, which writers retry.
            return Err(io::Error::other("interrupted by Ctrl-C"));
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
