//! A start or resume run up to its agent: the plugs' `on-start` (or
//! `on-resume`) in order, the agent launched with their contributions, its ACP
//! session created (or loaded and replayed), the session id recorded with
//! Blaise, `started`; then the turns, then the stop.

use std::future::Future;
use std::time::Duration;

use tokio::sync::mpsc;

use super::outbox::{Item, Outbox};
use super::prepare::{PrepareError, Prepared, prepare};
use super::reports::Reporter;
use super::signals::{Signals, until_true};
use super::stop::{self, left, lost};
use super::transcript::{Relay, RelayError, notice};
use super::turns::{Ending, Turns};
use super::{Outcome, RunContext, agent_home, heartbeat};
use crate::acp::{AcpError, Agent, AgentCommand, AgentEvent, PermissionAnswer};
use crate::chain::{Launch, PlugChain};
use crate::config::EnvValue;
use crate::protocol::{Conversation, FailedPhase, ReportBody, RunKind};

/// How long the agent must be silent, after it has answered `session/load`,
/// before its replay is over. ACP says the replay comes before the answer;
/// some agents (Gemini CLI) send most of it after.
const REPLAY_QUIET: Duration = Duration::from_millis(300);

/// How long a replay that had not begun when the agent answered may take to
/// begin (a conversation that was loaded has something to replay).
const REPLAY_LATE: Duration = Duration::from_secs(5);

pub const NO_LOAD_NOTICE: &str = "The agent cannot load its earlier conversation: this is a new conversation in the same environment. The files are where the agent left them; the context is not.";

pub async fn run(ctx: RunContext, mut signals: Signals) -> Outcome {
    let a = ctx.assignment.clone();
    let heartbeat = heartbeat::start(
        ctx.client.clone(),
        a.run_id.clone(),
        Duration::from_millis(a.heartbeat_interval_ms),
    );
    let outbox = Outbox::start(
        ctx.client.clone(),
        &a.run_id,
        heartbeat.lost.clone(),
        ctx.run_dir(),
    );
    let reporter = Reporter::new(outbox.clone());
    let Prepared {
        mut chain,
        workspace,
        kept,
        warm,
    } = match prepare(&ctx, &reporter, &heartbeat.lost).await {
        Ok(p) => p,
        Err(PrepareError::Report(e)) => return lost(e),
        Err(e) => {
            // Nothing of the chain ran: the environment is as it was.
            return before_agent(&reporter, e.to_string(), None).await;
        }
    };
    let mut relay = Relay::new(outbox.clone());
    if signals.arrived() {
        // Nothing of the chain ran: the environment is as it was.
        return cancelled(&reporter, None).await;
    }

    // A hook is not cut short by a signal (it has its deadline, and a plug
    // stopped halfway could leave what it made half made): the run stops
    // after it, tearing down what the chain made.
    let chain_ready = since_accepted();
    let launch = match a.kind {
        RunKind::Resume => chain.resume().await,
        _ => chain.start().await,
    };
    let launch = match launch {
        Ok(launch) => launch,
        Err(e) => {
            // The broken environment is torn down here, so that a fresh one can be made.
            let torn = stop::tear_down(&mut chain, &workspace, "failed", false).await;
            return before_agent(&reporter, e.to_string(), Some(torn)).await;
        }
    };
    if signals.arrived() {
        let torn = stop::tear_down(&mut chain, &workspace, "cancelled", false).await;
        return cancelled(&reporter, Some(torn)).await;
    }

    let plugs_started = since_accepted();
    let (events_tx, mut events) = mpsc::channel(crate::acp::EVENTS);
    // A hot resume: the agent kept since the pause goes on, in the session
    // it was in. Only if it cannot be taken up is a new one started.
    let taken_up = match (kept, ctx.hot_keeper(), &a.acp_session_id) {
        (Some(kept), Some(keeper), Some(session)) => {
            match Agent::take_up(kept, keeper.clone(), events_tx.clone()).await {
                Ok(agent) => Some((agent, session.clone())),
                Err(e) => {
                    tracing::warn!("the kept agent cannot be taken up ({e}): starting it again");
                    None
                }
            }
        }
        _ => None,
    };
    let taken_up = taken_up.map(|(agent, session)| (agent, session, Conversation::Kept));
    // A new session's warm agent goes on if this run would start the same.
    let taken_up = match (taken_up, warm) {
        (None, Some((handed, meta))) => {
            take_up_warm(&ctx, handed, meta, &launch, &workspace, events_tx.clone())
                .await
                .map(|(agent, session)| (agent, session, Conversation::Warm))
        }
        (taken_up, _) => taken_up,
    };
    let agent_started;
    let (agent, opened) = match taken_up {
        Some((agent, session, conversation)) => {
            let since_accepted = since_accepted();
            tracing::info!(
                pid = agent.pid(),
                host_overhead_us = since_accepted,
                ?conversation,
                "took up the agent"
            );
            agent_started = since_accepted;
            if conversation == Conversation::Warm {
                // In order with the reports, as a new conversation's is.
                relay.outbox().post(Item::AcpSession(session.clone()));
            }
            (agent, Some((session, conversation)))
        }
        None => {
            match start_agent(
                &ctx,
                &launch,
                &workspace,
                &mut chain,
                &mut relay,
                &mut events,
                events_tx,
            )
            .await
            {
                Ok(agent) => {
                    agent_started = since_accepted();
                    (agent, None)
                }
                // The agent's failure, not the environment's: the plugs pause
                // and the environment is kept for the next attempt.
                Err(StartError::Agent(error)) => {
                    return stop::agent_lost(error, &mut chain, &workspace, &reporter).await;
                }
                // What the plugs and the runner's configuration made of the
                // command is wrong (a secret that cannot be read, a working
                // directory a plug may not choose): the run fails as before.
                Err(StartError::Command(error)) => {
                    let torn = stop::tear_down(&mut chain, &workspace, "failed", false).await;
                    return before_agent(&reporter, error, Some(torn)).await;
                }
            }
        }
    };

    // The agent may never answer `session/new` or `session/load`: past the
    // agent's start timeout the run stops it (and pauses), and a signal or
    // Blaise's end of the run ends it sooner.
    let mut contact = heartbeat.lost.clone();
    let start_timeout = Duration::from_millis(a.settings.start_timeout_ms);
    let opened = match opened {
        Some(opened) => Ok(opened),
        None => tokio::select! {
            opened = tokio::time::timeout(
                start_timeout,
                open_session(&ctx, &agent, &mut chain, &mut relay, &mut events),
            ) => match opened {
                Ok(Ok(opened)) => Ok(opened),
                Ok(Err(OpenError::Agent(why))) => Err(Ending::AgentLost(why)),
                Ok(Err(OpenError::Relay(why))) => Err(Ending::Failed(why)),
                Err(_) => Err(Ending::AgentLost(format!(
                    "The agent did not open its conversation within {start_timeout:?} (agent {}'s start timeout)",
                    a.agent
                ))),
            },
            _ = signals.wait() => Err(Ending::Signal),
            _ = until_true(&mut contact) => Err(Ending::LostContact),
        },
    };
    let opened = match opened {
        Ok(_) if signals.arrived() => Err(Ending::Signal),
        other => other,
    };
    let (session, conversation) = match opened {
        Ok(opened) => opened,
        Err(ending) => {
            let live = stop::Live {
                session: &a.session_id,
                agent,
                events: &mut events,
                relay: &mut relay,
            };
            return stop::finish(ending, live, &mut chain, &workspace, &reporter).await;
        }
    };
    // Where a start's time went (microseconds since the daemon accepted
    // the run): the chain instantiated, the plugs' `on-start` done, the
    // agent answering `initialize` (or taken up), its conversation open.
    tracing::info!(
        chain_ready_us = chain_ready,
        plugs_started_us = plugs_started,
        agent_started_us = agent_started,
        conversation_open_us = since_accepted(),
        conversation = ?conversation,
        "start phases"
    );
    let started = ReportBody::Started {
        conversation: Some(conversation),
    };
    if let Err(e) = reporter.send(started).await {
        let _ = agent.close(Duration::from_secs(5)).await;
        return lost(e);
    }

    let ending = Turns {
        agent: &agent,
        acp_session: &session,
        chain: &mut chain,
        relay: &mut relay,
        events: &mut events,
        reporter: &reporter,
        outbox: &outbox,
        client: &ctx.client,
        run_id: &a.run_id,
        lost: heartbeat.lost.clone(),
        signals,
        cancel_grace: Duration::from_millis(a.settings.cancel_grace_ms),
    }
    .serve()
    .await;
    let live = stop::Live {
        session: &a.session_id,
        agent,
        events: &mut events,
        relay: &mut relay,
    };
    let outcome = stop::finish(ending, live, &mut chain, &workspace, &reporter).await;
    // Heartbeats go on until the final report is in: Blaise keeps the run
    // alive through a long pause or teardown, and contact can still be lost.
    drop(heartbeat);
    outcome
}

/// Takes up the warm agent this start run took (see [`crate::warm`]) when
/// the launch this run computes is the one it was started with; otherwise
/// kills it, naming what differs (never the values), and the agent starts
/// cold. Its conversation, opened in the slot that is now the workspace, is
/// the session's.
async fn take_up_warm(
    ctx: &RunContext,
    handed: crate::keeper::Handed,
    meta: crate::acp::WarmMeta,
    launch: &Launch,
    workspace: &std::path::Path,
    events: mpsc::Sender<AgentEvent>,
) -> Option<(Agent, String)> {
    let pid = handed.pid;
    let command = run_command(ctx, launch, workspace);
    let (Some(keeper), Ok(command)) = (ctx.keeper.clone(), command) else {
        // The cold start says what is wrong with the command.
        crate::keeper::kill(pid);
        return None;
    };
    use crate::metrics::{WarmOutcome, sink};
    if command.digest() != meta.launch {
        let parts = command.part_digests();
        let mut differ: Vec<&str> = parts
            .keys()
            .chain(meta.parts.keys())
            .filter(|k| parts.get(*k) != meta.parts.get(*k))
            .map(String::as_str)
            .collect();
        differ.sort_unstable();
        differ.dedup();
        tracing::info!(
            ?differ,
            "the warm agent was started otherwise than this run would start it: it is let go, and the agent starts cold"
        );
        crate::keeper::kill(pid);
        // A warm agent starts with no plug's contribution: a chain that
        // makes one never matches, and the daemon stops warming.
        sink::warm(match *launch == Launch::default() {
            true => WarmOutcome::LaunchDiffers,
            false => WarmOutcome::PlugsChangeLaunch,
        });
        return None;
    }
    match Agent::take_up(handed, keeper, events).await {
        Ok(agent) => {
            sink::warm(WarmOutcome::Taken);
            Some((agent, meta.acp_session))
        }
        Err(e) => {
            tracing::warn!("the warm agent cannot be taken up ({e}): starting one cold");
            crate::keeper::kill(pid);
            sink::warm(WarmOutcome::Failed);
            None
        }
    }
}

/// Microseconds since the daemon accepted the run, when it said.
fn since_accepted() -> Option<u128> {
    std::env::var(super::ACCEPTED_AT)
        .ok()
        .and_then(|t| t.parse::<u128>().ok())
        .map(|t| super::unix_micros().saturating_sub(t))
}

/// Why the agent did not start.
enum StartError {
    /// Its command could not be made (the configuration or a plug's
    /// contribution), or the transcript filters failed on what it printed:
    /// the run fails.
    Command(String),
    /// It was started and failed: it did not run, exited, or did not answer
    /// `initialize` in time (its text, filtered).
    Agent(String),
}

/// Starts the agent with the plugs' launch (through the keeper when the run
/// may keep it) and initializes its connection; the error is for the run's
/// report, filtered.
async fn start_agent(
    ctx: &RunContext,
    launch: &Launch,
    workspace: &std::path::Path,
    chain: &mut PlugChain,
    relay: &mut Relay,
    events: &mut mpsc::Receiver<AgentEvent>,
    events_tx: mpsc::Sender<AgentEvent>,
) -> Result<Agent, StartError> {
    let command = run_command(ctx, launch, workspace).map_err(StartError::Command)?;
    let since_accepted = since_accepted();
    let programs_us = crate::host::process::time_in_programs().as_micros();
    tracing::info!(argv = ?command.argv, cwd = %command.cwd.display(), host_overhead_us = since_accepted, programs_us, "launching the agent");
    let timeout = Duration::from_millis(ctx.assignment.settings.start_timeout_ms);
    let launching = tokio::time::timeout(
        timeout,
        Agent::launch(command, events_tx, ctx.hot_keeper().cloned()),
    );
    let launched = match pump(launching, chain, relay, events).await {
        Ok((launched, _)) => launched.unwrap_or_else(|_| {
            Err(AcpError::Start(format!(
                "it did not answer `initialize` within {timeout:?} (agent {}'s start timeout)",
                ctx.assignment.agent
            )))
        }),
        // The filters failed, not the agent: the run fails (a pause would start the agent
        // again into the same failure).
        Err(e) => return Err(StartError::Command(e.to_string())),
    };
    match launched {
        Ok(agent) => Ok(agent),
        // What the agent printed on its way out is its text: filtered.
        Err(e) => Err(StartError::Agent(
            relay
                .filter_text(chain, format!("The agent did not start: {e:#}"))
                .await
                .unwrap_or_else(|e| e.to_string()),
        )),
    }
}

/// The agent's command as this run starts it: blaise.yml's, under the plugs' launch.
fn run_command(
    ctx: &RunContext,
    launch: &Launch,
    workspace: &std::path::Path,
) -> Result<AgentCommand, String> {
    let agent = &ctx.config.config.agent;
    agent_command(
        launch,
        &agent.command,
        &agent.env,
        workspace,
        &ctx.data_dir.join("plug-storage"),
    )
}

/// The agent's command line, environment and working directory under the
/// plugs' launch: `agent.env` (secrets read now, and masked), the plugs'
/// variables over it, and a home of its own in the workspace unless the
/// operator gives one. The working directory is checked once more (a later
/// plug could have swapped it for a symlink): it must lie in the workspace or
/// the storage of the plug that chose it.
pub fn agent_command(
    launch: &Launch,
    command: &[String],
    env: &std::collections::BTreeMap<String, EnvValue>,
    workspace: &std::path::Path,
    plug_storage: &std::path::Path,
) -> Result<AgentCommand, String> {
    let mut vars = Vec::with_capacity(env.len() + launch.env.len() + 5);
    for (name, value) in env {
        let value = value
            .resolve()
            .map_err(|why| format!("agent.env.{name}: {why}"))?;
        vars.push((name.clone(), value));
    }
    let home = agent_home::prepare(workspace, &vars)
        .map_err(|e| format!("the agent's home in {}: {e}", workspace.display()))?;
    vars.extend(home);
    for (key, value) in &launch.env {
        vars.retain(|(k, _)| k != key);
        vars.push((key.clone(), value.clone()));
    }
    let (cwd, cwd_within) = match (&launch.working_dir, &launch.working_dir_from) {
        (Some(dir), Some(plug)) => {
            let roots = vec![workspace.to_path_buf(), plug_storage.join(plug)];
            let cwd = crate::host::contribution::working_dir(dir, &roots)
                .map_err(|why| format!("plug `{plug}`: {why}"))?;
            (cwd.into(), roots)
        }
        _ => (workspace.to_path_buf(), vec![workspace.to_path_buf()]),
    };
    let argv = launch.command(command);
    Ok(AgentCommand {
        egress_report: starts_with_egress(&argv),
        argv,
        env: vars,
        cwd,
        cwd_within,
    })
}

/// Whether the command's program is the shipped `blaise-egress` (a plug's
/// prefix, its program already resolved to a path): only then does the
/// program get a descriptor for the run's record, which it keeps from the
/// agent. Anything else in that place would hand it to the agent.
fn starts_with_egress(argv: &[String]) -> bool {
    let shipped = crate::host::grants::find_program("blaise-egress");
    argv.first()
        .is_some_and(|program| shipped.is_some_and(|path| path.as_os_str() == program.as_str()))
}

/// The agent's ACP session, recorded with Blaise for the next resume. On a
/// resume run: taken up with `session/resume` where the agent offers it,
/// else loaded with `session/load` (its replay shown to the plugs, not
/// recorded), else a new one with a notice. A start run opens a new one.
/// Why the conversation could not be opened: the agent's failure (it is
/// gone or refused; its text, filtered), or the transcript's.
enum OpenError {
    Agent(String),
    Relay(String),
}

impl From<RelayError> for OpenError {
    fn from(e: RelayError) -> Self {
        OpenError::Relay(e.to_string())
    }
}

async fn open_session(
    ctx: &RunContext,
    agent: &Agent,
    chain: &mut PlugChain,
    relay: &mut Relay,
    events: &mut mpsc::Receiver<AgentEvent>,
) -> Result<(String, Conversation), OpenError> {
    let a = &ctx.assignment;
    if a.kind == RunKind::Resume {
        let mut why = None;
        if let Some(id) = &a.acp_session_id {
            for (how, offered, conversation) in [
                (
                    TakeUp::Resume,
                    agent.can_resume_session(),
                    Conversation::Resumed,
                ),
                (TakeUp::Load, agent.can_load_session(), Conversation::Loaded),
            ] {
                if !offered {
                    continue;
                }
                match take_up(how, agent, id, chain, relay, events)
                    .await
                    .map_err(OpenError::Relay)?
                {
                    Ok(()) => return Ok((id.clone(), conversation)),
                    Err(e) => why = Some(e),
                }
            }
        }
        let text = match why {
            Some(e) => format!(
                "The agent could not take up its earlier conversation ({e:#}): this is a new conversation in the same environment."
            ),
            None => NO_LOAD_NOTICE.to_owned(),
        };
        relay.send(chain, [notice(&text)]).await?;
    }
    let (created, _) = pump(agent.new_session(), chain, relay, events).await?;
    let id = match created {
        Ok(id) => id,
        // The agent's words: filtered.
        Err(e) => {
            let why = format!("The agent did not open a session: {e:#}");
            return Err(OpenError::Agent(relay.filter_text(chain, why).await?));
        }
    };
    // In order with the reports: it is in before the run pauses.
    relay.outbox().post(Item::AcpSession(id.clone()));
    Ok((id, Conversation::New))
}

/// How a resume run takes the agent's conversation up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TakeUp {
    /// `session/resume`: nothing is replayed.
    Resume,
    /// `session/load`: the agent replays the conversation.
    Load,
}

/// `session/resume` or `session/load`. Whatever the agent sends meanwhile is
/// not new conversation (a replay: shown to the plugs, not recorded). A
/// load's replay lasts until the agent has answered and then been silent for
/// [`REPLAY_QUIET`] (if nothing was replayed before the answer, it may take
/// [`REPLAY_LATE`] to begin): everything until then is the replay, however
/// late it comes; no prompt is sent before, and nothing live joins a
/// replayed message.
async fn take_up(
    how: TakeUp,
    agent: &Agent,
    id: &str,
    chain: &mut PlugChain,
    relay: &mut Relay,
    events: &mut mpsc::Receiver<AgentEvent>,
) -> Result<anyhow::Result<()>, String> {
    let failed = |e: RelayError| e.to_string();
    relay
        .send(chain, agent.set_replay(true))
        .await
        .map_err(failed)?;
    let (answered, mut replayed) = match how {
        TakeUp::Resume => pump(agent.resume_session(id), chain, relay, events).await,
        TakeUp::Load => pump(agent.load_session(id), chain, relay, events).await,
    }
    .map_err(failed)?;
    if how == TakeUp::Load && answered.is_ok() {
        loop {
            let wait = if replayed > 0 {
                REPLAY_QUIET
            } else {
                REPLAY_LATE
            };
            let Ok(Some(first)) = tokio::time::timeout(wait, events.recv()).await else {
                break;
            };
            let mut batch = Vec::new();
            replayed += take(first, &mut batch);
            while let Ok(event) = events.try_recv() {
                replayed += take(event, &mut batch);
            }
            relay.send(chain, batch).await.map_err(failed)?;
        }
        tracing::debug!(replayed, "the replay of session/load is over");
    }
    relay
        .send(chain, agent.set_replay(false))
        .await
        .map_err(failed)?;
    Ok(answered.map_err(anyhow::Error::from))
}

/// Awaits `work` while relaying what the agent sends meanwhile (its stderr
/// while it starts, the replay of `session/load`: the channel is bounded, so
/// an agent nobody reads from would wait forever). Also returns how many
/// events were the conversation's (not stderr).
async fn pump<T>(
    work: impl Future<Output = T>,
    chain: &mut PlugChain,
    relay: &mut Relay,
    events: &mut mpsc::Receiver<AgentEvent>,
) -> Result<(T, usize), RelayError> {
    tokio::pin!(work);
    let mut batch = Vec::new();
    let mut said = 0;
    loop {
        tokio::select! {
            result = &mut work => {
                while let Ok(event) = events.try_recv() {
                    said += take(event, &mut batch);
                }
                relay.send(chain, std::mem::take(&mut batch)).await?;
                return Ok((result, said));
            }
            Some(event) = events.recv() => {
                said += take(event, &mut batch);
                while let Ok(event) = events.try_recv() {
                    said += take(event, &mut batch);
                }
                relay.send(chain, std::mem::take(&mut batch)).await?;
            }
        }
    }
}

/// Adds an event to the batch: 1 if it is the conversation's.
fn take(event: AgentEvent, batch: &mut Vec<AgentEvent>) -> usize {
    match event {
        // Nobody can answer while the agent starts or a session loads.
        AgentEvent::Permission { answer, .. } => {
            let _ = answer.send(PermissionAnswer::Cancelled);
            0
        }
        AgentEvent::Stderr(_) => {
            batch.push(event);
            0
        }
        // Before a turn: nothing was spent that a turn would have.
        AgentEvent::Usage(_) => 0,
        event => {
            batch.push(event);
            1
        }
    }
}

/// Reports a run stopped by a signal before its agent started, with what it
/// left. Blaise waits a while for it, not the whole lost-contact window.
async fn cancelled(reporter: &Reporter, environment: Option<Result<(), String>>) -> Outcome {
    tracing::warn!("the run was stopped by a signal before the agent started");
    let (environment, teardown_error) = left(environment);
    let report = ReportBody::Cancelled {
        environment,
        teardown_error,
    };
    stop::send_last(reporter, report, Outcome::Cancelled).await
}

/// Reports a run that failed before its agent started, with what it left.
async fn before_agent(
    reporter: &Reporter,
    error: String,
    environment: Option<Result<(), String>>,
) -> Outcome {
    tracing::error!("the run failed before the agent started: {error}");
    let (environment, teardown_error) = left(environment);
    let report = ReportBody::Failed {
        phase: FailedPhase::BeforeAgentStart,
        error: error.clone(),
        environment,
        teardown_error,
    };
    match reporter.send(report).await {
        Ok(_) => Outcome::Failed(error),
        Err(e) => lost(e),
    }
}
