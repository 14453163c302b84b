//! `blaise webhook add` / `list` / `remove` / `test` / `deliveries`: notifications an admin
//! configures, and the log of what was sent to each.

use axum::Json;
use axum::extract::{Path, State};
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::http::{AppState, AsAdmin, Body, Params};
use crate::lifecycle::webhooks::{self, WebhookSpec};
use crate::model::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddRequest {
    pub name: String,
    pub url: String,
    pub events: Vec<WebhookEvent>,
    /// `env:NAME` or `file:PATH`: where `blaise serve` reads the signing secret.
    pub secret: String,
    #[serde(default = "blaise_format")]
    pub format: WebhookFormat,
    #[serde(default)]
    pub waiting_longer_than_ms: Option<Millis>,
}

fn blaise_format() -> WebhookFormat {
    WebhookFormat::Blaise
}

/// `POST /v1/webhooks`: adds (or replaces) a webhook.
pub async fn add(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Body(req): Body<AddRequest>,
) -> Result<Json<Webhook>> {
    let spec = WebhookSpec {
        name: req.name,
        url: req.url,
        events: req.events,
        secret: req.secret,
        format: req.format,
        waiting_longer_than_ms: req.waiting_longer_than_ms,
    };
    Ok(Json(
        state
            .write(|ctx| webhooks::add(ctx, &by, spec.clone()))
            .await?,
    ))
}

/// `GET /v1/webhooks`: every webhook, with its latest delivery.
pub async fn list(State(state): State<AppState>, _: AsAdmin) -> Result<Json<serde_json::Value>> {
    let listed = state
        .read(|ctx| {
            let mut out = Vec::new();
            for w in ctx.tx.webhooks()? {
                let last = ctx.tx.deliveries(&w.name, None, 1)?.into_iter().next();
                let mut v = serde_json::to_value(&w).unwrap_or_default();
                v["last_delivery"] = serde_json::to_value(last).unwrap_or_default();
                out.push(v);
            }
            Ok(out)
        })
        .await?;
    Ok(Json(serde_json::json!({ "webhooks": listed })))
}

/// `DELETE /v1/webhooks/{name}`: deliveries not made yet go with it.
pub async fn remove(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Path(name): Path<String>,
) -> Result<Json<Webhook>> {
    Ok(Json(
        state.write(|ctx| webhooks::remove(ctx, &by, &name)).await?,
    ))
}

/// `POST /v1/webhooks/{name}/test`: a `ping` delivery, sent at once.
pub async fn test(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Path(name): Path<String>,
) -> Result<Json<Delivery>> {
    let delivery = state.write(|ctx| webhooks::ping(ctx, &by, &name)).await?;
    state.changes().wake_webhooks();
    Ok(Json(delivery))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DeliveriesQuery {
    /// The most deliveries in the answer (1–1000; 100 when not given).
    limit: Option<usize>,
    /// The page after this one: the `next` of the previous answer.
    after: Option<i64>,
}

/// `GET /v1/webhooks/{name}/deliveries`: the delivery log, newest first.
pub async fn deliveries(
    State(state): State<AppState>,
    _: AsAdmin,
    Path(name): Path<String>,
    Params(q): Params<DeliveriesQuery>,
) -> Result<Json<serde_json::Value>> {
    crate::names::check_name("name", &name)?;
    let limit = match q.limit {
        None => 100,
        Some(n @ 1..=1000) => n,
        Some(_) => {
            return Err(Error::invalid(
                "invalid_field",
                "limit",
                "`limit` must be 1 to 1000",
            ));
        }
    };
    let (mut list, exists) = state
        .read(|ctx| {
            Ok((
                ctx.tx.deliveries(&name, q.after, limit + 1)?,
                ctx.tx.webhook(&name)?.is_some(),
            ))
        })
        .await?;
    if !exists && list.is_empty() {
        return Err(Error::not_found("webhook", &name));
    }
    let next = (list.len() > limit).then(|| {
        list.truncate(limit);
        list[limit - 1].id
    });
    Ok(Json(
        serde_json::json!({ "deliveries": list, "next": next }),
    ))
}
