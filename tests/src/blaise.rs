//! A real control plane (in this test process, over HTTP on loopback) and real
//! runner processes, for the end-to-end tests of the run loop.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use blaise_control::client::{Client as UserClient, ClientError};
use blaise_control::config::Config;
use blaise_control::embedded::Embedded;
use blaise_control::model::{AgentSettings, IdlePolicy};
use serde_json::{Value, json};

use crate::root;

/// How long a bench's session may take to answer or be torn down.
const MINUTE: Duration = Duration::from_secs(60);

/// The control plane's limits, short enough for tests.
pub fn quick_config() -> Config {
    Config {
        check_interval_ms: 100,
        heartbeat_interval_ms: 200,
        heartbeat_timeout_ms: 3_000,
        connect_timeout_ms: 10_000,
        stop_grace_ms: 10_000,
        teardown_backoff_ms: 500,
        close_wait_ms: 5_000,
        long_poll_max_ms: 2_000,
        ..Config::default()
    }
}

pub fn settings(inactivity_ms: i64, idle_policy: IdlePolicy) -> AgentSettings {
    AgentSettings {
        inactivity_ms,
        idle_policy,
        paused_lifetime_ms: 3_600_000,
        timeout_ms: 3_600_000,
        requires_labels: Vec::new(),
        hot_for_ms: 0,
        ..AgentSettings::default()
    }
}

/// A control plane in this test process.
pub struct Blaise {
    pub embedded: Embedded,
    pub api: Api,
}

impl std::ops::Deref for Blaise {
    type Target = Api;
    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Blaise {
    pub async fn start(db: &Path, config: Config) -> Blaise {
        Self::start_with(db, config, Default::default()).await
    }

    /// One session of the script agent end to end, as the benches time
    /// start runs: opened with `say run {i}`, answered, closed, torn down.
    pub async fn session_to_teardown(&self, i: usize) {
        let id = self.new_session("script", &format!("say run {i}")).await;
        self.wait_for_text(&id, &format!("agent_message: run {i}"), MINUTE)
            .await;
        self.close(&id).await.unwrap();
        self.wait_for(&id, "teardown", MINUTE, |v| {
            v["environment"]["state"] == "torn_down"
        })
        .await;
    }

    /// A control plane that answers for message `sources` too (Linear apps).
    pub async fn start_with(
        db: &Path,
        config: Config,
        sources: blaise_control::sources::Sources,
    ) -> Blaise {
        let embedded = Embedded::start_with(db, "127.0.0.1:0".parse().unwrap(), config, sources)
            .await
            .expect("starting the control plane");
        let api = Api::new(&embedded.url, &embedded.admin_token);
        Blaise { embedded, api }
    }
}

/// The user API of a control plane (in this process or another), with what
/// the tests ask of it.
/// Blaise's user API as its admin: the shared test client (`blaise_test_support::api`: the
/// session's view, its transcript, the waits), plus the CLI's client (`user`) for what a test
/// sends as `blaise` would.
pub struct Api {
    pub user: UserClient,
    api: blaise_test_support::api::Api,
}

impl std::ops::Deref for Api {
    type Target = blaise_test_support::api::Api;
    fn deref(&self) -> &Self::Target {
        &self.api
    }
}

impl Api {
    pub fn new(url: &str, admin_token: &str) -> Api {
        Api {
            user: UserClient::new(url, admin_token),
            api: blaise_test_support::api::Api::new(url, admin_token),
        }
    }

    pub async fn send(&self, session: &str, text: &str) -> Result<Value, ClientError> {
        self.user
            .post(
                &format!("/v1/sessions/{session}/messages"),
                json!({ "text": text }),
            )
            .await
    }

    pub async fn close(&self, session: &str) -> Result<Value, ClientError> {
        self.user
            .post(&format!("/v1/sessions/{session}/close"), json!({}))
            .await
    }
}

/// Builds a binary of the workspace once per process (a no-op when fresh).
pub fn binary(package: &str, name: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let path = root().join("target/release").join(name);
    let mut built = BUILT.lock().unwrap();
    if !built.iter().any(|b| b == name) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        // All the workspace's binaries, as `cargo test` resolves features for
        // the workspace: building one package alone would resolve them
        // differently and rebuild half the dependency tree (wasmtime too).
        let _ = package;
        let status = std::process::Command::new(cargo)
            .args(["build", "--release", "--bins"])
            .current_dir(root())
            .status()
            .unwrap();
        assert!(status.success(), "building {name}");
        built.push(name.to_string());
    }
    path
}

/// The runner binary: this workspace's, or the one `BLAISE_RUNNER_BIN`
/// names (a benchmark of another build: "before" a change).
pub fn runner_binary() -> PathBuf {
    match std::env::var_os("BLAISE_RUNNER_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => binary("blaise-runner", "blaise-runner"),
    }
}

pub fn script_agent() -> PathBuf {
    binary("blaise-script-agent", "blaise-script-agent")
}

/// Writes a `blaise.yml` at `path` for agent `script` (the script agent) with `plugs` (YAML
/// list items; empty: none).
pub fn write_script_config(path: &Path, plugs: &str) {
    let mut yaml = format!(
        "agent:\n  name: script\n  command: [{}]\n",
        serde_json::to_string(&script_agent()).unwrap()
    );
    if !plugs.is_empty() {
        yaml.push_str("plugs:\n");
        yaml.push_str(plugs);
    }
    std::fs::write(path, yaml).unwrap();
}

/// The plug list of a `blaise.yml` with only the redaction plug.
pub fn redaction_plug() -> String {
    format!(
        "  - id: redaction\n    source: {}\n",
        crate::plug("plugs/redaction").display()
    )
}

/// A `blaise-runner start` process; what it writes to stderr is kept (and
/// passed on to the test's own stderr).
pub struct Runner {
    pub child: tokio::process::Child,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Runner {
    pub fn start(
        blaise_url: &str,
        token: &str,
        config: &Path,
        data_dir: &Path,
        cache_dir: &Path,
        instance: &str,
    ) -> Runner {
        Self::start_with_env(
            blaise_url,
            token,
            config,
            data_dir,
            cache_dir,
            instance,
            &[],
        )
    }

    /// Like `start`, with more environment variables for the runner.
    pub fn start_with_env(
        blaise_url: &str,
        token: &str,
        config: &Path,
        data_dir: &Path,
        cache_dir: &Path,
        instance: &str,
        env: &[(&str, &str)],
    ) -> Runner {
        let mut child = tokio::process::Command::new(runner_binary())
            .arg("--cache-dir")
            .arg(cache_dir)
            .args(["start", "--url", blaise_url, "--instance", instance])
            .arg("--config")
            .arg(config)
            .arg("--data-dir")
            .arg(data_dir)
            .env("BLAISE_RUNNER_TOKEN", token)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("starting blaise-runner");
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let pipe = child.stderr.take().expect("piped");
        let kept = stderr.clone();
        tokio::spawn(async move {
            use tokio::io::AsyncBufReadExt;
            let mut lines = tokio::io::BufReader::new(pipe).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("{line}");
                let mut kept = kept.lock().unwrap();
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        Runner { child, stderr }
    }

    /// What the runner (and its runs) wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The numeric fields `names` (`name=value`) of every run's "launching
    /// the agent" log line so far, one row per run that logged them all.
    pub fn launch_fields(&self, names: &[&str]) -> Vec<Vec<f64>> {
        self.log_fields("launching the agent", names)
    }

    /// The numeric fields `names` of every log line saying `message`, one
    /// row per line that has them all.
    pub fn log_fields(&self, message: &str, names: &[&str]) -> Vec<Vec<f64>> {
        self.stderr()
            .lines()
            .filter(|l| l.contains(message))
            .filter_map(|l| names.iter().map(|name| log_field(l, name)).collect())
            .collect()
    }

    /// Waits until the runner's stderr contains `needle`.
    pub async fn wait_for_stderr(&self, needle: &str, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            let text = self.stderr();
            if text.contains(needle) {
                return text;
            }
            assert!(
                start.elapsed() < timeout,
                "timed out waiting for `{needle}` from the runner"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until the runner's stderr says `needle` `count` times.
    pub async fn wait_for_stderr_count(&self, needle: &str, count: usize, timeout: Duration) {
        let start = Instant::now();
        while self.stderr().matches(needle).count() < count {
            assert!(
                start.elapsed() < timeout,
                "timed out waiting for `{needle}` × {count} from the runner"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits for the runner to exit by itself.
    pub async fn exited(&mut self, timeout: Duration) -> std::process::ExitStatus {
        tokio::time::timeout(timeout, self.child.wait())
            .await
            .expect("the runner exits")
            .unwrap()
    }

    pub fn signal(&self, signal: i32) {
        let pid = self.child.id().expect("running") as i32;
        // SAFETY: a signal to a child we spawned.
        unsafe { libc::kill(pid, signal) };
    }

    /// SIGKILL to the runner and to every run process it started (their
    /// agents die with them): a machine that loses power, as the runner sees it.
    pub async fn kill_all(mut self) {
        let pid = self.child.id().expect("running");
        for run in children_of(pid) {
            // SAFETY: a signal to a process our child started.
            unsafe { libc::kill(run as i32, libc::SIGKILL) };
        }
        self.signal(libc::SIGKILL);
        let _ = self.child.wait().await;
    }

    /// Sends SIGTERM and waits for the runner (and its runs) to exit.
    pub async fn stop(mut self) -> std::process::ExitStatus {
        self.signal(libc::SIGTERM);
        tokio::time::timeout(Duration::from_secs(60), self.child.wait())
            .await
            .expect("the runner stops within a minute")
            .unwrap()
    }
}

/// Processes whose parent is `pid` (from /proc).
fn children_of(pid: u32) -> Vec<u32> {
    crate::procs::all()
        .into_iter()
        .filter(|s| s.ppid == pid)
        .map(|s| s.pid)
        .collect()
}

/// A control plane with one agent, a `blaise.yml`, and the directories of a
/// runner, in a temporary directory: the stage for end-to-end tests.
pub struct Stage {
    pub tmp: tempfile::TempDir,
    pub blaise: Blaise,
    pub config: PathBuf,
    pub data: PathBuf,
    pub cache: PathBuf,
    /// The token of runner `box`: every instance started here is that runner.
    pub token: String,
}

impl Stage {
    /// Agent `script` with these settings; write `blaise.yml` with [`Stage::configure`].
    pub async fn new(agent: AgentSettings) -> Stage {
        Self::with_agent("script", agent).await
    }

    /// Agent `name` with these settings; write `blaise.yml` yourself.
    pub async fn with_agent(name: &str, agent: AgentSettings) -> Stage {
        Self::with_sources(name, agent, Default::default()).await
    }

    /// Agent `name`, with a control plane that answers for message `sources` too.
    pub async fn with_sources(
        name: &str,
        agent: AgentSettings,
        sources: blaise_control::sources::Sources,
    ) -> Stage {
        let tmp = tempfile::tempdir().unwrap();
        let blaise =
            Blaise::start_with(&tmp.path().join("blaise.db"), quick_config(), sources).await;
        blaise.embedded.set_agent(name, agent).unwrap();
        let config = tmp.path().join("blaise.yml");
        let data = tmp.path().join("data");
        let cache = tmp.path().join("cache");
        let token = blaise.embedded.runner_token("box").unwrap();
        Stage {
            tmp,
            blaise,
            config,
            data,
            cache,
            token,
        }
    }

    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Writes `blaise.yml`: the script agent, then `plugs` (YAML list items).
    pub fn configure(&self, plugs: &str) {
        write_script_config(&self.config, plugs);
    }

    /// A `blaise-runner start` process of runner `box`.
    pub fn runner(&self, instance: &str) -> Runner {
        self.runner_with_env(instance, &[])
    }

    /// Like [`Stage::runner`], with more environment variables for the runner.
    pub fn runner_with_env(&self, instance: &str, env: &[(&str, &str)]) -> Runner {
        Runner::start_with_env(
            self.blaise.url(),
            &self.token,
            &self.config,
            &self.data,
            &self.cache,
            instance,
            env,
        )
    }

    /// Closes the session while no runner runs it, lets a fresh runner
    /// process take the teardown run, and stops that process once the
    /// environment is torn down; returns the session's view then.
    pub async fn tear_down_in_a_fresh_process(&self, session: &str) -> Value {
        self.blaise.close(session).await.unwrap();
        let runner = self.runner("box-fresh");
        let view = self
            .blaise
            .wait_for(session, "the teardown", Duration::from_secs(120), |v| {
                v["environment"]["state"] == "torn_down"
            })
            .await;
        assert_eq!(view["state"], "closed", "{view:#}");
        let status = runner.stop().await;
        assert!(status.success(), "{status}");
        view
    }

    /// The session's workspace on this runner.
    pub fn workspace(&self, view: &Value) -> PathBuf {
        let env = view["environment"]["id"].as_str().expect("an environment");
        self.data.join("workspaces").join(env)
    }

    /// The session's page as the dashboard serves it.
    pub async fn dashboard(&self, session: &str) -> String {
        reqwest::Client::new()
            .get(format!("{}/sessions/{session}", self.blaise.url()))
            .bearer_auth(&self.blaise.embedded.admin_token)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }
}

/// The number logged as `name=value` in a log line.
fn log_field(line: &str, name: &str) -> Option<f64> {
    line.split(&format!("{name}="))
        .nth(1)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
