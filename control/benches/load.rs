//! The load generator: a real `blaise serve` process, simulated runners
//! speaking protocol v1 over HTTP (no real agents, no plugs), and users
//! driving sessions through start → turns with transcript → idle pause →
//! resume → close at a fixed rate. Prints the latency percentiles of every
//! protocol and user call, of each session transition, the throughput, and
//! the server's CPU time and memory.
//!
//! ```sh
//! cargo bench -p blaise-control --bench load -- --sessions 1000 --runners 20 --rate 100
//! ```
//!
//! Options: `--sessions N` (default 200), `--runners R` (10), `--rate S`
//! sessions started per second (50), `--turns T` turns before the idle pause
//! (2), `--entries E` transcript entries per answer (5), `--inactivity MS`
//! (300), `--db PATH` (a temporary SQLite file).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};

/// A session that makes no progress this long fails the run instead of hanging it.
const STUCK: Duration = Duration::from_secs(60);

const ADMIN: &str = "bla_load_admin_token_0123456789";

struct Options {
    sessions: usize,
    runners: usize,
    rate: f64,
    turns: usize,
    entries: usize,
    inactivity_ms: u64,
    db: Option<String>,
}

fn options() -> Options {
    let mut o = Options {
        sessions: 200,
        runners: 10,
        rate: 50.0,
        turns: 2,
        entries: 5,
        inactivity_ms: 300,
        db: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        let number = || {
            value
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("{}: a number", args[i]))
        };
        match args[i].as_str() {
            "--sessions" => o.sessions = number() as usize,
            "--runners" => o.runners = number() as usize,
            "--rate" => o.rate = number(),
            "--turns" => o.turns = number() as usize,
            "--entries" => o.entries = number() as usize,
            "--inactivity" => o.inactivity_ms = number() as u64,
            "--db" => o.db = Some(value),
            // `cargo bench` passes `--bench`.
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    o
}

/// Latencies by name.
#[derive(Default)]
struct Stats(Mutex<BTreeMap<&'static str, Vec<Duration>>>);

impl Stats {
    fn add(&self, name: &'static str, d: Duration) {
        self.0.lock().unwrap().entry(name).or_default().push(d);
    }

    fn print(&self, title: &str, names: impl Fn(&str) -> bool, wall: Duration) {
        println!("\n{title}");
        println!(
            "  {:<28} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "", "count", "per s", "p50 ms", "p90 ms", "p99 ms", "max ms"
        );
        for (name, list) in self.0.lock().unwrap().iter_mut() {
            if !names(name) || list.is_empty() {
                continue;
            }
            list.sort();
            let at = |p: f64| list[((list.len() - 1) as f64 * p).round() as usize];
            let ms = |d: Duration| d.as_secs_f64() * 1000.0;
            println!(
                "  {:<28} {:>8} {:>9.1} {:>9.2} {:>9.2} {:>9.2} {:>9.2}",
                name,
                list.len(),
                list.len() as f64 / wall.as_secs_f64(),
                ms(at(0.5)),
                ms(at(0.9)),
                ms(at(0.99)),
                ms(*list.last().unwrap())
            );
        }
    }
}

#[derive(Clone)]
struct Api {
    http: Client,
    url: String,
    token: String,
    stats: Arc<Stats>,
}

impl Api {
    /// One call, timed under `name`. A GET is retried on a connection error;
    /// anything else is not (a retried POST could make a second session),
    /// so the run stops there: on loopback such an error is a finding.
    async fn call(
        &self,
        name: &'static str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let tries = if method == Method::GET { 3 } else { 1 };
        for _ in 0..tries {
            let mut req = self
                .http
                .request(method.clone(), format!("{}{path}", self.url))
                .bearer_auth(&self.token);
            if let Some(b) = &body {
                req = req.json(b);
            }
            let started = Instant::now();
            match req.send().await {
                Ok(resp) => {
                    let status = resp.status();
                    let text = resp.text().await.unwrap_or_default();
                    self.stats.add(name, started.elapsed());
                    return (
                        status,
                        serde_json::from_str(&text).unwrap_or(Value::String(text)),
                    );
                }
                Err(e) => eprintln!("{name}: {e}"),
            }
        }
        panic!("{name}: the server does not answer");
    }
}

/// A simulated runner instance: takes offers, runs each as a task that
/// answers prompts with transcript entries and stops as told.
async fn runner(api: Api, instance: String, entries: usize, done: Arc<AtomicUsize>, total: usize) {
    let (s, v) = api
        .call(
            "runner connect",
            Method::POST,
            "/v1/runner/connect",
            Some(json!({ "instance": instance, "agents": ["load"] })),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "connect: {v}");
    while done.load(Ordering::Relaxed) < total {
        let (s, v) = api
            .call(
                "runner offers (long poll)",
                Method::GET,
                &format!("/v1/runner/offers?instance={instance}&wait_ms=1000"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "offers: {v}");
        for offer in v["offers"].as_array().into_iter().flatten() {
            let run_id = offer["run_id"].as_str().unwrap().to_string();
            let (s, assignment) = api
                .call(
                    "runner accept",
                    Method::POST,
                    &format!("/v1/runner/runs/{run_id}/accept"),
                    Some(json!({ "instance": instance })),
                )
                .await;
            if s != StatusCode::OK {
                continue; // another instance took it
            }
            tokio::spawn(run(api.clone(), assignment, entries));
        }
    }
}

async fn report(api: &Api, run_id: &str, n: &mut u64, kind: &str, extra: Value) {
    *n += 1;
    let mut body = json!({ "report_id": format!("r{n}"), "kind": kind });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let name = match kind {
        "plugs_can_resume" => "report plugs_can_resume",
        "started" => "report started",
        "turn_ended" => "report turn_ended",
        "paused" => "report paused",
        "torn_down" => "report torn_down",
        _ => "report other",
    };
    let (s, v) = api
        .call(
            name,
            Method::POST,
            &format!("/v1/runner/runs/{run_id}/reports"),
            Some(body),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{kind}: {v}");
}

async fn run(api: Api, assignment: Value, entries: usize) {
    let run_id = assignment["run_id"].as_str().unwrap().to_string();
    let kind = assignment["kind"].as_str().unwrap_or_default().to_string();
    let mut reports = 0;
    let beat = {
        let api = api.clone();
        let path = format!("/v1/runner/runs/{run_id}/heartbeat");
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(5)).await;
                let (s, _) = api
                    .call("runner heartbeat", Method::POST, &path, Some(json!({})))
                    .await;
                if s != StatusCode::OK {
                    return;
                }
            }
        })
    };
    if kind == "teardown" {
        report(&api, &run_id, &mut reports, "started", json!({})).await;
        report(&api, &run_id, &mut reports, "torn_down", json!({})).await;
        beat.abort();
        return;
    }
    report(
        &api,
        &run_id,
        &mut reports,
        "plugs_can_resume",
        json!({ "can_resume": true, "plugs_that_cannot": [], "chain": [] }),
    )
    .await;
    report(&api, &run_id, &mut reports, "started", json!({})).await;
    let (mut after, mut seq) = (0i64, 0u64);
    loop {
        let (s, v) = api
            .call(
                "runner directives (long poll)",
                Method::GET,
                &format!("/v1/runner/runs/{run_id}/directives?after={after}&wait_ms=1000"),
                None,
            )
            .await;
        if s != StatusCode::OK {
            break;
        }
        for d in v["directives"].as_array().into_iter().flatten() {
            after = d["seq"].as_i64().unwrap_or(after);
            match d["kind"].as_str() {
                Some("prompt") => {
                    let batch: Vec<Value> = (0..entries)
                        .map(|i| {
                            seq += 1;
                            json!({ "seq": seq, "kind": "agent_message", "content": { "text": format!("part {i} of the answer") } })
                        })
                        .collect();
                    let (s, v) = api
                        .call(
                            "runner transcript",
                            Method::POST,
                            &format!("/v1/runner/runs/{run_id}/transcript"),
                            Some(json!({ "entries": batch })),
                        )
                        .await;
                    assert_eq!(s, StatusCode::OK, "transcript: {v}");
                    report(
                        &api,
                        &run_id,
                        &mut reports,
                        "turn_ended",
                        json!({ "message_id": d["message_id"] }),
                    )
                    .await;
                }
                Some("stop") => {
                    let kind = if d["may_resume"] == json!(true) {
                        "paused"
                    } else {
                        "torn_down"
                    };
                    report(&api, &run_id, &mut reports, kind, json!({})).await;
                    beat.abort();
                    return;
                }
                _ => {}
            }
        }
    }
    beat.abort();
}

/// Waits for the agent's answer: an `agent_message` after index `after`.
/// Returns the last index seen.
async fn reply_after(api: &Api, id: &str, after: i64) -> i64 {
    let mut seen = after;
    let deadline = Instant::now() + STUCK;
    loop {
        assert!(
            Instant::now() < deadline,
            "session {id}: no answer within {STUCK:?}"
        );
        let (_, v) = api
            .call(
                "user transcript (long poll)",
                Method::GET,
                &format!("/v1/sessions/{id}/transcript?after={seen}&wait_ms=5000"),
                None,
            )
            .await;
        let entries = v["entries"].as_array().cloned().unwrap_or_default();
        let answered = entries.iter().any(|e| e["kind"] == "agent_message");
        if let Some(last) = entries.last() {
            seen = last["index"].as_i64().unwrap_or(seen);
        }
        if answered {
            return seen;
        }
    }
}

async fn state_is(api: &Api, id: &str, state: &str) {
    let deadline = Instant::now() + STUCK;
    loop {
        assert!(
            Instant::now() < deadline,
            "session {id}: not {state} within {STUCK:?}"
        );
        let (_, v) = api
            .call(
                "user session view",
                Method::GET,
                &format!("/v1/sessions/{id}"),
                None,
            )
            .await;
        if v["state"] == state {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One user's session: start, turns, idle pause, resume, close.
async fn session(api: Api, turns: usize, inactivity: Duration) {
    let t = Instant::now();
    let (s, v) = api
        .call(
            "user new session",
            Method::POST,
            "/v1/sessions",
            Some(json!({ "agent": "load", "message": "start" })),
        )
        .await;
    assert!(s.is_success(), "new session: {v}");
    let id = v["id"].as_str().unwrap().to_string();
    let mut last = reply_after(&api, &id, 0).await;
    api.stats.add("session start → first answer", t.elapsed());
    for turn in 1..turns {
        let t = Instant::now();
        let (s, v) = api
            .call(
                "user send",
                Method::POST,
                &format!("/v1/sessions/{id}/messages"),
                Some(json!({ "text": format!("turn {turn}") })),
            )
            .await;
        assert!(s.is_success(), "send: {v}");
        last = reply_after(&api, &id, last).await;
        api.stats.add("turn → answer", t.elapsed());
    }
    let t = Instant::now();
    state_is(&api, &id, "paused").await;
    api.stats.add(
        "idle → paused (minus inactivity)",
        t.elapsed().saturating_sub(inactivity),
    );
    let t = Instant::now();
    let (s, v) = api
        .call(
            "user send",
            Method::POST,
            &format!("/v1/sessions/{id}/messages"),
            Some(json!({ "text": "again" })),
        )
        .await;
    assert!(s.is_success(), "send while paused: {v}");
    reply_after(&api, &id, last).await;
    api.stats.add("resume → answer", t.elapsed());
    let t = Instant::now();
    let (s, v) = api
        .call(
            "user close",
            Method::POST,
            &format!("/v1/sessions/{id}/close"),
            Some(json!({})),
        )
        .await;
    assert!(s.is_success(), "close: {v}");
    api.stats.add("close (stop received)", t.elapsed());
}

/// The server's CPU time (s) and resident memory (current, peak; KiB) from /proc.
fn usage(pid: u32) -> (f64, u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks: f64 = fields.get(11).and_then(|u| u.parse().ok()).unwrap_or(0.0)
        + fields
            .get(12)
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap_or(0.0);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kib = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (ticks / 100.0, kib("VmRSS:"), kib("VmHWM:"))
}

#[tokio::main]
async fn main() {
    let o = options();
    let dir = tempfile::tempdir().unwrap();
    let db =
        o.db.clone()
            .unwrap_or_else(|| dir.path().join("load.db").display().to_string());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args([
            "serve",
            "--db",
            &db,
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--check-interval",
            "100ms",
        ])
        .env("BLAISE_TOKEN", ADMIN)
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("starting blaise serve");
    let url = format!("http://127.0.0.1:{port}");
    let http = Client::builder()
        .pool_max_idle_per_host(1024)
        .build()
        .unwrap();
    let stats = Arc::new(Stats::default());
    let admin = Api {
        http: http.clone(),
        url: url.clone(),
        token: ADMIN.into(),
        stats: stats.clone(),
    };
    for _ in 0..100 {
        if http
            .get(format!("{url}/v1/agents"))
            .bearer_auth(ADMIN)
            .send()
            .await
            .is_ok()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (s, v) = admin
        .call(
            "admin",
            Method::PUT,
            "/v1/agents/load",
            Some(json!({ "inactivity_ms": o.inactivity_ms, "idle_policy": "pause" })),
        )
        .await;
    assert!(s.is_success(), "agent: {v}");
    let done = Arc::new(AtomicUsize::new(0));
    let mut runners = Vec::new();
    for i in 0..o.runners {
        let (s, v) = admin
            .call(
                "admin",
                Method::POST,
                "/v1/runners",
                Some(json!({ "name": format!("load-{i}") })),
            )
            .await;
        assert!(s.is_success(), "runner: {v}");
        let api = Api {
            token: v["token"].as_str().unwrap().into(),
            ..admin.clone()
        };
        runners.push(tokio::spawn(runner(
            api,
            format!("load-{i}-1"),
            o.entries,
            done.clone(),
            o.sessions,
        )));
    }
    let (cpu_before, _, _) = usage(server.id());
    let started = Instant::now();
    let mut users = Vec::new();
    let gap = Duration::from_secs_f64(1.0 / o.rate.max(0.001));
    for i in 0..o.sessions {
        tokio::time::sleep_until((started + gap * i as u32).into()).await;
        let api = admin.clone();
        let done = done.clone();
        let (turns, inactivity) = (o.turns.max(1), Duration::from_millis(o.inactivity_ms));
        users.push(tokio::spawn(async move {
            session(api, turns, inactivity).await;
            done.fetch_add(1, Ordering::Relaxed);
        }));
    }
    for u in users {
        u.await.expect("a session failed");
    }
    let wall = started.elapsed();
    let (cpu_after, rss, peak) = usage(server.id());
    for r in runners {
        let _ = r.await;
    }
    let _ = server.kill();
    let _ = server.wait();

    println!(
        "load: {} sessions at {}/s, {} runners, {} turns of {} entries, inactivity {} ms; SQLite",
        o.sessions, o.rate, o.runners, o.turns, o.entries, o.inactivity_ms
    );
    println!(
        "wall {:.1} s; server CPU {:.1} s ({:.0}% of one core); RSS {} MiB (peak {} MiB)",
        wall.as_secs_f64(),
        cpu_after - cpu_before,
        100.0 * (cpu_after - cpu_before) / wall.as_secs_f64(),
        rss / 1024,
        peak / 1024
    );
    stats.print(
        "protocol calls (simulated runners)",
        |n| n.starts_with("runner") || n.starts_with("report"),
        wall,
    );
    stats.print("user calls", |n| n.starts_with("user"), wall);
    stats.print(
        "session transitions",
        |n| {
            !n.starts_with("runner")
                && !n.starts_with("report")
                && !n.starts_with("user")
                && n != "admin"
        },
        wall,
    );
}
