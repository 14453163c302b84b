//! [`Agent::launch`]: start the agent's process, connect to it over its
//! stdio and `initialize`.

use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    Implementation, InitializeRequest, RequestPermissionRequest, SessionNotification,
};
use agent_client_protocol::{ByteStreams, Client};
use anyhow::Context as _;
use tokio::sync::{mpsc, oneshot};
use tokio_util::compat::{TokioAsyncReadCompatExt as _, TokioAsyncWriteCompatExt as _};

use super::events::Transcript;
use super::permission::{self, PendingPermissions};
use super::process::{AgentProcess, DrainedStdout};
use super::{Agent, AgentCommand, AgentEvent};

impl Agent {
    /// Starts the agent as `command` says (its complete environment, plus
    /// `PATH` when not given; its working directory; `argv` executed as is)
    /// and initializes the ACP connection. Everything the agent sends from
    /// now on arrives on `events`.
    pub async fn launch(
        command: AgentCommand,
        events: mpsc::UnboundedSender<AgentEvent>,
    ) -> anyhow::Result<Agent> {
        let cwd = std::path::absolute(&command.cwd).with_context(|| {
            format!(
                "the agent's working directory {} is not valid",
                command.cwd.display()
            )
        })?;
        let (process, stdin, stdout) = AgentProcess::spawn(&command)?;
        let transcript = Arc::new(Mutex::new(Transcript::new(events)));
        let permissions = Arc::new(PendingPermissions::default());

        let (cx_tx, cx_rx) = oneshot::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let on_update = transcript.clone();
        let on_permission = (transcript.clone(), permissions.clone());
        let connection = Client
            .v1()
            .name("blaise-runner")
            .on_receive_notification(
                async move |notification: SessionNotification, _cx| {
                    on_update
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .update(notification.update);
                    Ok(())
                },
                agent_client_protocol::on_receive_notification!(),
            )
            .on_receive_request(
                async move |request: RequestPermissionRequest, responder, cx| {
                    permission::handle(request, responder, &cx, &on_permission.0, &on_permission.1)
                },
                agent_client_protocol::on_receive_request!(),
            )
            .connect_with(
                ByteStreams::new(stdin.compat_write(), DrainedStdout::new(stdout).compat()),
                async move |cx| {
                    if cx_tx.send(cx).is_ok() {
                        // Until `close` (or the `Agent` is dropped). Returning
                        // ends the connection and closes the agent's stdin.
                        let _closing = stopped.await;
                    }
                    Ok(())
                },
            );
        let connection = tokio::spawn(connection);

        let mut agent = Agent {
            cx: match cx_rx.await {
                Ok(cx) => cx,
                Err(_) => {
                    let error = match connection.await {
                        Ok(Err(error)) => error.to_string(),
                        _ => "it ended at once".to_owned(),
                    };
                    anyhow::bail!("could not connect to the agent: {error}");
                }
            },
            process,
            transcript,
            permissions,
            cwd,
            load_session: false,
            stop: Some(stop),
            connection: Some(connection),
        };
        let initialized = agent
            .call(
                "initialize",
                InitializeRequest::new(ProtocolVersion::V1).client_info(Implementation::new(
                    "blaise-runner",
                    env!("CARGO_PKG_VERSION"),
                )),
            )
            .await?;
        if initialized.protocol_version != ProtocolVersion::V1 {
            anyhow::bail!(
                "the agent speaks ACP protocol version {:?}; the runner speaks version 1",
                initialized.protocol_version
            );
        }
        agent.load_session = initialized.agent_capabilities.load_session;
        Ok(agent)
    }
}
