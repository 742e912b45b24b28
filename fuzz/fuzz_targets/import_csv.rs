#![no_main]
//! Fuzz target `import_csv`: see emdb_fuzz::import_csv (fuzz/src/import_csv.rs).

libfuzzer_sys::fuzz_target!(|data: &[u8]| emdb_fuzz::import_csv::run(data));
