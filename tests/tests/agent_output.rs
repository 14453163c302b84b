//! One way out for what the agent produces. Everything an agent fills —
//! message and thought chunks, what it sends as the user's words, plans,
//! tool calls (id, title, input, content, diffs, locations, raw output),
//! permission requests (tool call, option ids and names), its stderr and the
//! errors it answers with — reaches Blaise, the transcript, the API, the
//! dashboard and the runner's log only after the transcript filters and the
//! secret mask. Driven with the script agent's `leak`, which puts a text in
//! every one of those fields, against a real control plane and runner.
//!
//! Also here: how a resume opens the conversation (`session/resume`,
//! `session/load`, a new one), a replay that comes after the agent's answer,
//! and how fast an idle agent that ignores its closed stdin is stopped.

use std::time::{Duration, Instant};

use blaise_control::model::IdlePolicy;
use blaise_tests::blaise::{Api, Runner, Stage, script_agent, settings};
use blaise_tests::plug;
use serde_json::{Value, json};

const MINUTE: Duration = Duration::from_secs(60);

/// A GitHub token's shape: the redaction plug recognises it.
const TOKEN: &str = "ghp_0neWayOut0123456789abcdefABCDEFghijk";

/// A stage with the script agent (these arguments, this `agent.env`) and
/// `plugs`, and a runner with `runner_env`.
async fn stage(
    args: &[&str],
    agent_env: &str,
    plugs: &str,
    inactivity_ms: i64,
    runner_env: &[(&str, &str)],
) -> (Stage, Runner) {
    let stage = Stage::new(settings(inactivity_ms, IdlePolicy::Pause)).await;
    let mut command = vec![script_agent().display().to_string()];
    command.extend(args.iter().map(|a| a.to_string()));
    let yaml = format!(
        "agent:\n  name: script\n  command: {}\n  env: {{{agent_env}}}\nplugs:\n{plugs}",
        serde_json::to_string(&command).unwrap()
    );
    std::fs::write(&stage.config, yaml).unwrap();
    let runner = stage.runner_with_env("box-1", runner_env);
    (stage, runner)
}

fn redaction() -> String {
    format!(
        "  - id: redaction\n    source: {}\n",
        plug("plugs/redaction").display()
    )
}

/// The session's permission request still waiting for an answer.
async fn pending(api: &Api, session: &str) -> Value {
    let view = api
        .wait_for(session, "a permission request", MINUTE, |v| {
            v["permission_requests"]
                .as_array()
                .is_some_and(|p| p.iter().any(|r| r["state"] == "pending"))
        })
        .await;
    view["permission_requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["state"] == "pending")
        .cloned()
        .unwrap()
}

async fn answer(api: &Api, session: &str, request: &Value, option: &str) {
    let path = format!(
        "/v1/sessions/{session}/permissions/{}/answer",
        request["request_id"].as_str().unwrap()
    );
    api.user
        .post(&path, json!({ "option_id": option }))
        .await
        .unwrap();
}

/// Every place a text of the agent's could be outside the runner.
async fn everywhere(stage: &Stage, runner: &Runner, session: &str) -> Vec<(&'static str, String)> {
    let api = &stage.blaise;
    let dashboard = stage.dashboard(session).await;
    let mut database = Vec::new();
    for entry in std::fs::read_dir(stage.path()).unwrap().flatten() {
        if entry.file_name().to_string_lossy().starts_with("blaise.db") {
            database.extend(std::fs::read(entry.path()).unwrap());
        }
    }
    vec![
        ("the session view", api.show(session).await.to_string()),
        (
            "the transcript",
            Value::from(api.transcript(session).await).to_string(),
        ),
        ("the dashboard", dashboard),
        ("the runner's log", runner.stderr()),
        (
            "the database",
            String::from_utf8_lossy(&database).into_owned(),
        ),
    ]
}

fn assert_nowhere(places: &[(&str, String)], secret: &str) {
    for (place, text) in places {
        for window in secret.as_bytes().windows(8) {
            let piece = std::str::from_utf8(window).unwrap();
            assert!(
                !text.contains(piece),
                "`{piece}` of the secret is in {place}:\n{text}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_text_an_agent_fills_leaves_only_through_the_filters() {
    // The token reaches the agent as a written-out value of its environment
    // (what the user writes is masked before the agent sees it; a written-out
    // value is not a secret to the runner): only the filter can catch it.
    let (stage, runner) = stage(&[], &format!("LEAKED: {TOKEN}"), &redaction(), 60_000, &[]).await;
    let api = &stage.blaise;
    let session = api.new_session("script", "leak $LEAKED").await;
    // The permission request Blaise stores is the filtered one: its option
    // ids were the agent's text, so it offers ids of the runner's own.
    let asked = pending(api, &session).await;
    let request = &asked["request"];
    assert_eq!(
        request["tool_call"]["id"].as_str().unwrap().get(..3),
        Some("tc-")
    );
    assert!(
        request["tool_call"]["title"]
            .as_str()
            .unwrap()
            .starts_with("ask [REDACTED"),
        "{asked:#}"
    );
    let options: Vec<&str> = request["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["option_id"].as_str().unwrap())
        .collect();
    assert_eq!(options, ["option-1", "option-2"], "{asked:#}");
    answer(api, &session, &asked, "option-1").await;
    // The agent got its own id back: it says which (masked on the way out).
    api.wait_for_text(&session, "Option chosen: yes [REDACTED", MINUTE)
        .await;

    // The tool call, every field there, every field masked.
    let transcript = api.transcript(&session).await;
    let call = transcript
        .iter()
        .filter(|e| e["kind"] == "tool_call")
        .map(|e| &e["content"]["tool_call"])
        .find(|c| c["kind"] == "edit" && c["status"] == "completed")
        .expect("the leaking tool call, completed");
    for field in [
        "title",
        "input",
        "locations",
        "content",
        "raw_output",
        "output",
    ] {
        let value = call[field].to_string();
        assert!(value.contains("[REDACTED"), "{field} is masked: {call:#}");
    }
    assert_eq!(call["content"][1]["type"], "diff", "{call:#}");
    let plan = transcript
        .iter()
        .find(|e| e["kind"] == "plan")
        .expect("the plan");
    assert!(
        plan["content"]["text"]
            .as_str()
            .unwrap()
            .contains("[REDACTED")
    );
    let log = runner.stderr();
    assert!(
        log.contains("stderr [REDACTED"),
        "the agent's stderr, filtered:\n{log}"
    );
    // What the agent sent as the user's words is not recorded.
    assert!(
        !transcript.iter().any(|e| e["content"]["text"]
            .as_str()
            .unwrap_or("")
            .starts_with("echo ")),
        "{transcript:#?}"
    );

    // The error an agent answers with is its text too: the turn fails (the
    // session goes on), and its notice is masked.
    api.send(&session, "fail $LEAKED").await.unwrap();
    let text = api
        .wait_for_text(&session, "failed: the agent", MINUTE)
        .await;
    let failed = text
        .lines()
        .find(|l| l.contains("failed: the agent"))
        .unwrap();
    assert!(failed.contains("[REDACTED"), "{failed}");
    assert_eq!(api.show(&session).await["state"], "active");

    assert_nowhere(&everywhere(&stage, &runner, &session).await, TOKEN);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_env_secret_is_masked_everywhere_without_a_filter() {
    let secret = "agent-env-Secret-7d41c09b";
    let (stage, runner) = stage(
        &[],
        "API_KEY: { env: RUNNER_HOLDS_THE_KEY }, MODE: plain",
        "  []\n",
        60_000,
        &[("RUNNER_HOLDS_THE_KEY", secret)],
    )
    .await;
    let api = &stage.blaise;
    let session = api
        .new_session(
            "script",
            "env API_KEY\nenv MODE\nrun echo $API_KEY\nleak $API_KEY",
        )
        .await;
    let asked = pending(api, &session).await;
    // Nothing filters this run: the secret mask alone changed the option id.
    answer(api, &session, &asked, "option-1").await;
    let text = api.wait_for_text(&session, "Option chosen", MINUTE).await;
    assert!(text.contains("API_KEY=[REDACTED:secret]"), "{text}");
    assert!(
        text.contains("MODE=plain"),
        "a written-out value is the agent's as is: {text}"
    );
    api.close(&session).await.unwrap();
    api.wait_for(&session, "the teardown", MINUTE, |v| {
        v["environment"]["state"] == "torn_down"
    })
    .await;
    assert_nowhere(&everywhere(&stage, &runner, &session).await, secret);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_env_secret_that_cannot_be_read_fails_the_start_naming_it() {
    let (stage, _runner) = stage(
        &[],
        "API_KEY: { env: NOT_SET_ANYWHERE }",
        "  []\n",
        60_000,
        &[],
    )
    .await;
    let api = &stage.blaise;
    let session = api.new_session("script", "say hi").await;
    let view = api
        .wait_for(&session, "the failure", MINUTE, |v| v["state"] == "failed")
        .await;
    let error = view["runs"][0]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("agent.env.API_KEY") && error.contains("`NOT_SET_ANYWHERE` is not set"),
        "{view:#}"
    );
}

/// Pauses `session` (its inactivity limit), sends `text`, and waits for
/// `answer`; returns the session's view.
async fn pause_and_resume(api: &Api, session: &str, text: &str, answer: &str) -> Value {
    api.wait_for(session, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    api.send(session, text).await.unwrap();
    api.wait_for_text(session, answer, MINUTE).await;
    api.show(session).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_resume_takes_the_conversation_up_the_best_way_the_agent_offers() {
    for (args, conversation, notice) in [
        (&["--resume"][..], "resumed", false),
        (&[][..], "loaded", false),
        (&["--no-load-session"][..], "new", true),
    ] {
        let (stage, runner) = stage(args, "", "  []\n", 1_000, &[]).await;
        let api = &stage.blaise;
        let session = api.new_session("script", "say first").await;
        api.wait_for_text(&session, "agent_message: first", MINUTE)
            .await;
        let view = pause_and_resume(api, &session, "say second", "agent_message: second").await;
        assert_eq!(view["runs"][0]["conversation"], "new", "{view:#}");
        assert_eq!(view["runs"][1]["kind"], "resume", "{view:#}");
        assert_eq!(
            view["runs"][1]["conversation"], conversation,
            "{args:?}: {view:#}"
        );
        let text = api.transcript_text(&session).await;
        assert_eq!(text.matches("agent_message: first").count(), 1, "{text}");
        assert_eq!(
            text.contains("notice: The agent cannot load"),
            notice,
            "{args:?}: {text}"
        );
        runner.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replay_sent_after_the_answer_is_never_recorded_as_live() {
    // The agent answers `session/load` and replays a second later (Gemini
    // CLI does it at once): no prompt goes before the replay is over, and
    // nothing of it is recorded, or joins the live answer.
    let (stage, runner) = stage(&["--late-replay", "1000"], "", &redaction(), 1_000, &[]).await;
    let api = &stage.blaise;
    let session = api
        .new_session("script", "say first answer\nthink a thought\nrun echo ran")
        .await;
    api.wait_for_text(&session, "tool_call: echo ran", MINUTE)
        .await;
    let before = api.transcript(&session).await.len();
    let view = pause_and_resume(
        api,
        &session,
        "say second answer",
        "agent_message: second answer",
    )
    .await;
    assert_eq!(view["runs"][1]["conversation"], "loaded", "{view:#}");
    let entries = api.transcript(&session).await;
    let after = &entries[before..];
    // Only the new user message and the live answer: nothing replayed, and
    // the answer is its own message.
    let kinds: Vec<&str> = after.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert!(
        kinds
            .iter()
            .all(|k| *k == "user_message" || *k == "agent_message"),
        "{}",
        api.transcript_text(&session).await
    );
    let said: String = after
        .iter()
        .filter(|e| e["kind"] == "agent_message")
        .filter_map(|e| e["content"]["text"].as_str())
        .collect();
    assert_eq!(
        said,
        "second answer",
        "{}",
        api.transcript_text(&session).await
    );
    runner.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_agent_that_ignores_its_closed_stdin_is_stopped_at_once() {
    let (stage, runner) = stage(&["--linger"], "", "  []\n", 1_000, &[]).await;
    let api = &stage.blaise;
    let session = api.new_session("script", "say idle now").await;
    let view = api
        .wait_for(&session, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    let run = &view["runs"][0];
    let took = run["ended_at"].as_i64().unwrap() - run["stop_issued_at"].as_i64().unwrap();
    // It used to wait out a 5-second grace for an exit that never came.
    assert!(
        took < 2_000,
        "stop directive → run ended took {took} ms: {view:#}"
    );
    let started = Instant::now();
    runner.stop().await;
    assert!(started.elapsed() < Duration::from_secs(30));
}
