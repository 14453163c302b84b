//! The session's workspace: a directory per environment, created by the first
//! run and removed after a successful teardown.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

pub fn path(data_dir: &Path, environment_id: &str) -> PathBuf {
    data_dir.join("workspaces").join(environment_id)
}

pub fn ensure(data_dir: &Path, environment_id: &str) -> Result<PathBuf> {
    let dir = path(data_dir, environment_id);
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("creating the workspace {}", dir.display()))?;
    dir.canonicalize()
        .with_context(|| format!("resolving {}", dir.display()))
}

/// Removes the workspace; one that is already gone is fine.
pub fn remove(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing the workspace {}", dir.display()))
        }
        _ => Ok(()),
    }
}
