//! Target `import_resp`: the RESP import parser of `emdb import --format
//! resp` (emdb-cli/src/transfer/resp.rs), with the CLI's exporter.
//!
//! The first byte picks a mode:
//! - raw: the bytes as they are, read with encodings from the mode byte;
//! - round trip: an export built from the input (binary keys and values,
//!   namespaces, expiries, all three encodings) is written by the CLI's
//!   writer, which must produce exactly the commands this module writes from
//!   the format's description (module docs of resp.rs), and read back as
//!   the same records; then cut at any byte: a cut between commands reads
//!   the commands before it, a cut inside one is an error;
//! - equivalent: the same export written in ways the format allows (command
//!   and option names in any case, `EXAT` for whole seconds, other `ECHO`s,
//!   repeated namespace markers) reads as the same records;
//! - broken: one command of the export is made invalid (a declared length
//!   past the input or short of its string, up to `$999999999999` and
//!   beyond `u64`; lengths with signs or junk; a wrong part count; lost
//!   `\r\n`; another command; a bad expiry option or number; a key outside
//!   the namespace of its marker; undecodable hex or base64; a newer header)
//!   and must be an error, after the records of the commands before it;
//! - damaged: bit flips, cuts and overwritten bytes anywhere; the records of
//!   the commands before the first damaged byte come back unchanged.
//!
//! Every input also gets the checks of [`crate::transfer::read`] and
//! [`crate::transfer::check_stable`].

use arbitrary::Unstructured;
use emdb_cli::{Encoding, TransferFormat};

use crate::transfer::{self as t, Export};

const FORMAT: TransferFormat = TransferFormat::Resp;

/// Largest bulk string the reader takes (a value limit plus base64 growth).
pub const MAX_BULK: u64 = (256 << 20) / 3 * 4 + 4;

/// One RESP command, with how it is written.
#[derive(Clone, Debug)]
pub struct Cmd {
    /// Bulk strings.
    pub parts: Vec<Vec<u8>>,
    /// The index of the record it carries, for a `SET`.
    pub record: Option<usize>,
    /// The namespace it switches to, for a namespace marker.
    pub marker: Option<String>,
    /// The array header's text after `*`, when not the part count.
    pub count: Option<Vec<u8>>,
    /// Each bulk header's text after `$`, when not the length.
    pub lens: Vec<Option<Vec<u8>>>,
    /// The terminator after the array header.
    pub head_end: Vec<u8>,
    /// The terminator after each bulk header and after each bulk string.
    pub ends: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Cmd {
    fn new(parts: Vec<Vec<u8>>, record: Option<usize>) -> Cmd {
        let n = parts.len();
        Cmd {
            parts,
            record,
            marker: None,
            count: None,
            lens: vec![None; n],
            head_end: b"\r\n".to_vec(),
            ends: vec![(b"\r\n".to_vec(), b"\r\n".to_vec()); n],
        }
    }

    fn marker(ns: &str) -> Cmd {
        let mut c = Cmd::new(vec![b"ECHO".to_vec(), marker_json(ns)], None);
        c.marker = Some(ns.to_string());
        c
    }

    /// Where the string of part `p` starts in this command's bytes.
    fn data_offset(&self, p: usize) -> usize {
        let mut one = Vec::new();
        let mut only = self.clone();
        only.count = Some(
            self.count
                .clone()
                .unwrap_or_else(|| self.parts.len().to_string().into_bytes()),
        );
        only.parts.truncate(p + 1);
        only.parts[p].clear();
        only.ends[p].1.clear();
        only.write(&mut one);
        one.len()
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.push(b'*');
        match &self.count {
            Some(c) => out.extend_from_slice(c),
            None => out.extend_from_slice(self.parts.len().to_string().as_bytes()),
        }
        out.extend_from_slice(&self.head_end);
        for (i, p) in self.parts.iter().enumerate() {
            out.push(b'$');
            match &self.lens[i] {
                Some(l) => out.extend_from_slice(l),
                None => out.extend_from_slice(p.len().to_string().as_bytes()),
            }
            out.extend_from_slice(&self.ends[i].0);
            out.extend_from_slice(p);
            out.extend_from_slice(&self.ends[i].1);
        }
    }
}

fn marker_json(ns: &str) -> Vec<u8> {
    format!(
        "{{\"emdb_namespace\":{}}}",
        serde_json::to_string(ns).unwrap_or_default()
    )
    .into_bytes()
}

/// The commands of an export, from the format's description: an `ECHO` of
/// the header, then per record a namespace marker when the namespace
/// changes and `SET <ns>:<key> <value> [PXAT <ms>]`.
pub fn commands(exp: &Export) -> Vec<Cmd> {
    let mut cmds = vec![Cmd::new(vec![b"ECHO".to_vec(), t::header_json(exp)], None)];
    let mut ns = "";
    for (i, r) in exp.records.iter().enumerate() {
        if r.ns != ns {
            cmds.push(Cmd::marker(&r.ns));
            ns = &r.ns;
        }
        let mut key = Vec::new();
        if !r.ns.is_empty() {
            key.extend_from_slice(r.ns.as_bytes());
            key.push(b':');
        }
        key.extend_from_slice(&t::encoded(exp.codec.key, &r.key));
        let mut parts = vec![b"SET".to_vec(), key, t::encoded(exp.codec.value, &r.value)];
        if let Some(at) = r.expires_at_ms {
            parts.push(b"PXAT".to_vec());
            parts.push(at.to_string().into_bytes());
        }
        cmds.push(Cmd::new(parts, Some(i)));
    }
    cmds
}

/// The bytes of `cmds`, and where each command ends.
pub fn write(cmds: &[Cmd]) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let mut ends = Vec::new();
    for c in cmds {
        c.write(&mut out);
        ends.push(out.len());
    }
    (out, ends)
}

/// Where each record's command ends.
fn record_ends(cmds: &[Cmd], ends: &[usize]) -> Vec<usize> {
    cmds.iter()
        .zip(ends)
        .filter(|(c, _)| c.record.is_some())
        .map(|(_, &e)| e)
        .collect()
}

/// `exp` with its expiries as the RESP export writes them: capped at the
/// latest Redis holds (2^63-1 ms; emdb's are unsigned, Redis's signed).
fn capped(mut exp: Export) -> Export {
    for r in &mut exp.records {
        r.expires_at_ms = r.expires_at_ms.map(|at| at.min(i64::MAX as u64));
    }
    exp
}

/// Run one input (see [`t::run`] for the modes).
pub fn run(data: &[u8]) {
    let modes = t::Modes {
        round_trip,
        equivalent,
        broken,
        damaged,
    };
    t::run(FORMAT, &modes, data);
}

/// Write `exp` with the CLI, compare with [`commands`], read it back.
fn exported(exp: &Export) -> (Vec<Cmd>, Vec<u8>, Vec<usize>) {
    let bytes = t::export(FORMAT, exp);
    let cmds = commands(exp);
    let (spec, ends) = write(&cmds);
    assert!(
        bytes == spec,
        "the exporter's RESP differs from the format's description at byte {}",
        t::first_difference(&bytes, &spec)
    );
    let out = t::read_export(FORMAT, exp, &bytes);
    // Each record is read on the line its command starts on.
    let mut starts = vec![0];
    starts.extend_from_slice(&ends);
    for (c, &start) in cmds.iter().zip(&starts) {
        if let Some(i) = c.record {
            assert_eq!(
                out.records[i].line,
                t::line_of(&bytes, start),
                "line of record {i}"
            );
        }
    }
    (cmds, bytes, ends)
}

fn round_trip(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let exp = capped(t::pick_export(&mut u));
    let (cmds, bytes, ends) = exported(&exp);
    let cut = u.int_in_range(0..=bytes.len()).unwrap_or(0);
    let out = t::read(FORMAT, exp.codec, &bytes[..cut]);
    let whole = ends.iter().take_while(|&&e| e <= cut).count();
    let records = cmds[..whole].iter().filter(|c| c.record.is_some()).count();
    if cut == 0 || ends.contains(&cut) {
        assert!(
            out.error.is_none(),
            "cut between commands at {cut}: {}",
            out.message()
        );
    } else {
        assert!(
            out.error.is_some(),
            "cut inside a command at byte {cut} was accepted"
        );
    }
    assert_eq!(
        out.recs(),
        exp.records[..records],
        "records before a cut at {cut}"
    );
}

fn equivalent(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let exp = capped(t::pick_export(&mut u));
    let mut cmds = commands(&exp);
    let mut i = 0;
    while i < cmds.len() {
        match u.int_in_range(0u8..=7).unwrap_or(0) {
            // Command and option names in any case.
            0 | 1 => {
                let c = &mut cmds[i];
                let mask: u8 = u.arbitrary().unwrap_or(0);
                flip_case(&mut c.parts[0], mask);
                if c.parts.len() == 5 {
                    flip_case(&mut c.parts[3], mask.rotate_left(3));
                }
            }
            // PXAT on a whole second as EXAT.
            2 => {
                let c = &mut cmds[i];
                if let Some(at) = c.record.and_then(|r| exp.records[r].expires_at_ms) {
                    if at % 1000 == 0 {
                        c.parts[3] = b"EXAT".to_vec();
                        c.parts[4] = (at / 1000).to_string().into_bytes();
                    }
                }
            }
            // An ECHO of other text is answered by Redis and ignored here.
            3 => {
                let mut text = b"x".to_vec();
                text.extend_from_slice(&t::pick_blob(&mut u));
                if !text.windows(13).any(|w| w == b"\"emdb_export\"") {
                    cmds.insert(i, Cmd::new(vec![b"ECHO".to_vec(), text], None));
                    i += 1;
                }
            }
            // The marker of the namespace already in force, again.
            4 => {
                let ns = cmds[..i]
                    .iter()
                    .rev()
                    .find_map(|c| c.marker.clone())
                    .unwrap_or_default();
                cmds.insert(i, Cmd::marker(&ns));
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    let (bytes, _) = write(&cmds);
    t::check_equivalent(FORMAT, &exp, &bytes, None);
}

fn flip_case(word: &mut [u8], mask: u8) {
    for (i, b) in word.iter_mut().enumerate() {
        if mask >> (i % 8) & 1 == 1 {
            b.make_ascii_lowercase();
        }
    }
}

/// Ways to make one command invalid.
#[derive(Clone, Copy, Debug)]
enum Break {
    LongLength,
    ShortLength,
    BadLength,
    Count,
    HeadEnd,
    BulkEnd,
    Name,
    Option,
    ExpiryNumber,
    ExtraPart,
    Cut,
    KeyOutsideNamespace,
    BadEncoding,
    NewerHeader,
    LongNamespace,
}

const BREAKS: [Break; 15] = [
    Break::LongLength,
    Break::ShortLength,
    Break::BadLength,
    Break::Count,
    Break::HeadEnd,
    Break::BulkEnd,
    Break::Name,
    Break::Option,
    Break::ExpiryNumber,
    Break::ExtraPart,
    Break::Cut,
    Break::KeyOutsideNamespace,
    Break::BadEncoding,
    Break::NewerHeader,
    Break::LongNamespace,
];

/// Apply `how` to command `at`; false when it does not apply there.
fn apply_break(
    u: &mut Unstructured<'_>,
    exp: &Export,
    cmds: &mut Vec<Cmd>,
    at: usize,
    how: Break,
) -> bool {
    // Bytes from the string of part `p` of command `at` to the end.
    let rest_after = |cmds: &[Cmd], p: usize| -> u64 {
        let (all, ends) = write(cmds);
        let start = if at == 0 { 0 } else { ends[at - 1] };
        (all.len() - start - cmds[at].data_offset(p)) as u64
    };
    let n = cmds[at].parts.len();
    let record = cmds[at].record.map(|r| &exp.records[r]);
    let c = at;
    match how {
        Break::LongLength => {
            let p = u.choose_index(n).unwrap_or(0);
            let rest = rest_after(cmds, p);
            let len: Vec<u8> = match u.int_in_range(0u8..=5).unwrap_or(0) {
                0 => (rest - 1 + u64::from(u.int_in_range(1u8..=200).unwrap_or(1)))
                    .to_string()
                    .into(),
                1 => b"999999999999".to_vec(),
                2 => MAX_BULK.max(rest).to_string().into(),
                3 => (MAX_BULK + 1).max(rest).to_string().into(),
                4 => u64::MAX.to_string().into(),
                _ => b"99999999999999999999999999".to_vec(),
            };
            cmds[c].lens[p] = Some(len);
        }
        Break::ShortLength => {
            let p = u.choose_index(n).unwrap_or(0);
            let len = cmds[c].parts[p].len();
            if len == 0 {
                return false;
            }
            let short = u.int_in_range(0..=len - 1).unwrap_or(0);
            // Only a definite error: the bytes after the shorter string are
            // not `\r\n`.
            let mut tail = cmds[c].parts[p][short..].to_vec();
            tail.extend_from_slice(b"\r\n");
            if tail.starts_with(b"\r\n") {
                return false;
            }
            cmds[c].lens[p] = Some(short.to_string().into());
        }
        Break::BadLength => {
            let p = u.choose_index(n).unwrap_or(0);
            let len = cmds[c].parts[p].len();
            let bad: Vec<u8> = match u.int_in_range(0u8..=6).unwrap_or(0) {
                0 => Vec::new(),
                1 => b"-1".to_vec(),
                2 => format!("+{len}").into(),
                3 => format!(" {len}").into(),
                4 => format!("{len}x").into(),
                5 => format!("0x{len:x}").into(),
                _ => format!("{len}.0").into(),
            };
            cmds[c].lens[p] = Some(bad);
        }
        Break::Count => {
            let count: Vec<u8> = match u.int_in_range(0u8..=5).unwrap_or(0) {
                0 => b"0".to_vec(),
                1 => b"-1".to_vec(),
                2 => b"999999999999".to_vec(),
                3 => (n + 1).to_string().into(),
                4 => format!("+{n}").into(),
                _ => {
                    let m = u.int_in_range(1..=6usize).unwrap_or(1);
                    if m == n {
                        return false;
                    }
                    m.to_string().into()
                }
            };
            cmds[c].count = Some(count);
        }
        Break::HeadEnd => {
            let end: &[u8] = match u.int_in_range(0u8..=3).unwrap_or(0) {
                0 => b"\n",
                1 => b"\r",
                2 => b"",
                _ => b"\n\r",
            };
            if u.arbitrary().unwrap_or(false) {
                cmds[c].head_end = end.to_vec();
            } else {
                let p = u.choose_index(n).unwrap_or(0);
                cmds[c].ends[p].0 = end.to_vec();
            }
        }
        Break::BulkEnd => {
            let p = u.choose_index(n).unwrap_or(0);
            let end: &[u8] = match u.int_in_range(0u8..=3).unwrap_or(0) {
                0 => b"\n",
                1 => b"\r",
                2 => b"",
                _ => b"xx",
            };
            cmds[c].ends[p].1 = end.to_vec();
        }
        Break::Name => {
            // Names the importer refuses (DEL, MSET, EXPIRE, SELECT... are
            // accepted since the RESP import reads what redis-cli emits).
            const NAMES: [&[u8]; 6] = [b"LPUSH", b"GET", b"SETX", b"", b"SE", b"HSET"];
            cmds[c].parts[0] = NAMES[u.choose_index(NAMES.len()).unwrap_or(0)].to_vec();
        }
        Break::Option => {
            if n != 5 {
                return false;
            }
            const OPTIONS: [&[u8]; 6] = [b"NX", b"KEEPTTL", b"PXATT", b"", b"PXA", b"GET"];
            cmds[c].parts[3] = OPTIONS[u.choose_index(OPTIONS.len()).unwrap_or(0)].to_vec();
        }
        Break::ExpiryNumber => {
            if n != 5 {
                return false;
            }
            let ms = record.and_then(|r| r.expires_at_ms).unwrap_or(0);
            let bad: Vec<u8> = match u.int_in_range(0u8..=6).unwrap_or(0) {
                0 => Vec::new(),
                1 => b"-1".to_vec(),
                2 => format!("+{ms}").into(),
                3 => format!("{ms}.5").into(),
                4 => b"18446744073709551616".to_vec(),
                5 => format!(" {ms}").into(),
                _ => b"soon".to_vec(),
            };
            cmds[c].parts[4] = bad;
        }
        Break::ExtraPart => {
            if record.is_none() || n != 3 {
                return false;
            }
            cmds[c].parts.push(b"PXAT".to_vec());
            cmds[c].lens.push(None);
            cmds[c].ends.push((b"\r\n".to_vec(), b"\r\n".to_vec()));
        }
        Break::Cut => {
            // Cut the input inside this command: everything after it goes.
            cmds.truncate(c + 1);
            let mut one = Vec::new();
            cmds[c].write(&mut one);
            let keep = u.int_in_range(1..=one.len() - 1).unwrap_or(1);
            cmds[c] = Cmd {
                parts: Vec::new(),
                record: cmds[c].record,
                marker: None,
                count: Some(one[1..keep].to_vec()),
                lens: Vec::new(),
                head_end: Vec::new(),
                ends: Vec::new(),
            };
        }
        Break::KeyOutsideNamespace => {
            let Some(r) = record else { return false };
            if r.ns.is_empty() {
                return false;
            }
            let mut key = b"other:".to_vec();
            key.extend_from_slice(&t::encoded(exp.codec.key, &r.key));
            if key.starts_with(r.ns.as_bytes()) && key.get(r.ns.len()) == Some(&b':') {
                return false;
            }
            cmds[c].parts[1] = key;
        }
        Break::BadEncoding => {
            if record.is_none() {
                return false;
            }
            let (p, enc) = if u.arbitrary().unwrap_or(false) {
                (1, exp.codec.key)
            } else {
                (2, exp.codec.value)
            };
            let bad: &[u8] = match enc {
                Encoding::Text => return false,
                Encoding::Hex => {
                    [&b"abc"[..], b"zz", b"0g", b"\xff\xff"][u.choose_index(4).unwrap_or(0)]
                }
                Encoding::Base64 => [&b"!!!!"[..], b"A", b"AB=C", b"\xff\xff\xff\xff"]
                    [u.choose_index(4).unwrap_or(0)],
            };
            let prefix = record.map_or(0, |r| if r.ns.is_empty() { 0 } else { r.ns.len() + 1 });
            let mut v = if p == 1 {
                cmds[c].parts[1][..prefix].to_vec()
            } else {
                Vec::new()
            };
            v.extend_from_slice(bad);
            cmds[c].parts[p] = v;
        }
        Break::NewerHeader => {
            if at != 0 {
                return false;
            }
            cmds[c].parts[1] =
                b"{\"emdb_export\":2,\"namespaces\":[\"\"],\"encrypted\":false}".to_vec();
        }
        Break::LongNamespace => {
            if cmds[c].marker.is_none() {
                return false;
            }
            cmds[c].parts[1] = marker_json(&"n".repeat(t::MAX_NAMESPACE_NAME_LEN + 1));
        }
    }
    true
}

fn broken(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let exp = capped(t::pick_export(&mut u));
    let mut cmds = commands(&exp);
    let at = u.choose_index(cmds.len()).unwrap_or(0);
    let how = BREAKS[u.choose_index(BREAKS.len()).unwrap_or(0)];
    if !apply_break(&mut u, &exp, &mut cmds, at, how) {
        return;
    }
    let (bytes, _) = write(&cmds);
    let out = t::read(FORMAT, exp.codec, &bytes);
    assert!(
        out.error.is_some(),
        "RESP with {how:?} in command {at} was accepted: {:?}",
        String::from_utf8_lossy(&bytes[..bytes.len().min(400)])
    );
    // The commands before the broken one read as they were; the broken
    // one yields at most the record it was (a shortened part count).
    let before = cmds[..at].iter().filter(|c| c.record.is_some()).count();
    let recs = out.recs();
    assert!(
        recs.len() >= before && recs.len() <= before + 1,
        "{how:?} in command {at}: {} records read, {before} before it",
        recs.len()
    );
    assert_eq!(
        recs[..before],
        exp.records[..before],
        "{how:?}: records before it changed"
    );
    if recs.len() > before {
        let r = cmds[at].record.map(|r| &exp.records[r]);
        let got = &recs[before];
        assert!(
            r.is_some_and(|r| r.ns == got.ns && r.key == got.key && r.value == got.value),
            "{how:?} in command {at} made up a record: {got:?}"
        );
    }
}

fn damaged(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let exp = capped(t::pick_export(&mut u));
    let cmds = commands(&exp);
    let (bytes, ends) = write(&cmds);
    let damage = crate::pick_damage(&mut u, 4);
    let mut hurt = bytes.clone();
    crate::apply_damage(&mut hurt, 0, &damage);
    let out = t::read(FORMAT, exp.codec, &hurt);
    let from = t::first_difference(&bytes, &hurt);
    t::check_intact_prefix(FORMAT, &exp, &record_ends(&cmds, &ends), from, &out);
    t::check_stable(FORMAT, exp.codec, &out);
}
