//! One error type for both tools, with the stable exit codes docs/CLI.md
//! lists, and the one mapping from [`emdb_core::Error`] to a code and a hint.

use std::fmt;
use std::io;
use std::path::Path;

/// What kind of failure, which decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A key that was asked for does not exist (exit 1).
    NotFound,
    /// The namespace a command names does not exist (exit 1, as
    /// [`Kind::NotFound`]). Kept apart because `--quiet` hides only a
    /// missing key: a mistyped namespace must never read as empty.
    NoNamespace,
    /// The invocation is wrong or contradictory (exit 2).
    Usage,
    /// Another process holds the writer lock (exit 3).
    Locked,
    /// The file is damaged, foreign, or of an unsupported version (exit 4).
    Corrupt,
    /// The key or passphrase is wrong or missing for an encrypted database,
    /// or was given for a plain one (exit 5).
    WrongKey,
    /// An I/O or storage failure (exit 6).
    Io,
    /// Input that does not decode or breaks a limit (exit 7).
    BadInput,
    /// A file left by an earlier run blocks the command: a `<db>.encbak`
    /// backup of an interrupted or kept encryption change (exit 8).
    Leftover,
    /// `emdb sync`: the target cannot be reached or keeps failing (exit 9).
    TargetDown,
    /// Stopped by Ctrl-C (SIGINT) after saying how far it got (exit 130,
    /// as shells report a process ended by SIGINT).
    Interrupted,
    /// Stdout was closed by the reader (e.g. `| head`): exit quietly.
    BrokenPipe,
}

impl Kind {
    /// The process exit code for this kind.
    pub fn exit_code(self) -> u8 {
        match self {
            Kind::NotFound | Kind::NoNamespace => 1,
            Kind::Usage => 2,
            Kind::Locked => 3,
            Kind::Corrupt => 4,
            Kind::WrongKey => 5,
            Kind::Io => 6,
            Kind::BadInput => 7,
            Kind::Leftover => 8,
            Kind::TargetDown => 9,
            Kind::Interrupted => 130,
            Kind::BrokenPipe => 0,
        }
    }
}

/// A failure with a one-line message and, when useful, what to do about it.
#[derive(Debug)]
pub struct ToolError {
    /// Decides the exit code.
    pub kind: Kind,
    /// What went wrong, one line.
    pub message: String,
    /// What to do about it, when the message does not already say.
    pub hint: Option<String>,
}

/// Result alias for the CLI.
pub type ToolResult<T = ()> = Result<T, ToolError>;

impl ToolError {
    /// A failure of `kind` with `message`.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        ToolError {
            kind,
            message: message.into(),
            hint: None,
        }
    }

    /// Attach a hint.
    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Exit 1: a missing key.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Kind::NotFound, message)
    }

    /// A failure that only sets the exit code; nothing is printed.
    pub fn silent(kind: Kind) -> Self {
        Self::new(kind, "")
    }

    /// Exit 2: a usage error.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(Kind::Usage, message)
    }

    /// Exit 7: input that does not decode or breaks a limit.
    pub fn bad_input(message: impl Into<String>) -> Self {
        Self::new(Kind::BadInput, message)
    }

    /// Exit 6 (or a quiet exit for a broken pipe): an I/O failure on `path`.
    pub fn io(op: &str, path: Option<&Path>, e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Self::new(Kind::BrokenPipe, "broken pipe");
        }
        let message = match path {
            Some(p) => format!("{op} {} failed: {e}", p.display()),
            None => format!("{op} failed: {e}"),
        };
        Self::new(Kind::Io, message)
    }

    /// A failure writing to stdout.
    pub fn stdout(e: io::Error) -> Self {
        Self::io("writing to stdout", None, e)
    }

    /// Prefix the message with where it happened (e.g. `line 12`).
    #[must_use]
    pub fn context(mut self, ctx: impl fmt::Display) -> Self {
        if self.message.is_empty() {
            return self;
        }
        self.message = format!("{ctx}: {}", self.message);
        self
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The engine's advice in a corruption message, which names a builder
/// option the tools do not have.
const SALVAGE_ADVICE: &str =
    " (open with salvage to skip the damaged bytes, or restore from a backup)";

/// What to do about corruption at `offset` (of the file `path`, when the
/// error names one).
/// Where an encrypted database's header holds its encryption block
/// (docs/FORMAT.md).
const ENCRYPTION_BLOCK_AT: u64 = 1024;

fn corruption_hint(path: Option<&std::path::Path>, offset: u64, reason: &str) -> String {
    match path {
        // Damage in the checkpoint, an index of the log: nothing is lost
        // by rebuilding it.
        Some(p) if p.extension().is_some_and(|x| x == "ckpt") => format!(
            "the checkpoint holds only an index of the log, no data: `emdb check --repair` \
             rebuilds it from the log (or remove {} yourself)",
            p.display()
        ),
        // Without the identity block nothing opens the file, salvage
        // included: do not send the user round the other commands.
        _ if offset == 0 && reason.starts_with("header") => {
            "the header's identity block (its first 52 bytes, docs/FORMAT.md) is damaged; \
             no emdb command can open the file without it (the records after it may be \
             intact): restore a backup, and keep this file"
                .into()
        }
        // The encryption block (key derivation, salt, key check) is as
        // needed: no record can be opened without it.
        _ if offset == ENCRYPTION_BLOCK_AT && reason.starts_with("encryption block") => {
            "the header's encryption block (bytes 1024..1124, docs/FORMAT.md) is damaged; no \
             emdb command can decrypt the records without it (they may be intact): restore a \
             backup, and keep this file"
                .into()
        }
        _ => "`emdb check` shows the damage; `emdb export --salvage` saves what still verifies \
              without changing the file; `emdb check --repair` salvages the file itself (keeping \
              a copy of the damaged one); or restore a backup"
            .into(),
    }
}

impl From<emdb_core::Error> for ToolError {
    fn from(e: emdb_core::Error) -> Self {
        use emdb_core::Error as E;
        let message = e.to_string();
        match &e {
            E::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe => {
                ToolError::new(Kind::BrokenPipe, message)
            }
            // A long-lived read-only handle (shell, sync, TUI) whose file
            // changed in a way it cannot follow.
            E::Stale { path, cause } => {
                let why = match &**cause {
                    E::EncryptionRequired { path } => format!(
                        "{} is encrypted, and this process has no key or passphrase for it",
                        path.display()
                    ),
                    other => other.to_string(),
                };
                let file = path
                    .as_ref()
                    .map_or_else(|| "its file".to_string(), |p| p.display().to_string());
                ToolError::new(
                    Kind::Io,
                    format!(
                        "this read-only handle could not catch up with {file} ({why}); \
                         its answers would be stale"
                    ),
                )
                .hint(
                    "the database file was replaced or changed under this process (by encrypt, \
                     decrypt, rotate-key or a restored backup): start the command again, with the \
                     database's secret if it is encrypted now",
                )
            }
            E::CheckpointNotWritten(_) => ToolError::new(Kind::Io, message).hint(
                "the command's writes are saved; free some space (or fix what the error names): \
                 later writers write the checkpoint again, and until then each open replays more \
                 of the log",
            ),
            E::Io { source, .. } if source.kind() == io::ErrorKind::StorageFull => {
                ToolError::new(Kind::Io, message).hint(
                    "free some space on the file system it names; what was written before \
                     this command is kept",
                )
            }
            E::Io { source, .. } if source.kind() == io::ErrorKind::FileTooLarge => {
                ToolError::new(Kind::Io, message).hint(
                    "the process's file size limit (`ulimit -f`, systemd's LimitFSIZE=) stops \
                     the file there; raise it",
                )
            }
            E::Io { .. } | E::DatabaseFull { .. } | E::TooManyKeys { .. } | E::Poisoned(_) => {
                ToolError::new(Kind::Io, message)
            }
            E::Corruption {
                path,
                offset,
                reason,
            } => ToolError::new(Kind::Corrupt, message.replace(SALVAGE_ADVICE, ""))
                .hint(corruption_hint(path.as_deref(), *offset, reason)),
            E::NotADatabase { .. } => ToolError::new(Kind::Corrupt, message)
                .hint("check the --db path or EMDB_PATH; emdb only opens its own files"),
            E::UnsupportedVersion { .. } => ToolError::new(Kind::Corrupt, message),
            E::LockBusy { .. } => ToolError::new(Kind::Locked, message).hint(
                "pass --lock-timeout 10s to wait for it; `emdb lock status` shows the holder",
            ),
            E::InvalidPath { .. } => {
                ToolError::new(Kind::Usage, message).hint("check the --db path or EMDB_PATH")
            }
            E::InvalidConfig(_) | E::NeedsFile { .. } | E::BackupTarget { .. } => {
                ToolError::new(Kind::Usage, message)
            }
            E::EncryptionBackupLeft { db, .. } => ToolError::new(Kind::Leftover, message).hint(
                format!(
                    "`emdb --db {} check` with the secret you expect, then delete the backup and retry",
                    db.display()
                ),
            ),
            E::KeyTooLarge { .. } | E::ValueTooLarge { .. } => {
                ToolError::new(Kind::BadInput, message)
            }
            E::ReadOnly => ToolError::new(Kind::Usage, message),
            E::EncryptionKeyMismatch { .. } => ToolError::new(Kind::WrongKey, message).hint(
                "check --passphrase-file / --key-file, or EMDB_PASSPHRASE / EMDB_KEY_FILE",
            ),
            E::EncryptionRequired { path } => crate::secret::missing(path),
            E::NotEncrypted { path } => ToolError::new(
                Kind::WrongKey,
                format!(
                    "{} is not encrypted, but a key or passphrase was given",
                    path.display()
                ),
            )
            .hint("drop --passphrase-file/--key-file (and unset EMDB_PASSPHRASE/EMDB_KEY_FILE), or run `emdb encrypt`"),
            E::InvalidNamespaceName { .. } | E::AlreadyEncrypted { .. } => {
                ToolError::new(Kind::Usage, message)
            }
            E::NamespaceDropped => ToolError::new(
                Kind::NoNamespace,
                "the namespace was dropped by another process meanwhile",
            ),
            E::FeatureDisabled(_) => ToolError::new(Kind::Usage, message),
            _ => ToolError::new(Kind::Io, message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_errors_map_to_documented_codes() {
        let locked = emdb_core::Error::LockBusy {
            path: "/x".into(),
            holder: None,
        };
        assert_eq!(ToolError::from(locked).kind.exit_code(), 3);
        let corrupt = emdb_core::Error::Corruption {
            path: None,
            offset: 9,
            reason: "crc".into(),
        };
        assert_eq!(ToolError::from(corrupt).kind.exit_code(), 4);
        let big = emdb_core::Error::KeyTooLarge { len: 2, max: 1 };
        assert_eq!(ToolError::from(big).kind.exit_code(), 7);
        let wrong = emdb_core::Error::EncryptionKeyMismatch { reason: "x".into() };
        assert_eq!(ToolError::from(wrong).kind.exit_code(), 5);
        let missing = emdb_core::Error::EncryptionRequired { path: "/x".into() };
        assert_eq!(ToolError::from(missing).kind.exit_code(), 5);
        let left = emdb_core::Error::EncryptionBackupLeft {
            backup: "/x.emdb.encbak".into(),
            db: "/x.emdb".into(),
        };
        let left = ToolError::from(left);
        assert_eq!(left.kind.exit_code(), 8);
        assert!(left.hint.as_deref().is_some_and(|h| h.contains("/x.emdb")));
        let path = emdb_core::Error::InvalidPath { reason: "x".into() };
        assert_eq!(ToolError::from(path).kind.exit_code(), 2);
        let dropped = ToolError::from(emdb_core::Error::NamespaceDropped);
        assert_eq!(dropped.kind, Kind::NoNamespace);
        assert_eq!(dropped.kind.exit_code(), 1);
        let unknown = crate::database::unknown_namespace("sesions");
        assert_eq!(unknown.kind, Kind::NoNamespace);
        assert_eq!(unknown.kind.exit_code(), 1);
        let pipe = ToolError::stdout(io::Error::from(io::ErrorKind::BrokenPipe));
        assert_eq!(pipe.kind, Kind::BrokenPipe);
    }
}
