//! The message sources' webhooks: `POST /v1/sources/linear/{app}`. The delivery is checked
//! before anything is read (`sources::linear::webhook::check`), then its event is taken in one
//! transaction and Linear gets its 200, well within its five seconds: the session is opened or
//! the message queued, and whatever goes back to Linear goes from the pump (`state::pump`).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};

use crate::error::{Error, Result};
use crate::sources::linear::{events, webhook};
use crate::state::AppState;

pub async fn linear(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode> {
    let app = state
        .sources
        .linear
        .iter()
        .find(|a| a.config.name == name)
        .cloned()
        .ok_or_else(|| Error::NotFound("no Linear app of that name is configured".into()))?;
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let checked = webhook::check(
        &app.config,
        header("linear-signature").unwrap_or(""),
        header("linear-delivery"),
        &body,
        crate::model::now(),
    )?;
    let Some((event, delivery)) = checked else {
        return Ok(StatusCode::OK);
    };
    let fresh = state
        .write(|ctx| events::take(ctx, &app.config, &delivery, &event))
        .await?;
    if fresh {
        state.changes().wake_sources();
    }
    Ok(StatusCode::OK)
}
