//! Runners: connecting, which runs they are offered, accepting one, and reading its directives.

use serde::Serialize;

use super::Ctx;
use super::close;
use crate::error::{Error, Result};
use crate::model::*;
use crate::names::check_name;

/// What a runner learns for each agent it serves when it connects.
#[derive(Serialize, Clone, Debug)]
pub struct AgentInfo {
    pub name: String,
    #[serde(flatten)]
    pub settings: AgentSettings,
    pub disabled: bool,
}

pub fn connect(
    ctx: &mut Ctx,
    runner: &Runner,
    instance: &str,
    agents: &[String],
) -> Result<Vec<AgentInfo>> {
    if instance.trim().is_empty() {
        return Err(Error::BadRequest(
            "`instance` must name this runner process".into(),
        ));
    }
    if agents.is_empty() {
        return Err(Error::BadRequest(
            "`agents` must name at least one agent".into(),
        ));
    }
    for (i, name) in agents.iter().enumerate() {
        check_name(&format!("agents[{i}]"), name)?;
    }
    let mut infos = Vec::new();
    for name in agents {
        let agent = ctx.agent(name)?;
        infos.push(AgentInfo {
            name: agent.name,
            settings: agent.settings,
            disabled: agent.disabled,
        });
    }
    ctx.tx.put_connection(&Connection {
        runner_id: runner.id.clone(),
        instance: instance.to_string(),
        agents: agents.to_vec(),
        last_seen: ctx.now,
    })?;
    Ok(infos)
}

/// A run as offered to a runner.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Offer {
    pub run_id: String,
    pub kind: RunKind,
    pub session_id: String,
    pub agent: String,
    pub environment_id: String,
}

/// Whether `runner` may take `run`: the agent is one it serves; resume and teardown runs only go
/// to the runner that holds the environment, unless that runner was revoked.
fn may_take(
    ctx: &mut Ctx,
    runner: &Runner,
    agents: &[String],
    run: &Run,
) -> Result<Option<Session>> {
    let session = ctx.session(&run.session_id)?;
    if !agents.contains(&session.agent) {
        return Ok(None);
    }
    let agent = ctx.agent(&session.agent.clone())?;
    if agent.disabled && run.kind != RunKind::Teardown {
        return Ok(None);
    }
    if run.kind != RunKind::Start {
        let environment = ctx.environment(&run.environment_id)?;
        if let Some(owner_id) = environment.runner_id.filter(|id| *id != runner.id) {
            let owner_revoked = ctx.tx.runner(&owner_id)?.is_none_or(|o| o.revoked());
            if !owner_revoked {
                return Ok(None);
            }
        }
    }
    Ok(Some(session))
}

fn connection(ctx: &mut Ctx, runner: &Runner, instance: &str) -> Result<Connection> {
    let mut connection = ctx.tx.connection(&runner.id, instance)?.ok_or_else(|| {
        Error::conflict(
            "not_connected",
            format!("instance {instance:?} has not connected; POST /v1/runner/connect first"),
        )
    })?;
    connection.last_seen = ctx.now;
    ctx.tx.put_connection(&connection)?;
    Ok(connection)
}

pub fn offers(ctx: &mut Ctx, runner: &Runner, instance: &str) -> Result<Vec<Offer>> {
    let connection = connection(ctx, runner, instance)?;
    let mut out = Vec::new();
    for run in ctx.tx.offered_runs()? {
        if let Some(session) = may_take(ctx, runner, &connection.agents, &run)? {
            out.push(Offer {
                run_id: run.id,
                kind: run.kind,
                session_id: session.id,
                agent: session.agent,
                environment_id: run.environment_id,
            });
        }
    }
    Ok(out)
}

/// What a runner needs to do an accepted run.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Assignment {
    pub run_id: String,
    pub kind: RunKind,
    pub session_id: String,
    pub environment_id: String,
    pub agent: String,
    pub settings: AgentSettings,
    /// For a resume run: the ACP session to `session/load`.
    pub acp_session_id: Option<String>,
    /// The environment was recreated (the transcript says so).
    pub fresh_environment: bool,
    /// For a teardown run: why the session ended.
    pub teardown_reason: Option<String>,
    pub heartbeat_interval_ms: Millis,
}

pub fn accept(ctx: &mut Ctx, runner: &Runner, instance: &str, run_id: &str) -> Result<Assignment> {
    let mut run = ctx.run(run_id)?;
    let mut session = match run.status {
        RunStatus::Offered => {
            let connection = connection(ctx, runner, instance)?;
            may_take(ctx, runner, &connection.agents, &run)?
                .ok_or_else(|| Error::not_found("run", run_id))?
        }
        _ if run.runner_id.as_deref() == Some(&runner.id)
            && run.instance.as_deref() == Some(instance) =>
        {
            // The same instance accepting again (its response was lost): same answer.
            let session = ctx.session(&run.session_id)?;
            return assignment(ctx, &run, &session);
        }
        _ if run.runner_id.as_deref() == Some(&runner.id) => {
            return Err(Error::conflict(
                "already_accepted",
                format!("run {run_id} was accepted by another instance of this runner"),
            ));
        }
        _ => return Err(Error::not_found("run", run_id)),
    };
    run.status = RunStatus::Accepted;
    run.runner_id = Some(runner.id.clone());
    run.instance = Some(instance.to_string());
    run.accepted_at = Some(ctx.now);
    ctx.tx.put_run(&run)?;
    let mut environment = ctx.environment(&run.environment_id)?;
    if environment.runner_id.as_deref() != Some(&runner.id) {
        environment.runner_id = Some(runner.id.clone());
        environment.updated_at = ctx.now;
        ctx.tx.put_environment(&environment)?;
    }
    session.last_activity = session.last_activity.max(ctx.now);
    ctx.tx.put_session(&session)?;
    assignment(ctx, &run, &session)
}

fn assignment(ctx: &mut Ctx, run: &Run, session: &Session) -> Result<Assignment> {
    let agent = ctx.agent(&session.agent)?;
    Ok(Assignment {
        run_id: run.id.clone(),
        kind: run.kind,
        session_id: session.id.clone(),
        environment_id: run.environment_id.clone(),
        agent: agent.name,
        settings: agent.settings,
        acp_session_id: match run.kind {
            RunKind::Resume => session.acp_session_id.clone(),
            _ => None,
        },
        fresh_environment: run.fresh_environment,
        teardown_reason: match run.kind {
            RunKind::Teardown => Some(
                session
                    .end_reason
                    .clone()
                    .unwrap_or_else(|| "the environment is being recreated".into()),
            ),
            _ => None,
        },
        heartbeat_interval_ms: ctx.cfg.heartbeat_interval_ms,
    })
}

/// The run (of `runner`) a request from the run itself is about; records the contact.
pub fn own_run(ctx: &mut Ctx, runner: &Runner, run_id: &str) -> Result<Run> {
    let mut run = ctx.run(run_id)?;
    if run.runner_id.as_deref() != Some(&runner.id) {
        return Err(Error::not_found("run", run_id));
    }
    // Contact is recorded at a granularity of a tenth of the heartbeat timeout (at most 1s), so
    // a busy run does not rewrite its record on every request.
    let granularity = (ctx.cfg.heartbeat_timeout_ms / 10).min(1_000);
    let stale = run
        .last_contact_at
        .is_none_or(|t| t + granularity <= ctx.now);
    if run.status.is_live() && stale {
        run.first_contact_at.get_or_insert(ctx.now);
        run.last_contact_at = Some(ctx.now);
        ctx.tx.put_run(&run)?;
    }
    Ok(run)
}

/// Directives after `after`, marked as received. A close stop takes effect here.
pub fn directives(
    ctx: &mut Ctx,
    runner: &Runner,
    run_id: &str,
    after: i64,
) -> Result<(Run, Vec<Directive>)> {
    let mut run = own_run(ctx, runner, run_id)?;
    let mut out = ctx.tx.directives_after(run_id, after)?;
    let mut session: Option<Session> = None;
    for directive in &mut out {
        if directive.delivered_at.is_some() {
            continue;
        }
        directive.delivered_at = Some(ctx.now);
        ctx.tx.put_directive(directive)?;
        if let DirectiveBody::Stop(stop) = directive.body
            && stop.reason == StopReason::Closed
            && run.stop.is_none_or(|s| s.reason != StopReason::Closed)
        {
            let s = match session.as_mut() {
                Some(s) => s,
                None => session.insert(ctx.session(&run.session_id)?),
            };
            close::delivered(ctx, s, &mut run, stop)?;
            ctx.tx.put_run(&run)?;
        }
    }
    if let Some(s) = session {
        ctx.tx.put_session(&s)?;
    }
    Ok((run, out))
}
