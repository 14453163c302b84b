//! Closing a session from the web: the lifecycle's steps (`lifecycle::close`), with the wait
//! for the run to receive its stop between them.

use super::AppState;
use crate::error::{Error, Result};
use crate::lifecycle::close::{self, CloseStep};
use crate::model::Actor;
use crate::wakeups::Topic;

impl AppState {
    /// Closes the session; for a running one, waits until its run has received the stop, and
    /// withdraws the stop (nothing changed) if no runner received it in time.
    pub async fn close_and_wait(&self, by: &Actor, id: &str) -> Result<()> {
        // Twice at most: if the run ended (paused, say) before it read the stop, the session can
        // now be closed without one.
        for _ in 0..2 {
            let CloseStep::AwaitingDelivery { run_id, seq } =
                self.write(|ctx| close::begin(ctx, by, id)).await?
            else {
                return Ok(());
            };
            let received = match self
                .long_poll(
                    Topic::Run(run_id.clone()),
                    Some(self.cfg.close_wait_ms),
                    |ctx| close::check(ctx, by, &run_id, seq, false),
                )
                .await?
            {
                Some(received) => received,
                // Withdraw the stop unless it was received at the last moment (one transaction).
                None => self
                    .write(|ctx| close::check(ctx, by, &run_id, seq, true))
                    .await?
                    .unwrap_or(false),
            };
            if received {
                return Ok(());
            }
            let run_finished = self
                .read(|ctx| Ok(ctx.run(&run_id)?.status.is_finished()))
                .await?;
            if !run_finished {
                return Err(close::not_received(id, &run_id));
            }
        }
        Err(Error::conflict(
            "busy",
            format!("session {id} kept changing while it was being closed; try again"),
        ))
    }
}
