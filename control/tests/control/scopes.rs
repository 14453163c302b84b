//! Scoped runner tokens: `blaise runner add NAME --agents … --labels …` records what a token may
//! serve; an instance that claims more at `connect` is refused (403, naming what), offers and
//! accepts respect the scope, and `runner set` changes it at once. A token added without a scope
//! serves anything, as every token did before scopes.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::failures::paused_session;
use crate::support::*;

async fn add_scoped(s: &Server, name: &str, scope: Value) -> (String, Value) {
    let mut body = scope;
    body["name"] = json!(name);
    let v = s.ok(Method::POST, "/v1/runners", Some(body)).await;
    (v["token"].as_str().unwrap().to_string(), v)
}

async fn connect_refused(r: &FakeRunner, hello: Value) -> String {
    let mut hello = hello;
    hello["instance"] = json!(r.instance);
    let (status, v) = r
        .call(Method::POST, "/v1/runner/connect", Some(hello))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{v}");
    assert_eq!(v["error"]["code"], "forbidden", "{v}");
    v["error"]["message"].as_str().unwrap().to_string()
}

/// A token restricted to agent `a` cannot take agent `b`'s runs: claiming `b` at connect is
/// refused, naming it; a run of `b` is neither offered to it nor accepted by it, and the session
/// says no runner serving `b` is there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_restricted_to_agent_a_cannot_take_agent_bs_runs() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    s.agent("b", json!({})).await;
    let (token, added) = add_scoped(&s, "box", json!({ "agents": ["a", "a"] })).await;
    assert_eq!(added["agents"], json!(["a"]), "repeats fold: {added}");
    assert!(added["labels"].is_null(), "any label: {added}");
    let scoped = FakeRunner::at(&s.url, &token, "box-1");

    let refused = connect_refused(&scoped, json!({ "agents": ["a", "b"] })).await;
    assert!(
        refused.contains("box") && refused.contains("not b") && refused.contains("agents a"),
        "{refused}"
    );
    scoped.connect(&["a"]).await;

    let of_b = s.new_session("b", "for b").await;
    assert!(
        scoped.offers(300).await.is_empty(),
        "b's run is not offered"
    );
    let run_of_b = last_run(&s.show(&of_b).await)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, body) = scoped.accept(&run_of_b).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "nor taken: {body}");
    let waiting = &s.show(&of_b).await["waiting_for_runner"];
    assert!(
        waiting["reason"]
            .as_str()
            .unwrap()
            .contains("no runner serving agent b"),
        "{waiting}"
    );

    // Its own agent's runs it takes; a token without a scope takes b's.
    let of_a = s.new_session("a", "for a").await;
    let run = scoped.take("start").await;
    assert_eq!(run.assignment["session_id"], of_a.as_str());
    let open = s.runner("open", &["a", "b"]).await;
    let taken = open.take("start").await;
    assert_eq!(taken.assignment["session_id"], of_b.as_str());
}

/// Labels route work; in a scope they are also a grant: an instance may claim only the labels
/// its token lists (`[]`: none), so a copied token cannot pass for the GPU machine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_claims_only_the_labels_in_its_scope() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    s.agent("gpu", json!({ "requires_labels": ["gpu"] })).await;
    let (token, _) = add_scoped(&s, "cpu-box", json!({ "labels": [] })).await;
    let r = FakeRunner::at(&s.url, &token, "cpu-box-1");
    let refused = connect_refused(&r, json!({ "agents": ["gpu"], "labels": ["gpu"] })).await;
    assert!(
        refused.contains("may claim no labels, not gpu"),
        "{refused}"
    );

    let (token, _) = add_scoped(&s, "gpu-box", json!({ "labels": ["gpu", "region-eu"] })).await;
    let r = FakeRunner::at(&s.url, &token, "gpu-box-1");
    let refused =
        connect_refused(&r, json!({ "agents": ["gpu"], "labels": ["gpu", "fast"] })).await;
    assert!(refused.contains("not fast"), "{refused}");
    r.connect_with(json!({ "agents": ["gpu"], "labels": ["gpu"] }))
        .await;
    let id = s.new_session("gpu", "train").await;
    assert_eq!(r.take("start").await.assignment["session_id"], id.as_str());

    // The scope is shown to the admin.
    let listed = s.ok(Method::GET, "/v1/runners", None).await;
    let gpu_box = listed["runners"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "gpu-box")
        .unwrap();
    assert_eq!(gpu_box["labels"], json!(["gpu", "region-eu"]), "{listed}");
    assert!(gpu_box["agents"].is_null(), "{listed}");
}

/// `runner set` holds at once: an instance connected before is offered nothing the new scope
/// forbids and may not connect again claiming it; a paused session whose environment the runner
/// holds continues on another runner in a fresh environment (the old one is orphaned, saying
/// why); widening it again wakes a waiting offers poll.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn narrowing_a_scope_holds_at_once_for_connected_instances() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 100, "idle_policy": "pause" }))
        .await;
    s.agent("b", json!({})).await;
    let r = s.runner("box", &["a", "b"]).await;
    let paused = paused_session(&s, &r).await;
    let old_env = s.show(&paused).await["environment"]["id"].clone();

    let set = s
        .ok(
            Method::POST,
            "/v1/runners/box/scope",
            Some(json!({ "agents": ["b"] })),
        )
        .await;
    assert_eq!(set["agents"], json!(["b"]), "{set}");
    assert!(set["labels"].is_null(), "labels left as they were: {set}");

    let of_a = s.new_session("a", "new work").await;
    assert!(r.offers(300).await.is_empty(), "nothing of a any more");
    let refused = connect_refused(&r, json!({ "agents": ["a", "b"] })).await;
    assert!(refused.contains("not a"), "{refused}");

    s.send(&paused, "again").await;
    let other = s.runner("other", &["a"]).await;
    let mut starts = Vec::new();
    for _ in 0..2 {
        starts.push(other.take("start").await);
    }
    let resumed = starts
        .iter()
        .find(|run| run.assignment["session_id"] == paused.as_str())
        .expect("the paused session continues on another runner");
    assert_eq!(resumed.assignment["fresh_environment"], true);
    assert_ne!(resumed.assignment["environment_id"], old_env);
    assert!(
        starts
            .iter()
            .any(|run| run.assignment["session_id"] == of_a.as_str())
    );
    let environments = s
        .ok(Method::GET, "/v1/environments?state=orphaned", None)
        .await;
    let orphan = &environments["environments"][0];
    assert_eq!(orphan["id"], old_env, "{environments}");
    assert!(
        orphan["last_error"]
            .as_str()
            .unwrap()
            .contains("may no longer serve agent a"),
        "{orphan}"
    );

    // Widened again, a long poll already waiting sees a new run of a.
    let poll = {
        let r = r.clone();
        tokio::spawn(async move { r.offers(5_000).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    s.ok(
        Method::POST,
        "/v1/runners/box/scope",
        Some(json!({ "agents": null })),
    )
    .await;
    let later = s.new_session("a", "later").await;
    let offers = poll.await.unwrap();
    assert!(
        offers.iter().any(|o| o["session_id"] == later.as_str()),
        "{offers:?}"
    );
}

/// A scope that names no agent, or a bad name, is refused naming the field; a runner's name is
/// never taken twice (a new token is `runner token`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_scopes_are_refused_naming_the_field() {
    let s = Server::start().await;
    for (body, field) in [
        (json!({ "name": "x", "agents": [] }), "agents"),
        (
            json!({ "name": "x", "agents": ["ok", "Not Ok"] }),
            "agents[1]",
        ),
        (json!({ "name": "x", "labels": ["a b"] }), "labels[0]"),
    ] {
        let (status, v) = s.admin(Method::POST, "/v1/runners", Some(body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(v["error"]["field"], field, "{v}");
    }
    s.add_runner("x").await;
    let (status, v) = s
        .admin(
            Method::POST,
            "/v1/runners/x/scope",
            Some(json!({ "agents": "a" })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a list, not a string: {v}");
    let (status, v) = s
        .admin(
            Method::POST,
            "/v1/runners/nobody/scope",
            Some(json!({ "agents": ["a"] })),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{v}");
    let (status, v) = s
        .admin(Method::POST, "/v1/runners", Some(json!({ "name": "x" })))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("blaise runner token x"),
        "{v}"
    );
}
