//! The main loop, generic over the ratatui backend and the input source so
//! tests drive it with `TestBackend` and scripted events.

use std::io;
use std::time::{Duration, Instant, SystemTime};

use crossterm::event::Event;
use ratatui::backend::Backend;
use ratatui::Terminal;

use crate::action::Action;
use crate::app::{App, Mode};
use crate::update::update;

/// A signal the process received, as the loop acts on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// SIGTERM, SIGHUP, SIGINT or SIGQUIT (the number): restore the
    /// terminal and end.
    Terminate(i32),
    /// SIGTSTP from outside: suspend as Ctrl-Z does.
    Suspend,
    /// SIGCONT after a stop the loop did not see coming: redraw everything.
    Continued,
}

/// Where input comes from, and who runs `$EDITOR`.
pub trait Host {
    /// The next terminal event, waiting at most `timeout`.
    fn next_event(&mut self, timeout: Duration) -> io::Result<Option<Event>>;

    /// Let the user edit `initial` in an external editor; the edited bytes.
    fn edit(&mut self, initial: &[u8]) -> Result<Vec<u8>, String>;

    /// Put `bytes` on the terminal's clipboard.
    fn copy(&mut self, bytes: &[u8]) -> io::Result<()> {
        let _ = bytes;
        Ok(())
    }

    /// More input is already waiting (a paste being read): work that only
    /// the last of it decides, such as scanning for the filter typed, can
    /// wait for it.
    fn input_pending(&mut self) -> bool {
        false
    }

    /// A signal received since the last call.
    fn signal(&mut self) -> Option<Signal> {
        None
    }

    /// Give the terminal back and stop the process (Ctrl-Z); returns when
    /// it is continued, with the terminal taken back.
    fn suspend(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Longest wait for input, so worker results show up promptly.
const POLL: Duration = Duration::from_millis(20);

/// Input events handled between two frames at most.
const MAX_EVENTS_PER_FRAME: usize = 256;

/// Run until the user quits: tick the clock, feed input and worker results
/// to [`update`], and draw when it says the screen changed (idle, that is
/// once a second at most, and only while a countdown or an "ago" shows).
pub fn run<B: Backend, H: Host>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    host: &mut H,
) -> io::Result<()> {
    app.start();
    let size = terminal.size()?;
    update(
        app,
        Action::Resize {
            width: size.width,
            height: size.height,
        },
    );
    let tick = app.config.tick;
    let mut next_tick = Instant::now();
    let mut dirty = true;
    // A key was refused: the keys typed right after it (the same burst)
    // were meant for what was refused, and are dropped rather than run as
    // commands, until input pauses.
    let mut dropping = false;
    loop {
        if let Some(message) = crate::terminal::take_thread_panic() {
            app.complain(format!("{message}; restart emdb-tui"));
            dirty = true;
        }
        while let Some(resp) = app.poll_worker() {
            update(app, Action::Worker(Box::new(resp)));
        }
        let now = Instant::now();
        if now >= next_tick {
            update(app, Action::Tick(SystemTime::now()));
            next_tick += tick;
            if next_tick < now {
                next_tick = now + tick;
            }
        }
        // Draw only when something on screen changed (update says so).
        dirty |= std::mem::take(&mut app.redraw);
        match host.signal() {
            Some(Signal::Terminate(sig)) => {
                app.ended_by = Some(sig);
                app.quit = true;
            }
            Some(Signal::Suspend) => app.suspend = true,
            Some(Signal::Continued) => {
                terminal.clear()?;
                dirty = true;
            }
            None => {}
        }
        if app.suspend && !app.quit {
            app.suspend = false;
            host.suspend()?;
            terminal.clear()?;
            dirty = true;
        }
        if let Some(job) = app.editor.take() {
            let result = host.edit(&job.initial);
            terminal.clear()?;
            update(app, Action::Edited { job, result });
            dirty = true;
        }
        if let Some(bytes) = app.clipboard.take() {
            host.copy(&bytes)?;
        }
        if app.quit {
            return Ok(());
        }
        if dirty {
            terminal.draw(|frame| crate::ui::draw(frame, app))?;
            dirty = false;
        }
        let mut wait = next_tick
            .saturating_duration_since(Instant::now())
            .min(POLL);
        // Take every event already waiting before drawing again, so a burst
        // of typing (or a paste) costs one frame, not one per key.
        for _ in 0..MAX_EVENTS_PER_FRAME {
            let Some(event) = host.next_event(wait)? else {
                dropping = false;
                break;
            };
            wait = Duration::ZERO;
            let key = matches!(event, Event::Key(_));
            let action = crate::event::to_action(&event, app);
            // Ctrl-C and Ctrl-Z always act.
            let always = matches!(action, Some(Action::Interrupt | Action::Suspend));
            if dropping && key && !always {
                continue;
            }
            // Key scans wait for the end of the burst.
            app.input_pending = true;
            let refusals = app.refusals;
            if let Some(action) = action {
                update(app, action);
                // Refused while keys act as commands: drop the rest. (In a
                // prompt, typing goes on into the prompt.)
                if key && app.refusals != refusals && app.mode == Mode::Normal {
                    dropping = true;
                }
            }
            dirty |= std::mem::take(&mut app.redraw);
            if app.quit || app.editor.is_some() || app.suspend || app.clipboard.is_some() {
                break;
            }
        }
        if app.input_pending && !host.input_pending() {
            crate::update::input_read(app);
            dirty |= std::mem::take(&mut app.redraw);
        }
    }
}
