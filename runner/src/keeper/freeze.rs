//! Freezing a kept agent: everything below its guard, not only its process
//! group. A command prefix may start the agent in a session of its own
//! (`bwrap --new-session`): a signal to the group would not reach it, but
//! it is still a descendant of the guard (a subreaper).

/// Stops every process below the guard `guard` (the guard itself goes on: it
/// must still see the runner die). Two passes: what forked between them is
/// stopped too. Returns once each one has stopped (or `SETTLE` has passed):
/// `SIGSTOP` takes effect when the process is next scheduled, and a runnable
/// one on a busy machine can still be spending CPU after `kill` returns.
pub fn freeze(guard: u32) {
    signal_group(guard, libc::SIGSTOP);
    signal(guard, libc::SIGCONT);
    for _ in 0..2 {
        for pid in descendants(guard) {
            signal(pid, libc::SIGSTOP);
        }
    }
    let deadline = std::time::Instant::now() + SETTLE;
    let mut running = descendants(guard);
    while !running.is_empty() && std::time::Instant::now() < deadline {
        running.retain(|&pid| !stopped(pid));
        if !running.is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

/// How long `freeze` waits for the stops to take: a process in an
/// uninterruptible sleep (disk I/O) stops only when it wakes.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether `pid` is stopped, a zombie, or gone (`/proc/<pid>/stat`'s state).
fn stopped(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return true;
    };
    let state = stat
        .rfind(')')
        .and_then(|end| stat.get(end + 2..end + 3))
        .unwrap_or("X");
    matches!(state, "T" | "t" | "Z" | "X")
}

/// Lets every process below the guard `guard` go on.
pub fn thaw(guard: u32) {
    signal_group(guard, libc::SIGCONT);
    for pid in descendants(guard) {
        signal(pid, libc::SIGCONT);
    }
}

/// Kills everything below the guard `guard`, then its process group (the
/// guard with it). Below first: a process in a session of its own would
/// otherwise outlive its guard, orphaned.
pub fn kill(guard: u32) {
    for pid in descendants(guard) {
        signal(pid, libc::SIGKILL);
    }
    signal_group(guard, libc::SIGKILL);
}

/// The processes below `pid`, from `/proc/<pid>/task/<tid>/children`.
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let mut next = vec![pid];
    while let Some(parent) = next.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{parent}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let children =
                std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
                if !found.contains(&child) && found.len() < 4096 {
                    found.push(child);
                    next.push(child);
                }
            }
        }
    }
    found
}

fn signal(pid: u32, signal: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill(2) touches no memory.
        unsafe { libc::kill(pid, signal) };
    }
}

/// Signals the process group the agent's guard leads (pgid = its pid).
pub(super) fn signal_group(pgid: u32, signal: libc::c_int) {
    if let Ok(pgid) = libc::pid_t::try_from(pgid) {
        // SAFETY: as in `signal`, for the guard's process group.
        unsafe { libc::kill(-pgid, signal) };
    }
}
