//! The Blaise control plane: sessions, runs, the clock, the runner protocol and the dashboard.
//!
//! The domain — [`lifecycle`] (what each event does to a session), [`clock`], [`store`],
//! [`wakeups`] (what a commit wakes), [`sources`] (messages from Linear) and [`state`] (one
//! instance: its transactions and long polls) — knows nothing of HTTP; [`http`] serves it (the
//! runner protocol, the API, the dashboard, webhooks); [`oidc`] signs people in with an
//! identity provider. [`client`] calls the user API, [`follow`]
//! prints a transcript for a terminal, [`embedded`] runs it all inside another process. The
//! `blaise` command line is the binary's (`src/bin/blaise/`).

pub mod auth;
pub mod client;
pub mod clock;
pub mod config;
pub mod duration;
pub mod embedded;
pub mod error;
pub mod follow;
pub mod http;
pub mod lifecycle;
pub mod mask;
pub mod metrics;
pub mod model;
pub mod names;
pub mod oidc;
pub mod secret_ref;
pub mod session_search;
pub mod sources;
pub mod state;
pub mod store;
pub mod timefmt;
pub mod tls;
pub mod views;
pub mod wakeups;

/// Where the user API's client and the transcript printer were before the command line moved
/// into the `blaise` binary.
#[doc(hidden)]
pub mod cli {
    pub use crate::client::{self, Client};
    pub use crate::follow;
}
