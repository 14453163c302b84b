//! One accepted run: accept, its directive stream, reports, transcript, heartbeats.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::{Deserialize, Serialize};

use crate::changes::Topic;
use crate::error::{Error, Result};
use crate::lifecycle::offers::{self, Assignment, own_run};
use crate::lifecycle::reports::{self, LifecycleReport, ReportAck};
use crate::lifecycle::transcript::{self, ReportedEntry, TranscriptAck};
use crate::model::*;
use crate::names::check_token;
use crate::server::{AppState, Body, RunnerAuth};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcceptRequest {
    pub instance: String,
}

pub async fn accept(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
    Body(req): Body<AcceptRequest>,
) -> Result<Json<Assignment>> {
    check_token("instance", &req.instance)?;
    Ok(Json(
        state
            .write(|ctx| offers::accept(ctx, &runner, &req.instance, &run))
            .await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectivesQuery {
    #[serde(default)]
    pub after: i64,
    #[serde(default)]
    pub wait_ms: Option<Millis>,
}

#[derive(Serialize)]
pub struct DirectivesResponse {
    pub run_status: RunStatus,
    pub directives: Vec<Directive>,
}

pub async fn directives(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
    Query(q): Query<DirectivesQuery>,
) -> Result<Json<DirectivesResponse>> {
    let mut status = RunStatus::Offered;
    let found = state
        .long_poll(Topic::Run(run.clone()), q.wait_ms, |ctx| {
            let (r, directives) = offers::directives(ctx, &runner, &run, q.after)?;
            status = r.status;
            Ok((!directives.is_empty() || r.status.is_finished()).then_some(directives))
        })
        .await?;
    Ok(Json(DirectivesResponse {
        run_status: status,
        directives: found.unwrap_or_default(),
    }))
}

#[derive(Deserialize)]
pub struct ReportRequest {
    pub report_id: String,
    #[serde(flatten)]
    pub report: LifecycleReport,
}

pub async fn report(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
    Body(req): Body<ReportRequest>,
) -> Result<Json<ReportAck>> {
    check_token("report_id", &req.report_id)?;
    let report = req.report.bounded()?;
    let ack = state
        .write(|ctx| reports::apply(ctx, &runner, &run, &req.report_id, report.clone()))
        .await?;
    crate::metrics::report(report.kind());
    Ok(Json(ack))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptRequest {
    pub entries: Vec<ReportedEntry>,
}

pub async fn transcript(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
    Body(req): Body<TranscriptRequest>,
) -> Result<Json<TranscriptAck>> {
    let ack = state
        .write(|ctx| transcript::report(ctx, &runner, &run, &req.entries))
        .await?;
    crate::metrics::transcript_entries(req.entries.len());
    Ok(Json(ack))
}

#[derive(Serialize)]
pub struct HeartbeatResponse {
    pub run_status: RunStatus,
    /// The stop directive, if one was issued (it is also on the directive stream).
    pub stop: Option<StopDirective>,
}

pub async fn heartbeat(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
) -> Result<Json<HeartbeatResponse>> {
    let run = state.write(|ctx| own_run(ctx, &runner, &run)).await?;
    if run.status.is_finished() {
        return Err(finished(&run));
    }
    Ok(Json(HeartbeatResponse {
        run_status: run.status,
        stop: run.stop,
    }))
}

pub fn finished(run: &Run) -> Error {
    Error::conflict(
        "run_finished",
        format!("run {} has finished ({})", run.id, run.status),
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcpSessionRequest {
    pub acp_session_id: String,
}

pub async fn acp_session(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
    Body(req): Body<AcpSessionRequest>,
) -> Result<Json<serde_json::Value>> {
    check_token("acp_session_id", &req.acp_session_id)?;
    state
        .write(|ctx| {
            let mut run = own_run(ctx, &runner, &run)?;
            if run.status.is_finished() {
                return Err(finished(&run));
            }
            run.acp_session_id = Some(req.acp_session_id.clone());
            ctx.tx.put_run(&run)?;
            let mut session = ctx.session(&run.session_id)?;
            session.acp_session_id = Some(req.acp_session_id.clone());
            ctx.tx.put_session(&session)?;
            Ok(())
        })
        .await?;
    Ok(Json(
        serde_json::json!({ "acp_session_id": req.acp_session_id }),
    ))
}
