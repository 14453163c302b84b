//! The dashboard: server-rendered HTML at `/`, a little script that follows the pages live and
//! shows times in the viewer's zone (no build step). Log in once with the admin token (a form,
//! or `/login?token=$BLAISE_TOKEN`): it is kept in an HttpOnly, SameSite=Strict cookie (also
//! `Secure` behind HTTPS). Every page says what it may load (Content-Security-Policy): its own
//! script and stylesheet, nothing from another host.

mod actions;
mod agents;
mod environments;
mod html;
mod live;
mod runners;
mod session;
mod sessions;
mod transcript;

use axum::extract::{FromRequestParts, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Form, Router};

use crate::tls::OverTls;
use serde::Deserialize;

use crate::http::{AdminAuth, AppState, DASHBOARD_COOKIE, is_admin};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(sessions::sessions))
        // The list is the front page; `/sessions` typed by hand finds it too.
        .route(
            "/sessions",
            get(|| async { axum::response::Redirect::to("/") }).post(actions::new_session),
        )
        .route("/sessions/{id}", get(session::session))
        .route("/sessions/{id}/messages", post(actions::send))
        .route("/sessions/{id}/cancel", post(actions::cancel))
        .route("/sessions/{id}/budget", post(actions::budget))
        .route("/sessions/{id}/close", post(actions::close))
        .route(
            "/sessions/{id}/permissions/{request}/answer",
            post(actions::answer),
        )
        .route("/environments", get(environments::environments))
        .route("/environments/{id}/retry", post(actions::retry))
        .route("/agents", get(agents::agents).post(actions::set_agent))
        .route("/runners", get(runners::runners).post(actions::add_runner))
        .route("/runners/{name}/scope", post(actions::runner_scope))
        .route("/runners/{name}/token", post(actions::runner_token))
        .route("/runners/{name}/revoke", post(actions::revoke_runner))
        .route("/login", get(login).post(login_form))
        .route("/logout", post(logout))
        .route(html::SCRIPT_PATH, get(html::script))
        .route(html::STYLE_PATH, get(html::style))
        .layer(axum::middleware::from_fn(guard_pages))
}

/// What every dashboard response carries: the page may load only its own script and
/// stylesheet (an agent's text that slipped through as markup still could not run or fetch),
/// is not sniffed as another type, sends no referrer, and is not kept by caches (a page can show
/// a token once).
async fn guard_pages(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, html::CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
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
async fn login_form(
    state: State<AppState>,
    tls: Option<Extension<OverTls>>,
    headers: HeaderMap,
    Form(q): Form<LoginQuery>,
) -> Response {
    login(state, tls, headers, Query(q)).await
}

/// Whether the browser reached us over HTTPS (`serve --tls-cert`, or a proxy that says so): the
/// cookie is then `Secure`, never sent over plain HTTP.
fn over_https(tls: Option<Extension<OverTls>>, headers: &HeaderMap) -> bool {
    tls.is_some()
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("https"))
        || headers
            .get(header::FORWARDED)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().contains("proto=https"))
}

async fn login(
    State(state): State<AppState>,
    tls: Option<Extension<OverTls>>,
    headers: HeaderMap,
    Query(q): Query<LoginQuery>,
) -> Response {
    match is_admin(&state, &q.token).await {
        Ok(true) => {
            let secure = if over_https(tls, &headers) {
                "; Secure"
            } else {
                ""
            };
            let cookie = format!(
                "{DASHBOARD_COOKIE}={}; HttpOnly; SameSite=Strict; Path=/{secure}",
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

/// Forgets the cookie; the next page asks for the token again.
async fn logout(tls: Option<Extension<OverTls>>, headers: HeaderMap) -> Response {
    let secure = if over_https(tls, &headers) {
        "; Secure"
    } else {
        ""
    };
    let cookie =
        format!("{DASHBOARD_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0{secure}");
    ([(header::SET_COOKIE, cookie)], Redirect::to("/")).into_response()
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
