//! Test a compiled plug through scripted lifecycles in the real plug host,
//! with an in-memory state store, a temporary workspace and the grants you
//! choose.
//!
//! The harness drives `blaise-runner plug test --serve` (the runner you run
//! plugs with, found on `PATH` or at `$BLAISE_RUNNER`), so a plug's tests
//! build no plug host of their own. It blocks, and works in plain `#[test]`s
//! and in `#[tokio::test]`s alike.
//!
//! ```no_run
//! use blaise_plug::harness::Harness;
//!
//! #[test]
//! fn survives_a_pause() {
//!     let wasm = Harness::build(env!("CARGO_MANIFEST_DIR")).unwrap();
//!     let mut plug = Harness::load(&wasm)
//!         .unwrap()
//!         .with_config(serde_json::json!({ "greeting": "hi" }));
//!     let launch = plug.start().unwrap();
//!     assert_eq!(launch.env, [("GREETING".to_string(), "hi".to_string())]);
//!     plug.pause(true).unwrap();
//!     plug.resume().unwrap();
//!     assert_eq!(plug.state_json::<u32>("runs"), Some(2));
//!     plug.teardown().unwrap();
//! }
//! ```
//!
//! Each `start`, `resume` and (after a resume or nothing) `teardown` is a new
//! run with a fresh instance, as in the runner; `pause` and a `teardown` right
//! after it share their run.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use crate::{Contribution, Hook, Needs, PlugInfo};

/// A hook that failed, or a step the harness could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookError {
    /// `on-start`, `on-resume`, `on-pause`, `on-teardown`, `transcript filter`,
    /// `instantiate`, or `harness` for a failure of the harness itself.
    pub hook: String,
    pub message: String,
    /// The `with:` field the plug blamed, if any.
    pub field: Option<String>,
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {}", self.hook, self.message)?;
        if let Some(field) = &self.field {
            write!(f, " (with.{field})")?;
        }
        Ok(())
    }
}

impl std::error::Error for HookError {}

/// A log line the plug wrote (or the host wrote about it) during a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    pub level: String,
    /// `log`, `stdout`, `stderr`, or empty for the host's own lines.
    pub source: String,
    pub message: String,
}

/// A compiled plug in a test host.
pub struct Harness {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    info: PlugInfo,
    workspace: PathBuf,
    setup: Value,
    sent_setup: Value,
    state: BTreeMap<String, Vec<u8>>,
    logs: Vec<LogLine>,
}

impl Harness {
    /// Builds the plug crate in `crate_dir` to a component with
    /// `blaise-runner plug build` and returns its path.
    pub fn build(crate_dir: impl AsRef<Path>) -> std::io::Result<PathBuf> {
        let out = Command::new(runner())
            .args(["plug", "build"])
            .arg(crate_dir.as_ref())
            .stderr(Stdio::inherit())
            .output()
            .map_err(not_found)?;
        if !out.status.success() {
            return Err(std::io::Error::other(format!(
                "building the plug in {} failed (see above)",
                crate_dir.as_ref().display()
            )));
        }
        Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    }

    /// Loads a compiled plug (a component built in any language) into a
    /// test host: its description is checked as the runner checks it.
    pub fn load(component: impl AsRef<Path>) -> std::io::Result<Harness> {
        let mut child = Command::new(runner())
            .args(["plug", "test", "--serve"])
            .arg(component.as_ref())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(not_found)?;
        let input = child.stdin.take().expect("piped");
        let mut output = BufReader::new(child.stdout.take().expect("piped"));
        let hello = read_line(&mut output)?;
        if let Some(error) = hello.get("error") {
            return Err(std::io::Error::other(format!(
                "loading {}: {}",
                component.as_ref().display(),
                error.as_str().unwrap_or_default()
            )));
        }
        Ok(Harness {
            child,
            input,
            output,
            info: plug_info(&hello["plug"]),
            workspace: PathBuf::from(hello["workspace"].as_str().unwrap_or_default()),
            setup: json!({}),
            sent_setup: json!({}),
            state: BTreeMap::new(),
            logs: Vec::new(),
        })
    }

    /// The plug's `with:` config (checked against its schema at the next run).
    pub fn with_config(mut self, config: Value) -> Self {
        self.setup["with"] = config;
        self
    }

    /// Grants programs, as `allow.exec` in `blaise.yml` would.
    pub fn allow_exec(mut self, programs: &[&str]) -> Self {
        self.setup["allow"]["exec"] = json!(programs);
        self
    }

    /// Grants HTTP hosts, as `allow.http` in `blaise.yml` would.
    pub fn allow_http(mut self, hosts: &[&str]) -> Self {
        self.setup["allow"]["http"] = json!(hosts);
        self
    }

    /// Grants the secret `name`, read from the environment variable `var`
    /// (of the test process), as `allow.secrets` in `blaise.yml` would.
    pub fn allow_secret_from_env(mut self, name: &str, var: &str) -> Self {
        self.setup["allow"]["secrets"][name] = json!({ "env": var });
        self
    }

    /// Grants the plug a storage directory, as `allow.storage` would.
    pub fn allow_storage(mut self) -> Self {
        self.setup["allow"]["storage"] = json!(true);
        self
    }

    /// The plug's limits, as `limits:` in `blaise.yml` (`"64MiB"`, `"5s"`).
    pub fn limits(mut self, memory: Option<&str>, hook_deadline: Option<&str>) -> Self {
        if let Some(memory) = memory {
            self.setup["limits"]["memory"] = json!(memory);
        }
        if let Some(deadline) = hook_deadline {
            self.setup["limits"]["hook_deadline"] = json!(deadline);
        }
        self
    }

    /// What the plug describes itself as.
    pub fn info(&self) -> &PlugInfo {
        &self.info
    }

    /// The session's workspace directory.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The plug's committed state after the last step.
    pub fn state(&self) -> &BTreeMap<String, Vec<u8>> {
        &self.state
    }

    /// One value of the committed state, decoded as the SDK's `state::set` wrote it.
    pub fn state_json<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        self.state
            .get(key)
            .and_then(|v| serde_json::from_slice(v).ok())
    }

    /// The log lines of the last step.
    pub fn logs(&self) -> &[LogLine] {
        &self.logs
    }

    /// A start run: `on-start`.
    pub fn start(&mut self) -> Result<Contribution, HookError> {
        let answer = self.step(json!({ "step": "start" }))?;
        Ok(contribution(&answer["contribution"]))
    }

    /// A resume run: `on-resume`.
    pub fn resume(&mut self) -> Result<Contribution, HookError> {
        let answer = self.step(json!({ "step": "resume" }))?;
        Ok(contribution(&answer["contribution"]))
    }

    /// `on-pause` in the current run (reason `idle`).
    pub fn pause(&mut self, may_resume: bool) -> Result<(), HookError> {
        self.step(json!({ "step": "pause", "may_resume": may_resume }))
            .map(drop)
    }

    /// A hot pause: `on-pause` told to keep the agent's processes
    /// (`PauseInfo::keep_processes`), and the next `resume` told they were
    /// kept (`Context::processes_kept`). The plug must say `keeps_processes`.
    pub fn pause_hot(&mut self) -> Result<(), HookError> {
        self.step(json!({ "step": "pause", "may_resume": true, "keep_processes": true }))
            .map(drop)
    }

    /// `on-teardown`: right after a pause in the same run, or else in a
    /// teardown run of its own (reason `closed`).
    pub fn teardown(&mut self) -> Result<(), HookError> {
        self.step(json!({ "step": "teardown" })).map(drop)
    }

    /// A preparation ahead of the sessions: `on-prepare` with no session, in
    /// a scratch workspace of its own (an error if the plug does not prepare).
    pub fn prepare(&mut self) -> Result<(), HookError> {
        self.step(json!({ "step": "prepare" })).map(drop)
    }

    /// Passes text through the plug's transcript filter as one chunk of the
    /// stream `stream` (an agent message); `last` ends the stream.
    pub fn filter(&mut self, stream: &str, text: &str, last: bool) -> Result<String, HookError> {
        let entry = json!({ "text": text, "stream": stream, "last": last });
        let answer = self.step(json!({ "step": "filter", "entries": [entry] }))?;
        Ok(answer["entries"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned())
    }

    fn step(&mut self, step: Value) -> Result<Value, HookError> {
        if self.setup != self.sent_setup {
            let answer = self.ask(&json!({ "configure": self.setup }))?;
            if answer["ok"] != json!(true) {
                return Err(error("configure", &answer["error"]));
            }
            self.sent_setup = self.setup.clone();
        }
        let answer = self.ask(&step)?;
        if let Some(state) = answer["state"].as_object() {
            self.state = state
                .iter()
                .map(|(k, v)| (k.clone(), state_bytes(v)))
                .collect();
        }
        self.logs = answer["logs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|l| LogLine {
                level: l["level"].as_str().unwrap_or_default().into(),
                source: l["source"].as_str().unwrap_or_default().into(),
                message: l["message"].as_str().unwrap_or_default().into(),
            })
            .collect();
        if answer["error"].is_object() {
            return Err(error("harness", &answer["error"]));
        }
        Ok(answer)
    }

    fn ask(&mut self, request: &Value) -> Result<Value, HookError> {
        let io = |e: std::io::Error| HookError {
            hook: "harness".into(),
            message: format!("the plug test host stopped: {e}"),
            field: None,
        };
        writeln!(self.input, "{request}").map_err(io)?;
        self.input.flush().map_err(io)?;
        read_line(&mut self.output).map_err(io)
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The runner binary: `$BLAISE_RUNNER`, else `blaise-runner` on `PATH`.
fn runner() -> PathBuf {
    std::env::var_os("BLAISE_RUNNER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("blaise-runner"))
}

fn not_found(e: std::io::Error) -> std::io::Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        std::io::Error::new(
            e.kind(),
            format!(
                "the harness runs plugs with `{}`, which is not there: install blaise-runner on PATH or set BLAISE_RUNNER to it",
                runner().display()
            ),
        )
    } else {
        e
    }
}

fn read_line(output: &mut impl BufRead) -> std::io::Result<Value> {
    let mut line = String::new();
    if output.read_line(&mut line)? == 0 {
        return Err(std::io::Error::other(
            "blaise-runner plug test ended without an answer (see its errors above)",
        ));
    }
    serde_json::from_str(&line)
        .map_err(|e| std::io::Error::other(format!("blaise-runner answered `{line}`: {e}")))
}

fn error(hook: &str, error: &Value) -> HookError {
    HookError {
        hook: error["hook"].as_str().unwrap_or(hook).into(),
        message: error["message"].as_str().unwrap_or_default().into(),
        field: error["field"].as_str().map(Into::into),
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(Into::into))
        .collect()
}

fn contribution(c: &Value) -> Contribution {
    Contribution {
        env: c["env"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|pair| {
                let s = |i: usize| pair[i].as_str().unwrap_or_default().to_owned();
                (s(0), s(1))
            })
            .collect(),
        working_dir: c["working_dir"].as_str().map(Into::into),
        command_prefix: strings(&c["command_prefix"]),
    }
}

fn state_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::String(text) => text.clone().into_bytes(),
        // Not UTF-8: the host sends `{ "base64": … }`.
        other => {
            use base64::Engine as _;
            let text = other["base64"].as_str().unwrap_or_default();
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .unwrap_or_default()
        }
    }
}

fn plug_info(v: &Value) -> PlugInfo {
    let hook = |name: &str| match name {
        "on-start" => Some(Hook::OnStart),
        "on-resume" => Some(Hook::OnResume),
        "on-pause" => Some(Hook::OnPause),
        "on-teardown" => Some(Hook::OnTeardown),
        _ => None,
    };
    PlugInfo {
        name: v["name"].as_str().unwrap_or_default().into(),
        version: v["version"].as_str().unwrap_or_default().into(),
        description: v["description"].as_str().unwrap_or_default().into(),
        stateful: v["stateful"] == json!(true),
        can_resume: v["can_resume"] == json!(true),
        keeps_processes: v["keeps_processes"] == json!(true),
        hooks: strings(&v["hooks"])
            .iter()
            .filter_map(|h| hook(h))
            .collect(),
        filters_transcript: v["filters_transcript"] == json!(true),
        config_schema: v["config_schema"].to_string(),
        needs: Needs {
            exec: strings(&v["needs"]["exec"]),
            http: strings(&v["needs"]["http"]),
            secrets: strings(&v["needs"]["secrets"]),
            storage: v["needs"]["storage"] == json!(true),
        },
    }
}
