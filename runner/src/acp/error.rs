//! Why talking to the agent failed, by what the run does about it.

/// A failure of the agent's ACP side. The message says what happened in the
/// agent's terms (its exit status, its last words, the request it was in).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AcpError {
    /// The agent could not be started, or did not connect.
    #[error("{0}")]
    Start(String),
    /// The agent does not offer what was asked: loading or resuming a
    /// session, the protocol's version.
    #[error("{0}")]
    Unsupported(String),
    /// The agent answered a request with an error.
    #[error("the agent answered {what} with an error: {error}")]
    Refused { what: String, error: String },
    /// The agent exited, or its connection broke.
    #[error("{0}")]
    Gone(String),
}
