//! One accepted run: accept, its directive stream, reports, transcript, heartbeats.

use axum::Json;
use axum::extract::{Path, Query, State};
use blaise_protocol::{
    AcceptRequest, AcpSession, DirectiveBatch, DirectivesQuery, HeartbeatAnswer, Report,
    TranscriptBatch,
};

use crate::error::{Error, Result};
use crate::http::{AppState, Body, RunnerAuth};
use crate::lifecycle::offers::{self, Assignment, own_run};
use crate::lifecycle::reports::{self, ReportAnswer};
use crate::lifecycle::transcript::{self, TranscriptAnswer};
use crate::model::*;
use crate::names::check_token;
use crate::wakeups::Topic;

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

pub async fn directives(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
    Query(q): Query<DirectivesQuery>,
) -> Result<Json<DirectiveBatch>> {
    let mut status = RunStatus::Offered;
    let after = i64::try_from(q.after).unwrap_or(i64::MAX);
    let wait_ms = q
        .wait_ms
        .map(|ms| Millis::try_from(ms).unwrap_or(Millis::MAX));
    let found = state
        .long_poll(Topic::Run(run.clone()), wait_ms, |ctx| {
            let (r, directives) = offers::directives(ctx, &runner, &run, after)?;
            status = r.status;
            Ok((!directives.is_empty() || r.status.is_finished()).then_some(directives))
        })
        .await?;
    Ok(Json(DirectiveBatch {
        run_status: status,
        directives: found
            .unwrap_or_default()
            .into_iter()
            .map(Directive::wire)
            .collect(),
    }))
}

pub async fn report(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
    Body(req): Body<Report>,
) -> Result<Json<ReportAnswer>> {
    check_token("report_id", &req.report_id)?;
    let report = reports::bounded(req.body)?;
    let ack = state
        .write(|ctx| reports::apply(ctx, &runner, &run, &req.report_id, report.clone()))
        .await?;
    crate::metrics::report(report.kind());
    Ok(Json(ack))
}

pub async fn transcript(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
    Body(req): Body<TranscriptBatch>,
) -> Result<Json<TranscriptAnswer>> {
    let ack = state
        .write(|ctx| transcript::report(ctx, &runner, &run, &req.entries))
        .await?;
    crate::metrics::transcript_entries(req.entries.len());
    Ok(Json(ack))
}

pub async fn heartbeat(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
) -> Result<Json<HeartbeatAnswer>> {
    let run = state.write(|ctx| own_run(ctx, &runner, &run)).await?;
    if run.status.is_finished() {
        return Err(finished(&run));
    }
    Ok(Json(HeartbeatAnswer {
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

pub async fn acp_session(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Path(run): Path<String>,
    Body(req): Body<AcpSession>,
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
