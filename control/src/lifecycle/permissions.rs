//! Someone answers a permission request (from the API or the dashboard): the
//! answer goes to the run that asked, on its directive stream.

use super::Ctx;
use crate::error::{Error, Result};
use crate::model::*;

/// Answers `request_id` of `session_id` with `option_id`. The same answer
/// again is acknowledged (its response may have been lost); another answer
/// to an answered request, an option the request does not offer, or a
/// request whose run has finished, is refused and changes nothing.
pub fn answer(
    ctx: &mut Ctx,
    session_id: &str,
    request_id: &str,
    option_id: &str,
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
        return Err(Error::conflict(
            "run_finished",
            format!(
                "permission request {request_id} was cancelled: the run that asked ({}) has ended",
                pending.run_id
            ),
        ));
    }
    if pending.state == PermissionState::Answered {
        return Err(Error::conflict(
            "already_answered",
            format!("permission request {request_id} was already answered"),
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
            "run_finished",
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
    ctx.tx.put_permission(&pending)?;
    Ok(pending)
}

/// Cancels the requests of `run` nobody answered: the run has ended, and its agent with it.
pub fn cancel_pending(ctx: &mut Ctx, run: &Run) -> Result<()> {
    for mut p in ctx.tx.permissions(&run.session_id)? {
        if p.run_id == run.id && p.state == PermissionState::Pending {
            p.state = PermissionState::Cancelled;
            ctx.tx.put_permission(&p)?;
        }
    }
    Ok(())
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
