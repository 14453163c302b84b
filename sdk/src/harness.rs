//! Test a compiled plug through scripted lifecycles, in the real plug host,
//! with an in-memory state store, a temporary workspace and the grants you
//! choose.
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

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, Result};
use blaise_runner::host::bindings::{EntryKind, PauseInfo, RunKind, TeardownInfo, TranscriptEntry};
use blaise_runner::host::{
    Allow, HostOptions, LoadedPlug, PlugHost, PlugInstance, PlugSetup, RunInfo, grants,
};
use blaise_runner::state_store::{MemoryStateStore, PlugState};

pub use blaise_runner::chain::Launch;
pub use blaise_runner::host::bindings::Contribution;
pub use blaise_runner::host::{Failure, HookError, Limits};

const SESSION: &str = "harness-session";
const PLUG_ID: &str = "plug";

/// A compiled plug in a test host.
pub struct Harness {
    runtime: tokio::runtime::Runtime,
    host: Arc<PlugHost>,
    plug: Arc<LoadedPlug>,
    config: serde_json::Value,
    allow: Allow,
    limits: Limits,
    state: Arc<MemoryStateStore>,
    workspace: tempfile::TempDir,
    storage: tempfile::TempDir,
    _cache: tempfile::TempDir,
    runs: u64,
    /// The run in progress: its instance, and whether it has been paused.
    current: Option<(PlugInstance, bool)>,
}

impl Harness {
    /// Builds the plug crate in `crate_dir` to a component (release, wasm32-wasip2).
    pub fn build(crate_dir: impl AsRef<Path>) -> Result<PathBuf> {
        let dir = crate_dir.as_ref();
        // A separate target directory: the build that runs the tests holds the lock of its own.
        blaise_runner::cli::build_plug(dir, Some(&dir.join("target").join("plug")))
    }

    /// Loads a compiled plug.
    pub fn load(component: impl AsRef<Path>) -> Result<Harness> {
        let runtime = tokio::runtime::Runtime::new()?;
        let cache = tempfile::tempdir()?;
        let host = Arc::new(PlugHost::new(&HostOptions {
            cache_dir: cache.path().to_path_buf(),
            max_memory: 1 << 30,
        })?);
        let plug = runtime
            .block_on(host.load(component.as_ref()))
            .with_context(|| format!("loading {}", component.as_ref().display()))?;
        Ok(Harness {
            runtime,
            host,
            plug,
            config: serde_json::json!({}),
            allow: Allow::default(),
            limits: Limits::default(),
            state: Arc::new(MemoryStateStore::default()),
            workspace: tempfile::tempdir()?,
            storage: tempfile::tempdir()?,
            _cache: cache,
            runs: 0,
            current: None,
        })
    }

    /// The plug's `with:` config.
    pub fn with_config(mut self, config: serde_json::Value) -> Self {
        self.config = config;
        self
    }

    /// Grants programs, as `allow.exec` in `blaise.yml` would.
    pub fn allow_exec(mut self, programs: &[&str]) -> Self {
        self.allow.exec = programs.iter().map(|s| s.to_string()).collect();
        self
    }

    /// Grants HTTP hosts, as `allow.http` in `blaise.yml` would.
    pub fn allow_http(mut self, hosts: &[&str]) -> Self {
        self.allow.http = hosts.iter().map(|s| s.to_string()).collect();
        self
    }

    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// What the plug describes itself as.
    pub fn info(&self) -> &blaise_runner::host::bindings::PlugInfo {
        &self.plug.info
    }

    /// The session's workspace directory.
    pub fn workspace(&self) -> &Path {
        self.workspace.path()
    }

    /// The plug's committed state.
    pub fn state(&self) -> PlugState {
        self.state.snapshot(SESSION, PLUG_ID)
    }

    /// One value of the committed state, decoded as the SDK's `state::set` wrote it.
    pub fn state_json<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        self.state()
            .get(key)
            .and_then(|v| serde_json::from_slice(v).ok())
    }

    /// A start run: `on-start`.
    pub fn start(&mut self) -> Result<Contribution, HookError> {
        let mut instance = self.new_run(RunKind::Start)?;
        let result = self.runtime.block_on(instance.on_start());
        self.current = Some((instance, false));
        result
    }

    /// A resume run: `on-resume`.
    pub fn resume(&mut self) -> Result<Contribution, HookError> {
        let mut instance = self.new_run(RunKind::Resume)?;
        let result = self.runtime.block_on(instance.on_resume());
        self.current = Some((instance, false));
        result
    }

    /// `on-pause` in the current run (reason `idle`).
    pub fn pause(&mut self, may_resume: bool) -> Result<(), HookError> {
        let (instance, paused) = self
            .current
            .as_mut()
            .expect("pause needs a run: call start or resume first");
        *paused = true;
        let info = PauseInfo {
            reason: "idle".into(),
            may_resume,
        };
        self.runtime.block_on(instance.on_pause(info))
    }

    /// `on-teardown`: right after a pause in the same run, or else in a
    /// teardown run of its own (reason `closed`).
    pub fn teardown(&mut self) -> Result<(), HookError> {
        let (mut instance, right_after_pause) = match self.current.take() {
            Some((instance, true)) => (instance, true),
            _ => (self.new_run(RunKind::Teardown)?, false),
        };
        let info = TeardownInfo {
            reason: "closed".into(),
            right_after_pause,
        };
        self.runtime.block_on(instance.on_teardown(info))
    }

    /// Passes text through the plug's transcript filter as one chunk of the
    /// stream `stream`; `last` ends the stream.
    pub fn filter(&mut self, stream: &str, text: &str, last: bool) -> Result<String, HookError> {
        if self.current.is_none() {
            let instance = self.new_run(RunKind::Start)?;
            self.current = Some((instance, false));
        }
        let (instance, _) = self.current.as_mut().expect("set above");
        let entry = TranscriptEntry {
            stream_id: stream.into(),
            kind: EntryKind::AgentMessage,
            text: text.into(),
            last,
            replay: false,
        };
        let mut out = self.runtime.block_on(instance.filter(vec![entry]))?;
        Ok(out.remove(0).text)
    }

    fn new_run(&mut self, kind: RunKind) -> Result<PlugInstance, HookError> {
        self.runs += 1;
        let report = grants::effective(&self.plug.info.needs, &self.allow);
        let setup = Arc::new(PlugSetup::new(
            PLUG_ID,
            self.plug.clone(),
            self.config.to_string(),
            report.effective,
            self.limits,
        ));
        let run = Arc::new(RunInfo {
            session_id: SESSION.into(),
            run_id: format!("harness-run-{}", self.runs),
            run_kind: kind,
            workspace: self.workspace.path().to_path_buf(),
            plug_storage: self.storage.path().to_path_buf(),
            state: self.state.clone(),
        });
        self.runtime
            .block_on(PlugInstance::new(&self.host, setup, run))
    }
}
