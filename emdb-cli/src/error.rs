//! The CLI's errors are the shared toolkit's ([`emdb_tools::error`]: one
//! mapping from engine errors to exit codes and hints for both binaries);
//! these names keep the CLI's code readable.

pub use emdb_tools::error::{Kind, ToolError as CliError, ToolResult as CliResult};
