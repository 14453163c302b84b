//! What the dashboard can do (form POSTs): retry the teardown of an orphaned environment, send a
//! message, answer a permission request, close a session. Errors come back as a page that says
//! what went wrong.

use axum::Form;
use axum::extract::{Path, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::Viewer;
use super::html::{esc, page};
use crate::error::Error;
use crate::lifecycle::{environment, messages, permissions};
use crate::names::{SESSION, is_id};
use crate::server::AppState;

/// The error as a page, with a way back.
fn error_page(e: Error, back: &str) -> Response {
    let body = format!(
        "<h1>Not done</h1><p class=\"error\" id=\"problem\">{}</p><p><a href=\"{}\">Back</a></p>",
        esc(&e.to_string()),
        esc(back)
    );
    (e.status(), Html(page("Not done", &body))).into_response()
}

/// The session's page, or the list when `id` is no session id (it came from the URL).
fn session_page(id: &str) -> String {
    if is_id(&SESSION, id) {
        format!("/sessions/{id}")
    } else {
        "/".into()
    }
}

pub async fn retry(State(app): State<AppState>, _: Viewer, Path(id): Path<String>) -> Response {
    match app.write(|ctx| environment::retry(ctx, &id)).await {
        Ok(e) => Redirect::to(&format!("/sessions/{}", e.session_id)).into_response(),
        Err(e) => error_page(e, "/"),
    }
}

#[derive(Deserialize)]
pub struct MessageForm {
    text: String,
}

pub async fn send(
    State(app): State<AppState>,
    _: Viewer,
    Path(id): Path<String>,
    Form(form): Form<MessageForm>,
) -> Response {
    let back = session_page(&id);
    match app.write(|ctx| messages::send(ctx, &id, &form.text)).await {
        Ok(_) => Redirect::to(&back).into_response(),
        Err(e) => error_page(e, &back),
    }
}

pub async fn close(State(app): State<AppState>, _: Viewer, Path(id): Path<String>) -> Response {
    let back = session_page(&id);
    match crate::api::sessions::close_and_wait(&app, &id).await {
        Ok(()) => Redirect::to(&back).into_response(),
        Err(e) => error_page(e, &back),
    }
}

#[derive(Deserialize)]
pub struct AnswerForm {
    option_id: String,
}

pub async fn answer(
    State(app): State<AppState>,
    _: Viewer,
    Path((id, request)): Path<(String, String)>,
    Form(form): Form<AnswerForm>,
) -> Response {
    let back = session_page(&id);
    if let Err(e) = crate::names::check_request_id_in_path(&request) {
        return error_page(e, &back);
    }
    match app
        .write(|ctx| permissions::answer(ctx, &id, &request, &form.option_id))
        .await
    {
        Ok(_) => Redirect::to(&back).into_response(),
        Err(e) => error_page(e, &back),
    }
}
