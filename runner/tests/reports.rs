//! A lifecycle report whose answer is lost is sent again as is (same report
//! id) for as long as the run has not lost contact, and then the run gives
//! up on it instead of sending something else. The real control plane cannot be made to lose an
//! answer on purpose, so a test double stands in for it here: a TCP server
//! that reads each request and hangs up without answering.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use blaise_runner::protocol::{Client, ReportBody};
use blaise_runner::run::{Outbox, ReportError, Reporter};
use blaise_test_support::http;

/// Accepts connections, keeps each request body, answers nothing.
fn black_hole() -> (String, Arc<Mutex<Vec<serde_json::Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let kept = bodies.clone();
    let url = http::serve(listener, move |request| {
        if let Ok(json) = serde_json::from_slice(&request.body) {
            kept.lock().unwrap().push(json);
        }
        // No answer: the stub hangs up, and the answer is lost.
        None
    });
    (url, bodies)
}

#[tokio::test]
async fn a_lost_report_is_repeated_with_its_id_then_given_up() {
    let (url, bodies) = black_hole();
    let tmp = tempfile::tempdir().unwrap();
    // The heartbeats give up after a while (here: 1.5 s).
    let (lose, lost) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        let _ = lose.send(true);
    });
    let outbox = Outbox::start(
        Client::new(&url, "blr_test").unwrap(),
        "run_1",
        lost,
        tmp.path().to_path_buf(),
    );
    let reporter = Reporter::new(outbox);
    let started = std::time::Instant::now();
    let err = reporter
        .send(ReportBody::Paused {
            agent_kept: false,
            agent_lost: None,
        })
        .await
        .unwrap_err();
    assert!(matches!(err, ReportError::Lost(_)), "{err}");
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(1400),
        "it was sent again until contact was lost, not given up earlier"
    );
    let bodies = bodies.lock().unwrap();
    assert!(bodies.len() > 1, "the report was sent again: {bodies:?}");
    let id = &bodies[0]["report_id"];
    assert!(id.as_str().is_some_and(|i| !i.is_empty()));
    for body in bodies.iter() {
        assert_eq!(&body["report_id"], id, "every attempt is the same report");
        assert_eq!(body["kind"], "paused", "nothing contradicts it");
    }
}
