//! What needs a person reaches them (issue 52): a session whose agent waits for an answer to a
//! permission request is `waiting for you` in the API's list (with a filter), `session list`,
//! the dashboard (its row, a section of its own, a count in the navigation and the page's
//! title) and `/metrics`; once answered, from anywhere, every one of them says so. On SQLite
//! and PostgreSQL alike.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::*;

/// What an agent asks before it removes `target/`, as a runner sends it.
pub fn removal(request_id: &str) -> Value {
    json!({
        "request_id": request_id,
        "request": {
            "request_id": request_id,
            "tool_call": { "id": "tc-1", "title": "Remove target/", "kind": "delete",
                           "status": "pending", "command": "rm -rf target" },
            "options": [
                { "option_id": "allow", "name": "Allow", "kind": "allow_once" },
                { "option_id": "reject", "name": "Reject", "kind": "reject_once" }
            ]
        }
    })
}

/// Asks `request` (see [`removal`]) in `run`.
pub async fn ask(r: &FakeRunner, run: &FakeRun, request: Value) {
    let (status, body) = r
        .call(
            Method::POST,
            &format!("/v1/runner/runs/{}/permissions", run.id),
            Some(request),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn metrics(s: &Server) -> String {
    reqwest::get(format!("{}/metrics", s.url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// The ids the API lists, with `query`.
async fn listed(s: &Server, query: &str) -> Vec<(String, u64)> {
    let list = s
        .ok(Method::GET, &format!("/v1/sessions{query}"), None)
        .await;
    list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_owned(),
                v["pending_permission_requests"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_waiting_for_an_answer_is_seen_everywhere_until_it_is_answered() {
    let s = Server::start().await;
    // Names of their own: the metrics are this test process's, shared by the tests.
    s.agent("asker-w1", json!({})).await;
    let r = s.runner("asker-r1", &["asker-w1"]).await;
    let asking = s.new_session("asker-w1", "clean up").await;
    let run = r.take_started("start").await;
    let quiet = s.new_session("asker-w1", "just talk").await;
    let _quiet_run = r.take_started("start").await;
    ask(&r, &run, removal("perm-1")).await;

    // The API: a count on every session, and a filter.
    let all = listed(&s, "").await;
    assert!(all.contains(&(asking.clone(), 1)), "{all:?}");
    assert!(all.contains(&(quiet.clone(), 0)), "{all:?}");
    assert_eq!(
        listed(&s, "?waiting_for_you=true").await,
        vec![(asking.clone(), 1)]
    );
    // The CLI.
    let line = |out: &str, id: &str| {
        out.lines()
            .find(|l| l.starts_with(id))
            .map(str::to_owned)
            .unwrap_or_default()
    };
    let out = ok(&s, &["session", "list"]);
    assert!(line(&out, &asking).contains(" waiting for you "), "{out}");
    assert!(line(&out, &quiet).contains(" active "), "{out}");
    let out = ok(&s, &["session", "list", "--waiting-for-you"]);
    assert!(out.contains(&asking) && !out.contains(&quiet), "{out}");
    // The metrics.
    let m = metrics(&s).await;
    assert!(
        m.contains("blaise_permission_requests_pending{agent=\"asker-w1\"} 1\n"),
        "{m}"
    );
    // The dashboard: the row, the section, the count and the title, on every page.
    let page = s.page("/").await;
    assert!(
        page.contains("<title>(1) Sessions · Blaise</title>"),
        "{page}"
    );
    assert!(page.contains("id=\"waiting-count\""), "{page}");
    assert!(
        page.contains(&format!(
            "<tr class=\"waiting-for-you\" data-session=\"{asking}\">"
        )) && page.contains("Remove target/"),
        "{page}"
    );
    assert!(page.contains("state-waiting_for_you\">waiting for you<"));
    let agents = s.page("/agents").await;
    assert!(
        agents.contains("<title>(1) Agents · Blaise</title>"),
        "{agents}"
    );
    let filtered = s.page("/?state=waiting_for_you").await;
    assert!(
        filtered.contains(&format!("data-session=\"{asking}\""))
            && !filtered.contains(&format!("class=\"session\" data-session=\"{quiet}\"")),
        "{filtered}"
    );

    // Answered (here through the API): nothing waits any more, anywhere.
    s.ok(
        Method::POST,
        &format!("/v1/sessions/{asking}/permissions/perm-1/answer"),
        Some(json!({ "option_id": "allow" })),
    )
    .await;
    assert_eq!(listed(&s, "?waiting_for_you=true").await, vec![]);
    // Who answered, through what, and when, is kept with the answer and said where it is shown.
    let answered = s.show(&asking).await["permission_requests"][0].clone();
    assert_eq!(answered["answered_by"], "admin", "{answered}");
    assert_eq!(answered["answered_via"], "api", "{answered}");
    assert!(answered["answered_at"].is_i64(), "{answered}");
    let (status, again) = s
        .admin(
            Method::POST,
            &format!("/v1/sessions/{asking}/permissions/perm-1/answer"),
            Some(json!({ "option_id": "reject" })),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(
        again
            .to_string()
            .contains("already answered by admin through api: allow"),
        "{again}"
    );
    let shown = ok(&s, &["session", "show", &asking]);
    assert!(
        shown.contains(
            "permission requests answered:\n  perm-1  Remove target/  allow by admin through api, "
        ),
        "{shown}"
    );
    let page = s.page(&format!("/sessions/{asking}")).await;
    assert!(
        page.contains("Remove target/: <b>allow</b> — admin through api, <time"),
        "{page}"
    );
    let out = ok(&s, &["session", "list"]);
    assert!(!out.contains("waiting for you"), "{out}");
    let m = metrics(&s).await;
    assert!(
        !m.contains("blaise_permission_requests_pending{agent=\"asker-w1\"}"),
        "{m}"
    );
    let page = s.page("/").await;
    assert!(page.contains("<title>Sessions · Blaise</title>"), "{page}");
    assert!(!page.contains("waiting-count") && !page.contains("Waiting for you"));

    // A request whose run ends without an answer stops waiting too.
    ask(&r, &run, removal("perm-2")).await;
    assert_eq!(listed(&s, "?waiting_for_you=true").await.len(), 1);
    run.ok(
        "failed",
        json!({ "phase": "agent", "error": "the agent exited" }),
    )
    .await;
    assert_eq!(listed(&s, "?waiting_for_you=true").await, vec![]);
}

/// An unknown filter is refused, naming it, not ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sessions_list_refuses_a_filter_it_does_not_know() {
    let s = Server::start().await;
    let (status, body) = s
        .admin(Method::GET, "/v1/sessions?waiting_for=me", None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("invalid query: ") && m.contains("waiting_for")),
        "{body}"
    );
}
