//! The `process` import: run a granted program on the host.
//!
//! The program gets only `PATH` and the environment the plug passes, its
//! output is capped, and it is killed at its timeout or at the hook's
//! deadline, whichever comes first.

use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command as TokioCommand;

use super::bindings::blaise::plug::process::{Command, Host, Output, ProcessError};
use super::ctx::PlugCtx;

/// Most bytes of stdout (and of stderr) kept from one program run.
const MAX_OUTPUT: usize = 16 << 20;

/// Time spent waiting for plugs' programs in this process (a run is one
/// process): what the run's wall time owes to git, docker, bwrap… rather than
/// to the host.
static IN_PROGRAMS_US: AtomicU64 = AtomicU64::new(0);

/// The total time plugs' programs have run in this process so far.
pub fn time_in_programs() -> Duration {
    Duration::from_micros(IN_PROGRAMS_US.load(Ordering::Relaxed))
}

impl Host for PlugCtx {
    async fn run(&mut self, cmd: Command) -> Result<Output, ProcessError> {
        let program = cmd.argv.first().cloned().unwrap_or_default();
        if !self.grants.exec.allows(&program) {
            tracing::warn!(
                plug = %self.label.plug_id, session = %self.label.session_id,
                program, "denied: exec of a program not granted"
            );
            return Err(ProcessError::Denied(format!(
                "`{program}` is not granted to this plug (granted: {})",
                list_or_none(&self.grants.exec.0)
            )));
        }
        let mut child = TokioCommand::new(&program);
        child
            .args(&cmd.argv[1..])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(cmd.env.iter().map(|(k, v)| (k, v)))
            .current_dir(cmd.cwd.as_deref().unwrap_or(self.workspace_str()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        tracing::debug!(plug = %self.label.plug_id, session = %self.label.session_id, argv = ?cmd.argv, "exec");
        let _count = CountTime(Instant::now());
        let mut child = child
            .spawn()
            .map_err(|e| ProcessError::SpawnFailed(format!("`{program}`: {e}")))?;

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
        let waited = tokio::time::timeout_at(limit.into(), async {
            let (_, stdout, stderr, status) = tokio::join!(feed, out, err, child.wait());
            (stdout, stderr, status)
        })
        .await;
        match waited {
            Ok((stdout, stderr, status)) => {
                let status = status.map_err(|e| ProcessError::SpawnFailed(e.to_string()))?;
                Ok(Output {
                    status: status.code(),
                    stdout,
                    stderr,
                    timed_out: false,
                })
            }
            Err(_) => {
                let _ = child.kill().await;
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

impl PlugCtx {
    fn workspace_str(&self) -> &str {
        &self.workspace
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

/// Adds the time since its start to [`time_in_programs`] when dropped (on every
/// way out of a program run).
struct CountTime(Instant);

impl Drop for CountTime {
    fn drop(&mut self) {
        let us = self.0.elapsed().as_micros() as u64;
        IN_PROGRAMS_US.fetch_add(us, Ordering::Relaxed);
    }
}
