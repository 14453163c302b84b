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
}

/// Checks every session that may be due at `now`, each in its own transaction.
pub fn tick(store: &dyn Store, cfg: &Config, now: Millis) -> Result<TickReport> {
    let due = transact(store, cfg, now, |ctx| {
        Ok(ctx.tx.due_sessions(now, &cfg.due_limits())?)
    })?;
    let mut report = TickReport {
        checked: due.len(),
        acted: 0,
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
    Ok(report)
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
                Ok(Ok(r)) if r.acted > 0 => {
                    tracing::debug!(acted = r.acted, "clock tick");
                    on_change();
                }
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::error!("clock tick failed: {e}"),
                Err(e) => tracing::error!("clock tick panicked: {e}"),
            }
        }
    })
}
