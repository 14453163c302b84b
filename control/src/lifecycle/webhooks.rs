//! Webhooks: an admin adds one (where, which events, where its signing secret is read, which
//! body); an event that one of them wants becomes a delivery in the transaction that made the
//! event, and the sender (`crate::state::webhooks`) sends it, signed, retrying with a growing
//! delay, and records each attempt here.

use super::Ctx;
use super::audit::{Change, record};
use crate::error::{Error, Result};
use crate::model::*;
use crate::names::check_name;

/// What an admin asks for when adding a webhook.
#[derive(Debug, Clone)]
pub struct WebhookSpec {
    pub name: String,
    pub url: String,
    pub events: Vec<WebhookEvent>,
    pub secret: String,
    pub format: WebhookFormat,
    pub waiting_longer_than_ms: Option<Millis>,
}

/// How long a session waits for a runner before a webhook is told, when it does not say.
pub const WAITING_LONGER_THAN_MS: Millis = 10 * 60_000;

/// The longest a URL may be.
const MAX_URL: usize = 2048;

/// Adds (or replaces) a webhook, after checking each field.
pub fn add(ctx: &mut Ctx, by: &Actor, spec: WebhookSpec) -> Result<Webhook> {
    check_name("name", &spec.name)?;
    check_url(&spec.url)?;
    check_secret(&spec.secret)?;
    let mut events = spec.events.clone();
    events.retain(|e| *e != WebhookEvent::Ping);
    events.sort_by_key(|e| e.as_str());
    events.dedup();
    if events.is_empty() {
        return Err(Error::invalid(
            "invalid_field",
            "events",
            format!(
                "`events` must name at least one of {}",
                subscribable().join(", ")
            ),
        ));
    }
    let waiting = spec
        .waiting_longer_than_ms
        .unwrap_or(WAITING_LONGER_THAN_MS);
    if waiting < 0 {
        return Err(Error::invalid(
            "invalid_field",
            "waiting_longer_than_ms",
            "`waiting_longer_than_ms` must be 0 or more",
        ));
    }
    let webhook = Webhook {
        name: spec.name.clone(),
        url: spec.url.clone(),
        events,
        secret: spec.secret.clone(),
        format: spec.format,
        waiting_longer_than_ms: waiting,
        created_at: ctx.now,
        created_by: by.who.clone(),
    };
    ctx.tx.put_webhook(&webhook)?;
    // The URL may itself be a secret (Slack's are): the trail names its host only.
    let host = reqwest::Url::parse(&webhook.url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default();
    let events: Vec<&str> = webhook.events.iter().map(|e| e.as_str()).collect();
    record(
        ctx,
        by,
        Change::of(AuditAction::WebhookAdd, &webhook.name)
            .saying(format!("{host}: {}", events.join(", "))),
    )?;
    Ok(webhook)
}

/// The events a webhook may ask for.
fn subscribable() -> Vec<&'static str> {
    WebhookEvent::ALL
        .iter()
        .filter(|e| **e != WebhookEvent::Ping)
        .map(|e| e.as_str())
        .collect()
}

fn check_url(url: &str) -> Result<()> {
    let bad = |why: &str| Err(Error::invalid("invalid_field", "url", why.to_owned()));
    if url.len() > MAX_URL {
        return bad("`url` is longer than 2048 bytes");
    }
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return bad("`url` must be an absolute http:// or https:// URL");
    };
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return bad("`url` must be an absolute http:// or https:// URL");
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return bad("`url` must not carry a user or password (put a secret in the path)");
    }
    Ok(())
}

/// What a webhook's secret may name: an admin gives it over the API, and `serve` reads it, so
/// a variable only of those set for webhooks (not `BLAISE_TOKEN`, not the database's URL: a
/// receiver given an HMAC keyed by one could guess at it offline).
const ENV_PREFIX: &str = "BLAISE_WEBHOOK_";

fn check_secret(secret: &str) -> Result<()> {
    let why = if !crate::secret_ref::is_valid(secret) {
        format!(
            "`secret` says where the signing secret is read: {}",
            crate::secret_ref::SHAPE
        )
    } else if secret
        .strip_prefix("env:")
        .is_some_and(|name| !name.starts_with(ENV_PREFIX))
    {
        format!(
            "a webhook's secret is read from a variable whose name starts with {ENV_PREFIX} (or from a file)"
        )
    } else {
        return Ok(());
    };
    Err(Error::invalid("invalid_field", "secret", why))
}

/// Removes a webhook; deliveries not made yet go with it.
pub fn remove(ctx: &mut Ctx, by: &Actor, name: &str) -> Result<Webhook> {
    check_name("name", name)?;
    let webhook = ctx
        .tx
        .webhook(name)?
        .ok_or_else(|| Error::not_found("webhook", name))?;
    ctx.tx.delete_webhook(name)?;
    record(ctx, by, Change::of(AuditAction::WebhookRemove, name))?;
    Ok(webhook)
}

/// What an event says about a session: its id, agent, state and who started it.
pub(super) fn session_part(session: &Session) -> serde_json::Value {
    serde_json::json!({
        "id": session.id,
        "agent": session.agent,
        "state": session.state,
        "started_by": session.started_by,
        "path": format!("/sessions/{}", session.id),
    })
}

/// Makes a delivery of `event` for each webhook that wants it; `key` makes it once per webhook.
/// `text` is a line for people; `details` the event's own fields.
pub(super) fn notify(
    ctx: &mut Ctx,
    event: WebhookEvent,
    key: &str,
    text: String,
    details: serde_json::Value,
    only: Option<&str>,
) -> Result<usize> {
    let mut made = 0;
    for webhook in ctx.tx.webhooks()? {
        let wanted = match only {
            Some(name) => webhook.name == name,
            None => webhook.events.contains(&event),
        };
        if !wanted {
            continue;
        }
        let mut payload = serde_json::json!({ "event": event, "at": ctx.now, "text": text });
        if let (Some(out), serde_json::Value::Object(fields)) =
            (payload.as_object_mut(), details.clone())
        {
            out.extend(fields);
        }
        // It leaves Blaise for another service (a chat): what an agent or a plug wrote in it
        // (a tool call's command, an error) goes masked, as on Blaise's own pages and more.
        crate::mask::mask_strings(&mut payload);
        let mut delivery = Delivery {
            id: 0,
            webhook: webhook.name.clone(),
            event,
            key: key.to_owned(),
            payload,
            state: DeliveryState::Pending,
            attempts: 0,
            next_at: ctx.now,
            created_at: ctx.now,
            last_attempt_at: None,
            last_status: None,
            last_error: None,
            delivered_at: None,
        };
        if ctx.tx.add_delivery(&mut delivery)? {
            made += 1;
        }
    }
    Ok(made)
}

/// An agent asks a person's permission.
pub fn permission_requested(ctx: &mut Ctx, request: &PermissionRequest) -> Result<()> {
    let Some(session) = ctx.tx.read_session(&request.session_id)? else {
        return Ok(());
    };
    let text = format!(
        "Session {} ({}) waits for you: its agent asks to {}",
        session.id,
        session.agent,
        request.asks()
    );
    let options: Vec<&str> = request.request["options"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["option_id"].as_str())
        .collect();
    notify(
        ctx,
        WebhookEvent::PermissionRequested,
        &format!("permission:{}:{}", request.run_id, request.request_id),
        text,
        serde_json::json!({
            "session": session_part(&session),
            "request": {
                "request_id": request.request_id,
                "asks": request.asks(),
                "command": request.request["tool_call"]["command"],
                "options": options,
            },
        }),
        None,
    )
    .map(drop)
}

/// A session failed (`reason`).
pub fn session_failed(ctx: &mut Ctx, session: &Session, reason: &str) -> Result<()> {
    notify(
        ctx,
        WebhookEvent::SessionFailed,
        &format!("failed:{}", session.id),
        format!(
            "Session {} ({}) failed: {reason}",
            session.id, session.agent
        ),
        serde_json::json!({ "session": session_part(session), "reason": reason }),
        None,
    )
    .map(drop)
}

/// An environment's teardown gave up (or its runner may no longer tear it down).
pub fn environment_orphaned(ctx: &mut Ctx, environment: &Environment) -> Result<()> {
    let session = ctx.tx.read_session(&environment.session_id)?;
    let error = environment.last_error.clone().unwrap_or_default();
    notify(
        ctx,
        WebhookEvent::EnvironmentOrphaned,
        &format!("orphaned:{}:{}", environment.id, environment.updated_at),
        format!(
            "Environment {} of session {} is orphaned: what its plugs created may still exist ({error})",
            environment.id, environment.session_id
        ),
        serde_json::json!({
            "session": session.as_ref().map(session_part),
            "environment": { "id": environment.id, "last_error": error },
        }),
        None,
    )
    .map(drop)
}

/// `blaise webhook test`: a `ping` delivery to one webhook.
pub fn ping(ctx: &mut Ctx, by: &Actor, name: &str) -> Result<Delivery> {
    check_name("name", name)?;
    if ctx.tx.webhook(name)?.is_none() {
        return Err(Error::not_found("webhook", name));
    }
    let key = format!("ping:{}", crate::auth::random_hex(8));
    notify(
        ctx,
        WebhookEvent::Ping,
        &key,
        format!("A test from Blaise, sent by {}", by.who),
        serde_json::json!({}),
        Some(name),
    )?;
    Ok(ctx
        .tx
        .deliveries(name, None, 1)?
        .into_iter()
        .next()
        .expect("the ping was just made"))
}

/// Due deliveries, each with its webhook, claimed for `lease_ms`: another pass (or instance)
/// does not send them meanwhile, and one this process never finished is sent again after it.
pub fn claim_due(
    ctx: &mut Ctx,
    limit: usize,
    lease_ms: Millis,
) -> Result<Vec<(Delivery, Webhook)>> {
    let mut out = Vec::new();
    let webhooks = ctx.tx.webhooks()?;
    for mut delivery in ctx.tx.due_deliveries(ctx.now, limit)? {
        let Some(webhook) = webhooks.iter().find(|w| w.name == delivery.webhook) else {
            continue;
        };
        delivery.next_at = ctx.now.saturating_add(lease_ms);
        ctx.tx.put_delivery(&delivery)?;
        out.push((delivery, webhook.clone()));
    }
    Ok(out)
}

/// How an attempt went: the receiver's status (if it answered) and what went wrong (if it did).
#[derive(Debug, Clone)]
pub struct Attempt {
    pub status: Option<u16>,
    pub error: Option<String>,
}

/// Records an attempt: delivered on a 2xx; else tried again after a delay that doubles each
/// time, up to the server's `webhook_attempts`, then given up on.
pub fn attempted(ctx: &mut Ctx, mut delivery: Delivery, attempt: Attempt) -> Result<Delivery> {
    delivery.attempts += 1;
    delivery.last_attempt_at = Some(ctx.now);
    delivery.last_status = attempt.status;
    delivery.last_error = attempt.error.clone();
    let ok = attempt.error.is_none() && attempt.status.is_some_and(|s| (200..300).contains(&s));
    if ok {
        delivery.state = DeliveryState::Delivered;
        delivery.delivered_at = Some(ctx.now);
    } else if delivery.attempts >= ctx.cfg.webhook_attempts {
        delivery.state = DeliveryState::Failed;
        tracing::warn!(webhook = %delivery.webhook, delivery = delivery.id, attempts = delivery.attempts, "webhook delivery given up");
    } else {
        let shift = (delivery.attempts - 1).min(20);
        let delay = ctx
            .cfg
            .webhook_backoff_ms
            .saturating_mul(1 << shift)
            .min(MAX_BACKOFF_MS);
        delivery.next_at = ctx.now.saturating_add(delay);
    }
    ctx.tx.put_delivery(&delivery)?;
    Ok(delivery)
}

/// The longest wait between two attempts.
const MAX_BACKOFF_MS: Millis = 3_600_000;
