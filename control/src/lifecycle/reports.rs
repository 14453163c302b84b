//! Lifecycle reports from a run. Each carries an id: a repeated id is acknowledged and ignored;
//! a new report for a finished run is refused.

use serde::{Deserialize, Serialize};

use super::Ctx;
use super::environment::{EnvironmentOutcome, schedule_teardown, settle};
use super::offers::own_run;
use super::recovery::recover;
use super::runs::{end_run, pause_session, serve_session};
use crate::error::{Error, Result};
use crate::model::*;

/// Where a run failed.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FailurePhase {
    /// The runner could not start the process for the run it accepted.
    ProcessStart,
    /// Preparing the plugs (`on-start` / `on-resume`), before the agent started.
    BeforeAgentStart,
    /// With the agent running.
    Agent,
    /// Tearing the environment down (a teardown run, or after a stop).
    Teardown,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LifecycleReport {
    Accepted,
    /// The plugs are ready and the agent started (a teardown run: the teardown began).
    Started {
        /// How the agent's conversation was opened (none for a teardown run).
        #[serde(default)]
        conversation: Option<Conversation>,
    },
    /// Whether every plug of the run's chain can resume, and the chain's plug ids.
    PlugsCanResume {
        can_resume: bool,
        #[serde(default)]
        plugs_that_cannot: Vec<String>,
        #[serde(default)]
        chain: Option<Vec<String>>,
    },
    /// The agent answered a prompt: the turn is over and the idle clock runs again.
    TurnEnded {
        #[serde(default)]
        message_id: Option<String>,
    },
    /// The run paused its plugs and is exiting.
    Paused,
    /// The run tore the environment down and is exiting.
    TornDown,
    Failed {
        phase: FailurePhase,
        error: String,
        #[serde(default)]
        environment: EnvironmentOutcome,
        #[serde(default)]
        teardown_error: Option<String>,
    },
    /// SIGINT/SIGTERM: the run stopped the conversation and is exiting.
    Cancelled {
        #[serde(default)]
        environment: EnvironmentOutcome,
        #[serde(default)]
        teardown_error: Option<String>,
    },
    /// What left the agent's network namespace (`blaise-egress`'s counts),
    /// before the run's last report.
    Egress(Egress),
}

impl LifecycleReport {
    pub fn kind(&self) -> &'static str {
        match self {
            LifecycleReport::Accepted => "accepted",
            LifecycleReport::Started { .. } => "started",
            LifecycleReport::PlugsCanResume { .. } => "plugs_can_resume",
            LifecycleReport::TurnEnded { .. } => "turn_ended",
            LifecycleReport::Paused => "paused",
            LifecycleReport::TornDown => "torn_down",
            LifecycleReport::Failed { .. } => "failed",
            LifecycleReport::Cancelled { .. } => "cancelled",
            LifecycleReport::Egress(_) => "egress",
        }
    }
}

/// Longest error text a report keeps: it is copied into the session's end
/// reason, its notices and the 409s that quote it, and printed in the log.
pub const MAX_ERROR: usize = 16 << 10;
/// Most plug ids a report's `chain` or `plugs_that_cannot` may list.
pub const MAX_CHAIN: usize = 256;

impl LifecycleReport {
    /// The report with the values a runner chooses held to their bounds:
    /// plug ids checked and counted, error texts cut at [`MAX_ERROR`] (cut,
    /// not refused: a runner resends a refused report, and its failure must
    /// still be recorded). The cut is the same every time, so a resent
    /// report is still a duplicate.
    pub fn bounded(mut self) -> Result<LifecycleReport> {
        match &mut self {
            LifecycleReport::PlugsCanResume {
                plugs_that_cannot,
                chain,
                ..
            } => {
                check_plug_ids("plugs_that_cannot", plugs_that_cannot)?;
                if let Some(chain) = chain {
                    check_plug_ids("chain", chain)?;
                }
            }
            LifecycleReport::TurnEnded {
                message_id: Some(id),
            } => crate::names::check_token("message_id", id)?,
            LifecycleReport::Failed {
                error,
                teardown_error,
                ..
            } => {
                cut(error);
                teardown_error.iter_mut().for_each(cut);
            }
            LifecycleReport::Cancelled { teardown_error, .. } => {
                teardown_error.iter_mut().for_each(cut);
            }
            LifecycleReport::Egress(egress) => *egress = std::mem::take(egress).bounded(),
            _ => {}
        }
        Ok(self)
    }
}

fn check_plug_ids(field: &str, ids: &[String]) -> Result<()> {
    crate::names::check_list(
        field,
        ids,
        MAX_CHAIN,
        "plug ids",
        crate::names::check_plug_id_at,
    )
}

fn cut(text: &mut String) {
    if text.len() <= MAX_ERROR {
        return;
    }
    let mut end = MAX_ERROR;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let gone = text.len() - end;
    text.truncate(end);
    text.push_str(&format!("… [{gone} bytes cut]"));
}

#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ReportAck {
    /// The report id was seen before: nothing was changed.
    pub duplicate: bool,
    pub run_status: RunStatus,
    pub session_state: SessionState,
}

pub fn apply(
    ctx: &mut Ctx,
    runner: &Runner,
    run_id: &str,
    report_id: &str,
    report: LifecycleReport,
) -> Result<ReportAck> {
    if report_id.trim().is_empty() {
        return Err(Error::BadRequest("`report_id` is required".into()));
    }
    let mut run = own_run(ctx, runner, run_id)?;
    if let Some(kind) = ctx.tx.report(run_id, report_id)? {
        if kind != report.kind() {
            return Err(Error::conflict(
                "report_id_reused",
                format!("report id {report_id:?} was already used for a {kind} report"),
            ));
        }
        let session = ctx.session(&run.session_id)?;
        return Ok(ReportAck {
            duplicate: true,
            run_status: run.status,
            session_state: session.state,
        });
    }
    if run.status.is_finished() {
        return Err(Error::conflict(
            "run_finished",
            format!(
                "run {run_id} has finished ({}); the report was ignored",
                run.status
            ),
        ));
    }
    let mut session = ctx.session(&run.session_id)?;
    session.last_activity = session.last_activity.max(ctx.now);
    match report.clone() {
        LifecycleReport::Accepted => {}
        LifecycleReport::Started { conversation } => {
            if run.status != RunStatus::Accepted {
                return Err(Error::conflict(
                    "already_started",
                    format!("run {run_id} has already started"),
                ));
            }
            run.status = RunStatus::Running;
            run.started_at = Some(ctx.now);
            run.conversation = conversation;
            ctx.tx.put_run(&run)?;
            if run.kind != RunKind::Teardown {
                session.consecutive_failures = 0;
                session.run_serving = run.stop.is_none() && !session.state.is_ended();
                let mut environment = ctx.environment(&run.environment_id)?;
                environment.state = EnvironmentState::Active;
                environment.updated_at = ctx.now;
                ctx.tx.put_environment(&environment)?;
            }
        }
        LifecycleReport::PlugsCanResume {
            can_resume,
            plugs_that_cannot,
            chain,
        } => {
            run.plugs_can_resume = Some(can_resume);
            run.plugs_that_cannot_resume = plugs_that_cannot;
            ctx.tx.put_run(&run)?;
            if let Some(chain) = chain {
                session.plug_chain = Some(chain);
            }
        }
        LifecycleReport::TurnEnded { message_id } => {
            session.open_turns = session.open_turns.saturating_sub(1);
            // Turns are served in the order their prompts arrived: without an
            // id, the turn ended is the oldest one the run has open.
            let answered = match message_id {
                Some(id) => ctx.tx.message(&id)?,
                None => ctx
                    .tx
                    .messages(&session.id, MessageState::Delivered)?
                    .into_iter()
                    .find(|m| m.run_id.as_deref() == Some(run_id)),
            };
            if let Some(mut message) = answered.filter(|m| m.session_id == session.id) {
                message.state = MessageState::Answered;
                ctx.tx.put_message(&message)?;
            }
        }
        LifecycleReport::Egress(egress) => {
            run.egress.get_or_insert_default().add(egress);
            ctx.tx.put_run(&run)?;
        }
        LifecycleReport::Paused => paused(ctx, &mut session, &mut run)?,
        LifecycleReport::TornDown => {
            end_run(ctx, &mut session, &mut run, RunStatus::TornDown, None)?;
            settle(
                ctx,
                &mut session,
                &run.environment_id,
                EnvironmentOutcome::TornDown,
                None,
            )?;
        }
        LifecycleReport::Failed {
            phase,
            error,
            environment,
            teardown_error,
        } => failed(
            ctx,
            &mut session,
            &mut run,
            phase,
            &error,
            environment,
            teardown_error.as_deref(),
        )?,
        LifecycleReport::Cancelled {
            environment,
            teardown_error,
        } => {
            end_run(
                ctx,
                &mut session,
                &mut run,
                RunStatus::Cancelled,
                Some("cancelled: the runner shut down".into()),
            )?;
            settle(
                ctx,
                &mut session,
                &run.environment_id,
                environment,
                teardown_error.as_deref(),
            )?;
            if environment == EnvironmentOutcome::Intact {
                let mut env = ctx.environment(&run.environment_id)?;
                if session.state.is_ended() || run.kind == RunKind::Teardown {
                    schedule_teardown(ctx, &mut session, env)?;
                } else {
                    env.state = EnvironmentState::Paused;
                    env.updated_at = ctx.now;
                    ctx.tx.put_environment(&env)?;
                    let agent = ctx.agent(&session.agent.clone())?;
                    pause_session(ctx, &mut session, &agent);
                    if !ctx
                        .tx
                        .messages(&session.id, MessageState::Waiting)?
                        .is_empty()
                    {
                        serve_session(ctx, &mut session)?;
                    }
                }
            }
        }
    }
    ctx.tx
        .add_report(run_id, report_id, report.kind(), ctx.now)?;
    ctx.tx.put_session(&session)?;
    Ok(ReportAck {
        duplicate: false,
        run_status: run.status,
        session_state: session.state,
    })
}

/// The run paused. Blaise decides again whether the session may resume, and overrules a run
/// that paused when it should not have.
fn paused(ctx: &mut Ctx, session: &mut Session, run: &mut Run) -> Result<()> {
    if run.kind == RunKind::Teardown {
        return Err(Error::conflict(
            "teardown_cannot_pause",
            "a teardown run cannot pause; report torn_down or failed",
        ));
    }
    end_run(ctx, session, run, RunStatus::Paused, None)?;
    let agent = ctx.agent(&session.agent.clone())?;
    let refusal = if session.state.is_ended() {
        Some(format!("the session has ended ({})", session.state))
    } else if agent.settings.idle_policy != IdlePolicy::Pause {
        Some(format!(
            "agent {}'s idle policy is to end idle sessions",
            agent.name
        ))
    } else if run.plugs_can_resume == Some(false) {
        Some(format!(
            "the run reported that its plugs cannot resume ({})",
            run.plugs_that_cannot_resume.join(", ")
        ))
    } else if run.stop.is_some_and(|s| !s.may_resume) {
        Some("the stop directive did not allow a resume".to_string())
    } else {
        None
    };
    let mut environment = ctx.environment(&run.environment_id)?;
    match refusal {
        None => {
            environment.state = EnvironmentState::Paused;
            environment.updated_at = ctx.now;
            ctx.tx.put_environment(&environment)?;
            pause_session(ctx, session, &agent);
            if !ctx
                .tx
                .messages(&session.id, MessageState::Waiting)?
                .is_empty()
            {
                serve_session(ctx, session)?;
            }
        }
        Some(why) => {
            ctx.end_session(
                session,
                SessionState::Completed,
                &format!("idle; the pause was overruled: {why}"),
            )?;
            ctx.notice(&session.id, &format!("The run paused, but the session may not resume: {why}. The environment is torn down."))?;
            schedule_teardown(ctx, session, environment)?;
        }
    }
    Ok(())
}

fn failed(
    ctx: &mut Ctx,
    session: &mut Session,
    run: &mut Run,
    phase: FailurePhase,
    error: &str,
    environment: EnvironmentOutcome,
    teardown_error: Option<&str>,
) -> Result<()> {
    end_run(
        ctx,
        session,
        run,
        RunStatus::Failed,
        Some(format!("{}: {error}", phase_text(phase))),
    )?;
    if phase == FailurePhase::ProcessStart {
        // Nothing ran: recover at once instead of waiting for the connection timeout.
        return recover(
            ctx,
            session,
            run,
            &format!("the runner could not start the run's process: {error}"),
        );
    }
    if run.kind == RunKind::Teardown {
        let error = teardown_error.unwrap_or(error);
        return super::environment::teardown_failed(ctx, session, &run.environment_id, error);
    }
    if run.kind == RunKind::Resume
        && phase == FailurePhase::BeforeAgentStart
        && !session.state.is_ended()
    {
        // The environment is broken: tear it down and answer the waiting message in a new one.
        session.recreate_environment = true;
        ctx.notice(&session.id, &format!("The resume failed before the agent started ({error}); the environment is torn down and recreated."))?;
    } else if !session.state.is_ended() {
        ctx.end_session(
            session,
            SessionState::Failed,
            &format!("run {} failed: {error}", run.id),
        )?;
        ctx.notice(
            &session.id,
            &format!(
                "The session failed: run {} failed ({}): {error}",
                run.id,
                phase_text(phase)
            ),
        )?;
    }
    settle(
        ctx,
        session,
        &run.environment_id,
        environment,
        teardown_error,
    )?;
    if environment == EnvironmentOutcome::Intact {
        let env = ctx.environment(&run.environment_id)?;
        schedule_teardown(ctx, session, env)?;
    }
    Ok(())
}

fn phase_text(phase: FailurePhase) -> &'static str {
    match phase {
        FailurePhase::ProcessStart => "process start",
        FailurePhase::BeforeAgentStart => "before the agent started",
        FailurePhase::Agent => "agent",
        FailurePhase::Teardown => "teardown",
    }
}
