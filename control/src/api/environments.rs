//! `blaise environment retry` and the list of environments by state.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::lifecycle::environment;
use crate::model::*;
use crate::server::{AdminAuth, AppState};
use crate::views::{EnvironmentView, environment_view};

pub async fn retry(
    State(state): State<AppState>,
    _: AdminAuth,
    Path(id): Path<String>,
) -> Result<Json<EnvironmentView>> {
    Ok(Json(
        state
            .write(|ctx| {
                let e = environment::retry(ctx, &id)?;
                environment_view(ctx, &e)
            })
            .await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    pub state: String,
}

pub async fn list(
    State(state): State<AppState>,
    _: AdminAuth,
    Query(q): Query<ListQuery>,
) -> Result<Json<serde_json::Value>> {
    let wanted = EnvironmentState::parse(&q.state)
        .ok_or_else(|| Error::BadRequest(format!("unknown environment state {:?}", q.state)))?;
    let views = state
        .read(|ctx| {
            let mut out = Vec::new();
            for e in ctx.tx.environments_in(wanted)? {
                let mut v = serde_json::to_value(environment_view(ctx, &e)?).unwrap_or_default();
                v["session_id"] = e.session_id.clone().into();
                out.push(v);
            }
            Ok(out)
        })
        .await?;
    Ok(Json(serde_json::json!({ "environments": views })))
}
