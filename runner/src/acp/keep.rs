//! A hot pause: [`Agent::keep`] hands the agent, frozen, to the daemon's
//! keeper (see [`crate::keeper`]) instead of closing it.

use std::time::{Duration, Instant};

use super::{Agent, AgentEvent};
use crate::keeper::KeepFor;

/// What a warm agent keeps for the start run that takes it (beside what a
/// hot pause keeps).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WarmMeta {
    /// The slot it was started in, which becomes the session's workspace.
    pub slot: String,
    /// The digest of the launch it was started with
    /// ([`super::AgentCommand::digest`]): taken only by a run whose own
    /// launch is the same.
    pub launch: String,
    /// Its parts' digests ([`super::AgentCommand::part_digests`]), to name
    /// what differs when a run's launch is not the same.
    pub parts: std::collections::BTreeMap<String, String>,
    /// The conversation it opened (`session/new`) in the slot.
    pub acp_session: String,
}

impl WarmMeta {
    /// What a warm agent's keeper record says, if it is one.
    pub fn of(meta: &str) -> Option<WarmMeta> {
        #[derive(serde::Deserialize)]
        struct Envelope {
            warm: WarmMeta,
        }
        serde_json::from_str::<Envelope>(meta).ok().map(|e| e.warm)
    }
}

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
    pub async fn keep(self, session: &str) -> Result<Kept, NotKept> {
        let meta = self.kept_meta();
        self.hand(KeepFor::Session(session.to_owned()), meta, true)
            .await
    }

    /// Hands the agent, started ahead in slot `warm.slot` with its
    /// conversation open, to the keeper's warm pool, frozen. Its egress
    /// counts are not asked for: they go on counting, into the record of
    /// the run that takes it.
    pub async fn keep_warm(self, warm: WarmMeta) -> Result<Kept, NotKept> {
        let mut meta: serde_json::Value =
            serde_json::from_str(&self.kept_meta()).expect("plain data");
        meta["warm"] = serde_json::to_value(&warm).expect("plain data");
        self.hand(KeepFor::Warm(warm.slot), meta.to_string(), false)
            .await
    }

    async fn hand(mut self, for_: KeepFor, meta: String, egress: bool) -> Result<Kept, NotKept> {
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
        let egress = match egress {
            true => self.process.egress_report_now().await,
            false => None,
        };
        // Waits for the stops to take: off the async threads.
        let pid = self.pid();
        let _ = tokio::task::spawn_blocking(move || crate::keeper::freeze(pid)).await;
        let start = Instant::now();
        while self.process.unread_stdout() > 0 && start.elapsed() < DRAIN_LIMIT {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        tokio::time::sleep(SETTLE).await;
        if let Err(why) = self.process.hand_over(&for_, meta).await {
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
        match for_ {
            KeepFor::Session(_) => tracing::info!(
                pid = self.pid(),
                "the agent is kept, frozen, for the session's next run"
            ),
            KeepFor::Warm(slot) => tracing::info!(
                pid = self.pid(),
                slot,
                "the agent waits, frozen, for a new session"
            ),
        }
        Ok(Kept {
            last: self.end_stream(),
            egress,
        })
    }
}
