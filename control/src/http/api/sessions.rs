//! Sessions: open, send, close, cancel a turn, look at them, follow the transcript.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::http::{AppState, AsAdmin, AsOperator, AsViewer, Body, Params};
use crate::lifecycle::{messages, permissions};
use crate::model::*;
use crate::names::check_request_id_in_path;
use crate::session_search::{Search, Waiting};
use crate::store::SessionPage;
use crate::views::{SessionSummary, SessionView, page_cursor, session_summaries, session_view};
use crate::wakeups::Topic;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetRequest {
    /// The session's new budget, in the currency its agent reports.
    amount: f64,
}

/// `POST /v1/sessions/{id}/budget`: raises (or sets) the session's own budget; a session stopped
/// for its budget takes messages again once it is under it.
pub async fn budget(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Path(id): Path<String>,
    Body(req): Body<BudgetRequest>,
) -> Result<Json<crate::views::SessionView>> {
    Ok(Json(
        state
            .write(|ctx| {
                crate::lifecycle::usage::set_budget(ctx, &by, &id, req.amount)?;
                session_view(ctx, &id)
            })
            .await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewRequest {
    pub agent: String,
    pub message: String,
}

pub async fn new(
    State(state): State<AppState>,
    AsOperator(by): AsOperator,
    Body(req): Body<NewRequest>,
) -> Result<Json<SessionView>> {
    Ok(Json(
        state
            .write(|ctx| {
                let session = messages::new_session(ctx, &by, &req.agent, &req.message)?;
                session_view(ctx, &session.id)
            })
            .await?,
    ))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only sessions whose agent waits for a person to answer a permission request.
    #[serde(default)]
    waiting_for_you: bool,
    /// Only sessions whose run waits for a runner to take it.
    #[serde(default)]
    waiting_for_runner: bool,
    /// Only sessions whose environment this runner holds.
    runner: Option<String>,
    /// Only sessions in this state.
    state: Option<String>,
    /// Only this agent's sessions.
    agent: Option<String>,
    /// Only the sessions this person started (`admin`, a person's name, an email, a source).
    started_by: Option<String>,
    /// Only the sessions the caller started.
    #[serde(default)]
    mine: bool,
    /// The most sessions in the answer (1–1000; 100 when not given).
    limit: Option<u32>,
    /// The page after this one: the `next` of the previous answer.
    after: Option<String>,
}

/// Sessions in a page when the request does not say, and the most a page may hold.
const SESSIONS_PAGE: u32 = 100;
const MAX_SESSIONS_PAGE: u32 = 1000;

/// `GET /v1/sessions`: a page of sessions, newest first, and `next`, the cursor of the page
/// after it (`null` on the last page).
pub async fn list(
    State(state): State<AppState>,
    AsViewer(viewer): AsViewer,
    Params(query): Params<ListQuery>,
) -> Result<Json<serde_json::Value>> {
    let page = SessionPage {
        state: match query.state.as_deref() {
            None => None,
            Some(s) => Some(SessionState::parse(s).ok_or_else(|| {
                Error::invalid(
                    "invalid_field",
                    "state",
                    format!(
                        "`state` must be one of {}",
                        SessionState::ALL
                            .iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })?),
        },
        agent: match query.agent {
            Some(agent) => {
                crate::names::check_name("agent", &agent)?;
                Some(agent)
            }
            None => None,
        },
        started_by: match (query.mine, query.started_by) {
            (true, Some(_)) => {
                return Err(Error::invalid(
                    "invalid_field",
                    "mine",
                    "give `mine` or `started_by`, not both",
                ));
            }
            (true, None) => Some(viewer.who.clone()),
            (false, Some(who)) => {
                crate::names::check_person("started_by", &who)?;
                Some(who)
            }
            (false, None) => None,
        },
        after: match query.after.as_deref() {
            None => None,
            Some(text) => Some(page_cursor(text).ok_or_else(|| {
                Error::invalid(
                    "invalid_field",
                    "after",
                    "`after` must be the `next` of a previous answer",
                )
            })?),
        },
        limit: match query.limit {
            None => SESSIONS_PAGE,
            Some(n @ 1..=MAX_SESSIONS_PAGE) => n,
            Some(_) => {
                return Err(Error::invalid(
                    "invalid_field",
                    "limit",
                    format!("`limit` must be 1 to {MAX_SESSIONS_PAGE}"),
                ));
            }
        },
    };
    let waiting = match (query.waiting_for_you, query.waiting_for_runner) {
        (true, true) => {
            return Err(Error::invalid(
                "invalid_field",
                "waiting_for_runner",
                "give `waiting_for_you` or `waiting_for_runner`, not both",
            ));
        }
        (true, false) => Some(Waiting::ForYou),
        (false, true) => Some(Waiting::ForRunner),
        (false, false) => None,
    };
    if let Some(runner) = &query.runner {
        crate::names::check_name("runner", runner)?;
    }
    let (sessions, next): (Vec<SessionSummary>, Option<String>) = state
        .read(|ctx| {
            let runner_id = match &query.runner {
                None => None,
                Some(name) => Some(
                    ctx.tx
                        .runner_by_name(name)?
                        .ok_or_else(|| {
                            Error::invalid(
                                "invalid_field",
                                "runner",
                                format!("no runner named {name:?} (`blaise runner list`)"),
                            )
                        })?
                        .id,
                ),
            };
            let search = Search {
                page: page.clone(),
                waiting,
                runner_id,
                words: None,
            };
            session_summaries(ctx, &search)
        })
        .await?;
    Ok(Json(
        serde_json::json!({ "sessions": sessions, "next": next }),
    ))
}

pub async fn show(
    State(state): State<AppState>,
    _: AsViewer,
    Path(id): Path<String>,
) -> Result<Json<SessionView>> {
    Ok(Json(state.read(|ctx| session_view(ctx, &id)).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SendRequest {
    pub text: String,
}

pub async fn send(
    State(state): State<AppState>,
    AsOperator(by): AsOperator,
    Path(id): Path<String>,
    Body(req): Body<SendRequest>,
) -> Result<Json<Message>> {
    Ok(Json(
        state
            .write(|ctx| messages::send(ctx, &by, &id, &req.text))
            .await?,
    ))
}

/// Closes the session. A running one is closed once its run has received the stop; if no runner
/// receives it within the wait, the stop is withdrawn and the request fails (nothing changed).
pub async fn close(
    State(state): State<AppState>,
    AsOperator(by): AsOperator,
    Path(id): Path<String>,
) -> Result<Json<SessionView>> {
    state.close_and_wait(&by, &id).await?;
    Ok(Json(state.read(|ctx| session_view(ctx, &id)).await?))
}

pub async fn cancel(
    State(state): State<AppState>,
    AsOperator(by): AsOperator,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>> {
    let seq = state
        .write(|ctx| crate::lifecycle::messages::cancel_turn(ctx, &by, &id))
        .await?;
    Ok(Json(serde_json::json!({ "directive_seq": seq })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptQuery {
    #[serde(default)]
    pub after: i64,
    #[serde(default)]
    pub wait_ms: Option<Millis>,
    /// Most entries in the page (1 to [`MAX_PAGE`]; default [`MAX_PAGE`]).
    #[serde(default)]
    pub limit: Option<usize>,
    /// The session's state as the follower last saw it: the long poll also answers (with no
    /// entries) as soon as the state is another one, so a follower sees the session pause.
    #[serde(default)]
    pub state: Option<SessionState>,
}

/// The largest transcript page: a long session is read page by page, never whole.
pub const MAX_PAGE: usize = 1000;

#[derive(Serialize)]
pub struct TranscriptPage {
    pub session_state: SessionState,
    pub entries: Vec<TranscriptEntry>,
    /// When the retention deleted the session's transcript (it ended long ago).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pruned_at: Option<Millis>,
}

pub async fn transcript(
    State(state): State<AppState>,
    _: AsViewer,
    Path(id): Path<String>,
    Params(q): Params<TranscriptQuery>,
) -> Result<Json<TranscriptPage>> {
    let limit = q.limit.unwrap_or(MAX_PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(Error::invalid(
            "invalid_field",
            "limit",
            format!("`limit` is {limit}: a page holds 1 to {MAX_PAGE} entries"),
        ));
    }
    let mut session_state = SessionState::Active;
    let mut pruned_at = None;
    let entries = state
        .long_poll_read(Topic::Session(id.clone()), q.wait_ms, |ctx| {
            let session = ctx.session(&id)?;
            session_state = session.state;
            pruned_at = session.pruned_at;
            let entries = ctx.tx.transcript(&id, q.after, limit)?;
            let moved = q.state.is_some_and(|seen| seen != session.state);
            Ok((!entries.is_empty() || session.state.is_ended() || moved).then_some(entries))
        })
        .await?
        .unwrap_or_default();
    Ok(Json(TranscriptPage {
        session_state,
        entries,
        pruned_at,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerRequest {
    pub option_id: String,
}

pub async fn answer(
    State(state): State<AppState>,
    AsOperator(by): AsOperator,
    Path((id, request)): Path<(String, String)>,
    Body(req): Body<AnswerRequest>,
) -> Result<Json<PermissionRequest>> {
    check_request_id_in_path(&request)?;
    Ok(Json(
        state
            .write(|ctx| permissions::answer(ctx, &id, &request, &req.option_id, &by))
            .await?,
    ))
}
