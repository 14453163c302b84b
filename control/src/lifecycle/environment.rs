//! The environment between runs: teardown, its retries with a growing delay, orphaning, and
//! what happens once it is gone.

use super::Ctx;
use super::runs::{offer_run, offer_teardown_of_left, serve_session};
use crate::error::{Error, Result};
use crate::model::*;
use crate::store::Event;

/// Starts a teardown run for the environment now (the session must have no run).
pub fn schedule_teardown(
    ctx: &mut Ctx,
    session: &mut Session,
    mut environment: Environment,
) -> Result<()> {
    match environment.state {
        EnvironmentState::TornDown | EnvironmentState::Orphaned => return Ok(()),
        EnvironmentState::Creating if environment.runner_id.is_none() => {
            // No runner ever took the start run: nothing was created.
            environment.state = EnvironmentState::TornDown;
            environment.updated_at = ctx.now;
            ctx.tx.put_environment(&environment)?;
            return Ok(());
        }
        _ => {}
    }
    environment.state = EnvironmentState::TearingDown;
    environment.next_teardown_at = None;
    environment.updated_at = ctx.now;
    if session.environment_id.as_deref() != Some(environment.id.as_str()) {
        // One the session has left: whatever the session does, it gets its own teardown run
        // (and its retries) from the clock, due now.
        environment.next_teardown_at = Some(ctx.now);
        ctx.tx.put_environment(&environment)?;
        if !session.left_environments.contains(&environment.id) {
            session.left_environments.push(environment.id.clone());
        }
        return Ok(());
    }
    ctx.tx.put_environment(&environment)?;
    if session.current_run_id.is_none() {
        offer_run(ctx, session, &environment.id, RunKind::Teardown, false)?;
    }
    Ok(())
}

/// A teardown failed: retry later with a growing delay, or orphan the environment after the
/// last attempt.
pub fn teardown_failed(
    ctx: &mut Ctx,
    session: &Session,
    environment_id: &str,
    error: &str,
) -> Result<()> {
    let mut environment = ctx.environment(environment_id)?;
    environment.teardown_attempts += 1;
    environment.last_error = Some(error.to_string());
    environment.updated_at = ctx.now;
    if environment.teardown_attempts >= ctx.cfg.teardown_attempts {
        environment.state = EnvironmentState::Orphaned;
        ctx.tx.note(Event::EnvironmentOrphaned);
        environment.next_teardown_at = None;
        super::webhooks::environment_orphaned(ctx, &environment)?;
        tracing::warn!(environment = %environment.id, session = %session.id, error, "environment orphaned");
        ctx.notice(
            &session.id,
            &format!(
                "The teardown failed {} times; the environment is orphaned and what its plugs created may still exist. Last error: {error}. An admin must retry the teardown.",
                environment.teardown_attempts
            ),
        )?;
    } else {
        environment.state = EnvironmentState::TearingDown;
        environment.next_teardown_at =
            Some(ctx.now + ctx.cfg.teardown_delay(environment.teardown_attempts));
    }
    ctx.tx.put_environment(&environment)?;
    Ok(())
}

/// The environment is gone: a session that still wants an answer gets a fresh start run.
pub fn torn_down(ctx: &mut Ctx, session: &mut Session, environment_id: &str) -> Result<()> {
    let mut environment = ctx.environment(environment_id)?;
    environment.state = EnvironmentState::TornDown;
    environment.next_teardown_at = None;
    environment.teardown_attempts = 0;
    environment.updated_at = ctx.now;
    ctx.tx.put_environment(&environment)?;
    session.left_environments.retain(|id| id != environment_id);
    if session.state.is_ended() || session.environment_id.as_deref() != Some(environment_id) {
        return Ok(());
    }
    let waiting = !ctx
        .tx
        .messages(&session.id, MessageState::Waiting)?
        .is_empty();
    if session.recreate_environment || waiting {
        serve_session(ctx, session)?;
    } else if session.state == SessionState::Active && session.current_run_id.is_none() {
        // Nothing to answer: the session waits for a message, with no environment to expire.
        ctx.enter(session, SessionState::Paused);
        session.paused_at = Some(ctx.now);
        let agent = ctx.agent(&session.agent.clone())?;
        session.expires_at = Some(
            ctx.now
                + agent
                    .settings
                    .paused_lifetime_ms
                    .min(ctx.cfg.paused_lifetime_cap_ms),
        );
    }
    Ok(())
}

/// Applies what a finished run reported about its environment; `Intact` is left to the caller.
pub fn settle(
    ctx: &mut Ctx,
    session: &mut Session,
    environment_id: &str,
    outcome: EnvironmentLeft,
    teardown_error: Option<&str>,
) -> Result<()> {
    match outcome {
        EnvironmentLeft::Intact => Ok(()),
        EnvironmentLeft::TornDown => torn_down(ctx, session, environment_id),
        EnvironmentLeft::TeardownFailed => teardown_failed(
            ctx,
            session,
            environment_id,
            teardown_error.unwrap_or("the teardown failed (no error given)"),
        ),
    }
}

/// An admin retries the teardown of an orphaned environment.
pub fn retry(ctx: &mut Ctx, by: &Actor, environment_id: &str) -> Result<Environment> {
    let mut environment = ctx.environment(environment_id)?;
    if environment.state != EnvironmentState::Orphaned {
        return Err(Error::conflict(
            "not_orphaned",
            format!(
                "environment {environment_id} is {}, not orphaned; only an orphaned environment's teardown can be retried",
                environment.state
            ),
        ));
    }
    let mut session = ctx.session(&environment.session_id)?;
    environment.teardown_attempts = 0;
    environment.state = EnvironmentState::TearingDown;
    environment.next_teardown_at = None;
    environment.updated_at = ctx.now;
    ctx.tx.put_environment(&environment)?;
    if session.environment_id.as_deref() != Some(environment_id) {
        // The session has moved on to another environment: whatever it does there, this one
        // gets its own teardown run (and its retries): offered at once rather than at the
        // clock's next look.
        schedule_teardown(ctx, &mut session, environment.clone())?;
        ctx.tx.put_session(&session)?;
        offer_teardown_of_left(ctx, &session, environment_id)?;
    } else if session.current_run_id.is_none() {
        schedule_teardown(ctx, &mut session, environment.clone())?;
        ctx.tx.put_session(&session)?;
    } else {
        // The session's own run is on it (it cannot be, while orphaned, but
        // if it were): the clock offers the teardown once that run is over.
        environment.next_teardown_at = Some(ctx.now);
        ctx.tx.put_environment(&environment)?;
    }
    ctx.notice(
        &session.id,
        &format!(
            "{} retried the teardown of the orphaned environment {environment_id}.",
            by.who
        ),
    )?;
    super::audit::record(
        ctx,
        by,
        super::audit::Change {
            action: AuditAction::EnvironmentRetry,
            target: environment_id,
            session_id: Some(&session.id),
            detail: String::new(),
        },
    )?;
    ctx.environment(environment_id)
}
