//! What a request carries that the routes need checked first: a JSON body, a runner's token,
//! the admin token (a header, or the dashboard's cookie from its own pages).

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::auth::{bearer, hash_token};
use crate::error::{Error, Result};
use crate::model::{Login, Runner};
use crate::state::AppState;

/// A JSON body; malformed or mistyped JSON is a 400 that says what is wrong.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(Body(v)),
            Err(e) => Err(Error::BadRequest(format!(
                "invalid JSON body: {}",
                e.body_text()
            ))),
        }
    }
}

/// A query string's parameters; an unknown or mistyped one is a 400 that names it.
pub struct Params<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Params<T> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(Params(v)),
            Err(e) => Err(Error::BadRequest(format!(
                "invalid query: {}",
                e.body_text()
            ))),
        }
    }
}

pub(crate) fn header_token(parts: &Parts) -> Option<String> {
    bearer(
        parts
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok()),
    )
    .map(str::to_string)
}

/// The runner a request comes from (its token is `Authorization: Bearer …`).
pub struct RunnerAuth(pub Runner);

impl FromRequestParts<AppState> for RunnerAuth {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        let token = header_token(parts).ok_or_else(|| {
            Error::Unauthorized("a runner token is required (Authorization: Bearer …)".into())
        })?;
        let hash = hash_token(&token);
        let runner = state
            .read_one(|ctx| Ok(ctx.tx.runner_by_token_hash(&hash)?))
            .await?;
        match runner {
            Some(r) if !r.revoked() => Ok(RunnerAuth(r)),
            Some(r) => Err(Error::Unauthorized(format!(
                "runner {} was revoked",
                r.name
            ))),
            None => Err(Error::Unauthorized("unknown runner token".into())),
        }
    }
}

/// The dashboard's cookie: the id of a login (`lifecycle::logins`), never a token.
pub const DASHBOARD_COOKIE: &str = "blaise_session";

/// The dashboard cookie's value in `headers`, if the request carries one.
pub fn cookie_login_id(headers: &axum::http::HeaderMap) -> Option<String> {
    let cookies = headers.get("cookie")?.to_str().ok()?;
    cookies.split(';').find_map(|c| {
        c.trim()
            .strip_prefix(DASHBOARD_COOKIE)
            .and_then(|rest| rest.strip_prefix('='))
            .filter(|id| !id.is_empty())
            .map(str::to_string)
    })
}

/// The login the request's dashboard cookie names, if it has not ended.
pub async fn cookie_login(
    state: &AppState,
    headers: &axum::http::HeaderMap,
) -> Result<Option<Login>> {
    let Some(id) = cookie_login_id(headers) else {
        return Ok(None);
    };
    state
        .read_one(move |ctx| crate::lifecycle::logins::of_cookie(ctx, &id))
        .await
}

pub async fn is_admin(state: &AppState, token: &str) -> Result<bool> {
    let hash = hash_token(token);
    Ok(state
        .read_one(|ctx| Ok(ctx.tx.admin_token_hash()?))
        .await?
        .is_some_and(|h| h == hash))
}

/// Whether a request that changes something comes from this server's own
/// pages. A browser sends the dashboard's cookie with any request a page makes
/// it send, and `SameSite` does not look at the port: a page on another port
/// of this host (a dev server an agent started) is the same *site*. Browsers
/// say where a request comes from (`Sec-Fetch-Site`, and `Origin` on every
/// cross-origin POST); a client that says neither is not a browser page.
pub(crate) fn same_origin(parts: &Parts) -> bool {
    if parts.method.is_safe() {
        return true;
    }
    if let Some(site) = parts.headers.get("sec-fetch-site") {
        return site == "same-origin";
    }
    let Some(origin) = parts.headers.get(axum::http::header::ORIGIN) else {
        return true;
    };
    let host = parts.headers.get(axum::http::header::HOST);
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, host)| host.as_bytes());
    origin_host.is_some() && origin_host == host.map(|h| h.as_bytes())
}

/// How a request is let in: the admin token in its `Authorization` header, or a person's
/// dashboard login (its cookie) on one of the dashboard's own pages.
pub enum Authorized {
    Token,
    Login(Login),
}

/// Lets the request in, or says why not. A login already read for this request (the dashboard's
/// CSRF check puts it in the request's extensions) is not read again.
pub async fn authorize(parts: &Parts, state: &AppState) -> Result<Authorized> {
    if let Some(token) = header_token(parts) {
        return if is_admin(state, &token).await? {
            Ok(Authorized::Token)
        } else {
            Err(Error::Unauthorized("wrong admin token".into()))
        };
    }
    let login = match parts.extensions.get::<Login>() {
        Some(login) => Some(login.clone()),
        None => cookie_login(state, &parts.headers).await?,
    };
    let Some(login) = login else {
        return Err(Error::Unauthorized(
            "the admin token is required (Authorization: Bearer $BLAISE_TOKEN)".into(),
        ));
    };
    if !same_origin(parts) {
        return Err(Error::Forbidden(
            "a change made with the dashboard's cookie must come from the dashboard's own pages"
                .into(),
        ));
    }
    Ok(Authorized::Login(login))
}

/// A request with the admin token (`Authorization: Bearer`), or from a person logged in to the
/// dashboard (its cookie) on one of its own pages.
pub struct AdminAuth;

impl FromRequestParts<AppState> for AdminAuth {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        authorize(parts, state).await.map(|_| AdminAuth)
    }
}
