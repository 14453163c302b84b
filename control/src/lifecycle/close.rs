//! Someone closes a session. A running session shows as closed once its run has received the
//! stop; if no runner receives it, nothing changes and the request fails.

use super::Ctx;
use super::audit::{Change, record};
use super::environment::schedule_teardown;
use super::runs::end_run;
use crate::error::{Error, Result};
use crate::model::*;

pub enum CloseStep {
    /// The session is closed.
    Done(Box<Session>),
    /// A stop waits for the run to receive it: directive `seq` on run `run_id`.
    AwaitingDelivery { run_id: String, seq: i64 },
}

pub fn begin(ctx: &mut Ctx, by: &Actor, session_id: &str) -> Result<CloseStep> {
    let mut session = ctx.session(session_id)?;
    if session.state.is_ended() {
        return Err(Error::conflict(
            "session_ended",
            format!("session {session_id} has already ended ({})", session.state),
        ));
    }
    if let Some(mut run) = ctx.current_run(&session)? {
        match (run.kind, run.status) {
            (RunKind::Teardown, _) => {}
            (_, RunStatus::Offered) => {
                end_run(
                    ctx,
                    &mut session,
                    &mut run,
                    RunStatus::Withdrawn,
                    Some("the session was closed before a runner took the run".into()),
                )?;
            }
            _ => {
                // The stop is in the stream but takes effect only when the run receives it.
                let stop = StopDirective {
                    reason: StopReason::Closed,
                    may_resume: false,
                    keep_agent: false,
                };
                let seq = ctx
                    .tx
                    .add_directive(&run.id, &DirectiveBody::Stop(stop), ctx.now)?;
                record(
                    ctx,
                    by,
                    Change::session(AuditAction::SessionClose, session_id)
                        .saying(format!("stop sent to run {}", run.id)),
                )?;
                return Ok(CloseStep::AwaitingDelivery {
                    run_id: run.id,
                    seq,
                });
            }
        }
    }
    ctx.end_session(&mut session, SessionState::Closed, "closed")?;
    if session.current_run_id.is_none()
        && let Some(environment) = ctx.session_environment(&session)?
        && matches!(
            environment.state,
            EnvironmentState::Paused | EnvironmentState::Active | EnvironmentState::Creating
        )
    {
        schedule_teardown(ctx, &mut session, environment)?;
    }
    ctx.tx.put_session(&session)?;
    record(
        ctx,
        by,
        Change::session(AuditAction::SessionClose, session_id).saying("closed"),
    )?;
    Ok(CloseStep::Done(Box::new(session)))
}

/// Whether the close stop has been received (`Some(true)`), not yet (`None`), or — with
/// `give_up` — was withdrawn unreceived (`Some(false)`; the caller answers with [`not_received`]).
pub fn check(
    ctx: &mut Ctx,
    by: &Actor,
    run_id: &str,
    seq: i64,
    give_up: bool,
) -> Result<Option<bool>> {
    let directive = ctx
        .tx
        .directives_after(run_id, seq - 1)?
        .into_iter()
        .find(|d| d.seq == seq);
    // A run that ended before reading the stop (it paused, say) will never receive it.
    let run_finished = ctx.run(run_id)?.status.is_finished();
    match directive {
        Some(d) if d.delivered_at.is_some() => Ok(Some(true)),
        Some(_) if give_up || run_finished => {
            ctx.tx.delete_directive(run_id, seq)?;
            let session_id = ctx.run(run_id)?.session_id;
            record(
                ctx,
                by,
                Change::session(AuditAction::SessionClose, &session_id)
                    .saying(format!("stop withdrawn: run {run_id} did not receive it")),
            )?;
            Ok(Some(false))
        }
        Some(_) => Ok(None),
        None => Ok(Some(false)),
    }
}

pub fn not_received(session_id: &str, run_id: &str) -> Error {
    Error::conflict(
        "no_runner_connected",
        format!(
            "no runner received the stop for run {run_id} of session {session_id}; nothing changed, try again when its runner is connected"
        ),
    )
}

/// The run has received the close stop: the session is closed from now on.
pub fn delivered(
    ctx: &mut Ctx,
    session: &mut Session,
    run: &mut Run,
    stop: StopDirective,
) -> Result<()> {
    run.stop = Some(stop);
    run.stop_issued_at = Some(ctx.now);
    ctx.end_session(session, SessionState::Closed, "closed")
}
