//! Downloaded plugs on disk, by digest, beside the compile cache
//! (`<cache dir>/plugs/`): `sha256-<hex>.wasm` for components,
//! `sha256-<hex>.manifest.json` for OCI manifests, `sha256-<hex>.sig.json` for
//! the signatures found for an artifact.
//!
//! A file is only ever written whole (temp file + rename) and only after its
//! digest was checked, so what is there is what its name says: a download
//! streams into a `.download-*` file beside them, renamed when it checks out,
//! removed when it does not (and, if the process was killed, swept an hour later
//! by the next download). Downloads of the
//! same thing take a file lock first, so that runs asking at once download it
//! once: the first downloads, the others wait and find it cached.

use std::fs::{self, File};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::reference::Digest;
use crate::error::{Context as _, Result, bail};
use blaise_host::compile_cache::write_private;

pub struct PlugCache {
    dir: PathBuf,
}

/// Held while one process fetches something; released on drop.
pub struct FetchLock {
    _file: File,
}

impl PlugCache {
    /// The cache of downloaded plugs in the runner's cache directory.
    pub fn open(cache_dir: &Path) -> Result<PlugCache> {
        let dir = cache_dir.join("plugs");
        fs::create_dir_all(&dir)
            .with_context(|| format!("creating the plug cache {}", dir.display()))?;
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
            .with_context(|| format!("making {} private", dir.display()))?;
        Ok(PlugCache { dir })
    }

    /// A new file to download into, deleted unless committed.
    pub fn stage(&self) -> Result<tempfile::NamedTempFile> {
        // Here, not in `open`: a run's start opens the cache and downloads nothing.
        sweep_stale_downloads(&self.dir);
        tempfile::Builder::new()
            .prefix(STAGING)
            .tempfile_in(&self.dir)
            .with_context(|| format!("creating a download file in {}", self.dir.display()))
    }

    /// Keeps a staged download whose digest the caller checked to be
    /// `digest` (computed while it was written).
    pub fn commit_component(
        &self,
        staged: tempfile::NamedTempFile,
        digest: &Digest,
    ) -> Result<PathBuf> {
        let path = self.component_path(digest);
        staged
            .persist(&path)
            .with_context(|| format!("caching {}", path.display()))?;
        Ok(path)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the component with this digest is (or would be) cached.
    pub fn component_path(&self, digest: &Digest) -> PathBuf {
        self.dir.join(format!("sha256-{}.wasm", digest.hex()))
    }

    pub fn has_component(&self, digest: &Digest) -> bool {
        self.component_path(digest).is_file()
    }

    /// Stores a component after checking its digest; on a mismatch nothing is
    /// stored and the error names both digests.
    pub fn store_component(&self, expected: &Digest, bytes: &[u8]) -> Result<PathBuf> {
        let actual = Digest::of(bytes);
        if actual != *expected {
            bail!(Verify, "digest mismatch: expected {expected}, got {actual}");
        }
        let path = self.component_path(expected);
        write_private(&path, bytes)?;
        Ok(path)
    }

    /// Removes a download the runner refused after caching it (its
    /// component at `path`, and the manifest and signatures of `digest`);
    /// whether anything was removed.
    pub fn forget(&self, path: &Path, digest: Option<&Digest>) -> bool {
        let mut removed = path.starts_with(&self.dir) && fs::remove_file(path).is_ok();
        if let Some(d) = digest {
            for file in [self.manifest_path(d), self.signatures_path(d)] {
                removed |= fs::remove_file(file).is_ok();
            }
        }
        removed
    }

    pub fn manifest(&self, digest: &Digest) -> Option<Vec<u8>> {
        let bytes = fs::read(self.manifest_path(digest)).ok()?;
        // Cheap (a manifest is a few hundred bytes) and it keeps the rule
        // "what is there is what its name says" even for a hand-edited file.
        (Digest::of(&bytes) == *digest).then_some(bytes)
    }

    pub fn store_manifest(&self, digest: &Digest, bytes: &[u8]) -> Result<()> {
        if Digest::of(bytes) != *digest {
            bail!(Verify, "manifest digest mismatch: expected {digest}");
        }
        Ok(write_private(&self.manifest_path(digest), bytes)?)
    }

    fn manifest_path(&self, digest: &Digest) -> PathBuf {
        self.dir
            .join(format!("sha256-{}.manifest.json", digest.hex()))
    }

    /// The signatures last found for the artifact `digest` (checked again on
    /// every use: they are evidence, not a verdict).
    pub fn signatures(&self, digest: &Digest) -> Option<Vec<u8>> {
        fs::read(self.signatures_path(digest)).ok()
    }

    /// Keeps signatures that were verified (a refused artifact leaves nothing).
    pub fn store_signatures(&self, digest: &Digest, json: &[u8]) -> Result<()> {
        Ok(write_private(&self.signatures_path(digest), json)?)
    }

    fn signatures_path(&self, digest: &Digest) -> PathBuf {
        self.dir.join(format!("sha256-{}.sig.json", digest.hex()))
    }

    /// Takes the fetch lock for `key` (a digest, or a URL), waiting for
    /// another process that holds it.
    pub async fn lock(&self, key: &str) -> Result<FetchLock> {
        let name = blaise_host::compile_cache::sha256_hex(key.as_bytes());
        let path = self.dir.join(format!("{}.lock", &name[..32]));
        tokio::task::spawn_blocking(move || -> Result<FetchLock> {
            let file = File::options()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .with_context(|| format!("opening the lock {}", path.display()))?;
            file.lock()
                .with_context(|| format!("locking {}", path.display()))?;
            Ok(FetchLock { _file: file })
        })
        .await?
    }
}

const STAGING: &str = ".download-";

/// Removes downloads left by a process that was killed mid-way: older than an
/// hour, so that none still being written by another process is touched.
fn sweep_stale_downloads(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let hour = std::time::Duration::from_secs(3600);
    for entry in entries.flatten() {
        let stale = entry.file_name().to_string_lossy().starts_with(STAGING)
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > hour));
        if stale {
            let _ = fs::remove_file(entry.path());
        }
    }
}
