//! What a `source:` of `blaise.yml` names: a local file, an `https://` URL or
//! an OCI reference; and `sha256:` digests.

use crate::error::{Result, bail, err};
use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// What this module's failures are, unless one says otherwise.
const KIND: crate::error::Kind = crate::error::Kind::BadInput;

/// Where a plug's component comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file, relative to `blaise.yml` when not absolute.
    Path(PathBuf),
    /// A download (`https://`, or `http://` to this machine: see `oci::is_insecure`).
    Url(String),
    /// A Wasm OCI artifact in a registry.
    Oci(OciReference),
}

/// An OCI reference as written (`registry/name:tag`, `registry/name@sha256:…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciReference {
    pub reference: oci_client::Reference,
}

impl OciReference {
    pub fn parse(text: &str) -> Result<OciReference> {
        let text = text.strip_prefix("oci://").unwrap_or(text);
        let reference: oci_client::Reference = text.parse().map_err(|e| {
            err!("`{text}` is not an OCI reference (`registry/name:tag` or `registry/name@sha256:…`): {e}")
        })?;
        if let Some(digest) = reference.digest() {
            Digest::parse(digest)?;
        }
        check_registry(reference.registry())
            .map_err(|why| err!("`{text}` is not an OCI reference: {why}"))?;
        Ok(OciReference { reference })
    }

    /// The digest written in the reference (`…@sha256:…`), if any.
    pub fn digest(&self) -> Option<Digest> {
        self.reference.digest().and_then(|d| Digest::parse(d).ok())
    }

    /// The same repository, at `digest`.
    pub fn at(&self, digest: &Digest) -> oci_client::Reference {
        oci_client::Reference::with_digest(
            self.reference.registry().to_string(),
            self.reference.repository().to_string(),
            digest.to_string(),
        )
    }

    pub fn registry(&self) -> &str {
        self.reference.registry()
    }
}

/// The registry part of a reference: a host name or IP address, and a port
/// from 1 to 65535 if one is given.
fn check_registry(registry: &str) -> Result<(), String> {
    let (host, port) = if let Some(rest) = registry.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("registry `{registry}` opens `[` without closing it"))?;
        (host, after.strip_prefix(':'))
    } else {
        match registry.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (registry, None),
        }
    };
    if let Some(port) = port
        && !port.parse::<u16>().is_ok_and(|p| p > 0)
    {
        return Err(format!(
            "the registry's port `{port}` is not a port (1 to 65535)"
        ));
    }
    let valid_host = !host.is_empty()
        && host.len() <= 253
        && (host.parse::<std::net::IpAddr>().is_ok()
            || host.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            }));
    if !valid_host {
        return Err(format!("registry `{registry}` is not a host name"));
    }
    Ok(())
}

impl fmt::Display for OciReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.reference.whole())
    }
}

impl Source {
    /// Reads a `source:`. A path starts with `/`, `./` or `../`, or has no
    /// registry host (a first segment with a `.` or `:`, or `localhost`), or
    /// ends in `.wasm`; `oci://` forces a reference.
    pub fn parse(text: &str) -> Result<Source> {
        let text = text.trim();
        if text.is_empty() {
            bail!("source is empty: give a path, an https:// URL or an OCI reference");
        }
        if text.starts_with("https://") || text.starts_with("http://") {
            return Ok(Source::Url(text.to_string()));
        }
        if text.starts_with("oci://") {
            return Ok(Source::Oci(OciReference::parse(text)?));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            bail!(
                "source `{text}`: `{scheme}://` is not supported: use a path, an https:// URL or an OCI reference"
            );
        }
        let path_like = text.starts_with('/')
            || text.starts_with("./")
            || text.starts_with("../")
            || text.ends_with(".wasm");
        let host = text.split('/').next().unwrap_or("");
        let has_host =
            text.contains('/') && (host.contains('.') || host.contains(':') || host == "localhost");
        if path_like || !has_host {
            return Ok(Source::Path(PathBuf::from(text)));
        }
        Ok(Source::Oci(OciReference::parse(text)?))
    }

    /// A path source made absolute against `dir` (the directory of `blaise.yml`).
    pub fn path_in(path: &Path, dir: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            dir.join(path)
        }
    }
}

/// A content digest, `sha256:` and 64 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(String);

impl Digest {
    pub fn parse(text: &str) -> Result<Digest> {
        let hex = text.strip_prefix("sha256:").ok_or_else(|| {
            err!("`{text}` is not a digest: write `sha256:` followed by 64 hex digits")
        })?;
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!("`{text}` is not a digest: write `sha256:` followed by 64 hex digits");
        }
        Ok(Digest(format!("sha256:{}", hex.to_ascii_lowercase())))
    }

    /// The digest of some bytes.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest::from_hex(&blaise_host::compile_cache::sha256_hex(bytes))
    }

    /// From the lowercase hex of a sha256.
    pub fn from_hex(hex: &str) -> Digest {
        Digest(format!("sha256:{hex}"))
    }

    /// The hex part.
    pub fn hex(&self) -> &str {
        &self.0["sha256:".len()..]
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether the registry is spoken to over plain HTTP: one on this machine (`localhost`, a
/// loopback address), or one `BLAISE_INSECURE_REGISTRIES` lists.
pub fn is_insecure(registry: &str) -> bool {
    let host = host_of(registry);
    if host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()) {
        return true;
    }
    std::env::var("BLAISE_INSECURE_REGISTRIES").is_ok_and(|list| {
        list.split(',')
            .map(str::trim)
            .any(|r| !r.is_empty() && (r == registry || r == host))
    })
}

/// The host of `host`, `host:port`, `[v6]` or `[v6]:port`.
fn host_of(registry: &str) -> &str {
    if let Some(rest) = registry.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match registry.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => registry,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_only_to_this_machine_unless_listed() {
        assert!(is_insecure("localhost:5000"));
        assert!(is_insecure("127.0.0.1:5000"));
        assert!(is_insecure("127.3.4.5"));
        assert!(is_insecure("[::1]:5000"));
        assert!(!is_insecure("ghcr.io"));
        assert!(!is_insecure("10.0.0.1:5000"));
        assert!(!is_insecure("localhost.example.com"));
        assert_eq!(host_of("registry:5000"), "registry");
        assert_eq!(host_of("[::1]:5000"), "::1");
    }

    #[test]
    fn tells_paths_urls_and_references_apart() {
        let path = |s: &str| Source::Path(PathBuf::from(s));
        assert_eq!(
            Source::parse("plugs/redaction.wasm").unwrap(),
            path("plugs/redaction.wasm")
        );
        assert_eq!(Source::parse("../x").unwrap(), path("../x"));
        assert_eq!(Source::parse("target/plug").unwrap(), path("target/plug"));
        assert_eq!(
            Source::parse("https://example.com/p.wasm").unwrap(),
            Source::Url("https://example.com/p.wasm".into())
        );
        let Source::Oci(r) = Source::parse("127.0.0.1:5000/plugs/probe:1.0").unwrap() else {
            panic!("not a reference")
        };
        assert_eq!(r.registry(), "127.0.0.1:5000");
        assert_eq!(r.reference.repository(), "plugs/probe");
        assert_eq!(r.reference.tag(), Some("1.0"));
        assert!(matches!(
            Source::parse("ghcr.io/acme/plug:1").unwrap(),
            Source::Oci(_)
        ));
        assert!(matches!(
            Source::parse("oci://localhost/p:1").unwrap(),
            Source::Oci(_)
        ));
        assert!(Source::parse("ftp://x/y").is_err());
        assert!(Source::parse("ghcr.io/acme/plug@sha256:abc").is_err());
    }

    #[test]
    fn digests_are_checked() {
        let hex = "a".repeat(64);
        assert_eq!(Digest::parse(&format!("sha256:{hex}")).unwrap().hex(), hex);
        assert!(Digest::parse(&hex).is_err());
        assert!(Digest::parse("sha256:abc").is_err());
        assert_eq!(
            Digest::of(b"").to_string(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
