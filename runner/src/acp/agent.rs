//! [`Agent`]: one running ACP agent and the connection to it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::JsonRpcRequest;
use agent_client_protocol::v1::ConnectionTo;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::AcpError;
use super::events::Transcript;
use super::permission::PendingPermissions;
use super::process::AgentProcess;

/// How long an answer may trail the agent's exit and still count.
const ANSWER_GRACE: Duration = Duration::from_millis(200);
/// How long a failed request waits for the agent's exit status, to say why it failed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// A running ACP agent: its process and the initialized connection to it.
///
/// Its methods take `&self`, so one task can cancel a turn while another
/// awaits [`Agent::prompt`]. Dropping it without [`Agent::close`] kills the
/// agent's process group at once.
#[derive(Debug)]
pub struct Agent {
    pub(super) cx: ConnectionTo<agent_client_protocol::Agent>,
    pub(super) process: AgentProcess,
    pub(super) transcript: Arc<Mutex<Transcript>>,
    pub(super) permissions: Arc<PendingPermissions>,
    pub(super) cwd: PathBuf,
    pub(super) load_session: bool,
    pub(super) resume_session: bool,
    /// Prompts sent and not yet answered (a dropped prompt counts until its
    /// answer would have come: the agent may still be working on it).
    pub(super) turns: Arc<AtomicUsize>,
    /// Ends the connection's foreground, which closes the agent's stdin.
    pub(super) stop: Option<oneshot::Sender<()>>,
    pub(super) connection: Option<JoinHandle<Result<(), agent_client_protocol::Error>>>,
    /// Set when the agent is handed to the keeper (the stdout reader then
    /// leaves what follows to the run that takes it up).
    pub(super) handed_over: Arc<std::sync::atomic::AtomicBool>,
}

impl Agent {
    /// Whether the agent advertised `loadSession` in its `initialize` answer.
    pub fn can_load_session(&self) -> bool {
        self.load_session
    }

    /// Whether the agent advertised `sessionCapabilities.resume`.
    pub fn can_resume_session(&self) -> bool {
        self.resume_session
    }

    /// Whether the agent is between turns: no prompt sent that it has not
    /// answered (a turn cancelled and abandoned counts as under way).
    pub fn is_idle(&self) -> bool {
        self.turns.load(Ordering::Acquire) == 0
    }

    /// Ends the stream of chunks the agent left open, if any, and the output
    /// streams of commands that never ended: their `last` entries, for the
    /// caller to handle after what it already took (call it when a prompt
    /// has been answered and its events are taken).
    pub fn end_stream(&self) -> Vec<super::AgentEvent> {
        let mut transcript = self.transcript();
        let mut last: Vec<_> = transcript.end_stream().into_iter().collect();
        last.extend(transcript.end_outputs());
        last
    }

    /// Entries from now on are (or are no longer) a replay; the open stream
    /// ends either way, and its `last` entry is returned.
    pub fn set_replay(&self, replay: bool) -> Option<super::AgentEvent> {
        self.transcript().set_replay(replay)
    }

    /// Resolves when the agent's process has exited, with how ("exit status:
    /// 1", and the last lines of its stderr when it wrote any: the agent's
    /// text, for the filters).
    pub async fn exited(&self) -> String {
        let status = self.process.exited().await;
        self.process.describe_exit(status).await
    }

    /// The agent's process id (also its process group id).
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// The working directory the agent was started in: the `cwd` of its sessions.
    pub fn cwd(&self) -> &std::path::Path {
        &self.cwd
    }

    pub(super) fn transcript(&self) -> std::sync::MutexGuard<'_, Transcript> {
        self.transcript
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sends `request` and awaits its answer, or the agent's death:
    /// `what` names the request in errors ("the prompt").
    pub(super) async fn call<Req: JsonRpcRequest>(
        &self,
        what: &str,
        request: Req,
    ) -> Result<Req::Response, AcpError> {
        if let Some(status) = self.process.exit_status() {
            return Err(AcpError::Gone(format!(
                "the agent is not running: it exited before {what}, with {}",
                self.process.describe_exit(status).await
            )));
        }
        let mut answer = std::pin::pin!(self.cx.send_request(request).block_task());
        let result = tokio::select! {
            biased;
            answer = &mut answer => answer,
            status = self.process.exited() => {
                // An answer written just before the exit may still be on its way.
                match tokio::time::timeout(ANSWER_GRACE, &mut answer).await {
                    Ok(answer) => answer,
                    Err(_) => {
                        return Err(AcpError::Gone(format!(
                            "the agent exited during {what}, with {}",
                            self.process.describe_exit(status).await
                        )));
                    }
                }
            }
        };
        match result {
            Ok(response) => Ok(response),
            Err(error)
                if !agent_client_protocol::is_incoming_transport_closed(&error)
                    && !agent_client_protocol::is_connection_terminated(&error) =>
            {
                Err(AcpError::Refused {
                    what: what.to_owned(),
                    error: error.to_string(),
                })
            }
            // The connection is gone: most likely with the agent.
            Err(error) => match tokio::time::timeout(EXIT_GRACE, self.process.exited()).await {
                Ok(status) => Err(AcpError::Gone(format!(
                    "the agent exited during {what}, with {}",
                    self.process.describe_exit(status).await
                ))),
                Err(_) => Err(AcpError::Gone(format!(
                    "the connection to the agent broke during {what}: {error}"
                ))),
            },
        }
    }
}

/// Compile-time: an [`Agent`] can be shared between tasks on any thread, and
/// the futures of its methods can be spawned.
const _: fn(&Agent, tokio::sync::mpsc::Sender<super::AgentEvent>) = |agent, events| {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: &T) {}
    send_sync(agent);
    send(&Agent::launch(super::AgentCommand::default(), events, None));
    send(&agent.new_session());
    send(&agent.load_session(""));
    send(&agent.resume_session(""));
    send(&agent.prompt("", ""));
    send(&agent.cancel(""));
};
const _: fn(Agent) = |agent| {
    fn send<T: Send>(_: &T) {}
    send(&agent.close(Duration::ZERO));
};
