//! Entry points for the fuzz targets in `fuzz/` (`blaise-fuzz`): the private
//! parsers they drive, reached without widening the crate's real API. Each
//! item only forwards to the code the runner runs.

use agent_client_protocol::v1::schema::{RequestPermissionRequest, SessionUpdate};

use crate::acp::AgentEvent;
use crate::protocol::ProtocolError;

/// How the protocol client reads an error answer from Blaise.
pub fn error_from(status: reqwest::StatusCode, body: &[u8]) -> ProtocolError {
    crate::protocol::error_from(status, body)
}

/// The transcript builder the ACP connection feeds, with every event it made.
#[derive(Default)]
pub struct Transcript {
    inner: crate::acp::Transcript,
    events: Vec<AgentEvent>,
}

impl Transcript {
    pub fn update(&mut self, update: SessionUpdate) {
        self.events.extend(self.inner.update(update));
    }

    /// A permission request: the events before it, then the request (with a
    /// dropped answer). Returns the request's id.
    pub fn permission(&mut self, request: &RequestPermissionRequest) -> String {
        let (before, request) = self.inner.permission(request);
        self.events.extend(before);
        let id = request.request_id.clone();
        let (answer, _) = tokio::sync::oneshot::channel();
        self.events.push(AgentEvent::Permission { request, answer });
        id
    }

    pub fn set_replay(&mut self, replay: bool) {
        self.events.extend(self.inner.set_replay(replay));
    }

    pub fn end_stream(&mut self) {
        self.events.extend(self.inner.end_stream());
    }

    /// Every event made so far, in order.
    pub fn drain(&mut self) -> Vec<AgentEvent> {
        std::mem::take(&mut self.events)
    }
}
