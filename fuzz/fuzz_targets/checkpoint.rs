#![no_main]
//! Fuzz target `checkpoint`: see emdb_fuzz::checkpoint (fuzz/src/checkpoint.rs).

libfuzzer_sys::fuzz_target!(|data: &[u8]| emdb_fuzz::checkpoint::run(data));
