//! `blaise-runner plug add NAME[@VERSION]`: append a plug from the index to
//! `blaise.yml`, pinned by digest, with the grants it asks for written out for
//! the operator to review. The file's own text and comments are kept: the
//! entry is inserted as text at the end of the `plugs:` list.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, anyhow, bail};

use blaise_runner::config::ConfigFile;
use blaise_runner::contract;
use blaise_runner::distribution::index::{Index, IndexPlug, IndexVersion};

pub async fn run(
    spec: &str,
    index_location: &str,
    config: &Path,
    id: Option<String>,
) -> Result<ExitCode> {
    let (name, version) = match spec.split_once('@') {
        Some((n, v)) => (n, Some(v)),
        None => (spec, None),
    };
    let index = Index::load(index_location).await?;
    let plug = index.plug(name).ok_or_else(|| {
        anyhow!(
            "no plug named `{name}` in {index_location}; try `blaise-runner plug search {name}`"
        )
    })?;
    let chosen = pick(plug, version)?;
    blaise_runner::distribution::Digest::parse(&chosen.digest).map_err(|e| {
        anyhow!(
            "the index gives `{}@{}` a digest that is not one: {e:#}",
            plug.name,
            chosen.version
        )
    })?;
    let file = ConfigFile::load(config).map_err(|e| anyhow!("{e}"))?;
    let id = id.unwrap_or_else(|| plug_id(name));
    if file.config.plugs.iter().any(|p| p.id == id) {
        bail!(
            "{} already has a plug with id `{id}`: choose another with `--id`",
            config.display()
        );
    }
    let key = match &plug.publisher_key {
        Some(pem) => Some(write_key(&file, name, pem)?),
        None => None,
    };
    let entry = entry_lines(&id, plug, chosen, key.as_deref(), index_location);
    let text = insert_entry(&file.text, &entry);
    // Never leave a blaise.yml that does not parse.
    ConfigFile::parse(config, text.clone()).map_err(|e| {
        anyhow!(
            "the entry could not be added without breaking {}: {e}",
            config.display()
        )
    })?;
    blaise_runner::files::write_atomically(config, &text)?;
    println!(
        "added plug `{id}`: {} {} ({}) to {}",
        plug.name,
        chosen.version,
        chosen.digest,
        config.display()
    );
    println!(
        "review the grants it asks for (`allow:`), then run `blaise-runner plug lock` and `blaise-runner check`"
    );
    Ok(ExitCode::SUCCESS)
}

/// The version asked for, or the newest this runner can run; an incompatible
/// one is refused here, before anything is downloaded.
fn pick<'a>(plug: &'a IndexPlug, version: Option<&str>) -> Result<&'a IndexVersion> {
    let listed = || {
        plug.versions
            .iter()
            .map(|v| format!("{} (contract {})", v.version, v.contract))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match version {
        Some(v) => {
            let chosen = plug.version(v).ok_or_else(|| {
                anyhow!("`{}` has no version {v}; it has: {}", plug.name, listed())
            })?;
            chosen
                .compatible()
                .map_err(|why| anyhow!("`{}@{v}` cannot run here: {why}", plug.name))?;
            Ok(chosen)
        }
        None => plug.latest_compatible().ok_or_else(|| {
            anyhow!(
                "no version of `{}` runs on this runner's plug contract {}@{} (it accepts {}); versions: {}",
                plug.name,
                contract::PACKAGE,
                contract::VERSION,
                contract::supported_range(),
                listed()
            )
        }),
    }
}

/// A valid plug id from a name: lowercase, `-` for anything else.
fn plug_id(name: &str) -> String {
    let id: String = name
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let id = id.trim_matches('-').to_string();
    if id.is_empty() { "plug".into() } else { id }
}

/// Writes the publisher's key to `keys/NAME.pub` beside blaise.yml; returns
/// the path as written in blaise.yml.
fn write_key(file: &ConfigFile, name: &str, pem: &str) -> Result<String> {
    let relative = format!("keys/{}.pub", plug_id(name));
    let path: PathBuf = file.dir().join(&relative);
    match std::fs::read_to_string(&path) {
        Ok(existing) if existing.trim() == pem.trim() => {}
        Ok(_) => bail!(
            "{} exists with another key than the index's publisher key for `{name}`: the publisher changed keys, or the index is not the one you trusted; check before replacing it",
            path.display()
        ),
        Err(_) => {
            std::fs::create_dir_all(path.parent().context("key path has no parent")?)?;
            std::fs::write(&path, pem)?;
        }
    }
    Ok(relative)
}

fn entry_lines(
    id: &str,
    plug: &IndexPlug,
    version: &IndexVersion,
    key: Option<&str>,
    index: &str,
) -> Vec<String> {
    let list = |items: &[String]| serde_json::to_string(items).unwrap_or_else(|_| "[]".into());
    let mut lines = vec![
        format!(
            "# {} {} from {index}: {}",
            plug.name,
            version.version,
            one_line(&plug.description)
        ),
        format!("- id: {id}"),
        format!(
            "  source: {}",
            serde_json::to_string(&version.reference).unwrap_or_default()
        ),
        // Checked by the caller to be a digest: nothing else reaches the file.
        format!("  digest: {}", version.digest),
    ];
    if let Some(key) = key {
        lines.push(format!(
            "  signed_by: [{}]",
            serde_json::to_string(key).unwrap_or_default()
        ));
    }
    let required = version.required_config();
    if !required.is_empty() {
        lines.push(format!(
            "  # Its config must set: {} (the schema: `blaise-runner plug inspect` on the file `plug pull` names).",
            // Names from the index's schema: escaped, so none can end the comment.
            required
                .iter()
                .map(|r| blaise_runner::distribution::download::shown(r))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        lines.push("  with: {}".into());
    }
    lines.push("  # The grants this version asks for: review them, keep what you grant.".into());
    lines.push("  allow:".into());
    lines.push(format!("    exec: {}", list(&version.needs.exec)));
    lines.push(format!("    http: {}", list(&version.needs.http)));
    if version.needs.storage {
        lines.push("    storage: true".into());
    }
    if !version.needs.secrets.is_empty() {
        // A secret's grant says where its value comes from: the operator's call.
        lines.push(format!(
            "    # It reads the secrets {}: grant each with where its value comes from, e.g.",
            version.needs.secrets.join(", ")
        ));
        let example: Vec<String> = version
            .needs
            .secrets
            .iter()
            .map(|s| format!("{s}: {{ env: {s} }}"))
            .collect();
        lines.push(format!("    # secrets: {{ {} }}", example.join(", ")));
    }
    lines
}

fn one_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

/// Inserts a list entry (lines without indentation) at the end of the
/// top-level `plugs:` list, indented like the entries already there.
pub fn insert_entry(text: &str, entry: &[String]) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let is_plugs = |l: &str| {
        l.strip_prefix("plugs:").map(|rest| {
            rest.trim()
                .split('#')
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        })
    };
    let start = lines.iter().position(|l| is_plugs(l).is_some());
    let indented = |indent: usize| -> Vec<String> {
        entry
            .iter()
            .map(|l| format!("{}{l}", " ".repeat(indent)))
            .collect()
    };
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match start {
        None => {
            out.push("plugs:".into());
            out.extend(indented(2));
        }
        Some(i) if is_plugs(lines[i]).as_deref() == Some("[]") => {
            out[i] = "plugs:".into();
            for (k, line) in indented(2).into_iter().enumerate() {
                out.insert(i + 1 + k, line);
            }
        }
        Some(i) => {
            let mut end = lines.len();
            for (j, line) in lines.iter().enumerate().skip(i + 1) {
                let first = line.chars().next();
                if matches!(first, Some(c) if !matches!(c, ' ' | '\t' | '-' | '#')) {
                    end = j;
                    break;
                }
            }
            // Blank lines and column-0 comments before the next key belong to it.
            while end > i + 1 && {
                let l = lines[end - 1];
                l.trim().is_empty() || l.starts_with('#')
            } {
                end -= 1;
            }
            let indent = lines[i + 1..end]
                .iter()
                .find(|l| l.trim_start().starts_with("- "))
                .map(|l| l.len() - l.trim_start().len())
                .unwrap_or(2);
            for (k, line) in indented(indent).into_iter().enumerate() {
                out.insert(end + k, line);
            }
        }
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Vec<String> {
        vec!["- id: new".into(), "  source: x.wasm".into()]
    }

    #[test]
    fn appends_to_the_plugs_list_keeping_the_text() {
        let text = "# my runner\nagent:\n  command: [a]\nplugs:\n  # first\n  - id: a\n    source: a.wasm\n\n# tail comment\nsigned_by: []\n";
        let out = insert_entry(text, &entry());
        assert_eq!(
            out,
            "# my runner\nagent:\n  command: [a]\nplugs:\n  # first\n  - id: a\n    source: a.wasm\n  - id: new\n    source: x.wasm\n\n# tail comment\nsigned_by: []\n"
        );
        let zero = insert_entry("plugs:\n- id: a\n  source: a.wasm\n", &entry());
        assert_eq!(
            zero,
            "plugs:\n- id: a\n  source: a.wasm\n- id: new\n  source: x.wasm\n"
        );
        let empty = insert_entry("agent: {command: [a]}\nplugs: []\n", &entry());
        assert_eq!(
            empty,
            "agent: {command: [a]}\nplugs:\n  - id: new\n    source: x.wasm\n"
        );
        let none = insert_entry("agent: {command: [a]}", &entry());
        assert_eq!(
            none,
            "agent: {command: [a]}\nplugs:\n  - id: new\n    source: x.wasm\n"
        );
    }
}
