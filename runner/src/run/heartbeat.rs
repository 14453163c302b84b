//! Heartbeats on Blaise's interval. A heartbeat that fails is sent again
//! soon (every [`RETRY`] at most), not at the next interval: contact is back
//! as soon as the network is, so an outage costs the run nothing as long as
//! it is shorter than Blaise's timeout less one interval. After failing for
//! 90 intervals the run stops with "Lost contact with Blaise" (Blaise
//! recovers the session as for a dead runner).

use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::protocol::Client;

pub const LOST_CONTACT: &str = "Lost contact with Blaise";

/// Intervals of failed heartbeats after which the run gives up.
pub const MAX_FAILURES: u32 = 90;

/// The longest wait before a failed heartbeat is sent again.
const RETRY: Duration = Duration::from_millis(250);

/// Sends heartbeats until dropped; the receiver turns true when contact is lost.
pub struct Heartbeat {
    task: tokio::task::JoinHandle<()>,
    pub lost: watch::Receiver<bool>,
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub fn start(client: Client, run_id: String, interval: Duration) -> Heartbeat {
    let (tx, lost) = watch::channel(false);
    let interval = interval.max(Duration::from_millis(10));
    let give_up = interval * MAX_FAILURES;
    let task = tokio::spawn(async move {
        let mut failing_since: Option<Instant> = None;
        let mut failures = 0u32;
        let mut warned = Instant::now();
        let mut retry = Duration::from_millis(50);
        let mut tick = tokio::time::interval(interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            if failing_since.is_some() {
                tokio::time::sleep(retry).await;
                retry = (retry * 2).min(RETRY).min(interval);
                tick.reset();
            } else {
                tick.tick().await;
            }
            match client
                .heartbeat(&run_id, interval.max(Duration::from_secs(1)))
                .await
            {
                Ok(_) => {
                    if failures > 0 {
                        tracing::info!(run = %run_id, failures, "heartbeats answered again");
                    }
                    failing_since = None;
                    failures = 0;
                    retry = Duration::from_millis(50);
                }
                // Blaise says the run is over: a leftover process must not go on.
                Err(e) if e.is("run_finished") => {
                    tracing::warn!(run = %run_id, "Blaise says this run has finished; stopping");
                    let _ = tx.send(true);
                    return;
                }
                Err(e) => {
                    failures += 1;
                    let since = *failing_since.get_or_insert_with(Instant::now);
                    // One line per interval, not per try.
                    if failures == 1 || warned.elapsed() >= interval {
                        warned = Instant::now();
                        tracing::warn!(run = %run_id, failures, "heartbeat failed: {e}");
                    }
                    if since.elapsed() >= give_up {
                        let _ = tx.send(true);
                        return;
                    }
                }
            }
        }
    });
    Heartbeat { task, lost }
}
