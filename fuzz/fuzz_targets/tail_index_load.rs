#![no_main]
//! Fuzz target `tail_index_load`: see emdb_fuzz::tail_index_load (fuzz/src/tail_index_load.rs).

libfuzzer_sys::fuzz_target!(|data: &[u8]| emdb_fuzz::tail_index_load::run(data));
