//! "The life of a session": which runner resumes, closing, plug records, cancellation,
//! permission requests and the conversation.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::failures::paused_session;
use crate::support::*;

async fn two_runners() -> (Server, FakeRunner, FakeRunner) {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 100, "idle_policy": "pause" }))
        .await;
    let a = s.runner("ra", &["a"]).await;
    let b = s.runner("rb", &["a"]).await;
    (s, a, b)
}

/// "A resume or teardown run is offered only to the runner that ran the session before …; if it
/// is only offline, the run waits for it." The resume loads the recorded ACP session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_waits_for_the_runner_that_ran_the_session() {
    let (s, a, b) = two_runners().await;
    let id = s.new_session("a", "hello").await;
    // Only b polls: a start run can go to any runner.
    let run = b.take("start").await;
    let (status, _) = b
        .call(
            Method::PUT,
            &format!("/v1/runner/runs/{}/acp-session", run.id),
            Some(json!({ "acp_session_id": "acp-42" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    run.ok("started", json!({})).await;
    run.turn_ended().await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({})).await;
    drop(run);
    s.send(&id, "again").await;
    assert!(
        a.offers(500).await.is_empty(),
        "the resume is not offered to another runner"
    );
    tokio::time::sleep(Duration::from_millis(800)).await;
    let v = s.show(&id).await;
    assert_eq!(
        last_run(&v)["status"],
        "offered",
        "it waits while its runner is offline"
    );
    let resume = b.take("resume").await;
    assert_eq!(resume.assignment["acp_session_id"], "acp-42");
    assert_eq!(resume.assignment["environment_id"], v["environment"]["id"]);
}

/// "Instances that share one runner token count as one runner, so any of them can take the run."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_instance_of_the_same_runner_takes_the_resume() {
    let (s, a, _b) = two_runners().await;
    let id = paused_session(&s, &a).await;
    s.send(&id, "again").await;
    let a2 = a.instance("ra-2", &["a"]).await;
    let resume = a2.take("resume").await;
    let (status, body) = a.accept(&resume.id).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "one instance takes it: {body}"
    );
    let (status, again) = a2.accept(&resume.id).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "accepting again from the same instance is idempotent"
    );
    assert_eq!(again, resume.assignment);
}

/// "If that runner was revoked, any runner that matches the agent's requirements takes the run
/// and starts a fresh environment."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_its_runner_is_revoked_any_runner_starts_afresh() {
    let (s, a, b) = two_runners().await;
    let id = paused_session(&s, &a).await;
    let old_env = s.show(&id).await["environment"]["id"].clone();
    s.send(&id, "again").await;
    s.ok(Method::POST, "/v1/runners/ra/revoke", Some(json!({})))
        .await;
    let start = b.take("start").await;
    assert_ne!(start.assignment["environment_id"], old_env);
    assert_eq!(start.assignment["fresh_environment"], true);
    assert_eq!(start.wait_directive("prompt").await["text"], "again");
    let (status, _) = a
        .call(Method::GET, "/v1/runner/offers?instance=ra-1", None)
        .await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "a revoked token is refused"
    );
}

/// "When someone ends a running session …, the session shows as complete as soon as the run has
/// received the stop, and the run then tears down."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_running_session_stops_its_run() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = std::sync::Arc::new(r.take_started("start").await);
    run.wait_directive("prompt").await;
    let listener = run.clone();
    let stop = tokio::spawn(async move { listener.wait_directive("stop").await });
    let (status, v) = s.close(&id).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["state"], "closed");
    let stop = stop.await.unwrap();
    assert_eq!(stop["reason"], "closed");
    assert_eq!(stop["may_resume"], false);
    run.ok("torn_down", json!({})).await;
    assert_eq!(env_state(&s.show(&id).await), "torn_down");
    let (status, body) = s.send(&id, "one more thing").await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "follow-ups to an ended session are rejected"
    );
    assert_eq!(body["error"]["code"], "session_ended");
}

/// "If no runner is connected to receive the stop, the request fails with an error and changes
/// nothing, so it can be repeated."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_without_a_connected_runner_fails_and_changes_nothing() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let before = s.show(&id).await;
    let (status, body) = s.close(&id).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"]["code"], "no_runner_connected");
    let after = s.show(&id).await;
    assert_eq!(after["state"], "active");
    assert_eq!(after["runs"], before["runs"]);
    let kinds: Vec<_> = run
        .directives(0)
        .await
        .into_iter()
        .map(|d| d["kind"].clone())
        .collect();
    assert_eq!(
        kinds,
        vec![json!("prompt")],
        "the withdrawn stop never reaches the run"
    );
    // Repeated with the run listening, it works.
    let run = std::sync::Arc::new(run);
    let listener = run.clone();
    let stop = tokio::spawn(async move { listener.wait_directive("stop").await });
    let (status, v) = s.close(&id).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["state"], "closed");
    stop.await.unwrap();
}

/// Closing a paused session ends it and starts a teardown run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_paused_session_tears_its_environment_down() {
    let (s, a, _b) = two_runners().await;
    let id = paused_session(&s, &a).await;
    let (status, v) = s.close(&id).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(v["state"], "closed");
    let teardown = a.take("teardown").await;
    assert_eq!(teardown.assignment["teardown_reason"], "closed");
    teardown.ok("torn_down", json!({})).await;
    let (status, _) = s.close(&id).await;
    assert_eq!(status, StatusCode::CONFLICT);
}

/// "A stateful plug removed from the file leaves a record that no plug can tear down, which the
/// dashboard lists as one that nothing owns"; reordering changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plug_records_of_removed_plugs_are_owned_by_nothing() {
    let (s, a, _b) = two_runners().await;
    let id = s.new_session("a", "hello").await;
    let run = a.take("start").await;
    assert_eq!(
        run.assignment["plug_state"],
        json!([]),
        "a new session has none"
    );
    run.plugs(true, &["checkout", "sandbox", "cache"]).await;
    for plug in ["sandbox", "cache"] {
        let (status, body) = a
            .call(
                Method::PUT,
                &format!("/v1/runner/runs/{}/plug-state/{plug}", run.id),
                Some(json!({ "entries": { "id": format!("{plug}-7") } })),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    run.ok("started", json!({})).await;
    run.turn_ended().await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({})).await;
    s.send(&id, "again").await;
    let resume = a.take("resume").await;
    // The assignment carries the session's state: the run reads it without
    // another round trip.
    let mut carried: Vec<(String, String)> = resume.assignment["plug_state"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["plug_id"].to_string(), r["entries"]["id"].to_string()))
        .collect();
    carried.sort();
    assert_eq!(
        carried,
        [
            (r#""cache""#.into(), r#""cache-7""#.into()),
            (r#""sandbox""#.into(), r#""sandbox-7""#.into())
        ]
    );
    // blaise.yml changed while paused: reordered, and the `cache` plug removed.
    resume.plugs(true, &["sandbox", "checkout"]).await;
    let (status, state) = a
        .call(
            Method::GET,
            &format!("/v1/runner/runs/{}/plug-state", resume.id),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let sandbox = state["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["plug_id"] == "sandbox")
        .unwrap()
        .clone();
    assert_eq!(
        sandbox["entries"]["id"], "sandbox-7",
        "a stateful plug keeps its state across reorderings"
    );
    // A finished run reads nothing: the session may since have moved to
    // another runner (a failed start run is offered again, to anyone).
    let (status, body) = a
        .call(
            Method::GET,
            &format!("/v1/runner/runs/{}/plug-state", run.id),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"]["code"], "run_finished", "{body}");
    // Nor does its assignment, asked for again, carry any.
    let (status, again) = a.accept(&run.id).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert!(again.get("plug_state").is_none(), "{again}");
    let v = s.show(&id).await;
    let owned: Vec<(String, bool)> = v["plug_records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["plug_id"].as_str().unwrap().to_string(),
                p["owned"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        owned,
        vec![("cache".to_string(), false), ("sandbox".to_string(), true)]
    );
    let (status, _) = a
        .call(
            Method::DELETE,
            &format!("/v1/runner/runs/{}/plug-state/cache", resume.id),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        s.show(&id).await["plug_records"].as_array().unwrap().len(),
        1
    );
}

/// SIGINT/SIGTERM: "The run ends as cancelled and tears down its plugs." The next message
/// starts a fresh environment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_run_tears_down_and_the_next_message_starts_afresh() {
    let (s, a, _b) = two_runners().await;
    let id = s.new_session("a", "hello").await;
    let run = a.take_started("start").await;
    run.wait_directive("prompt").await;
    run.turn_ended().await;
    run.ok("cancelled", json!({ "environment": "torn_down" }))
        .await;
    let v = s.show(&id).await;
    assert_eq!(last_run(&v)["status"], "cancelled");
    assert_eq!(env_state(&v), "torn_down");
    assert_eq!(v["state"], "paused");
    // Paused with no environment: the view says what the next message does.
    assert_eq!(v["starts_fresh"], true, "{v:#}");
    let human = ok(&s, &["session", "show", &id]);
    assert!(
        human.contains("its environment is gone: the next message starts a new one"),
        "{human}"
    );
    s.send(&id, "still there?").await;
    let start = a.take("start").await;
    assert_eq!(start.assignment["fresh_environment"], true);
    assert_eq!(s.show(&id).await.get("starts_fresh"), None);
}

/// Permission requests go to Blaise; the answer comes back on the directive stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_requests_are_answered_on_the_directive_stream() {
    let (s, a, _b) = two_runners().await;
    let id = s.new_session("a", "delete the branch").await;
    let run = a.take_started("start").await;
    let ask = json!({ "request_id": "perm-1", "request": { "tool": "git push --force", "options": [{ "id": "allow" }, { "id": "deny" }] } });
    let (status, first) = a
        .call(
            Method::POST,
            &format!("/v1/runner/runs/{}/permissions", run.id),
            Some(ask.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, again) = a
        .call(
            Method::POST,
            &format!("/v1/runner/runs/{}/permissions", run.id),
            Some(ask),
        )
        .await;
    assert_eq!(first, again, "asking twice is idempotent");
    assert_eq!(
        s.show(&id).await["permission_requests"][0]["state"],
        "pending"
    );
    s.ok(
        Method::POST,
        &format!("/v1/sessions/{id}/permissions/perm-1/answer"),
        Some(json!({ "option_id": "deny" })),
    )
    .await;
    let answer = run.wait_directive("permission_answer").await;
    assert_eq!(answer["option_id"], "deny");
    let (_, polled) = a
        .call(
            Method::GET,
            &format!("/v1/runner/runs/{}/permissions/perm-1", run.id),
            None,
        )
        .await;
    assert_eq!(polled["answer"], "deny");
    let (status, _) = s
        .admin(
            Method::POST,
            &format!("/v1/sessions/{id}/permissions/perm-1/answer"),
            Some(json!({ "option_id": "allow" })),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    // A turn can be cancelled.
    s.ok(
        Method::POST,
        &format!("/v1/sessions/{id}/cancel"),
        Some(json!({})),
    )
    .await;
    run.wait_directive("cancel").await;
}

/// A request nobody answered ends with its run (`cancelled`): it no longer shows as waiting, and
/// an answer to it is refused, saying why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_request_ends_with_its_run() {
    let (s, a, _b) = two_runners().await;
    let id = s.new_session("a", "delete the branch").await;
    let run = a.take_started("start").await;
    let (status, _) = a
        .call(
            Method::POST,
            &format!("/v1/runner/runs/{}/permissions", run.id),
            Some(json!({ "request_id": "perm-1", "request": { "options": [{ "option_id": "allow" }] } })),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    run.ok(
        "failed",
        json!({ "phase": "agent", "error": "the agent exited" }),
    )
    .await;
    let view = s.show(&id).await;
    assert_eq!(
        view["permission_requests"][0]["state"], "cancelled",
        "{view:#}"
    );
    let (status, refused) = s
        .admin(
            Method::POST,
            &format!("/v1/sessions/{id}/permissions/perm-1/answer"),
            Some(json!({ "option_id": "allow" })),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    let said = refused["error"]["message"].as_str().unwrap();
    assert!(
        said.contains("can no longer be answered") && said.contains("ended (failed)"),
        "{refused}"
    );
}

/// The transcript holds the user's messages, the run's entries and Blaise's notices, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_transcript_follows_the_conversation() {
    let (s, a, _b) = two_runners().await;
    let id = s.new_session("a", "hello").await;
    let run = a.take_started("start").await;
    run.say("hi").await;
    run.say("how can I help?").await;
    let kinds: Vec<_> = s
        .transcript(&id)
        .await
        .into_iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["content"]["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("user_message".into(), "hello".into()),
            ("agent_message".into(), "hi".into()),
            ("agent_message".into(), "how can I help?".into())
        ]
    );
    // Long poll: a follower (a query after the transcript's path) is woken by the next entry.
    let follow = |query: String| {
        let (http, url) = (s.http.clone(), s.url.clone());
        let path = format!("/v1/sessions/{id}/transcript?{query}");
        tokio::spawn(async move {
            let t0 = std::time::Instant::now();
            let page = http
                .get(format!("{url}{path}"))
                .bearer_auth(ADMIN)
                .send()
                .await
                .unwrap()
                .json::<serde_json::Value>()
                .await
                .unwrap();
            (page, t0.elapsed())
        })
    };
    let follower = follow("after=3&wait_ms=2000".into());
    tokio::time::sleep(Duration::from_millis(100)).await;
    run.say("done").await;
    let (page, _) = follower.await.unwrap();
    assert_eq!(page["entries"][0]["content"]["text"], "done");

    // With the state last seen, a follower is also woken when the session changes state.
    let follow_state =
        |state: &str, wait_ms: u64| follow(format!("after=4&wait_ms={wait_ms}&state={state}"));
    let (page, waited) = follow_state("paused", 2_000).await.unwrap();
    assert_eq!(
        page["session_state"], "active",
        "answered at once: {waited:?}"
    );
    assert!(waited < Duration::from_millis(1_500) && page["entries"] == json!([]));
    let follower = follow_state("active", 5_000);
    tokio::time::sleep(Duration::from_millis(100)).await;
    run.turn_ended().await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({})).await;
    let (page, waited) = follower.await.unwrap();
    assert_eq!(page["session_state"], "paused");
    assert!(
        waited < Duration::from_secs(4),
        "woken by the pause: {waited:?}"
    );
    let (status, v) = s
        .admin(
            Method::GET,
            &format!("/v1/sessions/{id}/transcript?state=asleep"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
}

/// A message that arrives while the run is pausing waits, and wakes the session once the pause
/// is reported: a resume run answers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_during_a_pause_waits_for_the_resume() {
    let (s, a, _b) = two_runners().await;
    let id = s.new_session("a", "hello").await;
    let run = a.take_started("start").await;
    run.wait_directive("prompt").await;
    run.turn_ended().await;
    assert_eq!(run.wait_directive("stop").await["may_resume"], true);
    let (status, message) = s.send(&id, "wait, one more thing").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        message["state"], "waiting",
        "a stopping run takes no prompt"
    );
    run.ok("paused", json!({})).await;
    let v = s.show(&id).await;
    assert_eq!(v["state"], "active");
    assert_eq!(env_state(&v), "paused");
    let resume = a.take("resume").await;
    assert_eq!(
        resume.wait_directive("prompt").await["text"],
        "wait, one more thing"
    );
}

/// A revoked runner's running run goes silent (its token is refused), times out, and the session
/// continues on another runner in a fresh environment; the old one is listed as orphaned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_runners_running_session_moves_to_another_runner() {
    let (s, a, b) = two_runners().await;
    let id = s.new_session("a", "hello").await;
    let run = a.take_started("start").await;
    let old_env = s.show(&id).await["environment"]["id"].clone();
    s.ok(Method::POST, "/v1/runners/ra/revoke", Some(json!({})))
        .await;
    let (status, _) = run.report("turn_ended", json!({})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let start = b.take("start").await;
    assert_eq!(start.assignment["fresh_environment"], true);
    assert_eq!(
        start.wait_directive("prompt").await["text"],
        "hello",
        "the unanswered message goes along"
    );
    let orphaned = s
        .ok(Method::GET, "/v1/environments?state=orphaned", None)
        .await;
    assert_eq!(orphaned["environments"][0]["id"], old_env);
    assert!(
        orphaned["environments"][0]["last_error"]
            .as_str()
            .unwrap()
            .contains("revoked")
    );
}

/// A close that races with a pause: the run pauses before reading the stop, and the session is
/// closed anyway (a teardown run follows), without waiting for the close timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_while_the_run_pauses_closes_the_paused_session() {
    let s = Server::with_config(blaise_control::config::Config {
        close_wait_ms: 5_000,
        ..fast_config()
    })
    .await;
    s.agent("a", json!({ "inactivity_ms": 150 })).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.wait_directive("prompt").await;
    run.turn_ended().await;
    run.wait_directive("stop").await;
    let closing = {
        let (http, url) = (s.http.clone(), format!("{}/v1/sessions/{id}/close", s.url));
        tokio::spawn(async move {
            let t0 = std::time::Instant::now();
            let resp = http
                .post(url)
                .bearer_auth(ADMIN)
                .json(&json!({}))
                .send()
                .await
                .unwrap();
            (resp.status(), t0.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    run.ok("paused", json!({})).await;
    let (status, took) = closing.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert!(
        took < Duration::from_secs(4),
        "closed in {took:?}, not after the close timeout"
    );
    assert_eq!(s.show(&id).await["state"], "closed");
    r.take("teardown").await.ok("torn_down", json!({})).await;
}

/// A secret pasted into a message is masked before Blaise stores it: the
/// transcript, the message's answer and the prompt a run gets never hold it;
/// the rest of the text is as typed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_pasted_into_a_message_is_masked_before_it_is_stored() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let token = "ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ";
    let id = s
        .new_session("a", &format!("push with {token} please"))
        .await;
    let run = r.take("start").await;
    run.ok("started", json!({})).await;
    let prompt = run.wait_directive("prompt").await;
    assert_eq!(prompt["text"], "push with [REDACTED:github-token] please");
    run.turn_ended().await;

    let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACDx\n-----END OPENSSH PRIVATE KEY-----";
    let (status, answer) = s
        .send(
            &id,
            &format!("and AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYzQ7XKq9Vt2Lm\n{key}"),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let prompt = run.wait_directive("prompt").await;
    let text = prompt["text"].as_str().unwrap();
    assert!(
        text.starts_with("and AWS_SECRET_ACCESS_KEY=[REDACTED:"),
        "{text}"
    );
    let stored = serde_json::to_string(&s.transcript(&id).await).unwrap() + &answer.to_string();
    for secret in [
        token,
        "wJalrXUtnFEMIK7MDENG",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUA",
    ] {
        assert!(!stored.contains(secret), "{secret} stored: {stored}");
        assert!(!text.contains(secret), "{secret} sent to the run: {text}");
    }
    assert!(
        stored.contains("push with [REDACTED:github-token] please"),
        "{stored}"
    );
}

/// What users type to an agent every day is stored as typed: shell with
/// variables and substitutions, names of secrets without values, prose.
#[test]
fn ordinary_messages_are_stored_as_typed() {
    use blaise_control::mask::masked;
    for text in [
        "run echo \"pwd=$(pwd) home=$HOME pid1=$(cat /proc/1/comm) host=$(hostname)\"",
        "env AGENT_TOKEN\nrun echo \"$AGENT_TOKEN\" | cut -c1-12; echo \"$AGENT_TOKEN\" | cut -c13-\nsay end",
        "say hello from the agent\nenv DEPLOY_TOKEN",
        "run echo \"wip=$(cat wip.txt) readme=$(tr '\\n' ' ' < README.md) upstream=$(git rev-parse origin/main)\"",
        "Please rotate the API key and set password: <the new one> in the vault",
        "git checkout 4f9c2e1b8a7d6c5e4f3a2b1c0d9e8f7a6b5c4d3e && cargo test --release",
        "the request id was 123e4567-e89b-12d3-a456-426614174000, see sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ] {
        assert_eq!(masked(text), text);
    }
}

/// Issue "Egress policy": what left the agent's network namespace is counted "per destination
/// per run, in the run's record". A resent report counts once; two reports add up; the agent's
/// destination names are shown escaped; a malformed one is refused and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_egress_counts_are_kept_on_the_run() {
    let s = Server::start().await;
    // The turn stays open while the run reports: the idle clock does not run.
    s.agent("a", json!({ "inactivity_ms": 100, "idle_policy": "pause" }))
        .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let first = json!({
        "reached": [{ "destination": "api.anthropic.com:443", "connections": 3, "sent": 1200, "received": 56000 }],
        "refused": ["evil.example:443"],
    });
    for duplicate in [false, true] {
        let (status, ack) = run.report_with_id("eg-1", "egress", first.clone()).await;
        assert_eq!(status, StatusCode::OK, "{ack}");
        assert_eq!(ack["duplicate"], duplicate);
    }
    run.ok(
        "egress",
        json!({
            "reached": [
                { "destination": "api.anthropic.com:443", "connections": 1, "sent": 10, "received": 20 },
                { "destination": "10.0.0.7:5432", "connections": 1, "sent": 5, "received": 7 },
            ],
            "refused": ["evil.example:443", "x\u{1b}[31m.example:443"],
            "refused_more": 2,
        }),
    )
    .await;
    for bad in [
        json!({ "reached": [{ "destination": "a:443" }], "refused": [] }),
        json!({ "reached": "lots", "refused": [] }),
        json!({ "reached": [{ "destination": "a:443", "connections": -1, "sent": 0, "received": 0 }], "refused": [] }),
    ] {
        let (status, answer) = run.report("egress", bad.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {answer}");
    }

    let egress = &s.show(&id).await["runs"][0]["egress"];
    assert_eq!(
        egress["reached"],
        json!([
            { "destination": "10.0.0.7:5432", "connections": 1, "sent": 5, "received": 7 },
            { "destination": "api.anthropic.com:443", "connections": 4, "sent": 1210, "received": 56020 },
        ])
    );
    assert_eq!(
        egress["refused"],
        json!(["evil.example:443", "x\\u{1b}[31m.example:443"])
    );
    assert_eq!(egress["refused_more"], 2);
    // The operator's terminal: under the run, one line per destination.
    let human = ok(&s, &["session", "show", &id]);
    for line in [
        "    reached api.anthropic.com:443: 4 connections, 1210 B sent, 54 KiB received",
        "    reached 10.0.0.7:5432: 1 connection, 5 B sent, 7 B received",
        "    refused evil.example:443, x\\u{1b}[31m.example:443, and 2 more refusals of other destinations",
    ] {
        assert!(human.contains(line), "{line:?} in:\n{human}");
    }
    // A run without an egress policy has no such record.
    let other = paused_session(&s, &r).await;
    assert_eq!(s.show(&other).await["runs"][0].get("egress"), None);
}

/// Hot resume: an idle stop asks for a hot pause only when the agent has a hot time and the run
/// said it keeps processes; while the instance that kept the agent is connected and the hot time
/// lasts, the resume is offered to it alone, and the offers poll tells it when to let go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_agent_brings_the_resume_to_its_instance_until_its_hot_time_ends() {
    let s = Server::start().await;
    s.agent(
        "a",
        json!({ "inactivity_ms": 100, "idle_policy": "pause", "hot_for_ms": 1_500 }),
    )
    .await;
    let a1 = s.runner("ra", &["a"]).await;
    let a2 = a1.instance("ra-2", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = a1.take("start").await;
    run.send(blaise_protocol::ReportBody::PlugsCanResume {
        can_resume: true,
        plugs_that_cannot: vec![],
        chain: Some(vec!["docker".into()]),
        keeps_processes: true,
    })
    .await;
    run.send(blaise_protocol::ReportBody::Started { conversation: None })
        .await;
    run.ok("turn_ended", json!({})).await;
    let stop = run.wait_directive("stop").await;
    assert_eq!(stop["keep_agent"], true, "{stop}");
    run.ok("paused", json!({ "agent_kept": true })).await;
    drop(run);
    let kept = |r: &FakeRunner| {
        let r = r.clone();
        let id = id.clone();
        async move {
            let (status, v) = r
                .call(
                    Method::GET,
                    &format!(
                        "/v1/runner/offers?instance={}&wait_ms=0&kept={id}",
                        r.instance
                    ),
                    None,
                )
                .await;
            assert_eq!(status, StatusCode::OK, "{v}");
            v
        }
    };
    assert_eq!(
        kept(&a1).await["release_agents"],
        serde_json::Value::Null,
        "kept while hot"
    );
    assert_eq!(
        kept(&a2).await["release_agents"],
        json!([id]),
        "another instance keeps nothing of it"
    );

    s.send(&id, "again").await;
    assert!(
        a2.offers(300).await.is_empty(),
        "the resume goes to the keeping instance alone"
    );
    let resume = a1.take("resume").await;
    drop(resume);

    // Another session, paused hot: after its hot time, the keeper is told to let go, and the
    // resume is anyone's.
    let other = s.new_session("a", "hello").await;
    let run = a1.take("start").await;
    run.send(blaise_protocol::ReportBody::PlugsCanResume {
        can_resume: true,
        plugs_that_cannot: vec![],
        chain: Some(vec![]),
        keeps_processes: true,
    })
    .await;
    run.send(blaise_protocol::ReportBody::Started { conversation: None })
        .await;
    run.ok("turn_ended", json!({})).await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({ "agent_kept": true })).await;
    drop(run);
    tokio::time::sleep(Duration::from_millis(1_600)).await;
    let (_, v) = a1
        .call(
            Method::GET,
            &format!("/v1/runner/offers?instance=ra-1&wait_ms=0&kept={other}"),
            None,
        )
        .await;
    assert_eq!(v["release_agents"], json!([other]), "{v}");
    s.send(&other, "later").await;
    a2.take("resume").await;
}

/// Without a hot time, or from a run that cannot keep its agent, every pause is cold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_asks_for_a_hot_pause_only_when_the_agent_and_the_run_allow_it() {
    for (hot_for_ms, keeps_processes) in [(0, true), (600_000, false)] {
        let s = Server::start().await;
        s.agent(
            "a",
            json!({ "inactivity_ms": 100, "idle_policy": "pause", "hot_for_ms": hot_for_ms }),
        )
        .await;
        let r = s.runner("r", &["a"]).await;
        s.new_session("a", "hello").await;
        let run = r.take("start").await;
        run.send(blaise_protocol::ReportBody::PlugsCanResume {
            can_resume: true,
            plugs_that_cannot: vec![],
            chain: Some(vec![]),
            keeps_processes,
        })
        .await;
        run.send(blaise_protocol::ReportBody::Started { conversation: None })
            .await;
        run.ok("turn_ended", json!({})).await;
        let stop = run.wait_directive("stop").await;
        assert_eq!(stop["keep_agent"], serde_json::Value::Null, "{stop}");
        assert_eq!(stop["may_resume"], true, "{stop}");
    }
}
