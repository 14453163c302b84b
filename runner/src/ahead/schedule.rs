//! When the daemon prepares ahead: once blaise.yml is new or changed, again
//! when the last preparation is an hour old, only while the runner is idle,
//! one at a time; after a failure, not again under the same blaise.yml for
//! ten minutes.

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use tokio::process::Child;

use crate::daemon::RunnerOptions;
use crate::metrics::RunnerMetrics;
use crate::run::workspace::{self, SlotLock};
use crate::warm::config_digest;

/// How old a preparation may get before it is made again: a mirror an
/// hour behind, a base image rebuilt meanwhile.
const EVERY: Duration = Duration::from_secs(60 * 60);
/// How long a failed preparation waits before it is tried again under the
/// same blaise.yml (a changed one is tried at once).
const RETRY_AFTER: Duration = Duration::from_secs(10 * 60);
/// How often blaise.yml is read to see whether it changed.
const LOOK_EVERY: Duration = Duration::from_secs(5);

/// The daemon's preparations ahead.
#[derive(Default)]
pub struct Ahead {
    /// The one under way: its scratch, its process, the blaise.yml digest.
    under_way: Option<(SlotLock, Child, String)>,
    /// The last success: under which blaise.yml, and when (none: no plug
    /// of it prepares, so it is not made again until blaise.yml changes).
    done: Option<(String, Option<Instant>)>,
    /// The last failure: under which blaise.yml, and when.
    failed: Option<(String, Instant)>,
    looked: Option<Instant>,
}

impl Ahead {
    /// Reaps the preparation under way, and starts one when it is due and
    /// the runner `idle` (no run accepted for a moment).
    pub fn upkeep(&mut self, options: &RunnerOptions, idle: bool, metrics: &RunnerMetrics) {
        self.reap(options, metrics);
        let now = Instant::now();
        if self.under_way.is_some()
            || !idle
            || self
                .looked
                .is_some_and(|at| now.duration_since(at) < LOOK_EVERY)
        {
            return;
        }
        self.looked = Some(now);
        let Some(config) = config_digest(&options.config) else {
            return;
        };
        if !due(&config, self.done.as_ref(), self.failed.as_ref(), now) {
            return;
        }
        if let Err(e) = self.start(options, &config) {
            tracing::warn!("could not start a preparation ahead: {e:#}");
            self.failed = Some((config, now));
            metrics.prepared(false);
        }
    }

    /// Stops the preparation under way (the daemon is stopping).
    pub async fn stop(&mut self, options: &RunnerOptions) {
        if let Some((scratch, mut child, _)) = self.under_way.take() {
            crate::daemon::stop_helper(&mut child, "a preparation ahead").await;
            if let Err(e) = workspace::remove_when_quiet(&options.data_dir, &scratch.name).await {
                tracing::warn!(scratch = %scratch.name, "removing a preparation's scratch workspace: {e}");
            }
        }
    }

    fn reap(&mut self, options: &RunnerOptions, metrics: &RunnerMetrics) {
        let Some((_, child, _)) = &mut self.under_way else {
            return;
        };
        let Some(status) = crate::daemon::helper_exited(child, "a preparation ahead") else {
            return;
        };
        let (scratch, _, config) = self.under_way.take().expect("under way");
        remove_scratch(options, &scratch.name);
        let now = Instant::now();
        if status.success() {
            self.done = Some((config, Some(now)));
            self.failed = None;
            metrics.prepared(true);
        } else if status.code() == Some(super::NOTHING) {
            // No plug prepares: no process an hour for nothing.
            self.done = Some((config, None));
            self.failed = None;
        } else if status.code() == Some(super::BUSY) {
            // Another daemon of this data directory prepares: as if done
            // now (its preparation is the same one).
            self.done = Some((config, Some(now)));
        } else {
            // It said why (its log names the plug).
            tracing::warn!(%status, "the preparation ahead failed: sessions make what it did not at their start; it is tried again in {} minutes, or when blaise.yml changes", RETRY_AFTER.as_secs() / 60);
            self.failed = Some((config, now));
            metrics.prepared(false);
        }
    }

    fn start(&mut self, options: &RunnerOptions, config: &str) -> Result<()> {
        let scratch = workspace::new_scratch(&options.data_dir)
            .context("a scratch workspace to prepare in")?;
        match spawn(options, &scratch.name) {
            Ok(child) => {
                tracing::debug!(scratch = %scratch.name, "preparing ahead");
                self.under_way = Some((scratch, child, config.to_owned()));
                Ok(())
            }
            Err(e) => {
                remove_scratch(options, &scratch.name);
                Err(e)
            }
        }
    }
}

/// Whether a preparation is due under blaise.yml `config`, given the last
/// success and failure.
fn due(
    config: &str,
    done: Option<&(String, Option<Instant>)>,
    failed: Option<&(String, Instant)>,
    now: Instant,
) -> bool {
    let fresh = done
        .is_some_and(|(c, at)| c == config && at.is_none_or(|at| now.duration_since(at) < EVERY));
    let failed_lately =
        failed.is_some_and(|(c, at)| c == config && now.duration_since(*at) < RETRY_AFTER);
    !fresh && !failed_lately
}

fn spawn(options: &RunnerOptions, scratch: &str) -> Result<Child> {
    crate::daemon::helper_command(options, &[super::PREPARE_AHEAD, "--scratch", scratch])?
        .stdin(Stdio::null())
        .spawn()
        .context("starting prepare-ahead")
}

fn remove_scratch(options: &RunnerOptions, scratch: &str) {
    if let Err(e) = workspace::remove_scratch(&options.data_dir, scratch) {
        tracing::warn!(scratch, "removing a preparation's scratch workspace: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preparation_is_due_when_new_changed_stale_or_its_failure_is_old() {
        // Ahead of the clock: `now - age` is never before the machine's boot.
        let now = Instant::now() + Duration::from_secs(3 * 3600);
        let at = |ago: Duration| now - ago;
        let min = |m: u64| Duration::from_secs(60 * m);
        // (blaise.yml digest, how long ago; the success's none: nothing
        // to prepare)
        type Done = Option<(&'static str, Option<Duration>)>;
        type Failed = Option<(&'static str, Duration)>;
        // case, the last success, the last failure, due under "a"
        let rows: &[(&str, Done, Failed, bool)] = &[
            ("never prepared", None, None, true),
            (
                "prepared a minute ago",
                Some(("a", Some(min(1)))),
                None,
                false,
            ),
            (
                "prepared under another blaise.yml",
                Some(("b", Some(min(1)))),
                None,
                true,
            ),
            (
                "prepared an hour ago",
                Some(("a", Some(min(61)))),
                None,
                true,
            ),
            (
                "nothing to prepare, two hours ago",
                Some(("a", None)),
                None,
                false,
            ),
            (
                "nothing to prepare under another blaise.yml",
                Some(("b", None)),
                None,
                true,
            ),
            ("failed a minute ago", None, Some(("a", min(1))), false),
            ("failed 11 minutes ago", None, Some(("a", min(11))), true),
            (
                "failed under another blaise.yml",
                None,
                Some(("b", min(1))),
                true,
            ),
            (
                "stale, and failed again lately",
                Some(("a", Some(min(90)))),
                Some(("a", min(2))),
                false,
            ),
        ];
        for (case, done, failed, want) in rows {
            let done = done.map(|(c, ago)| (c.to_string(), ago.map(at)));
            let failed = failed.map(|(c, ago)| (c.to_string(), at(ago)));
            assert_eq!(
                due("a", done.as_ref(), failed.as_ref(), now),
                *want,
                "{case}"
            );
        }
    }
}
