//! `emdb`: the command-line tool of the emdb key-value database.
//!
//! Thin: the commands live in the `emdb_cli` library (src/lib.rs), whose
//! [`run`](emdb_cli::run) parses the arguments, runs the command and turns
//! the outcome into the documented exit code.

#![deny(missing_docs)]

fn main() -> std::process::ExitCode {
    emdb_cli::run()
}
