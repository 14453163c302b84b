//! The runner's side of the runner protocol (`docs/protocol.md`, version 1):
//! the only way the runner and Blaise talk.

mod client;
pub mod contact;
pub mod entries;
mod types;

/// For the fuzz targets (`crate::fuzzing`).
pub(crate) use client::error_from;
pub use client::{Client, ClientSetupError, ProtocolError, repeat_while_lost};
pub use contact::{retryable, until_answered};
pub use types::*;

/// The protocol version this runner speaks.
pub const PROTOCOL_VERSION: u32 = 1;
