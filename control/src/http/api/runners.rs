//! `blaise runner add` / `set` / `revoke` / `token` / `list`.

use axum::Json;
use axum::extract::{Path, State};
use serde::Deserialize;

use crate::error::Result;
use crate::http::{AppState, AsAdmin, AsViewer, Body};
use crate::lifecycle::runners;
use crate::model::Runner;
use crate::views::RunnerView;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddRequest {
    pub name: String,
    /// The agents its token may serve; absent or `null`: any.
    #[serde(default)]
    pub agents: Option<Vec<String>>,
    /// The labels its instances may claim; absent or `null`: any.
    #[serde(default)]
    pub labels: Option<Vec<String>>,
}

/// A change to a runner's scope: a part left out stays as it is; `null` allows any.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeRequest {
    #[serde(default, deserialize_with = "present")]
    pub agents: Option<Option<Vec<String>>>,
    #[serde(default, deserialize_with = "present")]
    pub labels: Option<Option<Vec<String>>>,
}

/// A field that is there, `null` or not: `Some` (a field left out is `None` by `default`).
fn present<'de, D, T>(d: D) -> std::result::Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

fn view(r: Runner, token: Option<String>) -> RunnerView {
    RunnerView {
        token,
        ..RunnerView::of(r)
    }
}

pub async fn add(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Body(req): Body<AddRequest>,
) -> Result<Json<RunnerView>> {
    let scope = runners::Scope {
        agents: req.agents,
        labels: req.labels,
    };
    let (runner, token) = state
        .write(|ctx| runners::add(ctx, &by, &req.name, scope.clone()))
        .await?;
    Ok(Json(view(runner, Some(token))))
}

/// Changes what a runner's token may serve.
pub async fn set_scope(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Path(name): Path<String>,
    Body(req): Body<ScopeRequest>,
) -> Result<Json<RunnerView>> {
    let change = runners::ScopeChange {
        agents: req.agents,
        labels: req.labels,
    };
    Ok(Json(view(
        state
            .write(|ctx| runners::set_scope(ctx, &by, &name, change.clone()))
            .await?,
        None,
    )))
}

pub async fn revoke(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Path(name): Path<String>,
) -> Result<Json<RunnerView>> {
    Ok(Json(view(
        state.write(|ctx| runners::revoke(ctx, &by, &name)).await?,
        None,
    )))
}

/// A new token for a runner (a revoked one too): the old one stops working.
pub async fn token(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Path(name): Path<String>,
) -> Result<Json<RunnerView>> {
    let (runner, token) = state
        .write(|ctx| runners::rotate_token(ctx, &by, &name))
        .await?;
    Ok(Json(view(runner, Some(token))))
}

pub async fn list(State(state): State<AppState>, _: AsViewer) -> Result<Json<serde_json::Value>> {
    let runners = state.read(crate::views::runners).await?;
    Ok(Json(serde_json::json!({ "runners": runners })))
}
