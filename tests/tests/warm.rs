//! Warm starts, end to end: the control plane over HTTP, a real
//! `blaise-runner start` process, and the script agent. With the agent's
//! `warm_agents`, the runner keeps agents started ahead, each in a slot of
//! its own; a new session's start run takes one, the slot becomes its
//! workspace, and its conversation (opened ahead) is the session's. A warm
//! agent serves one session, with its own home; a run whose launch differs
//! from the warm agent's starts cold; a runner restart leaves nothing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use blaise_control::model::{AgentSettings, IdlePolicy};
use blaise_tests::blaise::{Runner, Stage, settings};

const MINUTE: Duration = Duration::from_secs(60);
const WAITS: &str = "a warm agent waits for a session";

fn warm(n: u32) -> AgentSettings {
    AgentSettings {
        warm_agents: n,
        ..settings(600_000, IdlePolicy::Pause)
    }
}

/// What the script agent reports of itself in a session: its pid, working
/// directory and home, and what its home holds.
const WHO: &str = "run echo \"pid=$PPID\"; echo \"cwd=$(pwd -P)\"; echo \"home=$HOME\"; echo \"has=$(ls -A $HOME | tr '\\n' ,)\"; touch $HOME/mine";

#[derive(Debug, PartialEq)]
struct Who {
    pid: String,
    cwd: PathBuf,
    home: PathBuf,
    has: String,
}

fn who(text: &str) -> Who {
    // The command's own text (its tool call's title) says `pid=$PPID`: the
    // output's fields are the ones whose value is not a `$`.
    let field = |name: &str| {
        let key = format!("{name}=");
        let at = text
            .match_indices(&key)
            .map(|(at, _)| at + key.len())
            .find(|&at| !text[at..].starts_with('$'))
            .unwrap_or_else(|| panic!("{name} in {text}"));
        text[at..]
            .split(['\n', '"', '\\'])
            .next()
            .unwrap()
            .to_string()
    };
    Who {
        pid: field("pid"),
        cwd: field("cwd").into(),
        home: field("home").into(),
        has: field("has"),
    }
}

/// Waits until the runner has said `n` times that a warm agent waits.
async fn warm_agents_ready(runner: &Runner, n: usize) {
    let start = std::time::Instant::now();
    while runner.stderr().matches(WAITS).count() < n {
        assert!(
            start.elapsed() < MINUTE,
            "no {n} warm agents: {}",
            runner.stderr()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A new session asked who its agent is: its id, its view, and the answer.
async fn new_session(stage: &Stage) -> (String, serde_json::Value, Who) {
    let b = &stage.blaise;
    let id = b.new_session("script", WHO).await;
    let text = b.wait_for_text(&id, "home=/", MINUTE).await;
    let view = b
        .wait_for(&id, "the run to start", MINUTE, |v| {
            v["runs"][0]["conversation"].is_string()
        })
        .await;
    (id, view, who(&text))
}

fn slots(data: &Path) -> Vec<String> {
    let mut slots: Vec<String> = std::fs::read_dir(data.join("workspaces"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("wrm_"))
                .collect()
        })
        .unwrap_or_default();
    slots.sort();
    slots
}

/// Waits up to `limit` until the slots' count is what `wanted` accepts.
async fn slots_until(data: &Path, limit: Duration, wanted: impl Fn(usize) -> bool) {
    let start = std::time::Instant::now();
    while !wanted(slots(data).len()) {
        assert!(start.elapsed() < limit, "{:?}", slots(data));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn alive(pid: &str) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_warm_agent_serves_one_session_with_its_own_home_and_workspace() {
    let stage = Stage::new(warm(1)).await;
    stage.configure("");
    let runner = stage.runner("box");
    warm_agents_ready(&runner, 1).await;
    assert_eq!(slots(&stage.data).len(), 1);

    let (a, view_a, agent_a) = new_session(&stage).await;
    assert_eq!(view_a["runs"][0]["conversation"], "warm", "{view_a:#}");
    let workspace_a = stage.workspace(&view_a).canonicalize().unwrap();
    assert!(
        workspace_a
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("wrm_"),
        "the slot is the workspace: {}",
        workspace_a.display()
    );
    assert_eq!(agent_a.cwd, workspace_a, "{agent_a:?}");
    assert_eq!(agent_a.home, workspace_a.join(".agent-home"), "{agent_a:?}");

    // The pool fills again: the next session gets another agent, in
    // another slot, with another home that holds nothing of the first's.
    warm_agents_ready(&runner, 2).await;
    let (b, view_b, agent_b) = new_session(&stage).await;
    assert_eq!(view_b["runs"][0]["conversation"], "warm", "{view_b:#}");
    let workspace_b = stage.workspace(&view_b).canonicalize().unwrap();
    assert_ne!(workspace_a, workspace_b);
    assert_ne!(agent_a.pid, agent_b.pid);
    assert_ne!(agent_a.home, agent_b.home);
    assert!(!agent_b.has.contains("mine"), "{agent_b:?}");
    assert_eq!(agent_b.home, workspace_b.join(".agent-home"));

    // The first session goes on with its own agent, and its close takes the
    // agent, the slot and the link.
    let api = &stage.blaise;
    api.send(&a, "say still here").await.unwrap();
    api.wait_for_text(&a, "agent_message: still here", MINUTE)
        .await;
    assert!(alive(&agent_a.pid));
    api.close(&a).await.unwrap();
    api.wait_for(&a, "the teardown", MINUTE, |v| {
        v["environment"]["state"] == "torn_down"
    })
    .await;
    assert!(!workspace_a.exists(), "the slot is removed");
    assert!(
        stage.workspace(&view_a).symlink_metadata().is_err(),
        "and its link"
    );
    for _ in 0..100 {
        if !alive(&agent_a.pid) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!alive(&agent_a.pid), "the agent went with its session");
    assert!(alive(&agent_b.pid), "the other session's did not");
    drop(b);
    runner.stop().await;
}

/// A plug whose `on-start` changes the agent's environment: the warm agent
/// was started otherwise than the run would start it, so it is let go and
/// the agent starts cold (in the slot, now the workspace), with the plug's
/// variable. Such a chain never matches: the runner stops warming until
/// blaise.yml changes.
#[tokio::test(flavor = "multi_thread")]
async fn a_start_whose_launch_differs_from_the_warm_agents_starts_cold() {
    let stage = Stage::new(warm(1)).await;
    stage.configure(&format!(
        "  - id: probe\n    source: {}\n    with:\n      on_start: [{{env: [FROM_PLUG, yes]}}]\n",
        blaise_tests::plug("tests/plugs/probe").display()
    ));
    let runner = stage.runner("box");
    warm_agents_ready(&runner, 1).await;
    let warm_pid = runner
        .stderr()
        .lines()
        .find(|l| l.contains("the agent waits, frozen, for a new session"))
        .and_then(|l| l.split("pid=").nth(1))
        .and_then(|p| p.split_whitespace().next())
        .expect("the warm agent's pid")
        .to_string();
    let b = &stage.blaise;
    let id = b.new_session("script", "env FROM_PLUG").await;
    b.wait_for_text(&id, "FROM_PLUG=yes", MINUTE).await;
    let view = b.show(&id).await;
    assert_eq!(view["runs"][0]["conversation"], "new", "{view:#}");
    let log = runner.stderr();
    assert!(
        log.contains("the warm agent was started otherwise") && log.contains("FROM_PLUG"),
        "{log}"
    );
    assert!(!alive(&warm_pid), "the warm agent was let go");

    runner
        .wait_for_stderr("warm agents cannot be used", MINUTE)
        .await;
    let started = runner.stderr().matches("starting a warm agent").count();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        runner.stderr().matches("starting a warm agent").count(),
        started,
        "no more warm-ups"
    );
    assert_eq!(slots(&stage.data).len(), 1, "only the session's workspace");
    // A new blaise.yml (the plug gone): warming starts again.
    stage.configure("");
    warm_agents_ready(&runner, 2).await;
    runner.stop().await;
}

/// A runner that stops takes its warm agents along; the next one (another
/// instance name, as a restart without `--instance` has) removes their
/// slots before it starts its own.
#[tokio::test(flavor = "multi_thread")]
async fn a_runner_restart_leaves_no_warm_agent_or_slot_behind() {
    let stage = Stage::new(warm(2)).await;
    stage.configure("");
    let runner = stage.runner("box");
    warm_agents_ready(&runner, 2).await;
    let before = slots(&stage.data);
    assert_eq!(before.len(), 2);
    runner.stop().await;
    // The guards see their runner gone once it has exited, and take a moment
    // to kill and reap what they guard: an agent may be on its way out, not
    // outliving it.
    let workspaces = stage.data.join("workspaces");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let left = loop {
        let left = blaise_tests::procs::working_under(&workspaces);
        if left.is_empty() || std::time::Instant::now() > deadline {
            break left;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(left.is_empty(), "no agent outlives its runner: {left:?}");

    let runner = stage.runner("box-again");
    warm_agents_ready(&runner, 2).await;
    let after = slots(&stage.data);
    assert_eq!(after.len(), 2, "{after:?}");
    assert!(
        after.iter().all(|s| !before.contains(s)),
        "the old slots are gone: {before:?} {after:?}"
    );
    // A lower target lets warm agents go, and their slots.
    stage.blaise.embedded.set_agent("script", warm(0)).unwrap();
    slots_until(&stage.data, MINUTE, |n| n == 0).await;
    runner.stop().await;
}

/// Warm agents never keep a runner from a run it has room for: Blaise does
/// not count them, and the runner gives them up first when its runs need
/// the memory (each live run counts 512 MiB of `capacity × 512 MiB`). With
/// room for two runs and five warm agents asked for, two sessions at once
/// are both taken and answered (from warm agents), the rest of the pool
/// goes while they run and none is started, and it fills again after.
#[tokio::test(flavor = "multi_thread")]
async fn warm_agents_never_keep_a_runner_from_a_run_it_has_room_for() {
    let stage = Stage::new(warm(5)).await;
    stage.configure("");
    let runner = stage.runner_with_env("box", &[("BLAISE_RUNNER_CAPACITY", "2")]);
    warm_agents_ready(&runner, 5).await;
    assert_eq!(slots(&stage.data).len(), 5);

    let b = &stage.blaise;
    let (first, second) = tokio::join!(
        b.new_session("script", "sleep 4000\nsay first done"),
        b.new_session("script", "sleep 4000\nsay second done")
    );
    for id in [&first, &second] {
        let view = b
            .wait_for(id, "the run to start", MINUTE, |v| {
                v["runs"][0]["conversation"].is_string()
            })
            .await;
        assert_eq!(view["runs"][0]["conversation"], "warm", "{view:#}");
        assert!(view.get("waiting_for_runner").is_none(), "{view:#}");
    }
    // Both runs live fill the budget: the other warm agents go, and no new
    // one starts while they run.
    slots_until(&stage.data, Duration::from_secs(3), |n| n == 2).await;
    let started = runner.stderr().matches("starting a warm agent").count();
    for id in [&first, &second] {
        b.wait_for_text(id, "done", MINUTE).await;
    }
    assert_eq!(
        runner.stderr().matches("starting a warm agent").count(),
        started,
        "none started while the runs filled the budget"
    );
    // The runs end: the pool fills again.
    for id in [&first, &second] {
        b.close(id).await.unwrap();
    }
    for id in [&first, &second] {
        b.wait_for(id, "the teardown", MINUTE, |v| {
            v["environment"]["state"] == "torn_down"
        })
        .await;
    }
    slots_until(&stage.data, MINUTE, |n| n == 5).await;
    runner.stop().await;
}

/// A secret of `agent.env` read again at each start: a warm agent started
/// with its old value is not the launch a run makes after it changed. The
/// run starts cold with the new value, the other warm agents (started like
/// the refused one) are let go, and the next session's warm agent has the
/// new value.
#[tokio::test(flavor = "multi_thread")]
async fn a_secret_changed_since_the_warm_up_makes_the_start_cold_and_renews_the_pool() {
    let stage = Stage::new(warm(2)).await;
    let key = stage.path().join("api-key");
    std::fs::write(&key, "first-secret-value-0123456789\n").unwrap();
    std::fs::write(
        &stage.config,
        format!(
            "agent:\n  name: script\n  command: [{}]\n  env:\n    API_KEY: {{ file: {} }}\nplugs: []\n",
            serde_json::to_string(&blaise_tests::blaise::script_agent()).unwrap(),
            key.display()
        ),
    )
    .unwrap();
    let runner = stage.runner("box");
    warm_agents_ready(&runner, 2).await;
    std::fs::write(&key, "second-secret-value-9876543210\n").unwrap();

    let b = &stage.blaise;
    let cold = b.new_session("script", "say cold").await;
    b.wait_for_text(&cold, "agent_message: cold", MINUTE).await;
    assert_eq!(b.show(&cold).await["runs"][0]["conversation"], "new");
    let log = runner.wait_for_stderr("they are let go", MINUTE).await;
    let refused = log
        .lines()
        .find(|l| l.contains("started otherwise"))
        .expect("the refusal");
    assert!(refused.contains("API_KEY"), "{refused}");
    assert!(!log.contains("secret-value"), "names, never values: {log}");

    // Two new warm agents, with the new value.
    warm_agents_ready(&runner, 4).await;
    let warm = b.new_session("script", "say warm").await;
    b.wait_for_text(&warm, "agent_message: warm", MINUTE).await;
    assert_eq!(b.show(&warm).await["runs"][0]["conversation"], "warm");
    runner.stop().await;
}

/// An agent that cannot be started ahead (here it exits at once): after
/// three failed warm-ups in a row the runner stops trying and says so,
/// leaving no slot behind; a new blaise.yml lets it try again.
#[tokio::test(flavor = "multi_thread")]
async fn an_agent_that_cannot_warm_up_stops_the_pool_until_blaise_yml_changes() {
    let stage = Stage::new(warm(1)).await;
    std::fs::write(
        &stage.config,
        "agent:\n  name: script\n  command: [/bin/false]\nplugs: []\n",
    )
    .unwrap();
    let runner = stage.runner("box");
    runner
        .wait_for_stderr("3 warm agents in a row could not be started", MINUTE)
        .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let log = runner.stderr();
    assert_eq!(log.matches("starting a warm agent").count(), 3, "{log}");
    assert!(slots(&stage.data).is_empty(), "{:?}", slots(&stage.data));

    stage.configure("");
    warm_agents_ready(&runner, 1).await;
    runner.stop().await;
}

/// A plug that may run programs may put one before the agent (the sandbox's
/// `bwrap`, `docker exec`, `blaise-egress`): an agent started ahead would
/// run outside it, so none is ever started, and sessions start cold.
#[tokio::test(flavor = "multi_thread")]
async fn no_agent_is_started_ahead_outside_a_plug_that_may_wrap_it() {
    let stage = Stage::new(warm(1)).await;
    stage.configure(&format!(
        "  - id: probe\n    source: {}\n    allow:\n      exec: [git]\n",
        blaise_tests::plug("tests/plugs/probe").display()
    ));
    let runner = stage.runner("box");
    runner.wait_for_stderr("may wrap the agent", MINUTE).await;
    let b = &stage.blaise;
    let id = b.new_session("script", "say cold").await;
    b.wait_for_text(&id, "agent_message: cold", MINUTE).await;
    assert_eq!(b.show(&id).await["runs"][0]["conversation"], "new");
    let log = runner.stderr();
    assert!(!log.contains(WAITS), "{log}");
    assert_eq!(log.matches("starting a warm agent").count(), 1, "{log}");
    // The refused warm-up's slot goes once the runner has seen it end.
    slots_until(&stage.data, MINUTE, |n| n == 0).await;
    runner.stop().await;
}
