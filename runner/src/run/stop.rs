//! The end of a run that had an agent: close the agent (never by dropping the
//! connection), pause the plugs in reverse order, tear down if the session
//! may not resume, report, and exit.

use std::path::Path;
use std::time::Duration;

use super::reports::{ReportError, Reporter};
use super::turns::Ending;
use super::{Outcome, heartbeat, workspace};
use crate::acp::Agent;
use crate::chain::PlugChain;
use crate::host::bindings::{PauseInfo, TeardownInfo};
use crate::protocol::{EnvironmentLeft, FailedPhase, ReportBody};

/// How long the agent may take to exit once its input is closed.
const AGENT_GRACE: Duration = Duration::from_secs(5);

pub async fn finish(
    ending: Ending,
    agent: Agent,
    chain: &mut PlugChain,
    workspace: &Path,
    reporter: &Reporter,
) -> Outcome {
    match agent.close(AGENT_GRACE).await {
        Ok(status) => tracing::info!(?status, "the agent exited"),
        Err(e) => tracing::warn!("closing the agent: {e:#}"),
    }
    let (reason, may_resume) = match &ending {
        Ending::Stop { reason, may_resume } => (reason.clone(), *may_resume),
        Ending::Signal => ("cancelled".to_string(), false),
        // The environment stays: Blaise recovers the session in it.
        Ending::LostContact => ("lost contact".to_string(), true),
        Ending::Failed(_) => ("failed".to_string(), false),
    };
    let info = PauseInfo {
        reason: reason.clone(),
        may_resume,
    };
    let pause_errors = chain.pause(&info).await;
    for e in &pause_errors {
        tracing::warn!("{e}");
    }
    if ending == Ending::LostContact {
        tracing::error!(
            "{}: the run stopped; Blaise will recover the session",
            heartbeat::LOST_CONTACT
        );
        return Outcome::LostContact;
    }

    let environment = if may_resume {
        None
    } else {
        Some(tear_down(chain, workspace, &reason, true).await)
    };
    let report = match (&ending, environment) {
        (Ending::Stop { .. }, None) => ReportBody::Paused,
        (Ending::Stop { .. }, Some(Ok(()))) => ReportBody::TornDown,
        (Ending::Stop { .. }, Some(Err(error))) => ReportBody::Failed {
            phase: FailedPhase::Agent,
            error: format!("the teardown after the stop failed: {error}"),
            environment: EnvironmentLeft::TeardownFailed,
            teardown_error: Some(error),
        },
        (Ending::Signal, environment) => {
            let (environment, teardown_error) = left(environment);
            ReportBody::Cancelled {
                environment,
                teardown_error,
            }
        }
        (Ending::Failed(error), environment) => {
            let (environment, teardown_error) = left(environment);
            ReportBody::Failed {
                phase: FailedPhase::Agent,
                error: error.clone(),
                environment,
                teardown_error,
            }
        }
        (Ending::LostContact, _) => unreachable!("returned above"),
    };
    let outcome = match &report {
        ReportBody::Paused => Outcome::Paused,
        ReportBody::TornDown => Outcome::TornDown,
        ReportBody::Cancelled { .. } => Outcome::Cancelled,
        ReportBody::Failed { error, .. } => Outcome::Failed(error.clone()),
        _ => unreachable!("one of the reports above"),
    };
    match reporter.send(report).await {
        Ok(_) => outcome,
        Err(e) => lost(e),
    }
}

/// `on-teardown` in reverse order, then the workspace. The error names every
/// plug that failed.
pub async fn tear_down(
    chain: &mut PlugChain,
    workspace: &Path,
    reason: &str,
    right_after_pause: bool,
) -> Result<(), String> {
    let info = TeardownInfo {
        reason: reason.into(),
        right_after_pause,
    };
    let errors = chain.teardown(&info).await;
    if !errors.is_empty() {
        return Err(errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; "));
    }
    workspace::remove(workspace).map_err(|e| format!("{e:#}"))
}

/// What the run left, for a report.
pub fn left(environment: Option<Result<(), String>>) -> (EnvironmentLeft, Option<String>) {
    match environment {
        None => (EnvironmentLeft::Intact, None),
        Some(Ok(())) => (EnvironmentLeft::TornDown, None),
        Some(Err(e)) => (EnvironmentLeft::TeardownFailed, Some(e)),
    }
}

pub fn lost(e: ReportError) -> Outcome {
    tracing::error!("{e}; exiting without a further report");
    Outcome::LostContact
}
