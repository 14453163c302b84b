//! The plug chain of the run, its state kept by Blaise, and the
//! `plugs_can_resume` report every run sends.

use std::path::PathBuf;
use std::sync::Arc;

use super::RunContext;
use super::reports::{ReportError, Reporter};
use super::workspace;
use crate::acp::WarmMeta;
use crate::chain::PlugChain;
use crate::config::{cannot_keep_processes, cannot_resume};
use crate::host::bindings::RunKind;
use crate::host::{HookError, RunInfo};
use crate::keeper::Handed;
use crate::protocol::{ReportBody, RunKind as WireKind};
use crate::state_store::ControlStateStore;
use crate::tasks::AbortOnDrop;

pub struct Prepared {
    pub chain: PlugChain,
    pub workspace: PathBuf,
    /// The agent the keeper kept for this session (a hot resume), still frozen.
    pub kept: Option<Handed>,
    /// A warm agent this start run took, still frozen, whose slot is now
    /// the workspace (see [`crate::warm`]).
    pub warm: Option<(Handed, WarmMeta)>,
}

/// Why a run could not get its plugs ready.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error("{0}")]
    Workspace(std::io::Error),
    #[error("{0}")]
    Plug(HookError),
    #[error("{0}")]
    Report(ReportError),
}

pub async fn prepare(
    ctx: &RunContext,
    reporter: &Reporter,
    lost: &tokio::sync::watch::Receiver<bool>,
) -> Result<Prepared, PrepareError> {
    let a = &ctx.assignment;
    let chain_ids: Vec<String> = ctx.plugs.iter().map(|p| p.setup.id.clone()).collect();
    let cannot: Vec<String> = cannot_resume(&ctx.plugs)
        .into_iter()
        .map(String::from)
        .collect();
    let state = Arc::new(ControlStateStore::new(
        ctx.client.clone(),
        &a.run_id,
        &a.session_id,
        a.plug_state.as_deref(),
        lost.clone(),
    ));
    // The plugs' state is read once per run: it came with the assignment, or
    // (from an older Blaise) is fetched while the report below is on its way.
    let _prefetch = (!ctx.plugs.is_empty() && !state.has_records()).then(|| {
        let state = state.clone();
        AbortOnDrop::spawn(async move { state.prefetch().await })
    });
    // Every run tells Blaise whether its plugs can resume, and which plugs
    // make up the chain now (records of removed plugs become "owned by
    // nothing"). The plugs are instantiated while the report is on its way:
    // instantiating runs no hook.
    let keeps_processes =
        ctx.hot_keeper().is_some() && cannot_keep_processes(&ctx.plugs).is_empty();
    let report = reporter.send(ReportBody::PlugsCanResume {
        can_resume: cannot.is_empty(),
        plugs_that_cannot: cannot,
        chain: Some(chain_ids),
        keeps_processes,
    });
    // A resume takes up the agent the keeper kept for the session, if there
    // is one and the chain (blaise.yml may have changed since the pause)
    // still keeps processes: the plugs are told (`processes-kept`) before
    // their `on-resume`. One not taken is let go when Blaise says so.
    let kept = match (a.kind, ctx.hot_keeper()) {
        (WireKind::Resume, Some(keeper)) if keeps_processes => {
            match keeper.take(&a.session_id).await {
                Ok(kept) => Some(kept),
                Err(why) => {
                    tracing::info!("no kept agent to take up: {why}; the resume is cold");
                    None
                }
            }
        }
        _ => None,
    };
    let processes_kept = kept.is_some();
    let workspace_dir = workspace::path(&ctx.data_dir, &a.environment_id);
    let existed = workspace_dir.symlink_metadata().is_ok();
    // A new session's first run takes a warm agent if one waits: its slot
    // becomes the workspace. Never when the environment has a workspace (a
    // start after a crash goes on in it).
    let warm = match (a.kind, &ctx.keeper) {
        (WireKind::Start, Some(keeper)) if !existed => {
            take_warm(keeper, &ctx.data_dir, &a.environment_id).await
        }
        _ => None,
    };
    let ready = async {
        let workspace =
            workspace::ensure(&ctx.data_dir, &a.environment_id).map_err(PrepareError::Workspace)?;
        let run = Arc::new(RunInfo {
            session_id: a.session_id.clone(),
            run_id: a.run_id.clone(),
            run_kind: match a.kind {
                WireKind::Start => RunKind::Start,
                WireKind::Resume => RunKind::Resume,
                WireKind::Teardown => RunKind::Teardown,
            },
            processes_kept,
            workspace: workspace.clone(),
            plug_storage: ctx.data_dir.join("plug-storage"),
            state,
        });
        let setups: Vec<_> = ctx.plugs.iter().map(|p| p.setup.clone()).collect();
        let chain = PlugChain::new(&ctx.host, &setups, run)
            .await
            .map_err(PrepareError::Plug)?;
        Ok(Prepared {
            chain,
            workspace,
            kept: None,
            warm: None,
        })
    };
    let (reported, ready) = tokio::join!(report, ready);
    if let Err(e) = reported {
        // The run ends here: a workspace it made is not left behind (only
        // an empty one is removed: no hook ran in it).
        // A warm agent's slot goes with its link (the agent goes with this
        // run).
        match &warm {
            Some((_, meta)) => {
                let _ = workspace::remove_slot(&ctx.data_dir, &meta.slot);
            }
            None if !existed => {
                let _ = std::fs::remove_dir(&workspace_dir);
            }
            None => {}
        }
        return Err(PrepareError::Report(e));
    }
    ready.map(|prepared| Prepared {
        kept,
        warm,
        ..prepared
    })
}

/// The warm agent that waited longest, its slot adopted as the
/// environment's workspace; none if none waits or its slot cannot be
/// adopted (the agent is then killed, its slot removed).
async fn take_warm(
    keeper: &crate::keeper::KeeperClient,
    data_dir: &std::path::Path,
    environment_id: &str,
) -> Option<(Handed, WarmMeta)> {
    let handed = keeper.take_warm().await.ok()?;
    let Some(meta) = WarmMeta::of(&handed.meta) else {
        tracing::warn!("a warm agent came without what it was started with: killed");
        crate::keeper::kill(handed.pid);
        return None;
    };
    if let Err(e) = workspace::adopt(data_dir, environment_id, &meta.slot) {
        tracing::warn!("the warm agent's slot cannot be the workspace ({e}): killed");
        crate::keeper::kill(handed.pid);
        let _ = workspace::remove_slot(data_dir, &meta.slot);
        return None;
    }
    tracing::info!(pid = handed.pid, slot = %meta.slot, "took a warm agent");
    Some((handed, meta))
}
