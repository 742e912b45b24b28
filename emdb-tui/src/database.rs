//! Which file to open and how: read-only by default, writable with
//! `--write`, the key of an encrypted database, and errors a person can act
//! on.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use emdb_core::{Emdb, EncryptionInput, Error};

/// Why the UI could not start, with the process exit code (the same codes
/// as the `emdb` command).
#[derive(Debug)]
pub struct Failure {
    /// What went wrong.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
    /// Exit code: 2 usage, 3 locked, 4 corrupt, 5 wrong key, 6 I/O, 7 bad
    /// input.
    pub code: u8,
}

impl Failure {
    /// A failure with exit code `code`.
    pub fn new(code: u8, message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            hint: None,
            code,
        }
    }

    /// Add a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Failure {
        self.hint = Some(hint.into());
        self
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let (code, hint) = match &e {
            Error::LockBusy { .. } => (
                3,
                Some("run emdb-tui without --write to browse read-only while it writes"),
            ),
            Error::Corruption { .. } | Error::NotADatabase { .. } => (4, None),
            Error::EncryptionKeyMismatch { .. } => (5, None),
            Error::EncryptionRequired { .. } => (
                5,
                Some("give --passphrase-file, --key-file or EMDB_PASSPHRASE"),
            ),
            Error::NotEncrypted { .. } => (
                2,
                Some("drop --passphrase-file, --key-file, EMDB_KEY_FILE and EMDB_PASSPHRASE"),
            ),
            Error::InvalidConfig(_)
            | Error::UnsupportedVersion { .. }
            | Error::FeatureDisabled(_) => (2, None),
            _ => (6, None),
        };
        Failure {
            message: e.to_string(),
            hint: hint.map(str::to_owned),
            code,
        }
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure::new(6, format!("terminal: {e}"))
    }
}

/// The database file: the PATH argument, else `--db` or `EMDB_PATH`, else
/// the platform default.
pub fn resolve_path(arg: Option<PathBuf>, db: Option<PathBuf>) -> Result<PathBuf, Failure> {
    match arg.or(db) {
        Some(p) => Ok(p),
        None => emdb_core::default_database_path()
            .map_err(|e| Failure::from(e).hint("pass a PATH, --db PATH or set EMDB_PATH")),
    }
}

/// Where the key of an encrypted database comes from (the same options,
/// variables and order as the `emdb` command).
#[derive(Debug, Default)]
pub struct KeySource {
    /// `--passphrase-file`.
    pub passphrase_file: Option<PathBuf>,
    /// `--key-file`.
    pub key_file: Option<PathBuf>,
    /// `EMDB_KEY_FILE`.
    pub env_key_file: Option<PathBuf>,
    /// `EMDB_PASSPHRASE`.
    pub env_passphrase: Option<String>,
    /// Ask on the terminal when the database turns out to be encrypted.
    pub prompt: bool,
}

impl KeySource {
    /// The sources of a real run: the options, `EMDB_KEY_FILE` and
    /// `EMDB_PASSPHRASE` (empty ones ignored), and a prompt when standard
    /// input is a terminal.
    pub fn from_env(passphrase_file: Option<PathBuf>, key_file: Option<PathBuf>) -> KeySource {
        use std::io::IsTerminal;
        KeySource {
            passphrase_file,
            key_file,
            env_key_file: std::env::var_os("EMDB_KEY_FILE")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            env_passphrase: std::env::var("EMDB_PASSPHRASE")
                .ok()
                .filter(|v| !v.is_empty()),
            prompt: std::io::stdin().is_terminal(),
        }
    }

    /// The key or passphrase given up front, if any: `--passphrase-file`,
    /// `--key-file`, then `EMDB_KEY_FILE` or `EMDB_PASSPHRASE` (not both).
    pub fn given(&self) -> Result<Option<EncryptionInput>, Failure> {
        if let Some(p) = &self.passphrase_file {
            return read_passphrase_file(p).map(Some);
        }
        if let Some(p) = &self.key_file {
            return read_key_file(p).map(Some);
        }
        match (&self.env_key_file, &self.env_passphrase) {
            (Some(_), Some(_)) => Err(Failure::new(
                2,
                "both EMDB_KEY_FILE and EMDB_PASSPHRASE are set; emdb-tui will not guess which one is meant",
            )
            .hint("unset one of them, or pass --key-file / --passphrase-file")),
            (Some(p), None) => read_key_file(p).map(Some),
            (None, Some(pass)) => Ok(Some(EncryptionInput::Passphrase(pass.clone()))),
            (None, None) => Ok(None),
        }
    }
}

/// A raw key file: exactly 32 bytes, or 64 hex digits (whitespace around
/// them is ignored).
pub fn read_key_file(path: &Path) -> Result<EncryptionInput, Failure> {
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::new(6, format!("cannot read key file {}: {e}", path.display())))?;
    if let Ok(raw) = <[u8; 32]>::try_from(bytes.as_slice()) {
        return Ok(EncryptionInput::Key(raw));
    }
    let hex = bytes.trim_ascii();
    let digits: Vec<u8> = hex
        .iter()
        .map_while(|&c| char::from(c).to_digit(16).map(|d| d as u8))
        .collect();
    if hex.len() == 64 && digits.len() == 64 {
        let mut key = [0u8; 32];
        for (k, pair) in key.iter_mut().zip(digits.chunks(2)) {
            *k = pair[0] * 16 + pair[1];
        }
        return Ok(EncryptionInput::Key(key));
    }
    Err(Failure::new(
        7,
        format!(
            "{} is not a key file: it must hold 32 raw bytes or 64 hex digits ({} bytes found)",
            path.display(),
            bytes.len()
        ),
    )
    .hint("make one with: head -c 32 /dev/urandom > db.key"))
}

/// A passphrase file: its contents without one trailing newline.
pub fn read_passphrase_file(path: &Path) -> Result<EncryptionInput, Failure> {
    let bytes = std::fs::read(path).map_err(|e| {
        Failure::new(
            6,
            format!("cannot read passphrase file {}: {e}", path.display()),
        )
    })?;
    let mut text = String::from_utf8(bytes).map_err(|_| {
        Failure::new(
            7,
            format!("the passphrase in {} is not valid UTF-8", path.display()),
        )
    })?;
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    if text.is_empty() {
        return Err(Failure::new(
            7,
            format!("passphrase file {} is empty", path.display()),
        ));
    }
    Ok(EncryptionInput::Passphrase(text))
}

/// Open `path`: read-only (never locks, never writes, follows a live
/// writer), or writable, retrying for `lock_timeout` while another process
/// holds the writer lock. A missing file is created only when `create` is
/// set (with `write`). An encrypted database without a key given asks for
/// its passphrase when `keys.prompt` allows it.
pub fn open(
    path: &Path,
    write: bool,
    create: bool,
    lock_timeout: Option<Duration>,
    keys: &KeySource,
) -> Result<Emdb, Failure> {
    let may_create = write && create;
    if !may_create && !path.exists() {
        let hint = if write {
            "check the path, --db or EMDB_PATH; add --create to make a new database there"
        } else {
            "check the path, --db or EMDB_PATH; --write --create makes a new database"
        };
        return Err(Failure::new(
            6,
            format!(
                "no database at {} (nothing was written there yet)",
                path.display()
            ),
        )
        .hint(hint));
    }
    let key = keys.given()?;
    match open_with(path, write, lock_timeout, key.clone()) {
        Err(Error::EncryptionRequired { .. }) if key.is_none() && keys.prompt => {
            let passphrase = ask_passphrase(path)?;
            Ok(open_with(
                path,
                write,
                lock_timeout,
                Some(EncryptionInput::Passphrase(passphrase)),
            )?)
        }
        other => Ok(other?),
    }
}

fn open_with(
    path: &Path,
    write: bool,
    lock_timeout: Option<Duration>,
    key: Option<EncryptionInput>,
) -> emdb_core::Result<Emdb> {
    let builder = || {
        let b = Emdb::builder().path(path).read_only(!write);
        match &key {
            Some(k) => b.encryption(k.clone()),
            None => b,
        }
    };
    if !write {
        return builder().build();
    }
    let start = Instant::now();
    let mut pause = Duration::from_millis(10);
    loop {
        match builder().build() {
            Err(e @ Error::LockBusy { .. }) => {
                let left = lock_timeout
                    .unwrap_or_default()
                    .saturating_sub(start.elapsed());
                if left.is_zero() {
                    return Err(e);
                }
                std::thread::sleep(pause.min(left));
                pause = (pause * 2).min(Duration::from_millis(250));
            }
            other => return other,
        }
    }
}

/// Read a passphrase from the terminal without echoing it.
fn ask_passphrase(path: &Path) -> Result<String, Failure> {
    use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
    let mut err = std::io::stderr();
    write!(err, "Passphrase for {}: ", path.display())?;
    err.flush()?;
    crossterm::terminal::enable_raw_mode()?;
    // Room up front, so typing does not leave reallocated copies behind.
    let mut text = String::with_capacity(1024);
    let outcome = loop {
        let ev = match event::read() {
            Ok(ev) => ev,
            Err(e) => break Err(Failure::from(e)),
        };
        let Event::Key(k) = ev else { continue };
        if k.kind == KeyEventKind::Release {
            continue;
        }
        match k.code {
            KeyCode::Enter => break Ok(()),
            KeyCode::Esc => break Err(Failure::new(2, "no passphrase given")),
            KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                break Err(Failure::new(2, "no passphrase given"))
            }
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Char(c) => text.push(c),
            _ => {}
        }
    };
    let _ = crossterm::terminal::disable_raw_mode();
    let _ = writeln!(err);
    outcome.map(|()| text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_encrypted_databases_with_the_given_key() {
        let dir = tempfile::tempdir().unwrap();
        let db_path = dir.path().join("secret.emdb");
        {
            let db = Emdb::builder()
                .path(&db_path)
                .encryption_key([3u8; 32])
                .build()
                .unwrap();
            db.insert("k", "v").unwrap();
        }
        let key = dir.path().join("db.key");
        std::fs::write(&key, [3u8; 32]).unwrap();
        let keys = KeySource {
            key_file: Some(key),
            ..KeySource::default()
        };
        let db = open(&db_path, false, false, None, &keys).unwrap();
        assert_eq!(db.get("k").unwrap(), Some(b"v".to_vec()));
        assert!(db.stats().unwrap().encrypted);
        drop(db);

        let wrong = dir.path().join("wrong.key");
        std::fs::write(&wrong, [4u8; 32]).unwrap();
        let keys = KeySource {
            key_file: Some(wrong),
            ..KeySource::default()
        };
        assert_eq!(
            open(&db_path, false, false, None, &keys).unwrap_err().code,
            5
        );

        // No key and no terminal to ask on: exit 5 with a hint.
        let none = open(&db_path, true, false, None, &KeySource::default()).unwrap_err();
        assert_eq!(none.code, 5);
        assert!(none.hint.unwrap().contains("--passphrase-file"));
    }

    #[test]
    fn read_only_needs_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.emdb");
        let f = open(&missing, false, false, None, &KeySource::default()).unwrap_err();
        assert_eq!(f.code, 6);
        assert!(!missing.exists(), "read-only must not create the file");
        // --write on a mistyped path: an error naming --create, no file.
        let f = open(&missing, true, false, None, &KeySource::default()).unwrap_err();
        assert_eq!(f.code, 6);
        assert!(f.hint.unwrap().contains("--create"));
        assert!(!missing.exists(), "--write alone must not create the file");
        let db = open(&missing, true, true, None, &KeySource::default()).unwrap();
        db.insert("k", "v").unwrap();
        drop(db);
        assert!(missing.exists());
    }

    #[test]
    fn key_files_raw_or_hex() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let raw = dir.join("raw");
        std::fs::write(&raw, [7u8; 32]).unwrap();
        assert!(matches!(&read_key_file(&raw), Ok(EncryptionInput::Key(k)) if *k == [7u8; 32]));
        let hex = dir.join("hex");
        std::fs::write(&hex, format!("{}\n", "0a".repeat(32))).unwrap();
        assert!(matches!(&read_key_file(&hex), Ok(EncryptionInput::Key(k)) if *k == [10u8; 32]));
        let bad = dir.join("bad");
        std::fs::write(&bad, "short").unwrap();
        assert_eq!(read_key_file(&bad).map(|_| ()).unwrap_err().code, 7);
        let pass = dir.join("pass");
        std::fs::write(&pass, "correct horse\nsecond line\r\n").unwrap();
        assert!(matches!(
            &read_passphrase_file(&pass),
            Ok(EncryptionInput::Passphrase(p)) if p == "correct horse\nsecond line"
        ));
        let both = KeySource {
            env_key_file: Some(raw.clone()),
            env_passphrase: Some("x".into()),
            ..KeySource::default()
        };
        assert_eq!(both.given().map(|_| ()).unwrap_err().code, 2);
        let flag_wins = KeySource {
            key_file: Some(raw.clone()),
            env_passphrase: Some("x".into()),
            ..KeySource::default()
        };
        assert!(matches!(
            &flag_wins.given(),
            Ok(Some(EncryptionInput::Key(_)))
        ));
    }
}
