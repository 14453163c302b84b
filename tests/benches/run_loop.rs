//! Run-loop benchmarks, end to end (real control plane over HTTP, real runner
//! processes, real plugs, the script agent):
//!
//! - the host's overhead of a start run, from run accepted to the agent being
//!   spawned, with four no-op plugs from the compile cache, against the same
//!   with no plugs (the baseline);
//! - transcript relay, agent update → stored by the control plane, at 1,000
//!   entries/s, with the redaction plug, against no plugs.
//!
//! `cargo bench -p blaise-tests --bench run_loop`; prints medians and p99s.

use std::time::Duration;

use blaise_control::model::IdlePolicy;
use blaise_tests::blaise::{Blaise, Runner, quick_config, script_agent, settings};
use blaise_tests::plug;

const MINUTE: Duration = Duration::from_secs(60);

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn with_runner<T>(plugs: &str, work: impl AsyncFnOnce(&Blaise, &Runner) -> T) -> T {
    let tmp = tempfile::tempdir().unwrap();
    let blaise = Blaise::start(&tmp.path().join("blaise.db"), quick_config()).await;
    blaise
        .embedded
        .set_agent("script", settings(600_000, IdlePolicy::Pause))
        .unwrap();
    let config = tmp.path().join("blaise.yml");
    let agent = serde_json::to_string(&[script_agent()]).unwrap();
    std::fs::write(
        &config,
        format!("agent:\n  name: script\n  command: {agent}\nplugs:\n{plugs}"),
    )
    .unwrap();
    let token = blaise.embedded.runner_token("bench").unwrap();
    let runner = Runner::start(
        blaise.url(),
        &token,
        &config,
        &tmp.path().join("data"),
        &tmp.path().join("cache"),
        "bench",
    );
    runner.wait_for_stderr("connected to Blaise", MINUTE).await;
    let out = work(&blaise, &runner).await;
    runner.stop().await;
    out
}

/// The host overheads (accepted → agent spawned, ms, sorted) that a runner's
/// start runs logged.
fn overheads(runner: &Runner) -> Vec<f64> {
    let mut samples: Vec<f64> = runner
        .launch_fields(&["host_overhead_us"])
        .into_iter()
        .map(|f| f[0] / 1000.0)
        .collect();
    samples.sort_by(f64::total_cmp);
    samples
}

/// Host overheads of `n` start runs with no plugs and `n` with `plugs`, on
/// two runners side by side, the runs alternating: the machine's drift over
/// the bench reaches both sides alike.
async fn start_overheads(plugs: &str, n: usize) -> (Vec<f64>, Vec<f64>) {
    with_runner("  []\n", async |bare: &Blaise, bare_runner: &Runner| {
        with_runner(plugs, async |with: &Blaise, with_runner: &Runner| {
            for i in 0..n {
                bare.session_to_teardown(i).await;
                with.session_to_teardown(i).await;
            }
            (overheads(bare_runner), overheads(with_runner))
        })
        .await
    })
    .await
}

/// Latencies (ms) of `count` agent updates at `rate`/s, from the agent's send
/// to Blaise's record.
async fn relay_latencies(plugs: &str, count: usize, rate: u32) -> Vec<f64> {
    with_runner(plugs, async |b: &Blaise, _: &Runner| {
        let id = b
            .new_session("script", &format!("flood {count} {rate}"))
            .await;
        let start = std::time::Instant::now();
        let entries = loop {
            let entries = b.transcript(&id).await;
            let agent = entries
                .iter()
                .filter(|e| e["kind"] == "agent_message")
                .count();
            if agent >= count {
                break entries;
            }
            assert!(
                start.elapsed() < MINUTE * 2,
                "only {agent} of {count} entries arrived"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let mut samples: Vec<f64> = entries
            .iter()
            .filter_map(|e| {
                let sent: f64 = e["content"]["text"]
                    .as_str()?
                    .strip_prefix("sent_us=")?
                    .parse()
                    .ok()?;
                let at = e["at"].as_f64()? * 1000.0;
                Some((at - sent).max(0.0) / 1000.0)
            })
            .collect();
        samples.sort_by(f64::total_cmp);
        samples
    })
    .await
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    // Backtraces double the cost of traps and errors; none are expected here.
    unsafe { std::env::remove_var("RUST_BACKTRACE") };
    let noop = plug("tests/plugs/noop");
    let four: String = (1..=4)
        .map(|i| format!("  - id: noop{i}\n    source: {}\n", noop.display()))
        .collect();
    let redaction = format!(
        "  - id: redaction\n    source: {}\n",
        plug("plugs/redaction").display()
    );

    let runs = 31;
    let (base, with) = start_overheads(&four, runs).await;
    let (b50, w50) = (percentile(&base, 0.5), percentile(&with, 0.5));
    println!(
        "start run, accepted -> agent spawned, no plugs:        median {b50:6.2} ms  (n={})",
        base.len()
    );
    println!(
        "start run, accepted -> agent spawned, 4 no-op plugs:  median {w50:6.2} ms  (n={}; target <= 10 ms)",
        with.len()
    );
    println!(
        "  of which the plugs:                                  {:6.2} ms  ({:.2}x the baseline; target <= 1.15x)",
        w50 - b50,
        w50 / b50
    );
    // `-- start`: only the start runs (for profiling).
    if std::env::args().skip(1).any(|a| a == "start") {
        return;
    }

    let (count, rate) = (5000, 1000);
    let bare = relay_latencies("  []\n", count, rate).await;
    let filtered = relay_latencies(&redaction, count, rate).await;
    for (what, s) in [("no plugs", &bare), ("redaction", &filtered)] {
        println!(
            "transcript relay at {rate}/s, {what:<10} p50 {:6.2} ms  p99 {:6.2} ms  max {:6.2} ms  (n={}; target p99 <= 20 ms)",
            percentile(s, 0.5),
            percentile(s, 0.99),
            s[s.len() - 1],
            s.len()
        );
    }
}
