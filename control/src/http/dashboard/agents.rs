//! The agents page: each agent's settings (how long a session may sit idle, what it does then,
//! how long a paused one waits, the longest turn, the labels its runners need), a form to
//! change them, and one to add an agent.

use std::fmt::Write;

use axum::extract::{Query, State};
use axum::response::Response;

use super::Viewer;
use super::html::{esc, time};
use super::live::{self, Parts, Since};
use crate::duration::Human;
use crate::error::Result;
use crate::lifecycle::Ctx;
use crate::model::{Agent, AgentSettings, IdlePolicy, Spender};
use crate::state::AppState;

pub async fn agents(
    State(app): State<AppState>,
    viewer: Viewer,
    Query(since): Query<Since>,
) -> Result<Response> {
    live::respond(&app, &viewer, None, since, render).await
}

fn render(ctx: &mut Ctx) -> Result<Parts> {
    let agents = ctx.tx.agents()?;
    let today = crate::model::day_of(ctx.now);
    let used_today = ctx.tx.day_usages(Spender::Agent, &today)?;
    let mut parts = Parts::new("Agents");
    parts.fixed("<h1>Agents</h1><p>An agent's settings are the only place timing lives: runners learn them when they connect. Durations are a number and a unit: <code>500ms</code>, <code>30s</code>, <code>10m</code>, <code>2h</code>, <code>1d</code>.</p>");
    let mut table = String::from(
        "<div class=\"table-wrap\"><table id=\"agents\"><tr><th scope=\"col\">Agent</th><th scope=\"col\">Idle after</th><th scope=\"col\">Then</th><th scope=\"col\">Paused for at most</th><th scope=\"col\">Longest turn</th><th scope=\"col\">Kept hot after a pause</th><th scope=\"col\">Warm agents</th><th scope=\"col\">Runners need labels</th><th scope=\"col\">Budgets</th><th scope=\"col\">Spent today (UTC)</th><th scope=\"col\">State</th><th scope=\"col\">Changed</th></tr>",
    );
    for a in &agents {
        let s = &a.settings;
        let _ = write!(
            table,
            "<tr class=\"agent\" data-agent=\"{0}\"><td><b>{0}</b></td><td>{1}</td><td>{2}</td><td>{3}</td><td>{4}</td><td>{hot}</td><td>{warm}</td><td>{5}</td><td>{budgets}</td><td class=\"spent\">{spent}</td><td>{6}</td><td>{7}</td></tr>",
            esc(&a.name),
            Human(s.inactivity_ms),
            match s.idle_policy {
                IdlePolicy::Pause => "pause (keep the environment)",
                IdlePolicy::End => "end the session",
            },
            Human(s.paused_lifetime_ms),
            Human(s.timeout_ms),
            if s.requires_labels.is_empty() {
                "-".to_string()
            } else {
                esc(&s.requires_labels.join(", "))
            },
            if a.disabled { "disabled" } else { "enabled" },
            time(a.updated_at),
            hot = if s.hot_for_ms > 0 {
                Human(s.hot_for_ms).to_string()
            } else {
                "- (cold)".to_string()
            },
            warm = if s.warm_agents > 0 {
                format!("{} on each runner", s.warm_agents)
            } else {
                "- (cold starts)".to_string()
            },
            budgets = esc(&budgets(s)),
            spent = esc(&crate::views::day_text(
                used_today.iter().find(|u| u.of == a.name).map(|u| &u.usage),
                s.daily_budget
            )),
        );
    }
    if agents.is_empty() {
        table.push_str("<tr><td colspan=\"12\">No agent yet: add one below.</td></tr>");
    }
    table.push_str("</table></div>");
    parts.live("list", table);
    // The forms are fixed: what someone types survives the page's updates.
    let mut forms = String::new();
    for a in &agents {
        forms.push_str(&form(Some(a)));
    }
    forms.push_str(&form(None));
    parts.fixed(forms);
    Ok(parts)
}

/// An agent's budgets in words: `session 5, day 50`, or `none`.
fn budgets(s: &AgentSettings) -> String {
    let mut parts = Vec::new();
    if let Some(b) = s.session_budget {
        parts.push(format!("session {b}"));
    }
    if let Some(b) = s.daily_budget {
        parts.push(format!("day {b}"));
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

/// The form that changes agent `a`, or adds one.
fn form(a: Option<&Agent>) -> String {
    let defaults = AgentSettings::default();
    let s = a.map_or(&defaults, |a| &a.settings);
    let (id, summary, name) = match a {
        Some(a) => (
            format!("edit-{}", esc(&a.name)),
            format!("Change {}", esc(&a.name)),
            format!(
                "<input type=\"hidden\" name=\"name\" value=\"{}\">",
                esc(&a.name)
            ),
        ),
        None => (
            "add-agent".to_string(),
            "Add an agent".to_string(),
            "<label>Name <input name=\"name\" required pattern=\"[a-z0-9][a-z0-9._-]{0,63}\" title=\"1-64 of a-z 0-9 . _ -, starting with a letter or digit\"></label><br>".to_string(),
        ),
    };
    let policy = |p: IdlePolicy| {
        if s.idle_policy == p { " selected" } else { "" }
    };
    format!(
        "<details id=\"{id}\" class=\"agent-form\"><summary>{summary}</summary><form method=\"post\" action=\"/agents\">{name}\
         <label>Idle after <input name=\"inactivity\" value=\"{}\" required size=\"6\"></label>\
         <label>Then <select name=\"idle_policy\"><option value=\"pause\"{}>pause</option><option value=\"end\"{}>end</option></select></label>\
         <label>Paused for at most <input name=\"paused_lifetime\" value=\"{}\" required size=\"6\"></label>\
         <label>Longest turn <input name=\"timeout\" value=\"{}\" required size=\"6\"></label>\
         <label title=\"After an idle pause the runner keeps the agent running, frozen, this long: the next message is answered at once. 0s: never.\">Kept hot for <input name=\"hot_for\" value=\"{}\" size=\"6\"></label>\
         <label title=\"Each runner serving the agent keeps this many agents started ahead: a new session is answered without waiting for its agent to start. Each serves one session only. 0: none.\">Warm agents <input name=\"warm\" value=\"{}\" size=\"3\" inputmode=\"numeric\"></label>\
         <label>Runners need labels <input name=\"requires_labels\" value=\"{}\" placeholder=\"gpu, region-eu\"></label>\
         <label title=\"In the currency the agent reports (Claude Code: USD). Past it Blaise stops the session, keeping its environment. Blank: no budget.\">Session budget <input name=\"session_budget\" value=\"{}\" size=\"6\" inputmode=\"decimal\" placeholder=\"none\"></label>\
         <label title=\"What all its sessions may spend in a day (UTC). Blank: no budget.\">Daily budget <input name=\"daily_budget\" value=\"{}\" size=\"6\" inputmode=\"decimal\" placeholder=\"none\"></label>\
         <label><input type=\"checkbox\" name=\"disabled\" value=\"true\"{}> Disabled (no new runs)</label>\
         <br><button type=\"submit\">Save</button></form></details>",
        Human(s.inactivity_ms),
        policy(IdlePolicy::Pause),
        policy(IdlePolicy::End),
        Human(s.paused_lifetime_ms),
        Human(s.timeout_ms),
        Human(s.hot_for_ms),
        s.warm_agents,
        esc(&s.requires_labels.join(", ")),
        s.session_budget.map(|b| b.to_string()).unwrap_or_default(),
        s.daily_budget.map(|b| b.to_string()).unwrap_or_default(),
        if a.is_some_and(|a| a.disabled) {
            " checked"
        } else {
            ""
        },
    )
}
