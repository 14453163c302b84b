//! The Blaise control plane: sessions, runs, the clock, the runner protocol and the dashboard.

pub mod api;
pub mod auth;
pub mod changes;
pub mod cli;
pub mod clock;
pub mod config;
pub mod dashboard;
pub mod duration;
pub mod embedded;
pub mod error;
pub mod lifecycle;
pub mod metrics;
pub mod model;
pub mod names;
pub mod protocol;
pub mod server;
pub mod sources;
pub mod store;
pub mod timefmt;
pub mod tls;
pub mod views;
