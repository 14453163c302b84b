//! Nothing a program starts outlives it: every program the runner starts (a
//! plug's granted program, the agent) runs under a *guard*.
//!
//! The guard is the process `spawn` creates; it is a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`) that forks the real program and waits for it.
//! Whatever the program starts stays below the guard, even a daemon that
//! double-forks and calls `setsid`: orphans are re-parented to the nearest
//! subreaper. When the program exits, the guard kills everything left below
//! it, so pipes close and the caller gets the output when *the program*
//! exits; then the guard exits with the program's status. The guard also
//! stops when the runner dies (`PR_SET_PDEATHSIG`).
//!
//! Between `fork` and `exec` only async-signal-safe calls are allowed (the
//! runner is multi-threaded), so the guard is written with raw system calls
//! and fixed buffers, and never allocates.
//!
//! A run process is itself a subreaper ([`become_subreaper`]): if a guard is
//! killed, what it guarded comes back to the run, which [`sweep`]s it at the
//! end of every hook and of the run.

use std::collections::HashSet;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// What the guard does on `SIGTERM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnTerm {
    /// Kill the program and everything it started at once (a timeout).
    KillAll,
    /// Let the program handle it (it gets the same signal through its
    /// process group) and keep guarding until it exits (an agent asked to stop).
    Wait,
}

/// Makes `command` start under a guard, in a process group of its own shared
/// by the guard and the program (so a signal to the group reaches both), in
/// the directory `cwd` (an open directory: no path is looked up again, so a
/// directory swapped for a symlink after it was checked changes nothing).
pub fn install(command: &mut tokio::process::Command, on_term: OnTerm, cwd: Option<OwnedFd>) {
    STARTED.fetch_add(1, Ordering::SeqCst);
    command.process_group(0);
    let kill_all = on_term == OnTerm::KillAll;
    // SAFETY: the closure runs in the forked child before exec and makes only
    // async-signal-safe system calls (see `become_guard`); the directory fd
    // it holds stays open in the parent until the command is dropped.
    unsafe {
        command.pre_exec(move || {
            if let Some(dir) = &cwd
                && libc::fchdir(dir.as_raw_fd()) != 0
            {
                return Err(io::Error::last_os_error());
            }
            become_guard(kill_all)
        });
    }
}

/// In the forked child: fork the program (which returns to `exec`), and
/// become its guard, which never returns.
///
/// The guard takes `SIGTERM` and `SIGCHLD` by waiting for them
/// (`sigwaitinfo`, both blocked), never in a handler: a signal that comes
/// while the guard is between two looks stays pending for the next wait. A
/// handler's flag could be set just after the guard read it and before it
/// blocked again, and be lost: the runner's threads end one by one, each end
/// sends the parent-death signal again, and the one that said "the runner is
/// gone" could be that one (CI saw a warm agent outlive its runner so).
unsafe fn become_guard(kill_all: bool) -> io::Result<()> {
    unsafe {
        if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        let mut watched: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut watched);
        libc::sigaddset(&mut watched, libc::SIGTERM);
        libc::sigaddset(&mut watched, libc::SIGCHLD);
        if libc::sigprocmask(libc::SIG_BLOCK, &watched, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
        // When the runner dies, the guard stops what it guards; if it died
        // before the guard asked to be told, nothing is started.
        let runner = libc::getppid();
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0);
        if libc::getppid() != runner {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        let program = libc::fork();
        if program < 0 {
            return Err(io::Error::last_os_error());
        }
        if program == 0 {
            // The program: no signal blocked (std cleared the runner's mask
            // before this closure), and it dies with its guard.
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            return Ok(());
        }
        guard(program, kill_all, runner, &watched)
    }
}

/// The guard's life: hold nothing open, wait for the program, kill the rest,
/// exit as the program did. `watched` holds the signals it waits for.
unsafe fn guard(
    program: libc::pid_t,
    kill_all: bool,
    runner: libc::pid_t,
    watched: &libc::sigset_t,
) -> ! {
    unsafe {
        // The pipes (and std's exec-error pipe) stay open only in the program.
        if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
            for fd in 0..4096 {
                libc::close(fd);
            }
        }
        let mut program_status: Option<libc::c_int> = None;
        'watch: loop {
            // What exited: the program ends the watch; orphans that came
            // back to the guard are reaped.
            loop {
                let mut status: libc::c_int = 0;
                let pid = libc::waitpid(-1, &mut status, libc::WNOHANG);
                if pid == program {
                    program_status = Some(status);
                    break 'watch;
                }
                if pid <= 0 {
                    break;
                }
            }
            // The runner is gone (its last thread ended: the guard has been
            // handed to another parent).
            if libc::getppid() != runner {
                break;
            }
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let signal = libc::sigwaitinfo(watched, &mut info);
            // A `SIGTERM` while the runner lives: asked to kill all, or (an
            // agent asked to stop) the program handles it.
            if signal == libc::SIGTERM && kill_all {
                break;
            }
        }
        kill_below(program);
        match program_status {
            Some(s) if libc::WIFEXITED(s) => libc::_exit(libc::WEXITSTATUS(s)),
            Some(s) if libc::WIFSIGNALED(s) => die_by(libc::WTERMSIG(s)),
            _ => die_by(libc::SIGKILL),
        }
    }
}

/// Ends the guard the way the program ended: by the same signal.
unsafe fn die_by(signal: libc::c_int) -> ! {
    unsafe {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(signal, &default, std::ptr::null_mut());
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::sigprocmask(libc::SIG_UNBLOCK, &all, std::ptr::null_mut());
        libc::kill(libc::getpid(), signal);
        libc::_exit(128 + signal);
    }
}

/// Kills every process below the guard: each child is killed as it shows
/// up (orphans come back to the guard as their parents die) until none is left.
unsafe fn kill_below(program: libc::pid_t) {
    unsafe {
        libc::kill(program, libc::SIGKILL);
        let me = libc::getpid();
        let mut buf = [0u8; 4096];
        for _round in 0..100_000 {
            let Some(len) = read_children(me, &mut buf) else {
                // No children list (a kernel without it): reap what is dead.
                let mut status = 0;
                while libc::waitpid(-1, &mut status, libc::WNOHANG) > 0 {}
                return;
            };
            for_each_pid(&buf[..len], |pid| {
                libc::kill(pid, libc::SIGKILL);
            });
            // Every child was just killed: this returns soon; ECHILD means
            // nothing is left.
            let mut status = 0;
            if libc::waitpid(-1, &mut status, 0) < 0 && *libc::__errno_location() != libc::EINTR {
                return;
            }
        }
    }
}

/// The pids of `pid`'s children, as text, into `buf`
/// (`/proc/PID/task/PID/children`: the guard has one thread).
unsafe fn read_children(pid: libc::pid_t, buf: &mut [u8; 4096]) -> Option<usize> {
    unsafe {
        let mut path = [0u8; 64];
        let mut n = 0;
        for b in b"/proc/" {
            path[n] = *b;
            n += 1;
        }
        n += write_decimal(&mut path[n..], pid as u64);
        for b in b"/task/" {
            path[n] = *b;
            n += 1;
        }
        n += write_decimal(&mut path[n..], pid as u64);
        for b in b"/children\0" {
            path[n] = *b;
            n += 1;
        }
        let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let mut len = 0;
        while len < buf.len() {
            let got = libc::read(fd, buf[len..].as_mut_ptr().cast(), buf.len() - len);
            if got <= 0 {
                break;
            }
            len += got as usize;
        }
        libc::close(fd);
        Some(len)
    }
}

fn write_decimal(out: &mut [u8], mut value: u64) -> usize {
    let mut digits = [0u8; 20];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (value % 10) as u8;
        n += 1;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for i in 0..n {
        out[i] = digits[n - 1 - i];
    }
    n
}

fn for_each_pid(text: &[u8], mut each: impl FnMut(libc::pid_t)) {
    let mut value: libc::pid_t = 0;
    let mut digits = false;
    for &b in text.iter().chain(std::iter::once(&b' ')) {
        if b.is_ascii_digit() {
            value = value
                .saturating_mul(10)
                .saturating_add((b - b'0') as libc::pid_t);
            digits = true;
        } else if digits {
            if value > 1 {
                each(value);
            }
            value = 0;
            digits = false;
        }
    }
}

/// Asks a guard started with [`OnTerm::KillAll`] to kill its program and
/// everything below it now.
pub fn stop(guard_pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(guard_pid) {
        // SAFETY: a signal to a process this runner started.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
}

// ---- The run process as the last line: a subreaper that sweeps ----

static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// Guards installed so far, and how many of them the last sweep had seen:
/// with no guard started since, there is nothing new to look for.
static STARTED: AtomicU64 = AtomicU64::new(0);
static SWEPT: AtomicU64 = AtomicU64::new(0);

fn live() -> &'static Mutex<HashSet<u32>> {
    static LIVE: OnceLock<Mutex<HashSet<u32>>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
}

/// Records a guard this process started, until the returned value is dropped
/// (when the guard has been waited for): [`sweep`] leaves it alone.
pub fn register(pid: u32) -> Registered {
    live().lock().unwrap_or_else(|e| e.into_inner()).insert(pid);
    Registered(pid)
}

/// A live guard, known to [`sweep`].
#[derive(Debug)]
pub struct Registered(u32);

impl Drop for Registered {
    fn drop(&mut self) {
        live()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.0);
    }
}

/// Makes this process (a run) the subreaper of everything it starts, so
/// that [`sweep`] can find what a killed guard left behind.
pub fn become_subreaper() -> io::Result<()> {
    // SAFETY: prctl with integer arguments.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    SUBREAPER.store(true, Ordering::SeqCst);
    Ok(())
}

/// In a subreaper run process: kills and reaps every child that is not a
/// live guard (orphans that came back). Returns how many were killed. Does
/// nothing in any other process (a test binary has children of its own).
pub fn sweep() -> usize {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return 0;
    }
    SWEPT.store(STARTED.load(Ordering::SeqCst), Ordering::SeqCst);
    let mut killed = 0;
    for _round in 0..100 {
        let strays: Vec<u32> = {
            let live = live().lock().unwrap_or_else(|e| e.into_inner());
            children_of_self()
                .into_iter()
                .filter(|pid| !live.contains(pid))
                .collect()
        };
        if strays.is_empty() {
            break;
        }
        for pid in &strays {
            // SAFETY: signals to and reaping of our own children; only pids
            // that are not live guards (tokio waits for those).
            unsafe {
                libc::kill(*pid as i32, libc::SIGKILL);
                let mut status = 0;
                libc::waitpid(*pid as i32, &mut status, 0);
            }
            killed += 1;
        }
    }
    if killed > 0 {
        tracing::warn!(
            killed,
            "killed processes left behind by a program or the agent"
        );
    }
    killed
}

/// [`sweep`] after a hook: only when the hook started a program (no other
/// hook leaves anything behind), so that a filter call costs nothing extra.
pub fn sweep_after_hook() -> usize {
    if STARTED.load(Ordering::SeqCst) == SWEPT.load(Ordering::SeqCst) {
        return 0;
    }
    sweep()
}

/// This process's children, from every thread's `children` list.
fn children_of_self() -> Vec<u32> {
    let mut pids = Vec::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return pids;
    };
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            pids.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// Opens `dir` and checks, on the open directory itself, that it lies in one
/// of `roots`: the handle to give [`install`] as the program's cwd.
pub fn open_dir_inside(dir: &Path, roots: &[PathBuf]) -> Result<(OwnedFd, PathBuf), DirRefusal> {
    use std::os::unix::fs::OpenOptionsExt;
    let refusal = |said: String| DirRefusal { said, real: None };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(dir)
        .map_err(|e| refusal(format!("{}: {e}", dir.display())))?;
    let fd = OwnedFd::from(file);
    let real = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
        .map_err(|e| refusal(format!("{}: {e}", dir.display())))?;
    if !inside(&real, roots) {
        return Err(DirRefusal {
            said: format!("{} is outside the workspace", dir.display()),
            real: (real.as_path() != dir).then_some(real),
        });
    }
    Ok((fd, real))
}

/// Why a directory may not be used. Shown whole (with the real path a link
/// led to) to the operator; [`DirRefusal::said`] alone to a plug, which
/// learns nothing of the host's layout from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirRefusal {
    /// What is wrong, in the caller's own terms.
    pub said: String,
    /// Where the directory really is, when a link led elsewhere.
    pub real: Option<PathBuf>,
}

impl std::fmt::Display for DirRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.said)?;
        match &self.real {
            Some(real) => write!(f, " (it is {})", real.display()),
            None => Ok(()),
        }
    }
}

/// Whether `path` (a real path, no symlinks) is one of `roots` or below one.
pub fn inside(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|root| {
        let root = root.canonicalize().unwrap_or_else(|_| root.clone());
        path.starts_with(&root)
    })
}
