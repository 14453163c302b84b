//! The client commands: each calls the user API and prints what a person wants to read.

use std::io::Write;

use anyhow::Result;
use serde_json::{Value, json};

use super::human::now_ms;
use super::{
    AgentCommand, Client, Command, EnvironmentCommand, RunnerCommand, SessionCommand, show,
};
use blaise_control::client::segment;
use blaise_control::duration::Human;
use blaise_control::names::comma_list;

/// `value` as JSON for scripts.
pub fn json_out(value: &Value, out: &mut (dyn Write + Send)) -> Result<()> {
    writeln!(out, "{}", serde_json::to_string_pretty(value)?)?;
    Ok(())
}

pub async fn client_command(
    client: &Client,
    command: Command,
    out: &mut (dyn Write + Send),
) -> Result<()> {
    match command {
        Command::Serve(_) | Command::Backup(_) | Command::Status(_) => {
            unreachable!("serve, backup and status are not client commands")
        }
        Command::Agent(AgentCommand::Set {
            name,
            inactivity,
            idle_policy,
            paused_lifetime,
            timeout,
            hot_for,
            warm,
            start_timeout,
            cancel_grace,
            silent_turn,
            max_failed_turns,
            session_budget,
            daily_budget,
            disable,
            enable,
            requires_labels,
        }) => {
            let disabled = if disable {
                Some(true)
            } else if enable {
                Some(false)
            } else {
                None
            };
            let body = json!({
                "inactivity_ms": inactivity, "idle_policy": idle_policy, "paused_lifetime_ms": paused_lifetime,
                "timeout_ms": timeout, "hot_for_ms": hot_for, "warm_agents": warm, "disabled": disabled,
                "start_timeout_ms": start_timeout, "cancel_grace_ms": cancel_grace,
                "silent_turn_ms": silent_turn, "max_failed_turns": max_failed_turns,
                "session_budget": session_budget, "daily_budget": daily_budget,
                "requires_labels": requires_labels.as_deref().map(comma_list),
            });
            let agent = client
                .call(
                    reqwest::Method::PUT,
                    &format!("/v1/agents/{}", segment("agent name", &name)?),
                    Some(body),
                )
                .await?;
            let s = &agent["settings"];
            writeln!(
                out,
                "agent {}: inactivity {}, idle policy {}, paused lifetime {}, timeout {}{}{}{}{}",
                agent["name"].as_str().unwrap_or(&name),
                Human(s["inactivity_ms"].as_i64().unwrap_or(0)),
                s["idle_policy"].as_str().unwrap_or("?"),
                Human(s["paused_lifetime_ms"].as_i64().unwrap_or(0)),
                Human(s["timeout_ms"].as_i64().unwrap_or(0)),
                match s["hot_for_ms"].as_i64() {
                    Some(ms) if ms > 0 => format!(", kept hot for {}", Human(ms)),
                    _ => String::new(),
                },
                match s["warm_agents"].as_u64() {
                    Some(n) if n > 0 => format!(", {n} warm"),
                    _ => String::new(),
                },
                match s["requires_labels"].as_array() {
                    Some(l) if !l.is_empty() => format!(
                        ", requires runner labels {}",
                        l.iter()
                            .filter_map(|l| l.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    _ => String::new(),
                },
                if agent["disabled"].as_bool() == Some(true) {
                    ", disabled"
                } else {
                    ""
                }
            )?;
        }
        Command::Agent(AgentCommand::List { json }) => {
            let agents = client.get("/v1/agents").await?;
            if json {
                json_out(&agents["agents"], out)?;
            } else {
                show::agents(&agents, now_ms(), out)?;
            }
        }
        Command::Agent(AgentCommand::Show { name, json }) => {
            let agent = client
                .get(&format!("/v1/agents/{}", segment("agent name", &name)?))
                .await?;
            if json {
                json_out(&agent, out)?;
            } else {
                show::agent(&agent, now_ms(), out)?;
            }
        }
        Command::Runner(RunnerCommand::Token { name }) => {
            let runner = client
                .post(
                    &format!("/v1/runners/{}/token", segment("runner name", &name)?),
                    json!({}),
                )
                .await?;
            writeln!(out, "{}", runner["token"].as_str().unwrap_or_default())?;
        }
        Command::Runner(RunnerCommand::List { json }) => {
            let runners = client.get("/v1/runners").await?;
            if json {
                json_out(&runners["runners"], out)?;
            } else {
                show::runners(&runners, now_ms(), out)?;
            }
        }
        Command::Session(SessionCommand::Answer {
            id,
            request,
            option,
        }) => {
            client
                .post(
                    &format!(
                        "/v1/sessions/{}/permissions/{}/answer",
                        segment("session id", &id)?,
                        segment("request id", &request)?
                    ),
                    json!({ "option_id": option }),
                )
                .await?;
            writeln!(out, "request {request} of session {id} answered: {option}")?;
        }
        Command::Session(SessionCommand::Budget { id, amount }) => {
            let view = client
                .post(
                    &format!("/v1/sessions/{}/budget", segment("session id", &id)?),
                    json!({ "amount": amount }),
                )
                .await?;
            writeln!(out, "session {id}: budget {amount}")?;
            show::usage(&view, out)?;
        }
        Command::Session(SessionCommand::Cancel { id }) => {
            client
                .post(
                    &format!("/v1/sessions/{}/cancel", segment("session id", &id)?),
                    json!({}),
                )
                .await?;
            writeln!(out, "session {id}: the turn in progress is cancelled")?;
        }
        Command::Environment(EnvironmentCommand::List { state, json }) => {
            let path = match &state {
                Some(state) => format!("/v1/environments?state={}", segment("state", state)?),
                None => "/v1/environments".to_string(),
            };
            let environments = client.get(&path).await?;
            if json {
                json_out(&environments["environments"], out)?;
            } else {
                show::environments(&environments, now_ms(), out)?;
            }
        }
        Command::Runner(RunnerCommand::Add {
            name,
            agents,
            labels,
        }) => {
            let body = json!({
                "name": name,
                "agents": agents.as_deref().map(comma_list),
                "labels": labels.as_deref().map(comma_list),
            });
            let runner = client.post("/v1/runners", body).await?;
            writeln!(out, "{}", runner["token"].as_str().unwrap_or_default())?;
        }
        Command::Runner(RunnerCommand::Set {
            name,
            agents,
            any_agent,
            labels,
            any_label,
        }) => {
            let mut body = serde_json::Map::new();
            match (agents, any_agent) {
                (Some(a), _) => {
                    body.insert("agents".into(), json!(comma_list(&a)));
                }
                (None, true) => {
                    body.insert("agents".into(), Value::Null);
                }
                (None, false) => {}
            }
            match (labels, any_label) {
                (Some(l), _) => {
                    body.insert("labels".into(), json!(comma_list(&l)));
                }
                (None, true) => {
                    body.insert("labels".into(), Value::Null);
                }
                (None, false) => {}
            }
            let runner = client
                .post(
                    &format!("/v1/runners/{}/scope", segment("runner name", &name)?),
                    Value::Object(body),
                )
                .await?;
            writeln!(out, "runner {name}: {}", show::scope(&runner))?;
        }
        Command::Runner(RunnerCommand::Revoke { name }) => {
            client
                .post(
                    &format!("/v1/runners/{}/revoke", segment("runner name", &name)?),
                    json!({}),
                )
                .await?;
            writeln!(out, "runner {name} revoked")?;
        }
        Command::Session(SessionCommand::New {
            agent,
            message,
            wait,
        }) => {
            let session = client
                .post(
                    "/v1/sessions",
                    json!({ "agent": agent, "message": message }),
                )
                .await?;
            let id = session["id"].as_str().unwrap_or_default();
            writeln!(out, "{id}")?;
            if wait {
                super::follow::until_answered(client, id, 0, out).await?;
            }
        }
        Command::Session(SessionCommand::Send { id, text, wait }) => {
            // Where the transcript stands before the message: what follows is the answer.
            let after = if wait {
                client
                    .get(&format!("/v1/sessions/{}", segment("session id", &id)?))
                    .await?["last_index"]
                    .as_i64()
                    .unwrap_or(0)
            } else {
                0
            };
            let message = client
                .post(
                    &format!("/v1/sessions/{}/messages", segment("session id", &id)?),
                    json!({ "text": text }),
                )
                .await?;
            writeln!(
                out,
                "message {} {}",
                message["id"].as_str().unwrap_or_default(),
                message["state"].as_str().unwrap_or_default()
            )?;
            if wait {
                super::follow::until_answered(client, &id, after, out).await?;
            }
        }
        Command::Session(SessionCommand::Wait { id, after }) => {
            super::follow::until_answered(client, &id, after, out).await?;
        }
        Command::Session(SessionCommand::Close { id }) => {
            let session = client
                .post(
                    &format!("/v1/sessions/{}/close", segment("session id", &id)?),
                    json!({}),
                )
                .await?;
            writeln!(
                out,
                "session {id} {}",
                session["state"].as_str().unwrap_or_default()
            )?;
        }
        Command::Session(SessionCommand::List {
            waiting_for_you,
            waiting_for_runner,
            runner,
            state,
            agent,
            mine,
            started_by,
            limit,
            after,
            all,
            json,
        }) => {
            let mut query = vec![format!("limit={limit}")];
            if mine {
                query.push("mine=true".into());
            }
            if waiting_for_runner {
                query.push("waiting_for_runner=true".into());
            }
            if let Some(runner) = runner {
                query.push(format!("runner={}", segment("runner", &runner)?));
            }
            if let Some(who) = started_by {
                query.push(format!("started_by={}", segment("person", &who)?));
            }
            if waiting_for_you {
                query.push("waiting_for_you=true".into());
            }
            if let Some(state) = state {
                query.push(format!("state={}", segment("state", &state)?));
            }
            if let Some(agent) = agent {
                query.push(format!("agent={}", segment("agent", &agent)?));
            }
            let mut sessions = Vec::new();
            let mut after = after;
            let next = loop {
                let mut page = query.clone();
                if let Some(cursor) = &after {
                    page.push(format!("after={}", segment("cursor", cursor)?));
                }
                let list = client
                    .get(&format!("/v1/sessions?{}", page.join("&")))
                    .await?;
                sessions.extend(list["sessions"].as_array().cloned().unwrap_or_default());
                let next = list["next"].as_str().map(str::to_owned);
                match next {
                    Some(cursor) if all => after = Some(cursor),
                    next => break next,
                }
            };
            if json {
                json_out(&serde_json::Value::Array(sessions), out)?;
            } else {
                show::sessions(&sessions, now_ms(), out)?;
                if let Some(cursor) = next {
                    writeln!(
                        out,
                        "… more: blaise session list --after {cursor} (or --all)"
                    )?;
                }
            }
        }
        Command::Session(SessionCommand::Show { id, json }) => {
            let s = client
                .get(&format!("/v1/sessions/{}", segment("session id", &id)?))
                .await?;
            if json {
                json_out(&s, out)?;
            } else {
                show::session(&s, now_ms(), out)?;
            }
        }
        Command::Session(SessionCommand::Transcript { id, follow }) => {
            let mut after = 0;
            let mut printer = super::follow::Printer::default();
            loop {
                let wait = if follow { 25_000 } else { 0 };
                let page = client
                    .get(&format!(
                        "/v1/sessions/{}/transcript?after={after}&wait_ms={wait}",
                        segment("session id", &id)?
                    ))
                    .await?;
                for e in page["entries"].as_array().into_iter().flatten() {
                    after = e["index"].as_i64().unwrap_or(after);
                    printer.entry(e, out)?;
                }
                let ended = !matches!(page["session_state"].as_str(), Some("active" | "paused"));
                let empty = page["entries"].as_array().is_none_or(|a| a.is_empty());
                // Page by page to the end; following, until the session ends.
                if empty && (!follow || ended) {
                    printer.finish(out)?;
                    break;
                }
            }
        }
        Command::User(command) => super::people::user(client, command, out).await?,
        Command::Audit(args) => super::people::audit(client, args, out).await?,
        Command::Webhook(command) => super::webhooks::run(client, command, out).await?,
        Command::Environment(EnvironmentCommand::Retry { id }) => {
            let e = client
                .post(
                    &format!("/v1/environments/{}/retry", segment("environment id", &id)?),
                    json!({}),
                )
                .await?;
            writeln!(
                out,
                "environment {id} {}: a teardown run is offered",
                e["state"].as_str().unwrap_or_default()
            )?;
        }
    }
    Ok(())
}
