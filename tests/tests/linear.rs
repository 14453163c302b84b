//! A Linear agent session answered by a real coding agent: Claude Code (`claude-agent-acp` from
//! npm) run by a real runner with the redaction plug, under a real control plane answering for a
//! Linear app. Linear's API and the model's are stand-ins on 127.0.0.1 (neither can be reached
//! from here): `blaise_tests::linear_api` as Linear documents its agent API,
//! `blaise_tests::model_api` in Anthropic's wire format with a scripted model.
//!
//! What the Linear user sees: the acknowledgement, the agent's command as an action with its
//! output, its answer as the response; a command that needs permission as an elicitation whose
//! option, chosen in Linear, lets the command run; a follow-up after the idle pause answered by
//! the resumed agent, which still has the earlier turns. The secret the model leaks is masked in
//! everything Linear receives.

use std::time::{Duration, Instant};

use blaise_control::model::IdlePolicy;
use blaise_tests::agents::{self, RealAgent};
use blaise_tests::blaise::{Stage, settings};
use blaise_tests::linear_api::*;
use blaise_tests::model_api::ModelApi;
use blaise_tests::plug;
use serde_json::{Value, json};

/// A GitHub token's shape: the redaction plug masks it wherever it is.
const LEAKED: &str = "ghp_L1nearLeak0123456789abcdefABCDEFGHij";

/// A `created` event whose comment holds the scripted model's commands, one a line (Linear keeps
/// a comment's lines in its prompt context).
fn mention(agent_session: &str, lines: &str) -> Value {
    let mut event = created_on(agent_session, lines, "issue-9");
    event["promptContext"] = json!(format!(
        "<issue identifier=\"ENG-123\">\n<title>Fix the flaky parser test</title>\n</issue>\n<primary-directive-thread comment-id=\"comment-1\">\n<comment author=\"Ada\">\n{lines}\n</comment>\n</primary-directive-thread>"
    ));
    event
}

fn body(a: &Value) -> String {
    let c = &a["content"];
    [&c["body"], &c["action"], &c["parameter"], &c["result"]]
        .iter()
        .filter_map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Waits for an activity of `kind` whose text contains `words`, after the first `skip`.
async fn wait_for(linear: &StandIn, session: &str, skip: usize, kind: &str, words: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let all = linear.activities(session);
        if let Some(a) = all
            .iter()
            .skip(skip)
            .find(|a| a["content"]["type"] == kind && body(a).contains(words))
        {
            return a.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no {kind} saying {words:?} in {session}: {all:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_answers_a_linear_agent_session() {
    let Some(installed) = agents::installed() else {
        return;
    };
    let agent = RealAgent::Claude;
    let model = ModelApi::start(LEAKED).await;
    let linear = StandIn::start().await;
    let stage = Stage::with_sources(
        agent.name(),
        settings(3_000, IdlePolicy::Pause),
        linear.app("coder", agent.name()),
    )
    .await;
    let plugs = format!(
        "  - id: redaction\n    source: {}\n",
        plug("plugs/redaction").display()
    );
    std::fs::write(&stage.config, agent.config(&model.url, &plugs)).unwrap();
    let key = "claude-key-Lin3arTestKey0";
    let _runner = stage.runner_with_env(
        "box-1",
        &[
            ("PATH", installed.path.as_str()),
            (agent.key_variable(), key),
        ],
    );
    let http = reqwest::Client::new();
    let url = stage.blaise.url().to_string();
    let send = |event: Value| {
        let (http, url) = (http.clone(), url.clone());
        async move {
            let status = post_webhook(&http, &url, &event, &delivery(), SECRET).await;
            assert_eq!(status, 200, "the webhook was refused");
        }
    };

    // The mention: acknowledged at once, then the agent's work.
    let asked = Instant::now();
    send(mention(
        "as-real",
        "run echo @secret@ hello-from-linear\nsay all done",
    ))
    .await;
    let first = linear.wait_activities("as-real", 1).await;
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(first[0]["content"]["type"], "thought");
    let action = wait_for(&linear, "as-real", 0, "action", "hello-from-linear").await;
    assert!(
        action["content"]["result"]
            .as_str()
            .is_some_and(|r| r.contains("hello-from-linear")),
        "the command's output: {action:#}"
    );
    let answered = wait_for(&linear, "as-real", 0, "response", "all done").await;
    assert!(body(&answered).contains("DONE"), "{answered:#}");
    let id = session_of(&linear, "as-real").await;

    // A command that needs permission: an elicitation; the option chosen in Linear lets it run.
    let seen = linear.activities("as-real").len();
    send(prompted(
        "as-real",
        "act-real-1",
        "run touch permitted-by-linear",
        None,
    ))
    .await;
    let ask = wait_for(
        &linear,
        "as-real",
        seen,
        "elicitation",
        "touch permitted-by-linear",
    )
    .await;
    let options = ask["signalMetadata"]["options"].as_array().unwrap();
    let allow = options
        .iter()
        .find(|o| {
            o["value"]
                .as_str()
                .is_some_and(|v| v.to_lowercase().starts_with("allow"))
        })
        .unwrap_or_else(|| panic!("an option that allows: {ask:#}"));
    let seen = linear.activities("as-real").len();
    send(prompted(
        "as-real",
        "act-real-2",
        allow["value"].as_str().unwrap(),
        None,
    ))
    .await;
    wait_for(&linear, "as-real", seen, "response", "DONE").await;
    let view = stage.blaise.show(&id).await;
    let workspace = stage.workspace(&view);
    assert!(
        workspace.join("permitted-by-linear").exists(),
        "the permitted command ran in {}",
        workspace.display()
    );

    // Idle: paused; a follow-up from Linear resumes the agent, which has the earlier turns.
    stage
        .blaise
        .wait_for(&id, "the idle pause", Duration::from_secs(120), |v| {
            v["state"] == "paused"
        })
        .await;
    let seen = linear.activities("as-real").len();
    send(prompted("as-real", "act-real-3", "recall", None)).await;
    let recalled = wait_for(&linear, "as-real", seen, "response", "RECALL").await;
    assert!(
        body(&recalled).contains("| run touch permitted-by-linear"),
        "the model sees the earlier turns: {recalled:#}"
    );

    // Nothing Linear received holds the leaked secret or the agent's key.
    for a in linear.activities("as-real") {
        let text = a.to_string();
        assert!(!text.contains(LEAKED), "the secret reached Linear: {a:#}");
        assert!(!text.contains(key), "the API key reached Linear: {a:#}");
    }
}
