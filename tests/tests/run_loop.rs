//! The run loop end to end: a real control plane over HTTP (in this test
//! process), real `blaise-runner start` processes, real compiled plugs and the
//! script agent as a real ACP child process.

use std::path::{Path, PathBuf};
use std::time::Duration;

use blaise_control::model::{AgentSettings, IdlePolicy};
use blaise_tests::blaise::{Blaise, Runner, quick_config, script_agent, settings};
use blaise_tests::plug;

const MINUTE: Duration = Duration::from_secs(60);
const TOKEN: &str = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";

struct Setup {
    tmp: tempfile::TempDir,
    blaise: Blaise,
    config: PathBuf,
    data: PathBuf,
    cache: PathBuf,
}

/// A control plane with agent `script`, and a `blaise.yml` with the redaction
/// plug and a probe that logs what its transcript filter sees and marks in its
/// state which hooks ran.
async fn setup(inactivity_ms: i64, policy: IdlePolicy, extra_agent_args: &[&str]) -> Setup {
    setup_with(settings(inactivity_ms, policy), extra_agent_args, "").await
}

async fn setup_with(agent: AgentSettings, extra_agent_args: &[&str], extra_plugs: &str) -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let blaise = Blaise::start(&tmp.path().join("blaise.db"), quick_config()).await;
    blaise.embedded.set_agent("script", agent).unwrap();
    let mut command = vec![script_agent().to_string_lossy().into_owned()];
    command.extend(extra_agent_args.iter().map(|s| s.to_string()));
    let yaml = format!(
        "agent:\n  name: script\n  command: {}\n  env:\n    DEPLOY_TOKEN: {TOKEN}\nplugs:\n  - id: redaction\n    source: {}\n  - id: probe\n    source: {}\n    with:\n      filter_log: true\n      on_start: [mark, {{set: [runs, one]}}]\n      on_resume: [mark, {{env_from_state: runs}}]\n      on_pause: [mark]\n      on_teardown: [mark]\n{extra_plugs}",
        serde_json::to_string(&command).unwrap(),
        plug("plugs/redaction").display(),
        plug("tests/plugs/probe").display(),
    );
    let config = tmp.path().join("blaise.yml");
    std::fs::write(&config, yaml).unwrap();
    let data = tmp.path().join("data");
    let cache = tmp.path().join("cache");
    Setup {
        tmp,
        blaise,
        config,
        data,
        cache,
    }
}

impl Setup {
    fn runner(&self, instance: &str) -> Runner {
        let token = self.blaise.embedded.runner_token("box").unwrap();
        self.runner_with_token(instance, &token)
    }

    fn runner_with_token(&self, instance: &str, token: &str) -> Runner {
        Runner::start(
            self.blaise.url(),
            token,
            &self.config,
            &self.data,
            &self.cache,
            instance,
        )
    }

    fn workspace(&self, view: &serde_json::Value) -> PathBuf {
        let env = view["environment"]["id"].as_str().expect("an environment");
        self.data.join("workspaces").join(env)
    }
}

/// The hooks the probe marked in its state, as Blaise shows its record.
fn probe_marks(view: &serde_json::Value) -> Vec<String> {
    let record = view["plug_records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["plug_id"] == "probe")
        .expect("the probe's record");
    record["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_string())
        .filter(|k| k != "runs")
        .collect()
}

/// The kinds of the session's runs, in order.
fn run_kinds(view: &serde_json::Value) -> Vec<&str> {
    let runs = view["runs"].as_array().unwrap();
    runs.iter().map(|r| r["kind"].as_str().unwrap()).collect()
}

fn last_run(view: &serde_json::Value) -> &serde_json::Value {
    view["runs"].as_array().unwrap().last().unwrap()
}

/// Processes whose working directory is inside `dir` (read from /proc).
fn processes_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_digit())
        })
        .filter(|e| std::fs::read_link(e.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(dir)))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_full_life_of_a_session() {
    let s = setup(1_500, IdlePolicy::Pause, &[]).await;
    let runner = s.runner("box-1");
    let b = &s.blaise;

    // Start: the environment is created, the agent answers; a secret the
    // agent prints is masked before it leaves the runner.
    let id = b
        .new_session("script", "say hello from the agent\nenv DEPLOY_TOKEN")
        .await;
    b.wait_for_text(&id, "agent_message: hello from the agent", MINUTE)
        .await;
    let text = b
        .wait_for_text(&id, "[REDACTED:github-token]", MINUTE)
        .await;
    assert!(!text.contains(TOKEN), "{text}");

    // Idle: Blaise stops the run, which pauses its plugs and exits.
    let view = b
        .wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    assert_eq!(view["environment"]["state"], "paused");
    let workspace = s.workspace(&view);
    assert!(
        workspace.is_dir(),
        "the environment stays: {}",
        workspace.display()
    );
    assert_eq!(
        processes_in(&workspace),
        Vec::<String>::new(),
        "the agent does not survive the pause"
    );

    // A message resumes it in the same environment, with the conversation loaded.
    b.send(&id, "say resumed in the same place\nenv runs")
        .await
        .unwrap();
    b.wait_for_text(&id, "agent_message: resumed in the same place", MINUTE)
        .await;
    // The probe's state from the start run, read back by its on-resume.
    let text = b
        .wait_for_text(&id, "agent_message: runs=one", MINUTE)
        .await;
    assert_eq!(
        count(&text, "agent_message: hello from the agent"),
        1,
        "the replay is not recorded again:\n{text}"
    );
    let filter_log = read(&workspace.join("filter.log"));
    assert!(
        filter_log
            .lines()
            .any(|l| l.contains("replay=true") && l.contains("hello from the agent")),
        "the plugs saw the replay:\n{filter_log}"
    );
    assert!(
        filter_log
            .lines()
            .any(|l| l.contains("replay=true") && l.contains("[REDACTED:github-token]")),
        "the replay was redacted before the next plug saw it:\n{filter_log}"
    );
    assert!(!filter_log.contains(TOKEN), "{filter_log}");
    let view = b.show(&id).await;
    assert_eq!(
        view["environment"]["id"],
        serde_json::Value::from(workspace.file_name().unwrap().to_str().unwrap())
    );
    assert_eq!(run_kinds(&view), ["start", "resume"], "{view:#}");

    // Closing ends the session; the run tears down and everything goes.
    b.close(&id).await.unwrap();
    let view = b
        .wait_for(&id, "the teardown", MINUTE, |v| {
            v["environment"]["state"] == "torn_down"
        })
        .await;
    assert_eq!(view["state"], "closed");
    assert!(!workspace.exists(), "the workspace is removed");
    let status = runner.stop().await;
    assert!(status.success(), "{status}");
    drop(s.tmp);
}

/// A plug published before contract 0.3.0 keeps working: built for the
/// frozen 0.2.0 contract, it takes part in a whole session (start, filter,
/// idle pause, resume, teardown) through the runner's adapter.
#[tokio::test(flavor = "multi_thread")]
async fn a_plug_built_for_contract_0_2_takes_part_in_a_whole_session() {
    let extra = format!(
        "  - id: older\n    source: {}\n    allow: {{ exec: [echo] }}\n",
        plug("tests/plugs/older-contract").display()
    );
    let s = setup_with(settings(1_500, IdlePolicy::Pause), &[], &extra).await;
    let runner = s.runner("box-1");
    let b = &s.blaise;
    let id = b.new_session("script", "env OLDER_RUNS").await;
    b.wait_for_text(&id, "OLDER_RUNS=1 [seen by a 0.2 plug]", MINUTE)
        .await;
    let view = b
        .wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    let workspace = s.workspace(&view);
    b.send(&id, "env OLDER_RUNS").await.unwrap();
    b.wait_for_text(&id, "OLDER_RUNS=2 [seen by a 0.2 plug]", MINUTE)
        .await;
    let log = read(&workspace.join("older.log"));
    let hooks: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("on-"))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(hooks, ["on-start", "on-pause", "on-resume"], "{log}");
    assert!(
        log.contains("imports resume runs=2 echo=Some(0) run 2"),
        "its state and its programs work through the adapter: {log}"
    );
    b.close(&id).await.unwrap();
    b.wait_for(&id, "the teardown", MINUTE, |v| {
        v["environment"]["state"] == "torn_down"
    })
    .await;
    assert!(runner.stop().await.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_that_expires_while_paused_is_torn_down_by_a_teardown_run() {
    let agent = AgentSettings {
        paused_lifetime_ms: 2_000,
        ..settings(1_000, IdlePolicy::Pause)
    };
    let s = setup_with(agent, &[], "").await;
    let runner = s.runner("box-1");
    let b = &s.blaise;
    let id = b.new_session("script", "say short-lived").await;
    b.wait_for_text(&id, "agent_message: short-lived", MINUTE)
        .await;
    let view = b
        .wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    let workspace = s.workspace(&view);
    let view = b
        .wait_for(&id, "the expiry and teardown", MINUTE, |v| {
            v["environment"]["state"] == "torn_down"
        })
        .await;
    assert_eq!(view["state"], "expired");
    assert_eq!(run_kinds(&view), ["start", "teardown"], "{view:#}");
    let marks = probe_marks(&view);
    assert!(
        marks
            .iter()
            .any(|m| m.starts_with("teardown:") && m.ends_with(":false")),
        "a teardown of its own, not right after a pause: {marks:?}"
    );
    assert!(
        !workspace.exists(),
        "the teardown run removed the workspace"
    );
    // "There is no agent": the start run launched it, the teardown run did not.
    let log = runner.stderr();
    assert!(log.contains("kind=Teardown"), "{log}");
    assert_eq!(
        log.matches("launching the agent").count(),
        1,
        "only the start run launches the agent: {log}"
    );
    assert!(runner.stop().await.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_that_cannot_load_sessions_starts_a_new_conversation_with_a_notice() {
    let s = setup(1_000, IdlePolicy::Pause, &["--no-load-session"]).await;
    let runner = s.runner("box-1");
    let b = &s.blaise;
    let id = b.new_session("script", "say first answer").await;
    b.wait_for_text(&id, "agent_message: first answer", MINUTE)
        .await;
    let view = b
        .wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    b.send(&id, "say second answer").await.unwrap();
    let text = b
        .wait_for_text(&id, "agent_message: second answer", MINUTE)
        .await;
    // (The probe plug upper-cases notices: it proves they pass the filters too.)
    assert!(
        text.to_lowercase().contains("notice: the agent cannot load its earlier conversation: this is a new conversation in the same environment."),
        "{text}"
    );
    let filter_log = read(&s.workspace(&view).join("filter.log"));
    assert!(
        !filter_log.contains("replay=true"),
        "nothing was replayed:\n{filter_log}"
    );
    assert!(runner.stop().await.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_mid_turn_with_a_permission_request_pending_cancels_and_tears_down() {
    let s = setup(600_000, IdlePolicy::Pause, &[]).await;
    let runner = s.runner("box-1");
    let b = &s.blaise;
    let id = b.new_session("script", "ask may I deploy?").await;
    let view = b
        .wait_for(&id, "the permission request", MINUTE, |v| {
            v["permission_requests"]
                .as_array()
                .is_some_and(|p| p.iter().any(|r| r["state"] == "pending"))
        })
        .await;
    let workspace = s.workspace(&view);
    assert!(workspace.is_dir());
    let started = std::time::Instant::now();
    let status = runner.stop().await;
    assert!(status.success(), "{status}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "an unanswered permission request does not delay the shutdown: {:?}",
        started.elapsed()
    );
    let view = b
        .wait_for(&id, "the cancelled run", MINUTE, |v| {
            last_run(v)["status"] == "cancelled"
        })
        .await;
    assert_eq!(view["environment"]["state"], "torn_down", "{view:#}");
    let marks = probe_marks(&view);
    assert!(
        marks.contains(&"pause:cancelled:false".to_string()),
        "{marks:?}"
    );
    assert!(
        marks.contains(&"teardown:cancelled:true".to_string()),
        "{marks:?}"
    );
    assert!(!workspace.exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_while_the_plugs_start_tears_down_what_they_made_and_reports_cancelled() {
    // A second plug whose on-start takes a few seconds: the runner is stopped
    // in the middle of it, before the agent exists.
    let slow = format!(
        "  - id: slow\n    source: {}\n    allow: {{exec: [sh]}}\n    with:\n      on_start: [mark, {{exec: [sh, -c, \"sleep 3.217\"]}}]\n      on_teardown: [mark]\n",
        plug("tests/plugs/probe").display()
    );
    let s = setup_with(settings(600_000, IdlePolicy::Pause), &[], &slow).await;
    let runner = s.runner("box-1");
    let b = &s.blaise;
    let id = b.new_session("script", "say never").await;
    let deadline = std::time::Instant::now() + MINUTE;
    while blaise_tests::processes_with("sleep 3.217").is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the slow on-start never ran"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let status = runner.stop().await;
    assert!(status.success(), "{status}");
    let view = b
        .wait_for(&id, "the cancelled run", MINUTE, |v| {
            v["runs"][0]["status"] == "cancelled"
        })
        .await;
    // Every plug that started was torn down by the run, and so was the
    // workspace: the message still waits for an answer, in a fresh
    // environment, when a runner comes back.
    for plug in ["probe", "slow"] {
        let record = view["plug_records"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["plug_id"] == plug)
            .unwrap_or_else(|| panic!("{plug}'s record: {view:#}"));
        assert!(
            record["keys"]
                .to_string()
                .contains("teardown:cancelled:false"),
            "{view:#}"
        );
    }
    // (A preparation ahead's scratch directory is no environment's.)
    let workspaces: Vec<_> = std::fs::read_dir(s.data.join("workspaces"))
        .map(|d| {
            d.flatten()
                .filter(|e| !e.file_name().to_string_lossy().starts_with("prp_"))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    assert!(workspaces.is_empty(), "{workspaces:?}");
    assert_eq!(view["runs"][1]["kind"], "start", "{view:#}");
    let transcript = b.transcript_text(&id).await;
    assert!(!transcript.contains("agent_message"), "{transcript}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_that_never_opens_its_session_does_not_outlive_its_run() {
    // The run's time limit is short: Blaise stops the run, the run (waiting
    // for `session/new`) cannot take the stop, Blaise fails it. The run
    // process and the hung agent must not stay behind.
    let agent = AgentSettings {
        timeout_ms: 1_000,
        ..settings(600_000, IdlePolicy::Pause)
    };
    let s = setup_with(agent, &["--never-open-session"], "").await;
    let runner = s.runner("box-1");
    let b = &s.blaise;
    let id = b.new_session("script", "say never").await;
    let view = b
        .wait_for(&id, "the run to be failed", 2 * MINUTE, |v| {
            v["runs"][0]["status"] == "failed"
        })
        .await;
    let run = view["runs"][0]["id"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + MINUTE;
    loop {
        let left = [
            blaise_tests::processes_with(&run),
            blaise_tests::processes_with("--never-open-session"),
        ]
        .concat();
        if left.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running a minute after Blaise failed the run: {left:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(runner.stop().await.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stop_that_may_not_resume_pauses_then_tears_down_in_the_same_run() {
    let s = setup(1_000, IdlePolicy::End, &[]).await;
    let runner = s.runner("box-1");
    let b = &s.blaise;
    let id = b.new_session("script", "say done for good").await;
    b.wait_for_text(&id, "agent_message: done for good", MINUTE)
        .await;
    let view = b
        .wait_for(&id, "the end of the session", MINUTE, |v| {
            v["environment"]["state"] == "torn_down"
        })
        .await;
    assert_eq!(view["state"], "completed");
    assert_eq!(
        view["runs"].as_array().unwrap().len(),
        1,
        "no teardown run was needed: {view:#}"
    );
    assert_eq!(last_run(&view)["status"], "torn_down");
    let marks = probe_marks(&view);
    assert!(marks.contains(&"pause:idle:false".to_string()), "{marks:?}");
    assert!(
        marks.contains(&"teardown:idle:true".to_string()),
        "{marks:?}"
    );
    assert!(!s.workspace(&view).exists());
    assert!(runner.stop().await.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_startup_check_refuses_a_chain_that_cannot_resume_when_the_policy_is_to_pause() {
    let extra = format!(
        "  - id: oneshot\n    source: {}\n",
        plug("tests/plugs/no-resume").display()
    );
    let s = setup_with(settings(600_000, IdlePolicy::Pause), &[], &extra).await;
    let mut runner = s.runner("box-1");
    let status = runner.exited(MINUTE).await;
    assert!(!status.success());
    let stderr = runner.stderr();
    assert!(
        stderr.contains(
            "startup check: the agent's idle policy is `pause`, but plug(s) `oneshot` cannot resume"
        ),
        "{stderr}"
    );

    // With the policy to end idle sessions, the same chain is fine.
    s.blaise
        .embedded
        .set_agent("script", settings(600_000, IdlePolicy::End))
        .unwrap();
    let runner = s.runner("box-2");
    runner.wait_for_stderr("connected to Blaise", MINUTE).await;
    assert!(runner.stop().await.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_that_loses_contact_stops_with_lost_contact_and_keeps_its_environment() {
    let s = setup(600_000, IdlePolicy::Pause, &[]).await;
    let runner = s.runner("box-1");
    let b = &s.blaise;
    let id = b.new_session("script", "say still here").await;
    b.wait_for_text(&id, "agent_message: still here", MINUTE)
        .await;
    let workspace = s.workspace(&b.show(&id).await);
    // Blaise goes away: heartbeats fail for 90 intervals (200 ms here).
    let Setup { blaise, tmp, .. } = s;
    drop(blaise);
    runner
        .wait_for_stderr("Lost contact with Blaise", MINUTE)
        .await;
    assert!(
        workspace.is_dir(),
        "the plugs paused; the environment stays for the next run"
    );
    let filter_log = read(&workspace.join("filter.log"));
    // The redaction plug held back the last word until the stream ended.
    assert!(
        filter_log.contains("still ") && filter_log.contains(": here"),
        "{filter_log}"
    );
    let _ = runner.stop().await;
    drop(tmp);
}

#[tokio::test(flavor = "multi_thread")]
async fn another_instance_of_the_same_runner_resumes_a_paused_session() {
    let s = setup(1_000, IdlePolicy::Pause, &[]).await;
    let token = s.blaise.embedded.runner_token("box").unwrap();
    let first = s.runner_with_token("instance-a", &token);
    let b = &s.blaise;
    let id = b.new_session("script", "say remembered").await;
    b.wait_for_text(&id, "agent_message: remembered", MINUTE)
        .await;
    let view = b
        .wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    assert!(first.stop().await.success());

    let second = s.runner_with_token("instance-b", &token);
    b.send(&id, "say picked up\nenv runs").await.unwrap();
    let text = b
        .wait_for_text(&id, "agent_message: runs=one", MINUTE)
        .await;
    assert!(text.contains("agent_message: picked up"), "{text}");
    let filter_log = read(&s.workspace(&view).join("filter.log"));
    assert!(
        filter_log
            .lines()
            .any(|l| l.contains("replay=true") && l.contains("remembered")),
        "the second instance loaded the conversation:\n{filter_log}"
    );
    let view = b.show(&id).await;
    assert_eq!(run_kinds(&view), ["start", "resume"]);
    assert!(second.stop().await.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn dev_runs_the_embedded_default_and_answers_a_message() {
    use tokio::io::AsyncBufReadExt;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join(".blaise");
    // dev runs the script agent built beside the runner.
    script_agent();
    let mut dev = tokio::process::Command::new(blaise_tests::blaise::runner_binary())
        .arg("--cache-dir")
        .arg(tmp.path().join("cache"))
        .args([
            "dev",
            "--listen",
            "127.0.0.1:0",
            "--message",
            "say hello from dev",
        ])
        .arg("--data-dir")
        .arg(&data)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(dev.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let answered = tokio::time::timeout(MINUTE * 5, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            seen.push(line.clone());
            // As `blaise session transcript` prints it: `[index] kind: text`.
            if line.starts_with('[') && line.ends_with("] agent_message: hello from dev") {
                return;
            }
        }
    })
    .await;
    assert!(
        answered.is_ok(),
        "no answer; dev printed:\n{}",
        seen.join("\n")
    );
    assert!(
        seen[0].starts_with("Blaise dashboard: http://127.0.0.1:"),
        "{seen:?}"
    );
    assert!(
        seen.iter().any(|l| l.starts_with("session ses_")),
        "{seen:?}"
    );
    // It says which environment plugs it took, and which it skipped and why.
    let mut expected = vec!["checkout", "sandbox", "docker", "redaction"];
    let mut skipped = String::new();
    for (tool, plug) in [
        ("git", "checkout"),
        ("bwrap", "sandbox"),
        ("docker", "docker"),
    ] {
        if let Err(why) = blaise_tests::tools::check(tool) {
            expected.retain(|p| *p != plug);
            skipped = why;
        }
    }
    let plugs = format!("  plugs:          {}", expected.join(", "));
    assert!(seen.contains(&plugs), "{plugs:?} in {seen:?}");
    assert!(
        skipped.is_empty()
            || seen
                .iter()
                .any(|l| l.starts_with("  skipped:") && l.contains(&skipped)),
        "the reason for skipping: {skipped:?} in {seen:?}"
    );
    let workspaces = data.join("workspaces");
    // (Beside it, for a moment, the scratch directory of the preparation
    // ahead that the runner starts once idle: not an environment.)
    let environments = || {
        std::fs::read_dir(&workspaces)
            .unwrap()
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with("prp_"))
            .count()
    };
    assert_eq!(environments(), 1, "one environment");

    // Ctrl-C: the run ends as cancelled and tears its environment down.
    // SAFETY: a signal to a child we spawned.
    unsafe { libc::kill(dev.id().unwrap() as i32, libc::SIGINT) };
    let status = tokio::time::timeout(MINUTE, dev.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
    let left: Vec<_> = std::fs::read_dir(&workspaces)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "nothing left behind: {left:?}");
}

/// A probe entry for `blaise.yml` that keeps `value` under `key` on start and
/// says it (as env `key`) on resume.
fn stateful_probe(id: &str, key: &str, value: &str) -> String {
    format!(
        "  - id: {id}\n    source: {}\n    with:\n      on_start: [{{set: [{key}, {value}]}}]\n      on_resume: [{{env_from_state: {key}}}]\n",
        plug("tests/plugs/probe").display()
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn changing_blaise_yml_while_paused_keeps_state_by_plug_id() {
    let s = setup(1_000, IdlePolicy::Pause, &[]).await;
    let agent = serde_json::to_string(&[script_agent()]).unwrap();
    let redaction = format!(
        "  - id: redaction\n    source: {}\n",
        plug("plugs/redaction").display()
    );
    let before = format!(
        "agent:\n  name: script\n  command: {agent}\nplugs:\n{redaction}{}{}",
        stateful_probe("keeper", "kept", "from-keeper"),
        stateful_probe("leaver", "left", "from-leaver"),
    );
    std::fs::write(&s.config, before).unwrap();
    let runner = s.runner("box-1");
    let b = &s.blaise;
    let id = b
        .new_session("script", "say before\nsay zebra-crossing-42")
        .await;
    b.wait_for_text(&id, "agent_message: zebra-crossing-42", MINUTE)
        .await;
    b.wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;

    // While paused: the plugs are reordered, `leaver` is removed and a new
    // stateful plug `newcomer` appears; the stateless `redaction` is removed
    // and another, `masker`, added with a config of its own. Each run reads
    // blaise.yml afresh.
    let masker = format!(
        "  - id: masker\n    source: {}\n    with:\n      literals: [zebra-crossing-42]\n",
        plug("plugs/redaction").display()
    );
    let after = format!(
        "agent:\n  name: script\n  command: {agent}\nplugs:\n{}{masker}{}",
        stateful_probe("newcomer", "fresh", "unused"),
        stateful_probe("keeper", "kept", "unused"),
    );
    std::fs::write(&s.config, after).unwrap();
    b.send(&id, "env kept\nenv fresh\nsay zebra-crossing-42 again")
        .await
        .unwrap();
    // The added stateless plug's config applies at once.
    let text = b
        .wait_for_text(&id, "agent_message: [REDACTED:literal] again", MINUTE)
        .await;
    assert!(
        text.contains("agent_message: kept=from-keeper"),
        "the kept plug found its state by id:\n{text}"
    );
    assert!(
        text.contains("agent_message: fresh=-"),
        "the new plug found none:\n{text}"
    );

    let view = b.show(&id).await;
    let records = view["plug_records"].as_array().unwrap();
    let owned = |id: &str| {
        records
            .iter()
            .find(|r| r["plug_id"] == id)
            .map(|r| r["owned"].clone())
    };
    assert_eq!(owned("keeper"), Some(true.into()), "{records:?}");
    assert_eq!(
        owned("leaver"),
        Some(false.into()),
        "the removed plug's record stays, owned by nothing: {records:?}"
    );
    assert_eq!(owned("redaction"), None, "a stateless plug keeps no record");
    assert_eq!(owned("masker"), None, "a stateless plug keeps no record");
    assert!(runner.stop().await.success());
}

/// A filter that traps on an entry does not fail the run: the batch it was
/// handed is withheld (nothing of it leaves, not even in the plug's panic
/// message, which quotes it), a notice says so, the plug is instantiated
/// anew, and the session goes on; a filter that fails batch after batch
/// fails the run, its error without the plug's last words.
#[tokio::test(flavor = "multi_thread")]
async fn an_entry_no_filter_can_pass_is_withheld_and_never_leaves_unfiltered() {
    let extra = format!(
        "  - id: strict\n    source: {}\n    with:\n      filter_panic_on: FORBIDDEN\n",
        plug("tests/plugs/probe").display()
    );
    let s = setup_with(settings(600_000, IdlePolicy::Pause), &[], &extra).await;
    let runner = s.runner("box-1");
    let b = &s.blaise;
    let id = b
        .new_session(
            "script",
            // The pause keeps the entries that pass apart from the one no
            // filter can pass even on a loaded machine: the runner withholds
            // a whole batch (what arrived together) when a filter fails it.
            "say fine so far\nsleep 1500\nrun echo FORBIDDEN-$((6*7))\nsleep 1500\nsay and after it",
        )
        .await;
    let text = b
        .wait_for_text(&id, "agent_message: and after it", MINUTE)
        .await;
    assert!(text.contains("agent_message: fine so far"), "{text}");
    assert!(
        text.contains("Part of the agent's output was withheld: plug `strict` failed in transcript filter: crashed"),
        "{text}"
    );
    // What only the agent wrote (the user wrote `$((6*7))`).
    assert!(!text.contains("FORBIDDEN-42"), "{text}");

    // A message under way when its filter failed: the fresh instance never saw its start (a
    // secret's first half may have been withheld), so the rest of it is left out too.
    b.send(
        &id,
        "drip 600 3 FORBIDDEN starts it, the-middle-part, the-last-part\nsay after the drip",
    )
    .await
    .unwrap();
    let text = b
        .wait_for_text(&id, "agent_message: after the drip", MINUTE)
        .await;
    // (The user's message holds the words; the agent's must not.)
    let agents: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("agent_message:"))
        .collect();
    assert!(
        agents
            .iter()
            .all(|l| !l.contains("middle-part") && !l.contains("last-part")),
        "{text}"
    );
    b.send(&id, "say still here").await.unwrap();
    b.wait_for_text(&id, "agent_message: still here", MINUTE)
        .await;
    let view = b.show(&id).await;
    assert_eq!(view["state"], "active", "{view:#}");
    assert!(!view.to_string().contains("FORBIDDEN-42"), "{view:#}");

    // Batch after batch: the run fails, and still says nothing of them.
    b.send(
        &id,
        "run echo FORBIDDEN-$((6*7)) one\nsleep 700\nrun echo FORBIDDEN-$((6*7)) two\nsleep 700\nrun echo FORBIDDEN-$((6*7)) three",
    )
    .await
    .unwrap();
    let view = b
        .wait_for(&id, "the failed session", MINUTE, |v| {
            v["state"] == "failed"
        })
        .await;
    // (The probe writes notices, and so errors, in capitals.)
    let error = last_run(&view)["error"]
        .as_str()
        .unwrap_or_default()
        .to_lowercase();
    assert!(
        error.contains("plug `strict` failed in transcript filter: crashed"),
        "{view:#}"
    );
    assert!(!view.to_string().contains("FORBIDDEN-42"), "{view:#}");
    let text = b.transcript_text(&id).await;
    assert!(!text.contains("FORBIDDEN-42"), "{text}");
    assert!(
        !runner.stderr().contains("FORBIDDEN-42"),
        "the runner's log holds nothing of it either"
    );
    assert!(runner.stop().await.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_turn_in_progress_is_never_idle() {
    let s = setup(1_000, IdlePolicy::Pause, &[]).await;
    let runner = s.runner("box-1");
    let b = &s.blaise;
    // The turn lasts three inactivity limits; the agent is silent throughout.
    let id = b
        .new_session("script", "sleep 3000\nsay still the same turn")
        .await;
    b.wait_for_text(&id, "agent_message: still the same turn", MINUTE)
        .await;
    let view = b.show(&id).await;
    assert_eq!(view["runs"].as_array().unwrap().len(), 1, "{view:#}");
    assert!(
        last_run(&view)["stop"].is_null(),
        "no stop during the turn: {view:#}"
    );
    // Once the turn is over, the session does go idle.
    b.wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    assert!(runner.stop().await.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_whose_process_cannot_start_is_reported_at_once() {
    let s = setup(600_000, IdlePolicy::Pause, &[]).await;
    let token = s.blaise.embedded.runner_token("box").unwrap();
    let runner = Runner::start_with_env(
        s.blaise.url(),
        &token,
        &s.config,
        &s.data,
        &s.cache,
        "box-1",
        &[("BLAISE_RUN_PROGRAM", "/nonexistent/blaise-runner")],
    );
    let b = &s.blaise;
    let started = std::time::Instant::now();
    let id = b.new_session("script", "say never").await;
    let view = b
        .wait_for(&id, "the failed run", MINUTE, |v| {
            v["runs"]
                .as_array()
                .is_some_and(|r| r.iter().any(|r| r["status"] == "failed"))
        })
        .await;
    // Well before the connection timeout (10 s here): the runner said so at once.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let failed = view["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["status"] == "failed")
        .unwrap();
    let error = failed["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("process start") && error.contains("starting the run's process"),
        "{view:#}"
    );
    assert!(runner.stop().await.success());
}
