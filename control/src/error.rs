//! Errors the API answers with: a status, a stable code and a message that says what to do
//! (`{"error": {"code", "message"}}`, plus `"field"` when one field of the request is invalid).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

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
        Error::NotFound(format!("no {what} with id {}", crate::names::shown(id)))
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Error::BadRequest(_) | Error::Invalid { .. } => StatusCode::BAD_REQUEST,
            Error::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Error::Forbidden(_) => StatusCode::FORBIDDEN,
            Error::NotFound(_) => StatusCode::NOT_FOUND,
            Error::Conflict { .. } => StatusCode::CONFLICT,
            Error::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
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

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        if let Error::Store(e) = &self {
            tracing::error!("{e}");
        }
        let mut error = json!({"code": self.code(), "message": self.to_string()});
        if let Error::Invalid { field, .. } = &self {
            error["field"] = field.as_str().into();
        }
        let body = json!({ "error": error });
        (self.status(), Json(body)).into_response()
    }
}
