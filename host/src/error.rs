//! What the host's public functions fail with: the kind of failure, and in its message the whole
//! story (which file, which step, the cause), as an operator reads it.

/// A failure of the plug host.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The wasm engine, its linker or the plugs' HTTP client could not be made.
    #[error("{0}")]
    Setup(String),
    /// The compile cache could not be opened, read or written.
    #[error("{0}")]
    Cache(String),
    /// A plug file could not be read.
    #[error("{0}")]
    Read(String),
    /// The bytes are not a WebAssembly component, or it does not compile.
    #[error("{0}")]
    NotAComponent(String),
    /// A component that is not a Blaise plug, or one built for a contract this host does not run.
    #[error("{0}")]
    Contract(String),
    /// The plug cannot be linked against what the host provides.
    #[error("{0}")]
    Link(String),
    /// The plug's `describe` failed.
    #[error("{0}")]
    Describe(String),
}

impl HostError {
    /// `kind` of `error`, with its whole chain of causes in the message.
    pub(crate) fn of(kind: fn(String) -> HostError, error: &anyhow::Error) -> HostError {
        kind(format!("{error:#}"))
    }
}
