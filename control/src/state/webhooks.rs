//! Sends webhook deliveries outside any transaction: each signed (HMAC-SHA256 over its
//! timestamp and body, with the secret read where the webhook says), retried with a growing
//! delay until the receiver answers 2xx, and each attempt recorded (the delivery log).
//!
//! Runs on the instance that holds the clock (one at a time, so nothing is sent twice by two
//! instances). Wakes when a session or a run changes, and looks anyway every [`TICK`]. A
//! delivery is claimed before it is sent: one a crash interrupted is sent again after the claim
//! lapses (receivers tell a repeat by its `Blaise-Webhook-Id`). A delivery that is over stays in
//! the log for 30 days.

use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::StreamExt;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::AppState;
use crate::lifecycle::webhooks::{self, Attempt};
use crate::model::*;

/// How often the sender looks when nothing woke it (a retry falling due, a session that has
/// waited long enough).
const TICK: Duration = Duration::from_millis(500);
/// Deliveries claimed in one pass, and how many are sent at once.
const BATCH: usize = 50;
const AT_ONCE: usize = 8;
/// How long a receiver may take to answer.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How long a claimed delivery waits before another pass may send it again: longer than a
/// whole batch takes when every receiver keeps it to the timeout, so that no delivery of a
/// slow batch is sent twice.
const LEASE_MS: Millis = (BATCH.div_ceil(AT_ONCE) as Millis + 1) * TIMEOUT.as_millis() as Millis;
/// How long the log keeps a delivery that is over (made, or given up on).
const KEEP_MS: Millis = 30 * 86_400_000;
/// How often deliveries past that are forgotten.
const FORGET_EVERY_MS: Millis = 3_600_000;
/// The most of a receiver's answer kept in the log when it refused.
const MAX_ANSWER_KEPT: usize = 300;

/// Runs until dropped.
pub async fn run(state: AppState) {
    // No redirects: a receiver is the URL the admin gave, not one it points to; and a URL
    // that leads into the operator's network is refused (`receivers`).
    let private = state.cfg.webhooks_to_private_addresses;
    let http = match crate::client::trusting(super::receivers::resolving(
        reqwest::Client::builder()
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("blaise-webhooks/", env!("CARGO_PKG_VERSION"))),
        private,
    ))
    .and_then(|b| {
        b.build()
            .map_err(|e| crate::client::ClientError::Setup(e.to_string()))
    }) {
        Ok(http) => http,
        Err(e) => {
            tracing::error!("webhooks: no HTTP client: {e}");
            return;
        }
    };
    let mut last_forget: Millis = 0;
    let mut last_waits: Millis = 0;
    loop {
        let woken = state.changes().webhooks_changed();
        if state.clock_held.load(Ordering::Relaxed) {
            // Waits are told in minutes: looked at every few seconds, not at every change.
            let look_at_waits = now() - last_waits >= state.cfg.webhook_waits_every_ms;
            if look_at_waits {
                last_waits = now();
            }
            match pass(&state, &http, look_at_waits).await {
                Ok(n) if n == BATCH => continue,
                Ok(_) => {}
                Err(e) => tracing::warn!("webhooks: {e}"),
            }
            if now() - last_forget > FORGET_EVERY_MS {
                last_forget = now();
                if let Err(e) = state
                    .write(|ctx| Ok(ctx.tx.forget_webhook_deliveries(ctx.now - KEEP_MS)?))
                    .await
                {
                    tracing::warn!("webhooks: old deliveries were not forgotten: {e}");
                }
            }
        }
        tokio::select! {
            _ = woken => {}
            _ = tokio::time::sleep(TICK) => {}
        }
    }
}

/// Makes the deliveries of sessions that waited long enough, then sends what is due; answers
/// how many were claimed.
async fn pass(
    state: &AppState,
    http: &reqwest::Client,
    look_at_waits: bool,
) -> crate::error::Result<usize> {
    // Read first: a pass with nothing to do (no webhook, nothing due: the usual case, and every
    // change to a session wakes the sender) takes no turn at the store's writer.
    let (wants_waits, due) = state
        .read(|ctx| {
            let wants_waits =
                look_at_waits && !crate::lifecycle::waiting::untold_waits(ctx)?.is_empty();
            Ok((wants_waits, !ctx.tx.due_deliveries(ctx.now, 1)?.is_empty()))
        })
        .await?;
    let made = if wants_waits {
        state
            .write(crate::lifecycle::waiting::tell_webhooks)
            .await?
    } else {
        0
    };
    if !due && made == 0 {
        return Ok(0);
    }
    let due = state
        .write(|ctx| webhooks::claim_due(ctx, BATCH, LEASE_MS))
        .await?;
    let claimed = due.len();
    let private = state.cfg.webhooks_to_private_addresses;
    let mut sending = futures_util::stream::iter(due)
        .map(move |(delivery, webhook)| async move {
            let attempt = send(http, &webhook, &delivery, private).await;
            (delivery, attempt)
        })
        .buffer_unordered(AT_ONCE);
    while let Some((delivery, attempt)) = sending.next().await {
        let id = delivery.id;
        if let Err(e) = state
            .write(|ctx| webhooks::attempted(ctx, delivery.clone(), attempt.clone()))
            .await
        {
            tracing::warn!(
                delivery = id,
                "webhooks: the attempt could not be recorded: {e}"
            );
        }
    }
    Ok(claimed)
}

/// The body `webhook` is sent for `delivery`.
pub fn body(webhook: &Webhook, delivery: &Delivery) -> String {
    let mut payload = delivery.payload.clone();
    payload["id"] = format!("whd_{}", delivery.id).into();
    match webhook.format {
        WebhookFormat::Blaise => payload.to_string(),
        // Slack reads `<…>` in `text` as links and mentions (`<!channel>`); the text quotes an
        // agent's words, so its control characters are escaped as Slack documents.
        WebhookFormat::Slack => serde_json::json!({
            "text": payload["text"].as_str().map(slack_escaped),
            "blaise": payload,
        })
        .to_string(),
    }
}

/// `text` with Slack's three control characters escaped.
fn slack_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `v1=` and the hex HMAC-SHA256, keyed by `secret`, of `TIMESTAMP.BODY`.
pub fn signature(secret: &[u8], timestamp: i64, body: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body.as_bytes());
    format!("v1={}", hex::encode(mac.finalize().into_bytes()))
}

async fn send(
    http: &reqwest::Client,
    webhook: &Webhook,
    delivery: &Delivery,
    private: bool,
) -> Attempt {
    let failed = |error: String| Attempt {
        status: None,
        error: Some(error),
    };
    if let Err(why) = super::receivers::check_literal(&webhook.url, private) {
        return failed(why);
    }
    let key = match crate::secret_ref::read(&webhook.secret) {
        Ok(key) => key.into_bytes(),
        Err(e) => return failed(e),
    };
    let body = body(webhook, delivery);
    let timestamp = now() / 1000;
    let answer = http
        .post(&webhook.url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header("blaise-webhook-id", format!("whd_{}", delivery.id))
        .header("blaise-webhook-event", delivery.event.as_str())
        .header("blaise-webhook-timestamp", timestamp.to_string())
        .header("blaise-signature", signature(&key, timestamp, &body))
        .body(body)
        .send()
        .await;
    match answer {
        Err(e) => failed(crate::client::cause(&e)),
        Ok(resp) if resp.status().is_success() => Attempt {
            status: Some(resp.status().as_u16()),
            error: None,
        },
        Ok(mut resp) => {
            let status = resp.status();
            // Only the start of the answer is read: a receiver may send without end.
            let mut start = Vec::new();
            while start.len() < MAX_ANSWER_KEPT * 4 {
                match resp.chunk().await {
                    Ok(Some(bytes)) => start.extend_from_slice(&bytes),
                    _ => break,
                }
            }
            let text: String = String::from_utf8_lossy(&start)
                .chars()
                .take(MAX_ANSWER_KEPT)
                .collect();
            Attempt {
                status: Some(status.as_u16()),
                error: Some(format!(
                    "the receiver answered {status}: {}",
                    crate::names::shown(text.trim())
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The signature a receiver checks: the published scheme, over a known body.
    #[test]
    fn slack_text_cannot_mention_or_link() {
        assert_eq!(
            slack_escaped("<!channel> see <https://evil|docs> & more"),
            "&lt;!channel&gt; see &lt;https://evil|docs&gt; &amp; more"
        );
    }

    #[test]
    fn a_claim_outlasts_a_batch_of_slow_receivers() {
        let slowest = BATCH.div_ceil(AT_ONCE) as Millis * TIMEOUT.as_millis() as Millis;
        assert!(LEASE_MS > slowest);
    }

    #[test]
    fn the_signature_is_hmac_sha256_of_the_timestamp_and_the_body() {
        // echo -n '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec
        assert_eq!(
            signature(b"whsec", 1_700_000_000, "{\"a\":1}"),
            "v1=8ad37ba156048ae0e0a5533c75cdf26fee88b07f93cb57ee4c80adb053012032"
        );
    }
}
