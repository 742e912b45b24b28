#![no_main]
//! Fuzz target `import_resp`: see emdb_fuzz::import_resp (fuzz/src/import_resp.rs).

libfuzzer_sys::fuzz_target!(|data: &[u8]| emdb_fuzz::import_resp::run(data));
