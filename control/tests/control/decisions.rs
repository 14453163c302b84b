//! "What Blaise decides": idleness, the idle policy, the paused lifetime (and its cap), the run
//! timeout; and "Why time belongs to Blaise".

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::json;

use crate::support::*;

/// When a session is idle: the agent's inactivity limit. Idle policy pause → may_resume true;
/// the pause leaves the environment and sets an expiry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_is_stopped_after_the_inactivity_limit_and_pauses() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 400, "idle_policy": "pause" }))
        .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let prompt = run.wait_directive("prompt").await;
    assert_eq!(prompt["text"], "hello");
    run.say("hi there").await;
    run.turn_ended().await;
    let t0 = Instant::now();
    let stop = run.wait_directive("stop").await;
    let waited = t0.elapsed();
    assert!(
        waited >= Duration::from_millis(300),
        "stopped after {waited:?}, before the 400ms limit"
    );
    assert_eq!(stop["reason"], "idle");
    assert_eq!(stop["may_resume"], true);
    assert_eq!(
        s.show(&id).await["state"],
        "active",
        "the session pauses when the pause is reported"
    );
    run.ok("paused", json!({})).await;
    let v = s.show(&id).await;
    assert_eq!(v["state"], "paused");
    assert_eq!(env_state(&v), "paused");
    assert!(v["expires_at"].as_i64().is_some());
    assert_eq!(last_run(&v)["status"], "paused");
}

/// Whether an idle session pauses or ends: the idle policy. `end` → may_resume false, the session
/// ends, and the run tears down.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_policy_end_ends_the_session_and_the_run_tears_down() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 200, "idle_policy": "end" }))
        .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.turn_ended().await;
    let stop = run.wait_directive("stop").await;
    assert_eq!(stop["may_resume"], false);
    assert_eq!(s.show(&id).await["state"], "completed");
    run.ok("torn_down", json!({})).await;
    let v = s.show(&id).await;
    assert_eq!(env_state(&v), "torn_down");
    assert_eq!(
        runs(&v).len(),
        1,
        "no teardown run: the run tore down itself"
    );
}

/// "Blaise never pauses a chain that cannot [resume], whatever the policy says now."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chain_that_cannot_resume_is_never_paused() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 200, "idle_policy": "pause" }))
        .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take("start").await;
    run.plugs(false, &["checkout"]).await;
    run.ok("started", json!({})).await;
    run.turn_ended().await;
    let stop = run.wait_directive("stop").await;
    assert_eq!(stop["reason"], "idle");
    assert_eq!(stop["may_resume"], false);
    assert_eq!(s.show(&id).await["state"], "completed");
}

/// "A session is never idle during a turn, however quiet the agent is."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_in_progress_is_never_idle() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 150 })).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "think hard").await;
    let run = r.take_started("start").await;
    let seen = run.directives_for(900).await;
    assert!(
        seen.iter().all(|d| d["kind"] == "prompt"),
        "stopped during a turn: {seen:?}"
    );
    assert_eq!(s.show(&id).await["open_turns"], 1);
    run.turn_ended().await;
    let stop = run.wait_directive("stop").await;
    assert_eq!(stop["reason"], "idle");
}

/// "Blaise owns the clock": it acts when a limit falls due, not on its next check. With a check
/// interval of a minute, an idle session is stopped and a paused one expires on time: a change
/// to a session tells the clock where its limits now stand.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_are_acted_on_when_they_fall_due_not_on_the_check_interval() {
    let s = Server::with_config(blaise_control::config::Config {
        check_interval_ms: 60_000,
        heartbeat_timeout_ms: 60_000,
        ..fast_config()
    })
    .await;
    s.agent(
        "a",
        json!({ "inactivity_ms": 300, "paused_lifetime_ms": 300 }),
    )
    .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.wait_directive("prompt").await;
    // No heartbeats from here (the limit is a minute): nothing but the clock writes the run.
    run.die();
    run.turn_ended().await;
    // One long poll (the server's longest is 2 s): the clock's stop wakes it.
    let t0 = Instant::now();
    let directives = run.directives(2_000).await;
    let idle = t0.elapsed();
    assert_eq!(directives.len(), 1, "after {idle:?}: {directives:?}");
    assert_eq!(directives[0]["kind"], "stop");
    assert!(
        (Duration::from_millis(250)..Duration::from_millis(1_500)).contains(&idle),
        "stopped {idle:?} after the turn (inactivity 300ms, check interval 60s)"
    );
    run.ok("paused", json!({})).await;
    let t0 = Instant::now();
    s.wait_state(&id, "expired").await;
    let expired = t0.elapsed();
    assert!(
        expired < Duration::from_secs(5),
        "expired {expired:?} after the pause (lifetime 300ms, check interval 60s)"
    );
    r.take("teardown").await;
}

/// How long a paused session waits: the paused lifetime; then it ends and gets a teardown run,
/// offered to the runner that ran it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_session_expires_and_gets_a_teardown_run() {
    let s = Server::start().await;
    s.agent(
        "a",
        json!({ "inactivity_ms": 100, "paused_lifetime_ms": 300 }),
    )
    .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.turn_ended().await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({})).await;
    let v = s.wait_state(&id, "expired").await;
    assert_eq!(env_state(&v), "tearing_down");
    let teardown = r.take("teardown").await;
    assert_eq!(
        teardown.assignment["environment_id"],
        v["environment"]["id"]
    );
    assert!(
        teardown.assignment["teardown_reason"]
            .as_str()
            .unwrap()
            .contains("paused for longer")
    );
    teardown.ok("started", json!({})).await;
    teardown.ok("torn_down", json!({})).await;
    let v = s.show(&id).await;
    assert_eq!(env_state(&v), "torn_down");
    assert_eq!(v["state"], "expired");
}

/// "The agent's paused lifetime, up to a server cap."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paused_lifetime_is_capped_by_the_server() {
    let s = Server::with_config(blaise_control::config::Config {
        paused_lifetime_cap_ms: 300,
        ..fast_config()
    })
    .await;
    s.agent(
        "a",
        json!({ "inactivity_ms": 100, "paused_lifetime_ms": 3_600_000 }),
    )
    .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.turn_ended().await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({})).await;
    let v = s.show(&id).await;
    let paused_for = v["expires_at"].as_i64().unwrap() - v["last_activity"].as_i64().unwrap();
    assert!(
        paused_for <= 300,
        "expiry {paused_for}ms after the pause, cap is 300ms"
    );
    s.wait_state(&id, "expired").await;
}

/// How long a run may take: the agent's timeout. The run is stopped (may not resume) and the
/// session times out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_past_its_timeout_is_stopped() {
    let s = Server::start().await;
    s.agent(
        "a",
        json!({ "timeout_ms": 400, "inactivity_ms": 3_600_000 }),
    )
    .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "long job").await;
    let run = r.take_started("start").await;
    let stop = run.wait_directive("stop").await;
    assert_eq!(stop["reason"], "timeout");
    assert_eq!(stop["may_resume"], false);
    assert_eq!(s.show(&id).await["state"], "timed_out");
    run.ok("torn_down", json!({})).await;
    assert_eq!(env_state(&s.show(&id).await), "torn_down");
}

/// A timeout as large as the API accepts means "never": an idle session is stopped as idle, not
/// timed out because `accepted_at + timeout_ms` wrapped into the past.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_of_i64_max_never_times_a_run_out() {
    let s = Server::start().await;
    s.agent(
        "a",
        json!({ "timeout_ms": i64::MAX, "inactivity_ms": 400, "idle_policy": "pause" }),
    )
    .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.wait_directive("prompt").await;
    run.turn_ended().await;
    let stop = run.wait_directive("stop").await;
    assert_eq!(stop["reason"], "idle");
    assert_eq!(s.show(&id).await["state"], "active");
}

/// "A run … that ignores a timeout stop is failed by Blaise after a minute" (here: stop_grace).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_ignores_a_timeout_stop_is_failed() {
    let s = Server::start().await;
    s.agent(
        "a",
        json!({ "timeout_ms": 200, "inactivity_ms": 3_600_000 }),
    )
    .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "long job").await;
    let run = r.take_started("start").await;
    run.wait_directive("stop").await;
    let v = s
        .wait_until(&id, "the first run failed", |v| {
            runs(v)[0]["status"] == "failed"
        })
        .await;
    assert!(
        runs(&v)[0]["error"]
            .as_str()
            .unwrap()
            .contains("ignored the timeout stop")
    );
    assert_eq!(v["state"], "timed_out");
    let teardown = r.take("teardown").await;
    teardown.ok("torn_down", json!({})).await;
}

/// "Policy changes apply … from then on": the next idle session follows the new policy, without
/// restarting the runner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_change_applies_to_the_next_idle_session() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 250, "idle_policy": "pause" }))
        .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    s.agent("a", json!({ "idle_policy": "end" })).await;
    run.turn_ended().await;
    let stop = run.wait_directive("stop").await;
    assert_eq!(stop["may_resume"], false);
    assert_eq!(s.show(&id).await["state"], "completed");
}

/// "A paused session expires at the time it was given when it paused."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_session_keeps_its_expiry_when_the_policy_changes() {
    let s = Server::start().await;
    s.agent(
        "a",
        json!({ "inactivity_ms": 100, "paused_lifetime_ms": 3_600_000 }),
    )
    .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.turn_ended().await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({})).await;
    let before = s.show(&id).await["expires_at"].clone();
    s.agent("a", json!({ "paused_lifetime_ms": 50 })).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let v = s.show(&id).await;
    assert_eq!(v["state"], "paused");
    assert_eq!(v["expires_at"], before);
}

/// "Blaise makes the decision again when the pause is reported, and overrules a run that reports
/// otherwise": the policy changed to `end` between the stop and the pause.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pause_is_decided_again_when_it_is_reported() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 150, "idle_policy": "pause" }))
        .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.turn_ended().await;
    assert_eq!(run.wait_directive("stop").await["may_resume"], true);
    s.agent("a", json!({ "idle_policy": "end" })).await;
    run.ok("paused", json!({})).await;
    let v = s.show(&id).await;
    assert_eq!(v["state"], "completed");
    assert_eq!(env_state(&v), "tearing_down");
    let teardown = r.take("teardown").await;
    teardown.ok("torn_down", json!({})).await;
    let notices: Vec<_> = s
        .transcript(&id)
        .await
        .into_iter()
        .filter(|e| e["kind"] == "notice")
        .collect();
    assert!(notices.iter().any(|n| {
        n["content"]["text"]
            .as_str()
            .unwrap()
            .contains("idle policy")
    }));
}

/// A run that pauses after a stop that said it may not resume is overruled too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_against_the_stop_is_overruled() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 150, "idle_policy": "end" }))
        .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.turn_ended().await;
    assert_eq!(run.wait_directive("stop").await["may_resume"], false);
    run.ok("paused", json!({})).await;
    let v = s.show(&id).await;
    assert_eq!(v["state"], "completed");
    r.take("teardown").await.ok("torn_down", json!({})).await;
    let (status, body) = s
        .admin(Method::GET, &format!("/v1/sessions/{id}"), None)
        .await;
    assert!(status.is_success());
    assert_eq!(env_state(&body), "torn_down");
}

/// "If Blaise asks to pause but a plug cannot resume, the runner logs a warning …. Blaise makes
/// the decision again when the pause is reported": a chain reported unable to resume after the
/// stop is not paused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_of_a_chain_that_cannot_resume_is_overruled() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 150, "idle_policy": "pause" }))
        .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take("start").await;
    run.ok("started", json!({})).await;
    run.turn_ended().await;
    assert_eq!(run.wait_directive("stop").await["may_resume"], true);
    run.plugs(false, &["sandbox"]).await;
    run.ok("paused", json!({})).await;
    let v = s.show(&id).await;
    assert_eq!(v["state"], "completed");
    assert!(v["end_reason"].as_str().unwrap().contains("sandbox"), "{v}");
    r.take("teardown").await.ok("torn_down", json!({})).await;
}
