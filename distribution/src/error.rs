//! The crate's one error type: what went wrong, in words a person can act on
//! (the message names the plug's source, the registry, the file), and of
//! which kind, for a caller that must tell a bad `blaise.yml` from a server
//! that did not answer.

use std::fmt;

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// What the operator or publisher wrote is not valid: a reference, a
    /// digest, `blaise.lock`, an index file, a key.
    BadInput,
    /// A server failed, refused or is out of reach: a registry, a download,
    /// an index by URL, a token service.
    Fetch,
    /// What arrived is not what was asked for or allowed: a digest that does
    /// not match, a size over the limits, a signature missing or wrong, an
    /// artifact that is not a plug.
    Verify,
    /// The local disk: the plug cache, a lock, writing a file.
    Disk,
}

/// A distribution failure: its kind and its whole message (with what caused
/// it, as `outer: inner`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: Kind,
    message: String,
}

impl Error {
    pub fn new(kind: Kind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same failure, said in a wider context: `context: message`.
    fn within(self, context: impl fmt::Display) -> Error {
        Error {
            kind: self.kind,
            message: format!("{context}: {}", self.message),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

// The message already holds its causes: no `source`, so that a caller's
// `{:#}` does not print them twice.
impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of the crates below, by what they mean here.
macro_rules! kind_of {
    ($($t:ty => $kind:ident),* $(,)?) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Error {
                Error::new(Kind::$kind, e.to_string())
            }
        }
    )*};
}

kind_of! {
    std::io::Error => Disk,
    tempfile::PersistError => Disk,
    reqwest::Error => Fetch,
    serde_json::Error => BadInput,
    serde_yaml::Error => BadInput,
    url::ParseError => BadInput,
    oci_client::errors::OciDistributionError => Fetch,
    sigstore::errors::SigstoreError => Verify,
    // Writing a private file (the cache, a key).
    blaise_host::HostError => Disk,
    // A blocking task on the cache's lock that did not finish.
    tokio::task::JoinError => Disk,
}

/// `anyhow`-style context on a result, keeping the kind of the error underneath.
pub trait Context<T> {
    fn context(self, context: impl fmt::Display) -> Result<T>;
    fn with_context<C: fmt::Display>(self, context: impl FnOnce() -> C) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn context(self, context: impl fmt::Display) -> Result<T> {
        self.map_err(|e| e.into().within(context))
    }

    fn with_context<C: fmt::Display>(self, context: impl FnOnce() -> C) -> Result<T> {
        self.map_err(|e| e.into().within(context()))
    }
}

/// An [`Error`] of the calling module's kind (its `const KIND`), or of the
/// kind given first: `err!("…{x}")`, `err!(Verify, "…")`.
macro_rules! err {
    ($kind:ident, $fmt:literal $($arg:tt)*) => {
        $crate::error::Error::new($crate::error::Kind::$kind, format!($fmt $($arg)*))
    };
    ($fmt:literal $($arg:tt)*) => {
        $crate::error::Error::new(KIND, format!($fmt $($arg)*))
    };
}

/// Returns an [`err!`].
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::error::err!($($arg)*))
    };
}

pub(crate) use {bail, err};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_keeps_the_kind_and_says_where() {
        let inner: Result<()> = Err(Error::new(
            Kind::Verify,
            "digest sha256:ab is not sha256:cd",
        ));
        let e = inner.context("plug `x`").unwrap_err();
        assert_eq!(e.kind(), Kind::Verify);
        assert_eq!(e.to_string(), "plug `x`: digest sha256:ab is not sha256:cd");
        // Through anyhow, as the runner shows it: once, not twice.
        let shown = format!("{:#}", anyhow::Error::from(e));
        assert_eq!(shown, "plug `x`: digest sha256:ab is not sha256:cd");
    }

    #[test]
    fn a_disk_failure_is_of_kind_disk() {
        let io: std::result::Result<(), std::io::Error> =
            Err(std::io::Error::other("no space left on device"));
        let e = io.context("storing the plug").unwrap_err();
        assert_eq!(e.kind(), Kind::Disk);
        assert_eq!(e.message(), "storing the plug: no space left on device");
    }
}
