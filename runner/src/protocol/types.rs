//! The messages of the runner protocol: `blaise-protocol`'s, which the control plane speaks too.

pub use blaise_protocol::ids::{MAX_ID, is_id};
pub use blaise_protocol::*;
