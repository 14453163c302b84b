//! Wasm OCI artifacts (the layout wkg, Spin and wasmCloud read): a config of
//! type `application/vnd.wasm.config.v0+json` and one `application/wasm`
//! layer. Talks to registries through `oci-client`.
//!
//! Plain HTTP: registries on this machine (`localhost`, `127.0.0.0/8`, `::1`)
//! are spoken to without TLS, as `docker` does; any other registry needs
//! HTTPS unless it is listed in `BLAISE_INSECURE_REGISTRIES`
//! (comma-separated `host` or `host:port`). Credentials, when the registry
//! wants them, come from `BLAISE_REGISTRY_USERNAME` / `BLAISE_REGISTRY_PASSWORD`.

use std::collections::BTreeMap;
use std::net::IpAddr;

use anyhow::{Context as _, Result, anyhow, bail};
use futures_util::StreamExt as _;
use oci_client::Client;
use oci_client::client::{ClientConfig, ClientProtocol, Config, ImageLayer};
use oci_client::manifest::{OciDescriptor, OciImageManifest, OciManifest};
use oci_client::secrets::RegistryAuth;
use sha2::{Digest as _, Sha256};

use super::progress;
use super::reference::{Digest, OciReference};

pub const WASM_CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";
pub const WASM_LAYER_MEDIA_TYPE: &str = "application/wasm";
/// The plug contract version the component was built for, so that a runner
/// can refuse an incompatible plug before downloading it.
pub const CONTRACT_ANNOTATION: &str = "dev.blaise.plug.contract";
pub const VERSION_ANNOTATION: &str = "org.opencontainers.image.version";
pub const DESCRIPTION_ANNOTATION: &str = "org.opencontainers.image.description";
pub const TITLE_ANNOTATION: &str = "org.opencontainers.image.title";
pub const SOURCE_ANNOTATION: &str = "org.opencontainers.image.source";
pub const LICENSES_ANNOTATION: &str = "org.opencontainers.image.licenses";

/// Whether the registry is spoken to over plain HTTP (see the module docs).
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

pub fn client_config(registry: &str) -> ClientConfig {
    ClientConfig {
        protocol: if is_insecure(registry) {
            ClientProtocol::Http
        } else {
            ClientProtocol::Https
        },
        ..Default::default()
    }
}

pub fn client(registry: &str) -> Client {
    Client::new(client_config(registry))
}

pub fn auth() -> RegistryAuth {
    match (
        std::env::var("BLAISE_REGISTRY_USERNAME"),
        std::env::var("BLAISE_REGISTRY_PASSWORD"),
    ) {
        (Ok(user), Ok(password)) => RegistryAuth::Basic(user, password),
        _ => RegistryAuth::Anonymous,
    }
}

/// What a tag (or digest) points to now.
pub async fn manifest_digest(reference: &OciReference) -> Result<Digest> {
    let client = client(reference.registry());
    let digest = client
        .fetch_manifest_digest(&reference.reference, &auth())
        .await
        .map_err(|e| anyhow!("asking {} for {reference}: {e}", reference.registry()))?;
    Digest::parse(&digest)
}

/// The manifest at `digest`, checked to be that digest and a Wasm artifact.
pub async fn pull_manifest(
    reference: &OciReference,
    digest: &Digest,
) -> Result<(Vec<u8>, OciImageManifest)> {
    let client = client(reference.registry());
    let (bytes, _) = client
        .pull_manifest_raw(
            &reference.at(digest),
            &auth(),
            &[oci_client::manifest::OCI_IMAGE_MEDIA_TYPE],
        )
        .await
        .map_err(|e| anyhow!("fetching the manifest of {reference}@{digest}: {e}"))?;
    let actual = Digest::of(&bytes);
    if actual != *digest {
        bail!("the registry sent a manifest whose digest is {actual}, not {digest}");
    }
    let manifest = parse_manifest(&bytes)?;
    Ok((bytes.to_vec(), manifest))
}

/// Reads a manifest and checks that it is a Wasm OCI artifact.
pub fn parse_manifest(bytes: &[u8]) -> Result<OciImageManifest> {
    let manifest: OciManifest =
        serde_json::from_slice(bytes).context("the manifest is not valid JSON")?;
    let OciManifest::Image(manifest) = manifest else {
        bail!("the reference names an image index, not a Wasm artifact");
    };
    if manifest.config.media_type != WASM_CONFIG_MEDIA_TYPE {
        bail!(
            "not a Wasm artifact: its config is `{}`, not `{WASM_CONFIG_MEDIA_TYPE}` (push plugs with `blaise-runner plug push`)",
            manifest.config.media_type
        );
    }
    wasm_layer(&manifest)?;
    Ok(manifest)
}

/// The one `application/wasm` layer of a Wasm artifact.
pub fn wasm_layer(manifest: &OciImageManifest) -> Result<&OciDescriptor> {
    match manifest.layers.as_slice() {
        [layer] if layer.media_type == WASM_LAYER_MEDIA_TYPE => Ok(layer),
        layers => bail!(
            "not a Wasm artifact: it has {} layer(s) ({}), not one `{WASM_LAYER_MEDIA_TYPE}` layer",
            layers.len(),
            layers
                .iter()
                .map(|l| l.media_type.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Downloads the component layer; returns its bytes and their actual digest
/// (the caller compares it with the expected one).
pub async fn pull_component(
    reference: &OciReference,
    manifest_digest: &Digest,
    layer: &OciDescriptor,
) -> Result<(Vec<u8>, Digest)> {
    let client = client(reference.registry());
    let image = reference.at(manifest_digest);
    client
        .store_auth_if_needed(image.resolve_registry(), &auth())
        .await;
    let mut stream = client
        .pull_blob_stream(&image, layer)
        .await
        .map_err(|e| anyhow!("downloading {}: {e}", layer.digest))?;
    let total = stream.content_length.unwrap_or(layer.size.max(0) as u64);
    let bar = progress::bar(total, &format!("{reference}"));
    let mut hasher = Sha256::new();
    let mut bytes = Vec::with_capacity(total as usize);
    let mut stream_error = None;
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(chunk) => {
                hasher.update(&chunk);
                bytes.extend_from_slice(&chunk);
                bar.inc(chunk.len() as u64);
            }
            // oci-client also checks the digest and fails the stream's end:
            // we compare it ourselves to name both digests.
            Err(e) => {
                stream_error = Some(e);
                break;
            }
        }
    }
    bar.finish_and_clear();
    let actual = Digest::from_hex(&hex::encode(hasher.finalize()));
    // A stream cut short is a network error; whole bytes that hash wrong are
    // reported by the caller as a digest mismatch.
    if let Some(e) = stream_error
        && (actual.as_str() == layer.digest || (bytes.len() as u64) < total)
    {
        bail!("downloading {}: {e}", layer.digest);
    }
    Ok((bytes, actual))
}

/// What `push` puts in the artifact's annotations and config.
pub struct Artifact {
    pub wasm: Vec<u8>,
    pub annotations: BTreeMap<String, String>,
    /// The component's exports and imports, for the Wasm config.
    pub exports: Vec<String>,
    pub imports: Vec<String>,
}

/// Publishes a component as a Wasm OCI artifact; returns the manifest's digest.
pub async fn push(reference: &OciReference, artifact: Artifact) -> Result<Digest> {
    let client = client(reference.registry());
    let layer_digest = Digest::of(&artifact.wasm);
    let config = serde_json::json!({
        "architecture": "wasm",
        "os": "wasip2",
        "layerDigests": [layer_digest.as_str()],
        "component": {
            "exports": artifact.exports,
            "imports": artifact.imports,
        },
    });
    let layers = vec![ImageLayer::new(
        artifact.wasm,
        WASM_LAYER_MEDIA_TYPE.to_string(),
        None,
    )];
    let config = Config::new(
        serde_json::to_vec(&config)?,
        WASM_CONFIG_MEDIA_TYPE.to_string(),
        None,
    );
    let mut manifest = OciImageManifest::build(&layers, &config, Some(artifact.annotations));
    manifest.media_type = Some(oci_client::manifest::OCI_IMAGE_MEDIA_TYPE.to_string());
    client
        .push(
            &reference.reference,
            &layers,
            config,
            &auth(),
            Some(manifest),
        )
        .await
        .map_err(|e| anyhow!("pushing to {reference}: {e}"))?;
    manifest_digest(reference).await
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
}
