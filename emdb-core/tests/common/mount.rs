//! Mounting a scratch filesystem for a test (tmpfs, or btrfs on a loop
//! device), unmounted when dropped; a test that cannot mount prints why
//! and skips.

use std::path::Path;
use std::process::Command;

/// A mounted filesystem, unmounted when dropped (also on panic).
pub struct Mount {
    dir: tempfile::TempDir,
    _image: Option<tempfile::TempDir>,
}

impl Mount {
    /// Mount a tmpfs of `size` (`4m`, `16m`) on a fresh directory, or say
    /// why not.
    pub fn tmpfs(size: &str) -> Result<Mount, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        run(Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir.path()))?;
        Ok(Mount { dir, _image: None })
    }

    /// Make a 128 MiB btrfs image and mount it on a loop device, or say
    /// why not (`mkfs.btrfs` from btrfs-progs, permission to mount).
    pub fn btrfs() -> Result<Mount, String> {
        let image_dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let image = image_dir.path().join("btrfs.img");
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(128 << 20))
            .map_err(|e| e.to_string())?;
        run(Command::new("mkfs.btrfs").args(["-q", "-f"]).arg(&image))?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        run(Command::new("mount")
            .args(["-t", "btrfs", "-o", "loop"])
            .arg(&image)
            .arg(dir.path()))?;
        Ok(Mount {
            dir,
            _image: Some(image_dir),
        })
    }

    /// Where it is mounted.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        // A closed database's stats thread may hold its file for a moment.
        for _ in 0..40 {
            let done = Command::new("umount")
                .arg(self.dir.path())
                .stderr(std::process::Stdio::null())
                .status();
            if done.is_ok_and(|s| s.success()) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        // Still busy (a panic left a handle open): detach it anyway.
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
