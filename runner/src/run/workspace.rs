//! The session's workspace: a directory per environment, created by the first
//! run and removed after a successful teardown.

use std::path::{Path, PathBuf};

use std::io::{Error, Result};

/// `e`, saying what was being done.
fn doing(what: String) -> impl FnOnce(Error) -> Error {
    move |e| Error::new(e.kind(), format!("{what}: {e}"))
}

pub fn path(data_dir: &Path, environment_id: &str) -> PathBuf {
    data_dir.join("workspaces").join(environment_id)
}

pub fn ensure(data_dir: &Path, environment_id: &str) -> Result<PathBuf> {
    let dir = path(data_dir, environment_id);
    std::fs::create_dir_all(&dir)
        .map_err(doing(format!("creating the workspace {}", dir.display())))?;
    dir.canonicalize()
        .map_err(doing(format!("resolving {}", dir.display())))
}

/// Removes the workspace; one that is already gone is fine.
pub fn remove(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(doing(format!(
            "removing the workspace {}",
            dir.display()
        ))(e)),
        _ => Ok(()),
    }
}
