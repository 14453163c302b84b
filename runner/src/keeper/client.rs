//! A run's side of the keeper: start the agent through it, hand the agent
//! back to keep at a hot pause, take a kept agent at a resume.

use std::collections::HashMap;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use super::wire::{self, Reply, Request};

/// A reply and the descriptors that came with it.
type Answer = (Reply, Vec<OwnedFd>);

/// The keeper's socket, as a run has it.
pub struct KeeperClient {
    socket: Arc<OwnedFd>,
    /// Replies in order (one request at a time: `asking`).
    replies: Arc<Mutex<std::sync::mpsc::Receiver<Answer>>>,
    asking: tokio::sync::Mutex<()>,
    exits: Arc<Mutex<HashMap<u32, watch::Sender<Option<ExitStatus>>>>>,
}

impl std::fmt::Debug for KeeperClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeeperClient")
            .field("socket", &self.socket.as_raw_fd())
            .finish()
    }
}

/// Whom a kept agent waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeepFor {
    /// The session's next run (a hot pause).
    Session(String),
    /// A start run, from the warm pool; the agent's slot.
    Warm(String),
}

/// An agent the keeper started or handed over: its guard's pid (the process
/// group) and its stdin, stdout, stderr.
pub struct Handed {
    pub pid: u32,
    pub stdio: [OwnedFd; 3],
    /// The read end of `blaise-egress`'s report, when the agent has one.
    pub egress: Option<OwnedFd>,
    /// What the run that kept it said (only for a taken agent).
    pub meta: String,
}

impl KeeperClient {
    pub fn new(socket: OwnedFd) -> std::io::Result<KeeperClient> {
        let socket = Arc::new(socket);
        let (tx, replies) = std::sync::mpsc::channel();
        let exits: Arc<Mutex<HashMap<u32, watch::Sender<Option<ExitStatus>>>>> = Arc::default();
        let (reader, reader_exits) = (socket.clone(), exits.clone());
        std::thread::Builder::new()
            .name("blaise-keeper-client".into())
            .spawn(move || {
                while let Ok(Some((reply, fds))) = wire::recv::<Reply>(reader.as_fd()) {
                    if let Reply::Exited { pid, status } = reply {
                        use std::os::unix::process::ExitStatusExt as _;
                        lock(&reader_exits)
                            .entry(pid)
                            .or_insert_with(|| watch::channel(None).0)
                            .send_replace(Some(ExitStatus::from_raw(status)));
                    } else if tx.send((reply, fds)).is_err() {
                        break;
                    }
                }
            })?;
        Ok(KeeperClient {
            socket,
            replies: Arc::new(Mutex::new(replies)),
            asking: tokio::sync::Mutex::new(()),
            exits,
        })
    }

    /// The keeper's socket a run process inherits as its stdin, if it is one
    /// (a run started otherwise has no keeper, and keeps no agent). Standard
    /// input becomes `/dev/null`.
    pub fn inherited() -> Option<KeeperClient> {
        // SAFETY: fstat/fcntl/dup2 on descriptor 0 and descriptors this
        // function opens; the moved descriptor is owned once.
        let socket = unsafe {
            let mut stat: libc::stat = std::mem::zeroed();
            if libc::fstat(0, &mut stat) != 0 || stat.st_mode & libc::S_IFMT != libc::S_IFSOCK {
                return None;
            }
            let moved = libc::fcntl(0, libc::F_DUPFD_CLOEXEC, 3);
            if moved < 0 {
                return None;
            }
            let null = std::fs::File::open("/dev/null").ok()?;
            libc::dup2(null.as_raw_fd(), 0);
            OwnedFd::from_raw_fd(moved)
        };
        KeeperClient::new(socket).ok()
    }

    /// Starts the agent in the directory `cwd` (opened and checked), with a
    /// report pipe when it is started by `blaise-egress`.
    pub async fn spawn(
        &self,
        argv: Vec<String>,
        env: Vec<(String, String)>,
        egress_report: bool,
        cwd: OwnedFd,
    ) -> Result<Handed, String> {
        let request = Request::Spawn {
            argv,
            env,
            egress_report,
        };
        match self.ask(request, vec![cwd]).await? {
            (Reply::Spawned { pid }, fds) => handed(pid, fds, String::new()),
            (Reply::Refused { why }, _) => Err(why),
            (other, _) => Err(format!("the keeper answered {other:?}")),
        }
    }

    /// Hands the agent `pid` (started or taken by this run) to the keeper,
    /// frozen, for the session's next run, or for the warm pool.
    pub async fn keep(
        &self,
        for_: &KeepFor,
        pid: u32,
        meta: String,
        stdio: [BorrowedFd<'_>; 3],
        egress: Option<BorrowedFd<'_>>,
    ) -> Result<(), String> {
        let fds = stdio
            .iter()
            .chain(egress.as_ref())
            .map(|fd| fd.try_clone_to_owned().map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let request = match for_ {
            KeepFor::Session(session) => Request::Keep {
                session: session.clone(),
                pid,
                meta,
            },
            KeepFor::Warm(slot) => Request::KeepWarm {
                slot: slot.clone(),
                pid,
                meta,
            },
        };
        match self.ask(request, fds).await? {
            (Reply::Kept, _) => Ok(()),
            (Reply::Refused { why }, _) => Err(why),
            (other, _) => Err(format!("the keeper answered {other:?}")),
        }
    }

    /// The agent kept for `session`, still frozen; `Err` says why there is none.
    pub async fn take(&self, session: &str) -> Result<Handed, String> {
        let request = Request::Take {
            session: session.to_string(),
        };
        match self.ask(request, Vec::new()).await? {
            (Reply::Taken { pid, meta }, fds) => handed(pid, fds, meta),
            (Reply::Refused { why }, _) => Err(why),
            (other, _) => Err(format!("the keeper answered {other:?}")),
        }
    }

    /// The warm agent that waited longest, still frozen, now this run's;
    /// `Err` says why there is none.
    pub async fn take_warm(&self) -> Result<Handed, String> {
        match self.ask(Request::TakeWarm, Vec::new()).await? {
            (Reply::Taken { pid, meta }, fds) => handed(pid, fds, meta),
            (Reply::Refused { why }, _) => Err(why),
            (other, _) => Err(format!("the keeper answered {other:?}")),
        }
    }

    /// The exit status of an agent this run has from the keeper, once known.
    pub fn exit(&self, pid: u32) -> watch::Receiver<Option<ExitStatus>> {
        lock(&self.exits)
            .entry(pid)
            .or_insert_with(|| watch::channel(None).0)
            .subscribe()
    }

    async fn ask(&self, request: Request, fds: Vec<OwnedFd>) -> Result<Answer, String> {
        let _turn = self.asking.lock().await;
        let borrowed: Vec<_> = fds.iter().map(|fd| fd.as_fd()).collect();
        wire::send(self.socket.as_fd(), &request, &borrowed)
            .map_err(|e| format!("the keeper: {e}"))?;
        drop(fds);
        // One reply per request, in order.
        let replies = self.replies.clone();
        tokio::task::spawn_blocking(move || lock(&replies).recv())
            .await
            .map_err(|e| e.to_string())?
            .map_err(|_| "the keeper is gone".to_string())
    }
}

impl Drop for KeeperClient {
    /// Ends the connection (its reader thread holds the socket too): the
    /// keeper then kills what this run has and did not hand back.
    fn drop(&mut self) {
        // SAFETY: shutdown(2) on a descriptor this client owns.
        unsafe { libc::shutdown(self.socket.as_raw_fd(), libc::SHUT_RDWR) };
    }
}

fn handed(pid: u32, mut fds: Vec<OwnedFd>, meta: String) -> Result<Handed, String> {
    let egress = (fds.len() == 4).then(|| fds.pop()).flatten();
    let stdio: [OwnedFd; 3] = fds
        .try_into()
        .map_err(|_| "the keeper did not hand over the agent's stdio".to_string())?;
    Ok(Handed {
        pid,
        stdio,
        egress,
        meta,
    })
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
