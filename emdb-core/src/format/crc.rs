//! The CRC-32 (IEEE, as zlib's) of every checksummed byte of the format.
//!
//! `crc32fast` computes it with carry-less multiplication, after asking the
//! CPU once per process which instructions it has. That question is many
//! `cpuid` instructions, and on a virtual machine each one traps to the
//! hypervisor: about 130 µs on the benchmark machine, a tenth of a one-shot
//! `emdb get`, which checksums a few kilobytes in all. So each thread
//! checksums its first [`TABLE_BYTES`] with a lookup table (no detection;
//! about 4 bytes per ns) and only then switches to `crc32fast`. Both give
//! the same value.

use std::cell::Cell;

/// Bytes a thread checksums with the table before it uses `crc32fast`.
const TABLE_BYTES: u64 = 256 << 10;

/// Slicing-by-16 tables, built at compile time.
const TABLE: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISO_HDLC);

thread_local! {
    /// Bytes this thread has checksummed with the table so far.
    static BY_TABLE: Cell<u64> = const { Cell::new(0) };
}

/// CRC-32 of `bytes`.
#[inline]
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let by_table = BY_TABLE.with(|n| {
        let done = n.get();
        if done >= TABLE_BYTES {
            return false;
        }
        n.set(done + bytes.len() as u64);
        true
    });
    if by_table {
        TABLE.checksum(bytes)
    } else {
        crc32fast::hash(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_crc32fast_agree_and_a_thread_switches_after_its_table_bytes() {
        let data: Vec<u8> = (0..70_000u32).map(|i| (i * 131 + i / 7) as u8).collect();
        std::thread::spawn(move || {
            for len in [0, 1, 3, 31, 32, 127, 128, 129, 180, 4096, 65_537] {
                let want = crc32fast::hash(&data[..len]);
                assert_eq!(TABLE.checksum(&data[..len]), want, "table, {len} bytes");
                assert_eq!(crc32(&data[..len]), want, "{len} bytes");
            }
            assert!(BY_TABLE.with(Cell::get) < TABLE_BYTES);
            while BY_TABLE.with(Cell::get) < TABLE_BYTES {
                assert_eq!(crc32(&data), crc32fast::hash(&data));
            }
            let before = BY_TABLE.with(Cell::get);
            assert_eq!(crc32(&data[..180]), crc32fast::hash(&data[..180]));
            assert_eq!(BY_TABLE.with(Cell::get), before, "past the table bytes");
            // A known value: CRC-32 of "123456789".
            assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        })
        .join()
        .unwrap();
    }
}
