//! Placeholder for the Criterion benches of the key-value hot paths; see docs/BENCH.md.

fn main() {}
