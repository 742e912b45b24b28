//! Small filesystem helpers: directory fsync and atomic file replacement.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fault::{self, Faults, FsEvent, WriteSite};

/// Open options for files the engine creates: owner read/write only.
pub(crate) fn create_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(true).write(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o
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

/// `path` with `suffix` appended to its file name (`a.emdb` -> `a.emdb.lock`).
pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// Write `bytes` to `path` atomically: temp file, fsync, rename, fsync
/// directory. On failure the temp file is removed (on a full disk it holds
/// space) and `path` is untouched, unless the failure is the final
/// directory fsync.
pub(crate) fn atomic_write(
    path: &Path,
    bytes: &[u8],
    faults: Option<&Faults>,
    site: WriteSite,
) -> Result<()> {
    let tmp = sibling(path, ".tmp");
    let written = (|| {
        let f = create_options()
            .truncate(true)
            .open(&tmp)
            .map_err(|e| Error::io("create", Some(&tmp), e))?;
        fault::write_all_at(faults, site, &f, bytes, 0)
            .map_err(|e| Error::io("write", Some(&tmp), e))?;
        f.sync_all()
            .map_err(|e| Error::io("fsync", Some(&tmp), e))?;
        fault::note(faults, || FsEvent::Synced(tmp.clone()));
        rename(&tmp, path, faults)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    fsync_parent(path, faults)
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
    fn atomic_write_replaces_content() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        atomic_write(&p, b"one", None, WriteSite::Checkpoint).unwrap();
        atomic_write(&p, b"two", None, WriteSite::Checkpoint).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert!(!sibling(&p, ".tmp").exists());
    }
}
