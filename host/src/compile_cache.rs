//! Compiled plugs on disk, keyed by the component's sha256 and the engine's
//! compatibility hash.
//!
//! Loading a precompiled artifact skips wasmtime's validation, so the cache only
//! ever loads files this runner wrote: artifacts are written atomically into a
//! directory private to the runner's user (0700), and a file owned by anyone
//! else, or writable by group or others, is ignored and recompiled. Whoever can
//! write as the runner's own user can already change the runner itself.

use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
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
    pub fn open(dir: &Path, engine: &Engine) -> Result<CompileCache> {
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
    ) -> Result<(Component, Origin)> {
        let artifact = self.dir.join(format!("{sha256}-{}.cwasm", self.engine_key));
        if let Some(component) = self.load(engine, &artifact)? {
            return Ok((component, Origin::Cache));
        }
        let component = Component::new(engine, bytes)?;
        if let Err(err) = self.store(&component, &artifact) {
            // A cache that cannot be written only costs a compile next time.
            tracing::warn!(path = %artifact.display(), "could not cache compiled plug: {err:#}");
        }
        Ok((component, Origin::Compiled))
    }

    fn load(&self, engine: &Engine, artifact: &Path) -> Result<Option<Component>> {
        let Ok(meta) = fs::metadata(artifact) else {
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
        match unsafe { Component::deserialize_file(engine, artifact) } {
            Ok(component) => Ok(Some(component)),
            Err(err) => {
                tracing::warn!(path = %artifact.display(), "stale compiled plug ({err}); recompiling");
                Ok(None)
            }
        }
    }

    fn store(&self, component: &Component, artifact: &Path) -> Result<()> {
        write_private(artifact, &component.serialize()?)
    }
}

pub fn dir_is_private(dir: &Path, me: u32) -> bool {
    fs::metadata(dir).is_ok_and(|m| m.uid() == me && m.mode() & 0o077 == 0)
}

/// Writes a file atomically (temp file + rename) with mode 0600.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
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
pub fn check_is_component(bytes: &[u8], source: &Path) -> Result<()> {
    const MAGIC: &[u8] = b"\0asm";
    if bytes.len() < 8 || &bytes[..4] != MAGIC {
        bail!(
            "{} is not a WebAssembly component (build plugs with `cargo build --target wasm32-wasip2`)",
            source.display()
        );
    }
    // Layer 1 in the header marks a component; 0 marks a core module.
    if bytes[6..8] != [1, 0] {
        bail!(
            "{} is a core WebAssembly module, not a component: build it for `wasm32-wasip2`",
            source.display()
        );
    }
    Ok(())
}
