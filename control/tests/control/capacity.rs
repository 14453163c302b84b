//! Runner capacity and labels: a runner instance says at connect how many runs it takes at once
//! and which labels it has; an agent may require labels; offers respect both. A start run no
//! connected runner can take says why, and fails after the server's `runner_wait`.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::*;

/// An instance at its capacity is offered nothing and cannot accept; when a run ends, it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_at_its_capacity_takes_no_more_runs_until_one_ends() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 60_000 })).await;
    let token = s.add_runner("box").await;
    let runner = FakeRunner::at(&s.url, &token, "box-1");
    runner
        .connect_with(json!({ "agents": ["a"], "capacity": 2 }))
        .await;
    let first = s.new_session("a", "one").await;
    let run1 = runner.take("start").await;
    let _second = s.new_session("a", "two").await;
    let run2 = runner.take("start").await;
    let third = s.new_session("a", "three").await;

    assert!(
        runner.offers(300).await.is_empty(),
        "two live runs: the instance is offered nothing"
    );
    let view = s.show(&third).await;
    let offered = last_run(&view)["id"].as_str().unwrap().to_string();
    let (status, body) = runner.accept(&offered).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"]["code"], "at_capacity", "{body}");
    let waiting = &view["waiting_for_runner"];
    assert!(
        waiting["reason"].as_str().unwrap().contains("busy"),
        "{view:#}"
    );
    assert!(
        waiting.get("fails_at").is_none(),
        "a busy runner will take it: it does not fail: {view:#}"
    );

    // Another instance of the same runner has its own capacity.
    let other = runner.instance("box-2", &["a"]).await;
    assert_eq!(other.offers(300).await.len(), 1);

    // When a run ends, the first instance has room again.
    run1.ok("started", json!({})).await;
    run1.ok("failed", json!({ "phase": "agent", "error": "done here" }))
        .await;
    s.wait_until(&first, "the first run to end", |v| {
        runs(v)[0]["status"] != "accepted" && runs(v)[0]["status"] != "running"
    })
    .await;
    let offers = runner.offers(1_000).await;
    assert!(!offers.is_empty(), "room again");
    drop(run2);
}

/// A run that ends frees room at once: the instance's waiting offers poll is woken by it and
/// answers with the run that waited for that room (nothing else is offered meanwhile: the
/// ending run pauses, so no new run wakes the poll).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_ends_wakes_its_runners_offers_poll_with_the_run_that_waited() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 200, "idle_policy": "pause" }))
        .await;
    let token = s.add_runner("box").await;
    let runner = FakeRunner::at(&s.url, &token, "box-1");
    runner
        .connect_with(json!({ "agents": ["a"], "capacity": 1 }))
        .await;
    s.new_session("a", "one").await;
    let first = runner.take_started("start").await;
    first.turn_ended().await;
    first.wait_directive("stop").await;
    let second = s.new_session("a", "two").await;
    assert!(runner.offers(200).await.is_empty(), "at its capacity");
    // The poll waits up to the server's longest (2 s); the pause comes 300 ms in.
    let started = std::time::Instant::now();
    let (offers, _) = tokio::join!(runner.offers(2_000), async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        first.ok("paused", json!({})).await;
    });
    let waited = started.elapsed();
    assert_eq!(offers.len(), 1, "woken by the room, after {waited:?}");
    assert_eq!(offers[0]["session_id"], second.as_str());
    assert!(waited < Duration::from_millis(1_500), "{waited:?}");
}

/// Labels: a run of an agent that requires labels goes only to an instance that has all of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_requires_labels_runs_only_on_runners_with_all_of_them() {
    let s = Server::start().await;
    let agent = s
        .agent(
            "gpu",
            json!({ "requires_labels": ["region-eu", "gpu", "gpu"] }),
        )
        .await;
    assert_eq!(
        agent["settings"]["requires_labels"],
        json!(["gpu", "region-eu"]),
        "kept sorted, once each"
    );
    let token = s.add_runner("fleet").await;
    let plain = FakeRunner::at(&s.url, &token, "plain");
    plain.connect_with(json!({ "agents": ["gpu"] })).await;
    let half = FakeRunner::at(&s.url, &token, "half");
    half.connect_with(json!({ "agents": ["gpu"], "labels": ["gpu"] }))
        .await;
    let id = s.new_session("gpu", "train it").await;
    let view = s.show(&id).await;
    let reason = view["waiting_for_runner"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("no runner with labels gpu, region-eu is connected"),
        "{view:#}"
    );
    assert!(plain.offers(200).await.is_empty());
    assert!(half.offers(200).await.is_empty());
    let run_id = last_run(&view)["id"].as_str().unwrap().to_string();
    let (status, _) = half.accept(&run_id).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "not for this instance");

    let full = FakeRunner::at(&s.url, &token, "full");
    full.connect_with(json!({ "agents": ["gpu"], "labels": ["region-eu", "gpu", "ssd"] }))
        .await;
    let run = full.take("start").await;
    assert_eq!(run.id, run_id);
    assert!(s.show(&id).await.get("waiting_for_runner").is_none());
}

/// "A start run that no connected runner can take is shown … as waiting for a runner, and
/// fails after a configurable time with that reason instead of waiting forever."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_run_no_runner_can_take_fails_after_the_runner_wait_with_the_reason() {
    let s = Server::with_config(blaise_control::config::Config {
        runner_wait_ms: 1_000,
        ..fast_config()
    })
    .await;
    s.agent("gpu", json!({ "requires_labels": ["gpu"] })).await;
    s.runner("cpu-box", &["gpu"]).await;
    let id = s.new_session("gpu", "hello").await;
    let view = s
        .wait_until(&id, "the clock to note the wait", |v| {
            v["waiting_for_runner"]["fails_at"].is_i64()
        })
        .await;
    assert!(
        view["waiting_for_runner"]["reason"]
            .as_str()
            .unwrap()
            .contains("no runner with labels gpu"),
        "{view:#}"
    );
    let (status, page) = s.admin(Method::GET, "/", None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        page.as_str().unwrap().contains("no runner with labels gpu"),
        "the dashboard's list says why"
    );

    let view = s.wait_state(&id, "failed").await;
    let reason = view["end_reason"].as_str().unwrap();
    assert!(
        reason.contains("no runner with labels gpu is connected") && reason.contains("waited"),
        "{reason}"
    );
    assert_eq!(last_run(&view)["status"], "failed");
    assert_eq!(
        view["environment"]["state"], "torn_down",
        "nothing was created"
    );
    let transcript = s.transcript(&id).await;
    assert!(
        transcript.iter().any(|e| e["content"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("no runner with labels gpu"))),
        "{transcript:#?}"
    );
}

/// A runner that connects in time takes the run, and the wait is forgotten.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_that_connects_in_time_takes_the_waiting_run() {
    let s = Server::with_config(blaise_control::config::Config {
        runner_wait_ms: 2_500,
        ..fast_config()
    })
    .await;
    s.agent("a", json!({})).await;
    let id = s.new_session("a", "hello").await;
    let view = s
        .wait_until(&id, "the clock to note the wait", |v| {
            v["waiting_for_runner"]["fails_at"].is_i64()
        })
        .await;
    assert!(
        view["waiting_for_runner"]["reason"]
            .as_str()
            .unwrap()
            .contains("no runner serving agent a is connected"),
        "{view:#}"
    );
    let runner = s.runner("late", &["a"]).await;
    let run = runner.take("start").await;
    run.ok("started", json!({})).await;
    tokio::time::sleep(Duration::from_millis(3_000)).await;
    let view = s.show(&id).await;
    assert_eq!(view["state"], "active", "{view:#}");
    assert!(view.get("waiting_for_runner").is_none());
}

/// Capacity and labels are checked: out of range or not a name is a 400 naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_capacity_and_labels_are_refused_naming_the_field() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let token = s.add_runner("box").await;
    let runner = FakeRunner::at(&s.url, &token, "box-1");
    let too_many: Vec<String> = (0..65).map(|i| format!("l{i}")).collect();
    for (hello, field) in [
        (json!({ "agents": ["a"], "capacity": 0 }), "capacity"),
        (json!({ "agents": ["a"], "capacity": 100_001 }), "capacity"),
        (json!({ "agents": ["a"], "labels": ["GPU"] }), "labels[0]"),
        (
            json!({ "agents": ["a"], "labels": ["ok", "a b"] }),
            "labels[1]",
        ),
        (json!({ "agents": ["a"], "labels": ["x\n"] }), "labels[0]"),
        (
            json!({ "agents": ["a"], "labels": too_many.clone() }),
            "labels",
        ),
    ] {
        let mut hello = hello;
        hello["instance"] = json!("box-1");
        let (status, body) = runner
            .call(Method::POST, "/v1/runner/connect", Some(hello.clone()))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{hello}: {body}");
        assert_eq!(body["error"]["field"], field, "{hello}: {body}");
    }
    let (status, body) = s
        .admin(
            Method::PUT,
            "/v1/agents/a",
            Some(json!({ "requires_labels": ["fine", "Not Fine"] })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["field"], "requires_labels[1]", "{body}");
    let (status, body) = s
        .admin(
            Method::PUT,
            "/v1/agents/a",
            Some(json!({ "requires_labels": too_many })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["field"], "requires_labels", "{body}");
}

/// An offered run is shown to one instance at a time: runners do not all race to accept it. One
/// that does not accept it in time loses it to the others for a turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offer_goes_to_one_instance_at_a_time() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let token = s.add_runner("box").await;
    let first = FakeRunner::at(&s.url, &token, "first");
    first.connect(&["a"]).await;
    let second = FakeRunner::at(&s.url, &token, "second");
    second.connect(&["a"]).await;
    s.new_session("a", "hello").await;

    let seen = first.offers(1_000).await;
    assert_eq!(seen.len(), 1);
    assert!(
        second.offers(300).await.is_empty(),
        "reserved for the instance that saw it"
    );
    assert_eq!(first.offers(0).await, seen, "still its own");

    // It does not accept: after the reservation, the other instance gets it.
    tokio::time::sleep(Duration::from_millis(
        blaise_control::lifecycle::offers::RESERVATION_MS as u64,
    ))
    .await;
    let theirs = second.offers(1_000).await;
    assert_eq!(theirs, seen);
    assert!(first.offers(0).await.is_empty());
    // Accepting is still open to any instance that may take it (what an old poll showed).
    let (status, body) = first.accept(seen[0]["run_id"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// Runners racing to accept the same runs: each run is accepted exactly once, and the run
/// then belongs to the runner whose accept succeeded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runners_racing_for_the_same_runs_each_get_a_run_once() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let mut racers = Vec::new();
    for name in ["r1", "r2", "r3", "r4"] {
        racers.push(s.runner(name, &["a"]).await);
    }
    let mut sessions = Vec::new();
    for i in 0..12 {
        sessions.push(s.new_session("a", &format!("hello {i}")).await);
    }
    let mut runs = Vec::new();
    for id in &sessions {
        runs.push(
            last_run(&s.show(id).await)["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    // Half of the racers accept what their offers poll shows them (and so write reservations),
    // the others accept every run blindly, at the same time.
    let mut tasks = Vec::new();
    for (i, racer) in racers.iter().enumerate() {
        let (racer, runs) = (racer.clone(), runs.clone());
        tasks.push(tokio::spawn(async move {
            let mut won = Vec::new();
            for _ in 0..3 {
                let shown: Vec<String> = if i % 2 == 0 {
                    racer
                        .offers(0)
                        .await
                        .iter()
                        .map(|o| o["run_id"].as_str().unwrap().to_string())
                        .collect()
                } else {
                    runs.clone()
                };
                for run in &shown {
                    let (status, body) = racer.accept(run).await;
                    if status == StatusCode::OK {
                        if !won.contains(run) {
                            won.push(run.clone());
                        }
                    } else {
                        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
                    }
                }
            }
            (racer, won)
        }));
    }
    let mut winners = std::collections::BTreeMap::new();
    for t in tasks {
        let (racer, won) = t.await.unwrap();
        for run in won {
            assert!(
                winners.insert(run.clone(), racer.clone()).is_none(),
                "run {run} was accepted twice"
            );
        }
    }
    assert_eq!(winners.len(), runs.len(), "every run was taken");
    for (run, racer) in winners {
        let (status, body) = racer
            .call(
                Method::POST,
                &format!("/v1/runner/runs/{run}/heartbeat"),
                Some(json!({})),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "the winner owns {run}: {body}");
    }
}

/// Warm starts: `connect` and each offers answer say how many agents the instance should keep
/// started ahead (the agent's `warm_agents`); a poll that says it works to another target is
/// answered at once, one that says none (an older runner) waits as before, and a change of the
/// setting wakes a waiting one. An instance that may not take the agent's new sessions (a
/// disabled agent, labels it lacks) is told 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offers_say_the_warm_target_and_a_change_wakes_the_poll() {
    let s = Server::start().await;
    s.agent("a", json!({ "warm_agents": 2 })).await;
    let token = s.add_runner("box").await;
    let runner = FakeRunner::at(&s.url, &token, "box-1");
    runner.connect(&["a"]).await;
    let poll = |warm: Option<u32>, wait_ms: u64| {
        let runner = runner.clone();
        async move {
            let warm = warm.map(|w| format!("&warm={w}")).unwrap_or_default();
            let started = std::time::Instant::now();
            let (status, v) = runner
                .call(
                    Method::GET,
                    &format!("/v1/runner/offers?instance=box-1&wait_ms={wait_ms}{warm}"),
                    None,
                )
                .await;
            assert_eq!(status, StatusCode::OK, "{v}");
            (v, started.elapsed())
        }
    };
    // `connect` said it (as the agent's settings).
    let hello = runner.connect(&["a"]).await;
    assert_eq!(hello["agents"][0]["warm_agents"], 2, "{hello}");
    // A poll that says no target (an older runner) waits as before, and is
    // told the target at its end.
    let (v, took) = poll(None, 500).await;
    assert_eq!(v["warm_agents"], 2, "{v}");
    assert!(took >= Duration::from_millis(450), "{took:?}");
    // One that works to another: answered at once.
    let (v, took) = poll(Some(0), 2_000).await;
    assert_eq!(v["warm_agents"], 2, "{v}");
    assert!(took < Duration::from_millis(1_000), "{took:?}");
    // Working to it: the poll waits.
    let (v, took) = poll(Some(2), 500).await;
    assert_eq!(v["warm_agents"], 2, "{v}");
    assert!(took >= Duration::from_millis(450), "{took:?}");
    // A change wakes the waiting poll.
    let (woken, _) = tokio::join!(poll(Some(2), 2_000), async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        s.agent("a", json!({ "warm_agents": 1 })).await;
    });
    assert_eq!(woken.0["warm_agents"], 1, "{}", woken.0);
    assert!(woken.1 < Duration::from_millis(1_500), "{:?}", woken.1);

    // Disabled: 0.
    s.agent("a", json!({ "disabled": true })).await;
    assert_eq!(poll(Some(1), 2_000).await.0["warm_agents"], 0);
    // Labels the instance lacks: 0; with them, the target.
    s.agent(
        "a",
        json!({ "disabled": false, "requires_labels": ["gpu"] }),
    )
    .await;
    assert_eq!(poll(None, 0).await.0["warm_agents"], 0);
    let hello = runner.connect(&["a"]).await;
    assert!(hello["agents"][0].get("warm_agents").is_none(), "{hello}");
    let gpu = FakeRunner::at(&s.url, &token, "box-gpu");
    let hello = gpu
        .connect_with(json!({ "agents": ["a"], "labels": ["gpu"] }))
        .await;
    assert_eq!(hello["agents"][0]["warm_agents"], 1, "{hello}");
    let (status, v) = gpu
        .call(
            Method::GET,
            "/v1/runner/offers?instance=box-gpu&wait_ms=0",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["warm_agents"], 1, "{v}");

    // Out of range: refused, naming the field.
    let (status, v) = s
        .admin(
            Method::PUT,
            "/v1/agents/a",
            Some(json!({ "warm_agents": 17 })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(v["error"]["field"], "warm_agents", "{v}");
}
