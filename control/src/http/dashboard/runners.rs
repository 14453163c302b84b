//! The runners page: each runner, what its token may serve, its instances (connected or not,
//! live runs, capacity, agents, labels, last seen); add one (its token shown once), change what
//! it may serve, give it a new token, revoke it.

use std::fmt::Write;

use axum::extract::{Query, State};
use axum::response::Response;

use super::Viewer;
use super::html::{esc, state, time};
use super::live::{self, Parts, Since};
use crate::error::Result;
use crate::lifecycle::Ctx;
use crate::state::AppState;
use crate::views::RunnerView;

pub async fn runners(
    State(app): State<AppState>,
    viewer: Viewer,
    Query(since): Query<Since>,
) -> Result<Response> {
    live::respond(&app, &viewer, None, since, render).await
}

/// What a runner's token may serve, in words.
pub fn scope(r: &RunnerView) -> String {
    let agents = match &r.agents {
        Some(a) => format!("agents {}", a.join(", ")),
        None => "any agent".into(),
    };
    let labels = match &r.labels {
        Some(l) if l.is_empty() => "no label".into(),
        Some(l) => format!("labels {}", l.join(", ")),
        None => "any label".into(),
    };
    format!("may serve {agents}; claim {labels}")
}

fn render(ctx: &mut Ctx) -> Result<Parts> {
    let runners = crate::views::runners(ctx)?;
    let mut parts = Parts::new("Runners");
    parts.fixed("<h1>Runners</h1><p>A runner is a token; the processes that connect with it are its instances. A scope limits what its token may serve: an instance claiming another agent or label is refused.</p>");
    let mut list = String::new();
    for r in &runners {
        let _ = write!(
            list,
            "<section class=\"runner\" data-runner=\"{0}\"><h2>{0} {1}</h2><p>{2} · added {3} · spent today (UTC): <span class=\"spent\">{4}</span></p>",
            esc(&r.name),
            state(if r.revoked_at.is_some() {
                "revoked"
            } else {
                "active"
            }),
            esc(&scope(r)),
            time(r.created_at),
            esc(&crate::views::day_text(r.today.as_ref(), None)),
        );
        let instances = r.instances.as_deref().unwrap_or_default();
        if instances.is_empty() {
            list.push_str("<p class=\"muted\">No instance seen in the last week.</p>");
        } else {
            list.push_str("<div class=\"table-wrap\"><table class=\"instances\"><tr><th scope=\"col\">Instance</th><th scope=\"col\">State</th><th scope=\"col\">Live runs</th><th scope=\"col\">Capacity</th><th scope=\"col\">Agents</th><th scope=\"col\">Labels</th><th scope=\"col\">Last seen</th></tr>");
            for i in instances {
                let _ = write!(
                    list,
                    "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    esc(&i.instance),
                    state(if i.connected {
                        "connected"
                    } else {
                        "not_connected"
                    }),
                    i.live_runs,
                    i.capacity.map_or("no limit".to_string(), |c| c.to_string()),
                    esc(&i.agents.join(", ")),
                    if i.labels.is_empty() {
                        "-".into()
                    } else {
                        esc(&i.labels.join(", "))
                    },
                    time(i.last_seen)
                );
            }
            list.push_str("</table></div>");
        }
        list.push_str("</section>");
    }
    if runners.is_empty() {
        list.push_str("<p>No runner yet: add one below, then start <code>blaise-runner start</code> with its token.</p>");
    }
    parts.live("list", list);
    // The forms are fixed: what someone types survives the page's updates.
    let mut forms = String::from("<h2>Change a runner</h2>");
    for r in &runners {
        let _ = write!(
            forms,
            "<details id=\"runner-{0}\" class=\"runner-form\"><summary>{0}</summary>\
             <form method=\"post\" action=\"/runners/{0}/scope\"><label>May serve agents <input name=\"agents\" value=\"{1}\" placeholder=\"any\"></label><label>May claim labels <input name=\"labels\" value=\"{2}\" placeholder=\"any\"></label><label><input type=\"checkbox\" name=\"no_labels\" value=\"true\"{3}> no label at all</label> <button type=\"submit\">Save scope</button></form>\
             <div class=\"actions\"><form method=\"post\" action=\"/runners/{0}/token\" class=\"inline\" data-confirm=\"Give runner {0} a new token? The old one stops working at once.\"><button type=\"submit\">New token</button></form> ",
            esc(&r.name),
            esc(&r.agents.as_deref().unwrap_or_default().join(", ")),
            esc(&r.labels.as_deref().unwrap_or_default().join(", ")),
            if r.labels.as_ref().is_some_and(|l| l.is_empty()) {
                " checked"
            } else {
                ""
            },
        );
        if r.revoked_at.is_none() {
            let _ = write!(
                forms,
                "<form method=\"post\" action=\"/runners/{0}/revoke\" class=\"inline\" data-confirm=\"Revoke runner {0}? Its instances are refused at once and their runs time out; sessions waiting for it go to other runners.\"><button type=\"submit\" class=\"danger\">Revoke</button></form>",
                esc(&r.name)
            );
        }
        forms.push_str("</div></details>");
    }
    forms.push_str("<details id=\"add-runner\" open><summary>Add a runner</summary><form method=\"post\" action=\"/runners\"><label>Name <input name=\"name\" required pattern=\"[a-z0-9][a-z0-9._-]{0,63}\" title=\"1-64 of a-z 0-9 . _ -, starting with a letter or digit\"></label><label>May serve agents <input name=\"agents\" placeholder=\"any\"></label><label>May claim labels <input name=\"labels\" placeholder=\"any\"></label> <button type=\"submit\">Add</button></form><p class=\"muted\">Its token is shown once, on the next page.</p></details>");
    parts.fixed(forms);
    Ok(parts)
}
