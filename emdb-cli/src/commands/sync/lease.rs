//! The lease that keeps one `emdb sync` per database and target: the key
//! `emdb-sync-lease:{emdb-sync-cursor:<db id in hex>}` holds
//! `<host>:<pid>:<random>` of the sync that runs, with an expiry of
//! [`TTL`]. A sync takes it at start (and again after each reconnection),
//! renews it every [`RENEW`] and deletes it when it ends; a sync that finds
//! another process's lease stops (exit 2) naming it. Two syncs into one
//! target each saw the cursor change under them and copied everything
//! again, wiping the target over and over. A killed sync's lease expires
//! after [`TTL`]; one left by a process of this host that no longer runs
//! is taken over at once.
//!
//! The hash tag puts the lease in the cluster slot of the cursor key, so
//! both live on one master.

use std::hash::{BuildHasher, RandomState};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use redis::RedisResult;

use super::target::Target;

/// Prefix of every lease key; `emdb sync` never deletes other syncs' leases.
pub const KEY_PREFIX: &[u8] = b"emdb-sync-lease:";

/// How often a running sync renews its lease.
pub const RENEW: Duration = Duration::from_secs(2);
/// How long a lease lives without renewal: a killed sync's lease is gone
/// after this.
pub const TTL: Duration = Duration::from_secs(10);

/// The lease of one sync (it holds its own connection to the target).
pub struct Lease {
    target: Target,
    key: Vec<u8>,
    token: String,
    /// When it was last taken or renewed (`None`: not held).
    renewed: Option<Instant>,
}

impl Lease {
    /// The lease of database `cursor_key`'s sync into `target` (not taken yet).
    pub fn new(target: Target, cursor_key: &[u8]) -> Lease {
        let mut key = KEY_PREFIX.to_vec();
        key.push(b'{');
        key.extend_from_slice(cursor_key);
        key.push(b'}');
        Lease {
            target,
            key,
            token: token(),
            renewed: None,
        }
    }

    /// Take the lease, or renew it: `Ok(Err(holder))` when another process
    /// holds it (one of this host that no longer runs does not count).
    pub fn take(&mut self) -> RedisResult<Result<(), String>> {
        let ttl = TTL.as_millis() as u64;
        let mut found = self
            .target
            .lease(&self.key, self.token.as_bytes(), ttl, None)?;
        if let Some(other) = found.as_deref().filter(|o| gone(o)) {
            let other = other.to_vec();
            found = self
                .target
                .lease(&self.key, self.token.as_bytes(), ttl, Some(&other))?;
        }
        match found {
            None => {
                self.renewed = Some(Instant::now());
                Ok(Ok(()))
            }
            Some(other) => {
                self.renewed = None;
                Ok(Err(String::from_utf8_lossy(&other).into_owned()))
            }
        }
    }

    /// True when the lease is held and due for renewal.
    pub fn due(&self) -> bool {
        self.renewed.is_some_and(|t| t.elapsed() >= RENEW)
    }

    /// Delete the lease if this process holds it (best effort: one that
    /// cannot be deleted expires after [`TTL`]).
    pub fn release(&mut self) {
        if self.renewed.take().is_some() {
            let _ = self.target.unlease(&self.key, self.token.as_bytes());
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.release();
    }
}

/// This host's name, as leases record it.
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

/// True when lease value `holder` names a process of this host that no
/// longer runs (a sync killed before it could delete its lease).
fn gone(holder: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(holder) else {
        return false;
    };
    let mut f = text.rsplitn(3, ':');
    let (Some(_), Some(pid), Some(host)) = (f.next(), f.next(), f.next()) else {
        return false;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    host == self::host()
        && pid != std::process::id()
        && std::path::Path::new("/proc/self").exists()
        && !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// `<host>:<pid>:<random hex>`.
fn token() -> String {
    let host = host();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let random = RandomState::new().hash_one((nanos, std::process::id()));
    format!("{host}:{}:{random:016x}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::sync::resp::slot;

    #[test]
    fn the_lease_shares_the_cursor_slot() {
        let target = Target::new(&["redis://127.0.0.1:1".to_string()], false).unwrap();
        let cursor = b"emdb-sync-cursor:00112233445566778899aabbccddeeff";
        let lease = Lease::new(target, cursor);
        assert!(lease.key.starts_with(KEY_PREFIX));
        assert_eq!(slot(&lease.key), slot(cursor));
        let t = &lease.token;
        assert!(t.contains(&format!(":{}:", std::process::id())), "{t}");
        assert!(!t.contains(char::is_whitespace), "{t}");
        assert!(!gone(t.as_bytes()));
        let dead = format!("{}:{}:00", host(), u32::MAX - 1);
        assert!(gone(dead.as_bytes()));
        assert!(!gone(
            format!("another-host.invalid:{}:00", u32::MAX - 1).as_bytes()
        ));
    }
}
