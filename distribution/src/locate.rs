//! From a plug's `source:` to a verified component file on this machine:
//! local paths as they are; URLs and OCI artifacts downloaded once, checked
//! against their digest and cached by it; tags compared with `blaise.lock`;
//! signatures checked against the operator's keys.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::cache::PlugCache;
use super::download::Fetcher;
use super::lock::{LockFile, Locked};
use super::oci::{self, CONTRACT_ANNOTATION};
use super::reference::{Digest, OciReference, Source};
use super::signature::{self, Evidence, Refusal, TrustedKey};
use blaise_host::contract::{self, Version};

/// Whether registries are asked what tags point to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// `check`, `start`, `dev`, `plug lock`: ask (a tag that moved since the
    /// lock is refused).
    AskRegistry,
    /// A run of a configuration the runner daemon already checked: the locked
    /// digest, from the cache, without touching the network.
    TrustLock,
}

/// Where a plug's component is, and what it must hash to.
#[derive(Debug, Clone)]
pub struct Located {
    pub path: PathBuf,
    /// The digest `blaise.lock` records: the manifest's for an OCI artifact,
    /// the component's otherwise (`None` for a path until it is read).
    pub digest: Option<Digest>,
    /// What the component file must hash to, when known before loading it.
    pub component: Option<Digest>,
    /// Something the operator should hear once (`check`, `plug lock`): a
    /// pinned plug whose tag now points elsewhere.
    pub notice: Option<String>,
}

/// An error about one key of a plug's entry.
#[derive(Debug, Clone)]
pub struct LocateError {
    pub key: &'static str,
    pub message: String,
}

fn err(key: &'static str, message: impl Into<String>) -> LocateError {
    LocateError {
        key,
        message: message.into(),
    }
}

/// One plug entry's distribution settings.
pub struct Wanted<'a> {
    pub id: &'a str,
    pub source: &'a str,
    /// `digest:` in blaise.yml.
    pub digest: Option<&'a str>,
    /// The keys one of which must have signed it (empty: no signature needed).
    pub keys: &'a [&'a TrustedKey],
}

pub struct Locator<'a> {
    /// Made on first use (most runs never touch the network).
    pub fetcher: OnceLock<Fetcher>,
    pub cache: &'a PlugCache,
    pub lock: Option<&'a LockFile>,
    pub lock_path: &'a Path,
    pub dir: &'a Path,
    pub freshness: Freshness,
}

const RELOCK: &str = "run `blaise-runner plug lock` to update blaise.lock";

impl Locator<'_> {
    fn fetcher(&self) -> Result<&Fetcher, LocateError> {
        if let Some(fetcher) = self.fetcher.get() {
            return Ok(fetcher);
        }
        let fetcher = Fetcher::new().map_err(|e| err("source", format!("{e:#}")))?;
        Ok(self.fetcher.get_or_init(|| fetcher))
    }

    pub async fn locate(&self, wanted: &Wanted<'_>) -> Result<Located, LocateError> {
        let source = Source::parse(wanted.source).map_err(|e| err("source", format!("{e:#}")))?;
        let pinned = wanted
            .digest
            .map(Digest::parse)
            .transpose()
            .map_err(|e| err("digest", format!("{e:#}")))?;
        let locked = match self.lock {
            None => None,
            Some(lock) => match lock.find(wanted.id, wanted.source) {
                Locked::At(d) => Some(d),
                Locked::NoLock => None,
                Locked::Missing => {
                    return Err(err(
                        "source",
                        format!(
                            "it is not in {} (added since the lock was written): {RELOCK}",
                            self.lock_path.display()
                        ),
                    ));
                }
                Locked::OtherSource(other) => {
                    return Err(err(
                        "source",
                        format!(
                            "{} has it at source `{other}`: blaise.yml changed since the lock was written; {RELOCK}",
                            self.lock_path.display()
                        ),
                    ));
                }
            },
        };
        if let (Some(pin), Some(lock)) = (&pinned, &locked)
            && pin != lock
        {
            return Err(err(
                "digest",
                format!(
                    "it is pinned to {pin}, but {} has {lock}: {RELOCK}",
                    self.lock_path.display()
                ),
            ));
        }
        if !wanted.keys.is_empty() && !matches!(source, Source::Oci(_) | Source::Path(_)) {
            return Err(err(
                "signed_by",
                "a signature is required, but a URL carries none: publish the plug to an OCI registry with `blaise-runner plug push --sign`",
            ));
        }
        match source {
            Source::Path(path) => {
                let expected = pinned.or(locked);
                Ok(Located {
                    path: Source::path_in(&path, self.dir),
                    digest: expected.clone(),
                    component: expected,
                    notice: None,
                })
            }
            Source::Url(url) => self.url(&url, pinned.or(locked)).await,
            Source::Oci(reference) => {
                let pinned = match (pinned, reference.digest()) {
                    (Some(a), Some(b)) if a != b => {
                        return Err(err(
                            "digest",
                            format!("`digest: {a}` and the source's @{b} differ: keep one"),
                        ));
                    }
                    (a, b) => a.or(b),
                };
                self.oci(wanted, &reference, pinned, locked).await
            }
        }
    }

    async fn url(&self, url: &str, expected: Option<Digest>) -> Result<Located, LocateError> {
        let cache = self.cache;
        if let Some(d) = &expected
            && cache.has_component(d)
        {
            return Ok(located_component(cache, d, d.clone()));
        }
        let _lock = cache
            .lock(url)
            .await
            .map_err(|e| err("source", format!("{e:#}")))?;
        if let Some(d) = &expected
            && cache.has_component(d)
        {
            return Ok(located_component(cache, d, d.clone()));
        }
        let (staged, actual) = super::fetch::download_plug(self.fetcher()?, url, cache)
            .await
            .map_err(|e| err("source", format!("{e:#}")))?;
        let expected = match expected {
            Some(expected) if expected != actual => return Err(mismatch(url, &expected, &actual)),
            Some(expected) => expected,
            None => {
                tracing::warn!(url, digest = %actual, "plug downloaded without a pinned digest: pin it with `digest:` or `blaise-runner plug lock`");
                actual
            }
        };
        cache
            .commit_component(staged, &expected)
            .map_err(|e| err("source", format!("caching it: {e:#}")))?;
        Ok(located_component(cache, &expected, expected.clone()))
    }

    async fn oci(
        &self,
        wanted: &Wanted<'_>,
        reference: &OciReference,
        pinned: Option<Digest>,
        locked: Option<Digest>,
    ) -> Result<Located, LocateError> {
        let mut notice = None;
        let digest = match (pinned, locked) {
            (Some(pin), _) => {
                notice = self.moved_from_pin(reference, &pin).await;
                pin
            }
            (None, Some(lock)) if self.freshness == Freshness::TrustLock => lock,
            (None, Some(lock)) => match oci::manifest_digest(self.fetcher()?, reference).await {
                Ok(now) if now != lock => {
                    return Err(err(
                        "source",
                        format!(
                            "{reference} now points to {now}, but {} has {lock}: the tag moved since it was locked. Review the new artifact, then run `blaise-runner plug lock` to accept it (or write `digest: {lock}` to keep the locked one)",
                            self.lock_path.display()
                        ),
                    ));
                }
                Ok(now) => now,
                Err(e) if self.cached_component(&lock).is_some() => {
                    tracing::warn!(
                        plug = wanted.id,
                        "{e:#}; using the locked {lock} from the cache"
                    );
                    lock
                }
                Err(e) => return Err(err("source", format!("{e:#}"))),
            },
            (None, None) => oci::manifest_digest(self.fetcher()?, reference)
                .await
                .map_err(|e| err("source", format!("{e:#}")))?,
        };
        // The signature names the manifest's digest: checked before anything
        // is downloaded, so that a refused artifact leaves nothing behind.
        if !wanted.keys.is_empty() {
            self.check_signature(reference, &digest, wanted.keys)
                .await?;
        }
        let mut located = self.artifact(reference, &digest).await?;
        located.notice = notice;
        Ok(located)
    }

    /// For a plug pinned by `digest:` whose source names a tag: where the tag
    /// points now, when that is not the pin (a registry that cannot be asked
    /// says nothing: the pin is what runs).
    async fn moved_from_pin(&self, reference: &OciReference, pin: &Digest) -> Option<String> {
        if self.freshness != Freshness::AskRegistry || reference.digest().is_some() {
            return None;
        }
        let now = oci::manifest_digest(self.fetcher().ok()?, reference)
            .await
            .ok()?;
        (now != *pin).then(|| {
            format!("{reference}: tag moved to {now}; running the pinned {pin} (to take the new one, review it and change `digest:`)")
        })
    }

    /// The cached component of the artifact `digest`, if both are cached.
    fn cached_component(&self, digest: &Digest) -> Option<Digest> {
        let manifest = oci::parse_manifest(&self.cache.manifest(digest)?).ok()?;
        let layer = Digest::parse(&oci::wasm_layer(&manifest).ok()?.digest).ok()?;
        self.cache.has_component(&layer).then_some(layer)
    }

    /// The artifact `digest` of `reference`, from the cache or downloaded.
    async fn artifact(
        &self,
        reference: &OciReference,
        digest: &Digest,
    ) -> Result<Located, LocateError> {
        let cache = self.cache;
        if let Some(component) = self.cached_component(digest) {
            return Ok(located_component(cache, &component, digest.clone()));
        }
        let _lock = cache
            .lock(digest.as_str())
            .await
            .map_err(|e| err("source", format!("{e:#}")))?;
        // Another process may have fetched it while we waited for the lock.
        if let Some(component) = self.cached_component(digest) {
            return Ok(located_component(cache, &component, digest.clone()));
        }
        let (manifest_bytes, manifest) = oci::pull_manifest(self.fetcher()?, reference, digest)
            .await
            .map_err(|e| err("source", format!("{e:#}")))?;
        if let Some(built_for) = manifest
            .annotations
            .as_ref()
            .and_then(|a| a.get(CONTRACT_ANNOTATION))
            .and_then(|v| Version::parse(v))
            && !contract::accepts(built_for)
        {
            return Err(err(
                "source",
                format!(
                    "{reference} was built for plug contract {}@{built_for}, but this runner implements {}@{} (it accepts {}): not downloaded; pick a version built for this runner's contract",
                    contract::PACKAGE,
                    contract::PACKAGE,
                    contract::VERSION,
                    contract::supported_range()
                ),
            ));
        }
        let layer =
            oci::wasm_layer(&manifest).map_err(|e| err("source", format!("{reference}: {e:#}")))?;
        let component =
            Digest::parse(&layer.digest).map_err(|e| err("source", format!("{e:#}")))?;
        if !cache.has_component(&component) {
            let (staged, actual) = oci::pull_component(self.fetcher()?, reference, layer, cache)
                .await
                .map_err(|e| err("source", format!("{reference}: {e:#}")))?;
            if actual != component {
                return Err(mismatch(
                    &format!("{reference}@{digest}"),
                    &component,
                    &actual,
                ));
            }
            cache
                .commit_component(staged, &component)
                .map_err(|e| err("source", format!("caching it: {e:#}")))?;
        }
        // The manifest last: a cached manifest means its component is cached.
        cache
            .store_manifest(digest, &manifest_bytes)
            .map_err(|e| err("source", format!("caching it: {e:#}")))?;
        Ok(located_component(cache, &component, digest.clone()))
    }

    async fn check_signature(
        &self,
        reference: &OciReference,
        digest: &Digest,
        keys: &[&TrustedKey],
    ) -> Result<(), LocateError> {
        let cached: Vec<Evidence> = self
            .cache
            .signatures(digest)
            .and_then(|json| serde_json::from_slice(&json).ok())
            .unwrap_or_default();
        if signature::verify(&cached, digest, keys).is_ok() {
            return Ok(());
        }
        let found = signature::fetch(self.fetcher()?, reference, digest)
            .await
            .map_err(|e| err("signed_by", format!("{e:#}")))?;
        let names = keys
            .iter()
            .map(|k| k.path.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        match signature::verify(&found, digest, keys) {
            Ok(()) => {
                // Kept only once they sign it: evidence for the next check.
                if let Ok(json) = serde_json::to_vec(&found) {
                    let _ = self.cache.store_signatures(digest, &json);
                }
                Ok(())
            }
            Err(Refusal::OtherArtifact(other)) => Err(err(
                "signed_by",
                format!(
                    "{reference} ({digest}) is not signed: the signatures the registry keeps for it sign another artifact ({other}). Refused; tell its publisher"
                ),
            )),
            Err(Refusal::Unsigned) => Err(err(
                "signed_by",
                format!(
                    "{reference} ({digest}) is not signed, but blaise.yml requires a signature by one of: {names}. Ask its publisher to sign it (`blaise-runner plug push --sign KEY`), or remove the requirement to accept it unsigned"
                ),
            )),
            Err(Refusal::OtherKeys) => Err(err(
                "signed_by",
                format!(
                    "{reference} ({digest}) is signed, but by none of the keys blaise.yml accepts ({names}): it was not signed by the publisher you trust; check the key, or the artifact"
                ),
            )),
        }
    }
}

fn located_component(cache: &PlugCache, component: &Digest, digest: Digest) -> Located {
    Located {
        path: cache.component_path(component),
        digest: Some(digest),
        component: Some(component.clone()),
        notice: None,
    }
}

fn mismatch(what: &str, expected: &Digest, actual: &Digest) -> LocateError {
    err(
        "source",
        format!(
            "digest mismatch for {what}: expected {expected}, got {actual}; nothing was cached. The copy served may be corrupt or tampered with: tell its publisher"
        ),
    )
}
