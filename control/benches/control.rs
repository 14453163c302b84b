//! Benchmarks (not timed tests): `cargo bench -p blaise-control`.
//!
//! - one clock tick over 10,000 sessions (target ≤ 50 ms);
//! - p99 latency of a transcript report on loopback at 1,000 entries/s (target ≤ 5 ms);
//! - the dashboard's page of a session with 100,000 transcript entries (target ≤ 200 ms, ≤ 1 MiB
//!   of HTML), against a session of 100 entries.

use std::sync::Arc;
use std::time::{Duration, Instant};

use blaise_control::clock;
use blaise_control::config::Config;
use blaise_control::http::AppState;
use blaise_control::lifecycle::reports::{self, ReportBody};
use blaise_control::lifecycle::{messages, offers, runners, transact};
use blaise_control::model::*;
use blaise_control::store::Store;
use blaise_control::store::sqlite::SqliteStore;

/// Sessions in the clock benchmark: `BLAISE_BENCH_SESSIONS`, default 10,000.
fn sessions() -> usize {
    std::env::var("BLAISE_BENCH_SESSIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// The benchmark agent's inactivity limit: shorter than the heartbeat timeout, so that the
/// runs the idle tick stops are idle, not silent (a silent run is ended and recovered instead).
const INACTIVITY_MS: Millis = 30_000;

/// 10,000 sessions: half running (a turn just ended), half paused; returns the store.
fn populate(store: &dyn Store, cfg: &Config, now: Millis) -> Runner {
    transact(store, cfg, now, |ctx| {
        ctx.tx.put_agent(&Agent {
            name: "a".into(),
            settings: AgentSettings {
                inactivity_ms: INACTIVITY_MS,
                ..AgentSettings::default()
            },
            disabled: false,
            updated_at: now,
        })?;
        let (runner, _) = runners::add(
            ctx,
            &blaise_control::model::Actor::server(),
            "bench",
            runners::Scope::default(),
        )?;
        offers::connect(
            ctx,
            &runner,
            &offers::Hello::serving("i", &["a".to_string()]),
        )?;
        for i in 0..sessions() {
            let session =
                messages::new_session(ctx, &blaise_control::model::Actor::server(), "a", "hello")?;
            let run_id = session.current_run_id.clone().unwrap();
            offers::accept(ctx, &runner, "i", &run_id)?;
            for (n, report) in [
                ReportBody::Started { conversation: None },
                ReportBody::TurnEnded {
                    message_id: None,
                    outcome: Default::default(),
                    error: None,
                },
            ]
            .into_iter()
            .enumerate()
            {
                reports::apply(ctx, &runner, &run_id, &format!("r{n}"), report)?;
            }
            if i % 2 == 0 {
                reports::apply(
                    ctx,
                    &runner,
                    &run_id,
                    "p",
                    ReportBody::Paused {
                        agent_kept: false,
                        agent_lost: None,
                    },
                )?;
            }
        }
        Ok(runner)
    })
    .unwrap()
}

fn bench_clock_tick() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("bench.db")).unwrap();
    let cfg = Config::default();
    let t0 = model_now();
    let setup = Instant::now();
    populate(&store, &cfg, t0);
    println!(
        "clock tick: {} sessions (half running, half paused) created in {:.1}s",
        sessions(),
        setup.elapsed().as_secs_f64()
    );
    // One tick first: it prepares the clock's statements.
    clock::tick(&store, &cfg, t0 + 999).unwrap();
    let mut quiet = Vec::new();
    for i in 0..30 {
        let start = Instant::now();
        let report = clock::tick(&store, &cfg, t0 + 1_000 + i).unwrap();
        quiet.push(start.elapsed());
        assert_eq!(report.acted, 0);
    }
    if std::env::var_os("BLAISE_BENCH_VERBOSE").is_some() {
        println!("quiet ticks: {quiet:?}");
    }
    quiet.sort();
    println!(
        "clock tick, nothing due:        median {}  p99 {}  (target ≤ 50 ms)",
        ms(percentile(&quiet, 0.5)),
        ms(percentile(&quiet, 0.99))
    );
    // Every running session idle at once: the tick stops 5,000 runs.
    let io = io_counters();
    let start = Instant::now();
    let report = clock::tick(&store, &cfg, t0 + INACTIVITY_MS).unwrap();
    let elapsed = start.elapsed();
    let io = io_counters()
        .iter()
        .zip(io)
        .map(|(a, b)| a - b)
        .collect::<Vec<_>>();
    println!(
        "clock tick, {} idle runs stopped: {}  ({} write calls, {:.1} MiB written; target ≤ 200 ms)",
        report.acted,
        ms(elapsed),
        io[0],
        io[1] as f64 / 1048576.0
    );
    // An hour on, every run the runner was serving is silent: each is ended and its session
    // recovered (a heavier rule: the run ends, its prompts go back, a new run is offered).
    let start = Instant::now();
    let report = clock::tick(&store, &cfg, t0 + 3_600_000).unwrap();
    println!(
        "clock tick, {} silent or stopped runs ended: {}",
        report.acted,
        ms(start.elapsed())
    );
}

/// This process's write calls and bytes written so far (`/proc/self/io`; zeros elsewhere).
fn io_counters() -> [u64; 2] {
    let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    let field = |name: &str| {
        io.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or(0)
    };
    [field("syscw:"), field("wchar:")]
}

fn model_now() -> Millis {
    blaise_control::model::now()
}

/// The runtime of the benchmarks that serve over HTTP: two workers, as `blaise serve` on this
/// machine's two cores.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Transcript reports paced at 1,000/s to one run, while `streams` other runs hold their
/// directive streams open (long polls that must not wake for it).
fn bench_transcript_report(streams: usize) {
    let rt = runtime();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("bench.db")).unwrap();
        let cfg = Config::default();
        let now = model_now();
        let (token, run_ids) = transact(&store, &cfg, now, |ctx| {
            ctx.tx.put_agent(&Agent { name: "a".into(), settings: AgentSettings::default(), disabled: false, updated_at: now })?;
            let (runner, token) = runners::add(ctx, &blaise_control::model::Actor::server(), "bench", runners::Scope::default())?;
            offers::connect(ctx, &runner, &offers::Hello::serving("i", &["a".to_string()]))?;
            let mut run_ids = Vec::new();
            for _ in 0..=streams {
                let session = messages::new_session(ctx, &blaise_control::model::Actor::server(), "a", "hello")?;
                let run_id = session.current_run_id.clone().unwrap();
                offers::accept(ctx, &runner, "i", &run_id)?;
                reports::apply(ctx, &runner, &run_id, "s", ReportBody::Started { conversation: None })?;
                run_ids.push(run_id);
            }
            Ok((token, run_ids))
        })
        .unwrap();
        let state = AppState::new(Arc::new(store), cfg);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}/v1/runner/runs", listener.local_addr().unwrap());
        tokio::spawn(blaise_control::http::serve(listener, state));
        let http = reqwest::Client::new();
        // The other runs read their prompt, then wait on their streams.
        for run_id in &run_ids[1..] {
            let (http, token, url) = (http.clone(), token.clone(), format!("{base}/{run_id}/directives"));
            tokio::spawn(async move {
                let mut after = 0;
                loop {
                    let Ok(resp) = http.get(format!("{url}?after={after}&wait_ms=30000")).bearer_auth(&token).send().await else { return };
                    let Ok(page) = resp.json::<serde_json::Value>().await else { return };
                    if let Some(last) = page["directives"].as_array().and_then(|d| d.last()) {
                        after = last["seq"].as_i64().unwrap_or(after);
                    }
                }
            });
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let url = format!("{base}/{}/transcript", run_ids[0]);
        let total = 5_000;
        let mut latencies = Vec::with_capacity(total);
        let mut pace = tokio::time::interval(Duration::from_millis(1));
        let started = Instant::now();
        for seq in 1..=total {
            pace.tick().await;
            let body = serde_json::json!({ "entries": [{ "seq": seq, "kind": "agent_message", "content": { "text": format!("line {seq} of the agent's answer, with a bit of text to carry") } }] });
            let t = Instant::now();
            let resp = http.post(&url).bearer_auth(&token).json(&body).send().await.unwrap();
            assert!(resp.status().is_success(), "{}", resp.text().await.unwrap());
            resp.bytes().await.unwrap();
            latencies.push(t.elapsed());
        }
        let rate = total as f64 / started.elapsed().as_secs_f64();
        latencies.sort();
        println!(
            "transcript report, {total} entries at {rate:.0}/s, {streams} other directive streams open: median {}  p99 {}  max {}  (target p99 ≤ 5 ms)",
            ms(percentile(&latencies, 0.5)),
            ms(percentile(&latencies, 0.99)),
            ms(*latencies.last().unwrap())
        );
    });
}

/// A session whose transcript is `entries` long: user messages, streamed agent messages (five
/// chunks each), thoughts and tool calls (two updates each), as a long agent session makes them.
fn long_session(store: &dyn Store, cfg: &Config, now: Millis, entries: usize) -> String {
    let id = transact(store, cfg, now, |ctx| {
        Ok(messages::new_session(
            ctx,
            &blaise_control::model::Actor::server(),
            "a",
            "refactor the parser",
        )?
        .id)
    })
    .unwrap();
    let mut made = 1;
    let mut n = 0u64;
    while made < entries {
        let batch: Vec<TranscriptEntry> = (0..1_000.min(entries - made))
            .map(|i| {
                n += 1;
                let stream = format!("s{}", n / 8);
                let (kind, content) = match n % 8 {
                    0 => ("user_message", serde_json::json!({ "text": format!("next step {n}, please") })),
                    1 | 2 => ("tool_call", serde_json::json!({ "text": format!("cargo test [{}]", if n % 8 == 1 { "in_progress" } else { "completed" }), "stream": format!("tc{}", n / 8), "last": true,
                        "tool_call": { "id": format!("tc{}", n / 8), "title": "cargo test", "kind": "execute", "status": if n % 8 == 1 { "in_progress" } else { "completed" }, "command": "cargo test --workspace", "output": "test result: ok. 120 passed" } })),
                    3 => ("agent_thought", serde_json::json!({ "text": "The parser's error path allocates on every token; ", "stream": format!("t{}", n / 8), "last": true })),
                    k => ("agent_message", serde_json::json!({ "text": format!("Chunk {k} of answer {n}: the **tokenizer** now borrows its input, "), "stream": stream, "last": k == 7 })),
                };
                TranscriptEntry { index: 0, session_id: id.clone(), run_id: None, seq: None, kind: kind.into(), content, at: now + i as i64 }
            })
            .collect();
        made += batch.len();
        let mut batch = batch;
        transact(store, cfg, now, |ctx| {
            Ok(ctx.tx.append_transcript_all(&mut batch)?)
        })
        .unwrap();
    }
    id
}

/// The dashboard's session page over HTTP, as a browser asks for it: the median of 30 loads and
/// the size of the HTML, for a session of 100,000 entries and one of 100 (the baseline).
fn bench_session_page() {
    let rt = runtime();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("bench.db")).unwrap();
        let cfg = Config::default();
        let now = model_now();
        let admin = "bla_bench_admin_token";
        transact(&store, &cfg, now, |ctx| {
            ctx.tx
                .set_admin_token_hash(&blaise_control::auth::hash_token(admin))?;
            ctx.tx.put_agent(&Agent {
                name: "a".into(),
                settings: AgentSettings::default(),
                disabled: false,
                updated_at: now,
            })?;
            Ok(())
        })
        .unwrap();
        let made = Instant::now();
        let long = long_session(&store, &cfg, now, 100_000);
        let short = long_session(&store, &cfg, now, 100);
        eprintln!(
            "(a session of 100,000 entries written in {:.1} s)",
            made.elapsed().as_secs_f64()
        );
        let state = AppState::new(Arc::new(store), cfg);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(blaise_control::http::serve(listener, state));
        let http = reqwest::Client::new();
        let mut medians = Vec::new();
        for (name, id) in [("100 entries", &short), ("100,000 entries", &long)] {
            let mut times = Vec::new();
            let mut size = 0;
            for _ in 0..30 {
                let t = Instant::now();
                let resp = http
                    .get(format!("{base}/sessions/{id}"))
                    .header("cookie", format!("blaise_token={admin}"))
                    .send()
                    .await
                    .unwrap();
                assert!(resp.status().is_success(), "{}", resp.status());
                size = resp.bytes().await.unwrap().len();
                times.push(t.elapsed());
            }
            times.sort();
            let median = percentile(&times, 0.5);
            medians.push(median);
            println!(
                "dashboard session page, {name}: median {}  p90 {}  HTML {:.0} KiB",
                ms(median),
                ms(percentile(&times, 0.9)),
                size as f64 / 1024.0
            );
        }
        println!(
            "  100,000 entries / 100 entries: {:.2}x the time (target ≤ 200 ms, ≤ 1024 KiB)",
            medians[1].as_secs_f64() / medians[0].as_secs_f64()
        );
    });
}

fn main() {
    // `cargo test --benches` runs this binary with `--bench`-less args; keep it to real runs.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    // A filter as with `cargo bench -- NAME`: `clock` or `transcript`.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    if wanted("clock") {
        bench_clock_tick();
    }
    if wanted("transcript") {
        bench_transcript_report(0);
        bench_transcript_report(200);
    }
    if wanted("dashboard") {
        bench_session_page();
    }
}
