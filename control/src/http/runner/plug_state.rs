//! Plug state, by session and plug id: read it all, replace one plug's record, delete it.

use axum::Json;
use axum::extract::{Path, State};
use blaise_protocol::{PlugRecords, PutPlugState};

use super::runs::finished;
use crate::error::Result;
use crate::http::{AppState, Body, RunnerAuth};
use crate::lifecycle::Ctx;
use crate::lifecycle::offers::own_run;
use crate::lifecycle::plug_state;
use crate::model::*;
use crate::names::check_plug_id;

fn live_run(ctx: &mut Ctx, runner: &Runner, run_id: &str) -> Result<Run> {
    let run = own_run(ctx, runner, run_id)?;
    if run.status.is_finished() {
        return Err(finished(&run));
    }
    Ok(run)
}

pub async fn list(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
) -> Result<Json<PlugRecords>> {
    let records = state
        .write(|ctx| {
            // Only a live run reads its session's state: a finished one may
            // belong to a runner the session has since left (a start run that
            // failed is offered again, to anyone).
            let run = live_run(ctx, &runner, &run)?;
            let session = ctx.session(&run.session_id)?;
            plug_state::records(ctx, &run, &session)
        })
        .await?;
    Ok(Json(PlugRecords { records }))
}

pub async fn put(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path((run, plug)): Path<(String, String)>,
    Body(req): Body<PutPlugState>,
) -> Result<Json<serde_json::Value>> {
    check_plug_id(&plug)?;
    state
        .write(|ctx| {
            let run = live_run(ctx, &runner, &run)?;
            let session = ctx.session(&run.session_id)?;
            plug_state::put(ctx, &run, &session, &plug, Some(req.entries.clone()))
        })
        .await?;
    Ok(Json(serde_json::json!({ "plug_id": plug })))
}

pub async fn delete(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path((run, plug)): Path<(String, String)>,
) -> Result<Json<serde_json::Value>> {
    check_plug_id(&plug)?;
    state
        .write(|ctx| {
            let run = live_run(ctx, &runner, &run)?;
            let session = ctx.session(&run.session_id)?;
            plug_state::put(ctx, &run, &session, &plug, None)
        })
        .await?;
    Ok(Json(
        serde_json::json!({ "plug_id": plug, "deleted": true }),
    ))
}
