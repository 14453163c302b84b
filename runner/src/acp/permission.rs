//! `session/request_permission`: the agent's question goes out as an
//! [`AgentEvent::Permission`]; the answer comes back through its oneshot, or
//! "cancelled" when the turn is cancelled, the agent is closed or the answer
//! is dropped. The dispatch loop never waits for the answer.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SelectedPermissionOutcome,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use tokio::sync::{mpsc, oneshot};

use super::events::Transcript;
use super::{AgentEvent, PermissionAnswer};

/// The permission requests waiting for an answer, by session, so that a
/// cancel can answer them.
#[derive(Debug, Default)]
pub(crate) struct PendingPermissions {
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, (String, oneshot::Sender<()>)>>,
}

impl PendingPermissions {
    fn add(&self, session: String) -> (u64, oneshot::Receiver<()>) {
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        let (cancel, cancelled) = oneshot::channel();
        self.lock().insert(key, (session, cancel));
        (key, cancelled)
    }

    fn remove(&self, key: u64) {
        self.lock().remove(&key);
    }

    /// Answers the session's pending requests "cancelled" (ACP: a client that
    /// sends `session/cancel` answers them so).
    pub fn cancel_session(&self, session: &str) {
        let keys: Vec<u64> = self
            .lock()
            .iter()
            .filter(|(_, (of, _))| of == session)
            .map(|(key, _)| *key)
            .collect();
        for key in keys {
            self.cancel(key);
        }
    }

    /// Answers every pending request "cancelled".
    pub fn cancel_all(&self) {
        let keys: Vec<u64> = self.lock().keys().copied().collect();
        for key in keys {
            self.cancel(key);
        }
    }

    fn cancel(&self, key: u64) {
        if let Some((_, cancel)) = self.lock().remove(&key) {
            // The request may have been answered in the meantime: then nobody listens.
            let _answered_already = cancel.send(());
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, (String, oneshot::Sender<()>)>> {
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Handles one `session/request_permission`: the events now (waiting for
/// room in the channel, in order with the updates), the answer later from a
/// task of the connection.
pub(crate) async fn handle(
    request: RequestPermissionRequest,
    responder: Responder<RequestPermissionResponse>,
    cx: &ConnectionTo<agent_client_protocol::Agent>,
    transcript: &Mutex<Transcript>,
    pending: &Arc<PendingPermissions>,
    events: &mpsc::Sender<AgentEvent>,
) -> Result<(), agent_client_protocol::Error> {
    let offered: Vec<String> = request
        .options
        .iter()
        .map(|option| option.option_id.0.to_string())
        .collect();
    let (key, cancelled) = pending.add(request.session_id.0.to_string());
    let (answer, answered) = oneshot::channel();
    let (before, presented) = transcript
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .permission(&request);
    let request_id = presented.request_id.clone();
    for event in before {
        let _ = events.send(event).await;
    }
    let _ = events
        .send(AgentEvent::Permission {
            request: presented,
            answer,
        })
        .await;

    let pending = pending.clone();
    cx.spawn(async move {
        let outcome = tokio::select! {
            answer = answered => match answer {
                Ok(PermissionAnswer::Selected(option)) if offered.contains(&option) => {
                    RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option))
                }
                Ok(PermissionAnswer::Selected(_)) => {
                    // The option ids are the agent's text: not logged.
                    tracing::warn!(%request_id, "an answer with an option the agent did not offer: answered as cancelled");
                    RequestPermissionOutcome::Cancelled
                }
                Ok(PermissionAnswer::Cancelled) | Err(_) => RequestPermissionOutcome::Cancelled,
            },
            _ = cancelled => RequestPermissionOutcome::Cancelled,
        };
        pending.remove(key);
        if let Err(error) = responder.respond(RequestPermissionResponse::new(outcome)) {
            tracing::debug!(%request_id, %error, "the answer to a permission request could not be sent");
        }
        Ok(())
    })
}
