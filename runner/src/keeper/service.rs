//! The daemon's side: [`Keeper`] starts agents for runs, keeps the ones a
//! paused run hands it (frozen), and hands each to the run that resumes its
//! session.

use std::collections::HashMap;
use std::os::fd::{AsFd, OwnedFd};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::{mpsc, oneshot};

use super::wire::{self, Reply, Request};
use crate::guard;

/// An agent the keeper holds for a session between runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptAgent {
    pub session: String,
    pub pid: u32,
    /// Resident memory of it and all it started, in bytes (what capacity counts).
    pub rss: u64,
    pub since: Instant,
}

/// An agent started ahead for a new session (warm starts), waiting frozen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarmAgent {
    /// Its slot: the directory it was started in (see `run::workspace`).
    pub slot: String,
    pub pid: u32,
    pub rss: u64,
    pub since: Instant,
}

/// Starts agents for runs and keeps them across pauses. Agents are the
/// children of a thread of the keeper: when it ends (the keeper is dropped,
/// or the daemon dies, even by `SIGKILL`), each agent's guard is told
/// (`PR_SET_PDEATHSIG`) and kills what it guards, frozen or not. A runner
/// restart therefore resumes every session cold.
pub struct Keeper {
    state: Arc<Mutex<State>>,
    spawner: mpsc::UnboundedSender<Spawn>,
    /// Dropped with the keeper: its thread ends, and with it every agent.
    _stop: oneshot::Sender<()>,
}

#[derive(Default)]
struct State {
    agents: HashMap<u32, Record>,
    /// Which agent is kept for a session.
    sessions: HashMap<String, u32>,
    next_connection: u64,
    connections: HashMap<u64, Arc<OwnedFd>>,
    /// Warm agents, the one that waited longest first.
    warm: std::collections::VecDeque<u32>,
    /// Slots of warm agents that exited while they waited: the daemon
    /// removes them.
    orphaned_slots: Vec<String>,
}

struct Record {
    /// The connection of the run that has the agent (none while kept).
    owner: Option<u64>,
    kept: Option<Kept>,
    /// The slot of a warm agent a run took: if the run ends with the agent
    /// still its own, the daemon removes the slot unless it became a
    /// session's workspace.
    slot: Option<String>,
}

struct Kept {
    /// The session, or a warm agent's slot.
    session: String,
    warm: bool,
    since: Instant,
    /// Its stdin, stdout and stderr (and its egress report's read end), held
    /// so that nothing closes meanwhile.
    stdio: Vec<OwnedFd>,
    meta: String,
}

struct Spawn {
    argv: Vec<String>,
    env: Vec<(String, String)>,
    egress_report: bool,
    cwd: OwnedFd,
    owner: u64,
    started: oneshot::Sender<Result<(u32, Vec<OwnedFd>), String>>,
}

impl Keeper {
    pub fn start() -> std::io::Result<Keeper> {
        let state = Arc::new(Mutex::new(State::default()));
        let (spawner, requests) = mpsc::unbounded_channel();
        let (stop, stopped) = oneshot::channel();
        let thread_state = state.clone();
        std::thread::Builder::new()
            .name("blaise-keeper".into())
            .spawn(move || spawner_thread(requests, stopped, thread_state))?;
        Ok(Keeper {
            state,
            spawner,
            _stop: stop,
        })
    }

    /// A socket for one run process (its end; it inherits it). The keeper
    /// serves it until the run closes it; then it kills every agent the run
    /// started or took and did not hand back to keep.
    pub fn connect_run(&self) -> std::io::Result<OwnedFd> {
        let (ours, theirs) = wire::pair()?;
        let ours = Arc::new(ours);
        let id = {
            let mut state = lock(&self.state);
            state.next_connection += 1;
            let id = state.next_connection;
            state.connections.insert(id, ours.clone());
            id
        };
        let state = self.state.clone();
        let spawner = self.spawner.clone();
        std::thread::Builder::new()
            .name("blaise-keeper-run".into())
            .spawn(move || serve(id, ours, state, spawner))?;
        Ok(theirs)
    }

    /// The agents kept now, with the memory they hold.
    pub fn kept(&self) -> Vec<KeptAgent> {
        let state = lock(&self.state);
        let mut kept: Vec<KeptAgent> = state
            .agents
            .iter()
            .filter_map(|(&pid, record)| {
                let kept = record.kept.as_ref().filter(|k| !k.warm)?;
                Some(KeptAgent {
                    session: kept.session.clone(),
                    pid,
                    rss: agent_rss(pid),
                    since: kept.since,
                })
            })
            .collect();
        kept.sort_by(|a, b| a.session.cmp(&b.session));
        kept
    }

    /// Lets the agent kept for `session` go (killed with its process group).
    /// Whether one was kept.
    pub fn release(&self, session: &str) -> bool {
        let mut state = lock(&self.state);
        let Some(pid) = state.sessions.remove(session) else {
            return false;
        };
        if let Some(record) = state.agents.get_mut(&pid) {
            record.kept = None;
        }
        super::freeze::kill(pid);
        true
    }
}

impl Keeper {
    /// The warm agents waiting now, the one that waited longest first.
    pub fn warm(&self) -> Vec<WarmAgent> {
        let state = lock(&self.state);
        state
            .warm
            .iter()
            .filter_map(|pid| {
                let kept = state.agents.get(pid)?.kept.as_ref()?;
                Some(WarmAgent {
                    slot: kept.session.clone(),
                    pid: *pid,
                    rss: agent_rss(*pid),
                    since: kept.since,
                })
            })
            .collect()
    }

    /// How many warm agents wait now (without measuring them).
    pub fn warm_count(&self) -> usize {
        lock(&self.state).warm.len()
    }

    /// Lets the warm agent in `slot` go (killed with its process group);
    /// whether it was still waiting. Its slot is the caller's to remove.
    pub fn release_warm(&self, slot: &str) -> bool {
        let mut state = lock(&self.state);
        let Some(at) = state.warm.iter().position(|pid| {
            state
                .agents
                .get(pid)
                .and_then(|r| r.kept.as_ref())
                .is_some_and(|k| k.session == slot)
        }) else {
            return false;
        };
        let pid = state.warm.remove(at).expect("found above");
        if let Some(record) = state.agents.get_mut(&pid) {
            record.kept = None;
        }
        super::freeze::kill(pid);
        true
    }

    /// The slots of warm agents that exited while they waited, since the
    /// last call.
    pub fn orphaned_slots(&self) -> Vec<String> {
        std::mem::take(&mut lock(&self.state).orphaned_slots)
    }
}

impl Drop for Keeper {
    /// The runner is stopping: every agent it has goes, with all it started
    /// (the guards see the daemon die only when the process does).
    fn drop(&mut self) {
        let state = lock(&self.state);
        for &pid in state.agents.keys() {
            super::freeze::kill(pid);
        }
    }
}

/// One run's connection, until the run closes it.
fn serve(
    id: u64,
    socket: Arc<OwnedFd>,
    state: Arc<Mutex<State>>,
    spawner: mpsc::UnboundedSender<Spawn>,
) {
    loop {
        let (request, fds): (Request, Vec<OwnedFd>) = match wire::recv(socket.as_fd()) {
            Ok(Some(message)) => message,
            Ok(None) => break,
            Err(e) => {
                tracing::warn!("the keeper could not read a run's request: {e}");
                break;
            }
        };
        let (reply, out) = match request {
            Request::Spawn {
                argv,
                env,
                egress_report,
            } => {
                let Some(cwd) = fds.into_iter().next() else {
                    let why = "no working directory came with the request".to_string();
                    let _ = wire::send(socket.as_fd(), &Reply::Refused { why }, &[]);
                    continue;
                };
                let (started, answer) = oneshot::channel();
                let spawn = Spawn {
                    argv,
                    env,
                    egress_report,
                    cwd,
                    owner: id,
                    started,
                };
                let result = match spawner.send(spawn) {
                    Ok(()) => answer
                        .blocking_recv()
                        .unwrap_or_else(|_| Err("the keeper is stopping".into())),
                    Err(_) => Err("the keeper is stopping".into()),
                };
                match result {
                    Ok((pid, stdio)) => (Reply::Spawned { pid }, stdio),
                    Err(why) => (Reply::Refused { why }, Vec::new()),
                }
            }
            Request::Keep { session, pid, meta } => {
                (keep(&state, id, session, pid, meta, fds, false), Vec::new())
            }
            Request::Take { session } => take(&state, id, &session),
            Request::KeepWarm { slot, pid, meta } => {
                (keep(&state, id, slot, pid, meta, fds, true), Vec::new())
            }
            Request::TakeWarm => take_warm(&state, id),
        };
        let borrowed: Vec<_> = out.iter().map(|fd| fd.as_fd()).collect();
        if let Err(e) = wire::send(socket.as_fd(), &reply, &borrowed) {
            tracing::warn!("the keeper could not answer a run: {e}");
            break;
        }
    }
    // The run is over: what it still has goes with it, as an agent started by
    // the run itself would.
    let mut state = lock(&state);
    state.connections.remove(&id);
    let mut orphaned = Vec::new();
    for (&pid, record) in state.agents.iter_mut() {
        if record.owner == Some(id) {
            record.owner = None;
            super::freeze::kill(pid);
            orphaned.extend(record.slot.take());
        }
    }
    state.orphaned_slots.extend(orphaned);
}

fn keep(
    state: &Mutex<State>,
    connection: u64,
    session: String,
    pid: u32,
    meta: String,
    stdio: Vec<OwnedFd>,
    warm: bool,
) -> Reply {
    let refused = |why: &str| Reply::Refused { why: why.into() };
    if !(3..=4).contains(&stdio.len()) {
        return refused("the agent's stdin, stdout and stderr must come with it");
    }
    let owned = |state: &State| {
        state
            .agents
            .get(&pid)
            .is_some_and(|record| record.owner == Some(connection))
    };
    if !owned(&lock(state)) {
        return refused("this run has no such agent (it exited, or it is not the run's)");
    }
    // Frozen (again: the run froze it to read what it had written), all
    // below the guard; the guard goes on, to kill what it guards when the
    // runner dies. Outside the lock: it waits for the stops to take.
    super::freeze(pid);
    let mut state = lock(state);
    if !owned(&state) {
        return refused("this run has no such agent (it exited, or it is not the run's)");
    }
    if warm {
        state.warm.push_back(pid);
    } else if let Some(older) = state.sessions.insert(session.clone(), pid)
        && older != pid
    {
        if let Some(record) = state.agents.get_mut(&older) {
            record.kept = None;
        }
        super::freeze::kill(older);
    }
    let record = state.agents.get_mut(&pid).expect("checked above");
    record.owner = None;
    record.kept = Some(Kept {
        session,
        warm,
        since: Instant::now(),
        stdio,
        meta,
    });
    Reply::Kept
}

fn take(state: &Mutex<State>, connection: u64, session: &str) -> (Reply, Vec<OwnedFd>) {
    let mut state = lock(state);
    let Some(pid) = state.sessions.remove(session) else {
        let why = "no agent is kept for the session".to_string();
        return (Reply::Refused { why }, Vec::new());
    };
    let Some(record) = state.agents.get_mut(&pid) else {
        let why = "the kept agent exited".to_string();
        return (Reply::Refused { why }, Vec::new());
    };
    let Some(kept) = record.kept.take() else {
        let why = "the kept agent was let go".to_string();
        return (Reply::Refused { why }, Vec::new());
    };
    record.owner = Some(connection);
    (
        Reply::Taken {
            pid,
            meta: kept.meta,
        },
        kept.stdio,
    )
}

/// The warm agent that waited longest, now the run's (never the pool's again).
fn take_warm(state: &Mutex<State>, connection: u64) -> (Reply, Vec<OwnedFd>) {
    let mut state = lock(state);
    while let Some(pid) = state.warm.pop_front() {
        let Some(record) = state.agents.get_mut(&pid) else {
            continue;
        };
        let Some(kept) = record.kept.take() else {
            continue;
        };
        record.owner = Some(connection);
        record.slot = Some(kept.session.clone());
        return (
            Reply::Taken {
                pid,
                meta: kept.meta,
            },
            kept.stdio,
        );
    }
    let why = "no warm agent is waiting".to_string();
    (Reply::Refused { why }, Vec::new())
}

/// The thread whose children the agents are (see [`Keeper`]): it must live
/// as long as the keeper, which is why agents are not started from the
/// threads that serve runs.
fn spawner_thread(
    mut requests: mpsc::UnboundedReceiver<Spawn>,
    mut stopped: oneshot::Receiver<()>,
    state: Arc<Mutex<State>>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!("the keeper cannot start: {e}");
            return;
        }
    };
    runtime.block_on(async move {
        loop {
            let spawn = tokio::select! {
                Some(spawn) = requests.recv() => spawn,
                _ = &mut stopped => break,
            };
            let owner = spawn.owner;
            match start(spawn.argv, spawn.env, spawn.egress_report, spawn.cwd) {
                Ok((mut child, pid, stdio)) => {
                    lock(&state).agents.insert(
                        pid,
                        Record {
                            owner: Some(owner),
                            kept: None,
                            slot: None,
                        },
                    );
                    let _ = spawn.started.send(Ok((pid, stdio)));
                    let state = state.clone();
                    tokio::spawn(async move {
                        use std::os::unix::process::ExitStatusExt as _;
                        let status = child.wait().await.map_or(libc::SIGKILL, |s| s.into_raw());
                        exited(&state, pid, status);
                    });
                }
                Err(why) => {
                    let _ = spawn.started.send(Err(why));
                }
            }
        }
    });
}

/// Starts the agent under a guard, in its own process group, in `cwd`.
fn start(
    argv: Vec<String>,
    env: Vec<(String, String)>,
    egress_report: bool,
    cwd: OwnedFd,
) -> Result<(tokio::process::Child, u32, Vec<OwnedFd>), String> {
    let Some((program, args)) = argv.split_first() else {
        return Err("the agent command is empty".into());
    };
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Before the guard: its `pre_exec` forks the program, which must inherit
    // the descriptor.
    let report = match egress_report {
        true => {
            let pipe = crate::acp::egress_report_pipe(&mut command)
                .map_err(|e| format!("a pipe for blaise-egress's counts: {e}"))?;
            Some(pipe)
        }
        false => None,
    };
    guard::install(&mut command, guard::OnTerm::Wait, Some(cwd));
    let mut child = command.spawn().map_err(|e| e.to_string())?;
    // The write end now lives in the program alone.
    let report = report.map(|(reader, writer)| {
        drop(writer);
        OwnedFd::from(reader)
    });
    let pid = child
        .id()
        .ok_or_else(|| "the agent exited before it could be watched".to_string())?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the agent's stdio could not be piped".into());
    };
    let mut stdio = vec![
        stdin.into_owned_fd().map_err(|e| e.to_string())?,
        stdout.into_owned_fd().map_err(|e| e.to_string())?,
        stderr.into_owned_fd().map_err(|e| e.to_string())?,
    ];
    stdio.extend(report);
    Ok((child, pid, stdio))
}

/// The agent `pid` exited: its run is told; a kept agent is forgotten.
fn exited(state: &Mutex<State>, pid: u32, status: i32) {
    let mut state = lock(state);
    let Some(record) = state.agents.remove(&pid) else {
        return;
    };
    if let Some(kept) = record.kept {
        if kept.warm {
            tracing::info!(slot = %kept.session, pid, "a warm agent exited while it waited");
            state.warm.retain(|p| *p != pid);
            state.orphaned_slots.push(kept.session);
        } else {
            tracing::info!(session = %kept.session, pid, "a kept agent exited");
            if state.sessions.get(&kept.session) == Some(&pid) {
                state.sessions.remove(&kept.session);
            }
        }
    }
    if let Some(owner) = record.owner
        && let Some(socket) = state.connections.get(&owner)
    {
        let _ = wire::send(socket.as_fd(), &Reply::Exited { pid, status }, &[]);
    }
}

/// The resident memory of an agent: its guard and everything below it
/// (what `freeze` stops; a sandboxed agent is outside the guard's group).
fn agent_rss(guard: u32) -> u64 {
    const PAGE: u64 = 4096;
    std::iter::once(guard)
        .chain(super::descendants(guard))
        .filter_map(|pid| {
            // `statm`: size, resident, … in pages.
            let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
            statm.split(' ').nth(1)?.parse::<u64>().ok()
        })
        .sum::<u64>()
        * PAGE
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
