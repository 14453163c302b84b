//! Runner tokens: adding a runner, revoking it, giving it a new token.

use super::Ctx;
use super::runs::{end_run, serve_session};
use crate::auth::{hash_token, new_id, new_token};
use crate::error::{Error, Result};
use crate::model::*;
use crate::names::check_name;

/// Adds a runner; returns it and its token (shown once, stored hashed).
pub fn add(ctx: &mut Ctx, name: &str) -> Result<(Runner, String)> {
    check_name("name", name)?;
    if ctx.tx.runner_by_name(name)?.is_some() {
        return Err(Error::conflict(
            "runner_exists",
            format!("a runner named {name:?} exists already; names are never reused"),
        ));
    }
    let token = new_token("blr_");
    let runner = Runner {
        id: new_id("rnr"),
        name: name.to_string(),
        token_hash: hash_token(&token),
        created_at: ctx.now,
        revoked_at: None,
    };
    ctx.tx.put_runner(&runner)?;
    Ok((runner, token))
}

/// Gives a runner a new token (shown once) and makes it valid again if it
/// was revoked: the old token stops working at once (its instances' calls
/// are refused; their runs time out as for a dead runner), the runner keeps
/// its name and its environments.
pub fn rotate_token(ctx: &mut Ctx, name: &str) -> Result<(Runner, String)> {
    check_name("name", name)?;
    let mut runner = ctx
        .tx
        .runner_by_name(name)?
        .ok_or_else(|| Error::NotFound(format!("no runner named {name:?}")))?;
    let token = new_token("blr_");
    runner.token_hash = hash_token(&token);
    runner.revoked_at = None;
    ctx.tx.put_runner(&runner)?;
    Ok((runner, token))
}

/// Revokes a runner's token. Resume runs waiting for it go to any matching runner instead, in a
/// fresh environment; its live runs time out as for a dead runner.
pub fn revoke(ctx: &mut Ctx, name: &str) -> Result<Runner> {
    check_name("name", name)?;
    let mut runner = ctx
        .tx
        .runner_by_name(name)?
        .ok_or_else(|| Error::NotFound(format!("no runner named {name:?}")))?;
    if runner.revoked() {
        return Ok(runner);
    }
    runner.revoked_at = Some(ctx.now);
    ctx.tx.put_runner(&runner)?;
    for mut run in ctx.tx.offered_runs()? {
        if run.kind != RunKind::Resume {
            continue;
        }
        let environment = ctx.environment(&run.environment_id)?;
        if environment.runner_id.as_deref() != Some(&runner.id) {
            continue;
        }
        let mut session = ctx.session(&run.session_id)?;
        end_run(
            ctx,
            &mut session,
            &mut run,
            RunStatus::Withdrawn,
            Some(format!("runner {name} was revoked")),
        )?;
        serve_session(ctx, &mut session)?;
        ctx.tx.put_session(&session)?;
    }
    Ok(runner)
}
