#![no_main]
//! Fuzz target `record`: see emdb_fuzz::record (fuzz/src/record.rs).

libfuzzer_sys::fuzz_target!(|data: &[u8]| emdb_fuzz::record::run(data));
