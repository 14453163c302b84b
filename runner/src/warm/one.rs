//! `warm-one`: one agent started ahead, in a slot, handed to the keeper.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, Result, anyhow};
use tokio::sync::mpsc;

use crate::acp::{Agent, WarmMeta};
use crate::chain::Launch;
use crate::config::ConfigFile;
use crate::keeper::KeeperClient;
use crate::run::{agent_command, workspace};

/// The hidden command that starts one warm agent.
pub const WARM_ONE: &str = "warm-one";

/// `warm-one`'s exit status when a plug may wrap the agent: the daemon
/// starts no more until blaise.yml changes.
pub const MAY_WRAP: i32 = 3;

/// Why a warm agent is not started.
#[derive(Debug, thiserror::Error)]
pub enum WarmError {
    /// A plug may run programs, so it may put one before the agent (a
    /// sandbox, a container, `blaise-egress`): an agent started ahead would
    /// run outside it.
    #[error(
        "plug `{0}` may run programs, so it may wrap the agent (a sandbox, a container, an egress proxy): an agent started ahead would run outside it, and none is"
    )]
    MayWrap(String),
    #[error("{0:#}")]
    Failed(anyhow::Error),
}

/// `warm-one`: starts the agent in slot `slot` and hands it to the keeper
/// (this process's standard input) with its conversation open.
pub async fn warm_one(
    config: &Path,
    data_dir: &Path,
    slot: &str,
    start_timeout: Duration,
) -> Result<(), WarmError> {
    let file = ConfigFile::load(config).map_err(|e| WarmError::Failed(anyhow!("{e}")))?;
    if let Some(plug) = file.config.plugs.iter().find(|p| !p.allow.exec.is_empty()) {
        return Err(WarmError::MayWrap(plug.id.clone()));
    }
    start(file, data_dir, slot, start_timeout)
        .await
        .map_err(WarmError::Failed)
}

async fn start(
    file: ConfigFile,
    data_dir: &Path,
    slot: &str,
    start_timeout: Duration,
) -> Result<()> {
    let keeper = KeeperClient::inherited()
        .map(Arc::new)
        .ok_or_else(|| anyhow!("warm-one is started by the runner, with its keeper"))?;
    if !workspace::is_slot_name(slot) {
        return Err(anyhow!("{slot:?} is not a slot"));
    }
    let dir = data_dir
        .join("workspaces")
        .join(slot)
        .canonicalize()
        .with_context(|| format!("the slot {slot}"))?;
    let agent = &file.config.agent;
    let command = agent_command(
        &Launch::default(),
        &agent.command,
        &agent.env,
        &dir,
        &data_dir.join("plug-storage"),
    )
    .map_err(|e| anyhow!("{e}"))?;
    let meta = |acp_session| WarmMeta {
        slot: slot.to_owned(),
        launch: command.digest(),
        parts: command.part_digests(),
        acp_session,
    };
    let launch = meta(String::new());
    // Unread: see the module's note.
    let (events, mut dropped) = mpsc::channel(crate::acp::EVENTS);
    tokio::spawn(async move { while dropped.recv().await.is_some() {} });
    let started = std::time::Instant::now();
    let agent = tokio::time::timeout(start_timeout, Agent::launch(command, events, Some(keeper)))
        .await
        .map_err(|_| anyhow!("the agent did not answer `initialize` within {start_timeout:?}"))?
        .map_err(|e| anyhow!("the agent did not start ({})", unfiltered(&e)))?;
    let initialized = started.elapsed();
    let session = tokio::time::timeout(start_timeout, agent.new_session())
        .await
        .map_err(|_| anyhow!("the agent did not open a session within {start_timeout:?}"))?
        .map_err(|e| anyhow!("the agent did not open a session ({})", unfiltered(&e)))?;
    let opened = started.elapsed();
    match agent
        .keep_warm(WarmMeta {
            acp_session: session,
            ..launch
        })
        .await
    {
        Ok(_) => {
            tracing::info!(
                slot,
                initialize_ms = initialized.as_millis() as u64,
                open_ms = opened.as_millis() as u64,
                "a warm agent waits for a session"
            );
            Ok(())
        }
        Err(not) => {
            let why = not.why.clone();
            let _ = not.agent.close(Duration::from_secs(5)).await;
            Err(anyhow!("the keeper did not take the warm agent: {why}"))
        }
    }
}

/// What went wrong, without the agent's words: no filter has read them (a
/// start run that tries the same agent says them, filtered).
fn unfiltered(e: &crate::acp::AcpError) -> &'static str {
    use crate::acp::AcpError;
    match e {
        AcpError::Start(_) => "it could not be started or connected to",
        AcpError::Unsupported(_) => "it does not speak the runner's ACP version",
        AcpError::Refused { .. } => "it answered with an error",
        AcpError::Gone(_) => "it exited",
    }
}
