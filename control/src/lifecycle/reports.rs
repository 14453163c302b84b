//! Lifecycle reports from a run. Each carries an id: a repeated id is acknowledged and ignored;
//! a new report for a finished run is refused.

use super::Ctx;
use super::egress::Tally;
use super::environment::{schedule_teardown, settle};
use super::offers::own_run;
use super::recovery::recover;
use super::runs::{end_run, pause_session, serve_session};
use crate::error::{Error, Result};
use crate::model::*;
pub use blaise_protocol::{ReportAnswer, ReportBody};

/// Longest error text a report keeps: it is copied into the session's end
/// reason, its notices and the 409s that quote it, and printed in the log.
pub const MAX_ERROR: usize = 16 << 10;
/// Most plug ids a report's `chain` or `plugs_that_cannot` may list.
pub const MAX_CHAIN: usize = 256;

/// The report with the values a runner chooses held to their bounds:
/// plug ids checked and counted, error texts cut at [`MAX_ERROR`] (cut,
/// not refused: a runner resends a refused report, and its failure must
/// still be recorded). The cut is the same every time, so a resent
/// report is still a duplicate.
pub fn bounded(mut report: ReportBody) -> Result<ReportBody> {
    match &mut report {
        ReportBody::PlugsCanResume {
            plugs_that_cannot,
            chain,
            ..
        } => {
            check_plug_ids("plugs_that_cannot", plugs_that_cannot)?;
            if let Some(chain) = chain {
                check_plug_ids("chain", chain)?;
            }
        }
        ReportBody::TurnEnded {
            message_id, error, ..
        } => {
            if let Some(id) = message_id {
                crate::names::check_token("message_id", id)?;
            }
            error.iter_mut().for_each(cut);
        }
        ReportBody::Paused {
            agent_lost: Some(why),
            ..
        } => cut(why),
        ReportBody::Usage(used) => {
            if let Some(id) = &used.message_id {
                crate::names::check_token("message_id", id)?;
            }
            if let Some((field, why)) = used.cost.as_ref().and_then(blaise_protocol::Cost::problem)
            {
                return Err(Error::invalid("invalid_field", field, why));
            }
        }
        ReportBody::Failed {
            error,
            teardown_error,
            ..
        } => {
            cut(error);
            teardown_error.iter_mut().for_each(cut);
        }
        ReportBody::Cancelled { teardown_error, .. } => {
            teardown_error.iter_mut().for_each(cut);
        }
        ReportBody::Egress(egress) => *egress = std::mem::take(egress).bounded(),
        _ => {}
    }
    Ok(report)
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
    if text.len() > MAX_ERROR {
        *text = blaise_protocol::text::cut_end(text, MAX_ERROR).into_owned();
    }
}

pub fn apply(
    ctx: &mut Ctx,
    runner: &Runner,
    run_id: &str,
    report_id: &str,
    report: ReportBody,
) -> Result<ReportAnswer> {
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
        return Ok(ReportAnswer {
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
        ReportBody::Accepted => {}
        ReportBody::Started { conversation } => {
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
        ReportBody::PlugsCanResume {
            can_resume,
            plugs_that_cannot,
            chain,
            keeps_processes,
        } => {
            run.plugs_can_resume = Some(can_resume);
            run.plugs_that_cannot_resume = plugs_that_cannot;
            run.keeps_processes = keeps_processes;
            ctx.tx.put_run(&run)?;
            if let Some(chain) = chain {
                session.plug_chain = Some(chain);
            }
        }
        ReportBody::TurnEnded {
            message_id,
            outcome,
            error,
        } => super::turns::ended(
            ctx,
            &mut session,
            &mut run,
            message_id.as_deref(),
            outcome,
            error.as_deref(),
        )?,
        ReportBody::Usage(used) => super::usage::report(ctx, &mut session, &mut run, &used)?,
        ReportBody::Egress(egress) => {
            run.egress.get_or_insert_default().add(egress);
            ctx.tx.put_run(&run)?;
        }
        ReportBody::Paused {
            agent_lost: Some(why),
            ..
        } => super::turns::agent_lost(ctx, &mut session, &mut run, &why)?,
        ReportBody::Paused { agent_kept, .. } => paused(ctx, &mut session, &mut run, agent_kept)?,
        ReportBody::TornDown => {
            end_run(ctx, &mut session, &mut run, RunStatus::TornDown, None)?;
            settle(
                ctx,
                &mut session,
                &run.environment_id,
                EnvironmentLeft::TornDown,
                None,
            )?;
        }
        ReportBody::Failed {
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
        ReportBody::Cancelled {
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
            if environment == EnvironmentLeft::Intact {
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
    Ok(ReportAnswer {
        duplicate: false,
        run_status: run.status,
        session_state: session.state,
    })
}

/// The run paused. Blaise decides again whether the session may resume, and overrules a run
/// that paused when it should not have.
fn paused(ctx: &mut Ctx, session: &mut Session, run: &mut Run, agent_kept: bool) -> Result<()> {
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
    } else if agent.settings.idle_policy != IdlePolicy::Pause
        // Only an idle pause follows the idle policy: a stop for failed
        // turns pauses whatever it says.
        && run.stop.is_none_or(|s| s.reason == StopReason::Idle)
    {
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
            // The instance that ran it keeps the agent, frozen, for as long
            // as the agent's settings say: a resume goes there while it does.
            environment.kept_agent = match (agent_kept, &run.runner_id, &run.instance) {
                (true, Some(runner_id), Some(instance)) if agent.settings.hot_for_ms > 0 => {
                    Some(KeptAgent {
                        runner_id: runner_id.clone(),
                        instance: instance.clone(),
                        until: ctx.now.saturating_add(agent.settings.hot_for_ms),
                    })
                }
                _ => None,
            };
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
    phase: FailedPhase,
    error: &str,
    environment: EnvironmentLeft,
    teardown_error: Option<&str>,
) -> Result<()> {
    end_run(
        ctx,
        session,
        run,
        RunStatus::Failed,
        Some(format!("{}: {error}", phase_text(phase))),
    )?;
    if phase == FailedPhase::ProcessStart {
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
        && phase == FailedPhase::BeforeAgentStart
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
    if environment == EnvironmentLeft::Intact {
        let env = ctx.environment(&run.environment_id)?;
        schedule_teardown(ctx, session, env)?;
    }
    Ok(())
}

fn phase_text(phase: FailedPhase) -> &'static str {
    match phase {
        FailedPhase::ProcessStart => "process start",
        FailedPhase::BeforeAgentStart => "before the agent started",
        FailedPhase::Agent => "agent",
        FailedPhase::Teardown => "teardown",
    }
}
