//! Documented input and size limits. Every one is enforced with a clear error.

/// Longest key, in bytes (64 KiB).
pub const MAX_KEY_LEN: usize = 64 * 1024;
/// Longest value, in bytes (256 MiB).
pub const MAX_VALUE_LEN: usize = 256 * 1024 * 1024;
/// Longest namespace name, in bytes.
pub const MAX_NAMESPACE_NAME_LEN: usize = 255;
/// Largest log file, in bytes (1 TiB): index entries hold 40-bit offsets.
pub const MAX_LOG_SIZE: u64 = 1 << 40;
/// Most keys one namespace can hold (256 shards of 2^24 slots each).
pub const MAX_KEYS_PER_NAMESPACE: u64 = 256 * (1 << 24) - 256;
