//! The dashboard: server-rendered HTML at `/`, a little script that follows the pages live and
//! shows times in the viewer's zone (no build step). People log in with the admin token in the
//! login page's form (never in a URL): the cookie then holds a login's random id
//! (`lifecycle::logins`: stored hashed, ending at logout, after 12 hours, or when the admin token
//! changes), HttpOnly, SameSite=Strict, `Secure` behind HTTPS; every form a login posts carries
//! its CSRF token. Every page says what it may load (Content-Security-Policy): its own script
//! and stylesheet, nothing from another host.

mod actions;
mod agents;
mod audit;
mod environments;
mod html;
mod live;
mod login;
mod oidc;
mod roles;
mod runners;
mod session;
mod sessions;
mod transcript;

use axum::Router;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};

use crate::error::Error;
use crate::http::AppState;
use crate::model::{Actor, Role};

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
        .route("/audit", get(audit::audit))
        .route("/login", get(login::page).post(login::form))
        .route("/logout", post(login::logout))
        .route("/login/oidc", get(oidc::begin))
        .route("/login/oidc/callback", get(oidc::callback))
        .route(html::SCRIPT_PATH, get(html::script))
        .route(html::STYLE_PATH, get(html::style))
        .layer(axum::middleware::from_fn_with_state(state, check_csrf))
        .layer(axum::middleware::from_fn(guard_pages))
}

/// The most a dashboard form may send (a message is the largest): what axum's forms take.
const MAX_FORM_BYTES: usize = 2 * 1024 * 1024;

/// A form posted with the dashboard's cookie must carry its login's CSRF token (the pages put it
/// in every form): a page of another site, or an old page of an ended login, cannot change
/// anything. Logging in and out carry none (there is no login yet, or it is ending), but must
/// come from this server's own pages: another site must not log a browser in as someone else
/// (what that browser then does would be recorded as theirs). A request with the admin token
/// in its `Authorization` header is no browser's and needs none either.
async fn check_csrf(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let post = request.method() == axum::http::Method::POST;
    if post && matches!(request.uri().path(), "/login" | "/logout") {
        let (parts, body) = request.into_parts();
        if !crate::http::extract::same_origin(&parts) {
            return (
                StatusCode::FORBIDDEN,
                Html(html::error_page(
                    "Not done",
                    "This form came from another site: nobody was logged in or out.",
                    "/login",
                )),
            )
                .into_response();
        }
        return next.run(Request::from_parts(parts, body)).await;
    }
    let exempt = !post || request.headers().contains_key(header::AUTHORIZATION);
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

/// A dashboard visitor, whatever their role: a person logged in (their login's CSRF token goes
/// into the page's forms), or a client with a token in its `Authorization` header. Others get
/// the login page, which brings them back here.
pub struct Viewer {
    pub actor: Actor,
    pub csrf: Option<String>,
}

impl Viewer {
    /// Whether this visitor's role allows `role`'s actions (the page shows their forms).
    pub fn may(&self, role: Role) -> bool {
        self.actor.role.allows(role)
    }
}

/// Who a dashboard request is, or the page that says why not: the login page (not logged in),
/// or a page that says what role the action needs.
async fn visitor(parts: &Parts, state: &AppState) -> Result<Viewer, Response> {
    match crate::http::extract::authorize(parts, state).await {
        Ok((actor, login)) => Ok(Viewer {
            actor,
            csrf: login.map(|l| l.csrf),
        }),
        Err(e @ Error::Forbidden(_)) => Err(e.into_response()),
        Err(_) => {
            let here = parts.uri.path_and_query().map_or("/", |p| p.as_str());
            let next =
                login::plain_next(Some(here)).filter(|_| parts.method == axum::http::Method::GET);
            Err((
                StatusCode::UNAUTHORIZED,
                Html(login::login_page(state, None, next)),
            )
                .into_response())
        }
    }
}

impl FromRequestParts<AppState> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        visitor(parts, state).await
    }
}

/// A dashboard extractor for an action that needs a role: the [`Actor`], or a page that says
/// which role it needs.
macro_rules! acting_as {
    ($(#[$doc:meta])* $name:ident, $role:expr) => {
        $(#[$doc])*
        pub struct $name(pub Actor);

        impl FromRequestParts<AppState> for $name {
            type Rejection = Response;

            async fn from_request_parts(
                parts: &mut Parts,
                state: &AppState,
            ) -> Result<Self, Response> {
                let viewer = visitor(parts, state).await?;
                match crate::http::extract::require(&viewer.actor, $role) {
                    Ok(()) => Ok($name(viewer.actor)),
                    Err(e) => Err((
                        StatusCode::FORBIDDEN,
                        Html(html::error_page("Not allowed", &e.to_string(), "/")),
                    )
                        .into_response()),
                }
            }
        }
    };
}

acting_as!(
    /// An operator or an admin: starts, sends, answers, cancels, closes.
    Operator,
    Role::Operator
);
acting_as!(
    /// An admin: agents, runners, people, budgets, teardowns.
    Admin,
    Role::Admin
);
