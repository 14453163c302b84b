//! Signing in with the identity provider (`crate::oidc`): `/login/oidc` sends the browser there
//! with a fresh state (kept by the browser in a short cookie, and here by its hash, with the
//! PKCE verifier and the nonce); `/login/oidc/callback` takes the provider's code once, checks
//! the state is this browser's, and begins a login as the person the ID token names, with the
//! role the configuration gives them.

use axum::Extension;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{AppendHeaders, Html, IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::html::esc;
use super::login::{cookie, is_local_path, login_page, secure};
use crate::auth::hash_token;
use crate::http::AppState;
use crate::model::{Actor, Channel, LoginMethod, now};
use crate::oidc::OidcError;
use crate::tls::OverTls;

/// The browser's half of a sign-in under way: the state it was sent to the provider with.
const SIGN_IN_COOKIE: &str = "blaise_sign_in";

#[derive(Deserialize)]
pub struct BeginQuery {
    next: Option<String>,
}

/// A login page that says what went wrong, with `status`.
fn refused(state: &AppState, status: StatusCode, problem: &str) -> Response {
    (status, Html(login_page(state, Some(problem), None))).into_response()
}

pub async fn begin(
    State(state): State<AppState>,
    tls: Option<Extension<OverTls>>,
    headers: HeaderMap,
    Query(q): Query<BeginQuery>,
) -> Response {
    let Some(oidc) = state.oidc.clone() else {
        return refused(
            &state,
            StatusCode::NOT_FOUND,
            "This server signs nobody in with an identity provider: log in with a token.",
        );
    };
    let next = q.next.as_deref().filter(|n| is_local_path(n));
    let (url, sign_in_state, sign_in) = match oidc.begin(next, now()).await {
        Ok(begun) => begun,
        Err(e) => return refused(&state, StatusCode::BAD_GATEWAY, &e.to_string()),
    };
    if let Err(e) = state
        .write(|ctx| Ok(ctx.tx.put_sign_in(&sign_in, ctx.now)?))
        .await
    {
        return e.into_response();
    }
    // Lax: the provider's redirect back is a top-level navigation from its site.
    let cookie = format!(
        "{SIGN_IN_COOKIE}={sign_in_state}; HttpOnly; SameSite=Lax; Path=/login/oidc; Max-Age={}{}",
        crate::oidc::SIGN_IN_MS / 1000,
        secure(tls, &headers)
    );
    ([(header::SET_COOKIE, cookie)], Redirect::to(&url)).into_response()
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// The sign-in cookie's value in `headers`.
fn sign_in_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            c.trim()
                .strip_prefix(SIGN_IN_COOKIE)
                .and_then(|rest| rest.strip_prefix('='))
                .map(str::to_owned)
        })
}

pub async fn callback(
    State(state): State<AppState>,
    tls: Option<Extension<OverTls>>,
    headers: HeaderMap,
    Query(q): Query<CallbackQuery>,
) -> Response {
    let Some(oidc) = state.oidc.clone() else {
        return refused(&state, StatusCode::NOT_FOUND, "No identity provider here.");
    };
    if let Some(error) = &q.error {
        // Anyone can make this link: what it says is shown quoted and cut short.
        let why = crate::names::shown(q.error_description.as_deref().unwrap_or(error));
        return refused(
            &state,
            StatusCode::UNAUTHORIZED,
            &format!("The identity provider did not sign you in: {why}"),
        );
    }
    let (Some(code), Some(sign_in_state)) = (q.code, q.state) else {
        return refused(
            &state,
            StatusCode::BAD_REQUEST,
            "The identity provider sent back no code: sign in again.",
        );
    };
    // Only the browser that began this sign-in may finish it.
    if sign_in_cookie(&headers).as_deref() != Some(sign_in_state.as_str()) {
        return refused(
            &state,
            StatusCode::BAD_REQUEST,
            "This sign-in was begun in another browser (or its ten minutes passed): sign in again here.",
        );
    }
    let hash = hash_token(&sign_in_state);
    let sign_in = match state.write(|ctx| Ok(ctx.tx.take_sign_in(&hash)?)).await {
        Ok(Some(s)) if s.expires_at > now() => s,
        Ok(_) => {
            return refused(
                &state,
                StatusCode::BAD_REQUEST,
                "This sign-in is over (used already, or its ten minutes passed): sign in again.",
            );
        }
        Err(e) => return e.into_response(),
    };
    let person = match oidc.finish(&code, &sign_in).await {
        Ok(person) => person,
        Err(e @ OidcError::Provider(_)) => {
            return refused(&state, StatusCode::BAD_GATEWAY, &e.to_string());
        }
        Err(e) => return refused(&state, StatusCode::UNAUTHORIZED, &e.to_string()),
    };
    let Some(role) = oidc.config.role_of(&person.email, &person.groups) else {
        let e = OidcError::NotAllowed(person.email.clone());
        return refused(&state, StatusCode::FORBIDDEN, &e.to_string());
    };
    let who = Actor::new(person.email.clone(), role, Channel::Dashboard);
    let groups = person.groups.clone();
    let begun = state
        .write(|ctx| crate::lifecycle::logins::begin(ctx, &who, LoginMethod::Oidc, &groups))
        .await;
    let (id, login) = match begun {
        Ok(begun) => begun,
        Err(e) => return e.into_response(),
    };
    let next = sign_in.next.as_deref().unwrap_or("/");
    let done = format!(
        "{SIGN_IN_COOKIE}=; HttpOnly; SameSite=Lax; Path=/login/oidc; Max-Age=0{}",
        secure(tls, &headers)
    );
    // A page, not a redirect: the browser came here from the provider's site, and it sends a
    // SameSite=Strict cookie only on a navigation this site begins.
    let body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url={0}\"><title>Signed in · Blaise</title></head><body><p>Signed in as {1}. <a href=\"{0}\">Go on</a>.</p></body></html>",
        esc(next),
        esc(&person.email)
    );
    (
        AppendHeaders([
            (header::SET_COOKIE, cookie(&id, &login, tls, &headers)),
            (header::SET_COOKIE, done),
        ]),
        Html(body),
    )
        .into_response()
}
