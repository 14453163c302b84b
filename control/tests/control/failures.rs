//! "What goes wrong, and what happens": one test per row of the seed's table.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::*;

/// Brings a session to `paused` on runner `r`; returns its id.
pub async fn paused_session(s: &Server, r: &FakeRunner) -> String {
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.ok("turn_ended", json!({})).await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({})).await;
    assert_eq!(s.show(&id).await["state"], "paused");
    id
}

async fn setup() -> (Server, FakeRunner) {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 100, "idle_policy": "pause" }))
        .await;
    let r = s.runner("r", &["a"]).await;
    (s, r)
}

/// Row: "A resume run fails before the agent starts → tears the broken environment down and
/// starts a fresh start run, so the waiting message is still answered. A transcript notice says
/// the environment was recreated."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_failing_before_the_agent_starts_recreates_the_environment() {
    let (s, r) = setup().await;
    let id = paused_session(&s, &r).await;
    let old_env = s.show(&id).await["environment"]["id"].clone();
    s.send(&id, "second question").await;
    let resume = r.take("resume").await;
    resume
        .ok(
            "failed",
            json!({ "phase": "before_agent_start", "error": "sandbox gone" }),
        )
        .await;
    let v = s.show(&id).await;
    assert_eq!(v["state"], "active", "the session goes on");
    assert_eq!(env_state(&v), "tearing_down");
    let teardown = r.take("teardown").await;
    assert_eq!(teardown.assignment["environment_id"], old_env);
    teardown.ok("torn_down", json!({})).await;
    let start = r.take("start").await;
    assert_eq!(start.assignment["fresh_environment"], true);
    assert_ne!(start.assignment["environment_id"], old_env);
    let prompt = start.wait_directive("prompt").await;
    assert_eq!(
        prompt["text"], "second question",
        "the waiting message is still answered"
    );
    let notices: Vec<String> = s
        .transcript(&id)
        .await
        .iter()
        .filter(|e| e["kind"] == "notice")
        .map(|e| e["content"]["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("environment was recreated")),
        "{notices:?}"
    );
}

/// Row: "A message arrives while the environment is being torn down → the message waits. A
/// fresh run starts when the teardown is done."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_during_teardown_waits_for_a_fresh_run() {
    let (s, r) = setup().await;
    let id = paused_session(&s, &r).await;
    s.send(&id, "first").await;
    let resume = r.take("resume").await;
    resume
        .ok(
            "failed",
            json!({ "phase": "before_agent_start", "error": "broken" }),
        )
        .await;
    let teardown = r.take("teardown").await;
    let (status, message) = s.send(&id, "during teardown").await;
    assert_eq!(status, StatusCode::OK, "{message}");
    assert_eq!(message["state"], "waiting");
    assert!(
        r.offers(200).await.is_empty(),
        "no run starts before the teardown is done"
    );
    teardown.ok("torn_down", json!({})).await;
    let start = r.take("start").await;
    let prompts: Vec<_> = start
        .directives_for(300)
        .await
        .into_iter()
        .filter(|d| d["kind"] == "prompt")
        .map(|d| d["text"].clone())
        .collect();
    assert_eq!(prompts, vec![json!("first"), json!("during teardown")]);
}

/// Row: "A run fails otherwise → the session fails. The run still tears down what it can."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_failing_otherwise_fails_the_session() {
    let (s, r) = setup().await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.ok(
        "failed",
        json!({ "phase": "agent", "error": "agent crashed", "environment": "torn_down" }),
    )
    .await;
    let v = s.show(&id).await;
    assert_eq!(v["state"], "failed");
    assert_eq!(env_state(&v), "torn_down");
    assert!(v["end_reason"].as_str().unwrap().contains("agent crashed"));
    // What the run could not tear down gets a teardown run.
    let id = s.new_session("a", "again").await;
    let run = r.take_started("start").await;
    run.ok("failed", json!({ "phase": "agent", "error": "oops" }))
        .await;
    assert_eq!(s.show(&id).await["state"], "failed");
    r.take("teardown").await.ok("torn_down", json!({})).await;
    assert_eq!(env_state(&s.show(&id).await), "torn_down");
}

/// Row: "A teardown fails → retries it with backoff as a teardown run, then orphans the
/// environment"; and row: "A message arrives for an environment that is orphaned → not
/// accepted … an admin must retry the teardown"; and the admin's retry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_teardown_is_retried_with_growing_delay_then_orphaned() {
    let (s, r) = setup().await;
    let id = paused_session(&s, &r).await;
    let (status, _) = s.close(&id).await;
    assert_eq!(status, StatusCode::OK);
    let mut gaps = Vec::new();
    for attempt in 1..=3 {
        let t0 = Instant::now();
        let teardown = r.take("teardown").await;
        if attempt > 1 {
            gaps.push(t0.elapsed());
        }
        teardown.ok("started", json!({})).await;
        teardown.ok("failed", json!({ "phase": "teardown", "error": format!("docker: cannot remove container (attempt {attempt})") })).await;
    }
    // Backoff 100ms then 200ms: each retry comes later than the one before.
    assert!(gaps[0] >= Duration::from_millis(90), "{gaps:?}");
    assert!(gaps[1] >= Duration::from_millis(190), "{gaps:?}");
    let v = s.show(&id).await;
    assert_eq!(env_state(&v), "orphaned");
    assert!(
        v["environment"]["last_error"]
            .as_str()
            .unwrap()
            .contains("attempt 3")
    );
    assert!(r.offers(300).await.is_empty(), "Blaise stops trying");
    let (status, body) = s.send(&id, "hello?").await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("an admin must retry the teardown"),
        "{body}"
    );
    let env = v["environment"]["id"].as_str().unwrap();
    let orphaned = s
        .ok(Method::GET, "/v1/environments?state=orphaned", None)
        .await;
    assert_eq!(orphaned["environments"][0]["id"], env);
    let retried = s
        .ok(
            Method::POST,
            &format!("/v1/environments/{env}/retry"),
            Some(json!({})),
        )
        .await;
    assert_eq!(retried["state"], "tearing_down");
    r.take("teardown").await.ok("torn_down", json!({})).await;
    assert_eq!(env_state(&s.show(&id).await), "torn_down");
    let (status, _) = s
        .admin(
            Method::POST,
            &format!("/v1/environments/{env}/retry"),
            Some(json!({})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "only an orphaned environment can be retried"
    );
}

/// Row: "The runner process dies → the run times out as before, and Blaise starts another run in
/// the same environment"; also row "A run cannot reach Blaise for about 30 minutes … Blaise
/// recovers the session as for a dead runner" (to Blaise both are a run that went silent).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_runner_is_timed_out_and_another_run_starts_in_the_same_environment() {
    let (s, r) = setup().await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let env = s.show(&id).await["environment"]["id"].clone();
    run.die();
    let next = r.take("resume").await;
    assert_eq!(next.assignment["environment_id"], env);
    let v = s.show(&id).await;
    assert_eq!(runs(&v)[0]["status"], "timed_out");
    assert_eq!(v["state"], "active");
    next.ok("started", json!({})).await;
}

/// A run that dies while its agent works on a prompt: the transcript names the unanswered
/// message, and the next run gets it again (a notice says so). One already answered is not
/// sent again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_a_dead_run_left_unanswered_is_named_and_sent_to_the_next_run() {
    let (s, r) = setup().await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.wait_directive("prompt").await;
    run.turn_ended().await;
    s.send(&id, "second question").await;
    assert_eq!(
        run.wait_directive("prompt").await["text"],
        "second question"
    );
    run.die();
    let next = r.take("resume").await;
    next.ok("started", json!({})).await;
    let prompt = next.wait_directive("prompt").await;
    assert_eq!(prompt["text"], "second question", "only the unanswered one");
    let notices: Vec<String> = s
        .transcript(&id)
        .await
        .iter()
        .filter(|e| e["kind"] == "notice")
        .map(|e| e["content"]["text"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("before answering your message “second question”.")),
        "{notices:#?}"
    );
    assert!(
        notices
            .iter()
            .any(|n| n.contains("Your message “second question” is sent again, to run")),
        "{notices:#?}"
    );
    assert!(
        !notices.iter().any(|n| n.contains("“hello”")),
        "{notices:#?}"
    );
    // The session fails for good: the message will not be answered, and it says so.
    next.die();
    let third = r.take("resume").await;
    third.ok("started", json!({})).await;
    third.wait_directive("prompt").await;
    third.die();
    let fourth = r.take("resume").await;
    fourth.die();
    let fifth = r.take("resume").await;
    fifth.die();
    s.wait_state(&id, "failed").await;
    let text: Vec<String> = s
        .transcript(&id)
        .await
        .iter()
        .filter_map(|e| e["content"]["text"].as_str().map(str::to_owned))
        .collect();
    assert!(
        text.iter()
            .any(|t| t.contains("“second question” will not be answered")),
        "{text:#?}"
    );
}

/// "… it gives up after three failures in a row."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blaise_gives_up_after_three_failed_runs_in_a_row() {
    let (s, r) = setup().await;
    let id = s.new_session("a", "hello").await;
    let first = r.take("start").await;
    first.die();
    let second = r.take("start").await;
    second.die();
    let third = r.take("start").await;
    third.ok("started", json!({})).await; // the agent started: the count starts again
    third.die();
    let fourth = r.take("resume").await;
    fourth.die();
    let fifth = r.take("resume").await;
    fifth.die();
    let v = s.wait_state(&id, "failed").await;
    assert!(
        v["end_reason"]
            .as_str()
            .unwrap()
            .contains("3 runs failed in a row"),
        "{v}"
    );
    assert_eq!(
        runs(&v)
            .iter()
            .filter(|r| r["status"] == "timed_out" || r["status"] == "failed")
            .count(),
        5
    );
    r.take("teardown").await.ok("torn_down", json!({})).await;
}

/// Row: "The runner cannot start the process for a run it accepted → it tells Blaise at once.
/// Blaise fails the run and recovers the session without waiting for the connection timeout."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_process_cannot_start_is_recovered_at_once() {
    let s = Server::with_config(blaise_control::config::Config {
        connect_timeout_ms: 60_000,
        heartbeat_timeout_ms: 60_000,
        ..fast_config()
    })
    .await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take("start").await;
    let t0 = Instant::now();
    run.ok(
        "failed",
        json!({ "phase": "process_start", "error": "fork: out of memory" }),
    )
    .await;
    let next = r.take("start").await;
    assert!(t0.elapsed() < Duration::from_secs(5));
    let prompt = next.wait_directive("prompt").await;
    assert_eq!(prompt["text"], "hello", "the message goes to the next run");
    let v = s.show(&id).await;
    assert_eq!(runs(&v)[0]["status"], "failed");
    assert_eq!(v["state"], "active");
}

/// "A run that no runner is connected to is failed by Blaise after a minute" (connect_timeout).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accepted_run_nobody_connects_to_is_failed() {
    let (s, r) = setup().await;
    let id = s.new_session("a", "hello").await;
    let offer = r.offers(2000).await.remove(0);
    let (status, _) = r.accept(offer["run_id"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    let v = s
        .wait_until(&id, "the run failed", |v| runs(v)[0]["status"] == "failed")
        .await;
    assert!(
        runs(&v)[0]["error"]
            .as_str()
            .unwrap()
            .contains("no runner connected")
    );
    r.take("start").await;
}

/// Row: "The agent is disabled or archived while a run is connected → the run can still report
/// its pause and teardown … No new runs start for it, except teardown runs."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disabled_agent_still_pauses_and_tears_down_but_starts_nothing() {
    let s = Server::start().await;
    s.agent(
        "a",
        json!({ "inactivity_ms": 100, "paused_lifetime_ms": 1_500 }),
    )
    .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    s.agent("a", json!({ "disabled": true })).await;
    run.turn_ended().await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({})).await;
    assert_eq!(s.show(&id).await["state"], "paused");
    let (status, body) = s.send(&id, "more").await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"]["code"], "agent_disabled");
    let (status, _) = s
        .admin(
            Method::POST,
            "/v1/sessions",
            Some(json!({ "agent": "a", "message": "x" })),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    s.wait_state(&id, "expired").await;
    let teardown = r.take("teardown").await;
    teardown.ok("torn_down", json!({})).await;
    assert_eq!(env_state(&s.show(&id).await), "torn_down");
}

/// Row: "Two things happen at once → Blaise serializes the transitions of a session: it has at
/// most one run at a time."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_messages_start_one_run() {
    let (s, r) = setup().await;
    let id = paused_session(&s, &r).await;
    let sends = (0..12).map(|i| {
        let s = &s;
        let id = id.clone();
        async move { s.send(&id, &format!("message {i}")).await }
    });
    for (status, body) in futures_join(sends).await {
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let v = s.show(&id).await;
    let live: Vec<_> = runs(&v)
        .into_iter()
        .filter(|r| r["status"] == "offered")
        .collect();
    assert_eq!(live.len(), 1, "{v:#}");
    let resume = r.take("resume").await;
    let prompts = resume
        .directives_for(300)
        .await
        .into_iter()
        .filter(|d| d["kind"] == "prompt")
        .count();
    assert_eq!(prompts, 12);
}

async fn futures_join<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F::Output: Send,
{
    let mut out = Vec::new();
    let pending: Vec<_> = futures.collect();
    // Poll them together on this task.
    let mut pinned: Vec<_> = pending.into_iter().map(Box::pin).collect();
    let mut done: Vec<Option<F::Output>> = (0..pinned.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut all = true;
        for (i, f) in pinned.iter_mut().enumerate() {
            if done[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => done[i] = Some(v),
                    std::task::Poll::Pending => all = false,
                }
            }
        }
        if all {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    out.extend(done.into_iter().map(|d| d.unwrap()));
    out
}
