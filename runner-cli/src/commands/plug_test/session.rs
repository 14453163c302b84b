//! One plug in a test session: the real host, an in-memory state store, a
//! temporary workspace and storage, and the steps run as the runner would
//! run them (each start, resume or lone teardown a new run with a fresh
//! instance; a pause and the teardown right after it share their run).

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context as _, Result};
use serde::Serialize;
use serde_json::{Value, json};

use super::capture::{Captured, LogCapture};
use super::script::{Entry, Setup, Step};
use blaise_runner::host::bindings::{
    Contribution, EntryKind, PauseInfo, PlugInfo, RunKind, TeardownInfo, TranscriptEntry,
};
use blaise_runner::host::{
    HookError, LoadedPlug, PlugHost, PlugInstance, PlugSetup, RunInfo, grants,
};
use blaise_runner::state_store::{MemoryStateStore, PlugState};

const SESSION: &str = "plug-test-session";
const PLUG_ID: &str = "plug";

/// What one step did.
#[derive(Debug, Serialize)]
pub struct Outcome {
    pub step: &'static str,
    /// Whether the step went as the script expects (it succeeded, or it failed
    /// saying what `expect_error` says).
    pub ok: bool,
    /// The hook's failure, if it failed.
    pub error: Option<StepError>,
    pub millis: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contribution: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<Value>>,
    /// Keys written (with their new values) and deleted by the step.
    pub state_changes: Value,
    /// The committed state after the step: UTF-8 values as text, others as
    /// `{ "base64": … }`.
    pub state: Value,
    pub logs: Vec<Captured>,
}

#[derive(Debug, Serialize)]
pub struct StepError {
    pub hook: String,
    pub message: String,
    pub field: Option<String>,
}

pub struct TestSession {
    host: Arc<PlugHost>,
    plug: Arc<LoadedPlug>,
    /// The plug as configured, or why its config is refused.
    setup: Result<Arc<PlugSetup>, String>,
    state: Arc<MemoryStateStore>,
    workspace: tempfile::TempDir,
    storage: tempfile::TempDir,
    capture: LogCapture,
    runs: u64,
    /// The run in progress: its instance, and whether it has been paused.
    current: Option<(PlugInstance, bool)>,
    /// Whether the last pause kept the agent's processes (a hot pause): the
    /// next resume is told so.
    kept: bool,
}

impl TestSession {
    pub fn new(host: Arc<PlugHost>, plug: Arc<LoadedPlug>, capture: LogCapture) -> Result<Self> {
        let setup = Self::configure_setup(&host, &plug, &Setup::default());
        Ok(TestSession {
            host,
            plug,
            setup,
            state: Arc::new(MemoryStateStore::default()),
            workspace: tempfile::tempdir().context("creating the test workspace")?,
            storage: tempfile::tempdir().context("creating the test storage")?,
            capture,
            runs: 0,
            current: None,
            kept: false,
        })
    }

    pub fn info(&self) -> &PlugInfo {
        &self.plug.info
    }

    pub fn workspace(&self) -> &Path {
        self.workspace.path()
    }

    /// Sets the plug's config, grants and limits, as its entry in `blaise.yml`
    /// would; the config is checked against the plug's schema. Applies from
    /// the next run on.
    pub fn configure(&mut self, setup: &Setup) -> Result<(), String> {
        self.setup = Self::configure_setup(&self.host, &self.plug, setup);
        self.setup.as_ref().map(drop).map_err(Clone::clone)
    }

    fn configure_setup(
        host: &PlugHost,
        plug: &Arc<LoadedPlug>,
        setup: &Setup,
    ) -> Result<Arc<PlugSetup>, String> {
        let config = setup.with.clone().unwrap_or(json!({}));
        blaise_runner::config::check_config(&plug.info.config_schema, &config)?;
        let mut limits = blaise_runner::host::Limits::default();
        if let Some(memory) = setup.limits.memory {
            if memory > host.max_memory() {
                return Err(format!(
                    "limits.memory is above this runner's maximum of {} bytes",
                    host.max_memory()
                ));
            }
            limits.memory = memory;
        }
        if let Some(deadline) = setup.limits.hook_deadline {
            limits.hook_deadline = deadline;
        }
        let report = grants::effective(&plug.info.needs, &setup.allow);
        Ok(Arc::new(PlugSetup::new(
            PLUG_ID,
            plug.clone(),
            config.to_string(),
            report.effective,
            limits,
        )))
    }

    /// Runs one step and says what it did.
    pub async fn run(&mut self, step: &Step) -> Outcome {
        let before = self.state.snapshot(SESSION, PLUG_ID);
        self.capture.take();
        let started = Instant::now();
        let mut outcome = Outcome {
            step: step.name(),
            ok: true,
            error: None,
            millis: 0.0,
            contribution: None,
            entries: None,
            state_changes: json!({}),
            state: json!({}),
            logs: Vec::new(),
        };
        let result: Result<(), HookError> = match step {
            Step::Start { .. } => self
                .begin(RunKind::Start)
                .await
                .map(|c| outcome.contribution = Some(contribution(&c))),
            Step::Resume { .. } => self
                .begin(RunKind::Resume)
                .await
                .map(|c| outcome.contribution = Some(contribution(&c))),
            Step::Pause {
                reason,
                may_resume,
                keep_processes,
                ..
            } => self.pause(reason, *may_resume, *keep_processes).await,
            Step::Teardown { reason, .. } => self.teardown(reason).await,
            Step::Prepare { .. } => self.prepare().await,
            Step::Filter { entries, .. } => self
                .filter(entries)
                .await
                .map(|out| outcome.entries = Some(out.iter().map(entry_json).collect())),
        };
        outcome.millis = started.elapsed().as_secs_f64() * 1000.0;
        let after = self.state.snapshot(SESSION, PLUG_ID);
        outcome.state_changes = changes(&before, &after);
        outcome.state = state_json(&after);
        outcome.logs = self.capture.take();
        if let Err(e) = result {
            let (message, field) = match &e.failure {
                blaise_runner::host::Failure::Plug { message, field } => {
                    (message.clone(), field.clone())
                }
                other => (other.to_string(), None),
            };
            outcome.error = Some(StepError {
                hook: e.hook.to_string(),
                message,
                field,
            });
        }
        // What leaves the host is scrubbed of the secrets handed out so far,
        // here as in a run: a script's output ends up in CI logs.
        for value in [
            outcome.contribution.as_mut(),
            Some(&mut outcome.state_changes),
            Some(&mut outcome.state),
        ]
        .into_iter()
        .flatten()
        {
            blaise_runner::secret_mask::scrub_json(value);
        }
        for entry in outcome.entries.iter_mut().flatten() {
            blaise_runner::secret_mask::scrub_json(entry);
        }
        if let Some(error) = outcome.error.as_mut() {
            error.message = blaise_runner::secret_mask::scrub(&error.message).into_owned();
        }
        outcome.ok = match (step.expect_error(), &outcome.error) {
            (None, None) => true,
            (None, Some(_)) | (Some(_), None) => false,
            (Some(want), Some(got)) => got.message.contains(want),
        };
        outcome
    }

    /// A start or resume run: a fresh instance and its first hook.
    async fn begin(&mut self, kind: RunKind) -> Result<Contribution, HookError> {
        self.current = None;
        let mut instance = self.instance(kind).await?;
        let result = match kind {
            RunKind::Start => instance.on_start().await,
            _ => instance.on_resume().await,
        };
        self.current = Some((instance, false));
        result
    }

    async fn pause(
        &mut self,
        reason: &str,
        may_resume: bool,
        keep_processes: bool,
    ) -> Result<(), HookError> {
        if self.current.is_none() {
            return Err(self.misuse("pause", "there is no run to pause: start or resume first"));
        }
        if keep_processes && !may_resume {
            return Err(self.misuse(
                "pause",
                "`keep_processes` needs `may_resume`: processes are kept only for a resume",
            ));
        }
        if keep_processes && !self.plug.info.keeps_processes {
            return Err(self.misuse(
                "pause",
                "`keep_processes`: the plug does not say `keeps-processes` in its description, so the runner never pauses it hot",
            ));
        }
        let (instance, paused) = self.current.as_mut().expect("checked above");
        *paused = true;
        let info = PauseInfo {
            reason: reason.into(),
            may_resume,
            keep_processes,
        };
        let result = instance.on_pause(info).await;
        // A failed hot pause leaves nothing to continue: the resume is cold.
        self.kept = keep_processes && result.is_ok();
        result
    }

    async fn teardown(&mut self, reason: &str) -> Result<(), HookError> {
        let (mut instance, right_after_pause) = match self.current.take() {
            Some((instance, true)) => (instance, true),
            _ => (self.instance(RunKind::Teardown).await?, false),
        };
        let info = TeardownInfo {
            reason: reason.into(),
            right_after_pause,
        };
        instance.on_teardown(info).await
    }

    /// A preparation, as the runner's: no session, its own scratch
    /// workspace (removed after), the plug's storage, no state kept.
    async fn prepare(&mut self) -> Result<(), HookError> {
        let scratch = tempfile::tempdir()
            .map_err(|e| self.misuse("on-prepare", &format!("a scratch workspace: {e}")))?;
        let run = Arc::new(RunInfo {
            session_id: "plug-test-prepare".into(),
            run_id: "plug-test-prepare".into(),
            run_kind: RunKind::Start,
            processes_kept: false,
            workspace: scratch.path().to_path_buf(),
            plug_storage: self.storage.path().to_path_buf(),
            state: Arc::new(blaise_runner::host::state_store::MemoryStateStore::default()),
        });
        let setup = match &self.setup {
            Ok(setup) => setup.clone(),
            Err(e) => return Err(self.misuse("configure", &format!("the plug's config: {e}"))),
        };
        let mut instance = PlugInstance::new(&self.host, setup, run).await?;
        if !instance.prepares().await? {
            return Err(self.misuse(
                "on-prepare",
                "the plug does not prepare (its `prepares` says false: it defines no `on_prepare`), so the runner never calls it",
            ));
        }
        instance.on_prepare().await
    }

    async fn filter(&mut self, entries: &[Entry]) -> Result<Vec<TranscriptEntry>, HookError> {
        let entries = entries
            .iter()
            .map(transcript_entry)
            .collect::<Result<Vec<_>, String>>()
            .map_err(|e| self.misuse("transcript filter", &e))?;
        if self.current.is_none() {
            // The filter runs in a run: a start run when there is none yet.
            let instance = self.instance(RunKind::Start).await?;
            self.current = Some((instance, false));
        }
        let (instance, _) = self.current.as_mut().expect("set above");
        instance.filter(entries).await
    }

    async fn instance(&mut self, kind: RunKind) -> Result<PlugInstance, HookError> {
        self.runs += 1;
        // Only the run right after a hot pause continues kept processes.
        let kept = std::mem::take(&mut self.kept);
        let run = Arc::new(RunInfo {
            session_id: SESSION.into(),
            run_id: format!("plug-test-run-{}", self.runs),
            run_kind: kind,
            processes_kept: kind == RunKind::Resume && kept,
            workspace: self.workspace.path().to_path_buf(),
            plug_storage: self.storage.path().to_path_buf(),
            state: self.state.clone(),
        });
        let setup = match &self.setup {
            Ok(setup) => setup.clone(),
            Err(e) => return Err(self.misuse("configure", &format!("the plug's config: {e}"))),
        };
        PlugInstance::new(&self.host, setup, run).await
    }

    fn misuse(&self, hook: &'static str, why: &str) -> HookError {
        HookError {
            plug_id: PLUG_ID.into(),
            hook,
            failure: blaise_runner::host::Failure::Host(format!("plug test: {why}")),
        }
    }
}

fn contribution(c: &Contribution) -> Value {
    json!({
        "env": c.env,
        "working_dir": c.working_dir,
        "command_prefix": c.command_prefix,
    })
}

const KINDS: [EntryKind; 7] = [
    EntryKind::UserMessage,
    EntryKind::AgentMessage,
    EntryKind::AgentThought,
    EntryKind::ToolCall,
    EntryKind::ToolOutput,
    EntryKind::PermissionRequest,
    EntryKind::Notice,
];

/// An entry kind as the contract spells it (`agent-message`): the
/// transcript's name with `-` for `_`.
fn kind_wit_name(kind: EntryKind) -> String {
    blaise_runner::run::wire_kind(kind)
        .as_str()
        .replace('_', "-")
}

fn transcript_entry(entry: &Entry) -> Result<TranscriptEntry, String> {
    Ok(match entry {
        Entry::Text(text) => TranscriptEntry {
            stream_id: "s1".into(),
            kind: EntryKind::AgentMessage,
            text: text.clone(),
            last: true,
            replay: false,
        },
        Entry::Full {
            text,
            kind,
            stream,
            last,
            replay,
        } => TranscriptEntry {
            stream_id: stream.clone(),
            kind: KINDS
                .into_iter()
                .find(|k| kind_wit_name(*k) == *kind)
                .ok_or_else(|| {
                    let names: Vec<String> = KINDS.into_iter().map(kind_wit_name).collect();
                    format!(
                        "unknown entry kind `{kind}`: the kinds are {}",
                        names.join(", ")
                    )
                })?,
            text: text.clone(),
            last: *last,
            replay: *replay,
        },
    })
}

fn entry_json(entry: &TranscriptEntry) -> Value {
    let kind = kind_wit_name(entry.kind);
    json!({
        "text": entry.text,
        "kind": kind,
        "stream": entry.stream_id,
        "last": entry.last,
        "replay": entry.replay,
    })
}

fn value_json(bytes: &[u8]) -> Value {
    match std::str::from_utf8(bytes) {
        Ok(text) => Value::String(text.into()),
        Err(_) => {
            use base64::Engine as _;
            json!({ "base64": base64::engine::general_purpose::STANDARD.encode(bytes) })
        }
    }
}

fn state_json(state: &PlugState) -> Value {
    Value::Object(
        state
            .iter()
            .map(|(k, v)| (k.clone(), value_json(v)))
            .collect(),
    )
}

fn changes(before: &PlugState, after: &PlugState) -> Value {
    let set: serde_json::Map<String, Value> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .map(|(k, v)| (k.clone(), value_json(v)))
        .collect();
    let deleted: Vec<&String> = before.keys().filter(|k| !after.contains_key(*k)).collect();
    json!({ "set": set, "deleted": deleted })
}
