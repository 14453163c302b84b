//! A hot pause: [`Agent::keep`] hands the agent, frozen, to the daemon's
//! keeper (see [`crate::keeper`]) instead of closing it.

use std::time::{Duration, Instant};

use super::{Agent, AgentEvent};

/// How long the run waits for the connection to read what the frozen agent
/// had already written.
const DRAIN_LIMIT: Duration = Duration::from_millis(500);
/// A moment for what was read to be handed on as events.
const SETTLE: Duration = Duration::from_millis(20);
/// How long the connection may take to wind down once the agent is kept.
const CONNECTION_GRACE: Duration = Duration::from_millis(500);

/// What a kept agent left for this run.
#[derive(Debug)]
pub struct Kept {
    /// The `last` entry of the stream it left open, if any.
    pub last: Vec<AgentEvent>,
    /// What `blaise-egress` counted during this run, if it started the agent.
    pub egress: Option<String>,
}

/// An agent that could not be kept, with why, for a cold close.
pub struct NotKept {
    pub agent: Agent,
    pub why: String,
    /// What `blaise-egress` counted until it was asked (its close reports
    /// the rest; Blaise adds the two up).
    pub egress: Option<String>,
}

impl Agent {
    /// Hands the agent to the keeper for `session`, frozen (`SIGSTOP` to its
    /// process group: no CPU), with its stdio and what the run that takes it
    /// up needs. Only between turns, and only for an agent started through
    /// the keeper. Whatever prevents it, the agent is let go on and given
    /// back with the reason, for a cold close.
    ///
    /// The agent is frozen first, so that all it wrote is in the pipe; the
    /// connection reads that here (the caller takes events meanwhile).
    ///
    /// An agent started by `blaise-egress` is asked for its counts first
    /// (this run's, whether the agent is kept or not: what comes at its
    /// close counts from then on).
    pub async fn keep(mut self, session: &str) -> Result<Kept, NotKept> {
        let not = |agent, why: &str| NotKept {
            agent,
            why: why.into(),
            egress: None,
        };
        if !self.is_idle() {
            return Err(not(self, "a turn is under way"));
        }
        if self.process.exit_status().is_some() {
            return Err(not(self, "the agent exited"));
        }
        let egress = self.process.egress_report_now().await;
        // Waits for the stops to take: off the async threads.
        let pid = self.pid();
        let _ = tokio::task::spawn_blocking(move || crate::keeper::freeze(pid)).await;
        let start = Instant::now();
        while self.process.unread_stdout() > 0 && start.elapsed() < DRAIN_LIMIT {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        tokio::time::sleep(SETTLE).await;
        let meta = self.kept_meta();
        if let Err(why) = self.process.hand_over(session, meta).await {
            crate::keeper::thaw(self.pid());
            return Err(NotKept {
                agent: self,
                why,
                egress,
            });
        }
        self.handed_over
            .store(true, std::sync::atomic::Ordering::Release);
        self.permissions.cancel_all();
        if let Some(stop) = self.stop.take() {
            let _already_ended = stop.send(());
        }
        if let Some(mut connection) = self.connection.take()
            && tokio::time::timeout(CONNECTION_GRACE, &mut connection)
                .await
                .is_err()
        {
            connection.abort();
        }
        tracing::info!(
            pid = self.pid(),
            "the agent is kept, frozen, for the session's next run"
        );
        Ok(Kept {
            last: self.end_stream(),
            egress,
        })
    }
}
