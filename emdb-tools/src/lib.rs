//! What the two emdb operator tools share: the `emdb` command line
//! (emdb-cli) and the terminal UI (emdb-tui). Free of any command-line
//! parser, so each binary keeps its own flags and maps them onto these
//! plain types.
//!
//! - [`database`]: which file (`--db`, `EMDB_PATH`, the platform default),
//!   opening it read-only or for writing, waiting for the writer lock.
//! - [`secret`]: keys and passphrases of encrypted databases, from files,
//!   the environment or a hidden prompt; zeroized after use.
//! - [`error`]: one error type with the documented exit codes, and the one
//!   mapping from [`emdb_core::Error`] to an exit code and a hint.
//! - [`space`]: the default namespace or a named one behind one API.
//! - [`encoding`] and [`transfer`]: bytes as text, and the import/export
//!   formats (JSON Lines, CSV, RESP).
//!
//! ```
//! use emdb_tools::transfer::{self, Item, Plan, TransferFormat};
//! use emdb_tools::Codec;
//!
//! # fn main() -> Result<(), emdb_tools::ToolError> {
//! let plan = Plan {
//!     namespaces: vec![String::new(), "sessions".into()],
//!     encrypted: false,
//!     any_expiry: true,
//! };
//! let mut file = Vec::new();
//! let mut w = transfer::writer(TransferFormat::Resp, &mut file, Codec::default(), &plan)?;
//! w.record("sessions", b"s:1", b"\x00\xff", Some(1_767_225_600_000))?;
//! w.finish()?;
//! drop(w);
//!
//! let items: Vec<Item> =
//!     transfer::reader(TransferFormat::Resp, Box::new(&file[..]), Codec::default())
//!         .collect::<Result<_, _>>()?;
//! let Item::Record(entry) = &items[1] else { unreachable!() };
//! assert_eq!(entry.ns.as_deref(), Some("sessions"));
//! assert_eq!(entry.value, b"\x00\xff");
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

pub mod database;
pub mod encoding;
pub mod error;
pub mod secret;
pub mod space;
pub mod transfer;

pub use crate::encoding::{Codec, Encoding};
pub use crate::error::{Kind, ToolError, ToolResult};
pub use crate::space::Space;
pub use crate::transfer::TransferFormat;
