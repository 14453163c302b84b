//! The ACP client side of the runner: launching an agent and talking to it.
//!
//! The agent is any program that speaks ACP (the Agent Client Protocol,
//! JSON-RPC over stdio, protocol v1). [`Agent::launch`] starts it with exactly
//! the environment and working directory the plugs contributed and sends
//! `initialize`; [`Agent::new_session`] / [`Agent::load_session`] open the
//! conversation, [`Agent::prompt`] runs a turn, [`Agent::cancel`] cancels it,
//! and [`Agent::close`] ends the process gently (stdin closed, then
//! `SIGTERM`, then `SIGKILL`).
//!
//! What the agent says arrives as [`AgentEvent`]s on the channel given at
//! launch, in the order the agent sent it:
//!
//! - [`AgentEvent::Entry`]: transcript entries, ready for the plugs'
//!   transcript filters. The chunks of one message share a `stream_id`, and
//!   every stream is ended by an entry with `last: true` (its text possibly
//!   empty): when the kind of message or its message id changes, when a tool
//!   call, a tool output or a permission request comes, and when a prompt or
//!   a `session/load` ends. Tool calls, tool outputs and permission requests
//!   are one entry each, with a stream of their own. Entries that arrive
//!   during `session/load` are the replay: `replay: true`.
//! - [`AgentEvent::Permission`]: the agent asks for permission. Answer
//!   through `answer`; dropping it answers "cancelled". Pending requests are
//!   answered "cancelled" by [`Agent::cancel`] (for that session) and by
//!   [`Agent::close`], so an unanswered request never holds up a stop.

mod agent;
mod close;
mod events;
mod launch;
mod permission;
mod process;
mod session;

use std::path::PathBuf;

use tokio::sync::oneshot;

pub use agent::Agent;
/// For the fuzz targets (`crate::fuzzing`).
pub(crate) use events::Transcript;

use crate::host::bindings::TranscriptEntry;

/// How to start the agent: the plugs' contributions already applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentCommand {
    /// The program and its arguments, any command prefix from plugs
    /// (`bwrap … --`, `docker exec …`) included: executed as is.
    pub argv: Vec<String>,
    /// The agent's complete environment; only `PATH` is added from the
    /// runner's own environment, when it is not given here.
    pub env: Vec<(String, String)>,
    /// The working directory of the process, also the `cwd` of its ACP sessions.
    pub cwd: PathBuf,
    /// Where `cwd` must lie (the workspace, the storage of the plug that
    /// chose it), checked again on the directory the agent is started in:
    /// it is opened, checked and entered by its descriptor, so a symlink
    /// swapped in after the plugs' check changes nothing. Empty: no check.
    pub cwd_within: Vec<PathBuf>,
}

/// What the agent sends while it runs.
#[derive(Debug)]
pub enum AgentEvent {
    /// A transcript entry (or one chunk of one).
    Entry(TranscriptEntry),
    /// `session/request_permission`: the agent waits for `answer`.
    Permission {
        /// Unique among this agent's requests (`perm-<JSON-RPC id>`).
        request_id: String,
        /// The ACP request as the agent sent it (session id, tool call, options).
        request: serde_json::Value,
        /// Where the answer goes. Dropping it answers [`PermissionAnswer::Cancelled`].
        answer: oneshot::Sender<PermissionAnswer>,
    },
}

/// The answer to a permission request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionAnswer {
    /// One of the request's options, by its `optionId`. An id the request did
    /// not offer is answered as cancelled (and logged).
    Selected(String),
    /// No option: the request was cancelled.
    Cancelled,
}
