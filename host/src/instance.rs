//! One plug instantiated for one run, and the hook calls on it: each under a
//! deadline that traps, a memory cap, a log budget, and with its state writes
//! committed only when the hook succeeds.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::Store;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use crate::bindings::blaise::plug::log::Level;
use crate::bindings::{
    Context, Contribution, Hook, PauseInfo, PlugInfo, RunKind, TeardownInfo, TranscriptEntry,
};
use crate::contract::exports::{Answer, Call, Exports, Pre};
use crate::ctx::{PlugCtx, PlugLabel, StateView};
use crate::engine::PlugEngine;
use crate::failure::{Failure, HookError};
use crate::log::{LogSink, OutputToLog};
use crate::state_store::StateStore;
use crate::units::format_size;
use crate::{Grants, Limits, LoadedPlug, PlugHost};

/// How long past its deadline a hook call is abandoned when it is inside a
/// host call (a WASI file open, a program), which the epoch cannot
/// interrupt: just long enough for an epoch trap in wasm code to win.
const HOST_CALL_GRACE: Duration = Duration::from_millis(100);

/// Largest transcript entry a filter may return (text bytes): the runner
/// splits the agent's chunks far below it, so only a filter can exceed it.
pub const MAX_FILTERED_ENTRY: usize = 256 << 10;

/// A plug as configured in `blaise.yml`: which component, its validated
/// config, its effective grants and its limits.
pub struct PlugSetup {
    pub id: String,
    pub plug: Option<Arc<LoadedPlug>>,
    /// The `with:` config as JSON.
    pub config: String,
    pub grants: Arc<Grants>,
    pub limits: Limits,
}

impl PlugSetup {
    pub fn new(
        id: impl Into<String>,
        plug: Arc<LoadedPlug>,
        config: String,
        grants: Grants,
        limits: Limits,
    ) -> PlugSetup {
        PlugSetup {
            id: id.into(),
            plug: Some(plug),
            config,
            grants: Arc::new(grants),
            limits,
        }
    }

    pub(crate) fn for_describe(limits: Limits) -> PlugSetup {
        PlugSetup {
            id: "(describe)".into(),
            plug: None,
            config: "{}".into(),
            grants: Arc::new(Grants::default()),
            limits,
        }
    }

    fn loaded(&self) -> &LoadedPlug {
        self.plug
            .as_ref()
            .expect("run instances have a loaded plug")
    }
}

/// The run a plug instance serves.
#[derive(Clone)]
pub struct RunInfo {
    pub session_id: String,
    pub run_id: String,
    pub run_kind: RunKind,
    /// On a resume: whether the agent's processes were kept across the pause
    /// (hot resume), told to plugs as `context.processes-kept`.
    pub processes_kept: bool,
    /// The session's workspace, preopened for every plug.
    pub workspace: PathBuf,
    /// Where plugs granted `storage` get a directory each (`<root>/<plug id>`),
    /// kept across sessions and runs.
    pub plug_storage: PathBuf,
    pub state: Arc<dyn StateStore>,
}

impl RunInfo {
    /// The storage directory of plug `id`.
    pub fn storage_of(&self, id: &str) -> PathBuf {
        self.plug_storage.join(id)
    }
}

/// One hook call as the runner's metrics see it.
#[derive(Debug, Clone, Copy)]
pub struct HookCall<'a> {
    pub plug: &'a str,
    pub hook: &'static str,
    pub took: Duration,
    pub ok: bool,
    /// Bytes of text a transcript filter was given (0 for the other hooks).
    pub bytes: usize,
}

/// What is told of every hook call in this process (the runner's metrics; one run per process).
pub type HookObserver = fn(&HookCall);

static HOOK_OBSERVER: std::sync::OnceLock<HookObserver> = std::sync::OnceLock::new();

/// Has `observer` told of every hook call from now on (the first observer set stays).
pub fn observe_hooks(observer: HookObserver) {
    let _ = HOOK_OBSERVER.set(observer);
}

/// A plug instantiated for a run.
pub struct PlugInstance {
    setup: Arc<PlugSetup>,
    run: Option<Arc<RunInfo>>,
    pre: Pre,
    http: reqwest::Client,
    live: Option<(Store<PlugCtx>, Exports)>,
    /// The committed state, kept here so a fresh instance after a trap starts from it.
    committed: crate::state_store::PlugState,
    log: Arc<LogSink>,
    dropped_logs: usize,
    /// What a transcript filter writes is counted, not logged, and its last
    /// words are left out of its errors (see `HostOptions::log_filter_calls`).
    seal_filter_calls: bool,
    /// What every hook is handed: the same for the instance's life, built
    /// at its first call (a filter is called for every transcript entry).
    ctx: Option<Context>,
}

impl PlugInstance {
    /// Instantiates a plug for a run, with its persisted state.
    pub async fn new(
        host: &PlugHost,
        setup: Arc<PlugSetup>,
        run: Arc<RunInfo>,
    ) -> Result<PlugInstance, HookError> {
        let committed = run
            .state
            .load(&run.session_id, &setup.id)
            .await
            .map_err(|e| HookError {
                plug_id: setup.id.clone(),
                hook: "instantiate",
                failure: Failure::Host(format!("loading its state: {e:#}")),
            })?;
        let pre = setup.loaded().pre.clone();
        Self::instantiate(host, pre, setup, Some(run), committed).await
    }

    pub(crate) async fn describe_instance(
        host: &PlugHost,
        plug_pre: &Pre,
        setup: Arc<PlugSetup>,
    ) -> Result<PlugInstance, HookError> {
        Self::instantiate(host, plug_pre.clone(), setup, None, Default::default()).await
    }

    async fn instantiate(
        host: &PlugHost,
        pre: Pre,
        setup: Arc<PlugSetup>,
        run: Option<Arc<RunInfo>>,
        committed: crate::state_store::PlugState,
    ) -> Result<PlugInstance, HookError> {
        let label = PlugLabel {
            plug_id: setup.id.as_str().into(),
            session_id: run
                .as_ref()
                .map_or("-".into(), |r| r.session_id.as_str().into()),
        };
        let log = Arc::new(LogSink::new(
            label,
            setup.limits.log_lines,
            setup.limits.log_line_bytes,
        ));
        let mut instance = PlugInstance {
            pre,
            setup,
            run,
            http: host.http.clone(),
            live: None,
            committed,
            log,
            dropped_logs: 0,
            seal_filter_calls: !host.log_filter_calls,
            ctx: None,
        };
        instance
            .ensure_live()
            .await
            .map_err(|f| instance.error("instantiate", f))?;
        Ok(instance)
    }

    /// The plug's id in `blaise.yml`.
    pub fn id(&self) -> &str {
        &self.setup.id
    }

    /// What the plug said it is when it was loaded.
    pub fn info(&self) -> &PlugInfo {
        &self.setup.loaded().info
    }

    fn implements(&self, hook: Hook) -> bool {
        self.info().hooks.contains(&hook)
    }

    /// Log lines dropped in the last hook call for exceeding the plug's budget.
    pub fn last_call_dropped_logs(&self) -> usize {
        self.dropped_logs
    }

    /// The plug's committed state (what the store holds after successful hooks).
    pub fn committed_state(&self) -> &crate::state_store::PlugState {
        &self.committed
    }

    pub async fn describe(&mut self) -> Result<PlugInfo, HookError> {
        match self.call("describe", Call::Describe).await? {
            Answer::Info(info) => Ok(info),
            _ => unreachable!("describe answers with plug info"),
        }
    }

    pub async fn on_start(&mut self) -> Result<Contribution, HookError> {
        self.contribution(Hook::OnStart, "on-start", Call::Start)
            .await
    }

    pub async fn on_resume(&mut self) -> Result<Contribution, HookError> {
        self.contribution(Hook::OnResume, "on-resume", Call::Resume)
            .await
    }

    pub async fn on_pause(&mut self, info: PauseInfo) -> Result<(), HookError> {
        if self.implements(Hook::OnPause) {
            self.call("on-pause", Call::Pause(info)).await?;
        }
        Ok(())
    }

    pub async fn on_teardown(&mut self, info: TeardownInfo) -> Result<(), HookError> {
        if self.implements(Hook::OnTeardown) {
            self.call("on-teardown", Call::Teardown(info)).await?;
        }
        Ok(())
    }

    /// Whether the plug prepares ahead (`prepare.prepares`; false for a plug
    /// built without `prepare`).
    pub async fn prepares(&mut self) -> Result<bool, HookError> {
        match self.call("prepares", Call::Prepares).await? {
            Answer::Prepares(prepares) => Ok(prepares),
            _ => unreachable!("prepares answers with a bool"),
        }
    }

    /// `on-prepare`, in an instance made for a preparation (its run id is
    /// the prepare id, its workspace the preparation's scratch directory).
    pub async fn on_prepare(&mut self) -> Result<(), HookError> {
        self.call("on-prepare", Call::Prepare).await.map(drop)
    }

    /// Passes transcript entries through the plug's filter (unchanged if the
    /// plug does not filter). The plug must answer with as many entries.
    pub async fn filter(
        &mut self,
        entries: Vec<TranscriptEntry>,
    ) -> Result<Vec<TranscriptEntry>, HookError> {
        if !self.info().filters_transcript || entries.is_empty() {
            return Ok(entries);
        }
        let sent = entries.len();
        // A filter rewrites text, nothing else: what an entry is (its kind,
        // stream, end and replay marks) is the agent's word, so a filter
        // cannot drop an entry as a "replay" or pass its text off as the
        // user's.
        let marks: Vec<_> = entries
            .iter()
            .map(|e| (e.stream_id.clone(), e.kind, e.last, e.replay))
            .collect();
        match self
            .call("transcript filter", Call::Filter(entries))
            .await?
        {
            Answer::Entries(mut entries) if entries.len() == sent => {
                for (entry, (stream_id, kind, last, replay)) in entries.iter_mut().zip(marks) {
                    entry.stream_id = stream_id;
                    entry.kind = kind;
                    entry.last = last;
                    entry.replay = replay;
                }
                Ok(entries)
            }
            Answer::Entries(entries) => Err(self.error(
                "transcript filter",
                Failure::Host(format!(
                    "returned {} entries for {sent}: a filter must answer each entry",
                    entries.len()
                )),
            )),
            _ => unreachable!("filter answers with entries"),
        }
    }

    async fn contribution(
        &mut self,
        hook: Hook,
        name: &'static str,
        call: Call,
    ) -> Result<Contribution, HookError> {
        if !self.implements(hook) {
            return Ok(Contribution {
                env: Vec::new(),
                working_dir: None,
                command_prefix: Vec::new(),
            });
        }
        match self.call(name, call).await? {
            Answer::Contribution(c) => Ok(c),
            _ => unreachable!("start and resume answer with a contribution"),
        }
    }

    /// What the plug answered, as the host may use it: a contribution within
    /// the plug's grants (its prefix's program made absolute), entries within
    /// size. Checked before the hook's state writes are committed.
    fn vet(answer: Answer, setup: &PlugSetup, run: Option<&RunInfo>) -> Result<Answer, Failure> {
        match answer {
            Answer::Contribution(c) => {
                // Where it may point: the workspace, and the plug's storage.
                let mut roots: Vec<PathBuf> = run.iter().map(|r| r.workspace.clone()).collect();
                if setup.grants.storage
                    && let Some(run) = run
                {
                    roots.push(run.storage_of(&setup.id));
                }
                crate::contribution::check(c, &setup.grants, &roots)
                    .map(Answer::Contribution)
                    .map_err(Failure::Refused)
            }
            Answer::Entries(entries) => match entries
                .iter()
                .find(|e| e.text.len() > MAX_FILTERED_ENTRY || e.stream_id.len() > 256)
            {
                Some(e) => Err(Failure::Refused(format!(
                    "returned an entry of {} bytes (stream id of {}); an entry may hold {} and a stream id 256",
                    e.text.len(),
                    e.stream_id.len(),
                    format_size(MAX_FILTERED_ENTRY as u64)
                ))),
                None => Ok(Answer::Entries(entries)),
            },
            other => Ok(other),
        }
    }

    fn error(&self, hook: &'static str, failure: Failure) -> HookError {
        HookError {
            plug_id: self.setup.id.clone(),
            hook,
            failure,
        }
    }

    /// Makes sure there is a usable instance (a trap poisons the old one).
    async fn ensure_live(&mut self) -> Result<(), Failure> {
        if self.live.is_some() {
            return Ok(());
        }
        let store = self
            .new_store()
            .map_err(|e| Failure::Host(format!("{e:#}")))?;
        let mut store = store;
        let bindings = self
            .pre
            .instantiate(&mut store)
            .await
            .map_err(|e| Failure::Host(format!("instantiating: {e:#}")))?;
        self.live = Some((store, bindings));
        Ok(())
    }

    fn new_store(&self) -> anyhow::Result<Store<PlugCtx>> {
        let mut wasi = WasiCtxBuilder::new();
        wasi.stdout(OutputToLog {
            sink: self.log.clone(),
            level: Level::Info,
            source: "stdout",
        })
        .stderr(OutputToLog {
            sink: self.log.clone(),
            level: Level::Warn,
            source: "stderr",
        });
        let mut workspace = String::new();
        if let Some(run) = &self.run {
            workspace = run.workspace.to_string_lossy().into_owned();
            wasi.preopened_dir(&run.workspace, &workspace, FsPerms::ReadWrite)?;
            if let Some(storage) = self.storage() {
                create_private_dir(&storage)?;
                let guest = storage.to_string_lossy().into_owned();
                wasi.preopened_dir(&storage, &guest, FsPerms::ReadWrite)?;
            }
        }
        let limits = self.setup.limits;
        let ctx = PlugCtx {
            wasi: wasi.build(),
            table: ResourceTable::new(),
            memory: crate::limits::MemoryLimiter::new(limits.memory),
            label: self.log.label().clone(),
            grants: self.setup.grants.clone(),
            limits,
            state: StateView {
                committed: self.committed.clone(),
                pending: Default::default(),
            },
            log: self.log.clone(),
            http: self.http.clone(),
            workspace,
            storage: self.storage(),
            deadline: Instant::now(),
        };
        let mut store = Store::new(self.pre.engine(), ctx);
        store.limiter(|ctx| &mut ctx.memory);
        store.epoch_deadline_trap();
        // Instantiation runs the plug's start-up code: it gets a deadline too.
        store.set_epoch_deadline(PlugEngine::ticks(limits.hook_deadline));
        Ok(store)
    }

    /// The plug's storage directory, when granted.
    fn storage(&self) -> Option<PathBuf> {
        let run = self.run.as_ref()?;
        self.setup
            .grants
            .storage
            .then(|| run.storage_of(&self.setup.id))
    }

    fn context(&self) -> Context {
        let run = self.run.as_ref();
        Context {
            session_id: run.map_or(String::new(), |r| r.session_id.clone()),
            run_id: run.map_or(String::new(), |r| r.run_id.clone()),
            run_kind: run.map_or(RunKind::Start, |r| r.run_kind),
            plug_id: self.setup.id.clone(),
            config: self.setup.config.clone(),
            workspace: run.map_or(String::new(), |r| {
                r.workspace.to_string_lossy().into_owned()
            }),
            storage: self.storage().map(|dir| dir.to_string_lossy().into_owned()),
            processes_kept: run.is_some_and(|r| r.processes_kept),
        }
    }

    async fn call(&mut self, hook: &'static str, call: Call) -> Result<Answer, HookError> {
        // Instantiating and saving state are rare and their futures large:
        // boxed, so that every call's future (moved at each await) stays small.
        if self.live.is_none() {
            Box::pin(self.ensure_live())
                .await
                .map_err(|f| self.error(hook, f))?;
        }
        let deadline = self.setup.limits.hook_deadline;
        if self.ctx.is_none() {
            self.ctx = Some(self.context());
        }
        let ctx = self.ctx.as_ref().expect("built above");
        let (store, plug) = self.live.as_mut().expect("instance is live");
        let started = Instant::now();
        store.data_mut().deadline = started + deadline;
        store.data_mut().state.pending.clear();
        store.set_epoch_deadline(PlugEngine::ticks(deadline));
        // A filter is handed the agent's unfiltered text: what it writes is not logged.
        let sealed = self.seal_filter_calls && matches!(call, Call::Filter(_));
        self.log.begin_call(sealed);

        let bytes = match &call {
            Call::Filter(entries) => entries.iter().map(|e| e.text.len()).sum(),
            _ => 0,
        };
        let outcome =
            tokio::time::timeout(deadline + HOST_CALL_GRACE, plug.invoke(store, ctx, call)).await;
        let took = started.elapsed();
        self.dropped_logs = self.log.end_call();
        // Anything a killed guard let go of does not outlive the hook.
        crate::guard::sweep_after_hook();
        let result = match outcome {
            Ok(Ok(Ok(answer))) => Self::vet(answer, &self.setup, self.run.as_deref()),
            Ok(Ok(Err(plug_error))) => Err(Failure::Plug {
                message: self.log.scrub(&plug_error.message).into_owned(),
                field: plug_error.field,
            }),
            Ok(Err(err)) => {
                let memory_hit = {
                    let memory = &mut store.data_mut().memory;
                    let cap = memory.cap();
                    memory.take_hit().map(|asked| (cap, asked))
                };
                Err(Failure::from_wasmtime(
                    &err,
                    deadline,
                    memory_hit,
                    self.log.last_stderr(),
                ))
            }
            Err(_elapsed) => Err(Failure::Deadline(deadline)),
        };
        if let Some(observe) = HOOK_OBSERVER.get() {
            observe(&HookCall {
                plug: &self.setup.id,
                hook,
                took,
                ok: result.is_ok(),
                bytes,
            });
        }
        match result {
            Ok(answer) => {
                let pending = std::mem::take(&mut store.data_mut().state.pending);
                if let Some(run) = &self.run
                    && !pending.is_empty()
                {
                    if let Err(e) =
                        Box::pin(run.state.commit(&run.session_id, &self.setup.id, &pending)).await
                    {
                        return Err(
                            self.error(hook, Failure::Host(format!("saving its state: {e:#}")))
                        );
                    }
                    crate::state_store::apply(&mut self.committed, &pending);
                    crate::state_store::apply(&mut store.data_mut().state.committed, &pending);
                }
                Ok(answer)
            }
            Err(failure) => {
                if failure.poisons() {
                    self.live = None;
                } else {
                    store.data_mut().state.pending.clear();
                }
                let mut error = self.error(hook, failure);
                if sealed {
                    error = error.without_last_words();
                }
                tracing::warn!(plug = %self.setup.id, "{error}");
                Err(error)
            }
        }
    }
}

/// Creates a directory only the runner's user can enter (a plug's storage may
/// hold a sandbox's home).
fn create_private_dir(dir: &std::path::Path) -> anyhow::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| anyhow::anyhow!("creating the plug's storage {}: {e}", dir.display()))
}
