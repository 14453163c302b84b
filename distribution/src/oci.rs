//! Wasm OCI artifacts (the layout wkg, Spin and wasmCloud read): a config of
//! type `application/vnd.wasm.config.v0+json` and one `application/wasm`
//! layer. Pulls go through our bounded [`Registry`] client; pushes (to a
//! registry the publisher chose) through `oci-client`.
//!
//! Plain HTTP: registries on this machine (`localhost`, `127.0.0.0/8`, `::1`)
//! are spoken to without TLS, as `docker` does; any other registry needs
//! HTTPS unless it is listed in `BLAISE_INSECURE_REGISTRIES`
//! (comma-separated `host` or `host:port`). Credentials, when the registry
//! wants them, come from `BLAISE_REGISTRY_USERNAME` / `BLAISE_REGISTRY_PASSWORD`,
//! for the registry `BLAISE_REGISTRY_HOST` names only.

use std::collections::BTreeMap;

use oci_client::Client;
use oci_client::client::{ClientConfig, ClientProtocol, Config, ImageLayer};
use oci_client::manifest::{OciDescriptor, OciImageManifest};
use oci_client::secrets::RegistryAuth;

use super::cache::PlugCache;
use super::download::{Fetcher, shown};
use super::progress;
use super::reference::{Digest, OciReference, is_insecure};
use super::registry::Registry;
use crate::error::{Context as _, Result, bail, err};
use blaise_host::units::format_size;

/// What this module's failures are, unless one says otherwise.
const KIND: crate::error::Kind = crate::error::Kind::Fetch;

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

/// How to log in to `registry`: see [`super::registry::credentials`].
pub fn auth(registry: &str) -> Result<RegistryAuth> {
    Ok(match super::registry::credentials(registry)? {
        Some((user, password)) => RegistryAuth::Basic(user, password),
        None => RegistryAuth::Anonymous,
    })
}

/// The tag or digest a reference names (`latest` when it names neither).
pub fn tag_or_digest(reference: &OciReference) -> &str {
    reference
        .reference
        .digest()
        .or(reference.reference.tag())
        .unwrap_or("latest")
}

/// What a tag (or digest) points to now.
pub async fn manifest_digest(fetcher: &Fetcher, reference: &OciReference) -> Result<Digest> {
    Registry::new(fetcher, reference)?
        .resolve(tag_or_digest(reference))
        .await
}

/// The manifest at `digest`, checked to be that digest and a Wasm artifact.
pub async fn pull_manifest(
    fetcher: &Fetcher,
    reference: &OciReference,
    digest: &Digest,
) -> Result<(Vec<u8>, OciImageManifest)> {
    let manifest = Registry::new(fetcher, reference)?
        .manifest(digest.as_str())
        .await?;
    let parsed = parse_manifest(&manifest.bytes).context(reference)?;
    Ok((manifest.bytes, parsed))
}

const INDEX_MEDIA_TYPES: [&str; 2] = [
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
];
const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";

/// Reads a manifest and checks that it is a Wasm OCI artifact. Nothing in it
/// is trusted: its sizes are checked where they are used, what is printed of
/// it is escaped and cut.
pub fn parse_manifest(bytes: &[u8]) -> Result<OciImageManifest> {
    let value: serde_json::Value =
        serde_json::from_slice(bytes).context("the manifest is not valid JSON")?;
    let media_type = value
        .get("mediaType")
        .and_then(|m| m.as_str())
        .unwrap_or("");
    if INDEX_MEDIA_TYPES.contains(&media_type) || value.get("manifests").is_some() {
        bail!(
            Verify,
            "the reference names an image index (a list of manifests, e.g. one per platform), not a Wasm artifact"
        );
    }
    if media_type == DOCKER_MANIFEST {
        bail!(
            Verify,
            "the reference names a container image, not a Wasm artifact"
        );
    }
    if !media_type.is_empty() && media_type != oci_client::manifest::OCI_IMAGE_MEDIA_TYPE {
        bail!(
            Verify,
            "the manifest is of type `{}`, not an OCI image manifest holding a Wasm artifact",
            shown(media_type)
        );
    }
    let manifest: OciImageManifest = serde_json::from_value(value).map_err(|e| {
        err!(
            Verify,
            "the manifest is not an OCI image manifest: {}",
            shown(&e.to_string())
        )
    })?;
    if manifest.config.media_type != WASM_CONFIG_MEDIA_TYPE {
        bail!(
            Verify,
            "not a Wasm artifact: its config is `{}`, not `{WASM_CONFIG_MEDIA_TYPE}` (push plugs with `blaise-runner plug push`)",
            shown(&manifest.config.media_type)
        );
    }
    wasm_layer(&manifest)?;
    Ok(manifest)
}

/// The one `application/wasm` layer of a Wasm artifact.
pub fn wasm_layer(manifest: &OciImageManifest) -> Result<&OciDescriptor> {
    match manifest.layers.as_slice() {
        [layer] if layer.media_type == WASM_LAYER_MEDIA_TYPE => Ok(layer),
        layers => {
            let mut kinds: Vec<String> = layers
                .iter()
                .take(5)
                .map(|l| format!("`{}`", shown(&l.media_type)))
                .collect();
            if layers.len() > 5 {
                kinds.push("…".into());
            }
            bail!(
                Verify,
                "not a Wasm artifact: it has {} layer(s) ({}), not one `{WASM_LAYER_MEDIA_TYPE}` layer",
                layers.len(),
                kinds.join(", ")
            )
        }
    }
}

/// The component layer's size, checked: more than nothing, at most `max`.
pub fn layer_size(layer: &OciDescriptor, max: u64) -> Result<u64> {
    match u64::try_from(layer.size) {
        Ok(size) if size > 0 && size <= max => Ok(size),
        Ok(size) if size > max => bail!(
            Verify,
            "its component declares {} bytes, more than the {} a plug may have (BLAISE_MAX_PLUG_SIZE): not downloaded",
            size,
            format_size(max)
        ),
        _ => bail!(
            Verify,
            "its component declares a size of {} bytes: not a component; not downloaded",
            layer.size
        ),
    }
}

/// Downloads the component layer into a staged file of the cache, checked
/// against the size the manifest declares; returns it (deleted unless the
/// caller commits it) and its actual digest, which the caller compares.
pub async fn pull_component(
    fetcher: &Fetcher,
    reference: &OciReference,
    layer: &OciDescriptor,
    cache: &PlugCache,
) -> Result<(tempfile::NamedTempFile, Digest)> {
    let size = layer_size(layer, fetcher.limits.max_plug)?;
    let digest = Digest::parse(&layer.digest)?;
    let response = Registry::new(fetcher, reference)?.blob(&digest).await?;
    let mut staged = cache.stage()?;
    let bar = progress::bar(size, &format!("{reference}"));
    let result = fetcher
        .stream_to(
            response,
            staged.as_file_mut(),
            fetcher.limits.max_plug,
            Some(size),
            &format!("downloading {digest}"),
            &bar,
        )
        .await;
    bar.finish_and_clear();
    let (actual, _) = result?;
    Ok((staged, actual))
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
            &auth(reference.registry())?,
            Some(manifest),
        )
        .await
        .map_err(|e| err!("pushing to {reference}: {e}"))?;
    manifest_digest(&Fetcher::new()?, reference).await
}
