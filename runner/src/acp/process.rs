//! The agent's process: spawned in its own process group with exactly the
//! environment it was given, watched for its exit, its stderr passed on as
//! events (for the log, after the filters) and its tail kept for error
//! messages.

use std::collections::VecDeque;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};

use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};

use tokio::net::unix::pipe;
use tokio::sync::watch;

use tokio::sync::mpsc;

use super::{AcpError, AgentCommand, AgentEvent};
use crate::keeper::{Handed, KeeperClient};

/// How much of the agent's stderr is kept for error messages.
const STDERR_TAIL_LINES: usize = 20;
/// Longest line of the agent's stderr kept (the rest of it is counted, not
/// kept): an agent that writes without a newline cannot grow the run.
const MAX_STDERR_LINE: usize = 16 << 10;
/// Longest line (one JSON-RPC message) read from the agent's stdout. Far
/// above any real message (a file's content in a tool call); a line that
/// never ends is the agent's failure, not the run's memory.
pub const MAX_MESSAGE_LINE: usize = 64 << 20;
/// How long an error message waits for the rest of a dead agent's stderr.
const STDERR_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// A running (or exited) agent process.
#[derive(Debug)]
pub(crate) struct AgentProcess {
    /// The agent's guard (see [`crate::guard`]): its pid is the process
    /// group of the guard and the agent.
    pid: u32,
    _registered: Option<crate::guard::Registered>,
    exit: watch::Receiver<Option<ExitStatus>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    stderr_closed: watch::Receiver<bool>,
    /// `blaise-egress`'s reports on its own descriptor (see [`Egress`]).
    egress: Option<Egress>,
    /// The keeper the agent was started (or taken up) through, with the
    /// numbers of its stdin, stdout and stderr here (held by the connection
    /// and the stderr reader): what a hot pause hands back.
    keeper: Option<(Arc<KeeperClient>, [RawFd; 3])>,
    /// Handed to the keeper: not killed when dropped.
    handed_over: bool,
}

/// The agent's working directory, opened and checked to lie where it must
/// (`cwd_within`): it is entered by its descriptor.
fn opened_cwd(command: &AgentCommand) -> Result<OwnedFd, AcpError> {
    let anywhere = [std::path::PathBuf::from("/")];
    let roots = match command.cwd_within.as_slice() {
        [] => &anywhere[..],
        roots => roots,
    };
    let (cwd, _) = crate::guard::open_dir_inside(&command.cwd, roots)
        .map_err(|why| AcpError::Start(format!("the agent's working directory: {why}")))?;
    Ok(cwd)
}

/// The agent's stdin and stdout, as the connection has them.
pub(crate) type AgentStdin = pipe::Sender;
pub(crate) type AgentStdout = pipe::Receiver;

impl AgentProcess {
    /// Starts `command` with piped stdio under a guard, in a process group of
    /// its own (so that signals reach what a command prefix such as `bwrap`
    /// started).
    pub async fn spawn(
        command: &AgentCommand,
        events: mpsc::Sender<AgentEvent>,
        keeper: Option<&Arc<KeeperClient>>,
    ) -> Result<(Self, AgentStdin, AgentStdout), AcpError> {
        // Through the keeper when the agent may be kept across a pause (with
        // `blaise-egress`'s report pipe: each run that has the agent reads it).
        if let Some(keeper) = keeper {
            return Self::spawn_kept(command, events, keeper).await;
        }
        let Some((program, args)) = command.argv.split_first() else {
            return Err(AcpError::Start("the agent command is empty".into()));
        };
        let cwd = opened_cwd(command)?;
        let mut process = tokio::process::Command::new(program);
        process
            .args(args)
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if !command.env.iter().any(|(name, _)| name == "PATH")
            && let Some(path) = std::env::var_os("PATH")
        {
            process.env("PATH", path);
        }
        process.envs(command.env.iter().map(|(name, value)| (name, value)));
        // Before the guard: its `pre_exec` forks the program, which must inherit the descriptor.
        let egress = command
            .egress_report
            .then(|| egress_report_pipe(&mut process))
            .transpose()
            .map_err(|why| AcpError::Start(format!("a pipe for blaise-egress's counts: {why}")))?;
        // Under a guard (in the agent's process group): whatever the agent
        // starts is killed when it exits, and if the run process dies (even
        // by SIGKILL), the agent and all it started go with it.
        // The guard enters the opened directory (`fchdir`), not its path.
        crate::guard::install(&mut process, crate::guard::OnTerm::Wait, Some(cwd));
        let mut child = process.spawn().map_err(|why| {
            // The command line holds the plugs' prefixes: quoted short.
            let argv = command.argv.join(" ");
            let shown: String = argv.chars().take(300).collect();
            let more = if shown.len() < argv.len() { "…" } else { "" };
            AcpError::Start(format!(
                "could not start the agent `{shown}{more}` ({} words, {} bytes) in {}: {why}",
                command.argv.len(),
                argv.len(),
                command.cwd.display()
            ))
        })?;
        let pid = child
            .id()
            .ok_or_else(|| AcpError::Start("the agent exited before it could be watched".into()))?;
        let registered = crate::guard::register(pid);
        // The write end now lives in the program alone: the pipe ends when it exits.
        let egress = egress
            .map(|(reader, writer)| {
                drop(writer);
                Egress::read(reader.into(), false)
            })
            .transpose()
            .map_err(|why| AcpError::Start(format!("blaise-egress's counts: {why}")))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(AcpError::Start(
                "the agent's stdio could not be piped".into(),
            ));
        };
        let stdio = [
            stdin.into_owned_fd(),
            stdout.into_owned_fd(),
            stderr.into_owned_fd(),
        ];
        let [Ok(stdin), Ok(stdout), Ok(stderr)] = stdio else {
            return Err(AcpError::Start(
                "the agent's stdio could not be taken over".into(),
            ));
        };

        let (exit_tx, exit) = watch::channel(None);
        tokio::spawn(async move {
            // `kill_on_drop`: if this task is dropped with the runtime, the child goes too.
            let status = child.wait().await;
            match status {
                Ok(status) => {
                    tracing::debug!(pid, %status, "the agent exited");
                    exit_tx.send_replace(Some(status));
                }
                Err(error) => tracing::warn!(pid, %error, "could not wait for the agent"),
            }
        });
        Self::watch(
            pid,
            Some(registered),
            [stdin, stdout, stderr],
            exit,
            egress,
            None,
            events,
        )
    }

    /// Starts the agent through the daemon's keeper: the agent is the
    /// keeper's child, and the keeper says when it exits.
    async fn spawn_kept(
        command: &AgentCommand,
        events: mpsc::Sender<AgentEvent>,
        keeper: &Arc<KeeperClient>,
    ) -> Result<(Self, AgentStdin, AgentStdout), AcpError> {
        let cwd = opened_cwd(command)?;
        let mut env = command.env.clone();
        if !env.iter().any(|(name, _)| name == "PATH")
            && let Some(path) = std::env::var("PATH").ok()
        {
            env.push(("PATH".into(), path));
        }
        let handed = keeper
            .spawn(command.argv.clone(), env, command.egress_report, cwd)
            .await
            .map_err(|why| {
                let argv = command.argv.join(" ");
                let shown: String = argv.chars().take(300).collect();
                AcpError::Start(format!(
                    "could not start the agent `{shown}` in {}: {why}",
                    command.cwd.display()
                ))
            })?;
        Self::adopt(handed, keeper.clone(), events)
    }

    /// An agent the keeper handed over (started for this run, or kept since
    /// the session's pause).
    pub fn adopt(
        handed: Handed,
        keeper: Arc<KeeperClient>,
        events: mpsc::Sender<AgentEvent>,
    ) -> Result<(Self, AgentStdin, AgentStdout), AcpError> {
        let exit = keeper.exit(handed.pid);
        let egress = handed
            .egress
            .map(|fd| Egress::read(fd, true))
            .transpose()
            .map_err(|why| AcpError::Start(format!("blaise-egress's counts: {why}")))?;
        Self::watch(
            handed.pid,
            None,
            handed.stdio,
            exit,
            egress,
            Some(keeper),
            events,
        )
    }

    /// The agent's stderr read into events and a tail, its stdin and stdout
    /// made ready for the connection.
    fn watch(
        pid: u32,
        registered: Option<crate::guard::Registered>,
        [stdin, stdout, stderr]: [OwnedFd; 3],
        exit: watch::Receiver<Option<ExitStatus>>,
        egress: Option<Egress>,
        keeper: Option<Arc<KeeperClient>>,
        events: mpsc::Sender<AgentEvent>,
    ) -> Result<(Self, AgentStdin, AgentStdout), AcpError> {
        let fds = [stdin.as_raw_fd(), stdout.as_raw_fd(), stderr.as_raw_fd()];
        let piped = |e: std::io::Error| AcpError::Start(format!("the agent's stdio: {e}"));
        let stdin = pipe::Sender::from_owned_fd(stdin).map_err(piped)?;
        let stdout = pipe::Receiver::from_owned_fd(stdout).map_err(piped)?;
        let stderr = pipe::Receiver::from_owned_fd(stderr).map_err(piped)?;

        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr_tail.clone();
        let (stderr_closed_tx, stderr_closed) = watch::channel(false);
        tokio::spawn(async move {
            let mut lines = BoundedLines::new(stderr, MAX_STDERR_LINE);
            while let Some(line) = lines.next().await {
                // Colour codes and other terminal controls are not for a log.
                let line = console::strip_ansi_codes(&line).replace(is_control, "");
                {
                    let mut tail = lock(&tail);
                    if tail.len() == STDERR_TAIL_LINES {
                        tail.pop_front();
                    }
                    tail.push_back(line.clone());
                }
                // Nobody takes events any more: the line is dropped (it is
                // agent text, never logged unfiltered).
                let _ = events.send(AgentEvent::Stderr(line)).await;
            }
            stderr_closed_tx.send_replace(true);
        });

        Ok((
            Self {
                pid,
                _registered: registered,
                exit,
                stderr_tail,
                stderr_closed,
                egress,
                keeper: keeper.map(|k| (k, fds)),
                handed_over: false,
            },
            stdin,
            stdout,
        ))
    }

    /// Hands the agent to the keeper for `session`, frozen; `meta` comes
    /// back with it. Call it while the connection and the stderr reader
    /// still hold the agent's stdio (the keeper gets copies of it).
    pub async fn hand_over(
        &mut self,
        for_: &crate::keeper::KeepFor,
        meta: String,
    ) -> Result<(), String> {
        let Some((keeper, [stdin, stdout, stderr])) = &self.keeper else {
            return Err("the agent was not started through the keeper".into());
        };
        if *self.stderr_closed.borrow() {
            return Err("the agent closed its stderr".into());
        }
        // SAFETY: the descriptors are open: the connection (stdin, stdout)
        // and the stderr reader (not closed: checked above) own them until
        // this run ends the connection, after this call.
        let stdio = unsafe {
            [
                BorrowedFd::borrow_raw(*stdin),
                BorrowedFd::borrow_raw(*stdout),
                BorrowedFd::borrow_raw(*stderr),
            ]
        };
        let egress = self.egress.as_ref().and_then(|e| e.fd.as_ref());
        keeper
            .keep(
                for_,
                self.pid,
                meta,
                stdio,
                egress.map(std::os::fd::AsFd::as_fd),
            )
            .await?;
        self.handed_over = true;
        Ok(())
    }

    /// Bytes the agent wrote to stdout that this run has not read yet.
    pub fn unread_stdout(&self) -> usize {
        let Some((_, [_, stdout, _])) = &self.keeper else {
            return 0;
        };
        let mut unread: libc::c_int = 0;
        // SAFETY: FIONREAD writes an int; the descriptor is the connection's
        // (see `hand_over`).
        let ok = unsafe { libc::ioctl(*stdout, libc::FIONREAD, &mut unread) } == 0;
        if ok { unread.max(0) as usize } else { 0 }
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The exit status, once the process has exited.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit.borrow()
    }

    /// Resolves when the process has exited.
    pub async fn exited(&self) -> ExitStatus {
        let mut exit = self.exit.clone();
        let status = exit
            .wait_for(Option::is_some)
            .await
            .ok()
            .and_then(|status| *status);
        match status {
            Some(status) => status,
            // The waiting task is gone without a status (it could not wait):
            // nothing will ever be known; never resolve.
            None => std::future::pending().await,
        }
    }

    /// "exit status: 101", with the last lines of stderr when there are any
    /// (waiting a moment for stderr to be read to its end).
    pub async fn describe_exit(&self, status: ExitStatus) -> String {
        let mut closed = self.stderr_closed.clone();
        // A descendant may hold stderr open: then what was read so far will do.
        let _read_to_the_end =
            tokio::time::timeout(STDERR_GRACE, closed.wait_for(|closed| *closed)).await;
        let tail = lock(&self.stderr_tail);
        if tail.is_empty() {
            status.to_string()
        } else {
            let lines: Vec<&str> = tail.iter().map(String::as_str).collect();
            format!("{status}; its stderr ended with:\n{}", lines.join("\n"))
        }
    }

    /// The last report `blaise-egress` wrote (the whole tally), once it has
    /// exited; `None` if the agent was not started by it or it wrote none.
    /// Waits a moment at most: a report is written as it exits.
    pub async fn egress_report(&mut self) -> Option<String> {
        let task = self.egress.take()?.last;
        match tokio::time::timeout(STDERR_GRACE, task).await {
            Ok(Ok(line)) => line,
            Ok(Err(_)) | Err(_) => None,
        }
    }

    /// What `blaise-egress` counted since it started or last reported, while
    /// it goes on (a hot pause): asked for with `SIGUSR1`, which also starts
    /// its counts afresh for the next run. `None` if the agent was not
    /// started by it, or no report came within a moment.
    pub async fn egress_report_now(&mut self) -> Option<String> {
        let egress = self.egress.as_mut()?;
        // The program is the guard's first child (what it reparents comes
        // later); only `blaise-egress` is asked (SIGUSR1 would end another).
        let program = *crate::keeper::descendants(self.pid).first()?;
        let comm = std::fs::read_to_string(format!("/proc/{program}/comm")).ok()?;
        if comm.trim_end() != "blaise-egress" {
            return None;
        }
        let seen = egress.reports.borrow_and_update().0;
        // SAFETY: kill(2) on a process below this agent's guard.
        unsafe { libc::kill(program as libc::pid_t, libc::SIGUSR1) };
        let reported = egress.reports.wait_for(|(count, _)| *count > seen);
        match tokio::time::timeout(STDERR_GRACE, reported).await {
            Ok(Ok(report)) => report.1.clone(),
            _ => None,
        }
    }

    /// Sends `signal` to the agent's process group, unless the agent has
    /// exited and the group is empty. ESRCH (nothing left) is not an error.
    pub fn signal_group(&self, signal: libc::c_int) {
        let Ok(pid) = libc::pid_t::try_from(self.pid) else {
            return;
        };
        // SAFETY: kill(2) with a negative pid signals the process group that
        // `spawn` created for the agent (pgid = its pid); it touches no memory.
        let result = unsafe { libc::kill(-pid, signal) };
        if result != 0 {
            tracing::trace!(
                pid,
                signal,
                "nothing left to signal in the agent's process group"
            );
        }
    }
}

impl Drop for AgentProcess {
    /// A process nobody closed (a failed launch, a dropped `Agent`) is killed,
    /// with its process group.
    fn drop(&mut self) {
        if self.exit_status().is_none() && !self.handed_over {
            tracing::warn!(pid = self.pid, "the agent was not closed: killed");
            self.signal_group(libc::SIGKILL);
        }
    }
}

/// Longest report read from `blaise-egress` (each line is its whole tally:
/// 256 destinations and 256 refusals make well under this).
const MAX_EGRESS_REPORT: usize = 1 << 20;

/// A pipe whose write end the program inherits (its number in
/// `BLAISE_EGRESS_REPORT_FD`); both ends are close-on-exec in the runner.
pub(crate) fn egress_report_pipe(
    process: &mut tokio::process::Command,
) -> std::io::Result<(std::io::PipeReader, std::io::PipeWriter)> {
    let (reader, writer, fd) = crate::child_pipe::pipe_to_child(process)?;
    process.env(blaise_egress::report::FD_VAR, fd.to_string());
    Ok((reader, writer))
}

/// `blaise-egress`'s reports, as they come.
#[derive(Debug)]
struct Egress {
    /// Ends with the last report once every writer is gone.
    last: tokio::task::JoinHandle<Option<String>>,
    /// How many reports came, and the latest.
    reports: watch::Receiver<(u64, Option<String>)>,
    /// A copy of the read end, for the keeper (an agent that may be kept).
    fd: Option<OwnedFd>,
}

impl Egress {
    fn read(reader: OwnedFd, keep_a_copy: bool) -> std::io::Result<Egress> {
        let fd = keep_a_copy.then(|| reader.try_clone()).transpose()?;
        let reader = pipe::Receiver::from_owned_fd(reader)?;
        let (tx, reports) = watch::channel((0, None));
        Ok(Egress {
            last: tokio::spawn(last_line(reader, tx)),
            reports,
            fd,
        })
    }
}

/// The last whole line read from `reader` until its end (at most
/// [`MAX_EGRESS_REPORT`] bytes are read; the rest is left); each one is
/// also sent to `reports` as it comes.
async fn last_line(
    reader: pipe::Receiver,
    reports: watch::Sender<(u64, Option<String>)>,
) -> Option<String> {
    let mut lines = BoundedLines::new(
        tokio::io::AsyncReadExt::take(reader, MAX_EGRESS_REPORT as u64),
        MAX_EGRESS_REPORT,
    );
    let mut last = None;
    while let Some(line) = lines.next().await {
        if !line.is_empty() {
            reports.send_modify(|(count, latest)| {
                *count += 1;
                *latest = Some(line.clone());
            });
            last = Some(line);
        }
    }
    last
}

/// A control character other than a tab (what is left of terminal codes).
fn is_control(c: char) -> bool {
    c.is_control() && c != '\t'
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The agent's stdout as the connection reads it. When the connection lets
/// go of it (on close), the rest is still read and discarded until the agent
/// closes it: an agent that writes while it shuts down must not meet a
/// broken pipe.
/// A line longer than [`MAX_MESSAGE_LINE`] ends the stream with an error.
#[derive(Debug)]
pub(crate) struct DrainedStdout {
    stdout: Option<AgentStdout>,
    /// Bytes read since the last newline.
    line: usize,
    /// Set when the agent was handed to the keeper: what it writes later is
    /// for the run that takes it up, not to be drained here.
    handed_over: Arc<std::sync::atomic::AtomicBool>,
}

impl DrainedStdout {
    pub fn new(stdout: AgentStdout, handed_over: Arc<std::sync::atomic::AtomicBool>) -> Self {
        Self {
            stdout: Some(stdout),
            line: 0,
            handed_over,
        }
    }
}

impl tokio::io::AsyncRead for DrainedStdout {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let Some(stdout) = self.stdout.as_mut() else {
            return std::task::Poll::Ready(Ok(()));
        };
        let polled = std::pin::Pin::new(stdout).poll_read(cx, buf);
        if let std::task::Poll::Ready(Ok(())) = polled {
            let read = &buf.filled()[before..];
            self.line = match read.iter().rposition(|&b| b == b'\n') {
                Some(at) => read.len() - at - 1,
                None => self.line + read.len(),
            };
            if self.line > MAX_MESSAGE_LINE {
                return std::task::Poll::Ready(Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "the agent wrote a line of more than {} MiB to stdout (one ACP message per line)",
                        MAX_MESSAGE_LINE >> 20
                    ),
                )));
            }
        }
        polled
    }
}

/// Lines of a stream, each cut at `max` bytes (the rest of a longer line is
/// skipped, and the line says how much), read as lossy UTF-8.
pub(crate) struct BoundedLines<R> {
    reader: tokio::io::BufReader<R>,
    max: usize,
}

impl<R: tokio::io::AsyncRead + Unpin> BoundedLines<R> {
    pub fn new(reader: R, max: usize) -> Self {
        Self {
            reader: tokio::io::BufReader::new(reader),
            max,
        }
    }

    /// The next line, without its newline; `None` at the end of the stream
    /// (or on a read error).
    pub async fn next(&mut self) -> Option<String> {
        use tokio::io::AsyncBufReadExt;
        let mut line = Vec::new();
        let mut skipped = 0usize;
        loop {
            let buf = match self.reader.fill_buf().await {
                Ok([]) | Err(_) if line.is_empty() && skipped == 0 => return None,
                Ok([]) | Err(_) => break,
                Ok(buf) => buf,
            };
            let (take, ends) = match buf.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (buf.len(), false),
            };
            let text = &buf[..take - usize::from(ends)];
            let room = self.max.saturating_sub(line.len());
            line.extend_from_slice(&text[..text.len().min(room)]);
            skipped += text.len().saturating_sub(room);
            self.reader.consume(take);
            if ends {
                break;
            }
        }
        let mut text = String::from_utf8_lossy(&line).into_owned();
        if skipped > 0 {
            text.push_str(&format!("… [{skipped} bytes cut]"));
        }
        Some(text)
    }
}

impl Drop for DrainedStdout {
    fn drop(&mut self) {
        if self.handed_over.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        if let (Some(mut stdout), Ok(runtime)) =
            (self.stdout.take(), tokio::runtime::Handle::try_current())
        {
            runtime.spawn(async move {
                let drained = tokio::io::copy(&mut stdout, &mut tokio::io::sink()).await;
                tracing::trace!(?drained, "the agent's stdout after the connection ended");
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{AgentCommand, AgentProcess, BoundedLines, DrainedStdout, MAX_MESSAGE_LINE};

    #[tokio::test]
    async fn a_working_directory_swapped_for_a_symlink_after_the_check_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let workspace = tmp.path().join("workspace");
        let sub = workspace.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        let command = AgentCommand {
            argv: vec!["true".into()],
            env: vec![],
            cwd: sub.clone(),
            cwd_within: vec![workspace.clone()],
            egress_report: false,
        };
        // Checked by the plugs' rules, then swapped (another session of the
        // same plug could do it in its storage) before the agent starts.
        std::fs::remove_dir(&sub).unwrap();
        std::os::unix::fs::symlink("/", &sub).unwrap();
        let (events, _taken) = tokio::sync::mpsc::channel(8);
        let err = AgentProcess::spawn(&command, events.clone(), None)
            .await
            .map(drop)
            .unwrap_err();
        assert!(
            format!("{err:#}").contains("outside the workspace (it is /)"),
            "{err:#}"
        );
        // The same directory, a directory again: the agent starts in it.
        std::fs::remove_file(&sub).unwrap();
        std::fs::create_dir(&sub).unwrap();
        let (process, _, _) = AgentProcess::spawn(&command, events, None).await.unwrap();
        drop(process);
    }

    #[tokio::test]
    async fn stderr_lines_are_events_without_their_colour_codes() {
        let tmp = tempfile::tempdir().unwrap();
        let command = AgentCommand {
            argv: vec![
                "sh".into(),
                "-c".into(),
                r"printf '\033[2m2026 \033[32mINFO\033[0m ready\a\n' >&2".into(),
            ],
            env: vec![],
            cwd: tmp.path().to_path_buf(),
            cwd_within: vec![],
            egress_report: false,
        };
        let (events, mut taken) = tokio::sync::mpsc::channel(8);
        let (process, _stdin, _stdout) = AgentProcess::spawn(&command, events, None).await.unwrap();
        match taken.recv().await {
            Some(super::AgentEvent::Stderr(line)) => assert_eq!(line, "2026 INFO ready"),
            other => panic!("{other:?}"),
        }
        process.exited().await;
    }

    async fn read_all(script: &str) -> std::io::Result<usize> {
        use tokio::io::AsyncReadExt;
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", script])
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap().into_owned_fd().unwrap();
        let stdout = tokio::net::unix::pipe::Receiver::from_owned_fd(stdout).unwrap();
        let mut stdout = DrainedStdout::new(stdout, Default::default());
        let mut sink = vec![0u8; 1 << 20];
        let mut total = 0;
        loop {
            match stdout.read(&mut sink).await? {
                0 => return Ok(total),
                n => total += n,
            }
        }
    }

    #[tokio::test]
    async fn a_line_that_never_ends_is_the_agents_failure() {
        let mib = MAX_MESSAGE_LINE >> 20;
        // Lines of 1 MiB, more than the bound in all: fine.
        let lines = format!(
            "i=0; while [ $i -lt {} ]; do head -c 1048575 /dev/zero | tr '\\0' x; echo; i=$((i+1)); done",
            mib + 2
        );
        assert_eq!(read_all(&lines).await.unwrap(), (mib + 2) << 20);
        // One line longer than the bound: an error, not the run's memory.
        let endless = format!("head -c {} /dev/zero | tr '\\0' x", MAX_MESSAGE_LINE + 1);
        let err = read_all(&endless).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData, "{err}");
        assert!(err.to_string().contains("more than 64 MiB"), "{err}");
    }

    #[tokio::test]
    async fn lines_are_cut_at_their_bound_and_none_is_lost() {
        let mut input = b"short\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 100_000));
        input.extend_from_slice(b"\nafter\nlast without newline");
        let mut lines = BoundedLines::new(&input[..], 10);
        assert_eq!(lines.next().await.as_deref(), Some("short"));
        assert_eq!(
            lines.next().await.as_deref(),
            Some("xxxxxxxxxx… [99990 bytes cut]")
        );
        assert_eq!(lines.next().await.as_deref(), Some("after"));
        assert_eq!(
            lines.next().await.as_deref(),
            Some("last witho… [10 bytes cut]")
        );
        assert_eq!(lines.next().await, None);
    }
}
