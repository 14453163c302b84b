//! `GET /metrics`: the counts an operator alerts on, in the Prometheus exposition format. The
//! gauges are read from this server's store (exact here); the counters belong to the process,
//! which runs many test servers, so they are checked to grow. A real Prometheus scrapes the
//! `blaise` binary in `tests/tests/metrics.rs`.

use std::collections::BTreeMap;

use serde_json::json;

use crate::support::*;

/// Every sample of an exposition text: `name{labels}` → value.
pub fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let (key, value) = l.rsplit_once(' ')?;
            Some((key.to_string(), value.parse().ok()?))
        })
        .collect()
}

async fn scrape(s: &Server) -> (String, BTreeMap<String, f64>) {
    let resp = reqwest::get(format!("{}/metrics", s.url)).await.unwrap();
    assert!(resp.status().is_success(), "{}", resp.status());
    let content_type = resp.headers()["content-type"].to_str().unwrap().to_string();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    let text = resp.text().await.unwrap();
    let map = samples(&text);
    (text, map)
}

fn value(samples: &BTreeMap<String, f64>, key: &str) -> f64 {
    samples.get(key).copied().unwrap_or(0.0)
}

/// Sessions and environments by state, runs waiting and how long the oldest waited, connected
/// instances: as the store holds them at the scrape. Transitions, offers, ends, reports and the
/// clock are counted as they commit. No token is needed and no id or name is shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_show_the_store_now_and_count_what_happened() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 100, "idle_policy": "pause" }))
        .await;
    s.agent("nobody-serves", json!({})).await;
    // The clock's lease is taken by a task of its own just after the server starts.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let first = loop {
        let (_, first) = scrape(&s).await;
        if value(&first, "blaise_clock_held") == 1.0 || std::time::Instant::now() > deadline {
            break first;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(
        value(&first, "blaise_clock_held"),
        1.0,
        "one instance: it runs the clock"
    );

    let r = s.runner("box", &["a"]).await;
    let paused = crate::failures::paused_session(&s, &r).await;
    let waiting = s.new_session("nobody-serves", "anyone?").await;
    let active = s.new_session("a", "second").await;
    let run = r.take_started("start").await;
    run.transcript(json!([
        { "seq": 1, "kind": "agent_message", "content": { "text": "working" } },
        { "seq": 2, "kind": "agent_message", "content": { "text": " on it" } }
    ]))
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;

    let (text, now) = scrape(&s).await;
    assert_eq!(
        value(&now, r#"blaise_sessions{state="paused"}"#),
        1.0,
        "{text}"
    );
    assert_eq!(
        value(&now, r#"blaise_sessions{state="active"}"#),
        2.0,
        "{text}"
    );
    assert_eq!(
        value(&now, r#"blaise_runs{status="offered"}"#),
        1.0,
        "{text}"
    );
    assert_eq!(
        value(&now, r#"blaise_runs{status="accepted"}"#)
            + value(&now, r#"blaise_runs{status="running"}"#),
        1.0,
        "{text}"
    );
    assert!(
        value(&now, "blaise_oldest_run_waiting_seconds") >= 1.0,
        "the run of {waiting} waits: {text}"
    );
    assert_eq!(
        value(&now, r#"blaise_environments{state="paused"}"#),
        1.0,
        "{text}"
    );
    assert_eq!(
        value(&now, "blaise_runner_instances_connected"),
        1.0,
        "{text}"
    );

    let grew = |key: &str, by: f64| {
        assert!(
            value(&now, key) - value(&first, key) >= by,
            "{key} grew by {by} at least: {text}"
        )
    };
    grew(
        r#"blaise_session_transitions_total{from="new",to="active"}"#,
        3.0,
    );
    grew(
        r#"blaise_session_transitions_total{from="active",to="paused"}"#,
        1.0,
    );
    grew(r#"blaise_runs_offered_total{kind="start"}"#, 3.0);
    grew(
        r#"blaise_runs_ended_total{kind="start",status="paused"}"#,
        1.0,
    );
    grew(r#"blaise_reports_total{kind="started"}"#, 2.0);
    grew("blaise_transcript_entries_total", 2.0);
    grew("blaise_run_wait_for_runner_seconds_count", 2.0);
    grew("blaise_store_write_seconds_count", 5.0);
    grew("blaise_clock_ticks_total", 1.0);
    for id in [&paused, &waiting, &active] {
        assert!(!text.contains(id.as_str()), "no session id: {text}");
    }
    assert!(!text.contains("box"), "no runner name: {text}");

    // A state that emptied reads 0 (its old count is not kept).
    s.close(&paused).await;
    let (text, later) = scrape(&s).await;
    assert_eq!(
        value(&later, r#"blaise_sessions{state="paused"}"#),
        0.0,
        "{text}"
    );
    assert_eq!(
        value(&later, r#"blaise_sessions{state="closed"}"#),
        1.0,
        "{text}"
    );
}
