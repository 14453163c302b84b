//! `blaise agent set`: an agent's settings, the only place timing lives.

use crate::error::Result;
use crate::http::{AppState, AsAdmin, AsViewer, Body};
use crate::model::*;
use crate::names::check_name;
use axum::Json;
use axum::extract::{Path, State};

pub use crate::lifecycle::agents::AgentPatch;

pub async fn set(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Path(name): Path<String>,
    Body(patch): Body<AgentPatch>,
) -> Result<Json<Agent>> {
    check_name("name", &name)?;
    patch.check()?;
    Ok(Json(
        state
            .write(|ctx| crate::lifecycle::agents::set(ctx, &by, &name, &patch))
            .await?,
    ))
}

pub async fn get(
    State(state): State<AppState>,
    _: AsViewer,
    Path(name): Path<String>,
) -> Result<Json<crate::views::AgentView>> {
    check_name("name", &name)?;
    Ok(Json(
        state
            .read(|ctx| {
                let agent = ctx.agent(&name)?;
                crate::views::agent_view(ctx, agent)
            })
            .await?,
    ))
}

pub async fn list(State(state): State<AppState>, _: AsViewer) -> Result<Json<serde_json::Value>> {
    let agents = state.read(|ctx| Ok(ctx.tx.agents()?)).await?;
    Ok(Json(serde_json::json!({ "agents": agents })))
}
