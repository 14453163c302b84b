//! Blaise owns the clock: on a fixed interval it checks every limit and acts.

pub mod rules;

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::error::Result;
use crate::lifecycle::transact;
use crate::model::{Millis, now};
use crate::store::Store;

/// What one tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct TickReport {
    /// Sessions the store said were due.
    pub checked: usize,
    /// Sessions a rule acted on.
    pub acted: usize,
    /// Records (transcript entries, directives, reports) the retention pruned.
    pub pruned: usize,
}

/// Most records one transaction of the retention deletes: short enough that
/// requests and runs never wait long on the store's lock.
pub const PRUNE_BATCH: usize = 500;
/// Most records one tick prunes; what is left waits for the next tick.
pub const PRUNE_PER_TICK: usize = 10_000;

/// Checks every session that may be due at `now`, each in its own transaction.
pub fn tick(store: &dyn Store, cfg: &Config, now: Millis) -> Result<TickReport> {
    let due = transact(store, cfg, now, |ctx| {
        Ok(ctx.tx.due_sessions(now, &cfg.due_limits())?)
    })?;
    let mut report = TickReport {
        checked: due.len(),
        ..TickReport::default()
    };
    for session_id in due {
        match transact(store, cfg, now, |ctx| {
            rules::check_session(ctx, &session_id)
        }) {
            Ok(true) => report.acted += 1,
            Ok(false) => {}
            Err(e) => tracing::error!(session = %session_id, "clock: {e}"),
        }
    }
    report.pruned = prune(store, cfg, now)?;
    Ok(report)
}

/// The retention (`retain_ended_ms`): the transcript, directives and reports
/// of sessions ended longer ago than that are deleted, in batches of
/// [`PRUNE_BATCH`] (each its own transaction), at most [`PRUNE_PER_TICK`]
/// per tick; a session whose records are all gone is marked pruned.
/// Returns how many records it deleted.
pub fn prune(store: &dyn Store, cfg: &Config, now: Millis) -> Result<usize> {
    let Some(retain) = cfg.retain_ended_ms else {
        return Ok(0);
    };
    let cutoff = now.saturating_sub(retain);
    let sessions = transact(store, cfg, now, |ctx| {
        Ok(ctx
            .tx
            .sessions_to_prune(cutoff, PRUNE_PER_TICK / PRUNE_BATCH)?)
    })?;
    let mut pruned = 0;
    for session_id in sessions {
        loop {
            let batch = PRUNE_BATCH.min(PRUNE_PER_TICK - pruned);
            if batch == 0 {
                return Ok(pruned);
            }
            let (deleted, done) = transact(store, cfg, now, |ctx| {
                let deleted = ctx.tx.prune_session_records(&session_id, batch)?;
                let done = deleted < batch;
                if done {
                    let mut session = ctx.session(&session_id)?;
                    session.pruned_at = Some(now);
                    ctx.tx.put_session(&session)?;
                }
                Ok((deleted, done))
            })?;
            pruned += deleted;
            if done {
                break;
            }
        }
    }
    Ok(pruned)
}

/// Runs the clock every `check_interval`; `on_change` is called after a tick that acted.
pub fn spawn(
    store: Arc<dyn Store>,
    cfg: Arc<Config>,
    on_change: impl Fn() + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut interval =
            tokio::time::interval(Duration::from_millis(cfg.check_interval_ms.max(1) as u64));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            interval.tick().await;
            // The tick is blocking store work: keep it off the threads that serve requests.
            let (store, cfg) = (store.clone(), cfg.clone());
            match tokio::task::spawn_blocking(move || tick(&*store, &cfg, now())).await {
                Ok(Ok(r)) if r.acted > 0 || r.pruned > 0 => {
                    tracing::debug!(acted = r.acted, pruned = r.pruned, "clock tick");
                    on_change();
                }
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::error!("clock tick failed: {e}"),
                Err(e) => tracing::error!("clock tick panicked: {e}"),
            }
        }
    })
}
