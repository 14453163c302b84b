//! The `process` import: run a granted program on the host.
//!
//! The program is the granted one, found on the runner's own `PATH`; it gets
//! only that `PATH` and the environment the plug passes (minus what would
//! make it load other code, see `env_policy`), runs in the workspace or the
//! plug's storage, under a guard that kills everything it started when it
//! exits (see [`crate::guard`]). Its output is capped, and it is killed with
//! all it started at its timeout or at the hook's deadline, whichever comes first.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command as TokioCommand;

use crate::bindings::blaise::plug::process::{Command, Host, Output, ProcessError};
use crate::ctx::{PlugCtx, PlugLabel};
use crate::env_policy;
use crate::grants::{ExecGrant, ExecRefusal};
use crate::guard::{self, OnTerm};

/// Most bytes of stdout (and of stderr) kept from one program run.
const MAX_OUTPUT: usize = 16 << 20;

/// How long a guard told to stop may take before it is killed itself.
const GUARD_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// Time spent waiting for plugs' programs in this process (a run is one
/// process): what the run's wall time owes to git, docker, bwrap… rather than
/// to the host.
static IN_PROGRAMS_US: AtomicU64 = AtomicU64::new(0);

/// The total time plugs' programs have run in this process so far.
pub fn time_in_programs() -> Duration {
    Duration::from_micros(IN_PROGRAMS_US.load(Ordering::Relaxed))
}

/// What the `process` import sees of the store: the plug's exec grant,
/// where its programs may work, and the hook's deadline.
pub struct ProcessCap<'a> {
    pub exec: &'a ExecGrant,
    /// The session workspace.
    pub workspace: &'a str,
    /// The plug's storage directory, when granted.
    pub storage: Option<&'a Path>,
    pub deadline: Instant,
    pub label: &'a PlugLabel,
}

/// Links `process` with [`ProcessCap`].
pub struct Process;

impl wasmtime::component::HasData for Process {
    type Data<'a> = ProcessCap<'a>;
}

pub fn view(ctx: &mut PlugCtx) -> ProcessCap<'_> {
    ProcessCap {
        exec: &ctx.grants.exec,
        workspace: &ctx.workspace,
        storage: ctx.storage.as_deref(),
        deadline: ctx.deadline,
        label: &ctx.label,
    }
}

impl Host for ProcessCap<'_> {
    async fn run(&mut self, cmd: Command) -> Result<Output, ProcessError> {
        let program = cmd.argv.first().cloned().unwrap_or_default();
        let path = match self.exec.program(&program) {
            Ok(path) => path.to_path_buf(),
            Err(ExecRefusal::NotGranted) => {
                tracing::warn!(
                    plug = %self.label.plug_id, session = %self.label.session_id,
                    program, "denied: exec of a program not granted"
                );
                return Err(ProcessError::Denied(format!(
                    "`{program}` is not granted to this plug (granted: {})",
                    list_or_none(&self.exec.names)
                )));
            }
            Err(ExecRefusal::NotFound) => {
                return Err(ProcessError::SpawnFailed(format!(
                    "`{program}` is granted but is not an executable on the runner's PATH"
                )));
            }
        };
        if let Some(word) = cmd.argv.iter().find(|w| w.contains('\0')) {
            return Err(ProcessError::SpawnFailed(format!(
                "argument {word:?} contains a NUL byte"
            )));
        }
        if let Err(why) = env_policy::check_all(&cmd.env) {
            tracing::warn!(plug = %self.label.plug_id, session = %self.label.session_id, "denied: {why}");
            return Err(ProcessError::Denied(why));
        }
        let cwd = cmd.cwd.as_deref().unwrap_or(self.workspace);
        let (cwd, _) = guard::open_dir_inside(Path::new(cwd), &self.roots()).map_err(|why| {
            tracing::warn!(plug = %self.label.plug_id, session = %self.label.session_id, "denied: cwd {why}");
            // The same words whatever the reason: a plug learns neither where
            // a link led nor whether a host path exists (the log has both).
            ProcessError::Denied(format!(
                "cwd {} is outside the workspace or not a directory: a program runs in the workspace or the plug's storage",
                Path::new(cwd).display()
            ))
        })?;
        let mut child = TokioCommand::new(&path);
        child
            .arg0(&program)
            .args(&cmd.argv[1..])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(cmd.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        guard::install(&mut child, OnTerm::KillAll, Some(cwd));
        tracing::debug!(plug = %self.label.plug_id, session = %self.label.session_id, argv = ?cmd.argv, "exec");
        let _count = CountTime(Instant::now());
        let mut child = child
            .spawn()
            .map_err(|e| ProcessError::SpawnFailed(format!("`{program}`: {e}")))?;
        let guard_pid = child.id().unwrap_or_default();
        let _registered = guard::register(guard_pid);
        // A hook stopped at its deadline drops this call: the guard is told
        // to kill everything (not killed itself, which would orphan it all).
        let mut stop = StopOnDrop(Some(guard_pid));

        let mut stdin = child.stdin.take();
        let input = cmd.stdin;
        let feed = async move {
            if let Some(stdin) = stdin.as_mut() {
                // A program that does not read its input is not an error.
                let _ = stdin.write_all(&input).await;
            }
            drop(stdin);
        };
        let out = read_capped(child.stdout.take());
        let err = read_capped(child.stderr.take());
        let limit = cmd
            .timeout_ms
            .map(std::time::Duration::from_millis)
            .map_or(self.deadline, |t| (Instant::now() + t).min(self.deadline));
        // The guard closes the pipes when the program exits (it kills what
        // the program left running), so reading to the end is waiting for it.
        let waited = tokio::time::timeout_at(limit.into(), async {
            let (_, stdout, stderr, status) = tokio::join!(feed, out, err, child.wait());
            (stdout, stderr, status)
        })
        .await;
        match waited {
            Ok((stdout, stderr, status)) => {
                // Waited for: the pid may be reused from now on.
                stop.0 = None;
                let status = status.map_err(|e| ProcessError::SpawnFailed(e.to_string()))?;
                Ok(Output {
                    status: status.code(),
                    stdout,
                    stderr,
                    timed_out: false,
                })
            }
            Err(_) => {
                // The guard kills the program and all it started; if the
                // guard itself does not go, it is killed.
                guard::stop(guard_pid);
                if tokio::time::timeout(GUARD_GRACE, child.wait())
                    .await
                    .is_err()
                {
                    let _ = child.kill().await;
                }
                stop.0 = None;
                Ok(Output {
                    status: None,
                    stdout: Vec::new(),
                    stderr: format!("`{program}` killed: timed out").into_bytes(),
                    timed_out: true,
                })
            }
        }
    }
}

impl ProcessCap<'_> {
    /// Where the plug's programs may work: the workspace, and its storage.
    fn roots(&self) -> Vec<PathBuf> {
        let mut roots = vec![PathBuf::from(self.workspace)];
        roots.extend(self.storage.map(Path::to_path_buf));
        roots
    }
}

async fn read_capped(stream: Option<impl AsyncRead + Unpin>) -> Vec<u8> {
    let mut buf = Vec::new();
    if let Some(stream) = stream {
        let mut limited = stream.take(MAX_OUTPUT as u64);
        let _ = limited.read_to_end(&mut buf).await;
        // Drain the rest so the program is not blocked on a full pipe.
        let mut rest = limited.into_inner();
        let _ = tokio::io::copy(&mut rest, &mut tokio::io::sink()).await;
    }
    buf
}

pub(crate) fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// Tells a guard to stop everything when dropped before it was waited for
/// (after that its pid may belong to another process).
struct StopOnDrop(Option<u32>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            guard::stop(pid);
        }
    }
}

/// Adds the time since its start to [`time_in_programs`] when dropped (on every
/// way out of a program run).
struct CountTime(Instant);

impl Drop for CountTime {
    fn drop(&mut self) {
        let us = self.0.elapsed().as_micros() as u64;
        IN_PROGRAMS_US.fetch_add(us, Ordering::Relaxed);
    }
}
