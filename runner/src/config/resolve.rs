//! From `blaise.yml` to a plug chain ready to run: every plug loaded, its
//! `with:` config checked against its schema, its grants and limits computed.

use std::path::PathBuf;
use std::sync::Arc;

use super::error::ConfigError;
use super::parse::ConfigFile;
use crate::host::{GrantReport, Limits, PlugHost, PlugSetup, grants};
use crate::units::format_size;

/// One plug of the chain, resolved.
pub struct ResolvedPlug {
    pub setup: Arc<PlugSetup>,
    pub grants: GrantReport,
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

/// Whether the plugs' `with:` configs are checked against their schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigCheck {
    Check,
    /// This exact file was already checked (by the runner daemon, which passes
    /// its digest to the run process): the first schema check in a process
    /// costs milliseconds of start-up, so a run does not repeat it.
    AlreadyChecked,
}

/// Loads and checks every plug of the file, in declaration order.
pub async fn resolve(file: &ConfigFile, host: &PlugHost) -> Result<Vec<ResolvedPlug>, ConfigError> {
    resolve_with(file, host, ConfigCheck::Check).await
}

/// Like [`resolve`], trusting an earlier check of the same file's configs.
pub async fn resolve_with(
    file: &ConfigFile,
    host: &PlugHost,
    config_check: ConfigCheck,
) -> Result<Vec<ResolvedPlug>, ConfigError> {
    let mut resolved = Vec::with_capacity(file.config.plugs.len());
    for (index, entry) in file.config.plugs.iter().enumerate() {
        let path = source_path(file, &entry.source);
        let plug = host
            .load(&path)
            .await
            .map_err(|e| file.plug_error(index, "source", format!("{e:#}")))?;

        let config = entry.with.clone().unwrap_or(serde_json::json!({}));
        if config_check == ConfigCheck::Check {
            check_config(&plug.info.config_schema, &config)
                .map_err(|e| file.plug_error(index, "with", e))?;
        }

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

        let report = grants::effective(&plug.info.needs, &entry.allow);
        for missing in &report.not_granted {
            tracing::warn!(plug = %entry.id, "the plug asks for `{missing}`, which blaise.yml does not grant: such calls will be denied");
        }
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
        });
    }
    Ok(resolved)
}

fn source_path(file: &ConfigFile, source: &str) -> PathBuf {
    let path = PathBuf::from(source);
    if path.is_absolute() {
        path
    } else {
        file.dir().join(path)
    }
}

/// Checks a plug's `with:` config against the JSON Schema it describes.
fn check_config(schema: &str, config: &serde_json::Value) -> Result<(), String> {
    let schema: serde_json::Value = serde_json::from_str(schema)
        .map_err(|e| format!("the plug describes an invalid config schema (not JSON: {e})"))?;
    let validator = jsonschema::validator_for(&schema)
        .map_err(|e| format!("the plug describes an invalid config schema: {e}"))?;
    let problems: Vec<String> = validator
        .iter_errors(config)
        .map(|e| {
            let at = e.instance_path.to_string();
            let field = at.trim_start_matches('/').replace('/', ".");
            if field.is_empty() {
                format!("with: {e}")
            } else {
                format!("with.{field}: {e}")
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}
