//! LEB128 unsigned varints, at most 10 bytes for a `u64`.

/// Bytes needed to encode `v`.
#[inline]
pub(crate) fn len(v: u64) -> usize {
    // 1 byte per started group of 7 bits; zero still takes one byte.
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Encode `v` at the start of `dst`, returning the bytes written.
/// `dst` must hold at least `len(v)` bytes.
#[inline]
pub(crate) fn encode(mut v: u64, dst: &mut [u8]) -> usize {
    let mut i = 0;
    while v >= 0x80 {
        dst[i] = (v as u8) | 0x80;
        v >>= 7;
        i += 1;
    }
    dst[i] = v as u8;
    i + 1
}

/// Decode a varint from the start of `src`: `(value, bytes read)`, or `None`
/// when `src` ends first or the encoding overflows 64 bits.
#[inline]
pub(crate) fn decode(src: &[u8]) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for (i, &b) in src.iter().enumerate().take(10) {
        let part = u64::from(b & 0x7f);
        if i == 9 && b > 1 {
            return None;
        }
        v |= part << (7 * i);
        if b & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_edges() {
        for v in [
            0,
            1,
            127,
            128,
            255,
            16_383,
            16_384,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let mut buf = [0u8; 10];
            let n = encode(v, &mut buf);
            assert_eq!(n, len(v), "len of {v}");
            assert_eq!(decode(&buf[..n]), Some((v, n)));
            // Cut short: must not decode.
            assert_eq!(decode(&buf[..n - 1]), None);
        }
    }

    #[test]
    fn rejects_overflow() {
        let buf = [0xffu8; 10];
        assert_eq!(decode(&buf), None);
        let mut ok = [0xffu8; 10];
        ok[9] = 0x01;
        assert_eq!(decode(&ok), Some((u64::MAX, 10)));
    }
}
