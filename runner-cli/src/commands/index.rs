//! `blaise-runner plug index add INDEX-FILE REF [--key PUB]`: add the pushed
//! artifact at REF to an index file (created if missing), from what the plug
//! says of itself.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context as _, Result, anyhow};

use blaise_runner::distribution::index::{Index, IndexVersion, Needs, contract_range};
use blaise_runner::distribution::{Digest, Freshness, Locator, PlugCache, Source, Wanted};
use blaise_runner::host::PlugHost;

pub async fn add(
    host: &PlugHost,
    index_file: &Path,
    reference: &str,
    key: Option<&Path>,
) -> Result<ExitCode> {
    if !matches!(Source::parse(reference)?, Source::Oci(_)) {
        anyhow::bail!(
            "`{reference}` is not an OCI reference: push the plug first (`blaise-runner plug push FILE REF`)"
        );
    }
    let mut index = Index::read_or_empty(index_file)?;
    let publisher_key = key
        .map(|k| {
            // Read it as a key first: a typo should not end up in the index.
            blaise_runner::distribution::signature::TrustedKey::read(k)?;
            std::fs::read_to_string(k).with_context(|| format!("reading {}", k.display()))
        })
        .transpose()?;
    let cache = PlugCache::open(host.cache_dir())?;
    let here = std::env::current_dir()?;
    let located = Locator {
        fetcher: Default::default(),
        cache: &cache,
        lock: None,
        lock_path: &here.join(blaise_runner::distribution::lock::FILE_NAME),
        dir: &here,
        freshness: Freshness::AskRegistry,
    }
    .locate(&Wanted {
        id: "index",
        source: reference,
        digest: None,
        keys: &[],
    })
    .await
    .map_err(|e| anyhow!("{reference}: {}", e.message))?;
    let plug = host.load(&located.path).await?;
    let digest = located
        .digest
        .unwrap_or_else(|| Digest::from_hex(&plug.sha256));
    let info = &plug.info;
    index.add(
        &info.name,
        &info.description,
        publisher_key,
        IndexVersion {
            version: info.version.clone(),
            reference: reference.to_string(),
            digest: digest.to_string(),
            contract: plug.contract.to_string(),
            contract_range: contract_range(plug.contract),
            needs: Needs {
                exec: info.needs.exec.clone(),
                http: info.needs.http.clone(),
                secrets: info.needs.secrets.clone(),
                storage: info.needs.storage,
            },
            config_schema: serde_json::from_str(&info.config_schema).ok(),
        },
    );
    index.write(index_file)?;
    println!(
        "added {} {} ({digest}) to {}",
        info.name,
        info.version,
        index_file.display()
    );
    Ok(ExitCode::SUCCESS)
}
