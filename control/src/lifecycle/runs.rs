//! Creating the runs of a session (at most one at a time), stopping and ending them.

use super::Ctx;
use crate::auth::new_id;
use crate::error::Result;
use crate::model::*;
use crate::names::{ENVIRONMENT, RUN};
use crate::store::Event;

const RECREATED: &str = "The environment was recreated: the files the agent left are gone, and the conversation starts anew.";

/// Offers a new run of `kind` in `environment_id` and makes it the session's current run. Waiting
/// messages become its first prompts.
pub fn offer_run(
    ctx: &mut Ctx,
    session: &mut Session,
    environment_id: &str,
    kind: RunKind,
    fresh_environment: bool,
) -> Result<Run> {
    debug_assert!(session.current_run_id.is_none(), "one run at a time");
    let run = new_run(ctx, session, environment_id, kind, fresh_environment)?;
    session.current_run_id = Some(run.id.clone());
    session.run_serving = false;
    if kind != RunKind::Teardown {
        for message in ctx.tx.messages(&session.id, MessageState::Waiting)? {
            deliver(ctx, session, &run, message)?;
        }
    }
    Ok(run)
}

/// Offers a teardown run of an environment the session has left (orphaned when it moved on, and
/// retried by an admin). It is not the session's run: the session goes on with its own, and this
/// one works on the environment alone (its plug state is the environment's: see `plug_state`).
pub fn offer_teardown_of_left(
    ctx: &mut Ctx,
    session: &Session,
    environment_id: &str,
) -> Result<Run> {
    debug_assert!(session.environment_id.as_deref() != Some(environment_id));
    new_run(ctx, session, environment_id, RunKind::Teardown, false)
}

fn new_run(
    ctx: &mut Ctx,
    session: &Session,
    environment_id: &str,
    kind: RunKind,
    fresh_environment: bool,
) -> Result<Run> {
    let run = Run {
        unmatched_since: None,
        reserved_for: None,
        reserved_until: None,
        egress: None,
        usage: Usage::default(),
        id: new_id(RUN.prefix),
        session_id: session.id.clone(),
        environment_id: environment_id.to_string(),
        kind,
        status: RunStatus::Offered,
        runner_id: None,
        instance: None,
        created_at: ctx.now,
        accepted_at: None,
        first_contact_at: None,
        last_contact_at: None,
        started_at: None,
        ended_at: None,
        stop: None,
        stop_issued_at: None,
        plugs_can_resume: None,
        plugs_that_cannot_resume: Vec::new(),
        keeps_processes: false,
        error: None,
        acp_session_id: None,
        fresh_environment,
        conversation: None,
    };
    ctx.tx.put_run(&run)?;
    ctx.tx.note(Event::RunOffered(kind));
    tracing::info!(session = %session.id, run = %run.id, %kind, environment = environment_id, "run offered");
    Ok(run)
}

/// Sends a message to a run as a prompt: a turn is open until the run reports its end.
pub fn deliver(
    ctx: &mut Ctx,
    session: &mut Session,
    run: &Run,
    mut message: Message,
) -> Result<()> {
    ctx.tx.add_directive(
        &run.id,
        &DirectiveBody::Prompt {
            message_id: message.id.clone(),
            text: message.text.clone(),
        },
        ctx.now,
    )?;
    if message.deliveries > 0 {
        ctx.notice(
            &session.id,
            &format!(
                "Your message {} is sent again, to run {}.",
                quote(&message.text),
                run.id
            ),
        )?;
    }
    message.state = MessageState::Delivered;
    message.run_id = Some(run.id.clone());
    message.deliveries += 1;
    ctx.tx.put_message(&message)?;
    if session.open_turns == 0 {
        // Its turn begins (the run sends the prompt at once); a queued
        // one begins when the turn before it ends.
        session.turn_started_at = Some(ctx.now);
        session.last_output_at = None;
        session.silence_cancelled_at = None;
    }
    session.open_turns += 1;
    Ok(())
}

/// A start run in a new environment. `notice` goes into the transcript.
pub fn start_fresh(ctx: &mut Ctx, session: &mut Session, notice: Option<&str>) -> Result<Run> {
    // What the plugs made of the environment left behind is theirs to tear
    // down later: their state goes with it.
    if let Some(mut left) = ctx.session_environment(session)?
        && left.state != EnvironmentState::TornDown
    {
        super::plug_state::leave(ctx, session, &mut left)?;
        session.left_environments.push(left.id);
    }
    let environment = Environment {
        id: new_id(ENVIRONMENT.prefix),
        session_id: session.id.clone(),
        runner_id: None,
        state: EnvironmentState::Creating,
        created_at: ctx.now,
        updated_at: ctx.now,
        last_error: None,
        teardown_attempts: 0,
        next_teardown_at: None,
        kept_agent: None,
        plug_state: None,
    };
    ctx.tx.put_environment(&environment)?;
    session.environment_id = Some(environment.id.clone());
    session.acp_session_id = None;
    session.recreate_environment = false;
    if let Some(text) = notice {
        ctx.notice(&session.id, text)?;
    }
    offer_run(
        ctx,
        session,
        &environment.id,
        RunKind::Start,
        notice.is_some(),
    )
}

/// Makes sure a run will serve the session: resume where the environment is, or start afresh.
/// Waits (no run) while the environment is being torn down or is orphaned.
pub fn serve_session(ctx: &mut Ctx, session: &mut Session) -> Result<()> {
    if session.current_run_id.is_some() {
        return Ok(());
    }
    ctx.enter(session, SessionState::Active);
    session.paused_at = None;
    session.expires_at = None;
    let Some(mut environment) = ctx.session_environment(session)? else {
        start_fresh(ctx, session, None)?;
        return Ok(());
    };
    match environment.state {
        EnvironmentState::TearingDown | EnvironmentState::Orphaned => Ok(()),
        EnvironmentState::TornDown => {
            start_fresh(ctx, session, Some(RECREATED))?;
            Ok(())
        }
        EnvironmentState::Creating | EnvironmentState::Active | EnvironmentState::Paused => {
            let owner = match &environment.runner_id {
                Some(id) => ctx.tx.runner(id)?,
                None => None,
            };
            let released = owner.and_then(|r| {
                if r.revoked() {
                    Some(format!("runner {:?} was revoked", r.name))
                } else if !r.may_serve(&session.agent) {
                    Some(format!(
                        "runner {:?} may no longer serve agent {} (its token's scope changed)",
                        r.name, session.agent
                    ))
                } else {
                    None
                }
            });
            if let Some(why) = released {
                environment.state = EnvironmentState::Orphaned;
                ctx.tx.note(Event::EnvironmentOrphaned);
                environment.last_error = Some(format!(
                    "{why} while it held this environment; what its plugs created may still exist"
                ));
                environment.updated_at = ctx.now;
                ctx.tx.put_environment(&environment)?;
                super::webhooks::environment_orphaned(ctx, &environment)?;
                start_fresh(ctx, session, Some(RECREATED))?;
                return Ok(());
            }
            let kind = if environment.state == EnvironmentState::Creating {
                RunKind::Start
            } else {
                RunKind::Resume
            };
            offer_run(ctx, session, &environment.id, kind, false)?;
            Ok(())
        }
    }
}

/// Sends the run a stop directive now (the clock's stops: idle, timeout).
pub fn issue_stop(
    ctx: &mut Ctx,
    session: &mut Session,
    run: &mut Run,
    stop: StopDirective,
) -> Result<()> {
    ctx.tx
        .add_directive(&run.id, &DirectiveBody::Stop(stop), ctx.now)?;
    run.stop = Some(stop);
    run.stop_issued_at = Some(ctx.now);
    ctx.tx.put_run(run)?;
    session.run_serving = false;
    Ok(())
}

/// Blaise's own pause of a session's run (too many failed turns, a budget spent): a stop with
/// `reason` for a live start or resume run not already stopping, its agent not kept. Whether
/// it was issued.
pub fn pause_for(
    ctx: &mut Ctx,
    session: &mut Session,
    run: &mut Run,
    reason: StopReason,
    may_resume: bool,
) -> Result<bool> {
    if run.stop.is_some() || !run.status.is_live() || run.kind == RunKind::Teardown {
        return Ok(false);
    }
    issue_stop(
        ctx,
        session,
        run,
        StopDirective {
            reason,
            may_resume,
            keep_agent: false,
        },
    )?;
    Ok(true)
}

/// Records that a run has finished. Prompts it never received go back to waiting.
pub fn end_run(
    ctx: &mut Ctx,
    session: &mut Session,
    run: &mut Run,
    status: RunStatus,
    error: Option<String>,
) -> Result<()> {
    if !run.status.is_finished() {
        ctx.tx.note(Event::RunEnded {
            kind: run.kind,
            status,
        });
    }
    run.status = status;
    run.ended_at = Some(ctx.now);
    super::permissions::cancel_pending(ctx, run)?;
    if error.is_some() {
        run.error = error;
    }
    ctx.tx.put_run(run)?;
    if session.current_run_id.as_deref() == Some(&run.id) {
        session.current_run_id = None;
        session.run_serving = false;
        session.open_turns = 0;
        session.turn_started_at = None;
        session.last_output_at = None;
        session.silence_cancelled_at = None;
    }
    for directive in ctx.tx.directives_after(&run.id, 0)? {
        let DirectiveBody::Prompt { message_id, .. } = &directive.body else {
            continue;
        };
        let Some(mut message) = ctx.tx.message(message_id)? else {
            continue;
        };
        if message.state != MessageState::Delivered || message.run_id.as_deref() != Some(&run.id) {
            continue;
        }
        // Not answered: it waits for the next run. A prompt the agent never
        // saw goes back quietly; one it was working on is named, so that
        // nobody waits for an answer that will not come from this run.
        let seen = directive.delivered_at.is_some() && run.started_at.is_some();
        message.state = MessageState::Waiting;
        if !seen {
            message.deliveries = message.deliveries.saturating_sub(1);
        }
        ctx.tx.put_message(&message)?;
        if seen {
            // What becomes of it is said when it happens: sent again to the
            // next run, or not answered when the session ends (here, if it
            // has ended already).
            let why = run.error.as_deref().unwrap_or(status.as_str());
            let next = if session.state.is_ended() {
                format!(
                    ": it will not be answered, the session has ended ({})",
                    session
                        .end_reason
                        .as_deref()
                        .unwrap_or(session.state.as_str())
                )
            } else {
                String::new()
            };
            ctx.notice(
                &session.id,
                &format!(
                    "Run {} ended ({why}) before answering your message {}{next}.",
                    run.id,
                    quote(&message.text)
                ),
            )?;
        }
    }
    Ok(())
}

/// A message as a notice names it: its start, on one line.
pub fn quote(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut cut: String = line.chars().take(60).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    format!("“{cut}”")
}

/// The session pauses: its environment stays, and it expires at a time fixed now.
pub fn pause_session(ctx: &mut Ctx, session: &mut Session, agent: &Agent) {
    ctx.enter(session, SessionState::Paused);
    session.paused_at = Some(ctx.now);
    let lifetime = agent
        .settings
        .paused_lifetime_ms
        .min(ctx.cfg.paused_lifetime_cap_ms);
    session.expires_at = Some(ctx.now + lifetime);
    session.run_serving = false;
}
