//! Permission requests from the agent; the answer comes back on the directive stream (and here).

use axum::Json;
use axum::extract::{Path, State};
use blaise_protocol::AskPermission;

use super::runs::finished;
use crate::error::{Error, Result};
use crate::http::{AppState, Body, RunnerAuth};
use crate::lifecycle::offers::own_run;
use crate::lifecycle::permissions;
use crate::model::*;
use crate::names::{check_request_id_in_path, is_request_id};

pub async fn ask(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
    Body(req): Body<AskPermission>,
) -> Result<Json<PermissionRequest>> {
    if !is_request_id(&req.request_id) {
        return Err(Error::invalid(
            "invalid_request_id",
            "request_id",
            "`request_id` must be 1 to 128 characters with no control characters",
        ));
    }
    if let Some(id) = &req.message_id {
        crate::names::check_token("message_id", id)?;
    }
    Ok(Json(
        state
            .write(|ctx| {
                let run = own_run(ctx, &runner, &run)?;
                if let Some(existing) = ctx.tx.permission(&run.id, &req.request_id)? {
                    return Ok(existing); // a repeated request: idempotent
                }
                if run.status.is_finished() {
                    return Err(finished(&run));
                }
                let mut request = PermissionRequest {
                    session_id: run.session_id.clone(),
                    run_id: run.id.clone(),
                    request_id: req.request_id.clone(),
                    message_id: req.message_id.clone(),
                    request: req.request.clone(),
                    state: PermissionState::Pending,
                    answer: None,
                    answered_by: None,
                    answered_via: None,
                    answered_at: None,
                    created_at: ctx.now,
                    ended: None,
                    ended_at: None,
                };
                // A request that arrives after its turn ended (the end's
                // report overtook it) is recorded as ended: nobody may
                // answer what no agent will read.
                if let Some(ended) = permissions::turn_over(ctx, &run, req.message_id.as_deref())? {
                    request.state = PermissionState::Cancelled;
                    request.ended = Some(ended);
                    request.ended_at = Some(ctx.now);
                }
                ctx.tx.put_permission(&request)?;
                if request.state == PermissionState::Pending {
                    crate::lifecycle::webhooks::permission_requested(ctx, &request)?;
                }
                Ok(request)
            })
            .await?,
    ))
}

pub async fn get(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path((run, request)): Path<(String, String)>,
) -> Result<Json<PermissionRequest>> {
    check_request_id_in_path(&request)?;
    Ok(Json(
        state
            .write(|ctx| {
                let run = own_run(ctx, &runner, &run)?;
                ctx.tx
                    .permission(&run.id, &request)?
                    .ok_or_else(|| Error::not_found("permission request", &request))
            })
            .await?,
    ))
}
