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
                    .long_poll(blaise_control::changes::Topic::Offers, Some(400), |_| {
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
