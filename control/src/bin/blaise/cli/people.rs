//! `blaise user …` (people, their roles and tokens) and `blaise audit` (who did what).

use std::io::Write;

use anyhow::Result;
use serde_json::{Value, json};

use super::commands::json_out;
use super::human::{now_ms, text, when};
use super::{AuditArgs, Client, UserCommand};
use blaise_control::client::segment;

type Out<'a> = &'a mut (dyn Write + Send);

pub async fn user(client: &Client, command: UserCommand, out: Out<'_>) -> Result<()> {
    match command {
        UserCommand::Add { name, role } => {
            let user = client
                .post("/v1/users", json!({ "name": name, "role": role.as_str() }))
                .await?;
            token(&user, out)?;
        }
        UserCommand::List { json } => {
            let users = client.get("/v1/users").await?;
            if json {
                json_out(&users["users"], out)?;
            } else {
                people(&users["users"], out)?;
            }
        }
        UserCommand::Set { name, role } => {
            let user = client
                .put(
                    &format!("/v1/users/{}", segment("name", &name)?),
                    json!({ "role": role.as_str() }),
                )
                .await?;
            writeln!(
                out,
                "{} is {} now; their dashboard logins ended",
                text(&user["name"]),
                text(&user["role"])
            )?;
        }
        UserCommand::Token { name } => {
            let user = client
                .post(
                    &format!("/v1/users/{}/token", segment("name", &name)?),
                    json!({}),
                )
                .await?;
            token(&user, out)?;
        }
        UserCommand::Remove { name } => {
            client
                .delete(&format!("/v1/users/{}", segment("name", &name)?))
                .await?;
            writeln!(
                out,
                "{name} removed: their token no longer works and their dashboard logins ended"
            )?;
        }
    }
    Ok(())
}

/// A person's new token: on its own line first (a script takes the first line), then what to
/// do with it.
fn token(user: &Value, out: Out) -> Result<()> {
    writeln!(out, "{}", user["token"].as_str().unwrap_or_default())?;
    writeln!(
        out,
        "{} ({}): give them this token, shown only now. They set it as BLAISE_TOKEN for the CLI, or paste it in the dashboard's login page.",
        text(&user["name"]),
        text(&user["role"])
    )?;
    Ok(())
}

fn people(users: &Value, out: Out) -> Result<()> {
    let users = users.as_array().cloned().unwrap_or_default();
    if users.is_empty() {
        writeln!(
            out,
            "nobody but the admin token: `blaise user add NAME --role viewer|operator|admin`"
        )?;
        return Ok(());
    }
    let now = now_ms();
    writeln!(out, "{:<24} {:<9} ADDED", "NAME", "ROLE")?;
    for u in users {
        writeln!(
            out,
            "{:<24} {:<9} {} by {}",
            text(&u["name"]),
            text(&u["role"]),
            when(&u["created_at"], now),
            text(&u["created_by"])
        )?;
    }
    Ok(())
}

pub async fn audit(client: &Client, args: AuditArgs, out: Out<'_>) -> Result<()> {
    let mut query = vec![format!("limit={}", args.limit)];
    for (key, value) in [
        ("actor", &args.actor),
        ("session", &args.session),
        ("action", &args.action),
    ] {
        if let Some(value) = value {
            query.push(format!("{key}={}", segment(key, value)?));
        }
    }
    if let Some(after) = args.after {
        query.push(format!("after={after}"));
    }
    let page = client
        .get(&format!("/v1/audit?{}", query.join("&")))
        .await?;
    if args.json {
        return json_out(&page, out);
    }
    let now = now_ms();
    let entries = page["entries"].as_array().cloned().unwrap_or_default();
    if entries.is_empty() {
        writeln!(out, "nothing recorded here")?;
    }
    for e in &entries {
        let detail = match e["detail"].as_str() {
            Some(d) if !d.is_empty() => format!("  ({})", text(&e["detail"])),
            _ => String::new(),
        };
        writeln!(
            out,
            "{}  {} [{}] via {}: {} {}{detail}",
            when(&e["at"], now),
            text(&e["actor"]),
            text(&e["role"]),
            text(&e["via"]),
            text(&e["action"]),
            text(&e["target"]),
        )?;
    }
    if let Some(next) = page["next"].as_i64() {
        writeln!(out, "… more: blaise audit --after {next}")?;
    }
    Ok(())
}
