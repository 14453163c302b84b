//! Support for the end-to-end tests: the workspace's plugs, built once per
//! test process into their own target directory.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use blaise_runner::host::{HostOptions, PlugHost};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Builds a plug crate of the workspace (e.g. `plugs/redaction`,
/// `tests/plugs/probe`) to a component, once per process.
pub fn plug(crate_dir: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<(String, PathBuf)>>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built.lock().unwrap();
    if let Some((_, path)) = built.iter().find(|(d, _)| d == crate_dir) {
        return path.clone();
    }
    let target = root().join("target").join("plugs");
    let path = blaise_runner::build::build_plug(&root().join(crate_dir), Some(&target))
        .unwrap_or_else(|e| panic!("building {crate_dir}: {e:#}"));
    built.push((crate_dir.to_string(), path.clone()));
    path
}

/// A plug host with its own compile cache in `dir`.
pub fn host_in(dir: &Path) -> Arc<PlugHost> {
    Arc::new(
        PlugHost::new(&HostOptions {
            cache_dir: dir.to_path_buf(),
            ..HostOptions::default()
        })
        .expect("creating the plug host"),
    )
}

/// The runner binary built by this cargo invocation.
pub fn runner_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    dir.join("blaise-runner")
}

use blaise_runner::host::bindings::RunKind;
use blaise_runner::host::{Allow, Limits, LoadedPlug, PlugSetup, RunInfo, grants};
use blaise_runner::state_store::StateStore;

/// A plug setup as `blaise.yml` would make it: config, operator grants, limits.
pub fn setup(
    id: &str,
    plug: &Arc<LoadedPlug>,
    config: serde_json::Value,
    allow: Allow,
    limits: Limits,
) -> Arc<PlugSetup> {
    let report = grants::effective(&plug.info.needs, &allow);
    Arc::new(PlugSetup::new(
        id,
        plug.clone(),
        config.to_string(),
        report.effective,
        limits,
    ))
}

/// A run of `session` in `workspace`.
pub fn run(
    session: &str,
    kind: RunKind,
    workspace: &Path,
    state: Arc<dyn StateStore>,
) -> Arc<RunInfo> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Arc::new(RunInfo {
        session_id: session.into(),
        run_id: format!("run-{n}"),
        run_kind: kind,
        processes_kept: false,
        workspace: workspace.to_path_buf(),
        plug_storage: workspace.with_file_name("plug-storage"),
        state,
    })
}

/// A place for plug tests: a host with its own compile cache, a session
/// workspace and an in-memory state store, all in a temporary directory.
pub struct World {
    pub tmp: tempfile::TempDir,
    pub host: Arc<PlugHost>,
    pub workspace: PathBuf,
    pub state: Arc<blaise_runner::state_store::MemoryStateStore>,
}

impl World {
    pub fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let host = host_in(&tmp.path().join("cache"));
        let workspace = tmp.path().join("ws");
        std::fs::create_dir(&workspace).unwrap();
        World {
            tmp,
            host,
            workspace,
            state: Arc::default(),
        }
    }

    /// The probe test plug, loaded.
    pub async fn probe(&self) -> Arc<LoadedPlug> {
        self.host.load(&plug("tests/plugs/probe")).await.unwrap()
    }

    /// A run of `session` in this world's workspace and state store.
    pub fn run(&self, session: &str, kind: RunKind) -> Arc<RunInfo> {
        run(session, kind, &self.workspace, self.state.clone())
    }

    /// A resume run of `session` that continues (`kept`) or not the agent's
    /// processes kept at a hot pause.
    pub fn resume_run(&self, session: &str, kept: bool) -> Arc<RunInfo> {
        Arc::new(RunInfo {
            processes_kept: kept,
            ..(*self.run(session, RunKind::Resume)).clone()
        })
    }

    /// A plug instantiated for a run of `session`.
    pub async fn instance(
        &self,
        setup: Arc<PlugSetup>,
        session: &str,
        kind: RunKind,
    ) -> blaise_runner::host::PlugInstance {
        blaise_runner::host::PlugInstance::new(&self.host, setup, self.run(session, kind))
            .await
            .unwrap()
    }
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}

/// The wall clock, in milliseconds since the epoch (as Blaise's times are).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Pids of the processes whose command line contains `token` (a run id,
/// a unique argument): what a test checks is not left running.
pub fn processes_with(token: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_digit())
        })
        .filter(|e| {
            std::fs::read(e.path().join("cmdline")).is_ok_and(|c| {
                String::from_utf8_lossy(&c)
                    .replace('\0', " ")
                    .contains(token)
            })
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

pub mod agents;
pub mod blaise;
pub mod destinations;
pub mod fake_registry;
pub mod git_http;
pub mod linear_api;
pub mod model_api;
pub mod procs;
pub mod proxy;
pub mod registry;
pub mod serve;
pub mod tools;

/// Collects what `tracing` writes on this thread while its guard lives.
#[derive(Clone, Default)]
pub struct LogCapture(Arc<Mutex<Vec<u8>>>);

impl LogCapture {
    /// Captures INFO and above (as plain text) until the guard is dropped.
    pub fn start() -> (LogCapture, tracing::subscriber::DefaultGuard) {
        let captured = LogCapture::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .finish();
        (captured, tracing::subscriber::set_default(subscriber))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for LogCapture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
