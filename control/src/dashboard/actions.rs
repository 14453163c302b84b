//! The dashboard's one action: retry the teardown of an orphaned environment (a form POST).

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};

use super::Viewer;
use crate::error::Result;
use crate::lifecycle::environment;
use crate::server::AppState;

pub async fn retry(
    State(app): State<AppState>,
    _: Viewer,
    Path(id): Path<String>,
) -> Result<Response> {
    let e = app.write(|ctx| environment::retry(ctx, &id))?;
    Ok(Redirect::to(&format!("/sessions/{}", e.session_id)).into_response())
}
