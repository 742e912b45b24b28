//! Shared helpers for the emdb benchmarks.
