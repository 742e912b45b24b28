//! Small filesystem helpers: directory fsync and atomic file replacement.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fault::{self, Faults, FsEvent};

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
}
