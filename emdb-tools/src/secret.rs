//! Keys and passphrases of encrypted databases: from a file, an environment
//! variable, or a hidden prompt on the terminal; never from a plain
//! argument. Nothing here ever prints a secret, and errors name only where
//! a secret came from, never its bytes.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use emdb_core::EncryptionInput;
use zeroize::Zeroizing;

use crate::error::{Kind, ToolError, ToolResult};

/// Environment variable holding a passphrase.
pub const ENV_PASSPHRASE: &str = "EMDB_PASSPHRASE";
/// Environment variable naming a key file.
pub const ENV_KEY_FILE: &str = "EMDB_KEY_FILE";

/// Where the command line says the secret is (`--passphrase-file`,
/// `--key-file`); both binaries spell these options the same way.
#[derive(Debug, Clone, Default)]
pub struct SecretOptions {
    /// `--passphrase-file`: a file holding the passphrase.
    pub passphrase_file: Option<PathBuf>,
    /// `--key-file`: a file holding the raw 256-bit key.
    pub key_file: Option<PathBuf>,
}

/// The secret the options and the environment give, if any:
/// `--passphrase-file`, `--key-file`, then `EMDB_KEY_FILE` or
/// `EMDB_PASSPHRASE` (setting both is refused as ambiguous).
pub fn from_options(args: &SecretOptions) -> ToolResult<Option<EncryptionInput>> {
    if let Some(file) = &args.passphrase_file {
        return passphrase_file(file).map(Some);
    }
    if let Some(file) = &args.key_file {
        return key_file(file).map(Some);
    }
    let env_key = std::env::var_os(ENV_KEY_FILE).filter(|v| !v.is_empty());
    let env_pass = std::env::var_os(ENV_PASSPHRASE).filter(|v| !v.is_empty());
    match (env_key, env_pass) {
        (Some(_), Some(_)) => Err(ToolError::usage(format!(
            "both {ENV_KEY_FILE} and {ENV_PASSPHRASE} are set; emdb will not guess which one is meant"
        ))
        .hint("unset one of them, or pass --key-file / --passphrase-file")),
        (Some(file), None) => key_file(Path::new(&file))
            .map(Some)
            .map_err(|e| e.context(ENV_KEY_FILE)),
        (None, Some(pass)) => {
            let pass = Zeroizing::new(pass.into_string().map_err(|_| {
                ToolError::bad_input(format!("{ENV_PASSPHRASE} is not valid UTF-8"))
            })?);
            passphrase(&pass, ENV_PASSPHRASE).map(Some)
        }
        (None, None) => Ok(None),
    }
}

/// A passphrase from the contents of `path`, without one trailing newline.
pub fn passphrase_file(path: &Path) -> ToolResult<EncryptionInput> {
    let bytes = Zeroizing::new(read(path)?);
    let text = std::str::from_utf8(&bytes).map_err(|_| {
        ToolError::bad_input(format!(
            "the passphrase in {} is not valid UTF-8",
            path.display()
        ))
    })?;
    let text = text
        .strip_suffix('\n')
        .map(|t| t.strip_suffix('\r').unwrap_or(t))
        .unwrap_or(text);
    passphrase(text, &path.display().to_string())
}

/// A raw key from `path`: exactly 32 bytes, or 64 hex digits (surrounding
/// whitespace allowed). The file's bytes and the working copy of the key
/// are zeroized when done; the result zeroizes itself when dropped.
pub fn key_file(path: &Path) -> ToolResult<EncryptionInput> {
    let bytes = Zeroizing::new(read(path)?);
    let mut key = Zeroizing::new([0u8; 32]);
    if bytes.len() == 32 {
        key.copy_from_slice(&bytes);
        return Ok(EncryptionInput::Key(*key));
    }
    let text = bytes.trim_ascii();
    let bad = || {
        ToolError::bad_input(format!(
            "{} is not a key file: it must hold 32 raw bytes or 64 hex digits ({} bytes found)",
            path.display(),
            bytes.len()
        ))
        .hint("make one with: head -c 32 /dev/urandom > db.key")
    };
    if text.len() != 64 {
        return Err(bad());
    }
    for (i, pair) in text.chunks_exact(2).enumerate() {
        let hi = hex_digit(pair[0]).ok_or_else(bad)?;
        let lo = hex_digit(pair[1]).ok_or_else(bad)?;
        key[i] = hi << 4 | lo;
    }
    Ok(EncryptionInput::Key(*key))
}

fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn read(path: &Path) -> ToolResult<Vec<u8>> {
    std::fs::read(path).map_err(|e| ToolError::io("reading", Some(path), e))
}

fn passphrase(text: &str, source: &str) -> ToolResult<EncryptionInput> {
    if text.is_empty() {
        return Err(ToolError::bad_input(format!(
            "the passphrase from {source} is empty"
        )));
    }
    Ok(EncryptionInput::Passphrase(text.to_string()))
}

/// True when a hidden prompt can be shown: stdin and stderr are a terminal.
pub fn can_prompt() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Ask for the passphrase of an existing database, once, without echo.
pub fn prompt_existing(db: &Path) -> ToolResult<EncryptionInput> {
    let text = ask(&format!("Passphrase for {}: ", db.display()))?;
    passphrase(&text, "the prompt")
}

/// Ask for a new passphrase twice, without echo; they must match.
pub fn prompt_new(what: &str) -> ToolResult<EncryptionInput> {
    let first = ask(&format!("New passphrase for {what}: "))?;
    if first.is_empty() {
        return Err(ToolError::usage(
            "the passphrase is empty; nothing was changed",
        ));
    }
    let again = ask("Repeat the new passphrase: ")?;
    if *first != *again {
        return Err(ToolError::usage(
            "the two passphrases differ; nothing was changed",
        ));
    }
    passphrase(&first, "the prompt")
}

fn ask(prompt: &str) -> ToolResult<Zeroizing<String>> {
    rpassword::prompt_password(prompt)
        .map(Zeroizing::new)
        .map_err(|e| ToolError::io("reading the passphrase from the terminal", None, e))
}

/// The error for an encrypted database opened without any secret, when no
/// prompt can be shown.
pub fn missing(db: &Path) -> ToolError {
    ToolError::new(
        Kind::WrongKey,
        format!(
            "{} is encrypted and no key or passphrase was given",
            db.display()
        ),
    )
    .hint(format!(
        "pass --passphrase-file FILE or --key-file FILE, or set {ENV_PASSPHRASE} or {ENV_KEY_FILE}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn key_files_raw_and_hex() {
        let dir = tempfile::tempdir().unwrap();
        let raw: Vec<u8> = (0..32).collect();
        let EncryptionInput::Key(k) = &key_file(&write(&dir, "raw", &raw)).unwrap() else {
            panic!("not a key")
        };
        assert_eq!(k.to_vec(), raw);
        let hex: String = raw.iter().map(|b| format!("{b:02X}")).collect();
        let EncryptionInput::Key(k) =
            &key_file(&write(&dir, "hex", format!("{hex}\n").as_bytes())).unwrap()
        else {
            panic!("not a key")
        };
        assert_eq!(k.to_vec(), raw);
        let e = key_file(&write(&dir, "short", b"0011")).unwrap_err();
        assert_eq!(e.kind.exit_code(), 7);
        let mut bad = hex.clone().into_bytes();
        bad[10] = b'g';
        let e = key_file(&write(&dir, "bad", &bad)).unwrap_err();
        assert!(!e.message.contains(&hex[..8]), "{}", e.message);
    }

    #[test]
    fn passphrase_files_lose_one_newline() {
        let dir = tempfile::tempdir().unwrap();
        let EncryptionInput::Passphrase(p) =
            &passphrase_file(&write(&dir, "p", b"correct horse\r\n")).unwrap()
        else {
            panic!("not a passphrase")
        };
        assert_eq!(p, "correct horse");
        let EncryptionInput::Passphrase(p) =
            &passphrase_file(&write(&dir, "p2", b"two\n\n")).unwrap()
        else {
            panic!("not a passphrase")
        };
        assert_eq!(p, "two\n");
        assert!(passphrase_file(&write(&dir, "empty", b"\n")).is_err());
    }
}
