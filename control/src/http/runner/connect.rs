//! `POST /v1/runner/connect` and `GET /v1/runner/offers`.

use axum::Json;
use axum::extract::{Query, State};
use blaise_protocol::{ConnectRequest, Connected, Offers, OffersQuery, PROTOCOL_VERSION};

use crate::error::Result;
use crate::http::{AppState, Body, RunnerAuth};
use crate::lifecycle::offers;
use crate::model::Millis;
use crate::names::check_token;

pub async fn connect(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Body(req): Body<ConnectRequest>,
) -> Result<Json<Connected>> {
    check_token("instance", &req.instance)?;
    let hello = offers::Hello {
        instance: &req.instance,
        agents: &req.agents,
        capacity: req.capacity,
        labels: &req.labels,
    };
    let agents = state
        .write(|ctx| offers::connect(ctx, &runner, &hello))
        .await?;
    Ok(Json(Connected {
        protocol_version: PROTOCOL_VERSION,
        runner: runner.name,
        agents,
        heartbeat_interval_ms: state.cfg.heartbeat_interval_ms.max(0) as u64,
        long_poll_max_ms: state.cfg.long_poll_max_ms.max(0) as u64,
    }))
}

pub async fn offers(
    State(state): State<AppState>,
    RunnerAuth(runner): RunnerAuth,
    Query(q): Query<OffersQuery>,
) -> Result<Json<Offers>> {
    check_token("instance", &q.instance)?;
    let wait_ms = q
        .wait_ms
        .map(|ms| Millis::try_from(ms).unwrap_or(Millis::MAX));
    let kept: Vec<String> = q
        .kept
        .as_deref()
        .unwrap_or_default()
        .split(',')
        // Only ids are looked up (and answered back); anything else is no
        // session this instance keeps.
        .filter(|s| blaise_protocol::ids::is_id(s))
        .take(offers::MAX_KEPT)
        .map(str::to_string)
        .collect();
    // The poll also ends when the instance's warm target is not the one it
    // says it works to (`put_agent` wakes every offers poll). One that says
    // none (an older runner, or one not told yet: `connect` told it) waits as
    // before: it would otherwise be answered at once, poll after poll.
    let found = state
        .long_poll_offers(&runner.id, wait_ms, |ctx| {
            let offers = offers::offers(ctx, &runner, &q.instance)?;
            let release = offers::release_agents(ctx, &runner, &q.instance, &kept)?;
            let warm = offers::warm_target(ctx, &runner, &q.instance)?;
            let news = q.warm.is_some_and(|w| w != warm);
            Ok(
                (!offers.is_empty() || !release.is_empty() || news).then_some((
                    offers,
                    release,
                    Some(warm),
                )),
            )
        })
        .await?;
    let (offers, release_agents, warm_agents) = match found {
        Some(found) => found,
        None => {
            let warm = state
                .read(|ctx| offers::warm_target(ctx, &runner, &q.instance))
                .await?;
            (Vec::new(), Vec::new(), Some(warm))
        }
    };
    Ok(Json(Offers {
        offers,
        release_agents,
        warm_agents,
    }))
}
