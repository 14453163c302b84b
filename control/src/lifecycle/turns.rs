//! Turns are the unit of failure, not sessions. A turn ends answered, cancelled or failed; what
//! it asked ends with it; a failed turn leaves the session usable (the agent's
//! `max_failed_turns` in a row pause it). A run whose agent is gone (it exited, died in a turn,
//! ignored a cancel and was stopped, or never started) pauses on its own: the environment is
//! kept, and the next message starts the agent again.

use super::Ctx;
use super::environment::schedule_teardown;
use super::permissions::{end_requests, turn_ended};
use super::runs::{end_run, pause_for, pause_session, quote, serve_session};
use crate::error::{Error, Result};
use crate::model::*;

/// The run reported the end of a turn (`message_id`'s, or without an id the oldest it has open).
pub fn ended(
    ctx: &mut Ctx,
    session: &mut Session,
    run: &mut Run,
    message_id: Option<&str>,
    outcome: TurnOutcome,
    error: Option<&str>,
) -> Result<()> {
    // Turns are served in the order their prompts arrived: without an id,
    // the turn ended is the oldest one the run has open.
    let message = match message_id {
        Some(id) => ctx.tx.message(id)?,
        None => ctx
            .tx
            .messages(&session.id, MessageState::Delivered)?
            .into_iter()
            .find(|m| m.run_id.as_deref() == Some(&run.id)),
    };
    let message = message.filter(|m| m.session_id == session.id);
    if message
        .as_ref()
        .is_some_and(|m| m.state == MessageState::Answered)
    {
        // Ended already: by Blaise (its budget ran out), whose outcome stands, or this is the
        // same report again. The agent's word on it is neither a failure nor a notice.
        return Ok(());
    }
    session.open_turns = session.open_turns.saturating_sub(1);
    // The turn's own output is in: the outbox sends a run's entries and
    // reports in order. A source tells this turn's answer up to the run's
    // last entry (a message someone sent meanwhile is not part of it).
    let last_seq = ctx.tx.run_last_seq(&run.id)?;
    let ended_at_index = match ctx.tx.run_transcript_entry(&run.id, last_seq)? {
        Some(entry) if last_seq > 0 => entry.index,
        _ => ctx.tx.last_transcript_index(&session.id)?,
    };
    let error = error.map(|e| crate::mask::masked(e).into_owned());
    if let Some(mut message) = message.clone() {
        message.state = MessageState::Answered;
        message.outcome = Some(outcome);
        message.outcome_reason = error.clone();
        message.ended_at_index = Some(ended_at_index);
        ctx.tx.put_message(&message)?;
    }
    end_requests(
        ctx,
        run,
        message.as_ref().map(|m| m.id.as_str()),
        &turn_ended(outcome),
    )?;
    // The next turn, if the run has one queued, begins now.
    session.turn_started_at = (session.open_turns > 0).then_some(ctx.now);
    session.last_output_at = None;
    session.silence_cancelled_at = None;
    let about = message
        .as_ref()
        .map(|m| format!(" on your message {}", quote(&m.text)))
        .unwrap_or_default();
    match outcome {
        TurnOutcome::Answered => session.failed_turns = 0,
        TurnOutcome::Cancelled => {
            if let Some(why) = &error {
                ctx.notice(
                    &session.id,
                    &format!("The turn{about} was cancelled: {why}"),
                )?;
            }
        }
        TurnOutcome::Failed => {
            session.failed_turns += 1;
            let why = error.as_deref().unwrap_or("the agent gave no reason");
            ctx.notice(
                &session.id,
                &format!("The turn{about} failed: {why}. The session goes on: send the next message to try again."),
            )?;
            failed_too_often(ctx, session, run)?;
        }
    }
    Ok(())
}

/// At the agent's `max_failed_turns` failures in a row, Blaise stops the run: the session pauses
/// with its environment, and the next message starts the agent afresh. A run whose plugs cannot
/// resume is left running (its environment could not be kept through a pause).
fn failed_too_often(ctx: &mut Ctx, session: &mut Session, run: &mut Run) -> Result<()> {
    let agent = ctx.agent(&session.agent.clone())?;
    let max = agent.settings.max_failed_turns.max(1);
    if session.failed_turns < max
        || run.plugs_can_resume == Some(false)
        || !pause_for(ctx, session, run, StopReason::Failures, true)?
    {
        return Ok(());
    }
    ctx.notice(
        &session.id,
        &format!(
            "{} turns failed in a row (agent {}'s limit): the session pauses, its environment kept. The next message starts the agent again.",
            session.failed_turns, agent.name
        ),
    )?;
    session.failed_turns = 0;
    Ok(())
}

/// The run paused on its own because its agent is gone (`why`). The environment is kept and the
/// session pauses; messages waiting are answered by a resume at once. An agent that never
/// started counts toward the runs that failed in a row: at the server's limit Blaise stops
/// trying on its own, and the session waits, paused, for someone's next message.
pub fn agent_lost(ctx: &mut Ctx, session: &mut Session, run: &mut Run, why: &str) -> Result<()> {
    if run.kind == RunKind::Teardown {
        return Err(Error::conflict(
            "teardown_cannot_pause",
            "a teardown run cannot pause; report torn_down or failed",
        ));
    }
    let why = crate::mask::masked(why).into_owned();
    let started = run.started_at.is_some();
    end_run(ctx, session, run, RunStatus::Paused, Some(why.clone()))?;
    let mut environment = ctx.environment(&run.environment_id)?;
    environment.state = EnvironmentState::Paused;
    environment.kept_agent = None;
    environment.updated_at = ctx.now;
    ctx.tx.put_environment(&environment)?;
    if session.state.is_ended() {
        // Closed meanwhile: nothing to resume.
        return schedule_teardown(ctx, session, environment);
    }
    let agent = ctx.agent(&session.agent.clone())?;
    pause_session(ctx, session, &agent);
    let waiting = ctx.tx.messages(&session.id, MessageState::Waiting)?;
    if !started {
        session.consecutive_failures += 1;
        if session.consecutive_failures >= ctx.cfg.max_failures_in_a_row {
            let tries = session.consecutive_failures;
            session.consecutive_failures = 0;
            for mut message in waiting {
                ctx.notice(
                    &session.id,
                    &format!(
                        "Your message {} will not be answered: the agent did not start.",
                        quote(&message.text)
                    ),
                )?;
                message.state = MessageState::Answered;
                message.outcome = Some(TurnOutcome::Failed);
                message.outcome_reason = Some(why.clone());
                ctx.tx.put_message(&message)?;
            }
            return ctx.notice(
                &session.id,
                &format!(
                    "The agent did not start {tries} times in a row (last: {why}). Blaise stopped trying: the session is paused with its environment; send a message to try again."
                ),
            );
        }
    }
    let next = if waiting.is_empty() {
        "the next message starts the agent again"
    } else {
        "the agent starts again for the waiting message"
    };
    ctx.notice(
        &session.id,
        &format!("{why}. The session is paused with its environment kept; {next}."),
    )?;
    if !waiting.is_empty() {
        serve_session(ctx, session)?;
    }
    Ok(())
}
