#![no_main]
//! Fuzz target `log_replay`: see emdb_fuzz::log_replay (fuzz/src/log_replay.rs).

libfuzzer_sys::fuzz_target!(|data: &[u8]| emdb_fuzz::log_replay::run(data));
