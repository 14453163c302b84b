//! `blaise agent set`: an agent's settings, the only place timing lives.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::*;
use crate::names::{check_labels, check_name};
use crate::server::{AdminAuth, AppState, Body};

/// Fields left out keep their value (or the default, for a new agent).
#[derive(Deserialize, Serialize, Default, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct AgentPatch {
    pub inactivity_ms: Option<Millis>,
    pub idle_policy: Option<IdlePolicy>,
    pub paused_lifetime_ms: Option<Millis>,
    pub timeout_ms: Option<Millis>,
    pub disabled: Option<bool>,
    /// Labels a runner must have to take this agent's runs (`[]` requires none).
    pub requires_labels: Option<Vec<String>>,
}

pub async fn set(
    State(state): State<AppState>,
    _: AdminAuth,
    Path(name): Path<String>,
    Body(patch): Body<AgentPatch>,
) -> Result<Json<Agent>> {
    check_name("name", &name)?;
    for (field, value) in [
        ("inactivity_ms", patch.inactivity_ms),
        ("paused_lifetime_ms", patch.paused_lifetime_ms),
        ("timeout_ms", patch.timeout_ms),
    ] {
        if value.is_some_and(|v| v <= 0) {
            return Err(Error::BadRequest(format!("`{field}` must be positive")));
        }
    }
    if let Some(labels) = &patch.requires_labels {
        check_labels("requires_labels", labels)?;
    }
    Ok(Json(
        state
            .write(|ctx| {
                let mut agent = ctx.tx.agent(&name)?.unwrap_or_else(|| Agent {
                    name: name.clone(),
                    settings: AgentSettings::default(),
                    disabled: false,
                    updated_at: ctx.now,
                });
                let s = &mut agent.settings;
                s.inactivity_ms = patch.inactivity_ms.unwrap_or(s.inactivity_ms);
                s.idle_policy = patch.idle_policy.unwrap_or(s.idle_policy);
                s.paused_lifetime_ms = patch.paused_lifetime_ms.unwrap_or(s.paused_lifetime_ms);
                s.timeout_ms = patch.timeout_ms.unwrap_or(s.timeout_ms);
                if let Some(labels) = &patch.requires_labels {
                    let mut labels = labels.clone();
                    labels.sort();
                    labels.dedup();
                    s.requires_labels = labels;
                }
                agent.disabled = patch.disabled.unwrap_or(agent.disabled);
                agent.updated_at = ctx.now;
                ctx.tx.put_agent(&agent)?;
                Ok(agent)
            })
            .await?,
    ))
}

pub async fn get(
    State(state): State<AppState>,
    _: AdminAuth,
    Path(name): Path<String>,
) -> Result<Json<Agent>> {
    check_name("name", &name)?;
    Ok(Json(state.read(|ctx| ctx.agent(&name)).await?))
}

pub async fn list(State(state): State<AppState>, _: AdminAuth) -> Result<Json<serde_json::Value>> {
    let agents = state.read(|ctx| Ok(ctx.tx.agents()?)).await?;
    Ok(Json(serde_json::json!({ "agents": agents })))
}
