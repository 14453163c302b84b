//! Logging in to the dashboard with a token pasted in the login page's form (never one in a
//! URL), and out.

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use serde::Deserialize;

use super::html;
use crate::http::{AppState, DASHBOARD_COOKIE};
use crate::model::{Actor, Channel, LoginMethod};
use crate::tls::OverTls;

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
pub fn plain_next(next: Option<&str>) -> Option<&str> {
    next.filter(|n| {
        is_local_path(n)
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/_-.~?=&%:,+".contains(&b))
    })
}

/// The login page as this server shows it: with a button for its identity provider, if it has
/// one.
pub fn login_page(state: &AppState, problem: Option<&str>, next: Option<&str>) -> String {
    let provider = state.oidc.as_ref().map(|o| o.config.label());
    html::login_page(problem, next, provider.as_deref())
}

/// The login page. A token in its URL logs nobody in.
pub async fn page(State(state): State<AppState>, Query(q): Query<LoginQuery>) -> Response {
    let next = plain_next(q.next.as_deref());
    let problem = q.token.is_some().then_some(
        "A token in a link stays in browser and shell history: nobody was logged in. Paste the token here instead (and if the link was shared, give Blaise a new admin token).",
    );
    Html(login_page(&state, problem, next)).into_response()
}

/// The login page's form: a token (the admin token, or a person's own) begins a login as who it
/// is, kept by the browser as a cookie of its random id.
pub async fn form(
    State(state): State<AppState>,
    tls: Option<Extension<OverTls>>,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Response {
    let next = form.next.as_deref().filter(|n| is_local_path(n));
    let token = form.token.trim().to_owned();
    let who = match state
        .read(move |ctx| crate::lifecycle::users::of_token(ctx, &token))
        .await
    {
        Ok(Some((who, role))) => Actor::new(who, role, Channel::Dashboard),
        Ok(None) => {
            return (
                StatusCode::UNAUTHORIZED,
                Html(login_page(
                    &state,
                    Some("That is neither the admin token nor a person's token."),
                    plain_next(next),
                )),
            )
                .into_response();
        }
        Err(e) => return e.into_response(),
    };
    let (id, login) = match state
        .write(|ctx| crate::lifecycle::logins::begin(ctx, &who, LoginMethod::Token, &[]))
        .await
    {
        Ok(begun) => begun,
        Err(e) => return e.into_response(),
    };
    (
        [(header::SET_COOKIE, cookie(&id, &login, tls, &headers))],
        Redirect::to(next.unwrap_or("/")),
    )
        .into_response()
}

/// The dashboard's cookie for a login that has just begun (`id`: its random id).
pub fn cookie(
    id: &str,
    login: &crate::model::Login,
    tls: Option<Extension<OverTls>>,
    headers: &HeaderMap,
) -> String {
    format!(
        "{DASHBOARD_COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}{}",
        (login.expires_at - login.created_at) / 1000,
        secure(tls, headers)
    )
}

/// Whether the browser reached us over HTTPS (`serve --tls-cert`, or a proxy that says so): the
/// cookie is then `Secure`, never sent over plain HTTP.
pub fn secure(tls: Option<Extension<OverTls>>, headers: &HeaderMap) -> &'static str {
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
pub async fn logout(
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
