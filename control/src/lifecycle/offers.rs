//! Runners: connecting, which runs they are offered, accepting one, and reading its directives.

use super::Ctx;
use super::close;
use crate::error::{Error, Result};
use crate::model::*;
use crate::names::{check_labels, check_list, check_name};
use crate::store::{Event, StoreResult, Tx};
pub use blaise_protocol::{AgentInfo, Assignment, Offer};

/// What a runner instance says about itself when it connects.
pub struct Hello<'a> {
    pub instance: &'a str,
    pub agents: &'a [String],
    /// Most runs it takes at once (`None`: no limit).
    pub capacity: Option<u32>,
    pub labels: &'a [String],
}

impl<'a> Hello<'a> {
    /// An instance serving `agents`, with no limit and no labels.
    pub fn serving(instance: &'a str, agents: &'a [String]) -> Self {
        Hello {
            instance,
            agents,
            capacity: None,
            labels: &[],
        }
    }
}

/// The most runs one instance may say it takes at once.
pub const MAX_CAPACITY: u32 = 100_000;

/// Most agents one runner instance may serve.
pub const MAX_AGENTS: usize = 64;

pub fn connect(ctx: &mut Ctx, runner: &Runner, hello: &Hello) -> Result<Vec<AgentInfo>> {
    let Hello {
        instance,
        agents,
        capacity,
        labels,
    } = *hello;
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
    // Each name costs a read inside the writer's transaction, and the list
    // is kept and read again on every clock tick while a run waits.
    check_list("agents", agents, MAX_AGENTS, "agents", check_name)?;
    if let Some(c) = capacity
        && !(1..=MAX_CAPACITY).contains(&c)
    {
        return Err(Error::invalid(
            "invalid_field",
            "capacity",
            format!("`capacity` must be 1 to {MAX_CAPACITY} runs, not {c}"),
        ));
    }
    check_labels("labels", labels)?;
    let beyond: Vec<&str> = agents
        .iter()
        .filter(|a| !runner.may_serve(a))
        .map(String::as_str)
        .collect();
    if !beyond.is_empty() {
        return Err(Error::Forbidden(format!(
            "runner {}'s token may serve agents {}, not {}",
            runner.name,
            runner.agents.as_deref().unwrap_or_default().join(", "),
            beyond.join(", ")
        )));
    }
    let beyond: Vec<&str> = labels
        .iter()
        .filter(|l| !runner.may_claim(l))
        .map(String::as_str)
        .collect();
    if !beyond.is_empty() {
        let allowed = runner.labels.as_deref().unwrap_or_default();
        return Err(Error::Forbidden(format!(
            "runner {}'s token may claim {}, not {}",
            runner.name,
            if allowed.is_empty() {
                "no labels".to_string()
            } else {
                format!("labels {}", allowed.join(", "))
            },
            beyond.join(", ")
        )));
    }
    let connection = Connection {
        runner_id: runner.id.clone(),
        instance: instance.to_string(),
        agents: agents.to_vec(),
        last_seen: ctx.now,
        capacity,
        labels: labels.to_vec(),
    };
    let mut infos = Vec::new();
    for name in agents {
        let agent = ctx.agent(name)?;
        let mut settings = agent.settings.wire();
        // The instance's own target, as offers say it (see `warm_target`).
        if agent.disabled
            || !runner.may_take_for(&connection, &agent.name, &agent.settings.requires_labels)
        {
            settings.warm_agents = 0;
        }
        infos.push(AgentInfo {
            name: agent.name,
            settings,
            disabled: agent.disabled,
        });
    }
    ctx.tx.put_connection(&connection)?;
    Ok(infos)
}

/// Whether the instance `connection` of `runner` may take `run` of `session`: the agent is one
/// it serves and it has every label the agent requires; resume and teardown runs only go to the
/// runner that holds the environment, unless that runner was revoked. (Room is checked apart:
/// see [`has_room`].)
fn may_take(
    ctx: &mut Ctx,
    runner: &Runner,
    connection: &Connection,
    run: &Run,
    session: &Session,
) -> Result<bool> {
    if !connection.agents.contains(&session.agent) {
        return Ok(false);
    }
    let agent = ctx.agent(&session.agent)?;
    if agent.disabled && run.kind != RunKind::Teardown {
        return Ok(false);
    }
    let owner = environment_owner(&mut *ctx.tx, run)?;
    if owner.as_ref().is_some_and(|owner| *owner != runner.id) {
        return Ok(false);
    }
    // The runner holding an environment tears it down even when its token
    // may no longer serve the agent (its scope narrowed, which is what left
    // the environment behind): nobody else can reach what its plugs made.
    let teardown_of_its_own = run.kind == RunKind::Teardown && owner.is_some();
    if !teardown_of_its_own
        && !runner.may_take_for(connection, &agent.name, &agent.settings.requires_labels)
    {
        return Ok(false);
    }
    // A resume goes to the instance that keeps the agent while it does and
    // is connected: elsewhere it would be cold.
    if run.kind == RunKind::Resume
        && let Some(kept) = keeper_of(ctx, run)?
    {
        return Ok(kept.runner_id == connection.runner_id && kept.instance == connection.instance);
    }
    Ok(true)
}

/// The instance keeping the agent of `run`'s environment, while its hot
/// time lasts and it is connected.
fn keeper_of(ctx: &mut Ctx, run: &Run) -> Result<Option<KeptAgent>> {
    let Some(kept) = ctx
        .tx
        .read_environment(&run.environment_id)?
        .and_then(|e| e.kept_agent)
        .filter(|k| k.until > ctx.now)
    else {
        return Ok(None);
    };
    let fresh = ctx.now.saturating_sub(ctx.cfg.connection_fresh_ms());
    let connected = ctx
        .tx
        .connection(&kept.runner_id, &kept.instance)?
        .is_some_and(|c| c.last_seen >= fresh);
    Ok(connected.then_some(kept))
}

/// Most kept sessions one offers poll may name.
pub const MAX_KEPT: usize = 256;

/// Which of the sessions whose agents this instance says it keeps it should
/// let go: all but those whose paused environment names it as the keeper
/// within its hot time, and those whose run is live on it (between the run's
/// hand-over and its report, and while a resume takes the agent up).
pub fn release_agents(
    ctx: &mut Ctx,
    runner: &Runner,
    instance: &str,
    kept: &[String],
) -> Result<Vec<String>> {
    let mut release = Vec::new();
    for session_id in kept.iter().take(MAX_KEPT) {
        let Some(session) = ctx.tx.read_session(session_id)? else {
            release.push(session_id.clone());
            continue;
        };
        let live_here = match &session.current_run_id {
            Some(run_id) => ctx.tx.run(run_id)?.is_some_and(|r| {
                r.status.is_live()
                    && r.runner_id.as_deref() == Some(&runner.id)
                    && r.instance.as_deref() == Some(instance)
            }),
            None => false,
        };
        let environment = match &session.environment_id {
            Some(id) => ctx.tx.read_environment(id)?,
            None => None,
        };
        let still_hot = environment.is_some_and(|e| {
            e.state == EnvironmentState::Paused
                && e.kept_agent.is_some_and(|k| {
                    k.runner_id == runner.id && k.instance == instance && k.until > ctx.now
                })
        });
        if !(live_here || still_hot) {
            release.push(session_id.clone());
        }
    }
    Ok(release)
}

/// The runner a run must go to: the one holding its environment (for a resume or a teardown),
/// unless that runner was revoked; `None` when any runner may take it. Also how a transaction
/// that offers a run knows whose offers polls to wake.
pub fn environment_owner(tx: &mut dyn Tx, run: &Run) -> StoreResult<Option<String>> {
    if run.kind == RunKind::Start {
        return Ok(None);
    }
    // Read without the session's lock: the runner is set by an accept, which holds it, and a
    // statement sees what was committed before it.
    let Some(owner_id) = tx
        .read_environment(&run.environment_id)?
        .and_then(|e| e.runner_id)
    else {
        return Ok(None);
    };
    let owner_revoked = tx.runner(&owner_id)?.is_none_or(|o| o.revoked());
    Ok((!owner_revoked).then_some(owner_id))
}

/// How many agents the instance should keep started ahead for new sessions:
/// the `warm_agents` of the agents it serves and may take new sessions of
/// (enabled, its token may serve them, it has their labels). Warm agents
/// are the runner's affair: they never count against its capacity here.
pub fn warm_target(ctx: &mut Ctx, runner: &Runner, instance: &str) -> Result<u32> {
    let Some(runner) = ctx.tx.runner(&runner.id)?.filter(|r| !r.revoked()) else {
        return Ok(0);
    };
    let Some(connection) = ctx.tx.connection(&runner.id, instance)? else {
        return Ok(0);
    };
    let mut target = 0u32;
    for name in &connection.agents {
        let Some(agent) = ctx.tx.agent(name)? else {
            continue;
        };
        if !agent.disabled
            && runner.may_take_for(&connection, &agent.name, &agent.settings.requires_labels)
        {
            target = target.saturating_add(agent.settings.warm_agents);
        }
    }
    Ok(target)
}

/// Whether the instance takes another run: fewer live runs than the capacity it gave.
pub fn has_room(ctx: &mut Ctx, connection: &Connection) -> Result<bool> {
    Ok(match connection.capacity {
        None => true,
        Some(c) => {
            ctx.tx
                .live_runs_of_instance(&connection.runner_id, &connection.instance)?
                < c as usize
        }
    })
}

/// How often an instance's `last_seen` is written: "connected" is judged over tens of seconds,
/// and a write on every poll would make every offers poll a write.
const LAST_SEEN_EVERY_MS: Millis = 1_000;

fn connection(ctx: &mut Ctx, runner: &Runner, instance: &str) -> Result<Connection> {
    let mut connection = ctx.tx.connection(&runner.id, instance)?.ok_or_else(|| {
        Error::conflict(
            "not_connected",
            format!("instance {instance:?} has not connected; POST /v1/runner/connect first"),
        )
    })?;
    if ctx.now - connection.last_seen >= LAST_SEEN_EVERY_MS {
        connection.last_seen = ctx.now;
        ctx.tx.put_connection(&connection)?;
    }
    Ok(connection)
}

/// How long an offered run shown to one instance is kept from the others. It accepts at once;
/// if it does not (it died, or it was at capacity meanwhile), the others see the run after this.
pub const RESERVATION_MS: Millis = 5_000;
/// Most runs one poll shows an instance that gave no capacity.
pub const OFFERS_PER_POLL: usize = 8;

/// The runs this instance may take now, each reserved for it for [`RESERVATION_MS`]: an offer
/// goes to one instance at a time, so runners do not all race to accept the same run (the
/// first instance to poll after it is offered gets it), and an instance is shown no more than
/// it has room for.
pub fn offers(ctx: &mut Ctx, runner: &Runner, instance: &str) -> Result<Vec<Offer>> {
    // Read again: a long poll looks many times, and the runner's scope may have changed since
    // its request was authenticated.
    let Some(runner) = ctx.tx.runner(&runner.id)?.filter(|r| !r.revoked()) else {
        return Ok(Vec::new());
    };
    let runner = &runner;
    let connection = connection(ctx, runner, instance)?;
    let mut out = Vec::new();
    let mut room = match connection.capacity {
        Some(c) => (c as usize).saturating_sub(ctx.tx.live_runs_of_instance(&runner.id, instance)?),
        None => OFFERS_PER_POLL,
    };
    let me = format!("{}/{instance}", runner.id);
    for mut run in ctx.tx.offerable_runs(&me, ctx.now)? {
        if room == 0 {
            break;
        }
        let mine = run.reserved_for.as_deref() == Some(me.as_str());
        let until = run.reserved_until.unwrap_or(Millis::MIN);
        let renew = match (mine, until > ctx.now) {
            (true, true) => false,
            (false, true) => continue,
            // Its reservation ran out unaccepted: the others get the next turn.
            (true, false) if ctx.now < until.saturating_add(RESERVATION_MS) => continue,
            _ => true,
        };
        // Read without a lock: an offer changes nothing in the session, and the accept checks
        // again.
        let Some(session) = ctx.tx.read_session(&run.session_id)? else {
            continue;
        };
        if may_take(ctx, runner, &connection, &run, &session)? {
            if renew {
                let before = run.clone();
                run.reserved_for = Some(me.clone());
                run.reserved_until = Some(ctx.now + RESERVATION_MS);
                if !ctx.tx.reserve_offer(&before, &run)? {
                    continue; // another instance reserved it, or it was taken, meanwhile
                }
            }
            room -= 1;
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

pub fn accept(ctx: &mut Ctx, runner: &Runner, instance: &str, run_id: &str) -> Result<Assignment> {
    let mut run = ctx.run(run_id)?;
    let mut session = match run.status {
        RunStatus::Offered => {
            let connection = connection(ctx, runner, instance)?;
            let session = ctx.session(&run.session_id)?;
            if !may_take(ctx, runner, &connection, &run, &session)? {
                return Err(Error::not_found("run", run_id));
            }
            if !has_room(ctx, &connection)? {
                return Err(Error::conflict(
                    "at_capacity",
                    format!(
                        "instance {instance:?} already has the {} runs it said it takes at once",
                        connection.capacity.unwrap_or_default()
                    ),
                ));
            }
            session
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
    ctx.tx.note(Event::RunAccepted {
        kind: run.kind,
        waited: ctx.now.saturating_sub(run.created_at),
    });
    run.runner_id = Some(runner.id.clone());
    run.instance = Some(instance.to_string());
    run.accepted_at = Some(ctx.now);
    ctx.tx.put_run(&run)?;
    let mut environment = ctx.environment(&run.environment_id)?;
    // Whoever kept the agent: the run taken now either takes it up (the
    // keeping instance) or makes it moot.
    if environment.runner_id.as_deref() != Some(&runner.id) || environment.kept_agent.is_some() {
        environment.runner_id = Some(runner.id.clone());
        environment.kept_agent = None;
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
        settings: agent.settings.wire(),
        acp_session_id: match run.kind {
            RunKind::Resume => session.acp_session_id.clone(),
            _ => None,
        },
        fresh_environment: run.fresh_environment,
        teardown_reason: match run.kind {
            RunKind::Teardown if session.environment_id.as_deref() != Some(&run.environment_id) => {
                Some("the session moved to another environment; this one is torn down".into())
            }
            RunKind::Teardown => Some(
                session
                    .end_reason
                    .clone()
                    .unwrap_or_else(|| "the environment is being recreated".into()),
            ),
            _ => None,
        },
        heartbeat_interval_ms: ctx.cfg.heartbeat_interval_ms.max(0) as u64,
        // A finished run reads no state (as `GET …/plug-state`): the session
        // may since have moved to another runner.
        plug_state: match run.status.is_finished() {
            true => None,
            false => Some(super::plug_state::records(ctx, run, session)?),
        },
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
