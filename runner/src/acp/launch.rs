//! [`Agent::launch`]: start the agent's process, connect to it over its
//! stdio and `initialize`.

use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    ClientCapabilities, Implementation, InitializeRequest, Meta, RequestPermissionRequest,
    SessionNotification, SessionUpdate,
};
use agent_client_protocol::{ByteStreams, Client, UntypedMessage};
use tokio::sync::{mpsc, oneshot};
use tokio_util::compat::{TokioAsyncReadCompatExt as _, TokioAsyncWriteCompatExt as _};

use super::events::Transcript;
use super::permission::{self, PendingPermissions};
use super::process::{AgentProcess, AgentStdin, AgentStdout, DrainedStdout};
use super::{AcpError, Agent, AgentCommand, AgentEvent};
use crate::keeper::{Handed, KeeperClient};

impl Agent {
    /// Starts the agent as `command` says (its complete environment, plus
    /// `PATH` when not given; its working directory; `argv` executed as is)
    /// and initializes the ACP connection. Everything the agent sends from
    /// now on arrives on `events`, its stderr included: the caller takes
    /// events while it awaits this (a full channel holds the agent back).
    ///
    /// With a `keeper`, the agent is started through it (see
    /// [`crate::keeper`]): it can then be kept across a pause.
    pub async fn launch(
        command: AgentCommand,
        events: mpsc::Sender<AgentEvent>,
        keeper: Option<Arc<KeeperClient>>,
    ) -> Result<Agent, AcpError> {
        let cwd = std::path::absolute(&command.cwd).map_err(|why| {
            AcpError::Start(format!(
                "the agent's working directory {} is not valid: {why}",
                command.cwd.display()
            ))
        })?;
        let (process, stdin, stdout) =
            AgentProcess::spawn(&command, events.clone(), keeper.as_ref()).await?;
        let mut agent = Agent::connect(process, stdin, stdout, cwd, events).await?;
        let initialized = agent
            .call(
                "initialize",
                InitializeRequest::new(ProtocolVersion::V1)
                    .client_info(Implementation::new(
                        "blaise-runner",
                        env!("CARGO_PKG_VERSION"),
                    ))
                    .client_capabilities(client_capabilities()),
            )
            .await?;
        if initialized.protocol_version != ProtocolVersion::V1 {
            return Err(AcpError::Unsupported(format!(
                "the agent speaks ACP protocol version {:?}; the runner speaks version 1",
                initialized.protocol_version
            )));
        }
        let capabilities = initialized.agent_capabilities;
        agent.load_session = capabilities.load_session;
        agent.resume_session = capabilities.session_capabilities.resume.is_some();
        Ok(agent)
    }

    /// Takes up the agent the keeper kept since the session's pause: a new
    /// connection over the same pipes, to the same process, which is let go
    /// on (`SIGCONT`) once the connection reads it. Nothing is asked of the
    /// agent: its ACP session is the one it was in.
    pub async fn take_up(
        handed: Handed,
        keeper: Arc<KeeperClient>,
        events: mpsc::Sender<AgentEvent>,
    ) -> Result<Agent, AcpError> {
        let kept: KeptMeta = serde_json::from_str(&handed.meta).map_err(|e| {
            AcpError::Start(format!("what the pausing run kept is unreadable: {e}"))
        })?;
        let (process, stdin, stdout) = AgentProcess::adopt(handed, keeper, events.clone())?;
        let mut agent = Agent::connect(process, stdin, stdout, kept.cwd, events).await?;
        agent.load_session = kept.load_session;
        agent.resume_session = kept.resume_session;
        agent.transcript().cost_seen = kept.costs_seen;
        crate::keeper::thaw(agent.pid());
        Ok(agent)
    }

    /// What a hot pause keeps with the agent for the run that takes it up.
    pub(super) fn kept_meta(&self) -> String {
        serde_json::to_string(&KeptMeta {
            cwd: self.cwd.clone(),
            load_session: self.load_session,
            resume_session: self.resume_session,
            costs_seen: self.transcript().cost_seen.clone(),
        })
        .expect("plain data")
    }

    /// The connection over the agent's stdio (nothing sent on it yet).
    async fn connect(
        process: AgentProcess,
        stdin: AgentStdin,
        stdout: AgentStdout,
        cwd: std::path::PathBuf,
        events: mpsc::Sender<AgentEvent>,
    ) -> Result<Agent, AcpError> {
        let handed_over = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let transcript = Arc::new(Mutex::new(Transcript::default()));
        let permissions = Arc::new(PendingPermissions::default());

        let (cx_tx, cx_rx) = oneshot::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let on_update = (transcript.clone(), events.clone());
        let on_permission = (transcript.clone(), permissions.clone(), events);
        let connection = Client
            .v1()
            .name("blaise-runner")
            .on_receive_notification(
                async move |notification: UntypedMessage, _cx| {
                    // Read here, not by the typed handler: an update this
                    // runner cannot read (a newer shape, a `null` where a
                    // number belongs) costs that update, named in the log,
                    // and no warning on every turn.
                    let Some(update) = session_update(&notification) else {
                        return Ok(());
                    };
                    let made = on_update
                        .0
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .update(update);
                    // In the dispatch loop: the agent's next message waits
                    // until there is room (the loop reads nothing meanwhile).
                    for event in made {
                        let _ = on_update.1.send(event).await;
                    }
                    Ok(())
                },
                agent_client_protocol::on_receive_notification!(),
            )
            .on_receive_request(
                async move |request: RequestPermissionRequest, responder, cx| {
                    let (transcript, pending, events) = &on_permission;
                    permission::handle(request, responder, &cx, transcript, pending, events).await
                },
                agent_client_protocol::on_receive_request!(),
            )
            .connect_with(
                ByteStreams::new(
                    stdin.compat_write(),
                    DrainedStdout::new(stdout, handed_over.clone()).compat(),
                ),
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

        Ok(Agent {
            cx: match cx_rx.await {
                Ok(cx) => cx,
                Err(_) => {
                    let error = match connection.await {
                        Ok(Err(error)) => error.to_string(),
                        _ => "it ended at once".to_owned(),
                    };
                    return Err(AcpError::Start(format!(
                        "could not connect to the agent: {error}"
                    )));
                }
            },
            process,
            transcript,
            permissions,
            cwd,
            load_session: false,
            resume_session: false,
            turns: Default::default(),
            stop: Some(stop),
            connection: Some(connection),
            handed_over,
        })
    }
}

/// What a hot pause keeps with the agent (see [`Agent::take_up`]).
#[derive(serde::Serialize, serde::Deserialize)]
struct KeptMeta {
    cwd: std::path::PathBuf,
    load_session: bool,
    resume_session: bool,
    /// The running costs the agent last gave: a kept agent goes on counting
    /// from them, and only what it spends after is new.
    #[serde(default)]
    costs_seen: super::events::CostsSeen,
}

/// The update a `session/update` notification carries, if this runner can
/// read it; other notifications are not the conversation's.
fn session_update(notification: &UntypedMessage) -> Option<SessionUpdate> {
    if notification.method != "session/update" {
        tracing::trace!(method = %notification.method, "a notification the runner does not use");
        return None;
    }
    match serde_json::from_value::<SessionNotification>(notification.params.clone()) {
        Ok(notification) => Some(notification.update),
        Err(_) => {
            // Only its kind: the rest (serde's error quotes values too) is
            // the agent's text, which the log gets only through the filters.
            let kind: String = notification.params["update"]["sessionUpdate"]
                .as_str()
                .unwrap_or("?")
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                .take(64)
                .collect();
            tracing::debug!(%kind, "an update the runner cannot read: skipped");
            None
        }
    }
}

/// What the runner offers the agent: no files or terminals of its own (the
/// agent works in its environment), but it reads a running command's output
/// as it comes (`terminal_output`, the `_meta` extension Claude Code's and
/// Codex's adapters share: `tool_call_update`s with `_meta.terminal_output`
/// chunks and a `_meta.terminal_exit`).
fn client_capabilities() -> ClientCapabilities {
    ClientCapabilities::new().meta(Meta::from_iter([(
        "terminal_output".to_owned(),
        serde_json::Value::Bool(true),
    )]))
}
