//! `blaise-runner check --probe`: starts the agent as a run would when no plug stands in front
//! of it — its command, its `agent.env` with every source read, a home of its own in a
//! throwaway workspace — and waits for its answer to ACP `initialize`. A command that exists but
//! is not an ACP agent (a wrapper script that fails, a CLI without its `--acp` flag, a missing
//! node) fails here instead of at every session's start.

use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use blaise_runner::acp::{Agent, AgentEvent};
use blaise_runner::chain::Launch;
use blaise_runner::config::AgentConfig;
use blaise_runner::run::agent_command;

/// The agent's answer in one line, or why there was none (with the last lines of its stderr).
pub async fn probe(agent: &AgentConfig, deadline: Duration) -> Result<String, String> {
    let workspace = tempfile::Builder::new()
        .prefix("blaise-probe-")
        .tempdir()
        .map_err(|e| format!("a workspace for the probe: {e}"))?;
    let command = agent_command(
        &Launch::default(),
        &agent.command,
        &agent.env,
        workspace.path(),
        &workspace.path().join("plug-storage"),
    )?;
    let (events_tx, mut events) = mpsc::channel(blaise_runner::acp::EVENTS);
    let started = Instant::now();
    let launch = tokio::time::timeout(deadline, Agent::launch(command, events_tx, None));
    tokio::pin!(launch);
    // What it prints on stderr, for the error: the last few lines are the ones that say why.
    let mut stderr: Vec<String> = Vec::new();
    let launched = loop {
        tokio::select! {
            launched = &mut launch => break launched,
            Some(event) = events.recv() => {
                if let AgentEvent::Stderr(line) = event {
                    stderr.push(line);
                    if stderr.len() > 5 {
                        stderr.remove(0);
                    }
                }
            }
        }
    };
    let took = started.elapsed();
    let said = || {
        if stderr.is_empty() {
            String::new()
        } else {
            format!("; its stderr ended with:\n    {}", stderr.join("\n    "))
        }
    };
    match launched {
        Ok(Ok(agent)) => {
            let (load, resume) = (agent.can_load_session(), agent.can_resume_session());
            // Closing ends its stdin and then its process group: nothing of it is left.
            let closing = agent.close(Duration::from_secs(2));
            let drained = async { while events.recv().await.is_some() {} };
            let (_closed, ()) = tokio::join!(closing, drained);
            let yes = |b: bool| if b { "yes" } else { "no" };
            Ok(format!(
                "probe: the agent answered ACP `initialize` in {} ms (session/load: {}, session/resume: {})",
                took.as_millis(),
                yes(load),
                yes(resume)
            ))
        }
        Ok(Err(e)) => {
            let e = format!("{e:#}");
            // The launch's error may quote the agent's last words already.
            let quoted = stderr.last().is_some_and(|line| e.contains(line.as_str()));
            let said = if quoted { String::new() } else { said() };
            Err(format!(
                "probe: the agent did not start as an ACP agent: {e}{said}"
            ))
        }
        Err(_) => Err(format!(
            "probe: the agent did not answer ACP `initialize` within {} s (is `{}` an ACP agent? some need a flag, e.g. `gemini --acp`){}",
            deadline.as_secs_f32(),
            agent
                .command
                .first()
                .map(String::as_str)
                .unwrap_or_default(),
            said()
        )),
    }
}
