//! What a command prints is seen while it runs (issue 53): with real Codex (`codex-acp`, which
//! streams a running command's output once the runner announces `terminal_output`), a command
//! that prints a line a second for ten seconds shows each line in the transcript and on the
//! dashboard within two seconds of printing it, masked like all agent output; the call ends
//! with its exit status and how long it took, and `session transcript` prints it once.
//!
//! The model's API cannot be reached from here: the stand-in of `tests/src/model_api` answers
//! in OpenAI's published Responses format and asks for the command; Codex runs it for real.
//! Codex 0.16 sometimes sends no end for a command it asked permission for, so how a call ends
//! (its exit status, its duration, the CLI's last line) is checked with the script agent too,
//! which streams as the adapters do (`_meta.terminal_output`, then `_meta.terminal_exit`).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use blaise_control::model::IdlePolicy;
use blaise_tests::agents::{self, RealAgent};
use blaise_tests::blaise::{Stage, redaction_plug, settings, write_script_config};
use blaise_tests::model_api::ModelApi;
use serde_json::Value;

const SECRET: &str = "ghp_R3alAgentsLeak0123456789abcdefABCDEF";
const PATIENCE: Duration = Duration::from_secs(120);
/// How long after a line is printed it may first be seen (the issue asks for 2 s; a line a
/// second means a line that came with the next one would be ~1 s late: under that).
const SEEN_WITHIN_MS: u64 = 900;

#[tokio::test(flavor = "multi_thread")]
async fn a_running_commands_output_is_seen_as_it_comes() {
    let Some(installed) = agents::installed() else {
        return;
    };
    let agent = RealAgent::Codex;
    let model = ModelApi::start(SECRET).await;
    let stage = Stage::with_agent(agent.name(), settings(600_000, IdlePolicy::Pause)).await;
    std::fs::write(&stage.config, agent.config(&model.url, &redaction_plug())).unwrap();
    let runner = agent.runner(&stage, &installed);
    let api = &stage.blaise;
    let session = api
        .new_session(
            agent.name(),
            "run for i in 1 2 3 4 5 6 7 8 9 10; do echo \"line $i at $(date +%s%3N) token @secret@\"; sleep 1; done",
        )
        .await;

    // Poll the API's transcript and the dashboard's page: when each line is first seen in
    // each, against when the command printed it (the time in the line).
    let mut seen_api: BTreeMap<u32, u64> = BTreeMap::new();
    let mut seen_page: BTreeMap<u32, u64> = BTreeMap::new();
    let mut seen_running = false;
    let start = Instant::now();
    let call = loop {
        assert!(
            start.elapsed() < PATIENCE,
            "{}",
            api.transcript_text(&session).await
        );
        // Codex asks before it runs a command it does not know to be safe: allowed once.
        api.allow_pending(&session).await;
        let transcript = api.transcript(&session).await;
        first_seen(&streamed(&transcript), &mut seen_api);
        first_seen(&stage.dashboard(&session).await, &mut seen_page);
        let last = last_state(&transcript);
        if let Some(call) = &last {
            if call["status"] == "in_progress" && !seen_api.is_empty() {
                seen_running = true;
            }
            // Codex 0.16 sends no end for a command it ran after asking permission (it asks
            // for some runs of this one, not others): the turn's answer ends the wait then.
            let answered = transcript.iter().any(|e| {
                e["kind"] == "agent_message"
                    && e["content"]["text"]
                        .as_str()
                        .is_some_and(|t| t.starts_with("DONE"))
            });
            if call["status"] == "completed" || call["status"] == "failed" || answered {
                break call.clone();
            }
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    };
    assert!(seen_running, "the output was seen while the command ran");
    for (place, seen) in [
        ("the API's transcript", &seen_api),
        ("the dashboard", &seen_page),
    ] {
        // Codex 0.16 streams what a command prints after its first second (the first output
        // answers the exec's start, to its model, not as a delta): lines 2 to 8 must come as
        // printed (the last ones may be taken with the call's end).
        let early: Vec<(&u32, &u64)> = seen.iter().filter(|(n, _)| (2..=8).contains(*n)).collect();
        assert!(early.len() >= 7, "{place} saw lines {seen:?}");
        for (n, after) in early {
            assert!(
                *after <= SEEN_WITHIN_MS,
                "{place} first showed line {n} {after} ms after it was printed: {seen:?}"
            );
        }
    }
    let ended = call["status"] == "completed";
    if ended {
        assert_eq!(call["exit_code"], 0, "{call:#}");
        assert!(call["duration_ms"].as_u64().unwrap() >= 9_000, "{call:#}");
    }

    // Masked like all agent output, everywhere it went.
    let transcript = Value::from(api.transcript(&session).await).to_string();
    assert!(
        !transcript.contains(SECRET),
        "the token is in the transcript"
    );
    assert!(
        transcript.contains("[REDACTED"),
        "there was a token to mask"
    );
    assert!(!stage.dashboard(&session).await.contains(SECRET));

    // The CLI prints the call once, then what it printed, then how it ended.
    let printed = cli_transcript(api, &session);
    let heads = printed.matches("tool_call: ").count();
    assert_eq!(heads, 1, "{printed}");
    assert!(printed.contains("line 1 at"), "{printed}");
    assert!(
        !ended || printed.contains("└ completed, exit 0, "),
        "{printed}"
    );
    runner.stop().await;
}

/// A command that fails after printing for three seconds: its lines are seen while it runs,
/// masked; the call ends `failed` with exit status 3 and its duration; the dashboard's card and
/// the CLI say so, the CLI printing the call once.
#[tokio::test(flavor = "multi_thread")]
async fn a_command_that_fails_shows_its_output_as_it_comes_then_how_it_ended() {
    let stage = Stage::with_agent("script", settings(600_000, IdlePolicy::Pause)).await;
    write_script_config(&stage.config, &redaction_plug());
    let runner = stage.runner("box-1");
    let api = &stage.blaise;
    let session = api
        .new_session(
            "script",
            &format!(
                "run for i in 1 2 3; do echo \"line $i at $(date +%s%3N) token {SECRET}\"; sleep 1; done; echo to stderr >&2; exit 3"
            ),
        )
        .await;
    let mut seen: BTreeMap<u32, u64> = BTreeMap::new();
    let mut seen_running = false;
    let start = Instant::now();
    let call = loop {
        assert!(
            start.elapsed() < PATIENCE,
            "{}",
            api.transcript_text(&session).await
        );
        let transcript = api.transcript(&session).await;
        first_seen(&streamed(&transcript), &mut seen);
        if let Some(call) = last_state(&transcript) {
            if call["status"] == "in_progress" && !seen.is_empty() {
                seen_running = true;
            }
            if call["status"] == "failed" {
                break call;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(seen_running, "the output was seen while the command ran");
    assert_eq!(seen.len(), 3, "{seen:?}");
    for (n, after) in &seen {
        assert!(
            *after <= SEEN_WITHIN_MS,
            "line {n} was first seen {after} ms after it was printed: {seen:?}"
        );
    }
    assert_eq!(call["exit_code"], 3, "{call:#}");
    let took = call["duration_ms"].as_u64().unwrap();
    assert!((2_900..30_000).contains(&took), "{call:#}");

    let transcript = Value::from(api.transcript(&session).await).to_string();
    assert!(
        !transcript.contains(SECRET),
        "the token is in the transcript"
    );
    assert!(transcript.contains("to stderr"), "stderr is output too");
    let page = stage.dashboard(&session).await;
    assert!(!page.contains(SECRET));
    assert!(
        page.contains("<span class=\"exit\">exit 3 · "),
        "the card says how it ended: {page}"
    );

    let printed = cli_transcript(api, &session);
    assert_eq!(printed.matches("tool_call: ").count(), 1, "{printed}");
    let (_, after_call) = printed.split_once("tool_call: ").unwrap();
    let line_1 = after_call
        .find("line 1 at")
        .expect("the output follows the call");
    let line_3 = after_call.find("line 3 at").expect("all of it");
    let end = after_call
        .find("└ failed, exit 3, ")
        .expect("then how it ended");
    assert!(line_1 < line_3 && line_3 < end, "{printed}");
    runner.stop().await;
}

/// What the calls' commands printed, as streamed so far.
fn streamed(transcript: &[Value]) -> String {
    transcript
        .iter()
        .filter(|e| e["kind"] == "tool_output")
        .filter_map(|e| e["content"]["text"].as_str())
        .collect()
}

/// Records, for each line `line N at MS` in `text` not seen before, how long after it was
/// printed it is seen now.
fn first_seen(text: &str, seen: &mut BTreeMap<u32, u64>) {
    let now = blaise_tests::now_ms();
    for (n, printed) in lines(text) {
        seen.entry(n).or_insert(now.saturating_sub(printed));
    }
}

/// `blaise session transcript ID`, as a person runs it.
fn cli_transcript(api: &blaise_tests::blaise::Blaise, session: &str) -> String {
    let cli = std::process::Command::new(blaise_tests::serve::blaise_binary())
        .args(["session", "transcript", session])
        .env("BLAISE_URL", api.url())
        .env("BLAISE_TOKEN", &api.embedded.admin_token)
        .output()
        .unwrap();
    assert!(cli.status.success(), "{cli:?}");
    String::from_utf8(cli.stdout).unwrap()
}

/// Lines `line N at MS` in `text`: N and MS.
fn lines(text: &str) -> Vec<(u32, u64)> {
    text.split("line ")
        .skip(1)
        .filter_map(|rest| {
            let (n, rest) = rest.split_once(" at ")?;
            let ms: String = rest.chars().take_while(char::is_ascii_digit).collect();
            Some((n.parse().ok()?, ms.parse().ok()?))
        })
        .filter(|(_, ms)| *ms > 1_000_000_000_000)
        .collect()
}

/// The command's call as it stands last.
fn last_state(transcript: &[Value]) -> Option<Value> {
    transcript
        .iter()
        .rev()
        .filter(|e| e["kind"] == "tool_call")
        .map(|e| e["content"]["tool_call"].clone())
        .find(|c| c["command"].as_str().is_some_and(|c| c.contains("sleep 1")))
}
