//! The load generator: real `blaise serve` processes, simulated runners
//! speaking protocol v1 over HTTP (no real agents, no plugs), and users
//! driving sessions through start → turns with transcript → idle pause →
//! resume → close at a fixed rate. Prints the latency percentiles of every
//! protocol and user call, of each session transition, the throughput, and
//! the servers' CPU time and memory; then a transcript ingest phase (runs
//! posting entries as fast as the server takes them). Each backend in turn,
//! side by side.
//!
//! ```sh
//! cargo bench -p blaise-control --bench load -- --sessions 1000 --runners 20 --rate 100 --backend both
//! cargo bench -p blaise-control --bench load -- --backend postgres --instances 2 --kill-at 5
//! ```
//!
//! Options: `--sessions N` (default 200), `--runners R` (10), `--rate S`
//! sessions started per second (50), `--turns T` turns before the idle pause
//! (2), `--entries E` transcript entries per answer (5), `--inactivity MS`
//! (300), `--backend sqlite|postgres|both` (sqlite), `--instances I`
//! `blaise serve` processes on one PostgreSQL database (1; users and runners
//! are spread over them, and move to another when theirs stops answering, as
//! behind a load balancer), `--kill-at SECS` (SIGKILL the instance that runs
//! the clock that long into the run), `--ingest-runs R` runs posting
//! transcript batches of `--ingest-batch B` entries for `--ingest-secs S`
//! (20, 10, 5; 0 runs skips it), `--hold` (each session, after its turns, idles until it is
//! paused again and stays live until every session has started; then they close at the same
//! rate: all `--sessions` are live at once at the peak). PostgreSQL: a private server started from
//! Debian's programs (`BLAISE_TEST_POSTGRES` to use a running one).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};

/// A session that makes no progress this long fails the run instead of hanging it.
const STUCK: Duration = Duration::from_secs(60);

const ADMIN: &str = "bla_load_admin_token_0123456789";

#[path = "../tests/control/pg.rs"]
mod pg;

struct Options {
    sessions: usize,
    runners: usize,
    rate: f64,
    turns: usize,
    entries: usize,
    inactivity_ms: u64,
    backends: Vec<&'static str>,
    instances: usize,
    kill_at: Option<Duration>,
    ingest_runs: usize,
    ingest_batch: usize,
    ingest_secs: u64,
    /// Keep every session live (paused after its turns) until all have started, then close
    /// them at the same rate: `--sessions` live at once at the peak.
    hold: bool,
}

fn options() -> Options {
    let mut o = Options {
        sessions: 200,
        runners: 10,
        rate: 50.0,
        turns: 2,
        entries: 5,
        inactivity_ms: 300,
        backends: vec!["sqlite"],
        instances: 1,
        kill_at: None,
        ingest_runs: 20,
        ingest_batch: 10,
        ingest_secs: 5,
        hold: false,
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
            "--backend" => {
                o.backends = match value.as_str() {
                    "sqlite" => vec!["sqlite"],
                    "postgres" => vec!["postgres"],
                    "both" => vec!["sqlite", "postgres"],
                    other => panic!("--backend: sqlite, postgres or both, not {other}"),
                }
            }
            "--instances" => o.instances = (number() as usize).max(1),
            "--kill-at" => o.kill_at = Some(Duration::from_secs_f64(number())),
            "--ingest-runs" => o.ingest_runs = number() as usize,
            "--ingest-batch" => o.ingest_batch = (number() as usize).max(1),
            "--ingest-secs" => o.ingest_secs = number() as u64,
            "--hold" => {
                o.hold = true;
                i += 1;
                continue;
            }
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
    /// Every instance; this client talks to `urls[home]` until it stops answering, then to the
    /// next, as a load balancer would send it.
    urls: Arc<Vec<String>>,
    home: Arc<AtomicUsize>,
    token: String,
    stats: Arc<Stats>,
    /// Calls sent again to another instance after theirs stopped answering.
    failovers: Arc<AtomicUsize>,
}

impl Api {
    /// The same client, talking first to instance `home`.
    fn at(&self, home: usize, token: &str) -> Api {
        Api {
            home: Arc::new(AtomicUsize::new(home % self.urls.len())),
            token: token.to_string(),
            ..self.clone()
        }
    }

    /// One call, timed under `name`. When the instance does not answer, the call goes to the
    /// next one (a request it may have committed is sent again: reports, transcript entries,
    /// accepts and heartbeats are idempotent; a user's message may arrive twice, which the
    /// generator tolerates). With one instance, a GET is retried and anything else stops the
    /// run: on loopback such an error is a finding.
    async fn call(
        &self,
        name: &'static str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let n = self.urls.len();
        let tries = if n > 1 {
            4 * n
        } else if method == Method::GET {
            3
        } else {
            1
        };
        for attempt in 0..tries {
            let home = self.home.load(Ordering::Relaxed) % n;
            let mut req = self
                .http
                .request(method.clone(), format!("{}{path}", self.urls[home]))
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
                Err(_) if n > 1 => {
                    // Its instance stopped answering: on to the next, as a load balancer would.
                    if attempt == 0 {
                        self.failovers.fetch_add(1, Ordering::Relaxed);
                    }
                    let _ = self.home.compare_exchange(
                        home,
                        (home + 1) % n,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    );
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => eprintln!("{name}: {e}"),
            }
        }
        panic!("{name}: no instance answers");
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

/// Waits for the session to be in `state`, following its transcript from index `after` with
/// the state last seen (the follow answers as soon as the state changes).
async fn state_is(api: &Api, id: &str, state: &str, mut after: i64) {
    let deadline = Instant::now() + STUCK;
    let mut seen = String::new();
    loop {
        assert!(
            Instant::now() < deadline,
            "session {id}: not {state} within {STUCK:?}"
        );
        let follow = if seen.is_empty() {
            String::new()
        } else {
            format!("&wait_ms=5000&state={seen}")
        };
        let (_, v) = api
            .call(
                "user transcript (long poll)",
                Method::GET,
                &format!("/v1/sessions/{id}/transcript?after={after}{follow}"),
                None,
            )
            .await;
        if v["session_state"] == state {
            return;
        }
        if let Some(last) = v["entries"].as_array().and_then(|e| e.last()) {
            after = last["index"].as_i64().unwrap_or(after);
        }
        seen = v["session_state"].as_str().unwrap_or_default().to_string();
    }
}

/// When a held session closes (`--hold`), and how many sessions are live.
struct Hold {
    close_at: Instant,
    live: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
}

/// One user's session: start, turns, idle pause, resume, close. Returns its id.
async fn session(api: Api, turns: usize, inactivity: Duration, hold: Option<Hold>) -> String {
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
    if let Some(h) = &hold {
        let live = h.live.fetch_add(1, Ordering::Relaxed) + 1;
        h.peak.fetch_max(live, Ordering::Relaxed);
    }
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
    state_is(&api, &id, "paused", last).await;
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
    let last = reply_after(&api, &id, last).await;
    api.stats.add("resume → answer", t.elapsed());
    if let Some(h) = &hold {
        // Idle again: paused, live, until its turn to close.
        state_is(&api, &id, "paused", last).await;
        tokio::time::sleep_until(h.close_at.into()).await;
    }
    let t = Instant::now();
    let (s, v) = api
        .call(
            "user close",
            Method::POST,
            &format!("/v1/sessions/{id}/close"),
            Some(json!({})),
        )
        .await;
    // A close sent again after its instance died may find the session closed already.
    let closed_before = s == StatusCode::CONFLICT && v["error"]["code"] == "session_ended";
    assert!(s.is_success() || closed_before, "close: {v}");
    api.stats.add("close (stop received)", t.elapsed());
    if let Some(h) = &hold {
        h.live.fetch_sub(1, Ordering::Relaxed);
    }
    id
}

/// How many `agent_message` entries the session's transcript holds (read page by page).
async fn answers(api: &Api, id: &str) -> usize {
    let (mut after, mut n) = (0i64, 0);
    loop {
        let (s, v) = api
            .call(
                "user transcript page",
                Method::GET,
                &format!("/v1/sessions/{id}/transcript?after={after}&limit=1000"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "transcript: {v}");
        let entries = v["entries"].as_array().cloned().unwrap_or_default();
        let Some(last) = entries.last() else {
            return n;
        };
        after = last["index"].as_i64().unwrap();
        n += entries
            .iter()
            .filter(|e| e["kind"] == "agent_message")
            .count();
    }
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

/// The transcript ingest phase: `runs` live runs each post batches of `batch` entries, one after
/// the other, for `secs` seconds. Returns the entries taken.
async fn ingest(admin: &Api, runs: usize, batch: usize, secs: u64) -> usize {
    let (s, v) = admin
        .call(
            "admin",
            Method::PUT,
            "/v1/agents/ingest",
            Some(json!({ "inactivity_ms": 3_600_000, "idle_policy": "pause" })),
        )
        .await;
    assert!(s.is_success(), "agent: {v}");
    let (s, v) = admin
        .call(
            "admin",
            Method::POST,
            "/v1/runners",
            Some(json!({ "name": "ingest" })),
        )
        .await;
    assert!(s.is_success(), "runner: {v}");
    let runner = admin.at(0, v["token"].as_str().unwrap());
    let (s, v) = runner
        .call(
            "admin",
            Method::POST,
            "/v1/runner/connect",
            Some(json!({ "instance": "ingest-1", "agents": ["ingest"] })),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "connect: {v}");
    for _ in 0..runs {
        let (s, v) = admin
            .call(
                "admin",
                Method::POST,
                "/v1/sessions",
                Some(json!({ "agent": "ingest", "message": "go" })),
            )
            .await;
        assert!(s.is_success(), "session: {v}");
    }
    let mut accepted = Vec::new();
    let deadline = Instant::now() + STUCK;
    while accepted.len() < runs {
        assert!(Instant::now() < deadline, "ingest: runs not offered");
        let (_, v) = runner
            .call(
                "admin",
                Method::GET,
                "/v1/runner/offers?instance=ingest-1&wait_ms=1000",
                None,
            )
            .await;
        for offer in v["offers"].as_array().into_iter().flatten() {
            let run_id = offer["run_id"].as_str().unwrap().to_string();
            let (s, _) = runner
                .call(
                    "admin",
                    Method::POST,
                    &format!("/v1/runner/runs/{run_id}/accept"),
                    Some(json!({ "instance": "ingest-1" })),
                )
                .await;
            if s == StatusCode::OK {
                let mut n = 0;
                report(&runner, &run_id, &mut n, "started", json!({})).await;
                accepted.push(run_id);
            }
        }
    }
    let taken = Arc::new(AtomicUsize::new(0));
    let end = Instant::now() + Duration::from_secs(secs);
    let mut tasks = Vec::new();
    for run_id in accepted {
        let (runner, taken) = (runner.clone(), taken.clone());
        tasks.push(tokio::spawn(async move {
            let mut seq = 0u64;
            while Instant::now() < end {
                let entries: Vec<Value> = (0..batch)
                    .map(|i| {
                        seq += 1;
                        json!({ "seq": seq, "kind": "agent_message", "content": { "text": format!("line {i} of the output") } })
                    })
                    .collect();
                let (s, v) = runner
                    .call(
                        "ingest transcript",
                        Method::POST,
                        &format!("/v1/runner/runs/{run_id}/transcript"),
                        Some(json!({ "entries": entries })),
                    )
                    .await;
                assert_eq!(s, StatusCode::OK, "ingest: {v}");
                taken.fetch_add(batch, Ordering::Relaxed);
            }
        }));
    }
    for t in tasks {
        t.await.expect("an ingest run failed");
    }
    taken.load(Ordering::Relaxed)
}

/// `blaise serve` on `db` at `port`.
fn serve(db: &str, port: u16) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args([
            "serve",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--check-interval",
            "100ms",
        ])
        .env("BLAISE_DB", db)
        .env("BLAISE_TOKEN", ADMIN)
        .env("BLAISE_LOG", "error")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("starting blaise serve")
}

/// `GET /v1/health` of `url`: whether it answers, and whether it runs the clock.
async fn health(http: &Client, url: &str) -> Option<bool> {
    let v: Value = http
        .get(format!("{url}/v1/health"))
        .timeout(Duration::from_secs(2))
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()?;
    Some(v["clock"] == true)
}

#[tokio::main]
async fn main() {
    let o = options();
    for backend in o.backends.clone() {
        measure(&o, backend).await;
    }
}

async fn measure(o: &Options, backend: &'static str) {
    let dir = tempfile::tempdir().unwrap();
    let _pg;
    let (db, instances) = match backend {
        "postgres" => {
            let Some(db) = pg::database() else {
                println!("\npostgres: skipped ({})", pg::unavailable());
                return;
            };
            let url = db.url.clone();
            _pg = db;
            (url, o.instances)
        }
        _ => (dir.path().join("load.db").display().to_string(), 1),
    };
    let http = Client::builder()
        .pool_max_idle_per_host(1024)
        .build()
        .unwrap();
    // The first instance starts alone, so that it takes the clock.
    let mut children = Vec::new();
    let mut urls = Vec::new();
    for i in 0..instances {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        children.push(serve(&db, port));
        let url = format!("http://127.0.0.1:{port}");
        for _ in 0..200 {
            match health(&http, &url).await {
                Some(clock) if clock || i > 0 => break,
                _ => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
        urls.push(url);
    }
    let pids: Vec<u32> = children.iter().map(|c| c.id()).collect();
    let stats = Arc::new(Stats::default());
    let admin = Api {
        http: http.clone(),
        urls: Arc::new(urls.clone()),
        home: Arc::new(AtomicUsize::new(0)),
        token: ADMIN.into(),
        stats: stats.clone(),
        failovers: Arc::new(AtomicUsize::new(0)),
    };
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
        let api = admin.at(i, v["token"].as_str().unwrap());
        runners.push(tokio::spawn(runner(
            api,
            format!("load-{i}-1"),
            o.entries,
            done.clone(),
            o.sessions,
        )));
    }
    let cpu_before: f64 = pids.iter().map(|p| usage(*p).0).sum();
    let started = Instant::now();
    // The kill: SIGKILL to the instance that runs the clock, then how long until another does.
    let killed = match o.kill_at.filter(|_| instances > 1) {
        Some(at) => {
            let (http, urls, pid) = (http.clone(), urls.clone(), pids[0]);
            Some(tokio::spawn(async move {
                tokio::time::sleep_until((started + at).into()).await;
                let cpu = usage(pid).0;
                std::process::Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status()
                    .unwrap();
                let t = Instant::now();
                loop {
                    for url in &urls[1..] {
                        if health(&http, url).await == Some(true) {
                            return (t.elapsed(), cpu);
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }))
        }
        None => None,
    };
    let mut users = Vec::new();
    let gap = Duration::from_secs_f64(1.0 / o.rate.max(0.001));
    let (live, most_live) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    // Held sessions close, in the order they started, from a few seconds after the last start.
    let closing = started + gap * o.sessions as u32 + Duration::from_secs(5);
    for i in 0..o.sessions {
        tokio::time::sleep_until((started + gap * i as u32).into()).await;
        let api = admin.at(i, ADMIN);
        let done = done.clone();
        let (turns, inactivity) = (o.turns.max(1), Duration::from_millis(o.inactivity_ms));
        let hold = o.hold.then(|| Hold {
            close_at: closing + gap * i as u32,
            live: live.clone(),
            peak: most_live.clone(),
        });
        users.push(tokio::spawn(async move {
            let id = session(api, turns, inactivity, hold).await;
            done.fetch_add(1, Ordering::Relaxed);
            id
        }));
    }
    let mut ids = Vec::new();
    let mut failed = 0;
    for u in users {
        match u.await {
            Ok(id) => ids.push(id),
            Err(_) => failed += 1,
        }
    }
    let wall = started.elapsed();
    // Stops the runners even when a session failed.
    done.fetch_add(o.sessions, Ordering::Relaxed);
    let takeover = match killed {
        Some(k) => Some(k.await.unwrap()),
        None => None,
    };
    let (mut cpu_after, mut rss, mut peak) = (takeover.map_or(0.0, |t| t.1), 0, 0);
    for (i, pid) in pids.iter().enumerate() {
        if i == 0 && takeover.is_some() {
            continue;
        }
        let (cpu, r, p) = usage(*pid);
        cpu_after += cpu;
        rss += r;
        peak += p;
    }
    for r in runners {
        let _ = r.await;
    }
    // Every answer of every session is in its transcript: (turns + 1) answers of `entries`.
    let expected = (o.turns.max(1) + 1) * o.entries;
    let mut lost = 0;
    for id in &ids {
        lost += expected.saturating_sub(answers(&admin, id).await);
    }
    let ingest_stats = Arc::new(Stats::default());
    let ingest_wall = Instant::now();
    let ingested = if o.ingest_runs > 0 {
        let api = Api {
            stats: ingest_stats.clone(),
            ..admin.clone()
        };
        ingest(&api, o.ingest_runs, o.ingest_batch, o.ingest_secs).await
    } else {
        0
    };
    let ingest_wall = ingest_wall.elapsed();
    let mut retried = 0;
    for url in &urls {
        if let Ok(resp) = http.get(format!("{url}/v1/health")).send().await
            && let Ok(v) = resp.json::<Value>().await
        {
            retried += v["conflicts_retried"].as_u64().unwrap_or(0);
        }
    }
    for mut c in children {
        let _ = c.kill();
        let _ = c.wait();
    }

    let store = match backend {
        "postgres" => format!("PostgreSQL, {instances} instance(s)"),
        _ => "SQLite".to_string(),
    };
    println!(
        "\n== {store}: {} sessions at {}/s, {} runners, {} turns of {} entries, inactivity {} ms",
        o.sessions, o.rate, o.runners, o.turns, o.entries, o.inactivity_ms
    );
    println!(
        "wall {:.1} s; sessions failed {failed}, answer entries lost {lost}; transactions run again after a conflict {retried}; server CPU {:.1} s ({:.0}% of one core); RSS {} MiB (peak {} MiB){}",
        wall.as_secs_f64(),
        cpu_after - cpu_before,
        100.0 * (cpu_after - cpu_before) / wall.as_secs_f64(),
        rss / 1024,
        peak / 1024,
        if instances > 1 {
            " (summed over the instances alive at the end)"
        } else {
            ""
        }
    );
    if o.hold {
        println!(
            "held: every session stayed live (paused when idle) until all had started; at most {} live at once",
            most_live.load(Ordering::Relaxed)
        );
    }
    if let Some((took, _)) = takeover {
        println!(
            "killed the clock's instance at {:.1} s: another ran the clock {:.0} ms later (check interval 100 ms); {} calls moved to another instance",
            o.kill_at.unwrap().as_secs_f64(),
            took.as_secs_f64() * 1000.0,
            admin.failovers.load(Ordering::Relaxed)
        );
    }
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
    if ingested > 0 {
        println!(
            "\ntranscript ingest: {} runs, batches of {}: {ingested} entries in {:.1} s = {:.0} entries/s",
            o.ingest_runs,
            o.ingest_batch,
            ingest_wall.as_secs_f64(),
            ingested as f64 / o.ingest_secs as f64
        );
        ingest_stats.print(
            "",
            |n| n == "ingest transcript",
            Duration::from_secs(o.ingest_secs),
        );
    }
}
