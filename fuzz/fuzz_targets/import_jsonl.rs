#![no_main]
//! Fuzz target `import_jsonl`: see emdb_fuzz::import_jsonl (fuzz/src/import_jsonl.rs).

libfuzzer_sys::fuzz_target!(|data: &[u8]| emdb_fuzz::import_jsonl::run(data));
