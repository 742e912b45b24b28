//! `emdb encrypt`, `emdb decrypt`, `emdb rotate-key`: offline rewrites of
//! the whole file under a new secret (or none), with an atomic swap. The
//! engine keeps the old file as `<db>.encbak`; once every record of the new
//! file reads back under the new secret, that backup is deleted (it holds
//! the data in plaintext, or under the old key) unless `--keep-backup`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use emdb_core::{Cipher, Emdb, EncryptionInput};

use super::confirm;
use crate::cli::{AdminArgs, CipherArg, EncryptArgs, RotateKeyArgs};
use crate::database::{gave_up, retry_locked, Session};
use crate::error::{CliError, CliResult, Kind};
use crate::output::{AdminReport, Ui};
use crate::progress;
use crate::secret;
use crate::space::Space;

/// Encrypt a plain database.
pub fn encrypt(args: &EncryptArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    s.require_writable("encrypt")?;
    let path = existing(s)?;
    if is_encrypted(&path)? {
        return Err(
            CliError::usage(format!("{} is already encrypted", path.display()))
                .hint("`emdb rotate-key` changes its key or passphrase"),
        );
    }
    no_backup_left(s, &path)?;
    let target = match s.secret()? {
        Some(secret) => secret,
        None if s.can_prompt() => secret::prompt_new(&path.display().to_string())?,
        None => return Err(no_new_secret("encrypt")),
    };
    let (cipher, cipher_name) = match args.cipher {
        CipherArg::Aes => (Cipher::Aes256Gcm, "AES-256-GCM"),
        CipherArg::Chacha => (Cipher::ChaCha20Poly1305, "ChaCha20-Poly1305"),
    };
    let what = format!("encrypt {} with {cipher_name}", path.display());
    confirm_rewrite(&args.admin, ui, &what)?;
    let seconds = rewrite(s, "encrypting", ui.quiet, &path, || {
        Emdb::enable_encryption_with(&path, target.clone(), cipher)
    })?;
    let _held = verify_all(s, &path, Some(target), ui.quiet)?;
    let note = "it holds the data unencrypted: delete it once you have checked the database";
    finish(
        "encrypt",
        &path,
        Some(cipher_name),
        &args.admin,
        note,
        seconds,
        ui,
    )?;
    note_plain_repair_copy(ui, &path);
    Ok(())
}

/// Decrypt an encrypted database.
pub fn decrypt(args: &AdminArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    s.require_writable("decrypt")?;
    let path = existing(s)?;
    if !is_encrypted(&path)? {
        return Err(CliError::usage(format!(
            "{} is not encrypted; nothing to do",
            path.display()
        )));
    }
    no_backup_left(s, &path)?;
    let current = current_secret(s, &path)?;
    confirm_rewrite(args, ui, &format!("decrypt {}", path.display()))?;
    let seconds = rewrite(s, "decrypting", ui.quiet, &path, || {
        Emdb::disable_encryption(&path, current.clone())
    })?;
    let _held = verify_all(s, &path, None, ui.quiet)?;
    let note = "it is still encrypted with the old secret";
    finish("decrypt", &path, None, args, note, seconds, ui)
}

/// Re-encrypt under a new key or passphrase.
pub fn rotate_key(args: &RotateKeyArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    s.require_writable("rotate-key")?;
    let path = existing(s)?;
    if !is_encrypted(&path)? {
        return Err(
            CliError::usage(format!("{} is not encrypted", path.display()))
                .hint("`emdb encrypt` encrypts it"),
        );
    }
    no_backup_left(s, &path)?;
    let current = current_secret(s, &path)?;
    let new = match (&args.new_passphrase_file, &args.new_key_file) {
        (Some(file), _) => secret::passphrase_file(file)?,
        (None, Some(file)) => secret::key_file(file)?,
        (None, None) if s.can_prompt() => secret::prompt_new(&path.display().to_string())?,
        (None, None) => {
            return Err(CliError::usage("no new key or passphrase was given")
                .hint("pass --new-passphrase-file FILE or --new-key-file FILE"))
        }
    };
    confirm_rewrite(
        &args.admin,
        ui,
        &format!("re-encrypt {} under the new secret", path.display()),
    )?;
    let seconds = rewrite(s, "re-encrypting", ui.quiet, &path, || {
        Emdb::rotate_encryption_key(&path, current.clone(), new.clone())
    })?;
    let _held = verify_all(s, &path, Some(new), ui.quiet)?;
    let note = "it still opens with the old secret: delete it once you have checked the database";
    finish("rotate-key", &path, None, &args.admin, note, seconds, ui)?;
    note_plain_repair_copy(ui, &path);
    Ok(())
}

/// Say that a copy a repair kept (`<db>.before-repair`) is still there:
/// it holds the database as it was, in plaintext if it was plain then, and
/// an encryption change does not touch it.
fn note_plain_repair_copy(ui: &Ui, path: &Path) {
    let copy = crate::database::beside_real(path, ".before-repair");
    if copy.exists() {
        ui.note(&format!(
            "emdb: note: {} (the file as it was before a repair) is still there and was not \
             re-encrypted; delete it once you no longer need it",
            copy.display()
        ));
    }
}

/// The database file, which must exist.
fn existing(s: &Session) -> CliResult<PathBuf> {
    let path = s.path()?;
    if !path.exists() {
        return Err(CliError::io(
            "opening",
            Some(&path),
            std::io::Error::from(std::io::ErrorKind::NotFound),
        )
        .hint("check --db or EMDB_PATH"));
    }
    Ok(path)
}

/// Whether the database at `path` is encrypted (a keyless read-only open
/// fails with `EncryptionRequired` right after reading the header).
fn is_encrypted(path: &Path) -> CliResult<bool> {
    match Emdb::builder().path(path).read_only(true).build() {
        Ok(_) => Ok(false),
        Err(emdb_core::Error::EncryptionRequired { .. }) => Ok(true),
        Err(e) => Err(e.into()),
    }
}

/// The current secret, checked against the database before anything else
/// is asked or done (a wrong one exits 5 here).
fn current_secret(s: &mut Session, path: &Path) -> CliResult<EncryptionInput> {
    let secret = match s.secret()? {
        Some(secret) => secret,
        None if s.can_prompt() => secret::prompt_existing(path)?,
        None => return Err(secret::missing(path)),
    };
    opens_with(path, Some(secret.clone()))?;
    Ok(secret)
}

fn opens_with(path: &Path, secret: Option<EncryptionInput>) -> CliResult {
    let mut b = Emdb::builder().path(path).read_only(true);
    if let Some(secret) = secret {
        b = b.encryption(secret);
    }
    b.build()?;
    Ok(())
}

/// Read every record of every namespace of `path` under `secret`: a
/// record that does not decrypt fails here, before the backup is deleted.
/// Read through a writer when the lock can be had, which the caller holds
/// (the handle returned) until the backup is deleted: another encryption
/// change started meanwhile then waits for the lock, instead of finding
/// the backup and taking it for one left by an interrupted change.
fn verify_all(
    s: &Session,
    path: &Path,
    secret: Option<EncryptionInput>,
    quiet: bool,
) -> CliResult<Emdb> {
    let builder = || {
        let mut b = Emdb::builder().path(path);
        if let Some(secret) = secret.clone() {
            b = b.encryption(secret);
        }
        b
    };
    let db = match retry_locked(s.lock_timeout(), || {
        builder()
            .background(false)
            .checkpoint_on_close(false)
            .build()
    }) {
        Ok(db) => db,
        // Another writer took the lock the moment the rewrite let it go:
        // verify without it, as a reader.
        Err(emdb_core::Error::LockBusy { .. }) => builder().read_only(true).build()?,
        Err(e) => return Err(e.into()),
    };
    let mut spaces = vec![Space::Default(db.clone())];
    for name in db.list_namespaces()? {
        if !name.is_empty() {
            spaces.push(Space::Named(db.namespace(&name)?));
        }
    }
    let pb = progress::bar(db.stats()?.live_records, false, "verifying", quiet);
    let mut records = 0u64;
    for space in &spaces {
        for key in space.keys()? {
            let key = key?;
            // The value is decrypted and its tag checked here.
            space.get_owned(&key)?;
            records += 1;
            if records.is_multiple_of(4096) {
                pb.set_position(records);
            }
        }
    }
    pb.finish_and_clear();
    Ok(db)
}

/// `<db>.encbak` next to the file the database really is: the engine
/// resolves symlinks before it names the backup, so a `--db` given through
/// a symlink must too (or the default removal misses the plaintext backup).
fn backup_path(path: &Path) -> PathBuf {
    crate::database::beside_real(path, ".encbak")
}

/// Refuse (exit 8) a `<db>.encbak` left behind. One beside a held writer
/// lock may be another change's, still running: that waits as
/// `--lock-timeout` says (then exit 3), and goes on if the backup is gone
/// once the lock is free.
fn no_backup_left(s: &Session, path: &Path) -> CliResult {
    let backup = backup_path(path);
    let deadline = s.lock_timeout().map(|t| std::time::Instant::now() + t);
    while backup.exists() {
        let Ok(Some(holder)) = Emdb::lock_holder(path).map(|h| h.filter(|h| h.alive)) else {
            break;
        };
        if deadline.is_none_or(|d| std::time::Instant::now() >= d) {
            return Err(gave_up(
                emdb_core::Error::LockBusy {
                    path: path.to_path_buf(),
                    holder: Some(holder),
                }
                .into(),
                s.lock_timeout(),
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if backup.exists() {
        return Err(CliError::new(
            Kind::Leftover,
            format!(
                "{} exists: an earlier encryption change was interrupted or its backup was kept",
                backup.display()
            ),
        )
        .hint(format!(
            "check that {} opens with the secret you expect, then delete the backup and retry",
            path.display()
        )));
    }
    Ok(())
}

fn no_new_secret(what: &str) -> CliError {
    CliError::usage(format!("`{what}` needs the new key or passphrase")).hint(
        "pass --passphrase-file FILE or --key-file FILE, or set EMDB_PASSPHRASE or EMDB_KEY_FILE",
    )
}

fn confirm_rewrite(args: &AdminArgs, ui: &Ui, what: &str) -> CliResult {
    if args.yes {
        return Ok(());
    }
    if !ui.interactive {
        return Err(CliError::usage(format!(
            "refusing to {what} without confirmation (not a terminal)"
        ))
        .hint("pass --yes"));
    }
    if confirm(
        ui,
        &format!(
            "{what}? The file is rewritten; the old one is kept as .encbak until the new one is verified."
        ),
    )? {
        Ok(())
    } else {
        Err(CliError::usage("cancelled; nothing was changed"))
    }
}

/// Run an admin rewrite, waiting for the lock as `--lock-timeout` says.
/// Ctrl-C or SIGTERM meanwhile removes the new file it was writing (and
/// that file's own siblings): after a `decrypt` it holds the plaintext.
fn rewrite(
    s: &Session,
    label: &str,
    quiet: bool,
    path: &Path,
    op: impl FnMut() -> emdb_core::Result<()>,
) -> CliResult<f64> {
    let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let tmp = crate::database::sibling(&real, ".enc.tmp");
    let mut temps = vec![tmp.clone()];
    temps.extend(
        [".ckpt", ".lock", ".stats", ".tail"]
            .iter()
            .map(|x| crate::database::sibling(&tmp, x)),
    );
    let _interrupt = crate::temps::remove_while_locked(temps, &real);
    let start = Instant::now();
    let timeout = s.lock_timeout();
    // Bytes of live records rewritten, as the engine reports them.
    progress::engine(label, quiet, || retry_locked(timeout, op))
        .map_err(|e| gave_up(e.into(), timeout))?;
    Ok(start.elapsed().as_secs_f64())
}

fn finish(
    action: &'static str,
    path: &Path,
    cipher: Option<&'static str>,
    args: &AdminArgs,
    backup_note: &str,
    seconds: f64,
    ui: &mut Ui,
) -> CliResult {
    let backup = backup_path(path);
    // Reached only after verify_all read every record under the new secret.
    let kept = if args.keep_backup {
        true
    } else {
        std::fs::remove_file(&backup).map_err(|e| CliError::io("removing", Some(&backup), e))?;
        false
    };
    let report = AdminReport {
        action,
        path: path.display().to_string(),
        cipher,
        backup: kept.then(|| backup.display().to_string()),
        seconds,
    };
    let done = match action {
        "encrypt" => "encrypted",
        "decrypt" => "decrypted",
        _ => "re-encrypted",
    };
    let mut text = format!("{done} {}", path.display());
    if let Some(c) = cipher {
        text.push_str(&format!(" with {c}"));
    }
    text.push_str(&format!(" ({seconds:.2}s)"));
    if kept {
        text.push_str(&format!(
            "; the old file is kept as {} ({backup_note})",
            backup.display()
        ));
    } else {
        text.push_str("; the old file was removed");
    }
    ui.report(&text, &report)
}
