//! One session's page: what it is doing now (state, why it waits, what it asks permission for),
//! the conversation, a message box, and below them the environment, the runs, what left the
//! agent's network and the plug records. It follows the session live (a long poll woken by the
//! session's changes).

use std::fmt::Write;

use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::Viewer;
use super::html::{duration, esc, state, time};
use super::live::{self, Parts, Since};
use super::transcript::{self, PAGE_ENTRIES};
use crate::error::Result;
use crate::lifecycle::Ctx;
use crate::model::{EnvironmentState, PermissionRequest, PermissionState, SessionState};
use crate::state::AppState;
use crate::views::{RunView, SessionView, session_view};
use crate::wakeups::Topic;

#[derive(Deserialize)]
pub struct SessionQuery {
    #[serde(flatten)]
    since: Since,
    /// Show the conversation before this transcript index (an earlier page).
    before: Option<i64>,
}

pub async fn session(
    State(app): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Query(q): Query<SessionQuery>,
) -> Result<Response> {
    let topic = Topic::Session(id.clone());
    let before = q.before;
    live::respond(&app, &viewer, Some(topic), q.since, |ctx| {
        render(ctx, &id, before)
    })
    .await
}

/// The session's page as of now; `before`: an earlier page of its conversation.
pub fn render(ctx: &mut Ctx, id: &str, before: Option<i64>) -> Result<Parts> {
    let v = session_view(ctx, id)?;
    let last = ctx.tx.last_transcript_index(id)?;
    let end = before.map_or(last, |b| b.saturating_sub(1).clamp(0, last));
    let start = end.saturating_sub(PAGE_ENTRIES as i64);
    let entries = ctx.tx.transcript(id, start, (end - start) as usize)?;
    let page = transcript::render(&entries, start > 0);

    let mut parts = Parts::new(format!("Session {}", v.id));
    parts.fixed(format!("<h1>Session <code>{}</code></h1>", esc(&v.id)));
    parts.live("status", status(&v, ctx.now));
    parts.live("asks", asks(&v));
    let mut conversation = String::from("<h2>Conversation</h2>");
    if v.pruned_at.is_some() {
        conversation.push_str(
            "<p>Pruned: the session ended longer ago than the server keeps transcripts (<code>--retain-ended</code>).</p>",
        );
    }
    if let Some(earlier) = page.earlier_before {
        let _ = write!(
            conversation,
            "<p class=\"pager\"><a href=\"/sessions/{}?before={earlier}\" id=\"earlier\">Earlier messages</a></p>",
            esc(&v.id)
        );
    }
    let _ = write!(
        conversation,
        "<div class=\"conversation\" id=\"transcript\">{}</div>",
        page.html
    );
    if before.is_some_and(|b| b <= last) {
        let _ = write!(
            conversation,
            "<p class=\"pager\"><a href=\"/sessions/{}\">Latest messages</a></p>",
            esc(&v.id)
        );
    }
    parts.live("conversation-part", conversation);
    if !v.state.is_ended() {
        parts.fixed(format!(
            "<form method=\"post\" action=\"/sessions/{0}/messages\" id=\"send\"><label for=\"message\">Message</label><br><textarea id=\"message\" name=\"text\" rows=\"3\" required placeholder=\"Ask the agent…\"></textarea><br><button type=\"submit\">Send</button></form>\
             <div class=\"actions\"><form method=\"post\" action=\"/sessions/{0}/cancel\" class=\"inline\"><button type=\"submit\">Cancel the turn</button></form> \
             <form method=\"post\" action=\"/sessions/{0}/close\" id=\"close\" class=\"inline\" data-confirm=\"Close this session? Its environment is torn down: the workspace and what the plugs created are removed.\"><button type=\"submit\" class=\"danger\">Close session</button></form></div>\
             <details id=\"budget-form\"><summary>Set this session's budget</summary><form method=\"post\" action=\"/sessions/{0}/budget\" id=\"budget\"><label for=\"budget-amount\">What it may spend in all, in the currency its agent reports</label><br><input id=\"budget-amount\" name=\"amount\" inputmode=\"decimal\" size=\"8\" required placeholder=\"5.00\"> <button type=\"submit\">Set the budget</button></form></details>",
            esc(&v.id)
        ));
    }
    parts.live("details", details(&v, ctx.now));
    Ok(parts)
}

/// State, agent, times, and what the session is waiting for.
fn status(v: &SessionView, now: crate::model::Millis) -> String {
    let shown = match (v.state, &v.waiting_for_runner) {
        (SessionState::Active, Some(_)) => "waiting",
        (s, _) => s.as_str(),
    };
    let by = v
        .started_by
        .as_ref()
        .map(|who| format!(" by <b class=\"started-by\">{}</b>", esc(who)))
        .unwrap_or_default();
    let mut out = format!(
        "<p>Agent <b>{}</b> · {} · opened {}{by} · last activity {}",
        esc(&v.agent),
        state(shown),
        time(v.created_at),
        time(v.last_activity)
    );
    if let Some(ended) = v.ended_at {
        let _ = write!(
            out,
            " · ended {} after {}",
            time(ended),
            duration(ended - v.created_at)
        );
    } else {
        let _ = write!(out, " · open for {}", duration(now - v.created_at));
    }
    if let Some(expires) = v.expires_at {
        let _ = write!(out, " · ends {} if no message comes", time(expires));
    }
    out.push_str("</p>");
    if let Some(turn) = &v.turn {
        let _ = write!(
            out,
            "<p id=\"turn\">The agent is {}.</p>",
            esc(&turn.describe(now))
        );
    }
    let _ = write!(
        out,
        "<p id=\"usage\">Used: {}.</p>",
        esc(&crate::views::usage_text(&v.usage, v.budget))
    );
    if let Some(source) = &v.source {
        out.push_str(&source_line(source));
    }
    // A reason that only repeats the state ("closed") says nothing more.
    if let Some(reason) = v.end_reason.as_ref().filter(|r| *r != v.state.as_str()) {
        let _ = write!(
            out,
            "<p>Ended: <span class=\"end-reason\">{}</span></p>",
            esc(reason)
        );
    }
    if v.starts_fresh {
        let _ = write!(
            out,
            "<p id=\"starts-fresh\" class=\"notice-box\">{}{}.</p>",
            crate::views::STARTS_FRESH[..1].to_uppercase(),
            &crate::views::STARTS_FRESH[1..]
        );
    }
    if let Some(w) = &v.waiting_for_runner {
        let _ = write!(
            out,
            "<p id=\"waiting-for-runner\" class=\"notice-box\">Waiting for a runner: <span class=\"waiting-reason\">{}</span>{}</p>",
            esc(&w.reason),
            w.fails_at
                .map(|t| format!(" · fails {} if none comes", time(t)))
                .unwrap_or_default()
        );
    }
    out
}

/// Where the session's messages come from, linking back there.
fn source_line(source: &crate::views::SourceView) -> String {
    let kind = match source.kind.as_str() {
        "linear" => "Linear",
        other => other,
    };
    let label = source.label.as_deref().unwrap_or(&source.thread);
    let named = match &source.title {
        Some(title) => format!("{} · {}", esc(label), esc(title)),
        None => esc(label),
    };
    let linked = match &source.url {
        Some(url) => format!(
            "<a href=\"{}\" rel=\"noopener noreferrer\">{named}</a>",
            esc(url)
        ),
        None => named,
    };
    format!(
        "<p id=\"source\">From {} ({}): {linked}</p>",
        esc(kind),
        esc(&source.name)
    )
}

/// The permission requests the agent waits on, each with a button per answer it offers; then
/// the last answered ones: the answer, who gave it, through what, when.
fn asks(v: &SessionView) -> String {
    let pending: Vec<_> = v
        .permission_requests
        .iter()
        .filter(|p| p.state == PermissionState::Pending)
        .collect();
    let mut out = String::new();
    if !pending.is_empty() {
        out.push_str("<h2>The agent asks</h2>");
        for p in pending {
            out.push_str(&permission(&v.id, p));
        }
    }
    let answered: Vec<_> = v
        .permission_requests
        .iter()
        .filter(|p| p.state == PermissionState::Answered)
        .rev()
        .take(3)
        .collect();
    if !answered.is_empty() {
        out.push_str("<h2>Answered</h2><ul class=\"answered\">");
        for p in answered {
            let by = match (&p.answered_by, &p.answered_via) {
                (Some(who), Some(via)) => format!(" — {} through {}", esc(who), esc(via)),
                _ => String::new(),
            };
            let _ = write!(
                out,
                "<li data-request=\"{}\">{}: <b>{}</b>{by}{}</li>",
                esc(&p.request_id),
                esc(p.asks()),
                esc(p.answer.as_deref().unwrap_or("?")),
                p.answered_at
                    .map(|at| format!(", {}", time(at)))
                    .unwrap_or_default()
            );
        }
        out.push_str("</ul>");
    }
    out
}

/// A pending permission request: what the agent wants to do, and a button for each answer it
/// offers. The request was masked by the runner's filters; one without that shape (from an
/// older runner) shows only its id.
fn permission(session: &str, p: &PermissionRequest) -> String {
    let r = &p.request;
    let call = &r["tool_call"];
    let Some(options) = r["options"].as_array().filter(|_| call.is_object()) else {
        return format!(
            "<div class=\"permission\" data-request=\"{0}\"><p>Request <code>{0}</code>: answer it with <code>blaise session answer</code>.</p></div>",
            esc(&p.request_id)
        );
    };
    let mut out = format!(
        "<div class=\"permission\" data-request=\"{}\" role=\"group\" aria-label=\"Permission request\"><p><b>{}</b>",
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
            "<form method=\"post\" action=\"/sessions/{}/permissions/{}/answer\" class=\"inline\"><input type=\"hidden\" name=\"option_id\" value=\"{}\"><button type=\"submit\" class=\"answer answer-{}\">{}</button></form> ",
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

/// The environment, the runs (times and durations), egress, plug records.
fn details(v: &SessionView, now: crate::model::Millis) -> String {
    let mut out = String::from("<h2>Environment</h2>");
    match &v.environment {
        Some(e) => {
            let _ = write!(
                out,
                "<div class=\"table-wrap\"><table id=\"environment\"><tr><th scope=\"row\">Id</th><td><code>{}</code></td></tr><tr><th scope=\"row\">State</th><td>{}</td></tr><tr><th scope=\"row\">Runner</th><td>{}</td></tr>",
                esc(&e.id),
                state(e.state.as_str()),
                esc(e.runner.as_deref().unwrap_or("-")),
            );
            if let Some(error) = &e.last_error {
                let _ = write!(
                    out,
                    "<tr><th scope=\"row\">Last error</th><td class=\"{}\">{}</td></tr>",
                    if e.state == EnvironmentState::Orphaned {
                        "error"
                    } else {
                        "muted"
                    },
                    esc(error)
                );
            }
            if e.teardown_attempts > 0 {
                let _ = write!(
                    out,
                    "<tr><th scope=\"row\">Teardown attempts</th><td>{}</td></tr>",
                    e.teardown_attempts
                );
            }
            out.push_str("</table></div>");
            if e.state == EnvironmentState::Orphaned {
                out.push_str(&super::environments::retry_button(&e.id));
            }
        }
        None => out.push_str("<p>None yet.</p>"),
    }
    out.push_str("<h2>Runs</h2><div class=\"table-wrap\"><table id=\"runs\"><tr><th scope=\"col\">Run</th><th scope=\"col\">Kind</th><th scope=\"col\">Status</th><th scope=\"col\">Runner</th><th scope=\"col\">Started</th><th scope=\"col\">Took</th><th scope=\"col\">Conversation</th><th scope=\"col\">Stop</th><th scope=\"col\">Error</th></tr>");
    for r in &v.runs {
        run_row(&mut out, r, now);
    }
    out.push_str("</table></div>");
    egress(&mut out, &v.runs);
    out.push_str("<h2>Plug records</h2>");
    if v.plug_records.is_empty() {
        out.push_str("<p>None.</p>");
    } else {
        out.push_str("<div class=\"table-wrap\"><table id=\"plug-records\"><tr><th scope=\"col\">Plug</th><th scope=\"col\">Owner</th><th scope=\"col\">Keys</th><th scope=\"col\">Updated</th></tr>");
        for p in &v.plug_records {
            let owner = if p.owned {
                "<span class=\"owned\">owned by the current plug chain</span>"
            } else {
                "<span class=\"unowned\">owned by nothing</span>"
            };
            let _ = write!(
                out,
                "<tr class=\"plug-record\" data-plug=\"{0}\"><td>{0}</td><td>{owner}</td><td>{1}</td><td>{2}</td></tr>",
                esc(&p.plug_id),
                esc(&p.keys.join(", ")),
                time(p.updated_at)
            );
        }
        out.push_str("</table></div>");
    }
    out
}

fn run_row(out: &mut String, r: &RunView, now: crate::model::Millis) {
    let stop = r
        .stop
        .map(|s| {
            format!(
                "{}{}",
                s.reason,
                if s.may_resume { " (may resume)" } else { "" }
            )
        })
        .unwrap_or_default();
    let took = match (r.accepted_at, r.ended_at) {
        (Some(a), Some(e)) => duration(e - a),
        (Some(a), None) => format!("{} so far", duration(now - a)),
        _ => "-".into(),
    };
    let _ = write!(
        out,
        "<tr class=\"run\"><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"conversation-kind\">{}</td><td>{}</td><td class=\"error\">{}</td></tr>",
        esc(&r.id),
        r.kind,
        state(r.status.as_str()),
        esc(r.runner.as_deref().unwrap_or("-")),
        r.accepted_at.map(time).unwrap_or_else(|| "-".into()),
        took,
        r.conversation.map(|c| c.as_str()).unwrap_or("-"),
        esc(&stop),
        esc(r.error.as_deref().unwrap_or(""))
    );
}

/// What left each run's agent through its egress policy: a row per destination reached, then
/// those refused.
fn egress(out: &mut String, runs: &[RunView]) {
    use crate::views::bytes;
    let held: Vec<_> = runs
        .iter()
        .filter_map(|r| Some((r, r.egress.as_ref()?)))
        .collect();
    if held.is_empty() {
        return;
    }
    out.push_str("<h2>Egress</h2><div class=\"table-wrap\"><table id=\"egress\"><tr><th scope=\"col\">Run</th><th scope=\"col\">Destination</th><th scope=\"col\">Connections</th><th scope=\"col\">Sent</th><th scope=\"col\">Received</th></tr>");
    for (run, e) in held {
        for r in &e.reached {
            let _ = write!(
                out,
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
                out,
                "<tr class=\"refused\"><td>{}</td><td>{}</td><td colspan=\"3\" class=\"error\">refused</td></tr>",
                esc(&run.id),
                esc(d)
            );
        }
        if e.refused_more > 0 {
            let _ = write!(
                out,
                "<tr class=\"refused\"><td>{}</td><td colspan=\"4\" class=\"error\">and {} more refusals of other destinations</td></tr>",
                esc(&run.id),
                e.refused_more
            );
        }
        if e.reached.is_empty() && e.refused.is_empty() && e.refused_more == 0 {
            let _ = write!(
                out,
                "<tr><td>{}</td><td colspan=\"4\">nothing left the agent's network</td></tr>",
                esc(&run.id)
            );
        }
    }
    out.push_str("</table></div>");
}
