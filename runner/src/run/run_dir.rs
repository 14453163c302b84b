//! The run's own directory (`<data-dir>/runs/<run id>`: what the outbox spills to disk),
//! claimed for the run's lifetime with a lock that dies with its process. A run killed with
//! SIGKILL cannot remove its directory; the daemon sweeps what no live run holds when it starts.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The lock file in a run's directory.
const LOCK: &str = ".lock";

/// How old a directory without a lock must be before it is swept (it may be a run's that has
/// just made it and not locked it yet).
const UNLOCKED_GRACE: Duration = Duration::from_secs(60);

/// A run's directory, held: removed when dropped.
#[derive(Debug)]
pub struct RunDir {
    path: PathBuf,
    _lock: Option<File>,
}

impl RunDir {
    /// Makes the directory and locks it. A directory that cannot be made is no reason to fail a
    /// run (the outbox reports a spill that fails): it is then only not locked.
    pub fn claim(path: PathBuf) -> RunDir {
        let lock = std::fs::create_dir_all(&path)
            .and_then(|()| File::create(path.join(LOCK)))
            .and_then(|file| lock(&file).map(|()| file));
        match lock {
            Ok(file) => RunDir {
                path,
                _lock: Some(file),
            },
            Err(e) => {
                tracing::warn!("the run's directory {}: {e}", path.display());
                RunDir { path, _lock: None }
            }
        }
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// `flock(LOCK_EX | LOCK_NB)`: taken, or held by a live process (EWOULDBLOCK).
fn lock(file: &File) -> std::io::Result<()> {
    // SAFETY: flock(2) on a descriptor this function borrows; it touches no memory.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Removes the directories under `runs` that no live run holds: their lock is free (its run
/// died, even by SIGKILL), or they have none and are older than a minute. Returns how many.
pub fn sweep(runs: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(runs) else {
        return 0;
    };
    let mut swept = 0;
    for entry in entries.flatten() {
        let dir = entry.path();
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let stale = match File::open(dir.join(LOCK)) {
            // Free: its run is gone (the lock went with its process).
            Ok(file) => lock(&file).is_ok(),
            Err(_) => entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .is_some_and(|age| age > UNLOCKED_GRACE),
        };
        if stale && std::fs::remove_dir_all(&dir).is_ok() {
            swept += 1;
        }
    }
    swept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_directory_stays_and_one_whose_run_died_is_swept() {
        let tmp = tempfile::tempdir().unwrap();
        let runs = tmp.path().join("runs");
        let live = RunDir::claim(runs.join("run_live"));
        std::fs::write(runs.join("run_live/spill-1"), b"kept").unwrap();
        // A run that died: its lock file is there and free.
        let dead = runs.join("run_dead");
        std::fs::create_dir_all(&dead).unwrap();
        std::fs::write(dead.join(LOCK), b"").unwrap();
        std::fs::write(dead.join("spill-1"), b"left behind").unwrap();
        // A directory just made, not locked yet: left for now.
        std::fs::create_dir_all(runs.join("run_new")).unwrap();
        assert_eq!(sweep(&runs), 1);
        assert!(runs.join("run_live/spill-1").exists());
        assert!(!dead.exists());
        assert!(runs.join("run_new").exists());
        drop(live);
        assert!(!runs.join("run_live").exists(), "a run removes its own");
    }

    #[test]
    fn the_lock_dies_with_the_process_that_held_it() {
        let tmp = tempfile::tempdir().unwrap();
        let runs = tmp.path().join("runs");
        let dir = runs.join("run_killed");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(LOCK), b"").unwrap();
        // Another process holds the lock, then is killed with SIGKILL.
        let mut holder = std::process::Command::new("flock")
            .arg("--no-fork")
            .arg(dir.join(LOCK))
            .args(["sleep", "600"])
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while File::open(dir.join(LOCK)).is_ok_and(|f| lock(&f).is_ok()) {
            assert!(std::time::Instant::now() < deadline, "flock never took it");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(sweep(&runs), 0, "held by a live process");
        holder.kill().unwrap();
        holder.wait().unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while sweep(&runs) == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the lock outlived its holder"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!dir.exists());
    }
}
