//! `blaise runner add` / `revoke`.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::lifecycle::runners;
use crate::model::*;
use crate::server::{AdminAuth, AppState, Body};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddRequest {
    pub name: String,
}

#[derive(Serialize)]
pub struct RunnerView {
    pub name: String,
    pub created_at: Millis,
    pub revoked_at: Option<Millis>,
    /// Only in the answer to `add`: shown once, never stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

fn view(r: Runner, token: Option<String>) -> RunnerView {
    RunnerView {
        name: r.name,
        created_at: r.created_at,
        revoked_at: r.revoked_at,
        token,
    }
}

pub async fn add(
    State(state): State<AppState>,
    _: AdminAuth,
    Body(req): Body<AddRequest>,
) -> Result<Json<RunnerView>> {
    let (runner, token) = state.write(|ctx| runners::add(ctx, &req.name)).await?;
    Ok(Json(view(runner, Some(token))))
}

pub async fn revoke(
    State(state): State<AppState>,
    _: AdminAuth,
    Path(name): Path<String>,
) -> Result<Json<RunnerView>> {
    Ok(Json(view(
        state.write(|ctx| runners::revoke(ctx, &name)).await?,
        None,
    )))
}

pub async fn list(State(state): State<AppState>, _: AdminAuth) -> Result<Json<serde_json::Value>> {
    let runners: Vec<RunnerView> = state
        .read(|ctx| Ok(ctx.tx.runners()?))
        .await?
        .into_iter()
        .map(|r| view(r, None))
        .collect();
    Ok(Json(serde_json::json!({ "runners": runners })))
}
