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
use super::{Outcome, RunContext, heartbeat};
use crate::acp::{Agent, AgentCommand, AgentEvent, PermissionAnswer};
use crate::chain::Launch;
use crate::protocol::{FailedPhase, ReportBody, RunKindName};

/// How long an agent may take to start and answer `initialize`.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(60);

pub const NO_LOAD_NOTICE: &str = "The agent cannot load its earlier conversation: this is a new conversation in the same environment. The files are where the agent left them; the context is not.";

pub async fn run(ctx: RunContext, mut signals: Signals) -> anyhow::Result<Outcome> {
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
    } = match prepare(&ctx, &reporter, &heartbeat.lost).await {
        Ok(p) => p,
        Err(PrepareError::Report(e)) => return Ok(lost(e)),
        Err(e) => {
            // Nothing of the chain ran: the environment is as it was.
            return Ok(before_agent(&reporter, e.to_string(), None).await);
        }
    };
    let mut relay = Relay::new(outbox.clone());
    if signals.arrived() {
        // Nothing of the chain ran: the environment is as it was.
        return Ok(cancelled(&reporter, None).await);
    }

    // A hook is not cut short by a signal (it has its deadline, and a plug
    // stopped halfway could leave what it made half made): the run stops
    // after it, tearing down what the chain made.
    let launch = match a.kind {
        RunKindName::Resume => chain.resume().await,
        _ => chain.start().await,
    };
    let launch = match launch {
        Ok(launch) => launch,
        Err(e) => {
            // The broken environment is torn down here, so that a fresh one can be made.
            let torn = stop::tear_down(&mut chain, &workspace, "failed", false).await;
            return Ok(before_agent(&reporter, e.to_string(), Some(torn)).await);
        }
    };
    if signals.arrived() {
        let torn = stop::tear_down(&mut chain, &workspace, "cancelled", false).await;
        return Ok(cancelled(&reporter, Some(torn)).await);
    }

    let agent_config = &ctx.config.config.agent;
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let command = match agent_command(
        &launch,
        &agent_config.command,
        &agent_config.env,
        &workspace,
        &ctx.data_dir.join("plug-storage"),
    ) {
        Ok(command) => command,
        Err(e) => {
            let torn = stop::tear_down(&mut chain, &workspace, "failed", false).await;
            return Ok(before_agent(&reporter, e, Some(torn)).await);
        }
    };
    let since_accepted = std::env::var(crate::daemon::ACCEPTED_AT)
        .ok()
        .and_then(|t| t.parse::<u128>().ok())
        .map(|t| crate::daemon::unix_micros().saturating_sub(t));
    let programs_us = crate::host::process::time_in_programs().as_micros();
    tracing::info!(argv = ?command.argv, cwd = %command.cwd.display(), host_overhead_us = since_accepted, programs_us, "launching the agent");
    let launched = tokio::time::timeout(LAUNCH_TIMEOUT, Agent::launch(command, events_tx))
        .await
        .unwrap_or_else(|_| {
            Err(anyhow::anyhow!(
                "it did not answer `initialize` within {LAUNCH_TIMEOUT:?}"
            ))
        });
    let agent = match launched {
        Ok(agent) => agent,
        Err(e) => {
            let torn = stop::tear_down(&mut chain, &workspace, "failed", false).await;
            return Ok(before_agent(
                &reporter,
                format!("the agent did not start: {e:#}"),
                Some(torn),
            )
            .await);
        }
    };

    // The agent may never answer `session/new` or `session/load`: the run
    // then ends when Blaise ends it (it owns the clock) or a signal arrives.
    let mut contact = heartbeat.lost.clone();
    let opened = tokio::select! {
        opened = open_session(&ctx, &agent, &mut chain, &mut relay, &mut events) => {
            opened.map_err(Ending::Failed)
        }
        _ = signals.wait() => Err(Ending::Signal),
        _ = until_true(&mut contact) => Err(Ending::LostContact),
    };
    let opened = match opened {
        Ok(_) if signals.arrived() => Err(Ending::Signal),
        other => other,
    };
    let session = match opened {
        Ok(session) => session,
        Err(ending) => {
            let live = stop::Live {
                agent,
                events: &mut events,
                relay: &mut relay,
            };
            return Ok(stop::finish(ending, live, &mut chain, &workspace, &reporter).await);
        }
    };
    if let Err(e) = reporter.send(ReportBody::Started).await {
        let _ = agent.close(Duration::from_secs(5)).await;
        return Ok(lost(e));
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
    }
    .serve()
    .await;
    tracing::info!(?ending, "the run is ending");
    let live = stop::Live {
        agent,
        events: &mut events,
        relay: &mut relay,
    };
    let outcome = stop::finish(ending, live, &mut chain, &workspace, &reporter).await;
    // Heartbeats go on until the final report is in: Blaise keeps the run
    // alive through a long pause or teardown, and contact can still be lost.
    drop(heartbeat);
    Ok(outcome)
}

/// The agent's command line, environment and working directory under the
/// plugs' launch. The working directory is checked once more (a later plug
/// could have swapped it for a symlink): it must lie in the workspace or the
/// storage of the plug that chose it.
pub fn agent_command(
    launch: &Launch,
    command: &[String],
    env: &std::collections::BTreeMap<String, String>,
    workspace: &std::path::Path,
    plug_storage: &std::path::Path,
) -> Result<AgentCommand, String> {
    let mut vars: Vec<(String, String)> = env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
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
    Ok(AgentCommand {
        argv: launch.command(command),
        env: vars,
        cwd,
        cwd_within,
    })
}

/// The agent's ACP session: loaded (and replayed through the plugs, not
/// recorded) on a resume when the agent can, otherwise a new one, with a
/// notice on a resume. Recorded with Blaise for the next resume.
async fn open_session(
    ctx: &RunContext,
    agent: &Agent,
    chain: &mut crate::chain::PlugChain,
    relay: &mut Relay,
    events: &mut mpsc::UnboundedReceiver<AgentEvent>,
) -> Result<String, String> {
    let a = &ctx.assignment;
    if a.kind == RunKindName::Resume {
        match (&a.acp_session_id, agent.can_load_session()) {
            (Some(id), true) => {
                match relay_while(agent.load_session(id), chain, relay, events).await {
                    Ok(Ok(())) => return Ok(id.clone()),
                    Ok(Err(e)) => {
                        let text = format!(
                            "The agent could not load its earlier conversation ({e:#}): this is a new conversation in the same environment."
                        );
                        relay
                            .send(chain, vec![notice(&text)])
                            .await
                            .map_err(|e| e.to_string())?;
                    }
                    Err(e) => return Err(e.to_string()),
                }
            }
            _ => relay
                .send(chain, vec![notice(NO_LOAD_NOTICE)])
                .await
                .map_err(|e| e.to_string())?,
        }
    }
    let id = agent
        .new_session()
        .await
        .map_err(|e| format!("the agent did not open a session: {e:#}"))?;
    // In order with the reports: it is in before the run pauses.
    relay.outbox().post(Item::AcpSession(id.clone()));
    Ok(id)
}

/// Awaits `work` while relaying what the agent sends meanwhile (the replay of
/// `session/load`: filtered, shown to the plugs, not recorded).
async fn relay_while<T>(
    work: impl Future<Output = T>,
    chain: &mut crate::chain::PlugChain,
    relay: &mut Relay,
    events: &mut mpsc::UnboundedReceiver<AgentEvent>,
) -> Result<T, RelayError> {
    tokio::pin!(work);
    let mut batch = Vec::new();
    loop {
        tokio::select! {
            result = &mut work => {
                while let Ok(event) = events.try_recv() {
                    take(event, &mut batch);
                }
                relay.send(chain, std::mem::take(&mut batch)).await?;
                return Ok(result);
            }
            Some(event) = events.recv() => {
                take(event, &mut batch);
                while let Ok(event) = events.try_recv() {
                    take(event, &mut batch);
                }
                relay.send(chain, std::mem::take(&mut batch)).await?;
            }
        }
    }
}

fn take(event: AgentEvent, batch: &mut Vec<crate::host::bindings::TranscriptEntry>) {
    match event {
        AgentEvent::Entry(entry) => batch.push(entry),
        // Nobody can answer while a session loads.
        AgentEvent::Permission { answer, .. } => {
            let _ = answer.send(PermissionAnswer::Cancelled);
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
