//! docs/protocol.md's "Driving a run end to end", step by step: start, pause, resume, teardown.
//! The shapes asserted here are the ones the document shows.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::*;

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_drives_start_pause_resume_and_teardown() {
    let s = Server::start().await;
    s.agent(
        "claude",
        json!({ "inactivity_ms": 200, "idle_policy": "pause", "paused_lifetime_ms": 1_500 }),
    )
    .await;
    let token = s.add_runner("build-box-1").await;
    let r = FakeRunner::new(&s, &token, "build-box-1:4312");

    // connect: the agent's settings, once.
    let hello = r.connect(&["claude"]).await;
    assert_eq!(
        keys(&hello),
        set(&[
            "protocol_version",
            "runner",
            "agents",
            "heartbeat_interval_ms",
            "long_poll_max_ms"
        ])
    );
    assert_eq!(hello["protocol_version"], 1);
    assert_eq!(
        keys(&hello["agents"][0]),
        set(&[
            "name",
            "inactivity_ms",
            "idle_policy",
            "paused_lifetime_ms",
            "timeout_ms",
            "start_timeout_ms",
            "cancel_grace_ms",
            "disabled"
        ])
    );

    // start: offers → accept → plugs_can_resume → plug state → acp-session → started.
    let id = s.new_session("claude", "fix the build").await;
    let offer = r.offers(2000).await.remove(0);
    assert_eq!(
        keys(&offer),
        set(&["run_id", "kind", "session_id", "agent", "environment_id"])
    );
    let (status, assignment) = r.accept(offer["run_id"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        keys(&assignment),
        set(&[
            "run_id",
            "kind",
            "session_id",
            "environment_id",
            "agent",
            "settings",
            "acp_session_id",
            "fresh_environment",
            "teardown_reason",
            "heartbeat_interval_ms",
            "plug_state"
        ])
    );
    assert_eq!(
        assignment["plug_state"],
        json!([]),
        "a new session has none"
    );
    let run = r.take_assigned(assignment);
    let base = format!("/v1/runner/runs/{}", run.id);
    run.plugs(true, &["checkout", "sandbox"]).await;
    let (status, _) = r
        .call(
            Method::PUT,
            &format!("{base}/plug-state/sandbox"),
            Some(json!({ "entries": { "sandbox_id": "sbx-7" } })),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = r
        .call(
            Method::PUT,
            &format!("{base}/acp-session"),
            Some(json!({ "acp_session_id": "acp-7f" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let ack = run.ok("started", json!({})).await;
    assert_eq!(
        keys(&ack),
        set(&["duplicate", "run_status", "session_state"])
    );
    let (status, beat) = r
        .call(Method::POST, &format!("{base}/heartbeat"), Some(json!({})))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(beat, json!({ "run_status": "running", "stop": null }));

    // A turn: prompt → transcript → turn_ended; then idle → stop → paused.
    let prompt = run.wait_directive("prompt").await;
    assert_eq!(
        keys(&prompt),
        set(&[
            "run_id",
            "seq",
            "kind",
            "message_id",
            "text",
            "created_at",
            "delivered_at"
        ])
    );
    let (status, ack) = run
        .transcript(json!([{ "seq": 1, "kind": "agent_message", "content": { "text": "Fixed." } }]))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        ack,
        json!({ "appended": 1, "duplicates": 0, "last_seq": 1 })
    );
    run.ok("turn_ended", json!({ "message_id": prompt["message_id"] }))
        .await;
    let stop = run.wait_directive("stop").await;
    assert_eq!(
        (stop["reason"].clone(), stop["may_resume"].clone()),
        (json!("idle"), json!(true))
    );
    let ack = run.ok("paused", json!({})).await;
    assert_eq!(ack["session_state"], "paused");
    drop(run);

    // resume: the recorded ACP session and the plug's state come back.
    s.send(&id, "and the tests").await;
    let resume = r.take("resume").await;
    assert_eq!(resume.assignment["acp_session_id"], "acp-7f");
    resume.plugs(true, &["checkout", "sandbox"]).await;
    let (_, state) = r
        .call(
            Method::GET,
            &format!("/v1/runner/runs/{}/plug-state", resume.id),
            None,
        )
        .await;
    assert_eq!(state["records"][0]["entries"]["sandbox_id"], "sbx-7");
    assert_eq!(state["records"][0]["owned"], true);
    resume.ok("started", json!({})).await;
    assert_eq!(
        resume.wait_directive("prompt").await["text"],
        "and the tests"
    );
    resume.say("Tests pass.").await;
    resume.turn_ended().await;
    resume.wait_directive("stop").await;
    resume.ok("paused", json!({})).await;
    drop(resume);

    // teardown: after the paused lifetime, a teardown run with the reason for TeardownInfo.
    let teardown = r.take("teardown").await;
    assert!(
        teardown.assignment["teardown_reason"]
            .as_str()
            .unwrap()
            .contains("paused for longer")
    );
    teardown.plugs(true, &["checkout", "sandbox"]).await;
    teardown.ok("started", json!({})).await;
    teardown.ok("torn_down", json!({})).await;
    let v = s.show(&id).await;
    assert_eq!(v["state"], "expired");
    assert_eq!(env_state(&v), "torn_down");
    let kinds: Vec<_> = runs(&v)
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_string(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("start".into(), "paused".into()),
            ("resume".into(), "paused".into()),
            ("teardown".into(), "torn_down".into())
        ]
    );
    let (status, _) = r
        .call(
            Method::GET,
            &format!(
                "/v1/runner/runs/{}/directives?after=0&wait_ms=5000",
                teardown.id
            ),
            None,
        )
        .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "a finished run's stream answers at once"
    );
}
