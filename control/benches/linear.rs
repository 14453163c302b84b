//! Linear's webhooks against a real `blaise serve --linear` (SQLite, the default store), with a
//! stand-in for Linear's GraphQL API in this process (Linear cannot be reached from here).
//!
//! ```sh
//! cargo bench -p blaise-control --bench linear -- --rate 50 --secs 20
//! ```
//!
//! Sends signed `AgentSessionEvent` webhooks at `--rate` a second for `--secs`: each second a new
//! agent session (`created`) for every other webhook and a follow-up (`prompted`) to an earlier
//! one for the rest. Prints, as percentiles: how long Blaise took to answer a webhook (Linear
//! wants its 200 within 5 s; the target is p99 ≤ 100 ms), and how long after a `created` webhook
//! was sent its first activity reached Linear (Linear shows the agent as unresponsive after 10 s;
//! target p99 ≤ 2 s). The baseline: the same webhooks one at a time, before the load, in the same
//! run. No runner serves the agent: a session's start run is offered in the webhook's
//! transaction and waits, and the first activity does not wait for it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

const ADMIN: &str = "bla_linear_bench_admin_token_01234";
const SECRET: &str = "whsec-bench";

/// When the stand-in first heard of each agent session.
type FirstSeen = Arc<Mutex<HashMap<String, Instant>>>;

async fn graphql(
    State(seen): State<FirstSeen>,
    axum::Json(body): axum::Json<Value>,
) -> axum::Json<Value> {
    let input = &body["variables"]["input"];
    if let Some(session) = input["agentSessionId"].as_str() {
        seen.lock()
            .unwrap()
            .entry(session.to_string())
            .or_insert_with(Instant::now);
    }
    axum::Json(json!({ "data": {
        "agentActivityCreate": { "success": true, "agentActivity": { "id": input["id"] } },
        "agentSessionUpdate": { "success": true }
    } }))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn event(n: usize, action: &str) -> Value {
    let session = format!("00000000-0000-4000-8000-{n:012}");
    let mut e = json!({
        "type": "AgentSessionEvent",
        "action": action,
        "webhookTimestamp": now_ms(),
        "organizationId": "org",
        "appUserId": "app-user",
        "agentSession": { "id": session, "issue": {
            "identifier": format!("ENG-{n}"), "title": "Fix the parser",
            "url": format!("https://linear.app/acme/issue/ENG-{n}/fix-the-parser") } },
    });
    if action == "created" {
        e["promptContext"] = json!(format!(
            "<issue identifier=\"ENG-{n}\"><title>Fix the parser</title></issue>"
        ));
    } else {
        e["agentActivity"] = json!({
            "id": format!("10000000-0000-4000-8000-{:012}", n * 7 + 1),
            "content": { "type": "prompt", "body": "also add a test" } });
    }
    e
}

/// Sends one webhook; returns how long Blaise took to answer it.
async fn send(http: &reqwest::Client, url: &str, event: &Value, delivery: usize) -> Duration {
    let body = serde_json::to_vec(event).unwrap();
    let mut mac = Hmac::<Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(&body);
    let signature = hex::encode(mac.finalize().into_bytes());
    let t = Instant::now();
    let status = http
        .post(url)
        .header("linear-signature", signature)
        .header(
            "linear-delivery",
            format!("20000000-0000-4000-8000-{delivery:012}"),
        )
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("blaise serve answers")
        .status();
    let took = t.elapsed();
    assert_eq!(status, 200, "a webhook was refused");
    took
}

fn percentiles(name: &str, mut v: Vec<Duration>, baseline: Option<Duration>) -> Duration {
    v.sort();
    let at = |p: f64| v[((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let ratio = baseline
        .map(|b| format!("  (p50 {:.2}× the baseline's)", ms(at(0.5)) / ms(b)))
        .unwrap_or_default();
    println!(
        "{name:<34} n={:<5} p50 {:>7.2} ms  p90 {:>7.2}  p99 {:>7.2}  max {:>7.2}{ratio}",
        v.len(),
        ms(at(0.5)),
        ms(at(0.9)),
        ms(at(0.99)),
        ms(at(1.0))
    );
    at(0.5)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: f64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map(|v| v.parse().expect("a number"))
            .unwrap_or(default)
    };
    let (rate, secs) = (arg("--rate", 50.0), arg("--secs", 20.0));

    let seen: FirstSeen = Arc::default();
    let app = axum::Router::new()
        .route("/graphql", axum::routing::post(graphql))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let api = format!("http://{}/graphql", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("linear.yml");
    std::fs::write(
        &config,
        format!("apps:\n  - name: coder\n    agent: coder\n    webhook_secret: {{ env: LINEAR_WEBHOOK_SECRET }}\n    access_token: {{ env: LINEAR_ACCESS_TOKEN }}\n    public_url: http://127.0.0.1\n    api_url: {api}\n"),
    )
    .unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
        .arg("--linear")
        .arg(&config)
        .env("BLAISE_DB", dir.path().join("blaise.db"))
        .env("BLAISE_TOKEN", ADMIN)
        .env("BLAISE_LOG", "error")
        .env("LINEAR_WEBHOOK_SECRET", SECRET)
        .env("LINEAR_ACCESS_TOKEN", "lin_oauth_bench")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("starting blaise serve");
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .build()
        .unwrap();
    let up = Instant::now();
    while http.get(format!("{base}/v1/health")).send().await.is_err() {
        assert!(
            up.elapsed() < Duration::from_secs(20),
            "blaise serve did not start"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let status = http
        .put(format!("{base}/v1/agents/coder"))
        .bearer_auth(ADMIN)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .status();
    assert!(status.is_success(), "creating the agent: {status}");
    let url = format!("{base}/v1/sources/linear/coder");

    // The baseline: one at a time, nothing else going on.
    let mut alone = Vec::new();
    for n in 0..20 {
        alone.push(send(&http, &url, &event(n, "created"), n).await);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // The load: `rate` a second, each on its own task so that a slow answer delays no other.
    let total = (rate * secs) as usize;
    let interval = Duration::from_secs_f64(1.0 / rate);
    let started = Instant::now();
    let mut tasks = Vec::new();
    let sent_at: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    for i in 0..total {
        tokio::time::sleep_until((started + interval * i as u32).into()).await;
        let n = 1_000 + i;
        // Every other webhook opens a session; the rest follow up on one opened earlier.
        let e = if i % 2 == 0 || i < 20 {
            event(n, "created")
        } else {
            let mut e = event(n - 19, "prompted");
            e["agentActivity"]["id"] = json!(format!("10000000-0000-4000-8000-{n:012}"));
            e
        };
        if e["action"] == "created" {
            let session = e["agentSession"]["id"].as_str().unwrap().to_string();
            sent_at.lock().unwrap().insert(session, Instant::now());
        }
        let (http, url) = (http.clone(), url.clone());
        tasks.push(tokio::spawn(async move { send(&http, &url, &e, n).await }));
    }
    let mut answered = Vec::new();
    for t in tasks {
        answered.push(t.await.unwrap());
    }
    let sent_secs = started.elapsed().as_secs_f64();
    // Every created session's first activity, within 20 s.
    let deadline = Instant::now() + Duration::from_secs(20);
    let sent_at = sent_at.lock().unwrap().clone();
    let firsts = loop {
        let seen = seen.lock().unwrap().clone();
        if sent_at.keys().all(|s| seen.contains_key(s)) || Instant::now() > deadline {
            break sent_at
                .iter()
                .filter_map(|(s, at)| seen.get(s).map(|f| f.duration_since(*at)))
                .collect::<Vec<_>>();
        }
        drop(seen);
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let missing = sent_at.len() - firsts.len();
    let _ = server.kill();
    let _ = server.wait();

    println!(
        "{total} webhooks in {sent_secs:.1} s ({:.1}/s), half of them new sessions; blaise serve on SQLite",
        total as f64 / sent_secs
    );
    let baseline = percentiles("webhook answered, one at a time", alone, None);
    percentiles(
        &format!("webhook answered, {rate}/s"),
        answered,
        Some(baseline),
    );
    percentiles("created → first activity at Linear", firsts, None);
    assert_eq!(missing, 0, "{missing} sessions had no activity within 20 s");
}
