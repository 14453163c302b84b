//! Runner tokens: adding a runner, revoking it, giving it a new token.

use super::Ctx;
use super::audit::{Change, record};
use super::offers::MAX_AGENTS;
use super::runs::{end_run, serve_session};
use crate::auth::{hash_token, new_id, new_token};
use crate::error::{Error, Result};
use crate::model::*;
use crate::names::{check_labels, check_list, check_name};

/// What a runner's token may serve, as a request gives it: each part `None` (any) or a list.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Scope {
    pub agents: Option<Vec<String>>,
    pub labels: Option<Vec<String>>,
}

/// A change to a runner's scope: a part left `None` stays as it is.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ScopeChange {
    pub agents: Option<Option<Vec<String>>>,
    pub labels: Option<Option<Vec<String>>>,
}

/// Checks a scope's lists and folds repeats (a scope is two sets).
fn checked(scope: Scope) -> Result<Scope> {
    let agents = match scope.agents {
        Some(agents) => {
            if agents.is_empty() {
                return Err(Error::invalid(
                    "invalid_field",
                    "agents",
                    "`agents` must name at least one agent (to allow any agent, leave it out or \
                     give null)",
                ));
            }
            check_list("agents", &agents, MAX_AGENTS, "agents", check_name)?;
            Some(folded(agents))
        }
        None => None,
    };
    let labels = match scope.labels {
        Some(labels) => {
            check_labels("labels", &labels)?;
            Some(folded(labels))
        }
        None => None,
    };
    Ok(Scope { agents, labels })
}

fn folded(mut items: Vec<String>) -> Vec<String> {
    items.sort();
    items.dedup();
    items
}

/// Adds a runner whose token may serve `scope`; returns it and its token (shown once, stored
/// hashed).
pub fn add(ctx: &mut Ctx, by: &Actor, name: &str, scope: Scope) -> Result<(Runner, String)> {
    check_name("name", name)?;
    let scope = checked(scope)?;
    if ctx.tx.runner_by_name(name)?.is_some() {
        return Err(Error::conflict(
            "runner_exists",
            format!(
                "a runner named {name:?} exists already; `blaise runner token {name}` gives it a \
                 new token"
            ),
        ));
    }
    let token = new_token("blr_");
    let runner = Runner {
        id: new_id("rnr"),
        name: name.to_string(),
        token_hash: hash_token(&token),
        created_at: ctx.now,
        revoked_at: None,
        agents: scope.agents,
        labels: scope.labels,
    };
    ctx.tx.put_runner(&runner)?;
    record(
        ctx,
        by,
        Change::of(AuditAction::RunnerAdd, name).saying(scope_of(&runner)),
    )?;
    Ok((runner, token))
}

/// A runner's scope in a few words: `agents coder, labels gpu`.
fn scope_of(runner: &Runner) -> String {
    let list = |l: &Option<Vec<String>>| l.as_ref().map_or("any".to_owned(), |l| l.join(" "));
    format!(
        "agents {}; labels {}",
        list(&runner.agents),
        list(&runner.labels)
    )
}

/// Changes what a runner's token may serve. It holds at once: its instances are offered only
/// runs the new scope allows, and an instance that connects claiming more is refused. A
/// session whose environment it holds and whose agent it may no longer serve continues
/// elsewhere, in a fresh environment, as after a revoke (the old environment is orphaned: its
/// runner may not tear it down for that agent).
pub fn set_scope(ctx: &mut Ctx, by: &Actor, name: &str, change: ScopeChange) -> Result<Runner> {
    check_name("name", name)?;
    let mut runner = ctx
        .tx
        .runner_by_name(name)?
        .ok_or_else(|| Error::NotFound(format!("no runner named {name:?}")))?;
    let scope = checked(Scope {
        agents: change.agents.unwrap_or_else(|| runner.agents.clone()),
        labels: change.labels.unwrap_or_else(|| runner.labels.clone()),
    })?;
    let was = scope_of(&runner);
    runner.agents = scope.agents;
    runner.labels = scope.labels;
    ctx.tx.put_runner(&runner)?;
    record(
        ctx,
        by,
        Change::of(AuditAction::RunnerScope, name).saying(format!("{was} → {}", scope_of(&runner))),
    )?;
    let reason = format!("runner {name} may no longer serve this session's agent");
    withdraw_resumes(ctx, &runner, &reason, |runner, session| {
        !runner.may_serve(&session.agent)
    })?;
    Ok(runner)
}

/// Gives a runner a new token (shown once) and makes it valid again if it
/// was revoked: the old token stops working at once (its instances' calls
/// are refused; their runs time out as for a dead runner), the runner keeps
/// its name and its environments.
pub fn rotate_token(ctx: &mut Ctx, by: &Actor, name: &str) -> Result<(Runner, String)> {
    check_name("name", name)?;
    let mut runner = ctx
        .tx
        .runner_by_name(name)?
        .ok_or_else(|| Error::NotFound(format!("no runner named {name:?}")))?;
    let token = new_token("blr_");
    runner.token_hash = hash_token(&token);
    let was_revoked = runner.revoked();
    runner.revoked_at = None;
    ctx.tx.put_runner(&runner)?;
    let detail = if was_revoked { "valid again" } else { "" };
    record(
        ctx,
        by,
        Change::of(AuditAction::RunnerToken, name).saying(detail),
    )?;
    Ok((runner, token))
}

/// Revokes a runner's token. Resume runs waiting for it go to any matching runner instead, in a
/// fresh environment; its live runs time out as for a dead runner.
pub fn revoke(ctx: &mut Ctx, by: &Actor, name: &str) -> Result<Runner> {
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
    record(ctx, by, Change::of(AuditAction::RunnerRevoke, name))?;
    withdraw_resumes(
        ctx,
        &runner,
        &format!("runner {name} was revoked"),
        |_, _| true,
    )?;
    Ok(runner)
}

/// Ends the offered resume runs of environments `runner` holds, for the sessions `released`
/// picks, and serves those sessions again (a fresh environment, see `serve_session`).
fn withdraw_resumes(
    ctx: &mut Ctx,
    runner: &Runner,
    reason: &str,
    released: impl Fn(&Runner, &Session) -> bool,
) -> Result<()> {
    for mut run in ctx.tx.offered_runs()? {
        if run.kind != RunKind::Resume {
            continue;
        }
        let environment = ctx.environment(&run.environment_id)?;
        if environment.runner_id.as_deref() != Some(&runner.id) {
            continue;
        }
        let mut session = ctx.session(&run.session_id)?;
        if !released(runner, &session) {
            continue;
        }
        end_run(
            ctx,
            &mut session,
            &mut run,
            RunStatus::Withdrawn,
            Some(reason.to_string()),
        )?;
        serve_session(ctx, &mut session)?;
        ctx.tx.put_session(&session)?;
    }
    Ok(())
}
