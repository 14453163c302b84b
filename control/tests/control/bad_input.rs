//! Bad input: malformed JSON, unknown ids, wrong tokens, reports for finished runs, reordered or
//! duplicated transcript entries — each a clear 4xx and no change of state. Auth: a runner sees
//! only its own runs.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::*;

async fn raw(
    s: &Server,
    method: Method,
    path: &str,
    token: &str,
    body: &str,
) -> (StatusCode, serde_json::Value) {
    let resp = s
        .http
        .request(method, format!("{}{path}", s.url))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = resp.status();
    (status, resp.json().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_is_a_400_and_changes_nothing() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let before = s.show(&id).await;
    for (path, body) in [
        (
            format!("/v1/runner/runs/{}/reports", run.id),
            "{\"report_id\": \"x\", \"kind\": \"paused\"",
        ),
        (
            format!("/v1/runner/runs/{}/reports", run.id),
            "{\"report_id\": \"x\", \"kind\": \"exploded\"}",
        ),
        (
            format!("/v1/runner/runs/{}/reports", run.id),
            "{\"kind\": \"paused\"}",
        ),
        (
            format!("/v1/runner/runs/{}/transcript", run.id),
            "{\"entries\": [{\"seq\": \"one\"}]}",
        ),
        (
            format!("/v1/runner/runs/{}/plug-state/sandbox", run.id),
            "[]",
        ),
    ] {
        let (status, v) = raw(&s, Method::POST, &path, &r.token, body).await;
        let status = if path.contains("plug-state") {
            raw(&s, Method::PUT, &path, &r.token, body).await.0
        } else {
            status
        };
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path} {body}: {v}");
        if !path.contains("plug-state") {
            assert_eq!(v["error"]["code"], "bad_request");
            assert!(
                v["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("invalid JSON"),
                "{v}"
            );
        }
    }
    let (status, _) = raw(&s, Method::POST, "/v1/sessions", ADMIN, "{\"agent\": 5}").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = raw(
        &s,
        Method::PUT,
        "/v1/agents/a",
        ADMIN,
        "{\"idle_policy\": \"sometimes\"}",
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = s.send(&id, "   ").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "an empty message");
    let after = s.show(&id).await;
    assert_eq!(before["runs"], after["runs"]);
    assert_eq!(before["state"], after["state"]);
    assert_eq!(
        s.ok(Method::GET, "/v1/sessions", None).await["sessions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_ids_are_404() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let (status, v) = s.admin(Method::GET, "/v1/sessions/ses_nope", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(v["error"]["message"].as_str().unwrap().contains("ses_nope"));
    assert_eq!(s.send("ses_nope", "hi").await.0, StatusCode::NOT_FOUND);
    assert_eq!(s.close("ses_nope").await.0, StatusCode::NOT_FOUND);
    assert_eq!(
        s.admin(
            Method::POST,
            "/v1/environments/env_nope/retry",
            Some(json!({}))
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        s.admin(Method::POST, "/v1/runners/nobody/revoke", Some(json!({})))
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    let (status, v) = s
        .admin(
            Method::POST,
            "/v1/sessions",
            Some(json!({ "agent": "ghost", "message": "hi" })),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("blaise agent set ghost")
    );
    assert_eq!(r.accept("run_nope").await.0, StatusCode::NOT_FOUND);
    assert_eq!(
        r.call(
            Method::POST,
            "/v1/runner/runs/run_nope/heartbeat",
            Some(json!({}))
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        r.call(
            Method::POST,
            "/v1/runner/runs/run_nope/reports",
            Some(json!({ "report_id": "1", "kind": "started" }))
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        r.call(
            Method::POST,
            "/v1/runner/connect",
            Some(json!({ "instance": "x", "agents": ["ghost"] }))
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        r.call(
            Method::GET,
            "/v1/runner/offers?instance=never-connected",
            None
        )
        .await
        .0,
        StatusCode::CONFLICT
    );
    assert_eq!(
        s.admin(Method::GET, "/v1/nothing/here", None).await.0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_tokens_are_401() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take("start").await;
    for token in [None, Some("blr_wrong"), Some(ADMIN)] {
        let (status, v) = s
            .call(
                Method::POST,
                &format!("/v1/runner/runs/{}/reports", run.id),
                token,
                Some(json!({ "report_id": "z", "kind": "started" })),
            )
            .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{token:?}: {v}");
    }
    for token in [None, Some("bla_wrong"), Some(r.token.as_str())] {
        let (status, _) = s
            .call(Method::GET, &format!("/v1/sessions/{id}"), token, None)
            .await;
        assert_eq!(
            status,
            StatusCode::UNAUTHORIZED,
            "a runner token is not an admin token"
        );
        let (status, _) = s
            .call(
                Method::POST,
                "/v1/runners",
                token,
                Some(json!({ "name": "sneaky" })),
            )
            .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    assert_eq!(
        last_run(&s.show(&id).await)["status"],
        "accepted",
        "nothing changed"
    );
    s.ok(Method::POST, "/v1/runners/r/revoke", Some(json!({})))
        .await;
    let (status, v) = run.report("started", json!({})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(v["error"]["message"].as_str().unwrap().contains("revoked"));
}

/// "Every runner endpoint needs a runner token and a runner sees only its own runs."
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_sees_only_its_own_runs() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    s.agent("b", json!({})).await;
    let ra = s.runner("ra", &["a"]).await;
    let rb = s.runner("rb", &["b"]).await;
    let id = s.new_session("a", "hello").await;
    assert!(
        rb.offers(300).await.is_empty(),
        "a run of agent a is not offered to a runner of b"
    );
    let offer = ra.offers(2000).await.remove(0);
    let run_id = offer["run_id"].as_str().unwrap();
    assert_eq!(rb.accept(run_id).await.0, StatusCode::NOT_FOUND);
    let run = ra.take_started("start").await;
    for (method, path, body) in [
        (
            Method::GET,
            format!("/v1/runner/runs/{}/directives", run.id),
            None,
        ),
        (
            Method::POST,
            format!("/v1/runner/runs/{}/reports", run.id),
            Some(json!({ "report_id": "x", "kind": "paused" })),
        ),
        (
            Method::POST,
            format!("/v1/runner/runs/{}/transcript", run.id),
            Some(json!({ "entries": [{ "seq": 1, "kind": "x", "content": {} }] })),
        ),
        (
            Method::POST,
            format!("/v1/runner/runs/{}/heartbeat", run.id),
            Some(json!({})),
        ),
        (
            Method::GET,
            format!("/v1/runner/runs/{}/plug-state", run.id),
            None,
        ),
        (
            Method::PUT,
            format!("/v1/runner/runs/{}/acp-session", run.id),
            Some(json!({ "acp_session_id": "x" })),
        ),
    ] {
        let (status, _) = rb.call(method.clone(), &path, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}");
    }
    let v = s.show(&id).await;
    assert_eq!(last_run(&v)["status"], "running");
    assert!(s.transcript(&id).await.iter().all(|e| e["kind"] != "x"));
}

/// "Blaise ignores duplicate reports from finished executions"; a new report for a finished run
/// is refused; a report id is not reused for another report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_reports_are_ignored_and_finished_runs_refuse_new_ones() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 100 })).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    run.turn_ended().await;
    run.wait_directive("stop").await;
    let (status, first) = run.report_with_id("pause-1", "paused", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(first["duplicate"], false);
    let before = s.show(&id).await;
    let (status, again) = run.report_with_id("pause-1", "paused", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again["duplicate"], true);
    let (status, v) = run.report_with_id("pause-1", "torn_down", json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{v}");
    let (status, v) = run.report("torn_down", json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(v["error"]["code"], "run_finished");
    let (status, _) = run
        .transcript(json!([{ "seq": 1, "kind": "late", "content": {} }]))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (status, _) = run
        .runner
        .call(
            Method::POST,
            &format!("/v1/runner/runs/{}/heartbeat", run.id),
            Some(json!({})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a finished run's heartbeat tells it to exit"
    );
    let after = s.show(&id).await;
    assert_eq!(before["runs"], after["runs"]);
    assert_eq!(after["state"], "paused");
    assert_eq!(env_state(&after), "paused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transcript_entries_are_idempotent_and_ordered() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let e = |seq: i64, text: &str| json!({ "seq": seq, "kind": "agent_message", "content": { "text": text } });
    let (status, ack) = run.transcript(json!([e(1, "one"), e(2, "two")])).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        ack,
        json!({ "appended": 2, "duplicates": 0, "last_seq": 2 })
    );
    // The same batch again (its response was lost): nothing new.
    let (status, ack) = run
        .transcript(json!([e(1, "one"), e(2, "two"), e(3, "three")]))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        ack,
        json!({ "appended": 1, "duplicates": 2, "last_seq": 3 })
    );
    // Reordered / a gap: refused whole.
    let (status, v) = run.transcript(json!([e(5, "five"), e(4, "four")])).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(v["error"]["code"], "transcript_gap");
    let (status, _) = run.transcript(json!([e(4, "four"), e(6, "six")])).await;
    assert_eq!(status, StatusCode::CONFLICT);
    // Same seq, other content.
    let (status, v) = run.transcript(json!([e(2, "TWO")])).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(v["error"]["code"], "transcript_conflict");
    let texts: Vec<_> = s
        .transcript(&id)
        .await
        .into_iter()
        .skip(1)
        .map(|e| e["content"]["text"].clone())
        .collect();
    assert_eq!(texts, vec![json!("one"), json!("two"), json!("three")]);
}

/// Idle long polls wait quietly: they neither answer early nor wake one another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_long_polls_do_not_wake_each_other() {
    let s = Server::start().await;
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let polls: Vec<_> = (0..3)
        .map(|_| {
            let state = s.state.clone();
            let calls = calls.clone();
            tokio::spawn(async move {
                state
                    .long_poll(blaise_control::wakeups::Topic::Offers, Some(400), |_| {
                        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        Ok(None::<()>)
                    })
                    .await
                    .unwrap()
            })
        })
        .collect();
    for p in polls {
        assert_eq!(p.await.unwrap(), None);
    }
    let n = calls.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        n <= 12,
        "{n} checks for 3 polls of 400ms: they keep waking each other"
    );
}

/// Names people type that must not be stored: they would reach URL paths, log lines and HTML.
const HOSTILE_NAMES: &[&str] = &[
    "../../x",
    "<script>alert(1)</script>",
    "a\0b",
    "a\nb",
    "a b",
    "Box",
    "-x",
    "runners/box/revoke?",
];

/// `value` percent-encoded as one path segment (so the test reaches the handler with it).
fn seg(value: &str) -> String {
    blaise_control::client::segment("value", value).unwrap()
}

/// Asserts a 400 `invalid_name` that names `field` and states the rule.
fn assert_invalid_name(status: StatusCode, v: &serde_json::Value, field: &str, what: &str) {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {v}");
    assert_eq!(v["error"]["code"], "invalid_name", "{what}: {v}");
    assert_eq!(v["error"]["field"], field, "{what}: {v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("`{field}`")) && message.contains("a-z, 0-9"),
        "{what}: {message}"
    );
    assert!(
        !message.contains('\n') && !message.contains('\0'),
        "{message:?}"
    );
}

/// "Agent and runner names: a documented charset and length" (issue 10): a name that breaks the
/// rule is refused wherever it enters, and nothing is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_that_break_the_rule_are_refused_wherever_they_enter() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let too_long = "a".repeat(65);
    for name in HOSTILE_NAMES.iter().copied().chain([too_long.as_str()]) {
        let (status, v) = s
            .admin(
                Method::PUT,
                &format!("/v1/agents/{}", seg(name)),
                Some(json!({})),
            )
            .await;
        assert_invalid_name(status, &v, "name", &format!("agent set {name:?}"));
        let (status, v) = s
            .admin(Method::GET, &format!("/v1/agents/{}", seg(name)), None)
            .await;
        assert_invalid_name(status, &v, "name", &format!("agent get {name:?}"));
        let (status, v) = s
            .admin(Method::POST, "/v1/runners", Some(json!({ "name": name })))
            .await;
        assert_invalid_name(status, &v, "name", &format!("runner add {name:?}"));
        let revoke = format!("/v1/runners/{}/revoke", seg(name));
        let (status, v) = s.admin(Method::POST, &revoke, Some(json!({}))).await;
        assert_invalid_name(status, &v, "name", &format!("runner revoke {name:?}"));
        let (status, v) = s
            .admin(
                Method::POST,
                "/v1/sessions",
                Some(json!({ "agent": name, "message": "hi" })),
            )
            .await;
        assert_invalid_name(status, &v, "agent", &format!("session new {name:?}"));
        let (status, v) = r
            .call(
                Method::POST,
                "/v1/runner/connect",
                Some(json!({ "instance": "r-1", "agents": ["a", name] })),
            )
            .await;
        assert_invalid_name(status, &v, "agents[1]", &format!("connect {name:?}"));
    }
    let agents = s.ok(Method::GET, "/v1/agents", None).await;
    assert_eq!(agents["agents"].as_array().unwrap().len(), 1, "{agents}");
    let runners = s.ok(Method::GET, "/v1/runners", None).await;
    assert_eq!(runners["runners"].as_array().unwrap().len(), 1, "{runners}");
    let sessions = s.ok(Method::GET, "/v1/sessions", None).await;
    assert!(sessions["sessions"].as_array().unwrap().is_empty());
    // The names the repo's docs, examples and tests use all follow the rule.
    for name in [
        "script",
        "box",
        "default",
        "build-box",
        "build-box-1",
        "claude",
        "0",
    ] {
        s.agent(name, json!({})).await;
        s.add_runner(name).await;
    }
    s.agent(&"a".repeat(64), json!({})).await;
}

/// The embedded API (`blaise-runner dev`, the end-to-end tests) follows the same rule.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_api_refuses_the_same_names() {
    use blaise_control::embedded::Embedded;
    let dir = tempfile::tempdir().unwrap();
    let cp = Embedded::start(
        &dir.path().join("blaise.db"),
        "127.0.0.1:0".parse().unwrap(),
        fast_config(),
    )
    .await
    .unwrap();
    for name in HOSTILE_NAMES {
        let e = cp.set_agent(name, Default::default()).unwrap_err();
        assert!(e.to_string().contains("not a valid name"), "{name:?}: {e}");
        let e = cp.runner_token(name).unwrap_err();
        assert!(e.to_string().contains("not a valid name"), "{name:?}: {e}");
    }
    let e = cp.runner_token(&"r".repeat(65)).unwrap_err();
    assert!(e.to_string().contains("a-z, 0-9"), "{e}");
    cp.set_agent("script", Default::default()).unwrap();
    cp.runner_token("box").unwrap();
    cp.runner_token("box").unwrap();
    let (agents, runners) = cp
        .state
        .read(|ctx| Ok((ctx.tx.agents()?, ctx.tx.runners()?)))
        .await
        .unwrap();
    let agents: Vec<_> = agents.into_iter().map(|a| a.name).collect();
    let runners: Vec<_> = runners.into_iter().map(|r| r.name).collect();
    assert_eq!(agents, ["script"]);
    assert_eq!(runners, ["box", "box-2"]);
}

/// Ids are made by Blaise; one of another shape cannot exist and is a 404 that says what an id
/// looks like (it is not looked up), with what was sent escaped and cut short.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ids_that_cannot_exist_are_404_and_say_what_an_id_is() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let long = "ses_".to_string() + &"0".repeat(5000);
    let bad_ids = [
        "ses_nope",
        "../runners/r/revoke?",
        "<script>x</script>",
        "ses_0123456789abcdef\n",
        "ses_0123456789ABCDEF",
        long.as_str(),
    ];
    for bad in bad_ids {
        let b = seg(bad);
        let none = || None;
        for (method, path, body, what) in [
            (Method::GET, format!("/v1/sessions/{b}"), none(), "session"),
            (
                Method::POST,
                format!("/v1/sessions/{b}/messages"),
                Some(json!({ "text": "hi" })),
                "session",
            ),
            (
                Method::POST,
                format!("/v1/sessions/{b}/close"),
                none(),
                "session",
            ),
            (
                Method::POST,
                format!("/v1/sessions/{b}/cancel"),
                none(),
                "session",
            ),
            (
                Method::GET,
                format!("/v1/sessions/{b}/transcript"),
                none(),
                "session",
            ),
            (
                Method::POST,
                format!("/v1/sessions/{b}/permissions/p1/answer"),
                Some(json!({ "option_id": "ok" })),
                "session",
            ),
            (
                Method::POST,
                format!("/v1/environments/{b}/retry"),
                none(),
                "environment",
            ),
        ] {
            let (status, v) = s.admin(method.clone(), &path, body).await;
            assert_not_an_id(status, &v, what, &format!("{method} {path}"));
        }
        let entry = json!([{ "seq": 1, "kind": "x", "content": {} }]);
        for (method, path, body) in [
            (
                Method::POST,
                format!("/v1/runner/runs/{b}/accept"),
                Some(json!({ "instance": "r-1" })),
            ),
            (
                Method::GET,
                format!("/v1/runner/runs/{b}/directives"),
                none(),
            ),
            (
                Method::POST,
                format!("/v1/runner/runs/{b}/reports"),
                Some(json!({ "report_id": "x", "kind": "paused" })),
            ),
            (
                Method::POST,
                format!("/v1/runner/runs/{b}/transcript"),
                Some(json!({ "entries": entry })),
            ),
            (
                Method::POST,
                format!("/v1/runner/runs/{b}/heartbeat"),
                none(),
            ),
            (
                Method::PUT,
                format!("/v1/runner/runs/{b}/acp-session"),
                Some(json!({ "acp_session_id": "x" })),
            ),
            (
                Method::GET,
                format!("/v1/runner/runs/{b}/plug-state"),
                none(),
            ),
            (
                Method::PUT,
                format!("/v1/runner/runs/{b}/plug-state/sandbox"),
                Some(json!({ "entries": { "k": "v" } })),
            ),
            (
                Method::POST,
                format!("/v1/runner/runs/{b}/permissions"),
                Some(json!({ "request_id": "p1", "request": {} })),
            ),
            (
                Method::GET,
                format!("/v1/runner/runs/{b}/permissions/p1"),
                none(),
            ),
        ] {
            let (status, v) = r.call(method.clone(), &path, body).await;
            assert_not_an_id(status, &v, "run", &format!("{method} {path}"));
        }
    }
    // Permission request ids: the agent's, bounded, with no control characters.
    let (status, v) = r
        .call(
            Method::POST,
            &format!("/v1/runner/runs/{}/permissions", run.id),
            Some(json!({ "request_id": "p\n1", "request": {} })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(v["error"]["code"], "invalid_request_id");
    assert_eq!(v["error"]["field"], "request_id");
    for bad in ["p\n1", &"p".repeat(129)] {
        let path = format!("/v1/runner/runs/{}/permissions/{}", run.id, seg(bad));
        let (status, v) = r.call(Method::GET, &path, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {v}");
    }
    let v = s.show(&id).await;
    assert_eq!(last_run(&v)["status"], "running", "nothing changed");
    assert!(
        v["permission_requests"]
            .as_array()
            .is_none_or(|p| p.is_empty())
    );
}

fn assert_not_an_id(status: StatusCode, v: &serde_json::Value, what: &str, call: &str) {
    assert_eq!(status, StatusCode::NOT_FOUND, "{call}: {v}");
    assert_eq!(v["error"]["code"], "not_found", "{call}: {v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("{what} ids are")) && message.contains("16 hex digits"),
        "{call}: {message}"
    );
    assert!(
        message.len() < 300 && !message.contains('\n'),
        "{call}: {message:?}"
    );
}

/// Plug ids in `/plug-state/{plug}` keep to their charset; nothing is stored otherwise.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plug_ids_outside_their_charset_are_refused() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let long = "p".repeat(129);
    for plug in ["a b", "a/b", "<x>", "a\nb", long.as_str()] {
        let path = format!("/v1/runner/runs/{}/plug-state/{}", run.id, seg(plug));
        for method in [Method::PUT, Method::DELETE] {
            let (status, v) = r
                .call(
                    method.clone(),
                    &path,
                    Some(json!({ "entries": { "k": "v" } })),
                )
                .await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{method} {plug:?}: {v}");
            assert_eq!(v["error"]["code"], "invalid_plug_id", "{v}");
            assert_eq!(v["error"]["field"], "plug", "{v}");
        }
    }
    let path = format!("/v1/runner/runs/{}/plug-state/sandbox.v2", run.id);
    let (status, v) = r
        .call(Method::PUT, &path, Some(json!({ "entries": { "k": "v" } })))
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let records = s.show(&id).await["plug_records"].clone();
    assert_eq!(records.as_array().unwrap().len(), 1, "{records}");
}

/// The dashboard's login `next` goes only to a path on this server: anything a browser could
/// read as another origin goes to `/` instead, and only a plain path is written into the login
/// page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_next_stays_on_this_server() {
    let s = Server::start().await;
    let web = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let login = |next: &str, token: &str| {
        web.post(format!("{}/login", s.url))
            .form(&[("token", token), ("next", next)])
            .send()
    };
    for (next, expected) in [
        (
            "/sessions/ses_0123456789abcdef",
            "/sessions/ses_0123456789abcdef",
        ),
        ("/?a=b", "/?a=b"),
        ("/\\evil.example/", "/"),
        ("//evil.example/", "/"),
        ("/\\/evil.example/", "/"),
        ("\\\\evil.example", "/"),
        ("/a\\b", "/"),
        ("/\t/evil.example", "/"),
        ("/\n/evil.example", "/"),
        ("/ /evil.example", "/"),
        ("https://evil.example/", "/"),
        ("javascript:alert(1)", "/"),
        ("evil.example", "/"),
        ("/caf\u{e9}", "/"),
    ] {
        let resp = login(next, ADMIN).await.unwrap();
        assert_eq!(resp.status(), StatusCode::SEE_OTHER, "{next:?}");
        assert_eq!(resp.headers()["location"], expected, "{next:?}");
    }
    // A wrong token: the login page, without what `next` carried (the login page keeps only a
    // plain path to go back to).
    let resp = login("/\"><script>alert(1)</script>", "bla_wrong")
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    let page = resp.text().await.unwrap();
    assert!(!page.contains("alert(1)"), "{page}");
    let page = web
        .get(format!(
            "{}/login?next=/%22%3E%3Cscript%3Ealert(1)%3C/script%3E",
            s.url
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!page.contains("alert(1)"), "{page}");
}

/// What a runner chooses (its instance name, report ids, its agent's session id, entry kinds) is
/// bounded and has no control characters: 400 `invalid_field` naming the field, nothing stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_a_runner_chooses_are_bounded() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let long = "x".repeat(129);
    for bad in ["", "two\nlines", long.as_str()] {
        let (status, body) = run.report_with_id(bad, "turn_ended", json!({})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["error"]["code"], "invalid_field", "{body}");
        assert_eq!(body["error"]["field"], "report_id", "{body}");
        let (status, body) = run
            .transcript(json!([{ "seq": 1, "kind": bad, "content": { "text": "x" } }]))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["error"]["field"], "entries[0].kind", "{body}");
        let (status, body) = r
            .call(
                Method::PUT,
                &format!("/v1/runner/runs/{}/acp-session", run.id),
                Some(json!({ "acp_session_id": bad })),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["error"]["field"], "acp_session_id", "{body}");
        let (status, body) = r
            .call(
                Method::POST,
                "/v1/runner/connect",
                Some(json!({ "instance": bad, "agents": ["a"] })),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["error"]["field"], "instance", "{body}");
    }
    // Nothing was recorded: the next entry is still number 1.
    let (status, body) = run
        .transcript(json!([{ "seq": 1, "kind": "agent_message", "content": { "text": "x" } }]))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// A message is masked and stored whole: one larger than Blaise takes is
/// refused, saying the limit, and nothing is created.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_message_is_refused_before_anything_is_stored() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let big = "password=".repeat(blaise_control::lifecycle::messages::MAX_MESSAGE / 9 + 1);
    let (status, v) = s
        .admin(
            Method::POST,
            "/v1/sessions",
            Some(json!({ "agent": "a", "message": big })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("at most"),
        "{v}"
    );
    let (_, list) = s.admin(Method::GET, "/v1/sessions", None).await;
    assert_eq!(list["sessions"], json!([]), "{list}");
}

/// A client that opens connections and never finishes a request (slowloris)
/// cannot hold them: a connection with no complete request head within the
/// header timeout is closed, also one that sent nothing at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_never_finishes_its_request_is_closed() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = Server::with_config(blaise_control::config::Config {
        header_read_timeout_ms: 500,
        ..fast_config()
    })
    .await;
    let addr = s.url.trim_start_matches("http://").to_string();
    let mut held = Vec::new();
    for partial in [
        "",
        "GET / HTTP/1.1\r\n",
        "POST /login HTTP/1.1\r\nHost: x\r\n",
    ] {
        let mut conn = tokio::net::TcpStream::connect(&addr).await.unwrap();
        conn.write_all(partial.as_bytes()).await.unwrap();
        held.push((partial, conn));
    }
    for (partial, mut conn) in held {
        let mut buf = [0u8; 256];
        let read = tokio::time::timeout(std::time::Duration::from_secs(20), conn.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("the server still holds {partial:?} after 20 s"));
        assert!(
            matches!(read, Ok(0) | Err(_)),
            "{partial:?}: the connection is closed, not answered: {read:?}"
        );
    }
    // A client that sends its request serves as ever.
    let (status, _) = raw(&s, Method::GET, "/v1/health", "", "").await;
    assert_eq!(status, StatusCode::OK);
}

/// What a runner lists (its agents, a chain of plug ids) is bounded and
/// checked; an error text of any length is recorded, cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_runner_lists_and_writes_is_bounded() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let agents: Vec<String> = (0..65).map(|i| format!("a{i}")).collect();
    for (agents, field) in [
        (json!(agents), "agents"),
        (json!(["a", "../a"]), "agents[1]"),
    ] {
        let (status, body) = r
            .call(
                Method::POST,
                "/v1/runner/connect",
                Some(json!({ "instance": "second", "agents": agents })),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["error"]["field"], field, "{body}");
    }
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let many: Vec<String> = (0..257).map(|i| format!("p{i}")).collect();
    for (report, field) in [
        (
            json!({ "can_resume": false, "plugs_that_cannot": many }),
            "plugs_that_cannot",
        ),
        (
            json!({ "can_resume": true, "chain": ["ok", "../x"] }),
            "chain[1]",
        ),
    ] {
        let (status, body) = run
            .report_with_id("bounded-1", "plugs_can_resume", report)
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["error"]["field"], field, "{body}");
    }
    let (status, body) = run
        .report_with_id(
            "bounded-2",
            "turn_ended",
            json!({ "message_id": "msg\u{0}x" }),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let huge = "e".repeat(1 << 20);
    let failed = json!({ "phase": "agent", "error": huge });
    let (status, body) = run
        .report_with_id("bounded-3", "failed", failed.clone())
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = run.report_with_id("bounded-3", "failed", failed).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["duplicate"], true,
        "the same report resent is a duplicate: {body}"
    );
    let view = s.show(&id).await.to_string();
    let max = blaise_control::lifecycle::reports::MAX_ERROR;
    assert!(view.contains(&"e".repeat(max)), "the error is kept");
    assert!(!view.contains(&"e".repeat(max + 1)), "the error is cut");
    assert!(
        view.contains(&format!("[{} bytes cut]", (1 << 20) - max)),
        "{}",
        &view[..2000]
    );
}
