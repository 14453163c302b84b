//! A domain error as an HTTP response: its status, and `{"error": {"code", "message", "field"?}}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::error::Error;

/// The status an error answers with.
pub fn status(error: &Error) -> StatusCode {
    match error {
        Error::BadRequest(_) | Error::Invalid { .. } => StatusCode::BAD_REQUEST,
        Error::Unauthorized(_) => StatusCode::UNAUTHORIZED,
        Error::Forbidden(_) => StatusCode::FORBIDDEN,
        Error::NotFound(_) => StatusCode::NOT_FOUND,
        Error::Conflict { .. } => StatusCode::CONFLICT,
        Error::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
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
        (status(&self), Json(body)).into_response()
    }
}
