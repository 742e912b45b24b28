//! Target `log_replay`: open's recovery over a whole log image, plain and
//! salvage (docs/FORMAT.md, "Recovery"), through `fuzzing::replay_log`.
//!
//! The input is a recipe for a log the engine could have written: a header
//! page with sync slots, then units (single frames and batches) that keep
//! namespaces consistent (created before use, never used after a drop),
//! zeros or garbage past the end, and then damage: flipped bits, cuts, zeroed
//! ranges. Some recipes add what the engine never writes on its own: frames
//! naming unknown namespaces ("wild"), batches whose header lies, and Put
//! values that *contain* a CRC-valid frame (a user may store any bytes, for
//! instance a copy of another database).
//!
//! Checks, see [`check`]: no panic; a recovered end lies within the file;
//! when plain recovery succeeds salvage agrees; salvage succeeds on every log
//! without wild frames; an undamaged log recovers to exactly its end (or is
//! corruption when its sync slot claims more than the file holds); recovery
//! of its own output is a no-op; and a frame appended after the recovered end
//! is found by the next recovery.

use arbitrary::Unstructured;
use emdb_core::fuzzing::replay_log;

use crate::header::{identity_page, put_slot, slot};
use crate::{
    apply_damage, batch_value, pick_bytes, pick_damage, pick_expiry, pick_parts, Damage, Kind,
    Parts, HEADER_SIZE,
};

/// What the recipe built, for the checks.
#[derive(Debug, Default)]
pub struct Recipe {
    /// End of the last unit written (before trailing bytes and damage).
    pub logical_end: u64,
    /// `durable_end` of the newest valid sync slot as written (0 if none).
    pub durable_end: u64,
    /// Some frame names a namespace that does not exist at that point.
    pub wild: bool,
    /// Some unit is CRC-valid but not a valid unit (a batch header that does
    /// not match its body, a frame whose fields break its kind's rules).
    pub invalid_unit: bool,
    /// Only zeros follow the last unit.
    pub zero_tail: bool,
    /// Damage was applied (to the records or to the header page).
    pub damaged: bool,
}

/// Run one input, strict when `EMDB_FUZZ_STRICT=1`.
pub fn run(data: &[u8]) {
    run_mode(data, crate::strict_from_env());
}

/// Run one input in strict mode: frames inside Put values may be sealed.
/// Salvage then fails when it resyncs into such a value (an open finding,
/// docs/RELIABILITY-fuzz.md), so the default mode leaves them plain.
pub fn run_strict(data: &[u8]) {
    run_mode(data, true);
}

fn run_mode(data: &[u8], strict: bool) {
    let mut u = Unstructured::new(data);
    let (bytes, recipe) = build(&mut u, strict);
    check(&bytes, &recipe);
}

/// Namespaces as the log defines them so far.
struct Namespaces {
    live: Vec<u32>,
    next_id: u32,
}

impl Namespaces {
    fn pick(&self, u: &mut Unstructured<'_>) -> u32 {
        u.choose(&self.live).copied().unwrap_or(0)
    }
}

/// A short key, often from a small set so that keys repeat.
fn pick_key(u: &mut Unstructured<'_>) -> Vec<u8> {
    if u.ratio(1u8, 2).unwrap_or(true) {
        vec![b'k', u.int_in_range(b'0'..=b'7').unwrap_or(b'0')]
    } else {
        pick_bytes(u, 24)
    }
}

/// A frame built byte by byte, independent of the engine's encoder: any
/// tag (sealed too, if `sealed`), fields from the input, a correct CRC.
fn raw_frame(u: &mut Unstructured<'_>, sealed: bool) -> Vec<u8> {
    let mut tag: u8 = u.arbitrary().unwrap_or(1);
    if u.ratio(3u8, 4).unwrap_or(true) {
        // Mostly a known kind without reserved bits.
        tag = (tag & 0x70) | u.int_in_range(1u8..=6).unwrap_or(1);
    }
    if !sealed {
        tag &= !0x40;
    }
    let mut f = vec![0u8; 4];
    f.push(tag);
    if tag & 0x10 != 0 {
        push_varint(&mut f, u64::from(u.int_in_range(0u32..=300).unwrap_or(1)));
    }
    if tag & 0x20 != 0 {
        f.extend_from_slice(&pick_expiry(u).to_le_bytes());
    }
    if tag & 0x40 != 0 {
        // Sealed: payload length, then nonce, ciphertext and AEAD tag.
        let n = u.int_in_range(20usize..=80).unwrap_or(28);
        push_varint(&mut f, n as u64);
        let payload = pick_bytes(u, n);
        f.extend_from_slice(&payload);
        f.resize(f.len() + (n - payload.len()), 0xAA);
    } else {
        let key = pick_key(u);
        let value = pick_bytes(u, 24);
        push_varint(&mut f, key.len() as u64);
        push_varint(&mut f, value.len() as u64);
        f.extend_from_slice(&key);
        f.extend_from_slice(&value);
    }
    let crc = crc32fast::hash(&f[4..]);
    f[..4].copy_from_slice(&crc.to_le_bytes());
    f
}

fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put(ns: u32, key: Vec<u8>, value: Vec<u8>, expires_at: u64) -> Parts {
    Parts {
        kind: Kind::Put,
        ns,
        expires_at,
        key,
        value,
    }
}

/// Build a log image from the input (`strict`: see [`run_strict`]).
pub fn build(u: &mut Unstructured<'_>, strict: bool) -> (Vec<u8>, Recipe) {
    let mut r = Recipe::default();
    let mut page = identity_page(u);
    let mut ns = Namespaces {
        live: vec![0],
        next_id: 1,
    };
    let mut log = Vec::new();
    let mut ends = vec![HEADER_SIZE as u64];
    let units = u.int_in_range(0u8..=24).unwrap_or(0);
    for _ in 0..units {
        let unit: Vec<u8> = match u.int_in_range(0u8..=11).unwrap_or(0) {
            0..=3 => put(ns.pick(u), pick_key(u), pick_bytes(u, 40), pick_expiry(u)).encode(),
            4 => Parts {
                kind: Kind::Delete,
                ns: ns.pick(u),
                expires_at: 0,
                key: pick_key(u),
                value: Vec::new(),
            }
            .encode(),
            5 => {
                // A wild NamespaceCreate may have taken the last id.
                let id = ns.next_id;
                ns.next_id = ns.next_id.saturating_add(1);
                ns.live.push(id);
                let mut name = pick_bytes(u, 12);
                if name.is_empty() {
                    name.push(b'n');
                }
                Parts {
                    kind: Kind::NamespaceCreate,
                    ns: id,
                    expires_at: 0,
                    key: name,
                    value: Vec::new(),
                }
                .encode()
            }
            6 => {
                let id = ns.pick(u);
                let drop = id != 0 && u.arbitrary().unwrap_or(false);
                if drop {
                    ns.live.retain(|&n| n != id);
                }
                Parts {
                    kind: if drop {
                        Kind::NamespaceDrop
                    } else {
                        Kind::Clear
                    },
                    ns: id,
                    expires_at: 0,
                    key: Vec::new(),
                    value: Vec::new(),
                }
                .encode()
            }
            7 | 8 => {
                let n = u.int_in_range(0u8..=6).unwrap_or(1);
                let mut body = Vec::new();
                for _ in 0..n {
                    let (id, key) = (ns.pick(u), pick_key(u));
                    let p = if u.ratio(3u8, 4).unwrap_or(true) {
                        put(id, key, pick_bytes(u, 24), pick_expiry(u))
                    } else {
                        Parts {
                            kind: Kind::Delete,
                            ns: id,
                            expires_at: 0,
                            key,
                            value: Vec::new(),
                        }
                    };
                    body.extend_from_slice(&p.encode());
                }
                let (mut count, mut len) = (u64::from(n), body.len() as u64);
                if u.ratio(1u8, 8).unwrap_or(false) {
                    r.invalid_unit = true;
                    match u.int_in_range(0u8..=3).unwrap_or(0) {
                        0 => count = count.wrapping_add(1),
                        1 => count = count.wrapping_sub(1),
                        2 => len = len.wrapping_add(u64::from(u.arbitrary::<u8>().unwrap_or(1))),
                        _ => len = u.arbitrary().unwrap_or(u64::MAX),
                    }
                }
                let mut b = Parts {
                    kind: Kind::BatchBegin,
                    ns: 0,
                    expires_at: 0,
                    key: Vec::new(),
                    value: batch_value(count, len),
                }
                .encode();
                b.extend_from_slice(&body);
                b
            }
            9 | 10 => {
                // A user value that holds a valid frame somewhere inside.
                let mut value = pick_bytes(u, 8);
                let inner = if u.arbitrary().unwrap_or(false) {
                    raw_frame(u, strict)
                } else {
                    pick_parts(u).encode()
                };
                value.extend_from_slice(&inner);
                value.extend_from_slice(&pick_bytes(u, 8));
                put(ns.pick(u), pick_key(u), value, 0).encode()
            }
            11 if u.ratio(1u8, 4).unwrap_or(false) => {
                // A frame on its own that may be sealed, in a plain log.
                r.wild = true;
                r.invalid_unit = true;
                raw_frame(u, true)
            }
            _ => {
                let p = pick_parts(u);
                let known = match p.kind {
                    Kind::BatchBegin | Kind::NamespaceCreate => true,
                    Kind::NamespaceDrop => p.ns != 0 && ns.live.contains(&p.ns),
                    _ => ns.live.contains(&p.ns),
                };
                r.wild |= !known;
                r.invalid_unit |= p.kind == Kind::BatchBegin || !p.valid();
                if p.kind == Kind::NamespaceCreate && p.valid() && !ns.live.contains(&p.ns) {
                    ns.live.push(p.ns);
                    ns.next_id = ns.next_id.max(p.ns.saturating_add(1));
                }
                if p.kind == Kind::NamespaceDrop && p.valid() && p.ns != 0 {
                    ns.live.retain(|&n| n != p.ns);
                }
                p.encode()
            }
        };
        log.extend_from_slice(&unit);
        ends.push(HEADER_SIZE as u64 + log.len() as u64);
    }
    r.logical_end = HEADER_SIZE as u64 + log.len() as u64;

    // Sync slots: the newest one says how far the log was durable.
    let durable = match u.int_in_range(0u8..=5).unwrap_or(0) {
        0 => None,
        1 | 2 => u.choose(&ends).ok().copied(),
        3 => Some(r.logical_end + u64::from(u.int_in_range(1u16..=600).unwrap_or(1))),
        4 => Some(HEADER_SIZE as u64 + u64::from(u.arbitrary::<u16>().unwrap_or(0))),
        _ => Some(u.arbitrary().unwrap_or(0)),
    };
    if let Some(end) = durable {
        let seq = u.int_in_range(1u64..=1000).unwrap_or(1);
        let newer = usize::from(u.arbitrary::<bool>().unwrap_or(false));
        put_slot(&mut page, newer, &slot(seq, end, 0));
        r.durable_end = end;
        match u.int_in_range(0u8..=2).unwrap_or(0) {
            // An older slot behind it.
            0 => {
                let older_end = end.min(u.arbitrary().unwrap_or(0));
                put_slot(&mut page, 1 - newer, &slot(seq - 1, older_end, 0));
            }
            // A torn slot write: garbage with a bad CRC.
            1 => {
                let mut s = slot(seq + 1, u.arbitrary().unwrap_or(0), 0);
                s[24] ^= 1;
                put_slot(&mut page, 1 - newer, &s);
            }
            _ => {}
        }
    }

    let mut bytes = page;
    bytes.extend_from_slice(&log);
    r.zero_tail = u.ratio(3u8, 4).unwrap_or(true);
    if r.zero_tail {
        let n = usize::from(u.int_in_range(0u16..=700).unwrap_or(0));
        bytes.resize(bytes.len() + n, 0);
    } else {
        bytes.extend_from_slice(&pick_bytes(u, 64));
    }

    let damage = pick_damage(u, 6);
    r.damaged = !damage.is_empty();
    apply_damage(&mut bytes, HEADER_SIZE, &damage);
    if u.ratio(1u8, 16).unwrap_or(false) {
        // Now and then hit the header page, sync slots included.
        let mut d = pick_damage(u, 2);
        d.retain(|d| !matches!(d, Damage::Cut(_)));
        r.damaged |= !d.is_empty();
        let mut head = bytes[..HEADER_SIZE].to_vec();
        apply_damage(&mut head, 0, &d);
        bytes[..HEADER_SIZE].copy_from_slice(&head);
    }
    (bytes, r)
}

/// Replay `bytes` and check the rules in the module docs.
pub fn check(bytes: &[u8], r: &Recipe) {
    let (plain, salvage) = replay_log(bytes);
    let len = bytes.len() as u64;
    for end in [plain, salvage].into_iter().flatten() {
        assert!(
            (HEADER_SIZE as u64..=len).contains(&end),
            "recovered end {end} outside the file ({len} bytes)"
        );
    }
    if plain.is_some() {
        assert_eq!(salvage, plain, "salvage disagrees with a clean replay");
    }
    if !r.wild {
        assert!(
            salvage.is_some(),
            "salvage failed on a log of {len} bytes without wild frames ({r:?})"
        );
    }
    if !r.wild && !r.invalid_unit && !r.damaged && r.zero_tail {
        if r.durable_end <= r.logical_end {
            assert_eq!(plain, Some(r.logical_end), "undamaged log ({r:?})");
        } else {
            assert_eq!(
                plain, None,
                "sync slot claims more than the file holds ({r:?})"
            );
            assert_eq!(
                salvage,
                Some(r.logical_end),
                "undamaged log, salvage ({r:?})"
            );
        }
    }
    if let Some(end) = plain {
        let end = end as usize;
        // Recovery of its own output changes nothing.
        assert_eq!(
            replay_log(&bytes[..end]).0,
            Some(end as u64),
            "recovery is not idempotent"
        );
        // The engine cuts the file at `end` and appends there: the next
        // recovery must find the new frame.
        let mut next = bytes[..end].to_vec();
        let frame = put(0, b"after".to_vec(), b"recovery".to_vec(), 0).encode();
        next.extend_from_slice(&frame);
        assert_eq!(
            replay_log(&next).0,
            Some((end + frame.len()) as u64),
            "a frame appended after recovery was not found"
        );
    }
}
