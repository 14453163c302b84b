//! The audit page (admins): who did what, to what, when and through what, newest first, a page
//! at a time, maybe of one person, one session or one action; the people who may sign in; and
//! the webhooks, with how each one's latest delivery went.

use std::fmt::Write;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;

use super::Viewer;
use super::html::{error_page, esc, time};
use super::live::{self, Parts, Since};
use crate::error::Result;
use crate::lifecycle::Ctx;
use crate::model::{AuditAction, AuditEntry, Role};
use crate::names::{SESSION, is_id};
use crate::state::AppState;
use crate::store::AuditPage;

#[derive(Deserialize, Default)]
pub struct AuditQuery {
    #[serde(flatten)]
    since: Since,
    actor: Option<String>,
    session: Option<String>,
    action: Option<String>,
    /// The page after the one whose last entry this is.
    after: Option<i64>,
}

/// Entries on one page.
const PAGE: u32 = 100;

pub async fn audit(
    State(app): State<AppState>,
    viewer: Viewer,
    Query(q): Query<AuditQuery>,
) -> Result<Response> {
    if let Err(e) = crate::http::extract::require(&viewer.actor, Role::Admin) {
        return Ok((
            StatusCode::FORBIDDEN,
            Html(error_page("Not allowed", &e.to_string(), "/")),
        )
            .into_response());
    }
    let page = AuditPage {
        actor: q.actor.filter(|a| !a.trim().is_empty()),
        session_id: q.session.filter(|s| is_id(&SESSION, s)),
        action: q.action.as_deref().and_then(AuditAction::parse),
        before: q.after,
        limit: PAGE + 1,
    };
    live::respond(&app, &viewer, None, q.since, |ctx| render(ctx, &page)).await
}

fn render(ctx: &mut Ctx, page: &AuditPage) -> Result<Parts> {
    let mut parts = Parts::new("Audit");
    parts.fixed("<h1>Audit</h1><p>Every change made through the dashboard, the API, the CLI or a message source: who made it, with what role, through what, and when.</p>");
    let mut filters = format!(
        "<form method=\"get\" action=\"/audit\" id=\"filters\" role=\"search\"><label>Who <input name=\"actor\" value=\"{}\" placeholder=\"anyone\"></label><label>Session <input name=\"session\" value=\"{}\" placeholder=\"any\" size=\"22\"></label><label>Action <select name=\"action\"><option value=\"\">any</option>",
        esc(page.actor.as_deref().unwrap_or("")),
        esc(page.session_id.as_deref().unwrap_or(""))
    );
    for a in AuditAction::ALL {
        let selected = if page.action == Some(*a) {
            " selected"
        } else {
            ""
        };
        let _ = write!(filters, "<option{selected}>{}</option>", a.as_str());
    }
    filters.push_str(
        "</select></label> <button type=\"submit\">Show</button> <a href=\"/audit\">All</a></form>",
    );
    parts.fixed(filters);

    let mut entries = ctx.tx.audit_page(page)?;
    let next = (entries.len() as u32 > PAGE).then(|| {
        entries.truncate(PAGE as usize);
        entries[entries.len() - 1].seq
    });
    let mut list = String::from(
        "<div class=\"table-wrap\"><table id=\"audit\"><tr><th scope=\"col\">When</th><th scope=\"col\">Who</th><th scope=\"col\">Through</th><th scope=\"col\">Did</th><th scope=\"col\">To</th><th scope=\"col\">What changed</th></tr>",
    );
    for e in &entries {
        list.push_str(&row(e));
    }
    if entries.is_empty() {
        list.push_str("<tr><td colspan=\"6\">Nothing recorded here.</td></tr>");
    }
    list.push_str("</table></div>");
    let query = |after: Option<i64>| {
        let mut q = Vec::new();
        if let Some(a) = &page.actor {
            q.push(format!("actor={}", super::html::percent(a)));
        }
        if let Some(s) = &page.session_id {
            q.push(format!("session={s}"));
        }
        if let Some(a) = page.action {
            q.push(format!("action={}", a.as_str()));
        }
        if let Some(after) = after {
            q.push(format!("after={after}"));
        }
        format!("/audit?{}", q.join("&"))
    };
    if page.before.is_some() || next.is_some() {
        list.push_str("<p class=\"pager\">");
        if page.before.is_some() {
            let _ = write!(list, "<a href=\"{}\">Newest</a>", esc(&query(None)));
        }
        if let Some(after) = next {
            let _ = write!(
                list,
                " <a href=\"{}\" rel=\"next\">Older</a>",
                esc(&query(Some(after)))
            );
        }
        list.push_str("</p>");
    }
    parts.live("trail", list);
    parts.live("people", people(ctx)?);
    parts.live("webhooks", webhooks(ctx)?);
    Ok(parts)
}

fn row(e: &AuditEntry) -> String {
    let target = match &e.session_id {
        Some(id) if *id == e.target => {
            format!("<a href=\"/sessions/{0}\"><code>{0}</code></a>", esc(id))
        }
        Some(id) => format!(
            "<code>{}</code> (<a href=\"/sessions/{1}\"><code>{1}</code></a>)",
            esc(&e.target),
            esc(id)
        ),
        None => format!("<code>{}</code>", esc(&e.target)),
    };
    format!(
        "<tr class=\"audit-entry\" data-action=\"{action}\"><td>{}</td><td>{} <span class=\"muted\">({})</span></td><td>{}</td><td><code>{action}</code></td><td>{target}</td><td>{}</td></tr>",
        time(e.at),
        esc(&e.actor),
        e.role,
        e.via,
        esc(&e.detail),
        action = e.action.as_str(),
    )
}

/// The webhooks, and how each one's latest delivery went.
fn webhooks(ctx: &mut Ctx) -> Result<String> {
    let hooks = ctx.tx.webhooks()?;
    let mut out = String::from("<h2>Webhooks</h2>");
    if hooks.is_empty() {
        out.push_str("<p>None: <code>blaise webhook add NAME URL --events permission_requested --secret env:BLAISE_WEBHOOK_SECRET</code> tells a receiver (Slack too) when something needs a person.</p>");
        return Ok(out);
    }
    out.push_str("<div class=\"table-wrap\"><table id=\"webhooks\"><tr><th scope=\"col\">Name</th><th scope=\"col\">Events</th><th scope=\"col\">Receiver</th><th scope=\"col\">Latest delivery</th></tr>");
    for w in hooks {
        let host = reqwest::Url::parse(&w.url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        let last = match ctx.tx.deliveries(&w.name, None, 1)?.into_iter().next() {
            None => "none yet".to_string(),
            Some(d) => {
                let status = d.last_status.map(|s| format!(" ({s})")).unwrap_or_default();
                let error = d
                    .last_error
                    .as_deref()
                    .filter(|_| d.state != crate::model::DeliveryState::Delivered)
                    .map(|e| format!(": {}", esc(e)))
                    .unwrap_or_default();
                format!(
                    "{} {} {}{status} after {} attempt(s){error}",
                    time(d.created_at),
                    d.event,
                    d.state,
                    d.attempts
                )
            }
        };
        let events: Vec<&str> = w.events.iter().map(|e| e.as_str()).collect();
        let _ = write!(
            out,
            "<tr class=\"webhook\"><td>{}</td><td>{}</td><td>{} ({})</td><td>{last}</td></tr>",
            esc(&w.name),
            esc(&events.join(", ")),
            esc(&host),
            w.format
        );
    }
    out.push_str("</table></div>");
    Ok(out)
}

/// Who may sign in with a token of their own (`blaise user …`).
fn people(ctx: &mut Ctx) -> Result<String> {
    let users = ctx.tx.users()?;
    let mut out = String::from("<h2>People</h2>");
    if users.is_empty() {
        out.push_str("<p>Nobody but the admin token yet: <code>blaise user add NAME --role viewer|operator|admin</code> gives a person a token of their own.</p>");
        return Ok(out);
    }
    out.push_str("<div class=\"table-wrap\"><table id=\"people\"><tr><th scope=\"col\">Name</th><th scope=\"col\">Role</th><th scope=\"col\">Added</th></tr>");
    for u in users {
        let _ = write!(
            out,
            "<tr class=\"person\"><td><a href=\"/audit?actor={0}\">{0}</a></td><td>{1}</td><td>{2} by {3}</td></tr>",
            esc(&u.name),
            u.role,
            time(u.created_at),
            esc(&u.created_by)
        );
    }
    out.push_str("</table></div>");
    Ok(out)
}
