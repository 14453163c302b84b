//! The session's workspace: a directory per environment, created by the first
//! run and removed after a successful teardown.
//!
//! A warm agent (see [`crate::warm`]) is started ahead in a *slot*, a
//! directory `wrm_<random>` beside the workspaces, locked (`flock`) by the
//! daemon that made it until a session adopts it or it is removed. The start run
//! that takes the agent adopts its slot: `workspaces/<environment>` becomes a
//! relative symlink to it, so that the workspace every later run resolves
//! (and the agent's working directory and home, fixed when it started) is
//! the slot's path. The link is followed only to such a sibling.
//!
//! A preparation ahead (see [`crate::ahead`]) runs in a *scratch* directory
//! `prp_<random>`, locked the same way and never adopted: removed when the
//! preparation ends, or by the sweep after a daemon that died.

use std::path::{Path, PathBuf};

use std::io::{Error, ErrorKind, Result};

/// `e`, saying what was being done.
fn doing(what: String) -> impl FnOnce(Error) -> Error {
    move |e| Error::new(e.kind(), format!("{what}: {e}"))
}

/// The name every slot starts with.
const SLOT: &str = "wrm_";
/// The name every preparation's scratch directory starts with.
const SCRATCH: &str = "prp_";

pub fn path(data_dir: &Path, environment_id: &str) -> PathBuf {
    data_dir.join("workspaces").join(environment_id)
}

pub fn ensure(data_dir: &Path, environment_id: &str) -> Result<PathBuf> {
    let dir = path(data_dir, environment_id);
    if let Ok(meta) = dir.symlink_metadata()
        && meta.file_type().is_symlink()
    {
        // An adopted slot, and nothing else: the link must name a sibling slot.
        let target = std::fs::read_link(&dir).map_err(doing(format!(
            "reading the workspace link {}",
            dir.display()
        )))?;
        if !target.to_str().is_some_and(is_slot_name) {
            return Err(Error::new(
                ErrorKind::InvalidData,
                format!(
                    "the workspace {} is a link to {}, not to a slot the runner made",
                    dir.display(),
                    target.display()
                ),
            ));
        }
    }
    // (Through an adopted slot's link, a slot removed by hand is made again.)
    std::fs::create_dir_all(dir.canonicalize().unwrap_or_else(|_| resolved(&dir)))
        .map_err(doing(format!("creating the workspace {}", dir.display())))?;
    dir.canonicalize()
        .map_err(doing(format!("resolving {}", dir.display())))
}

/// Where `dir` leads: its link's target beside it, or itself.
fn resolved(dir: &Path) -> PathBuf {
    match (std::fs::read_link(dir), dir.parent()) {
        (Ok(target), Some(parent)) => parent.join(target),
        _ => dir.to_path_buf(),
    }
}

/// Removes the workspace (an adopted slot's link first, then the slot); one
/// that is already gone is fine.
pub fn remove(dir: &Path) -> Result<()> {
    if let (Some(parent), Some(name)) = (dir.parent(), dir.file_name().and_then(|n| n.to_str()))
        && is_slot_name(name)
    {
        unlink_slot(parent, name)?;
    }
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != ErrorKind::NotFound => Err(doing(format!(
            "removing the workspace {}",
            dir.display()
        ))(e)),
        _ => Ok(()),
    }
}

/// Whether `name` is a slot's directory name (`wrm_<hex>`).
pub fn is_slot_name(name: &str) -> bool {
    random_after(name, SLOT)
}

/// Whether `name` is that of a preparation's scratch directory.
pub fn is_scratch_name(name: &str) -> bool {
    random_after(name, SCRATCH)
}

fn random_after(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|hex| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A slot being made or waiting: its directory, locked while this is held
/// (the sweep of another daemon sharing the data directory leaves it).
#[derive(Debug)]
pub struct SlotLock {
    pub name: String,
    pub dir: PathBuf,
    _lock: std::fs::File,
}

/// A new, empty slot, locked.
pub fn new_slot(data_dir: &Path) -> Result<SlotLock> {
    new_locked(data_dir, SLOT)
}

/// A new, empty scratch directory for a preparation, locked.
pub fn new_scratch(data_dir: &Path) -> Result<SlotLock> {
    new_locked(data_dir, SCRATCH)
}

fn new_locked(data_dir: &Path, prefix: &str) -> Result<SlotLock> {
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).map_err(|e| Error::other(e.to_string()))?;
    let name = format!("{prefix}{}", hex::encode(random));
    let dir = data_dir.join("workspaces").join(&name);
    std::fs::create_dir_all(data_dir.join("workspaces"))
        .map_err(doing(format!("creating {}", data_dir.display())))?;
    std::fs::create_dir(&dir).map_err(doing(format!("creating the slot {}", dir.display())))?;
    let lock = std::fs::File::open(&dir)
        .and_then(|dir| flock(&dir).map(|()| dir))
        .map_err(doing(format!("locking the slot {}", dir.display())))?;
    Ok(SlotLock {
        name,
        dir,
        _lock: lock,
    })
}

/// `flock(LOCK_EX | LOCK_NB)`: taken, or held by a live process.
pub(crate) fn flock(file: &std::fs::File) -> Result<()> {
    use std::os::fd::AsRawFd as _;
    // SAFETY: flock(2) on a descriptor this function borrows.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        Ok(())
    } else {
        Err(Error::last_os_error())
    }
}

/// Whether an environment's workspace links to slot `slot`.
pub fn is_adopted(data_dir: &Path, slot: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(data_dir.join("workspaces")) else {
        return false;
    };
    entries.flatten().any(|entry| {
        entry.file_type().is_ok_and(|t| t.is_symlink())
            && std::fs::read_link(entry.path()).is_ok_and(|t| t.as_os_str() == slot)
    })
}

/// Makes slot `slot` the workspace of `environment_id`; refused when the
/// environment has a workspace already (the link is made only if nothing is
/// there: two runs cannot both adopt).
pub fn adopt(data_dir: &Path, environment_id: &str, slot: &str) -> Result<()> {
    if !is_slot_name(slot) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("{slot:?} is not a slot"),
        ));
    }
    let link = path(data_dir, environment_id);
    std::os::unix::fs::symlink(slot, &link).map_err(doing(format!(
        "making {} the workspace {}",
        slot,
        link.display()
    )))
}

/// Removes a slot no session adopted (a warm agent let go).
pub fn remove_slot(data_dir: &Path, slot: &str) -> Result<()> {
    if !is_slot_name(slot) {
        return Ok(());
    }
    remove(&data_dir.join("workspaces").join(slot))
}

/// Removes a preparation's scratch directory.
pub fn remove_scratch(data_dir: &Path, scratch: &str) -> Result<()> {
    if !is_scratch_name(scratch) {
        return Ok(());
    }
    remove(&data_dir.join("workspaces").join(scratch))
}

/// How long [`remove_when_quiet`] keeps trying.
const QUIET_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// Removes slot or scratch directory `name` of a helper killed a moment ago.
///
/// The programs the helper started (a `git clone` of a preparation, a warm
/// agent) die after it, by their guards' parent-death signal, and one may
/// still add a file while the tree is walked: `Directory not empty`. So the
/// removal is tried again until it holds, for up to [`QUIET_WITHIN`]. (A
/// removed directory is not made again: they create entries in it, never it.)
pub async fn remove_when_quiet(data_dir: &Path, name: &str) -> Result<()> {
    let remove = || {
        if is_slot_name(name) {
            remove_slot(data_dir, name)
        } else {
            remove_scratch(data_dir, name)
        }
    };
    let start = std::time::Instant::now();
    loop {
        match remove() {
            // (Only what a writer that dies clears: not a permission.)
            Err(e)
                if e.kind() == ErrorKind::DirectoryNotEmpty && start.elapsed() < QUIET_WITHIN =>
            {
                tracing::debug!(name, "removing a helper's directory, again: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            done => return done,
        }
    }
}

/// Removes the slots that no environment adopted and no live daemon holds
/// (those of warm agents that died with their daemon), and such scratch
/// directories of preparations. Returns how many.
pub fn sweep_slots(data_dir: &Path) -> usize {
    let workspaces = data_dir.join("workspaces");
    let Ok(entries) = std::fs::read_dir(&workspaces) else {
        return 0;
    };
    let mut linked = std::collections::HashSet::new();
    let mut slots = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().is_ok_and(|t| t.is_symlink()) {
            if let Ok(target) = std::fs::read_link(entry.path()) {
                linked.insert(target.to_string_lossy().into_owned());
            }
        } else if is_slot_name(&name) || is_scratch_name(&name) {
            slots.push(name);
        }
    }
    slots
        .into_iter()
        .filter(|s| !linked.contains(s))
        // Free: the daemon that made it is gone (its lock went with it).
        .filter(|s| std::fs::File::open(workspaces.join(s)).is_ok_and(|d| flock(&d).is_ok()))
        .filter(|s| std::fs::remove_dir_all(workspaces.join(s)).is_ok())
        .count()
}

/// Removes the links in `workspaces` to slot `name`.
fn unlink_slot(workspaces: &Path, name: &str) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(workspaces) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_symlink())
            && std::fs::read_link(entry.path()).is_ok_and(|t| t.as_os_str() == name)
        {
            std::fs::remove_file(entry.path()).map_err(doing(format!(
                "removing the workspace link {}",
                entry.path().display()
            )))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_adopted_slot_is_the_workspace_and_goes_whole() {
        let data = tempfile::tempdir().unwrap();
        let SlotLock {
            name: slot, dir, ..
        } = new_slot(data.path()).unwrap();
        std::fs::write(dir.join("mine"), "x").unwrap();
        adopt(data.path(), "env_1", &slot).unwrap();
        let workspace = ensure(data.path(), "env_1").unwrap();
        assert_eq!(workspace, dir.canonicalize().unwrap());
        assert!(workspace.join("mine").exists());
        assert!(adopt(data.path(), "env_1", &slot).is_err(), "adopted once");
        remove(&workspace).unwrap();
        assert!(!dir.exists());
        assert!(
            path(data.path(), "env_1").symlink_metadata().is_err(),
            "the link too"
        );
    }

    #[test]
    fn an_adopted_slot_removed_by_hand_is_made_again() {
        let data = tempfile::tempdir().unwrap();
        let SlotLock {
            name: slot, dir, ..
        } = new_slot(data.path()).unwrap();
        adopt(data.path(), "env_1", &slot).unwrap();
        std::fs::remove_dir(&dir).unwrap();
        let workspace = ensure(data.path(), "env_1").unwrap();
        assert!(workspace.is_dir());
        assert_eq!(workspace.file_name().unwrap().to_str(), Some(slot.as_str()));
    }

    #[test]
    fn a_link_anywhere_but_a_slot_is_refused() {
        let data = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(data.path().join("workspaces")).unwrap();
        std::os::unix::fs::symlink("/etc", path(data.path(), "env_1")).unwrap();
        let e = ensure(data.path(), "env_1").unwrap_err();
        assert!(
            e.to_string().contains("not to a slot the runner made"),
            "{e}"
        );
        assert!(adopt(data.path(), "env_2", "../../etc").is_err());
    }

    /// A program still writing in a scratch directory for a moment after
    /// its helper was killed (a clone's objects) does not leave it behind.
    #[tokio::test]
    async fn a_directory_written_in_while_it_is_removed_goes_once_quiet() {
        let data = tempfile::tempdir().unwrap();
        let scratch = new_scratch(data.path()).unwrap();
        let dir = scratch.dir.clone();
        let writer = std::thread::spawn(move || {
            let until = std::time::Instant::now() + std::time::Duration::from_millis(400);
            let mut n = 0u64;
            while std::time::Instant::now() < until {
                // As a clone does: entries inside, never the directory itself.
                let sub = dir.join(format!("objects{}", n % 4));
                let _ = std::fs::create_dir(&sub);
                let _ = std::fs::write(sub.join(n.to_string()), "x");
                n += 1;
            }
            n
        });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        remove_when_quiet(data.path(), &scratch.name).await.unwrap();
        assert!(writer.join().unwrap() > 100, "the writer wrote meanwhile");
        assert!(!scratch.dir.exists(), "removed");
        // Neither a name of another kind nor a missing one is an error.
        remove_when_quiet(data.path(), &scratch.name).await.unwrap();
        remove_when_quiet(data.path(), "env_1").await.unwrap();
    }

    #[test]
    fn the_sweep_keeps_adopted_slots_and_those_a_live_daemon_holds() {
        let data = tempfile::tempdir().unwrap();
        let adopted = new_slot(data.path()).unwrap();
        let held = new_slot(data.path()).unwrap();
        let loose = new_slot(data.path()).unwrap();
        adopt(data.path(), "env_1", &adopted.name).unwrap();
        assert!(is_adopted(data.path(), &adopted.name));
        assert!(!is_adopted(data.path(), &held.name));
        std::fs::create_dir_all(path(data.path(), "env_2")).unwrap();
        // Its daemon died: the lock went with it.
        let loose_dir = loose.dir.clone();
        drop(loose);
        drop(adopted);
        assert_eq!(sweep_slots(data.path()), 1);
        assert!(!loose_dir.exists());
        assert!(held.dir.exists(), "a live daemon's");
        assert!(ensure(data.path(), "env_1").is_ok());
        assert!(path(data.path(), "env_2").exists());
        assert!(is_slot_name(&held.name) && !is_slot_name("wrm_") && !is_slot_name("wrm_x1"));
    }
}
