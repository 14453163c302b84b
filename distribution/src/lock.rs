//! `blaise.lock`: the digest each plug of `blaise.yml` resolved to, written by
//! `blaise-runner plug lock` beside `blaise.yml`. When it exists, `check`,
//! `start` and `dev` refuse a plug whose digest differs from it.
//!
//! ```yaml
//! version: 1
//! plugs:
//! - id: probe
//!   source: 127.0.0.1:5000/plugs/probe:1.0
//!   digest: sha256:4f…
//! ```
//!
//! The digest is the OCI manifest's for a registry plug (what `@sha256:` and
//! signatures name) and the component file's for a path or a URL.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::reference::Digest;
use crate::error::{Result, bail, err};

/// What this module's failures are, unless one says otherwise.
const KIND: crate::error::Kind = crate::error::Kind::BadInput;

pub const FILE_NAME: &str = "blaise.lock";
const VERSION: u32 = 1;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockFile {
    pub version: u32,
    pub plugs: Vec<LockedPlug>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedPlug {
    pub id: String,
    pub source: String,
    pub digest: String,
}

/// What the lock says of one plug.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Locked {
    /// No `blaise.lock`: nothing to compare with.
    NoLock,
    /// The lock has this plug with this source at this digest.
    At(Digest),
    /// The lock has no entry for the plug's id.
    Missing,
    /// The lock has the plug's id with another source.
    OtherSource(String),
}

impl LockFile {
    /// The lock beside `blaise.yml`.
    pub fn path_for(config: &Path) -> PathBuf {
        config
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .join(FILE_NAME)
    }

    /// Reads the lock at `path`, if there is one.
    pub fn read(path: &Path) -> Result<Option<LockFile>> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(err!("reading {}: {e}", path.display())),
        };
        LockFile::parse(&text, path).map(Some)
    }

    /// Reads the text of a lock file (`path` names it in errors).
    pub fn parse(text: &str, path: &Path) -> Result<LockFile> {
        let lock: LockFile = serde_yaml::from_str(text).map_err(|e| {
            err!(
                "{}: not a valid lock file ({e}); run `blaise-runner plug lock` to write it again",
                path.display()
            )
        })?;
        if lock.version != VERSION {
            bail!(
                "{}: lock file version {} is not {VERSION}; run `blaise-runner plug lock` to write it again",
                path.display(),
                lock.version
            );
        }
        Ok(lock)
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        let body = serde_yaml::to_string(self)?;
        let text = format!(
            "# The digest each plug of blaise.yml resolved to. Written by `blaise-runner plug lock`:\n# do not edit; commit it beside blaise.yml.\n{body}"
        );
        crate::files::write_atomically(path, &text)
    }

    pub fn new(plugs: Vec<LockedPlug>) -> LockFile {
        LockFile {
            version: VERSION,
            plugs,
        }
    }

    pub fn find(&self, id: &str, source: &str) -> Locked {
        match self.plugs.iter().find(|p| p.id == id) {
            None => Locked::Missing,
            Some(p) if p.source != source => Locked::OtherSource(p.source.clone()),
            Some(p) => match Digest::parse(&p.digest) {
                Ok(d) => Locked::At(d),
                Err(_) => Locked::Missing,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_finds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let d = format!("sha256:{}", "b".repeat(64));
        LockFile::new(vec![LockedPlug {
            id: "a".into(),
            source: "x.wasm".into(),
            digest: d.clone(),
        }])
        .write(&path)
        .unwrap();
        let lock = LockFile::read(&path).unwrap().unwrap();
        assert_eq!(
            lock.find("a", "x.wasm"),
            Locked::At(Digest::parse(&d).unwrap())
        );
        assert_eq!(
            lock.find("a", "y.wasm"),
            Locked::OtherSource("x.wasm".into())
        );
        assert_eq!(lock.find("b", "x.wasm"), Locked::Missing);
        assert!(LockFile::read(&dir.path().join("none")).unwrap().is_none());
    }
}
