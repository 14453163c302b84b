//! Ending the agent: [`Agent::close`], and `Drop` for an agent that was not closed.

use std::time::Duration;

use super::{Agent, AgentEvent};

/// How long the connection may take to wind down once the agent is gone.
const CONNECTION_GRACE: Duration = Duration::from_millis(500);

/// How an agent ended.
#[derive(Debug)]
pub struct Closed {
    /// Its exit code, or `None` when a signal ended it.
    pub code: Option<i32>,
    /// The `last` entry of the stream it left open, if any: after every
    /// event it sent (the connection is over).
    pub last: Vec<AgentEvent>,
    /// What `blaise-egress` reported last, when it started the agent (see
    /// [`super::AgentCommand::egress_report`]).
    pub egress: Option<String>,
}

impl Agent {
    /// Ends the agent: answers pending permission requests "cancelled" and
    /// ends the connection, which closes the agent's stdin (ACP's signal to
    /// exit). Between turns that is all it should need, and many agents
    /// ignore it: the process group gets `SIGTERM` at once. In the middle of
    /// a turn it gets `grace` to exit by itself first. Then `SIGTERM`, up to
    /// `grace` more, then `SIGKILL`; whatever is left in the process group
    /// afterwards is killed too. The caller keeps taking events meanwhile.
    ///
    /// It does not fail today: the `Result` keeps room for a close that can.
    pub async fn close(mut self, grace: Duration) -> Result<Closed, super::AcpError> {
        let idle = self.is_idle();
        self.permissions.cancel_all();
        if let Some(stop) = self.stop.take() {
            let _already_ended = stop.send(());
        }
        let by_itself = if idle { Duration::ZERO } else { grace };
        let status = match tokio::time::timeout(by_itself, self.process.exited()).await {
            Ok(status) => status,
            Err(_) => {
                tracing::debug!(pid = self.pid(), idle, "closing the agent: SIGTERM");
                self.process.signal_group(libc::SIGTERM);
                match tokio::time::timeout(grace, self.process.exited()).await {
                    Ok(status) => status,
                    Err(_) => {
                        tracing::warn!(
                            pid = self.pid(),
                            ?grace,
                            "the agent ignored SIGTERM: SIGKILL"
                        );
                        self.process.signal_group(libc::SIGKILL);
                        self.process.exited().await
                    }
                }
            }
        };
        // What the agent started in its group (and left behind) goes with it.
        self.process.signal_group(libc::SIGKILL);
        if let Some(mut connection) = self.connection.take()
            && tokio::time::timeout(CONNECTION_GRACE, &mut connection)
                .await
                .is_err()
        {
            connection.abort();
        }
        tracing::debug!(pid = self.pid(), %status, "the agent is closed");
        let egress = self.process.egress_report().await;
        Ok(Closed {
            code: status.code(),
            last: self.end_stream(),
            egress,
        })
    }
}

impl Drop for Agent {
    /// Without `close`: pending permission requests are answered "cancelled"
    /// and the connection ends; the process is killed when its
    /// `AgentProcess` is dropped.
    fn drop(&mut self) {
        self.permissions.cancel_all();
        if let Some(connection) = self.connection.take() {
            connection.abort();
        }
    }
}
