//! Support for the end-to-end tests: the workspace's plugs, built once per
//! test process into their own target directory.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use blaise_runner::host::{HostOptions, PlugHost};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Builds a plug crate of the workspace (e.g. `plugs/redaction`,
/// `tests/plugs/probe`) to a component, once per process.
pub fn plug(crate_dir: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<(String, PathBuf)>>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built.lock().unwrap();
    if let Some((_, path)) = built.iter().find(|(d, _)| d == crate_dir) {
        return path.clone();
    }
    let target = root().join("target").join("plugs");
    let path = blaise_runner::cli::build_plug(&root().join(crate_dir), Some(&target))
        .unwrap_or_else(|e| panic!("building {crate_dir}: {e:#}"));
    built.push((crate_dir.to_string(), path.clone()));
    path
}

/// A plug host with its own compile cache in `dir`.
pub fn host_in(dir: &Path) -> Arc<PlugHost> {
    Arc::new(
        PlugHost::new(&HostOptions {
            cache_dir: dir.to_path_buf(),
            ..HostOptions::default()
        })
        .expect("creating the plug host"),
    )
}

/// The runner binary built by this cargo invocation.
pub fn runner_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    dir.join("blaise-runner")
}
