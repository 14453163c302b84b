//! Heartbeats on Blaise's interval. After 90 failures in a row the run stops
//! with "Lost contact with Blaise" (Blaise recovers the session as for a dead runner).

use std::time::Duration;

use tokio::sync::watch;

use crate::protocol::Client;

pub const LOST_CONTACT: &str = "Lost contact with Blaise";

/// Failed heartbeats in a row after which the run gives up.
pub const MAX_FAILURES: u32 = 90;

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
    let task = tokio::spawn(async move {
        let mut failures = 0;
        let mut tick = tokio::time::interval(interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            match client
                .heartbeat(&run_id, interval.max(Duration::from_secs(1)))
                .await
            {
                Ok(_) => failures = 0,
                // Blaise says the run is over: a leftover process must not go on.
                Err(e) if e.is("run_finished") => {
                    tracing::warn!(run = %run_id, "Blaise says this run has finished; stopping");
                    let _ = tx.send(true);
                    return;
                }
                Err(e) => {
                    failures += 1;
                    tracing::warn!(run = %run_id, failures, "heartbeat failed: {e}");
                    if failures >= MAX_FAILURES {
                        let _ = tx.send(true);
                        return;
                    }
                }
            }
        }
    });
    Heartbeat { task, lost }
}
