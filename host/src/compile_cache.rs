//! Compiled plugs on disk, keyed by the component's sha256 and the engine's
//! compatibility hash; beside them, each plug's answer to `describe`; and the
//! sha256 of each component file this runner read, kept while the file is
//! unchanged, so that loading a plug again neither reads nor hashes it (a
//! 1.4 MB plug: about 1 ms of its load) nor instantiates it to ask what it is
//! (100–300 µs of a run's start per plug).
//!
//! Loading a precompiled artifact skips wasmtime's validation, so the cache only
//! ever loads files this runner wrote: artifacts are written atomically into a
//! directory private to the runner's user (0700), and a file owned by anyone
//! else, or writable by group or others, is ignored and recompiled. Whoever can
//! write as the runner's own user can already change the runner itself.

use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::{Context as _, Result};

use crate::HostError;
use crate::bindings::PlugInfo;
use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// Where compiled artifacts live.
pub struct CompileCache {
    dir: PathBuf,
    engine_key: String,
}

/// How a component was obtained, for benchmarks and logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Cache,
    Compiled,
}

impl CompileCache {
    pub fn open(dir: &Path, engine: &Engine) -> Result<CompileCache, HostError> {
        Self::open_dir(dir, engine).map_err(|e| HostError::of(HostError::Cache, &e))
    }

    fn open_dir(dir: &Path, engine: &Engine) -> Result<CompileCache> {
        fs::create_dir_all(dir)
            .with_context(|| format!("creating the compile cache {}", dir.display()))?;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .with_context(|| format!("making {} private", dir.display()))?;
        let mut hasher = DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        Ok(CompileCache {
            dir: dir.to_path_buf(),
            engine_key: format!("{:016x}", hasher.finish()),
        })
    }

    /// The component for `bytes` (whose sha256 is `sha256`), from the cache if
    /// this runner compiled it before, else compiled now and stored.
    pub fn component(
        &self,
        engine: &Engine,
        sha256: &str,
        bytes: &[u8],
    ) -> Result<(Component, Origin), HostError> {
        if let Some(component) = self.cached(engine, sha256)? {
            return Ok((component, Origin::Cache));
        }
        let component = Component::new(engine, bytes)
            .map_err(|e| HostError::NotAComponent(format!("{e:#}")))?;
        let artifact = self.artifact(sha256);
        if let Err(err) = self.store(&component, &artifact) {
            // A cache that cannot be written only costs a compile next time.
            tracing::warn!(path = %artifact.display(), "could not cache compiled plug: {err:#}");
        }
        Ok((component, Origin::Compiled))
    }

    /// The compiled component whose source has this sha256, if this runner
    /// compiled it before.
    pub fn cached(&self, engine: &Engine, sha256: &str) -> Result<Option<Component>, HostError> {
        self.cached_artifact(engine, sha256)
            .map_err(|e| HostError::of(HostError::Cache, &e))
    }

    fn cached_artifact(&self, engine: &Engine, sha256: &str) -> Result<Option<Component>> {
        let artifact = self.artifact(sha256);
        let Ok(meta) = fs::metadata(&artifact) else {
            return Ok(None);
        };
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me || meta.mode() & 0o022 != 0 {
            tracing::warn!(path = %artifact.display(), "ignoring a compiled plug this runner did not write");
            return Ok(None);
        }
        if !dir_is_private(&self.dir, me) {
            tracing::warn!(dir = %self.dir.display(), "compile cache is not private to this user; recompiling");
            return Ok(None);
        }
        // SAFETY: the artifact was written by `store` below (owner and modes of
        // file and directory checked above) for an engine with the same
        // compatibility hash, which wasmtime checks again.
        match unsafe { Component::deserialize_file(engine, &artifact) } {
            Ok(component) => Ok(Some(component)),
            Err(err) => {
                tracing::warn!(path = %artifact.display(), "stale compiled plug ({err}); recompiling");
                Ok(None)
            }
        }
    }

    fn artifact(&self, sha256: &str) -> PathBuf {
        self.dir.join(format!("{sha256}-{}.cwasm", self.engine_key))
    }

    fn store(&self, component: &Component, artifact: &Path) -> Result<()> {
        write_private_file(artifact, &component.serialize()?)
    }

    /// The sha256 this runner computed for the component file at `path`, if
    /// the file (`meta`, from the open file) has not changed since: the same
    /// device, inode, size, modification and change times, as git's index
    /// trusts them. Only the runner's own user can write the record, and a
    /// change to the file that keeps its change time takes root.
    pub fn known_digest(&self, path: &Path, meta: &fs::Metadata) -> Option<String> {
        let record = String::from_utf8(self.read_own(&self.digest_record(path))?).ok()?;
        let (seen, sha256) = record.trim_end().rsplit_once(' ')?;
        // It names a file in the cache: 64 hex digits and nothing else.
        let digest = sha256.len() == 64 && sha256.bytes().all(|c| c.is_ascii_hexdigit());
        (seen == identity(meta) && digest).then(|| sha256.to_string())
    }

    /// Records the sha256 of the component file at `path` as it was when
    /// `meta` was taken (before its bytes were read). A file changed less
    /// than [`SETTLED`] ago is not recorded: file times are coarse, and a
    /// write in the same tick after the read would keep them.
    pub fn remember_digest(&self, path: &Path, meta: &fs::Metadata, sha256: &str) {
        let settled = |t: std::io::Result<SystemTime>| {
            t.ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .is_some_and(|age| age >= SETTLED)
        };
        if !settled(meta.modified()) || !settled(change_time(meta)) {
            return;
        }
        let record = self.digest_record(path);
        let written = record
            .parent()
            .context("no parent")
            .and_then(|dir| {
                fs::create_dir_all(dir)?;
                Ok(fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?)
            })
            .and_then(|()| {
                write_private_file(&record, format!("{} {sha256}\n", identity(meta)).as_bytes())
            });
        if let Err(err) = written {
            // Without a record the next load reads and hashes the file again.
            tracing::debug!(path = %record.display(), "could not record a plug's digest: {err:#}");
        }
    }

    /// What the plug whose component has this sha256 answered to `describe`,
    /// if this runner (this build: the answer's shape is the contract's) asked it before.
    pub fn description(&self, sha256: &str) -> Option<PlugInfo> {
        let bytes = self.read_own(&self.description_file(sha256))?;
        // An answer that no longer reads (a record written by another build)
        // is asked for again.
        serde_json::from_slice(&bytes).ok()
    }

    /// Keeps a plug's `describe` answer for the next load of the same
    /// component. A plug's answer depends on its component alone (its
    /// `describe` gets no session, workspace, config or grants), and only a
    /// successful answer is kept: a plug whose `describe` fails is asked again.
    pub fn remember_description(&self, sha256: &str, info: &PlugInfo) {
        let file = self.description_file(sha256);
        let written = serde_json::to_vec(info)
            .map_err(anyhow::Error::from)
            .and_then(|json| write_private_file(&file, &json));
        if let Err(err) = written {
            // Without it the next load asks the plug again.
            tracing::debug!(path = %file.display(), "could not keep a plug's description: {err:#}");
        }
    }

    fn description_file(&self, sha256: &str) -> PathBuf {
        self.dir.join(format!(
            "{sha256}-{}.describe-{}-{}.json",
            self.engine_key,
            crate::contract::VERSION,
            env!("CARGO_PKG_VERSION")
        ))
    }

    /// The bytes of a file in the cache, trusted as the artifacts are: written
    /// by this user, in its private directory, writable by nobody else.
    fn read_own(&self, path: &Path) -> Option<Vec<u8>> {
        let mut file = fs::File::open(path).ok()?;
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        let own = file.metadata().ok()?;
        if own.uid() != me || own.mode() & 0o022 != 0 || !dir_is_private(&self.dir, me) {
            return None;
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).ok()?;
        Some(bytes)
    }

    /// Where the digest of the file at `path` is recorded: named by the
    /// sha256 of the path.
    fn digest_record(&self, path: &Path) -> PathBuf {
        let key = sha256_hex(path.as_os_str().as_bytes());
        self.dir.join("digests").join(&key[..32])
    }
}

/// How long a file must have stayed unchanged before its digest is recorded.
pub const SETTLED: Duration = Duration::from_secs(1);

/// What identifies a file's content without reading it.
fn identity(meta: &fs::Metadata) -> String {
    format!(
        "{} {} {} {}.{:09} {}.{:09}",
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec()
    )
}

fn change_time(meta: &fs::Metadata) -> std::io::Result<SystemTime> {
    let secs = u64::try_from(meta.ctime()).map_err(std::io::Error::other)?;
    Ok(SystemTime::UNIX_EPOCH + Duration::new(secs, meta.ctime_nsec() as u32))
}

pub fn dir_is_private(dir: &Path, me: u32) -> bool {
    fs::metadata(dir).is_ok_and(|m| m.uid() == me && m.mode() & 0o077 == 0)
}

/// Writes a file atomically (temp file + rename) with mode 0600.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), HostError> {
    write_private_file(path, bytes)
        .map_err(|e| HostError::Cache(format!("writing {}: {e:#}", path.display())))
}

fn write_private_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().context("cache path has no parent")?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file()
        .set_permissions(fs::Permissions::from_mode(0o600))?;
    tmp.persist(path)?;
    Ok(())
}

/// The sha256 of a component, as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Fails unless the bytes look like a component (and not a precompiled artifact
/// or a core module), so that an operator gets a clear message.
pub fn check_is_component(bytes: &[u8], source: &Path) -> Result<(), HostError> {
    const MAGIC: &[u8] = b"\0asm";
    if bytes.len() < 8 || &bytes[..4] != MAGIC {
        return Err(HostError::NotAComponent(format!(
            "{} is not a WebAssembly component (build plugs with `cargo build --target wasm32-wasip2`)",
            source.display()
        )));
    }
    // Layer 1 in the header marks a component; 0 marks a core module.
    if bytes[6..8] != [1, 0] {
        return Err(HostError::NotAComponent(format!(
            "{} is a core WebAssembly module, not a component: build it for `wasm32-wasip2`",
            source.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settle() {
        std::thread::sleep(SETTLED + Duration::from_millis(100));
    }

    #[test]
    fn a_files_digest_is_trusted_while_the_file_is_unchanged_and_only_once_settled() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = CompileCache::open(&tmp.path().join("compiled"), &Engine::default()).unwrap();
        let file = tmp.path().join("plug.wasm");
        fs::write(&file, b"first").unwrap();
        let sha = sha256_hex(b"first");

        // Just written: its times may not yet tell a later write apart.
        cache.remember_digest(&file, &fs::metadata(&file).unwrap(), &sha);
        assert_eq!(
            cache.known_digest(&file, &fs::metadata(&file).unwrap()),
            None
        );

        settle();
        cache.remember_digest(&file, &fs::metadata(&file).unwrap(), &sha);
        assert_eq!(
            cache.known_digest(&file, &fs::metadata(&file).unwrap()),
            Some(sha.clone())
        );
        // Another path is another record.
        assert_eq!(
            cache.known_digest(
                &tmp.path().join("other.wasm"),
                &fs::metadata(&file).unwrap()
            ),
            None
        );

        // The same size, other bytes: its change time moved.
        fs::write(&file, b"secnd").unwrap();
        assert_eq!(
            cache.known_digest(&file, &fs::metadata(&file).unwrap()),
            None
        );

        // A record others may write is not trusted.
        settle();
        cache.remember_digest(&file, &fs::metadata(&file).unwrap(), &sha256_hex(b"secnd"));
        let meta = fs::metadata(&file).unwrap();
        assert!(cache.known_digest(&file, &meta).is_some());
        let record = cache.digest_record(&file);
        fs::set_permissions(&record, fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(cache.known_digest(&file, &meta), None);

        // Nor one whose digest is not 64 hex digits (it names a file).
        let bad = format!("{} ../../{}\n", identity(&meta), "x".repeat(58));
        write_private(&record, bad.as_bytes()).unwrap();
        assert_eq!(cache.known_digest(&file, &meta), None);
    }
}
