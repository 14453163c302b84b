//! Retention and paging: an ended session's transcript, directives and
//! reports are pruned once the operator's retention has passed (never by
//! default), and a transcript is read page by page.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::*;

/// A session that said `entries` things and was closed; its run torn down.
async fn ended_session(s: &Server, r: &FakeRunner, entries: usize) -> String {
    let id = s.new_session("a", "hello").await;
    let run = std::sync::Arc::new(r.take_started("start").await);
    run.wait_directive("prompt").await;
    for i in 0..entries {
        run.say(&format!("line {i}")).await;
    }
    let listener = run.clone();
    let stop = tokio::spawn(async move { listener.wait_directive("stop").await });
    let (status, v) = s.close(&id).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    stop.await.unwrap();
    run.ok("torn_down", json!({})).await;
    assert_eq!(env_state(&s.show(&id).await), "torn_down");
    id
}

async fn page(s: &Server, id: &str, query: &str) -> serde_json::Value {
    s.ok(
        Method::GET,
        &format!("/v1/sessions/{id}/transcript?{query}"),
        None,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ended_sessions_are_pruned_after_the_retention_and_only_then() {
    let s = Server::with_config(blaise_control::config::Config {
        retain_ended_ms: Some(300),
        ..fast_config()
    })
    .await;
    s.agent("a", json!({})).await;
    // A session that stays active (no runner serves its agent), older than
    // the ended one: only ended sessions are pruned.
    s.agent("b", json!({})).await;
    let alive = s.new_session("b", "still here").await;
    let r = s.runner("r", &["a"]).await;
    let id = ended_session(&s, &r, 3).await;
    // Within the retention, all is there: the message, the three lines, the ending.
    assert!(s.transcript(&id).await.len() >= 4);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let pruned = loop {
        let v = page(&s, &id, "after=0").await;
        if v["pruned_at"].is_i64() {
            break v;
        }
        assert!(std::time::Instant::now() < deadline, "never pruned: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(pruned["entries"], json!([]));
    assert_eq!(pruned["session_state"], "closed");
    // The session itself stays, saying when it was pruned.
    let view = s.show(&id).await;
    assert_eq!(view["state"], "closed");
    assert_eq!(view["pruned_at"], pruned["pruned_at"]);
    // Well past the retention for the active session too.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(s.show(&alive).await["state"], "active");
    assert_eq!(s.transcript(&alive).await.len(), 1);
    assert!(page(&s, &alive, "after=0").await.get("pruned_at").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_retention_nothing_is_pruned() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let id = ended_session(&s, &r, 2).await;
    let before = s.transcript(&id).await;
    assert!(before.len() >= 3);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let v = page(&s, &id, "after=0").await;
    assert_eq!(v["entries"].as_array().unwrap(), &before);
    assert!(v.get("pruned_at").is_none(), "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_transcript_is_read_page_by_page() {
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let id = ended_session(&s, &r, 9).await;
    let mut after = 0;
    let mut seen = Vec::new();
    loop {
        let v = page(&s, &id, &format!("after={after}&limit=4")).await;
        let entries = v["entries"].as_array().unwrap();
        assert!(entries.len() <= 4, "{v}");
        if entries.is_empty() {
            break;
        }
        after = entries.last().unwrap()["index"].as_i64().unwrap();
        seen.extend(entries.iter().map(|e| e["index"].as_i64().unwrap()));
    }
    let all: Vec<i64> = s
        .transcript(&id)
        .await
        .iter()
        .map(|e| e["index"].as_i64().unwrap())
        .collect();
    assert!(all.len() > 8, "{all:?}");
    assert_eq!(seen, all, "every entry once, in order");
    for bad in ["limit=0", "limit=1001", "limit=-1", "limit=x"] {
        let (status, v) = s
            .admin(
                Method::GET,
                &format!("/v1/sessions/{id}/transcript?{bad}"),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {v}");
    }
}
