//! What a request carries that the routes need checked first: a JSON body, a runner's token,
//! who a person is and whether their role allows the route (a token in a header, or the
//! dashboard's cookie from its own pages).

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::auth::{bearer, hash_token};
use crate::error::{Error, Result};
use crate::model::{Actor, Channel, Login, LoginMethod, Role, Runner};
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

/// Through what a token came: the CLI says it is (its user agent); any other client is the API.
fn token_channel(parts: &Parts) -> Channel {
    match parts.headers.get(axum::http::header::USER_AGENT) {
        Some(agent)
            if agent
                .as_bytes()
                .starts_with(crate::client::USER_AGENT_NAME.as_bytes()) =>
        {
            Channel::Cli
        }
        _ => Channel::Api,
    }
}

/// Who a request is: a token in its `Authorization` header (the admin token, or a person's own),
/// or a person's dashboard login (its cookie) on one of the dashboard's own pages; and that
/// login, if it came that way. A login already read for this request (the dashboard's CSRF check
/// puts it in the request's extensions) is not read again.
pub async fn authorize(parts: &Parts, state: &AppState) -> Result<(Actor, Option<Login>)> {
    if let Some(token) = header_token(parts) {
        let who = state
            .read_one(move |ctx| crate::lifecycle::users::of_token(ctx, &token))
            .await?;
        return match who {
            Some((who, role)) => Ok((Actor::new(who, role, token_channel(parts)), None)),
            None => Err(Error::Unauthorized(
                "wrong admin token, and no person's token either (`blaise user add` gives a person one)"
                    .into(),
            )),
        };
    }
    let login = match parts.extensions.get::<Login>() {
        Some(login) => Some(login.clone()),
        None => cookie_login(state, &parts.headers).await?,
    };
    let Some(login) = login else {
        return Err(Error::Unauthorized(
            "the admin token or a person's own token is required (Authorization: Bearer $BLAISE_TOKEN)"
                .into(),
        ));
    };
    if !same_origin(parts) {
        return Err(Error::Forbidden(
            "a change made with the dashboard's cookie must come from the dashboard's own pages"
                .into(),
        ));
    }
    let role = match login.method {
        LoginMethod::Token => login.role,
        // As the server's configuration says now: someone it no longer lets in is out at once.
        LoginMethod::Oidc => state
            .oidc
            .as_ref()
            .and_then(|o| o.config.role_of(&login.who, &login.groups))
            .ok_or_else(|| {
                Error::Unauthorized(format!(
                    "{} may no longer sign in: the identity provider's configuration changed",
                    login.who
                ))
            })?,
    };
    let actor = Actor::new(login.who.clone(), role, Channel::Dashboard);
    Ok((actor, Some(login)))
}

/// Refuses `actor` what needs `needed` and their role does not allow: a 403 that names both.
pub fn require(actor: &Actor, needed: Role) -> Result<()> {
    if actor.role.allows(needed) {
        return Ok(());
    }
    Err(Error::Forbidden(format!(
        "this needs the {needed} role; {} is {}",
        actor.who,
        actor.role.with_article()
    )))
}

/// An API extractor that lets in whoever has at least a role: the request's [`Actor`].
macro_rules! acting_as {
    ($(#[$doc:meta])* $name:ident, $role:expr) => {
        $(#[$doc])*
        pub struct $name(pub Actor);

        impl FromRequestParts<AppState> for $name {
            type Rejection = Error;

            async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
                let (actor, _) = authorize(parts, state).await?;
                require(&actor, $role)?;
                Ok($name(actor))
            }
        }
    };
}

acting_as!(
    /// Anyone let in: reads.
    AsViewer,
    Role::Viewer
);
acting_as!(
    /// An operator or an admin: starts, sends, answers, cancels, closes.
    AsOperator,
    Role::Operator
);
acting_as!(
    /// An admin: agents, runners, people, budgets, teardowns, the audit trail.
    AsAdmin,
    Role::Admin
);
