//! Linear as a message source: "a Linear agent session is a Blaise session", against the
//! stand-in for Linear's API in `tests/src/linear_api.rs` (Linear cannot be reached from here).

use std::sync::Arc;
use std::time::{Duration, Instant};

use blaise_control::sources::Sources;
use blaise_control::sources::linear::App;
use blaise_control::sources::linear::config::{AppConfig, Auth};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::linear_api::*;
use crate::support::*;

async fn webhook_as(s: &Server, event: &Value, delivery: &str, secret: &str) -> StatusCode {
    post_webhook(&s.api.http, &s.api.url, event, delivery, secret).await
}

async fn webhook(s: &Server, event: &Value) -> StatusCode {
    webhook_as(s, event, &delivery(), SECRET).await
}

async fn setup(settings: Value) -> (Server, FakeRunner, StandIn) {
    let linear = StandIn::start().await;
    let s = Server::with_sources(fast_config(), linear.app("coder", "a")).await;
    s.agent("a", settings).await;
    let r = s.runner("r", &["a"]).await;
    (s, r, linear)
}

/// A mention opens a session whose first message is Linear's prompt context; Linear hears a
/// thought within two seconds and then the agent's work: its text before acting as a thought, the
/// tool call as an action with its command and result, its last words as the response.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mention_opens_a_session_whose_work_linear_sees_as_activities() {
    let (s, r, linear) = setup(json!({})).await;
    let asked = Instant::now();
    assert_eq!(
        webhook(&s, &created("as-1", "@blaise please fix it")).await,
        StatusCode::OK
    );
    let first = linear.wait_activities("as-1", 1).await;
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "first activity after {:?}",
        asked.elapsed()
    );
    assert_eq!(kinds(&first), ["thought"]);
    let id = session_of(&linear, "as-1").await;
    let view = s.show(&id).await;
    assert_eq!(view["agent"], "a");
    assert_eq!(
        view["source"],
        json!({ "kind": "linear", "name": "linear:coder", "thread": "as-1", "label": "ENG-123",
                "title": "Fix the flaky parser test",
                "url": "https://linear.app/acme/issue/ENG-123/fix-the-flaky-parser-test" })
    );
    let page = s.page(&format!("/sessions/{id}")).await;
    assert!(
        page.contains("From Linear (linear:coder): <a href=\"https://linear.app/acme/issue/ENG-123/fix-the-flaky-parser-test\""),
        "the session's page links back to the issue"
    );
    let transcript = s.transcript(&id).await;
    let first_message = transcript[0]["content"]["text"].as_str().unwrap();
    assert!(
        first_message.contains("please fix it") && first_message.contains("ENG-123"),
        "the prompt context is the first message: {first_message}"
    );
    assert_eq!(transcript[0]["content"]["from"], "linear:coder");
    assert!(
        page.contains("<header>Linear (coder) · "),
        "the page says who sent the message (not \"You\")"
    );

    let run = r.take_started("start").await;
    let entries = json!([
        { "seq": 1, "kind": "agent_message", "content": { "text": "I will run ", "stream": "m1", "last": false } },
        { "seq": 2, "kind": "agent_message", "content": { "text": "the tests.", "stream": "m1", "last": true } },
        { "seq": 3, "kind": "tool_call", "content": { "text": "", "stream": "t1", "last": true,
            "tool_call": { "id": "t1", "title": "Run the tests", "kind": "execute", "status": "in_progress", "command": "cargo test -p parser" } } },
        { "seq": 4, "kind": "tool_call", "content": { "text": "", "stream": "t1", "last": true,
            "tool_call": { "id": "t1", "title": "Run the tests", "kind": "execute", "status": "completed", "command": "cargo test -p parser", "output": "test result: ok. 12 passed" } } },
        { "seq": 5, "kind": "agent_message", "content": { "text": "All 12 ", "stream": "m2", "last": false } },
    ]);
    let (status, v) = run.transcript(entries).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    // The turn goes on: its last text is not told yet.
    let told = linear.wait_activities("as-1", 3).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(linear.activities("as-1").len(), 3, "{told:#?}");
    let (status, v) = run
        .transcript(json!([{ "seq": 6, "kind": "agent_message", "content": { "text": "tests pass now.", "stream": "m2", "last": true } }]))
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    run.turn_ended().await;
    let all = linear.wait_activities("as-1", 4).await;
    assert_eq!(kinds(&all), ["thought", "thought", "action", "response"]);
    assert_eq!(all[1]["content"]["body"], "I will run the tests.");
    assert_eq!(all[2]["content"]["parameter"], "cargo test -p parser");
    assert!(
        all[2]["content"]["result"]
            .as_str()
            .unwrap()
            .contains("12 passed")
    );
    assert_eq!(all[3]["content"]["body"], "All 12 tests pass now.");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(linear.activities("as-1").len(), 4, "nothing is told twice");
    let links = linear.seen.lock().unwrap().links.clone();
    assert_eq!(
        links[0].1,
        json!([{ "label": "Blaise session", "url": format!("https://blaise.example.com/sessions/{id}") }])
    );
}

/// A permission request is an elicitation offering its options; the user's choice in Linear
/// answers it; a follow-up is a prompt to the run; `stop` cancels the turn; a follow-up to a
/// paused session resumes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permissions_follow_ups_and_stop_from_linear_act_on_the_session() {
    let (s, r, linear) = setup(json!({ "inactivity_ms": 300, "idle_policy": "pause" })).await;
    assert_eq!(
        webhook(&s, &created("as-2", "@blaise clean up")).await,
        StatusCode::OK
    );
    let id = session_of(&linear, "as-2").await;
    let run = r.take_started("start").await;
    let request = json!({ "request_id": "perm-1", "tool_call": { "title": "rm -rf build/" },
        "options": [ { "option_id": "allow", "name": "Allow", "kind": "allow_once" },
                     { "option_id": "reject", "name": "Reject", "kind": "reject_once" } ] });
    let (status, v) = r
        .call(
            Method::POST,
            &format!("/v1/runner/runs/{}/permissions", run.id),
            Some(json!({ "request_id": "perm-1", "request": request })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let (status, v) = run
        .transcript(json!([{ "seq": 1, "kind": "permission_request",
            "content": { "text": "rm -rf build/?", "stream": "p1", "last": true, "permission": request } }]))
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let told = linear.wait_activities("as-2", 2).await;
    assert_eq!(told[1]["content"]["type"], "elicitation");
    assert_eq!(told[1]["signal"], "select");
    assert_eq!(
        told[1]["signalMetadata"]["options"],
        json!([{ "label": "Allow", "value": "Allow" }, { "label": "Reject", "value": "Reject" }])
    );

    assert_eq!(
        webhook(&s, &prompted("as-2", "act-1", "Allow", None)).await,
        StatusCode::OK
    );
    let answer = run.wait_directive("permission_answer").await;
    assert_eq!(answer["option_id"], "allow");
    // Kept with who answered: the Linear app, through Linear.
    let asked = s.show(&id).await["permission_requests"][0].clone();
    assert_eq!(asked["answered_by"], "linear:coder", "{asked}");
    assert_eq!(asked["answered_via"], "linear", "{asked}");

    assert_eq!(
        webhook(
            &s,
            &prompted("as-2", "act-2", "also update the changelog", None)
        )
        .await,
        StatusCode::OK
    );
    let prompt = run.wait_directive("prompt").await;
    assert_eq!(prompt["text"], "also update the changelog");

    assert_eq!(
        webhook(&s, &prompted("as-2", "act-3", "", Some("stop"))).await,
        StatusCode::OK
    );
    run.wait_directive("cancel").await;
    let told = linear.wait_activities("as-2", 3).await;
    assert_eq!(told[2]["content"]["type"], "response");
    assert!(
        told[2]["content"]["body"]
            .as_str()
            .unwrap()
            .starts_with("Stopped")
    );

    // The turns end, the session falls idle and pauses; a word from Linear resumes it.
    run.turn_ended().await;
    run.turn_ended().await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({})).await;
    s.wait_state(&id, "paused").await;
    drop(run);
    assert_eq!(
        webhook(&s, &prompted("as-2", "act-4", "one more thing", None)).await,
        StatusCode::OK
    );
    let resume = r.take("resume").await;
    assert_eq!(resume.assignment["session_id"], id.as_str());
}

/// The seeds' refusals, answered in Linear: a message to an ended session, to a session whose
/// environment is orphaned ("an admin must retry the teardown"), to a conversation Blaise has no
/// session for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_answered_in_linear() {
    let (s, r, linear) = setup(json!({ "inactivity_ms": 100, "idle_policy": "pause" })).await;

    // Orphaned: paused, closed, and every teardown fails.
    assert_eq!(
        webhook(&s, &created("as-3", "@blaise x")).await,
        StatusCode::OK
    );
    let orphan = session_of(&linear, "as-3").await;
    let run = r.take_started("start").await;
    run.turn_ended().await;
    run.wait_directive("stop").await;
    run.ok("paused", json!({})).await;
    drop(run);
    s.close(&orphan).await;
    for _ in 0..3 {
        r.take("teardown")
            .await
            .ok(
                "failed",
                json!({ "phase": "teardown", "error": "docker: permission denied" }),
            )
            .await;
    }
    assert_eq!(env_state(&s.show(&orphan).await), "orphaned");
    // Blaise's notice of the orphaning reaches Linear as an error of its own.
    linear
        .wait_body("as-3", "the environment is orphaned")
        .await;
    assert_eq!(
        webhook(&s, &prompted("as-3", "act-5", "are you there?", None)).await,
        StatusCode::OK
    );
    let refused = linear
        .wait_body("as-3", "the message was not accepted")
        .await;
    assert_eq!(refused["content"]["type"], "error", "{refused}");
    assert!(
        refused["content"]["body"]
            .as_str()
            .unwrap()
            .contains("an admin must retry the teardown"),
        "{refused}"
    );

    // Ended: a session closed with its teardown done.
    assert_eq!(
        webhook(&s, &created("as-4", "@blaise y")).await,
        StatusCode::OK
    );
    let ended = session_of(&linear, "as-4").await;
    // Its turn stays open, so that it does not fall idle and pause before it is closed.
    let run = r.take_started("start").await;
    let close = tokio::spawn({
        let api = Api::at(&s.url);
        let ended = ended.clone();
        async move {
            api.admin(Method::POST, &format!("/v1/sessions/{ended}/close"), None)
                .await
        }
    });
    run.wait_directive("stop").await;
    run.ok("torn_down", json!({})).await;
    close.await.unwrap();
    drop(run);
    assert_eq!(
        webhook(&s, &prompted("as-4", "act-6", "and now?", None)).await,
        StatusCode::OK
    );
    let refused = linear.wait_body("as-4", "has ended").await;
    assert_eq!(refused["content"]["type"], "error", "{refused}");

    // A conversation Blaise never opened a session for.
    assert_eq!(
        webhook(&s, &prompted("as-unknown", "act-7", "hello?", None)).await,
        StatusCode::OK
    );
    let told = linear.wait_activities("as-unknown", 1).await;
    assert_eq!(told[0]["content"]["type"], "error");
}

/// A bad signature and an old timestamp are refused before anything is read; a delivery sent
/// again, or the same event under another delivery, is answered and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_old_and_replayed_webhooks_change_nothing() {
    let (s, _r, linear) = setup(json!({})).await;
    let sessions = |s: &Server| {
        let api = Api::at(&s.url);
        async move {
            api.ok(Method::GET, "/v1/sessions", None).await["sessions"]
                .as_array()
                .unwrap()
                .len()
        }
    };
    let event = created("as-5", "@blaise z");
    assert_eq!(
        webhook_as(&s, &event, &delivery(), "not-the-secret").await,
        StatusCode::UNAUTHORIZED
    );
    let mut old = event.clone();
    old["webhookTimestamp"] = json!(now_ms() - 120_000);
    assert_eq!(webhook(&s, &old).await, StatusCode::UNAUTHORIZED);
    // Signed, then changed on the way.
    let body = serde_json::to_vec(&event).unwrap();
    let signature = sign(&body, SECRET);
    let mut tampered = event.clone();
    tampered["agentSession"]["comment"]["body"] = json!("@blaise rm -rf /");
    let status = s
        .http
        .post(format!("{}/v1/sources/linear/coder", s.url))
        .header("linear-delivery", delivery())
        .header("linear-signature", signature)
        .body(serde_json::to_vec(&tampered).unwrap())
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(sessions(&s).await, 0);

    let once = delivery();
    assert_eq!(webhook_as(&s, &event, &once, SECRET).await, StatusCode::OK);
    assert_eq!(
        webhook_as(&s, &event, &once, SECRET).await,
        StatusCode::OK,
        "the same delivery"
    );
    assert_eq!(
        webhook(&s, &event).await,
        StatusCode::OK,
        "the same event, another delivery"
    );
    assert_eq!(sessions(&s).await, 1);
    let id = session_of(&linear, "as-5").await;
    let follow = prompted("as-5", "act-8", "and the docs", None);
    assert_eq!(webhook(&s, &follow).await, StatusCode::OK);
    assert_eq!(webhook(&s, &follow).await, StatusCode::OK);
    let users = s
        .transcript(&id)
        .await
        .iter()
        .filter(|e| e["kind"] == "user_message")
        .count();
    assert_eq!(users, 2, "the first message and one follow-up");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        kinds(&linear.activities("as-5")),
        ["thought"],
        "one acknowledgement"
    );
    // An unknown app is not found; a body that is not an agent session event is taken and ignored.
    let status = s
        .http
        .post(format!("{}/v1/sources/linear/other", s.url))
        .body("{}")
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::NOT_FOUND);
    let issue =
        json!({ "type": "Issue", "action": "update", "webhookTimestamp": now_ms(), "data": {} });
    assert_eq!(webhook(&s, &issue).await, StatusCode::OK);
}

/// Linear's rate limit is waited out (not before its reset) and an outage is retried: everything
/// arrives once, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_and_outages_delay_activities_but_lose_none() {
    let (s, r, linear) = setup(json!({})).await;
    linear.seen.lock().unwrap().failures.extend([429, 503]);
    assert_eq!(
        webhook(&s, &created("as-6", "@blaise go")).await,
        StatusCode::OK
    );
    let id = session_of(&linear, "as-6").await;
    let run = r.take_started("start").await;
    for (seq, text) in [(1, "one"), (2, "two")] {
        let (status, _) = run
            .transcript(json!([
                { "seq": seq * 2 - 1, "kind": "agent_thought", "content": { "text": text, "stream": format!("th{seq}"), "last": true } },
                { "seq": seq * 2, "kind": "tool_call", "content": { "text": "", "stream": format!("t{seq}"), "last": true,
                    "tool_call": { "id": format!("t{seq}"), "title": format!("step {text}"), "status": "completed" } } },
            ]))
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    run.turn_ended().await;
    let told = linear.wait_activities("as-6", 5).await;
    assert_eq!(
        kinds(&told),
        ["thought", "thought", "action", "thought", "action"]
    );
    assert_eq!(told[1]["content"]["body"], "one");
    assert_eq!(told[4]["content"]["action"], "step two");
    let seen = linear.seen.lock().unwrap();
    let (reset, retried) = (seen.reset_at.unwrap(), seen.retried_at.unwrap());
    assert!(
        retried >= reset,
        "retried {} ms before the reset",
        reset - retried
    );
    assert!(!id.is_empty());
}

/// Each turn's answer reaches Linear once, apart from the next, in order: through an outage
/// that lasts two turns, and when Blaise told Linear an answer but stopped before recording it
/// (a restart while Linear was slow), the answer told again is the same activity (its id), which
/// Linear already has, never one glued to the next turn's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_turns_answer_reaches_linear_once_apart_through_outages_and_restarts() {
    let (s, r, linear) = setup(json!({})).await;
    assert_eq!(
        webhook(&s, &created("as-10", "@blaise echo")).await,
        StatusCode::OK
    );
    let id = session_of(&linear, "as-10").await;
    linear.wait_activities("as-10", 1).await;
    let run = r.take_started("start").await;
    let mut seq = 0;
    let mut turn = |text: &'static str| {
        seq += 1;
        let n = seq;
        let run = &run;
        async move {
            let message = run.wait_directive("prompt").await["message_id"].clone();
            let (status, v) = run
                .transcript(json!([{ "seq": n, "kind": "agent_message",
                    "content": { "text": text, "stream": format!("m{n}"), "last": true } }]))
                .await;
            assert_eq!(status, StatusCode::OK, "{v}");
            run.ok("turn_ended", json!({ "message_id": message })).await;
        }
    };
    let answers = |linear: &StandIn| -> Vec<String> {
        linear
            .activities("as-10")
            .iter()
            .filter(|a| a["content"]["type"] == "response")
            .map(|a| a["content"]["body"].as_str().unwrap().to_string())
            .collect()
    };

    // Linear is away for two turns.
    linear.seen.lock().unwrap().down = true;
    turn("ECHO: first").await;
    assert_eq!(
        webhook(&s, &prompted("as-10", "act-1", "second", None)).await,
        StatusCode::OK
    );
    turn("ECHO: second").await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    linear.seen.lock().unwrap().down = false;
    linear.wait_body("as-10", "ECHO: second").await;
    assert_eq!(answers(&linear), ["ECHO: first", "ECHO: second"]);

    // Told, but not recorded as told (Blaise stopped in between): the thread's record goes back.
    assert_eq!(
        webhook(&s, &prompted("as-10", "act-2", "third", None)).await,
        StatusCode::OK
    );
    turn("ECHO: third").await;
    linear.wait_body("as-10", "ECHO: third").await;
    let before = s
        .state
        .write(|ctx| {
            let mut thread = ctx.tx.source_thread("linear:coder", "as-10")?.unwrap();
            let before = thread.delivered;
            thread.delivered = 0;
            ctx.tx.put_source_thread(&thread)?;
            Ok(before)
        })
        .await
        .unwrap();
    assert!(before > 0);
    assert_eq!(
        webhook(&s, &prompted("as-10", "act-3", "fourth", None)).await,
        StatusCode::OK
    );
    turn("ECHO: fourth").await;
    linear.wait_body("as-10", "ECHO: fourth").await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        answers(&linear),
        ["ECHO: first", "ECHO: second", "ECHO: third", "ECHO: fourth"],
        "each once, apart, in order"
    );
    assert!(!id.is_empty());
}

/// A webhook Blaise answered is acted on even if Blaise stops before telling Linear anything:
/// what waits to go out is stored, and the next `blaise serve` sends it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_acknowledged_before_a_restart_is_acted_on() {
    let (mut s, _r, linear) = setup(json!({})).await;
    linear.seen.lock().unwrap().down = true;
    assert_eq!(
        webhook(&s, &created("as-7", "@blaise restart-proof")).await,
        StatusCode::OK
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    s.restart(linear.app("coder", "a")).await;
    linear.seen.lock().unwrap().down = false;
    let told = linear.wait_activities("as-7", 1).await;
    assert_eq!(kinds(&told), ["thought"]);
    let id = session_of(&linear, "as-7").await;
    assert_eq!(s.show(&id).await["state"], "active");
}

/// Delegated an issue not yet started, the agent moves it to its team's first started state (the
/// one of lowest position); an issue it was only mentioned in, or one already started, stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delegated_issue_moves_to_its_teams_first_started_state() {
    let (s, _r, linear) = setup(json!({})).await;
    for (session, issue) in [
        ("as-8", "issue-9"),
        ("as-9", "issue-1"),
        ("as-10", "issue-10"),
    ] {
        assert_eq!(
            webhook(&s, &created_on(session, "@blaise take it", issue)).await,
            StatusCode::OK
        );
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while linear.seen.lock().unwrap().moves.is_empty() {
        assert!(
            Instant::now() < deadline,
            "the delegated issue was not moved"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for session in ["as-9", "as-10"] {
        session_of(&linear, session).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let seen = linear.seen.lock().unwrap();
    assert_eq!(
        seen.moves,
        [("issue-9".to_string(), "st-progress".to_string())]
    );
}

/// With the app's client credentials, Blaise asks Linear for an app token, and for a new one when
/// Linear refuses the old (it expired, or another was asked for).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_get_an_app_token_and_a_new_one_when_refused() {
    let linear = StandIn::start().await;
    let sources = Sources {
        linear: vec![Arc::new(App::new(AppConfig {
            name: "coder".into(),
            agent: "a".into(),
            webhook_secret: SECRET.into(),
            auth: Auth::ClientCredentials {
                id: "client-1".into(),
                secret: "client-secret-1".into(),
            },
            public_url: None,
            api_url: linear.url.clone(),
        }))],
    };
    let s = Server::with_sources(fast_config(), sources).await;
    s.agent("a", json!({})).await;
    assert_eq!(
        webhook(&s, &created("as-11", "@blaise one")).await,
        StatusCode::OK
    );
    linear.wait_activities("as-11", 1).await;
    assert_eq!(linear.seen.lock().unwrap().tokens_given, 1);
    // Another token is given elsewhere: the one Blaise holds is refused from now on.
    linear.seen.lock().unwrap().app_token = Some("lin_app_token_elsewhere".into());
    assert_eq!(
        webhook(&s, &created("as-12", "@blaise two")).await,
        StatusCode::OK
    );
    linear.wait_activities("as-12", 1).await;
    assert_eq!(
        linear.seen.lock().unwrap().tokens_given,
        2,
        "asked again once"
    );
}

/// `blaise serve` killed (SIGKILL) right after it answered a webhook, before it could tell Linear
/// anything: the next `blaise serve` on the same database tells Linear what waited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blaise_serve_killed_after_answering_a_webhook_still_acts_on_it() {
    let linear = StandIn::start().await;
    linear.seen.lock().unwrap().down = true;
    let dir = tempfile::tempdir().unwrap();
    // The database of this pass: a SQLite file, or a PostgreSQL database of this test's own.
    let (store, pg) = open_store(dir.path());
    drop(store);
    let db = match &pg {
        Some(pg) => pg.url.clone(),
        None => dir.path().join("blaise.db").display().to_string(),
    };
    let config = dir.path().join("linear.yml");
    std::fs::write(
        &config,
        format!(
            "apps:\n  - name: coder\n    agent: a\n    webhook_secret: {{ env: LINEAR_TEST_SECRET }}\n    access_token: {{ env: LINEAR_TEST_TOKEN }}\n    public_url: https://blaise.example.com\n    api_url: {}\n",
            linear.url
        ),
    )
    .unwrap();
    let serve = |port: u16| {
        std::process::Command::new(env!("CARGO_BIN_EXE_blaise"))
            .args([
                "serve",
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--linear",
            ])
            .arg(&config)
            .env("BLAISE_DB", &db)
            .env("BLAISE_TOKEN", ADMIN)
            .env("LINEAR_TEST_SECRET", SECRET)
            .env("LINEAR_TEST_TOKEN", TOKEN)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let up = |api: &Api| {
        let api = Api::at(&api.url);
        async move {
            let deadline = Instant::now() + Duration::from_secs(20);
            while api
                .http
                .get(format!("{}/v1/health", api.url))
                .send()
                .await
                .is_err()
            {
                assert!(Instant::now() < deadline, "blaise serve did not start");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    let port = free_port();
    let mut first = serve(port);
    let api = Api::at(&format!("http://127.0.0.1:{port}"));
    up(&api).await;
    let (status, v) = api
        .admin(Method::PUT, "/v1/agents/a", Some(json!({})))
        .await;
    assert!(status.is_success(), "{v}");
    let event = created("as-13", "@blaise survive this");
    assert_eq!(
        post_webhook(&api.http, &api.url, &event, &delivery(), SECRET).await,
        StatusCode::OK
    );
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(linear.activities("as-13").is_empty(), "Linear was away");

    linear.seen.lock().unwrap().down = false;
    let port = free_port();
    let mut second = serve(port);
    let api = Api::at(&format!("http://127.0.0.1:{port}"));
    up(&api).await;
    let told = linear.wait_activities("as-13", 1).await;
    assert_eq!(kinds(&told), ["thought"]);
    let id = session_of(&linear, "as-13").await;
    let (_, view) = api
        .admin(Method::GET, &format!("/v1/sessions/{id}"), None)
        .await;
    assert_eq!(view["source"]["thread"], "as-13");
    second.kill().unwrap();
    second.wait().unwrap();
}
