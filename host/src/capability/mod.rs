//! The host capabilities of the plug contract (`wit/plug.wit`), one file
//! each. Each is linked with a view of only its own slice of the plug's
//! store (see `crate::ctx`): the state capability cannot see the grants, the
//! process capability cannot see the state.

pub mod http;
pub mod log;
pub mod process;
pub mod secrets;
pub mod state;
