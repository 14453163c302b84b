//! The dashboard: server-rendered HTML at `/` (no JS build step; one small inline script shows
//! times in the viewer's time zone). Log in once with `/login?token=$BLAISE_TOKEN`: the token is
//! kept in an HttpOnly, SameSite=Strict cookie.

mod actions;
mod html;
mod pages;

use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde::Deserialize;

use crate::server::{AdminAuth, AppState, DASHBOARD_COOKIE, is_admin};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(pages::sessions))
        .route("/sessions/{id}", get(pages::session))
        .route("/environments/{id}/retry", post(actions::retry))
        .route("/sessions/{id}/messages", post(actions::send))
        .route("/sessions/{id}/close", post(actions::close))
        .route(
            "/sessions/{id}/permissions/{request}/answer",
            post(actions::answer),
        )
        .route("/login", get(login).post(login_form))
}

/// A dashboard visitor with the admin token; others get the login page.
pub struct Viewer;

impl FromRequestParts<AppState> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        match AdminAuth::from_request_parts(parts, state).await {
            Ok(_) => Ok(Viewer),
            Err(e @ crate::error::Error::Forbidden(_)) => Err(e.into_response()),
            Err(_) => Err((StatusCode::UNAUTHORIZED, Html(html::login_page(None))).into_response()),
        }
    }
}

#[derive(Deserialize)]
pub struct LoginQuery {
    token: String,
    /// Where to go after logging in (a path on this server).
    next: Option<String>,
}

/// The login page's form (the token stays out of the URL).
async fn login_form(state: State<AppState>, Form(q): Form<LoginQuery>) -> Response {
    login(state, Query(q)).await
}

async fn login(State(state): State<AppState>, Query(q): Query<LoginQuery>) -> Response {
    match is_admin(&state, &q.token).await {
        Ok(true) => {
            let cookie = format!(
                "{DASHBOARD_COOKIE}={}; HttpOnly; SameSite=Strict; Path=/",
                q.token
            );
            let next = q
                .next
                .as_deref()
                .filter(|n| is_local_path(n))
                .unwrap_or("/");
            ([(header::SET_COOKIE, cookie)], Redirect::to(next)).into_response()
        }
        Ok(false) => (
            StatusCode::UNAUTHORIZED,
            Html(html::login_page(Some("That is not the admin token."))),
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

/// Whether `next` is a path on this server and nothing a browser could read as another origin:
/// one leading `/` not followed by `/` or `\` (`//host` and `/\host` are other hosts), no
/// backslash anywhere (browsers read it as `/`), and only visible ASCII (browsers drop tabs and
/// newlines, so `/\t/host` would become `//host`). A leading `/` also rules out a scheme.
pub fn is_local_path(next: &str) -> bool {
    let mut bytes = next.bytes();
    bytes.next() == Some(b'/')
        && !matches!(bytes.next(), Some(b'/' | b'\\'))
        && next.bytes().all(|b| b.is_ascii_graphic() && b != b'\\')
}

#[cfg(test)]
mod tests {
    use super::is_local_path;

    #[test]
    fn next_stays_on_this_server() {
        for ok in [
            "/",
            "/sessions/ses_0123456789abcdef",
            "/?a=b&c=%2F%2F",
            "/a//b",
        ] {
            assert!(is_local_path(ok), "{ok}");
        }
        for bad in [
            "",
            "sessions",
            "//evil.example/",
            "/\\evil.example/",
            "/\\/evil.example/",
            "\\\\evil.example",
            "/a\\b",
            "/\t/evil.example",
            "/\n/evil.example",
            "/ /evil.example",
            "https://evil.example/",
            "javascript:alert(1)",
            "/caf\u{e9}",
            "/a\u{7f}",
        ] {
            assert!(!is_local_path(bad), "{bad:?}");
        }
    }
}
