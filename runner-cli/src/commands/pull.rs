//! `blaise-runner plug pull REF`: fetch a plug into the cache, verify its
//! digest, load it, and say what it is.

use std::process::ExitCode;

use anyhow::{Result, anyhow};

use blaise_runner::distribution::{Digest, Freshness, Locator, PlugCache, Wanted};
use blaise_runner::host::PlugHost;

pub async fn run(host: &PlugHost, source: &str) -> Result<ExitCode> {
    let cache = PlugCache::open(host.cache_dir())?;
    let here = std::env::current_dir()?;
    let locator = Locator {
        fetcher: Default::default(),
        cache: &cache,
        lock: None,
        lock_path: &here.join(blaise_runner::distribution::lock::FILE_NAME),
        dir: &here,
        freshness: Freshness::AskRegistry,
    };
    let located = locator
        .locate(&Wanted {
            id: "pull",
            source,
            digest: None,
            keys: &[],
        })
        .await
        .map_err(|e| {
            if e.message.contains(source) {
                anyhow!("{}", e.message)
            } else {
                anyhow!("{source}: {}", e.message)
            }
        })?;
    let plug = match host.load(&located.path).await {
        Ok(plug) => plug,
        Err(e) => {
            cache.forget(&located.path, located.digest.as_ref());
            return Err(anyhow::Error::from(e).context(format!("{source}: not kept in the cache")));
        }
    };
    if let Some(notice) = &located.notice {
        eprintln!("note: {notice}");
    }
    let digest = located
        .digest
        .unwrap_or_else(|| Digest::from_hex(&plug.sha256));
    eprintln!(
        "{} {} (contract {}), cached at {}",
        plug.info.name,
        plug.info.version,
        plug.contract,
        located.path.display()
    );
    println!("{digest}");
    Ok(ExitCode::SUCCESS)
}
