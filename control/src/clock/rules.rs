//! The clock's rules for one session, checked in this order:
//! a run no runner connected to, a silent runner, an ignored stop, the run timeout, a turn with
//! no output for too long, idleness, the paused lifetime, and a due teardown retry.

use crate::duration::Human;
use crate::error::Result;
use crate::lifecycle::Ctx;
use crate::lifecycle::environment::schedule_teardown;
use crate::lifecycle::environment::teardown_failed;
use crate::lifecycle::recovery::recover;
use crate::lifecycle::runs::{end_run, issue_stop, offer_run, offer_teardown_of_left};
use crate::model::*;

/// Applies the first rule that is due; returns whether one was.
pub fn check_session(ctx: &mut Ctx, session_id: &str) -> Result<bool> {
    let mut session = ctx.session(session_id)?;
    let acted = check(ctx, &mut session)?;
    if acted {
        ctx.tx.put_session(&session)?;
    }
    Ok(acted)
}

fn check(ctx: &mut Ctx, session: &mut Session) -> Result<bool> {
    let now = ctx.now;
    if !session.left_environments.is_empty() && left_environments(ctx, session)? {
        return Ok(true);
    }
    let agent = ctx.agent(&session.agent.clone())?;
    if let Some(mut run) = ctx.current_run(session)?.filter(|r| r.status.is_live()) {
        let accepted_at = run.accepted_at.unwrap_or(run.created_at);
        if let Some((status, why)) = dead(ctx, &run) {
            end_run(ctx, session, &mut run, status, Some(why.clone()))?;
            recover(ctx, session, &run, &why)?;
            return Ok(true);
        }
        if let (Some(stop), Some(at)) = (run.stop, run.stop_issued_at)
            && ctx.cfg.since_start(at) + ctx.cfg.stop_grace_ms <= now
        {
            let why = format!(
                "the run ignored the {} stop for {}",
                stop.reason,
                Human(ctx.cfg.stop_grace_ms)
            );
            end_run(ctx, session, &mut run, RunStatus::Failed, Some(why.clone()))?;
            ctx.end_session(session, SessionState::Failed, &why)?;
            let environment = ctx.environment(&run.environment_id)?;
            schedule_teardown(ctx, session, environment)?;
            return Ok(true);
        }
        if run.kind != RunKind::Teardown
            && run.stop.is_none()
            // Saturating: a limit near i64::MAX means never, not a sum that wraps into the past.
            && accepted_at.saturating_add(agent.settings.timeout_ms) <= now
        {
            issue_stop(
                ctx,
                session,
                &mut run,
                StopDirective {
                    reason: StopReason::Timeout,
                    may_resume: false,
                    keep_agent: false,
                },
            )?;
            let why = format!(
                "the run took longer than agent {}'s timeout of {}",
                agent.name,
                Human(agent.settings.timeout_ms)
            );
            ctx.end_session(session, SessionState::TimedOut, &why)?;
            return Ok(true);
        }
        if let Some(silent_for) = silent(ctx, session, &run, &agent)
            && !crate::lifecycle::permissions::waits_on_a_person(ctx, &run)?
        {
            crate::lifecycle::permissions::end_requests(
                ctx,
                &run,
                None,
                &crate::lifecycle::permissions::turn_ended(TurnOutcome::Cancelled),
            )?;
            ctx.tx.add_directive(&run.id, &DirectiveBody::Cancel, now)?;
            session.silence_cancelled_at = Some(now);
            ctx.notice(
                &session.id,
                &format!(
                    "The agent's turn had no output for {}: Blaise cancelled it (agent {}'s silent-turn limit).",
                    Human(silent_for),
                    agent.name
                ),
            )?;
            return Ok(true);
        }
        if session.state == SessionState::Active
            && session.run_serving
            && session.open_turns == 0
            && run.stop.is_none()
            && session
                .last_activity
                .saturating_add(agent.settings.inactivity_ms)
                <= now
        {
            // Pause only if the policy says so and the run's plugs can resume, whatever the policy.
            let may_resume = agent.settings.idle_policy == IdlePolicy::Pause
                && run.plugs_can_resume != Some(false);
            // Hot only when the agent's settings allow it and the run said it
            // can keep its agent.
            let keep_agent = may_resume && agent.settings.hot_for_ms > 0 && run.keeps_processes;
            issue_stop(
                ctx,
                session,
                &mut run,
                StopDirective {
                    reason: StopReason::Idle,
                    may_resume,
                    keep_agent,
                },
            )?;
            if !may_resume {
                ctx.end_session(session, SessionState::Completed, "idle")?;
            }
            return Ok(true);
        }
        return Ok(false);
    }
    if session.state == SessionState::Paused && session.expires_at.is_some_and(|t| t <= now) {
        ctx.end_session(
            session,
            SessionState::Expired,
            "paused for longer than the agent allows",
        )?;
        // A teardown already waiting for its retry keeps its delay.
        if let Some(environment) = ctx.session_environment(session)?
            && session.current_run_id.is_none()
            && environment.state != EnvironmentState::TearingDown
        {
            schedule_teardown(ctx, session, environment)?;
        }
        return Ok(true);
    }
    if session.current_run_id.is_none()
        && let Some(environment) = ctx.session_environment(session)?
        && environment.state == EnvironmentState::TearingDown
        && environment.next_teardown_at.is_some_and(|t| t <= now)
    {
        let mut environment = environment;
        environment.next_teardown_at = None;
        ctx.tx.put_environment(&environment)?;
        offer_run(ctx, session, &environment.id, RunKind::Teardown, false)?;
        return Ok(true);
    }
    Ok(false)
}

/// Whether a live run is dead: no runner connected to it within the connect timeout of its
/// accept, or its runner went silent for the heartbeat timeout; how it ends, and why. Silence is
/// counted from this server's start at the earliest: while Blaise was down, no runner could
/// reach it.
fn dead(ctx: &Ctx, run: &Run) -> Option<(RunStatus, String)> {
    let accepted_at = run.accepted_at.unwrap_or(run.created_at);
    if run.first_contact_at.is_none()
        && ctx.cfg.since_start(accepted_at) + ctx.cfg.connect_timeout_ms <= ctx.now
    {
        return Some((
            RunStatus::Failed,
            format!(
                "no runner connected to the run within {} of accepting it",
                Human(ctx.cfg.connect_timeout_ms)
            ),
        ));
    }
    run.last_contact_at
        .is_some_and(|t| ctx.cfg.since_start(t) + ctx.cfg.heartbeat_timeout_ms <= ctx.now)
        .then(|| {
            (
                RunStatus::TimedOut,
                format!(
                    "its runner was silent for {} (no heartbeat)",
                    Human(ctx.cfg.heartbeat_timeout_ms)
                ),
            )
        })
}

/// How long the open turn of `run` has gone without output, if past the agent's silent-turn
/// limit and not cancelled for it yet. Silence is counted from this server's start at the
/// earliest: while Blaise was down, no output could reach it.
fn silent(ctx: &Ctx, session: &Session, run: &Run, agent: &Agent) -> Option<Millis> {
    if run.kind == RunKind::Teardown
        || run.stop.is_some()
        || session.open_turns == 0
        || session.silence_cancelled_at.is_some()
    {
        return None;
    }
    let since = session
        .last_output_at
        .max(session.turn_started_at)
        .unwrap_or(session.last_activity);
    let since = ctx.cfg.since_start(since);
    (since.saturating_add(agent.settings.silent_turn_ms) <= ctx.now).then(|| ctx.now - since)
}

/// The teardown runs of environments the session left behind (see [`Session::left_environments`]):
/// a run its runner never connected to or went silent on counts as a failed attempt, and a
/// retry that is due gets its run. They are not the session's runs, so its own rules above do
/// not see them.
fn left_environments(ctx: &mut Ctx, session: &mut Session) -> Result<bool> {
    let now = ctx.now;
    let runs = ctx.tx.runs_of_session(&session.id)?;
    let mut acted = false;
    for id in session.left_environments.clone() {
        let of_it = || runs.iter().filter(|r| r.environment_id == id);
        if let Some(run) = of_it().find(|r| r.status.is_live()) {
            if let Some((status, why)) = dead(ctx, run) {
                let mut run = run.clone();
                end_run(ctx, session, &mut run, status, Some(why.clone()))?;
                teardown_failed(ctx, session, &id, &why)?;
                acted = true;
            }
            continue;
        }
        if of_it().any(|r| r.status == RunStatus::Offered) {
            continue;
        }
        let mut environment = ctx.environment(&id)?;
        if environment.state == EnvironmentState::TearingDown
            && environment.next_teardown_at.is_some_and(|t| t <= now)
        {
            environment.next_teardown_at = None;
            ctx.tx.put_environment(&environment)?;
            offer_teardown_of_left(ctx, session, &id)?;
            acted = true;
        }
    }
    Ok(acted)
}
