//! The Blaise runner: hosts plugs as sandboxed WebAssembly components.
//!
//! The crate is the library behind the `blaise-runner` binary (crate
//! `blaise-runner-cli`, which parses its arguments): the daemon, a run, the
//! agent's ACP side, `blaise.yml`, and building plugs. It knows nothing of the
//! control plane's implementation, only its protocol (`blaise-protocol`).

pub mod acp;
pub mod ahead;
pub mod build;
pub mod child_pipe;
pub mod config;
pub mod daemon;
#[doc(hidden)]
pub mod fuzzing;
pub mod keeper;
pub mod logging;
pub mod metrics;
pub mod protocol;
pub mod run;
pub mod state_store;
pub mod tasks;
pub mod warm;

/// The plug host (crate `blaise-host`), and the parts of it the runner's
/// modules use by their old names.
pub use blaise_distribution as distribution;
pub use blaise_distribution::files;
pub use blaise_host as host;
pub use blaise_host::{chain, contract, guard, secret_mask, units};

/// Where `build_plug` was before the command line moved to `blaise-runner-cli`.
#[doc(hidden)]
pub mod cli {
    pub use crate::build::build_plug;
}
