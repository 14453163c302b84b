//! The Blaise runner: hosts plugs as sandboxed WebAssembly components.
//!
//! The crate is the library behind the `blaise-runner` binary: everything the
//! CLI does is reachable from here (see `cli`).

pub mod acp;
pub mod chain;
pub mod cli;
pub mod config;
pub mod contract;
pub mod daemon;
pub mod distribution;
pub mod files;
#[doc(hidden)]
pub mod fuzzing;
pub mod guard;
pub mod host;
pub mod protocol;
pub mod run;
pub mod secret_mask;
pub mod state_store;
pub mod units;
