//! Signatures in cosign's key-based format, through the `sigstore` crate: a
//! simple-signing payload naming the artifact's manifest digest, signed with
//! the publisher's key, pushed as the `sha256-<hex>.sig` tag of the same
//! repository. `cosign verify --key KEY.pub REF` accepts what `plug push --sign`
//! writes, and `cosign sign --key` signatures are accepted here.
//!
//! No Fulcio or Rekor: keys are the operator's trust root (the public keys
//! named in `blaise.yml`).

use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};
use sigstore::cosign::constraint::{Constraint as _, PrivateKeySigner};
use sigstore::cosign::payload::SimpleSigning;
use sigstore::cosign::{ClientBuilder, CosignCapabilities as _, SignatureLayer};
use sigstore::crypto::signing_key::SigStoreKeyPair;
use sigstore::crypto::{CosignVerificationKey, Signature, SigningScheme};
use sigstore::registry::{Auth, ClientConfig, ClientProtocol};

use super::download::{Fetcher, shown};
use super::oci;
use super::reference::{Digest, OciReference};
use super::registry::Registry;
use crate::error::{Context as _, Result, bail, err};
use oci_client::manifest::OciImageManifest;

/// What this module's failures are, unless one says otherwise.
const KIND: crate::error::Kind = crate::error::Kind::Verify;

/// A public key the operator trusts, with the file it came from (for messages).
pub struct TrustedKey {
    pub path: PathBuf,
    key: CosignVerificationKey,
}

impl TrustedKey {
    pub fn read(path: &Path) -> Result<TrustedKey> {
        let pem = std::fs::read(path)
            .with_context(|| format!("reading public key {}", path.display()))?;
        let key = CosignVerificationKey::try_from_pem(&pem)
            .map_err(|e| err!(BadInput, "{} is not a PEM public key: {e}", path.display()))?;
        Ok(TrustedKey {
            path: path.to_path_buf(),
            key,
        })
    }
}

/// One signature found for an artifact: the signed payload and the signature.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Evidence {
    /// The simple-signing payload, base64.
    pub payload: String,
    /// The signature over the payload, base64 (as in cosign's annotation).
    pub signature: String,
}

/// Why an artifact is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Unsigned,
    /// Signatures are there, but they sign another artifact (this digest).
    OtherArtifact(String),
    OtherKeys,
}

/// Checks that one of `evidence` signs `digest` with one of `keys`.
pub fn verify(evidence: &[Evidence], digest: &Digest, keys: &[&TrustedKey]) -> Result<(), Refusal> {
    let mut signed = false;
    let mut other = None;
    for e in evidence {
        let Ok(payload) = BASE64.decode(&e.payload) else {
            continue;
        };
        let Ok(simple) = serde_json::from_slice::<SimpleSigning>(&payload) else {
            continue;
        };
        if simple.critical.image.docker_manifest_digest != digest.as_str() {
            other.get_or_insert_with(|| shown(&simple.critical.image.docker_manifest_digest));
            continue;
        }
        signed = true;
        if keys.iter().any(|k| {
            k.key
                .verify_signature(Signature::Base64Encoded(e.signature.as_bytes()), &payload)
                .is_ok()
        }) {
            return Ok(());
        }
    }
    Err(match (signed, other) {
        (true, _) => Refusal::OtherKeys,
        (false, Some(other)) => Refusal::OtherArtifact(other),
        (false, None) => Refusal::Unsigned,
    })
}

fn sigstore_client(registry: &str) -> Result<sigstore::cosign::Client> {
    ClientBuilder::default()
        .with_oci_client_config(ClientConfig {
            protocol: if super::reference::is_insecure(registry) {
                ClientProtocol::Http
            } else {
                ClientProtocol::Https
            },
            ..Default::default()
        })
        .build()
        .map_err(|e| err!(Fetch, "creating the signature client: {e}"))
}

fn auth(registry: &str) -> Result<Auth> {
    Ok(match oci::auth(registry)? {
        oci_client::secrets::RegistryAuth::Basic(u, p) => Auth::Basic(u, p),
        _ => Auth::Anonymous,
    })
}

fn sigstore_reference(
    reference: &OciReference,
    digest: &Digest,
) -> Result<sigstore::registry::OciReference> {
    reference
        .at(digest)
        .whole()
        .parse()
        .map_err(|e| err!(BadInput, "{reference}: {e}"))
}

/// cosign's payload layers and the annotation holding each one's signature.
const SIMPLE_SIGNING: &str = "application/vnd.dev.cosign.simplesigning.v1+json";
const SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";
/// Signatures looked at for one artifact, and the size of one payload
/// (cosign's are a few hundred bytes).
const MAX_SIGNATURES: usize = 64;
const MAX_PAYLOAD: u64 = 64 << 10;

/// The signatures the registry holds for the artifact (none when unsigned),
/// from cosign's `sha256-<hex>.sig` tag, read under caps.
pub async fn fetch(
    fetcher: &Fetcher,
    reference: &OciReference,
    digest: &Digest,
) -> Result<Vec<Evidence>> {
    let registry = Registry::new(fetcher, reference)?;
    let tag = format!("sha256-{}.sig", digest.hex());
    let what = format!("the signatures of {reference}@{digest}");
    let Some(manifest) = registry
        .manifest_if_any(&tag)
        .await
        .map_err(|e| err!(Fetch, "fetching {what}: {e:#}"))?
    else {
        return Ok(Vec::new());
    };
    let manifest: OciImageManifest = serde_json::from_slice(&manifest.bytes)
        .map_err(|_| err!("{what}: the signature tag does not hold an OCI image manifest"))?;
    let mut found = Vec::new();
    for layer in manifest
        .layers
        .iter()
        .filter(|l| l.media_type == SIMPLE_SIGNING)
        .take(MAX_SIGNATURES)
    {
        let Some(signature) = layer
            .annotations
            .as_ref()
            .and_then(|a| a.get(SIGNATURE_ANNOTATION))
        else {
            continue;
        };
        let Ok(layer_digest) = Digest::parse(&layer.digest) else {
            continue;
        };
        if !(0..=MAX_PAYLOAD as i64).contains(&layer.size) || signature.len() > 4096 {
            continue;
        }
        let payload = registry
            .small_blob(&layer_digest, MAX_PAYLOAD)
            .await
            .map_err(|e| err!(Fetch, "fetching {what}: {e:#}"))?;
        found.push(Evidence {
            payload: BASE64.encode(&payload),
            signature: signature.clone(),
        });
    }
    Ok(found)
}

/// Reads a private key: PKCS#8 PEM, or cosign's encrypted format with the
/// password in `COSIGN_PASSWORD` (as `cosign` itself reads it).
fn read_private_key(path: &Path) -> Result<SigStoreKeyPair> {
    let pem =
        std::fs::read(path).with_context(|| format!("reading signing key {}", path.display()))?;
    let encrypted = String::from_utf8_lossy(&pem).contains("ENCRYPTED");
    let pair = if encrypted {
        let password = std::env::var("COSIGN_PASSWORD").map_err(|_| {
            err!(
                BadInput,
                "{} is encrypted: set COSIGN_PASSWORD to its password",
                path.display()
            )
        })?;
        SigStoreKeyPair::from_encrypted_pem(&pem, password.as_bytes())
    } else {
        SigStoreKeyPair::from_pem(&pem)
    };
    pair.map_err(|e| {
        err!(
            BadInput,
            "{} is not a usable private key: {e}",
            path.display()
        )
    })
}

/// Signs the artifact `digest` of `reference` with the key at `key` and
/// pushes the signature next to it.
pub async fn sign(reference: &OciReference, digest: &Digest, key: &Path) -> Result<()> {
    let pair = read_private_key(key)?;
    let signer = [
        SigningScheme::ECDSA_P256_SHA256_ASN1,
        SigningScheme::ECDSA_P384_SHA384_ASN1,
        SigningScheme::ECDSA_P521_SHA512_ASN1,
        SigningScheme::ED25519,
        SigningScheme::RSA_PKCS1_SHA256(0),
    ]
    .iter()
    .find_map(|scheme| pair.to_sigstore_signer(scheme).ok())
    .ok_or_else(|| err!(BadInput, "{}: unsupported key type", key.display()))?;

    let mut client = sigstore_client(reference.registry())?;
    let image = sigstore_reference(reference, digest)?;
    let (signature_image, _) = client
        .triangulate(&image, &auth(reference.registry())?)
        .await
        .map_err(|e| {
            err!(
                Fetch,
                "finding where to put the signature of {reference}: {e}"
            )
        })?;
    let mut layer = SignatureLayer::new_unsigned(&image, digest.as_str())
        .map_err(|e| err!("preparing the signature: {e}"))?;
    let signed = PrivateKeySigner::new_with_signer(signer)
        .add_constraint(&mut layer)
        .map_err(|e| err!("signing with {}: {e}", key.display()))?;
    if !signed {
        bail!("signing with {} failed", key.display());
    }
    client
        .push_signature(
            None,
            &auth(reference.registry())?,
            &signature_image,
            vec![layer],
        )
        .await
        .map_err(|e| err!(Fetch, "pushing the signature of {reference}@{digest}: {e}"))?;
    Ok(())
}

/// Writes a new P-256 key pair: `NAME.key` (PKCS#8 PEM, mode 0600) and
/// `NAME.pub`. Returns their paths.
pub fn generate(name: &Path) -> Result<(PathBuf, PathBuf)> {
    let signer = SigningScheme::ECDSA_P256_SHA256_ASN1
        .create_signer()
        .map_err(|e| err!("generating a key: {e}"))?;
    let pair = signer
        .to_sigstore_keypair()
        .map_err(|e| err!("generating a key: {e}"))?;
    let private = pair
        .private_key_to_pem()
        .map_err(|e| err!("encoding the key: {e}"))?;
    let public = pair
        .public_key_to_pem()
        .map_err(|e| err!("encoding the key: {e}"))?;
    let key_path = name.with_extension("key");
    let pub_path = name.with_extension("pub");
    for path in [&key_path, &pub_path] {
        if path.exists() {
            bail!(BadInput, "{} exists: not overwriting a key", path.display());
        }
    }
    if let Some(dir) = key_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    // The PEM encoder writes CRLF line ends; keys are nicer to read with LF.
    let private = private.replace("\r\n", "\n");
    let public = public.replace("\r\n", "\n");
    blaise_host::compile_cache::write_private(&key_path, private.as_bytes())?;
    std::fs::write(&pub_path, public.as_bytes())?;
    Ok((key_path, pub_path))
}
