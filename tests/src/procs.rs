//! What `/proc` says of the processes a test looks at: what is running,
//! frozen, or left behind.

use std::path::Path;

/// A process's `/proc/PID/stat`, the fields tests use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stat {
    pub pid: u32,
    /// `R`, `S`, `T` (stopped: frozen), `Z` (a zombie)…
    pub state: char,
    pub ppid: u32,
    pub pgrp: u32,
    /// CPU time used, user and system, in clock ticks.
    pub cpu_ticks: u64,
}

/// The stat of `pid`, if it exists.
pub fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    Some(Stat {
        pid,
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        pgrp: fields.get(2)?.parse().ok()?,
        cpu_ticks: fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?,
    })
}

/// Every process (not zombies), by pid order.
pub fn all() -> Vec<Stat> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found: Vec<Stat> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(stat)
        .filter(|s| s.state != 'Z')
        .collect();
    found.sort();
    found
}

/// The processes whose working directory lies under `dir`.
pub fn working_under(dir: &Path) -> Vec<Stat> {
    all()
        .into_iter()
        .filter(|s| {
            std::fs::read_link(format!("/proc/{}/cwd", s.pid)).is_ok_and(|cwd| cwd.starts_with(dir))
        })
        .collect()
}

/// Whether `pid` runs the program `exe`.
pub fn runs(pid: u32, exe: &Path) -> bool {
    std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|e| e == exe)
}
