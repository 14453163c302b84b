//! Entry points for the fuzz targets in `fuzz/` (`blaise-fuzz`): the private
//! parsers they drive, reached without widening the crate's real API. Each
//! item only forwards to the code the runner runs.

use agent_client_protocol::v1::schema::{RequestPermissionRequest, SessionUpdate};
use tokio::sync::mpsc;

use crate::acp::AgentEvent;
use crate::protocol::ProtocolError;

/// How the protocol client reads an error answer from Blaise.
pub fn error_from(status: reqwest::StatusCode, body: &[u8]) -> ProtocolError {
    crate::protocol::error_from(status, body)
}

/// The transcript builder the ACP connection feeds, with the receiving end
/// of the events it sends.
pub struct Transcript {
    inner: crate::acp::Transcript,
    events: mpsc::UnboundedReceiver<AgentEvent>,
}

impl Default for Transcript {
    fn default() -> Self {
        let (tx, events) = mpsc::unbounded_channel();
        Transcript {
            inner: crate::acp::Transcript::new(tx),
            events,
        }
    }
}

impl Transcript {
    pub fn update(&mut self, update: SessionUpdate) {
        self.inner.update(update);
    }

    pub fn permission(&mut self, request: &RequestPermissionRequest, event: AgentEvent) {
        self.inner.permission(request, event);
    }

    pub fn set_replay(&mut self, replay: bool) {
        self.inner.set_replay(replay);
    }

    pub fn end_stream(&mut self) {
        self.inner.end_stream();
    }

    /// Every event sent so far, in order.
    pub fn drain(&mut self) -> Vec<AgentEvent> {
        std::iter::from_fn(|| self.events.try_recv().ok()).collect()
    }
}
