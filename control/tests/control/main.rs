//! The control plane driven over HTTP, with a protocol client standing in for the runner.
//! Each test names the seed sentence or table row it checks (see docs/control-plane.md).

/// This binary runs on SQLite; `control_postgres` runs the same tests on PostgreSQL.
mod backend {
    pub const POSTGRES: bool = false;
}

mod bad_input;
mod browser;
mod capacity;
mod cli;
mod dashboard;
mod decisions;
mod failures;
mod lifecycle;
mod linear;
#[path = "../../../tests/src/linear_api.rs"]
mod linear_api;
mod metrics;
mod oidc;
mod paging;
mod people;
mod pg;
mod retention;
mod scopes;
mod store;
mod support;
mod turns;
mod usage;
mod waiting_for_you;
mod walkthrough;
mod webhooks;
