//! Reading from an OCI registry (distribution spec v2), by hand on
//! [`Fetcher`] rather than through `oci-client`, whose pulls read whole bodies
//! and size buffers from what the registry claims: a registry is a stranger,
//! so every manifest, token and signature here is read under a cap, every
//! digest is recomputed from the bytes, and a blob streams into the cache
//! checked against the size and digest its manifest declares.
//!
//! Authentication: anonymous, `Basic` with `BLAISE_REGISTRY_USERNAME` /
//! `BLAISE_REGISTRY_PASSWORD` (only for the registry `BLAISE_REGISTRY_HOST` names), or the `Bearer` token dance (the registry's
//! `WWW-Authenticate` names a token service, which must be https:// unless it
//! is on this machine).

use base64::Engine as _;
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue, WWW_AUTHENTICATE};
use reqwest::{Method, StatusCode, Url};

use super::download::{Fetcher, Kind, redirect_allowed, shown};
use super::reference::is_insecure;
use super::reference::{Digest, OciReference};
use crate::error::{Result, bail, err};

/// What this module's failures are, unless one says otherwise.
const KIND: crate::error::Kind = crate::error::Kind::Fetch;

/// The largest manifest read (the distribution spec's own advice to registries).
pub const MAX_MANIFEST: u64 = 4 << 20;
/// The largest token answer.
const MAX_TOKEN: u64 = 256 << 10;

/// Manifest kinds asked for: the Wasm artifact's, and the ones a registry may
/// answer with instead (an index or Docker's), so that they can be named.
const MANIFEST_ACCEPT: &str = "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.docker.distribution.manifest.list.v2+json";

/// A client for one repository of one registry.
pub struct Registry<'a> {
    fetcher: &'a Fetcher,
    reference: &'a OciReference,
    base: Url,
    /// The `Authorization` header that worked, once one did.
    auth: tokio::sync::Mutex<Option<String>>,
}

/// What a registry answered for a manifest.
pub struct Manifest {
    pub bytes: Vec<u8>,
    pub digest: Digest,
}

impl<'a> Registry<'a> {
    pub fn new(fetcher: &'a Fetcher, reference: &'a OciReference) -> Result<Registry<'a>> {
        // `docker.io` is served from `index.docker.io`.
        let registry = reference.reference.resolve_registry();
        let scheme = if is_insecure(registry) {
            "http"
        } else {
            "https"
        };
        let base = Url::parse(&format!("{scheme}://{registry}/")).map_err(|e| {
            err!(
                BadInput,
                "`{}` is not a registry address: {e}",
                shown(registry)
            )
        })?;
        Ok(Registry {
            fetcher,
            reference,
            base,
            auth: tokio::sync::Mutex::new(None),
        })
    }

    fn url(&self, kind: &str, what: &str) -> Result<Url> {
        // The repository and tag were checked by the reference's grammar
        // (lowercase, digits, `._-/`; a tag of `\w.-`): nothing to escape.
        self.base
            .join(&format!(
                "v2/{}/{kind}/{what}",
                self.reference.reference.repository()
            ))
            .map_err(|e| err!("{}: {e}", self.reference))
    }

    /// What the tag (or digest) of the reference points to now.
    pub async fn resolve(&self, tag_or_digest: &str) -> Result<Digest> {
        let url = self.url("manifests", tag_or_digest)?;
        let response = self
            .send(Method::HEAD, url.clone(), Kind::Naming, true)
            .await?;
        let status = response.status();
        if status.is_success() {
            let header = response
                .headers()
                .get("docker-content-digest")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| Digest::parse(v).ok());
            if let Some(digest) = header {
                return Ok(digest);
            }
        } else if status != StatusCode::METHOD_NOT_ALLOWED && !status.is_server_error() {
            // Some registries do not answer HEAD; others say why here.
            return Err(self.refused(tag_or_digest, status, None).await);
        }
        // No digest header: the manifest itself, hashed.
        Ok(self.manifest(tag_or_digest).await?.digest)
    }

    /// The manifest at a tag or digest, read under [`MAX_MANIFEST`]; when a
    /// digest was asked for, the bytes hash to it.
    pub async fn manifest(&self, tag_or_digest: &str) -> Result<Manifest> {
        match self.manifest_if_any(tag_or_digest).await? {
            Some(manifest) => Ok(manifest),
            None => bail!("{} is not in the registry", self.named(tag_or_digest)),
        }
    }

    /// Like [`Registry::manifest`], `None` when the registry has none there.
    pub async fn manifest_if_any(&self, tag_or_digest: &str) -> Result<Option<Manifest>> {
        let url = self.url("manifests", tag_or_digest)?;
        let response = self.send(Method::GET, url, Kind::Naming, true).await?;
        if response.status() == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !response.status().is_success() {
            let status = response.status();
            return Err(self.refused(tag_or_digest, status, Some(response)).await);
        }
        let what = format!("the manifest of {}", self.named(tag_or_digest));
        let bytes = self
            .fetcher
            .read_capped(response, MAX_MANIFEST, &what)
            .await?;
        let digest = Digest::of(&bytes);
        if let Ok(asked) = Digest::parse(tag_or_digest)
            && asked != digest
        {
            bail!(
                Verify,
                "{}: the registry sent a manifest whose digest is {digest}, not {asked}: refused",
                self.reference.registry()
            );
        }
        Ok(Some(Manifest { bytes, digest }))
    }

    /// The blob `digest`, as a response to stream (the caller checks its size
    /// and digest as it reads).
    pub async fn blob(&self, digest: &Digest) -> Result<reqwest::Response> {
        let url = self.url("blobs", digest.as_str())?;
        let response = self.send(Method::GET, url, Kind::Content, false).await?;
        if !response.status().is_success() {
            let status = response.status();
            let why = self.fetcher.error_text(response).await;
            bail!(
                "downloading {digest} from {}: {}",
                self.reference.registry(),
                explain(status, &why)
            );
        }
        Ok(response)
    }

    /// A small blob (a signature payload), read whole under `cap` and checked
    /// against its digest.
    pub async fn small_blob(&self, digest: &Digest, cap: u64) -> Result<Vec<u8>> {
        let response = self.blob(digest).await?;
        let bytes = self
            .fetcher
            .read_capped(response, cap, &format!("blob {digest}"))
            .await?;
        if Digest::of(&bytes) != *digest {
            bail!(
                Verify,
                "blob {digest}: the registry sent other bytes: refused"
            );
        }
        Ok(bytes)
    }

    fn named(&self, tag_or_digest: &str) -> String {
        let repo = self.reference.reference.repository();
        let registry = self.reference.registry();
        if tag_or_digest.starts_with("sha256:") {
            format!("{registry}/{repo}@{tag_or_digest}")
        } else {
            format!("{registry}/{repo}:{tag_or_digest}")
        }
    }

    /// The error for a manifest request that did not succeed, worded for a
    /// person.
    async fn refused(
        &self,
        tag_or_digest: &str,
        status: StatusCode,
        response: Option<reqwest::Response>,
    ) -> crate::error::Error {
        let why = match response {
            Some(r) => self.fetcher.error_text(r).await,
            None => status.to_string(),
        };
        let named = self.named(tag_or_digest);
        match status {
            StatusCode::NOT_FOUND => err!("{named} is not in the registry (it answered {why})"),
            _ => err!("asking for {named}: {}", explain(status, &why)),
        }
    }

    /// Sends a request, authenticating when the registry asks to.
    async fn send(
        &self,
        method: Method,
        url: Url,
        kind: Kind,
        manifest: bool,
    ) -> Result<reqwest::Response> {
        let mut headers = HeaderMap::new();
        if manifest {
            headers.insert(ACCEPT, HeaderValue::from_static(MANIFEST_ACCEPT));
        }
        let auth = self.auth.lock().await.clone();
        let response = self
            .fetcher
            .get(
                method.clone(),
                url.clone(),
                kind,
                headers.clone(),
                auth.as_deref(),
            )
            .await?;
        if response.status() != StatusCode::UNAUTHORIZED {
            return Ok(response);
        }
        let challenge = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .unwrap_or_default();
        let Some(header) = self.authenticate(&challenge).await? else {
            return Ok(response);
        };
        if auth.as_deref() == Some(header.as_str()) {
            return Ok(response);
        }
        *self.auth.lock().await = Some(header.clone());
        self.fetcher
            .get(method, url, kind, headers, Some(&header))
            .await
    }

    /// The `Authorization` header that answers a challenge, if we can.
    async fn authenticate(&self, challenge: &str) -> Result<Option<String>> {
        let credentials = credentials(self.reference.registry())?;
        let (scheme, params) = parse_challenge(challenge);
        if scheme.eq_ignore_ascii_case("basic") {
            return Ok(credentials.map(|(u, p)| basic(&u, &p)));
        }
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Ok(None);
        }
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        let realm = param("realm").ok_or_else(|| {
            err!(
                "{}: the registry asks for a token without saying where to get it",
                self.reference.registry()
            )
        })?;
        let mut url = Url::parse(realm).map_err(|_| {
            err!(
                "{}: the registry's token service `{}` is not a URL",
                self.reference.registry(),
                shown(realm)
            )
        })?;
        // The registry sends us there with our credentials: by the rules of
        // a redirect for content (its own origin, or public https), except
        // that a registry on this machine may use a token service on it.
        let both_local =
            is_insecure(self.reference.registry()) && url.host_str().is_some_and(is_insecure);
        if !both_local {
            redirect_allowed(&self.base, &url, Kind::Content)
                .map_err(|e| err!("{}: its token service: {e:#}", self.reference.registry()))?;
        }
        {
            let mut query = url.query_pairs_mut();
            if let Some(service) = param("service") {
                query.append_pair("service", service);
            }
            // Our own scope, not the challenge's: we only ever pull.
            query.append_pair(
                "scope",
                &format!("repository:{}:pull", self.reference.reference.repository()),
            );
        }
        let auth = credentials.map(|(u, p)| basic(&u, &p));
        let response = self
            .fetcher
            .get(
                Method::GET,
                url,
                Kind::Naming,
                HeaderMap::new(),
                auth.as_deref(),
            )
            .await
            .map_err(|e| err!("getting a token for {}: {e:#}", self.reference.registry()))?;
        if !response.status().is_success() {
            let status = response.status();
            let why = self.fetcher.error_text(response).await;
            bail!(
                "getting a token for {}: {}",
                self.reference.registry(),
                explain(status, &why)
            );
        }
        let body = self
            .fetcher
            .read_capped(response, MAX_TOKEN, "the registry's token")
            .await?;
        #[derive(serde::Deserialize)]
        struct Token {
            token: Option<String>,
            access_token: Option<String>,
        }
        let token: Token = serde_json::from_slice(&body).map_err(|_| {
            err!(
                "{}: the token service answered something that is not a token",
                self.reference.registry()
            )
        })?;
        let token = token.token.or(token.access_token).ok_or_else(|| {
            err!(
                "{}: the token service sent no token",
                self.reference.registry()
            )
        })?;
        if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
            bail!(
                "{}: the token service sent a token that cannot go in a header",
                self.reference.registry()
            );
        }
        Ok(Some(format!("Bearer {token}")))
    }
}

/// What a status means to the person who asked.
pub fn explain(status: StatusCode, why: &str) -> String {
    match status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => format!(
            "the registry refuses access ({why}): if it needs credentials, set BLAISE_REGISTRY_USERNAME, BLAISE_REGISTRY_PASSWORD and BLAISE_REGISTRY_HOST (the registry they are for)"
        ),
        StatusCode::TOO_MANY_REQUESTS => {
            format!("the registry is rate-limiting us ({why}): try again later")
        }
        s if s.is_server_error() => format!("the registry failed ({why}): try again later"),
        _ => format!("the registry answered {why}"),
    }
}

/// The credentials for `registry` (`host` or `host:port`, as a reference
/// names it): `BLAISE_REGISTRY_USERNAME` and `BLAISE_REGISTRY_PASSWORD`, for
/// the registry `BLAISE_REGISTRY_HOST` names and no other. Any registry that
/// `blaise.yml` or an index names can ask for credentials; they go only to
/// the one they were given for.
pub fn credentials(registry: &str) -> Result<Option<(String, String)>> {
    let var = |name| std::env::var(name).ok();
    credentials_from(
        var("BLAISE_REGISTRY_USERNAME"),
        var("BLAISE_REGISTRY_PASSWORD"),
        var("BLAISE_REGISTRY_HOST"),
        registry,
    )
}

fn credentials_from(
    user: Option<String>,
    password: Option<String>,
    host: Option<String>,
    registry: &str,
) -> Result<Option<(String, String)>> {
    let (Some(user), Some(password)) = (user, password) else {
        return Ok(None);
    };
    let Some(host) = host else {
        bail!(
            BadInput,
            "{registry} asks for credentials, and BLAISE_REGISTRY_USERNAME is set, but not for which registry: set BLAISE_REGISTRY_HOST to the registry they are for (`host` or `host:port`); they are sent to no other"
        );
    };
    Ok(host
        .trim()
        .eq_ignore_ascii_case(registry)
        .then_some((user, password)))
}

fn basic(user: &str, password: &str) -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    )
}

/// `Bearer realm="…",service="…"` → (`Bearer`, [(realm, …), (service, …)]).
fn parse_challenge(header: &str) -> (String, Vec<(String, String)>) {
    let header = header.trim();
    let (scheme, mut rest) = header.split_once(' ').unwrap_or((header, ""));
    let mut params = Vec::new();
    while params.len() < 16 {
        rest = rest.trim_start_matches([' ', ',']);
        let Some((key, after)) = rest.split_once('=') else {
            break;
        };
        let (value, after) = if let Some(quoted) = after.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => value.push(c),
                }
            }
            (value, &quoted[end..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim().to_string(), &after[end..])
        };
        params.push((key.trim().to_string(), value));
        rest = after;
    }
    (scheme.to_string(), params)
}

#[cfg(test)]
mod tests {

    #[test]
    fn credentials_go_to_their_registry_only() {
        let some = |s: &str| Some(s.to_string());
        let for_host = |host: Option<String>, registry: &str| {
            super::credentials_from(some("me"), some("pw"), host, registry)
        };
        assert_eq!(
            for_host(some("registry.example:5000"), "REGISTRY.example:5000").unwrap(),
            Some(("me".into(), "pw".into()))
        );
        for other in ["evil.example", "registry.example", "registry.example:5001"] {
            assert_eq!(
                for_host(some("registry.example:5000"), other).unwrap(),
                None,
                "{other}"
            );
        }
        let err = for_host(None, "evil.example").unwrap_err().to_string();
        assert!(err.contains("BLAISE_REGISTRY_HOST"), "{err}");
        assert_eq!(
            super::credentials_from(None, None, None, "any.example").unwrap(),
            None,
            "no credentials, nothing to refuse"
        );
    }

    use super::*;

    #[test]
    fn docker_hub_references_go_to_its_registry_host() {
        let fetcher = Fetcher::new().unwrap();
        let reference = OciReference::parse("docker.io/acme/hello:1").unwrap();
        let registry = Registry::new(&fetcher, &reference).unwrap();
        assert_eq!(
            registry.url("manifests", "1").unwrap().as_str(),
            "https://index.docker.io/v2/acme/hello/manifests/1"
        );
        let reference = OciReference::parse("127.0.0.1:5000/plugs/x:1").unwrap();
        let registry = Registry::new(&fetcher, &reference).unwrap();
        assert_eq!(
            registry.url("blobs", "sha256:ab").unwrap().as_str(),
            "http://127.0.0.1:5000/v2/plugs/x/blobs/sha256:ab"
        );
    }

    #[test]
    fn challenges_are_read_with_quotes_and_commas() {
        let (scheme, params) = parse_challenge(
            r#"Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull,push""#,
        );
        assert_eq!(scheme, "Bearer");
        assert_eq!(
            params,
            vec![
                ("realm".into(), "https://auth.example.com/token".into()),
                ("service".into(), "registry.example.com".into()),
                ("scope".into(), "repository:a/b:pull,push".into()),
            ]
        );
        let (scheme, params) = parse_challenge(r#"Basic realm="x\"y""#);
        assert_eq!((scheme.as_str(), params[0].1.as_str()), ("Basic", "x\"y"));
        assert_eq!(parse_challenge("").1, vec![]);
    }
}
