//! `emdb incr KEY` and `emdb decr KEY`: atomic counters.
//!
//! The read, the addition and the write are one transaction, and the
//! process holds the writer lock for all of it, so no other `emdb` (or
//! application) can write in between: parallel increments never lose one.

use emdb_core::Ttl;

use crate::cli::IncrArgs;
use crate::database::Session;
use crate::error::{CliError, CliResult, Kind};
use crate::output::Ui;

/// Add `sign * --by` to the integer at KEY and print the new value.
pub fn run(args: &IncrArgs, sign: i64, s: &mut Session, ui: &mut Ui) -> CliResult {
    let what = if sign < 0 { "decr" } else { "incr" };
    let key = ui.codec.key_arg(&args.key)?;
    let delta = args
        .by
        .checked_mul(sign)
        .ok_or_else(|| CliError::bad_input(format!("--by {} cannot be negated", args.by)))?;
    let outcome = s.write_keys(what, true, &[&key], |w| {
        // The expiry of the key, read under the same lock, is kept.
        let ttl = match w.expires_at(&key)? {
            Some(at) => Ttl::At(at),
            None => Ttl::Never,
        };
        w.transaction(|tx| {
            let old = tx.get(&key)?;
            let next = match old.as_deref().map(parse_integer) {
                None => Ok(delta),
                Some(Ok(n)) => n.checked_add(delta).ok_or(Refusal::Overflow(n)),
                Some(Err(())) => Err(Refusal::NotAnInteger),
            };
            if let Ok(n) = next {
                tx.insert(&key, n.to_string().as_bytes(), ttl)?;
            }
            Ok(next)
        })
    })?;
    let n = match outcome {
        Ok(n) => n,
        Err(Refusal::NotAnInteger) => {
            return Err(CliError::bad_input(
                "the value is not a decimal integer; nothing was changed",
            )
            .hint(
                "incr/decr work on values such as 42 or -7: a 64-bit signed integer in \
                 decimal, without `+`, leading zeros or spaces (as Redis's INCR)",
            ));
        }
        Err(Refusal::Overflow(n)) => {
            return Err(CliError::bad_input(format!(
                "{n} {} {} would leave the 64-bit integer range; nothing was changed",
                if delta < 0 { "-" } else { "+" },
                delta.unsigned_abs()
            )));
        }
    };
    // Committed already: a failure to print must not look like one to retry.
    let printed = ui
        .line(&n.to_string())
        .and_then(|()| ui.out.flush().map_err(CliError::stdout));
    printed.map_err(|e| {
        if e.kind == Kind::BrokenPipe {
            return e;
        }
        e.hint(format!(
            "the value was changed to {n}; only printing it failed, so running the command \
             again would change it again"
        ))
    })
}

/// Why a counter was left alone.
enum Refusal {
    NotAnInteger,
    Overflow(i64),
}

/// A decimal i64 as stored by `incr`, read as strictly as Redis's INCR
/// reads one: see [`parse_strict`].
fn parse_integer(bytes: &[u8]) -> Result<i64, ()> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(parse_strict)
        .ok_or(())
}

/// The canonical decimal form of an i64 and nothing else: an optional `-`
/// and digits, no leading zero (but `0` itself), no `-0`, no `+`, no
/// spaces. Rust's `parse` would also take `+5` and `05`, which Redis
/// refuses, and a counter must mean the same in both.
pub fn parse_strict(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let canonical = match digits.as_bytes() {
        [] => false,
        [b'0'] => digits.len() == text.len(),
        [b'0', ..] => false,
        d => d.iter().all(u8::is_ascii_digit),
    };
    if !canonical {
        return None;
    }
    // Out of range still fails here.
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_parse_strictly() {
        assert_eq!(parse_integer(b"42"), Ok(42));
        assert_eq!(parse_integer(b"-7"), Ok(-7));
        assert!(parse_integer(b" 1").is_err());
        assert!(parse_integer(b"1\n").is_err());
        assert!(parse_integer(b"").is_err());
        assert!(parse_integer(b"1.5").is_err());
        assert!(parse_integer(b"99999999999999999999").is_err());
        assert_eq!(parse_integer(b"0"), Ok(0));
        assert_eq!(parse_integer(b"-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(parse_integer(b"9223372036854775807"), Ok(i64::MAX));
        for refused in [
            &b"+5"[..],
            b"05",
            b"-0",
            b"00",
            b"-05",
            b"-",
            b"+",
            b"5 ",
            b"--5",
            b"0x1f",
            b"\xff",
            b"9223372036854775808",
        ] {
            assert!(parse_integer(refused).is_err(), "{refused:?}");
        }
    }
}
