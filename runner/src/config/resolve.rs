//! From `blaise.yml` to a plug chain ready to run: every plug loaded, its
//! `with:` config checked against its schema, its grants and limits computed.

use std::collections::HashMap;
use std::sync::Arc;

use super::error::ConfigError;
use super::parse::ConfigFile;
use crate::distribution::signature::TrustedKey;
use crate::distribution::{
    Digest, Freshness, Locator, LockFile, PlugCache, Source, Wanted, locate::LocateError,
};
use crate::host::{GrantReport, Limits, PlugHost, PlugSetup, grants};
use crate::protocol::IdlePolicy;
use crate::units::format_size;

/// One plug of the chain, resolved.
pub struct ResolvedPlug {
    pub setup: Arc<PlugSetup>,
    pub grants: GrantReport,
    /// What it resolved to (what `blaise.lock` records): the OCI manifest's
    /// digest for a registry plug, the component's otherwise.
    pub digest: Digest,
    /// Said once by `check` and `plug lock`: a pinned tag that moved.
    pub notice: Option<String>,
}

impl ResolvedPlug {
    pub fn loaded(&self) -> &crate::host::LoadedPlug {
        self.setup
            .plug
            .as_deref()
            .expect("resolved plugs are loaded")
    }
}

/// The ids of the plugs whose environment cannot survive a pause.
pub fn cannot_resume(plugs: &[ResolvedPlug]) -> Vec<&str> {
    plugs
        .iter()
        .filter(|p| !p.loaded().info.can_resume)
        .map(|p| p.setup.id.as_str())
        .collect()
}

/// The plugs that would not keep the agent's processes across a pause.
pub fn cannot_keep_processes(plugs: &[ResolvedPlug]) -> Vec<&str> {
    plugs
        .iter()
        .filter(|p| !p.loaded().info.keeps_processes)
        .map(|p| p.setup.id.as_str())
        .collect()
}

/// Whether the plugs' `with:` configs are checked against their schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigCheck {
    Check,
    /// This exact file was already checked (by the runner daemon, which passes
    /// its digest to the run process): the first schema check in a process
    /// costs milliseconds of start-up, so a run does not repeat it.
    AlreadyChecked,
}

/// Whether `blaise.lock` is held against the plugs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockUse {
    /// Refuse a plug whose digest differs from the lock (when there is one).
    Enforce,
    /// Resolve afresh (`blaise-runner plug lock` writing a new lock).
    Ignore,
}

/// Loads and checks every plug of the file, in declaration order.
pub async fn resolve(file: &ConfigFile, host: &PlugHost) -> Result<Vec<ResolvedPlug>, ConfigError> {
    resolve_with(file, host, ConfigCheck::Check).await
}

/// Like [`resolve`], trusting an earlier check of the same file: its configs
/// are not checked again, and its locked plugs are taken from the cache
/// without asking registries what their tags point to now.
pub async fn resolve_with(
    file: &ConfigFile,
    host: &PlugHost,
    config_check: ConfigCheck,
) -> Result<Vec<ResolvedPlug>, ConfigError> {
    resolve_plugs(file, host, config_check, LockUse::Enforce).await
}

/// The whole resolution, with the lock enforced or not.
pub async fn resolve_plugs(
    file: &ConfigFile,
    host: &PlugHost,
    config_check: ConfigCheck,
    lock_use: LockUse,
) -> Result<Vec<ResolvedPlug>, ConfigError> {
    let whole_file = |message: String| ConfigError {
        file: file.path.clone(),
        line: 0,
        column: 0,
        message,
    };
    let lock_path = LockFile::path_for(&file.path);
    let lock = match lock_use {
        LockUse::Enforce => LockFile::read(&lock_path).map_err(|e| whole_file(format!("{e:#}")))?,
        LockUse::Ignore => None,
    };
    let cache = PlugCache::open(host.cache_dir()).map_err(|e| whole_file(format!("{e:#}")))?;
    let locator = Locator {
        fetcher: Default::default(),
        cache: &cache,
        lock: lock.as_ref(),
        lock_path: &lock_path,
        dir: file.dir(),
        // `plug lock` (the lock ignored) asks what tags point to now.
        freshness: match (config_check, lock_use) {
            (ConfigCheck::Check, _) | (_, LockUse::Ignore) => Freshness::AskRegistry,
            (ConfigCheck::AlreadyChecked, LockUse::Enforce) => Freshness::TrustLock,
        },
    };
    let mut keys: HashMap<String, Arc<TrustedKey>> = HashMap::new();
    let mut resolved = Vec::with_capacity(file.config.plugs.len());
    for (index, entry) in file.config.plugs.iter().enumerate() {
        let is_path = matches!(Source::parse(&entry.source), Ok(Source::Path(_)));
        if is_path && !entry.signed_by.is_empty() {
            return Err(file.plug_error(
                index,
                "signed_by",
                "signatures are checked for plugs from an OCI registry; this source is a local file".into(),
            ));
        }
        let key_names = match (&entry.signed_by, is_path) {
            (own, _) if !own.is_empty() => own,
            (_, false) => &file.config.signed_by,
            (_, true) => &Vec::new(),
        };
        let mut plug_keys = Vec::with_capacity(key_names.len());
        for name in key_names {
            let key = match keys.get(name) {
                Some(key) => key.clone(),
                None => {
                    let key = TrustedKey::read(&Source::path_in(name.as_ref(), file.dir()))
                        .map_err(|e| file.plug_error(index, "signed_by", format!("{e:#}")))?;
                    keys.entry(name.clone()).or_insert(Arc::new(key)).clone()
                }
            };
            plug_keys.push(key);
        }
        let plug_keys: Vec<&TrustedKey> = plug_keys.iter().map(|k| k.as_ref()).collect();
        let located = locator
            .locate(&Wanted {
                id: &entry.id,
                source: &entry.source,
                digest: entry.digest.as_deref(),
                keys: &plug_keys,
            })
            .await
            .map_err(|LocateError { key, message }| file.plug_error(index, key, message))?;
        let mut limits = Limits::default();
        if let Some(memory) = entry.limits.memory {
            if memory > host.max_memory() {
                return Err(file.plug_error(
                    index,
                    "limits",
                    format!(
                        "limits.memory {} is above this runner's maximum of {}",
                        format_size(memory),
                        format_size(host.max_memory())
                    ),
                ));
            }
            limits.memory = memory;
        }
        if let Some(deadline) = entry.limits.hook_deadline {
            limits.hook_deadline = deadline;
        }

        let plug = match host.load_with(&located.path, limits).await {
            Ok(plug) => plug,
            Err(e) => {
                // A download that is not a plug this runner can run is not
                // kept: the cache holds what was accepted.
                let removed = !is_path && cache.forget(&located.path, located.digest.as_ref());
                let removed = if removed {
                    " (removed from the cache)"
                } else {
                    ""
                };
                return Err(file.plug_error(index, "source", format!("{e:#}{removed}")));
            }
        };
        let actual = Digest::from_hex(&plug.sha256);
        if let Some(expected) = &located.component
            && *expected != actual
        {
            let message = if is_path && entry.digest.is_some() {
                format!(
                    "{} has digest {actual}, not the pinned {expected}",
                    located.path.display()
                )
            } else if is_path {
                format!(
                    "{} has digest {actual}, but {} has {expected}: the file changed since it was locked; run `blaise-runner plug lock` to update the lock",
                    located.path.display(),
                    lock_path.display()
                )
            } else {
                // The cache holds only checked files: this one was changed on disk.
                let _ = std::fs::remove_file(&located.path);
                format!(
                    "the cached {} has digest {actual}, not {expected}: it was changed on disk and is removed; run the command again to download it",
                    located.path.display()
                )
            };
            return Err(file.plug_error(index, "source", message));
        }
        let digest = located.digest.unwrap_or(actual);

        let config = entry.with.clone().unwrap_or(serde_json::json!({}));
        if config_check == ConfigCheck::Check {
            check_config(&plug.info.config_schema, &config)
                .map_err(|e| file.plug_error(index, "with", e))?;
        }

        // What is not granted is `check`'s to say (and the daemon's, once, at
        // its start): a run does not repeat it.
        let report = grants::effective(&plug.info.needs, &entry.allow);
        let setup = PlugSetup::new(
            entry.id.clone(),
            plug,
            config.to_string(),
            report.effective.clone(),
            limits,
        );
        resolved.push(ResolvedPlug {
            setup: Arc::new(setup),
            grants: report,
            digest,
            notice: located.notice,
        });
    }
    Ok(resolved)
}

/// Checks a plug's `with:` config against the JSON Schema it describes.
pub fn check_config(schema: &str, config: &serde_json::Value) -> Result<(), String> {
    let schema: serde_json::Value = serde_json::from_str(schema)
        .map_err(|e| format!("the plug describes an invalid config schema (not JSON: {e})"))?;
    let validator = jsonschema::validator_for(&schema)
        .map_err(|e| format!("the plug describes an invalid config schema: {e}"))?;
    let problems: Vec<String> = validator
        .iter_errors(config)
        .flat_map(|e| explained(e.to_owned()))
        .map(|e| {
            let at = e.instance_path.to_string();
            let field = at.trim_start_matches('/').replace('/', ".");
            // A config value may be a secret (the redaction plug's literals):
            // the error says what is wrong with it, not what it is.
            let value = e.instance.to_string();
            let mut why = e.to_string();
            if e.instance.is_string() && value.len() > 2 {
                why = why.replace(&value, "the value");
            }
            // A pattern says little to the operator: the field's own words do.
            if matches!(
                e.kind,
                jsonschema::error::ValidationErrorKind::Pattern { .. }
            ) && let Some(said) = description(&schema, e.schema_path.as_str())
            {
                why = format!("the value is not of the form this field takes ({said})");
            }
            if field.is_empty() {
                format!("with: {why}")
            } else {
                format!("with.{field}: {why}")
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// The description nearest above `path` (where the validator was in
/// `schema`, `$ref`s followed): the field's, or its list's for an item.
fn description(schema: &serde_json::Value, path: &str) -> Option<String> {
    let mut nodes = vec![schema];
    for segment in path.split('/').skip(1) {
        let here = *nodes.last()?;
        let next = if segment == "$ref" {
            let target = here.get("$ref")?.as_str()?.strip_prefix('#')?;
            schema.pointer(target)?
        } else {
            let key = segment.replace("~1", "/").replace("~0", "~");
            match here {
                serde_json::Value::Array(items) => items.get(key.parse::<usize>().ok()?)?,
                other => other.get(&key)?,
            }
        };
        nodes.push(next);
    }
    // Past the keyword itself (`pattern`), a few levels up at most.
    nodes.iter().rev().skip(1).take(3).find_map(|node| {
        // The plug author's words, for the operator's terminal: shown, not obeyed.
        let said = node.get("description")?.as_str()?;
        let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
        Some(crate::distribution::download::printable(&said))
    })
}

/// The errors to show for `e`: for a value that fits none of a field's
/// alternatives (`network: false | {allow: [...]}`), what is wrong with it
/// under the one alternative of its own type, when there is exactly one.
fn explained(e: jsonschema::ValidationError<'static>) -> Vec<jsonschema::ValidationError<'static>> {
    use jsonschema::error::ValidationErrorKind;
    let here = e.instance_path.to_string();
    let pick = match &e.kind {
        ValidationErrorKind::AnyOf { context } => {
            let of_its_type: Vec<usize> = (0..context.len())
                .filter(|&i| {
                    !context[i].is_empty()
                        && !context[i].iter().any(|c| {
                            c.instance_path.to_string() == here
                                && matches!(c.kind, ValidationErrorKind::Type { .. })
                        })
                })
                .collect();
            match of_its_type.as_slice() {
                [one] => Some(*one),
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(i) = pick
        && let ValidationErrorKind::AnyOf { context } = e.kind
    {
        let errors = context.into_iter().nth(i).unwrap_or_default();
        return errors.into_iter().flat_map(explained).collect();
    }
    vec![e]
}

/// The runner's startup check: a chain that cannot resume is refused when the
/// agent's idle policy is to pause.
pub fn startup_check(plugs: &[ResolvedPlug], idle_policy: IdlePolicy) -> Option<String> {
    if idle_policy != IdlePolicy::Pause {
        return None;
    }
    let cannot = cannot_resume(plugs);
    (!cannot.is_empty()).then(|| {
        format!(
            "the agent's idle policy is `pause`, but plug(s) {} cannot resume: remove them, or set the agent's idle policy to `end`",
            cannot.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::check_config;

    #[test]
    fn a_value_that_fits_no_alternative_is_explained_by_its_own_kind() {
        let schema = r#"{"type":"object","properties":{"network":{"anyOf":[
            {"type":"boolean"},
            {"type":"object","properties":{"allow":{"type":"array","items":{"type":"string","pattern":"^[a-z.]+$"}}}}
        ]}}}"#;
        let err = check_config(
            schema,
            &serde_json::json!({"network": {"allow": ["ok.example", "*"]}}),
        )
        .unwrap_err();
        assert!(err.starts_with("with.network.allow.1: "), "{err}");
        assert!(err.contains("does not match"), "{err}");
        // With the field's description, that is what the operator reads.
        let described = schema.replace(
            r#"{"type":"array","#,
            r#"{"description":"destinations, `host[:port]`","type":"array","#,
        );
        let err = check_config(
            &described,
            &serde_json::json!({"network": {"allow": ["*"]}}),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "with.network.allow.0: the value is not of the form this field takes (destinations, `host[:port]`)"
        );
        // A description with terminal controls is shown escaped.
        let hostile = schema.replace(
            r#"{"type":"array","#,
            r#"{"description":"dest\u001b]0;pwned\u0007","type":"array","#,
        );
        let err =
            check_config(&hostile, &serde_json::json!({"network": {"allow": ["*"]}})).unwrap_err();
        assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    }

    #[test]
    fn a_bad_config_value_is_named_not_echoed() {
        let schema = r#"{"type":"object","properties":{"literals":{"type":"array","items":{"type":"string","minLength":8}}}}"#;
        let err = check_config(schema, &serde_json::json!({"literals": ["hunter2"]})).unwrap_err();
        assert!(err.starts_with("with.literals.0: "), "{err}");
        assert!(!err.contains("hunter2"), "the value is not repeated: {err}");
    }
}
