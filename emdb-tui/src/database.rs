//! Which file to open and how: read-only by default, writable with
//! `--write`, the secret of an encrypted database. The path, the secret,
//! the lock wait and every failure's exit code, message and hint come from
//! the toolkit the `emdb` command uses ([`emdb_tools`]), so both binaries
//! say the same thing with the same code for the same failure; only what
//! is the UI's own (`--create`, needing a terminal) is decided here.

use std::path::{Path, PathBuf};
use std::time::Duration;

use emdb_core::{Emdb, EncryptionInput};
use emdb_tools::database::{self as shared, OpenOptions};
use emdb_tools::error::{Kind, ToolError, ToolResult};
use emdb_tools::secret::{self, SecretOptions};

use crate::keylist::KeySet;

/// The database file: the PATH argument, else `--db` or `EMDB_PATH`, else
/// the platform default.
pub fn resolve_path(arg: Option<PathBuf>, db: Option<PathBuf>) -> ToolResult<PathBuf> {
    shared::resolve_path(arg.or(db).as_deref())
}

/// How to open the database, from the command line.
#[derive(Debug, Clone, Default)]
pub struct OpenRequest {
    /// `--write`: take the writer lock.
    pub write: bool,
    /// `--create`: with `write`, create a missing database.
    pub create: bool,
    /// `--lock-timeout`: how long to wait for the writer lock.
    pub lock_timeout: Option<Duration>,
    /// `--passphrase-file` / `--key-file` (the environment is read too).
    pub secret: SecretOptions,
    /// Ask for the passphrase on the terminal when the database turns out
    /// to be encrypted and no secret was given.
    pub can_prompt: bool,
}

/// Open `path`: read-only (never locks, never writes, follows a live
/// writer), or writable, waiting up to the lock timeout for the writer
/// lock (the message then says how long it waited). A missing file is
/// created only with `create` (and `write`).
pub fn open(path: &Path, req: &OpenRequest) -> ToolResult<Emdb> {
    check_to_write(path, req)?;
    let secret = secret::from_options(&req.secret)?;
    open_with(path, req, secret)
}

/// [`open`] with the secret already read from `req`'s options (once: a
/// `--key-file <(...)` pipe reads empty the second time).
pub fn open_with(
    path: &Path,
    req: &OpenRequest,
    secret: Option<EncryptionInput>,
) -> ToolResult<Emdb> {
    check_to_write(path, req)?;
    let options = OpenOptions {
        write: req.write,
        lock_timeout: req.lock_timeout,
        checkpoint_on_close: true,
        follow: true,
        background: true,
    };
    let (db, _) = shared::open_with_prompt(path, &options, secret, req.can_prompt)
        .map_err(|e| read_only_hint(e, req.write))?;
    Ok(db)
}

/// `--write` without `--create` needs the file there, and says how to
/// make one when it is not.
fn check_to_write(path: &Path, req: &OpenRequest) -> ToolResult {
    if req.write && !req.create {
        shared::check_file(path, true).map_err(|e| {
            if e.kind == Kind::Io && !path.exists() {
                e.hint(
                    "check the path, --db or EMDB_PATH; add --create to make a new database there",
                )
            } else {
                e
            }
        })?;
    }
    Ok(())
}

/// The first `n` keys of `namespace` (`None`: the default one) in key
/// order, with their value sizes and expiries, read by a one-shot read
/// ([`emdb_tools::database::range_once_first`]: it maps the checkpoint and
/// reads only the log its first pairs need) with `secret` (read from
/// `req`'s options by the caller, who passes it on to the open), so the UI
/// can show them while its worker opens the database
/// ([`open_read_only`]).
///
/// `None` when that is not worth it or did not work, and the caller opens
/// the database first as before ([`open_with`], which reports any failure
/// with its usual code, message and hint): a writable request (the writer
/// lock comes first), a passphrase (its key would be derived twice), no
/// secret for an encrypted database (the open asks for one), a missing
/// namespace, or any error.
pub fn first_page(
    path: &Path,
    req: &OpenRequest,
    secret: Option<EncryptionInput>,
    namespace: Option<&str>,
    n: usize,
) -> Option<KeySet> {
    if req.write || matches!(secret, Some(EncryptionInput::Passphrase(_))) {
        return None;
    }
    shared::check_file(path, true).ok()?;
    let unbounded = std::ops::Bound::Unbounded;
    let mut range =
        shared::range_once_first(path, secret, namespace, unbounded, unbounded, n).ok()??;
    let mut set = KeySet::new();
    for _ in 0..n {
        match range.next_key_info() {
            Some(Ok((key, size, expires_ms))) => set.push(&key, size as u64, expires_ms),
            Some(Err(_)) => return None,
            None => break,
        }
    }
    // Already in key order: this only keeps KeySet's rule that a loaded
    // set is sorted.
    set.sort();
    Some(set)
}

/// Open `path` read-only and following its writer with `secret`, asking
/// for nothing (the worker's thread does this behind the UI, after
/// [`first_page`] read the same file with the same secret); failures read
/// as [`open`]'s do.
pub fn open_read_only(path: &Path, secret: Option<EncryptionInput>) -> ToolResult<Emdb> {
    let options = OpenOptions {
        write: false,
        lock_timeout: None,
        checkpoint_on_close: true,
        follow: true,
        background: true,
    };
    shared::open_with_prompt(path, &options, secret, false).map(|(db, _)| db)
}

/// The UI can do what the lock holder cannot stop: browse read-only.
fn read_only_hint(e: ToolError, write: bool) -> ToolError {
    if !(write && e.kind == Kind::Locked) {
        return e;
    }
    let hint = match &e.hint {
        Some(h) => {
            format!("{h}; or run emdb-tui without --write to browse read-only while it writes")
        }
        None => "run emdb-tui without --write to browse read-only while it writes".to_string(),
    };
    e.hint(hint)
}

/// The namespace `name` must exist to be shown first: exit 1 as `emdb`
/// says it, with the names there are.
pub fn check_namespace(db: &Emdb, name: &str) -> ToolResult {
    let names = db.list_namespaces()?;
    if names.iter().any(|n| n == name) {
        return Ok(());
    }
    let known = if names.is_empty() {
        "there are none besides the default one".to_string()
    } else {
        format!("there are: {}", names.join(", "))
    };
    Err(shared::unknown_namespace(name).hint(known))
}

/// A terminal failure (setting it up, reading input, drawing).
pub fn terminal_error(e: std::io::Error) -> ToolError {
    ToolError::io("using the terminal", None, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_file(dir: &Path, name: &str, key: [u8; 32]) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, key).unwrap();
        p
    }

    #[test]
    fn opens_encrypted_databases_with_the_given_key() {
        let dir = tempfile::tempdir().unwrap();
        let db_path = dir.path().join("secret.emdb");
        {
            let db = Emdb::builder()
                .path(&db_path)
                .encryption(EncryptionInput::Key([3u8; 32]))
                .build()
                .unwrap();
            db.insert("k", "v").unwrap();
        }
        let req = |key: PathBuf, write: bool| OpenRequest {
            write,
            secret: SecretOptions {
                key_file: Some(key),
                passphrase_file: None,
            },
            ..OpenRequest::default()
        };
        let right = key_file(dir.path(), "db.key", [3u8; 32]);
        let db = open(&db_path, &req(right, false)).unwrap();
        assert_eq!(db.get("k").unwrap(), Some(b"v".to_vec()));
        drop(db);

        let wrong = key_file(dir.path(), "wrong.key", [4u8; 32]);
        assert_eq!(
            open(&db_path, &req(wrong, false))
                .unwrap_err()
                .kind
                .exit_code(),
            5
        );
        // No key and no terminal to ask on: exit 5 with a hint.
        let none = open(
            &db_path,
            &OpenRequest {
                write: true,
                ..OpenRequest::default()
            },
        )
        .unwrap_err();
        assert_eq!(none.kind.exit_code(), 5);
        assert!(none.hint.unwrap().contains("--passphrase-file"));
    }

    #[test]
    fn read_only_needs_an_existing_file_and_write_needs_create() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.emdb");
        let f = open(&missing, &OpenRequest::default()).unwrap_err();
        assert_eq!(f.kind.exit_code(), 6);
        assert!(!missing.exists(), "read-only must not create the file");
        // --write on a mistyped path: an error naming --create, no file.
        let write = OpenRequest {
            write: true,
            ..OpenRequest::default()
        };
        let f = open(&missing, &write).unwrap_err();
        assert_eq!(f.kind.exit_code(), 6);
        assert!(f.hint.unwrap().contains("--create"));
        assert!(!missing.exists(), "--write alone must not create the file");
        let create = OpenRequest {
            create: true,
            ..write
        };
        let db = open(&missing, &create).unwrap();
        db.insert("k", "v").unwrap();
        drop(db);
        assert!(missing.exists());
    }

    #[test]
    fn a_first_page_is_read_only_where_it_is_cheap_and_safe() {
        let dir = tempfile::tempdir().unwrap();
        let db_path = dir.path().join("secret.emdb");
        {
            let db = Emdb::builder()
                .path(&db_path)
                .encryption(EncryptionInput::Key([5u8; 32]))
                .build()
                .unwrap();
            db.insert_many((0..10u8).rev().map(|i| (vec![b'k', b'0' + i], vec![i; 3])))
                .unwrap();
            db.namespace("other").unwrap().insert("x", "y").unwrap();
        }
        let key = Some(EncryptionInput::Key([5u8; 32]));
        let read = OpenRequest::default();
        let set = first_page(&db_path, &read, key.clone(), None, 4).unwrap();
        let keys: Vec<&[u8]> = (0..set.len()).map(|i| set.key(i)).collect();
        assert_eq!(keys, [&b"k0"[..], b"k1", b"k2", b"k3"]);
        assert_eq!(set.entry(0).unwrap().size, 3);
        let other = first_page(&db_path, &read, key.clone(), Some("other"), 4).unwrap();
        assert_eq!(other.len(), 1);
        // Left to the open, which says what is wrong (or asks, or locks).
        assert!(first_page(&db_path, &read, key.clone(), Some("nope"), 4).is_none());
        assert!(first_page(&db_path, &read, None, None, 4).is_none());
        let wrong = Some(EncryptionInput::Key([6u8; 32]));
        assert!(first_page(&db_path, &read, wrong, None, 4).is_none());
        let write = OpenRequest {
            write: true,
            ..OpenRequest::default()
        };
        assert!(first_page(&db_path, &write, key.clone(), None, 4).is_none());
        let missing = dir.path().join("missing.emdb");
        assert!(first_page(&missing, &read, key, None, 4).is_none());
        let phrase = Some(EncryptionInput::Passphrase("correct horse".into()));
        assert!(first_page(&db_path, &read, phrase, None, 4).is_none());
        // The worker's open reads as `open` does: a missing file is exit 6
        // with the usual message.
        let e = open_read_only(&missing, None).unwrap_err();
        assert_eq!(e.kind.exit_code(), 6);
        assert_eq!(
            e.message,
            open(&missing, &OpenRequest::default()).unwrap_err().message
        );
    }
}
