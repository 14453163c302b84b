//! The pages: the sessions (with orphaned environments), and one session.

use std::fmt::Write;

use axum::extract::{Path, State};
use axum::response::{Html, IntoResponse, Response};

use super::Viewer;
use super::html::{esc, page, state, time};
use crate::error::Result;
use crate::model::{EnvironmentState, PermissionRequest, TranscriptEntry};
use crate::server::AppState;
use crate::views::{
    EnvironmentView, environment_view, session_summaries, session_view, unowned_records,
    waiting_sessions,
};

fn retry_button(environment_id: &str) -> String {
    format!(
        "<form method=\"post\" action=\"/environments/{0}/retry\"><button type=\"submit\" class=\"retry\">Retry teardown</button></form>",
        esc(environment_id)
    )
}

/// A pending permission request: what the agent wants to do, and a button
/// for each answer it offers. A request without that shape (from an older
/// runner) is shown as it was stored.
/// What left each run's agent through its egress policy: a row per
/// destination reached, then those refused.
fn egress(body: &mut String, runs: &[crate::views::RunView]) {
    use crate::views::bytes;
    let held: Vec<_> = runs
        .iter()
        .filter_map(|r| Some((r, r.egress.as_ref()?)))
        .collect();
    if held.is_empty() {
        return;
    }
    body.push_str("<h2>Egress</h2><table id=\"egress\"><tr><th>Run</th><th>Destination</th><th>Connections</th><th>Sent</th><th>Received</th></tr>");
    for (run, e) in held {
        for r in &e.reached {
            let _ = write!(
                body,
                "<tr class=\"reached\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&run.id),
                esc(&r.destination),
                r.connections,
                bytes(r.sent),
                bytes(r.received)
            );
        }
        for d in &e.refused {
            let _ = write!(
                body,
                "<tr class=\"refused\"><td>{}</td><td>{}</td><td colspan=\"3\" class=\"error\">refused</td></tr>",
                esc(&run.id),
                esc(d)
            );
        }
        if e.refused_more > 0 {
            let _ = write!(
                body,
                "<tr class=\"refused\"><td>{}</td><td colspan=\"4\" class=\"error\">and {} more refusals of other destinations</td></tr>",
                esc(&run.id),
                e.refused_more
            );
        }
        if e.reached.is_empty() && e.refused.is_empty() && e.refused_more == 0 {
            let _ = write!(
                body,
                "<tr><td>{}</td><td colspan=\"4\">nothing left the agent's network</td></tr>",
                esc(&run.id)
            );
        }
    }
    body.push_str("</table>");
}

fn permission(session: &str, p: &PermissionRequest) -> String {
    let r = &p.request;
    let call = &r["tool_call"];
    let Some(options) = r["options"].as_array().filter(|_| call.is_object()) else {
        return format!(
            "<p class=\"permission\">{}: <code>{}</code></p>",
            esc(&p.request_id),
            esc(&r.to_string())
        );
    };
    let mut out = format!(
        "<div class=\"permission\" data-request=\"{}\"><p><b>{}</b>",
        esc(&p.request_id),
        esc(call["title"].as_str().unwrap_or("a tool call"))
    );
    if let Some(command) = call["command"].as_str() {
        let _ = write!(out, "<br><code>$ {}</code>", esc(command));
    }
    out.push_str("</p>");
    for option in options {
        let _ = write!(
            out,
            "<form method=\"post\" action=\"/sessions/{}/permissions/{}/answer\"><input type=\"hidden\" name=\"option_id\" value=\"{}\"><button type=\"submit\" class=\"answer answer-{}\">{}</button></form> ",
            esc(session),
            esc(&p.request_id),
            esc(option["option_id"].as_str().unwrap_or_default()),
            esc(option["kind"].as_str().unwrap_or_default()),
            esc(option["name"].as_str().unwrap_or_default())
        );
    }
    out.push_str("</div>");
    out
}

/// One line of the transcript as the page shows it.
struct Line<'a> {
    kind: &'a str,
    at: crate::model::Millis,
    text: String,
}

/// The transcript as a reader wants it: the chunks of one message joined,
/// and a tool call once, as it stood last, where it first appeared (each
/// update is recorded whole, by run and id).
fn lines(entries: &[TranscriptEntry]) -> Vec<Line<'_>> {
    let text = |e: &TranscriptEntry| {
        e.content
            .get("text")
            .and_then(|t| t.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| e.content.to_string())
    };
    let call = |e: &TranscriptEntry| {
        let id = e.content["tool_call"]["id"].as_str()?;
        (e.kind == "tool_call").then(|| (e.run_id.clone(), id.to_owned()))
    };
    let stream = |e: &TranscriptEntry| {
        let id = e.content["stream"].as_str()?;
        Some((e.run_id.clone(), id.to_owned()))
    };
    let mut last = std::collections::HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(k) = call(e) {
            last.insert(k, i);
        }
    }
    let mut shown = std::collections::HashSet::new();
    let mut out: Vec<Line> = Vec::with_capacity(entries.len());
    // The stream the previous line belongs to, while it is not ended.
    let mut open = None;
    for e in entries {
        if let Some(k) = call(e) {
            if shown.insert(k.clone()) {
                let latest = &entries[last[&k]];
                out.push(Line {
                    kind: &latest.kind,
                    at: latest.at,
                    text: text(latest),
                });
            }
            open = None;
            continue;
        }
        let this = stream(e);
        match out.last_mut() {
            Some(line) if this.is_some() && this == open && line.kind == e.kind => {
                line.text.push_str(&text(e))
            }
            _ => out.push(Line {
                kind: &e.kind,
                at: e.at,
                text: text(e),
            }),
        }
        open = if e.content["last"].as_bool() == Some(false) {
            this
        } else {
            None
        };
    }
    out
}

pub async fn sessions(State(app): State<AppState>, _: Viewer) -> Result<Response> {
    let (sessions, orphaned, unowned, waiting) = app
        .read(|ctx| {
            let sessions = session_summaries(ctx)?;
            let mut orphaned: Vec<(String, EnvironmentView)> = Vec::new();
            for e in ctx.tx.environments_in(EnvironmentState::Orphaned)? {
                orphaned.push((e.session_id.clone(), environment_view(ctx, &e)?));
            }
            Ok((
                sessions,
                orphaned,
                unowned_records(ctx)?,
                waiting_sessions(ctx)?,
            ))
        })
        .await?;
    let mut body = String::from("<h1>Sessions</h1>");
    if !waiting.is_empty() {
        body.push_str("<section id=\"waiting\"><h2>Waiting for a runner</h2><table><tr><th>Session</th><th>Why</th><th>Fails</th></tr>");
        for (session_id, w) in &waiting {
            let _ = write!(
                body,
                "<tr class=\"waiting-session\" data-session=\"{0}\"><td><a href=\"/sessions/{0}\">{0}</a></td><td class=\"waiting-reason\">{1}</td><td>{2}</td></tr>",
                esc(session_id),
                esc(&w.reason),
                w.fails_at.map(time).unwrap_or_else(|| "-".into())
            );
        }
        body.push_str("</table></section>");
    }
    if !orphaned.is_empty() {
        body.push_str("<section id=\"orphaned\"><h2>Orphaned environments</h2><p>Blaise stopped trying to tear these down; what their plugs created may still be running. Fix the cause, then retry.</p><table><tr><th>Environment</th><th>Session</th><th>Runner</th><th>Last error</th><th></th></tr>");
        for (session_id, e) in &orphaned {
            let _ = write!(
                body,
                "<tr class=\"orphaned-environment\" data-environment=\"{0}\"><td>{0}</td><td><a href=\"/sessions/{1}\">{1}</a></td><td>{2}</td><td class=\"error\">{3}</td><td>{4}</td></tr>",
                esc(&e.id),
                esc(session_id),
                esc(e.runner.as_deref().unwrap_or("-")),
                esc(e.last_error.as_deref().unwrap_or("")),
                retry_button(&e.id)
            );
        }
        body.push_str("</table></section>");
    }
    if !unowned.is_empty() {
        body.push_str("<section id=\"unowned\"><h2>Records nothing owns</h2><p>State left by stateful plugs that were removed from <code>blaise.yml</code>: no plug can tear down what they describe.</p><table><tr><th>Session</th><th>Plug</th><th>Updated</th></tr>");
        for r in &unowned {
            let _ = write!(
                body,
                "<tr class=\"unowned-record\"><td><a href=\"/sessions/{0}\">{0}</a></td><td>{1}</td><td>{2}</td></tr>",
                esc(&r.session_id),
                esc(&r.plug_id),
                time(r.updated_at)
            );
        }
        body.push_str("</table></section>");
    }
    body.push_str("<table id=\"sessions\"><tr><th>Session</th><th>Agent</th><th>State</th><th>Environment</th><th>Last activity</th></tr>");
    for s in &sessions {
        let _ = write!(
            body,
            "<tr class=\"session\" data-session=\"{0}\"><td><a href=\"/sessions/{0}\">{0}</a></td><td>{1}</td><td>{2}</td><td>{3}</td><td>{4}</td></tr>",
            esc(&s.id),
            esc(&s.agent),
            state(s.state.as_str()),
            s.environment_state
                .map(|e| state(e.as_str()))
                .unwrap_or_else(|| "-".into()),
            time(s.last_activity)
        );
    }
    if sessions.is_empty() {
        body.push_str("<tr><td colspan=\"5\">No sessions yet.</td></tr>");
    }
    body.push_str("</table>");
    Ok(Html(page("Sessions", &body)).into_response())
}

pub async fn session(
    State(app): State<AppState>,
    _: Viewer,
    Path(id): Path<String>,
) -> Result<Response> {
    let (v, transcript) = app
        .read(|ctx| Ok((session_view(ctx, &id)?, ctx.tx.transcript(&id, 0, 10_000)?)))
        .await?;
    let mut body = format!(
        "<h1>Session {}</h1><p>Agent <b>{}</b> · state {}",
        esc(&v.id),
        esc(&v.agent),
        state(v.state.as_str())
    );
    if let Some(reason) = &v.end_reason {
        let _ = write!(body, " · <span class=\"end-reason\">{}</span>", esc(reason));
    }
    if let Some(expires) = v.expires_at {
        let _ = write!(body, " · expires {}", time(expires));
    }
    body.push_str("</p>");
    if v.starts_fresh {
        let _ = write!(
            body,
            "<p id=\"starts-fresh\">{}{}.</p>",
            crate::views::STARTS_FRESH[..1].to_uppercase(),
            &crate::views::STARTS_FRESH[1..]
        );
    }
    if let Some(w) = &v.waiting_for_runner {
        let _ = write!(
            body,
            "<p id=\"waiting-for-runner\">Waiting for a runner: <span class=\"waiting-reason\">{}</span>{}</p>",
            esc(&w.reason),
            w.fails_at
                .map(|t| format!(" · fails {} if none comes", time(t)))
                .unwrap_or_default()
        );
    }
    if !v.state.is_ended() {
        let _ = write!(
            body,
            "<form method=\"post\" action=\"/sessions/{0}/messages\" id=\"send\"><input name=\"text\" size=\"60\" placeholder=\"Message\" required> <button type=\"submit\">Send</button></form> \
             <form method=\"post\" action=\"/sessions/{0}/close\" id=\"close\"><button type=\"submit\">Close session</button></form>",
            esc(&v.id)
        );
    }
    body.push_str("<h2>Environment</h2>");
    match &v.environment {
        Some(e) => {
            let _ = write!(
                body,
                "<table id=\"environment\"><tr><th>Id</th><td>{}</td></tr><tr><th>State</th><td>{}</td></tr><tr><th>Runner</th><td>{}</td></tr><tr><th>Last error</th><td class=\"error\">{}</td></tr><tr><th>Teardown attempts</th><td>{}</td></tr></table>",
                esc(&e.id),
                state(e.state.as_str()),
                esc(e.runner.as_deref().unwrap_or("-")),
                esc(e.last_error.as_deref().unwrap_or("none")),
                e.teardown_attempts
            );
            if e.state == EnvironmentState::Orphaned {
                body.push_str(&retry_button(&e.id));
            }
        }
        None => body.push_str("<p>None yet.</p>"),
    }
    body.push_str("<h2>Runs</h2><table id=\"runs\"><tr><th>Run</th><th>Kind</th><th>Status</th><th>Runner</th><th>Conversation</th><th>Stop</th><th>Error</th></tr>");
    for r in &v.runs {
        let stop = r
            .stop
            .map(|s| format!("{} (may resume: {})", s.reason, s.may_resume))
            .unwrap_or_default();
        let _ = write!(
            body,
            "<tr class=\"run\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"conversation\">{}</td><td>{}</td><td class=\"error\">{}</td></tr>",
            esc(&r.id),
            r.kind,
            state(r.status.as_str()),
            esc(r.runner.as_deref().unwrap_or("-")),
            r.conversation.map(|c| c.as_str()).unwrap_or("-"),
            esc(&stop),
            esc(r.error.as_deref().unwrap_or(""))
        );
    }
    body.push_str("</table>");
    egress(&mut body, &v.runs);
    body.push_str("<h2>Plug records</h2>");
    if v.plug_records.is_empty() {
        body.push_str("<p>None.</p>");
    } else {
        body.push_str("<table id=\"plug-records\"><tr><th>Plug</th><th>Owner</th><th>Keys</th><th>Updated</th></tr>");
        for p in &v.plug_records {
            let owner = if p.owned {
                "<span class=\"owned\">owned by the current plug chain</span>"
            } else {
                "<span class=\"unowned\">owned by nothing</span>"
            };
            let _ = write!(
                body,
                "<tr class=\"plug-record\" data-plug=\"{0}\"><td>{0}</td><td>{owner}</td><td>{1}</td><td>{2}</td></tr>",
                esc(&p.plug_id),
                esc(&p.keys.join(", ")),
                time(p.updated_at)
            );
        }
        body.push_str("</table>");
    }
    let pending: Vec<_> = v
        .permission_requests
        .iter()
        .filter(|p| p.state == crate::model::PermissionState::Pending)
        .collect();
    if !pending.is_empty() {
        body.push_str("<h2>Waiting for permission</h2>");
        for p in pending {
            body.push_str(&permission(&v.id, p));
        }
    }
    body.push_str("<h2>Transcript</h2>");
    if v.pruned_at.is_some() {
        body.push_str(
            "<p>Pruned: the session ended longer ago than the server keeps transcripts (<code>--retain-ended</code>).</p>",
        );
    }
    body.push_str("<div class=\"transcript\" id=\"transcript\">");
    for line in lines(&transcript) {
        let _ = write!(
            body,
            "<div class=\"entry entry-{0}\"><span class=\"kind\">{0}</span> {1} <span class=\"text\">{2}</span></div>",
            esc(line.kind),
            time(line.at),
            esc(&line.text)
        );
    }
    body.push_str("</div>");
    Ok(Html(page(&format!("Session {}", v.id), &body)).into_response())
}
