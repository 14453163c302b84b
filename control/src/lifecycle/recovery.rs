//! A run died (its runner stopped heartbeating, never connected, or could not start it):
//! start another in the same environment, and give up after too many in a row.

use super::Ctx;
use super::environment::{schedule_teardown, teardown_failed};
use super::runs::serve_session;
use crate::error::Result;
use crate::model::*;

/// Recovers the session after `run` (already ended) died for `reason`.
pub fn recover(ctx: &mut Ctx, session: &mut Session, run: &Run, reason: &str) -> Result<()> {
    tracing::warn!(session = %session.id, run = %run.id, reason, "run died");
    if run.kind == RunKind::Teardown {
        return teardown_failed(ctx, session, &run.environment_id, reason);
    }
    session.consecutive_failures += 1;
    let environment = ctx.environment(&run.environment_id)?;
    if session.state.is_ended() {
        return schedule_teardown(ctx, session, environment);
    }
    let agent = ctx.agent(&session.agent.clone())?;
    if session.consecutive_failures >= ctx.cfg.max_failures_in_a_row {
        let why = format!(
            "gave up after {} runs failed in a row (last: {reason})",
            session.consecutive_failures
        );
        ctx.end_session(session, SessionState::Failed, &why)?;
        ctx.notice(&session.id, &format!("The session failed: {why}."))?;
        return schedule_teardown(ctx, session, environment);
    }
    if agent.disabled {
        let why = format!(
            "agent {} is disabled; no new run can start ({reason})",
            agent.name
        );
        ctx.end_session(session, SessionState::Failed, &why)?;
        return schedule_teardown(ctx, session, environment);
    }
    ctx.notice(
        &session.id,
        &format!(
            "Run {} ended: {reason}. Another run starts in the same environment.",
            run.id
        ),
    )?;
    serve_session(ctx, session)
}
