//! The Blaise runner: hosts plugs as sandboxed WebAssembly components.
//!
//! The crate is the library behind the `blaise-runner` binary: everything the
//! CLI does is reachable from here (see `cli`).

pub mod acp;
pub mod child_pipe;
pub mod cli;
pub mod config;
pub mod daemon;
#[doc(hidden)]
pub mod fuzzing;
pub mod metrics;
pub mod protocol;
pub mod run;
pub mod state_store;

/// The plug host (crate `blaise-host`), and the parts of it the runner's
/// modules use by their old names.
pub use blaise_distribution as distribution;
pub use blaise_distribution::files;
pub use blaise_host as host;
pub use blaise_host::{chain, contract, guard, secret_mask, units};
