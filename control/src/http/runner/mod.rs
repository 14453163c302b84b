//! The runner protocol, version 1: HTTP+JSON under `/v1/runner/`. `docs/protocol.md` is its
//! reference. Every endpoint needs a runner token, and a runner only ever sees its own runs.

mod connect;
mod permissions;
mod plug_state;
mod runs;

use axum::Router;
use axum::routing::{get, post, put};

use crate::state::AppState;

pub use blaise_protocol::PROTOCOL_VERSION;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/runner/connect", post(connect::connect))
        .route("/v1/runner/offers", get(connect::offers))
        .route("/v1/runner/runs/{run}/accept", post(runs::accept))
        .route("/v1/runner/runs/{run}/directives", get(runs::directives))
        .route("/v1/runner/runs/{run}/reports", post(runs::report))
        .route("/v1/runner/runs/{run}/transcript", post(runs::transcript))
        .route("/v1/runner/runs/{run}/heartbeat", post(runs::heartbeat))
        .route("/v1/runner/runs/{run}/acp-session", put(runs::acp_session))
        .route("/v1/runner/runs/{run}/plug-state", get(plug_state::list))
        .route(
            "/v1/runner/runs/{run}/plug-state/{plug}",
            put(plug_state::put).delete(plug_state::delete),
        )
        .route("/v1/runner/runs/{run}/permissions", post(permissions::ask))
        .route(
            "/v1/runner/runs/{run}/permissions/{request}",
            get(permissions::get),
        )
}
