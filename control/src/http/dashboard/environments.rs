//! The environments page: every environment not yet torn down (or those of one state), its
//! session, runner, last error and teardown attempts, and a retry for the orphaned ones; 100 to
//! a page.

use std::fmt::Write;

use axum::extract::{Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::Viewer;
use super::html::{esc, state, time};
use super::live::{self, Parts, Since};
use crate::error::Result;
use crate::lifecycle::Ctx;
use crate::model::EnvironmentState;
use crate::state::AppState;
use crate::views::environment_view;

/// The button that retries an orphaned environment's teardown.
pub fn retry_button(environment_id: &str) -> String {
    format!(
        "<form method=\"post\" action=\"/environments/{0}/retry\" class=\"inline\"><button type=\"submit\" class=\"retry\">Retry teardown</button></form>",
        esc(environment_id)
    )
}

#[derive(Deserialize)]
pub struct EnvironmentsQuery {
    #[serde(flatten)]
    since: Since,
    state: Option<String>,
    /// The page, from 1.
    page: Option<usize>,
}

/// Environments on one page.
const PAGE: usize = 100;

pub async fn environments(
    State(app): State<AppState>,
    viewer: Viewer,
    Query(q): Query<EnvironmentsQuery>,
) -> Result<Response> {
    let only = q.state.as_deref().and_then(EnvironmentState::parse);
    let page = q.page.unwrap_or(1).max(1);
    live::respond(&app, &viewer, None, q.since, |ctx| render(ctx, only, page)).await
}

fn render(ctx: &mut Ctx, only: Option<EnvironmentState>, page: usize) -> Result<Parts> {
    let mut parts = Parts::new("Environments");
    parts.fixed("<h1>Environments</h1><p>Where sessions run: a workspace and what the plugs created for it, held by one runner. Torn-down ones are left out unless asked for.</p>");
    let mut filters = String::from(
        "<form method=\"get\" action=\"/environments\" id=\"filters\"><label>State <select name=\"state\"><option value=\"\">not torn down</option>",
    );
    for s in EnvironmentState::ALL {
        let selected = if only == Some(*s) { " selected" } else { "" };
        let _ = write!(filters, "<option{selected}>{}</option>", s.as_str());
    }
    filters.push_str("</select></label> <button type=\"submit\">Show</button></form>");
    parts.fixed(filters);
    let wanted: Vec<EnvironmentState> = match only {
        Some(s) => vec![s],
        None => EnvironmentState::ALL
            .iter()
            .copied()
            .filter(|s| *s != EnvironmentState::TornDown)
            .collect(),
    };
    let mut table = String::from(
        "<div class=\"table-wrap\"><table id=\"environments\"><tr><th scope=\"col\">Environment</th><th scope=\"col\">State</th><th scope=\"col\">Session</th><th scope=\"col\">Runner</th><th scope=\"col\">Last error</th><th scope=\"col\">Attempts</th><th scope=\"col\">Next teardown</th><th scope=\"col\"><span class=\"visually-hidden\">Action</span></th></tr>",
    );
    let mut all = Vec::new();
    for s in wanted {
        all.extend(ctx.tx.environments_in(s)?);
    }
    let count = all.len();
    let pages = count.div_ceil(PAGE).max(1);
    let page = page.min(pages);
    for e in all.iter().skip((page - 1) * PAGE).take(PAGE) {
        let v = environment_view(ctx, e)?;
        let _ = write!(
            table,
            "<tr class=\"environment\" data-environment=\"{0}\"><td><code>{0}</code></td><td>{1}</td><td><a href=\"/sessions/{2}\"><code>{2}</code></a></td><td>{3}</td><td class=\"{4}\">{5}</td><td>{6}</td><td>{7}</td><td>{8}</td></tr>",
            esc(&v.id),
            state(v.state.as_str()),
            esc(&e.session_id),
            esc(v.runner.as_deref().unwrap_or("-")),
            if v.state == EnvironmentState::Orphaned {
                "error"
            } else {
                "muted"
            },
            esc(v.last_error.as_deref().unwrap_or("")),
            v.teardown_attempts,
            v.next_teardown_at.map(time).unwrap_or_else(|| "-".into()),
            if v.state == EnvironmentState::Orphaned {
                retry_button(&v.id)
            } else {
                String::new()
            }
        );
    }
    if count == 0 {
        table.push_str("<tr><td colspan=\"8\">None.</td></tr>");
    }
    table.push_str("</table></div>");
    if pages > 1 {
        let state = only.map_or(String::new(), |s| format!("state={}&", s.as_str()));
        table.push_str("<p class=\"pager\">");
        if page > 1 {
            let _ = write!(
                table,
                "<a href=\"/environments?{state}page={}\" rel=\"prev\">Previous</a>",
                page - 1
            );
        }
        let _ = write!(table, "page {page} of {pages} ({count} environments)");
        if page < pages {
            let _ = write!(
                table,
                " <a href=\"/environments?{state}page={}\" rel=\"next\">Next</a>",
                page + 1
            );
        }
        table.push_str("</p>");
    }
    parts.live("list", table);
    Ok(parts)
}
