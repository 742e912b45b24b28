//! The real terminal: raw mode and the alternate screen on the way in,
//! everything undone on the way out (on a panic and on SIGTERM, SIGHUP,
//! SIGINT and SIGQUIT too), Ctrl-Z / SIGTSTP suspending with the terminal
//! given back, input read from the terminal (see [`crate::input`]) and
//! editing in `$EDITOR`.

use std::io::{self, Stdout, Write};
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use crossterm::event::{DisableMouseCapture, EnableMouseCapture, Event};
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, execute};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use crate::event_loop::{Host, Signal};
use crate::input::Decoder;

/// How long the rest of an escape sequence may take to come after its
/// `ESC` before the `ESC` is taken for the Esc key.
const ESC_WAIT: Duration = Duration::from_millis(20);

/// The terminal type of a real session.
pub type Tui = Terminal<CrosstermBackend<Stdout>>;

/// Put the terminal in raw mode on the alternate screen with mouse capture,
/// after installing the panic hook and the signal handlers that undo it.
pub fn setup() -> io::Result<Tui> {
    install_panic_hook();
    signals::install()?;
    enter()?;
    Terminal::new(CrosstermBackend::new(io::stdout()))
}

fn enter() -> io::Result<()> {
    enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)
}

/// Give the terminal back as it was: cooked mode, main screen, no mouse
/// capture, visible cursor. Safe to call more than once.
pub fn restore() -> io::Result<()> {
    let raw = disable_raw_mode();
    let screen = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        cursor::Show
    );
    raw.and(screen)
}

/// A panic on another thread, kept for the UI to show (see
/// [`take_thread_panic`]).
static THREAD_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Restore the terminal before the default panic message is printed, so
/// the message is readable and the shell usable. A panic on another thread
/// (a worker) leaves the screen alone and is kept for the UI to report
/// instead: printing it would scribble over the screen.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() == Some("main") {
                let _ = restore();
                previous(info);
            } else if let Ok(mut slot) = THREAD_PANIC.lock() {
                let thread = std::thread::current()
                    .name()
                    .unwrap_or("a thread")
                    .to_string();
                slot.get_or_insert_with(|| format!("{thread} panicked: {info}"));
            }
        }));
    });
}

/// The message of a panic on a thread other than the main one, once.
pub fn take_thread_panic() -> Option<String> {
    THREAD_PANIC.lock().ok()?.take()
}

/// Restores the terminal when dropped, so every way out of `main` (early
/// return, error, unwinding panic) leaves it clean.
pub struct RestoreGuard;

impl Drop for RestoreGuard {
    fn drop(&mut self) {
        let _ = restore();
    }
}

/// Input from the real terminal; `$EDITOR` with the screen handed over.
///
/// The host reads the terminal itself, every byte waiting at each wake-up,
/// and decodes it with [`Decoder`]: crossterm's reader takes 1 KiB per
/// edge-triggered wake-up, leaving the rest of a paste unread until more
/// input came, and loops for ever on end of file or an I/O error. A
/// hung-up terminal is taken as SIGHUP; a watch thread raises SIGHUP for a
/// terminal that hangs up without the kernel sending one (a process in
/// another session), and ends the process if the loop cannot act on it.
pub struct CrosstermHost {
    tty: tty::Tty,
    input: Decoder,
    gone: bool,
}

impl CrosstermHost {
    /// The host of the terminal crossterm reads (standard input when it is
    /// a terminal, else `/dev/tty`), with its hang-up watch started.
    pub fn new() -> io::Result<CrosstermHost> {
        let tty = tty::Tty::open()?;
        tty.watch()?;
        Ok(CrosstermHost {
            tty,
            input: Decoder::new(),
            gone: false,
        })
    }
}

impl Host for CrosstermHost {
    fn signal(&mut self) -> Option<Signal> {
        let signal = if self.gone {
            Some(Signal::Terminate(libc::SIGHUP))
        } else {
            signals::take()
        };
        if let Some(Signal::Terminate(_)) = signal {
            tty::ending();
        }
        signal
    }

    fn suspend(&mut self) -> io::Result<()> {
        restore()?;
        signals::stop_self()?;
        // Continued (fg): take the screen back; the loop redraws it whole.
        enter()
    }

    fn next_event(&mut self, timeout: Duration) -> io::Result<Option<Event>> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(event) = self.input.next_event() {
                return Ok(Some(event));
            }
            if signals::take_resize() {
                let (width, height) = crossterm::terminal::size()?;
                return Ok(Some(Event::Resize(width, height)));
            }
            if self.gone {
                return Ok(None);
            }
            // The rest of a cut escape sequence gets a moment to come.
            let partial = self.input.is_partial();
            let wait = if partial {
                ESC_WAIT
            } else {
                deadline.saturating_duration_since(Instant::now())
            };
            match self.tty.wait(wait)? {
                tty::Ready::Gone => self.gone = true,
                tty::Ready::Input => {
                    let mut bytes = Vec::new();
                    self.gone = self.tty.read_waiting(&mut bytes)?;
                    self.input.feed(&bytes);
                    if bytes.is_empty() && !self.gone {
                        // Said readable, read nothing: let the loop go on.
                        return Ok(None);
                    }
                }
                tty::Ready::Nothing if partial => self.input.flush(),
                // Timed out, or a signal (a resize is taken above).
                tty::Ready::Nothing => {
                    if !signals::resize_pending() {
                        return Ok(None);
                    }
                }
            }
        }
    }

    fn input_pending(&mut self) -> bool {
        self.input.has_events()
            || self.input.is_partial()
            || matches!(self.tty.wait(Duration::ZERO), Ok(tty::Ready::Input))
    }

    fn copy(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut out = io::stdout().lock();
        out.write_all(osc52(bytes).as_bytes())?;
        out.flush()
    }

    fn edit(&mut self, initial: &[u8]) -> Result<Vec<u8>, String> {
        let path = temp_path();
        let result = edit_file(&path, initial);
        let _ = std::fs::remove_file(&path);
        // Take the screen back whatever happened.
        enter().map_err(|e| format!("could not restore the screen: {e}"))?;
        result
    }
}

/// The OSC 52 sequence that sets the system clipboard to `bytes` (the
/// terminal decodes the base64; tmux keeps it as a paste buffer too).
pub fn osc52(bytes: &[u8]) -> String {
    use base64::Engine;
    format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

fn temp_path() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    std::env::temp_dir().join(format!("emdb-tui-{}-{nanos}.txt", std::process::id()))
}

/// The editor command `E` runs, from `$VISUAL` and `$EDITOR` (`visual`
/// and `editor`): the first one set, else `vi`. One that is empty (or
/// blank) counts as unset: `EDITOR=` would run `sh -c ' "$1"'`, the
/// temporary file itself, which fails with status 126.
pub fn editor_command(visual: Option<String>, editor: Option<String>) -> String {
    [visual, editor]
        .into_iter()
        .flatten()
        .find(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "vi".into())
}

fn edit_file(path: &PathBuf, initial: &[u8]) -> Result<Vec<u8>, String> {
    use std::os::unix::fs::OpenOptionsExt;
    // The plaintext of a value (of an encrypted database too) sits in this
    // file while the editor runs: owner-only, and created here or not at
    // all (`create_new` is O_EXCL, which also refuses a symlink put there).
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("create {}: {e}", path.display()))?;
    file.write_all(initial)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("write {}: {e}", path.display()))?;
    drop(file);
    let editor = editor_command(std::env::var("VISUAL").ok(), std::env::var("EDITOR").ok());
    restore().map_err(|e| format!("could not release the screen: {e}"))?;
    // Through the shell, so EDITOR="code --wait" works.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(path)
        .status()
        .map_err(|e| format!("run {editor}: {e}"))?;
    if !status.success() {
        return Err(format!("{editor} exited with {status}; nothing staged"));
    }
    std::fs::read(path).map_err(|e| format!("read {}: {e}", path.display()))
}

/// The terminal device, watched for a hang-up.
mod tty {
    #![allow(unsafe_code)]

    use std::fs::File;
    use std::io;
    use std::os::fd::{AsRawFd, RawFd};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    /// What [`Tty::wait`] found.
    pub enum Ready {
        /// Input is waiting.
        Input,
        /// Nothing came within the timeout (or a signal interrupted).
        Nothing,
        /// The terminal hung up: reads give end of file or an error.
        Gone,
    }

    /// The terminal crossterm reads: standard input when it is a terminal
    /// (as crossterm decides), else `/dev/tty` (kept open here).
    pub struct Tty {
        fd: RawFd,
        _file: Option<File>,
    }

    /// Input read in one go at most; the rest is read once this is
    /// handled (the loop draws between).
    const MAX_READ: usize = 256 * 1024;

    /// How long the loop has to act on a hang-up before the watch thread
    /// ends the process itself.
    const GRACE: Duration = Duration::from_secs(2);

    fn poll(
        fd: RawFd,
        events: libc::c_short,
        timeout_ms: libc::c_int,
    ) -> io::Result<libc::c_short> {
        let mut p = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: `p` is one valid pollfd living across the call, and the
        // count passed is 1.
        let rc = unsafe { libc::poll(&mut p, 1, timeout_ms) };
        match rc {
            0 => Ok(0),
            n if n > 0 => Ok(p.revents),
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    Ok(0)
                } else {
                    Err(e)
                }
            }
        }
    }

    /// Set once the loop has seen an ending signal: it is on its way out
    /// and the watch thread leaves the ending to it.
    static ENDING: AtomicBool = AtomicBool::new(false);

    /// The loop is ending (on a signal or a hang-up).
    pub fn ending() {
        ENDING.store(true, Ordering::SeqCst);
    }

    const HUNG_UP: libc::c_short = libc::POLLHUP | libc::POLLERR | libc::POLLNVAL;

    impl Tty {
        /// The terminal of this process.
        pub fn open() -> io::Result<Tty> {
            // SAFETY: isatty only looks at the descriptor number.
            if unsafe { libc::isatty(libc::STDIN_FILENO) } == 1 {
                return Ok(Tty {
                    fd: libc::STDIN_FILENO,
                    _file: None,
                });
            }
            let file = File::open("/dev/tty")?;
            Ok(Tty {
                fd: file.as_raw_fd(),
                _file: Some(file),
            })
        }

        /// Wait up to `timeout` for input or a hang-up.
        pub fn wait(&self, timeout: Duration) -> io::Result<Ready> {
            let ms = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
            let revents = poll(self.fd, libc::POLLIN, ms)?;
            Ok(if revents & HUNG_UP != 0 {
                Ready::Gone
            } else if revents & libc::POLLIN != 0 {
                Ready::Input
            } else {
                Ready::Nothing
            })
        }

        /// Read the input waiting, at most [`MAX_READ`] bytes, into `out`,
        /// without blocking: each read follows a poll that says there is
        /// some. True when the terminal is gone (end of file).
        pub fn read_waiting(&self, out: &mut Vec<u8>) -> io::Result<bool> {
            let mut buf = [0u8; 16 * 1024];
            while out.len() < MAX_READ {
                let revents = poll(self.fd, libc::POLLIN, 0)?;
                if revents & libc::POLLIN == 0 {
                    return Ok(revents & HUNG_UP != 0);
                }
                // SAFETY: `buf` is valid for writes of its length for the
                // whole call.
                let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
                match usize::try_from(n) {
                    Ok(0) => return Ok(true),
                    Ok(n) => out.extend_from_slice(&buf[..n]),
                    Err(_) => {
                        let e = io::Error::last_os_error();
                        match e.kind() {
                            io::ErrorKind::Interrupted => {}
                            io::ErrorKind::WouldBlock => break,
                            _ => return Err(e),
                        }
                    }
                }
            }
            Ok(false)
        }

        /// Start the watch thread: it sleeps until the terminal hangs up,
        /// then raises SIGHUP for the loop to end on, and ends the process
        /// by SIGHUP if the loop has not seen it [`GRACE`] later (stuck
        /// where it cannot look).
        pub fn watch(&self) -> io::Result<()> {
            // Its own descriptor, so the watch outlives nothing it needs.
            // SAFETY: dup of a descriptor this process has open.
            let fd = unsafe { libc::dup(self.fd) };
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            std::thread::Builder::new()
                .name("tty-watch".into())
                .spawn(move || {
                    // No events asked for: poll still reports a hang-up or
                    // an error, and sleeps until then.
                    loop {
                        match poll(fd, 0, -1) {
                            Ok(r) if r & HUNG_UP != 0 => break,
                            Ok(_) => {}
                            Err(_) => return,
                        }
                    }
                    // SAFETY: kill with this process's own pid sends a
                    // signal our handler only records.
                    unsafe {
                        libc::kill(libc::getpid(), libc::SIGHUP);
                    }
                    std::thread::sleep(GRACE);
                    if !ENDING.load(Ordering::SeqCst) {
                        super::signals::die_by(libc::SIGHUP);
                    }
                })?;
            Ok(())
        }
    }
}

/// Signals, caught by a handler that only records them (the one thing a
/// handler may safely do); the main loop acts on them between frames.
mod signals {
    #![allow(unsafe_code)]

    use std::io;
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

    use crate::event_loop::Signal;

    /// Pending signals, one bit per signal number.
    static PENDING: AtomicU32 = AtomicU32::new(0);

    /// The terminal was resized (SIGWINCH) since [`take_resize`].
    static RESIZED: AtomicBool = AtomicBool::new(false);

    extern "C" fn record_resize(_sig: libc::c_int) {
        RESIZED.store(true, Ordering::SeqCst);
    }

    /// Whether the terminal was resized since the last call.
    pub fn take_resize() -> bool {
        RESIZED.swap(false, Ordering::SeqCst)
    }

    /// Whether a resize waits to be taken.
    pub fn resize_pending() -> bool {
        RESIZED.load(Ordering::SeqCst)
    }

    const ENDING: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGHUP, libc::SIGINT, libc::SIGQUIT];

    extern "C" fn record(sig: libc::c_int) {
        if (0..32).contains(&sig) {
            PENDING.fetch_or(1 << sig, Ordering::SeqCst);
        }
    }

    fn set_handler(sig: libc::c_int, handler: libc::sighandler_t) -> io::Result<()> {
        // SAFETY: `sigaction` is given a zeroed (valid: no flags, empty mask)
        // struct whose handler is either SIG_DFL, SIG_IGN, `record` or
        // `record_resize`, `extern "C"` functions that only do an atomic
        // store, which is async-signal-safe; the old action is not asked
        // for (null).
        let rc = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut())
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// Catch the signals that end or stop the process.
    pub fn install() -> io::Result<()> {
        let handler = record as extern "C" fn(libc::c_int) as libc::sighandler_t;
        for sig in ENDING.into_iter().chain([libc::SIGTSTP, libc::SIGCONT]) {
            set_handler(sig, handler)?;
        }
        // Past a file size limit (`ulimit -f`) a write fails with EFBIG,
        // an error the UI reports, instead of SIGXFSZ killing the process
        // with the terminal in raw mode.
        set_handler(libc::SIGXFSZ, libc::SIG_IGN)?;
        let resize = record_resize as extern "C" fn(libc::c_int) as libc::sighandler_t;
        set_handler(libc::SIGWINCH, resize)
    }

    /// The most pressing signal received since the last call: an ending
    /// one first, then a stop, then a continue.
    pub fn take() -> Option<Signal> {
        let bits = PENDING.swap(0, Ordering::SeqCst);
        if bits == 0 {
            return None;
        }
        if let Some(&sig) = ENDING.iter().find(|&&s| bits & (1 << s) != 0) {
            return Some(Signal::Terminate(sig));
        }
        if bits & (1 << libc::SIGTSTP) != 0 {
            return Some(Signal::Suspend);
        }
        Some(Signal::Continued)
    }

    /// Stop the process as the shell's job control expects (SIGTSTP with
    /// its default action), and return once it is continued.
    pub fn stop_self() -> io::Result<()> {
        set_handler(libc::SIGTSTP, libc::SIG_DFL)?;
        // SAFETY: raise only sends a signal to this thread; its default
        // action stops the process until SIGCONT.
        let rc = unsafe { libc::raise(libc::SIGTSTP) };
        let raised = if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        };
        let handler = record as extern "C" fn(libc::c_int) as libc::sighandler_t;
        set_handler(libc::SIGTSTP, handler)?;
        // The SIGCONT that woke us is handled here; drop its bit.
        PENDING.fetch_and(!(1 << libc::SIGCONT), Ordering::SeqCst);
        raised
    }

    /// End the process by `sig` with its default action, so the shell sees
    /// how it ended (call after the terminal was restored).
    pub fn die_by(sig: libc::c_int) {
        if set_handler(sig, libc::SIG_DFL).is_ok() {
            // SAFETY: raise only sends a signal to this thread; with the
            // default action restored it ends the process.
            unsafe {
                libc::raise(sig);
            }
        }
    }
}

/// After the terminal was restored for an ending signal: end the process
/// by that signal, as if it had not been caught.
pub fn die_by_signal(sig: i32) {
    signals::die_by(sig);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editors_file_is_owner_only_and_never_an_existing_one() {
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("mode");
        // The "editor" records the file's mode and leaves it as it is.
        std::env::set_var("VISUAL", format!("stat -c %a >'{}'", seen.display()));
        let path = dir.path().join("value.txt");
        assert_eq!(edit_file(&path, b"secret").unwrap(), b"secret");
        let mode = std::fs::read_to_string(&seen).unwrap();
        assert_eq!(mode.trim(), "600");
        // A file (or a symlink) already at the path is refused, not used.
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, b"keep").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("link.txt")).unwrap();
        assert!(edit_file(&dir.path().join("link.txt"), b"secret").is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        std::env::remove_var("VISUAL");
    }
}
