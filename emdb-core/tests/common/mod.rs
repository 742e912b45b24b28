//! Helpers shared by the integration suites (model, crash, corruption).

#![allow(dead_code)]

pub mod mount;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use emdb_core::Emdb;

/// Contents of a database as a sorted map.
pub type Contents = BTreeMap<Vec<u8>, Vec<u8>>;

/// `path` with `suffix` appended to its file name (`a.emdb` -> `a.emdb.ckpt`).
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// The checkpoint file of a database (docs/FORMAT.md).
pub fn ckpt_path(db: &Path) -> PathBuf {
    sibling(db, ".ckpt")
}

/// Compaction's temporary file of a database (docs/FORMAT.md).
pub fn compact_tmp_path(db: &Path) -> PathBuf {
    sibling(db, ".compact.tmp")
}

/// Remove a file if it exists.
pub fn remove_if_exists(p: &Path) {
    match std::fs::remove_file(p) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => panic!("remove {}: {e}", p.display()),
    }
}

/// Every pair `iter()` yields, failing on an error item or a duplicate key.
pub fn contents(db: &Emdb) -> Contents {
    let mut out = Contents::new();
    for item in db.iter().expect("iter") {
        let (k, v) = item.expect("iter item");
        if let Some(old) = out.insert(k.clone(), v) {
            panic!(
                "iter yielded key {} twice (first value {} bytes)",
                show(&k),
                old.len()
            );
        }
    }
    out
}

/// A short printable form of a byte string for assertion messages.
pub fn show(b: &[u8]) -> String {
    if b.len() <= 40 && b.iter().all(|c| c.is_ascii_graphic() || *c == b' ') {
        format!("{:?}", String::from_utf8_lossy(b))
    } else {
        let head: Vec<String> = b.iter().take(12).map(|c| format!("{c:02x}")).collect();
        format!("<{} bytes: {}..>", b.len(), head.join(""))
    }
}

/// The first few differences between two contents, for failure messages.
pub fn diff(actual: &Contents, expected: &Contents) -> String {
    let mut lines = Vec::new();
    for (k, v) in expected {
        match actual.get(k) {
            None => lines.push(format!("missing {}", show(k))),
            Some(a) if a != v => lines.push(format!(
                "wrong value for {}: got {}, want {}",
                show(k),
                show(a),
                show(v)
            )),
            _ => {}
        }
    }
    for k in actual.keys() {
        if !expected.contains_key(k) {
            lines.push(format!("unexpected key {}", show(k)));
        }
    }
    let n = lines.len();
    lines.truncate(12);
    if n > 12 {
        lines.push(format!("... and {} more", n - 12));
    }
    lines.join("\n")
}

/// SplitMix64: a tiny deterministic generator, enough for test data.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A seed from the environment variable `name`, or from the clock.
    /// Printed so a failing run can be repeated.
    pub fn from_env(name: &str) -> Rng {
        let seed = std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        eprintln!("{name}={seed}");
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

/// The SplitMix64 finaliser: a good 64-bit mixing function.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A positive number from the environment, or `default`.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}
