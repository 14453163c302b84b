//! Ending the agent: [`Agent::close`], and `Drop` for an agent that was not closed.

use std::time::Duration;

use super::Agent;

/// How long the connection may take to wind down once the agent is gone.
const CONNECTION_GRACE: Duration = Duration::from_millis(500);

impl Agent {
    /// Ends the agent gently: answers pending permission requests
    /// "cancelled", ends the connection (which closes the agent's stdin: the
    /// ACP signal to exit), waits up to `grace` for the process to exit, then
    /// sends `SIGTERM` to its process group and waits up to `grace` again,
    /// then `SIGKILL`. Whatever is left in the process group afterwards is
    /// killed too. Returns the exit code, or `None` when a signal ended it.
    pub async fn close(mut self, grace: Duration) -> anyhow::Result<Option<i32>> {
        self.permissions.cancel_all();
        if let Some(stop) = self.stop.take() {
            let _already_ended = stop.send(());
        }
        let status = match tokio::time::timeout(grace, self.process.exited()).await {
            Ok(status) => status,
            Err(_) => {
                tracing::debug!(
                    pid = self.pid(),
                    ?grace,
                    "the agent ignored its closed stdin: SIGTERM"
                );
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
        // Updates that came outside any turn may have left a stream open.
        self.transcript().end_stream();
        tracing::debug!(pid = self.pid(), %status, "the agent is closed");
        Ok(status.code())
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
