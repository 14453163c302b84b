//! `blaise runner add` / `set` / `revoke` / `token` / `list`.

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

#[derive(Serialize)]
pub struct RunnerView {
    pub name: String,
    pub created_at: Millis,
    pub revoked_at: Option<Millis>,
    /// The agents its token may serve (`null`: any).
    pub agents: Option<Vec<String>>,
    /// The labels its instances may claim (`null`: any).
    pub labels: Option<Vec<String>>,
    /// Only in the answer to `add` and `token`: shown once, never stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Its processes seen in the last week, the latest first (only in `list`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instances: Option<Vec<InstanceView>>,
}

/// One process of a runner, as it last said hello.
#[derive(Serialize)]
pub struct InstanceView {
    pub instance: String,
    /// Seen within the freshness window: offers go to it.
    pub connected: bool,
    pub last_seen: Millis,
    pub agents: Vec<String>,
    pub labels: Vec<String>,
    /// Most runs it takes at once (`null`: no limit).
    pub capacity: Option<u32>,
    /// Runs it accepted and has not finished.
    pub live_runs: usize,
}

fn view(r: Runner, token: Option<String>) -> RunnerView {
    RunnerView {
        name: r.name,
        created_at: r.created_at,
        revoked_at: r.revoked_at,
        agents: r.agents,
        labels: r.labels,
        token,
        instances: None,
    }
}

pub async fn add(
    State(state): State<AppState>,
    _: AdminAuth,
    Body(req): Body<AddRequest>,
) -> Result<Json<RunnerView>> {
    let scope = runners::Scope {
        agents: req.agents,
        labels: req.labels,
    };
    let (runner, token) = state
        .write(|ctx| runners::add(ctx, &req.name, scope.clone()))
        .await?;
    Ok(Json(view(runner, Some(token))))
}

/// Changes what a runner's token may serve.
pub async fn set_scope(
    State(state): State<AppState>,
    _: AdminAuth,
    Path(name): Path<String>,
    Body(req): Body<ScopeRequest>,
) -> Result<Json<RunnerView>> {
    let change = runners::ScopeChange {
        agents: req.agents,
        labels: req.labels,
    };
    Ok(Json(view(
        state
            .write(|ctx| runners::set_scope(ctx, &name, change.clone()))
            .await?,
        None,
    )))
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

/// A new token for a runner (a revoked one too): the old one stops working.
pub async fn token(
    State(state): State<AppState>,
    _: AdminAuth,
    Path(name): Path<String>,
) -> Result<Json<RunnerView>> {
    let (runner, token) = state.write(|ctx| runners::rotate_token(ctx, &name)).await?;
    Ok(Json(view(runner, Some(token))))
}

pub async fn list(State(state): State<AppState>, _: AdminAuth) -> Result<Json<serde_json::Value>> {
    let runners: Vec<RunnerView> = state
        .read(|ctx| {
            let fresh = ctx.now.saturating_sub(ctx.cfg.connection_fresh_ms());
            let week = ctx
                .now
                .saturating_sub(crate::clock::FORGET_INSTANCES_AFTER_MS);
            let mut connections = ctx.tx.connections(week)?;
            connections.sort_by_key(|c| std::cmp::Reverse(c.last_seen));
            let mut views = Vec::new();
            for r in ctx.tx.runners()? {
                let mut instances = Vec::new();
                for c in connections.iter().filter(|c| c.runner_id == r.id) {
                    instances.push(InstanceView {
                        instance: c.instance.clone(),
                        connected: c.last_seen >= fresh,
                        last_seen: c.last_seen,
                        agents: c.agents.clone(),
                        labels: c.labels.clone(),
                        capacity: c.capacity,
                        live_runs: ctx.tx.live_runs_of_instance(&r.id, &c.instance)?,
                    });
                }
                let mut v = view(r, None);
                v.instances = Some(instances);
                views.push(v);
            }
            Ok(views)
        })
        .await?;
    Ok(Json(serde_json::json!({ "runners": runners })))
}
