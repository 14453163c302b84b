//! Errors the API answers with: a status, a stable code and a message that says what to do
//! (`{"error": {"code", "message"}}`, plus `"field"` when one field of the request is invalid;
//! `crate::http` writes them).

use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    BadRequest(String),
    /// A value in the request breaks its rule: 400 with `code` and the `field` that carries it.
    #[error("{message}")]
    Invalid {
        code: &'static str,
        field: String,
        message: String,
    },
    #[error("{0}")]
    Unauthorized(String),
    /// Authenticated, but the request may not be made this way.
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    /// The request is valid but the state does not allow it; `code` names the reason.
    #[error("{message}")]
    Conflict { code: &'static str, message: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Error::Conflict {
            code,
            message: message.into(),
        }
    }

    pub fn invalid(code: &'static str, field: &str, message: impl Into<String>) -> Self {
        Error::Invalid {
            code,
            field: field.to_string(),
            message: message.into(),
        }
    }

    pub fn not_found(what: &str, id: &str) -> Self {
        Error::NotFound(format!(
            "no {what} with id {}",
            blaise_protocol::text::quoted(id, blaise_protocol::text::QUOTED_MAX)
        ))
    }

    pub fn code(&self) -> &'static str {
        match self {
            Error::BadRequest(_) => "bad_request",
            Error::Unauthorized(_) => "unauthorized",
            Error::Forbidden(_) => "forbidden",
            Error::NotFound(_) => "not_found",
            Error::Conflict { code, .. } | Error::Invalid { code, .. } => code,
            Error::Store(_) => "internal",
        }
    }
}
