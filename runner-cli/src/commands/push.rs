//! `blaise-runner plug push FILE REF [--sign KEY]`: publish a built plug as a
//! Wasm OCI artifact, annotated from its own `describe()`; print its digest.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context as _, Result};

use blaise_runner::contract;
use blaise_runner::distribution::oci::{self, Artifact};
use blaise_runner::distribution::{OciReference, signature};
use blaise_runner::host::PlugHost;

pub struct PushOptions<'a> {
    pub sign: Option<&'a Path>,
    /// `org.opencontainers.image.source`, e.g. the plug's repository URL.
    pub source_url: Option<String>,
    /// `org.opencontainers.image.licenses`, an SPDX expression.
    pub licenses: Option<String>,
}

pub async fn run(
    host: &PlugHost,
    file: &Path,
    reference: &str,
    options: PushOptions<'_>,
) -> Result<ExitCode> {
    let reference = OciReference::parse(reference)?;
    let wasm = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    // Loading checks it is a plug of a contract this runner knows, and says what it is.
    let plug = host.load_bytes(&wasm, file).await?;
    let info = &plug.info;
    let mut annotations = BTreeMap::from([
        (oci::TITLE_ANNOTATION.to_string(), info.name.clone()),
        (oci::VERSION_ANNOTATION.to_string(), info.version.clone()),
        (
            oci::DESCRIPTION_ANNOTATION.to_string(),
            info.description.clone(),
        ),
        (
            oci::CONTRACT_ANNOTATION.to_string(),
            plug.contract.to_string(),
        ),
    ]);
    if let Some(url) = options.source_url {
        annotations.insert(oci::SOURCE_ANNOTATION.to_string(), url);
    }
    if let Some(licenses) = options.licenses {
        annotations.insert(oci::LICENSES_ANNOTATION.to_string(), licenses);
    }
    let mut exports = vec![format!("{}/hooks@{}", contract::PACKAGE, plug.contract)];
    if info.filters_transcript {
        exports.push(format!(
            "{}/transcript@{}",
            contract::PACKAGE,
            plug.contract
        ));
    }
    let digest = oci::push(
        &reference,
        Artifact {
            wasm,
            annotations,
            exports,
            imports: plug.imports.clone(),
        },
    )
    .await?;
    if let Some(key) = options.sign {
        signature::sign(&reference, &digest, key).await?;
        eprintln!("signed {reference}@{digest} with {}", key.display());
    }
    eprintln!(
        "pushed {} {} (contract {}) to {reference}",
        info.name, info.version, plug.contract
    );
    println!("{digest}");
    Ok(ExitCode::SUCCESS)
}
