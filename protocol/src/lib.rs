//! The runner protocol (`docs/protocol.md`, version 1): the shapes the runner and the control
//! plane exchange over HTTP, defined once. The runner serialises what the control plane reads and
//! reads what it serialises, with these same types: a field renamed here is renamed on both sides.
//!
//! Each type says which side speaks it. What one side receives is checked as it is read (ids that
//! would be paths, in [`ids`]); what it means is the receiver's business.

mod connect;
mod directives;
pub mod entries;
mod enums;
pub mod ids;
mod reports;
mod requests;
pub mod text;
mod transcript;

pub use connect::*;
pub use directives::*;
pub use enums::*;
pub use reports::*;
pub use requests::*;
pub use transcript::*;

/// The protocol version both sides speak.
pub const PROTOCOL_VERSION: u32 = 1;
