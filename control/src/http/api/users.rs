//! `blaise user add` / `list` / `set` / `token` / `remove`: people, their roles and tokens.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::http::{AppState, AsAdmin, Body};
use crate::lifecycle::users;
use crate::model::{Millis, Role, User};

/// A person as the API shows them: never their token's hash; their token only when it was just
/// made.
#[derive(Serialize)]
pub struct UserView {
    pub name: String,
    pub role: Role,
    pub created_at: Millis,
    pub created_by: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

fn view(u: User, token: Option<String>) -> UserView {
    UserView {
        name: u.name,
        role: u.role,
        created_at: u.created_at,
        created_by: u.created_by,
        token,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddRequest {
    pub name: String,
    pub role: Role,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetRequest {
    pub role: Role,
}

/// `POST /v1/users`: adds a person; the answer carries their token, once.
pub async fn add(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Body(req): Body<AddRequest>,
) -> Result<Json<UserView>> {
    let (token, user) = state
        .write(|ctx| users::add(ctx, &by, &req.name, req.role))
        .await?;
    Ok(Json(view(user, Some(token))))
}

/// `GET /v1/users`: everyone, by name.
pub async fn list(State(state): State<AppState>, _: AsAdmin) -> Result<Json<serde_json::Value>> {
    let users: Vec<UserView> = state
        .read(|ctx| Ok(ctx.tx.users()?))
        .await?
        .into_iter()
        .map(|u| view(u, None))
        .collect();
    Ok(Json(serde_json::json!({ "users": users })))
}

/// `PUT /v1/users/{name}`: a new role (their dashboard logins end).
pub async fn set(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Path(name): Path<String>,
    Body(req): Body<SetRequest>,
) -> Result<Json<UserView>> {
    let user = state
        .write(|ctx| users::set_role(ctx, &by, &name, req.role))
        .await?;
    Ok(Json(view(user, None)))
}

/// `POST /v1/users/{name}/token`: a new token; the old one stops working.
pub async fn token(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Path(name): Path<String>,
) -> Result<Json<UserView>> {
    let (token, user) = state
        .write(|ctx| users::new_user_token(ctx, &by, &name))
        .await?;
    Ok(Json(view(user, Some(token))))
}

/// `DELETE /v1/users/{name}`: their token and logins end at once.
pub async fn remove(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Path(name): Path<String>,
) -> Result<Json<UserView>> {
    let user = state.write(|ctx| users::remove(ctx, &by, &name)).await?;
    Ok(Json(view(user, None)))
}
