//! Real coding agents under Blaise: Claude Code (`claude-agent-acp`), Codex
//! (`codex-acp`) and Gemini CLI (`gemini --acp`), installed from npm at
//! pinned versions, each configured by the `blaise.yml` that `docs/agents.md`
//! shows and driven through a whole session by a real control plane and a
//! real runner: start → a read-only tool call → a tool call that needs
//! permission, answered through the API → idle pause → resume → close and
//! teardown, nothing left running.
//!
//! Their model APIs cannot be reached from here: a stand-in on 127.0.0.1
//! (`tests/src/model_api`) answers in each API's published wire format, with
//! a scripted model. The model "leaks" a token the redaction plug knows into
//! every field it can make the agent fill (message, thought, plan, tool
//! call title, command, input and output, permission request), and the
//! agent's API key (given by source, masked by the runner); neither may be
//! anywhere outside the runner.

use std::path::Path;
use std::time::{Duration, Instant};

use blaise_control::model::IdlePolicy;
use blaise_tests::agents::{self, RealAgent};
use blaise_tests::blaise::{Stage, settings};
use blaise_tests::model_api::ModelApi;
use blaise_tests::plug;
use serde_json::{Value, json};

/// A GitHub token's shape: the redaction plug masks it wherever it is.
const SECRET: &str = "ghp_R3alAgentsLeak0123456789abcdefABCDEF";

const PATIENCE: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_through_a_whole_session() {
    whole_session(RealAgent::Claude, false, false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn codex_through_a_whole_session() {
    whole_session(RealAgent::Codex, false, false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn gemini_cli_through_a_whole_session() {
    whole_session(RealAgent::Gemini, false, false).await;
}

/// Warm starts (`warm_agents: 1`): the runner starts Claude Code ahead,
/// with its conversation open; the session takes it, and goes through the
/// same whole session (its idle pause, resume and teardown) as a cold one.
#[tokio::test(flavor = "multi_thread")]
async fn claude_code_from_a_warm_agent_through_a_whole_session() {
    whole_session(RealAgent::Claude, false, true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn codex_from_a_warm_agent_through_a_whole_session() {
    whole_session(RealAgent::Codex, false, true).await;
}

/// As `docs/agents.md` shows it: in the sandbox plug, the agent's
/// installation read-only, its home the sandbox's.
#[tokio::test(flavor = "multi_thread")]
async fn claude_code_in_the_sandbox_through_a_whole_session() {
    if !blaise_tests::tools::have(&["bwrap"]) {
        return;
    }
    whole_session(RealAgent::Claude, true, false).await;
}

/// Hot resume with Claude Code in the sandbox behind an allow list: the
/// idle pause freezes `claude-agent-acp` with bubblewrap and `blaise-egress`
/// (no CPU while paused), and the next message goes on in the same process
/// and ACP session, the model seeing every earlier turn.
#[tokio::test(flavor = "multi_thread")]
async fn claude_code_in_the_sandbox_resumed_hot_goes_on_in_the_same_process() {
    let Some(installed) = agents::installed() else {
        return;
    };
    if !blaise_tests::tools::have(&["bwrap"]) {
        return;
    }
    let agent = RealAgent::Claude;
    let model = ModelApi::start(SECRET).await;
    let stage = Stage::with_agent(
        agent.name(),
        blaise_control::model::AgentSettings {
            hot_for_ms: 600_000,
            ..settings(3_000, IdlePolicy::Pause)
        },
    )
    .await;
    // As `docs/agents.md` runs it: in the sandbox, its model its only
    // destination (`blaise-egress` before the agent).
    let plugs = agents::sandboxed_plugs(
        &model.url,
        &installed,
        &format!(
            "  - id: redaction\n    source: {}\n",
            plug("plugs/redaction").display()
        ),
    );
    std::fs::write(&stage.config, agent.config(&model.url, &plugs)).unwrap();
    let runner = agent.runner(&stage, &installed);
    let daemon = runner.child.id().unwrap();
    let api = &stage.blaise;
    let session = api.new_session(agent.name(), "say hello-hot").await;
    wait_for_entry(api, &session, "the first answer", |e| {
        text(e).contains("hello-hot")
    })
    .await;
    api.wait_for(&session, "the idle pause", PATIENCE, |v| {
        v["state"] == "paused"
    })
    .await;
    let frozen = agent_processes(daemon);
    assert!(
        frozen.iter().any(|p| p.state == 'T'),
        "the agent is frozen: {frozen:?}"
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(agent_processes(daemon), frozen, "no CPU used while paused");

    api.send(&session, "recall").await.unwrap();
    // The model answers with what it was sent of the earlier turns (in
    // chunks: the whole answer is the stream's last entry).
    let recalled = wait_for(api, &session, "the answer after the resume", |entries| {
        let streamed: String = entries
            .iter()
            .filter(|e| e["kind"] == "agent_message")
            .skip_while(|e| !text(e).starts_with("RECALL"))
            .map(|e| text(e).to_string())
            .collect();
        streamed.contains("hello-hot").then(|| json!(streamed))
    })
    .await;
    assert!(
        recalled.as_str().unwrap().contains("say hello-hot"),
        "the model sees the earlier turns: {recalled:#}"
    );
    let view = api.show(&session).await;
    assert_eq!(view["runs"][1]["conversation"], "kept", "{view:#}");
    let pids = |ps: &[blaise_tests::procs::Stat]| ps.iter().map(|p| p.pid).collect::<Vec<_>>();
    assert_eq!(
        pids(&agent_processes(daemon)),
        pids(&frozen),
        "the same processes went on"
    );
    // Nothing replayed: what the resume run recorded of the agent is its
    // answer to the new message.
    let resume_run = view["runs"][1]["id"].clone();
    let resumed: String = api
        .transcript(&session)
        .await
        .iter()
        .filter(|e| e["run_id"] == resume_run && e["kind"] == "agent_message")
        .map(|e| text(e).to_string())
        .collect();
    assert!(resumed.starts_with("RECALL"), "nothing replayed: {resumed}");
    assert!(runner.stop().await.success());
    let alive = || {
        frozen
            .iter()
            .any(|p| blaise_tests::procs::stat(p.pid).is_some_and(|s| s.state != 'Z'))
    };
    let start = Instant::now();
    while alive() && start.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!alive(), "nothing left running after the runner stopped");
}

/// The processes below the runner daemon `daemon` that are not runs (in the
/// sandbox a process's working directory is the sandbox's, so they are
/// found by their parents).
fn agent_processes(daemon: u32) -> Vec<blaise_tests::procs::Stat> {
    let runner = blaise_tests::blaise::runner_binary()
        .canonicalize()
        .unwrap();
    blaise_runner::keeper::descendants(daemon)
        .into_iter()
        .filter(|&pid| !blaise_tests::procs::runs(pid, &runner))
        .filter_map(blaise_tests::procs::stat)
        .filter(|p| p.state != 'Z')
        .collect()
}

async fn whole_session(agent: RealAgent, sandboxed: bool, warm: bool) {
    let Some(installed) = agents::installed() else {
        return;
    };
    let model = ModelApi::start(SECRET).await;
    let stage = Stage::with_agent(
        agent.name(),
        blaise_control::model::AgentSettings {
            warm_agents: u32::from(warm),
            ..settings(3_000, IdlePolicy::Pause)
        },
    )
    .await;
    let redaction = plug("plugs/redaction");
    let mut plugs = format!("  - id: redaction\n    source: {}\n", redaction.display());
    if sandboxed {
        plugs = agents::sandboxed_plugs(&model.url, &installed, &plugs);
    }
    std::fs::write(&stage.config, agent.config(&model.url, &plugs)).unwrap();
    let key = agent.key();
    let runner = agent.runner(&stage, &installed);
    let api = &stage.blaise;
    if warm {
        runner
            .wait_for_stderr("a warm agent waits for a session", PATIENCE)
            .await;
    }

    // Start: what the model says and thinks, a plan, and a read-only tool call.
    let session = api
        .new_session(
            agent.name(),
            "say token @secret@ and key @key@\nthink about @secret@\nplan look at @secret@; answer\nrun echo hello-from-the-agent @secret@",
        )
        .await;
    wait_for_entry(api, &session, "the first answer", |e| {
        text(e).contains("DONE") && text(e).contains("hello-from-the-agent")
    })
    .await;
    let echo = tool_call(api, &session, "echo hello-from-the-agent").await;
    assert_eq!(echo["status"], "completed", "{echo:#}");
    assert_eq!(echo["kind"], "execute", "{echo:#}");
    assert!(echo["id"].as_str().unwrap().starts_with("tc-"), "{echo:#}");
    if agent == RealAgent::Gemini {
        // Gemini CLI sends a command's output to its model, not over ACP:
        // the call shows no output; the model's answer shows it ran.
        assert!(echo["output"].is_null(), "{echo:#}");
    } else {
        let output = echo["output"].as_str().expect("the command's output");
        assert!(output.contains("hello-from-the-agent"), "{echo:#}");
    }

    // A tool call that needs permission, answered through the API.
    api.send(&session, "run touch permitted-by-the-user @secret@")
        .await
        .unwrap();
    let view = api
        .wait_for(&session, "a permission request", PATIENCE, |v| {
            pending(v).is_some()
        })
        .await;
    let asked = api
        .allow_pending(&session)
        .await
        .unwrap_or_else(|| panic!("an allow_once option: {view:#}"));
    let command = asked["request"]["tool_call"]["command"]
        .as_str()
        .unwrap_or_default();
    assert!(command.contains("touch permitted-by-the-user"), "{asked:#}");
    wait_for(
        api,
        &session,
        "the answer after the permission",
        |entries| {
            let asked = entries
                .iter()
                .position(|e| e["kind"] == "permission_request")?;
            entries[asked..]
                .iter()
                .find(|e| e["kind"] == "agent_message" && text(e).starts_with("DONE"))
                .cloned()
        },
    )
    .await;
    assert_eq!(
        view["runs"][0]["conversation"],
        if warm { "warm" } else { "new" },
        "{view:#}"
    );
    // Where the agent works (a warm agent's slot, which the workspace links to).
    let workspace = stage.workspace(&view);
    let workspace = workspace.canonicalize().unwrap_or(workspace);
    let touched = std::fs::read_dir(&workspace).unwrap().flatten().any(|f| {
        f.file_name()
            .to_string_lossy()
            .starts_with("permitted-by-the-user")
    });
    assert!(
        touched,
        "the permitted command ran in {}",
        workspace.display()
    );

    // Idle: Blaise pauses the session after its inactivity limit.
    api.wait_for(&session, "the idle pause", PATIENCE, |v| {
        v["state"] == "paused"
    })
    .await;
    if agent == RealAgent::Gemini {
        // Gemini CLI 0.61 loses a session loaded in the minute it began
        // (its chat file is named by the minute, and the load starts it
        // again): wait for the next minute, as any real pause would.
        next_minute(api, &session).await;
    }

    // Resume: the agent takes its conversation up again.
    api.send(&session, "recall").await.unwrap();
    let recalled = wait_for_entry(api, &session, "the answer after the resume", |e| {
        text(e).starts_with("RECALL")
    })
    .await;
    assert!(
        text(&recalled).contains("RECALL say token")
            && text(&recalled).contains("| run touch permitted-by-the-user"),
        "the model sees the earlier turns: {recalled:#}"
    );
    let view = api.show(&session).await;
    let resume = &view["runs"][1];
    assert_eq!(resume["kind"], "resume", "{view:#}");
    let expected = match agent {
        RealAgent::Gemini => "loaded",
        _ => "resumed",
    };
    assert_eq!(resume["conversation"], expected, "{view:#}");
    // Loaded or resumed, the earlier turns are not recorded a second time.
    let transcript = api.transcript(&session).await;
    let firsts = transcript
        .iter()
        .filter(|e| e["kind"] == "agent_message" && text(e).contains("hello-from-the-agent"))
        .count();
    assert_eq!(firsts, 1, "{}", api.transcript_text(&session).await);

    // Close: the run stops, tears down, and nothing is left running.
    api.close(&session).await.unwrap();
    let view = api
        .wait_for(&session, "the teardown", PATIENCE, |v| {
            v["environment"]["state"] == "torn_down"
        })
        .await;
    assert_eq!(view["state"], "closed", "{view:#}");
    assert!(!workspace.exists(), "the workspace is removed");
    assert_eq!(
        processes_in(&workspace),
        Vec::<String>::new(),
        "nothing left running"
    );

    // Nothing the agent was made to leak is anywhere outside the runner.
    let logs = runner.stderr();
    let places = [
        (
            "the API's session view",
            api.show(&session).await.to_string(),
        ),
        (
            "the API's transcript",
            Value::from(api.transcript(&session).await).to_string(),
        ),
        ("the dashboard", stage.dashboard(&session).await),
        ("the runner's log", logs.clone()),
        ("the database", database(stage.path())),
    ];
    for (place, content) in &places {
        assert!(!content.contains(SECRET), "the token is in {place}");
        assert!(!content.contains(&key), "the API key is in {place}");
    }
    assert!(
        places[1].1.contains("[REDACTED"),
        "the token was there to mask: {}",
        places[1].1
    );
    // The agent's stderr reached the log as text, not terminal codes.
    assert!(!logs.contains('\u{1b}'), "colour codes in the runner's log");
    if sandboxed {
        // Its model was reached through the egress policy, and counted.
        let model_addr = model.url.trim_start_matches("http://");
        assert!(
            logs.contains(&format!("blaise-egress: reached {model_addr}: ")),
            "{logs}"
        );
        // And in each run's record: its connections to the model.
        for run in view["runs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["kind"] != "teardown")
        {
            let reached = &run["egress"]["reached"][0];
            assert_eq!(reached["destination"], model_addr, "{run:#}");
            assert!(reached["connections"].as_u64() > Some(0), "{run:#}");
            assert!(reached["received"].as_u64() > Some(0), "{run:#}");
        }
    }
    // What a user reads: every kind of thing the agent did is there
    // (Gemini CLI shows its to-do list as a tool call, not as a plan).
    let kinds: Vec<&str> = transcript
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    let mut expected = vec![
        "agent_message",
        "agent_thought",
        "tool_call",
        "permission_request",
    ];
    if agent != RealAgent::Gemini {
        expected.push("plan");
    }
    for kind in expected {
        assert!(kinds.contains(&kind), "no {kind} entry: {kinds:?}");
    }
    if std::env::var_os("BLAISE_SHOW_TRANSCRIPT").is_some() {
        eprintln!("{}", api.transcript_text(&session).await);
        eprintln!("{}", serde_json::to_string_pretty(&transcript).unwrap());
    }
    runner.stop().await;
}

fn text(entry: &Value) -> &str {
    entry["content"]["text"].as_str().unwrap_or_default()
}

/// Waits for a transcript entry that `found` accepts; returns it.
async fn wait_for_entry(
    api: &blaise_tests::blaise::Api,
    session: &str,
    what: &str,
    found: impl Fn(&Value) -> bool,
) -> Value {
    wait_for(api, session, what, |entries| {
        entries.iter().find(|e| found(e)).cloned()
    })
    .await
}

/// Waits until `found` finds what it looks for in the transcript.
async fn wait_for(
    api: &blaise_tests::blaise::Api,
    session: &str,
    what: &str,
    found: impl Fn(&[Value]) -> Option<Value>,
) -> Value {
    let start = Instant::now();
    loop {
        if let Some(entry) = found(&api.transcript(session).await) {
            return entry;
        }
        if start.elapsed() > PATIENCE {
            panic!(
                "timed out waiting for {what}; transcript:\n{}\nsession: {:#}",
                api.transcript_text(session).await,
                api.show(session).await
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The tool call (as it stood last) whose command contains `command`.
async fn tool_call(api: &blaise_tests::blaise::Api, session: &str, command: &str) -> Value {
    api.transcript(session)
        .await
        .into_iter()
        .rev()
        .filter(|e| e["kind"] == "tool_call")
        .map(|e| e["content"]["tool_call"].clone())
        .find(|call| {
            call["command"]
                .as_str()
                .is_some_and(|c| c.contains(command))
        })
        .unwrap_or_else(|| panic!("no tool call runs `{command}`"))
}

/// The session's permission request still waiting for an answer.
fn pending(view: &Value) -> Option<&Value> {
    view["permission_requests"]
        .as_array()?
        .iter()
        .find(|p| p["state"] == "pending")
}

/// Waits until the wall clock is in a later minute than the agent's
/// session began (before its first answer was recorded).
async fn next_minute(api: &blaise_tests::blaise::Api, session: &str) {
    let transcript = api.transcript(session).await;
    let answered = transcript
        .iter()
        .find(|e| e["run_id"].is_string())
        .and_then(|e| e["at"].as_u64())
        .expect("an answer");
    while blaise_tests::now_ms() / 60_000 <= answered / 60_000 {
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Every byte of the control plane's database (SQLite and its journal).
fn database(dir: &Path) -> String {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("blaise.db") {
            all.extend(std::fs::read(entry.path()).unwrap_or_default());
        }
    }
    String::from_utf8_lossy(&all).into_owned()
}

/// Processes whose working directory is in `dir`.
fn processes_in(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cwd) = std::fs::read_link(entry.path().join("cwd")) else {
            continue;
        };
        if cwd.starts_with(dir) {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push(String::from_utf8_lossy(&cmdline).replace('\0', " "));
        }
    }
    found
}

/// `blaise-runner check --probe` starts the agent as a run would and tells a real ACP agent
/// (Claude Code, as `docs/agents.md` configures it) from a program that exists but is not one:
/// Gemini CLI without `--acp`, a program that says nothing, one that fails at once (its stderr
/// is in the error). Without `--probe`, all of them pass `check`.
#[test]
fn check_probe_tells_an_acp_agent_from_a_program_that_is_not() {
    let Some(installed) = agents::installed() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key");
    std::fs::write(&key, "sk-ant-probe-0123456789").unwrap();
    let check = |name: &str, agent: &str, probe: bool| {
        let config = dir.path().join(format!("{name}.yml"));
        std::fs::write(&config, format!("agent:\n{agent}plugs: []\n")).unwrap();
        let mut command = std::process::Command::new(blaise_tests::blaise::runner_binary());
        command
            .args(["check", "--config"])
            .arg(&config)
            .env("PATH", &installed.path)
            .env("BLAISE_CACHE_DIR", dir.path().join("cache"));
        if probe {
            command.args(["--probe", "--probe-timeout", "15s"]);
        }
        let out = command.output().unwrap();
        (
            out.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        )
    };
    let claude = format!(
        "  name: claude\n  command: [claude-agent-acp]\n  env:\n    ANTHROPIC_API_KEY: {{ file: {} }}\n",
        key.display()
    );
    let (ok, said) = check("claude", &claude, true);
    assert!(
        ok && said.contains("probe: the agent answered ACP `initialize` in")
            && said.contains("session/load: yes"),
        "{said}"
    );
    // It prints the key it was given: the probe's error masks it, as every log line does.
    let failing = format!(
        "  command: [sh, -c, 'echo no such model configured for key $ANTHROPIC_API_KEY >&2; exit 3']\n  env:\n    ANTHROPIC_API_KEY: {{ file: {} }}\n",
        key.display()
    );
    let not_agents = [
        ("gemini", "  command: [gemini]\n", "GEMINI_API_KEY"),
        (
            "silent",
            "  command: [sh, -c, 'sleep 30']\n",
            "did not answer ACP `initialize` within",
        ),
        (
            "failing",
            failing.as_str(),
            "no such model configured for key [REDACTED",
        ),
    ];
    for (name, agent, want) in not_agents {
        let (ok, said) = check(name, agent, false);
        assert!(
            ok,
            "{name}: without --probe, check does not start it: {said}"
        );
        let started = std::time::Instant::now();
        let (ok, said) = check(name, agent, true);
        assert!(!ok, "{name} passed the probe: {said}");
        assert!(
            said.contains("error: probe: ")
                && said.contains(want)
                && !said.contains("sk-ant-probe-0123456789"),
            "{name}: {said}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "{name}: the probe kept to its deadline"
        );
    }
}
