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
//! What the agent says and does arrives as [`AgentEvent`]s on the bounded
//! channel given at launch, in the order the agent sent it (a full channel
//! holds the agent back: its messages wait unread):
//!
//! - [`AgentEvent::Chunk`]: chunks of messages and thoughts, ready for the
//!   plugs' transcript filters. The chunks of one message share a
//!   `stream_id`; a stream is ended by an entry with `last: true` when the
//!   kind of message or its message id changes and when a tool call, a plan
//!   or a permission request comes. The end of a prompt or a load does not
//!   end a stream by itself: the caller ends it with [`Agent::end_stream`]
//!   once it has taken what came before the answer. Chunks marked `replay`
//!   are the replay of `session/load`, and what the agent sends as the
//!   user's words (Blaise records the user's words itself).
//! - [`AgentEvent::ToolCall`]: a tool call as it now stands, every update
//!   merged, under the runner's own id; sent again on every update.
//! - [`AgentEvent::Plan`]: the agent's plan, whole.
//! - [`AgentEvent::Permission`]: the agent asks for permission. Answer
//!   through `answer`; dropping it answers "cancelled". Pending requests are
//!   answered "cancelled" by [`Agent::cancel`] (for that session) and by
//!   [`Agent::close`], so an unanswered request never holds up a stop.
//! - [`AgentEvent::Stderr`]: a line the agent wrote to stderr, its colour
//!   codes removed; for the log, once it has passed the filters.

mod agent;
mod close;
mod error;
mod events;
mod keep;
mod launch;
mod permission;
mod process;
mod session;
mod tool_calls;
mod tool_output;

use std::path::PathBuf;

use tokio::sync::oneshot;

pub use agent::Agent;
pub use close::Closed;
pub use error::AcpError;
/// For the fuzz targets (`crate::fuzzing`).
pub(crate) use events::Transcript;
pub use keep::{Kept, NotKept, WarmMeta};
pub(crate) use process::BoundedLines;
pub(crate) use process::egress_report_pipe;
pub use session::Answered;

use crate::host::bindings::TranscriptEntry;
use crate::protocol::entries::{Permission, PlanStep, ToolCall};

/// How many events wait unread before the agent is held back.
pub const EVENTS: usize = 256;

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
    /// The program is the shipped `blaise-egress`: it gets a descriptor of
    /// its own for its counts (`BLAISE_EGRESS_REPORT_FD`), which it keeps
    /// from the agent; [`Closed::egress`] is what it wrote last.
    pub egress_report: bool,
}

impl AgentCommand {
    /// What the agent is started with, as a digest (its secrets' values
    /// included, never shown): two launches are the same agent only when
    /// their program, arguments, environment and directory all are.
    pub fn digest(&self) -> String {
        use sha2::Digest as _;
        let text = serde_json::to_vec(&(&self.argv, &self.env, &self.cwd, self.egress_report))
            .expect("plain data");
        hex::encode(sha2::Sha256::digest(text))
    }

    /// A digest of each part of the launch, by name (`command`, `working
    /// directory`, `egress report`, each environment variable's name): what
    /// differs between two launches can be named without their values.
    pub fn part_digests(&self) -> std::collections::BTreeMap<String, String> {
        use sha2::Digest as _;
        let short = |value: &[u8]| hex::encode(&sha2::Sha256::digest(value)[..8]);
        let mut parts = std::collections::BTreeMap::new();
        let argv = serde_json::to_vec(&self.argv).expect("plain data");
        parts.insert("the command".to_owned(), short(&argv));
        parts.insert(
            "the working directory".to_owned(),
            short(self.cwd.as_os_str().as_encoded_bytes()),
        );
        parts.insert(
            "the egress report".to_owned(),
            short(&[u8::from(self.egress_report)]),
        );
        for (name, value) in &self.env {
            parts.insert(name.clone(), short(value.as_bytes()));
        }
        parts
    }
}

/// What the agent sends while it runs.
#[derive(Debug)]
pub enum AgentEvent {
    /// A chunk of a message or a thought (or the `last` entry of its stream).
    Chunk(TranscriptEntry),
    /// A tool call as it now stands.
    ToolCall { call: ToolCall, replay: bool },
    /// The agent's plan.
    Plan { steps: Vec<PlanStep>, replay: bool },
    /// `session/request_permission`: the agent waits for `answer`.
    Permission {
        /// The request as the runner presents it (its own ids, the tool
        /// call merged with what the agent said of it before).
        request: Permission,
        /// Where the answer goes. Dropping it answers [`PermissionAnswer::Cancelled`].
        answer: oneshot::Sender<PermissionAnswer>,
    },
    /// One line of the agent's stderr (at most 16 KiB, colour codes removed).
    Stderr(String),
    /// What the agent says it used (`usage_update`): how full its context
    /// is, and what it spent since its last word on cost.
    Usage(Used),
}

/// A `usage_update`, with the agent's running cost turned into a step.
#[derive(Debug, Clone, PartialEq)]
pub struct Used {
    pub context_used: u64,
    pub context_size: u64,
    /// Spent since the agent last said (its `cost` is a running total for
    /// its session), and the currency.
    pub cost: Option<(f64, String)>,
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
