//! An `AgentSessionEvent` taken into Blaise, inside one transaction: the delivery recorded (a
//! delivery seen before changes nothing), the operation applied to the session, the replies it
//! needs queued on the thread.

use serde_json::{Value, json};

use super::activities;
use super::config::AppConfig;
use crate::error::{Error, Result};
use crate::lifecycle::Ctx;
use crate::model::*;
use crate::sources::{Operation, Outcome, apply, waiting_permission};

/// What Blaise reads of an event; the rest of Linear's payload is not kept.
#[derive(Debug, Clone)]
pub struct Event {
    pub action: String,
    pub session: String,
    /// The first message of a new session: Linear's prompt context (the issue, the comment that
    /// mentioned the app, the team's guidance), else the comment.
    pub prompt: Option<String>,
    /// A follow-up: the activity's id, its text, its signal (`stop`).
    pub activity: Option<(String, String, Option<String>)>,
    /// The issue, for the session's page: `{identifier, title, url}`.
    pub issue: Value,
    /// The issue's id and the app's user in the workspace, when Linear gave them valid.
    pub issue_id: Option<String>,
    pub app_user: Option<String>,
}

/// Reads the fields Blaise uses from a verified payload; a payload without them is refused (400)
/// with what is missing.
pub fn parse(body: &Value) -> Result<Option<Event>> {
    if body["type"].as_str() != Some("AgentSessionEvent") {
        return Ok(None);
    }
    let action = body["action"].as_str().unwrap_or("").to_string();
    let session = body["agentSession"]["id"]
        .as_str()
        .ok_or_else(|| Error::BadRequest("`agentSession.id` is missing".into()))?;
    check_linear_id("agentSession.id", session)?;
    let s = &body["agentSession"];
    let issue = &s["issue"];
    let text = |v: &Value| {
        v.as_str()
            .filter(|t| !t.trim().is_empty())
            .map(str::to_string)
    };
    let prompt = text(&body["promptContext"])
        .or_else(|| text(&s["comment"]["body"]))
        .or_else(|| {
            text(&issue["title"]).map(|t| match text(&issue["description"]) {
                Some(d) => format!("{t}\n\n{d}"),
                None => t,
            })
        });
    let activity = match &body["agentActivity"] {
        Value::Object(a) => {
            let id = a
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            check_linear_id("agentActivity.id", &id)?;
            let content = &a.get("content").cloned().unwrap_or(Value::Null);
            let words = text(&content["body"])
                .or_else(|| a.get("body").and_then(text))
                .unwrap_or_default();
            let signal = a.get("signal").and_then(Value::as_str).map(str::to_string);
            Some((id, words, signal))
        }
        _ => None,
    };
    let field = |k: &str| issue[k].as_str().map(plain);
    let valid = |v: &Value| {
        v.as_str()
            .filter(|id| check_linear_id("", id).is_ok())
            .map(str::to_string)
    };
    Ok(Some(Event {
        issue_id: valid(&issue["id"]).or_else(|| valid(&s["issueId"])),
        app_user: valid(&body["appUserId"]),
        action,
        session: session.to_string(),
        prompt,
        activity,
        issue: json!({
            "identifier": field("identifier"),
            "title": field("title"),
            "url": field("url").filter(|u| u.starts_with("https://")),
        }),
    }))
}

/// An issue's field as the session's page shows it: one line, no control characters, bounded.
fn plain(v: &str) -> String {
    v.chars().filter(|c| !c.is_control()).take(300).collect()
}

/// Linear's ids are UUIDs; whatever else arrives is refused before it names a record.
fn check_linear_id(field: &str, id: &str) -> Result<()> {
    if !id.is_empty()
        && id.len() <= 64
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Ok(());
    }
    Err(Error::invalid(
        "invalid_id",
        field,
        format!("`{field}` is not a Linear id: {}", crate::names::shown(id)),
    ))
}

/// Takes `event` (delivery `delivery` of `app`'s webhook). Returns whether it was new.
pub fn take(ctx: &mut Ctx, app: &AppConfig, delivery: &str, event: &Event) -> Result<bool> {
    let source = format!("linear:{}", app.name);
    // Linear names each delivery; a created session and a prompt have ids of their own too, so
    // that the same event sent again under another delivery is still taken once.
    let key = match (&event.activity, event.action.as_str()) {
        (Some((id, ..)), _) => format!("activity:{id}"),
        (None, action) => format!("{action}:{}", event.session),
    };
    let fresh = ctx
        .tx
        .take_delivery(&source, &format!("delivery:{delivery}"), ctx.now)?;
    if !fresh || !ctx.tx.take_delivery(&source, &key, ctx.now)? {
        return Ok(false);
    }
    let mut thread = ctx
        .tx
        .source_thread(&source, &event.session)?
        .unwrap_or_else(|| SourceThread {
            source: source.clone(),
            thread: event.session.clone(),
            session_id: None,
            meta: json!({ "issue": event.issue }),
            delivered: 0,
            outbox: Vec::new(),
            attempts: 0,
            retry_at: None,
            created_at: ctx.now,
        });
    let reply = |thread: &mut SourceThread, activity: Value| {
        thread
            .outbox
            .push(json!({ "id": activities::new_id(), "activity": activity }));
    };
    match event.action.as_str() {
        "created" => {
            let opened = thread.session_id.is_none();
            let text = event.prompt.clone().unwrap_or_default();
            let outcome = apply(
                ctx,
                &mut thread,
                Operation::Open {
                    agent: app.agent.clone(),
                    text,
                },
            )?;
            match outcome {
                Outcome::Done if opened => {
                    // Linear shows the agent as unresponsive without an activity within 10 s.
                    reply(
                        &mut thread,
                        activities::thought("On it: Blaise is starting the agent's environment."),
                    );
                    if let (Some(url), Some(id)) = (&app.public_url, &thread.session_id) {
                        thread.outbox.push(json!({
                            "links": [{ "label": "Blaise session", "url": format!("{url}/sessions/{id}") }]
                        }));
                    }
                    if let (Some(issue), Some(app_user)) = (&event.issue_id, &event.app_user) {
                        thread.outbox.push(
                            json!({ "start_issue": { "issue": issue, "app_user": app_user } }),
                        );
                    }
                }
                Outcome::Done => {}
                Outcome::Refused { message, .. } => reply(&mut thread, activities::error(&message)),
            }
        }
        "prompted" => {
            let (_, words, signal) = event.activity.clone().unwrap_or_default();
            let op = if signal.as_deref() == Some("stop") {
                Operation::Cancel
            } else {
                match waiting_permission(ctx, &thread)?
                    .and_then(|p| chosen(&p, &words).map(|o| (p.request_id, o)))
                {
                    Some((request_id, option_id)) => Operation::Answer {
                        request_id,
                        option_id,
                    },
                    None => Operation::Send { text: words },
                }
            };
            let stopping = op == Operation::Cancel;
            match apply(ctx, &mut thread, op)? {
                Outcome::Done if stopping => reply(
                    &mut thread,
                    activities::response(
                        "Stopped: the agent's turn was cancelled. The session stays open; write here to go on.",
                    ),
                ),
                Outcome::Done => {}
                Outcome::Refused { code: "no_run", .. } if stopping => reply(
                    &mut thread,
                    activities::response("Nothing was running: the agent had already stopped."),
                ),
                Outcome::Refused { message, .. } => reply(&mut thread, activities::error(&message)),
            }
        }
        // An action Blaise does not know: taken, nothing done.
        _ => {}
    }
    ctx.tx.put_source_thread(&thread)?;
    Ok(true)
}

/// The option of a permission request the user's words choose: its name or its id, whatever the
/// case and the spaces around it (Linear's `select` sends the option's value as the prompt).
fn chosen(request: &PermissionRequest, words: &str) -> Option<String> {
    let words = words.trim();
    request.request["options"]
        .as_array()?
        .iter()
        .find(|o| {
            ["name", "option_id"].iter().any(|k| {
                o[*k]
                    .as_str()
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case(words))
            })
        })
        .and_then(|o| o["option_id"].as_str().map(str::to_string))
}
