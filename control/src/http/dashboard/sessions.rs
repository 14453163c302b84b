//! The front page: what needs someone (runs waiting for a runner, orphaned environments, records
//! nothing owns), a form to start a session, and the sessions — filtered by state, agent and
//! runner, found by id or by their first message, newest first, a page at a time. It follows the
//! store every few seconds.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write;

use axum::extract::{Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::Viewer;
use super::environments::retry_button;
use super::html::{esc, percent, state, time};
use super::live::{self, Parts, Since};
use crate::error::Result;
use crate::lifecycle::Ctx;
use crate::model::{EnvironmentState, Millis, PermissionRequest, Role, Session, SessionState};
use crate::session_search::{Search, Waiting, Waits, find, first_message};
use crate::state::AppState;
use crate::store::SessionPage;
use crate::views::{environment_view, pending_by_session, unowned_records, waiting_sessions};

/// The state filter (and badge) of sessions whose agent waits for a person's answer.
const FOR_YOU: &str = "waiting_for_you";

/// Sessions on one page of the list.
pub const PAGE: usize = 50;

#[derive(Deserialize, Default)]
pub struct ListQuery {
    #[serde(flatten)]
    since: Since,
    /// Only sessions in this state (`waiting`: active and waiting for a runner).
    state: Option<String>,
    /// Only this agent's sessions.
    agent: Option<String>,
    /// Only sessions whose environment this runner holds (or last held).
    runner: Option<String>,
    /// Sessions whose id or first message contains this (case aside).
    q: Option<String>,
    /// Only the sessions the viewer started (`1`).
    mine: Option<String>,
    /// The page after the one whose last session this names (`CREATED_AT.ID`): "Older".
    after: Option<String>,
}

pub async fn sessions(
    State(app): State<AppState>,
    viewer: Viewer,
    Query(q): Query<ListQuery>,
) -> Result<Response> {
    let filter = Filter {
        state: q.state.filter(|s| !s.is_empty()),
        agent: q.agent.filter(|s| !s.is_empty()),
        runner: q.runner.filter(|s| !s.is_empty()),
        search: q.q.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()),
        after: q.after.as_deref().and_then(crate::views::page_cursor),
        mine: q.mine.is_some_and(|m| !m.is_empty()),
        me: viewer.actor.who.clone(),
        may_start: viewer.may(Role::Operator),
    };
    live::respond(&app, &viewer, None, q.since, |ctx| render(ctx, &filter)).await
}

struct Filter {
    state: Option<String>,
    agent: Option<String>,
    runner: Option<String>,
    search: Option<String>,
    after: Option<(Millis, String)>,
    /// Only the sessions `me` started.
    mine: bool,
    me: String,
    /// Whether the viewer may start sessions (the form shows).
    may_start: bool,
}

impl Filter {
    /// This filter's query string for the page after `cursor` (`None`: the newest).
    fn query(&self, cursor: Option<&str>) -> String {
        let mut parts = Vec::new();
        for (k, v) in [
            ("state", &self.state),
            ("agent", &self.agent),
            ("runner", &self.runner),
            ("q", &self.search),
        ] {
            if let Some(v) = v {
                parts.push(format!("{k}={}", percent(v)));
            }
        }
        if self.mine {
            parts.push("mine=1".into());
        }
        if let Some(cursor) = cursor {
            parts.push(format!("after={}", percent(cursor)));
        }
        format!("?{}", parts.join("&"))
    }

    /// The search this filter makes (`None`: a state no session has, nothing to show).
    fn search(&self, runner_id: Option<String>) -> Option<Search> {
        let (state, waiting) = match self.state.as_deref() {
            None => (None, None),
            Some("waiting") => (None, Some(Waiting::ForRunner)),
            Some(FOR_YOU) => (None, Some(Waiting::ForYou)),
            Some(text) => (Some(SessionState::parse(text)?), None),
        };
        // A runner that does not exist holds nothing: no session is read to find that out.
        if self.runner.is_some() && runner_id.is_none() {
            return None;
        }
        Some(Search {
            page: SessionPage {
                state,
                agent: self.agent.clone(),
                started_by: self.mine.then(|| self.me.clone()),
                after: self.after.clone(),
                limit: PAGE as u32,
            },
            waiting,
            runner_id,
            words: self.search.clone(),
        })
    }
}

fn render(ctx: &mut Ctx, f: &Filter) -> Result<Parts> {
    let agents = ctx.tx.agents()?;
    let waiting = waiting_sessions(ctx)?;
    let pending = pending_by_session(ctx)?;
    let mut parts = Parts::new("Sessions");
    parts.waiting(pending.len());
    parts.fixed("<h1>Sessions</h1>");
    parts.live("attention", attention(ctx, &waiting, &pending)?);

    // The form to start one: fixed, so what is typed survives the page's updates.
    let mut form = String::from(
        "<details id=\"new-session\" open><summary>Start a session</summary><form method=\"post\" action=\"/sessions\"><label>Agent <select name=\"agent\" required>",
    );
    for a in agents.iter().filter(|a| !a.disabled) {
        let _ = write!(form, "<option>{}</option>", esc(&a.name));
    }
    form.push_str("</select></label><br><label for=\"first-message\">First message</label><br><textarea id=\"first-message\" name=\"message\" rows=\"3\" required></textarea><br><button type=\"submit\">Start</button></form></details>");
    if !f.may_start {
        form = String::new();
    } else if agents.is_empty() {
        form = "<p class=\"notice-box\">No agent yet: add one on the <a href=\"/agents\">agents page</a> (or <code>blaise agent set NAME</code>) before starting a session.</p>".into();
    }
    parts.fixed(form);

    // Filters: a GET form, so a filtered list is a link.
    let mut filters = String::from(
        "<form method=\"get\" action=\"/\" id=\"filters\" role=\"search\"><label>State <select name=\"state\"><option value=\"\">any</option>",
    );
    for s in [FOR_YOU, "waiting"]
        .into_iter()
        .chain(SessionState::ALL.iter().map(|s| s.as_str()))
    {
        let selected = if f.state.as_deref() == Some(s) {
            " selected"
        } else {
            ""
        };
        let _ = write!(
            filters,
            "<option value=\"{s}\"{selected}>{}</option>",
            s.replace('_', " ")
        );
    }
    filters.push_str(
        "</select></label><label>Agent <select name=\"agent\"><option value=\"\">any</option>",
    );
    for a in &agents {
        let selected = if f.agent.as_deref() == Some(&a.name) {
            " selected"
        } else {
            ""
        };
        let _ = write!(filters, "<option{selected}>{}</option>", esc(&a.name));
    }
    filters.push_str(
        "</select></label><label>Runner <select name=\"runner\"><option value=\"\">any</option>",
    );
    let runners = ctx.tx.runners()?;
    for r in &runners {
        let selected = if f.runner.as_deref() == Some(&r.name) {
            " selected"
        } else {
            ""
        };
        let _ = write!(filters, "<option{selected}>{}</option>", esc(&r.name));
    }
    let _ = write!(
        filters,
        "</select></label><label><input type=\"checkbox\" name=\"mine\" value=\"1\"{}> Started by me</label><label>Find <input type=\"search\" name=\"q\" value=\"{}\" placeholder=\"an id or words of the first message\"></label> <button type=\"submit\">Show</button> <a href=\"/\">All</a></form>",
        if f.mine { " checked" } else { "" },
        esc(f.search.as_deref().unwrap_or(""))
    );
    parts.fixed(filters);

    let waiting_ids: HashSet<&str> = waiting.iter().map(|(id, _)| id.as_str()).collect();
    let runner_id = f.runner.as_ref().and_then(|name| {
        runners
            .iter()
            .find(|r| r.name == *name)
            .map(|r| r.id.clone())
    });
    let (sessions, next) = match f.search(runner_id) {
        Some(search) => {
            let waits = Waits {
                pending: &pending,
                for_runner: &waiting_ids,
            };
            find(ctx, &search, &waits)?
        }
        None => (Vec::new(), None),
    };
    // How many there are, where the store counts them without reading them: every session, or
    // those of one state.
    let counted = match (&f.state, &f.agent, &f.runner, &f.search) {
        _ if f.mine => None,
        (None, None, None, None) => Some(ctx.tx.census()?.sessions.iter().map(|(_, n)| n).sum()),
        (Some(state), None, None, None) => ctx
            .tx
            .census()?
            .sessions
            .iter()
            .find(|(s, _)| s == state)
            .map(|(_, n)| *n)
            .or(SessionState::parse(state).map(|_| 0)),
        _ => None,
    };
    let heading = match counted {
        Some(1) => "1 session".to_string(),
        Some(n) => format!("{n} sessions"),
        None => "Sessions found".to_string(),
    };
    let mut list = format!(
        "<h2>{heading}</h2><div class=\"table-wrap\"><table id=\"sessions\"><tr><th scope=\"col\">Session</th><th scope=\"col\">First message</th><th scope=\"col\">Agent</th><th scope=\"col\">State</th><th scope=\"col\">Environment</th><th scope=\"col\">Opened</th><th scope=\"col\">Last activity</th><th scope=\"col\">Spent</th></tr>"
    );
    for s in &sessions {
        let environment = ctx.session_environment(s)?.map(|e| e.state);
        let first = title(&first_message(ctx, &s.id)?);
        let shown = if pending.contains_key(&s.id) {
            FOR_YOU
        } else if waiting_ids.contains(s.id.as_str()) && !s.state.is_ended() {
            "waiting"
        } else {
            s.state.as_str()
        };
        let _ = write!(
            list,
            "<tr class=\"session\" data-session=\"{0}\"><td><a href=\"/sessions/{0}\"><code>{0}</code></a></td><td>{1}</td><td>{2}</td><td>{3}</td><td>{4}</td><td>{5}</td><td>{6}</td><td class=\"spent\">{7}</td></tr>",
            esc(&s.id),
            esc(&first),
            esc(&s.agent),
            state(shown),
            environment
                .map(|e| state(e.as_str()))
                .unwrap_or_else(|| "-".into()),
            opened(s),
            time(s.last_activity),
            // What its agent said it spent; unknown when it said nothing.
            esc(&s
                .usage
                .spent()
                .map_or("-".to_string(), |(amount, currency)| {
                    crate::lifecycle::usage::money(amount, currency)
                }))
        );
    }
    if sessions.is_empty() {
        list.push_str("<tr><td colspan=\"8\">No sessions here.</td></tr>");
    }
    list.push_str("</table></div>");
    if f.after.is_some() || next.is_some() {
        list.push_str("<p class=\"pager\">");
        if f.after.is_some() {
            let _ = write!(list, "<a href=\"/{}\">Newest</a>", esc(&f.query(None)));
        }
        if let Some(cursor) = &next {
            let _ = write!(
                list,
                " <a href=\"/{}\" rel=\"next\">Older</a>",
                esc(&f.query(Some(cursor)))
            );
        }
        list.push_str("</p>");
    }
    parts.live("list", list);
    Ok(parts)
}

/// When a session was opened, and by whom (sessions from before people were recorded say none).
fn opened(s: &Session) -> String {
    match &s.started_by {
        Some(who) => format!(
            "{}<br><span class=\"by\">by {}</span>",
            time(s.created_at),
            esc(who)
        ),
        None => time(s.created_at),
    }
}

/// A message as a session's title: its first line, cut at 80 characters.
fn title(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    match line.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

/// What needs someone: runs no runner takes, environments whose teardown gave up, records
/// nothing owns.
fn attention(
    ctx: &mut Ctx,
    waiting: &[(String, crate::lifecycle::waiting::WaitingView)],
    pending: &BTreeMap<String, Vec<PermissionRequest>>,
) -> Result<String> {
    let mut out = String::new();
    if !pending.is_empty() {
        out.push_str("<section id=\"waiting-for-you\"><h2>Waiting for you</h2><p>Their agents asked permission and wait for an answer.</p><div class=\"table-wrap\"><table><tr><th scope=\"col\">Session</th><th scope=\"col\">The agent asks</th><th scope=\"col\">Since</th></tr>");
        let mut oldest_first: Vec<_> = pending.iter().collect();
        oldest_first.sort_by_key(|(_, requests)| requests[0].created_at);
        for (session_id, requests) in oldest_first {
            let more = match requests.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            let _ = write!(
                out,
                "<tr class=\"waiting-for-you\" data-session=\"{0}\"><td><a href=\"/sessions/{0}\"><code>{0}</code></a></td><td>{1}{2}</td><td>{3}</td></tr>",
                esc(session_id),
                esc(requests[0].asks()),
                esc(&more),
                time(requests[0].created_at)
            );
        }
        out.push_str("</table></div></section>");
    }
    if !waiting.is_empty() {
        out.push_str("<section id=\"waiting\"><h2>Waiting for a runner</h2><div class=\"table-wrap\"><table><tr><th scope=\"col\">Session</th><th scope=\"col\">Why</th><th scope=\"col\">Since</th><th scope=\"col\">Fails</th></tr>");
        for (session_id, w) in waiting {
            let _ = write!(
                out,
                "<tr class=\"waiting-session\" data-session=\"{0}\"><td><a href=\"/sessions/{0}\"><code>{0}</code></a></td><td class=\"waiting-reason\">{1}</td><td>{2}</td><td>{3}</td></tr>",
                esc(session_id),
                esc(&w.reason),
                w.since.map(time).unwrap_or_else(|| "-".into()),
                w.fails_at.map(time).unwrap_or_else(|| "-".into())
            );
        }
        out.push_str("</table></div></section>");
    }
    let orphaned = ctx.tx.environments_in(EnvironmentState::Orphaned)?;
    if !orphaned.is_empty() {
        out.push_str("<section id=\"orphaned\"><h2>Orphaned environments</h2><p>Blaise stopped trying to tear these down; what their plugs created may still be running. Fix the cause, then retry.</p><div class=\"table-wrap\"><table><tr><th scope=\"col\">Environment</th><th scope=\"col\">Session</th><th scope=\"col\">Runner</th><th scope=\"col\">Last error</th><th scope=\"col\">Attempts</th><th scope=\"col\"><span class=\"visually-hidden\">Action</span></th></tr>");
        for e in orphaned {
            let v = environment_view(ctx, &e)?;
            let _ = write!(
                out,
                "<tr class=\"orphaned-environment\" data-environment=\"{0}\"><td><code>{0}</code></td><td><a href=\"/sessions/{1}\"><code>{1}</code></a></td><td>{2}</td><td class=\"error\">{3}</td><td>{4}</td><td>{5}</td></tr>",
                esc(&v.id),
                esc(&e.session_id),
                esc(v.runner.as_deref().unwrap_or("-")),
                esc(v.last_error.as_deref().unwrap_or("")),
                v.teardown_attempts,
                retry_button(&v.id)
            );
        }
        out.push_str("</table></div></section>");
    }
    let unowned = unowned_records(ctx)?;
    if !unowned.is_empty() {
        out.push_str("<section id=\"unowned\"><h2>Records nothing owns</h2><p>State left by stateful plugs that were removed from <code>blaise.yml</code>: no plug can tear down what they describe.</p><div class=\"table-wrap\"><table><tr><th scope=\"col\">Session</th><th scope=\"col\">Plug</th><th scope=\"col\">Updated</th></tr>");
        for r in &unowned {
            let _ = write!(
                out,
                "<tr class=\"unowned-record\"><td><a href=\"/sessions/{0}\"><code>{0}</code></a></td><td>{1}</td><td>{2}</td></tr>",
                esc(&r.session_id),
                esc(&r.plug_id),
                time(r.updated_at)
            );
        }
        out.push_str("</table></div></section>");
    }
    Ok(out)
}
