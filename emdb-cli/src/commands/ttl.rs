//! `emdb ttl KEY`, `emdb expire KEY DURATION`, `emdb persist KEY`.

use std::time::{Duration, SystemTime};

use emdb_tools::space::unix_ms;

use crate::cli::{ExpireArgs, KeyArgs};
use crate::database::Session;
use crate::error::CliResult;
use crate::output::{ExpiryReport, Ui};

/// Print the time left before a key expires, or `no expiry`.
pub fn ttl(args: &KeyArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let key = ui.codec.key_arg(&args.key)?;
    let Some(expires) = s.read_one_expiry(&key)? else {
        return Err(ui.key_not_found(&key));
    };
    let now = SystemTime::now();
    let left = expires.map(|t| t.duration_since(now).unwrap_or_default());
    let at = expires.map(unix_ms);
    if ui.json {
        let report = ExpiryReport {
            key: ui.record(&key, None),
            ttl_ms: left.map(millis),
            expires_at_ms: at,
            changed: None,
        };
        return ui.json_line(&report);
    }
    // The answer asked for: printed even when quiet.
    ui.line(&left.map_or_else(|| "no expiry".into(), seconds))
}

/// Give a key a new lifetime.
pub fn expire(args: &ExpireArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let key = ui.codec.key_arg(&args.key)?;
    let set = s.write_keys("expire", false, &[&key], |w| {
        Ok(match w.expire(&key, args.duration)? {
            true => Some(w.expires_at(&key)?),
            false => None,
        })
    })?;
    let Some(at) = set else {
        return Err(ui.key_not_found(&key));
    };
    let report = ExpiryReport {
        key: ui.record(&key, None),
        ttl_ms: Some(millis(args.duration)),
        expires_at_ms: at.map(unix_ms),
        changed: Some(true),
    };
    let text = format!(
        "key {} expires in {}",
        ui.quoted_key(&key),
        seconds(args.duration)
    );
    ui.report(&text, &report)
}

/// Remove a key's expiry (nothing is written when it has none).
pub fn persist(args: &KeyArgs, s: &mut Session, ui: &mut Ui) -> CliResult {
    let key = ui.codec.key_arg(&args.key)?;
    // `None`: not live; else whether it had an expiry (nothing is written
    // when it had none).
    let had = s.write_keys("persist", false, &[&key], |w| {
        if !w.contains(&key)? {
            return Ok(None);
        }
        let had_expiry = w.expires_at(&key)?.is_some();
        // False: it expired between the two calls.
        Ok((!had_expiry || w.persist(&key)?).then_some(had_expiry))
    })?;
    let Some(had_expiry) = had else {
        return Err(ui.key_not_found(&key));
    };
    let report = ExpiryReport {
        key: ui.record(&key, None),
        ttl_ms: None,
        expires_at_ms: None,
        changed: Some(had_expiry),
    };
    let shown = ui.quoted_key(&key);
    let text = if had_expiry {
        format!("key {shown} no longer expires")
    } else {
        format!("key {shown} had no expiry; nothing changed")
    };
    ui.report(&text, &report)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// `29.874s`: seconds with millisecond precision.
pub fn seconds(d: Duration) -> String {
    let ms = millis(d);
    format!("{}.{:03}s", ms / 1000, ms % 1000)
}
