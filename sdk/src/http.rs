//! Outbound HTTP to granted hosts.

use crate::PlugError;
use crate::bindings::blaise::plug::http as raw;

pub use raw::{Request, Response};

fn error(e: raw::HttpError) -> PlugError {
    match e {
        raw::HttpError::Denied(m) => PlugError::new(format!("http denied: {m}")),
        raw::HttpError::InvalidUrl(m) => PlugError::new(format!("http: invalid url: {m}")),
        raw::HttpError::Failed(m) => PlugError::new(format!("http failed: {m}")),
    }
}

/// Sends a request.
pub fn send(request: &Request) -> Result<Response, PlugError> {
    raw::send(request).map_err(error)
}

/// `GET url`.
pub fn get(url: &str) -> Result<Response, PlugError> {
    send(&Request {
        method: "GET".into(),
        url: url.into(),
        headers: Vec::new(),
        body: Vec::new(),
        timeout_ms: None,
    })
}
