//! A teardown run: the session ended while paused. No agent: `on-teardown` in
//! reverse order with each plug's persisted state, then the workspace goes.

use super::outbox::Outbox;
use super::prepare::{PrepareError, prepare};
use super::reports::Reporter;
use super::stop::{lost, tear_down};
use super::{Outcome, RunContext, heartbeat};
use crate::protocol::{EnvironmentLeft, FailedPhase, ReportBody};

pub async fn run(ctx: RunContext) -> Outcome {
    let a = &ctx.assignment;
    let heartbeat = heartbeat::start(
        ctx.client.clone(),
        a.run_id.clone(),
        std::time::Duration::from_millis(a.heartbeat_interval_ms),
    );
    let outbox = Outbox::start(
        ctx.client.clone(),
        &a.run_id,
        heartbeat.lost.clone(),
        ctx.run_dir(),
    );
    let reporter = Reporter::new(outbox);
    let mut prepared = match prepare(&ctx, &reporter, &heartbeat.lost).await {
        Ok(p) => p,
        Err(PrepareError::Report(e)) => return lost(e),
        Err(e) => return fail(&reporter, e.to_string()).await,
    };
    if let Err(e) = reporter
        .send(ReportBody::Started { conversation: None })
        .await
    {
        return lost(e);
    }
    let reason = a.teardown_reason.clone().unwrap_or_else(|| "ended".into());
    if let Err(error) = tear_down(&mut prepared.chain, &prepared.workspace, &reason, false).await {
        return fail(&reporter, error).await;
    }
    match reporter.send(ReportBody::TornDown).await {
        Ok(_) => Outcome::TornDown,
        Err(e) => lost(e),
    }
}

async fn fail(reporter: &Reporter, error: String) -> Outcome {
    tracing::error!("teardown failed: {error}");
    let report = ReportBody::Failed {
        phase: FailedPhase::Teardown,
        error: error.clone(),
        environment: EnvironmentLeft::TeardownFailed,
        teardown_error: Some(error.clone()),
    };
    match reporter.send(report).await {
        Ok(_) => Outcome::Failed(error),
        Err(e) => lost(e),
    }
}
