//! The plug chain of a run: start and resume in declaration order, pause and
//! teardown in reverse (outermost last) and best effort, the transcript
//! through every filtering plug.

use std::sync::Arc;

use crate::bindings::{Contribution, PauseInfo, TeardownInfo, TranscriptEntry};
use crate::{HookError, PlugHost, PlugInstance, PlugSetup, RunInfo};

/// What the plugs add to the agent's launch, combined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Launch {
    /// Later plugs override earlier ones.
    pub env: Vec<(String, String)>,
    /// The last plug that sets one wins.
    pub working_dir: Option<String>,
    /// Which plug set `working_dir` (checked again at the launch).
    pub working_dir_from: Option<String>,
    /// The first plug's prefix is outermost.
    pub command_prefix: Vec<String>,
}

impl Launch {
    fn add(&mut self, plug: &str, c: Contribution) {
        for (key, value) in c.env {
            self.env.retain(|(k, _)| *k != key);
            self.env.push((key, value));
        }
        if c.working_dir.is_some() {
            self.working_dir = c.working_dir;
            self.working_dir_from = Some(plug.to_owned());
        }
        self.command_prefix.extend(c.command_prefix);
    }

    /// The full command line of the agent under this launch.
    pub fn command(&self, agent: &[String]) -> Vec<String> {
        self.command_prefix.iter().chain(agent).cloned().collect()
    }
}

/// The plugs of `blaise.yml`, instantiated for one run.
pub struct PlugChain {
    plugs: Vec<PlugInstance>,
}

impl PlugChain {
    /// Instantiates every plug for the run, in declaration order.
    pub async fn new(
        host: &PlugHost,
        setups: &[Arc<PlugSetup>],
        run: Arc<RunInfo>,
    ) -> Result<PlugChain, HookError> {
        let mut plugs = Vec::with_capacity(setups.len());
        for setup in setups {
            plugs.push(PlugInstance::new(host, setup.clone(), run.clone()).await?);
        }
        Ok(PlugChain { plugs })
    }

    pub fn plugs(&self) -> &[PlugInstance] {
        &self.plugs
    }

    /// Plugs whose environment cannot survive a pause; empty when the chain can resume.
    pub fn cannot_resume(&self) -> Vec<&str> {
        self.plugs
            .iter()
            .filter(|p| !p.info().can_resume)
            .map(|p| p.id())
            .collect()
    }

    /// Plugs that would not keep the agent's processes across a pause (they
    /// do not say `keeps-processes`, or were built for a contract before it);
    /// empty when the chain can pause hot.
    pub fn cannot_keep_processes(&self) -> Vec<&str> {
        self.plugs
            .iter()
            .filter(|p| !p.info().keeps_processes)
            .map(|p| p.id())
            .collect()
    }

    /// `on-start` in declaration order; the first failure stops the chain.
    pub async fn start(&mut self) -> Result<Launch, HookError> {
        let mut launch = Launch::default();
        for plug in &mut self.plugs {
            let contribution = plug.on_start().await?;
            launch.add(plug.id(), contribution);
        }
        Ok(launch)
    }

    /// `on-resume` in declaration order; the first failure stops the chain.
    pub async fn resume(&mut self) -> Result<Launch, HookError> {
        let mut launch = Launch::default();
        for plug in &mut self.plugs {
            let contribution = plug.on_resume().await?;
            launch.add(plug.id(), contribution);
        }
        Ok(launch)
    }

    /// `on-pause` in reverse order. Every plug gets its hook; the errors are
    /// collected, each naming its plug.
    pub async fn pause(&mut self, info: &PauseInfo) -> Vec<HookError> {
        if !info.may_resume {
            // The caller tears down right after: nothing to warn about.
        } else {
            for id in self.cannot_resume() {
                tracing::warn!(
                    plug = id,
                    "pausing a plug that cannot resume: a later resume may fail"
                );
            }
        }
        let mut info = info.clone();
        if info.keep_processes && (!info.may_resume || !self.cannot_keep_processes().is_empty()) {
            // A plug that does not keep processes may stop what runs the
            // agent: no plug is told to keep them, and the pause is cold.
            tracing::warn!(
                plugs = ?self.cannot_keep_processes(),
                may_resume = info.may_resume,
                "a hot pause was asked of a chain that cannot keep the agent's processes; pausing cold"
            );
            info.keep_processes = false;
        }
        let mut errors = Vec::new();
        for plug in self.plugs.iter_mut().rev() {
            if let Err(e) = plug.on_pause(info.clone()).await {
                errors.push(e);
            }
        }
        errors
    }

    /// `on-teardown` in reverse order, best effort like `pause`.
    pub async fn teardown(&mut self, info: &TeardownInfo) -> Vec<HookError> {
        let mut errors = Vec::new();
        for plug in self.plugs.iter_mut().rev() {
            if let Err(e) = plug.on_teardown(info.clone()).await {
                errors.push(e);
            }
        }
        errors
    }

    /// A preparation ahead: `on-prepare` of every plug that prepares, in
    /// declaration order (a later plug may read what an earlier one put in
    /// the scratch workspace); the first failure stops it. The ids of the
    /// plugs that prepared.
    pub async fn prepare(&mut self) -> Result<Vec<String>, HookError> {
        let mut prepared = Vec::new();
        for plug in &mut self.plugs {
            if plug.prepares().await? {
                plug.on_prepare().await?;
                prepared.push(plug.id().to_owned());
            }
        }
        Ok(prepared)
    }

    /// Passes entries through every filtering plug in declaration order. A
    /// failing filter fails the entries: they must not leave the runner unfiltered.
    pub async fn filter(
        &mut self,
        mut entries: Vec<TranscriptEntry>,
    ) -> Result<Vec<TranscriptEntry>, HookError> {
        for plug in &mut self.plugs {
            entries = plug.filter(entries).await?;
        }
        Ok(entries)
    }
}
