//! Offered runs that wait for a runner: why (shown in the session view and the dashboard), and
//! a new session's first run failing when no connected runner can take it for
//! `runner_wait_ms`, instead of waiting forever.

use serde::Serialize;

use super::Ctx;
use super::environment::schedule_teardown;
use super::offers::{environment_owner, has_room};
use super::runs::end_run;
use crate::duration::Human;
use crate::error::Result;
use crate::model::*;

/// Why an offered run is not taken.
#[derive(Debug, Clone, PartialEq)]
pub enum Wait {
    /// No connected runner can take it (none serves the agent, has its labels, or holds its
    /// environment): it waits for one to connect.
    NoRunner(String),
    /// Runners that can take it are connected, all at their capacity.
    Busy(String),
}

impl Wait {
    pub fn reason(&self) -> &str {
        match self {
            Wait::NoRunner(r) | Wait::Busy(r) => r,
        }
    }
}

/// What the session view says about a run waiting for a runner.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct WaitingView {
    pub run_id: String,
    pub reason: String,
    /// Since when no connected runner could take it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<Millis>,
    /// When it fails if no runner that can take it connects by then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fails_at: Option<Millis>,
}

/// Why no connected runner takes the offered `run` now; `None` when one can and has room.
pub fn why_waiting(ctx: &mut Ctx, run: &Run, session: &Session) -> Result<Option<Wait>> {
    let fresh = ctx.now.saturating_sub(ctx.cfg.connection_fresh_ms());
    let connected: Vec<Connection> = ctx.tx.connections(fresh)?;
    let agent = ctx.agent(&session.agent)?;
    if agent.disabled && run.kind != RunKind::Teardown {
        return Ok(Some(Wait::NoRunner(format!(
            "agent {} is disabled: no new run starts for it",
            agent.name
        ))));
    }
    let owner = environment_owner(&mut *ctx.tx, run)?;
    // The token's scope counts as much as what an instance claims (`Runner::may_take_for`).
    let runners: std::collections::HashMap<String, Runner> = ctx
        .tx
        .runners()?
        .into_iter()
        .map(|r| (r.id.clone(), r))
        .collect();
    let mut serving = Vec::new();
    for c in &connected {
        let Some(runner) = runners.get(&c.runner_id).filter(|r| !r.revoked()) else {
            continue;
        };
        let runner_ok = owner.as_ref().is_none_or(|o| *o == c.runner_id);
        if runner_ok && c.agents.contains(&session.agent) && runner.may_serve(&session.agent) {
            serving.push((runner, c));
        }
    }
    if serving.is_empty() {
        return Ok(Some(Wait::NoRunner(match &owner {
            Some(owner) => {
                let name = ctx.tx.runner(owner)?.map_or(owner.clone(), |r| r.name);
                format!(
                    "runner {name} holds this session's environment and is not connected (serving agent {})",
                    agent.name
                )
            }
            None => format!("no runner serving agent {} is connected", agent.name),
        })));
    }
    // What `offers::may_take` checks, with the agent and the environment's owner read once
    // above rather than once per connected instance.
    let able: Vec<&Connection> = serving
        .into_iter()
        .filter(|(r, c)| r.may_take_for(c, &agent.name, &agent.settings.requires_labels))
        .map(|(_, c)| c)
        .collect();
    if able.is_empty() {
        return Ok(Some(Wait::NoRunner(format!(
            "no runner with labels {} is connected (serving agent {})",
            agent.settings.requires_labels.join(", "),
            agent.name
        ))));
    }
    for c in &able {
        if has_room(ctx, c)? {
            return Ok(None);
        }
    }
    Ok(Some(Wait::Busy(format!(
        "every runner that can take it is busy ({} connected, each at its capacity)",
        able.len()
    ))))
}

/// Whether waiting too long fails the run: only a new session's first run (its environment
/// belongs to no runner yet). A resume waits for the runner that holds its environment.
fn fails_when_unmatched(ctx: &mut Ctx, run: &Run) -> Result<bool> {
    Ok(run.kind == RunKind::Start && ctx.environment(&run.environment_id)?.runner_id.is_none())
}

/// The view of the session's current run when it waits for a runner.
pub fn view(ctx: &mut Ctx, session: &Session) -> Result<Option<WaitingView>> {
    let Some(run) = ctx.current_run(session)? else {
        return Ok(None);
    };
    if run.status != RunStatus::Offered {
        return Ok(None);
    }
    let Some(wait) = why_waiting(ctx, &run, session)? else {
        return Ok(None);
    };
    let fails_at = match (&wait, run.unmatched_since) {
        (Wait::NoRunner(_), Some(since)) if fails_when_unmatched(ctx, &run)? => Some(
            ctx.cfg
                .since_start(since)
                .saturating_add(ctx.cfg.runner_wait_ms),
        ),
        _ => None,
    };
    Ok(Some(WaitingView {
        run_id: run.id,
        reason: wait.reason().to_string(),
        since: run.unmatched_since,
        fails_at,
    }))
}

/// The clock's look at one offered run: notes since when no runner could take it, forgets it
/// when one can, and fails a new session's first run that waited `runner_wait_ms` (counted from
/// this server's start at the earliest). Returns whether the session changed.
pub fn check_offered(ctx: &mut Ctx, run_id: &str) -> Result<bool> {
    let mut run = ctx.run(run_id)?;
    if run.status != RunStatus::Offered {
        return Ok(false);
    }
    let mut session = ctx.session(&run.session_id)?;
    let unmatched = match why_waiting(ctx, &run, &session)? {
        Some(Wait::NoRunner(reason)) => Some(reason),
        Some(Wait::Busy(_)) | None => None,
    };
    match (unmatched, run.unmatched_since) {
        (None, None) => Ok(false),
        (None, Some(_)) => {
            run.unmatched_since = None;
            ctx.tx.put_run(&run)?;
            Ok(false)
        }
        (Some(_), None) => {
            run.unmatched_since = Some(ctx.now);
            ctx.tx.put_run(&run)?;
            Ok(false)
        }
        (Some(reason), Some(since)) => {
            let waited = ctx.now - ctx.cfg.since_start(since);
            if waited < ctx.cfg.runner_wait_ms || !fails_when_unmatched(ctx, &run)? {
                return Ok(false);
            }
            let why = format!("{reason}; waited {}", Human(ctx.cfg.runner_wait_ms));
            end_run(
                ctx,
                &mut session,
                &mut run,
                RunStatus::Failed,
                Some(why.clone()),
            )?;
            ctx.end_session(&mut session, SessionState::Failed, &why)?;
            ctx.notice(&session.id, &format!("The session failed: {why}."))?;
            if let Some(environment) = ctx.session_environment(&session)? {
                schedule_teardown(ctx, &mut session, environment)?;
            }
            ctx.tx.put_session(&session)?;
            Ok(true)
        }
    }
}

/// Sessions whose current run waits for a runner, oldest offer first, with why.
pub fn waiting_sessions(ctx: &mut Ctx) -> Result<Vec<(String, WaitingView)>> {
    let mut out = Vec::new();
    for run in ctx.tx.offered_runs()? {
        let Some(session) = ctx.tx.read_session(&run.session_id)? else {
            continue;
        };
        if session.current_run_id.as_deref() != Some(&run.id) {
            continue;
        }
        if let Some(w) = view(ctx, &session)? {
            out.push((session.id, w));
        }
    }
    Ok(out)
}

/// A wait a webhook has not been told of yet: its session, since when, why, and the webhook.
pub struct Untold {
    session: Session,
    since: Millis,
    waiting: WaitingView,
    webhook: String,
}

/// The waits for a runner longer than a webhook's `waiting_longer_than_ms` that it has not been
/// told of: read in a read transaction first, so that a look at the waits that finds nothing
/// new (the usual case, every few seconds) takes no turn at the writer.
pub fn untold_waits(ctx: &mut Ctx) -> Result<Vec<Untold>> {
    let webhooks: Vec<Webhook> = ctx
        .tx
        .webhooks()?
        .into_iter()
        .filter(|w| w.events.contains(&WebhookEvent::WaitingForRunner))
        .collect();
    let mut untold = Vec::new();
    if webhooks.is_empty() {
        return Ok(untold);
    }
    for (session_id, waiting) in waiting_sessions(ctx)? {
        let since = match waiting.since {
            Some(since) => since,
            None => ctx.run(&waiting.run_id)?.created_at,
        };
        let key = wait_key(&waiting.run_id);
        let mut session = None;
        for webhook in &webhooks {
            if ctx.now - since < webhook.waiting_longer_than_ms
                || ctx.tx.has_delivery(&webhook.name, &key)?
            {
                continue;
            }
            if session.is_none() {
                session = ctx.tx.read_session(&session_id)?;
            }
            let Some(session) = &session else {
                break;
            };
            untold.push(Untold {
                session: session.clone(),
                since,
                waiting: waiting.clone(),
                webhook: webhook.name.clone(),
            });
        }
    }
    Ok(untold)
}

/// The delivery key of a run's wait: told once per webhook.
fn wait_key(run_id: &str) -> String {
    format!("waiting:{run_id}")
}

/// Tells each webhook of the waits it has not been told of ([`untold_waits`]). Answers how many
/// deliveries were made.
pub fn tell_webhooks(ctx: &mut Ctx) -> Result<usize> {
    let mut made = 0;
    for Untold {
        session,
        since,
        waiting,
        webhook,
    } in untold_waits(ctx)?
    {
        made += super::webhooks::notify(
            ctx,
            WebhookEvent::WaitingForRunner,
            &wait_key(&waiting.run_id),
            format!(
                "Session {} ({}) has waited for a runner for {}: {}",
                session.id,
                session.agent,
                crate::duration::Human(ctx.now - since),
                waiting.reason
            ),
            serde_json::json!({
                "session": super::webhooks::session_part(&session),
                "waiting": { "since": since, "reason": waiting.reason, "run_id": waiting.run_id },
            }),
            Some(&webhook),
        )?;
    }
    Ok(made)
}
