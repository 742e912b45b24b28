//! The encoding options (`--key-format`, `--value-format`, `--hex`,
//! `--base64`) resolved into the shared toolkit's [`Codec`]; the encodings
//! themselves live in [`emdb_tools::encoding`].

pub use emdb_tools::encoding::*;

use crate::cli::OutputArgs;

/// Resolve `--key-format`, `--value-format`, `--hex` and `--base64`
/// (per-side options win over the shorthands).
pub fn from_args(args: &OutputArgs) -> Codec {
    let both = if args.hex {
        Some(Encoding::Hex)
    } else if args.base64 {
        Some(Encoding::Base64)
    } else {
        None
    };
    Codec {
        key: args
            .key_format
            .map(Encoding::from)
            .or(both)
            .unwrap_or(Encoding::Text),
        value: args
            .value_format
            .map(Encoding::from)
            .or(both)
            .unwrap_or(Encoding::Text),
    }
}

/// `codec` with any encodings given in `args` taking precedence (for a
/// line of `emdb shell`).
pub fn overlay(codec: Codec, args: &OutputArgs) -> Codec {
    let line = from_args(args);
    let both = args.hex || args.base64;
    Codec {
        key: if args.key_format.is_some() || both {
            line.key
        } else {
            codec.key
        },
        value: if args.value_format.is_some() || both {
            line.value
        } else {
            codec.value
        },
    }
}
