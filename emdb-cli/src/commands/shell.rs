//! `emdb shell`: many commands, one process, one open database.
//!
//! Two ways in. From a file or a pipe (batch mode) lines are read in large
//! buffered chunks, and the common data commands (`put KEY VALUE`,
//! `get KEY`, `flush`) take a fast path that needs no clap (`exists` and
//! every other command go through the parser below):
//! puts collect in a buffer that is committed as one atomic unit every
//! [`UNIT_RECORDS`] records (or [`UNIT_BYTES`]), before any other command,
//! on a `flush` line (which also syncs), at the end, and whenever stdin has
//! nothing more to read yet ([`input_waiting`]: a slow pipe or a coprocess
//! that waits for an answer gets its answers and sees its puts before it
//! sends more; from a file or a fast pipe that never happens). A full unit is
//! committed on a second thread while the next lines are read ([`Inflight`]);
//! anything that reads or writes otherwise waits for it first. Every other line goes
//! through the full command-line parser, after the pending unit is
//! committed, so the order of effects is the order of the lines. Gets are
//! queued up to [`GETS_AHEAD`] lines ahead of their answers, each key's index
//! entry prefetched as its line is read ([`Gets`]), and answered in order
//! before any other line runs. The batch
//! ends with a summary on stderr, `lines: N, errors: M`. A line of printable
//! ASCII words separated by single spaces (the usual generated batch) is
//! split in one pass over its bytes ([`plain_words`]) before any UTF-8
//! check; docs/BENCH.md has the profile that led there.
//!
//! On a terminal the shell reads lines with editing and history (rustyline);
//! the history of an encrypted database is never saved. Ctrl-C there
//! stops the command a line runs, not the shell ([`crate::interrupt`]).

use std::io::{BufRead, BufReader, IsTerminal};
use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::Parser;

use crate::cli::{Command, GlobalArgs, ShellLine};
use crate::database::Session;
use crate::encoding::{decode, display, Encoding, Layout};
use crate::error::{CliError, CliResult, Kind};
use crate::output::Ui;
use crate::space::Space;
use emdb_core::WriteBatch;

/// Puts per atomic unit in batch mode.
const UNIT_RECORDS: usize = 10_000;
/// Bytes of keys and values per atomic unit in batch mode.
const UNIT_BYTES: usize = 8 << 20;
/// `get` lines read ahead of their answers in batch mode.
const GETS_AHEAD: usize = 16;

/// Read commands from stdin until its end (or `quit`), run each, and exit
/// with the code of the first failing line (0 when none failed).
pub fn run(global: &GlobalArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    if !ui.stdin_free {
        return Err(CliError::usage("`shell` cannot run inside `emdb shell`"));
    }
    // Writes are flushed once, when the shell ends (or on a `flush` line).
    s.defer_flush();
    let db = if global.read_only {
        s.reader()?
    } else {
        s.writer("shell")?
    };
    // The lines typed name keys and values: of an encrypted database they
    // stay off the disk, history included.
    let encrypted = db.stats()?.encrypted;
    drop(db);
    let mut shell = Shell {
        global,
        pending: None,
        pending_line: 0,
        spare: None,
        inflight: None,
        gets: Gets::default(),
        space: None,
        first_failure: None,
        lines: 0,
        errors: 0,
    };
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        shell.interactive(s, ui, encrypted)?;
    } else {
        shell.batch(s, ui)?;
        shell.commit(ui)?;
        // The summary comes after every answer, also when both streams
        // go to one place.
        ui.out.flush().map_err(CliError::stdout)?;
        // The last sync and checkpoint belong to the run: the summary
        // counts their failure (it said `errors: 0` with exit 6).
        if let Err(e) = s.close() {
            shell.errors += 1;
            shell.first_failure.get_or_insert(e.kind);
            crate::print_error(&e, ui.quiet);
        }
        if !ui.quiet && !global.output.quiet {
            eprintln!("lines: {}, errors: {}", shell.lines, shell.errors);
        }
    }
    shell.commit(ui)?;
    match shell.first_failure {
        None => Ok(()),
        Some(kind) => Err(CliError::silent(kind)),
    }
}

/// Whether stdin has bytes (or its end) to read right now. A file always
/// has; a pipe whose writer has sent nothing more does not. When that
/// cannot be told, as if it had (the shell then waits as before).
fn input_waiting() -> bool {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let stdin = std::io::stdin();
    let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    match poll(&mut fds, Some(&now)) {
        Ok(0) => false,
        Ok(_) | Err(_) => true,
    }
}

/// Whether a unit of puts is full (to be committed).
fn unit_full(batch: &WriteBatch) -> bool {
    batch.len() >= UNIT_RECORDS || batch.size() >= UNIT_BYTES
}

/// `get` lines read but not answered yet: their decoded keys back to back.
/// Each key's index entry is prefetched when its line is read, so the
/// lookups of a run of gets overlap their memory latency; the answers
/// still come out in line order, before anything a later line prints or
/// writes.
#[derive(Default)]
struct Gets {
    keys: Vec<u8>,
    /// (line number, key length) per get, in order.
    lines: Vec<(u64, usize)>,
}

/// A full unit of puts being committed on another thread while the next
/// lines are read and parsed.
struct Inflight {
    handle: std::thread::JoinHandle<(WriteBatch, emdb_core::Result<()>)>,
    /// Puts in the unit, and the line whose put filled it.
    count: usize,
    line: u64,
}

struct Shell<'g> {
    global: &'g GlobalArgs,
    /// Puts not yet committed, encoded as they are parsed (on this
    /// thread, while the previous unit commits on another).
    pending: Option<WriteBatch>,
    /// The line of the last put in `pending`, where a failure to commit
    /// it is reported.
    pending_line: u64,
    /// The batch of the last unit committed in the background, for reuse.
    spare: Option<WriteBatch>,
    inflight: Option<Inflight>,
    gets: Gets,
    /// The key space of the fast path, opened on first use and dropped
    /// after any line that went through the full parser (it may have
    /// dropped the namespace).
    space: Option<Space>,
    first_failure: Option<Kind>,
    lines: u64,
    errors: u64,
}

enum Flow {
    Continue,
    Quit,
}

impl Shell<'_> {
    /// Lines from a file or a pipe.
    fn batch(&mut self, s: &mut Session, ui: &mut Ui) -> CliResult {
        let mut stdin = BufReader::with_capacity(1 << 18, std::io::stdin().lock());
        let mut buf = Vec::new();
        loop {
            // Every whole line read is handled (what is buffered is at
            // most the start of the next), and the next read would wait
            // for a producer that has nothing to send yet (a `tail -f`, or
            // a coprocess waiting for this answer): answer its gets, commit
            // its puts and write out what is buffered first. A unit that
            // fails to commit here is a failing line, as it is when a
            // later line commits it: the last line read.
            if !stdin.buffer().contains(&b'\n') && !input_waiting() {
                if let Err(e) = self.commit(ui) {
                    self.report(e, self.lines, ui)?;
                }
                ui.out.flush().map_err(CliError::stdout)?;
            }
            buf.clear();
            let n = stdin
                .read_until(b'\n', &mut buf)
                .map_err(|e| CliError::io("reading commands from stdin", None, e))?;
            if n == 0 {
                return Ok(());
            }
            // A UTF-8 byte order mark (some Windows editors write one)
            // is not part of the first command, as `import` skips it.
            let line = match buf.strip_prefix(b"\xef\xbb\xbf") {
                Some(rest) if self.lines == 0 => rest,
                _ => &buf[..],
            };
            if let Flow::Quit = self.line(line, s, ui)? {
                return Ok(());
            }
        }
    }

    /// Lines typed on a terminal, with editing and history; the history
    /// of an `encrypted` database is kept in memory only.
    fn interactive(&mut self, s: &mut Session, ui: &mut Ui, encrypted: bool) -> CliResult {
        use rustyline::error::ReadlineError;
        let mut editor = rustyline::DefaultEditor::new()
            .map_err(|e| CliError::new(Kind::Io, format!("cannot set up line editing: {e}")))?;
        let history = history_file();
        if let Some(h) = &history {
            // No history yet is fine.
            let _ = editor.load_history(h);
        }
        // Ctrl-C while a line runs stops that line, not the shell; at the
        // prompt the line editor reads it as a key (it clears the line).
        let _ctrl_c = crate::interrupt::watch();
        loop {
            match editor.readline("emdb> ") {
                Ok(text) => {
                    if !text.trim().is_empty() {
                        let _ = editor.add_history_entry(text.as_str());
                    }
                    crate::interrupt::clear();
                    let outcome = {
                        let mut out = crate::interrupt::Output::new(&mut *ui.out);
                        let mut line_ui = Ui {
                            out: &mut out,
                            json: ui.json,
                            quiet: ui.quiet,
                            codec: ui.codec,
                            interactive: ui.interactive,
                            stdin_free: ui.stdin_free,
                        };
                        self.line(text.as_bytes(), s, &mut line_ui)
                    };
                    // Each answer shows at once (the fast path's gets are
                    // answered into the output buffer), and the next line
                    // sees this one's writes on disk only after `flush`.
                    self.commit(ui)?;
                    ui.out.flush().map_err(CliError::stdout)?;
                    if let Flow::Quit = outcome? {
                        break;
                    }
                }
                Err(ReadlineError::Interrupted) => continue,
                Err(ReadlineError::Eof) => break,
                Err(e) => {
                    return Err(CliError::new(
                        Kind::Io,
                        format!("reading the terminal failed: {e}"),
                    ))
                }
            }
        }
        if let Some(h) = history.as_ref().filter(|_| !encrypted) {
            if let Some(dir) = h.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = editor.save_history(h);
        }
        Ok(())
    }

    /// Run one line; a failing line is reported and counted, and only a
    /// closed stdout ends the shell.
    fn line(&mut self, raw: &[u8], s: &mut Session, ui: &mut Ui) -> CliResult<Flow> {
        self.lines += 1;
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let outcome = match plain_words(raw) {
            Some(words) => self.fast_words(words, s, ui),
            None => Ok(None),
        };
        let outcome = match outcome {
            Ok(Some(flow)) => Ok(flow),
            Ok(None) => match std::str::from_utf8(raw) {
                Ok(text) => self.run_line(text.trim(), s, ui),
                Err(_) => Err(CliError::bad_input("the line is not valid UTF-8")
                    .hint("give binary keys and values with --hex or --base64")),
            },
            Err(e) => Err(e),
        };
        match outcome {
            Ok(flow) => Ok(flow),
            Err(e) => {
                // A line Ctrl-C stopped says so, rather than what failed
                // when it stopped (its output, say).
                let e = if crate::interrupt::requested()
                    && !matches!(e.kind, Kind::BrokenPipe | Kind::Interrupted)
                {
                    crate::interrupt::stopped()
                } else {
                    e
                };
                // The answers of earlier lines come first.
                self.answer_gets(ui)?;
                self.report(e, self.lines, ui)?;
                Ok(Flow::Continue)
            }
        }
    }

    /// Count and print the failure of line `line`; only a closed stdout is
    /// passed on.
    fn report(&mut self, e: CliError, line: u64, ui: &mut Ui) -> CliResult {
        if e.kind == Kind::BrokenPipe {
            return Err(e);
        }
        self.errors += 1;
        self.first_failure.get_or_insert(e.kind);
        // What was printed before the error shows before it.
        ui.out.flush().map_err(CliError::stdout)?;
        crate::print_error(&e.context(format!("line {line}")), ui.quiet);
        Ok(())
    }

    /// Answer the queued `get` lines, in order.
    fn answer_gets(&mut self, ui: &mut Ui) -> CliResult {
        if self.gets.lines.is_empty() {
            return Ok(());
        }
        let Gets { keys, lines } = std::mem::take(&mut self.gets);
        let mut at = 0;
        for &(line, len) in &lines {
            let key = &keys[at..at + len];
            at += len;
            if let Err(e) = self.answer_get(key, ui) {
                self.report(e, line, ui)?;
            }
        }
        // Keep the buffers' capacity for the next run.
        self.gets = Gets { keys, lines };
        self.gets.keys.clear();
        self.gets.lines.clear();
        Ok(())
    }

    /// Print the value of `key` (or fail with not found).
    fn answer_get(&self, key: &[u8], ui: &mut Ui) -> CliResult {
        let Some(space) = &self.space else {
            return Err(CliError::new(Kind::Io, "the key space is not open"));
        };
        let Some(value) = space.get(key)? else {
            return Err(ui.key_not_found(key));
        };
        if ui.json {
            let record = ui.record(key, Some(&value));
            ui.json_line(&record)?;
        } else {
            ui.line(&display(ui.codec.value, &value, Layout::Block))?;
        }
        Ok(())
    }

    fn run_line(&mut self, line: &str, s: &mut Session, ui: &mut Ui) -> CliResult<Flow> {
        if line.is_empty() || line.starts_with('#') {
            return Ok(Flow::Continue);
        }
        match line {
            "quit" | "exit" => return Ok(Flow::Quit),
            "flush" => {
                self.commit(ui)?;
                s.flush()?;
                return Ok(Flow::Continue);
            }
            _ => {}
        }
        if let Some(flow) = self.fast(line, s, ui)? {
            return Ok(flow);
        }
        // Everything else sees the pending puts committed, and may change
        // the namespaces the fast path cached.
        self.commit(ui)?;
        // The batches belong to that key space.
        self.space = None;
        self.pending = None;
        self.spare = None;
        let outcome = run_parsed(line, self.global, s, ui);
        if std::io::stdout().is_terminal() {
            ui.out.flush().map_err(CliError::stdout)?;
        }
        outcome
    }

    /// `put KEY VALUE` and `get KEY` without options, quotes or escapes; `None` sends the line to the full parser.
    fn fast(&mut self, line: &str, s: &mut Session, ui: &mut Ui) -> CliResult<Option<Flow>> {
        if line.contains(['\'', '"', '\\']) {
            return Ok(None);
        }
        let mut words = line.split_ascii_whitespace();
        let (Some(cmd), Some(key)) = (words.next(), words.next()) else {
            return Ok(None);
        };
        let value = words.next();
        if words.next().is_some() {
            return Ok(None);
        }
        let words = Words {
            cmd: cmd.as_bytes(),
            key: key.as_bytes(),
            value: value.map(str::as_bytes),
        };
        self.fast_words(words, s, ui)
    }

    /// [`Shell::fast`] on a line already split into words.
    fn fast_words(
        &mut self,
        Words { cmd, key, value }: Words<'_>,
        s: &mut Session,
        ui: &mut Ui,
    ) -> CliResult<Option<Flow>> {
        if key.starts_with(b"-") || value.is_some_and(|v| v.starts_with(b"-")) {
            return Ok(None);
        }
        let codec = ui.codec;
        match (cmd, value) {
            (b"put", Some(value)) if !self.global.read_only => {
                // Queued gets read the state before this put.
                self.answer_gets(ui)?;
                let key = decoded(codec.key, key).map_err(|e| e.context("KEY"))?;
                let value = decoded(codec.value, value).map_err(|e| e.context("VALUE"))?;
                if key.len() > emdb_core::MAX_KEY_LEN || value.len() > emdb_core::MAX_VALUE_LEN {
                    // The engine's own check words the error.
                    return Ok(None);
                }
                if self.pending.is_none() {
                    let batch = match self.spare.take() {
                        Some(batch) => batch,
                        None => self.space(s, true)?.write_batch(),
                    };
                    self.pending = Some(batch);
                }
                let Some(batch) = self.pending.as_mut() else {
                    return Ok(None);
                };
                batch.put(&key, &value)?;
                self.pending_line = self.lines;
                if unit_full(batch) {
                    self.commit_behind(ui)?;
                }
                Ok(Some(Flow::Continue))
            }
            (b"get", None) => {
                self.commit_puts(ui)?;
                let key = decoded(codec.key, key).map_err(|e| e.context("KEY"))?;
                // The key joins the queue only once the line cannot fail:
                // a key left behind would shift the later answers.
                if self.space.is_none() {
                    match self.space(s, false) {
                        Ok(space) => self.space = Some(space),
                        // As `get --json` answers on the command line.
                        Err(e) if e.kind == Kind::NoNamespace && ui.json => {
                            ui.line("null")?;
                            return Err(e);
                        }
                        Err(e) => return Err(e),
                    }
                }
                let start = self.gets.keys.len();
                self.gets.keys.extend_from_slice(&key);
                let len = key.len();
                if let Some(space) = &self.space {
                    space.prefetch(&self.gets.keys[start..]);
                }
                self.gets.lines.push((self.lines, len));
                if self.gets.lines.len() >= GETS_AHEAD {
                    self.answer_gets(ui)?;
                }
                Ok(Some(Flow::Continue))
            }
            _ => Ok(None),
        }
    }

    /// The key space of the shell's namespace, for the fast path; `write`
    /// creates a missing namespace, a read reports it as not found.
    fn space(&mut self, s: &mut Session, write: bool) -> CliResult<Space> {
        if self.space.is_none() {
            let space = if write {
                s.space_writer("shell", true)?
            } else {
                s.space_reader()?
            };
            self.space = Some(space);
        }
        self.space
            .clone()
            .ok_or_else(|| CliError::new(Kind::Io, "the key space is not open"))
    }

    /// Answer the queued gets, then commit the pending puts.
    fn commit(&mut self, ui: &mut Ui) -> CliResult {
        self.answer_gets(ui)?;
        self.commit_puts(ui)
    }

    /// Commit the full pending unit on another thread, after the previous
    /// one landed: the next lines are parsed meanwhile.
    fn commit_behind(&mut self, ui: &mut Ui) -> CliResult {
        self.answer_gets(ui)?;
        self.settle(ui)?;
        let Some(mut unit) = self.pending.take() else {
            return Ok(());
        };
        let count = unit.len();
        let handle = std::thread::Builder::new()
            .name("emdb-shell-commit".into())
            .spawn(move || {
                let r = unit.commit();
                (unit, r)
            })
            .map_err(|e| CliError::io("starting a thread to commit puts", None, e))?;
        self.inflight = Some(Inflight {
            handle,
            count,
            line: self.lines,
        });
        Ok(())
    }

    /// Wait for the unit committed in the background; its failure is
    /// reported at the line whose put filled it.
    fn settle(&mut self, ui: &mut Ui) -> CliResult {
        let Some(unit) = self.inflight.take() else {
            return Ok(());
        };
        let Ok((mut done, outcome)) = unit.handle.join() else {
            return Err(CliError::new(
                Kind::Io,
                format!(
                    "the thread committing the {} puts up to line {} failed",
                    unit.count, unit.line
                ),
            ));
        };
        done.clear();
        self.spare = Some(done);
        match outcome {
            Ok(()) => Ok(()),
            Err(e) => {
                let e =
                    CliError::from(e).context(format!("committing the last {} puts", unit.count));
                self.report(e, unit.line, ui)
            }
        }
    }

    /// Commit the pending puts as one atomic unit (not yet synced), after
    /// the one committed in the background. A failure is reported at the
    /// line of the last put, as a background unit's is, and the line that
    /// asked for the commit still runs: a `get` after puts that did not
    /// land answers (`null` with `--json`), so a coprocess reading one
    /// answer per `get` stays in step.
    fn commit_puts(&mut self, ui: &mut Ui) -> CliResult {
        self.settle(ui)?;
        let Some(batch) = self.pending.as_mut().filter(|b| !b.is_empty()) else {
            return Ok(());
        };
        let count = batch.len();
        let outcome = batch.commit();
        batch.clear();
        match outcome {
            Ok(()) => Ok(()),
            Err(e) => {
                let e = CliError::from(e).context(format!("committing the last {count} puts"));
                self.report(e, self.pending_line, ui)
            }
        }
    }
}

impl Drop for Shell<'_> {
    /// A unit still being committed (the shell ended early, on a closed
    /// stdout) lands or not as a whole before the database closes.
    fn drop(&mut self) {
        if let Some(unit) = self.inflight.take() {
            let _ = unit.handle.join();
        }
    }
}

/// A fast-path line: a command and its one or two arguments.
struct Words<'a> {
    cmd: &'a [u8],
    key: &'a [u8],
    value: Option<&'a [u8]>,
}

/// Split a line of printable ASCII (no quote, no backslash) on single
/// spaces into two or three words, in one pass over its bytes; `None` for
/// anything else (other whitespace, a comment, one word, UTF-8, ...), which
/// takes the general path: that path treats such a line exactly as this
/// one would.
fn plain_words(line: &[u8]) -> Option<Words<'_>> {
    let mut cuts = [0usize; 2];
    let mut n = 0;
    for (i, &b) in line.iter().enumerate() {
        match b {
            b' ' => {
                if n == 2 {
                    return None;
                }
                cuts[n] = i;
                n += 1;
            }
            b'!'..=b'~' if !matches!(b, b'\'' | b'"' | b'\\') => {}
            _ => return None,
        }
    }
    if line.first().is_none_or(|&b| b == b'#') {
        return None;
    }
    let word = |from: usize, to: usize| Some(&line[from..to]).filter(|w| !w.is_empty());
    match n {
        1 => Some(Words {
            cmd: word(0, cuts[0])?,
            key: word(cuts[0] + 1, line.len())?,
            value: None,
        }),
        2 => Some(Words {
            cmd: word(0, cuts[0])?,
            key: word(cuts[0] + 1, cuts[1])?,
            value: Some(word(cuts[1] + 1, line.len())?),
        }),
        _ => None,
    }
}

/// `text` decoded from `enc` (text itself: borrowed).
fn decoded(enc: Encoding, text: &[u8]) -> CliResult<std::borrow::Cow<'_, [u8]>> {
    if enc == Encoding::Text {
        return Ok(std::borrow::Cow::Borrowed(text));
    }
    Ok(std::borrow::Cow::Owned(decode(enc, text)?))
}

/// Where the interactive shell keeps its history: the data directory of
/// the platform (next to the default database).
fn history_file() -> Option<PathBuf> {
    let db = emdb_core::default_database_path().ok()?;
    Some(db.parent()?.join("shell_history"))
}

/// `line` split into words as a POSIX shell splits them (`'...'` quotes
/// everything, `"..."` all but `\\`, `\"`, `\$` and `` \` ``, a backslash
/// outside quotes escapes the next character), except that `#` is an
/// ordinary character: a comment is a whole line ([`Shell::run_line`]),
/// so `put k #v --ttl 1h` stores `#v` as `put k #v` does on the fast path.
/// `None` for an unbalanced quote or a trailing backslash.
fn split_words(line: &str) -> Option<Vec<String>> {
    let blank = |c: &char| matches!(c, ' ' | '\t' | '\n');
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.next_if(blank).is_some() {}
        if chars.peek().is_none() {
            return Some(words);
        }
        let mut word = String::new();
        while let Some(c) = chars.next_if(|c| !blank(c)) {
            match c {
                '\'' => loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                },
                '"' => loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            c @ ('$' | '`' | '"' | '\\') => word.push(c),
                            '\n' => {}
                            c => {
                                word.push('\\');
                                word.push(c);
                            }
                        },
                        c => word.push(c),
                    }
                },
                '\\' => match chars.next()? {
                    '\n' => {}
                    c => word.push(c),
                },
                c => word.push(c),
            }
        }
        words.push(word);
    }
}

/// A line through the full command-line parser.
fn run_parsed(line: &str, global: &GlobalArgs, s: &mut Session, ui: &mut Ui) -> CliResult<Flow> {
    let words = split_words(line).ok_or_else(|| {
        CliError::usage("unbalanced quotes").hint("quote with '...' or \"...\", escape with \\")
    })?;
    let parsed = match ShellLine::try_parse_from(words) {
        Ok(parsed) => parsed,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            ui.bytes(e.render().to_string().as_bytes())?;
            return Ok(Flow::Continue);
        }
        Err(e) => {
            // clap's first paragraph, on one line, without the usage block.
            let text = e.render().to_string();
            let first: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let first = first.join(" ");
            let first = first.strip_prefix("error: ").unwrap_or(&first).to_string();
            return Err(CliError::usage(first).hint("type `help` for the commands"));
        }
    };
    let offline = match &parsed.command {
        Command::Shell => Some("shell"),
        Command::Encrypt(_) => Some("encrypt"),
        Command::Decrypt(_) => Some("decrypt"),
        Command::RotateKey(_) => Some("rotate-key"),
        Command::Check(a) if a.repair => Some("check --repair"),
        Command::Bench(_) => Some("bench"),
        _ => None,
    };
    if let Some(what) = offline {
        return Err(
            CliError::usage(format!("`{what}` cannot run inside `emdb shell`"))
                .hint("run it as its own `emdb` command"),
        );
    }
    let quiet = ui.quiet || parsed.output.quiet;
    let mut line_ui = Ui {
        out: &mut *ui.out,
        json: ui.json || parsed.output.json,
        quiet,
        codec: crate::encoding::overlay(ui.codec, &parsed.output),
        // On a terminal the line editor has handed the terminal back
        // while the line runs: `ns drop` and `del --prefix` may ask.
        interactive: ui.interactive,
        stdin_free: false,
    };
    // `-n` on a line applies to that line only.
    let restore = parsed.namespace.clone().map(|ns| s.set_namespace(Some(ns)));
    let outcome = crate::commands::run(&parsed.command, global, s, &mut line_ui);
    if let Some(old) = restore {
        s.set_namespace(old);
    }
    match outcome {
        Ok(()) => Ok(Flow::Continue),
        // The shell reports a line's failure under its own `--quiet`: the
        // line's own hides a missing key too, as the command's would.
        Err(e) if quiet && e.kind == Kind::NotFound => Err(CliError::silent(e.kind)),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(line: &str) -> Option<(String, String, Option<String>)> {
        let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
        plain_words(line.as_bytes()).map(|w| (text(w.cmd), text(w.key), w.value.map(text)))
    }

    #[test]
    fn plain_lines_split_in_one_pass_and_others_go_the_general_way() {
        let some = |c: &str, k: &str, v: Option<&str>| {
            Some((c.to_string(), k.to_string(), v.map(str::to_string)))
        };
        assert_eq!(split("get key:1"), some("get", "key:1", None));
        assert_eq!(split("put k v"), some("put", "k", Some("v")));
        // Anything the byte loop does not handle exactly like the general
        // path's trim and split goes there instead.
        for other in [
            "",
            "quit",
            "flush",
            "# get k",
            " get k",
            "get k ",
            "get  k",
            "get\tk",
            "put k v w",
            "get 'k'",
            "get \"k\"",
            "get a\\nb",
            "get é",
            "get k\x0b",
        ] {
            assert_eq!(split(other), None, "{other:?}");
        }
    }

    #[test]
    fn words_split_as_a_shell_splits_them_but_hash_is_a_character() {
        let words = |line: &str| split_words(line).map(|w| w.join("|"));
        let some = |w: &str| Some(w.to_string());
        assert_eq!(words("put k #v --ttl 1h"), some("put|k|#v|--ttl|1h"));
        assert_eq!(
            words("put k v # not a comment"),
            some("put|k|v|#|not|a|comment")
        );
        assert_eq!(words("  put\t'a b'  \"c d\" "), some("put|a b|c d"));
        assert_eq!(words("put a\\ b 'x\\y'"), some("put|a b|x\\y"));
        assert_eq!(words(r#"put k "a\"b\\c\$d\e""#), some(r#"put|k|a"b\c$d\e"#));
        assert_eq!(words("put k ''"), some("put|k|"));
        assert_eq!(words("put 'a"), None);
        assert_eq!(words("put \"a"), None);
        assert_eq!(words("put a\\"), None);
        assert_eq!(words(""), some(""));
    }
}
