//! `blaise webhook …`: notifications, and the log of what was sent.

use std::io::Write;

use anyhow::Result;
use serde_json::{Value, json};

use super::commands::json_out;
use super::human::{now_ms, text, when};
use super::{Client, WebhookCommand};
use blaise_control::client::segment;
use blaise_control::names::comma_list;

type Out<'a> = &'a mut (dyn Write + Send);

pub async fn run(client: &Client, command: WebhookCommand, out: Out<'_>) -> Result<()> {
    match command {
        WebhookCommand::Add {
            name,
            endpoint,
            events,
            secret,
            slack,
            waiting_longer_than,
        } => {
            let webhook = client
                .post(
                    "/v1/webhooks",
                    json!({
                        "name": name, "url": endpoint, "events": comma_list(&events), "secret": secret,
                        "format": if slack { "slack" } else { "blaise" },
                        "waiting_longer_than_ms": waiting_longer_than,
                    }),
                )
                .await?;
            writeln!(
                out,
                "webhook {}: {} → {} (signed with the secret at {}); `blaise webhook test {}` sends a ping",
                text(&webhook["name"]),
                strings(&webhook["events"]),
                text(&webhook["url"]),
                text(&webhook["secret"]),
                text(&webhook["name"]),
            )?;
        }
        WebhookCommand::List { json } => {
            let list = client.get("/v1/webhooks").await?;
            if json {
                return json_out(&list["webhooks"], out);
            }
            let hooks = list["webhooks"].as_array().cloned().unwrap_or_default();
            if hooks.is_empty() {
                writeln!(
                    out,
                    "no webhook: `blaise webhook add NAME URL --events permission_requested --secret env:BLAISE_WEBHOOK_SECRET`"
                )?;
            }
            let now = now_ms();
            for w in hooks {
                writeln!(
                    out,
                    "{}  {}  {}  ({})",
                    text(&w["name"]),
                    text(&w["url"]),
                    strings(&w["events"]),
                    text(&w["format"])
                )?;
                let last = &w["last_delivery"];
                if last.is_object() {
                    writeln!(out, "    last: {}", delivery_line(last, now))?;
                }
            }
        }
        WebhookCommand::Remove { name } => {
            client
                .delete(&format!("/v1/webhooks/{}", segment("name", &name)?))
                .await?;
            writeln!(out, "webhook {name} removed")?;
        }
        WebhookCommand::Test { name } => {
            let d = client
                .post(
                    &format!("/v1/webhooks/{}/test", segment("name", &name)?),
                    json!({}),
                )
                .await?;
            writeln!(
                out,
                "ping whd_{} sent to {name}; `blaise webhook deliveries {name}` shows how it went",
                d["id"]
            )?;
        }
        WebhookCommand::Deliveries {
            name,
            limit,
            after,
            json,
        } => {
            let mut query = format!("limit={limit}");
            if let Some(after) = after {
                query.push_str(&format!("&after={after}"));
            }
            let page = client
                .get(&format!(
                    "/v1/webhooks/{}/deliveries?{query}",
                    segment("name", &name)?
                ))
                .await?;
            if json {
                return json_out(&page, out);
            }
            let now = now_ms();
            let list = page["deliveries"].as_array().cloned().unwrap_or_default();
            if list.is_empty() {
                writeln!(out, "nothing sent to {name} yet")?;
            }
            for d in &list {
                writeln!(out, "{}", delivery_line(d, now))?;
            }
            if let Some(next) = page["next"].as_i64() {
                writeln!(
                    out,
                    "… more: blaise webhook deliveries {name} --after {next}"
                )?;
            }
        }
    }
    Ok(())
}

fn strings(v: &Value) -> String {
    let items: Vec<String> = v.as_array().into_iter().flatten().map(text).collect();
    items.join(",")
}

/// `whd_12  permission_requested  delivered (200) after 1 attempt, 2026-12-06 10:00`.
fn delivery_line(d: &Value, now: i64) -> String {
    let attempts = d["attempts"].as_u64().unwrap_or(0);
    let tries = if attempts == 1 {
        "1 attempt".to_string()
    } else {
        format!("{attempts} attempts")
    };
    let status = d["last_status"]
        .as_u64()
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    let how = match d["state"].as_str() {
        Some("delivered") => format!("delivered{status} after {tries}"),
        Some("failed") => format!("given up after {tries}{status}: {}", text(&d["last_error"])),
        _ if attempts == 0 => "pending".to_string(),
        _ => format!(
            "pending, {tries} so far{status}: {}; next at {}",
            text(&d["last_error"]),
            when(&d["next_at"], now)
        ),
    };
    format!(
        "whd_{}  {}  {}  {how}",
        d["id"],
        when(&d["created_at"], now),
        text(&d["event"])
    )
}
