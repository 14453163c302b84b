//! What real Claude Code says it used reaches Blaise (issue 53): after its first turn a session
//! shows its tokens and cost in the view, the dashboard and `/metrics`; a budget smaller than its
//! second turn's cost stops it (reason `budget`), its next message is refused naming the budget,
//! and raising it lets the session go on in the same environment.
//!
//! The model's API cannot be reached from here: the stand-in of `tests/src/model_api` answers in
//! Anthropic's published format, with the `usage` of every response (10 input tokens, 5 output);
//! Claude Code prices them itself, as it would the real API's.

use std::time::Duration;

use blaise_control::model::IdlePolicy;
use blaise_tests::agents::{self, RealAgent};
use blaise_tests::blaise::{Runner, Stage, redaction_plug, settings};
use blaise_tests::model_api::ModelApi;
use serde_json::{Value, json};

const PATIENCE: Duration = Duration::from_secs(120);

/// A session of `agent` whose first turn is answered, and the runner serving it.
async fn first_turn(
    agent: RealAgent,
    installed: &agents::Installed,
) -> (ModelApi, Stage, Runner, String) {
    let model = ModelApi::start("unused-secret").await;
    let stage = Stage::with_agent(agent.name(), settings(600_000, IdlePolicy::Pause)).await;
    std::fs::write(&stage.config, agent.config(&model.url, &redaction_plug())).unwrap();
    let runner = agent.runner(&stage, installed);
    let session = stage
        .blaise
        .new_session(agent.name(), "first question")
        .await;
    stage
        .blaise
        .wait_for_text(&session, "ECHO: first question", PATIENCE)
        .await;
    (model, stage, runner, session)
}

/// What each pinned agent reports after its first turn (docs/agents.md): Claude Code its tokens,
/// context and cost; Codex its context (it reports neither tokens nor a cost).
#[tokio::test(flavor = "multi_thread")]
async fn codex_usage_reaches_blaise() {
    let Some(installed) = agents::installed() else {
        return;
    };
    let (_model, stage, runner, session) = first_turn(RealAgent::Codex, &installed).await;
    let view = stage
        .blaise
        .wait_for(&session, "the first turn's context", PATIENCE, |v| {
            v["usage"]["context_used"].as_u64().is_some_and(|c| c > 0)
        })
        .await;
    assert!(view["usage"]["context_size"].as_u64().is_some(), "{view:#}");
    assert!(
        view["usage"].get("cost").is_none(),
        "what Codex does not report is unknown, not zero: {view:#}"
    );
    runner.stop().await;
}

/// Claude Code's tokens, context and cost, in the view, the dashboard and `/metrics`; then its
/// budget.
#[tokio::test(flavor = "multi_thread")]
async fn claude_code_usage_and_budget_reach_blaise() {
    let Some(installed) = agents::installed() else {
        return;
    };
    let (_model, stage, runner, session) = first_turn(RealAgent::Claude, &installed).await;
    let api = &stage.blaise;

    // After the first turn: tokens and a cost, in the view.
    let view = api
        .wait_for(&session, "the first turn's usage", PATIENCE, |v| {
            v["usage"]["cost"]["USD"].as_f64().is_some_and(|c| c > 0.0)
                && v["usage"]["tokens"]["output"].is_u64()
        })
        .await;
    let usage = &view["usage"];
    assert!(usage["tokens"]["input"].as_u64().is_some(), "{view:#}");
    assert!(usage["context_size"].as_u64().is_some(), "{view:#}");
    let cost = usage["cost"]["USD"].as_f64().unwrap();
    // The dashboard's session page and /metrics.
    let page = stage.dashboard(&session).await;
    assert!(page.contains("id=\"usage\">Used: "), "{page}");
    assert!(page.contains(" USD"), "{page}");
    let metrics = reqwest::get(format!("{}/metrics", stage.blaise.url()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("blaise_agent_cost_total{agent=\"claude\",currency=\"USD\"}")
            && metrics.contains("blaise_agent_tokens_total{agent=\"claude\",kind=\"output\"}"),
        "{metrics}"
    );

    // A budget below what two turns cost: the second passes it, and the run is stopped.
    let budget = cost * 1.5;
    api.user
        .post(
            &format!("/v1/sessions/{session}/budget"),
            json!({ "amount": budget }),
        )
        .await
        .unwrap();
    api.send(&session, "second question").await.unwrap();
    let view = api
        .wait_for(&session, "the budget's stop", PATIENCE, |v| {
            v["state"] == "paused"
        })
        .await;
    let environment = view["environment"]["id"].clone();
    assert_eq!(view["runs"][0]["stop"]["reason"], "budget", "{view:#}");
    assert!(view["usage"]["cost"]["USD"].as_f64().unwrap() >= budget);
    let refused = api.send(&session, "third question").await.unwrap_err();
    assert!(
        refused.to_string().contains("of its budget of"),
        "{refused}"
    );
    // Raised: the next message resumes it in the same environment.
    let raised: Value = api
        .user
        .post(
            &format!("/v1/sessions/{session}/budget"),
            json!({ "amount": cost * 1000.0 }),
        )
        .await
        .unwrap();
    assert!(raised["budget"].as_f64().unwrap() > budget);
    api.send(&session, "third question").await.unwrap();
    api.wait_for_text(&session, "ECHO: third question", PATIENCE)
        .await;
    let view = api.show(&session).await;
    assert_eq!(view["environment"]["id"], environment);
    assert_eq!(view["runs"][1]["kind"], "resume", "{view:#}");
    runner.stop().await;
}
