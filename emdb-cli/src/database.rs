//! Opening the database: which file, read-only or writable, and waiting for
//! the writer lock.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use emdb_core::Emdb;

use crate::cli::GlobalArgs;
use crate::error::{CliError, CliResult, Kind};

/// The database of one `emdb` run (or one `emdb shell`), opened on first use.
pub struct Session {
    db_arg: Option<PathBuf>,
    read_only: bool,
    lock_timeout: Option<Duration>,
    db: Option<Emdb>,
    writable: bool,
    flush_each_write: bool,
}

impl Session {
    /// A session for the global options; nothing is opened yet.
    pub fn new(global: &GlobalArgs) -> Session {
        Session {
            db_arg: global.db.clone(),
            read_only: global.read_only,
            lock_timeout: global.lock_timeout,
            db: None,
            writable: false,
            flush_each_write: true,
        }
    }

    /// A new session on the same file with the same options, nothing open.
    pub fn new_like(other: &Session) -> Session {
        Session {
            db_arg: other.db_arg.clone(),
            read_only: other.read_only,
            lock_timeout: other.lock_timeout,
            db: None,
            writable: false,
            flush_each_write: other.flush_each_write,
        }
    }

    /// The database file: `--db`, else `EMDB_PATH`, else the platform default.
    pub fn path(&self) -> CliResult<PathBuf> {
        match &self.db_arg {
            Some(p) => Ok(p.clone()),
            None => emdb_core::default_database_path()
                .map_err(|e| CliError::from(e).hint("pass --db PATH or set EMDB_PATH")),
        }
    }

    /// Do not flush after every write command; [`Session::close`] flushes
    /// once (used by `emdb shell`).
    pub fn defer_flush(&mut self) {
        self.flush_each_write = false;
    }

    /// A handle for reading. Opens the file read-only (a snapshot that needs
    /// no lock) unless a handle is open already.
    pub fn reader(&mut self) -> CliResult<Emdb> {
        if let Some(db) = &self.db {
            return Ok(db.clone());
        }
        let path = self.path()?;
        if !path.exists() {
            return Err(CliError::new(
                Kind::Io,
                format!(
                    "no database at {} (nothing was written there yet)",
                    path.display()
                ),
            )
            .hint("check --db or EMDB_PATH; `emdb put` creates the database"));
        }
        let db = Emdb::builder().path(&path).read_only(true).build()?;
        self.db = Some(db.clone());
        Ok(db)
    }

    /// A handle for writing, for the command `what`. Takes the writer lock,
    /// retrying for up to `--lock-timeout` while another process holds it.
    /// The index is checkpointed on close, so the next open is fast.
    pub fn writer(&mut self, what: &str) -> CliResult<Emdb> {
        self.open_writer(what, true)
    }

    /// A handle for a write of a few records (`put`, `del KEY`): like
    /// [`Session::writer`] but without rewriting the index checkpoint on
    /// close, which would cost more than the write on a big database. The
    /// next open replays the few records written since the last checkpoint.
    pub fn small_writer(&mut self, what: &str) -> CliResult<Emdb> {
        self.open_writer(what, false)
    }

    fn open_writer(&mut self, what: &str, checkpoint_on_close: bool) -> CliResult<Emdb> {
        if self.read_only {
            return Err(CliError::usage(format!(
                "`{what}` writes to the database, but --read-only was given"
            )));
        }
        if let Some(db) = &self.db {
            if self.writable {
                return Ok(db.clone());
            }
            // A read-only snapshot was opened earlier in this run: replace it.
            self.db = None;
        }
        let path = self.path()?;
        let db = open_writable(&path, self.lock_timeout, checkpoint_on_close)?;
        self.db = Some(db.clone());
        self.writable = true;
        Ok(db)
    }

    /// Call after a write command: makes the write durable now, unless the
    /// flush is deferred to [`Session::close`].
    pub fn wrote(&self, db: &Emdb) -> CliResult {
        if self.flush_each_write {
            db.flush()?;
        }
        Ok(())
    }

    /// Flush pending writes and close the database.
    pub fn close(&mut self) -> CliResult {
        if let Some(db) = self.db.take() {
            if self.writable {
                db.flush()?;
            }
        }
        Ok(())
    }
}

fn open_writable(
    path: &PathBuf,
    timeout: Option<Duration>,
    checkpoint_on_close: bool,
) -> CliResult<Emdb> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(10);
    loop {
        match Emdb::builder()
            .path(path)
            .checkpoint_on_close(checkpoint_on_close)
            .build()
        {
            Ok(db) => return Ok(db),
            Err(e @ emdb_core::Error::LockBusy { .. }) => {
                let waited = start.elapsed();
                let left = timeout.unwrap_or_default().saturating_sub(waited);
                if left.is_zero() {
                    let err = CliError::from(e);
                    return Err(match timeout {
                        Some(t) => err
                            .context(format!("gave up after waiting {}", human_duration(t)))
                            .hint("`emdb lock status` shows the holder"),
                        None => err,
                    });
                }
                std::thread::sleep(pause.min(left));
                pause = (pause * 2).min(Duration::from_millis(250));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

fn human_duration(d: Duration) -> String {
    if d.as_secs() >= 1 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{}ms", d.as_millis())
    }
}
