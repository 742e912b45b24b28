//! Small filesystem helpers: directory fsync, atomic file replacement, and
//! the one way the engine creates files next to a database.
//!
//! Sibling files (`.lock`, `.ckpt.tmp`, `.compact.tmp`, `.stats.tmp`, ...)
//! live in a directory other users or programs may write to. A name planted
//! there as a symlink must never make emdb write through it, and a file emdb
//! did not create must never be truncated: temp files are created fresh with
//! `O_CREAT | O_EXCL | O_NOFOLLOW` ([`create_fresh`]), and the long-lived
//! lock file is opened with `O_NOFOLLOW` and refused unless it is a plain
//! file with one link ([`open_lock_file`]).

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fault::{self, Faults, FsEvent};

/// Open options for files the engine creates: owner read/write only,
/// never through a symlink.
fn create_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(true).write(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    o
}

/// Create `path` as a new, empty file (mode 0600) that only this call can
/// have made: whatever is at the name (a stale temp file of a crashed run,
/// or a symlink someone planted) is unlinked first, never followed or
/// truncated, and the file is created with `O_EXCL | O_NOFOLLOW`, so a name
/// planted between the two fails the call instead of redirecting it.
pub(crate) fn create_fresh(path: &Path) -> Result<File> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io("remove stale file", Some(path), e)),
    }
    create_options()
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io("create", Some(path), e))
}

/// Give `f` (one of emdb's own files, just made by [`create_fresh`] with
/// mode 0600) the permission bits in `mask` of `like` (the database
/// file's metadata), and its owner and group, as far as this process may:
/// the owner only as root, the group where this process is in it (or
/// root). When the group cannot be given, the group bits are no more than
/// the bits for everyone else: they would go to this process's group,
/// not the database's. A file that replaces the database (a compaction's
/// or an encryption change's new log) or that its readers read beside it
/// (a checkpoint, a tail index) otherwise had mode 0600 and the writer's
/// owner, so a compaction locked out every reader the database's own mode
/// let in. Works on the handle, never the name (a link planted at the
/// name must not be what changes). Best effort: a failure leaves the file
/// as it was.
pub(crate) fn match_permissions(f: &File, like: &std::fs::Metadata, mask: u32) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    // Owner before mode: a change of owner may clear mode bits.
    let group_given = std::os::unix::fs::fchown(f, Some(like.uid()), Some(like.gid())).is_ok()
        || std::os::unix::fs::fchown(f, None, Some(like.gid())).is_ok();
    let mut mode = like.mode() & mask & 0o666;
    if !group_given {
        mode = (mode & 0o606) | ((mode & 0o006) << 3);
    }
    let _ = f.set_permissions(std::fs::Permissions::from_mode(mode));
}

/// Open (creating if needed, never truncating) the writer-lock file at
/// `path`: not through a symlink, and only a regular file with a single
/// link (a hard link planted at the name would let the lock record
/// overwrite another file).
pub(crate) fn open_lock_file(path: &Path) -> Result<File> {
    let file = create_options()
        .open(path)
        .map_err(|e| Error::io("open lock file", Some(path), e))?;
    refuse_shared(&file, path)?;
    Ok(file)
}

/// Fail unless `file` is a regular file with at most one link.
pub(crate) fn refuse_shared(file: &File, path: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = file
        .metadata()
        .map_err(|e| Error::io("stat", Some(path), e))?;
    // No link at all: removed (by `lock break`) since it was opened; the
    // caller finds the name no longer refers to it and starts over.
    if !meta.file_type().is_file() || meta.nlink() > 1 {
        return Err(Error::io(
            "open lock file",
            Some(path),
            std::io::Error::other("not a plain file of its own (a link to another file?)"),
        ));
    }
    Ok(())
}

/// Open an existing file (read-only, or read-write with `write`) without
/// following a symlink at its name.
pub(crate) fn open_nofollow(path: &Path, write: bool) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// `(device, inode)` of `path` itself (a symlink is not followed), or
/// `None` when nothing is there.
pub(crate) fn file_id_at(path: &Path) -> Result<Option<(u64, u64)>> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(path) {
        Ok(m) => Ok(Some((m.dev(), m.ino()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("stat", Some(path), e)),
    }
}

/// `(device, inode)` of an open file.
pub(crate) fn file_id(file: &File, path: &Path) -> Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = file
        .metadata()
        .map_err(|e| Error::io("stat", Some(path), e))?;
    Ok((m.dev(), m.ino()))
}

/// The directory holding `path` (`.` for a bare file name).
pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// fsync the directory that holds `path`, making a rename or create in it durable.
pub(crate) fn fsync_parent(path: &Path, faults: Option<&Faults>) -> Result<()> {
    let dir = parent_dir(path);
    #[cfg(unix)]
    {
        let d = File::open(&dir).map_err(|e| Error::io("open directory", Some(&dir), e))?;
        Faults::check(faults.map(|f| &f.fail_dir_sync), libc::EIO)
            .and_then(|()| d.sync_all())
            .map_err(|e| Error::io("fsync directory", Some(&dir), e))?;
        fault::note(faults, || FsEvent::DirSynced(dir.clone()));
    }
    Ok(())
}

/// Rename `from` to `to` (durable after [`fsync_parent`]).
pub(crate) fn rename(from: &Path, to: &Path, faults: Option<&Faults>) -> Result<()> {
    std::fs::rename(from, to).map_err(|e| Error::io("rename", Some(to), e))?;
    fault::note(faults, || FsEvent::Renamed {
        from: from.to_path_buf(),
        to: to.to_path_buf(),
    });
    Ok(())
}

/// The longest name emdb gives a file of its own beside a database, past
/// the database's name: `.enc.tmp.ckpt.auto.tmp` (the checkpoint an
/// encryption change's new file may write).
const LONGEST_SUFFIX: usize = ".enc.tmp.ckpt.auto.tmp".len();

/// The longest file name (in bytes) a new database may have: one whose
/// name leaves no room, within a file name's 255 bytes, for the files emdb
/// makes beside it would be created and written, and then fail every
/// compaction ("File name too long" on `<db>.compact.tmp`), encryption
/// change and repair.
pub const MAX_NEW_NAME_LEN: usize = 255 - LONGEST_SUFFIX;

/// `Err(Error::InvalidPath)` when nothing is at `path` and its file name
/// is longer than [`MAX_NEW_NAME_LEN`]: a writer opened through the
/// builder ([`crate::Emdb::open`] too) refuses to create such a database. An existing database passes, whatever its name.
pub fn check_new_name(path: &Path) -> Result<()> {
    let len = path.file_name().map_or(0, |n| n.len());
    if len <= MAX_NEW_NAME_LEN || std::fs::symlink_metadata(path).is_ok() {
        return Ok(());
    }
    Err(Error::InvalidPath {
        reason: format!(
            "the file name of {} is {len} bytes: a new database's name may be \
             {MAX_NEW_NAME_LEN} bytes at most, so that the files emdb names after it \
             (up to {LONGEST_SUFFIX} bytes longer) fit in a file name; choose a shorter name",
            path.display(),
        ),
    })
}

/// Rename `from` to `to` only if nothing is at `to`: where another
/// process may put a file at `to` meanwhile (two backups or exports to the
/// same new file), the second fails with `ErrorKind::AlreadyExists` and
/// the first one's file stays, instead of being replaced. Atomic like a
/// rename: `renameat2(RENAME_NOREPLACE)`, or, on a filesystem without it,
/// `link` then `unlink` of `from` (a crash between leaves both names on
/// the one complete file). Only on a filesystem with neither (FAT, some
/// FUSE mounts) is it a check followed by a rename, which a file created
/// between the two can still lose to.
// The one unsafe call here: the raw `renameat2` syscall.
#[allow(unsafe_code)]
pub fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            std::ffi::CString::new(p.as_os_str().as_bytes())
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
        };
        let (f, t) = (c(from)?, c(to)?);
        // SAFETY: renameat2 reads the two NUL-terminated paths, which live
        // (as `f` and `t`) for the whole call; it has no other memory
        // effects. The raw syscall needs no particular glibc version.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_renameat2,
                libc::AT_FDCWD,
                f.as_ptr(),
                libc::AT_FDCWD,
                t.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        // EINVAL: the filesystem has no RENAME_NOREPLACE; ENOSYS: the
        // kernel has no renameat2 (before 3.15).
        if !matches!(
            e.raw_os_error(),
            Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)
        ) {
            return Err(e);
        }
    }
    match std::fs::hard_link(from, to) {
        Ok(()) => {
            // The file is complete at `to` already: a temp name that
            // could not be removed is a leftover, not a failure.
            let _ = std::fs::remove_file(from);
            Ok(())
        }
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::EPERM | libc::EOPNOTSUPP | libc::ENOSYS)
            ) =>
        {
            // No hard links here: the best that is left.
            if std::fs::symlink_metadata(to).is_ok() {
                return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
            }
            std::fs::rename(from, to)
        }
        Err(e) => Err(e),
    }
}

/// [`rename_noreplace`], noted for the fault tests like [`rename`]; the
/// error is `Io` with `ErrorKind::AlreadyExists` when `to` exists.
pub(crate) fn rename_new(from: &Path, to: &Path, faults: Option<&Faults>) -> Result<()> {
    rename_noreplace(from, to).map_err(|e| Error::io("rename", Some(to), e))?;
    fault::note(faults, || FsEvent::Renamed {
        from: from.to_path_buf(),
        to: to.to_path_buf(),
    });
    Ok(())
}

/// The name the temp files of `tool` (`backup`, `export`, ...) writing
/// `target` in this process start with: `<target>.emdb-<tool>-<host>-<pid>`
/// (the host as letters, digits, `.` and `-`). The pid keeps processes
/// writing one target apart; the host says on which machine the pid means
/// something (a shared volume, NFS). [`remove_dead_process_temps`] finds
/// them again once their process is gone.
pub fn process_temp_base(target: &Path, tool: &str) -> PathBuf {
    sibling(
        target,
        &format!(".emdb-{tool}-{}-{}", host_tag(), std::process::id()),
    )
}

/// This machine's name as [`process_temp_base`] carries it.
fn host_tag() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String = name
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'))
        .collect();
    if name.is_empty() {
        "host".into()
    } else {
        name
    }
}

/// Remove the files [`process_temp_base`] named for `tool` writing
/// `target` (`<base>.tmp`, `<base>.fork`, ...) that processes of this
/// machine which are gone left: killed by a signal no handler sees
/// (SIGKILL), they were never removed, and as their names carry a pid no
/// later run writes over them. A live process's files, another machine's,
/// and directories are left alone.
pub fn remove_dead_process_temps(target: &Path, tool: &str) {
    let Some(name) = target.file_name() else {
        return;
    };
    let mut prefix = name.to_owned();
    prefix.push(format!(".emdb-{tool}-{}-", host_tag()));
    let prefix = prefix.as_encoded_bytes().to_vec();
    let Ok(entries) = std::fs::read_dir(parent_dir(target)) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(rest) = file.as_encoded_bytes().strip_prefix(prefix.as_slice()) else {
            continue;
        };
        // `<pid>.tmp`, `<pid>.fork`, `<pid>.fork.lock`, ...
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let Some(pid) = std::str::from_utf8(&rest[..digits])
            .ok()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !rest[digits..].starts_with(b".") {
            continue;
        }
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && pid != std::process::id() && !crate::lock::pid_alive(pid, None) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// `path` with `suffix` appended to its file name (`a.emdb` -> `a.emdb.lock`).
pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// `pread` as many bytes as the file has, up to `buf.len()`.
pub(crate) fn read_upto(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match std::os::unix::fs::FileExt::read_at(file, &mut buf[done..], at + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sibling_appends_to_the_file_name() {
        assert_eq!(
            sibling(Path::new("/a/b.emdb"), ".lock"),
            PathBuf::from("/a/b.emdb.lock")
        );
    }

    #[test]
    fn a_symlink_planted_at_a_temp_name_is_replaced_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let tmp = dir.path().join("f.tmp");
        std::os::unix::fs::symlink(&victim, &tmp).unwrap();
        let f = create_fresh(&tmp).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&f, b"new", 0).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&tmp).unwrap(), b"new");
        assert!(!std::fs::symlink_metadata(&tmp)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn the_lock_file_is_never_opened_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let sym = dir.path().join("sym.lock");
        std::os::unix::fs::symlink(&victim, &sym).unwrap();
        assert!(open_lock_file(&sym).is_err());
        let hard = dir.path().join("hard.lock");
        std::fs::hard_link(&victim, &hard).unwrap();
        assert!(open_lock_file(&hard).is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        open_lock_file(&dir.path().join("fresh.lock")).unwrap();
    }

    #[test]
    fn a_rename_that_must_not_replace_leaves_the_file_there() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, to) = (
            dir.path().join("a.tmp"),
            dir.path().join("b.tmp"),
            dir.path().join("to"),
        );
        std::fs::write(&a, b"first").unwrap();
        std::fs::write(&b, b"second").unwrap();
        rename_noreplace(&a, &to).unwrap();
        let e = rename_noreplace(&b, &to).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&to).unwrap(), b"first");
        assert!(!a.exists());
        assert_eq!(std::fs::read(&b).unwrap(), b"second");
    }
}
