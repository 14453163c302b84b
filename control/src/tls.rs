//! HTTPS for `blaise serve` (`--tls-cert`, `--tls-key`): rustls with the certificate chain and
//! key an operator made or was given, read once at start with errors that name the file.

use std::path::Path;
use std::sync::Arc;

use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The certificate or key cannot be used; the message names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TlsError(pub String);

/// `context: e`, as a [`TlsError`].
fn saying<E: std::fmt::Display>(context: impl Into<String>) -> impl FnOnce(E) -> TlsError {
    let context = context.into();
    move |e| TlsError(format!("{context}: {e}"))
}

/// Put on a request that came over TLS: the dashboard's cookie is then `Secure`.
#[derive(Clone, Copy, Debug)]
pub struct OverTls;

/// The server's TLS settings from a PEM certificate chain (the server's first) and its PEM
/// private key (PKCS#8, PKCS#1 or SEC1). HTTP/1.1 only, as the server speaks.
pub fn server_config(cert: &Path, key_file: &Path) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(saying(format!(
            "reading the certificate {}",
            cert.display()
        )))?
        .collect::<Result<_, _>>()
        .map_err(saying(format!(
            "{}: not a PEM certificate chain",
            cert.display()
        )))?;
    if chain.is_empty() {
        return Err(TlsError(format!(
            "{}: no certificate in it (expected -----BEGIN CERTIFICATE-----)",
            cert.display()
        )));
    }
    let key = PrivateKeyDer::from_pem_file(key_file).map_err(|e| {
        TlsError(format!(
            "{}: not a PEM private key ({e}); expected -----BEGIN PRIVATE KEY----- (or an RSA or EC key)",
            key_file.display()
        ))
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(saying("TLS protocol versions"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(saying(format!(
            "the key {} does not go with the certificate {}",
            key_file.display(),
            cert.display()
        )))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
