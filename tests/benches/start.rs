//! How soon a new session is answered, with real agents: Claude Code, Codex
//! and Gemini CLI from npm (their model APIs answered by the stand-in in
//! `tests/src/model_api`, which answers at once), and the script agent.
//!
//! `cargo bench -p blaise-tests --bench start [-- --sessions N]`; per agent,
//! N new sessions one after another on one runner (5 by default), each
//! closed once answered. The figure is the time from the session's first
//! message (its `user_message` entry, stamped by Blaise when `session new`
//! is answered) to the agent's first words (the first `agent_message`
//! entry), and where that time went, from the run's `start phases` log line
//! (milliseconds since the daemon accepted the run): the plug chain
//! instantiated, the plugs' `on-start` done, the agent answering
//! `initialize` (or taken up), its conversation open. Medians, with min and
//! max. Each agent is measured cold, then warm (`warm_agents: 1`, the pool
//! full before each `session new`).

use std::time::Duration;

use blaise_control::model::{AgentSettings, IdlePolicy};
use blaise_tests::agents::{self, RealAgent};
use blaise_tests::blaise::{Stage, settings};
use blaise_tests::model_api::ModelApi;
use serde_json::Value;

const MINUTE: Duration = Duration::from_secs(60);
const PHASES: [&str; 4] = [
    "chain_ready_us",
    "plugs_started_us",
    "agent_started_us",
    "conversation_open_us",
];

#[tokio::main]
async fn main() {
    let mut sessions = 5;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--sessions" => sessions = args.next().and_then(|n| n.parse().ok()).unwrap_or(sessions),
            "--agent" => only = args.next(),
            _ => {}
        }
    }
    let Some(installed) = agents::installed() else {
        return;
    };
    println!(
        "session new → first words, and the start's phases since the run was accepted (ms; median [min, max] over {sessions} sessions)"
    );
    for (agent, sandboxed, name) in agents::bench_rows() {
        if only.as_ref().is_some_and(|o| !name.starts_with(o.as_str())) {
            continue;
        }
        let mut medians = Vec::new();
        // The sandbox plug's prefix is made by its `on-start`: a warm agent,
        // started with no plug's contribution, is never the same launch.
        let ways: &[bool] = if sandboxed { &[false] } else { &[false, true] };
        for &warm in ways {
            let (words, phases) = measure(agent, sandboxed, &installed, sessions, warm).await;
            let columns: Vec<String> = PHASES
                .iter()
                .enumerate()
                .map(|(k, phase)| {
                    let column: Vec<f64> = phases.iter().map(|row| row[k] / 1000.0).collect();
                    format!("{} {}", phase.trim_end_matches("_us"), summary(&column))
                })
                .collect();
            println!(
                "{name:<16} {:<5} first words {}\n{:<22} {}",
                if warm { "warm" } else { "cold" },
                summary(&words),
                "",
                columns.join("  ")
            );
            medians.push(median(&words));
        }
        if let [cold, warm] = medians[..] {
            println!("{name:<16} warm / cold {:.3}", warm / cold);
        }
    }
}

fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn summary(samples: &[f64]) -> String {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    format!(
        "{:.0} [{:.0}, {:.0}]",
        sorted[sorted.len() / 2],
        sorted[0],
        sorted[sorted.len() - 1]
    )
}

/// `sessions` new sessions, one after another; per session, the
/// milliseconds to the first words, and the phases of its start run.
async fn measure(
    agent: Option<RealAgent>,
    sandboxed: bool,
    installed: &agents::Installed,
    sessions: usize,
    warm: bool,
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let model = ModelApi::start("unused-secret").await;
    let name = agent.map_or("script", RealAgent::name);
    let stage = Stage::with_agent(
        name,
        AgentSettings {
            warm_agents: u32::from(warm),
            ..settings(600_000, IdlePolicy::Pause)
        },
    )
    .await;
    let runner = agents::bench_runner(&stage, &model.url, agent, sandboxed, installed);
    let api = &stage.blaise;
    let mut words = Vec::new();
    for n in 0..sessions {
        if warm {
            // The pool is full before each session is asked for.
            runner
                .wait_for_stderr_count("a warm agent waits for a session", n + 1, MINUTE * 2)
                .await;
        }
        let session = api.new_session(name, &format!("say hello {n}")).await;
        words.push(first_words(api, &session).await);
        api.close(&session).await.unwrap();
        api.wait_for(&session, "the close", MINUTE * 2, |v| {
            v["state"] == "closed"
        })
        .await;
    }
    let phases = runner.log_fields("start phases", &PHASES);
    assert_eq!(phases.len(), sessions, "one start phases line a session");
    let took_warm = runner
        .stderr()
        .lines()
        .filter(|l| l.contains("start phases") && l.contains("conversation=Warm"))
        .count();
    assert_eq!(
        took_warm,
        if warm { sessions } else { 0 },
        "every warm start took a warm agent"
    );
    runner.stop().await;
    (words, phases)
}

/// Milliseconds from the session's first `user_message` entry to the first
/// `agent_message` entry after it.
async fn first_words(api: &blaise_tests::blaise::Api, session: &str) -> f64 {
    let start = std::time::Instant::now();
    loop {
        let entries = api.transcript(session).await;
        let asked = entries.iter().position(|e| e["kind"] == "user_message");
        if let Some(asked) = asked
            && let Some(answer) = entries[asked..]
                .iter()
                .find(|e| e["kind"] == "agent_message")
        {
            return at(answer) - at(&entries[asked]);
        }
        assert!(start.elapsed() < MINUTE * 3, "no answer in {session}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn at(entry: &Value) -> f64 {
    entry["at"].as_f64().unwrap()
}
