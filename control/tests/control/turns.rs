//! Turns are the unit of failure, not sessions (issue 50): a failed turn leaves the session
//! usable, a turn's permission requests end with it, a run whose agent is gone pauses keeping
//! its environment, Blaise cancels a turn that stays silent, and the retried orphan of a session
//! that moved on is torn down with its own state. On SQLite and PostgreSQL alike.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::*;

async fn setup(settings: Value) -> (Server, FakeRunner) {
    let s = Server::start().await;
    let mut all = json!({ "inactivity_ms": 600_000, "idle_policy": "pause" });
    for (k, v) in settings.as_object().unwrap() {
        all[k] = v.clone();
    }
    s.agent("a", all).await;
    let r = s.runner("r", &["a"]).await;
    (s, r)
}

/// The prompt directives' message ids, in order.
async fn prompt(run: &FakeRun) -> String {
    run.wait_directive("prompt").await["message_id"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn turn_ended(run: &FakeRun, message: &str, outcome: &str, error: Option<&str>) {
    run.ok(
        "turn_ended",
        json!({ "message_id": message, "outcome": outcome, "error": error }),
    )
    .await;
}

/// A turn the agent answered with an error (its model unreachable) fails alone: the session
/// stays active, the error is in the transcript, the next message goes to the same run. An
/// answered turn starts the count again; the agent's `max_failed_turns` in a row stop the run
/// with reason `failures`, and the session pauses with its environment, resumed by the next
/// message in the same environment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_turns_leave_the_session_usable_and_enough_in_a_row_pause_it() {
    let (s, r) = setup(json!({ "max_failed_turns": 2 })).await;
    let id = s.new_session("a", "first").await;
    let run = r.take_started("start").await;
    let env = s.show(&id).await["environment"]["id"].clone();
    for (text, outcome) in [
        ("first", "failed"),
        ("second", "answered"),
        ("third", "failed"),
    ] {
        if text != "first" {
            assert_eq!(s.send(&id, text).await.0, StatusCode::OK);
        }
        let message = prompt(&run).await;
        let error = (outcome == "failed").then_some("overloaded_error: the model is busy");
        turn_ended(&run, &message, outcome, error).await;
        let v = s.show(&id).await;
        assert_eq!(v["state"], "active", "after {text}: {v:#}");
        assert!(last_run(&v)["stop"].is_null(), "after {text}: {v:#}");
    }
    let said = s.notices(&id).await;
    assert!(
        said.iter().any(|n| n.contains("“first”")
            && n.contains("failed: overloaded_error: the model is busy")
            && n.contains("send the next message")),
        "{said:?}"
    );
    // Two in a row: the run is stopped, the session pauses, the environment stays.
    s.send(&id, "fourth").await;
    let message = prompt(&run).await;
    turn_ended(&run, &message, "failed", Some("overloaded_error")).await;
    let stop = run.wait_directive("stop").await;
    assert_eq!(stop["reason"], "failures", "{stop}");
    assert_eq!(stop["may_resume"], true, "{stop}");
    run.ok("paused", json!({})).await;
    let v = s.wait_state(&id, "paused").await;
    assert_eq!(env_state(&v), "paused", "{v:#}");
    assert!(
        s.notices(&id)
            .await
            .iter()
            .any(|n| n.contains("2 turns failed in a row")),
    );
    s.send(&id, "model is back?").await;
    let resume = r.take("resume").await;
    assert_eq!(resume.assignment["environment_id"], env);
}

/// A turn's permission requests end with it, however it ends, at once: in the store and the
/// view, and an answer to one is refused naming why. A request that arrives after its turn ended
/// is recorded as ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_requests_end_with_their_turn() {
    // How the turn ends, and what the refused answer says.
    let endings: &[(&str, &str)] = &[
        ("answered", "its turn ended: the agent answered"),
        ("failed", "its turn failed"),
        ("cancel", "its turn was cancelled"),
        ("run_ends", "ended (paused)"),
    ];
    for (ending, why) in endings {
        let (s, r) = setup(json!({})).await;
        let id = s.new_session("a", "do it").await;
        let run = r.take_started("start").await;
        let message = prompt(&run).await;
        let ask = |request: &str, message: Option<&str>| {
            json!({ "request_id": request, "message_id": message, "request": {
                "request_id": request,
                "tool_call": { "id": "t", "title": "rm -rf build/" },
                "options": [ { "option_id": "allow", "name": "Allow", "kind": "allow_once" } ] } })
        };
        let path = format!("/v1/runner/runs/{}/permissions", run.id);
        let (status, asked) = run
            .runner
            .call(Method::POST, &path, Some(ask("p1", Some(&message))))
            .await;
        assert_eq!(status, StatusCode::OK, "{asked}");
        assert_eq!(asked["state"], "pending");
        match *ending {
            "cancel" => {
                let (status, v) = s
                    .admin(Method::POST, &format!("/v1/sessions/{id}/cancel"), None)
                    .await;
                assert_eq!(status, StatusCode::OK, "{v}");
            }
            "run_ends" => {
                run.ok("paused", json!({ "agent_lost": "The agent exited" }))
                    .await;
            }
            outcome => turn_ended(&run, &message, outcome, None).await,
        }
        // At once: no wait for the runner.
        let v = s.show(&id).await;
        let request = &v["permission_requests"][0];
        assert_eq!(request["state"], "cancelled", "{ending}: {v:#}");
        assert!(
            request["ended"].as_str().unwrap().contains(why),
            "{ending}: {request}"
        );
        let (status, refused) = s
            .admin(
                Method::POST,
                &format!("/v1/sessions/{id}/permissions/p1/answer"),
                Some(json!({ "option_id": "allow" })),
            )
            .await;
        assert_eq!(status, StatusCode::CONFLICT, "{ending}: {refused}");
        let said = refused["error"]["message"].as_str().unwrap();
        assert!(
            said.contains("can no longer be answered") && said.contains(why),
            "{ending}: {said}"
        );
        if *ending == "answered" {
            // The runner's request overtaken by the turn's end: recorded as ended.
            let (status, late) = run
                .runner
                .call(Method::POST, &path, Some(ask("p2", Some(&message))))
                .await;
            assert_eq!(status, StatusCode::OK, "{late}");
            assert_eq!(late["state"], "cancelled", "{late}");
        }
    }
}

/// A run whose agent is gone pauses on its own, whatever the idle policy: the environment is
/// kept, the session pauses with a notice saying why, and the next message (or one already
/// waiting) resumes it in the same environment. An agent that never started counts toward the
/// runs that failed in a row: at the server's limit Blaise stops trying and names the message
/// it will not answer; the session waits, paused, for the next one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_agent_is_gone_pauses_keeping_its_environment() {
    // Idle policy, whether a message waits when the agent goes, and where it went.
    let rows: &[(&str, bool)] = &[("pause", false), ("end", false), ("pause", true)];
    for (policy, waiting) in rows {
        let (s, r) = setup(json!({ "idle_policy": policy })).await;
        let id = s.new_session("a", "first").await;
        let run = r.take_started("start").await;
        let message = prompt(&run).await;
        turn_ended(&run, &message, "answered", None).await;
        let env = s.show(&id).await["environment"]["id"].clone();
        if *waiting {
            s.send(&id, "second").await;
            prompt(&run).await;
        }
        run.ok(
            "paused",
            json!({ "agent_lost": "The agent exited between turns, with exit status: 3" }),
        )
        .await;
        let v = s.show(&id).await;
        assert_eq!(env_state(&v), "paused", "{policy} {waiting}: {v:#}");
        let lost = runs(&v)
            .into_iter()
            .find(|r| r["id"] == run.id.as_str())
            .unwrap();
        assert_eq!(lost["status"], "paused", "{v:#}");
        assert_eq!(
            lost["error"],
            "The agent exited between turns, with exit status: 3"
        );
        let said = s.notices(&id).await;
        assert!(
            said.iter()
                .any(|n| n.contains("exit status: 3")
                    && n.contains("paused with its environment kept")),
            "{said:?}"
        );
        if !waiting {
            assert_eq!(v["state"], "paused", "{policy}: {v:#}");
            s.send(&id, "second").await;
        }
        let resume = r.take("resume").await;
        assert_eq!(resume.assignment["environment_id"], env);
        assert!(!prompt(&resume).await.is_empty());
    }

    // An agent that never starts: tried again in the same environment, then no more.
    let (s, r) = setup(json!({})).await;
    let id = s.new_session("a", "hello").await;
    let env = s.show(&id).await["environment"]["id"].clone();
    let mut kinds = Vec::new();
    for attempt in 0..3 {
        let kind = if attempt == 0 { "start" } else { "resume" };
        let run = r.take(kind).await;
        assert_eq!(run.assignment["environment_id"], env);
        kinds.push(kind);
        run.ok(
            "paused",
            json!({ "agent_lost": "The agent did not start: it did not answer `initialize` within 60s" }),
        )
        .await;
    }
    let v = s.wait_state(&id, "paused").await;
    assert!(
        r.offers(300).await.is_empty(),
        "Blaise stopped trying: {v:#}"
    );
    assert_eq!(env_state(&v), "paused");
    let said = s.notices(&id).await;
    assert!(
        said.iter()
            .any(|n| n.contains("“hello” will not be answered: the agent did not start")),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|n| n.contains("did not start 3 times in a row")),
        "{said:?}"
    );
    s.send(&id, "try again").await;
    let resume = r.take("resume").await;
    assert_eq!(resume.assignment["environment_id"], env);
    resume.ok("started", json!({})).await;
    assert!(!prompt(&resume).await.is_empty());
}

/// A turn with no output at all for the agent's silent-turn limit is cancelled by Blaise (the
/// runner's cancel grace then ends it whatever the agent does); output keeps it going; the view
/// says how long the agent has worked and when it last said something.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_turn_is_cancelled_and_a_talking_one_is_not() {
    let (s, r) = setup(json!({ "silent_turn_ms": 600 })).await;
    let id = s.new_session("a", "work").await;
    let run = r.take_started("start").await;
    prompt(&run).await;
    // Talking every 200 ms for 1.5 s: no cancel.
    let until = Instant::now() + Duration::from_millis(1_500);
    while Instant::now() < until {
        run.say("still working").await;
        let seen = run.directives_for(200).await;
        assert!(
            seen.iter().all(|d| d["kind"] != "cancel"),
            "cancelled while talking: {seen:?}"
        );
    }
    let turn = s.show(&id).await["turn"].clone();
    assert!(
        turn["started_at"].is_i64() && turn["last_output_at"].is_i64(),
        "{turn}"
    );
    // Then silent: cancelled once, with a notice.
    let started = Instant::now();
    run.wait_directive("cancel").await;
    assert!(started.elapsed() < Duration::from_secs(5));
    let v = s.show(&id).await;
    assert!(v["turn"]["silence_cancelled_at"].is_i64(), "{v:#}");
    assert!(
        s.notices(&id)
            .await
            .iter()
            .any(|n| n.contains("had no output for") && n.contains("silent-turn limit")),
    );
    let more = run.directives_for(1_000).await;
    assert!(
        more.iter().all(|d| d["kind"] != "cancel"),
        "one cancel: {more:?}"
    );
}

/// A turn waiting on a person (a permission request nobody has answered) is not silent, however
/// long the person takes; once answered, the agent's silence counts from the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_waiting_on_a_person_is_not_silent() {
    let (s, r) = setup(json!({ "silent_turn_ms": 600 })).await;
    let id = s.new_session("a", "work").await;
    let run = r.take_started("start").await;
    let message = prompt(&run).await;
    let ask = json!({ "request_id": "p1", "message_id": message, "request": {
        "request_id": "p1",
        "tool_call": { "id": "t", "title": "rm -rf build/" },
        "options": [ { "option_id": "allow", "name": "Allow", "kind": "allow_once" } ] } });
    let path = format!("/v1/runner/runs/{}/permissions", run.id);
    let (status, asked) = run.runner.call(Method::POST, &path, Some(ask)).await;
    assert_eq!(status, StatusCode::OK, "{asked}");
    // Five silent-turn limits while the person decides: no cancel.
    let seen = run.directives_for(3_000).await;
    assert!(
        seen.iter().all(|d| d["kind"] != "cancel"),
        "cancelled while a person decided: {seen:?}"
    );
    // Taken before the answer is sent: the answer's own time is no earlier than this, however
    // long its transaction and its response take.
    let answered = Instant::now();
    let (status, v) = s
        .admin(
            Method::POST,
            &format!("/v1/sessions/{id}/permissions/p1/answer"),
            Some(json!({ "option_id": "allow" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    // Answered: the agent is silent from now on, and cancelled past its limit from the answer.
    let seen = run.directives_for(300).await;
    assert!(
        seen.iter().all(|d| d["kind"] != "cancel"),
        "cancelled at once after the answer: {seen:?}"
    );
    run.wait_directive("cancel").await;
    assert!(answered.elapsed() >= Duration::from_millis(600));
}

/// An orphaned environment the session has left (it moved to a fresh one when its runner's
/// scope narrowed) is torn down when an admin retries it, whatever the session does meanwhile:
/// its own teardown run goes to the runner that holds it, with the plug state it had, not the
/// new environment's; a failed attempt is retried by the clock, so nothing stays `tearing_down`
/// without a run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_retried_orphan_of_a_session_that_moved_on_is_torn_down() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 100, "idle_policy": "pause" }))
        .await;
    s.agent("b", json!({})).await;
    let r = s.runner("box", &["a", "b"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let put_state = |run: &FakeRun, value: &str| {
        let path = format!("/v1/runner/runs/{}/plug-state/sandbox", run.id);
        let body = json!({ "entries": { "id": value } });
        let runner = run.runner.clone();
        async move {
            let (status, v) = runner.call(Method::PUT, &path, Some(body)).await;
            assert_eq!(status, StatusCode::OK, "{v}");
        }
    };
    put_state(&run, "sandbox-of-the-old-environment").await;
    run.ok("turn_ended", json!({})).await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({})).await;
    let old_env = s.show(&id).await["environment"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    s.ok(
        Method::POST,
        "/v1/runners/box/scope",
        Some(json!({ "agents": ["b"] })),
    )
    .await;
    s.send(&id, "again").await;
    let other = s.runner("other", &["a"]).await;
    let fresh = other.take_started("start").await;
    assert_eq!(
        fresh.assignment["plug_state"],
        json!([]),
        "the new environment's plugs start with no state"
    );
    put_state(&fresh, "sandbox-of-the-new-environment").await;
    let v = s.show(&id).await;
    assert_ne!(v["environment"]["id"], old_env.as_str());

    // The admin retries the orphan while the session's run goes on elsewhere.
    let retried = s
        .ok(
            Method::POST,
            &format!("/v1/environments/{old_env}/retry"),
            None,
        )
        .await;
    assert_eq!(retried["state"], "tearing_down", "{retried}");
    let teardown = r.take("teardown").await;
    assert_eq!(teardown.assignment["environment_id"], old_env.as_str());
    assert_eq!(
        teardown.assignment["plug_state"][0]["entries"]["id"], "sandbox-of-the-old-environment",
        "{}",
        teardown.assignment
    );
    teardown.ok("started", json!({})).await;
    // A failed attempt: retried by the clock with its own run.
    teardown
        .ok(
            "failed",
            json!({ "phase": "teardown", "error": "busy", "environment": "teardown_failed",
                    "teardown_error": "busy" }),
        )
        .await;
    // Its runner shut down in the middle of one (`cancelled`, the environment intact): the
    // clock offers it again, not the session's own run.
    let cut_short = r.take("teardown").await;
    assert_eq!(cut_short.assignment["environment_id"], old_env.as_str());
    cut_short.ok("started", json!({})).await;
    cut_short
        .ok("cancelled", json!({ "environment": "intact" }))
        .await;
    let again = r.take("teardown").await;
    assert_eq!(again.assignment["environment_id"], old_env.as_str());
    again.ok("started", json!({})).await;
    // What it deletes is the old environment's record, not the session's.
    let (status, _) = again
        .runner
        .call(
            Method::DELETE,
            &format!("/v1/runner/runs/{}/plug-state/sandbox", again.id),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    again.ok("torn_down", json!({})).await;
    let environments = s
        .ok(Method::GET, "/v1/environments?state=torn_down", None)
        .await;
    let old = environments["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == old_env.as_str())
        .unwrap()
        .clone();
    assert_eq!(old["state"], "torn_down", "{old}");
    // The session and its new environment are untouched.
    let v = s.show(&id).await;
    assert_eq!(v["state"], "active", "{v:#}");
    let current = runs(&v)
        .into_iter()
        .find(|r| r["id"] == fresh.id.as_str())
        .unwrap();
    assert_eq!(current["status"], "running", "{v:#}");
    let (_, state) = fresh
        .runner
        .call(
            Method::GET,
            &format!("/v1/runner/runs/{}/plug-state", fresh.id),
            None,
        )
        .await;
    assert_eq!(
        state["records"][0]["entries"]["id"], "sandbox-of-the-new-environment",
        "{state}"
    );
}
