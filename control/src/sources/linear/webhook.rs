//! Linear's webhooks for one app (`POST /v1/sources/linear/{app}`, served by `crate::http`).
//!
//! Checked before anything is read: the signature (`Linear-Signature`, the hex HMAC-SHA256 of
//! the raw body with the app's webhook secret) and the time it was sent (`webhookTimestamp`,
//! within a minute: an old delivery captured and sent again is refused). Then the event is taken
//! in one transaction and Linear gets its 200, well within its five seconds: the session is
//! opened or the message queued, and whatever goes back to Linear goes from the pump.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::config::AppConfig;
use super::events;
use crate::error::{Error, Result};

/// How far a delivery's `webhookTimestamp` may be from Blaise's clock (Linear's own advice).
pub const MAX_SKEW_MS: i64 = 60_000;

/// A delivery's payload, once its signature and time are checked: `Ok(None)` for a webhook of
/// another kind (nothing for Blaise to do), else the event and its `Linear-Delivery` id.
pub fn check(
    config: &AppConfig,
    signature: &str,
    delivery: Option<&str>,
    body: &[u8],
    now: i64,
) -> Result<Option<(events::Event, String)>> {
    if !signed(config.webhook_secret.as_bytes(), body, signature) {
        return Err(Error::Unauthorized(
            "the webhook's Linear-Signature does not match its body".into(),
        ));
    }
    let payload: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| Error::BadRequest(format!("the webhook's body is not JSON: {e}")))?;
    let sent = payload["webhookTimestamp"].as_f64().unwrap_or(0.0) as i64;
    if (now - sent).abs() > MAX_SKEW_MS {
        return Err(Error::Unauthorized(format!(
            "the webhook was sent {} s from now (webhookTimestamp); at most {} s are taken",
            (now - sent) / 1000,
            MAX_SKEW_MS / 1000
        )));
    }
    let Some(event) = events::parse(&payload)? else {
        // Another kind of webhook (the app's permissions changed…): nothing for Blaise to do.
        return Ok(None);
    };
    let delivery = delivery
        .filter(|d| {
            !d.is_empty()
                && d.len() <= 64
                && d.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
        .ok_or_else(|| Error::BadRequest("the webhook has no valid Linear-Delivery header".into()))?
        .to_string();
    Ok(Some((event, delivery)))
}

/// Whether `signature` (hex) is the HMAC-SHA256 of `body` with `secret`, compared in constant time.
pub fn signed(secret: &[u8], body: &[u8], signature: &str) -> bool {
    let Ok(expected) = hex::decode(signature.trim()) else {
        return false;
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(body);
    mac.verify_slice(&expected).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_is_the_hex_hmac_of_the_raw_body() {
        let mut mac = Hmac::<Sha256>::new_from_slice(b"whsec").unwrap();
        mac.update(b"{\"a\":1}");
        let good = hex::encode(mac.finalize().into_bytes());
        assert!(signed(b"whsec", b"{\"a\":1}", &good));
        assert!(!signed(b"whsec", b"{\"a\": 1}", &good), "another body");
        assert!(!signed(b"other", b"{\"a\":1}", &good), "another secret");
        assert!(!signed(b"whsec", b"{\"a\":1}", &good[..62]), "cut short");
        assert!(!signed(b"whsec", b"{\"a\":1}", ""), "missing");
        assert!(!signed(b"whsec", b"{\"a\":1}", "zz"), "not hex");
    }
}
