//! A message arrives for a session: a new session, or a follow-up.

use super::Ctx;
use super::audit::{Change, record};
use super::runs::{deliver, serve_session};
use crate::auth::new_id;
use crate::error::{Error, Result};
// A user's message is masked before it is stored: the transcript is read by everyone with the
// session, and runs get the message as stored. A secret the agent needs is given through a
// plug's grant, not the chat (docs/security.md).
use crate::mask::masked;
use crate::model::*;
use crate::names::{SESSION, check_name};
use crate::store::Event;

/// Opens a session with its first message, started by `by`; the start run is offered at once.
pub fn new_session(ctx: &mut Ctx, by: &Actor, agent_name: &str, text: &str) -> Result<Session> {
    check_name("agent", agent_name)?;
    let agent = ctx.agent(agent_name)?;
    if agent.disabled {
        return Err(Error::conflict(
            "agent_disabled",
            format!("agent {agent_name} is disabled: no new runs start for it"),
        ));
    }
    super::usage::refuse_past_daily_budget(ctx, &agent)?;
    check_text(text)?;
    let mut session = Session::new(new_id(SESSION.prefix), &agent.name, ctx.now);
    session.started_by = Some(by.who.clone());
    ctx.tx.note(Event::Session {
        from: None,
        to: session.state,
    });
    let message = receive(ctx, &mut session, text, by)?;
    serve_session(ctx, &mut session)?;
    ctx.tx.put_session(&session)?;
    record(
        ctx,
        by,
        Change::session(AuditAction::SessionStart, &session.id)
            .saying(format!("agent {}, message {}", agent.name, message.id)),
    )?;
    Ok(session)
}

/// A follow-up message from `by`. Goes to the running run as a prompt, waits while a run is
/// stopping or the environment is being torn down, or wakes a paused session.
pub fn send(ctx: &mut Ctx, by: &Actor, session_id: &str, text: &str) -> Result<Message> {
    check_text(text)?;
    let mut session = ctx.session(session_id)?;
    let environment = ctx.session_environment(&session)?;
    if let Some(env) = environment
        .as_ref()
        .filter(|e| e.state == EnvironmentState::Orphaned)
    {
        return Err(Error::conflict(
            "environment_orphaned",
            format!(
                "the message was not accepted: environment {} of session {session_id} is orphaned (last error: {}); an admin must retry the teardown (`blaise environment retry {}`)",
                env.id,
                env.last_error.as_deref().unwrap_or("none recorded"),
                env.id
            ),
        ));
    }
    if session.state.is_ended() {
        return Err(Error::conflict(
            "session_ended",
            format!(
                "session {session_id} has ended ({}); follow-up messages are rejected, open a new session",
                session.state
            ),
        ));
    }
    let current = ctx.current_run(&session)?;
    let agent = ctx.agent(&session.agent.clone())?;
    if current.is_none() && agent.disabled {
        return Err(Error::conflict(
            "agent_disabled",
            format!("agent {} is disabled: no new runs start for it", agent.name),
        ));
    }
    super::usage::refuse_past_budget(ctx, &session, &agent)?;
    let message = receive(ctx, &mut session, text, by)?;
    record(
        ctx,
        by,
        Change::session(AuditAction::SessionSend, session_id).saying(message.id.clone()),
    )?;
    match current {
        Some(run) if run.kind != RunKind::Teardown && run.stop.is_none() => {
            deliver(ctx, &mut session, &run, message.clone())?;
        }
        Some(_) => {} // stopping or tearing down: the message waits for the next run
        None => serve_session(ctx, &mut session)?,
    }
    ctx.tx.put_session(&session)?;
    Ok(ctx.tx.message(&message.id)?.unwrap_or(message))
}

/// The longest message Blaise takes: it is masked (a scan of its text)
/// and stored whole.
pub const MAX_MESSAGE: usize = 1 << 20;

fn check_text(text: &str) -> Result<()> {
    if text.trim().is_empty() {
        return Err(Error::BadRequest("the message is empty".into()));
    }
    if text.len() > MAX_MESSAGE {
        return Err(Error::BadRequest(format!(
            "the message is {} bytes; at most {MAX_MESSAGE} are taken (attach large text through the workspace)",
            text.len()
        )));
    }
    Ok(())
}

/// Records the message (waiting), masked, and shows it in the transcript with who sent it (a
/// source as `from`, a person as `by`).
fn receive(ctx: &mut Ctx, session: &mut Session, text: &str, by: &Actor) -> Result<Message> {
    let text = masked(text);
    let text = text.as_ref();
    let message = Message {
        id: new_id("msg"),
        session_id: session.id.clone(),
        text: text.to_string(),
        state: MessageState::Waiting,
        run_id: None,
        created_at: ctx.now,
        deliveries: 0,
        outcome: None,
        outcome_reason: None,
        ended_at_index: None,
    };
    ctx.tx.put_message(&message)?;
    let mut entry = TranscriptEntry {
        index: 0,
        session_id: session.id.clone(),
        run_id: None,
        seq: None,
        kind: "user_message".into(),
        content: if by.via == Channel::Linear {
            serde_json::json!({ "message_id": message.id, "text": text, "from": by.who })
        } else {
            serde_json::json!({ "message_id": message.id, "text": text, "by": by.who })
        },
        at: ctx.now,
    };
    ctx.tx.append_transcript(&mut entry)?;
    session.last_activity = ctx.now;
    Ok(message)
}

/// Cancels the turn in progress (a `cancel` directive to the session's run); the session stays
/// open. Returns the directive's number.
pub fn cancel_turn(ctx: &mut Ctx, by: &Actor, session_id: &str) -> Result<i64> {
    let session = ctx.session(session_id)?;
    let run = ctx
        .current_run(&session)?
        .filter(|r| r.status.is_live() && r.kind != RunKind::Teardown)
        .ok_or_else(|| {
            Error::conflict(
                "no_run",
                format!("session {session_id} has no running run to cancel a turn of"),
            )
        })?;
    // What the turn asked is over now: the run answers the agent
    // "cancelled" when the cancel reaches it, and nobody may answer it here.
    super::permissions::end_requests(
        ctx,
        &run,
        None,
        &super::permissions::turn_ended(TurnOutcome::Cancelled),
    )?;
    let seq = ctx
        .tx
        .add_directive(&run.id, &DirectiveBody::Cancel, ctx.now)?;
    record(
        ctx,
        by,
        Change::session(AuditAction::SessionCancel, session_id).saying(format!("run {}", run.id)),
    )?;
    Ok(seq)
}
