//! The daemon's warm pool: as many warm agents as Blaise asks for, started
//! one at a time when the runner is idle and they fit, given up first when
//! runs need the memory.

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use tokio::process::Child;

use crate::daemon::{MEMORY_PER_RUN, RunnerOptions};
use crate::keeper::{Keeper, WarmAgent};
use crate::metrics::RunnerMetrics;
use crate::run::workspace::{self, SlotLock};

/// The longest a warm agent waits, frozen, before it is started afresh: an
/// agent's timers and connections were proven across hot pauses of hours,
/// not days, and what it read at its start (its home's settings) ages.
const MAX_WAIT: Duration = Duration::from_secs(30 * 60);
/// Failed warm-ups in a row after which the pool stops trying, until the
/// target or blaise.yml changes.
const MAX_FAILURES: u32 = 3;

/// The warm pool's state in the daemon.
#[derive(Default)]
pub struct Pool {
    /// What Blaise asks for (`None`: it has not said; an older Blaise).
    target: Option<u32>,
    /// The `warm-one` under way: its slot, its process, and the digest of
    /// the blaise.yml it was started under.
    warming: Option<(SlotLock, Child, String)>,
    /// The slots of warm agents, locked until a session adopts them or they
    /// are removed (another daemon's sweep leaves them).
    held: Vec<SlotLock>,
    failures: u32,
    /// The digest of blaise.yml the failures were counted under.
    failed_config: Option<String>,
    /// The memory the last warm agent held: what the next is expected to.
    expected_rss: u64,
    /// How many warm agents runs let go because the plugs change the
    /// launch, and because it differed otherwise, as last seen.
    refused: (u64, u64),
    /// The digest of the blaise.yml under which warming stopped because of
    /// that; it starts again when the file changes.
    blocked_under: Option<String>,
}

impl Pool {
    /// Removes the slots of warm agents that died with the last daemon.
    pub fn sweep(options: &RunnerOptions) {
        let swept = workspace::sweep_slots(&options.data_dir);
        if swept > 0 {
            tracing::info!(swept, "removed the slots of warm agents that died");
        }
    }

    /// The target to echo in the next offers poll (only once Blaise said one).
    pub fn target(&self) -> Option<u32> {
        self.target
    }

    /// What Blaise's last offers answer said.
    pub fn told(&mut self, target: Option<u32>) {
        if target.is_some() && target != self.target {
            if let Some(n) = target {
                tracing::info!(warm_agents = n, "Blaise asks for warm agents");
            }
            self.target = target;
            self.failures = 0;
        }
    }

    /// Whether a warm agent is wanted: fewer wait than asked for, and none
    /// is being started.
    pub fn short(&self, keeper: &Keeper) -> bool {
        self.warming.is_none() && keeper.warm_count() < self.target.unwrap_or(0) as usize
    }

    /// Blaise does not read the target back (an older one): none is kept.
    pub fn forget(&mut self) {
        tracing::warn!("Blaise refused the warm target: no warm agents are kept");
        self.target = None;
    }

    /// Keeps the pool as asked: reaps the warm-up under way, removes the
    /// slots of warm agents that died, gives up warm agents beyond the
    /// target or the memory budget, and starts one more when it is short,
    /// `idle` (no run accepted for a moment) and one fits. `config` is
    /// blaise.yml's digest when it passed its check (none: nothing is
    /// started).
    pub fn upkeep(
        &mut self,
        options: &RunnerOptions,
        keeper: &Keeper,
        live_runs: usize,
        config: Option<&str>,
        idle: bool,
        metrics: &RunnerMetrics,
    ) {
        self.reap(options, keeper, metrics);
        for slot in keeper.orphaned_slots() {
            // (One a run took and never made its workspace, or that died
            // waiting; never a session's.)
            if !workspace::is_adopted(&options.data_dir, &slot) {
                remove_slot(options, &slot);
            }
        }
        let target = self.target.unwrap_or(0) as usize;
        // Warm starts off and nothing left of them: no walk of the agents'
        // processes for their memory.
        if target == 0 && self.held.is_empty() && keeper.warm_count() == 0 {
            metrics.warm_agents(0, 0);
            return;
        }
        let mut warm = keeper.warm();
        let budget = u64::from(options.capacity) * MEMORY_PER_RUN;
        let kept: u64 = keeper.kept().iter().map(|k| k.rss).sum();
        let used = live_runs as u64 * MEMORY_PER_RUN + kept;
        // A run just accepted is counted before it takes the warm agent it
        // will use: room is judged once it has (the runner is idle again).
        let budget_now = if idle { budget } else { u64::MAX };
        for agent in give_up(&warm, target, used, budget_now, Instant::now()) {
            // Not the pool's any more (a run took it): its slot is the run's.
            if keeper.release_warm(&agent.slot) {
                tracing::info!(slot = %agent.slot, "let a warm agent go");
                remove_slot(options, &agent.slot);
            }
            warm.retain(|w| w.slot != agent.slot);
        }
        // A slot taken by a run is let go once it is the session's (or gone).
        self.held.retain(|lock| {
            warm.iter().any(|w| w.slot == lock.name)
                || (lock.dir.exists() && !workspace::is_adopted(&options.data_dir, &lock.name))
        });
        if let Some(max) = warm.iter().map(|w| w.rss).max() {
            self.expected_rss = max;
        }
        metrics.warm_agents(warm.len(), warm.iter().map(|w| w.rss).sum());
        // (`config` is read only when a warm agent is wanted: none says nothing.)
        if config.is_some() && self.failed_config.as_deref() != config {
            self.failures = 0;
        }
        let refused = metrics.warm_launches_refused();
        let (plugs_changed, differed) = (refused.0 > self.refused.0, refused.1 > self.refused.1);
        self.refused = refused;
        if plugs_changed {
            if self.blocked_under.is_none() {
                tracing::warn!(
                    "warm agents cannot be used: the plugs' on-start changes how the agent starts (a sandbox, a container, a working directory). No more are started until blaise.yml changes"
                );
            }
            self.blocked_under = Some(config_digest(&options.config).unwrap_or_default());
        }
        if differed && !plugs_changed {
            // Started like the one a run refused (a secret's old value, an
            // earlier blaise.yml): the pool starts again with what is now.
            tracing::info!(
                "the warm agents were started with what has changed since: they are let go"
            );
        }
        if plugs_changed || differed {
            for agent in &warm {
                if keeper.release_warm(&agent.slot) {
                    remove_slot(options, &agent.slot);
                }
            }
            warm.clear();
        }
        if config.is_some() && self.blocked_under.as_deref() != config {
            self.blocked_under = None;
        }
        let warm_rss: u64 = warm.iter().map(|w| w.rss).sum();
        let short = warm.len() < target;
        let fits = used + warm_rss + self.expected_rss <= budget;
        if short
            && fits
            && idle
            && self.warming.is_none()
            && self.failures < MAX_FAILURES
            && self.blocked_under.is_none()
            && let Some(config) = config
        {
            match self.start(options, keeper, config) {
                Ok(()) => {}
                Err(e) => {
                    tracing::warn!("could not start a warm agent: {e:#}");
                    self.failed(config);
                }
            }
        }
    }

    /// Stops the warm-up under way (the daemon is stopping).
    pub async fn stop(&mut self, options: &RunnerOptions, keeper: &Keeper) {
        if let Some((slot, mut child, _)) = self.warming.take() {
            crate::daemon::stop_helper(&mut child, "a warm-up").await;
            // An agent handed to the keeper before the kill would write in
            // its slot until the keeper went: let it go. One a run took
            // meanwhile is that session's, and so is its slot.
            if !keeper.release_warm(&slot.name)
                && workspace::is_adopted(&options.data_dir, &slot.name)
            {
                return;
            }
            if let Err(e) = workspace::remove_when_quiet(&options.data_dir, &slot.name).await {
                tracing::warn!(slot = %slot.name, "removing a warm agent's slot: {e}");
            }
        }
    }

    fn reap(&mut self, options: &RunnerOptions, keeper: &Keeper, metrics: &RunnerMetrics) {
        let Some((_, child, config)) = &mut self.warming else {
            return;
        };
        let Some(status) = crate::daemon::helper_exited(child, "a warm-up") else {
            return;
        };
        let config = config.clone();
        let (slot, _, _) = self.warming.take().expect("under way");
        if status.success() {
            self.failures = 0;
            self.held.push(slot);
        } else if status.code() == Some(super::MAY_WRAP) {
            // It said why (its log): the plugs may wrap the agent.
            self.blocked_under = Some(config.clone());
            remove_slot(options, &slot.name);
        } else {
            tracing::warn!(%status, "a warm agent could not be started");
            metrics.warm_outcome(crate::metrics::WarmOutcome::Failed);
            // (Handed to the pool before it failed, the agent goes too.)
            keeper.release_warm(&slot.name);
            remove_slot(options, &slot.name);
            self.failed(&config);
            if self.failures == MAX_FAILURES {
                tracing::warn!(
                    "{MAX_FAILURES} warm agents in a row could not be started: no more until the agent's warm_agents or blaise.yml changes"
                );
            }
        }
    }

    fn failed(&mut self, config: &str) {
        self.failures += 1;
        self.failed_config = Some(config.to_owned());
    }

    /// Starts `warm-one` in a new slot, with a socket to the keeper.
    fn start(&mut self, options: &RunnerOptions, keeper: &Keeper, config: &str) -> Result<()> {
        let socket = keeper.connect_run().context("a socket to the keeper")?;
        let slot = workspace::new_slot(&options.data_dir).context("a slot for a warm agent")?;
        match spawn(options, &slot.name, socket) {
            Ok(child) => {
                tracing::info!(slot = %slot.name, "starting a warm agent");
                self.warming = Some((slot, child, config.to_owned()));
                Ok(())
            }
            Err(e) => {
                remove_slot(options, &slot.name);
                Err(e)
            }
        }
    }
}

/// The digest of blaise.yml as it is now (its text's, as
/// `ConfigFile::digest`), read without parsing it.
pub fn config_digest(path: &std::path::Path) -> Option<String> {
    let text = std::fs::read(path).ok()?;
    Some(crate::host::compile_cache::sha256_hex(&text))
}

fn spawn(options: &RunnerOptions, slot: &str, keeper: std::os::fd::OwnedFd) -> Result<Child> {
    crate::daemon::helper_command(options, &[super::WARM_ONE, "--slot", slot])?
        .stdin(Stdio::from(keeper))
        .spawn()
        .context("starting warm-one")
}

fn remove_slot(options: &RunnerOptions, slot: &str) {
    if let Err(e) = workspace::remove_slot(&options.data_dir, slot) {
        tracing::warn!(slot, "removing a warm agent's slot: {e}");
    }
}

/// The warm agents to give up: those that waited longer than
/// [`MAX_WAIT`], the newest beyond `target`, then more (the newest first)
/// until `used` bytes (live runs and kept agents) and what the rest hold fit
/// in `budget`.
fn give_up(
    warm: &[WarmAgent],
    target: usize,
    used: u64,
    budget: u64,
    now: Instant,
) -> Vec<WarmAgent> {
    let (mut out, mut keep): (Vec<WarmAgent>, Vec<WarmAgent>) = warm
        .iter()
        .cloned()
        .partition(|w| now.saturating_duration_since(w.since) > MAX_WAIT);
    keep.sort_by_key(|w| w.since);
    while keep.len() > target {
        out.push(keep.pop().expect("longer than the target"));
    }
    let mut total = used + keep.iter().map(|w| w.rss).sum::<u64>();
    while total > budget
        && let Some(w) = keep.pop()
    {
        total -= w.rss;
        out.push(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warm_agents_give_way_beyond_the_target_and_to_runs() {
        // Ahead of the clock: `now - age` is never before the machine's boot.
        let now = Instant::now() + Duration::from_secs(7200);
        let warm = |slot: &str, mib: u64, age_s: u64| WarmAgent {
            slot: slot.into(),
            pid: 1,
            rss: mib << 20,
            since: now - Duration::from_secs(age_s),
        };
        let pool = [
            warm("old", 300, 60),
            warm("new", 300, 10),
            warm("mid", 300, 30),
        ];
        let slots = |v: Vec<WarmAgent>| v.into_iter().map(|w| w.slot).collect::<Vec<_>>();
        let budget = 2 * MEMORY_PER_RUN;
        // Within the target and the budget: none.
        assert!(give_up(&pool, 3, 0, 4 * MEMORY_PER_RUN, now).is_empty());
        // Beyond the target: the newest.
        assert_eq!(
            slots(give_up(&pool, 2, 0, 4 * MEMORY_PER_RUN, now)),
            ["new"]
        );
        // A live run needs 512 MiB of a 1 GiB budget: one warm agent fits.
        assert_eq!(
            slots(give_up(&pool, 3, MEMORY_PER_RUN, budget, now)),
            ["new", "mid"]
        );
        // Two runs fill it: all go.
        assert_eq!(give_up(&pool, 3, budget, budget, now).len(), 3);
        // One that waited too long goes whatever the room.
        let stale = [
            warm("stale", 300, MAX_WAIT.as_secs() + 1),
            warm("fresh", 300, 5),
        ];
        assert_eq!(
            slots(give_up(&stale, 3, 0, 4 * MEMORY_PER_RUN, now)),
            ["stale"]
        );
    }
}
