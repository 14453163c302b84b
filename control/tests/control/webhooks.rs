//! What needs a person is pushed to where they are (issue 52): webhooks an admin adds are told,
//! signed, within a second of a permission request; a receiver that fails is tried again with a
//! growing delay; a delivery outlives a restart of Blaise; each attempt is in the delivery log.
//! The receiver is a real HTTP server on 127.0.0.1 that checks the signature as the docs tell
//! receivers to. On SQLite and PostgreSQL alike.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::support::*;
use crate::waiting_for_you::{ask, removal};

const SECRET: &str = "whsec_0123456789abcdef";

/// A request the receiver took: its headers (lowercase names) and body, and when it came.
#[derive(Clone, Debug)]
struct Received {
    headers: Vec<(String, String)>,
    body: String,
    at: Instant,
}

impl Received {
    fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no {name} header: {:?}", self.headers))
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }

    /// Checks the signature as a receiver does: HMAC-SHA256 of `TIMESTAMP.BODY`, a recent
    /// timestamp.
    fn verify(&self, secret: &str) {
        let timestamp = self.header("blaise-webhook-timestamp");
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{timestamp}.{}", self.body).as_bytes());
        let expected = format!("v1={}", hex::encode(mac.finalize().into_bytes()));
        assert_eq!(
            self.header("blaise-signature"),
            expected,
            "the signature holds"
        );
        let age = blaise_control::model::now() / 1000 - timestamp.parse::<i64>().unwrap();
        assert!((0..60).contains(&age), "a fresh timestamp ({age} s old)");
    }
}

/// A webhook receiver: what it took, and how many requests it fails (500) before it answers 200.
#[derive(Clone, Default)]
struct Receiver {
    got: Arc<Mutex<Vec<Received>>>,
    fail_next: Arc<Mutex<u32>>,
    url: String,
}

impl Receiver {
    async fn start() -> Receiver {
        let mut r = Receiver::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        r.url = format!("http://{}/hook", listener.local_addr().unwrap());
        let state = r.clone();
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
                let state = state.clone();
                async move {
                    state.got.lock().unwrap().push(Received {
                        headers: headers
                            .iter()
                            .map(|(n, v)| {
                                (n.as_str().to_owned(), v.to_str().unwrap_or("").to_owned())
                            })
                            .collect(),
                        body,
                        at: Instant::now(),
                    });
                    let mut fail = state.fail_next.lock().unwrap();
                    if *fail > 0 {
                        *fail -= 1;
                        return (StatusCode::INTERNAL_SERVER_ERROR, "down for a moment");
                    }
                    (StatusCode::OK, "ok")
                }
            }),
        );
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        r
    }

    fn fail(&self, times: u32) {
        *self.fail_next.lock().unwrap() = times;
    }

    /// What it took of `event`.
    fn of(&self, event: &str) -> Vec<Received> {
        self.got
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.json()["event"] == event || r.json()["blaise"]["event"] == event)
            .cloned()
            .collect()
    }

    /// Waits (up to `within`) until it has taken `n` requests of `event`.
    async fn wait_for(&self, event: &str, n: usize, within: Duration) -> Vec<Received> {
        let until = Instant::now() + within;
        loop {
            let got = self.of(event);
            if got.len() >= n {
                return got;
            }
            assert!(
                Instant::now() < until,
                "{n} × {event} within {within:?}; got {got:?}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// A delivery log's entries, newest first.
async fn log(s: &Server, webhook: &str) -> Vec<Value> {
    s.ok(
        Method::GET,
        &format!("/v1/webhooks/{webhook}/deliveries"),
        None,
    )
    .await["deliveries"]
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_request_reaches_a_webhook_signed_within_a_second_and_is_retried_until_taken()
{
    let mut s = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let secret_file = dir.path().join("secret");
    std::fs::write(&secret_file, format!("{SECRET}\n")).unwrap();
    let receiver = Receiver::start().await;
    let added = s
        .ok(
            Method::POST,
            "/v1/webhooks",
            Some(json!({
                "name": "ops",
                "url": receiver.url,
                "events": ["permission_requested", "session_failed"],
                "secret": format!("file:{}", secret_file.display()),
            })),
        )
        .await;
    assert_eq!(added["format"], "blaise");
    let trail = s
        .ok(Method::GET, "/v1/audit?action=webhook.add", None)
        .await;
    assert_eq!(trail["entries"][0]["target"], "ops");
    assert!(
        !trail.to_string().contains("/hook"),
        "the trail names the host, not the URL (it may be a secret): {trail}"
    );

    s.agent("hook-a", json!({})).await;
    let r = s.runner("hook-r1", &["hook-a"]).await;
    let id = s.new_session("hook-a", "clean up").await;
    let run = r.take_started("start").await;
    let asked = Instant::now();
    ask(&r, &run, removal("perm-1")).await;
    let got = receiver
        .wait_for("permission_requested", 1, Duration::from_secs(5))
        .await;
    let first = &got[0];
    assert!(
        first.at.duration_since(asked) < Duration::from_secs(1),
        "told within a second (took {:?})",
        first.at.duration_since(asked)
    );
    first.verify(SECRET);
    let body = first.json();
    assert_eq!(body["session"]["id"], id.as_str());
    assert_eq!(body["session"]["agent"], "hook-a");
    assert_eq!(body["request"]["asks"], "Remove target/");
    assert_eq!(body["request"]["options"], json!(["allow", "reject"]));
    assert!(
        body["text"].as_str().unwrap().contains("waits for you"),
        "{body}"
    );
    assert_eq!(
        first.header("blaise-webhook-id"),
        body["id"].as_str().unwrap()
    );
    assert_eq!(first.header("blaise-webhook-event"), "permission_requested");
    // The same request again (a runner's retry) is not a second event.
    ask(&r, &run, removal("perm-1")).await;

    // A receiver that fails twice gets it on the third attempt; the log says so.
    receiver.fail(2);
    ask(&r, &run, removal("perm-2")).await;
    let got = receiver
        .wait_for("permission_requested", 4, Duration::from_secs(10))
        .await;
    assert_eq!(got.len(), 4, "perm-1 once, perm-2 three times: {got:?}");
    let tries: Vec<Instant> = got[1..].iter().map(|g| g.at).collect();
    assert!(
        tries[2] - tries[1] > tries[1] - tries[0],
        "each retry waits longer: {:?}",
        tries.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>()
    );
    for g in &got[1..] {
        g.verify(SECRET);
        assert_eq!(
            g.header("blaise-webhook-id"),
            got[1].header("blaise-webhook-id"),
            "one delivery"
        );
    }
    let entries = wait_delivered(&s, "ops", 2).await;
    assert_eq!(entries[0]["attempts"], 3, "{}", entries[0]);
    assert_eq!(entries[0]["last_status"], 200);
    assert_eq!(entries[1]["attempts"], 1);

    // A delivery outlives a restart: the receiver is down when Blaise stops, up after it starts.
    receiver.fail(1_000);
    ask(&r, &run, removal("perm-3")).await;
    let until = Instant::now() + Duration::from_secs(5);
    while log(&s, "ops").await[0]["attempts"] == 0 {
        assert!(Instant::now() < until, "a first attempt");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(run);
    drop(r);
    s.restart(Default::default()).await;
    receiver.fail(0);
    let entries = wait_delivered(&s, "ops", 3).await;
    assert!(
        entries[0]["attempts"].as_u64().unwrap() >= 2,
        "{}",
        entries[0]
    );
    let perm3: Vec<Received> = receiver
        .of("permission_requested")
        .into_iter()
        .filter(|g| g.json()["request"]["request_id"] == "perm-3")
        .collect();
    perm3.last().unwrap().verify(SECRET);

    // What the agent wrote goes out masked: a token in the command it asks to run is not sent.
    let r = s.runner("hook-r2", &["hook-a"]).await;
    s.new_session("hook-a", "once more").await;
    let run = r.take_started("start").await;
    let token = "ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ";
    let mut secret_ask = removal("perm-secret");
    secret_ask["request"]["tool_call"]["title"] = format!("Push with {token}").into();
    secret_ask["request"]["tool_call"]["command"] =
        format!("git push https://x:{token}@github.com/a/b").into();
    let told = receiver.of("permission_requested").len();
    ask(&r, &run, secret_ask).await;
    let got = receiver
        .wait_for("permission_requested", told + 1, Duration::from_secs(5))
        .await;
    let sent = got
        .iter()
        .find(|g| g.json()["request"]["request_id"] == "perm-secret")
        .expect("told of the request");
    sent.verify(SECRET);
    assert!(!sent.body.contains(token), "{}", sent.body);
    assert!(
        sent.json()["request"]["command"]
            .as_str()
            .unwrap()
            .starts_with("git push")
    );

    // Removing the webhook stops it; the trail keeps who did.
    let (status, _) = s.admin(Method::DELETE, "/v1/webhooks/ops", None).await;
    assert_eq!(status, StatusCode::OK);
    let before = receiver.got.lock().unwrap().len();
    ask(&r, &run, removal("perm-4")).await;
    // Longer than two of the sender's looks (every 500 ms).
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    assert_eq!(
        receiver.got.lock().unwrap().len(),
        before,
        "nothing more is sent"
    );
}

/// Waits until the webhook's `n` newest deliveries are all delivered; the log, newest first.
async fn wait_delivered(s: &Server, webhook: &str, n: usize) -> Vec<Value> {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let entries = log(s, webhook).await;
        if entries.len() >= n && entries[..n].iter().all(|e| e["state"] == "delivered") {
            return entries;
        }
        assert!(Instant::now() < until, "{n} delivered: {entries:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_waiting_for_a_runner_then_failing_is_told_once_each_in_slacks_shape() {
    let s = Server::with_config(blaise_control::config::Config {
        runner_wait_ms: 1_500,
        ..fast_config()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let secret_file = dir.path().join("secret");
    std::fs::write(&secret_file, SECRET).unwrap();
    let receiver = Receiver::start().await;
    s.ok(
        Method::POST,
        "/v1/webhooks",
        Some(json!({
            "name": "chat",
            "url": receiver.url,
            "events": ["waiting_for_runner", "session_failed"],
            "secret": format!("file:{}", secret_file.display()),
            "format": "slack",
            "waiting_longer_than_ms": 300,
        })),
    )
    .await;
    // A runner that serves another agent: the session waits for one that serves its own.
    s.agent("lonely", json!({})).await;
    s.agent("someone-else", json!({})).await;
    let _other = s.runner("busy-elsewhere", &["someone-else"]).await;
    let opened = Instant::now();
    let id = s.new_session("lonely", "hello?").await;
    let waiting = receiver
        .wait_for("waiting_for_runner", 1, Duration::from_secs(5))
        .await;
    assert!(
        waiting[0].at.duration_since(opened) >= Duration::from_millis(300),
        "told only once it has waited longer than the webhook's 300 ms"
    );
    let body = waiting[0].json();
    assert!(
        body["text"].as_str().unwrap().contains(&id)
            && body["text"]
                .as_str()
                .unwrap()
                .contains("waited for a runner"),
        "Slack's `text`: {body}"
    );
    waiting[0].verify(SECRET);
    let failed = receiver
        .wait_for("session_failed", 1, Duration::from_secs(10))
        .await;
    assert_eq!(failed[0].json()["blaise"]["session"]["id"], id.as_str());
    assert!(
        failed[0].at.duration_since(waiting[0].at) >= Duration::from_millis(500),
        "the wait was looked at again and again after it was told (every 50 ms here)"
    );
    assert_eq!(
        receiver.of("waiting_for_runner").len(),
        1,
        "a wait is told once, however long it lasts"
    );

    // `webhook test` sends a ping at once; a bad webhook is refused naming its field.
    let ping = s
        .ok(Method::POST, "/v1/webhooks/chat/test", Some(json!({})))
        .await;
    assert_eq!(ping["event"], "ping");
    receiver.wait_for("ping", 1, Duration::from_secs(2)).await;
    for (field, bad) in [
        (
            "url",
            json!({ "name": "x", "url": "ftp://example.com/", "events": ["session_failed"], "secret": "env:BLAISE_WEBHOOK_X" }),
        ),
        (
            "url",
            json!({ "name": "x", "url": "https://user:pw@example.com/", "events": ["session_failed"], "secret": "env:BLAISE_WEBHOOK_X" }),
        ),
        (
            "secret",
            json!({ "name": "x", "url": "https://example.com/", "events": ["session_failed"], "secret": "hunter2" }),
        ),
        (
            "secret",
            json!({ "name": "x", "url": "https://example.com/", "events": ["session_failed"], "secret": "env:BLAISE_TOKEN" }),
        ),
        (
            "events",
            json!({ "name": "x", "url": "https://example.com/", "events": [], "secret": "env:BLAISE_WEBHOOK_X" }),
        ),
        (
            "name",
            json!({ "name": "../x", "url": "https://example.com/", "events": ["session_failed"], "secret": "env:BLAISE_WEBHOOK_X" }),
        ),
    ] {
        let (status, v) = s.admin(Method::POST, "/v1/webhooks", Some(bad)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(v["error"]["field"], field, "{v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_adds_tests_and_reads_a_webhook_from_the_cli() {
    let s = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let secret_file = dir.path().join("secret");
    std::fs::write(&secret_file, SECRET).unwrap();
    let receiver = Receiver::start().await;
    let secret = format!("file:{}", secret_file.display());
    let added = ok(
        &s,
        &[
            "webhook",
            "add",
            "ops",
            &receiver.url,
            "--events",
            "permission_requested,waiting_for_runner",
            "--secret",
            &secret,
            "--waiting-longer-than",
            "5m",
        ],
    );
    assert!(
        added.contains("webhook ops: permission_requested,waiting_for_runner"),
        "{added}"
    );
    let (success, _, err) = blaise(
        &s,
        &[
            "webhook",
            "add",
            "bad",
            "nope",
            "--events",
            "session_failed",
            "--secret",
            &secret,
        ],
    );
    assert!(
        !success && err.contains("`url` must be an absolute"),
        "{err}"
    );
    let sent = ok(&s, &["webhook", "test", "ops"]);
    assert!(sent.contains("sent to ops"), "{sent}");
    receiver.wait_for("ping", 1, Duration::from_secs(2)).await[0].verify(SECRET);
    let until = Instant::now() + Duration::from_secs(5);
    let log = loop {
        let log = ok(&s, &["webhook", "deliveries", "ops"]);
        if log.contains("delivered") || Instant::now() > until {
            break log;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        log.contains("ping  delivered (200) after 1 attempt"),
        "{log}"
    );
    let list = ok(&s, &["webhook", "list"]);
    assert!(
        list.contains("ops") && list.contains("last: whd_"),
        "{list}"
    );
    ok(&s, &["webhook", "remove", "ops"]);
    let (success, _, err) = blaise(&s, &["webhook", "test", "ops"]);
    assert!(!success && err.contains("ops"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_into_the_operators_network_is_refused_unless_the_operator_allows_it() {
    // The servers of the other tests allow private addresses (their receivers are on
    // 127.0.0.1); `blaise serve` does not, unless told.
    let s = Server::with_config(blaise_control::config::Config {
        webhooks_to_private_addresses: false,
        ..fast_config()
    })
    .await;
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    let secret_file = dir.path().join("secret");
    std::fs::write(&secret_file, SECRET).unwrap();
    for (name, url) in [
        ("loopback", receiver.url.clone()),
        ("by-name", receiver.url.replace("127.0.0.1", "localhost")),
        (
            "metadata",
            "http://169.254.169.254/latest/meta-data/".to_string(),
        ),
    ] {
        s.ok(
            Method::POST,
            "/v1/webhooks",
            Some(json!({
                "name": name,
                "url": url,
                "events": ["session_failed"],
                "secret": format!("file:{}", secret_file.display()),
            })),
        )
        .await;
        s.ok(
            Method::POST,
            &format!("/v1/webhooks/{name}/test"),
            Some(json!({})),
        )
        .await;
        let until = Instant::now() + Duration::from_secs(10);
        let entry = loop {
            let entries = log(&s, name).await;
            if let Some(e) = entries.first().filter(|e| !e["last_error"].is_null()) {
                break e.clone();
            }
            assert!(Instant::now() < until, "{name}: an attempt: {entries:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let why = entry["last_error"].as_str().unwrap();
        assert!(
            why.contains("private or local address")
                && why.contains("--webhooks-to-private-addresses"),
            "{name}: {why}"
        );
    }
    assert!(
        receiver.got.lock().unwrap().is_empty(),
        "nothing reached the receiver"
    );
}
