#![no_main]
//! Fuzz target `header`: see emdb_fuzz::header (fuzz/src/header.rs).

libfuzzer_sys::fuzz_target!(|data: &[u8]| emdb_fuzz::header::run(data));
