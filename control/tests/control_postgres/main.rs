//! The control plane's integration tests again, on PostgreSQL: every test of these files runs
//! against a real server (`pg.rs`), each in a database of its own. Without PostgreSQL on the
//! machine the pass is skipped (a failure when `BLAISE_REQUIRE_TOOLS=1`, as in CI).
//!
//! Left out: `cli` and `dashboard` (the `blaise` binary's SQLite file and the pages' markup do
//! not depend on the store; `serve --db postgres://…` is tested in `instances`).

mod backend {
    pub const POSTGRES: bool = true;
}

#[path = "../control/bad_input.rs"]
mod bad_input;
#[path = "../control/capacity.rs"]
mod capacity;
#[path = "../control/decisions.rs"]
mod decisions;
#[path = "../control/failures.rs"]
mod failures;
mod instances;
#[path = "../control/lifecycle.rs"]
mod lifecycle;
#[path = "../control/linear.rs"]
mod linear;
#[path = "../../../tests/src/linear_api.rs"]
mod linear_api;
#[path = "../control/paging.rs"]
mod paging;
#[path = "../control/people.rs"]
mod people;
#[path = "../control/pg.rs"]
mod pg;
#[path = "../control/retention.rs"]
mod retention;
#[path = "../control/scopes.rs"]
mod scopes;
#[path = "../control/store.rs"]
mod store;
#[path = "../control/support.rs"]
mod support;
#[path = "../control/turns.rs"]
mod turns;
#[path = "../control/usage.rs"]
mod usage;
#[path = "../control/waiting_for_you.rs"]
mod waiting_for_you;
#[path = "../control/walkthrough.rs"]
mod walkthrough;
#[path = "../control/webhooks.rs"]
mod webhooks;
