//! The `with:` config of the sandbox plug, and the checks the schema cannot express.

use blaise_plug::{Context, PlugError};
use serde::Deserialize;

pub const SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "network": {"type": "boolean", "description": "share the host's network (default: false, only loopback)"},
    "read_only": {"type": "array", "items": {"type": "string", "pattern": "^/"}, "description": "more host paths the agent may read (e.g. where it is installed)"},
    "read_write": {"type": "array", "items": {"type": "string", "pattern": "^/"}, "description": "more host paths the agent may write"},
    "hostname": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9.-]{0,62}$", "description": "host name inside the sandbox (default: sandbox)"}
  },
  "additionalProperties": false
}"#;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub network: bool,
    #[serde(default)]
    pub read_only: Vec<String>,
    #[serde(default)]
    pub read_write: Vec<String>,
    #[serde(default = "default_hostname")]
    pub hostname: String,
}

fn default_hostname() -> String {
    "sandbox".into()
}

impl Config {
    pub fn read(ctx: &Context) -> Result<Config, PlugError> {
        let config: Config = ctx.config()?;
        for path in &config.read_write {
            if config.read_only.iter().any(|p| same(p, path)) {
                return Err(PlugError::field(
                    "read_write",
                    format!(
                        "`{path}` is also in `read_only`: a path is either read-only or writable"
                    ),
                ));
            }
        }
        for (field, paths) in [
            ("read_only", &config.read_only),
            ("read_write", &config.read_write),
        ] {
            if let Some(path) = paths
                .iter()
                .find(|p| !p.starts_with('/') || p.split('/').any(|c| c == ".."))
            {
                return Err(PlugError::field(
                    field,
                    format!("`{path}` must be an absolute path without `..`"),
                ));
            }
        }
        Ok(config)
    }
}

fn same(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}
