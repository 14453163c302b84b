//! How soon a paused session answers its next message, hot and cold, with
//! real agents: Claude Code, Codex and Gemini CLI from npm (their model APIs
//! answered by the stand-in in `tests/src/model_api`), and the script agent.
//!
//! `cargo bench -p blaise-tests --bench resume [-- --resumes N]`; per agent,
//! two sessions side by side: one whose agent settings keep the agent hot
//! across the pause (`hot_for`), one cold (the agent started again and its
//! session loaded or resumed). Each is paused by inactivity and resumed N
//! times (5 by default); the figure is the time from the message (its
//! `user_message` entry in the transcript) to the agent's first words after
//! it (the first `agent_message` entry), both stamped by Blaise: medians,
//! with min and max, and hot / cold.

use std::time::Duration;

use blaise_control::model::{AgentSettings, IdlePolicy};
use blaise_tests::agents::{self, RealAgent};
use blaise_tests::blaise::{Stage, settings};
use blaise_tests::model_api::ModelApi;
use serde_json::Value;

const MINUTE: Duration = Duration::from_secs(60);

#[tokio::main]
async fn main() {
    let mut resumes = 5;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--resumes" {
            resumes = args.next().and_then(|n| n.parse().ok()).unwrap_or(resumes);
        }
    }
    let Some(installed) = agents::installed() else {
        return;
    };
    println!(
        "message → first words of the answer after an idle pause (ms; median [min, max] over {resumes} resumes)"
    );
    for (agent, sandboxed, name) in agents::bench_rows() {
        let hot = measure(agent, sandboxed, &installed, resumes, true).await;
        let cold = measure(agent, sandboxed, &installed, resumes, false).await;
        println!(
            "{name:<16} hot {}   cold {}   hot / cold {:.3}",
            summary(&hot),
            summary(&cold),
            median(&hot) / median(&cold)
        );
    }
}

fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn summary(samples: &[f64]) -> String {
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
    let max = samples.iter().copied().fold(0.0, f64::max);
    format!("{:>6.0} [{min:.0}, {max:.0}]", median(samples))
}

/// `resumes` idle pauses and resumes of one session; per resume, the
/// milliseconds from the message to the agent's first words.
async fn measure(
    agent: Option<RealAgent>,
    sandboxed: bool,
    installed: &agents::Installed,
    resumes: usize,
    hot: bool,
) -> Vec<f64> {
    let model = ModelApi::start("unused-secret").await;
    let name = agent.map_or("script", RealAgent::name);
    let stage = Stage::with_agent(
        name,
        AgentSettings {
            hot_for_ms: if hot { 600_000 } else { 0 },
            ..settings(1_500, IdlePolicy::Pause)
        },
    )
    .await;
    let runner = agents::bench_runner(&stage, &model.url, agent, sandboxed, installed);
    let api = &stage.blaise;
    let session = api.new_session(name, "say hello").await;
    let mut took = Vec::new();
    for n in 0..=resumes {
        let view = api
            .wait_for(&session, "the idle pause", MINUTE * 3, |v| {
                v["state"] == "paused" && v["runs"].as_array().map_or(0, Vec::len) == n + 1
            })
            .await;
        if n == resumes {
            let conversations: Vec<&str> = view["runs"]
                .as_array()
                .unwrap()
                .iter()
                .skip(1)
                .map(|r| r["conversation"].as_str().unwrap_or("-"))
                .collect();
            let expected = if hot { "kept" } else { "cold" };
            assert!(
                conversations
                    .iter()
                    .all(|c| (*c == "kept") == (expected == "kept")),
                "{name} {expected}: {conversations:?}"
            );
            break;
        }
        if name == "gemini" && !hot && n == 0 {
            // Gemini CLI loses a session loaded in the minute it began (see
            // tests/agents.rs): its first cold resume waits for the next minute.
            next_minute(api, &session).await;
        }
        let text = format!("say again {n}");
        api.send(&session, &text).await.unwrap();
        took.push(first_words(api, &session, &text).await);
    }
    runner.stop().await;
    took
}

/// Milliseconds from the `user_message` entry of `text` to the first
/// `agent_message` entry after it.
async fn first_words(api: &blaise_tests::blaise::Api, session: &str, text: &str) -> f64 {
    let start = std::time::Instant::now();
    loop {
        let entries = api.transcript(session).await;
        let asked = entries
            .iter()
            .position(|e| e["kind"] == "user_message" && e["content"]["text"] == text);
        if let Some(asked) = asked
            && let Some(answer) = entries[asked..]
                .iter()
                .find(|e| e["kind"] == "agent_message")
        {
            return at(answer) - at(&entries[asked]);
        }
        assert!(start.elapsed() < MINUTE * 3, "no answer to {text:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn at(entry: &Value) -> f64 {
    entry["at"].as_f64().unwrap()
}

/// Waits until the minute changes after the session's last entry.
async fn next_minute(api: &blaise_tests::blaise::Api, session: &str) {
    let last = api.transcript(session).await.last().map_or(0.0, at);
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as f64
    };
    while (now() / 60_000.0).floor() == (last / 60_000.0).floor() {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
