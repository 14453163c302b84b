//! `POST /v1/runner/connect` and `GET /v1/runner/offers`.

use axum::Json;
use axum::extract::{Query, State};
use serde::{Deserialize, Serialize};

use super::PROTOCOL_VERSION;
use crate::error::Result;
use crate::lifecycle::offers::{self, AgentInfo, Offer};
use crate::model::Millis;
use crate::names::check_token;
use crate::server::{AppState, Body, RunnerAuth};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectRequest {
    /// Names this process among the instances sharing the runner's token.
    pub instance: String,
    /// The agents this runner serves.
    pub agents: Vec<String>,
    /// Most runs this instance takes at once; without it, no limit.
    #[serde(default)]
    pub capacity: Option<u32>,
    /// What this instance offers that an agent may require (`gpu`, `region-eu`, …).
    #[serde(default)]
    pub labels: Vec<String>,
}

#[derive(Serialize)]
pub struct ConnectResponse {
    pub protocol_version: u32,
    pub runner: String,
    pub agents: Vec<AgentInfo>,
    pub heartbeat_interval_ms: Millis,
    pub long_poll_max_ms: Millis,
}

pub async fn connect(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Body(req): Body<ConnectRequest>,
) -> Result<Json<ConnectResponse>> {
    check_token("instance", &req.instance)?;
    let hello = offers::Hello {
        instance: &req.instance,
        agents: &req.agents,
        capacity: req.capacity,
        labels: &req.labels,
    };
    let agents = state
        .write(|ctx| offers::connect(ctx, &runner, &hello))
        .await?;
    Ok(Json(ConnectResponse {
        protocol_version: PROTOCOL_VERSION,
        runner: runner.name,
        agents,
        heartbeat_interval_ms: state.cfg.heartbeat_interval_ms,
        long_poll_max_ms: state.cfg.long_poll_max_ms,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OffersQuery {
    pub instance: String,
    #[serde(default)]
    pub wait_ms: Option<Millis>,
}

#[derive(Serialize)]
pub struct OffersResponse {
    pub offers: Vec<Offer>,
}

pub async fn offers(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Query(q): Query<OffersQuery>,
) -> Result<Json<OffersResponse>> {
    check_token("instance", &q.instance)?;
    let found = state
        .long_poll_offers(&runner.id, q.wait_ms, |ctx| {
            let offers = offers::offers(ctx, &runner, &q.instance)?;
            Ok((!offers.is_empty()).then_some(offers))
        })
        .await?;
    Ok(Json(OffersResponse {
        offers: found.unwrap_or_default(),
    }))
}
