#![no_main]
//! Fuzz target `checkpoint_load`: see emdb_fuzz::checkpoint_load (fuzz/src/checkpoint_load.rs).

libfuzzer_sys::fuzz_target!(|data: &[u8]| emdb_fuzz::checkpoint_load::run(data));
