//! The run's outbox while Blaise is down: what the run says is kept in order,
//! spilled to the run's directory past its memory limit, and all of it
//! arrives — once, in order, before the report queued behind it — when
//! Blaise is back. Blaise here is a stand-in (a TCP server that acknowledges
//! what it is sent and records it): the real control plane cannot be kept
//! "down" and then brought up on the same port from inside this crate; the
//! same property is proved against the real `blaise serve` in
//! `tests/tests/faults.rs`.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use blaise_runner::protocol::{Client, EntryKind, ReportBody, TranscriptRecord};
use blaise_runner::run::{Item, Outbox, OutboxLimits, Reporter};
use blaise_test_support::http::{self, Response};
use serde_json::{Value, json};

/// Serves on `port`: acknowledges every request, keeps each body.
fn blaise_on(port: u16) -> Arc<Mutex<Vec<(String, Value)>>> {
    let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    http::serve(listener, move |request| {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let answer = if request.path().ends_with("/transcript") {
            json!({"appended": 1, "duplicates": 0, "last_seq": 1})
        } else {
            json!({"duplicate": false, "run_status": "running", "session_state": "active"})
        };
        let line = format!("{} {}", request.method, request.target);
        kept.lock().unwrap().push((line, body));
        Some(Response::json(200, &answer.to_string()))
    });
    seen
}

#[tokio::test]
async fn a_backlog_spills_to_disk_and_arrives_whole_and_in_order() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let tmp = tempfile::tempdir().unwrap();
    let (_keep, lost) = tokio::sync::watch::channel(false);
    let outbox = Outbox::start_with(
        Client::new(&format!("http://127.0.0.1:{port}"), "blr_test").unwrap(),
        "run_1",
        lost,
        tmp.path().to_path_buf(),
        OutboxLimits {
            memory: 16 << 10,
            disk: 64 << 20,
        },
    );
    // Blaise is down (nothing listens): 300 batches of about 1 KiB.
    let line = "x".repeat(1000);
    for seq in 1..=300u64 {
        outbox.post(Item::Transcript(vec![TranscriptRecord {
            seq,
            kind: EntryKind::AgentMessage,
            content: json!({"text": format!("{seq} {line}"), "stream": "s", "last": true}),
        }]));
    }
    let reporter = Reporter::new(outbox.clone());
    let paused = tokio::spawn(async move {
        reporter
            .send(ReportBody::Paused {
                agent_kept: false,
                agent_lost: None,
            })
            .await
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let spill = tmp.path().join("outbox.jsonl");
    assert!(
        std::fs::metadata(&spill).is_ok_and(|m| m.len() > 200 << 10),
        "what does not fit in memory is on disk"
    );

    // Blaise is back.
    let seen = blaise_on(port);
    let answer = tokio::time::timeout(Duration::from_secs(60), paused)
        .await
        .expect("the report is answered")
        .unwrap();
    assert!(answer.is_ok(), "{answer:?}");
    let seen = seen.lock().unwrap();
    let mut seqs = Vec::new();
    for (request, body) in seen.iter() {
        if request.contains("/transcript") {
            for entry in body["entries"].as_array().unwrap() {
                seqs.push(entry["seq"].as_u64().unwrap());
            }
        }
    }
    assert_eq!(
        seqs,
        (1..=300).collect::<Vec<u64>>(),
        "every entry once, in order"
    );
    let (last, body) = seen.last().unwrap();
    assert!(last.contains("/reports"), "the report came last: {last}");
    assert_eq!(body["kind"], "paused");
    assert!(
        !spill.exists(),
        "the spill file is removed once it is drained"
    );
}
