//! Hot resume, end to end: the control plane over HTTP, a real `blaise-runner
//! start` process with a process per run, and the script agent. When the
//! agent's settings allow it (`hot_for`) and every plug keeps processes, an
//! idle pause hands the agent, frozen, to the runner instance's keeper; the
//! next message goes on in the same process (no start, no `session/load`).
//! A runner restart, or a chain that cannot keep processes, makes it cold.

use std::time::Duration;

use blaise_control::model::{AgentSettings, IdlePolicy};
use blaise_tests::blaise::{Stage, redaction_plug, script_agent, settings};
use blaise_tests::procs::{self, Stat};

const MINUTE: Duration = Duration::from_secs(60);

fn hot(inactivity_ms: i64) -> AgentSettings {
    AgentSettings {
        hot_for_ms: 600_000,
        ..settings(inactivity_ms, IdlePolicy::Pause)
    }
}

/// The script agent's processes of this stage (started in its data
/// directory's workspaces).
fn agents(stage: &Stage) -> Vec<Stat> {
    let exe = script_agent().canonicalize().unwrap();
    procs::working_under(&stage.data.join("workspaces"))
        .into_iter()
        .filter(|p| procs::runs(p.pid, &exe))
        .collect()
}

fn runs(view: &serde_json::Value) -> Vec<(String, String)> {
    view["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_string(),
                r["conversation"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect()
}

/// A new session asked to say `words`: its id and its view once the answer
/// is in and the session has paused.
async fn said_and_paused(stage: &Stage, words: &str) -> (String, serde_json::Value) {
    let b = &stage.blaise;
    let id = b.new_session("script", &format!("say {words}")).await;
    b.wait_for_text(&id, &format!("agent_message: {words}"), MINUTE)
        .await;
    let view = b
        .wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    (id, view)
}

/// Sends the session a message to say `words` and waits for them; the
/// transcript's text then.
async fn answered(stage: &Stage, id: &str, words: &str) -> String {
    let b = &stage.blaise;
    b.send(id, &format!("say {words}")).await.unwrap();
    b.wait_for_text(id, &format!("agent_message: {words}"), MINUTE)
        .await
}

async fn gone(stage: &Stage, pid: u32) -> bool {
    for _ in 0..250 {
        if !agents(stage).iter().any(|a| a.pid == pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hot_pause_freezes_the_agent_and_the_next_message_goes_on_in_the_same_process() {
    let stage = Stage::new(hot(1_000)).await;
    stage.configure(&redaction_plug());
    let runner = stage.runner("instance-a");
    let b = &stage.blaise;
    let (id, view) = said_and_paused(&stage, "first").await;
    let run = &view["runs"][0];
    assert_eq!(run["stop"]["keep_agent"], true, "{run:#}");

    // Frozen, and using no CPU while paused.
    let kept = agents(&stage);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].state, 'T', "stopped: {kept:?}");
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let later = agents(&stage);
    assert_eq!(later, kept, "no CPU used while frozen");

    answered(&stage, &id, "second").await;
    let view = b.show(&id).await;
    // Nothing replayed: what the resume run recorded of the agent is its
    // answer to the new message alone.
    let resume = view["runs"][1]["id"].clone();
    let recorded: Vec<String> = b
        .transcript(&id)
        .await
        .iter()
        .filter(|e| e["run_id"] == resume && e["kind"] == "agent_message")
        .map(|e| {
            e["content"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(recorded.concat(), "second", "{recorded:?}");
    assert_eq!(
        runs(&view),
        [
            ("start".to_string(), "new".to_string()),
            ("resume".to_string(), "kept".to_string())
        ]
    );
    let now = agents(&stage);
    assert_eq!(now.len(), 1, "{now:?}");
    assert_eq!(now[0].pid, kept[0].pid, "the same process went on");
    assert_ne!(now[0].state, 'T');

    // Paused hot again, then the runner stops: nothing it kept outlives it.
    b.wait_for(&id, "the second pause", MINUTE, |v| {
        v["state"] == "paused" && v["runs"].as_array().is_some_and(|r| r.len() == 2)
    })
    .await;
    assert!(runner.stop().await.success());
    assert!(
        gone(&stage, kept[0].pid).await,
        "the kept agent died with its runner"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn after_a_runner_restart_the_resume_is_cold_and_loses_nothing() {
    let stage = Stage::new(hot(1_000)).await;
    stage.configure(&redaction_plug());
    let first = stage.runner("instance-a");
    let b = &stage.blaise;
    let (id, _) = said_and_paused(&stage, "remembered").await;
    let kept = agents(&stage);
    assert_eq!(kept.len(), 1);
    assert!(first.stop().await.success());
    assert!(gone(&stage, kept[0].pid).await);

    // The same instance name, a new process: nothing is kept there.
    let second = stage.runner("instance-a");
    answered(&stage, &id, "picked up").await;
    let view = b.show(&id).await;
    let kinds = runs(&view);
    assert_eq!(kinds.len(), 2);
    assert_eq!(
        kinds[1],
        ("resume".to_string(), "loaded".to_string()),
        "a cold resume loads the conversation"
    );
    assert!(second.stop().await.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chain_with_a_plug_that_does_not_keep_processes_pauses_cold() {
    let stage = Stage::new(hot(1_000)).await;
    // The no-op plug does not say it keeps processes.
    stage.configure(&format!(
        "{}  - id: noop\n    source: {}\n",
        redaction_plug(),
        blaise_tests::plug("tests/plugs/noop").display()
    ));
    let runner = stage.runner("instance-a");
    let b = &stage.blaise;
    let (id, view) = said_and_paused(&stage, "cold").await;
    assert_eq!(
        view["runs"][0]["stop"]["keep_agent"],
        serde_json::Value::Null,
        "Blaise does not ask for a hot pause the run said it cannot make"
    );
    let left = agents(&stage);
    assert!(left.is_empty(), "the agent exited at the pause: {left:?}");
    answered(&stage, &id, "again").await;
    assert_eq!(runs(&b.show(&id).await)[1].1, "loaded");
    assert!(runner.stop().await.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn when_the_hot_time_is_over_blaise_has_the_runner_let_the_agent_go() {
    let stage = Stage::new(AgentSettings {
        hot_for_ms: 2_000,
        ..hot(1_000)
    })
    .await;
    stage.configure(&redaction_plug());
    let runner = stage.runner("instance-a");
    let b = &stage.blaise;
    let (id, _) = said_and_paused(&stage, "briefly").await;
    let kept = agents(&stage);
    assert_eq!(kept.len(), 1, "kept at first: {kept:?}");
    // Blaise's clock, not the runner's: the next offers poll after the hot
    // time says to let go.
    let mut released = false;
    for _ in 0..150 {
        if agents(&stage).is_empty() {
            released = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(released, "the agent was let go after its hot time");
    assert!(
        runner.stderr().contains("Blaise let the kept agent go"),
        "{}",
        runner.stderr()
    );
    answered(&stage, &id, "later").await;
    assert_eq!(runs(&b.show(&id).await)[1].1, "loaded", "cold");
    assert!(runner.stop().await.success());
}

/// In the sandbox plug: bubblewrap starts the agent in a session of its own
/// (`--new-session`), outside the group a signal would reach; the keeper
/// freezes everything below the agent's guard all the same.
#[tokio::test(flavor = "multi_thread")]
async fn a_sandboxed_agent_is_kept_frozen_whole() {
    if !blaise_tests::tools::have(&["bwrap"]) {
        return;
    }
    let stage = Stage::new(hot(1_000)).await;
    stage.configure(&sandbox_plug("", "bwrap"));
    let runner = stage.runner("instance-a");
    let daemon = runner.child.id().unwrap();
    let b = &stage.blaise;
    let (id, _) = said_and_paused(&stage, "boxed").await;
    let kept = sandboxed_agents(daemon);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(
        kept[0].state, 'T',
        "the agent inside the sandbox is frozen: {kept:?}"
    );
    answered(&stage, &id, "still boxed").await;
    assert_eq!(runs(&b.show(&id).await)[1].1, "kept");
    assert_eq!(
        sandboxed_agents(daemon)[0].pid,
        kept[0].pid,
        "the same process"
    );
    assert!(runner.stop().await.success());
    let alive = |pid: u32| procs::stat(pid).is_some_and(|s| s.state != 'Z');
    let start = std::time::Instant::now();
    while alive(kept[0].pid) && start.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!alive(kept[0].pid), "nothing left running");
}

/// The sandbox plug's entry in `blaise.yml`, the script agent's directory
/// readable inside, with more `with:` lines and the programs it may run.
fn sandbox_plug(with: &str, exec: &str) -> String {
    format!(
        "  - id: sandbox\n    source: {}\n    with:\n      read_only: [{}]\n{with}    allow:\n      exec: [{exec}]\n      storage: true\n",
        blaise_tests::plug("plugs/sandbox").display(),
        script_agent().parent().unwrap().display(),
    )
}

/// The script agent's processes below the runner daemon `daemon` (inside a
/// sandbox: by its executable, not its working directory).
fn sandboxed_agents(daemon: u32) -> Vec<Stat> {
    let exe = script_agent().canonicalize().unwrap();
    blaise_runner::keeper::descendants(daemon)
        .into_iter()
        .filter(|&pid| procs::runs(pid, &exe))
        .filter_map(procs::stat)
        .filter(|s| s.state != 'Z')
        .collect()
}

/// In the sandbox with an allow list (`blaise-egress` before the agent, as
/// `docs/agents.md` runs Claude Code): the agent is kept all the same, and
/// each run's record has what left during that run, from `blaise-egress`'s
/// own descriptor: asked for at the hot pause, counted afresh after it.
#[tokio::test(flavor = "multi_thread")]
async fn a_sandboxed_agent_behind_an_allow_list_is_kept_and_each_run_counts_its_own_egress() {
    if !blaise_tests::tools::have(&["bwrap"]) {
        return;
    }
    let stage = Stage::new(hot(1_000)).await;
    let allowed = blaise_tests::destinations::http_server("hello-from-the-allowed-server");
    stage.configure(&sandbox_plug(
        &format!("      network:\n        allow: [\"127.0.0.1:{allowed}\"]\n"),
        "bwrap, blaise-egress",
    ));
    let runner = stage.runner("instance-a");
    let daemon = runner.child.id().unwrap();
    let b = &stage.blaise;
    let fetch = format!("curl -sS -m 20 http://127.0.0.1:{allowed}/");
    let id = b
        .new_session("script", &format!("run {fetch}; echo first-done"))
        .await;
    b.wait_for_text(&id, "first-done", MINUTE).await;
    let view = b
        .wait_for(&id, "the hot pause", MINUTE, |v| v["state"] == "paused")
        .await;
    let kept = sandboxed_agents(daemon);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].state, 'T', "frozen: {kept:?}");
    let connections = |view: &serde_json::Value, run: usize| {
        let reached = &view["runs"][run]["egress"]["reached"];
        assert_eq!(
            reached[0]["destination"],
            format!("127.0.0.1:{allowed}"),
            "run {run}: {reached}"
        );
        reached[0]["connections"].as_u64().unwrap()
    };
    assert_eq!(connections(&view, 0), 1, "the first run's one fetch");

    b.send(&id, &format!("run {fetch}; {fetch}; echo second-done"))
        .await
        .unwrap();
    let text = b.wait_for_text(&id, "second-done", MINUTE).await;
    assert!(text.contains("hello-from-the-allowed-server"), "{text}");
    let view = b
        .wait_for(&id, "the second pause", MINUTE, |v| {
            v["state"] == "paused" && v["runs"][1]["egress"]["reached"][0].is_object()
        })
        .await;
    assert_eq!(runs(&view)[1].1, "kept", "the resume was hot");
    assert_eq!(
        sandboxed_agents(daemon)[0].pid,
        kept[0].pid,
        "the same process"
    );
    assert_eq!(
        connections(&view, 1),
        2,
        "the resume run's own two fetches, not the first run's too"
    );
    assert_eq!(connections(&view, 0), 1, "the first run's record unchanged");
    assert!(runner.stop().await.success());
}
