//! `prepare-ahead`: one preparation of the plugs, in a scratch directory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, Result, anyhow, bail};

use crate::chain::PlugChain;
use crate::config::{ConfigCheck, ConfigFile, resolve_with};
use crate::host::bindings::RunKind;
use crate::host::state_store::MemoryStateStore;
use crate::host::{HostOptions, PlugHost, RunInfo};
use crate::run::workspace;

/// The hidden command that runs one preparation.
pub const PREPARE_AHEAD: &str = "prepare-ahead";

/// `prepare-ahead`'s exit status when another preparation holds the data
/// directory (a daemon sharing it): not a failure, the daemon tries later.
pub const BUSY: i32 = 3;

/// `prepare-ahead`'s exit status when no plug of blaise.yml prepares: the
/// daemon does not start another until blaise.yml changes.
pub const NOTHING: i32 = 4;

/// What a preparation did: the plugs that prepared, or that another one was
/// under way.
#[derive(Debug)]
pub enum Prepared {
    Plugs(Vec<String>),
    Busy,
}

/// Runs `on-prepare` of every plug of `config` that prepares, in the
/// scratch directory `scratch` (made and removed by the daemon).
pub async fn prepare_ahead(
    config: &Path,
    data_dir: &Path,
    cache_dir: &Path,
    scratch: &str,
) -> Result<Prepared> {
    if !workspace::is_scratch_name(scratch) {
        bail!("{scratch:?} is not a preparation's scratch directory");
    }
    let Some(_lock) = lock(data_dir)? else {
        return Ok(Prepared::Busy);
    };
    let workspace = data_dir
        .join("workspaces")
        .join(scratch)
        .canonicalize()
        .with_context(|| format!("the scratch directory {scratch}"))?;
    let host = PlugHost::new(&HostOptions {
        cache_dir: cache_dir.to_owned(),
        ..Default::default()
    })?;
    let file = ConfigFile::load(config).map_err(|e| anyhow!("{e}"))?;
    let plugs = resolve_with(&file, &host, ConfigCheck::Check)
        .await
        .map_err(|e| anyhow!("{e}"))?;
    let id = prepare_id(data_dir);
    let run = Arc::new(RunInfo {
        session_id: id.clone(),
        run_id: id,
        run_kind: RunKind::Start,
        processes_kept: false,
        workspace,
        plug_storage: data_dir.join("plug-storage"),
        // No session: what a plug writes is not kept.
        state: Arc::new(MemoryStateStore::default()),
    });
    let setups: Vec<_> = plugs.iter().map(|p| p.setup.clone()).collect();
    let mut chain = PlugChain::new(&host, &setups, run)
        .await
        .map_err(|e| anyhow!("{e}"))?;
    let prepared = chain.prepare().await.map_err(|e| anyhow!("{e}"))?;
    Ok(Prepared::Plugs(prepared))
}

/// The prepare id: the same for every preparation of this data directory
/// on this machine (the next one clears what an interrupted one left), and
/// different on another runner.
pub fn prepare_id(data_dir: &Path) -> String {
    let dir = data_dir
        .canonicalize()
        .unwrap_or_else(|_| data_dir.to_owned());
    let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let digest = crate::host::compile_cache::sha256_hex(
        format!("{}\n{}", host.trim(), dir.display()).as_bytes(),
    );
    format!("prepare-{}", &digest[..12])
}

/// The data directory's preparation lock, if no one else holds it.
fn lock(data_dir: &Path) -> Result<Option<std::fs::File>> {
    let path: PathBuf = data_dir.join("prepare.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    Ok(workspace::flock(&file).ok().map(|()| file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prepare_id_is_the_data_directorys_and_one_preparation_at_a_time() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let id = prepare_id(a.path());
        assert_eq!(id, prepare_id(a.path()), "stable");
        assert_ne!(id, prepare_id(b.path()));
        assert!(id.starts_with("prepare-") && id.len() == "prepare-".len() + 12);
        let held = lock(a.path()).unwrap();
        assert!(held.is_some());
        assert!(lock(a.path()).unwrap().is_none(), "held by another");
        assert!(lock(b.path()).unwrap().is_some(), "another data directory");
        drop(held);
        assert!(lock(a.path()).unwrap().is_some(), "let go");
    }
}
