//! Record frames (docs/FORMAT.md, "Record frame").
//!
//! ```text
//! crc32 u32 | tag u8 | [ns varint] | [expires_at u64] | key_len varint | value_len varint | key | value
//! ```
//! The CRC covers every byte after itself. Optional fields are present when
//! the matching tag flag is set.

use super::{read_u32, read_u64, varint};
use crate::limits::{MAX_KEY_LEN, MAX_VALUE_LEN};

/// Kind of a record, the low nibble of the tag byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Key now maps to value.
    Put = 1,
    /// Key is removed.
    Delete = 2,
    /// The next `count` frames, `body_len` bytes in all, form one atomic batch.
    BatchBegin = 3,
    /// A namespace id is bound to a name (the key).
    NamespaceCreate = 4,
    /// A namespace and all its keys are dropped.
    NamespaceDrop = 5,
    /// All keys of a namespace are removed; the namespace stays.
    Clear = 6,
}

impl Kind {
    fn from_nibble(n: u8) -> Option<Kind> {
        Some(match n {
            1 => Kind::Put,
            2 => Kind::Delete,
            3 => Kind::BatchBegin,
            4 => Kind::NamespaceCreate,
            5 => Kind::NamespaceDrop,
            6 => Kind::Clear,
            _ => return None,
        })
    }
}

/// Tag flag: a namespace id varint follows the tag.
const FLAG_NS: u8 = 0x10;
/// Tag flag: an 8-byte expiry timestamp (ms since the Unix epoch) follows.
const FLAG_EXPIRY: u8 = 0x20;
/// Tag flag: the key and value are sealed (encrypted database).
pub(crate) const FLAG_SEALED: u8 = 0x40;
/// Bits that must be zero in format version 1.
const RESERVED_BITS: u8 = 0x80;
/// Largest sealed payload: nonce, key length varint, key, value, tag.
const MAX_SEALED_LEN: u64 =
    (MAX_KEY_LEN + MAX_VALUE_LEN + 10 + crate::crypto::SEAL_OVERHEAD) as u64;

/// Bytes before the tag: the CRC.
pub(crate) const CRC_LEN: usize = 4;
/// The smallest possible frame: CRC, tag, two one-byte lengths.
pub(crate) const MIN_FRAME_LEN: usize = CRC_LEN + 1 + 2;
/// Size of a `BatchBegin` value: count u64 + body length u64.
pub(crate) const BATCH_VALUE_LEN: usize = 16;

/// What a frame says, borrowed from the buffer it was decoded from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Frame<'a> {
    pub kind: Kind,
    /// The tag byte as stored (kind and flags).
    pub tag: u8,
    /// True for a sealed frame whose key and value are still encrypted: then
    /// `key` is empty and `value` is the sealed payload.
    pub sealed: bool,
    /// Namespace id; 0 is the default namespace.
    pub ns: u32,
    /// Expiry in ms since the Unix epoch; 0 means none.
    pub expires_at: u64,
    pub key: &'a [u8],
    pub value: &'a [u8],
    /// Offset of the value within the frame.
    pub value_at: usize,
    /// Total encoded length of the frame.
    pub len: usize,
}

impl Frame<'_> {
    /// For a `BatchBegin`: `(count, body_len)`.
    pub(crate) fn batch_header(&self) -> Option<(u64, u64)> {
        if self.kind != Kind::BatchBegin || self.value.len() != BATCH_VALUE_LEN {
            return None;
        }
        Some((read_u64(self.value, 0)?, read_u64(self.value, 8)?))
    }
}

/// Why bytes do not form a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameError {
    /// The buffer ends before the frame does (a torn or still-growing tail).
    Truncated,
    /// The bytes are not a valid frame.
    Invalid(&'static str),
}

impl FrameError {
    pub(crate) fn reason(self) -> &'static str {
        match self {
            FrameError::Truncated => "record runs past the end of the file",
            FrameError::Invalid(r) => r,
        }
    }
}

/// The fields a frame is built from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameSpec<'a> {
    pub kind: Kind,
    pub ns: u32,
    pub expires_at: u64,
    pub key: &'a [u8],
    pub value: &'a [u8],
}

impl<'a> FrameSpec<'a> {
    pub(crate) fn put(ns: u32, key: &'a [u8], value: &'a [u8], expires_at: u64) -> Self {
        FrameSpec {
            kind: Kind::Put,
            ns,
            expires_at,
            key,
            value,
        }
    }

    pub(crate) fn delete(ns: u32, key: &'a [u8]) -> Self {
        FrameSpec {
            kind: Kind::Delete,
            ns,
            expires_at: 0,
            key,
            value: &[],
        }
    }

    fn tag(&self) -> u8 {
        let mut tag = self.kind as u8;
        if self.ns != 0 {
            tag |= FLAG_NS;
        }
        if self.expires_at != 0 {
            tag |= FLAG_EXPIRY;
        }
        tag
    }

    /// Encoded length of this frame.
    #[inline]
    pub(crate) fn encoded_len(&self) -> usize {
        let mut n = CRC_LEN + 1;
        if self.ns != 0 {
            n += varint::len(u64::from(self.ns));
        }
        if self.expires_at != 0 {
            n += 8;
        }
        n + varint::len(self.key.len() as u64)
            + varint::len(self.value.len() as u64)
            + self.key.len()
            + self.value.len()
    }

    /// Encode into the start of `dst`, which must hold `encoded_len()` bytes.
    /// Returns the bytes written.
    #[inline]
    pub(crate) fn encode_into(&self, dst: &mut [u8]) -> usize {
        let mut at = CRC_LEN;
        dst[at] = self.tag();
        at += 1;
        if self.ns != 0 {
            at += varint::encode(u64::from(self.ns), &mut dst[at..]);
        }
        if self.expires_at != 0 {
            dst[at..at + 8].copy_from_slice(&self.expires_at.to_le_bytes());
            at += 8;
        }
        at += varint::encode(self.key.len() as u64, &mut dst[at..]);
        at += varint::encode(self.value.len() as u64, &mut dst[at..]);
        dst[at..at + self.key.len()].copy_from_slice(self.key);
        at += self.key.len();
        dst[at..at + self.value.len()].copy_from_slice(self.value);
        at += self.value.len();
        let crc = crate::format::crc::crc32(&dst[CRC_LEN..at]);
        dst[..CRC_LEN].copy_from_slice(&crc.to_le_bytes());
        at
    }

    /// Encode into a fresh vector.
    #[cfg(test)]
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.encoded_len()];
        self.encode_into(&mut v);
        v
    }

    /// Length of the sealed plaintext: key length varint, key, value.
    fn plain_len(&self) -> usize {
        varint::len(self.key.len() as u64) + self.key.len() + self.value.len()
    }

    /// Encoded length of this frame when sealed.
    pub(crate) fn sealed_len(&self) -> usize {
        let payload = self.plain_len() + crate::crypto::SEAL_OVERHEAD;
        let mut n = CRC_LEN + 1;
        if self.ns != 0 {
            n += varint::len(u64::from(self.ns));
        }
        if self.expires_at != 0 {
            n += 8;
        }
        n + varint::len(payload as u64) + payload
    }

    /// Encode sealed into the start of `dst` (`sealed_len()` bytes), for the
    /// frame's final position `offset` in the log.
    pub(crate) fn encode_sealed_into(
        &self,
        dst: &mut [u8],
        crypt: &crate::crypto::Crypt,
        offset: u64,
    ) -> crate::error::Result<usize> {
        let tag = self.tag() | FLAG_SEALED;
        let mut at = CRC_LEN;
        dst[at] = tag;
        at += 1;
        if self.ns != 0 {
            at += varint::encode(u64::from(self.ns), &mut dst[at..]);
        }
        if self.expires_at != 0 {
            dst[at..at + 8].copy_from_slice(&self.expires_at.to_le_bytes());
            at += 8;
        }
        let payload_len = self.plain_len() + crate::crypto::SEAL_OVERHEAD;
        at += varint::encode(payload_len as u64, &mut dst[at..]);
        let payload = &mut dst[at..at + payload_len];
        let mut p = 12;
        p += varint::encode(self.key.len() as u64, &mut payload[p..]);
        payload[p..p + self.key.len()].copy_from_slice(self.key);
        p += self.key.len();
        payload[p..p + self.value.len()].copy_from_slice(self.value);
        let ctx = crate::crypto::RecordContext {
            offset,
            tag,
            ns: self.ns,
            expires_at: self.expires_at,
        };
        crypt.seal(&ctx, payload)?;
        at += payload_len;
        let crc = crate::format::crc::crc32(&dst[CRC_LEN..at]);
        dst[..CRC_LEN].copy_from_slice(&crc.to_le_bytes());
        Ok(at)
    }
}

/// Encode the value of a `BatchBegin` frame.
pub(crate) fn batch_value(count: u64, body_len: u64) -> [u8; BATCH_VALUE_LEN] {
    let mut v = [0u8; BATCH_VALUE_LEN];
    v[..8].copy_from_slice(&count.to_le_bytes());
    v[8..].copy_from_slice(&body_len.to_le_bytes());
    v
}

/// Where a frame's fields lie, from its header, before its CRC is checked
/// ([`layout`]): what [`Frame`] holds, as positions instead of slices.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    pub kind: Kind,
    pub tag: u8,
    pub sealed: bool,
    pub ns: u32,
    pub expires_at: u64,
    /// Offset of the key within the frame (of the sealed payload when
    /// `sealed`, whose key length is then 0).
    pub key_at: usize,
    pub key_len: usize,
    pub value_len: usize,
    /// Total encoded length of the frame.
    pub total: usize,
}

#[inline]
fn parse_head(buf: &[u8]) -> Result<Layout, FrameError> {
    let Some(&tag) = buf.get(CRC_LEN) else {
        return Err(FrameError::Truncated);
    };
    if tag & RESERVED_BITS != 0 {
        return Err(FrameError::Invalid("reserved tag bits set"));
    }
    let kind = Kind::from_nibble(tag & 0x0f).ok_or(FrameError::Invalid("unknown record kind"))?;
    let mut at = CRC_LEN + 1;
    let mut ns = 0u32;
    if tag & FLAG_NS != 0 {
        let (v, n) = varint::decode(&buf[at..]).ok_or(short_or_bad(buf, at))?;
        ns = u32::try_from(v).map_err(|_| FrameError::Invalid("namespace id out of range"))?;
        if ns == 0 {
            return Err(FrameError::Invalid("explicit namespace id 0"));
        }
        at += n;
    }
    let mut expires_at = 0u64;
    if tag & FLAG_EXPIRY != 0 {
        expires_at = read_u64(buf, at).ok_or(FrameError::Truncated)?;
        if expires_at == 0 {
            return Err(FrameError::Invalid("expiry flag with zero expiry"));
        }
        at += 8;
    }
    let sealed = tag & FLAG_SEALED != 0;
    let (klen, vlen) = if sealed {
        let (plen, n) = varint::decode(&buf[at..]).ok_or(short_or_bad(buf, at))?;
        at += n;
        if plen > MAX_SEALED_LEN || plen < crate::crypto::SEAL_OVERHEAD as u64 {
            return Err(FrameError::Invalid("sealed length out of range"));
        }
        (0, plen)
    } else {
        let (klen, n) = varint::decode(&buf[at..]).ok_or(short_or_bad(buf, at))?;
        at += n;
        let (vlen, n) = varint::decode(&buf[at..]).ok_or(short_or_bad(buf, at))?;
        at += n;
        (klen, vlen)
    };
    if sealed {
        // Checked above against the sealed limit.
    } else if klen > MAX_KEY_LEN as u64 {
        return Err(FrameError::Invalid("key length past the limit"));
    }
    if !sealed && vlen > MAX_VALUE_LEN as u64 {
        return Err(FrameError::Invalid("value length past the limit"));
    }
    let (key_len, value_len) = (klen as usize, vlen as usize);
    let total = at + key_len + value_len;
    Ok(Layout {
        kind,
        tag,
        sealed,
        ns,
        expires_at,
        key_at: at,
        key_len,
        value_len,
        total,
    })
}

/// A varint that did not decode: truncated if the buffer simply ended.
fn short_or_bad(buf: &[u8], at: usize) -> FrameError {
    if buf.len().saturating_sub(at) < 10 {
        FrameError::Truncated
    } else {
        FrameError::Invalid("malformed varint")
    }
}

/// Decode and verify the frame at the start of `buf`.
///
/// `buf` may extend past the frame; only the frame's own bytes are checked.
#[inline]
pub(crate) fn decode(buf: &[u8]) -> Result<Frame<'_>, FrameError> {
    decode_checked(buf, true)
}

/// Where the fields of the frame at the start of `buf` lie, with every
/// structural check [`decode_checked`] makes (the frame fits in `buf`, its
/// fields suit its kind) but not the CRC: for readers that take positions
/// instead of slices and check the CRC of what they return.
#[inline(always)]
pub(crate) fn layout(buf: &[u8]) -> Result<Layout, FrameError> {
    let h = parse_head(buf)?;
    if buf.len() < h.total {
        return Err(FrameError::Truncated);
    }
    check_fields(&h)?;
    Ok(h)
}

/// Fail when the lengths and namespace of `h` do not suit its kind.
#[inline]
fn check_fields(h: &Layout) -> Result<(), FrameError> {
    let consistent = match h.kind {
        _ if h.sealed => h.kind != Kind::BatchBegin,
        Kind::Put => true,
        Kind::Delete => h.value_len == 0,
        Kind::NamespaceDrop | Kind::Clear => h.value_len == 0 && h.key_len == 0,
        Kind::BatchBegin => h.key_len == 0 && h.value_len == BATCH_VALUE_LEN && h.ns == 0,
        Kind::NamespaceCreate => h.value_len == 0 && h.key_len > 0 && h.ns != 0,
    };
    if consistent {
        Ok(())
    } else {
        Err(FrameError::Invalid("fields inconsistent with record kind"))
    }
}

/// [`decode`], verifying the CRC only when `verify_crc` is set (reads of a
/// database opened with `verify_reads(false)`); every structural check is
/// made either way.
pub(crate) fn decode_checked(buf: &[u8], verify_crc: bool) -> Result<Frame<'_>, FrameError> {
    let h = parse_head(buf)?;
    let body = buf.get(..h.total).ok_or(FrameError::Truncated)?;
    if verify_crc && !crc_matches(body) {
        return Err(FrameError::Invalid("checksum mismatch"));
    }
    check_fields(&h)?;
    let value_at = h.key_at + h.key_len;
    Ok(Frame {
        kind: h.kind,
        tag: h.tag,
        sealed: h.sealed,
        ns: h.ns,
        expires_at: h.expires_at,
        key: &body[h.key_at..value_at],
        value: &body[value_at..h.total],
        value_at,
        len: h.total,
    })
}

/// True when `body`, one whole encoded frame, matches its stored CRC (for
/// a frame decoded with `verify_crc` off and verified later).
#[inline]
pub(crate) fn crc_matches(body: &[u8]) -> bool {
    match (read_u32(body, 0), body.get(CRC_LEN..)) {
        (Some(stored), Some(rest)) => crate::format::crc::crc32(rest) == stored,
        _ => false,
    }
}

/// Encoded length of the frame at the start of `buf`, without verifying it.
pub(crate) fn frame_len(buf: &[u8]) -> Option<usize> {
    parse_head(buf).ok().map(|h| h.total)
}

/// Encoded length and expiry of the frame at the start of `buf`, without
/// verifying its CRC; used for accounting on frames verified when written.
pub(crate) fn frame_head(buf: &[u8]) -> Option<(usize, u64)> {
    parse_head(buf).ok().map(|h| (h.total, h.expires_at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_round_trips_with_all_fields() {
        let spec = FrameSpec::put(7, b"key", b"value", 1_700_000_000_000);
        let bytes = spec.encode();
        assert_eq!(bytes.len(), spec.encoded_len());
        let f = decode(&bytes).unwrap();
        assert_eq!(f.kind, Kind::Put);
        assert_eq!(f.ns, 7);
        assert_eq!(f.expires_at, 1_700_000_000_000);
        assert_eq!(f.key, b"key");
        assert_eq!(f.value, b"value");
        assert_eq!(f.len, bytes.len());
        assert_eq!(&bytes[f.value_at..f.value_at + 5], b"value");
    }

    #[test]
    fn default_namespace_frame_is_compact() {
        // 24-byte key, 150-byte value: 4 crc + 1 tag + 1 + 2 varints.
        let spec = FrameSpec::put(0, &[1u8; 24], &[2u8; 150], 0);
        assert_eq!(spec.encoded_len(), 24 + 150 + 8);
    }

    #[test]
    fn every_single_byte_flip_is_detected() {
        let bytes = FrameSpec::put(3, b"some key", b"some value", 0).encode();
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                match decode(&b) {
                    Err(_) => {}
                    Ok(f) => panic!("flip at byte {i} bit {bit} decoded as {f:?}"),
                }
            }
        }
    }

    /// `layout` is `decode_checked` without the CRC, as positions: on
    /// every frame, every byte flip of it and every cut, both accept the
    /// same bytes and agree on where each field lies.
    #[test]
    fn layout_agrees_with_decode_without_the_crc() {
        let batch = batch_value(2, 40);
        let frames = [
            FrameSpec::put(0, b"key", b"value", 0).encode(),
            FrameSpec::put(7, &[1u8; 24], &[2u8; 150], 1_700_000_000_000).encode(),
            FrameSpec::delete(300, b"gone").encode(),
            FrameSpec {
                kind: Kind::BatchBegin,
                ns: 0,
                expires_at: 0,
                key: &[],
                value: &batch,
            }
            .encode(),
        ];
        let agree = |b: &[u8], what: &str| match (layout(b), decode_checked(b, false)) {
            (Ok(l), Ok(f)) => {
                let value_at = l.key_at + l.key_len;
                assert_eq!(
                    (l.kind, l.tag, l.sealed, l.ns, l.expires_at, l.total),
                    (f.kind, f.tag, f.sealed, f.ns, f.expires_at, f.len),
                    "{what}"
                );
                assert_eq!(&b[l.key_at..value_at], f.key, "{what}");
                assert_eq!(&b[value_at..l.total], f.value, "{what}");
            }
            (Err(a), Err(d)) => assert_eq!(a, d, "{what}"),
            (a, d) => panic!("{what}: layout {a:?}, decode {d:?}"),
        };
        let mut accepted_flips = 0;
        for bytes in &frames {
            agree(bytes, "whole");
            for cut in 0..bytes.len() {
                agree(&bytes[..cut], &format!("cut at {cut}"));
            }
            for i in 0..bytes.len() {
                for bit in 0..8 {
                    let mut b = bytes.clone();
                    b[i] ^= 1 << bit;
                    agree(&b, &format!("flip at byte {i} bit {bit}"));
                    accepted_flips += usize::from(layout(&b).is_ok());
                }
            }
        }
        // Flips of CRC, key and value bytes keep the layout: the property
        // covered accepted frames, not only rejections.
        assert!(accepted_flips > 1000, "{accepted_flips}");
    }

    #[test]
    fn every_truncation_is_rejected() {
        let bytes = FrameSpec::put(0, b"k", b"v".repeat(300).as_slice(), 0).encode();
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn zeros_are_not_a_frame() {
        assert_eq!(
            decode(&[0u8; 64]),
            Err(FrameError::Invalid("unknown record kind"))
        );
    }

    #[test]
    fn batch_header_round_trips() {
        let v = batch_value(3, 999);
        let spec = FrameSpec {
            kind: Kind::BatchBegin,
            ns: 0,
            expires_at: 0,
            key: &[],
            value: &v,
        };
        let bytes = spec.encode();
        let f = decode(&bytes).unwrap();
        assert_eq!(f.batch_header(), Some((3, 999)));
    }
}
