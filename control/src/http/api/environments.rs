//! `blaise environment retry` and the list of environments by state.

use axum::Json;
use axum::extract::{Path, State};
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::http::{AppState, AsAdmin, AsViewer, Params};
use crate::lifecycle::environment;
use crate::model::*;
use crate::views::{EnvironmentView, environment_view};

pub async fn retry(
    State(state): State<AppState>,
    AsAdmin(by): AsAdmin,
    Path(id): Path<String>,
) -> Result<Json<EnvironmentView>> {
    Ok(Json(
        state
            .write(|ctx| {
                let e = environment::retry(ctx, &by, &id)?;
                environment_view(ctx, &e)
            })
            .await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// One state; without it, every state but `torn_down`.
    pub state: Option<String>,
}

pub async fn list(
    State(state): State<AppState>,
    _: AsViewer,
    Params(q): Params<ListQuery>,
) -> Result<Json<serde_json::Value>> {
    let wanted: Vec<EnvironmentState> = match &q.state {
        Some(s) => vec![EnvironmentState::parse(s).ok_or_else(|| {
            Error::BadRequest(format!(
                "unknown environment state {s:?}: it is one of {}",
                EnvironmentState::ALL
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?],
        None => EnvironmentState::ALL
            .iter()
            .copied()
            .filter(|s| *s != EnvironmentState::TornDown)
            .collect(),
    };
    let views = state
        .read(|ctx| {
            let mut out = Vec::new();
            let mut all = Vec::new();
            for s in &wanted {
                all.extend(ctx.tx.environments_in(*s)?);
            }
            for e in all {
                let mut v = serde_json::to_value(environment_view(ctx, &e)?).unwrap_or_default();
                v["session_id"] = e.session_id.clone().into();
                out.push(v);
            }
            Ok(out)
        })
        .await?;
    Ok(Json(serde_json::json!({ "environments": views })))
}
