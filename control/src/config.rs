//! The server's own limits (not an agent's: those are [`crate::model::AgentSettings`]).

use crate::model::Millis;
use crate::store::DueLimits;

#[derive(Clone, Debug)]
pub struct Config {
    /// How often the clock checks every limit.
    pub check_interval_ms: Millis,
    /// No agent's paused lifetime exceeds this.
    pub paused_lifetime_cap_ms: Millis,
    /// An accepted run that never contacts Blaise is failed after this ("after a minute").
    pub connect_timeout_ms: Millis,
    /// A run that ignores a stop directive is failed after this ("after a minute").
    pub stop_grace_ms: Millis,
    /// A run whose runner has been silent this long is timed out.
    pub heartbeat_timeout_ms: Millis,
    /// The heartbeat interval Blaise asks runs to keep.
    pub heartbeat_interval_ms: Millis,
    /// First delay before a failed teardown is retried; doubles with every attempt.
    pub teardown_backoff_ms: Millis,
    /// Teardown attempts before the environment is orphaned.
    pub teardown_attempts: u32,
    /// Runs failing in a row before Blaise gives up on a session.
    pub max_failures_in_a_row: u32,
    /// How long closing a running session waits for the run to receive the stop.
    pub close_wait_ms: Millis,
    /// Longest a long poll is held open.
    pub long_poll_max_ms: Millis,
    /// When this server started: the clock counts a run's silence (and an
    /// unreceived stop) from no earlier than this, so that a restart or an
    /// outage of Blaise itself is never taken for the runner's silence.
    pub started_at: Millis,
    /// How long an ended session's transcript, directives and reports are
    /// kept; `None` keeps everything (the default: the operator opts in).
    pub retain_ended_ms: Option<Millis>,
    /// A start run that no connected runner can take (none serves its agent, or none has the
    /// labels it requires) fails after waiting this long.
    pub runner_wait_ms: Millis,
    /// How long a client may take to send a request's head (see
    /// [`crate::http::serve`]).
    pub header_read_timeout_ms: Millis,
    /// First delay before a failed webhook delivery is sent again; doubles with every attempt
    /// (at most an hour).
    pub webhook_backoff_ms: Millis,
    /// Attempts at a webhook delivery before it is given up on.
    pub webhook_attempts: u32,
    /// Whether a webhook may be sent to a loopback, private or link-local address (off: an
    /// admin's URL must not reach into the operator's network).
    pub webhooks_to_private_addresses: bool,
    /// How often sessions waiting for a runner are looked at for the webhooks that want to
    /// know.
    pub webhook_waits_every_ms: Millis,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            check_interval_ms: 5_000,
            paused_lifetime_cap_ms: 7 * 86_400_000,
            connect_timeout_ms: 60_000,
            stop_grace_ms: 60_000,
            heartbeat_timeout_ms: 60_000,
            heartbeat_interval_ms: 20_000,
            teardown_backoff_ms: 30_000,
            teardown_attempts: 4,
            max_failures_in_a_row: 3,
            close_wait_ms: 10_000,
            long_poll_max_ms: 30_000,
            started_at: 0,
            retain_ended_ms: None,
            runner_wait_ms: 10 * 60_000,
            header_read_timeout_ms: 60_000,
            webhook_backoff_ms: 5_000,
            webhook_attempts: 10,
            webhooks_to_private_addresses: false,
            webhook_waits_every_ms: 2_000,
        }
    }
}

impl Config {
    pub fn due_limits(&self) -> DueLimits {
        DueLimits {
            connect_timeout_ms: self.connect_timeout_ms,
            heartbeat_timeout_ms: self.heartbeat_timeout_ms,
            stop_grace_ms: self.stop_grace_ms,
        }
    }

    /// A runner instance that polled within this is connected: it is always either in a long
    /// poll (at most `long_poll_max_ms`) or about to start the next one.
    pub fn connection_fresh_ms(&self) -> Millis {
        self.long_poll_max_ms
            .saturating_add(self.heartbeat_timeout_ms)
    }

    /// `t`, or this server's start if that is later (see `started_at`).
    pub fn since_start(&self, t: Millis) -> Millis {
        t.max(self.started_at)
    }

    /// Delay before teardown attempt `attempts + 1`, after `attempts` failed ones (≥ 1).
    pub fn teardown_delay(&self, attempts: u32) -> Millis {
        self.teardown_backoff_ms
            .saturating_mul(1 << attempts.saturating_sub(1).min(20))
    }
}
