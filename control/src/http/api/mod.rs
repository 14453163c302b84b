//! The user API under `/v1/` (a person's token, or the admin token; each route needs a role):
//! what the `blaise` client commands call.

mod agents;
pub(crate) mod audit;
mod environments;
mod runners;
pub(crate) mod sessions;
mod users;
mod webhooks;

use axum::Router;
use axum::routing::{delete, get, post, put};

use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/agents", get(agents::list))
        .route("/v1/agents/{name}", put(agents::set).get(agents::get))
        .route("/v1/runners", post(runners::add).get(runners::list))
        .route("/v1/runners/{name}/revoke", post(runners::revoke))
        .route("/v1/runners/{name}/scope", post(runners::set_scope))
        .route("/v1/runners/{name}/token", post(runners::token))
        .route("/v1/sessions", post(sessions::new).get(sessions::list))
        .route("/v1/sessions/{id}", get(sessions::show))
        .route("/v1/sessions/{id}/messages", post(sessions::send))
        .route("/v1/sessions/{id}/close", post(sessions::close))
        .route("/v1/sessions/{id}/cancel", post(sessions::cancel))
        .route("/v1/sessions/{id}/budget", post(sessions::budget))
        .route("/v1/sessions/{id}/transcript", get(sessions::transcript))
        .route(
            "/v1/sessions/{id}/permissions/{request}/answer",
            post(sessions::answer),
        )
        .route("/v1/environments", get(environments::list))
        .route("/v1/environments/{id}/retry", post(environments::retry))
        .route("/v1/users", post(users::add).get(users::list))
        .route("/v1/users/{name}", put(users::set).delete(users::remove))
        .route("/v1/users/{name}/token", post(users::token))
        .route("/v1/audit", get(audit::list))
        .route("/v1/webhooks", post(webhooks::add).get(webhooks::list))
        .route("/v1/webhooks/{name}", delete(webhooks::remove))
        .route("/v1/webhooks/{name}/test", post(webhooks::test))
        .route("/v1/webhooks/{name}/deliveries", get(webhooks::deliveries))
}
