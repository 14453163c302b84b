//! Plugs downloaded from a URL.

use anyhow::{Result, anyhow, bail};
use sha2::{Digest as _, Sha256};

use super::oci::is_insecure;
use super::progress;
use super::reference::Digest;

/// Downloads `url`; returns the bytes and their digest. Plain `http://` is only
/// for this machine (or `BLAISE_INSECURE_REGISTRIES`), like registries.
pub async fn download(url: &str) -> Result<(Vec<u8>, Digest)> {
    let parsed = reqwest::Url::parse(url).map_err(|e| anyhow!("`{url}` is not a URL: {e}"))?;
    if parsed.scheme() == "http" {
        let host = match (parsed.host_str(), parsed.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            _ => String::new(),
        };
        if !is_insecure(&host) {
            bail!(
                "`{url}`: plain http:// is only allowed to this machine; use https:// (or list the host in BLAISE_INSECURE_REGISTRIES)"
            );
        }
    }
    let mut response = reqwest::Client::new()
        .get(parsed)
        .send()
        .await
        .map_err(|e| anyhow!("downloading {url}: {e}"))?;
    if !response.status().is_success() {
        bail!(
            "downloading {url}: the server answered {}",
            response.status()
        );
    }
    let bar = progress::bar(response.content_length().unwrap_or(0), url);
    let mut hasher = Sha256::new();
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| anyhow!("downloading {url}: {e}"))?
    {
        hasher.update(&chunk);
        bytes.extend_from_slice(&chunk);
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    Ok((bytes, Digest::from_hex(&hex::encode(hasher.finalize()))))
}
