//! Someone answers a permission request (from the API or the dashboard): the
//! answer goes to the run that asked, on its directive stream.

use super::Ctx;
use crate::error::{Error, Result};
use crate::model::*;

/// Answers `request_id` of `session_id` with `option_id`, saying who answered, through what
/// and when (kept with the request, in the transcript and in the audit trail). The same answer again is acknowledged (its response may have been lost); another
/// answer to an answered request, an option the request does not offer, or a request whose run
/// has finished, is refused, naming who answered it, and changes nothing.
pub fn answer(
    ctx: &mut Ctx,
    session_id: &str,
    request_id: &str,
    option_id: &str,
    by: &Actor,
) -> Result<PermissionRequest> {
    let session = ctx.session(session_id)?;
    let mut pending = ctx
        .tx
        .permissions(session_id)?
        .into_iter()
        .rev()
        .find(|p| p.request_id == request_id)
        .ok_or_else(|| Error::not_found("permission request", request_id))?;
    if pending.state == PermissionState::Answered && pending.answer.as_deref() == Some(option_id) {
        return Ok(pending);
    }
    if pending.state == PermissionState::Cancelled {
        let why = pending
            .ended
            .clone()
            .unwrap_or_else(|| format!("the run that asked ({}) has ended", pending.run_id));
        return Err(Error::conflict(
            "request_ended",
            format!("permission request {request_id} can no longer be answered: {why}"),
        ));
    }
    if pending.state == PermissionState::Answered {
        let by = match (&pending.answered_by, &pending.answered_via) {
            (Some(who), Some(via)) => format!(" by {who} through {via}"),
            _ => String::new(),
        };
        return Err(Error::conflict(
            "already_answered",
            format!(
                "permission request {request_id} was already answered{by}: {}",
                pending.answer.as_deref().unwrap_or("?")
            ),
        ));
    }
    if let Some(offered) = offered(&pending.request)
        && !offered.iter().any(|o| o == option_id)
    {
        return Err(Error::invalid(
            "invalid_option",
            "option_id",
            format!(
                "`{}` is not an option of permission request {request_id} (it offers {})",
                crate::names::shown(option_id),
                offered.join(", ")
            ),
        ));
    }
    let run = ctx.run(&pending.run_id)?;
    if run.status.is_finished() || session.current_run_id.as_deref() != Some(&run.id) {
        return Err(Error::conflict(
            "request_ended",
            format!(
                "the run that asked ({}) has finished; the request can no longer be answered",
                run.id
            ),
        ));
    }
    ctx.tx.add_directive(
        &run.id,
        &DirectiveBody::PermissionAnswer {
            request_id: request_id.to_owned(),
            option_id: option_id.to_owned(),
        },
        ctx.now,
    )?;
    pending.state = PermissionState::Answered;
    pending.answer = Some(option_id.to_owned());
    pending.answered_by = Some(by.who.clone());
    pending.answered_via = Some(by.via.as_str().to_owned());
    pending.answered_at = Some(ctx.now);
    ctx.tx.put_permission(&pending)?;
    let mut entry = TranscriptEntry {
        index: 0,
        session_id: session_id.to_owned(),
        run_id: Some(run.id.clone()),
        seq: None,
        kind: "permission_answer".into(),
        content: serde_json::json!({
            "text": format!("{} answered {option_id} through {}: {}", by.who, by.via, pending.asks()),
            "request_id": request_id,
            "option_id": option_id,
            "by": by.who,
            "via": by.via,
        }),
        at: ctx.now,
    };
    ctx.tx.append_transcript(&mut entry)?;
    super::audit::record(
        ctx,
        by,
        super::audit::Change::session(AuditAction::PermissionAnswer, session_id)
            // The agent's words, masked: the trail outlives the session's transcript.
            .saying(
                crate::mask::masked(&format!("{request_id} ({}): {option_id}", pending.asks()))
                    .into_owned(),
            ),
    )?;
    // The agent had nothing to do while a person decided: its silence counts from the answer.
    let mut session = session;
    session.last_output_at = Some(ctx.now);
    ctx.tx.put_session(&session)?;
    Ok(pending)
}

/// Whether `run` waits on a person: a permission request of its nobody has answered yet.
/// Such a wait is not the agent's silence.
pub fn waits_on_a_person(ctx: &mut Ctx, run: &Run) -> Result<bool> {
    Ok(ctx
        .tx
        .permissions(&run.session_id)?
        .iter()
        .any(|p| p.run_id == run.id && p.state == PermissionState::Pending))
}

/// Cancels the requests of `run` nobody answered: the run has ended, and its agent with it.
pub fn cancel_pending(ctx: &mut Ctx, run: &Run) -> Result<()> {
    let why = format!("run {} ended ({})", run.id, run.status);
    end_requests(ctx, run, None, &why)
}

/// Ends the pending requests of `run` that belong to the turn of
/// `message_id` (`None`: every pending request of the run), saying `why`:
/// a turn that ends takes its requests with it.
pub fn end_requests(ctx: &mut Ctx, run: &Run, message_id: Option<&str>, why: &str) -> Result<()> {
    for mut p in ctx.tx.permissions(&run.session_id)? {
        let of_turn = match (message_id, p.message_id.as_deref()) {
            (Some(turn), Some(asked)) => turn == asked,
            // A request of a runner that did not say its turn: turns are
            // served one at a time, so it was the one ending.
            _ => true,
        };
        if p.run_id == run.id && p.state == PermissionState::Pending && of_turn {
            p.state = PermissionState::Cancelled;
            p.ended = Some(why.to_owned());
            p.ended_at = Some(ctx.now);
            ctx.tx.put_permission(&p)?;
        }
    }
    Ok(())
}

/// Why a request of `message_id`'s turn in `run` can no longer be answered,
/// if its turn has ended already.
pub fn turn_over(ctx: &mut Ctx, run: &Run, message_id: Option<&str>) -> Result<Option<String>> {
    let Some(id) = message_id else {
        return Ok(None);
    };
    Ok(ctx
        .tx
        .message(id)?
        .filter(|m| m.session_id == run.session_id && m.state == MessageState::Answered)
        .map(|m| turn_ended(m.outcome.unwrap_or_default())))
}

/// What ends a turn's requests, as the request then says.
pub fn turn_ended(outcome: TurnOutcome) -> String {
    match outcome {
        TurnOutcome::Answered => "its turn ended: the agent answered".into(),
        TurnOutcome::Cancelled => "its turn was cancelled".into(),
        TurnOutcome::Failed => "its turn failed".into(),
    }
}

/// The option ids a stored request offers: `options[].option_id` (what
/// runners send), or ACP's own `optionId` (what runners before version 0.2
/// stored); `None` when it lists none.
pub fn offered(request: &serde_json::Value) -> Option<Vec<String>> {
    let options = request.get("options")?.as_array()?;
    let ids: Vec<String> = options
        .iter()
        .filter_map(|o| o.get("option_id").or_else(|| o.get("optionId"))?.as_str())
        .map(str::to_owned)
        .collect();
    (!ids.is_empty()).then_some(ids)
}
