//! Notifications: webhooks an admin configures, and each delivery of an event to one of them
//! (kept, with every attempt's outcome, as the delivery log).

use serde::{Deserialize, Serialize};

use super::Millis;
use blaise_protocol::string_enum;

string_enum!(
    /// What a webhook may be told.
    WebhookEvent {
        /// An agent asks a person's permission.
        PermissionRequested => "permission_requested",
        /// A session failed.
        SessionFailed => "session_failed",
        /// An environment's teardown gave up: what its plugs created may still exist.
        EnvironmentOrphaned => "environment_orphaned",
        /// A session has waited for a runner longer than the webhook's `waiting_longer_than_ms`.
        WaitingForRunner => "waiting_for_runner",
        /// `blaise webhook test`: nothing happened, the receiver is checked.
        Ping => "ping",
    }
);

string_enum!(
    /// The body a webhook is sent.
    WebhookFormat {
        /// Blaise's JSON: the event, the session, and a line for people (`text`).
        Blaise => "blaise",
        /// A Slack incoming webhook's body (`{"text": …}`; Mattermost and others take it too).
        Slack => "slack",
    }
);

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Webhook {
    pub name: String,
    /// `https://…` (or `http://`): where events are POSTed.
    pub url: String,
    pub events: Vec<WebhookEvent>,
    /// Where the signing secret is read when a delivery is sent: `env:NAME` or `file:PATH`.
    /// The secret itself is never stored.
    pub secret: String,
    pub format: WebhookFormat,
    /// For `waiting_for_runner`: how long a session waits before the webhook is told.
    pub waiting_longer_than_ms: Millis,
    pub created_at: Millis,
    pub created_by: String,
}

string_enum!(
    DeliveryState {
        /// Not delivered yet: sent at `next_at` (again, after a failed attempt).
        Pending => "pending",
        Delivered => "delivered",
        /// Every attempt failed; no more are made.
        Failed => "failed",
    }
);

/// One event for one webhook, kept from the transaction that made it until it is delivered
/// or given up on: a restart loses none.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Delivery {
    /// From 1, in the order deliveries were made (0 until stored).
    pub id: i64,
    pub webhook: String,
    pub event: WebhookEvent,
    /// What makes it the same event again (`permission:RUN:REQUEST`): made once per webhook.
    pub key: String,
    /// What the event says (the body, before the webhook's format).
    pub payload: serde_json::Value,
    pub state: DeliveryState,
    pub attempts: u32,
    pub next_at: Millis,
    pub created_at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_attempt_at: Option<Millis>,
    /// The receiver's HTTP status at the last attempt, if it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered_at: Option<Millis>,
}
