//! Pages that follow what they show without a reload: the page's script asks again with the
//! version it shows (`?since=V`, a hash of the parts that change, each a `<div class="live">`),
//! and the server answers when they have changed — at once for a list, as a long poll for a
//! session (woken by the session's own changes). The script swaps those parts in; forms outside
//! them keep what the user typed.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::fmt::Write;

use super::Viewer;
use super::html::{page_waiting, with_csrf};
use crate::error::Result;
use crate::lifecycle::Ctx;
use crate::state::AppState;
use crate::wakeups::Topic;

/// How long a session page's poll waits for a change before it says "nothing new" (204).
const LONG_POLL_MS: i64 = 25_000;

#[derive(Deserialize, Default)]
pub struct Since {
    /// The version of the live part the page shows.
    pub since: Option<String>,
}

/// A page: its title and its sections, in order, each fixed (forms, headings) or live (the
/// parts the script swaps in: ids unique on the page).
pub struct Parts {
    pub title: String,
    pub sections: Vec<Section>,
    /// Sessions waiting for a person's answer: the navigation's count (set by [`respond`] unless
    /// the page counted them itself).
    waiting: Option<usize>,
}

pub enum Section {
    Fixed(String),
    Live(&'static str, String),
}

impl Parts {
    pub fn new(title: impl Into<String>) -> Parts {
        Parts {
            title: title.into(),
            sections: Vec::new(),
            waiting: None,
        }
    }

    pub fn fixed(&mut self, html: impl Into<String>) -> &mut Self {
        self.sections.push(Section::Fixed(html.into()));
        self
    }

    /// How many sessions wait for a person, when the page has read it anyway.
    pub fn waiting(&mut self, n: usize) -> &mut Self {
        self.waiting = Some(n);
        self
    }

    pub fn live(&mut self, id: &'static str, html: impl Into<String>) -> &mut Self {
        self.sections.push(Section::Live(id, html.into()));
        self
    }

    fn version(&self) -> String {
        let mut hash = Sha256::new();
        hash.update(self.waiting.unwrap_or(0).to_le_bytes());
        for s in &self.sections {
            if let Section::Live(id, html) = s {
                hash.update(id.as_bytes());
                hash.update([0]);
                hash.update(html.as_bytes());
                hash.update([0]);
            }
        }
        hex::encode(&hash.finalize()[..8])
    }
}

/// Answers a page request: the whole page, or — with `since` — the page once its live part
/// differs from that version (waiting on `topic` for up to 25 s when given), else 204.
pub async fn respond(
    app: &AppState,
    viewer: &Viewer,
    topic: Option<Topic>,
    since: Since,
    mut render: impl FnMut(&mut Ctx) -> Result<Parts>,
) -> Result<Response> {
    // Every page counts the sessions waiting for a person, in its navigation and title.
    let mut render = move |ctx: &mut Ctx| -> Result<Parts> {
        let mut parts = render(ctx)?;
        if parts.waiting.is_none() {
            parts.waiting = Some(crate::views::pending_by_session(ctx)?.len());
        }
        Ok(parts)
    };
    let waits = topic.is_some();
    let whole = |p: Parts| {
        let mut body = format!(
            "<span id=\"live\" hidden data-version=\"{}\"{}></span>",
            p.version(),
            if waits { " data-wait=\"1\"" } else { "" }
        );
        for s in p.sections {
            match s {
                Section::Fixed(html) => body.push_str(&html),
                Section::Live(id, html) => {
                    let _ = write!(body, "<div class=\"live\" id=\"{id}\">{html}</div>");
                }
            }
        }
        let page = page_waiting(&p.title, &body, p.waiting.unwrap_or(0));
        let page = super::roles::cut_to(&page, viewer.actor.role);
        // Who is looking, and as what, beside the way out.
        let page = page.replacen(
            "<form method=\"post\" action=\"/logout\">",
            &format!(
                "<span class=\"who\" id=\"who\">{} · {}</span><form method=\"post\" action=\"/logout\">",
                super::html::esc(&viewer.actor.who),
                viewer.actor.role
            ),
            1,
        );
        Html(match &viewer.csrf {
            Some(csrf) => with_csrf(&page, csrf),
            None => page,
        })
        .into_response()
    };
    let Some(seen) = since.since else {
        return Ok(whole(app.read(&mut render).await?));
    };
    let changed = |ctx: &mut Ctx| -> Result<Option<Parts>> {
        let p = render(ctx)?;
        Ok((p.version() != seen).then_some(p))
    };
    let found = match topic {
        Some(topic) => {
            app.long_poll_read(topic, Some(LONG_POLL_MS), changed)
                .await?
        }
        None => app.read(changed).await?,
    };
    Ok(match found {
        Some(p) => whole(p),
        None => StatusCode::NO_CONTENT.into_response(),
    })
}
