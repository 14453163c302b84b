//! The dashboard: server-rendered HTML at `/`, a little script that follows the pages live and
//! shows times in the viewer's zone (no build step). People log in with the admin token in the
//! login page's form (never in a URL): the cookie then holds a login's random id
//! (`lifecycle::logins`: stored hashed, ending at logout, after 12 hours, or when the admin token
//! changes), HttpOnly, SameSite=Strict, `Secure` behind HTTPS; every form a login posts carries
//! its CSRF token. Every page says what it may load (Content-Security-Policy): its own script
//! and stylesheet, nothing from another host.

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

use crate::http::extract::Authorized;
use crate::http::{AppState, DASHBOARD_COOKIE, is_admin};

pub fn routes(state: AppState) -> Router<AppState> {
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
        .layer(axum::middleware::from_fn_with_state(state, check_csrf))
        .layer(axum::middleware::from_fn(guard_pages))
}

/// The most a dashboard form may send (a message is the largest): what axum's forms take.
const MAX_FORM_BYTES: usize = 2 * 1024 * 1024;

/// A form posted with the dashboard's cookie must carry its login's CSRF token (the pages put it
/// in every form): a page of another site, or an old page of an ended login, cannot change
/// anything. Logging in and out need none; a request with the admin token in its
/// `Authorization` header is no browser's and needs none either.
async fn check_csrf(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let exempt = request.method() != axum::http::Method::POST
        || matches!(request.uri().path(), "/login" | "/logout")
        || request.headers().contains_key(header::AUTHORIZATION);
    if exempt {
        return next.run(request).await;
    }
    let login = match crate::http::extract::cookie_login(&state, request.headers()).await {
        Ok(Some(login)) => login,
        // No login: the route's own check answers (the login page).
        Ok(None) => return next.run(request).await,
        Err(e) => return e.into_response(),
    };
    let (mut parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_FORM_BYTES).await else {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            Html(html::error_page(
                "Not done",
                "The form sent more than 2 MiB.",
                "/",
            )),
        )
            .into_response();
    };
    let sent = form_urlencoded::parse(&bytes)
        .find(|(k, _)| k == html::CSRF_FIELD)
        .map(|(_, v)| v.into_owned());
    if sent.as_deref() != Some(login.csrf.as_str()) {
        return (
            StatusCode::FORBIDDEN,
            Html(html::error_page(
                "Not done",
                "This form came from a page of another login or another site: nothing was changed. Reload the page and send it again.",
                "/",
            )),
        )
            .into_response();
    }
    // The route's own check reads the login from here, not from the store again.
    parts.extensions.insert(login);
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes)))
        .await
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

/// A dashboard visitor: a person logged in (their login's CSRF token goes into the page's
/// forms), or a client with the admin token in its `Authorization` header. Others get the
/// login page, which brings them back here.
pub struct Viewer {
    pub csrf: Option<String>,
}

impl FromRequestParts<AppState> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        match crate::http::extract::authorize(parts, state).await {
            Ok(Authorized::Token) => Ok(Viewer { csrf: None }),
            Ok(Authorized::Login(login)) => Ok(Viewer {
                csrf: Some(login.csrf),
            }),
            Err(e @ crate::error::Error::Forbidden(_)) => Err(e.into_response()),
            Err(_) => {
                let here = parts.uri.path_and_query().map_or("/", |p| p.as_str());
                let next =
                    plain_next(Some(here)).filter(|_| parts.method == axum::http::Method::GET);
                Err((StatusCode::UNAUTHORIZED, Html(html::login_page(None, next))).into_response())
            }
        }
    }
}

#[derive(Deserialize)]
pub struct LoginQuery {
    /// A token in a link is refused: it would stay in shell and browser history.
    token: Option<String>,
    /// Where to go after logging in (a path on this server).
    next: Option<String>,
}

#[derive(Deserialize)]
pub struct LoginForm {
    token: String,
    next: Option<String>,
}

/// Where a login page's form goes back to: a path on this server made only of the characters
/// a path and its query need (it is written into the page).
fn plain_next(next: Option<&str>) -> Option<&str> {
    next.filter(|n| {
        is_local_path(n)
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/_-.~?=&%:,+".contains(&b))
    })
}

/// The login page. A token in its URL logs nobody in.
async fn login(Query(q): Query<LoginQuery>) -> Response {
    let next = plain_next(q.next.as_deref());
    let problem = q.token.is_some().then_some(
        "A token in a link stays in browser and shell history: nobody was logged in. Paste the token here instead (and if the link was shared, give Blaise a new admin token).",
    );
    Html(html::login_page(problem, next)).into_response()
}

/// The login page's form: the admin token begins a login, kept by the browser as a cookie of
/// its random id.
async fn login_form(
    State(state): State<AppState>,
    tls: Option<Extension<OverTls>>,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Response {
    let next = form.next.as_deref().filter(|n| is_local_path(n));
    match is_admin(&state, &form.token).await {
        Ok(true) => {}
        Ok(false) => {
            return (
                StatusCode::UNAUTHORIZED,
                Html(html::login_page(
                    Some("That is not the admin token."),
                    plain_next(next),
                )),
            )
                .into_response();
        }
        Err(e) => return e.into_response(),
    }
    let (id, login) = match state
        .write(|ctx| crate::lifecycle::logins::begin(ctx, "admin"))
        .await
    {
        Ok(begun) => begun,
        Err(e) => return e.into_response(),
    };
    let cookie = format!(
        "{DASHBOARD_COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}{}",
        (login.expires_at - login.created_at) / 1000,
        secure(tls, &headers)
    );
    (
        [(header::SET_COOKIE, cookie)],
        Redirect::to(next.unwrap_or("/")),
    )
        .into_response()
}

/// Whether the browser reached us over HTTPS (`serve --tls-cert`, or a proxy that says so): the
/// cookie is then `Secure`, never sent over plain HTTP.
fn secure(tls: Option<Extension<OverTls>>, headers: &HeaderMap) -> &'static str {
    let https = tls.is_some()
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("https"))
        || headers
            .get(header::FORWARDED)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().contains("proto=https"));
    if https { "; Secure" } else { "" }
}

/// Ends the login; the next page asks for the token again.
async fn logout(
    State(state): State<AppState>,
    tls: Option<Extension<OverTls>>,
    headers: HeaderMap,
) -> Response {
    if let Some(id) = crate::http::extract::cookie_login_id(&headers)
        && let Err(e) = state
            .write(|ctx| crate::lifecycle::logins::end(ctx, &id))
            .await
    {
        return e.into_response();
    }
    let cookie = format!(
        "{DASHBOARD_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0{}",
        secure(tls, &headers)
    );
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
