//! `blaise-runner plug lock [--config FILE]`: resolve every plug of
//! `blaise.yml` to a digest and write `blaise.lock` beside it.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use blaise_runner::config::{ConfigCheck, ConfigFile, LockUse, resolve_plugs};
use blaise_runner::distribution::{LockFile, LockedPlug};
use blaise_runner::host::PlugHost;

pub async fn run(host: &PlugHost, config: &Path) -> Result<ExitCode> {
    let file = match ConfigFile::load(config) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    // Digests only: `with:` configs are `check`'s business (a plug just added
    // may still have its config to fill in).
    let plugs = match resolve_plugs(&file, host, ConfigCheck::AlreadyChecked, LockUse::Ignore).await
    {
        Ok(plugs) => plugs,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let entries: Vec<LockedPlug> = file
        .config
        .plugs
        .iter()
        .zip(&plugs)
        .map(|(entry, plug)| LockedPlug {
            id: entry.id.clone(),
            source: entry.source.clone(),
            digest: plug.digest.to_string(),
        })
        .collect();
    let path = LockFile::path_for(config);
    for plug in &plugs {
        if let Some(notice) = &plug.notice {
            println!("note: plug `{}`: {notice}", plug.setup.id);
        }
    }
    for entry in &entries {
        println!("{}  {}  {}", entry.id, entry.digest, entry.source);
    }
    LockFile::new(entries).write(&path)?;
    println!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}
