//! How long a stop takes with real agents: from Blaise's stop directive
//! (the idle pause of a session whose agent is between turns) to the run's
//! process having exited, for Claude Code, Codex and Gemini CLI from npm
//! (their model APIs answered by the stand-in in `tests/src/model_api`), and
//! for the script agent, which exits on its closed stdin (the baseline).
//!
//! `cargo bench -p blaise-tests --bench agents [-- --pauses N]`; prints, per
//! agent, the median, min and max over N pauses (5 by default) of:
//! directive → run process exited (the daemon's log of the exit), and
//! directive → final report in Blaise. `BLAISE_RUNNER_BIN=/path` measures
//! another build of the runner (the one before a change: "before").
//! Secrets are written out in `blaise.yml` here, so that a runner from
//! before `agent.env` sources can read it too.

use std::time::Duration;

use blaise_control::model::IdlePolicy;
use blaise_tests::agents::{self, RealAgent};
use blaise_tests::blaise::{Runner, Stage, script_agent, settings};
use blaise_tests::model_api::ModelApi;

const MINUTE: Duration = Duration::from_secs(60);

#[tokio::main]
async fn main() {
    let mut pauses = 5;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--pauses" {
            pauses = args.next().and_then(|n| n.parse().ok()).unwrap_or(pauses);
        }
    }
    let Some(installed) = agents::installed() else {
        return;
    };
    if let Ok(bin) = std::env::var("BLAISE_RUNNER_BIN") {
        println!("runner: {bin}");
    }
    println!(
        "directive → run exited, and → final report (ms; median [min, max] over {pauses} idle pauses)"
    );
    let mut agents: Vec<Option<RealAgent>> = vec![None];
    agents.extend([RealAgent::Claude, RealAgent::Codex, RealAgent::Gemini].map(Some));
    for agent in agents {
        let (exited, reported) = measure(agent, &installed, pauses).await;
        let name = agent.map_or("script agent (baseline)", RealAgent::name);
        println!(
            "{name:<24} exited {}   reported {}",
            summary(&exited),
            summary(&reported)
        );
    }
}

fn summary(samples: &[f64]) -> String {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    format!(
        "{median:>7.0} [{:.0}, {:.0}]",
        sorted[0],
        sorted[sorted.len() - 1]
    )
}

/// `pauses` idle pauses of one session; per pause, the milliseconds from the
/// stop directive to the run's exit and to its final report.
async fn measure(
    agent: Option<RealAgent>,
    installed: &agents::Installed,
    pauses: usize,
) -> (Vec<f64>, Vec<f64>) {
    let model = ModelApi::start("unused-secret").await;
    let name = agent.map_or("script", RealAgent::name);
    let stage = Stage::with_agent(name, settings(1_500, IdlePolicy::Pause)).await;
    let home = stage.path().join("agent-home");
    std::fs::create_dir_all(&home).unwrap();
    let key = "bench-key-0123456789abcdef";
    let config = match agent {
        Some(agent) => written_out(&agent.config(&model.url, "  []\n"), key, &home),
        None => format!(
            "agent:\n  name: script\n  command: [{}]\nplugs: []\n",
            serde_json::to_string(&script_agent()).unwrap()
        ),
    };
    std::fs::write(&stage.config, config).unwrap();
    let runner = stage.runner_with_env("bench", &[("PATH", installed.path.as_str())]);
    let api = &stage.blaise;
    let session = api.new_session(name, "say hello").await;
    let mut exited = Vec::new();
    let mut reported = Vec::new();
    for n in 0..pauses {
        if n > 0 {
            api.send(&session, &format!("say again {n}")).await.unwrap();
        }
        let view = api
            .wait_for(&session, "the idle pause", MINUTE * 3, |v| {
                v["state"] == "paused" && v["runs"].as_array().map_or(0, Vec::len) == n + 1
            })
            .await;
        let run = &view["runs"][n];
        let issued = run["stop_issued_at"].as_f64().expect("a stop was issued");
        reported.push(run["ended_at"].as_f64().unwrap() - issued);
        let ended = process_ended(&runner, run["id"].as_str().unwrap()).await;
        exited.push(ended - issued);
    }
    runner.stop().await;
    (exited, reported)
}

/// The documented config with its secret sources written out (the key)
/// and a home given (a runner from before gave none).
fn written_out(config: &str, key: &str, home: &std::path::Path) -> String {
    let mut yaml: serde_yaml::Value = serde_yaml::from_str(config).unwrap();
    let env = yaml["agent"]["env"].as_mapping_mut().unwrap();
    for (_, value) in env.iter_mut() {
        if value.is_mapping() {
            *value = key.into();
        }
    }
    env.insert("HOME".into(), home.display().to_string().into());
    serde_yaml::to_string(&yaml).unwrap()
}

/// When the daemon saw the run's process end (ms since the epoch), from its log.
async fn process_ended(runner: &Runner, run: &str) -> f64 {
    let needle = format!("run process ended run=\"{run}\"");
    let log = runner.wait_for_stderr(&needle, MINUTE).await;
    let line = log.lines().find(|l| l.contains(&needle)).unwrap();
    epoch_ms(line.split_whitespace().next().unwrap())
}

/// `2026-12-01T21:09:11.639792Z` as milliseconds since the epoch.
fn epoch_ms(stamp: &str) -> f64 {
    let (date, time) = stamp.trim_end_matches('Z').split_once('T').unwrap();
    let d: Vec<i64> = date.split('-').map(|p| p.parse().unwrap()).collect();
    let t: Vec<f64> = time.split(':').map(|p| p.parse().unwrap()).collect();
    // Days from the civil date (Howard Hinnant's algorithm).
    let (y, m, day) = (if d[1] <= 2 { d[0] - 1 } else { d[0] }, d[1], d[2]);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    ((days * 86_400) as f64 + t[0] * 3600.0 + t[1] * 60.0 + t[2]) * 1000.0
}
