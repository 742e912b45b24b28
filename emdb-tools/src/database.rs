//! Which database file to open and how: the path (`--db`, `EMDB_PATH`, the
//! platform default), opening it read-only or for writing with the secret
//! of an encrypted file, and waiting for the writer lock.

use std::io::Write;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use emdb_core::{Emdb, EncryptionInput, KeysWriter, OneExpiry, OneKey, RangeIter};

use crate::encoding::{escape_line, escape_text, Layout};
use crate::error::{Kind, ToolError, ToolResult};
use crate::secret;

/// The database file: `explicit` (a PATH argument, `--db` or `EMDB_PATH`,
/// whichever the binary gives first), else the platform default.
pub fn resolve_path(explicit: Option<&Path>) -> ToolResult<PathBuf> {
    match explicit {
        Some(p) => Ok(p.to_path_buf()),
        None => emdb_core::default_database_path()
            .map_err(|e| ToolError::from(e).hint("pass --db PATH or set EMDB_PATH")),
    }
}

/// How to open a database with [`open`].
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Take the writer lock (and create the file when missing); else a
    /// read-only handle that needs no lock and never creates anything.
    pub write: bool,
    /// How long to retry while another process holds the writer lock
    /// (`None` or zero: fail at once).
    pub lock_timeout: Option<Duration>,
    /// Write the index checkpoint on close (writable handles only).
    pub checkpoint_on_close: bool,
    /// Read-only handles: follow the writer in the background (a thread
    /// that catches up about every 50 ms), for tools that stay open. A
    /// one-shot command leaves it off: its handle is a snapshot of the
    /// database as it was opened, and no thread is started.
    pub follow: bool,
    /// Writable handles: run the writer's background threads (stats
    /// sidecar, automatic checkpoints; `EmdbBuilder::background`). A write
    /// of a few records that closes at once leaves them off.
    pub background: bool,
}

/// Open `path` with `secret`. A read-only open of a missing file fails
/// with [`no_database`]; a writable one waits up to `lock_timeout` for the
/// writer lock and then says how long it waited.
pub fn open(
    path: &Path,
    options: &OpenOptions,
    secret: Option<EncryptionInput>,
) -> emdb_core::Result<Emdb> {
    let build = || {
        let mut b = Emdb::builder()
            .path(path)
            .read_only(!options.write)
            .follow(options.follow);
        if options.write {
            b = b
                .checkpoint_on_close(options.checkpoint_on_close)
                .background(options.background);
        }
        if let Some(s) = secret.clone() {
            b = b.encryption(s);
        }
        b.build()
    };
    if options.write {
        retry_locked(options.lock_timeout, build)
    } else {
        build()
    }
}

/// A builder for the database at `path`, with `secret` when given, for
/// the one-shot reads below.
fn one_shot(path: &Path, secret: Option<EncryptionInput>) -> emdb_core::EmdbBuilder {
    let b = Emdb::builder().path(path);
    match secret {
        Some(s) => b.encryption(s),
        None => b,
    }
}

/// Read `key` in `namespace` of the database at `path` and close it
/// ([`emdb_core::EmdbBuilder::read_one_key`]: read-only, pinned, and only
/// that key's records of the log tail indexed).
pub fn read_one_key(
    path: &Path,
    secret: Option<EncryptionInput>,
    namespace: Option<&str>,
    key: &[u8],
) -> emdb_core::Result<OneKey> {
    one_shot(path, secret).read_one_key(namespace, key)
}

/// When `key` in `namespace` of the database at `path` expires, read the
/// way [`read_one_key`] reads its value
/// ([`emdb_core::EmdbBuilder::read_one_expiry`]).
pub fn read_one_expiry(
    path: &Path,
    secret: Option<EncryptionInput>,
    namespace: Option<&str>,
    key: &[u8],
) -> emdb_core::Result<OneExpiry> {
    one_shot(path, secret).read_one_expiry(namespace, key)
}

/// The first `n` pairs of `start..end` of `namespace` in the database at
/// `path` ([`emdb_core::EmdbBuilder::range_once_first`]: read-only, pinned,
/// and the range read only as far as its first pairs lie); `None` when the
/// namespace does not exist.
pub fn range_once_first(
    path: &Path,
    secret: Option<EncryptionInput>,
    namespace: Option<&str>,
    start: Bound<&[u8]>,
    end: Bound<&[u8]>,
    n: usize,
) -> emdb_core::Result<Option<RangeIter>> {
    one_shot(path, secret).range_once_first(namespace, start, end, n)
}

/// Sizes and counters of the database at `path`, and how its open went
/// ([`emdb_core::EmdbBuilder::read_stats`]: read-only, pinned, and beside
/// a writer's tail index only the keys written past it looked up).
pub fn read_stats(
    path: &Path,
    secret: Option<EncryptionInput>,
) -> emdb_core::Result<(emdb_core::Stats, emdb_core::RecoveryReport)> {
    one_shot(path, secret).read_stats()
}

/// Count the keys of every namespace of the database at `path` and close
/// it ([`emdb_core::EmdbBuilder::read_counts`]: read-only, pinned, and
/// beside a writer's tail index only the keys written past it looked up).
pub fn read_counts(
    path: &Path,
    secret: Option<EncryptionInput>,
) -> emdb_core::Result<emdb_core::KeyCounts> {
    one_shot(path, secret).read_counts()
}

/// Count the keys of `namespace` of the database at `path` and close it
/// ([`emdb_core::EmdbBuilder::read_count`], read as [`read_counts`]
/// reads); `None` when the namespace does not exist.
pub fn read_count(
    path: &Path,
    secret: Option<EncryptionInput>,
    namespace: Option<&str>,
) -> emdb_core::Result<Option<u64>> {
    one_shot(path, secret).read_count(namespace)
}

/// Iterate `start..end` of `namespace` in the database at `path`
/// ([`emdb_core::EmdbBuilder::range_once`]: read-only, pinned, and only
/// that range's records of the log tail indexed); `None` when the
/// namespace does not exist.
pub fn range_once(
    path: &Path,
    secret: Option<EncryptionInput>,
    namespace: Option<&str>,
    start: Bound<&[u8]>,
    end: Bound<&[u8]>,
) -> emdb_core::Result<Option<RangeIter>> {
    one_shot(path, secret).range_once(namespace, start, end)
}

/// Write only `keys` of `namespace` in the database at `path` and close it
/// ([`emdb_core::EmdbBuilder::write_keys`]: the log written since the
/// checkpoint is read for those keys only, and a checkpoint is written
/// after the close once that tail is long enough), waiting up to
/// `lock_timeout` for the writer lock. `write` runs once, after the lock
/// is taken. `Ok(None)`: `namespace` does not exist and `create` is false.
pub fn write_keys<T>(
    path: &Path,
    secret: Option<EncryptionInput>,
    lock_timeout: Option<Duration>,
    namespace: Option<&str>,
    create: bool,
    keys: &[&[u8]],
    mut write: impl FnMut(&KeysWriter<'_>) -> emdb_core::Result<T>,
) -> emdb_core::Result<Option<T>> {
    retry_locked(lock_timeout, || {
        one_shot(path, secret.clone()).write_keys(namespace, create, keys, &mut write)
    })
}

/// [`open`], asking for the passphrase on the terminal (when `can_prompt`)
/// if the file turns out to be encrypted and no secret was given. Returns
/// the handle and the secret that opened it.
pub fn open_with_prompt(
    path: &Path,
    options: &OpenOptions,
    secret: Option<EncryptionInput>,
    can_prompt: bool,
) -> ToolResult<(Emdb, Option<EncryptionInput>)> {
    check_file(path, !options.write)?;
    if options.write {
        check_new_name(path)?;
    }
    let given = secret.is_some();
    let result = match open(path, options, secret.clone()) {
        Err(emdb_core::Error::EncryptionRequired { .. }) if !given && can_prompt => {
            let input = secret::prompt_existing(path)?;
            open(path, options, Some(input.clone())).map(|db| (db, Some(input)))
        }
        other => other.map(|db| (db, secret)),
    };
    result.map_err(|e| gave_up(ToolError::from(e), options.lock_timeout))
}

/// Refuse (exit 2) to create a database at `path` whose name leaves no
/// room for the files emdb makes beside it
/// ([`emdb_core::check_new_name`]); an existing database passes. Checked
/// before anything else a command does.
pub fn check_new_name(path: &Path) -> ToolResult {
    emdb_core::check_new_name(path)
        .map_err(|e| ToolError::from(e).hint("choose a shorter --db name"))
}

/// Check that a database file is there to be read or written: a missing
/// file is [`no_database`] (only when `must_exist`), a path that cannot be
/// looked at says "permission denied", a directory is a usage error, and
/// an empty file is refused by every command alike (a writer would
/// otherwise turn it into a database).
pub fn check_file(path: &Path, must_exist: bool) -> ToolResult {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(ToolError::new(
            Kind::Usage,
            format!(
                "invalid database path: {} is a directory; give the path of a database file",
                path.display()
            ),
        )
        .hint("check the --db path or EMDB_PATH")),
        // A FIFO or a device: opening a FIFO waits for a writer, and
        // neither is a database.
        Ok(m) if !m.is_file() => Err(ToolError::new(
            Kind::Corrupt,
            format!(
                "{} is not an emdb database (not a regular file); refusing to touch it",
                path.display()
            ),
        )
        .hint("check the --db path or EMDB_PATH")),
        Ok(m) if m.is_file() && m.len() == 0 => Err(ToolError::new(
            Kind::Corrupt,
            format!(
                "{} is an empty file, not an emdb database",
                path.display()
            ),
        )
        .hint("check the --db path or EMDB_PATH; delete the empty file to start a new database there")),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if must_exist {
                Err(no_database(path))
            } else {
                Ok(())
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(ToolError::new(
            Kind::Io,
            format!(
                "permission denied: cannot look at {} (a directory on the way is not readable or searchable)",
                path.display()
            ),
        )
        .hint("check the permissions of the file and its directories, or the user emdb runs as")),
        Err(e) => Err(ToolError::io("looking at", Some(path), e)),
    }
}

/// Whether the writer `pid` that published a database's stats still runs
/// as its writer: it holds the writer lock (asked of the OS). A live pid
/// alone says nothing once the writer has exited and the pid was reused,
/// and a one-shot command that published stats has exited.
pub fn writer_running(db: &Path, pid: u32) -> bool {
    Emdb::lock_holder(db)
        .ok()
        .flatten()
        .is_some_and(|h| h.alive && h.pid == pid)
}

/// "no database at PATH" (exit 6): a read of a file that does not exist.
pub fn no_database(path: &Path) -> ToolError {
    ToolError::new(
        Kind::Io,
        format!(
            "no database at {} (nothing was written there yet)",
            path.display()
        ),
    )
    .hint("check --db or EMDB_PATH; writing commands such as `emdb put` create the database")
}

/// "namespace "X" does not exist" (exit 1), the name escaped as listings
/// show it.
pub fn unknown_namespace(name: &str) -> ToolError {
    ToolError::new(
        Kind::NoNamespace,
        format!(
            "namespace \"{}\" does not exist",
            escape_text(name.as_bytes(), Layout::Field)
        ),
    )
    .hint("`emdb ns list` shows the namespaces; writing commands such as `put` create one")
}

/// The program name [`retry_locked`] says a wait for the writer lock
/// under, on standard error (see [`announce_lock_waits`]); `None`: it
/// says nothing.
static LOCK_WAIT_NOTICE: Mutex<Option<&'static str>> = Mutex::new(None);

/// Make [`retry_locked`] (and so [`open`] and [`write_keys`] for writing)
/// print one line on standard error once it has waited
/// [`LOCK_WAIT_NOTICE_AFTER`] for the writer lock another process holds,
/// `PROGRAM: waiting up to 1m for the writer lock of PATH, held by pid N
/// on HOST`, so that a long wait with `--lock-timeout` does not look like
/// a hang; `None` turns it off (the default: a library's caller owns its
/// standard error). Nothing is said when the lock is free, nor for a
/// shorter wait (scripts whose writers take turns stay quiet), nor
/// without a timeout (a busy lock fails at once). The binaries turn it on
/// (`emdb` unless `--quiet`).
pub fn announce_lock_waits(program: Option<&'static str>) {
    *LOCK_WAIT_NOTICE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = program;
}

/// How long a wait for the writer lock lasts before it is said
/// ([`announce_lock_waits`]).
pub const LOCK_WAIT_NOTICE_AFTER: Duration = Duration::from_secs(1);

/// Say that a wait of up to `timeout` for the lock `busy` reports goes on,
/// if [`announce_lock_waits`] asked for it.
fn announce_wait(busy: &emdb_core::Error, timeout: Duration) {
    let program = *LOCK_WAIT_NOTICE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (Some(program), emdb_core::Error::LockBusy { path, holder }) = (program, busy) else {
        return;
    };
    let holder = match holder {
        Some(h) => format!("held by {h}"),
        None => "held by another process".to_string(),
    };
    let line = format!(
        "waiting up to {} for the writer lock of {}, {holder}",
        human_duration(timeout),
        path.display()
    );
    // Not eprintln: it panics when standard error is gone.
    let _ = writeln!(
        std::io::stderr().lock(),
        "{program}: {}",
        escape_line(&line)
    );
}

/// Run `op` until it stops failing with `LockBusy` or `timeout` (none: no
/// retry) has passed. A wait that lasts [`LOCK_WAIT_NOTICE_AFTER`] is said
/// once on standard error when [`announce_lock_waits`] asked for it.
pub fn retry_locked<T>(
    timeout: Option<Duration>,
    mut op: impl FnMut() -> emdb_core::Result<T>,
) -> emdb_core::Result<T> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(10);
    let mut announced = false;
    loop {
        match op() {
            Err(busy @ emdb_core::Error::LockBusy { .. })
                if !timeout
                    .unwrap_or_default()
                    .saturating_sub(start.elapsed())
                    .is_zero() =>
            {
                if !announced && start.elapsed() >= LOCK_WAIT_NOTICE_AFTER {
                    announced = true;
                    announce_wait(&busy, timeout.unwrap_or_default());
                }
                let left = timeout.unwrap_or_default().saturating_sub(start.elapsed());
                std::thread::sleep(pause.min(left));
                pause = (pause * 2).min(Duration::from_millis(250));
            }
            other => return other,
        }
    }
}

/// Say how long was waited when a lock timeout ran out.
pub fn gave_up(e: ToolError, timeout: Option<Duration>) -> ToolError {
    match timeout {
        Some(t) if e.kind == Kind::Locked && !t.is_zero() => e
            .context(format!("gave up after waiting {}", human_duration(t)))
            .hint("pass a longer --lock-timeout; `emdb lock status` shows the holder"),
        _ => e,
    }
}

/// The longest duration [`parse_duration`] accepts: 100 years (of 365.25
/// days). Longer ones are refused rather than saturated or rounded.
pub const MAX_DURATION: Duration = Duration::from_secs(36_525 * 24 * 3600);

/// Parse `500ms`, `10s`, `1.5s`, `2m`, `1h`, or a bare number of seconds,
/// up to [`MAX_DURATION`].
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let n: f64 = number
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (try 500ms, 10s, 2m)"))?;
    let secs = match unit.trim() {
        "" | "s" => n,
        "ms" => n / 1000.0,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        other => return Err(format!("unknown unit {other:?} (use ms, s, m or h)")),
    };
    if secs > MAX_DURATION.as_secs_f64() {
        return Err(format!(
            "{s:?} is too long: a duration can be at most 100 years ({}s)",
            MAX_DURATION.as_secs()
        ));
    }
    Duration::try_from_secs_f64(secs).map_err(|e| format!("{s:?}: {e}"))
}

/// A duration the way a person reads it: `1.5s`, `250ms`.
pub fn human_duration(d: Duration) -> String {
    if d.as_secs() >= 1 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// Suffixes of the files the engine and the CLI keep beside a database
/// (`<db>.ckpt`, `<db>.lock`, ...; docs/FORMAT.md), and their temporary
/// names. The empty suffix is the database file itself.
pub const DATABASE_FILES: &[&str] = &[
    "",
    ".ckpt",
    ".ckpt.tmp",
    ".ckpt.auto.tmp",
    ".lock",
    ".stats",
    ".stats.tmp",
    ".tail",
    ".tail.tmp",
    ".encbak",
    ".enc.tmp",
    ".compact.tmp",
    ".create.tmp",
    ".before-repair",
    ".before-repair.tmp",
];

/// `<path><suffix>`: a file named after `path` beside it.
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// `<db><suffix>` beside the file `db` resolves to (symlinks followed),
/// where the engine, which resolves the path first, names the database's
/// own files: a `--db` given through a symlink must look there too.
pub fn beside_real(db: &Path, suffix: &str) -> PathBuf {
    sibling(
        &db.canonicalize().unwrap_or_else(|_| db.to_path_buf()),
        suffix,
    )
}

/// Refuse (exit 2) an output file that `what` (a command that writes a file
/// the user names) would write over the database `db` or one of the files
/// beside it. Both are compared by name (after resolving the directories,
/// so `./a/../db.emdb` or a symlinked directory is the same name), and, for
/// files that exist, by device and inode (a symlink or a hard link to the
/// database). The database is taken both as given and with symlinks
/// resolved, since the engine names some of its files after the real one.
pub fn refuse_database_files(db: &Path, target: &Path, what: &str) -> ToolResult {
    let mut bases = vec![db.to_path_buf()];
    if let Ok(real) = db.canonicalize() {
        bases.push(real);
    }
    let target_name = resolved_name(target);
    let target_id = file_id(target);
    for base in &bases {
        for suffix in DATABASE_FILES {
            let file = sibling(base, suffix);
            let same_name = target_name.is_some() && resolved_name(&file) == target_name;
            let same_file = target_id.is_some() && file_id(&file) == target_id;
            if same_name || same_file {
                let which = if suffix.is_empty() {
                    "the database itself".to_string()
                } else {
                    format!("the database's own {suffix} file")
                };
                return Err(ToolError::usage(format!(
                    "{} is {which} ({}); {what} never writes over it",
                    target.display(),
                    db.display()
                ))
                .hint("choose a file name outside the database's files"));
            }
        }
    }
    Ok(())
}

/// `path` with its directory resolved (symlinks, `..`), its last component
/// kept as it is: where a rename onto `path` would put a file. `None` when
/// the directory cannot be resolved (then there is nothing to compare).
fn resolved_name(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(dir.canonicalize().ok()?.join(name))
}

/// Device and inode of the file `path` leads to (following symlinks).
pub fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3 days").is_err());
        assert_eq!(parse_duration("3155760000").unwrap(), MAX_DURATION);
        for long in [
            "3155760001",
            "52596001m",
            "876601h",
            "100000000000000000",
            "1000000000000000000000000",
            &"9".repeat(400),
        ] {
            let e = parse_duration(long).unwrap_err();
            assert!(e.contains("at most 100 years (3155760000s)"), "{long}: {e}");
        }
        assert_eq!(human_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(human_duration(Duration::from_millis(20)), "20ms");
    }

    #[test]
    fn read_only_opens_never_create_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.emdb");
        let options = OpenOptions {
            write: false,
            lock_timeout: None,
            checkpoint_on_close: false,
            follow: false,
            background: false,
        };
        let e = open_with_prompt(&missing, &options, None, false).unwrap_err();
        assert_eq!(e.kind.exit_code(), 6);
        assert!(!missing.exists());
    }

    #[test]
    fn encrypted_databases_open_with_the_key_and_say_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret.emdb");
        let db = Emdb::builder()
            .path(&path)
            .encryption_key([3u8; 32])
            .build()
            .unwrap();
        db.insert("k", "v").unwrap();
        drop(db);
        let options = OpenOptions {
            write: false,
            lock_timeout: None,
            checkpoint_on_close: false,
            follow: false,
            background: false,
        };
        let (db, _) = open_with_prompt(
            &path,
            &options,
            Some(EncryptionInput::Key([3u8; 32])),
            false,
        )
        .unwrap();
        assert_eq!(db.get("k").unwrap(), Some(b"v".to_vec()));
        drop(db);
        let wrong = open_with_prompt(
            &path,
            &options,
            Some(EncryptionInput::Key([4u8; 32])),
            false,
        )
        .unwrap_err();
        assert_eq!(wrong.kind.exit_code(), 5);
        let none = open_with_prompt(&path, &options, None, false).unwrap_err();
        assert_eq!(none.kind.exit_code(), 5);
        assert!(none.hint.unwrap().contains("--passphrase-file"));
    }

    #[test]
    fn a_held_lock_is_waited_for_then_reported_with_the_wait() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("held.emdb");
        let _holder = Emdb::builder().path(&path).build().unwrap();
        let options = OpenOptions {
            write: true,
            lock_timeout: Some(Duration::from_millis(50)),
            checkpoint_on_close: false,
            follow: false,
            background: false,
        };
        let start = Instant::now();
        let e = open_with_prompt(&path, &options, None, false).unwrap_err();
        assert!(start.elapsed() >= Duration::from_millis(50));
        assert_eq!(e.kind.exit_code(), 3);
        assert!(
            e.message.contains("gave up after waiting 50ms"),
            "{}",
            e.message
        );
    }
}
