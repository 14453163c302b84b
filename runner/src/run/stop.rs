//! The end of a run that had an agent: close the agent (never by dropping the
//! connection), pause the plugs in reverse order, tear down if the session
//! may not resume, report, and exit.

use std::path::Path;
use std::time::Duration;

use super::reports::{ReportError, Reporter};
use super::turns::Ending;
use super::{Outcome, heartbeat, workspace};
use tokio::sync::mpsc;

use super::transcript::Relay;
use crate::acp::{Agent, AgentEvent, PermissionAnswer};
use crate::chain::PlugChain;
use crate::host::bindings::{PauseInfo, TeardownInfo};
use crate::protocol::{EnvironmentLeft, FailedPhase, ReportBody};

/// How long the agent may take to exit once its input is closed.
const AGENT_GRACE: Duration = Duration::from_secs(5);

/// How long a run stopped by SIGINT/SIGTERM waits for Blaise to take its
/// last report before it exits anyway.
const SIGNAL_REPORT_GRACE: Duration = Duration::from_secs(60);

/// What is still live when a run with an agent ends.
pub struct Live<'a> {
    /// The session (what a kept agent is kept for).
    pub session: &'a str,
    pub agent: Agent,
    pub events: &'a mut mpsc::Receiver<AgentEvent>,
    pub relay: &'a mut Relay,
}

pub async fn finish(
    ending: Ending,
    live: Live<'_>,
    chain: &mut PlugChain,
    workspace: &Path,
    reporter: &Reporter,
) -> Outcome {
    let Live {
        session,
        agent,
        events,
        relay,
    } = live;
    // A hot pause hands the agent, frozen, to the keeper; anything in its
    // way (the chain, an agent not started through the keeper, a turn under
    // way) makes the pause cold.
    let hot = matches!(
        ending,
        Ending::Stop {
            may_resume: true,
            keep_agent: true,
            ..
        }
    ) && chain.cannot_keep_processes().is_empty();
    // What `blaise-egress` counted: asked for at a hot pause, told at a close
    // (both, if a hot pause fell through: Blaise adds them up).
    let mut egress_now = None;
    let (mut last, agent) = if hot {
        let (kept, mut last) = taking_events(agent.keep(session), events).await;
        match kept {
            Ok(kept) => {
                last.extend(kept.last);
                egress_now = kept.egress;
                (last, None)
            }
            Err(crate::acp::NotKept { agent, why, egress }) => {
                egress_now = egress;
                tracing::warn!("the agent cannot be kept ({why}): the pause is cold");
                (last, Some(agent))
            }
        }
    } else {
        (Vec::new(), Some(agent))
    };
    let agent_kept = agent.is_none();
    let mut egress = None;
    if let Some(agent) = agent {
        let (closed, more) = taking_events(agent.close(AGENT_GRACE), events).await;
        last.extend(more);
        match closed {
            Ok(closed) => {
                tracing::info!(status = ?closed.code, "the agent exited");
                last.extend(closed.last);
                egress = closed.egress;
            }
            Err(e) => tracing::warn!("closing the agent: {e}"),
        }
    }
    // What the agent said last, then every open stream closed through the
    // filters: nothing a filter held back is lost, and it leaves masked.
    // Nobody answers a permission request any more.
    let (asked, last): (Vec<_>, Vec<_>) = last
        .into_iter()
        .partition(|event| matches!(event, AgentEvent::Permission { .. }));
    for event in asked {
        if let AgentEvent::Permission { answer, .. } = event {
            let _ = answer.send(PermissionAnswer::Cancelled);
        }
    }
    // What it spent last is counted too.
    for event in &last {
        if let AgentEvent::Usage(used) = event {
            super::turns::report_usage(reporter, None, Some(used.clone()), Default::default());
        }
    }
    if let Err(e) = relay.send(chain, last).await {
        tracing::warn!("{e}");
    }
    if let Err(e) = relay.close_streams(chain).await {
        tracing::warn!("{e}");
    }
    // What left the agent's namespace goes into the run's record, ahead of
    // the last report (the outbox keeps the order).
    for line in egress_now.into_iter().chain(egress) {
        if let Some(report) = super::egress::report(&line, chain, relay).await {
            reporter.post(report);
        }
    }
    // A failure's text may hold the agent's (an error it answered with,
    // its last stderr lines): filtered like the rest of what it produced.
    let ending = match ending {
        Ending::Failed(error) => Ending::Failed(
            relay
                .filter_text(chain, super::turns::cut_error(&error))
                .await
                .unwrap_or_else(|e| e.to_string()),
        ),
        Ending::AgentLost(why) => Ending::AgentLost(
            relay
                .filter_text(chain, super::turns::cut_error(&why))
                .await
                .unwrap_or_else(|e| e.to_string()),
        ),
        other => other,
    };
    end(ending, chain, workspace, reporter, agent_kept).await
}

/// The agent did not start (`why`, filtered): the run ends as one whose
/// agent is gone, keeping the environment.
pub async fn agent_lost(
    why: String,
    chain: &mut PlugChain,
    workspace: &Path,
    reporter: &Reporter,
) -> Outcome {
    end(Ending::AgentLost(why), chain, workspace, reporter, false).await
}

/// The plugs paused in reverse order, torn down unless the session may
/// resume, and the run's last report. An agent that is gone keeps the
/// environment when the chain can resume; a chain that cannot would lose it
/// through the pause anyway, and the run fails as before.
async fn end(
    ending: Ending,
    chain: &mut PlugChain,
    workspace: &Path,
    reporter: &Reporter,
    agent_kept: bool,
) -> Outcome {
    tracing::info!(?ending, "the run is ending");
    let (reason, may_resume) = match &ending {
        Ending::Stop {
            reason, may_resume, ..
        } => (reason.to_string(), *may_resume),
        Ending::Signal => ("cancelled".to_string(), false),
        // The environment stays: Blaise recovers the session in it.
        Ending::LostContact => ("lost contact".to_string(), true),
        Ending::AgentLost(_) => ("agent_lost".to_string(), chain.cannot_resume().is_empty()),
        Ending::Failed(_) => ("failed".to_string(), false),
    };
    let info = PauseInfo {
        reason: reason.clone(),
        may_resume,
        // The plugs keep what runs the agent (a container paused, not
        // stopped) only when the agent was kept.
        keep_processes: agent_kept,
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
        (Ending::Stop { .. }, None) => ReportBody::Paused {
            agent_kept,
            agent_lost: None,
        },
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
        (Ending::AgentLost(why), None) => ReportBody::Paused {
            agent_kept: false,
            agent_lost: Some(why.clone()),
        },
        (Ending::Failed(error) | Ending::AgentLost(error), environment) => {
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
        ReportBody::Paused { .. } => Outcome::Paused,
        ReportBody::TornDown => Outcome::TornDown,
        ReportBody::Cancelled { .. } => Outcome::Cancelled,
        ReportBody::Failed { error, .. } => Outcome::Failed(error.clone()),
        _ => unreachable!("one of the reports above"),
    };
    if ending == Ending::Signal {
        return send_last(reporter, report, outcome).await;
    }
    match reporter.send(report).await {
        Ok(_) => outcome,
        Err(e) => lost(e),
    }
}

/// Awaits `ending` (the agent's close or hand-over) while taking the events
/// the agent sends meanwhile: the channel is bounded, and an agent writing
/// as it goes must not wait for a reader that is not there.
async fn taking_events<T>(
    ending: impl std::future::Future<Output = T>,
    events: &mut mpsc::Receiver<AgentEvent>,
) -> (T, Vec<AgentEvent>) {
    let mut taken = Vec::new();
    tokio::pin!(ending);
    let done = loop {
        tokio::select! {
            done = &mut ending => break done,
            Some(event) = events.recv() => taken.push(event),
        }
    };
    while let Ok(event) = events.try_recv() {
        taken.push(event);
    }
    (done, taken)
}

/// The last report of a run stopped by a signal. The operator is stopping the
/// runner: wait for Blaise a while, not for the whole lost-contact window.
/// Blaise times the run out if the report never arrives.
pub async fn send_last(reporter: &Reporter, report: ReportBody, outcome: Outcome) -> Outcome {
    match tokio::time::timeout(SIGNAL_REPORT_GRACE, reporter.send(report)).await {
        Ok(Ok(_)) => outcome,
        Ok(Err(e)) => lost(e),
        Err(_) => {
            tracing::error!(
                "Blaise did not answer within {SIGNAL_REPORT_GRACE:?}: exiting without reporting the cancellation"
            );
            Outcome::LostContact
        }
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
