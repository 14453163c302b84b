//! What the dashboard does (form POSTs): start a session, send a message, answer a permission
//! request, cancel a turn, close a session, retry a teardown, change an agent, add a runner,
//! change its scope, give it a new token, revoke it. Each goes back to the page it came from;
//! an error comes back as a page that says what went wrong.

use axum::Form;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::html::{error_page, esc, page};
use super::{Admin, Operator};
use crate::error::Error;
use crate::lifecycle::agents::{AgentPatch, Budget, NoBudget};
use crate::lifecycle::runners::{Scope, ScopeChange};
use crate::lifecycle::{agents, environment, messages, permissions, runners};
use crate::model::IdlePolicy;
use crate::names::{SESSION, comma_list, is_id};
use crate::state::AppState;

/// The error as a page, with a way back.
fn not_done(e: Error, back: &str) -> Response {
    (
        crate::http::error::status(&e),
        Html(error_page("Not done", &e.to_string(), back)),
    )
        .into_response()
}

/// After a change, back to a page (303: the browser follows with a GET).
fn back_to(path: &str) -> Response {
    Redirect::to(path).into_response()
}

/// The session's page, or the list when `id` is no session id (it came from the URL).
fn session_page(id: &str) -> String {
    if is_id(&SESSION, id) {
        format!("/sessions/{id}")
    } else {
        "/".into()
    }
}

pub async fn retry(
    State(app): State<AppState>,
    Admin(by): Admin,
    Path(id): Path<String>,
) -> Response {
    match app.write(|ctx| environment::retry(ctx, &by, &id)).await {
        Ok(e) => back_to(&format!("/sessions/{}", e.session_id)),
        Err(e) => not_done(e, "/environments"),
    }
}

#[derive(Deserialize)]
pub struct NewSessionForm {
    agent: String,
    message: String,
}

pub async fn new_session(
    State(app): State<AppState>,
    Operator(by): Operator,
    Form(form): Form<NewSessionForm>,
) -> Response {
    match app
        .write(|ctx| messages::new_session(ctx, &by, &form.agent, &form.message))
        .await
    {
        Ok(session) => back_to(&format!("/sessions/{}", session.id)),
        Err(e) => not_done(e, "/"),
    }
}

#[derive(Deserialize)]
pub struct MessageForm {
    text: String,
}

pub async fn send(
    State(app): State<AppState>,
    Operator(by): Operator,
    Path(id): Path<String>,
    Form(form): Form<MessageForm>,
) -> Response {
    let back = session_page(&id);
    match app
        .write(|ctx| messages::send(ctx, &by, &id, &form.text))
        .await
    {
        Ok(_) => back_to(&back),
        Err(e) => not_done(e, &back),
    }
}

pub async fn cancel(
    State(app): State<AppState>,
    Operator(by): Operator,
    Path(id): Path<String>,
) -> Response {
    let back = session_page(&id);
    match app.write(|ctx| messages::cancel_turn(ctx, &by, &id)).await {
        Ok(_) => back_to(&back),
        Err(e) => not_done(e, &back),
    }
}

#[derive(Deserialize)]
pub struct BudgetForm {
    amount: String,
}

pub async fn budget(
    State(app): State<AppState>,
    Admin(by): Admin,
    Path(id): Path<String>,
    Form(form): Form<BudgetForm>,
) -> Response {
    let back = session_page(&id);
    let amount = match crate::lifecycle::usage::parse_amount(&form.amount) {
        Ok(amount) => amount,
        Err(why) => return not_done(Error::invalid("invalid_field", "amount", why), &back),
    };
    match app
        .write(|ctx| crate::lifecycle::usage::set_budget(ctx, &by, &id, amount))
        .await
    {
        Ok(_) => back_to(&back),
        Err(e) => not_done(e, &back),
    }
}

pub async fn close(
    State(app): State<AppState>,
    Operator(by): Operator,
    Path(id): Path<String>,
) -> Response {
    let back = session_page(&id);
    match app.close_and_wait(&by, &id).await {
        Ok(()) => back_to(&back),
        Err(e) => not_done(e, &back),
    }
}

#[derive(Deserialize)]
pub struct AnswerForm {
    option_id: String,
}

pub async fn answer(
    State(app): State<AppState>,
    Operator(by): Operator,
    Path((id, request)): Path<(String, String)>,
    Form(form): Form<AnswerForm>,
) -> Response {
    let back = session_page(&id);
    if let Err(e) = crate::names::check_request_id_in_path(&request) {
        return not_done(e, &back);
    }
    match app
        .write(|ctx| permissions::answer(ctx, &id, &request, &form.option_id, &by))
        .await
    {
        Ok(_) => back_to(&back),
        Err(e) => not_done(e, &back),
    }
}

#[derive(Deserialize)]
pub struct AgentForm {
    name: String,
    inactivity: String,
    idle_policy: String,
    paused_lifetime: String,
    timeout: String,
    /// Empty (a form from before the field): the setting is kept.
    #[serde(default)]
    hot_for: String,
    /// Empty (a form from before the field): the setting is kept.
    #[serde(default)]
    warm: String,
    #[serde(default)]
    requires_labels: String,
    #[serde(default)]
    disabled: Option<String>,
    /// Absent (a form from before the field): kept; blank: no budget.
    #[serde(default)]
    session_budget: Option<String>,
    #[serde(default)]
    daily_budget: Option<String>,
}

/// A budget field: absent keeps the setting, blank removes it, else an amount.
fn budget_field(field: &str, text: Option<&str>) -> Result<Option<Budget>, Error> {
    match text.map(str::trim) {
        None => Ok(None),
        Some("") => Ok(Some(Budget::Off(NoBudget::None))),
        Some(text) => crate::lifecycle::usage::parse_amount(text)
            .map(|amount| Some(Budget::Amount(amount)))
            .map_err(|e| Error::invalid("invalid_field", field, format!("{field}: {e}"))),
    }
}

impl AgentForm {
    fn patch(&self) -> Result<AgentPatch, Error> {
        let duration = |field: &str, text: &str| {
            crate::duration::parse(text)
                .map_err(|e| Error::invalid("invalid_field", field, format!("{field}: {e}")))
        };
        Ok(AgentPatch {
            inactivity_ms: Some(duration("inactivity", &self.inactivity)?),
            idle_policy: Some(IdlePolicy::parse(&self.idle_policy).ok_or_else(|| {
                Error::invalid("invalid_field", "idle_policy", "idle policy: pause or end")
            })?),
            paused_lifetime_ms: Some(duration("paused lifetime", &self.paused_lifetime)?),
            timeout_ms: Some(duration("timeout", &self.timeout)?),
            disabled: Some(self.disabled.as_deref() == Some("true")),
            requires_labels: Some(comma_list(&self.requires_labels)),
            hot_for_ms: match self.hot_for.trim() {
                "" => None,
                text => Some(duration("kept hot for", text)?),
            },
            warm_agents: match self.warm.trim() {
                "" => None,
                text => Some(text.parse().map_err(|_| {
                    Error::invalid(
                        "invalid_field",
                        "warm_agents",
                        format!(
                            "warm agents: a number of agents, 0 to {}, not {text:?}",
                            agents::MAX_WARM_AGENTS
                        ),
                    )
                })?),
            },
            session_budget: budget_field("session budget", self.session_budget.as_deref())?,
            daily_budget: budget_field("daily budget", self.daily_budget.as_deref())?,
            // Set from the CLI and the API; the form keeps them.
            ..AgentPatch::default()
        })
    }
}

pub async fn set_agent(
    State(app): State<AppState>,
    Admin(by): Admin,
    Form(form): Form<AgentForm>,
) -> Response {
    let patch = match form.patch() {
        Ok(p) => p,
        Err(e) => return not_done(e, "/agents"),
    };
    match app
        .write(|ctx| agents::set(ctx, &by, &form.name, &patch))
        .await
    {
        Ok(_) => back_to("/agents"),
        Err(e) => not_done(e, "/agents"),
    }
}

#[derive(Deserialize)]
pub struct RunnerForm {
    name: String,
    #[serde(default)]
    agents: String,
    #[serde(default)]
    labels: String,
}

/// A blank field is "any"; a list restricts.
fn scope_part(text: &str) -> Option<Vec<String>> {
    let list = comma_list(text);
    (!list.is_empty()).then_some(list)
}

/// The token of runner `name`, shown once: the page is not kept (no-store) and says so.
fn token_page(name: &str, token: &str) -> Response {
    let body = format!(
        "<h1>Runner {0}</h1><p>Its token, shown only now — copy it to the machine that runs <code>blaise-runner start</code>:</p><code class=\"token\" id=\"token\">{1}</code><pre>BLAISE_RUNNER_TOKEN={1} blaise-runner start --config blaise.yml --url …</pre><p><a href=\"/runners\">Back to the runners</a></p>",
        esc(name),
        esc(token)
    );
    (
        StatusCode::OK,
        [(axum::http::header::CACHE_CONTROL, "no-store")],
        Html(page("New runner token", &body)),
    )
        .into_response()
}

pub async fn add_runner(
    State(app): State<AppState>,
    Admin(by): Admin,
    Form(form): Form<RunnerForm>,
) -> Response {
    let scope = Scope {
        agents: scope_part(&form.agents),
        labels: scope_part(&form.labels),
    };
    match app
        .write(|ctx| runners::add(ctx, &by, &form.name, scope.clone()))
        .await
    {
        Ok((runner, token)) => token_page(&runner.name, &token),
        Err(e) => not_done(e, "/runners"),
    }
}

#[derive(Deserialize)]
pub struct ScopeForm {
    #[serde(default)]
    agents: String,
    #[serde(default)]
    labels: String,
    #[serde(default)]
    no_labels: Option<String>,
}

pub async fn runner_scope(
    State(app): State<AppState>,
    Admin(by): Admin,
    Path(name): Path<String>,
    Form(form): Form<ScopeForm>,
) -> Response {
    let change = ScopeChange {
        agents: Some(scope_part(&form.agents)),
        labels: Some(if form.no_labels.as_deref() == Some("true") {
            Some(Vec::new())
        } else {
            scope_part(&form.labels)
        }),
    };
    match app
        .write(|ctx| runners::set_scope(ctx, &by, &name, change.clone()))
        .await
    {
        Ok(_) => back_to("/runners"),
        Err(e) => not_done(e, "/runners"),
    }
}

pub async fn runner_token(
    State(app): State<AppState>,
    Admin(by): Admin,
    Path(name): Path<String>,
) -> Response {
    match app
        .write(|ctx| runners::rotate_token(ctx, &by, &name))
        .await
    {
        Ok((runner, token)) => token_page(&runner.name, &token),
        Err(e) => not_done(e, "/runners"),
    }
}

pub async fn revoke_runner(
    State(app): State<AppState>,
    Admin(by): Admin,
    Path(name): Path<String>,
) -> Response {
    match app.write(|ctx| runners::revoke(ctx, &by, &name)).await {
        Ok(_) => back_to("/runners"),
        Err(e) => not_done(e, "/runners"),
    }
}
